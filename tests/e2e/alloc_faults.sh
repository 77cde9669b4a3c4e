#!/bin/sh
# Allocation failures: a statement whose n-th allocation fails (malloc,
# calloc, realloc or an aligned allocation returns NULL: tests/alloc/
# failalloc.c, preloaded into the shell) ends with an error message or
# succeeds; it never crashes, hands out a wrong row or leaves a file behind,
# and the database is as it was (its files, .schema and the digest of a
# SAMPLE) and passes CHECK. Each statement is swept over n from the first
# allocation after the database is open to its last, sparsely, so that the
# whole test takes about a minute: SAMPLE (in memory and spilled), GATHER
# of a file of ids, IMPORT FEATURES, CREATE GRAPH and PROPAGATE on cora,
# and the spilled SAMPLE again
# with every allocation from the n-th on failing. Skipped, saying so, where
# the library cannot be built.
set -u
fail() { echo "FAIL: $*"; exit 1; }
ROOT=$OLDPWD
D=$GNNDB_DATA/cora
DB=$PWD/t.gnndb
SO=$PWD/failalloc.so
POINTS=${ALLOC_POINTS:-24}
if ! cc -O2 -shared -fPIC -o "$SO" "$ROOT/tests/alloc/failalloc.c" 2>cc.txt; then
    cat cc.txt
    echo "skip: cannot build the failing allocator"
    exit 0
fi
"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$D/edges.tsv';
  IMPORT FEATURES feat INTO cora FROM '$D/features.npy';
  IMPORT LABELS INTO cora FROM '$D/labels.npy';
  CREATE SPLIT train ON cora FROM '$D/train_idx.npy';" > /dev/null || fail setup

# the shell with allocation n failing (and the ones after it when FROM=1)
faulty() {
    n=$1; shift
    GNNDB_FAIL_ALLOC=$n LD_PRELOAD=$SO "$GNNDB" -csv -noheader "$DB" "$@"
}
# allocations a run of the shell makes
count() {
    GNNDB_FAIL_ALLOC_COUNT=$PWD/count.txt LD_PRELOAD=$SO \
        "$GNNDB" -csv -noheader "$DB" "$@" > /dev/null 2>&1 || fail "count: $*"
    cat count.txt
}
# what a failed statement must leave alone
snapshot() {
    ( ls "$DB" | grep -v -e '-wal$' -e '-shm$'
      "$GNNDB" "$DB" ".schema"
      "$GNNDB" -csv -noheader "$DB" "SAMPLE 5,5 FROM cora SEEDS train BATCH 64 LIMIT 2 SEED 3;" ) 2>&1
}
BEFORE=$(snapshot)
# the points of the sweep: POINTS of them spread over (first, last]
points() {
    awk -v a="$1" -v b="$2" -v k="$POINTS" 'BEGIN {
        for (i = 0; i < k; i++) printf "%d\n", a + 1 + int((b - a - 1) * i / (k - 1)) }'
}
# after run n of `what` ended with status rc: an error (1) says so on
# stderr, anything else was a crash; the database is as before and sound
judge() {
    what=$1; n=$2; rc=$3
    case $rc in
    0) ;;
    1) [ -s err.txt ] || fail "$what: allocation $n failed with no message" ;;
    *) cat err.txt; fail "$what: allocation $n: exit status $rc (a crash)" ;;
    esac
    AFTER=$(snapshot)
    if [ "$BEFORE" != "$AFTER" ]; then
        echo "$BEFORE" > b.txt; echo "$AFTER" > a.txt; diff b.txt a.txt
        fail "$what: allocation $n (status $rc) changed the database"
    fi
    "$GNNDB" -csv -noheader "$DB" "CHECK;" | grep -q '^ok,' ||
        fail "$what: allocation $n: CHECK fails afterwards"
}

# read: every row handed out is the row of a run that succeeds
sweep_read() {
    what=$1; sql=$2
    "$GNNDB" -csv -noheader "$DB" "$sql" > want.txt || fail "$what: reference run"
    lo=$(count "PRAGMA threads;") hi=$(count "$sql")
    ok=0; failed=0
    for n in $(points "$lo" "$hi"); do
        faulty "$n" "$sql" > out.txt 2> err.txt; rc=$?
        judge "$what" "$n" "$rc"
        lines=$(wc -l < out.txt)
        head -n "$lines" want.txt | cmp -s - out.txt ||
            { diff want.txt out.txt | head; fail "$what: allocation $n: a wrong row"; }
        [ $rc -eq 0 ] && ok=$((ok + 1)) || failed=$((failed + 1))
    done
    echo "ok: $what: allocations $lo..$hi: $failed runs failed cleanly, $ok succeeded"
}

# write: a run that fails leaves nothing; one that succeeds is undone
sweep_write() {
    what=$1; sql=$2; undo=$3
    lo=$(count "PRAGMA threads;") hi=$(count "$sql")
    "$GNNDB" "$DB" "$undo" > /dev/null || fail "$what: undo"
    ok=0; failed=0
    for n in $(points "$lo" "$hi"); do
        faulty "$n" "$sql" > out.txt 2> err.txt; rc=$?
        if [ $rc -eq 0 ]; then
            "$GNNDB" "$DB" "$undo" > /dev/null || fail "$what: allocation $n: undo"
            ok=$((ok + 1))
        else
            failed=$((failed + 1))
        fi
        judge "$what" "$n" "$rc"
    done
    echo "ok: $what: allocations $lo..$hi: $failed runs failed cleanly, $ok succeeded"
}

SPILLED="PRAGMA spill = 'on'; SAMPLE 10,10 FROM cora SEEDS train BATCH 32 HYPERBATCH 4 SEED 1;"
sweep_read "SAMPLE" "SAMPLE 10,10 FROM cora SEEDS train BATCH 32 SEED 1;"
sweep_read "SAMPLE (spilled)" "$SPILLED"
sweep_read "GATHER" "GATHER feat ON cora ROWS '$D/test_idx.npy' BATCH 256;"
sweep_write "IMPORT FEATURES" "IMPORT FEATURES f2 INTO cora FROM '$D/features.npy';" \
    "DROP FEATURES f2 ON cora;"
sweep_write "CREATE GRAPH" "CREATE GRAPH c2 FROM '$D/edges.tsv';" "DROP GRAPH c2;"
sweep_write "PROPAGATE" "PROPAGATE feat OVER cora HOPS 2 INTO pp;" \
    "DROP FEATURES pp ON cora;"
# every allocation from the n-th on failing: the paths that clean up after
# a failure must not need memory themselves
GNNDB_FAIL_ALLOC_FROM=1; export GNNDB_FAIL_ALLOC_FROM
POINTS=12 sweep_read "SAMPLE (spilled, all after n failing)" "$SPILLED"
unset GNNDB_FAIL_ALLOC_FROM
echo "alloc faults ok"
