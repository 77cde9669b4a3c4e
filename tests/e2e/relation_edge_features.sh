#!/bin/sh
# Edge features of a relation: IMPORT EDGE FEATURES w INTO g.r takes a row
# per input edge of relation r of typed graph g; the reverse WITH REVERSE
# built from the same file reads the same table (DESCRIBE lists it under
# both, .tables and .schema under the relation it was imported into);
# every bad statement fails with one line naming what is wrong and leaves
# the directory, SHOW GRAPHS, DESCRIBE and .schema as they were; DROP
# FEATURES ON g.r, DROP RELATION and DROP GRAPH leave no file behind; a
# relation made again under a dropped one's name, from another file, does
# not share its old reverse's tables.
set -u
fail() { echo "FAIL: $*"; exit 1; }
DB=$PWD/r.gnndb
printf '0,1\n1,2\n3,2\n4,0\n' > writes.csv
printf '4,2\n2,2\n0,0\n1,1\n' > writes_other.csv
printf '0,1\n1,2\n2,2\n' > cites.csv
printf '1,2\n3,4\n5,6\n7,8\n' > w4.csv
printf '1,2\n3,4\n5,6\n' > w3.csv
"$GNNDB" "$DB" "CREATE GRAPH plain FROM 'cites.csv';" > /dev/null || fail "plain"
PLAIN_FILES=$(ls "$DB" | grep '\.blk$')
"$GNNDB" "$DB" "CREATE GRAPH mag;
CREATE NODES paper IN mag COUNT 3;
CREATE NODES author IN mag COUNT 5;
CREATE RELATION writes IN mag FROM author TO paper FROM 'writes.csv' WITH REVERSE;
CREATE RELATION cites IN mag FROM paper TO paper FROM 'cites.csv' UNDIRECTED;
CREATE RELATION bare IN mag FROM paper TO paper FROM 'cites.csv' WITHOUT EDGE IDS;
IMPORT EDGE FEATURES w INTO mag.writes FROM 'w4.csv';
IMPORT EDGE FEATURES c INTO mag.cites FROM 'w3.csv' STORE float16;" || fail setup
nblk() { ls "$DB" | grep -c '\.blk$'; }

# cites is UNDIRECTED: 5 stored edges, 3 input edges, 3 rows
d=$("$GNNDB" -csv -noheader "$DB" "DESCRIBE mag;") || fail describe
for want in "relation.writes.input_edges,4" \
            "relation.writes.edge_features.w,2 x float32" \
            "relation.rev_writes.edge_features.w,2 x float32 (imported into writes)" \
            "relation.cites.edges,5" "relation.cites.input_edges,3" \
            "relation.cites.edge_features.c,2 x float16" \
            "relation.bare.edge_ids,0"; do
    echo "$d" | grep -qx "$want" || fail "DESCRIBE mag lacks '$want': $d"
done
echo "$d" | grep -q '^relation\.bare\.input_edges' && fail "bare has input_edges"
"$GNNDB" -csv -noheader "$DB" "DESCRIBE mag.rev_writes;" |
    grep -qx "relation.rev_writes.edge_features.w,2 x float32 (imported into writes)" ||
    fail "DESCRIBE mag.rev_writes does not list w"
"$GNNDB" -csv -noheader "$DB" "SHOW GRAPHS;" | grep -qx 'mag,8,16,1,,0,' ||
    fail "SHOW GRAPHS lists edge tables as node features"
"$GNNDB" "$DB" ".tables" | grep -qx '  edge features writes.w, cites.c' ||
    fail ".tables: $("$GNNDB" "$DB" ".tables")"
"$GNNDB" "$DB" ".schema mag" | grep -qF -- \
    "-- IMPORT EDGE FEATURES c INTO mag.cites FROM '?' STORE float16;" ||
    fail ".schema: $("$GNNDB" "$DB" ".schema mag")"
[ "$("$GNNDB" "$DB" ".schema mag" | grep -c 'IMPORT EDGE FEATURES w')" -eq 1 ] ||
    fail ".schema imports w twice (once for the reverse)"
"$GNNDB" "$DB" "CHECK;" | grep -q '^ok' || fail CHECK
echo "ok: edge tables of relations imported, listed under both directions"

SNAP_GRAPHS="mag plain" SNAP_SCHEMA=1
. "$OLDPWD/tests/e2e_expect_error.sh"
BEFORE=$(snapshot)
expect_error "IMPORT EDGE FEATURES x INTO nosuch.writes FROM 'w4.csv';" \
    "no such graph: nosuch"
expect_error "IMPORT EDGE FEATURES x INTO mag.venue FROM 'w4.csv';" \
    "graph mag has no relation venue"
expect_error "IMPORT EDGE FEATURES x INTO mag.paper FROM 'w3.csv';" \
    "graph mag has no relation paper: paper is a node type"
