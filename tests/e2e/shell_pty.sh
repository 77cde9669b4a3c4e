#!/bin/sh
# The interactive shell on a terminal, driven through tmux: the prompt, a
# statement over two lines with the continuation prompt, Up recalling
# history (also from the history file in a new session), tab completion (also
# of .schema and .import), an
# error that does not end the session, Ctrl-C clearing the line, Ctrl-C
# stopping a long SAMPLE with the prompt coming back, and Ctrl-D leaving.
set -u
command -v tmux > /dev/null 2>&1 || { echo "SKIP: tmux is not installed"; exit 0; }
D=$GNNDB_DATA/cora
DB=$PWD/p.gnndb
. "$OLDPWD/tests/e2e_pty.sh"

"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$D/edges.tsv';
IMPORT FEATURES feat INTO cora FROM '$D/features.npy';
IMPORT LABELS INTO cora FROM '$D/labels.npy';
CREATE SPLIT train ON cora FROM '$D/train_idx.npy';" || fail "setup"

start
wait_prompt || fail "no prompt"

# a statement over two lines: the continuation prompt, then the result
typ 'SHOW'
keys Enter
wait_for '^   \.\.\.>' || fail "no continuation prompt"
typ 'GRAPHS;'
keys Enter
wait_prompt || fail "no prompt after SHOW GRAPHS"
screen | grep -q '^| cora ' || fail "SHOW GRAPHS row missing (table mode on a terminal)"
screen | grep -q '| name ' || fail "table header missing"

# Up recalls the last statement; Enter runs it again
typ 'DESCRIBE cora;'
keys Enter
wait_prompt || fail "no prompt after DESCRIBE"
screen | grep -q '| nodes  *| 2708 ' || fail "DESCRIBE: nodes = 2708 missing"
keys Up
wait_for '^gnndb> DESCRIBE cora;$' 2 || fail "Up did not recall DESCRIBE cora;"
keys Enter
wait_prompt || fail "no prompt after the recalled statement"
[ "$(screen | grep -c '| nodes  *| 2708 ')" -eq 2 ] || fail "recalled statement did not run"

# an error is reported and the session goes on
typ 'DESCRIBE nosuch;'
keys Enter
wait_for '^Error: .*nosuch' || fail "no error for an unknown graph"
wait_prompt || fail "no prompt after an error"

# Ctrl-C at the prompt drops the line; in a continuation, the statement
typ 'SHOW GRA'
keys C-c
wait_prompt || fail "no new prompt after Ctrl-C at the prompt"
typ 'SHOW'
keys Enter
wait_for '^   \.\.\.>' 2 || fail "no continuation prompt"
keys C-c
wait_prompt || fail "no prompt after Ctrl-C in a continuation"
typ 'SHOW GRAPHS;'
keys Enter
wait_prompt || fail "no prompt after SHOW GRAPHS"
[ "$(screen | grep -c '^Error')" -eq 1 ] || fail "Ctrl-C left text behind in the input"
[ "$(screen | grep -c '^| cora ')" -eq 2 ] || fail "SHOW GRAPHS after Ctrl-C did not run"

# tab completion: a keyword, then a graph name from the database
typ 'DESCR'
keys Tab
wait_for '^gnndb> DESCRIBE$' || fail "Tab did not complete DESCRIBE"
typ 'cor'   # "co" is also COLUMNS and COUNT
keys Tab
wait_for '^gnndb> DESCRIBE cora$' || fail "Tab did not complete the graph name"
typ ';'
keys Enter
wait_prompt || fail "no prompt after the completed statement"
# the keywords are the parser's own (gnndb_keyword): this year's words too
typ 'SAMPLE 2 FROM cora EDGES train NEGATIVE 1 TRIP'
keys Tab
wait_for '^gnndb> SAMPLE 2 FROM cora EDGES train NEGATIVE 1 TRIPLET$' \
    || fail "Tab did not complete TRIPLET"
keys C-u

