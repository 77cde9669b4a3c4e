#!/bin/sh
# Bad inputs: each gives a one-line error naming the file and the place,
# exits non-zero, and leaves the database exactly as before.
set -u
fail() { echo "FAIL: $*"; exit 1; }
D=$GNNDB_DATA/cora
DB=$PWD/t.gnndb
"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$D/edges.tsv';
  IMPORT FEATURES feat INTO cora FROM '$D/features.npy';" || fail "setup"

. "$OLDPWD/tests/e2e_expect_error.sh"
BEFORE=$(snapshot)

# a truncated .npy
head -c 100000 "$D/features.npy" > trunc.npy
expect_error "IMPORT FEATURES t INTO cora FROM '$PWD/trunc.npy';" "trunc.npy.*truncated"
# a header that lies about its shape (claims more rows than the data holds)
/usr/bin/python3 - <<'PY' || fail "python"
import numpy as np
a = np.zeros((2708, 4), dtype=np.float32)
np.save("lie.npy", a)
raw = open("lie.npy", "rb").read().replace(b"(2708, 4)", b"(2708, 9)")
open("lie.npy", "wb").write(raw)
np.save("short.npy", np.zeros((2700, 4), dtype=np.float32))
np.save("bytes.npy", np.zeros((2708, 4), dtype=np.complex64))
PY
expect_error "IMPORT FEATURES t INTO cora FROM '$PWD/lie.npy';" "lie.npy"
# a feature file whose row count differs from the graph's nodes
expect_error "IMPORT FEATURES t INTO cora FROM '$PWD/short.npy';" "2700.*2708"
expect_error "IMPORT FEATURES t INTO cora FROM '$PWD/bytes.npy';" "bytes.npy"
# a non-numeric token on line 1234 of an edge file
awk 'NR==1234 {print "12\tx12"; next} {print}' "$D/edges.tsv" > bad.tsv
expect_error "CREATE GRAPH g2 FROM '$PWD/bad.tsv';" "bad.tsv:1234:"
# a node id beyond N
expect_error "CREATE GRAPH g3 FROM '$D/edges.tsv' NODES 1000;" "edges.tsv:[0-9]*:.*1000"
# a path that does not exist
expect_error "CREATE GRAPH g4 FROM '$PWD/nope.tsv';" "nope.tsv"
expect_error "IMPORT FEATURES t INTO cora FROM '$PWD/nope.npy';" "nope.npy"
# an existing graph name, an existing table, an unknown graph
expect_error "CREATE GRAPH cora FROM '$D/edges.tsv';" "already exists"
expect_error "IMPORT FEATURES feat INTO cora FROM '$D/features.npy';" "already exists"
expect_error "IMPORT FEATURES t INTO nosuch FROM '$D/features.npy';" "nosuch"
expect_error "CREATE SPLIT s ON cora FROM '$PWD/nope.npy';" "nope.npy"
# a query with a typo
expect_error "SAMPLE 10 FORM cora BATCH 4;" "FORM"
echo "all bad inputs rejected cleanly"
