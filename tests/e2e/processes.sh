#!/bin/sh
# Several processes on one database: four read-only samplers at once give the
# digests of a single run, also while another process imports a large graph;
# a second writer during that import is refused with "database is busy", and
# the import completes.
set -u
fail() { echo "FAIL: $*"; exit 1; }
ROOT=$OLDPWD
D=$GNNDB_DATA/cora
DB=$PWD/p.gnndb
Q="SAMPLE 10,10,5 FROM cora SEEDS train FEATURES feat BATCH 16 SHUFFLE SEED 5 EPOCHS 3;"

"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$D/edges.tsv';" \
    "IMPORT FEATURES feat INTO cora FROM '$D/features.npy';" \
    "CREATE SPLIT train ON cora FROM '$D/train_idx.npy';" > /dev/null || fail setup
"$GNNDB" -readonly -csv -noheader "$DB" "$Q" > single.txt 2> /dev/null || fail "single run"
[ "$(wc -l < single.txt)" -gt 10 ] || fail "too few batches: $(wc -l < single.txt)"

# start N read-only samplers at once; check each against the single run
readers() {
    pids=""
    for i in 1 2 3 4; do
        "$GNNDB" -readonly -csv -noheader "$DB" "$Q" > "r$1.$i.txt" 2> "r$1.$i.err" &
        pids="$pids $!"
    done
    for p in $pids; do wait "$p" || fail "a reader failed ($1)"; done
    for i in 1 2 3 4; do
        cmp -s single.txt "r$1.$i.txt" ||
            fail "reader $i ($1) differs: $(diff single.txt r$1.$i.txt | head -3)"
    done
    echo "ok: 4 concurrent readers ($1) agree with a single run"
}
readers idle

# a long import in one process ...
GEN=$ROOT/build/bench/gen
if [ ! -x "$GEN" ]; then
    cc -O2 -std=gnu11 -D_GNU_SOURCE -o gen "$ROOT/bench/gen.c" -lm -lpthread || fail "build gen"
    GEN=$PWD/gen
fi
"$GEN" --scale 19 --edge-factor 16 --seed 3 --out big.bin > /dev/null 2>&1 || fail gen
"$GNNDB" "$DB" "CREATE GRAPH big FROM '$PWD/big.bin' FORMAT bin;" > import.log 2>&1 &
imp=$!
# ... holds the write lock once its temporary files appear
n=0
while ! ls "$DB" | grep -q -e '\.tmp$' -e '^tmp-'; do
    kill -0 $imp 2> /dev/null || break
    n=$((n + 1)); [ $n -lt 2000 ] || fail "the import never started"
    sleep 0.01
done
busy=0
if kill -0 $imp 2> /dev/null; then
    out=$("$GNNDB" "$DB" "CREATE SPLIT other ON cora RANDOM 0.5 SEED 1;" 2>&1) &&
        fail "a second writer was let in during the import: $out"
    echo "$out" | grep -q "database is busy" || fail "second writer: $out"
    busy=1
    echo "ok: second writer refused: $out"
fi
# ... while readers keep reading
readers importing
wait $imp || fail "the import failed: $(cat import.log)"
[ $busy -eq 1 ] || fail "the import finished before the second writer tried (machine too fast?)"
"$GNNDB" -csv -noheader "$DB" "SHOW GRAPHS;" | grep -q '^big,' || fail "big not published"
# the writer that was refused succeeds now
"$GNNDB" "$DB" "CREATE SPLIT other ON cora RANDOM 0.5 SEED 1;" || fail "writer after import"
readers after
