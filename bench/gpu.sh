#!/bin/sh
# bench/gpu.sh — the GPU path, measured on one GPU (under 5 minutes once
# the scale-22 data exists; generating and importing it the first time
# takes a few minutes more, into bench/data like bench/run.sh's).
#
#   sh bench/gpu.sh [BUILD_DIR] [--quick]
#
# Needs a CUDA build (make, then make build/bench/gpu_bw
# build/bench/bench_sample build/bench/gen) and a torch that sees the GPU.
# Without a device it prints one "SKIP: ..." line and exits 0.
#
# Rows, then one SUMMARY line:
#   gpu_bw: the transfer operator's GB/s (xfer_batch + xfer_prefetch of
#     88.9 MB batches from pinned arrays, as the engine hands out a
#     device-bound batch) over the pinned cudaMemcpyAsync peak;
#   stream: batches/s into GPU memory through gnndb.torch, TO DEVICE
#     against host batches + .to('cuda'), SAMPLE 10,10,10 ... BATCH 1024 on
#     R-MAT scale 22 (4 M nodes, 67 M edges, 2 GiB of float32 features;
#     --quick: scale 20), data in the page cache, PRAGMA threads = cores;
#   cora: the epoch time of examples/train_sage.py's model on the GPU with
#     TO DEVICE batches over host batches + .to();
#   cache: bench_sample's batches/s and bytes over the bus per batch with
#     PRAGMA gpu_cache = 0, a quarter and a half of the feature table, over
#     100 batches (the first 16 are counted to choose the cached rows and
#     cross whole; the bus figure is over all 100).
#
#   SUMMARY gpu_h2d_fraction=F to_device_speedup=R cora_epoch_ratio=R
#           cache0_bps=B cache0_bus_mb=M cacheq_bps=B cacheq_bus_mb=M
#           cacheh_bps=B cacheh_bus_mb=M cacheq_bus_ratio=R
set -u
B=build
QUICK=0
for a in "$@"; do
    case "$a" in
    --quick) QUICK=1 ;;
    --help) sed -n '2,30p' "$0"; exit 0 ;;
    *) B=$a ;;
    esac
done
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$ROOT" && cd "$B" && pwd) || { echo "gpu.sh: no build dir" >&2; exit 1; }
PY=${PYTHON:-/usr/bin/python3}
log() { echo "== $*" >&2; }
field() { echo "$1" | tr ' ' '\n' | awk -F= -v k="$2" '$1 == k { print $2 }'; }
for p in gpu_bw bench_sample gen; do
    [ -x "$B/bench/$p" ] || { echo "gpu.sh: $B/bench/$p missing (make $B/bench/$p)" >&2; exit 1; }
done

# no device, or a torch without CUDA: say so and stop
out=$("$B/bench/gpu_bw" 20) || { echo "$out"; exit 1; }
case $(echo "$out" | tail -1) in
    SKIP*) echo "SKIP: gpu.sh: $(echo "$out" | tail -1 | sed 's/^SKIP: //')"; exit 0 ;;
esac
echo "$out"
t=$(PYTHONPATH=$ROOT/python${PYTHONPATH:+:$PYTHONPATH} "$PY" -c 'import torch; print(int(torch.cuda.is_available()))' 2>/dev/null)
[ "$t" = 1 ] || { echo "SKIP: gpu.sh: $PY's torch sees no CUDA device"; exit 0; }
FRACTION=$(field "$(echo "$out" | tail -1)" FRACTION)

if [ $QUICK = 1 ]; then SCALE=20; else SCALE=22; fi
EF=16; DIM=128
DATA=$ROOT/bench/data/s$SCALE-e$EF-d$DIM
mkdir -p "$DATA"
if [ ! -f "$DATA/done" ]; then
    log "generating R-MAT scale $SCALE, edge factor $EF, dim $DIM into $DATA"
    "$B/bench/gen" --scale $SCALE --edge-factor $EF --seed 1 \
        --out "$DATA/edges.bin" --features "$DATA/feat.npy" --dim $DIM >&2 || exit 1
    rm -rf "$DATA/g.gnndb"
    "$B/gnndb" "$DATA/g.gnndb" "CREATE GRAPH g FROM '$DATA/edges.bin' FORMAT bin NODES $((1 << SCALE));
        IMPORT FEATURES feat INTO g FROM '$DATA/feat.npy';" >&2 || exit 1
    touch "$DATA/done"
fi
DB=$DATA/g.gnndb
CORES=$(nproc)
# room for H in memory: the stream compares transfers, not the disk
PRAGMAS="PRAGMA threads = $CORES; PRAGMA memory_limit = '16GB';"
Q="SAMPLE 10,10,10 FROM g FEATURES feat BATCH 1024 SHUFFLE SEED 1 LIMIT 60"

export GNNDB_LIB=$B/libgnndb.so PYTHONPATH=$ROOT/python${PYTHONPATH:+:$PYTHONPATH}
log "stream: TO DEVICE against host batches + .to('cuda')"
s=$("$PY" "$ROOT/bench/gpu_loader.py" stream --db "$DB" --sql "$PRAGMAS $Q;" | tail -1)
echo "stream $s"
SPEEDUP=$(field "$s" speedup)

CORA=$(sh "$ROOT/scripts/data.sh")/cora
log "cora: train_sage's model, TO DEVICE against host + .to('cuda')"
c=$("$PY" "$ROOT/bench/gpu_loader.py" cora --data "$CORA" --epochs 10 | tail -1)
echo "cora $c"
RATIO=$(field "$c" ratio)

# a quarter and a half of the feature table's rows on the device
ROWS=$((1 << SCALE)); ROWB=$((DIM * 4))
QB=$((ROWS / 4 * ROWB)); HB=$((ROWS / 2 * ROWB))
for spec in "0:0" "q:$QB" "h:$HB"; do
    k=${spec%%:*}; bytes=${spec#*:}
    r=$("$B/bench/bench_sample" "$DB" "$PRAGMAS PRAGMA gpu_cache = '$bytes';
        SAMPLE 10,10,10 FROM g FEATURES feat BATCH 1024 SHUFFLE SEED 1
        LIMIT 100 TO DEVICE 'cuda:0';" | tail -1) || exit 1
    n=$(field "$r" batches)
    bps=$(field "$r" batches_per_s)
    bus=$(echo "$(field "$r" bus_bytes) $n" | awk '{ printf "%.1f", $1 / $2 / 1e6 }')
    echo "cache $k gpu_cache=$bytes batches_per_s=$bps bus_mb_per_batch=$bus device_cache_hits=$(field "$r" device_cache_hits)"
    eval "BPS_$k=$bps; BUS_$k=$bus"
done
BUSR=$(echo "$BUS_q $BUS_0" | awk '{ printf "%.3f", ($2 > 0 ? $1 / $2 : 0) }')
echo "SUMMARY gpu_h2d_fraction=$FRACTION to_device_speedup=$SPEEDUP cora_epoch_ratio=$RATIO cache0_bps=$BPS_0 cache0_bus_mb=$BUS_0 cacheq_bps=$BPS_q cacheq_bus_mb=$BUS_q cacheh_bps=$BPS_h cacheh_bus_mb=$BUS_h cacheq_bus_ratio=$BUSR"
