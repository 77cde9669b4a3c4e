#!/bin/sh
# The progress bar on a terminal, driven through tmux: an import that runs
# longer than a second (an R-MAT graph from bench/gen, made undirected and
# reordered by degree, so that it reads, then builds twice) shows done/total,
# a rate and an ETA; the bar is erased when the import ends and the graph is
# whole. Read from a pipe (no total), the bar shows done, rate and time so
# far without an ETA. Nothing is drawn when stderr is not a terminal.
set -u
command -v tmux > /dev/null 2>&1 || { echo "SKIP: tmux is not installed"; exit 0; }
ROOT=$OLDPWD
DB=$PWD/g.gnndb
. "$ROOT/tests/e2e_pty.sh"

GEN=$(dirname "$GNNDB")/bench/gen
if [ ! -x "$GEN" ]; then
    cc -O2 -std=gnu11 -D_GNU_SOURCE -o gen "$ROOT/bench/gen.c" -lm -lpthread ||
        fail "build gen"
    GEN=$PWD/gen
fi
# 2^19 nodes, 2^23 edges: 128 MiB of int64 pairs
"$GEN" --scale 19 --out "$PWD/rmat.bin" > gen.txt || fail "gen"

start
wait_prompt || fail "no prompt"
typ ".import $PWD/rmat.bin rmat"
keys Enter
wait_prompt || fail "no prompt after .import"
typ "CREATE GRAPH big FROM '$PWD/rmat.bin' UNDIRECTED REORDER degree;"
keys Enter
# done/total, percent, rate and a time left: "[###...]  40% 210k/524k  150k/s  ETA 0:02"
wait_for '%  *[0-9.]*[kMG]*/[0-9.]*[kMG]*  *[0-9.]*[kMG]*/s  ETA [0-9]*:[0-9][0-9]' 1 60 ||
    fail "no progress bar with an ETA during a long CREATE GRAPH"
wait_prompt 120 || fail "no prompt after CREATE GRAPH"
screen | grep -q ' ETA ' && fail "the progress bar was not erased"
screen | grep -q '^Error' && fail "an import failed"
# a source of unknown size (a pipe, fed slowly): while it is read the bar
# shows what is done, the rate and the time so far, and no percentage or ETA
/usr/bin/python3 - "$PWD/rmat.bin" <<'PY' || fail "python"
import sys, numpy as np
e = np.fromfile(sys.argv[1], dtype="<i8", count=2 << 20).reshape(-1, 2)
with open("part.tsv", "w") as f:
    f.write("\n".join("%d\t%d" % (s, d) for s, d in e.tolist()) + "\n")
PY
split -n l/20 part.tsv piece. || fail "split"
mkfifo "$PWD/pipe.tsv" || fail "mkfifo"
( for p in piece.*; do cat "$p"; sleep 0.1; done > "$PWD/pipe.tsv" ) &
typ "CREATE GRAPH piped FROM '$PWD/pipe.tsv';"
keys Enter
wait_for '\] [0-9.]*[kMG]*  [0-9.]*[kMG]*/s  [0-9]*:[0-9][0-9]$' 1 60 ||
    fail "no done/rate/time bar while reading a pipe"
wait_prompt 60 || fail "no prompt after CREATE GRAPH piped"
wait
screen | grep -q '^Error' && fail "CREATE GRAPH piped failed"

typ '.tables'
keys Enter
wait_for '^rmat ([0-9]* nodes, 8388608 edges)$' || fail ".tables does not list rmat"
screen | grep -q '^piped ([0-9]* nodes, 1048576 edges)$' || fail ".tables does not list piped"
screen | grep -q '^big ([0-9]* nodes, ' || fail ".tables does not list big"
keys C-d
wait_for '^\[exited 0\]' || fail "Ctrl-D did not end the shell"
$T kill-server 2> /dev/null

# stderr not a terminal: no bar, no control characters
"$GNNDB" "$DB" "CREATE GRAPH big2 FROM '$PWD/rmat.bin' UNDIRECTED REORDER degree;" \
    2> err.txt || fail "CREATE GRAPH big2"
[ -s err.txt ] && { cat err.txt; fail "something on stderr without a terminal"; }
echo "progress bar ok"
