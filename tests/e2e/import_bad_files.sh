#!/bin/sh
# Bad files for the new importers: each gives a one-line error naming the
# file (and the line or the member) and leaves the database exactly as it
# was, IMPORT OGB included (no graph, table, split or block file left).
set -u
fail() { echo "FAIL: $*"; exit 1; }
D=$GNNDB_DATA/cora
OGB=$OLDPWD/tests/data/ogb
DB=$PWD/t.gnndb
"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$D/edges.tsv';
  IMPORT FEATURES feat INTO cora FROM '$D/features.npy';" || fail "setup"

. "$OLDPWD/tests/e2e_expect_error.sh"
BEFORE=$(snapshot)

/usr/bin/python3 - "$D" <<'PY' || fail "python"
import gzip, os, shutil, sys
import numpy as np
d = sys.argv[1]
e = np.loadtxt(d + "/edges.tsv", dtype=np.int64, ndmin=2)
rows = ["%d,%d\n" % (a, b) for a, b in e]
with open("mid.csv", "w") as f:
    f.write("src,dst\n")
    f.writelines(rows[:5] + ["src,dst\n"] + rows[5:])
with open("mid_labels.csv", "w") as f:
    f.write("label\n1\n2\nlabel\n3\n")
np.savez_compressed("x.npz", feat=np.zeros((2708, 4), np.float32),
                    bad=np.zeros((3, 5), np.int64),
                    short=np.zeros(2700, np.int64))
data = gzip.compress("".join(rows).encode())
open("trunc.tsv.gz", "wb").write(data[: len(data) // 2])
raw = open("x.npz", "rb").read()
open("trunc.npz", "wb").write(raw[: len(raw) - 30])
PY

expect_error "CREATE GRAPH g FROM '$PWD/mid.csv';" \
    "mid.csv:7: a header line in the middle of the file"
expect_error "IMPORT LABELS INTO cora FROM '$PWD/mid_labels.csv';" \
    "mid_labels.csv:4: a header line in the middle"
expect_error "CREATE GRAPH g FROM '$PWD/mid.csv' COLUMNS (src, nope);" \
    "mid.csv:1: the header has no column named 'nope'"
expect_error "IMPORT FEATURES t INTO cora FROM '$PWD/x.npz' KEY 'nope';" \
    "x.npz: no member 'nope' (it has feat, bad, short)"
expect_error "IMPORT FEATURES t INTO cora FROM '$PWD/x.npz';" \
    "x.npz: 3 members; say which with KEY"
expect_error "CREATE GRAPH g FROM '$PWD/x.npz' KEY 'bad';" \
    "x.npz:bad: edges must have shape (2, E) or (E, 2), found (3, 5)"
expect_error "IMPORT LABELS INTO cora FROM '$PWD/x.npz' KEY 'short';" \
    "x.npz:short has 2700 rows but graph cora has 2708 nodes"
expect_error "CREATE GRAPH g FROM '$PWD/trunc.tsv.gz';" \
    "trunc.tsv.gz: truncated gzip stream"
expect_error "IMPORT FEATURES t INTO cora FROM '$PWD/trunc.npz' KEY 'feat';" \
    "trunc.npz: not a zip file, or a truncated one"

# OGB directories, each with one thing wrong
ogb() { # NAME LAYOUT: a copy of a test dataset to spoil
    rm -rf "$1" && cp -r "$OGB/$2" "$1"
}
ogb nosplit ogbn_cora
rm nosplit/split/random/valid.csv.gz
expect_error "IMPORT OGB '$PWD/nosplit' AS g;" \
    "nosplit/split/random/valid.csv.gz: missing (split 'random' needs train"
ogb twosplits ogbn_cora
cp -r twosplits/split/random twosplits/split/time
expect_error "IMPORT OGB '$PWD/twosplits' AS g;" \
    "twosplits/split: 2 splits (.*); choose one with SPLIT 'name'"
expect_error "IMPORT OGB '$PWD/twosplits' AS g SPLIT 'nope';" \
    "split/nope/train.csv.gz: missing"
ogb fewlabels ogbn_cora
/usr/bin/python3 -c "import numpy as np
np.savez_compressed('fewlabels/raw/node-label.npz', node_label=np.zeros((2700, 1), np.float32))" ||
    fail "python"
expect_error "IMPORT OGB '$PWD/fewlabels' AS g;" \
    "node-label.npz:node_label has 2700 rows but graph g has 2708 nodes"
ogb badid ogbn_cora_csv
printf '0\n1\n99999\n' | gzip > badid/split/random/test.csv.gz
expect_error "IMPORT OGB '$PWD/badid' AS g;" \
    "test.csv.gz: entry 2: node 99999 is not in graph g"
ogb truncated ogbn_cora_csv
head -c 20000 "$OGB/ogbn_cora_csv/raw/node-feat.csv.gz" > truncated/raw/node-feat.csv.gz
expect_error "IMPORT OGB '$PWD/truncated' AS g;" \
    "node-feat.csv.gz: truncated gzip stream"
ogb nolabels ogbn_cora_csv
rm nolabels/raw/node-label.csv.gz
expect_error "IMPORT OGB '$PWD/nolabels' AS g;" "node-label.csv.gz: missing"
expect_error "IMPORT OGB '$PWD' AS g;" "not an OGB node-property dataset"
expect_error "IMPORT OGB '$OGB/ogbn_cora' AS cora;" "graph 'cora' already exists"
echo "all bad files rejected cleanly"
