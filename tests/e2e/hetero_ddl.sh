#!/bin/sh
# Typed graphs through the shell: CREATE GRAPH without FROM, CREATE NODES,
# CREATE RELATION [WITH REVERSE], features, labels and splits of a node
# type, DESCRIBE; then every bad input is refused with one line of words
# and leaves the directory, SHOW GRAPHS and DESCRIBE mag as they were;
# DROP RELATION and DROP GRAPH leave no file behind.
set -u
fail() { echo "FAIL: $*"; exit 1; }
DB=$PWD/h.gnndb
printf '0,1\n1,2\n3,2\n4,0\n' > writes.csv
printf '0,1\n1,2\n2,2\n' > cites.csv
printf '0,1\n5,2\n' > bad_author.csv
printf '0,1\n1,3\n' > bad_paper.csv
printf '0\n2\n' > train.txt
printf '0\n5\n' > bad_ids.txt
printf '0.5,1\n1,2\n' > feat2.csv
printf '0.5,1\n1,2\n3,4\n' > feat3.csv
printf '0\n1\n1\n' > labels.csv
"$GNNDB" "$DB" "CREATE GRAPH mag;
CREATE NODES paper IN mag COUNT 3;
CREATE NODES author IN mag COUNT 5;
CREATE RELATION writes IN mag FROM author TO paper FROM 'writes.csv' WITH REVERSE;
CREATE RELATION cites IN mag FROM paper TO paper FROM 'cites.csv' UNDIRECTED;
IMPORT FEATURES feat INTO mag.paper FROM 'feat3.csv';
IMPORT LABELS INTO mag.paper FROM 'labels.csv';
CREATE SPLIT train ON mag.paper FROM 'train.txt';" || fail setup
d=$("$GNNDB" -csv -noheader "$DB" "DESCRIBE mag;") || fail describe
for want in "nodes,8" "edges,13" "type.paper.offset,0" "type.author.offset,3" \
            "type.author.count,5" "type.paper.features.feat,2 x float32" \
            "type.paper.labels,2 classes" "type.paper.split.train,2" \
            "relation.writes.src,author" "relation.rev_writes.dst,author" \
            "relation.rev_writes.reverse_of,writes" "relation.cites.edges,5"; do
    echo "$d" | grep -qx "$want" || fail "DESCRIBE mag lacks '$want': $d"
done
"$GNNDB" -csv -noheader "$DB" "SHOW GRAPHS;" | grep -q '^mag,8,13,' || fail "SHOW GRAPHS"
"$GNNDB" "$DB" "CHECK;" | grep -q '^ok' || fail CHECK
echo "ok: typed graph built"

SNAP_GRAPHS=mag
. "$OLDPWD/tests/e2e_expect_error.sh"
BEFORE=$(snapshot)
expect_error "CREATE RELATION x IN mag FROM author TO venue FROM 'writes.csv';" \
    "graph mag has no node type venue"
expect_error "CREATE RELATION x IN mag FROM author TO paper FROM 'bad_author.csv';" \
    "bad_author.csv:2:1: relation x: node id 5 is not a node of type author (5 nodes"
expect_error "CREATE RELATION x IN mag FROM author TO paper FROM 'bad_paper.csv' WITH REVERSE;" \
    "bad_paper.csv:2:3: relation x: node id 3 is not a node of type paper (3 nodes"
expect_error "IMPORT FEATURES f2 INTO mag.paper FROM 'feat2.csv';" \
    "2 rows but graph mag.paper has 3 nodes"
expect_error "IMPORT FEATURES f2 INTO mag FROM 'feat3.csv';" "graph mag has node types"
expect_error "CREATE NODES paper IN mag COUNT 4;" "already has a node type named paper"
expect_error "CREATE RELATION writes IN mag FROM author TO paper FROM 'writes.csv';" \
    "already has a relation named writes"
expect_error "CREATE RELATION author IN mag FROM author TO paper FROM 'writes.csv';" \
    "already has a node type named author"
expect_error "CREATE NODES venue IN mag COUNT 4;" \
    "graph mag already has relations (writes, rev_writes, cites): node types are added before the first relation"
expect_error "CREATE SPLIT t2 ON mag.author FROM 'bad_ids.txt';" \
    "bad_ids.txt: entry 1: node 5 is not in graph mag.author (5 nodes)"
expect_error "SAMPLE 2 FROM mag BATCH 2;" "graph mag is typed: give each hop a map of relation fanouts"
expect_error "DESCRIBE mag.venue;" "graph mag has no node type or relation named venue"
expect_error "DROP RELATION venue ON mag;" "graph mag has no relation venue"

"$GNNDB" "$DB" "DROP RELATION cites ON mag;" || fail "DROP RELATION"
"$GNNDB" -csv -noheader "$DB" "SHOW GRAPHS;" | grep -q '^mag,8,8,' || fail "edges after DROP RELATION"
"$GNNDB" "$DB" "DROP GRAPH mag;" || fail "DROP GRAPH"
left=$(ls "$DB" | grep '\.blk$' || true)
[ -z "$left" ] || fail "files left by DROP GRAPH: $left"
echo "ok: hetero_ddl"
