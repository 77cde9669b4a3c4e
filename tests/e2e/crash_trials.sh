#!/bin/sh
# Crash safety: SIGKILL during CREATE GRAPH, IMPORT FEATURES, DROP GRAPH and
# IMPORT FEATURES ... REPLACE (of a table of another width)
# at delays drawn by a seeded RNG from [0, T], T being the statement's time
# in a calibration run. After every kill the database opens, CHECK passes,
# SHOW GRAPHS and DESCRIBE show exactly the state before the statement or
# the state after it, the block files on disk are exactly those the catalog
# names, and no *.tmp or tmp-* file is left after the reopen.
#
#   CRASH_SEED=n     the RNG seed (default 20261123; printed on failure)
#   CRASH_TRIALS=n   trials in all (default 54, split 4:3:3 over the first three)
#   CRASH_REPLACE_TRIALS=n   trials of the REPLACE (default 10)
set -u
fail() { echo "FAIL (CRASH_SEED=$SEED): $*"; exit 1; }
SEED=${CRASH_SEED:-20261123}
TRIALS=${CRASH_TRIALS:-54}
D=$GNNDB_DATA/cora
DB=$PWD/c.gnndb

# A graph that takes about a second to build: 2^17 nodes, 2^22 random
# edges, as little-endian int64 pairs (64 MiB); 64 float32 features for each
# of its nodes (32 MiB).
/usr/bin/python3 -c "
import numpy as np
rng = np.random.default_rng(7)
n, m = 1 << 17, 1 << 22
rng.integers(0, n, size=(m, 2), dtype=np.int64).astype('<i8').tofile('big.bin')
np.save('feat.npy', rng.standard_normal((n, 64), dtype=np.float32))
np.save('feat32.npy', rng.standard_normal((n, 32), dtype=np.float32))" ||
    fail "generate big.bin, feat.npy and feat32.npy"

# The trials run on a database of cora (edges, labels, a split) and `big`:
# CREATE GRAPH big2, IMPORT FEATURES f INTO big, and DROP GRAPH big2 (with a
# feature table of its own: the drop has two files and two tokens to free).
CREATE="CREATE GRAPH big2 FROM '$PWD/big.bin' FORMAT bin;"
UNDO_CREATE="DROP GRAPH big2;"
IMPORT="IMPORT FEATURES f INTO big FROM '$PWD/feat.npy';"
UNDO_IMPORT="DROP FEATURES f ON big;"
PREP_DROP="$CREATE IMPORT FEATURES f2 INTO big2 FROM '$PWD/feat.npy';"
DROP="DROP GRAPH big2;"
# f of 64 columns replaced by one of 32, and back
REPLACE="IMPORT FEATURES f INTO big FROM '$PWD/feat32.npy' REPLACE;"
UNDO_REPLACE="IMPORT FEATURES f INTO big FROM '$PWD/feat.npy' REPLACE;"

"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$D/edges.tsv';
  IMPORT LABELS INTO cora FROM '$D/labels.npy';
  CREATE SPLIT train ON cora FROM '$D/train_idx.npy';
  CREATE GRAPH big FROM '$PWD/big.bin' FORMAT bin;" || fail setup

# The state users see: SHOW GRAPHS and DESCRIBE of every graph, without the
# file rows (their names hold fresh tokens, their sizes vary).
graphs() { "$GNNDB" -readonly -csv -noheader "$DB" "SHOW GRAPHS;" | cut -d, -f1; }
state() {
    "$GNNDB" -readonly -csv "$DB" "SHOW GRAPHS;" || return 1
    for g in $(graphs); do
        "$GNNDB" -readonly -csv "$DB" "DESCRIBE $g;" | grep -v '^file\.' || return 1
    done
}
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# timed SQL: run it to the end, print its time in ms
timed() {
    t0=$(now_ms)
    "$GNNDB" "$DB" "$1" || fail "calibration: $1"
    echo $(( $(now_ms) - t0 ))
}

# Calibration: the states, and the time of each statement.
S0=$(state) || fail "state"
T_CREATE=$(timed "$CREATE")
S_CREATED=$(state) || fail "state"
"$GNNDB" "$DB" "IMPORT FEATURES f2 INTO big2 FROM '$PWD/feat.npy';" || fail "prepare drop"
S_DROP=$(state) || fail "state"
T_DROP=$(timed "$DROP")
T_IMPORT=$(timed "$IMPORT")
S_IMPORTED=$(state) || fail "state"
T_REPLACE=$(timed "$REPLACE")
S_REPLACED=$(state) || fail "state"
"$GNNDB" "$DB" "$UNDO_REPLACE" || fail "undo replace"
[ "$(state)" = "$S_IMPORTED" ] || fail "calibration: REPLACE back is not the state imported"
"$GNNDB" "$DB" "$UNDO_IMPORT" || fail "undo import"
[ "$(state)" = "$S0" ] || fail "calibration did not return to the first state"
echo "calibration: CREATE GRAPH ${T_CREATE} ms, IMPORT FEATURES ${T_IMPORT} ms, DROP GRAPH ${T_DROP} ms, REPLACE ${T_REPLACE} ms"

