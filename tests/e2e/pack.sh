#!/bin/sh
# Packs: SAMPLE ... INTO PACK stores the batches of every epoch, SCAN PACK
# gives back the very batches the online SAMPLE gives (same rows, same
# digests, byte-identical arrays), EPOCH picks one epoch; the errors (unknown
# pack, name taken, EPOCH beyond the pack, a damaged block) are clear and
# change nothing; DROP PACK and DROP GRAPH remove the file; a kill -9 while a
# pack is written leaves no pack and no stray file after the next open.
set -u
fail() { echo "FAIL: $*"; exit 1; }
ROOT=$OLDPWD
C=$GNNDB_DATA/cora
DB=$PWD/p.gnndb
"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$C/edges.tsv';
    IMPORT FEATURES feat INTO cora FROM '$C/features.npy';
    IMPORT LABELS INTO cora FROM '$C/labels.npy';
    CREATE SPLIT train ON cora FROM '$C/train_idx.npy';" > /dev/null || fail setup

Q="SAMPLE 10,5 FROM cora SEEDS train FEATURES feat BATCH 32 SHUFFLE SEED 7 EPOCHS 2"
out=$("$GNNDB" -csv -noheader "$DB" "$Q INTO PACK p1;") || fail "INTO PACK: $out"
echo "$out" | grep -q '^p1,2,10,' || fail "INTO PACK row: $out"
"$GNNDB" -csv "$DB" "$Q;" > online.csv || fail "online SAMPLE"
"$GNNDB" -csv "$DB" "SCAN PACK p1;" > packed.csv || fail "SCAN PACK"
[ "$(wc -l < online.csv)" -eq 10 ] || fail "online gave $(wc -l < online.csv) lines"
cmp -s online.csv packed.csv || { diff online.csv packed.csv; fail "SCAN PACK differs from SAMPLE"; }
echo "ok: SCAN PACK rows and digests equal the online SAMPLE's (2 epochs, SHUFFLE SEED 7)"

# EPOCH e: exactly the rows of epoch e
for ep in 0 1; do
    "$GNNDB" -csv "$DB" "SCAN PACK p1 EPOCH $ep;" > ep.csv || fail "EPOCH $ep"
    grep "^$ep," online.csv > want.csv
    cmp -s ep.csv want.csv || { diff ep.csv want.csv; fail "EPOCH $ep"; }
done
echo "ok: EPOCH 0 and EPOCH 1 give their epoch's batches"

# the arrays themselves, byte for byte, through INTO 'dir'
"$GNNDB" "$DB" "$Q INTO 'online';" > /dev/null || fail "SAMPLE INTO dir"
"$GNNDB" "$DB" "SCAN PACK p1 INTO 'packed';" > /dev/null || fail "SCAN PACK INTO dir"
n=$(find online -name '*.npy' | wc -l)
[ "$n" -eq 60 ] || fail "expected 60 .npy files (10 batches x 6), got $n"
diff -r online packed > /dev/null || fail "npy files differ between SAMPLE and SCAN PACK"
echo "ok: n_id, edge_index, num_sampled_*, x, y identical ($n files)"

# LIMIT: the pack holds what the SAMPLE handed out
"$GNNDB" "$DB" "SAMPLE 10 FROM cora BATCH 100 SEED 3 LIMIT 4 INTO PACK small;" > /dev/null || fail "LIMIT pack"
[ "$("$GNNDB" -csv -noheader "$DB" "SCAN PACK small;" | wc -l)" -eq 4 ] || fail "LIMIT 4 pack"

# DESCRIBE and CHECK list the packs
"$GNNDB" -csv "$DB" "DESCRIBE cora;" > d.csv || fail DESCRIBE
grep -q '^pack.p1,"10 batches (2 epochs x 5), SEED 7' d.csv || fail "DESCRIBE lacks pack.p1: $(grep pack d.csv)"
grep -q '^pack.small,' d.csv || fail "DESCRIBE lacks pack.small"
"$GNNDB" "$DB" "CHECK;" | grep -q '^ok' || fail "CHECK of a sound database"

# errors: each clear, each changing nothing
before=$(ls "$DB" | sort; "$GNNDB" -csv "$DB" "DESCRIBE cora;" | grep '^pack')
expect_err() {
    out=$("$GNNDB" "$DB" "$1" 2>&1) && fail "'$1' succeeded: $out"
    echo "$out" | grep -q "$2" || fail "'$1': '$out' lacks '$2'"
    now=$(ls "$DB" | sort; "$GNNDB" -csv "$DB" "DESCRIBE cora;" | grep '^pack')
    [ "$now" = "$before" ] || fail "'$1' changed the database"
    echo "ok: $1 -> $out"
}
expect_err "SCAN PACK nope;" "no such pack: nope"
expect_err "DROP PACK nope;" "no such pack: nope"
expect_err "$Q INTO PACK p1;" "pack 'p1' already exists"
expect_err "SCAN PACK p1 EPOCH 2;" "EPOCH 2 is beyond the pack's epochs"
expect_err "SAMPLE 10 FROM nograph BATCH 4 INTO PACK p9;" "no such graph"

