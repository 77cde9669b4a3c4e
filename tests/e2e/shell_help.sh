#!/bin/sh
# --help names every option, --version prints the library's version, an
# unknown option fails, .help names every dot command, and docs/shell.md
# documents every option and dot command the shell has.
set -u
fail() { echo "FAIL: $*"; exit 1; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

"$GNNDB" --help > help.txt 2>&1 || fail "--help exits non-zero"
grep -q '^Usage: gnndb' help.txt || fail "--help: no usage line"
OPTIONS="-bail -cmd -csv -echo -f -header -help -json -line -list -noheader
         -nohistory -readonly -separator -table -version"
for o in $OPTIONS; do
    grep -q -- "^  $o[ ,]" help.txt || fail "--help does not describe $o"
    grep -q -- "\`$o" "$ROOT/docs/shell.md" || fail "docs/shell.md does not document $o"
done
"$GNNDB" -help | cmp -s - help.txt || fail "-help differs from --help"

want=$(sed -n 's/^#define GNNDB_VERSION *"\(.*\)".*/\1/p' "$ROOT/include/gnndb.h")
[ -n "$want" ] || fail "no GNNDB_VERSION in gnndb.h"
[ "$("$GNNDB" --version)" = "$want" ] || fail "--version is not '$want'"
[ "$("$GNNDB" -version)" = "$want" ] || fail "-version is not '$want'"

"$GNNDB" --no-such-option > out.txt 2> err.txt && fail "an unknown option succeeded"
grep -q 'no-such-option' err.txt || fail "unknown option: message does not name it"
"$GNNDB" -f > /dev/null 2>&1 && fail "-f without a file succeeded"

"$GNNDB" -cmd .help < /dev/null > dothelp.txt 2>&1 || fail ".help failed"
for c in bail describe echo exit graphs headers help import mode open output pragma quit \
         read schema separator show stats summary tables timer; do
    grep -q "^\.$c" dothelp.txt || fail ".help does not list .$c"
    grep -q "\`\.$c" "$ROOT/docs/shell.md" || fail "docs/shell.md does not document .$c"
done
"$GNNDB" -cmd ".help mode" < /dev/null | grep -q '^\.mode' || fail ".help mode"
for m in table list csv json line; do
    grep -q "\`$m\`" "$ROOT/docs/shell.md" || fail "docs/shell.md does not document mode $m"
done
echo "help and version ok"
