#!/bin/sh
# EDGE FEATURES on a typed graph, in the shell: authors write papers (WITH
# REVERSE), papers cite papers WITHOUT EDGE IDS; no node type has features.
# A table imported into writes serves its reverse too: INTO writes each
# relation's e_id and edge_attr, every e_id an input edge with the sampled
# edge's endpoints and edge_attr its row; the same digests under HYPERBATCH
# 1, PRAGMA threads = 1 and a float16 copy of the table widened; EXPLAIN
# names the tables; each bad statement refused in one line, the database
# as before.
set -u
fail() { echo "FAIL: $*"; exit 1; }
DB=$PWD/t.gnndb
awk 'BEGIN { s = 11
    for (i = 0; i < 300; i++) { s = (s * 1103515245 + 12345) % 2147483648
        a = s % 40; s = (s * 1103515245 + 12345) % 2147483648
        print a "," s % 90 > "writes.csv" }
    for (i = 0; i < 200; i++) { s = (s * 1103515245 + 12345) % 2147483648
        u = s % 90; s = (s * 1103515245 + 12345) % 2147483648
        print u "," s % 90 > "cites.csv" } }'
/usr/bin/python3 - <<'PY' || fail "edge feature files"
import numpy as np
e = np.loadtxt("writes.csv", delimiter=",", dtype=np.int64)
w = np.stack([np.arange(len(e)), e[:, 0], e[:, 1]], 1).astype(np.float32)
np.save("w.npy", w)
np.save("w16.npy", w.astype(np.float16))
np.save("wi.npy", w.astype(np.int8))
PY
"$GNNDB" "$DB" "CREATE GRAPH mag;
  CREATE NODES paper IN mag COUNT 90;
  CREATE NODES author IN mag COUNT 40;
  CREATE RELATION writes IN mag FROM author TO paper FROM '$PWD/writes.csv'
      BLOCK SIZE 4096 WITH REVERSE AS written_by;
  CREATE RELATION cites IN mag FROM paper TO paper FROM '$PWD/cites.csv'
      BLOCK SIZE 4096 WITHOUT EDGE IDS;
  IMPORT EDGE FEATURES w INTO mag.writes FROM '$PWD/w.npy';
  IMPORT EDGE FEATURES h INTO mag.written_by FROM '$PWD/w16.npy';
  IMPORT EDGE FEATURES wi INTO mag.writes FROM '$PWD/wi.npy' STORE int8;" > /dev/null ||
    fail "build"

Q="SAMPLE {writes: 3, written_by: 2} * 2 FROM mag SEEDS paper.ALL BATCH 16 SHUFFLE SEED 5"
"$GNNDB" -noheader -csv "$DB" "EXPLAIN $Q EDGE FEATURES w;" > plan.txt || fail "EXPLAIN"
grep -q -- '-> gather edges of writes: w (3 x float32), edges of written_by: w (3 x float32)' plan.txt ||
    { cat plan.txt; fail "EXPLAIN does not name the edge tables"; }

"$GNNDB" "$DB" "$Q EDGE FEATURES w INTO '$PWD/out';" > /dev/null || fail "INTO"
/usr/bin/python3 - "$PWD/out" <<'PY' || fail "e_id or edge_attr wrong"
import glob, os, sys
import numpy as np
e = np.loadtxt("writes.csv", delimiter=",", dtype=np.int64)
w = np.load("w.npy")
batches = sorted(glob.glob(os.path.join(sys.argv[1], "epoch-0", "batch-*")))
assert len(batches) == 6, batches
edges = 0
for d in batches:
    ld = lambda n: np.load(os.path.join(d, n + ".npy"))
    nid = {"paper": ld("paper.n_id"), "author": ld("author.n_id")}
    for rel, (st, dt), rev in (("writes", ("author", "paper"), 0),
                               ("written_by", ("paper", "author"), 1)):
        ei, eid, ea = ld(rel + ".edge_index"), ld(rel + ".e_id"), ld(rel + ".edge_attr")
        assert ea.shape == (len(eid), 3) and ei.shape == (2, len(eid))
        src, dst = (e[eid, 1], e[eid, 0]) if rev else (e[eid, 0], e[eid, 1])
        assert (nid[st][ei[0]] == src).all() and (nid[dt][ei[1]] == dst).all()
        assert (ea == w[eid]).all()
        edges += len(eid)
assert not os.path.exists(os.path.join(batches[0], "x.npy"))
assert edges > 100, edges
PY

digests() { "$GNNDB" -header -csv "$DB" "$1" | awk -F, 'NF >= 9 && $1 ~ /^[0-9]+$/ {print $NF}'; }
digests "$Q EDGE FEATURES w;" > d1.txt
[ "$(wc -l < d1.txt)" -eq 6 ] || { cat d1.txt; fail "six batches expected"; }
digests "PRAGMA threads = 1; $Q EDGE FEATURES w HYPERBATCH 1;" > d2.txt
cmp -s d1.txt d2.txt || { diff d1.txt d2.txt; fail "digests differ with HYPERBATCH 1"; }
# float16 of small integers is exact: widened, the same rows and digests
digests "$Q EDGE FEATURES h;" > d3.txt
cmp -s d1.txt d3.txt || { diff d1.txt d3.txt; fail "a float16 table gathered differently"; }
digests "$Q;" > d4.txt
cmp -s d1.txt d4.txt && fail "EDGE FEATURES left the digests unchanged"

SNAP_GRAPHS=mag
. "$OLDPWD/tests/e2e_expect_error.sh"
BEFORE=$(snapshot)
expect_error "$Q EDGE FEATURES nosuch;" \
    'no relation this SAMPLE of graph mag samples has an edge feature table nosuch'
expect_error "SAMPLE {writes: 3, cites: 2} FROM mag SEEDS paper.ALL BATCH 16 EDGE FEATURES w;" \
    'cites.*edge ids'
expect_error "$Q EDGE FEATURES wi;" \
    'edge feature table wi of relation writes is stored as int8; SAMPLE gathers float32 and float16 tables only'
expect_error "SAMPLE {writes: 3} FROM mag EDGES tr BATCH 8;" 'EDGES on typed graph mag is not available yet'
echo "ok"
