#!/bin/sh
# bench/run.sh — the benchmark suite: gnndb against the loaders users have,
# every figure measured in this one run (the disk drifts over minutes, so
# only ratios from the same run are compared).
#
#   sh bench/run.sh [BUILD_DIR] [--quick] [--peers SYSTEM,...]
#
# The default point: an R-MAT graph of 2^23 nodes and 128 M edges with 128
# float32 features per node (4 GiB) under a 1 GiB memory limit (features 4x
# the limit). --quick: 2^21 nodes, 16 M edges, 1 GiB of features under a
# 256 MiB limit (a mini-batch of 1024 seeds stages about 100 MB, so smaller
# limits cannot hold one); about a minute once its data exists. Data is
# generated once into bench/data. The query: SAMPLE 10,10,10 FROM g
# FEATURES feat BATCH 1024 SHUFFLE SEED 1.
#
# At the default point, in this order (gnndb's rows with PRAGMA
# memory_limit at the limit, outside any cgroup; the page cache dropped
# before each timed row but the one-thread one):
#   fio     sequential O_DIRECT 1 MiB reads of the feature file; memcpy and
#           CRC32C bandwidth
#   node    gnndb at the planner's HYPERBATCH (two whole rounds of it), at
#           HYPERBATCH 1, and at the planner's H with PRAGMA threads = 1
#           (the in-memory work figures)
#   link    SAMPLE 10,10,10 ... EDGES lp_train BATCH 1024 NEGATIVE 1 EXCLUDE
#           SEEDS, two rounds of the planner's H; lp_train is a random
#           thousandth of the edges (CREATE EDGE SPLITS, made again each run)
#   typed   the same edges and rows as three node types and nine relations
#           (bench/typed_data.py, imported once), {5, 3, 2 per relation into
#           a type} * 3 over every paper, two rounds of the planner's H
#   pack    the HYPERBATCH 1024 batches stored with INTO PACK and streamed
#           back with SCAN PACK (a `PACK build_s=.. bytes=..
#           pack_batches_per_s=.. online_batches_per_s=.. speedup=..` line)
#   cache   the row-level feature cache under each policy at HYPERBATCH 1
#           with one cache size (lines CACHE policy=P hit_ratio=R
#           batches_per_s=B ..., then the offline optimum CACHE
#           policy=optimum hit_ratio=R)
#   mmap    the C mmap baseline (in-memory CSC, features from a mmap'd
#           .npy) in a cgroup v1 memory group of the limit
#   peers   bench/sweep.py at this point (below): results/default.csv
# Then, without --quick, bench/sweep.py over budgets at scale 21 (2^21
# nodes, 33.5 M edges, 1 GiB of features): 128 MiB, 256 MiB, 512 MiB and
# 1 GiB (1/8 to 1x of the features: out of core), then 4 GiB and 16 GiB (4x
# and 16x: everything fits): results/sweep-s21.csv; both in sweep.csv and
# sweep.png, each run's output in the .log beside each CSV.
#
# What bench/sweep.py runs at a point, each run in a fresh cgroup v1 group
# of the budget (page cache included), the page cache dropped first; a run
# the group OOM-kills is read from the group's oom_kill counter:
#   gnndb        the whole process in the group, PRAGMA memory_limit EQUAL
#                to the group, in two forms: the planner's HYPERBATCH, and
#                HYPERBATCH 1024 as the docs write it; each two whole rounds
#                of the H that EXPLAIN shows for it (900 s at most); peak
#                RSS (bench_sample's maxrss_kb) against memory_limit
#   gnndb_pack   SCAN PACK of the batches stored once (INTO PACK) per graph
#   out of core (1/8 to 1x, and the default point):
#   dgl          DGL 2.1 as its users run it: the graph built in RAM before
#                the process joins the group, features mapped with the
#                default advice; classic NeighborSampler and dgl.graphbolt,
#                each with 0 and 1 DataLoader workers and 1 and all cores'
#                threads
#   dgl_random   the same with MADV_RANDOM (1 thread, no workers)
#   dgl_strict   the whole process in the group (1 thread, no workers)
#   mmap, mmap_random, mmap_strict   the C mmap baseline, the same three
#   in memory (4x and 16x):
#   dgl_inmem    DGL's best in-memory set-up: the graph built in RAM, then
#                the features read whole into RAM (np.load, a torch tensor);
#                both samplers, 0 and 1 workers, 1 and all cores' threads,
#                and three gathers (sorted ids, torch.index_select in input
#                order, DGL's loader fetching the rows)
# Every peer runs 60 mini-batches a run (at most 240 s; 480 s at the
# default point). --quick runs, at its one point only, gnndb (both forms,
# 24 mini-batches each), gnndb_pack, dgl (both samplers, no workers, one
# thread) and mmap, 3 peer batches, 60 s a run at most, into
# bench/results/quick/. --peers runs only the systems named (sweep.py's
# names: gnndb, gnndb_pack, dgl, dgl_random, dgl_strict, dgl_inmem, mmap,
# mmap_random, mmap_strict) at the default point and in the sweep. The
# full run is some 150 runs: a few hours. $DGL_PYTHON names DGL's
# interpreter (default bench/venv/bin/python, made by make bench-peers).
#
# The last line is
#   SUMMARY hb_block_ratio=R hb_speedup=R mmap_speedup=R dgl_speedup=R
#           bw_fraction=F edges_per_s_core=N gather_fraction=F
#           dgl_speedup_min=R spill_overhead=R dgl_speedup_inmem=R
#           rss_over_limit_max=MIB gnndb_oom_killed=N
# hb_block_ratio: bytes read from the database per mini-batch at
# HYPERBATCH 1 over those at the planner's H (blocks and pages alike);
# bw_fraction: all the bytes that row moved through the disk (database
# reads, spill writes and read-backs) per second, over fio's sequential
# rate; gather_fraction: one thread's gather rate over memcpy's;
# dgl_speedup: gnndb over the fastest DGL set-up at the default point, the
# lower of gnndb's two forms; dgl_speedup_min: the lowest such ratio over
# the sweep's out-of-core points (1/8 to 1x) and the default point, either
# form (a form the group killed, or that failed, counts as 0);
# spill_overhead: the highest, over them, of bytes spilled plus read back
# per byte of rows delivered; dgl_speedup_inmem: gnndb over the fastest
# DGL set-up at 16x, the lower of the two forms (NA with --quick);
# rss_over_limit_max: the largest peak RSS minus memory_limit over every
# gnndb run that set one (the node, link and typed rows above and every
# gnndb run of sweep.py), in MiB, negative when all stayed under;
# gnndb_oom_killed: gnndb runs a group killed. Each form's figures are on
# the SWEEP lines printed before it.
set -u
B=build
QUICK=0
PEERS=""
want_peers=0
for a in "$@"; do
    if [ $want_peers = 1 ]; then PEERS=$a; want_peers=0; continue; fi
    case "$a" in
    --quick) QUICK=1 ;;
    --peers) want_peers=1 ;;
    --help) sed -n '2,/^set -u/p' "$0" | grep '^#'; exit 0 ;;
    *) B=$a ;;
    esac
