#!/bin/sh
# The typed row at the default point, in memory (PRAGMA spill = 'off') and
# spilled (the planner's choice), one after the other in one run, with the
# disk's sequential rate measured beside them (fio, as bench/run.sh does).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd); B=$ROOT/build
TDB=$ROOT/bench/data/s23-e16-d128/typed/t.gnndb; LIMIT=1GB
drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }
date
TMAP=""; for b in paper author field; do TMAP="$TMAP${TMAP:+, }paper_$b: 5, author_$b: 3, field_$b: 2"; done
TQ="SAMPLE {$TMAP} * 3 FROM t SEEDS paper.ALL BATCH 1024 SHUFFLE SEED 1"
for mode in off auto; do
  H=$("$B/gnndb" "$TDB" "PRAGMA spill='$mode'; PRAGMA memory_limit='$LIMIT'; EXPLAIN $TQ;" | sed -n 's/^HYPERBATCH \([0-9]*\).*/\1/p' | head -1)
  N=$((2 * H)); [ $N -lt 8 ] && N=8
  echo "== spill=$mode H=$H LIMIT $N: $TQ"
  drop_caches
  "$B/bench/bench_sample" "$TDB" "PRAGMA spill='$mode'; PRAGMA memory_limit='$LIMIT'; $TQ LIMIT $N;"
done
if command -v fio > /dev/null; then
  drop_caches
  fio --name=seq --filename="$ROOT/bench/data/fio.tmp" --size=2G --rw=read --bs=1M --direct=1 --ioengine=io_uring --iodepth=16 --runtime=15 --time_based 2>/dev/null | grep -E "READ:"
  rm -f "$ROOT/bench/data/fio.tmp"
fi
date
