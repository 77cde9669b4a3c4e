#!/bin/sh
# IMPORT FEATURES, IMPORT LABELS and IMPORT EDGE FEATURES ... REPLACE: the
# new table takes the old one's place in the transaction that publishes
# it, so a reader sees the old rows or the new ones, never no table; the
# old file goes after the commit; a REPLACE that fails (rows that do not
# fit the graph, a missing file) leaves the old table, its rows and the
# directory as they were; a name taken by a table of another kind is
# refused naming both; without a table of that name REPLACE creates one;
# on a typed graph a relation's table imported into its reverse is the
# one replaced; and "replace" is still a name. (The kills during a
# REPLACE are crash_trials.sh's.)
set -u
fail() { echo "FAIL: $*"; exit 1; }
DB=$PWD/r.gnndb
printf '0,1\n1,2\n2,3\n3,0\n' > e.csv
printf '1,2\n3,4\n5,6\n7,8\n' > a.csv           # 4 rows of 2
printf '9,9,9\n8,8,8\n7,7,7\n6,6,6\n' > b.csv   # 4 rows of 3
printf '1,1,1\n2,2,2\n' > short.csv             # 2 rows
printf '0\n1\n0\n1\n' > y1.csv
printf '2\n2\n1\n0\n' > y2.csv
printf '0.5\n1.5\n2.5\n3.5\n' > w.csv
"$GNNDB" "$DB" "CREATE GRAPH g FROM 'e.csv';
IMPORT FEATURES f INTO g FROM 'a.csv';
IMPORT LABELS INTO g FROM 'y1.csv';
IMPORT EDGE FEATURES w INTO g FROM 'w.csv';" > /dev/null || fail setup
nblk() { ls "$DB" | grep -c '\.blk$'; }

# a feature table replaced: its rows and dimension are the new file's, and
# the old file is gone
n0=$(nblk)
"$GNNDB" "$DB" "IMPORT FEATURES f INTO g FROM 'b.csv' REPLACE;" > /dev/null ||
    fail "IMPORT FEATURES f ... REPLACE"
"$GNNDB" -csv -noheader "$DB" "DESCRIBE g;" | grep -qx 'features.f,3 x float32' ||
    fail "f is not 3 wide after the REPLACE"
[ "$(nblk)" -eq "$n0" ] || fail "REPLACE left $(nblk) block files of $n0"
echo "ok: IMPORT FEATURES f ... REPLACE"

# the rows are the new file's: a batch of every node has the digest of
# the same batch in a database that imported that file (the shell prints
# GATHER's summary, not its rows)
digest() { "$GNNDB" -csv -noheader "$1" "SAMPLE -1 FROM g SEEDS ALL FEATURES f BATCH 4 SEED 1;" | cut -d, -f7; }
"$GNNDB" fresh.gnndb "CREATE GRAPH g FROM 'e.csv';
IMPORT FEATURES f INTO g FROM 'b.csv';
IMPORT LABELS INTO g FROM 'y1.csv';" > /dev/null || fail fresh
[ "$(digest "$DB")" = "$(digest fresh.gnndb)" ] ||
    fail "the replaced table's rows are not b.csv's"
echo "ok: the rows are the new file's"

# a REPLACE that fails leaves the table it would have replaced
. "$OLDPWD/tests/e2e_expect_error.sh"
SNAP_GRAPHS=g
BEFORE=$(snapshot)
expect_error "IMPORT FEATURES f INTO g FROM 'short.csv' REPLACE;" "short.csv has 2 rows"
expect_error "IMPORT FEATURES f INTO g FROM 'nope.csv' REPLACE;" "nope.csv"
expect_error "IMPORT FEATURES f INTO g FROM 'b.csv' REPLACE REPLACE;" "REPLACE"
expect_error "IMPORT FEATURES w INTO g FROM 'b.csv' REPLACE;" \
    "w is an edge feature table; REPLACE replaces a feature table only"
expect_error "IMPORT EDGE FEATURES f INTO g FROM 'w.csv' REPLACE;" \
    "f is a feature table; REPLACE replaces an edge feature table only"
expect_error "IMPORT FEATURES __edges INTO g FROM 'b.csv' REPLACE;" \
    "__edges is the graph's edge table"
expect_error "IMPORT LABELS INTO g FROM 'short.csv' REPLACE;" "short.csv"
expect_error "IMPORT FEATURES f INTO g FROM 'a.csv';" "already exists"
[ "$(digest "$DB")" = "$(digest fresh.gnndb)" ] || fail "a failed REPLACE changed f"

# labels and an edge feature table replaced; a new name with REPLACE
"$GNNDB" "$DB" "IMPORT LABELS INTO g FROM 'y2.csv' REPLACE;
IMPORT EDGE FEATURES w INTO g FROM 'a.csv' REPLACE;
IMPORT FEATURES replace INTO g FROM 'a.csv' REPLACE;" > /dev/null ||
    fail "labels, edge features, a new table"
d=$("$GNNDB" -csv -noheader "$DB" "DESCRIBE g;")
for want in "labels,3 classes" "edge_features.w,2 x float32" \
            "features.replace,2 x float32" "features.f,3 x float32"; do
    echo "$d" | grep -qx "$want" || fail "DESCRIBE g lacks '$want': $d"
done
[ "$(nblk)" -eq $((n0 + 1)) ] || fail "$(nblk) block files, not $((n0 + 1))"
ck=$("$GNNDB" -readonly -csv -noheader "$DB" "CHECK;") || fail "CHECK: $ck"
case "$ck" in ok,*) ;; *) fail "CHECK found problems: $ck" ;; esac
echo "ok: labels, edge features and a new name replaced; CHECK passes"

# typed: the table imported into writes, replaced through rev_writes
printf '0,1\n1,2\n3,2\n4,0\n' > writes.csv
"$GNNDB" "$DB" "CREATE GRAPH mag;
CREATE NODES paper IN mag COUNT 3;
CREATE NODES author IN mag COUNT 5;
CREATE RELATION writes IN mag FROM author TO paper FROM 'writes.csv' WITH REVERSE;
IMPORT EDGE FEATURES w INTO mag.writes FROM 'a.csv';" > /dev/null || fail "mag"
n1=$(nblk)
"$GNNDB" "$DB" "IMPORT EDGE FEATURES w INTO mag.rev_writes FROM 'b.csv' REPLACE;" > /dev/null ||
    fail "REPLACE through the reverse"
d=$("$GNNDB" -csv -noheader "$DB" "DESCRIBE mag;")
for want in "relation.rev_writes.edge_features.w,3 x float32" \
            "relation.writes.edge_features.w,3 x float32 (imported into rev_writes)"; do
    echo "$d" | grep -qx "$want" || fail "DESCRIBE mag lacks '$want': $d"
done
[ "$(nblk)" -eq "$n1" ] || fail "$(nblk) block files, not $n1"
echo "ok: a relation's table replaced through its reverse"
