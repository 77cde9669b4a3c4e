#!/bin/sh
# SAMPLE in the shell: one summary row per mini-batch; a SAMPLE without SEED
# reports "-- seed: N" on stderr and running it again with SEED N gives the
# same rows; .stats, .timer; and the dot commands built on statements:
# .graphs, .describe, .summary, .pragma.
set -u
fail() { echo "FAIL: $*"; exit 1; }
D=$GNNDB_DATA/cora
DB=$PWD/s.gnndb
"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$D/edges.tsv';
IMPORT FEATURES feat INTO cora FROM '$D/features.npy';
IMPORT LABELS INTO cora FROM '$D/labels.npy';
CREATE SPLIT train ON cora FROM '$D/train_idx.npy';" || fail "setup"

Q="SAMPLE 10,10 FROM cora SEEDS train FEATURES feat BATCH 64 SHUFFLE"
"$GNNDB" -header -csv "$DB" "$Q;" > a.csv 2> a.err || { cat a.err; fail "SAMPLE"; }
head -1 a.csv | grep -qx 'epoch,batch,seeds,nodes,edges,feature_bytes,digest' ||
    fail "SAMPLE columns: $(head -1 a.csv)"
[ "$(wc -l < a.csv)" -eq 4 ] || fail "140 seeds in batches of 64: not 3 rows"
[ "$(cut -d, -f3 a.csv | tail -3 | tr '\n' ' ')" = "64 64 12 " ] ||
    fail "seeds per batch: $(cut -d, -f3 a.csv | tr '\n' ' ')"
grep -q '^-- seed: [0-9][0-9]*$' a.err || { cat a.err; fail "no '-- seed: N' on stderr"; }
[ "$(wc -l < a.err)" -eq 1 ] || fail "more than the seed on stderr"
seed=$(sed -n 's/^-- seed: //p' a.err)
"$GNNDB" -header -csv "$DB" "$Q SEED $seed;" > b.csv 2> b.err || fail "SAMPLE SEED $seed"
cmp -s a.csv b.csv || { diff a.csv b.csv; fail "SEED $seed does not reproduce the drawn-seed run"; }
[ -s b.err ] && fail "a SAMPLE with SEED reported a seed"
# json: the digest is a string, the counts numbers
"$GNNDB" -json "$DB" "$Q SEED 7;" 2>/dev/null | /usr/bin/python3 -c '
import json, sys
rows = json.load(sys.stdin)
assert len(rows) == 3
for r in rows:
    assert list(r) == ["epoch", "batch", "seeds", "nodes", "edges", "feature_bytes", "digest"]
    assert all(isinstance(r[k], int) for k in list(r)[:6]), r
    assert isinstance(r["digest"], str), r
' || fail "SAMPLE in json"

# .stats: the counters of the last statement
"$GNNDB" "$DB" "$Q SEED 7;" ".stats" > stats.txt || fail ".stats"
grep -q '^batches  *3$' stats.txt || { cat stats.txt; fail ".stats: batches 3"; }
grep -q '^seed  *7$' stats.txt || fail ".stats: seed 7"
for k in 'blocks read' 'bytes read' 'cache hits' 'cache misses' edges hyperbatch; do
    grep -q "^$k  *[0-9]" stats.txt || fail ".stats: no '$k'"
done
"$GNNDB" "$DB" ".stats on" "$Q SEED 7;" | grep -q '^batches  *3$' || fail ".stats on"

# .timer on: one Run Time line per statement
"$GNNDB" "$DB" ".timer on" "SHOW GRAPHS; DESCRIBE cora;" > timer.txt || fail ".timer"
[ "$(grep -c '^Run Time: real [0-9.]* user [0-9.]* sys [0-9.]*$' timer.txt)" -eq 2 ] ||
    { cat timer.txt; fail ".timer: not one Run Time line per statement"; }

# .graphs lists, .describe, .pragma run their statements
"$GNNDB" "$DB" ".graphs" | grep -qx 'cora (2708 nodes, 10556 edges)' || fail ".graphs"
"$GNNDB" "$DB" ".describe cora" | grep -qx 'split.train|140' || fail ".describe"
"$GNNDB" "$DB" ".describe nosuch" 2> err.txt && fail ".describe nosuch succeeded"
grep -q '^Error: .*nosuch' err.txt || fail ".describe nosuch: message"
"$GNNDB" "$DB" ".pragma" | grep -q '^threads|' || fail ".pragma"
"$GNNDB" "$DB" ".pragma threads 1" | grep -qx 'threads|1' || fail ".pragma threads 1"

# .summary: a report built from DESCRIBE
"$GNNDB" "$DB" ".summary cora" > sum.txt || fail ".summary"
grep -q '2,708 nodes, 10,556 edges' sum.txt || { cat sum.txt; fail ".summary: counts"; }
grep -q '^degree: min [0-9]*, median [0-9]*, mean [0-9.]*, max [0-9]*$' sum.txt ||
    fail ".summary: degree line"
grep -q '^ *2-3 |#' sum.txt || fail ".summary: degree histogram"
grep -q '^  feat  *1433 x float32$' sum.txt || fail ".summary: feature table"
grep -q '^labels: 7 classes$' sum.txt || fail ".summary: labels"
[ "$(grep -c '^ *class [0-6] |#' sum.txt)" -eq 7 ] || fail ".summary: 7 label classes"
grep -q '^  train  *140 seeds$' sum.txt || fail ".summary: split"
grep -q '^on disk: [0-9.]* [KMG]iB$' sum.txt || fail ".summary: size on disk"
grep -q '^  catalog.db ' sum.txt || fail ".summary: file sizes"
"$GNNDB" "$DB" ".summary nosuch" 2> err.txt && fail ".summary nosuch succeeded"
grep -q '^Error: .*nosuch' err.txt || fail ".summary nosuch: message"
echo "SAMPLE and dot commands ok"
