#!/bin/sh
# memory_limit is a promise about the process: every statement below runs in
# the shell inside a fresh cgroup v1 memory group exactly the size of PRAGMA
# memory_limit, at 64 MiB, 256 MiB and 1 GiB, and must finish with no OOM
# kill (the group's oom_kill counter) and a peak RSS (VmHWM, /usr/bin/time's
# %M) within the limit. The data is big enough that the limit binds: an
# R-MAT graph of 2^17 nodes and 2 M edges with 64 MiB of features, 32 MiB
# of edge features, and the same graph cut into three node types and nine
# relations. Covered: CREATE GRAPH, INSERT EDGES and IMPORT (features, labels, edge
# features), CREATE SPLIT, CREATE EDGE SPLITS, CREATE RELATION; node SAMPLE
# at the planner's HYPERBATCH and at HYPERBATCH 1024 (spilled where it does
# not fit), link SAMPLE with EDGE FEATURES, typed SAMPLE; PROPAGATE and
# SCAN; INTO PACK and SCAN PACK; GATHER of 10^5 ids from a file and IMPORT
# FEATURES ... REPLACE; CHECK. A limit too small for a statement's
# least is refused at prepare, in words, with nothing changed. Skipped,
# saying so, where no memory group can be made (not root, or no cgroup v1
# memory controller).
set -u
fail() { echo "FAIL: $*"; exit 1; }
ROOT=$OLDPWD
CGROOT=/sys/fs/cgroup/memory
CG=$CGROOT/gnndb-e2e-$$
cleanup() { [ -d "$CG" ] && rmdir "$CG" 2>/dev/null; }
trap cleanup EXIT
if ! mkdir "$CG" 2>/dev/null || ! echo $((64 << 20)) > "$CG/memory.limit_in_bytes" 2>/dev/null; then
    echo "skip: no cgroup v1 memory group can be made here ($CGROOT)"
    exit 0
fi
rmdir "$CG"
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "skip: no $TIME to read the peak RSS with"; exit 0; }

GEN=$ROOT/build/bench/gen
if [ ! -x "$GEN" ]; then
    cc -O2 -std=gnu11 -D_GNU_SOURCE -o gen "$ROOT/bench/gen.c" -lm -lpthread || fail "build gen"
    GEN=$PWD/gen
fi
"$GEN" --scale 17 --edge-factor 16 --dim 128 --seed 1 --out e.bin \
    --features x.npy --labels y.npy --classes 8 > /dev/null || fail "gen"
