#!/bin/sh
# inmem.sh — gnndb against DGL where everything fits in memory, side by
# side. Each round runs every gnndb form and every DGL set-up once, one
# after the other, so that a shared machine's drift falls on all of them
# alike; then each one's batches/s is printed as min, median and max over
# the rounds, with the ratios the in-memory target is stated in: gnndb over
# the fastest DGL set-up (by median), and gnndb with the most threads over
# gnndb with one.
#
#   sh bench/inmem.sh [--data DIR] [--build DIR] [--rounds R] [--batches N]
#                     [--dgl-batches N] [--limit SIZE] [--threads "1 T"]
#                     [--dgl-python PY] [--no-dgl]
#
# --data      a directory made by `make bench` at scale 21: g.gnndb,
#             edges.bin, feat.npy (default bench/data/s21-e16-d128)
# --limit     gnndb's memory_limit (default 16GB: the 1.3 GB database fits
#             many times over, and the planner keeps every block resident)
# --threads   PRAGMA threads of the planner's form; the first is the one
#             the others are compared with (default "1 NPROC")
# gnndb runs build/bench/bench_sample with
#   SAMPLE 10,10,10 FROM g FEATURES feat BATCH 1024 SHUFFLE SEED 1 LIMIT N
# in the planner's H at each thread count, and HYPERBATCH 1024 (as the docs
# write it) at the most threads. Its time starts at the first step, so it
# includes reading the database into the pools.
# DGL runs bench/dgl_baseline.py with --features-in ram (graph and features
# in RAM; building them is not timed) in the set-ups that were fastest in
# memory on this machine kind: the classic sampler with no workers and one
# thread (DGL 2.1's classic sampler with two threads and no workers samples
# half the edges, so it is left out, as bench/sweep.py sets such runs
# aside), with one worker (rows gathered by its loader, or directly), and
# graphbolt with one worker.
#
# The last line is
#   INMEM_SUMMARY dgl_best=SETUP dgl_bps=R gnndb_bps=R dgl_speedup_inmem=R
#                 dgl_speedup_inmem_hb1024=R threads=T1:T2 thread_scaling=R
set -eu
DATA=bench/data/s21-e16-d128
B=build
ROUNDS=3
N=400
DN=150
LIMIT=16GB
THREADS="1 $(nproc)"
PY=${DGL_PYTHON:-bench/venv/bin/python}
DGL=1
while [ $# -gt 0 ]; do
    case $1 in
    --data) DATA=$2; shift 2 ;;
    --build) B=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --batches) N=$2; shift 2 ;;
    --dgl-batches) DN=$2; shift 2 ;;
    --limit) LIMIT=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --dgl-python) PY=$2; shift 2 ;;
    --no-dgl) DGL=0; shift ;;
    *) echo "inmem.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -x "$B/bench/bench_sample" ] || { echo "inmem.sh: no $B/bench/bench_sample (make $B/bench/bench_sample)" >&2; exit 2; }
[ -d "$DATA/g.gnndb" ] || { echo "inmem.sh: no database $DATA/g.gnndb" >&2; exit 2; }
if [ $DGL = 1 ] && ! "$PY" -c 'import dgl' >/dev/null 2>&1; then
    echo "inmem.sh: no DGL in $PY (make bench-peers); gnndb only"; DGL=0
fi
TMAX=$(for t in $THREADS; do echo "$t"; done | sort -n | tail -1)
TMIN=$(echo "$THREADS" | awk '{print $1}')
Q="SAMPLE 10,10,10 FROM g FEATURES feat BATCH 1024 SHUFFLE SEED 1"
OUT=$(mktemp /tmp/inmem.XXXXXX)
trap 'rm -f "$OUT"' EXIT

# field NAME LINE: the value of NAME=... in a RESULT line
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }

# LIMIT in bytes, as gnndb reads it (K, M, G, T are powers of 1024)
limit_bytes() {
    echo "$1" | awk '{ v = $0 + 0; u = toupper(substr($0, match($0, /[KMGTkmgt]/), 1))
        m = 1; if (u == "K") m = 2^10; if (u == "M") m = 2^20
        if (u == "G") m = 2^30; if (u == "T") m = 2^40; printf "%.0f\n", v * m }'
}
# gnndb runs inside a cgroup v1 memory group as large as its memory_limit,
# page cache included, where this machine has one (as root): the limit is
# the container's size, as users set it
CG=/sys/fs/cgroup/memory/gnndb-inmem-$$
if mkdir "$CG" 2>/dev/null; then
    limit_bytes "$LIMIT" > "$CG/memory.limit_in_bytes"
    trap 'rm -f "$OUT"; rmdir "$CG" 2>/dev/null || true' EXIT