# After a kill: a writable open first (it removes what the crash left), then
# the checks. Prints "before" or "after".
verify() {   # verify LABEL BEFORE AFTER
    "$GNNDB" "$DB" "SHOW GRAPHS;" > /dev/null 2> err.txt ||
        { cat err.txt; fail "$1: the database does not open"; }
    strays=$(ls "$DB" | grep -e '\.tmp$' -e '^tmp-' || true)
    [ -z "$strays" ] || fail "$1: stray files after the reopen: $strays"
    ck=$("$GNNDB" -readonly -csv -noheader "$DB" "CHECK;" 2>&1) ||
        fail "$1: CHECK failed: $ck"
    case "$ck" in ok,*) ;; *) fail "$1: CHECK found problems: $ck" ;; esac
    s=$(state) || fail "$1: SHOW GRAPHS / DESCRIBE failed"
    # block files on disk = block files the catalog names
    named=$(for g in $(graphs); do
                "$GNNDB" -readonly -csv -noheader "$DB" "DESCRIBE $g;" |
                    sed -n 's/^file\.\([^,]*\.blk\),.*/\1/p'
            done | sort)
    ondisk=$(ls "$DB" | grep '\.blk$' | sort)
    [ "$named" = "$ondisk" ] ||
        fail "$1: block files on disk ($ondisk) differ from the catalog's ($named)"
    if [ "$s" = "$2" ]; then echo before
    elif [ "$s" = "$3" ]; then echo after
    else
        echo "$2" > want_before.txt; echo "$s" > got.txt
        diff want_before.txt got.txt; fail "$1: neither the state before nor the one after"
    fi
}

# Delays in ms, uniform in [0, T], from a seeded awk RNG.
delays() {   # delays N T SALT
    awk -v n="$1" -v t="$2" -v s="$SEED" -v salt="$3" \
        'BEGIN { srand(s + salt); for (i = 0; i < n; i++) printf "%d\n", rand() * t }'
}
ms_to_s() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

# trial SQL DELAY_MS: run SQL, SIGKILL it after DELAY_MS
trial() {
    "$GNNDB" "$DB" "$1" > /dev/null 2>&1 &
    pid=$!
    sleep "$(ms_to_s "$2")"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
}

n_before=0; n_after=0; k=0
count() { if [ "$1" = before ]; then n_before=$((n_before + 1)); else n_after=$((n_after + 1)); fi; }

N_CREATE=$((TRIALS * 4 / 10)); N_IMPORT=$((TRIALS * 3 / 10))
N_DROP=$((TRIALS - N_CREATE - N_IMPORT))
N_REPLACE=${CRASH_REPLACE_TRIALS:-10}

for d in $(delays $N_CREATE $T_CREATE 1); do
    k=$((k + 1)); trial "$CREATE" $d
    r=$(verify "trial $k: CREATE GRAPH killed at $d ms" "$S0" "$S_CREATED") || { echo "$r"; exit 1; }
    count $r
    [ $r = before ] || "$GNNDB" "$DB" "$UNDO_CREATE" || fail "undo create"
done
for d in $(delays $N_IMPORT $T_IMPORT 2); do
    k=$((k + 1)); trial "$IMPORT" $d
    r=$(verify "trial $k: IMPORT FEATURES killed at $d ms" "$S0" "$S_IMPORTED") || { echo "$r"; exit 1; }
    count $r
    [ $r = before ] || "$GNNDB" "$DB" "$UNDO_IMPORT" || fail "undo import"
done
"$GNNDB" "$DB" "$PREP_DROP" || fail "prepare the drop trials"
for d in $(delays $N_DROP $T_DROP 3); do
    k=$((k + 1)); trial "$DROP" $d
    r=$(verify "trial $k: DROP GRAPH killed at $d ms" "$S_DROP" "$S0") || { echo "$r"; exit 1; }
    count $r
    [ $r = before ] || "$GNNDB" "$DB" "$PREP_DROP" || fail "undo drop"
done
"$GNNDB" "$DB" "$DROP $IMPORT" || fail "prepare the REPLACE trials"
[ "$(state)" = "$S_IMPORTED" ] || fail "the REPLACE trials start from the state imported"
for d in $(delays $N_REPLACE $T_REPLACE 4); do
    k=$((k + 1)); trial "$REPLACE" $d
    r=$(verify "trial $k: IMPORT FEATURES ... REPLACE killed at $d ms" "$S_IMPORTED" "$S_REPLACED") || { echo "$r"; exit 1; }
    count $r
    [ $r = before ] || "$GNNDB" "$DB" "$UNDO_REPLACE" || fail "undo replace"
done
echo "ok: $k trials (seed $SEED): $n_before left the state before, $n_after the state after; CHECK passed after each"
