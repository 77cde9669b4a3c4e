#!/bin/sh
# Errors and exit status: "Error: <message>" on stderr, prefixed FILE:LINE:
# in scripts (naming the line where the failing statement starts); exit
# status 1 when anything failed; -bail (and .bail on) stopping at the first
# error, through .read too; scripts on stdin and with -f; statements split
# at ';' outside quotes and comments; .quit and .exit CODE.
set -u
fail() { echo "FAIL: $*"; exit 1; }
D=$GNNDB_DATA/cora
DB=$PWD/e.gnndb
"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$D/edges.tsv';
IMPORT LABELS INTO cora FROM '$D/labels.npy';
CREATE SPLIT train ON cora FROM '$D/train_idx.npy';" || fail "setup"

# run CMD...: stdout to out.txt, stderr to err.txt, status in $rc
run() { "$@" > out.txt 2> err.txt; rc=$?; }

run "$GNNDB" "$DB" "SHOW GRAPHS;"
[ $rc -eq 0 ] || fail "a good statement exits $rc"
[ -s err.txt ] && fail "a good statement wrote to stderr"

# an unknown graph: one line, status 1
run "$GNNDB" "$DB" "DESCRIBE nosuch;"
[ $rc -eq 1 ] || fail "an error exits $rc, not 1"
[ "$(wc -l < err.txt)" -eq 1 ] || fail "not one line on stderr"
grep -q '^Error: .*nosuch' err.txt || { cat err.txt; fail "message lacks 'Error: ...nosuch'"; }

# a syntax error names the token at fault
run "$GNNDB" "$DB" "SAMPLE 10 FORM cora BATCH 4;"
[ $rc -eq 1 ] || fail "syntax error exits $rc"
grep -q "^Error: .*FORM" err.txt || { cat err.txt; fail "syntax error does not name FORM"; }

# SQL arguments: an error skips the rest of its argument; later arguments
# still run, unless -bail
run "$GNNDB" "$DB" "DESCRIBE nosuch; SHOW GRAPHS;" "DESCRIBE cora;"
[ $rc -eq 1 ] || fail "args: status $rc"
grep -q '^cora|' out.txt && fail "args: the statement after an error in the same argument ran"
grep -qx 'nodes|2708' out.txt || fail "args: the next argument did not run"
run "$GNNDB" -bail "$DB" "DESCRIBE nosuch;" "DESCRIBE cora;"
[ $rc -eq 1 ] || fail "-bail args: status $rc"
[ -s out.txt ] && fail "-bail: an argument after the error ran"

# a script on stdin: errors name <stdin>:LINE, the script goes on
cat > run.gq <<EOF
SHOW GRAPHS;
-- a comment; with a semicolon
DESCRIBE
  cora;
SAMPLE 10 FORM cora BATCH 4;
SHOW GRAPHS; DESCRIBE nosuch;

DESCRIBE
   also_missing;
CREATE SPLIT xy ON cora FROM '$PWD/not;here.npy';
PRAGMA threads
EOF
run "$GNNDB" "$DB" < run.gq
[ $rc -eq 1 ] || fail "stdin script with errors exits $rc"
[ "$(grep -c '^cora|' out.txt)" -eq 2 ] || { cat out.txt; fail "stdin: statements did not all run"; }
grep -qx 'nodes|2708' out.txt || fail "stdin: multi-line DESCRIBE did not run"
grep -q '^threads|' out.txt || fail "stdin: the last statement (no ';') did not run"
grep -q '^<stdin>:5: Error: .*FORM' err.txt || { cat err.txt; fail "stdin: error not at <stdin>:5"; }
grep -q '^<stdin>:6: Error: .*nosuch' err.txt || { cat err.txt; fail "stdin: second statement on line 6"; }
grep -q '^<stdin>:8: Error: .*also_missing' err.txt || { cat err.txt; fail "stdin: multi-line statement error not at its first line 8"; }
grep -q '^<stdin>:10: Error: .*not;here.npy' err.txt || { cat err.txt; fail "stdin: ';' inside quotes split the statement"; }
[ "$(wc -l < err.txt)" -eq 4 ] || { cat err.txt; fail "stdin: not 4 error lines"; }

