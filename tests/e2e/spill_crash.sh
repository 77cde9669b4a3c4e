#!/bin/sh
# The spill area after kill -9: a spilled SAMPLE killed at several moments
# leaves no run behind (runs are unlinked files), the database passes CHECK
# and samples the same batches after, and a named run a crash could leave
# (a run file of a dead process) is removed by the next spilled statement.
set -u
fail() { echo "FAIL: $*"; exit 1; }
D=$GNNDB_DATA/cora
DB=$PWD/c.gnndb
T=$PWD/spill
"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$D/edges.tsv';
  IMPORT FEATURES feat INTO cora FROM '$D/features.npy';
  IMPORT LABELS INTO cora FROM '$D/labels.npy';" > /dev/null || fail setup
Q="SAMPLE 10,10 FROM cora BATCH 64 HYPERBATCH 16 SHUFFLE SEED 4 LIMIT 30;"
"$GNNDB" -csv -noheader "$DB" "PRAGMA spill = 'off'; $Q" | grep -v '^spill,' > ref.txt
for ms in 50 150 300 600; do
    "$GNNDB" "$DB" "PRAGMA spill = 'on'; PRAGMA temp_dir = '$T';
      SAMPLE 10,10 FROM cora BATCH 64 HYPERBATCH 16 SHUFFLE SEED 4 EPOCHS 100;" \
        > /dev/null 2>&1 &
    pid=$!
    sleep "$(echo "$ms" | awk '{ printf "%.3f", $1 / 1000 }')"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    left=$(ls -A "$T" 2>/dev/null; ls -A "$DB" | grep spill)
    [ -z "$left" ] || fail "killed at $ms ms: left $left"
    "$GNNDB" -readonly -csv "$DB" "CHECK;" | grep -q '^ok,' || fail "CHECK after kill at $ms ms"
    echo "ok: killed at $ms ms: nothing left in the spill area, CHECK passes"
done
"$GNNDB" -csv -noheader "$DB" "PRAGMA spill = 'on'; PRAGMA temp_dir = '$T'; $Q" |
    grep -v -e '^spill,' -e '^temp_dir,' > got.txt
cmp -s ref.txt got.txt || fail "spilled batches differ from in-memory ones after the kills"
echo "ok: spilled batches equal the in-memory ones"
# a run file a crash between create and unlink could leave (pid 4999999 is
# above pid_max: no live process)
mkdir -p "$T"
echo x > "$T/gnndb-spill-4999999-0"
"$GNNDB" "$DB" "PRAGMA spill = 'on'; PRAGMA temp_dir = '$T'; $Q" > /dev/null || fail "spilled run"
[ ! -e "$T/gnndb-spill-4999999-0" ] || fail "stale run not removed"
echo "ok: a stale run of a dead process is removed"
