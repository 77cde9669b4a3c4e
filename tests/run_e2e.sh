#!/bin/sh
# Run every end-to-end shell test script tests/e2e/*.sh against build dir $1.
B=${1:-build}
export GNNDB=$(pwd)/$B/gnndb
export GNNDB_DATA=$(sh scripts/data.sh)   # ../shared/data or the shipped cora
pass=0; fail=0
for t in tests/e2e/*.sh; do
    [ -f "$t" ] || continue
    tmp=$(mktemp -d /tmp/gnndb-e2e.XXXXXX)
    if (cd "$tmp" && timeout 900 sh "$OLDPWD/$t") > "$tmp.log" 2>&1; then
        pass=$((pass + 1)); echo "ok   $t"
    else
        fail=$((fail + 1)); echo "FAIL $t"; tail -40 "$tmp.log"
    fi
    rm -rf "$tmp" "$tmp.log"
done
echo "e2e: $pass passed, $fail failed"
[ $fail -eq 0 ]