expect_error "IMPORT EDGE FEATURES x INTO mag.bare FROM 'w3.csv';" \
    "relation bare of graph mag has none (it was created WITHOUT EDGE IDS): DROP RELATION bare ON mag"
expect_error "IMPORT EDGE FEATURES x INTO mag.writes FROM 'w3.csv';" \
    "w3.csv has 3 rows; relation mag.writes has 4 input edges"
expect_error "IMPORT EDGE FEATURES x INTO mag.rev_writes FROM 'w3.csv';" \
    "w3.csv has 3 rows; relation mag.rev_writes has 4 input edges"
expect_error "IMPORT EDGE FEATURES x INTO mag.cites FROM 'w4.csv';" \
    "w4.csv has 4 rows; relation mag.cites has 3 input edges"
expect_error "IMPORT EDGE FEATURES w INTO mag.writes FROM 'w4.csv';" \
    "relation writes of graph mag already has edge feature table w$"
expect_error "IMPORT EDGE FEATURES w INTO mag.rev_writes FROM 'w4.csv';" \
    "relation rev_writes of graph mag already has edge feature table w, imported into writes"
expect_error "IMPORT EDGE FEATURES __edges INTO mag.writes FROM 'w4.csv';" \
    "'__edges' already exists in graph 'mag.writes'"
expect_error "IMPORT EDGE FEATURES x INTO mag FROM 'w4.csv';" \
    "graph mag has relations, and edge features belong to one: name it, as mag.<relation>"
expect_error "IMPORT EDGE FEATURES x INTO plain.cites FROM 'w3.csv';" \
    "graph plain has no relations"
expect_error "IMPORT EDGE FEATURES x INTO mag.writes FROM 'nope.csv';" \
    "nope.csv"
expect_error "DROP FEATURES zz ON mag.rev_writes;" \
    "relation rev_writes of graph mag has no edge feature table zz (nor has writes, its reverse)"
expect_error "DROP FEATURES __edges ON mag.writes;" \
    "relation writes of graph mag has no edge feature table __edges"

# DROP FEATURES through the reverse drops the one shared table
n0=$(nblk)
"$GNNDB" "$DB" "DROP FEATURES w ON mag.rev_writes;" || fail "DROP FEATURES w ON mag.rev_writes"
[ "$(nblk)" -eq $((n0 - 1)) ] || fail "DROP FEATURES left $(nblk) files of $n0"
"$GNNDB" -csv -noheader "$DB" "DESCRIBE mag;" | grep -q 'edge_features\.w' &&
    fail "w still listed"
echo "ok: DROP FEATURES w ON mag.rev_writes"

# a table imported into the reverse stays when the relation it reverses
# goes, and goes with the reverse
"$GNNDB" "$DB" "IMPORT EDGE FEATURES w INTO mag.rev_writes FROM 'w4.csv';" || fail "into rev_writes"
n0=$(nblk)
"$GNNDB" "$DB" "DROP RELATION writes ON mag;" || fail "DROP RELATION writes"
[ "$(nblk)" -eq $((n0 - 3)) ] || fail "DROP RELATION writes: $(nblk) files of $n0"
"$GNNDB" -csv -noheader "$DB" "DESCRIBE mag.rev_writes;" |
    grep -qx 'relation.rev_writes.edge_features.w,2 x float32' || fail "w left rev_writes"
# writes made again from another file: its edge ids are other edges
"$GNNDB" "$DB" "CREATE RELATION writes IN mag FROM author TO paper FROM 'writes_other.csv';
  IMPORT EDGE FEATURES w INTO mag.writes FROM 'w4.csv';" || fail "new writes shares rev_writes' tables"
d=$("$GNNDB" -csv -noheader "$DB" "DESCRIBE mag;")
echo "$d" | grep -q 'imported into' && fail "a stale reverse_of shared tables: $d"
n0=$(nblk)
"$GNNDB" "$DB" "DROP RELATION rev_writes ON mag;" || fail "DROP RELATION rev_writes"
[ "$(nblk)" -eq $((n0 - 4)) ] || fail "DROP RELATION rev_writes: $(nblk) files of $n0"
"$GNNDB" "$DB" "CHECK;" | grep -q '^ok' || fail "CHECK after drops"
echo "ok: DROP RELATION drops the tables stored with it"

"$GNNDB" "$DB" "DROP GRAPH mag;" || fail "DROP GRAPH"
[ "$(ls "$DB" | grep '\.blk$')" = "$PLAIN_FILES" ] ||
    fail "DROP GRAPH mag left files: $(ls "$DB")"
"$GNNDB" "$DB" "CHECK;" | grep -q '^ok' || fail "CHECK after DROP GRAPH"
echo "ok: relation_edge_features"
