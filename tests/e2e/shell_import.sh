#!/bin/sh
# .import, .tables (.graphs), .schema and .echo: .import picks the statement
# by extension and .npy dtype, and builds what the statements written by
# hand build; .echo shows the statement; .tables lists each graph's objects
# (a LIKE pattern filters); .schema prints statements that build the graphs
# again; each bad argument, unknown extension or missing graph is one error
# line, exit status 1, and changes nothing in the database.
set -u
fail() { echo "FAIL: $*"; exit 1; }
D=$GNNDB_DATA/cora
DB=$PWD/i.gnndb
REF=$PWD/ref.gnndb

# the same database twice: by .import, and by the statements themselves
"$GNNDB" "$DB" ".echo on" ".import $D/edges.tsv cora" \
    ".import $D/features.npy feat" ".import $D/labels.npy" \
    ".import $D/train_idx.npy train" ".import $D/val_idx.npy val INTO cora" \
    > echo.txt 2> err.txt || { cat err.txt; fail ".import"; }
[ -s err.txt ] && { cat err.txt; fail ".import wrote on stderr"; }
cat > want.txt <<EOT
.import $D/edges.tsv cora
CREATE GRAPH cora FROM '$D/edges.tsv';
.import $D/features.npy feat
IMPORT FEATURES feat INTO cora FROM '$D/features.npy';
.import $D/labels.npy
IMPORT LABELS INTO cora FROM '$D/labels.npy';
.import $D/train_idx.npy train
CREATE SPLIT train ON cora FROM '$D/train_idx.npy';
.import $D/val_idx.npy val INTO cora
CREATE SPLIT val ON cora FROM '$D/val_idx.npy';
EOT
diff want.txt echo.txt || fail ".echo on: not the statements expected"
"$GNNDB" "$REF" "CREATE GRAPH cora FROM '$D/edges.tsv';
IMPORT FEATURES feat INTO cora FROM '$D/features.npy';
IMPORT LABELS INTO cora FROM '$D/labels.npy';
CREATE SPLIT train ON cora FROM '$D/train_idx.npy';
CREATE SPLIT val ON cora FROM '$D/val_idx.npy';" || fail "reference"
describe() { "$GNNDB" -csv "$1" "DESCRIBE cora;" | grep -v '^file\.'; }
[ "$(describe "$DB")" = "$(describe "$REF")" ] || fail ".import built another database"
Q="SAMPLE 10,10 FROM cora SEEDS train FEATURES feat BATCH 64 SEED 3;"
[ "$("$GNNDB" "$DB" "$Q")" = "$("$GNNDB" "$REF" "$Q")" ] || fail "SAMPLE differs"

# the default NAME is the base name; a .bin edge list; a 2-D integer .npy is
# a feature table, a float .npy named labels goes to IMPORT LABELS (which
# refuses it)
/usr/bin/python3 - "$D" <<'PY' || fail "python"
import sys, numpy as np
e = np.loadtxt(sys.argv[1] + "/edges.tsv", dtype=np.int64)
e.astype("<i8").tofile("my_edges.bin")
np.save("ints.npy", np.arange(2 * 2708, dtype=np.int64).reshape(2708, 2))
np.save("labels.npy", np.full(2708, 0.5, dtype=np.float32))
PY
"$GNNDB" "$DB" ".import $PWD/my_edges.bin" || fail ".import .bin"
"$GNNDB" "$DB" ".import $PWD/ints.npy ints INTO cora" || fail ".import 2-D ints"

# .tables and its alias .graphs, with and without a pattern
cat > want.txt <<'EOT'
cora (2708 nodes, 10556 edges)
  features  feat, ints
  labels    7 classes
  splits    train, val
