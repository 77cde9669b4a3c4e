#!/bin/sh
# The demo: a database built from the cora citation graph, described, then
# sampled into mini-batches. Usage: scripts/demo.sh [path/to/gnndb]
set -e
GNNDB=${1:-build/gnndb}
DATA=${GNNDB_DATA:-$(cd "$(dirname "$0")/../../shared/data" 2>/dev/null && pwd)}
[ -d "$DATA/cora" ] || { echo "demo: cora not found under '$DATA' (set GNNDB_DATA)" >&2; exit 1; }
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
