#!/bin/sh
# Edge ids: CREATE GRAPH builds them by default (DESCRIBE says so, CHECK
# verifies them, a writable open keeps their files), WITHOUT EDGE IDS skips
# them, IMPORT EDGE FEATURES takes a row per input edge, and each bad
# IMPORT EDGE FEATURES fails with one line and changes nothing; DROP GRAPH
# removes every file of the graph.
set -u
fail() { echo "FAIL: $*"; exit 1; }
D=$GNNDB_DATA/cora
DB=$PWD/t.gnndb
"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$D/edges.tsv' UNDIRECTED;
  CREATE GRAPH bare FROM '$D/edges.tsv' WITHOUT EDGE IDS;" > /dev/null || fail "setup"
E=$(/usr/bin/python3 - "$D" <<'PY'
import sys
import numpy as np
e = np.loadtxt(sys.argv[1] + "/edges.tsv", dtype=np.int64, ndmin=2)
np.save("ef.npy", np.arange(len(e) * 3, dtype=np.float32).reshape(len(e), 3))
np.save("short.npy", np.zeros((len(e) - 10, 3), np.float32))
print(len(e))
PY
) || fail "python"

desc=$("$GNNDB" -csv -noheader "$DB" "DESCRIBE cora;") || fail "DESCRIBE"
echo "$desc" | grep -q '^edge_ids,1$' || fail "cora has no edge ids: $desc"
echo "$desc" | grep -q "^input_edges,$E\$" || fail "input_edges is not $E: $desc"
"$GNNDB" -csv -noheader "$DB" "DESCRIBE bare;" | grep -q '^edge_ids,0$' || fail "bare has edge ids"
[ "$(ls "$DB"/*.blk | wc -l)" -eq 4 ] || fail "expected 4 block files: $(ls "$DB")"
echo "ok: cora has edge ids ($E input edges), bare has none"

"$GNNDB" "$DB" "IMPORT EDGE FEATURES w INTO cora FROM '$PWD/ef.npy';" || fail "IMPORT EDGE FEATURES"
"$GNNDB" -csv -noheader "$DB" "DESCRIBE cora;" | grep -q '^edge_features.w,3 x float32$' \
    || fail "DESCRIBE does not list edge features w"
"$GNNDB" -csv -noheader "$DB" "SHOW GRAPHS;" | grep '^cora,' | grep -q ',w,\|__edges' \
    && fail "SHOW GRAPHS lists edge tables as node features"
out=$("$GNNDB" -csv -noheader "$DB" "CHECK;") || fail "CHECK: $out"
echo "$out" | grep -q '^ok,' || fail "CHECK: $out"
echo "ok: edge features imported; CHECK: $out"

. "$OLDPWD/tests/e2e_expect_error.sh"
BEFORE=$(snapshot)
expect_error "IMPORT EDGE FEATURES x INTO cora FROM '$PWD/short.npy';" \
    "short.npy has $((E - 10)) rows; graph cora has $E input edges"
expect_error "IMPORT EDGE FEATURES x INTO bare FROM '$PWD/ef.npy';" \
    "graph bare has none.*CREATE GRAPH bare again"
expect_error "IMPORT EDGE FEATURES w INTO cora FROM '$PWD/ef.npy';" \
    "'w' already exists in graph 'cora'"
expect_error "IMPORT EDGE FEATURES x INTO cora FROM '$PWD/nope.npy';" \
    "nope.npy"
expect_error "IMPORT EDGE FEATURES x INTO nosuch FROM '$PWD/ef.npy';" \
    "no such graph: nosuch"
expect_error "DROP FEATURES __edges ON cora;" \
    "__edges is the edge table of graph cora"

# a stray block file (a crash's leftover) goes at the next writable open;
# the graph's own edge-id files stay
cp "$DB/$(ls "$DB" | grep '^g-' | head -1)" "$DB/g-00000000deadbeef.blk"
"$GNNDB" "$DB" "PRAGMA threads = 1;" > /dev/null || fail "reopen"
[ -e "$DB/g-00000000deadbeef.blk" ] && fail "orphan left"
[ "$(snapshot)" = "$BEFORE" ] || fail "the cleanup removed a file of the database"
echo "ok: orphan cleanup keeps the edge-id files"

"$GNNDB" "$DB" "DROP GRAPH cora;" || fail "DROP GRAPH"
[ "$(ls "$DB"/*.blk | wc -l)" -eq 1 ] || fail "DROP GRAPH left files: $(ls "$DB")"
"$GNNDB" "$DB" "CHECK;" > /dev/null || fail "CHECK after DROP"
echo "ok: edge_ids"
