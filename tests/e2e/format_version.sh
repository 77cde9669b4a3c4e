#!/bin/sh
# The catalog records the format version: PRAGMA format_version reports it,
# and a database whose catalog says a newer version than this library reads
# fails to open, read-only or not, with an error that names the version; so
# does one of format 1 (no page checksums), saying how to rebuild it.
set -u
fail() { echo "FAIL: $*"; exit 1; }
DB=$PWD/v.gnndb
"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$GNNDB_DATA/cora/edges.tsv';" > /dev/null || fail setup
v=$("$GNNDB" -csv -noheader "$DB" "PRAGMA format_version;") || fail "PRAGMA format_version"
[ "$v" = "format_version,2" ] || fail "PRAGMA format_version says '$v'"
"$GNNDB" "$DB" "PRAGMA format_version = 3;" > /dev/null 2>&1 && fail "format_version is writable"

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
    echo "$out" | grep -q "reads up to 2" || fail "the error does not name the supported version: $out"
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
# nothing was changed by the failed opens: back to 2, it opens as before
setv 2
"$GNNDB" -csv -noheader "$DB" "SHOW GRAPHS;" | grep -q '^cora,' || fail "reopen at version 2"
echo "ok: format_version"
