#!/bin/sh
# docs/api.md documents every public function: each GNNDB_API function
# declared in include/gnndb.h has its own heading and signature there.
set -u
fail() { echo "FAIL: $*"; exit 1; }
ROOT=$OLDPWD
H=$ROOT/include/gnndb.h
DOC=$ROOT/docs/api.md
[ -f "$DOC" ] || fail "docs/api.md is missing"
# the name just before the first '(' of each declaration that starts with
# GNNDB_API (declarations may span lines; the name is on the first)
names=$(grep '^GNNDB_API' "$H" | sed -n 's/^[^(]*[^A-Za-z0-9_]\([A-Za-z_][A-Za-z0-9_]*\)[[:space:]]*(.*/\1/p')
n=$(echo "$names" | grep -c .)
decl=$(grep -c '^GNNDB_API' "$H")
[ "$n" -eq "$decl" ] || fail "parsed $n names from $decl GNNDB_API declarations"
[ "$n" -gt 10 ] || fail "only $n API functions found in gnndb.h"
missing=""
for f in $names; do
    grep -q "^#### $f\$" "$DOC" && grep -q "[^A-Za-z0-9_]$f(" "$DOC" ||
        missing="$missing $f"
done
[ -z "$missing" ] || fail "not documented in docs/api.md:$missing"
# and nothing documented that the header does not declare
for f in $(sed -n 's/^#### \(gnndb_[A-Za-z0-9_]*\)$/\1/p' "$DOC"); do
    echo "$names" | grep -qx "$f" || fail "docs/api.md documents $f, which gnndb.h does not declare"
done
grep -q "^## Threads and processes" "$DOC" || fail "docs/api.md has no threading rules"
grep -q "Threads and processes" "$H" || fail "gnndb.h has no threading section"
echo "ok: $n API functions documented"