else
    CG=
fi

gnndb() { # LABEL PRAGMAS HYPERBATCH-CLAUSE
    sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
    r=$(sh -c '[ -z "$1" ] || echo $$ > "$1/cgroup.procs"; shift; exec "$@"' sh "$CG" \
        "$B/bench/bench_sample" "$DATA/g.gnndb" \
        "PRAGMA memory_limit='$LIMIT'; $2 $Q $3 LIMIT $N;" 2>&1 | grep '^RESULT' || true)
    bps=$(field batches_per_s "$r")
    echo "$1 ${bps:-0} hyperbatch=$(field hyperbatch "$r") maxrss_kb=$(field maxrss_kb "$r")"
    echo "$1 ${bps:-0}" >> "$OUT"
}

dgl() { # LABEL SAMPLER WORKERS THREADS GATHER
    r=$("$PY" bench/dgl_baseline.py --edges "$DATA/edges.bin" \
        --features "$DATA/feat.npy" --features-in ram --sampler "$2" \
        --workers "$3" --threads "$4" --gather "$5" --batches "$DN" \
        --seed 1 2>&1 | grep '^RESULT' || true)
    bps=$(field batches_per_s "$r")
    echo "$1 ${bps:-0} sampled_edges=$(field sampled_edges "$r")"
    echo "$1 ${bps:-0}" >> "$OUT"
}

echo "in memory: $DATA, gnndb memory_limit $LIMIT${CG:+ in a cgroup of $(cat $CG/memory.limit_in_bytes) bytes}, $N batches (DGL $DN), $ROUNDS rounds, $(nproc) cores"
i=1
while [ $i -le "$ROUNDS" ]; do
    echo "round $i ($(uptime | sed 's/.*load/load/'))"
    for t in $THREADS; do gnndb "gnndb_planner_t$t" "PRAGMA threads=$t;" ""; done
    gnndb "gnndb_hb1024_t$TMAX" "PRAGMA threads=$TMAX;" "HYPERBATCH 1024"
    if [ $DGL = 1 ]; then
        dgl dgl_classic_w0_t1_direct classic 0 1 direct
        dgl dgl_classic_w1_t1_pipeline classic 1 1 pipeline
        dgl dgl_classic_w1_t1_direct classic 1 1 direct
        dgl dgl_graphbolt_w1_t1_direct graphbolt 1 1 direct
    fi
    i=$((i + 1))
done

# min, median and max of each label's rates, then the ratios
sort -k1,1 -k2,2n "$OUT" | awk -v tmin="$TMIN" -v tmax="$TMAX" '
    { v[$1, ++n[$1]] = $2 }
    END {
        for (k in n) {
            c = n[k]; med = (c % 2) ? v[k, (c + 1) / 2] : (v[k, c / 2] + v[k, c / 2 + 1]) / 2
            m[k] = med
            printf "INMEM %-30s batches/s min %.2f median %.2f max %.2f (%d runs)\n", k, v[k, 1], med, v[k, c], c
            if (k ~ /^dgl_/ && med > best) { best = med; bestk = k }
        }
        g = m["gnndb_planner_t" tmax]; h = m["gnndb_hb1024_t" tmax]; one = m["gnndb_planner_t" tmin]
        r1 = (best > 0) ? sprintf("%.2f", g / best) : "NA"
        r2 = (best > 0) ? sprintf("%.2f", h / best) : "NA"
        r3 = (one > 0) ? sprintf("%.2f", g / one) : "NA"
        printf "INMEM_SUMMARY dgl_best=%s dgl_bps=%.2f gnndb_bps=%.2f dgl_speedup_inmem=%s dgl_speedup_inmem_hb1024=%s threads=%s:%s thread_scaling=%s\n",
            (bestk != "") ? bestk : "NA", best, g, r1, r2, tmin, tmax, r3
    }'
