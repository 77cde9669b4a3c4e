#!/bin/sh
# SAMPLE ... EDGES in the shell: a link batch's row (epoch, batch, seeds,
# nodes, edges, feature_bytes, positives, negatives, digest), every seed
# edge of the split served once an epoch with k negatives each, and the same
# digests under PRAGMA threads = 1 and HYPERBATCH 1; each bad input (link
# clauses on node seeds, NEGATIVE out of range, node splits and node
# feature tables where edge ones belong, a graph without edge ids, STRICT
# on a complete graph, INTO PACK) refused in one line with the database
# exactly as before.
set -u
fail() { echo "FAIL: $*"; exit 1; }
D=$GNNDB_DATA/cora
DB=$PWD/t.gnndb
# a complete directed graph on 5 nodes, self loops included: every pair is
# an edge, so no STRICT negative exists
for s in 0 1 2 3 4; do for t in 0 1 2 3 4; do printf '%d\t%d\n' $s $t; done
done > complete.tsv
"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$D/edges.tsv' UNDIRECTED;
  IMPORT FEATURES feat INTO cora FROM '$D/features.npy';
  CREATE SPLIT train ON cora FROM '$D/train_idx.npy';
  CREATE EDGE SPLITS tr, va, te ON cora RANDOM 0.85, 0.05, 0.10 SEED 7;
  CREATE GRAPH plain FROM '$D/edges.tsv' WITHOUT EDGE IDS;
  CREATE GRAPH k FROM '$PWD/complete.tsv';
  CREATE EDGE SPLITS every ON k RANDOM 1.0 SEED 1;" || fail "setup"
# edge features stored as int8 (integer values): importable, not gathered
/usr/bin/python3 -c "import numpy as np; np.save('ef8.npy', (np.arange(10556 * 2) % 200 - 100).reshape(-1, 2).astype(np.float32))" ||
    fail "ef8.npy"
"$GNNDB" "$DB" "IMPORT EDGE FEATURES w8 INTO cora FROM '$PWD/ef8.npy' STORE int8;" ||
    fail "IMPORT EDGE FEATURES ... STORE int8"
ntr=$("$GNNDB" -csv -noheader "$DB" "DESCRIBE cora;" | sed -n 's/^edge_split\.tr,//p')
[ "$ntr" -gt 8000 ] || fail "edge split tr has '$ntr' edges"

# the happy path: one row per mini-batch of 64 seed edges
Q="SAMPLE 10,5 FROM cora EDGES tr BATCH 64 NEGATIVE 2 STRICT EXCLUDE SEEDS SHUFFLE SEED 3"
"$GNNDB" -header -csv "$DB" "$Q;" > a.csv 2> a.err || { cat a.err; fail "$Q"; }
head -1 a.csv | grep -qx 'epoch,batch,seeds,nodes,edges,feature_bytes,positives,negatives,digest' ||
    fail "link columns: $(head -1 a.csv)"
rows=$(($(wc -l < a.csv) - 1))
[ "$rows" -eq $(((ntr + 63) / 64)) ] || fail "$rows rows for $ntr seed edges"
tail -n +2 a.csv | awk -F, -v n="$ntr" '
    $7 != 64 && NR < '"$rows"' { bad = "positives " $7 " in batch " $2 }
    $8 != 2 * $7 { bad = "negatives " $8 " for " $7 " positives" }
    $3 > 4 * $7 || $4 < $3 || $6 != $4 * 1433 * 4 { bad = "row " $0 }
    { pos += $7 }
    END { if (!bad && pos != n) bad = "positives sum to " pos " of " n
          if (bad) { print bad; exit 1 } }' || fail "link rows"
# the same batches from one thread, one mini-batch at a time
"$GNNDB" -noheader -csv "$DB" "PRAGMA threads = 1;" "$Q HYPERBATCH 1;" |
    grep -v '^threads' > b.csv || fail "HYPERBATCH 1"