# tab completion of the dot commands for the catalog: the command, a graph
# name for .schema, the file of .import, then INTO and the graph
typ '.sch'
keys Tab
wait_for '^gnndb> \.schema$' || fail "Tab did not complete .schema"
typ 'co'
keys Tab
wait_for '^gnndb> \.schema cora$' || fail "Tab did not complete .schema's graph"
keys Enter
wait_for "^CREATE GRAPH cora FROM '" || fail ".schema cora printed no CREATE GRAPH"
wait_prompt || fail "no prompt after .schema cora"
typ ".import $D/val_i"
keys Tab
wait_for "^gnndb> \.import $D/val_idx\.npy$" || fail "Tab did not complete .import's file"
typ 'val I'
keys Tab
wait_for "^gnndb> \.import $D/val_idx\.npy val INTO$" || fail "Tab did not offer INTO"
typ 'co'
keys Tab
wait_for "^gnndb> \.import $D/val_idx\.npy val INTO cora$" || fail "Tab did not complete INTO's graph"
keys Enter
wait_prompt || fail "no prompt after .import"
typ '.tables'
keys Enter
wait_for '^  splits    train, val$' || fail ".import from the terminal did not make split val"
wait_prompt || fail "no prompt after .tables"

# Ctrl-C stops a long SAMPLE (its rows going to a file, its progress bar
# and drawn seed to the terminal); the prompt comes back and the shell works
typ ".output $PWD/rows.txt"
keys Enter
wait_prompt || fail "no prompt after .output"
typ '.mode list'
keys Enter
wait_prompt || fail "no prompt after .mode list"
typ 'SAMPLE -1,-1,-1 FROM cora BATCH 1 EPOCHS 1000;'
keys Enter
wait_for '^-- seed: [0-9]' 1 30 || fail "no drawn-seed notice for a SAMPLE without SEED"
wait_for ' ETA ' 1 30 || fail "no progress bar for a long SAMPLE"
keys C-c
wait_for '^Error: interrupted' 1 20 || fail "Ctrl-C did not interrupt the SAMPLE"
wait_prompt 20 || fail "no prompt after the interrupted SAMPLE"
screen | grep -q ' ETA ' && fail "the progress bar was not erased"
grep -q '^0|[0-9]*|1|' rows.txt || fail "the SAMPLE wrote no rows"
typ '.output'
keys Enter
wait_prompt || fail "no prompt after .output"
typ 'SHOW GRAPHS;'
keys Enter
wait_for '^cora|2708|10556|' 1 || fail "the shell does not work after an interrupt"
wait_prompt || fail "no prompt after SHOW GRAPHS"

# Ctrl-D leaves with status 0
keys C-d
wait_for '^\[exited 0\]' || fail "Ctrl-D did not end the shell with status 0"
$T kill-server 2> /dev/null

# the history file keeps statements across sessions
[ -f "$PWD/.gnndb_history" ] || fail "no history file in \$HOME"
grep -q 'DESCRIBE cora;' "$PWD/.gnndb_history" || fail "history file lacks DESCRIBE cora;"
start
wait_prompt || fail "no prompt in the second session"
keys Up
wait_for '^gnndb> SHOW GRAPHS;$' || fail "Up did not recall the previous session's statement"
keys C-c
wait_prompt || fail "no prompt after Ctrl-C in the second session"
keys C-d
wait_for '^\[exited 0\]' || fail "Ctrl-D did not end the second session"
$T kill-server 2> /dev/null

# -nohistory: nothing is written
rm -f "$PWD/.gnndb_history"
start -nohistory
wait_prompt || fail "no prompt with -nohistory"
typ 'SHOW GRAPHS;'
keys Enter
wait_prompt || fail "no prompt after SHOW GRAPHS (-nohistory)"
keys C-d
wait_for '^\[exited 0\]' || fail "Ctrl-D (-nohistory)"
$T kill-server 2> /dev/null
[ ! -e "$PWD/.gnndb_history" ] || fail "-nohistory wrote a history file"
echo "interactive shell ok"
