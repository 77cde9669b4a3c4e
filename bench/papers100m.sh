#!/bin/sh
# bench/papers100m.sh — a papers100M-sized run: an R-MAT graph of 2^26 nodes
# and 1.68 B edges with 128-d float16 features, imported and sampled within
# a 4 GiB memory budget on one disk. Not part of `make bench`: it needs
# about 50 GB of free disk and half an hour or more.
#
#   sh bench/papers100m.sh [options]
#
#   --scale S         2^S nodes (default 26: 67 M nodes)
#   --edge-factor F   F * 2^S edges (default 25: 1.68 B edges)
#   --dim D           feature width (default 128)
#   --dtype T         float16 (default) or float32: the features' dtype
#   --budget B        PRAGMA memory_limit and import_memory (default 4GB)
#   --batches N       mini-batches sampled online (default 64; LIMIT caps
#                     the hyperbatch, so 1179 measures a whole epoch)
#   --pack-batches N  mini-batches stored with INTO PACK, then scanned
#                     (default 64; a pack costs about 70-150 MB a batch)
#   --data DIR        where the inputs and the database go
#                     (default bench/data/p100m)
#   --build DIR       the build directory (default build)
#   --keep            keep the database afterwards (default: delete it)
#   --help            this text
#
# Steps, each timed, with peak RSS from /usr/bin/time -v:
#  1. edges: bench/gen writes them into a FIFO that CREATE GRAPH ... FORMAT
#     bin reads, so the edge list (16 bytes an edge) never lies on disk as a
#     file; the importer's own spill of it does (16 + 8 bytes an edge while
#     it builds), which sets the disk peak. PRAGMA import_memory = budget.
#  2. features: bench/gen writes the .npy (IMPORT FEATURES needs a regular
#     file), IMPORT FEATURES ... STORE <dtype>, and the .npy is deleted.
#     SAMPLE gathers float16 tables (widened to float32 rows); an engine
#     that refuses them (before that) is probed on a tiny graph first, and
#     the run then stores D/2 float32 columns instead, the same bytes a row
#     (the same blocks, reads and rows per block), and says so.
#  3. online: bench_sample, PRAGMA memory_limit = budget;
#     SAMPLE 10,10,10 FROM g FEATURES feat BATCH 1024 SHUFFLE SEED 1 LIMIT N.
#     A spilled plan keeps a round's rows on disk (about 56 MB a mini-batch
#     at the defaults, 25 GB for the epoch's rounds of 457): EXPLAIN's
#     estimate is checked against the free disk first, and PRAGMA
#     spill_limit stops a spill that would leave less than 2 GB.
#  4. packed: the same SAMPLE ... LIMIT M INTO PACK p (timed), then
#     SCAN PACK p through bench_sample from a cold page cache; DROP PACK.
# The page cache is dropped before each timed read (when allowed: root).
# The last line is
#   RESULT key=value ...
# with the import times and peak RSS, batches/s online and packed, and the
# epoch time for papers100M's 1,207,179 training nodes at BATCH 1024
# (1,179 mini-batches) at each rate. Peak RSS (*_rss_mb) is in MiB, as
# /usr/bin/time's kilobytes over 1024.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SCALE=26; EF=25; DIM=128; DTYPE=float16; BUDGET=4GB
NB=64; NPACK=64; DATA=$ROOT/bench/data/p100m; B=build; KEEP=0
TRAIN_BATCHES=1179          # ceil(1,207,179 / 1024): papers100M's training split

die() { echo "papers100m.sh: $*" >&2; exit 1; }
need_arg() { [ $# -ge 2 ] || die "$1 needs a value (see --help)"; }
while [ $# -gt 0 ]; do
    case "$1" in
    --scale) need_arg "$@"; SCALE=$2; shift ;;
    --edge-factor) need_arg "$@"; EF=$2; shift ;;
    --dim) need_arg "$@"; DIM=$2; shift ;;
    --dtype) need_arg "$@"; DTYPE=$2; shift ;;
    --budget) need_arg "$@"; BUDGET=$2; shift ;;
    --batches) need_arg "$@"; NB=$2; shift ;;
    --pack-batches) need_arg "$@"; NPACK=$2; shift ;;
    --data) need_arg "$@"; DATA=$2; shift ;;
    --build) need_arg "$@"; B=$2; shift ;;
    --keep) KEEP=1 ;;
    --help|-h) sed -n '2,49p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
    esac
    shift