tail -n +2 a.csv | cmp -s - b.csv || { diff a.csv b.csv | head; fail "threads = 1, HYPERBATCH 1: other digests"; }
# TRIPLET: the same row, k negatives per positive
"$GNNDB" -csv -noheader "$DB" "SAMPLE 5 FROM cora EDGES va BATCH 100 NEGATIVE 3 TRIPLET EXCLUDE SPLIT te SEED 1 LIMIT 2;" > t.csv ||
    fail "TRIPLET"
[ "$(cut -d, -f7,8 t.csv | tr '\n' ' ')" = "100,300 100,300 " ] || fail "TRIPLET rows: $(cat t.csv)"
echo "ok: link rows, the same digests under threads = 1 and HYPERBATCH 1"

# spilled rounds of a graph without features: the run read ahead must not
# land in the buffer handed out (it did: every batch but a round's last
# was overwritten), node and link batches alike
for Q in "SAMPLE 10,5 FROM plain BATCH 64 SEED 31 HYPERBATCH 8 LIMIT 16" \
         "SAMPLE 10,5 FROM cora FEATURES feat EDGES tr BATCH 64 NEGATIVE 1 SEED 31 HYPERBATCH 8 LIMIT 16"; do
    "$GNNDB" -csv "$DB" "$Q;" > s0.csv || fail "$Q"
    "$GNNDB" -csv "$DB" "PRAGMA spill = 'on'; $Q;" | grep -v '^spill' > s1.csv ||
        fail "spilled $Q"
    cmp -s s0.csv s1.csv || fail "spilled batches differ: $Q"
done
echo "ok: spilled rounds without features hand out what was sampled"

. "$OLDPWD/tests/e2e_expect_error.sh"
snapshot() {
    ( cd "$DB" && ls | grep -v -e '-wal$' -e '-shm$' | sort
      "$GNNDB" -csv "$DB" "SHOW GRAPHS;"
      for g in cora plain k; do
          "$GNNDB" -csv "$DB" "DESCRIBE $g;" | grep -v '^file\.catalog'
      done ) 2>&1
}
BEFORE=$(snapshot)

expect_error "SAMPLE 2 FROM cora SEEDS train BATCH 4 EXCLUDE SEEDS;" \
    "EXCLUDE SEEDS needs edge seeds (EDGES split)"
expect_error "SAMPLE 2 FROM cora EDGES tr BATCH 4 NEGATIVE 0;" \
    "NEGATIVE 0 is out of range"
expect_error "SAMPLE 2 FROM cora EDGES tr BATCH 4 NEGATIVE -1;" \
    "NEGATIVE -1 is out of range"
expect_error "SAMPLE 2 FROM cora EDGES train BATCH 4;" \
    "'train' is a node split of graph 'cora', not an edge split"
expect_error "SAMPLE 2 FROM cora EDGES tr BATCH 4 EXCLUDE SPLIT train;" \
    "'train' is a node split of graph 'cora'; EXCLUDE SPLIT takes edge splits"
expect_error "SAMPLE 2 FROM cora EDGES tr BATCH 4 EXCLUDE SPLIT te, te;" \
    "EXCLUDE SPLIT names te twice"
expect_error "SAMPLE 2 FROM cora EDGES tr BATCH 4 EDGE FEATURES w8;" \
    "edge feature table w8 is stored as int8; SAMPLE gathers float32 and float16 tables only"
expect_error "SAMPLE 2 FROM cora EDGES tr BATCH 4 EXCLUDE SPLIT nosuch;" \
    "no such split: nosuch"
expect_error "SAMPLE 2 FROM cora EDGES tr BATCH 4 EDGE FEATURES feat;" \
    "feat is a table of node features of graph cora"
expect_error "SAMPLE 2 FROM plain EDGES tr BATCH 4;" \
    "needs edge ids, and graph plain has none"
expect_error "SAMPLE 2 FROM k EDGES every BATCH 4 NEGATIVE 1 STRICT SEED 1;" \
    "STRICT: no negative found"
expect_error "SAMPLE 2 FROM k EDGES every BATCH 4 NEGATIVE 2 PAIRS STRICT SEED 9;" \
    "STRICT: no negative found"
echo "all bad link SAMPLE inputs rejected cleanly"