mkdir typed
/usr/bin/python3 - <<'PY' || fail "edge features"
import numpy as np
m = np.memmap("e.bin", dtype="<i8", mode="r").shape[0] // 2
np.save("ef.npy", np.random.default_rng(1).random((m, 4), dtype=np.float32))
np.save("ids.npy", np.random.default_rng(2).integers(0, 1 << 17, 100000))
# an append: 10 % more edges, reversed pairs of the first ones
e = np.fromfile("e.bin", dtype="<i8").reshape(-1, 2)[: m // 10, ::-1]
np.ascontiguousarray(e).tofile("tail.bin")
PY
/usr/bin/python3 "$ROOT/bench/typed_data.py" --edges e.bin --features x.npy \
    --scale 17 --out typed > typed/counts || fail "typed data"

# in_group LIMIT_MIB WHAT DB SQL: the shell in a fresh group of LIMIT_MIB
# with memory_limit the same; no OOM kill, status 0, peak RSS within it
in_group() {
    mib=$1 what=$2 db=$3 sql=$4
    bytes=$((mib << 20))
    mkdir "$CG" && echo $bytes > "$CG/memory.limit_in_bytes" || fail "make $CG"
    $TIME -o rss.txt -f %M sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' \
        "$CG" "$GNNDB" -csv -noheader "$db" \
        "PRAGMA memory_limit = '${mib}MB'; $sql" > out.txt 2> err.txt
    rc=$?
    kills=$(awk '$1 == "oom_kill" { print $2 }' "$CG/memory.oom_control")
    rmdir "$CG"
    rss=$(($(tail -1 rss.txt) * 1024))
    line="$what at ${mib} MiB: peak RSS $((rss >> 20)) MiB"
    [ "${kills:-0}" -eq 0 ] || fail "$line: OOM-killed"
    [ $rc -eq 0 ] || { cat err.txt; fail "$line: exit status $rc"; }
    [ $rss -le $bytes ] || fail "$line: over memory_limit"
    echo "ok: $line"
}

TYPES=""
while read -r name count; do
    TYPES="$TYPES CREATE NODES $name IN t COUNT $count;"
done < typed/counts
RELS=""
MAP=""
for a in paper author field; do
    for b in paper author field; do
        RELS="$RELS CREATE RELATION ${a}_$b IN t FROM $a TO $b FROM '$PWD/typed/${a}_$b.bin' FORMAT bin;"
        MAP="$MAP${MAP:+, }${a}_$b: 2"
    done
    RELS="$RELS IMPORT FEATURES feat INTO t.$a FROM '$PWD/typed/$a.npy';"
done

for mib in 64 256 1024; do
    DB=$PWD/g$mib.gnndb
    in_group $mib "CREATE GRAPH, IMPORT, splits" "$DB" \
        "CREATE GRAPH g FROM '$PWD/e.bin' FORMAT bin;
         IMPORT FEATURES feat INTO g FROM '$PWD/x.npy';
         IMPORT LABELS INTO g FROM '$PWD/y.npy';
         IMPORT EDGE FEATURES ef INTO g FROM '$PWD/ef.npy';
         CREATE SPLIT train ON g RANDOM 0.2 SEED 1;
         CREATE EDGE SPLITS lp, lq ON g RANDOM 0.001, 0.01 SEED 1;"
    in_group $mib "CREATE RELATION (typed)" "$DB" "CREATE GRAPH t; $TYPES $RELS"
    # 16 mini-batches of about 27 MiB: spilled at 64 and 256 MiB
    in_group $mib "SAMPLE (the planner's H)" "$DB" \
        "SAMPLE 10,10,10 FROM g SEEDS train BATCH 1024 SHUFFLE SEED 1 LIMIT 16;"
    in_group $mib "SAMPLE HYPERBATCH 1024" "$DB" \
        "SAMPLE 10,10,10 FROM g SEEDS train BATCH 1024 HYPERBATCH 1024 SHUFFLE SEED 1 LIMIT 16;"
    in_group $mib "link SAMPLE, EDGE FEATURES" "$DB" \
        "SAMPLE 10,10 FROM g EDGES lp BATCH 1024 NEGATIVE 1 EXCLUDE SEEDS EDGE FEATURES ef SEED 1;"
    in_group $mib "typed SAMPLE" "$DB" \
        "SAMPLE {$MAP} * 2 FROM t SEEDS paper.ALL BATCH 1024 SHUFFLE SEED 1 LIMIT 6;"
    in_group $mib "PROPAGATE, SCAN" "$DB" \
        "PROPAGATE feat OVER g HOPS 1 INTO pp;
         SCAN pp SEEDS train BATCH 1024 SHUFFLE CHUNK 8 SEED 1 LIMIT 16;"
    in_group $mib "INTO PACK, SCAN PACK" "$DB" \
        "SAMPLE 10,10 FROM g SEEDS train BATCH 1024 SEED 1 LIMIT 16 INTO PACK pk;
         SCAN PACK pk;"
    in_group $mib "GATHER, IMPORT ... REPLACE" "$DB" \
        "GATHER feat ON g ROWS '$PWD/ids.npy';
         IMPORT FEATURES feat INTO g FROM '$PWD/x.npy' REPLACE;"
    in_group $mib "INSERT EDGES, AS OF VERSION" "$DB" \
        "INSERT EDGES INTO g FROM '$PWD/tail.bin' FORMAT bin;
         SAMPLE 10,10,10 FROM g SEEDS train BATCH 1024 SHUFFLE SEED 1 LIMIT 4 AS OF VERSION 1;
         SAMPLE 10,10,10 FROM g SEEDS train BATCH 1024 SHUFFLE SEED 1 LIMIT 4;"
    in_group $mib "CHECK" "$DB" "CHECK;"
    grep -q '^ok,' out.txt || fail "CHECK at $mib MiB: $(cat out.txt)"
    rm -rf "$DB"
done

# a limit too small for a statement's least: refused at prepare, in words
# naming the statement, memory_limit and the bytes needed; nothing changes
DB=$PWD/s.gnndb
"$GNNDB" "$DB" "CREATE GRAPH g FROM '$PWD/e.bin' FORMAT bin;" > /dev/null || fail "small setup"
BEFORE=$(ls "$DB")
for q in "CREATE GRAPH h FROM '$PWD/e.bin' FORMAT bin;" \
         "IMPORT FEATURES f INTO g FROM '$PWD/x.npy';" "CHECK;"; do
    "$GNNDB" "$DB" "PRAGMA memory_limit = '4MB'; $q" > out.txt 2> err.txt &&
        fail "memory_limit 4MB: '$q' ran"
    grep -q "memory_limit 4.0 MiB is too small.*need at least" err.txt ||
        { cat err.txt; fail "memory_limit 4MB: '$q': the words"; }
    [ "$(ls "$DB")" = "$BEFORE" ] || fail "memory_limit 4MB: '$q' changed the database"
    echo "ok: refused: $(cat err.txt)"
done
# nodes that alone do not fit the import's memory: refused before any file
"$GNNDB" "$DB" "PRAGMA memory_limit = '40MB'; PRAGMA import_memory = '2MB';
    CREATE GRAPH h FROM '$PWD/e.bin' FORMAT bin;" > out.txt 2> err.txt &&
    fail "an import whose nodes do not fit ran"
grep -q "CREATE GRAPH h: [a-z ]* [0-9]* nodes need .* raise PRAGMA import_memory" err.txt ||
    { cat err.txt; fail "nodes that do not fit: the words"; }
[ "$(ls "$DB")" = "$BEFORE" ] || fail "the refused import changed the database"
echo "ok: refused: $(cat err.txt)"
echo "memory limit ok"
