#!/bin/sh
# kill -9 during IMPORT OGB: the database reopens with no trace of the
# dataset (no graph, no block file, no split) or with all of it (graph,
# feat, labels, train/valid/test), never a part.
set -u
fail() { echo "FAIL: $*"; exit 1; }
OGB=$OLDPWD/tests/data/ogb
DB=$PWD/c.gnndb
"$GNNDB" "$DB" "CREATE GRAPH base FROM '$GNNDB_DATA/cora/edges.tsv';" || fail setup
expected=$("$GNNDB" -csv "$DB" "SHOW GRAPHS;")
base_blk=$(ls "$DB" | grep -c '\.blk$')   # the graph, its edge ids, its edge table
whole='^g,2708,10556,1,feat,1,"test,train,valid"$'
for delay in 0.01 0.03 0.06 0.1 0.15 0.25 0.4; do
    for layout in ogbn_cora ogbn_cora_csv; do
        "$GNNDB" "$DB" "IMPORT OGB '$OGB/$layout' AS g;" > /dev/null 2>&1 &
        pid=$!
        sleep $delay
        kill -9 $pid 2>/dev/null
        wait $pid 2>/dev/null
        got=$("$GNNDB" -csv "$DB" "SHOW GRAPHS;") ||
            fail "reopen after kill at $delay s ($layout)"
        nblk=$(ls "$DB" | grep -c '\.blk$')
        if [ "$got" = "$expected" ]; then
            [ "$nblk" -eq "$base_blk" ] || fail "$nblk block files after a kill at $delay s"
        else
            echo "$got" | grep -q "$whole" ||
                fail "half state at $delay s ($layout): $got"
            # graph, edge-id graph, edge table, feat, labels
            [ "$nblk" -eq $((base_blk + 5)) ] || fail "$nblk block files for a whole import"
            "$GNNDB" "$DB" "CHECK g;" | grep -q '^ok' || fail "CHECK g"
            "$GNNDB" "$DB" "DROP GRAPH g;" || fail drop
        fi
        strays=$(ls "$DB" | grep -e '\.tmp$' -e '^tmp-' -e '^\.gnndb-import' || true)
        [ -z "$strays" ] || fail "stray files after reopen: $strays"
    done
    echo "ok: killed at $delay s, nothing or everything"
done
"$GNNDB" "$DB" "CHECK;" | grep -q ok || fail "CHECK"

# the heterogeneous layout: no typed graph, or all of it (4 relations, each
# with its edge-id graph, edge table and reltype, writes' edge feat, the
# papers' feat, year, labels, 3 splits)
mag_whole='^m,88,265,1,"paper.feat,paper.year",1,"paper.test,paper.train,paper.valid"$'
for delay in 0.005 0.01 0.02 0.04 0.08; do
    "$GNNDB" "$DB" "IMPORT OGB '$OGB/ogbn_mag_tiny' AS m;" > /dev/null 2>&1 &
    pid=$!
    sleep $delay
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    got=$("$GNNDB" -csv "$DB" "SHOW GRAPHS;") || fail "reopen after kill at $delay s (mag)"
    nblk=$(ls "$DB" | grep -c '\.blk$')
    if [ "$got" = "$expected" ]; then
        [ "$nblk" -eq "$base_blk" ] || fail "$nblk block files after a kill at $delay s (mag)"
    else
        echo "$got" | grep -q "$mag_whole" || fail "half typed graph at $delay s: $got"
        [ "$nblk" -eq $((base_blk + 20)) ] || fail "$nblk block files for a whole typed import"
        "$GNNDB" "$DB" "CHECK m;" | grep -q '^ok' || fail "CHECK m"
        "$GNNDB" "$DB" "DROP GRAPH m;" || fail "drop m"
    fi
    echo "ok: typed import killed at $delay s, nothing or everything"
done
"$GNNDB" "$DB" "CHECK;" | grep -q ok || fail "CHECK after typed imports"
