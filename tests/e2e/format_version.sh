#!/bin/sh
# The catalog records the format version: PRAGMA format_version reports it,
# and a database whose catalog says a newer version than this library reads
# fails to open, read-only or not, with an error that names the version; so
# does one of format 1 (no page checksums), saying how to rebuild it. One of
# format 2 (no edge ids) is read as it is read-only, and migrated to 3 when
# opened writable, its graphs without edge ids.
set -u
fail() { echo "FAIL: $*"; exit 1; }
DB=$PWD/v.gnndb
"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$GNNDB_DATA/cora/edges.tsv';" > /dev/null || fail setup
v=$("$GNNDB" -csv -noheader "$DB" "PRAGMA format_version;") || fail "PRAGMA format_version"
[ "$v" = "format_version,3" ] || fail "PRAGMA format_version says '$v'"
"$GNNDB" "$DB" "PRAGMA format_version = 4;" > /dev/null 2>&1 && fail "format_version is writable"

# a catalog from the future
setv() {
    /usr/bin/python3 - "$DB/catalog.db" "$1" <<'PY' || fail "editing the catalog"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE meta SET value = ? WHERE key = 'format_version'", (int(sys.argv[2]),))
c.commit()
assert c.execute("SELECT value FROM meta WHERE key = 'format_version'").fetchone()[0] == int(sys.argv[2])
c.close()
PY
}
setv 99
for ro in "" -readonly; do
    out=$("$GNNDB" $ro "$DB" "SHOW GRAPHS;" 2>&1) && fail "opened a format 99 database ($ro): $out"
    echo "$out" | grep -q "format version 99" || fail "the error does not name version 99: $out"
    echo "$out" | grep -q "reads up to 5" || fail "the error does not name the supported version: $out"
    echo "ok: refused ($ro): $out"
done
# a catalog from before page checksums: refused, with how to rebuild it
setv 1
for ro in "" -readonly; do
    out=$("$GNNDB" $ro "$DB" "SHOW GRAPHS;" 2>&1) && fail "opened a format 1 database ($ro): $out"
    echo "$out" | grep -q "format version 1" || fail "the error does not name version 1: $out"
    echo "$out" | grep -q "rebuild it" || fail "the error does not say how to rebuild: $out"
    echo "$out" | grep -q "CREATE GRAPH" || fail "the error does not name the statements: $out"
    echo "ok: refused ($ro): $out"
done
# nothing was changed by the failed opens: back to 3, it opens as before
setv 3
"$GNNDB" -csv -noheader "$DB" "SHOW GRAPHS;" | grep -q '^cora,' || fail "reopen at version 3"

# a format 2 database: the catalog of a gnndb before edge ids
/usr/bin/python3 - "$DB/catalog.db" <<'PY' || fail "making a format 2 catalog"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
# node types and relations (migration 5) came after edge ids
c.execute("DROP TABLE node_types")
c.execute("DROP TABLE relations")
for t, col in (("graphs", "kind"), ("graphs", "parent_id"),
               ("tables", "node_type"), ("splits", "node_type")):
    c.execute("ALTER TABLE %s DROP COLUMN %s" % (t, col))
for col in ("has_eids", "eid_file", "eid_token", "eid_blocks", "input_edges"):
    c.execute("ALTER TABLE graphs DROP COLUMN " + col)
# versions (migration 7) came after both
for col in ("version", "oldest_version", "build_flags", "made"):
    c.execute("ALTER TABLE graphs DROP COLUMN " + col)
for col in ("kind", "seed"):   # edge splits came with edge ids
    c.execute("ALTER TABLE splits DROP COLUMN " + col)
c.execute("DELETE FROM tables WHERE name = '__edges'")
c.execute("UPDATE meta SET value = 2 WHERE key = 'format_version'")
c.execute("UPDATE meta SET value = 3 WHERE key = 'schema_version'")
c.commit()
PY
fv() { /usr/bin/python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT value FROM meta WHERE key='format_version'\").fetchone()[0])" "$DB/catalog.db"; }
out=$("$GNNDB" -readonly -csv -noheader "$DB" "DESCRIBE cora;" 2>&1) || fail "read-only open of format 2: $out"
echo "$out" | grep -q '^edge_ids,0' || fail "format 2 graph has edge ids: $out"
[ "$(fv)" = 2 ] || fail "a read-only open changed the format version to $(fv)"
out=$("$GNNDB" -csv -noheader "$DB" "DESCRIBE cora;" 2>&1) || fail "writable open of format 2: $out"
echo "$out" | grep -q '^edge_ids,0' || fail "migrated graph has edge ids: $out"
[ "$(fv)" = 3 ] || fail "a writable open left format version $(fv)"
echo "ok: format 2 read as is read-only, migrated to 3 writable"
out=$("$GNNDB" "$DB" "CHECK;" 2>&1) || fail "CHECK after migration: $out"
echo "$out" | grep -q "ok" || fail "CHECK after migration: $out"
echo "ok: format_version"
