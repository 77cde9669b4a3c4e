#!/bin/sh
# Run every cmocka unit test program of build dir $1; print a summary line.
B=${1:-build}
export GNNDB_DATA=$(sh scripts/data.sh)   # ../shared/data or the shipped cora
export GNNDB_TMP=${GNNDB_TMP:-$(mktemp -d /tmp/gnndb-test.XXXXXX)}
pass=0; fail=0; failed=""
for t in "$B"/tests/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    if timeout 900 "$t" > "$GNNDB_TMP/$name.log" 2>&1; then
        pass=$((pass + 1)); echo "ok   $name ($B)"
    else
        fail=$((fail + 1)); failed="$failed $name"
        echo "FAIL $name ($B)"; tail -40 "$GNNDB_TMP/$name.log"
    fi
done
rm -rf "$GNNDB_TMP"
echo "unit ($B): $pass passed, $fail failed"
[ $fail -eq 0 ]