done
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$ROOT" && cd "$B" && pwd) || { echo "run.sh: no build dir" >&2; exit 1; }
for p in gen bench_sample bench_cache baseline_mmap memcpy_bw crc_bw; do
    [ -x "$B/bench/$p" ] || { echo "run.sh: $B/bench/$p missing (make bench)" >&2; exit 1; }
done

if [ $QUICK = 1 ]; then
    SCALE=21; EF=8; DIM=128; LIMIT=256MB; LIMIT_BYTES=268435456
    NB_HB=24; NB_1=3; NB_MMAP=3; NB_PEER=3; FIO_SECS=3; NB_CACHE=10; CACHE_SIZE=4MB
else
    SCALE=23; EF=16; DIM=128; LIMIT=1GB; LIMIT_BYTES=1073741824
    NB_HB=60; NB_1=5; NB_MMAP=5; NB_PEER=60; FIO_SECS=10; NB_CACHE=10; CACHE_SIZE=16MB
fi
DATA=$ROOT/bench/data/s$SCALE-e$EF-d$DIM
mkdir -p "$DATA"
log() { echo "== $*" >&2; }

# a database from before edge ids (no link row possible) is imported again
if [ -f "$DATA/done" ] &&
   ! "$B/gnndb" "$DATA/g.gnndb" "DESCRIBE g;" 2>/dev/null | grep -q '^edge_ids|1$'; then
    log "$DATA/g.gnndb predates edge ids: importing it again"
    rm -f "$DATA/done"
