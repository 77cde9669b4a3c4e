#!/bin/sh
# PROPAGATE and SCAN errors: each gives one line naming what is wrong, exits
# non-zero and leaves the database exactly as before; an interrupted
# PROPAGATE (the shell's Ctrl-C is gnndb_interrupt) leaves nothing either.
set -u
fail() { echo "FAIL: $*"; exit 1; }
D=$GNNDB_DATA/cora
DB=$PWD/t.gnndb
"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$D/edges.tsv';
  IMPORT FEATURES feat INTO cora FROM '$D/features.npy';
  IMPORT FEATURES half INTO cora FROM '$D/features.npy' STORE float16;
  PROPAGATE feat OVER cora HOPS 1 INTO feat_pp;" || fail "setup"

. "$OLDPWD/tests/e2e_expect_error.sh"
BEFORE=$(snapshot)

expect_error "PROPAGATE nope OVER cora HOPS 2 INTO x;" "no such feature table: nope in graph cora"
expect_error "PROPAGATE feat OVER nograph HOPS 2 INTO x;" "no such graph: nograph"
expect_error "PROPAGATE feat OVER cora HOPS 2 INTO feat_pp;" "feature table 'feat_pp' already exists in graph 'cora'"
expect_error "PROPAGATE feat OVER cora HOPS 0 INTO x;" "HOPS 0 is out of range (1..8)"
expect_error "PROPAGATE feat OVER cora HOPS 9 INTO x;" "HOPS 9 is out of range (1..8)"
expect_error "PROPAGATE feat OVER cora HOPS 2 NORMALIZE col INTO x;" "unknown NORMALIZE 'col'; expected sym or row"
expect_error "PROPAGATE half OVER cora HOPS 2 INTO x;" "stored as float16"
expect_error "PRAGMA memory_limit = '4MB'; PROPAGATE feat OVER cora HOPS 2 INTO x;" "memory_limit 4.0 MiB is too small"
expect_error "SCAN feat_pp SEEDS ALL BATCH 0;" "BATCH 0 is out of range"
expect_error "SCAN feat_pp BATCH 8 CHUNK 0;" "CHUNK 0 is out of range"
expect_error "SCAN feat_pp SEEDS ALL;" "SCAN needs a BATCH clause"
expect_error "SCAN nope BATCH 8;" "no such feature table: nope"
expect_error "SCAN feat_pp ON nograph BATCH 8;" "no such graph: nograph"
expect_error "SCAN feat_pp SEEDS nosplit BATCH 8;" "no such split: nosplit"
expect_error "SCAN feat_pp SEEDS (1, 99999) BATCH 8;" "seed node 99999 is not in graph cora"
expect_error "SCAN half BATCH 8;" "stored as float16"

# interrupted by SIGINT while it runs (24MB: many tiles, so it takes a while)
"$GNNDB" "$DB" "PRAGMA memory_limit = '24MB';
  PROPAGATE feat OVER cora HOPS 8 INTO stopped;" 2>err.txt &
pid=$!
sleep 0.3
kill -INT $pid
wait $pid; rc=$?
if [ $rc -ne 0 ]; then
    grep -q "interrupted" err.txt || { cat err.txt; fail "interrupt: no message"; }
    AFTER=$(snapshot)
    [ "$BEFORE" = "$AFTER" ] || fail "interrupted PROPAGATE left something"
    echo "ok: $(cat err.txt)"
else
    echo "note: PROPAGATE finished before the interrupt"
fi
echo "propagate errors ok"
