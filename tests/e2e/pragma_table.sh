#!/bin/sh
# The PRAGMAs, one table (engine/pragmas.c) against the manual: PRAGMA alone
# lists every setting once; docs/language.md's table documents each (and
# stats and calibrate); a fresh connection holds the default the manual
# gives, where it gives one as a literal; a setting set answers with its
# new value; a value out of its range, a read-only fact and an unknown name
# are refused in the words of the table.
set -u
fail() { echo "FAIL: $*"; exit 1; }
ROOT=$OLDPWD
DOC=$ROOT/docs/language.md

"$GNNDB" -list db.gnndb "PRAGMA;" > list.txt 2> err.txt || fail "PRAGMA failed: $(cat err.txt)"
cut -d'|' -f1 list.txt > names.txt
[ "$(sort names.txt | uniq -d)" = "" ] || fail "PRAGMA lists a setting twice"
[ "$(wc -l < names.txt)" -ge 15 ] || fail "PRAGMA lists $(wc -l < names.txt) settings"
sed -n 's/^| `\([a-z_]*\)` | \(.*\) | .* |$/\1|\2/p' "$DOC" \
    | awk -F'|' '!seen[$1]++' > doc.txt
for n in $(cat names.txt); do
    grep -q "^$n|" doc.txt || fail "PRAGMA $n is not in docs/language.md's table"
done
for n in stats calibrate; do
    grep -q "^$n|" doc.txt || fail "PRAGMA $n is not in docs/language.md's table"
    "$GNNDB" db.gnndb "PRAGMA $n;" > /dev/null 2>&1 || fail "PRAGMA $n failed"
done
# the defaults the manual writes as a literal (`auto`, `64`)
while IFS='|' read -r n d; do
    grep -qx "$n" names.txt || continue
    lit=$(echo "$d" | sed -n 's/^ *`\([^`]*\)` *$/\1/p; t; s/^ *\([0-9][0-9]*\) *$/\1/p')
    [ -n "$lit" ] || continue
    got=$(grep "^$n|" list.txt | cut -d'|' -f2)
    [ "$got" = "$lit" ] || [ "$got" = "$lit B" ] \
        || fail "PRAGMA $n is '$got' on a fresh connection; the manual says '$lit'"
done < doc.txt
out=$("$GNNDB" -list db.gnndb "PRAGMA io_depth = 16; PRAGMA spill = on;")
[ "$out" = "io_depth|16
spill|on" ] || fail "settings did not read back: $out"
"$GNNDB" db.gnndb "PRAGMA threads = 0;" > out.txt 2>&1
grep -q "PRAGMA threads = 0: use 1 to 256" out.txt || fail "threads = 0: $(cat out.txt)"
# a fraction: (0, 1], read back as a number; 0, above 1 and words refused
out=$("$GNNDB" -list db.gnndb "PRAGMA compact_fraction = 0.5; PRAGMA compact_fraction = 1;")
[ "$out" = "compact_fraction|0.5
compact_fraction|1" ] || fail "compact_fraction did not read back: $out"
for v in 0 1.5 -0.25 "'half'"; do
    "$GNNDB" db.gnndb "PRAGMA compact_fraction = $v;" > out.txt 2>&1 \
        && fail "compact_fraction = $v was taken"
    grep -q "PRAGMA compact_fraction = .*: use a fraction in (0, 1\]" out.txt \
        || fail "compact_fraction = $v: $(cat out.txt)"
done
"$GNNDB" db.gnndb "PRAGMA stats = 1;" > out.txt 2>&1
grep -q "PRAGMA stats is read-only" out.txt || fail "stats = 1: $(cat out.txt)"
"$GNNDB" db.gnndb "PRAGMA nosuch;" > out.txt 2>&1
grep -q "unknown pragma: nosuch" out.txt || fail "nosuch: $(cat out.txt)"
exit 0