fi
if [ ! -f "$DATA/done" ]; then
    log "generating R-MAT scale $SCALE, edge factor $EF, dim $DIM into $DATA"
    "$B/bench/gen" --scale $SCALE --edge-factor $EF --seed 1 \
        --out "$DATA/edges.bin" --features "$DATA/feat.npy" --dim $DIM >&2 || exit 1
    rm -rf "$DATA/g.gnndb"
    log "importing into gnndb"
    t0=$(date +%s.%N)
    "$B/gnndb" "$DATA/g.gnndb" "CREATE GRAPH g FROM '$DATA/edges.bin' FORMAT bin NODES $((1 << SCALE));
        IMPORT FEATURES feat INTO g FROM '$DATA/feat.npy';" >&2 || exit 1
    t1=$(date +%s.%N)
    echo "$t0 $t1" | awk '{printf "%.1f\n", $2 - $1}' > "$DATA/import_seconds"
    touch "$DATA/done"
fi
DB=$DATA/g.gnndb
RES=$ROOT/bench/results
[ $QUICK = 1 ] && RES=$ROOT/bench/results/quick
FEATBLK=$(ls -S "$DB"/f-*.blk | head -1)

field() { echo "$1" | tr ' ' '\n' | awk -F= -v k="$2" '$1 == k { print $2 }'; }
drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true; }
# planner_h DB SQL: the HYPERBATCH the plan of SQL has under memory_limit
planner_h() {
    "$B/gnndb" "$1" "PRAGMA memory_limit='$LIMIT'; EXPLAIN $2;" |
        sed -n 's/^HYPERBATCH \([0-9]*\).*/\1/p' | head -1
}

# Run a command inside a cgroup v1 memory group of LIMIT_BYTES (page cache
# included). Falls back to no limit, and says so, where there is none.
CG=/sys/fs/cgroup/memory/gnndb-bench-$$
in_cgroup() {
    if mkdir -p "$CG" 2>/dev/null &&
       echo "$LIMIT_BYTES" > "$CG/memory.limit_in_bytes" 2>/dev/null; then
        sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG" "$@"
    else
        log "no cgroup v1 memory controller: running without a memory limit"
        "$@"
    fi
}
cleanup() { [ -d "$CG" ] && rmdir "$CG" 2>/dev/null; }
trap cleanup EXIT

SQL="SAMPLE 10,10,10 FROM g FEATURES feat BATCH 1024 SHUFFLE SEED 1"

log "fio: sequential O_DIRECT 1 MiB reads of the feature file"
FIO=$(sh "$ROOT/bench/fio.sh" "$FEATBLK" $FIO_SECS 2>/dev/null | tail -1 | sed 's/FIO_BW_MBPS=//')
FIO=${FIO:-0}

log "memcpy bandwidth"
MEMCPY=$("$B/bench/memcpy_bw" | tail -1 | sed 's/MEMCPY_GBPS=//')
log "CRC32C bandwidth (the checksum of every block read)"
CRC=$("$B/bench/crc_bw" | tail -1)

# The hyperbatch row: the planner's H under this memory_limit (it spills
# each mini-batch's rows when that reads less), two whole rounds of it, so
# that a round's reads of the graph and of every feature block are spread
# over its H mini-batches as they are over an epoch
H_PLAN=$(planner_h "$DB" "$SQL")
NB_PLAN=$((2 * ${H_PLAN:-$((NB_HB / 2))}))
log "gnndb, the planner's HYPERBATCH $H_PLAN ($NB_PLAN mini-batches, memory_limit $LIMIT)"
drop_caches
HB=$("$B/bench/bench_sample" "$DB" "PRAGMA memory_limit='$LIMIT'; $SQL LIMIT $NB_PLAN;") || exit 1
log "gnndb HYPERBATCH 1 ($NB_1 mini-batches, memory_limit $LIMIT)"
drop_caches
H1=$("$B/bench/bench_sample" "$DB" "PRAGMA memory_limit='$LIMIT'; $SQL HYPERBATCH 1 LIMIT $NB_1;") || exit 1
log "gnndb in-memory work, one thread"
ONE=$("$B/bench/bench_sample" "$DB" "PRAGMA memory_limit='$LIMIT'; PRAGMA threads = 1; $SQL LIMIT $NB_HB;") || exit 1