done

isint() { case "$1" in ''|*[!0-9]*) return 1 ;; *) return 0 ;; esac; }
for v in "scale:$SCALE" "edge-factor:$EF" "dim:$DIM" "batches:$NB" "pack-batches:$NPACK"; do
    isint "${v#*:}" || die "--${v%%:*} wants a positive integer, not '${v#*:}'"
done
[ "$SCALE" -ge 10 ] && [ "$SCALE" -le 31 ] || die "--scale wants 10..31, not $SCALE"
[ "$EF" -ge 1 ] && [ "$DIM" -ge 2 ] && [ "$NB" -ge 1 ] && [ "$NPACK" -ge 0 ] ||
    die "--edge-factor, --dim and --batches want at least 1 (dim 2)"
case "$DTYPE" in float16|float32) ;; *) die "--dtype wants float16 or float32, not '$DTYPE'" ;; esac
# the budget in bytes, for the checks: 4GB, 512MB, 1024KB (binary units,
# as the engine reads them)
BUDGET_BYTES=$(echo "$BUDGET" | awk '{
    s = toupper($0); m = 1
    if (s ~ /GB$/) m = 1073741824; else if (s ~ /MB$/) m = 1048576; else if (s ~ /KB$/) m = 1024
    sub(/[KMG]?B$/, "", s)
    if (s !~ /^[0-9]+(\.[0-9]+)?$/) { print "bad"; exit }
    printf "%.0f\n", s * m }')
[ "$BUDGET_BYTES" != bad ] || die "--budget wants a size such as 4GB or 512MB, not '$BUDGET'"

B=$(cd "$ROOT" && cd "$B" 2>/dev/null && pwd) || die "no build directory (run make -j2 && make bench)"
GEN=$B/bench/gen; BS=$B/bench/bench_sample; SH=$B/gnndb
for p in "$GEN" "$BS" "$SH"; do
    [ -x "$p" ] || die "$p missing (make -j2 && make bench)"
done
[ -x /usr/bin/time ] || die "/usr/bin/time missing (it measures peak RSS; apt-get install time)"
command -v mkfifo > /dev/null || die "mkfifo missing"
mkdir -p "$DATA" || die "cannot create $DATA"
DATA=$(cd "$DATA" && pwd)

T_START=$(date +%s)
log() { echo "== [$(date -u +%H:%M:%S) +$(( $(date +%s) - T_START ))s] $*"; }
now() { date +%s.%N; }
elapsed() { echo "$1 $2" | awk '{ printf "%.1f", $2 - $1 }'; }
gb() { echo "$1" | awk '{ printf "%.1f", $1 / 1e9 }'; }
rss_mb() { awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$1"; }
drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true; }
avail_bytes() { df -Pk "$DATA" | awk 'NR == 2 { printf "%.0f", $4 * 1024 }'; }
field() { echo "$1" | tr ' ' '\n' | awk -F= -v k="$2" '$1 == k { print $2 }'; }