my_edges (2708 nodes, 10556 edges)
EOT
"$GNNDB" "$DB" ".tables" > got.txt || fail ".tables"
diff want.txt got.txt || fail ".tables"
"$GNNDB" "$DB" ".graphs" | cmp -s - want.txt || fail ".graphs is not .tables"
"$GNNDB" "$DB" ".tables x%" | cmp -s - /dev/null || fail ".tables x%: not empty"
"$GNNDB" "$DB" ".tables _RAIN" > got.txt
printf 'cora (2708 nodes, 10556 edges)\n  splits    train\n' | diff - got.txt || fail ".tables _RAIN"
"$GNNDB" "$DB" ".tables my%" > got.txt
printf 'my_edges (2708 nodes, 10556 edges)\n' | diff - got.txt || fail ".tables my%"

# .schema: a graph with options, printed, run again, gives the same graph
"$GNNDB" "$DB" "CREATE GRAPH tiny FROM '$D/edges.tsv' UNDIRECTED REORDER bfs BLOCK SIZE 64KB;
CREATE SPLIT r ON tiny RANDOM 0.5 SEED 1;" || fail "tiny"
"$GNNDB" "$DB" ".schema tiny" > schema.txt || fail ".schema tiny"
cat > want.txt <<EOT
CREATE GRAPH tiny FROM '$D/edges.tsv' UNDIRECTED REORDER bfs BLOCK SIZE 64KB;  -- 2708 nodes, 21112 edges
-- CREATE SPLIT r ON tiny FROM '?';  -- $("$GNNDB" -csv "$DB" "DESCRIBE tiny;" | sed -n 's/^split\.r,//p') seeds; source unknown
EOT
diff want.txt schema.txt || fail ".schema tiny"
"$GNNDB" "$PWD/again.gnndb" ".read $PWD/schema.txt" || fail "running .schema's output"
dt() { "$GNNDB" -csv "$1" "DESCRIBE tiny;" | grep -v -e '^file\.' -e '^split\.'; }
[ "$(dt "$DB")" = "$(dt "$PWD/again.gnndb")" ] || fail ".schema did not rebuild tiny"
"$GNNDB" "$DB" ".schema" > all.txt || fail ".schema"
grep -qx "CREATE GRAPH cora FROM '$D/edges.tsv';  -- 2708 nodes, 10556 edges" all.txt ||
    fail ".schema: cora"
grep -qx -- "-- IMPORT FEATURES feat INTO cora FROM '?';  -- 1433 x float32; source unknown" all.txt ||
    fail ".schema: feat"
grep -qx -- "-- IMPORT LABELS INTO cora FROM '?';  -- 7 classes; source unknown" all.txt ||
    fail ".schema: labels"
"$GNNDB" "$DB" ".schema val" > got.txt
echo "-- CREATE SPLIT val ON cora FROM '?';  -- 500 seeds; source unknown" | diff - got.txt ||
    fail ".schema val"
# edge and node times follow their graph as the imports that give them,
# and running them again gives the same time-respecting batches
/usr/bin/python3 -c "
import numpy as np
np.save('et.npy', np.arange(10556, dtype=np.int64) % 97)
np.save('nt.npy', np.arange(2708, dtype=np.int64) % 89)" || fail "time files"
"$GNNDB" "$DB" "CREATE GRAPH timed FROM '$D/edges.tsv';
IMPORT EDGE TIMES INTO timed FROM '$PWD/et.npy';
IMPORT NODE TIMES INTO timed FROM '$PWD/nt.npy';" || fail "timed"
"$GNNDB" "$DB" ".schema timed" > schema.txt || fail ".schema timed"
cat > want.txt <<EOT
CREATE GRAPH timed FROM '$D/edges.tsv';  -- 2708 nodes, 10556 edges
IMPORT EDGE TIMES INTO timed FROM '$PWD/et.npy';
IMPORT NODE TIMES INTO timed FROM '$PWD/nt.npy';
EOT
diff want.txt schema.txt || fail ".schema timed"
"$GNNDB" "$PWD/again2.gnndb" ".read $PWD/schema.txt" || fail "running .schema timed"
q="SAMPLE 5,5 FROM timed SEEDS ALL AT NODE TIME BATCH 64 SEED 1 LIMIT 3;"
[ "$("$GNNDB" "$DB" "$q")" = "$("$GNNDB" "$PWD/again2.gnndb" "$q")" ] ||
    fail ".schema did not rebuild timed's times"