# The link row: edge-seeded batches (SAMPLE ... EDGES) of 1024 seed edges,
# one negative each, their seed edges excluded from the neighbourhoods, at
# the planner's H under the same memory_limit, two whole rounds of it. The
# seed edges: a random thousandth of the graph's edges (an edge split).
"$B/gnndb" "$DB" "DROP SPLIT lp_train ON g;" > /dev/null 2>&1
"$B/gnndb" "$DB" "CREATE EDGE SPLITS lp_train ON g RANDOM 0.001 SEED 1;" > /dev/null || exit 1
LSQL="SAMPLE 10,10,10 FROM g FEATURES feat EDGES lp_train BATCH 1024 NEGATIVE 1 EXCLUDE SEEDS SHUFFLE SEED 1"
H_LINK=$(planner_h "$DB" "$LSQL")
NB_LINK=$((2 * ${H_LINK:-8}))
log "gnndb link batches, the planner's HYPERBATCH $H_LINK ($NB_LINK mini-batches, memory_limit $LIMIT)"
drop_caches
LK=$("$B/bench/bench_sample" "$DB" "PRAGMA memory_limit='$LIMIT'; $LSQL LIMIT $NB_LINK;") || exit 1

# The typed row: the same edges and rows cut into three node types (paper,
# author, field by id range: random samples, since bench/gen permutes ids)
# and nine relations by their endpoints' types (bench/typed_data.py); each
# node samples up to 5, 3 and 2 in-neighbours from the paper, author and
# field relations into its type (10 a hop, as the node row), three hops,
# seeds every paper; two rounds of the planner's H, memory_limit as above.
TDIR=$DATA/typed
TDB=$TDIR/t.gnndb
if [ ! -f "$TDIR/done" ]; then
    log "typed graph: three node types and nine relations from $DATA"
    rm -rf "$TDIR" && mkdir -p "$TDIR"
    /usr/bin/python3 "$ROOT/bench/typed_data.py" --edges "$DATA/edges.bin" \
        --features "$DATA/feat.npy" --scale $SCALE --out "$TDIR" > "$TDIR/counts" || exit 1
    TSQL="CREATE GRAPH t;"
    while read -r name count; do
        TSQL="$TSQL CREATE NODES $name IN t COUNT $count;"
    done < "$TDIR/counts"
    for a in paper author field; do
        for b in paper author field; do
            TSQL="$TSQL CREATE RELATION ${a}_$b IN t FROM $a TO $b FROM '$TDIR/${a}_$b.bin' FORMAT bin;"
        done
        TSQL="$TSQL IMPORT FEATURES feat INTO t.$a FROM '$TDIR/$a.npy';"
    done
    t0=$(date +%s.%N)
    "$B/gnndb" "$TDB" "$TSQL" >&2 || exit 1
    t1=$(date +%s.%N)
    echo "$t0 $t1" | awk '{printf "%.1f\n", $2 - $1}' > "$TDIR/import_seconds"
    rm -f "$TDIR"/*.bin "$TDIR"/*.npy
    touch "$TDIR/done"
fi
TMAP=""
for b in paper author field; do
    TMAP="$TMAP${TMAP:+, }paper_$b: 5, author_$b: 3, field_$b: 2"
done
TQ="SAMPLE {$TMAP} * 3 FROM t SEEDS paper.ALL BATCH 1024 SHUFFLE SEED 1"
H_TYPED=$(planner_h "$TDB" "$TQ")
NB_TYPED=$((2 * ${H_TYPED:-8}))
log "gnndb typed batches, the planner's HYPERBATCH $H_TYPED ($NB_TYPED mini-batches, memory_limit $LIMIT)"
drop_caches
TY=$("$B/bench/bench_sample" "$TDB" "PRAGMA memory_limit='$LIMIT'; $TQ LIMIT $NB_TYPED;") || exit 1

# Packs (offline sampling, as DiskGNN): the same $NB_HB mini-batches stored
# with INTO PACK (time and size on disk), then streamed back with SCAN PACK
# from a cold cache; compared with the HYPERBATCH 1024 row, which sampled
# the same batches online.
log "gnndb INTO PACK ($NB_HB mini-batches), then SCAN PACK"
"$B/gnndb" "$DB" "DROP PACK bench_pack;" > /dev/null 2>&1
t0=$(date +%s.%N)
PKROW=$("$B/gnndb" -csv -noheader "$DB" "PRAGMA memory_limit='$LIMIT'; $SQL HYPERBATCH 1024 LIMIT $NB_HB INTO PACK bench_pack;" | tail -1) || exit 1
t1=$(date +%s.%N)
PK_BUILD=$(echo "$t0 $t1" | awk '{printf "%.2f", $2 - $1}')
PK_BYTES=$(echo "$PKROW" | awk -F, '{print $4}')
drop_caches
PK=$("$B/bench/bench_sample" "$DB" "SCAN PACK bench_pack;") || exit 1
"$B/gnndb" "$DB" "DROP PACK bench_pack;" > /dev/null || exit 1

# the cache rows: 2 hops so that a mini-batch (about 15k rows at --quick)
# leaves room for the belady lookahead under the same memory_limit, and a
# cache smaller than the rows the run touches, so that policies differ
log "feature cache policies (HYPERBATCH 1, cache $CACHE_SIZE, $NB_CACHE mini-batches, memory_limit $LIMIT)"
CACHE=$("$B/bench/bench_cache" "$DB" "$CACHE_SIZE" "PRAGMA memory_limit='$LIMIT'; SAMPLE 10,10 FROM g FEATURES feat BATCH 1024 HYPERBATCH 1 SHUFFLE SEED 1 LIMIT $NB_CACHE;") || exit 1

log "mmap baseline ($NB_MMAP mini-batches, cgroup limit $LIMIT)"
drop_caches
MM=$(in_cgroup "$B/bench/baseline_mmap" --edges "$DATA/edges.bin" --features "$DATA/feat.npy" \
    --fanouts 10,10,10 --batch 1024 --batches $NB_MMAP --seed 1 --drop-cache 2>/dev/null | tail -1)

# The peers, each set-up as its users run it, and gnndb in its two forms
# (memory_limit equal to the group) and packed, at this point's budget
# (bench/sweep.py: every run in a fresh cgroup of LIMIT_BYTES, page cache
# dropped first); then the sweep over budgets at scale 21 (1/8 to 16x of
# its 1 GiB of features) unless --quick
mkdir -p "$ROOT/bench/results"
log "peers at the default point: gnndb (planner's H, HYPERBATCH 1024), DGL (classic, graphbolt) x (workers, threads; MADV_RANDOM; strict), mmap x 3"
DGL_PY=${DGL_PYTHON:-$ROOT/bench/venv/bin/python}
# --quick: the user's set-ups only (dgl with no workers and one thread,
# mmap), gnndb's forms cut at NB_HB mini-batches, 60 s a run at most
PEERS_ONLY=""; TIMEOUT=480; QUICK_ARGS=""
[ $QUICK = 1 ] && { PEERS_ONLY="--only gnndb,gnndb_pack,dgl,mmap"; TIMEOUT=60
    QUICK_ARGS="--gnndb-max-batches $NB_HB --gnndb-timeout 60 --dgl-workers 0 --dgl-threads 1"; }
[ -n "$PEERS" ] && PEERS_ONLY="--only $PEERS"
DEF=$(/usr/bin/python3 "$ROOT/bench/sweep.py" --build "$B" --csv "$RES/default.csv" \
    --point "s$SCALE:$DATA:$LIMIT_BYTES" --gnndb-batches $NB_HB --gnndb-rounds 2 \
    --peer-batches $NB_PEER --dgl-python "$DGL_PY" \
    --timeout $TIMEOUT $QUICK_ARGS $PEERS_ONLY) || exit 1
if [ $QUICK = 0 ]; then
    SW=$ROOT/bench/data/s21-e16-d128
    if [ ! -f "$SW/done" ]; then
        log "generating R-MAT scale 21, edge factor 16 into $SW (the sweep's graph)"
        mkdir -p "$SW"
        "$B/bench/gen" --scale 21 --edge-factor 16 --seed 1 --out "$SW/edges.bin" \
            --features "$SW/feat.npy" --dim 128 >&2 || exit 1
        rm -rf "$SW/g.gnndb"
        "$B/gnndb" "$SW/g.gnndb" "CREATE GRAPH g FROM '$SW/edges.bin' FORMAT bin NODES 2097152;
            IMPORT FEATURES feat INTO g FROM '$SW/feat.npy';" >&2 || exit 1
        touch "$SW/done"
    fi
    log "sweep: scale 21 at 128 MiB, 256 MiB, 512 MiB and 1 GiB (out of core), 4 GiB and 16 GiB (in memory)"
    SWEEP=$(/usr/bin/python3 "$ROOT/bench/sweep.py" --build "$B" --csv "$RES/sweep-s21.csv" \
        --point s21:$SW:128M --point s21:$SW:256M --point s21:$SW:512M --point s21:$SW:1G \
        --point s21:$SW:4G --point s21:$SW:16G \
        --gnndb-batches 128 --gnndb-rounds 2 --peer-batches 60 --dgl-python "$DGL_PY" \
        --timeout 240 $PEERS_ONLY) || exit 1
    { cat "$RES/sweep-s21.csv"; tail -n +2 "$RES/default.csv"; } > "$RES/sweep.csv"
    /usr/bin/python3 "$ROOT/bench/sweep.py" --replot "$RES/sweep.csv" --png "$RES/sweep.png"
else
    SWEEP=$DEF
fi
DEFS=$(echo "$DEF" | grep '^SWEEP')
SWS=$(echo "$SWEEP" | grep '^SWEEP')

row() { # name result
    printf "%-28s %10s %14s %14s %12s %10s\n" "$1" "$(field "$2" batches_per_s)" \
        "$(field "$2" edges_per_s)" "$(field "$2" bytes_read)" \
        "$(field "$2" blocks_read)" "$(field "$2" read_mbps)"
}
echo
echo "graph: 2^$SCALE nodes, $((EF << SCALE)) edges, dim $DIM float32; memory_limit $LIMIT; import $(cat "$DATA/import_seconds") s"
printf "%-28s %10s %14s %14s %12s %10s\n" configuration batches/s "sampled edges/s" "bytes read" "blocks read" "read MB/s"
row "gnndb planner's H=$(field "$HB" hyperbatch)" "$HB"
row "gnndb HYPERBATCH 1" "$H1"
row "gnndb SCAN PACK" "$PK"
row "gnndb link H=$(field "$LK" hyperbatch)" "$LK"
row "gnndb typed H=$(field "$TY" hyperbatch)" "$TY"
row "mmap baseline" "$MM"
printf "%-28s %10s %14s %14s %12s %10s\n" "fio seq O_DIRECT 1 MiB" "" "" "" "" "$FIO"
echo "every system at this budget, each in a cgroup of $LIMIT (bench/sweep.py):"
echo "$DEF"
if [ $QUICK = 0 ]; then
    echo "sweep at scale 21 (bench/results/sweep.csv, sweep.png):"
    echo "$SWEEP"
fi
echo "in memory, one thread: $(field "$ONE" sample_edges_per_cpu_s) sampled edges/s; gather $(field "$ONE" gather_gbps) GB/s vs memcpy $MEMCPY GB/s"
echo "block checksum, one thread: CRC32C $(field "$CRC" CRC32C_GBPS) GB/s (one crc32 stream $(field "$CRC" ONE_STREAM_GBPS) GB/s, byte table $(field "$CRC" TABLE_GBPS) GB/s)"
echo "feature cache $CACHE_SIZE, SAMPLE 10,10 BATCH 1024 HYPERBATCH 1, $NB_CACHE mini-batches:"
echo "$CACHE"

echo "$PK_BUILD $PK_BYTES $(field "$PK" batches_per_s) $(field "$HB" batches_per_s)" | awk '{
    printf "PACK build_s=%s bytes=%s pack_batches_per_s=%s online_batches_per_s=%s speedup=%.2f\n",
        $1, $2, $3, $4, ($4 > 0) ? $3 / $4 : 0 }'
echo "TYPED batches_per_s=$(field "$TY" batches_per_s) hyperbatch=$(field "$TY" hyperbatch) batches=$(field "$TY" batches) import_s=$(cat "$TDIR/import_seconds") (3 node types, 9 relations, SAMPLE {5,3,2 per relation into a type} * 3, BATCH 1024 papers)"
echo "LINK batches_per_s=$(field "$LK" batches_per_s) hyperbatch=$(field "$LK" hyperbatch) batches=$(field "$LK" batches) node_batches_per_s=$(field "$HB" batches_per_s) (SAMPLE 10,10,10 EDGES, BATCH 1024 seed edges, NEGATIVE 1, EXCLUDE SEEDS)"
awk -v hbb="$(field "$HB" bytes_read)" -v hbn="$(field "$HB" batches)" \
    -v h1b="$(field "$H1" bytes_read)" -v h1n="$(field "$H1" batches)" \
    -v hbs="$(field "$HB" seconds)" -v hbw="$(field "$HB" spill_written)" \
    -v hbsr="$(field "$HB" spill_read)" \
    -v hbr="$(field "$HB" batches_per_s)" -v h1r="$(field "$H1" batches_per_s)" \
    -v mmr="$(field "$MM" batches_per_s)" -v dg="$(field "$DEFS" dgl_speedup_min)" \
    -v dmin="$(field "$SWS" dgl_speedup_min)" -v sov="$(field "$SWS" spill_overhead)" \
    -v sov0="$(field "$DEFS" spill_overhead)" \
    -v bw="$(field "$HB" read_mbps)" -v fio="$FIO" \
    -v eps="$(field "$ONE" sample_edges_per_cpu_s)" \
    -v g="$(field "$ONE" gather_gbps)" -v m="$MEMCPY" \
    -v inmem="$(field "$SWS" dgl_speedup_inmem)" \
    -v rss="$(field "$DEFS" rss_over_limit_max) $(field "$SWS" rss_over_limit_max)" \
    -v rows_rss="$(for r in "$HB" "$H1" "$ONE" "$LK" "$TY"; do field "$r" maxrss_kb; done | tr '\n' ' ')" \
    -v limit="$LIMIT_BYTES" -v quick=$QUICK \
    -v kills0="$(field "$DEFS" gnndb_oom_killed)" -v kills="$(field "$SWS" gnndb_oom_killed)" 'BEGIN {
    ratio = (hbb > 0 && hbn > 0 && h1n > 0) ? (h1b / h1n) / (hbb / hbn) : 0
    # dgl_speedup: gnndb over the fastest DGL set-up at this point, the lower
    # of its two forms; dgl_speedup_min: the lowest such ratio over the
    # sweep and this point
    if (dg != "NA" && (dmin == "NA" || dg + 0 < dmin + 0)) dmin = dg
    if (sov0 + 0 > sov + 0) sov = sov0
    if (inmem == "") inmem = "NA"
    # rss_over_limit_max: peak RSS minus memory_limit, in MiB, over the rows
    # above (memory_limit LIMIT_BYTES) and every gnndb run of sweep.py
    over = "NA"
    n = split(rows_rss, kb, " ")
    for (i = 1; i <= n; i++)
        if (kb[i] != "" && (over == "NA" || (kb[i] * 1024 - limit) / 1048576 > over + 0))
            over = (kb[i] * 1024 - limit) / 1048576
    n = split(rss, r, " ")
    for (i = 1; i <= n; i++)
        if (r[i] != "NA" && (over == "NA" || r[i] + 0 > over + 0)) over = r[i] + 0
    if (over != "NA") over = sprintf("%.1f", over)
    # gnndb runs a group killed (with --quick the sweep is this point)
    k = kills0 + (quick ? 0 : kills)
    s1 = (h1r > 0) ? hbr / h1r : 0
    s2 = (mmr > 0) ? hbr / mmr : 0
    # everything the run moved through the disk (blocks and pages of the
    # database, runs written to the spill area and read back) per second
    f1 = (fio > 0 && hbs > 0) ? (hbb + hbw + hbsr) / hbs / 1e6 / fio : 0
    f2 = (m > 0) ? g / m : 0
    printf "SUMMARY hb_block_ratio=%.2f hb_speedup=%.2f mmap_speedup=%.2f dgl_speedup=%s bw_fraction=%.2f edges_per_s_core=%.0f gather_fraction=%.2f dgl_speedup_min=%s spill_overhead=%s dgl_speedup_inmem=%s rss_over_limit_max=%s gnndb_oom_killed=%d\n",
        ratio, s1, s2, dg, f1, eps, f2, dmin, sov, inmem, over, k
}'
