#!/bin/sh
# Versions through the shell: INSERT EDGES makes version 2 (SHOW VERSIONS
# lists both, the current marked), its SAMPLE equals that of the graph
# created from all the edges, AS OF VERSION 1 gives the batches taken
# before the insert, DROP VERSIONS BEFORE 2 frees version 1's files and
# AS OF VERSION 1 is then refused; bad INSERTs fail with one line and
# change nothing; DROP GRAPH leaves no block file. Then kill -9 during
# INSERT EDGES at several moments: the database opens on the old version
# or the new one (SHOW VERSIONS, digests), CHECK passes, and no stray file
# is left after the next writable open. Last, COMPACT of that insert kept
# as a delta, whole and killed at several moments: the same batches, the
# deltas or the plain files, CHECK passes.
set -u
fail() { echo "FAIL: $*"; exit 1; }
ROOT=$OLDPWD
D=$GNNDB_DATA/cora
DB=$PWD/v.gnndb
head -8000 "$D/edges.tsv" > a.tsv
tail -n +8001 "$D/edges.tsv" > b.tsv
[ "$(wc -l < b.tsv)" -eq 2556 ] || fail "cora's edges.tsv is not 10556 lines"

# d: directed, appended; u: UNDIRECTED DROP DUPLICATES DROP SELF LOOPS,
# appended; full: u's options over every edge at once
"$GNNDB" "$DB" "CREATE GRAPH d FROM '$PWD/a.tsv' NODES 2708;
  CREATE GRAPH u FROM '$PWD/a.tsv' UNDIRECTED DROP DUPLICATES DROP SELF LOOPS NODES 2708;
  CREATE GRAPH full FROM '$D/edges.tsv' UNDIRECTED DROP DUPLICATES DROP SELF LOOPS NODES 2708;" \
    > /dev/null || fail "setup"
for g in d u full; do
    "$GNNDB" "$DB" "IMPORT FEATURES feat INTO $g FROM '$D/features.npy';
      IMPORT LABELS INTO $g FROM '$D/labels.npy';
      CREATE SPLIT train ON $g FROM '$D/train_idx.npy';" > /dev/null || fail "setup $g"