# -bail on stdin: stops at line 5
run "$GNNDB" -bail "$DB" < run.gq
[ $rc -eq 1 ] || fail "-bail stdin: status $rc"
[ "$(grep -c '^cora|' out.txt)" -eq 1 ] || fail "-bail stdin: ran past the error"
[ "$(wc -l < err.txt)" -eq 1 ] || fail "-bail stdin: more than one error"

# -f FILE names the file
run "$GNNDB" "$DB" -f run.gq
[ $rc -eq 1 ] || fail "-f: status $rc"
grep -q '^run.gq:5: Error: .*FORM' err.txt || { cat err.txt; fail "-f: error not at run.gq:5"; }

# .read FILE, with and without bail
printf 'SHOW GRAPHS;\nDESCRIBE nosuch;\nDESCRIBE cora;\n' > inner.gq
printf '.read inner.gq\nPRAGMA threads;\n' > outer.gq
run "$GNNDB" "$DB" < outer.gq
[ $rc -eq 1 ] || fail ".read: status $rc"
grep -q '^inner.gq:2: Error: .*nosuch' err.txt || { cat err.txt; fail ".read: error not at inner.gq:2"; }
grep -qx 'nodes|2708' out.txt || fail ".read: the statement after the error did not run"
grep -q '^threads|' out.txt || fail ".read: the outer script did not go on"
run "$GNNDB" -bail "$DB" < outer.gq
[ $rc -eq 1 ] || fail "-bail .read: status $rc"
grep -q '^cora|' out.txt || fail "-bail .read: the first statement did not run"
grep -q 'nodes|' out.txt && fail "-bail .read: the inner script went on"
grep -q '^threads|' out.txt && fail "-bail .read: the outer script went on"
run "$GNNDB" "$DB" ".bail on" ".read inner.gq" "PRAGMA threads;"
[ $rc -eq 1 ] || fail ".bail on: status $rc"
grep -q 'nodes|' out.txt && fail ".bail on: .read went on"
grep -q '^threads|' out.txt && fail ".bail on: the next argument ran"
run "$GNNDB" "$DB" ".read nosuch.gq"
[ $rc -eq 1 ] || fail ".read of a missing file: status $rc"
grep -q '^Error: .*nosuch.gq' err.txt || fail ".read of a missing file: message"

# dot command errors count too
run "$GNNDB" "$DB" ".nosuchcommand"
[ $rc -eq 1 ] || fail "unknown dot command: status $rc"
grep -q '^Error: .*nosuchcommand' err.txt || fail "unknown dot command: message"

# .quit stops reading; .exit CODE sets the status
printf 'SHOW GRAPHS;\n.quit\nDESCRIBE nosuch;\n' | "$GNNDB" "$DB" > out.txt 2> err.txt
[ $? -eq 0 ] || fail ".quit: status"
[ -s err.txt ] && fail ".quit: statements after it ran"
printf '.exit 3\nSHOW GRAPHS;\n' | "$GNNDB" "$DB" > out.txt 2>&1
[ $? -eq 3 ] || fail ".exit 3: status"
[ -s out.txt ] && fail ".exit: statements after it ran"

# read-only: writes fail, reads work; a missing database cannot be opened
run "$GNNDB" -readonly "$DB" "SHOW GRAPHS;"
[ $rc -eq 0 ] && grep -q '^cora|' out.txt || fail "-readonly read"
run "$GNNDB" -readonly "$DB" "CREATE SPLIT s2 ON cora FROM '$D/val_idx.npy';"
[ $rc -eq 1 ] || fail "-readonly write: status $rc"
grep -q '^Error: ' err.txt || fail "-readonly write: no error"
run "$GNNDB" -readonly "$PWD/missing.gnndb" "SHOW GRAPHS;"
[ $rc -eq 1 ] || fail "-readonly missing db: status $rc"
grep -q '^Error: .*missing.gnndb' err.txt || fail "-readonly missing db: message"
[ -e "$PWD/missing.gnndb" ] && fail "-readonly created the database"

# no database: statements fail, dot commands that need none work
run "$GNNDB" -cmd ".mode csv" < /dev/null
[ $rc -eq 0 ] || fail "no database, no input: status $rc"
printf 'SHOW GRAPHS;\n' > nodb.gq
run "$GNNDB" -f nodb.gq
[ $rc -eq 1 ] || fail "no database: status $rc"
grep -q '^nodb.gq:1: Error: no database' err.txt || { cat err.txt; fail "no database: message"; }
echo "errors and exit status ok"
