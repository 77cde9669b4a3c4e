#!/bin/sh
# The demo: a database built from the cora citation graph, described, then
# sampled into mini-batches. Usage: scripts/demo.sh [path/to/gnndb]
# cora comes from scripts/data.sh: $GNNDB_DATA, ../shared/data, or the copy
# shipped in data/cora, decompressed into build/data.
set -e
GNNDB=${1:-build/gnndb}
[ -x "$GNNDB" ] || { echo "demo: no shell at '$GNNDB' (run make)" >&2; exit 1; }
DATA=$(sh "$(dirname "$0")/data.sh") ||
    { echo "demo: no cora to build the demo from (see data/README.md)" >&2; exit 1; }
DB=${DEMO_DB:-build/demo.gnndb}
rm -rf "$DB"
echo "== building $DB from $DATA/cora"
"$GNNDB" "$DB" "
CREATE GRAPH cora FROM '$DATA/cora/edges.tsv';
IMPORT FEATURES feat INTO cora FROM '$DATA/cora/features.npy';
IMPORT LABELS INTO cora FROM '$DATA/cora/labels.npy';
CREATE SPLIT train ON cora FROM '$DATA/cora/train_idx.npy';
CREATE SPLIT val ON cora FROM '$DATA/cora/val_idx.npy';
CREATE SPLIT test ON cora FROM '$DATA/cora/test_idx.npy';"
echo "== DESCRIBE cora"
"$GNNDB" -header -table "$DB" "DESCRIBE cora;"
echo "== EXPLAIN SAMPLE 10,10 FROM cora SEEDS train BATCH 64"
"$GNNDB" "$DB" "EXPLAIN SAMPLE 10,10 FROM cora SEEDS train FEATURES feat BATCH 64 SEED 42;"
echo "== SAMPLE 10,10 FROM cora SEEDS train BATCH 64 SHUFFLE SEED 42"
"$GNNDB" -header -table "$DB" "SAMPLE 10,10 FROM cora SEEDS train FEATURES feat BATCH 64 SHUFFLE SEED 42;"