# a read-only handle scans
"$GNNDB" -readonly -csv "$DB" "SCAN PACK p1;" > ro.csv || fail "read-only SCAN PACK"
cmp -s ro.csv online.csv || fail "read-only SCAN PACK differs"
out=$("$GNNDB" -readonly "$DB" "$Q INTO PACK p2;" 2>&1) && fail "read-only INTO PACK: $out"
echo "ok: read-only handles scan packs and cannot build them"

# a damaged block: SCAN PACK and CHECK name the file and the block
file=$(ls "$DB" | grep '^p-' | head -1)
for f in $(ls "$DB" | grep '^p-'); do
    "$GNNDB" -csv -noheader "$DB" "DESCRIBE cora;" | grep -q "^file.$f,19922944" && file=$f
done
cp "$DB/$file" saved.blk
printf 'X' | dd of="$DB/$file" bs=1 seek=$((17 * 1048576 + 5000)) conv=notrunc 2>/dev/null
out=$("$GNNDB" "$DB" "SCAN PACK p1;" 2>&1) && fail "SCAN PACK of a damaged pack succeeded"
echo "$out" | grep -q "corrupt block 17 of .*$file: page 1: checksum mismatch" || fail "corruption words: $out"
echo "ok: damaged block reported: $(echo "$out" | grep -i corrupt)"
out=$("$GNNDB" "$DB" "SCAN PACK p1 EPOCH 0;" 2>&1) || fail "epoch 0 lies before the damage: $out"
"$GNNDB" "$DB" "CHECK;" | grep -q "$file.*block 17" || fail "CHECK does not report block 17 of $file"
cp saved.blk "$DB/$file"
"$GNNDB" "$DB" "CHECK;" | grep -q '^ok' || fail "CHECK after repair"
echo "ok: CHECK reports the damaged pack block"

# DROP PACK and DROP GRAPH remove pack files
"$GNNDB" "$DB" "DROP PACK small;" || fail "DROP PACK"
"$GNNDB" "$DB" "SCAN PACK small;" 2>&1 | grep -q "no such pack" || fail "small still there"
[ "$(ls "$DB" | grep -c '^p-')" -eq 1 ] || fail "DROP PACK left its file"
"$GNNDB" "$DB" "DROP GRAPH cora;" || fail "DROP GRAPH"
[ "$(ls "$DB" | grep -c '\.blk$')" -eq 0 ] || fail "DROP GRAPH left files: $(ls "$DB")"
"$GNNDB" "$DB" "SCAN PACK p1;" 2>&1 | grep -q "no such pack" || fail "p1 outlived its graph"
echo "ok: DROP PACK and DROP GRAPH remove packs and their files"

# kill -9 while a pack is written: no pack, no stray file after reopen
GEN=$ROOT/build/bench/gen
if [ ! -x "$GEN" ]; then
    cc -O2 -std=gnu11 -D_GNU_SOURCE -o gen "$ROOT/bench/gen.c" -lm -lpthread || fail "build gen"
    GEN=$PWD/gen
fi
"$GEN" --scale 18 --edge-factor 16 --seed 3 --out big.bin > /dev/null 2>&1 || fail "gen"
K=$PWD/k.gnndb
"$GNNDB" "$K" "CREATE GRAPH big FROM '$PWD/big.bin' FORMAT bin;" > /dev/null || fail "big graph"
caught=0
for delay in 0.05 0.3 0.7 1.2; do
    "$GNNDB" "$K" "SAMPLE 10,10 FROM big BATCH 512 SEED 1 EPOCHS 2 INTO PACK kp;" > /dev/null 2>&1 &
    pid=$!
    sleep $delay
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    # a half-written pack file the kill left, for the reopen to remove
    ls "$K" | grep -q '^p-.*\.tmp$' && caught=$((caught + 1))
    got=$("$GNNDB" -csv -noheader "$K" "DESCRIBE big;") || fail "reopen after kill at $delay s"
    if echo "$got" | grep -q '^pack\.kp,'; then
        # finished before the kill: the whole pack
        echo "$got" | grep -q '^pack.kp,"1024 batches' || fail "half pack at $delay s: $(echo "$got" | grep pack)"
        "$GNNDB" "$K" "DROP PACK kp;" || fail "drop"
    fi
    strays=$(ls "$K" | grep -e '\.tmp$' -e '^tmp-' -e '^p-' || true)
    [ -z "$strays" ] || fail "stray files after reopen at $delay s: $strays"
    echo "ok: killed at $delay s: no pack, no stray file"
done
[ $caught -gt 0 ] || fail "no kill landed while the pack file was written"
"$GNNDB" "$K" "CHECK;" | grep -q '^ok' || fail "CHECK after kills"
echo "ok: pack"