done
sample() {  # sample GRAPH [CLAUSES]: the digests of a fixed SAMPLE
    "$GNNDB" -csv -noheader "$DB" "SAMPLE 10,5 FROM $1 SEEDS train FEATURES feat BATCH 32 SHUFFLE SEED 5 ${2:-};" |
        cut -d, -f1,2,7
}
versions() {  # versions GRAPH [DB]: SHOW VERSIONS less the time made
    "$GNNDB" -csv -header "${2:-$DB}" "SHOW VERSIONS $1;" | cut -d, -f1-3,5
}
sample d > d1.txt
sample u > u1.txt
[ "$(wc -l < u1.txt)" -eq 5 ] || fail "140 seeds in batches of 32: not 5 batches"
[ "$(versions d)" = "version,edges,input_edges,current
1,8000,8000,yes" ] || fail "SHOW VERSIONS d before INSERT: $(versions d)"
nblk=$(ls "$DB" | grep -c '\.blk$')

out=$("$GNNDB" "$DB" "INSERT EDGES INTO d FROM '$PWD/b.tsv';
  INSERT EDGES INTO u FROM '$PWD/b.tsv' FORMAT tsv;" 2>&1) || fail "INSERT EDGES: $out"
[ "$(versions d)" = "version,edges,input_edges,current
1,8000,8000,
2,10556,10556,yes" ] || fail "SHOW VERSIONS d: $(versions d)"
full_edges=$("$GNNDB" -csv -noheader "$DB" "DESCRIBE full;" | sed -n 's/^edges,//p')
u1_edges=$("$GNNDB" -csv -noheader "$DB" "SHOW VERSIONS u;" | sed -n 's/^1,\([0-9]*\),.*/\1/p')
[ "$(versions u)" = "version,edges,input_edges,current
1,$u1_edges,8000,
2,$full_edges,10556,yes" ] || fail "SHOW VERSIONS u: $(versions u) (full has $full_edges edges)"
[ "$u1_edges" -lt "$full_edges" ] || fail "version 1 of u has $u1_edges edges"
"$GNNDB" -csv -noheader "$DB" "SHOW VERSIONS u;" | cut -d, -f4 |
    grep -vq '^[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9:]\{8\}Z$' && fail "SHOW VERSIONS: a bad time made"
[ "$(ls "$DB" | grep -c '\.blk$')" -eq $((nblk + 6)) ] ||
    fail "two inserts did not add 3 block files each: $(ls "$DB")"
echo "ok: SHOW VERSIONS lists versions 1 and 2 of d and u"

sample u > u2.txt
sample full > full.txt
cmp -s u2.txt full.txt || { diff u2.txt full.txt; fail "u after INSERT differs from full"; }
cmp -s u1.txt u2.txt && fail "the insert did not change u's batches"
sample u "AS OF VERSION 1" > u_as1.txt
cmp -s u1.txt u_as1.txt || { diff u1.txt u_as1.txt; fail "u AS OF VERSION 1 differs from before the insert"; }
sample u "AS OF VERSION 2" > u_as2.txt
cmp -s u2.txt u_as2.txt || fail "u AS OF VERSION 2 differs from u"
sample d "AS OF VERSION 1" > d_as1.txt
cmp -s d1.txt d_as1.txt || fail "d AS OF VERSION 1 differs from before the insert"
"$GNNDB" "$DB" "EXPLAIN SAMPLE 10,5 FROM u SEEDS train BATCH 32 SEED 1 AS OF VERSION 1;" > /dev/null ||
    fail "EXPLAIN ... AS OF VERSION 1"
"$GNNDB" -readonly -csv "$DB" "CHECK;" | grep -q '^ok,' || fail "CHECK after INSERT"
echo "ok: u's batches equal full's; AS OF VERSION 1 gives the batches from before the insert"

. "$ROOT/tests/e2e_expect_error.sh"
SNAP_GRAPHS="d u"
BEFORE=$(snapshot; versions d; versions u; sample u)
snapshot_all() { snapshot; versions d; versions u; sample u; }
expect_versions_error() {  # expect_error, with versions and batches too
    out=$("$GNNDB" "$DB" "$1" 2>err.txt); rc=$?
    [ $rc -ne 0 ] || fail "succeeded: $1"
    [ "$(wc -l < err.txt)" -eq 1 ] || { cat err.txt; fail "not one line: $1"; }
    grep -q -- "$2" err.txt || { cat err.txt; fail "message lacks '$2': $1"; }
    AFTER=$(snapshot_all)
    [ "$BEFORE" = "$AFTER" ] || { echo "$BEFORE" > b.txt; echo "$AFTER" > a.txt; diff b.txt a.txt; fail "database changed by: $1"; }
    echo "ok: $(cat err.txt)"
}
printf '1\t2\n3\t4\n5\t2708\n' > beyond.tsv
printf '1\t2\n3\tx\n' > malformed.tsv
printf '1\t2\t7\n' > timed.tsv
expect_versions_error "INSERT EDGES INTO u FROM '$PWD/beyond.tsv';" \
    "beyond.tsv:3:3: node id 2708 is not a node of graph u (its 2708 nodes are ids 0 to 2707)"
expect_versions_error "INSERT EDGES INTO u FROM '$PWD/malformed.tsv';" \
    "malformed.tsv:2:3: expected an integer node id, found 'x'"
expect_versions_error "INSERT EDGES INTO u FROM '$PWD/timed.tsv' COLUMNS (0, 1, 2);" \
    "u has no edge times for the time column"
expect_versions_error "INSERT EDGES INTO u FROM '$PWD/nope.tsv';" "nope.tsv"
expect_versions_error "INSERT EDGES INTO nosuch FROM '$PWD/b.tsv';" "no such graph: nosuch"
expect_versions_error "SAMPLE 5 FROM u SEEDS train BATCH 8 AS OF VERSION 3;" \
    "graph u has no version 3 (its versions are 1 to 2: SHOW VERSIONS u)"
expect_versions_error "SAMPLE 5 FROM u SEEDS train BATCH 8 AS OF VERSION 0;" \
    "line 1, column 51: AS OF VERSION '0' is out of range (versions count from 1)"
expect_versions_error "DROP VERSIONS BEFORE 3 ON u;" \
    "DROP VERSIONS BEFORE 3 ON u: the current version is 2, and it stays"
expect_versions_error "DROP VERSIONS BEFORE 0 ON u;" \
    "line 1, column 22: DROP VERSIONS BEFORE '0' is out of range"
expect_versions_error "SHOW VERSIONS nosuch;" "no such graph: nosuch"

# DROP VERSIONS BEFORE 2: version 1's graph, edge-id graph and edge table go
before=$(ls "$DB" | grep '\.blk$' | sort)
"$GNNDB" "$DB" "DROP VERSIONS BEFORE 2 ON u;" || fail "DROP VERSIONS"
after=$(ls "$DB" | grep '\.blk$' | sort)
gone=$(echo "$before" | grep -vxF "$after" | wc -l)
[ "$gone" -eq 3 ] || fail "DROP VERSIONS removed $gone files, not 3"
[ "$(echo "$after" | grep -vxF "$before" | wc -l)" -eq 0 ] || fail "DROP VERSIONS made files"
[ "$(versions u)" = "version,edges,input_edges,current
2,$full_edges,10556,yes" ] || fail "SHOW VERSIONS u after DROP VERSIONS: $(versions u)"
"$GNNDB" "$DB" "SAMPLE 5 FROM u SEEDS train BATCH 8 AS OF VERSION 1;" 2> err.txt && fail "AS OF a dropped version"
grep -q "version 1 of graph u was dropped (DROP VERSIONS); versions 2 to 2 remain" err.txt ||
    { cat err.txt; fail "AS OF a dropped version: words"; }
sample u > u3.txt
cmp -s u2.txt u3.txt || fail "DROP VERSIONS changed the current version's batches"
sample d "AS OF VERSION 1" | cmp -s d1.txt - || fail "DROP VERSIONS ON u changed d's version 1"
"$GNNDB" -csv "$DB" "CHECK;" | grep -q '^ok,' || fail "CHECK after DROP VERSIONS"
[ "$(ls "$DB" | grep '\.blk$' | sort)" = "$after" ] || fail "the writable open removed files"
echo "ok: DROP VERSIONS BEFORE 2 ON u freed version 1's 3 files"

"$GNNDB" "$DB" "DROP GRAPH u; DROP GRAPH d; DROP GRAPH full;" || fail "DROP GRAPH"
left=$(ls "$DB" | grep '\.blk$')
[ -z "$left" ] || fail "DROP GRAPH of versioned graphs left $left"
"$GNNDB" -csv "$DB" "CHECK;" | grep -q '^ok,' || fail "CHECK after DROP GRAPH"
echo "ok: DROP GRAPH leaves no block file"

# ---- kill -9 during INSERT EDGES --------------------------------------------
GEN=$ROOT/build/bench/gen
if [ ! -x "$GEN" ]; then
    cc -O2 -std=gnu11 -D_GNU_SOURCE -o gen "$ROOT/bench/gen.c" -lm -lpthread || fail "build gen"
    GEN=$PWD/gen
fi
"$GEN" --scale 17 --edge-factor 16 --seed 3 --out old.bin > /dev/null 2>&1 || fail "gen"
"$GEN" --scale 17 --edge-factor 8 --seed 4 --out new.bin > /dev/null 2>&1 || fail "gen"
K=$PWD/pristine.gnndb
"$GNNDB" "$K" "CREATE GRAPH big FROM '$PWD/old.bin' FORMAT bin NODES 131072;
  CREATE SPLIT s ON big RANDOM 0.002 SEED 1;" > /dev/null || fail "setup big"
Q="SAMPLE 10,5 FROM big SEEDS s BATCH 64 SEED 2;"
digests() { "$GNNDB" -csv -noheader "$1" "$Q" | cut -d, -f7; }
old_v=$(versions big "$K"); old_d=$(digests "$K"); old_n=$(ls "$K" | grep -c '\.blk$')
rm -rf done.gnndb; cp -a "$K" done.gnndb
"$GNNDB" done.gnndb "INSERT EDGES INTO big FROM '$PWD/new.bin' FORMAT bin;" || fail "INSERT into big"
new_v=$(versions big done.gnndb); new_d=$(digests done.gnndb); new_n=$(ls done.gnndb | grep -c '\.blk$')
[ "$old_d" != "$new_d" ] || fail "the insert does not change big's batches"
[ "$(digests done.gnndb | wc -l)" -ge 4 ] || fail "too few batches"
saw_old=0; saw_new=0; orphans=0
for delay in 0.02 0.1 0.25 0.4 0.6 0.9 1.5; do
    rm -rf k.gnndb; cp -a "$K" k.gnndb
    "$GNNDB" k.gnndb "INSERT EDGES INTO big FROM '$PWD/new.bin' FORMAT bin;" > /dev/null 2>&1 &
    pid=$!
    sleep $delay
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    raw=$(ls -A k.gnndb | wc -l)     # before any open: a crash's leftovers too
    got_v=$(versions big k.gnndb) || fail "reopen after kill at $delay s"
    got_d=$(digests k.gnndb) || fail "SAMPLE after kill at $delay s"
    if [ "$got_v" = "$old_v" ]; then
        [ "$got_d" = "$old_d" ] || fail "old version, other batches after kill at $delay s"
        want_n=$old_n; saw_old=$((saw_old + 1)); state=old
    elif [ "$got_v" = "$new_v" ]; then
        [ "$got_d" = "$new_d" ] || fail "new version, other batches after kill at $delay s"
        want_n=$new_n; saw_new=$((saw_new + 1)); state=new
    else
        fail "half state after kill at $delay s: $got_v"
    fi
    "$GNNDB" -csv k.gnndb "CHECK;" | grep -q '^ok,' || fail "CHECK after kill at $delay s"
    strays=$(ls -A k.gnndb | grep -e '\.tmp$' -e '^tmp-' || true)
    [ -z "$strays" ] || fail "stray files after kill at $delay s: $strays"
    n=$(ls k.gnndb | grep -c '\.blk$')
    [ "$n" -eq "$want_n" ] || fail "$n block files after kill at $delay s ($state version: $want_n)"
    swept=$((raw - $(ls -A k.gnndb | wc -l)))
    [ $swept -le 0 ] || orphans=$((orphans + 1))
    # the version that survived takes the insert (again) and samples as done.gnndb
    if [ $state = old ]; then
        "$GNNDB" k.gnndb "INSERT EDGES INTO big FROM '$PWD/new.bin' FORMAT bin;" ||
            fail "INSERT after kill at $delay s"
        [ "$(digests k.gnndb)" = "$new_d" ] || fail "INSERT after kill at $delay s: other batches"
    fi
    echo "ok: killed at $delay s: the $state version, intact ($swept leftovers removed by the next open)"
done
echo "ok: kill -9 during INSERT EDGES: $saw_old trials left the old version, $saw_new the new one; $orphans left files the next open removed"

# ---- COMPACT, and kill -9 during it -----------------------------------------
# The same insert kept as a delta (segmented files; the default
# compact_fraction compacts one this large at once); COMPACT folds it into
# plain files: the same batches, CHECK ok, no map left. Killed at any
# moment, it leaves the deltas or the plain files, whole.
rm -rf dd.gnndb; cp -a "$K" dd.gnndb
"$GNNDB" dd.gnndb "PRAGMA compact_fraction = 1;
  INSERT EDGES INTO big FROM '$PWD/new.bin' FORMAT bin;" > /dev/null || fail "INSERT as a delta"
[ "$(digests dd.gnndb)" = "$new_d" ] || fail "the delta's batches differ from the rebuilt version's"
segs_n=$(ls dd.gnndb | grep -c '\.seg$')
[ "$segs_n" -ge 3 ] || fail "the INSERT into big wrote no delta"
saw_deltas=0; saw_plain=0
for delay in 0.01 0.05 0.1 0.2 0.4; do
    rm -rf c.gnndb; cp -a dd.gnndb c.gnndb
    "$GNNDB" c.gnndb "COMPACT big;" > /dev/null 2>&1 &
    pid=$!
    sleep $delay
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    [ "$(digests c.gnndb)" = "$new_d" ] || fail "other batches after COMPACT killed at $delay s"
    "$GNNDB" -csv c.gnndb "CHECK;" | grep -q '^ok,' || fail "CHECK after COMPACT killed at $delay s"
    strays=$(ls -A c.gnndb | grep -e '\.tmp$' -e '^tmp-' || true)
    [ -z "$strays" ] || fail "stray files after COMPACT killed at $delay s: $strays"
    n=$(ls c.gnndb | grep -c '\.seg$')
    if [ "$n" -eq "$segs_n" ]; then saw_deltas=$((saw_deltas + 1))
    elif [ "$n" -lt "$segs_n" ]; then saw_plain=$((saw_plain + 1))
    else fail "$n maps after COMPACT killed at $delay s"; fi
done
"$GNNDB" dd.gnndb "COMPACT big;" || fail "COMPACT big"
[ "$(digests dd.gnndb)" = "$new_d" ] || fail "COMPACT changed big's batches"
"$GNNDB" -csv dd.gnndb "CHECK;" | grep -q '^ok,' || fail "CHECK after COMPACT"
"$GNNDB" -csv -noheader dd.gnndb "DESCRIBE big;" | grep -q '^delta\.' &&
    fail "DESCRIBE lists deltas after COMPACT"
echo "ok: COMPACT keeps big's batches; killed at 5 moments: $saw_deltas left the deltas, $saw_plain the plain files"