DB=$DATA/g.gnndb
FIFO=$DATA/edges.fifo
NPY=$DATA/feat.npy
GENPID=
cleanup() {
    [ -n "$GENPID" ] && kill "$GENPID" 2>/dev/null
    rm -f "$FIFO" "$NPY"
    rm -rf "$DATA/probe.gnndb" "$DATA/probe"
    if [ $KEEP = 0 ]; then rm -rf "$DB"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- 0. can SAMPLE gather the asked dtype? A probe on a tiny graph ----------
STORE=$DTYPE; SDIM=$DIM
if [ "$DTYPE" = float16 ]; then
    P=$DATA/probe; rm -rf "$P" "$DATA/probe.gnndb"; mkdir -p "$P"
    "$GEN" --scale 10 --edge-factor 4 --out "$P/e.bin" --features "$P/f.npy" \
        --dim 8 --dtype float16 > /dev/null || die "probe: gen failed"
    "$SH" "$DATA/probe.gnndb" "CREATE GRAPH g FROM '$P/e.bin' FORMAT bin NODES 1024;
        IMPORT FEATURES feat INTO g FROM '$P/f.npy' STORE float16;" > /dev/null ||
        die "probe: IMPORT FEATURES ... STORE float16 failed"
    if ! PROBE=$("$BS" "$DATA/probe.gnndb" "SAMPLE 2 FROM g FEATURES feat BATCH 4 LIMIT 1;" 2>&1); then
        log "float16 tables import (STORE float16) but SAMPLE refuses them:"
        log "  $(echo "$PROBE" | tail -1)"
        [ $((DIM % 2)) = 0 ] || die "--dim must be even to stand in float32 for float16"
        STORE=float32; SDIM=$((DIM / 2))
        log "so this run stores $SDIM float32 columns: the $((DIM * 2)) bytes a row of $DIM float16"
    fi
    rm -rf "$P" "$DATA/probe.gnndb"
fi
ROWB=$((SDIM * 4)); [ $STORE = float16 ] && ROWB=$((SDIM * 2))

# ---- the disk this needs ---------------------------------------------------
# graph: the importer spills the pairs (16 B an edge) and distributes them by
# target (8 B an edge) while it writes the block file (4 B an edge and about
# 24 B a node); features: the .npy and the table at once.
NODES=$((1 << SCALE)); EDGES=$((EF * NODES))
NEED=$(awk -v e=$EDGES -v n=$NODES -v r=$ROWB 'BEGIN {
    g = (4 * e + 24 * n) * 1.02
    gpeak = 24 * e + g
    fpeak = g + 2 * n * r * 1.01
    p = gpeak > fpeak ? gpeak : fpeak
    printf "%.0f %.0f %.0f %.0f\n", p + 2e9, gpeak, fpeak, g + n * r * 1.01 }')
NEED_PEAK=${NEED%% *}
set -- $NEED
AVAIL=$(avail_bytes)
log "R-MAT scale $SCALE: $NODES nodes, $EDGES edges; features $SDIM x $STORE ($ROWB bytes a row); budget $BUDGET"
log "disk: needs about $(gb "$1") GB free at the peak (graph import $(gb "$2") GB, feature import $(gb "$3") GB, database afterwards $(gb "$4") GB, plus 2 GB spare); $DATA has $(gb "$AVAIL") GB"
[ "$AVAIL" -ge "$NEED_PEAK" ] ||
    die "not enough disk: $DATA has $(gb "$AVAIL") GB free, the run needs about $(gb "$NEED_PEAK") GB (lower --scale or --edge-factor, or free space)"

# ---- 1. edges, streamed through a FIFO into CREATE GRAPH --------------------
rm -rf "$DB" "$FIFO"
mkfifo "$FIFO" || die "cannot create the FIFO $FIFO"
log "1/4 CREATE GRAPH from bench/gen through a FIFO (PRAGMA import_memory = '$BUDGET')"
"$GEN" --scale "$SCALE" --edge-factor "$EF" --seed 1 --out "$FIFO" > "$DATA/gen-edges.log" 2>&1 &
GENPID=$!
t0=$(now)
/usr/bin/time -v -o "$DATA/time-graph.txt" "$SH" "$DB" \
    "PRAGMA import_memory = '$BUDGET';
     CREATE GRAPH g FROM '$FIFO' FORMAT bin NODES $NODES WITHOUT EDGE IDS;" > /dev/null
rc=$?
t1=$(now)
# an import that failed before opening the FIFO leaves gen blocked in open()
[ $rc = 0 ] || kill "$GENPID" 2>/dev/null
wait "$GENPID"; grc=$?; GENPID=
rm -f "$FIFO"
[ $rc = 0 ] || die "CREATE GRAPH failed (exit $rc)"
[ $grc = 0 ] || die "gen (edges) failed: $(cat "$DATA/gen-edges.log")"
G_S=$(elapsed "$t0" "$t1"); G_RSS=$(rss_mb "$DATA/time-graph.txt")
log "graph imported in $G_S s, peak RSS $G_RSS MiB; $(cat "$DATA/gen-edges.log")"
GB_FILE=$(du -sk "$DB" | awk '{ printf "%.0f", $1 * 1024 }')

# ---- 2. features: .npy, IMPORT FEATURES, delete the .npy -------------------
log "2/4 features: gen $SDIM x $STORE .npy ($(gb $((NODES * ROWB))) GB), then IMPORT FEATURES ... STORE $STORE"
t0=$(now)
"$GEN" --scale "$SCALE" --seed 1 --features "$NPY" --dim "$SDIM" --dtype "$STORE" ||
    die "gen (features) failed"
t1=$(now)
F_GEN_S=$(elapsed "$t0" "$t1")
drop_caches
t0=$(now)
/usr/bin/time -v -o "$DATA/time-feat.txt" "$SH" "$DB" \
    "IMPORT FEATURES feat INTO g FROM '$NPY' STORE $STORE;" > /dev/null ||
    die "IMPORT FEATURES failed"
t1=$(now)
rm -f "$NPY"
F_S=$(elapsed "$t0" "$t1"); F_RSS=$(rss_mb "$DATA/time-feat.txt")
log "features generated in $F_GEN_S s, imported in $F_S s, peak RSS $F_RSS MiB; .npy deleted"
"$SH" "$DB" "DESCRIBE g;" | grep -E '^(nodes|edges|features)' | sed 's/^/   /'
DB_BYTES=$(du -sk "$DB" | awk '{ printf "%.0f", $1 * 1024 }')
log "database: $(gb "$DB_BYTES") GB (graph $(gb "$GB_FILE") GB)"

# ---- 3. online ---------------------------------------------------------------
# A spill that would fill the disk fails with GNNDB_FULL instead: the spill
# area may take what is free less 2 GB.
SPILL=$(( ($(avail_bytes) - 2000000000) / 1048576 ))
[ "$SPILL" -ge 64 ] || die "less than 2 GB of disk left for the spill area"
SQL="SAMPLE 10,10,10 FROM g FEATURES feat BATCH 1024 SHUFFLE SEED 1"
PRAGMAS="PRAGMA memory_limit = '$BUDGET'; PRAGMA spill_limit = '${SPILL}MB';"
# the planner's choice for these batches, and for a whole epoch of
# papers100M's training batches (LIMIT caps the hyperbatch: a run of N
# batches amortises one pass over the blocks over at most N of them)
EXPLAIN_N=$("$SH" "$DB" "$PRAGMAS EXPLAIN $SQL LIMIT $NB;" 2>&1)
EXPLAIN_E=$("$SH" "$DB" "$PRAGMAS EXPLAIN $SQL LIMIT $TRAIN_BATCHES;" 2>&1)
echo "$EXPLAIN_N" | grep -iE 'hyperbatch|memory_limit' | head -4 | sed 's/^/   LIMIT '"$NB"': /'
echo "$EXPLAIN_E" | grep -iE 'hyperbatch|memory_limit' | head -4 | sed 's/^/   LIMIT '"$TRAIN_BATCHES"': /'
H_EPOCH=$(echo "$EXPLAIN_E" | sed -n 's/^"\{0,1\}HYPERBATCH \([0-9][0-9]*\).*/\1/p' | head -1)
# a spilled round keeps each of its mini-batches' rows on disk until it is
# read back: say so before starting when the disk cannot hold the round
RND=$(echo "$EXPLAIN_N" | sed -n 's/.*rounds of \([0-9][0-9]*\) mini-batches through the spill area (about \([0-9.]*\) MiB each.*/\1 \2/p' | head -1)
if [ -n "$RND" ]; then
    SPILL_NEED=$(echo "$RND $NB" | awk '{ h = $1 < $3 ? $1 : $3; printf "%.0f", h * $2 }')
    log "spill: a round of up to $(echo "$RND $NB" | awk '{ print $1 < $3 ? $1 : $3 }') mini-batches needs about $SPILL_NEED MiB of disk; $SPILL MiB may be used"
    [ "$SPILL_NEED" -le "$SPILL" ] ||
        die "not enough disk for the spill area: a round needs about $SPILL_NEED MiB, $SPILL MiB are free beyond 2 GB (lower --batches)"
fi
log "3/4 online: $SQL LIMIT $NB (memory_limit $BUDGET), cold cache"
drop_caches
ON=$(/usr/bin/time -v -o "$DATA/time-online.txt" "$BS" "$DB" "$PRAGMAS $SQL LIMIT $NB;") ||
    die "online SAMPLE failed"
ON_RSS=$(rss_mb "$DATA/time-online.txt")
H_RUN=$(field "$ON" hyperbatch)
if [ -n "$H_EPOCH" ] && [ "$H_EPOCH" -gt "$H_RUN" ] 2>/dev/null; then
    log "note: an epoch's plan takes HYPERBATCH $H_EPOCH, this run $H_RUN (LIMIT $NB): the epoch time from this rate is pessimistic"
fi
log "online: $ON"
log "online peak RSS $ON_RSS MiB"

# ---- 4. packed -----------------------------------------------------------------
PK_BUILD=0; PK_BYTES=0; PK="batches=0 batches_per_s=0"; PK_RSS=0; PKB_RSS=0
if [ "$NPACK" -gt 0 ]; then
    SPILL=$(( ($(avail_bytes) - 2000000000) / 1048576 ))
    PRAGMAS="PRAGMA memory_limit = '$BUDGET'; PRAGMA spill_limit = '${SPILL}MB';"
    log "4/4 packed: $SQL LIMIT $NPACK INTO PACK p, then SCAN PACK p, cold cache"
    "$SH" "$DB" "DROP PACK p;" > /dev/null 2>&1
    drop_caches
    t0=$(now)
    PKROW=$(/usr/bin/time -v -o "$DATA/time-pack.txt" "$SH" -csv -noheader "$DB" \
        "$PRAGMAS $SQL LIMIT $NPACK INTO PACK p;" | tail -1) || die "INTO PACK failed"
    t1=$(now)
    PK_BUILD=$(elapsed "$t0" "$t1"); PKB_RSS=$(rss_mb "$DATA/time-pack.txt")
    PK_BYTES=$(echo "$PKROW" | awk -F, '{ print $4 }')
    log "pack built in $PK_BUILD s ($(gb "${PK_BYTES:-0}") GB), peak RSS $PKB_RSS MiB"
    drop_caches
    PK=$(/usr/bin/time -v -o "$DATA/time-scan.txt" "$BS" "$DB" "SCAN PACK p;") ||
        die "SCAN PACK failed"
    PK_RSS=$(rss_mb "$DATA/time-scan.txt")
    log "packed: $PK"
    log "scan peak RSS $PK_RSS MiB"
    "$SH" "$DB" "DROP PACK p;" > /dev/null || die "DROP PACK failed"
fi

ONR=$(field "$ON" batches_per_s); PKR=$(field "$PK" batches_per_s)
awk -v s=$SCALE -v n=$NODES -v e=$EDGES -v d=$SDIM -v t=$STORE -v rb=$ROWB \
    -v asked="${DIM}x$DTYPE" -v bud="$BUDGET" -v gs=$G_S -v grss=$G_RSS \
    -v fgs=$F_GEN_S -v fs=$F_S -v frss=$F_RSS -v dbb=$DB_BYTES \
    -v onb=$(field "$ON" batches) -v onr=$ONR -v h=$(field "$ON" hyperbatch) \
    -v onn=$(field "$ON" nodes) -v onrss=$ON_RSS -v sw=$(field "$ON" spill_written) \
    -v np=$(field "$PK" batches) -v pb=$PK_BUILD -v pby=${PK_BYTES:-0} -v pkr=$PKR -v pkrss=$PK_RSS \
    -v pbrss=$PKB_RSS -v tb=$TRAIN_BATCHES -v he=${H_EPOCH:-NA} 'BEGIN {
    ep_on = onr > 0 ? tb / onr : 0
    ep_pk = pkr > 0 ? tb / pkr : 0
    # the first epoch of a packed run samples and writes the pack
    ep_build = np > 0 ? tb * pb / np : 0
    printf "RESULT scale=%d nodes=%d edges=%d features_asked=%s dim=%d store=%s row_bytes=%d budget=%s", s, n, e, asked, d, t, rb, bud
    printf " graph_import_s=%s graph_import_rss_mb=%s feat_gen_s=%s feat_import_s=%s feat_import_rss_mb=%s db_bytes=%s", gs, grss, fgs, fs, frss, dbb
    printf " online_batches=%d online_batches_per_s=%s hyperbatch=%s nodes_per_batch=%.0f spill_written=%s online_rss_mb=%s", onb, onr, h, (onb > 0 ? onn / onb : 0), sw, onrss
    printf " pack_batches=%d pack_build_s=%s pack_bytes=%s pack_build_rss_mb=%s packed_batches_per_s=%s scan_rss_mb=%s", np, pb, pby, pbrss, pkr, pkrss
    printf " train_batches=%d epoch_hyperbatch=%s epoch_online_s=%.0f epoch_packed_s=%.0f epoch_pack_build_s=%.0f\n", tb, he, ep_on, ep_pk, ep_build
}'
