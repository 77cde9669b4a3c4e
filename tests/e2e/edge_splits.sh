#!/bin/sh
# Edge splits on cora: CREATE EDGE SPLIT ... FROM 'pairs' and CREATE EDGE
# SPLITS ... RANDOM create what DESCRIBE then lists (kind, count, seed), a
# RANDOM split with the same SEED is the same split, and each bad input
# gives a one-line error naming its cause and leaves the database exactly as
# before (its files, SHOW GRAPHS, DESCRIBE cora).
set -u
fail() { echo "FAIL: $*"; exit 1; }
D=$GNNDB_DATA/cora
DB=$PWD/t.gnndb
"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$D/edges.tsv';
  CREATE GRAPH plain FROM '$D/edges.tsv' WITHOUT EDGE IDS;
  CREATE SPLIT train ON cora FROM '$D/train_idx.npy';" || fail "setup"

# pairs: rows 0, 5 and 7 of edges.tsv (row 5 twice), one pair that is no
# edge of cora, one with a node beyond its 2708, and a garbled text file
/usr/bin/python3 - "$D/edges.tsv" <<'PY' || fail "python"
import sys
import numpy as np
e = np.loadtxt(sys.argv[1], dtype=np.int64)
ok = e[[0, 5, 7, 5]]
np.save("pairs.npy", ok.T.astype(np.int32))           # 2 x E, int32
np.save("pairs_rows.npy", ok.astype(np.uint16))       # E x 2, uint16
have = {(int(a), int(b)) for a, b in e}
none = next((a, b) for a in range(2708) for b in range(2708)
            if a != b and (a, b) not in have)
bad = np.array([ok[0], ok[1], none, ok[2]], dtype=np.int64)
np.save("notedge.npy", bad)
open("notedge.txt", "w").write("%d %d\n" % none)
np.save("far.npy", np.array([ok[0], [0, 5000], ok[1]], dtype=np.int64))
open("garbled.tsv", "w").write("%d\t%d\n%d\tx9\n" % (ok[0][0], ok[0][1], ok[1][0]))
PY
NONE=$(cat notedge.txt)

"$GNNDB" "$DB" "CREATE EDGE SPLIT lp ON cora FROM '$PWD/pairs.npy';
  CREATE EDGE SPLIT lp_rows ON cora FROM '$PWD/pairs_rows.npy';
  CREATE EDGE SPLITS tr, va, te ON cora RANDOM 0.85, 0.05, 0.10 SEED 7;" \
    || fail "creating edge splits"
"$GNNDB" -csv -noheader "$DB" "DESCRIBE cora;" | grep -v "^file\." > d.txt || fail "DESCRIBE"
grep -qx "edge_split.lp,3" d.txt || { cat d.txt; fail "lp: not 3 edges"; }
grep -qx "edge_split.lp_rows,3" d.txt || fail "lp_rows: not 3 edges"
grep -qx "edge_split.tr.seed,7" d.txt || fail "tr: seed 7 not shown"
grep -qx "split.train,140" d.txt || fail "the node split changed"
sum=$(grep -E '^edge_split\.(tr|va|te),' d.txt | awk -F, '{s += $2} END {print s}')
[ "$sum" -ge 10555 ] && [ "$sum" -le 10556 ] || fail "tr+va+te = $sum, not cora's 10556 edges"
va=$(grep '^edge_split.va,' d.txt | cut -d, -f2)
[ "$va" -gt 400 ] && [ "$va" -lt 660 ] || fail "va has $va edges, not about 5%"
"$GNNDB" -csv -noheader "$DB" "SHOW GRAPHS;" | grep -q "lp,lp_rows,te,tr,train,va" \
    || fail "SHOW GRAPHS does not list both kinds"
# the same SEED draws the same splits; DROP SPLIT drops an edge split
"$GNNDB" "$DB" "DROP SPLIT tr ON cora; DROP SPLIT va ON cora;
  DROP SPLIT te ON cora;
  CREATE EDGE SPLITS tr, va, te ON cora RANDOM 0.85, 0.05, 0.10 SEED 7;" \
    || fail "drop, recreate"
"$GNNDB" -csv -noheader "$DB" "DESCRIBE cora;" | grep -v "^file\." > d2.txt || fail "DESCRIBE"
cmp -s d.txt d2.txt || { diff d.txt d2.txt; fail "SEED 7 drew other splits"; }
echo "ok: edge splits created, listed, drawn again alike"

. "$OLDPWD/tests/e2e_expect_error.sh"
BEFORE=$(snapshot)

expect_error "CREATE EDGE SPLIT x ON cora FROM '$PWD/notedge.npy';" \
    "notedge.npy row 2: ($(echo $NONE | tr ' ' ',' | sed 's/,/, /')) is not an edge of graph 'cora'"
expect_error "CREATE EDGE SPLIT x ON cora FROM '$PWD/far.npy';" \
    "far.npy row 1: node 5000 is not in graph 'cora'"
expect_error "CREATE EDGE SPLIT train ON cora FROM '$PWD/pairs.npy';" \
    "split 'train' already exists"
expect_error "CREATE EDGE SPLITS fresh, lp ON cora RANDOM 0.1, 0.1;" \
    "split 'lp' already exists"
expect_error "CREATE EDGE SPLITS a, b ON cora RANDOM 0.7, 0.4;" "sum to 1.1"
expect_error "SAMPLE 10 FROM cora SEEDS tr BATCH 4;" \
    "'tr' is an edge split; use EDGES tr"
expect_error "CREATE EDGE SPLIT x ON cora FROM '$PWD/nope.npy';" "nope.npy"
expect_error "CREATE EDGE SPLIT x ON cora FROM '$PWD/garbled.tsv';" \
    "garbled.tsv:2:"
expect_error "CREATE EDGE SPLITS a ON plain RANDOM 0.5;" \
    "needs edge ids.*plain"
expect_error "CREATE EDGE SPLIT x ON plain FROM '$PWD/pairs.npy';" \
    "needs edge ids.*plain"
echo "all bad edge-split inputs rejected cleanly"
