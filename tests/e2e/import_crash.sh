#!/bin/sh
# kill -9 during an import leaves a database that opens and shows the
# previous state, and no stray files remain after the next open.
set -u
fail() { echo "FAIL: $*"; exit 1; }
ROOT=$OLDPWD
GEN=$ROOT/build/bench/gen
if [ ! -x "$GEN" ]; then
    cc -O2 -std=gnu11 -D_GNU_SOURCE -o gen "$ROOT/bench/gen.c" -lm -lpthread || fail "build gen"
    GEN=$PWD/gen
fi
"$GEN" --scale 18 --edge-factor 16 --seed 3 --out big.bin > /dev/null 2>&1 || fail "gen"
DB=$PWD/c.gnndb
"$GNNDB" "$DB" "CREATE GRAPH base FROM '$GNNDB_DATA/cora/edges.tsv';" || fail setup
expected=$("$GNNDB" -csv "$DB" "SHOW GRAPHS;")
base_blk=$(ls "$DB" | grep -c '\.blk$')   # the graph, its edge ids, its edge table
for delay in 0.05 0.2 0.4 0.8 1.2; do
    "$GNNDB" "$DB" "CREATE GRAPH big FROM '$PWD/big.bin' FORMAT bin;" > /dev/null 2>&1 &
    pid=$!
    sleep $delay
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    got=$("$GNNDB" -csv "$DB" "SHOW GRAPHS;") || fail "reopen after kill at $delay s"
    if [ "$got" != "$expected" ]; then
        # the import finished before the kill: the new state, complete
        echo "$got" | grep -q '^big,' || fail "half state at $delay s: $got"
        "$GNNDB" "$DB" "DROP GRAPH big;" || fail drop
    fi
    strays=$(ls "$DB" | grep -e '\.tmp$' -e '^tmp-' || true)
    [ -z "$strays" ] || fail "stray files after reopen: $strays"
    nblk=$(ls "$DB" | grep -c '\.blk$')
    [ "$nblk" -eq "$base_blk" ] || fail "unreferenced block files remain ($nblk) after kill at $delay s"
    echo "ok: killed at $delay s, state intact"
done
"$GNNDB" "$DB" "CHECK;" | grep -q ok || fail "CHECK"