# a compressed edge list goes to CREATE GRAPH as it is (the library reads it,
# or says why not)
gzip -c "$D/edges.tsv" > e.tsv.gz
"$GNNDB" -echo "$DB" ".import $PWD/e.tsv.gz gz" 2>/dev/null | grep -qx \
    "CREATE GRAPH gz FROM '$PWD/e.tsv.gz';" || fail ".import .tsv.gz"

# so does a .npz to IMPORT FEATURES and, named labels, to IMPORT LABELS
/usr/bin/python3 -c "import numpy as np; np.savez('x.npz', x=np.ones((2708, 3), np.float32))" ||
    fail "python"
"$GNNDB" -echo "$DB" ".import $PWD/x.npz xz INTO cora" 2>/dev/null | grep -qx \
    "IMPORT FEATURES xz INTO cora FROM '$PWD/x.npz';" || fail ".import .npz"
"$GNNDB" -echo "$DB" ".import $PWD/x.npz labels INTO my_edges" 2>/dev/null | grep -qx \
    "IMPORT LABELS INTO my_edges FROM '$PWD/x.npz';" || fail ".import .npz labels"

# a directory is an OGB dataset: IMPORT OGB, named for the directory
cp -r "$OLDPWD/tests/data/ogb/ogbn_cora" ogbn-cora
"$GNNDB" -echo "$DB" ".import $PWD/ogbn-cora/" 2>/dev/null | grep -qx \
    "IMPORT OGB '$PWD/ogbn-cora/' AS ogbn_cora;" || fail ".import a directory"
"$GNNDB" -csv "$DB" "SHOW GRAPHS;" | grep -qx 'ogbn_cora,2708,10556,1,feat,1,"test,train,valid"' ||
    fail ".import a directory: the graph"

# a quote in the path is doubled in the statement
cp "$D/edges.tsv" "it's.tsv"
"$GNNDB" "$DB" ".echo on" ".import \"$PWD/it's.tsv\" q" > q.txt || fail ".import it's.tsv"
grep -qx "CREATE GRAPH q FROM '$PWD/it''s.tsv';" q.txt || { cat q.txt; fail "quote in the path"; }

# errors: one line, status 1, nothing changed
. "$OLDPWD/tests/e2e_expect_error.sh"
BEFORE=$(snapshot)
printf 'not an array' > bad.npy
expect_error ".import $PWD/x.parquet" "x.parquet: unknown extension"
expect_error ".import $PWD/x.npy.gz feat INTO cora" "unknown extension"
expect_error ".import $PWD/missing.npy m INTO cora" "cannot open .*missing.npy"
expect_error ".import $PWD/bad.npy b INTO cora" "bad.npy"
expect_error ".import $D/features.npy f2 INTO nosuch" "no such graph: nosuch"
expect_error ".import $D/features.npy f2" "which graph?"
expect_error ".import $D/features.npy" "'features' is a keyword"
expect_error ".import $D/edges.tsv 9x" "'9x' is not a name"
expect_error ".import $D/edges.tsv g INTO cora" "INTO is for .npy"
expect_error ".import $D/edges.tsv cora" "cora"
expect_error ".import $D/features.npy feat INTO cora" "feat"
expect_error ".import $PWD/labels.npy INTO cora" "already has labels"
expect_error ".import $PWD/labels.npy INTO my_edges" "labels.npy: row 0: label 0.5 is not an integer"
expect_error ".import $D/train_idx.npy t INTO" "usage: .import FILE"
expect_error ".import $D/train_idx.npy t INTO cora x" "usage: .import FILE"
expect_error ".import $D/train_idx.npy t INTO 1cora" "INTO '1cora': is not a name"
expect_error ".tables a b" "usage: .tables"
expect_error ".schema nosuch" "no graph or object matches 'nosuch'"
expect_error ".echo maybe" "expected on or off"
for c in .tables .schema ".import $D/edges.tsv"; do
    "$GNNDB" -cmd "$c" < /dev/null 2>&1 | grep -q 'no database is open' ||
        fail "$c without a database"
done
echo "import, tables, schema ok"
