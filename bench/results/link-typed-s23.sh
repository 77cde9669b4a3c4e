#!/bin/sh
# the link and typed rows at the default point, beside the node row, one run
set -u
ROOT=/work/main; B=$ROOT/build; SCALE=23; DATA=$ROOT/bench/data/s23-e16-d128; LIMIT=1GB
drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }
date
if ! "$B/gnndb" "$DATA/g.gnndb" "DESCRIBE g;" | grep -q '^edge_ids|1$'; then
  rm -rf "$DATA/g.gnndb"
  t0=$(date +%s.%N)
  "$B/gnndb" "$DATA/g.gnndb" "CREATE GRAPH g FROM '$DATA/edges.bin' FORMAT bin NODES $((1 << SCALE)); IMPORT FEATURES feat INTO g FROM '$DATA/feat.npy';" || exit 1
  t1=$(date +%s.%N); echo "$t0 $t1" | awk '{printf "%.1f\n", $2 - $1}' > "$DATA/import_seconds"
  echo "import with edge ids: $(cat $DATA/import_seconds) s"; du -sh "$DATA/g.gnndb"
fi
DB=$DATA/g.gnndb
"$B/gnndb" "$DB" "DROP SPLIT lp_train ON g;" > /dev/null 2>&1
"$B/gnndb" "$DB" "CREATE EDGE SPLITS lp_train ON g RANDOM 0.001 SEED 1;" > /dev/null || exit 1
SQL="SAMPLE 10,10,10 FROM g FEATURES feat BATCH 1024 SHUFFLE SEED 1"
LSQL="SAMPLE 10,10,10 FROM g FEATURES feat EDGES lp_train BATCH 1024 NEGATIVE 1 EXCLUDE SEEDS SHUFFLE SEED 1"
for q in "$SQL" "$LSQL"; do
  H=$("$B/gnndb" "$DB" "PRAGMA memory_limit='$LIMIT'; EXPLAIN $q;" | sed -n 's/^HYPERBATCH \([0-9]*\).*/\1/p' | head -1)
  echo "== H=$H: $q"
  drop_caches
  "$B/bench/bench_sample" "$DB" "PRAGMA memory_limit='$LIMIT'; $q LIMIT $((2 * H));"
done
TDIR=$DATA/typed; TDB=$TDIR/t.gnndb
if [ ! -f "$TDIR/done" ]; then
  rm -rf "$TDIR" && mkdir -p "$TDIR"
  /usr/bin/python3 "$ROOT/bench/typed_data.py" --edges "$DATA/edges.bin" --features "$DATA/feat.npy" --scale $SCALE --out "$TDIR" > "$TDIR/counts" || exit 1
  TSQL="CREATE GRAPH t;"
  while read -r name count; do TSQL="$TSQL CREATE NODES $name IN t COUNT $count;"; done < "$TDIR/counts"
  for a in paper author field; do for b in paper author field; do
    TSQL="$TSQL CREATE RELATION ${a}_$b IN t FROM $a TO $b FROM '$TDIR/${a}_$b.bin' FORMAT bin;"; done
    TSQL="$TSQL IMPORT FEATURES feat INTO t.$a FROM '$TDIR/$a.npy';"; done
  t0=$(date +%s.%N); "$B/gnndb" "$TDB" "$TSQL" || exit 1; t1=$(date +%s.%N)
  echo "$t0 $t1" | awk '{printf "%.1f\n", $2 - $1}' > "$TDIR/import_seconds"
  rm -f "$TDIR"/*.bin "$TDIR"/*.npy; touch "$TDIR/done"
  echo "typed import: $(cat $TDIR/import_seconds) s"; du -sh "$TDB"
fi
TMAP=""; for b in paper author field; do TMAP="$TMAP${TMAP:+, }paper_$b: 5, author_$b: 3, field_$b: 2"; done
TQ="SAMPLE {$TMAP} * 3 FROM t SEEDS paper.ALL BATCH 1024 SHUFFLE SEED 1"
H=$("$B/gnndb" "$TDB" "PRAGMA memory_limit='$LIMIT'; EXPLAIN $TQ;" | sed -n 's/^HYPERBATCH \([0-9]*\).*/\1/p' | head -1)
echo "== H=$H: $TQ"
drop_caches
"$B/bench/bench_sample" "$TDB" "PRAGMA memory_limit='$LIMIT'; $TQ LIMIT $((2 * H));"
date
