#!/bin/sh
# Concurrent access: readers in several processes at once get the batches of
# a single run; a writer importing while they sample does not disturb them
# (and its table is there afterwards); a second writer at the same time gets
# "database is busy" and changes nothing.
set -u
fail() { echo "FAIL: $*"; exit 1; }
D=$GNNDB_DATA/cora
DB=$PWD/c.gnndb
"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$D/edges.tsv';
  IMPORT FEATURES feat INTO cora FROM '$D/features.npy';
  IMPORT LABELS INTO cora FROM '$D/labels.npy';
  CREATE SPLIT train ON cora FROM '$D/train_idx.npy';" || fail setup

# 33 mini-batches over 3 epochs, with features and labels
Q="SAMPLE 10,10 FROM cora FEATURES feat BATCH 256 SHUFFLE SEED 5 EPOCHS 3;"
"$GNNDB" -readonly -csv -noheader "$DB" "$Q" > ref.txt || fail "single run"
[ "$(wc -l < ref.txt)" -eq 33 ] || { cat ref.txt; fail "expected 33 batches"; }

# reader I MODE: one run of Q into r.I.txt, compared with the single run;
# odd readers open read-only, even ones read-write (as the shell's default)
reader() {
    if [ $(($1 % 2)) -eq 1 ]; then ro=-readonly; else ro=; fi
    "$GNNDB" $ro -csv -noheader "$DB" "$Q" > "r.$1.txt" 2> "r.$1.err" || return 1
    cmp -s ref.txt "r.$1.txt"
}

# 1. four readers at once
pids=
for i in 1 2 3 4; do reader $i & pids="$pids $!"; done
for p in $pids; do wait $p || { cat r.*.err; fail "a concurrent reader failed or differs from the single run"; }; done
echo "ok: 4 concurrent readers gave the batches of a single run"

# 2. a writer while readers sample: each reader loops until the writer is
# done (and once more), every run must give the same batches
rm -f writer.done
loop_reader() {
    runs=0
    while :; do
        last=0; [ -f writer.done ] && last=1
        reader "$1" || { echo "reader $1 run $runs differs" > "fail.$1"; return 1; }
        runs=$((runs + 1))
        [ $last -eq 1 ] && break
    done
    echo $runs > "runs.$1"
}
pids=
for i in 1 2 3 4; do loop_reader $i & pids="$pids $!"; done
sleep 0.2
"$GNNDB" "$DB" "IMPORT FEATURES feat2 INTO cora FROM '$D/features.npy';
  CREATE SPLIT more ON cora RANDOM 0.5 SEED 1;" 2> w.err || { cat w.err; fail "writer failed beside readers"; }
touch writer.done
for p in $pids; do wait $p || { cat fail.* r.*.err 2>/dev/null; fail "a reader was disturbed by the writer"; }; done
echo "ok: readers undisturbed by an import ($(cat runs.1 runs.2 runs.3 runs.4 | tr '\n' ' ')runs each)"
"$GNNDB" -readonly -csv "$DB" "DESCRIBE cora;" > desc.txt || fail describe
grep -q '^features.feat2,1433 x float32$' desc.txt || { cat desc.txt; fail "the new table is missing"; }
grep -q '^split.more,' desc.txt || fail "the new split is missing"
"$GNNDB" -readonly -csv -noheader "$DB" "$Q" | cmp -s ref.txt - || fail "batches changed after the import"
echo "ok: the writer's table and split are there afterwards"

# 3. a second writer while the first holds the write lock
/usr/bin/python3 -c "
import numpy as np
np.random.default_rng(1).integers(0, 1 << 17, size=(1 << 22, 2), dtype=np.int64).astype('<i8').tofile('big.bin')" || fail "generate big.bin"
"$GNNDB" "$DB" "CREATE GRAPH big FROM '$PWD/big.bin' FORMAT bin;" > w1.out 2> w1.err &
w1=$!
# the first writer holds the lock while its block file is being written:
# wait for the .tmp file (its flock alone could be the open's brief clean-up)
i=0
while ! ls "$DB" | grep -q '\.tmp$'; do
    i=$((i + 1)); [ $i -lt 500 ] || fail "the first writer never started writing"
    kill -0 $w1 2>/dev/null || fail "the first writer ended before its block file was seen"
    sleep 0.01
done
"$GNNDB" "$DB" "IMPORT FEATURES feat3 INTO cora FROM '$D/features.npy';" > w2.out 2> w2.err; rc=$?
wait $w1 || { cat w1.err; fail "the first writer failed"; }
[ $rc -eq 1 ] || { cat w2.err; fail "the second writer exited $rc, not 1"; }
grep -q 'database is busy' w2.err || { cat w2.err; fail "the second writer's message lacks 'database is busy'"; }
echo "ok: a second writer: $(cat w2.err)"
"$GNNDB" -readonly -csv "$DB" "DESCRIBE cora;" | grep -q '^features.feat3' && fail "the busy writer's table exists"
"$GNNDB" -readonly -csv -noheader "$DB" "SHOW GRAPHS;" | grep -q '^big,' || fail "the first writer's graph is missing"

# the same with the lock held by another process (flock(1) on the lock file,
# as a writer does): DDL fails busy, readers still read
flock "$DB/lock" sleep 3 &
fl=$!
sleep 0.3
"$GNNDB" "$DB" "DROP GRAPH big;" 2> w3.err; rc=$?
[ $rc -eq 1 ] && grep -q 'database is busy' w3.err || { cat w3.err; fail "DROP under a held lock: exit $rc"; }
"$GNNDB" -readonly -csv -noheader "$DB" "$Q" | cmp -s ref.txt - || fail "a reader failed while the lock was held"
kill $fl 2>/dev/null; wait $fl 2>/dev/null
"$GNNDB" -csv "$DB" "CHECK;" | grep -q '^ok,' || fail "CHECK after the concurrency tests"
echo "ok: DROP under a held write lock is busy; readers unaffected; CHECK passes"
