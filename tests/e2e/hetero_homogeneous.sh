#!/bin/sh
# A homogeneous database from before typed graphs (schema 4: no node types,
# no relations, no node_type of a table or split) opens and behaves as it
# did: read-only it reads as it is, writable it gains schema 5; SHOW
# GRAPHS, DESCRIBE and a seeded SAMPLE (its batches' digests) are the same
# before, read-only and after the migration; CHECK passes.
set -u
fail() { echo "FAIL: $*"; exit 1; }
DB=$PWD/old.gnndb
"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$GNNDB_DATA/cora/edges.tsv';
IMPORT FEATURES feat INTO cora FROM '$GNNDB_DATA/cora/features.npy';
IMPORT LABELS INTO cora FROM '$GNNDB_DATA/cora/labels.npy';
CREATE SPLIT train ON cora FROM '$GNNDB_DATA/cora/train_idx.npy';" > /dev/null || fail setup
Q="SAMPLE 10,5 FROM cora SEEDS train FEATURES feat BATCH 64 SEED 7 SHUFFLE;"
state() { # $1: -readonly or nothing
    "$GNNDB" $1 -csv "$DB" "SHOW GRAPHS;" &&
    "$GNNDB" $1 -csv "$DB" "DESCRIBE cora;" | grep -v '^file\.catalog' &&
    "$GNNDB" $1 -csv "$DB" "$Q"
}
before=$(state "") || fail "state before"
sv() { /usr/bin/python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT value FROM meta WHERE key='schema_version'\").fetchone()[0])" "$DB/catalog.db"; }
[ "$(sv)" = 7 ] || fail "a new catalog has schema $(sv)"
# undo migration 5: the catalog of the gnndb before typed graphs
/usr/bin/python3 - "$DB/catalog.db" <<'PY' || fail "making a schema 4 catalog"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("DROP TABLE node_types")
c.execute("DROP TABLE relations")
# versions (migration 7) came later
for col in ("version", "oldest_version", "build_flags", "made"):
    c.execute("ALTER TABLE graphs DROP COLUMN " + col)
for t, col in (("graphs", "kind"), ("graphs", "parent_id"),
               ("tables", "node_type"), ("splits", "node_type")):
    c.execute("ALTER TABLE %s DROP COLUMN %s" % (t, col))
c.execute("UPDATE meta SET value = 4 WHERE key = 'schema_version'")
c.commit()
PY
ro=$(state -readonly) || fail "read-only open of schema 4"
[ "$ro" = "$before" ] || { echo "$before" > b.txt; echo "$ro" > a.txt; diff b.txt a.txt; fail "read-only schema 4 differs"; }
[ "$(sv)" = 4 ] || fail "a read-only open changed the schema to $(sv)"
echo "ok: schema 4 read as it is, same batches"
after=$(state "") || fail "writable open of schema 4"
[ "$after" = "$before" ] || { echo "$before" > b.txt; echo "$after" > a.txt; diff b.txt a.txt; fail "migrated database differs"; }
[ "$(sv)" = 7 ] || fail "a writable open left schema $(sv)"
"$GNNDB" "$DB" "CHECK;" | grep -q '^ok' || fail CHECK
# and the migrated database takes a typed graph beside cora
"$GNNDB" "$DB" "CREATE GRAPH mag; CREATE NODES paper IN mag COUNT 3;" || fail "typed graph after migration"
echo "ok: migrated to schema 5, same batches"
