#!/bin/sh
# The files people have import to the same graph as cora's plain files:
# every variant numpy writes here (an edge list with a header, its columns
# chosen by name or position; gzip-compressed edges, features, labels and
# splits; Fortran-order and float64 .npy; stored and deflated .npz members;
# CSV labels and splits with a header line) gives the same batches, digest
# for digest, as the plain import, and so do the OGB datasets of
# tests/data/ogb (binary and CSV layouts) imported in one statement.
set -u
fail() { echo "FAIL: $*"; exit 1; }
D=$GNNDB_DATA/cora
OGB=$OLDPWD/tests/data/ogb

/usr/bin/python3 - "$D" <<'PY' || fail "python"
import gzip, sys
import numpy as np
d = sys.argv[1]
e = np.loadtxt(d + "/edges.tsv", dtype=np.int64, ndmin=2)
x = np.load(d + "/features.npy")
y = np.load(d + "/labels.npy")
tr = np.load(d + "/train_idx.npy")
# a header naming the columns, the target first and a weight column
with open("h.csv", "w") as f:
    f.write("dst,weight,src\n")
    f.writelines("%d,1.5,%d\n" % (b, a) for a, b in e)
with gzip.open("e.tsv.gz", "wt") as f:
    f.writelines("%d\t%d\n" % (a, b) for a, b in e)
with gzip.open("h.tsv.gz", "wt") as f:
    f.write("# a comment first\nsource target\n")
    f.writelines("%d %d\n" % (a, b) for a, b in e)
np.save("xf.npy", np.asfortranarray(x.astype(np.float64)))
np.save("y16.npy", y.astype(np.int16))
np.savez("stored.npz", feat=x, lab=y.astype(np.uint8), tr=tr.astype(np.uint32))
np.savez_compressed("deflated.npz", edge_index=e.T.copy(), feat=x,
                    lab=y.astype(np.float32).reshape(-1, 1))
with gzip.open("x.csv.gz", "wt") as f:
    np.savetxt(f, x, fmt="%.9g", delimiter=",")
with open("y.csv", "w") as f:
    f.write("label\n")
    f.writelines("%d\n" % v for v in y)
with gzip.open("tr.csv.gz", "wt") as f:
    f.write("node\n")
    f.writelines("%d\n" % v for v in tr)
PY

# the reference: the plain files
"$GNNDB" ref.gnndb "CREATE GRAPH cora FROM '$D/edges.tsv';
IMPORT FEATURES feat INTO cora FROM '$D/features.npy';
IMPORT LABELS INTO cora FROM '$D/labels.npy';
CREATE SPLIT train ON cora FROM '$D/train_idx.npy';
CREATE SPLIT valid ON cora FROM '$D/val_idx.npy';
CREATE SPLIT test ON cora FROM '$D/test_idx.npy';" || fail "reference import"

batches() { # DB SPLIT: the rows (with digests) of a shuffled SAMPLE
    "$GNNDB" -csv "$1" "SAMPLE 10,5 FROM cora SEEDS $2 FEATURES feat BATCH 64
        SHUFFLE SEED 11;" || fail "SAMPLE on $1"
}
batches ref.gnndb train > ref.csv
[ "$(wc -l < ref.csv)" -eq 3 ] || fail "reference: not 3 batches"

same() { # DB WHAT: its batches equal the reference's
    batches "$1" train > got.csv
    cmp -s ref.csv got.csv || { diff ref.csv got.csv; fail "$2"; }
    echo "ok: $2"
}

variant() { # NAME EDGES FEATURES LABELS SPLIT (statements' tails)
    "$GNNDB" "$1.gnndb" "CREATE GRAPH cora FROM $2;
IMPORT FEATURES feat INTO cora FROM $3;
IMPORT LABELS INTO cora FROM $4;
CREATE SPLIT train ON cora FROM $5;" || fail "import of $1"
    same "$1.gnndb" "$1"
}

P=$PWD
variant header-by-name "'$P/h.csv' COLUMNS (src, dst)" "'$D/features.npy'" \
    "'$D/labels.npy'" "'$D/train_idx.npy'"
variant header-by-position "'$P/h.csv' HEADER COLUMNS (2, 0)" \
    "'$P/xf.npy'" "'$P/y16.npy'" "'$D/train_idx.npy'"
variant gz-detected-header "'$P/h.tsv.gz'" "'$P/x.csv.gz'" "'$P/y.csv'" \
    "'$P/tr.csv.gz'"
variant gz-and-stored-npz "'$P/e.tsv.gz'" "'$P/stored.npz' KEY 'feat'" \
    "'$P/stored.npz' KEY 'lab'" "'$P/stored.npz' KEY 'tr'"
variant deflated-npz "'$P/deflated.npz' KEY 'edge_index'" \
    "'$P/deflated.npz' KEY 'feat'" "'$P/deflated.npz' KEY 'lab'" \
    "'$D/train_idx.npy'"

# OGB, one statement each; every split equals the reference's
for layout in ogbn_cora ogbn_cora_csv; do
    "$GNNDB" "$layout.gnndb" "IMPORT OGB '$OGB/$layout' AS cora;" ||
        fail "IMPORT OGB $layout"
    for s in train valid test; do
        batches ref.gnndb $s > r.csv
        batches "$layout.gnndb" $s > g.csv
        cmp -s r.csv g.csv || { diff r.csv g.csv; fail "$layout split $s"; }
    done
    "$GNNDB" -csv "$layout.gnndb" "SHOW GRAPHS;" > show.csv
    grep -qx "cora,2708,10556,1,feat,1,\"test,train,valid\"" show.csv ||
        { cat show.csv; fail "$layout: SHOW GRAPHS"; }
    echo "ok: IMPORT OGB $layout: graph, feat, labels, train/valid/test"
done

# UNDIRECTED adds the inverse edges, as CREATE GRAPH ... UNDIRECTED does
"$GNNDB" und.gnndb "IMPORT OGB '$OGB/ogbn_cora' AS cora UNDIRECTED SPLIT 'random';
CREATE GRAPH plain FROM '$D/edges.tsv' UNDIRECTED;" || fail "UNDIRECTED"
"$GNNDB" -csv und.gnndb "SHOW GRAPHS;" | cut -d, -f1-4 | sort > u.csv
printf 'cora,2708,21112,0\nplain,2708,21112,0\n' | diff - u.csv ||
    fail "UNDIRECTED: not the same edges as CREATE GRAPH ... UNDIRECTED"
# a directory named for ogbn-products gets its inverse edges without asking
mkdir -p named && cp -r "$OGB/ogbn_cora" named/ogbn_products
"$GNNDB" -csv und.gnndb "IMPORT OGB '$P/named/ogbn_products' AS p;
    SHOW GRAPHS;" | grep -q '^p,2708,21112,0,' ||
    fail "ogbn_products: no inverse edges"
echo "ok: UNDIRECTED and ogbn_products add inverse edges"
