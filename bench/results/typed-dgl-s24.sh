#!/bin/sh
# The typed row at the default point against DGL's heterogeneous peers
# (bench/dgl_hetero.py), in one run: gnndb's typed row (the planner's
# choice, which spills), then each DGL set-up, every row under a fresh
# cgroup v1 memory group of 1 GiB with the page cache dropped before it, and
# the disk's sequential rate (fio) measured beside them; a summary of
# gnndb's batches/s over the fastest DGL set-up's at the end.
#
#   sh bench/results/typed-dgl-s24.sh 2>&1 | tee bench/results/typed-dgl-s24.log
#
# Data: scale 23 (bench/data/s23-e16-d128) from this checkout, or from
# $MAIN (default /work/main) when this checkout has not generated it; the
# typed database t.gnndb from the same place.  DGL reads the typed raw files
# (nine relations' int64 pairs and three types' .npy, bench/typed_data.py),
# which t.gnndb's import deleted: they are written again into a scratch
# directory under this checkout's bench/data if absent (about 6 GB) and
# removed at the end when this run wrote them.
#
# Rows (as bench/sweep.py runs its rows):
#   gnndb         bench_sample, the whole process in the group, PRAGMA
#                 memory_limit at 85 % of it (sweep.py's engine_limit),
#                 HYPERBATCH left to the planner, LIMIT 2 H batches
#   gnndb_1g      the typed row as bench/run.sh and typed-spill-s24.sh run
#                 it: PRAGMA memory_limit='1GB', not in a group
#   dgl ...       bench/dgl_hetero.py, --advice normal (np.load's mapping as
#                 it comes).  First DGL's defaults: _direct, rows gathered in
#                 input order (classic: feat[ids]; graphbolt: its own
#                 TorchBasedFeature.read); then the best options: rows read
#                 in sorted id order (dgl_baseline.py's default), and one
#                 DataLoader worker for the sampling (classic with DGL's
#                 enable_cpu_affinity(), its documented CPU practice).
#                 "join": the graph built first, then the process joins the
#                 group; "whole": started inside it.  Each runs 2 H
#                 batches or DGL_SECONDS (90) seconds of batches, whichever
#                 is fewer, after its graph is built; a run past TIMEOUT
#                 (360 s, the build included) is stopped and reported as a
#                 timeout, one the group kills as oom-killed.
# ONLY="name ..." runs only the rows named (for trying the script out).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd); B=$ROOT/build
MAIN=${MAIN:-/work/main}
SRC=$ROOT/bench/data/s23-e16-d128
[ -f "$SRC/edges.bin" ] && [ -f "$SRC/feat.npy" ] && [ -d "$SRC/typed/t.gnndb" ] || SRC=$MAIN/bench/data/s23-e16-d128
TDB=$SRC/typed/t.gnndb
RAW=$ROOT/bench/data/s23-e16-d128/typed-raw
PY=$ROOT/bench/venv/bin/python; [ -x "$PY" ] || PY=$MAIN/bench/venv/bin/python
CG=/sys/fs/cgroup/memory; BUDGET=$((1 << 30)); ENGINE=$((BUDGET * 85 / 100))
DGL_SECONDS=${DGL_SECONDS:-90}; TIMEOUT=${TIMEOUT:-360}; ONLY=${ONLY:-}
SUM=$(mktemp); OUTF=$(mktemp)
trap 'rm -f "$SUM" "$OUTF"' EXIT
drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }
want() { [ -z "$ONLY" ] || case " $ONLY " in *" $1 "*) return 0;; *) return 1;; esac; }
field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | tail -1; }
others() { echo "# other processes over 5 % CPU:"; ps -eo pcpu=,etime=,args= --sort=-pcpu | awk '$1 > 5' | cut -c1-150 | grep -v " ps -eo" | head -8; }

date; uptime; others
echo "# data $SRC, typed database $TDB, raw files $RAW, python $PY"
TMAP=""; for b in paper author field; do TMAP="$TMAP${TMAP:+, }paper_$b: 5, author_$b: 3, field_$b: 2"; done
TQ="SAMPLE {$TMAP} * 3 FROM t SEEDS paper.ALL BATCH 1024 SHUFFLE SEED 1"

MADE=0
if [ ! -f "$RAW/done" ]; then
  echo "== typed raw files into $RAW (bench/typed_data.py)"
  t0=$(date +%s)
  /usr/bin/python3 "$ROOT/bench/typed_data.py" --edges "$SRC/edges.bin" --features "$SRC/feat.npy" \
    --scale 23 --out "$RAW" || exit 1
  touch "$RAW/done"; MADE=1
  echo "# written in $(( $(date +%s) - t0 )) s: $(du -sh "$RAW" | cut -f1)"
fi

# A fresh group of BUDGET bytes; prints its path.
group() {
  g=$CG/gnndb-typed-dgl-$$-$1; mkdir "$g" && echo $BUDGET > "$g/memory.limit_in_bytes" && echo "$g"
}
ungroup() { for i in 1 2 3 4 5 6 7 8 9 10; do rmdir "$1" 2>/dev/null && return; sleep 0.5; done; }
# row NAME MODE CMD...: MODE join (CMD gets --join-cgroup G), whole (CMD
# starts inside G), or none (no group); prints the output's tail and a ROW line.
row() {
  name=$1; mode=$2; shift 2
  want "$name" || return 0
  echo "== $name ($mode): $*"
  drop_caches
  g=""; [ "$mode" = none ] || g=$(group "$name") || { echo "ROW $name status=no-cgroup"; return; }
  t0=$(date +%s)
  case $mode in
    join)  timeout -k 10 "$TIMEOUT" "$@" --join-cgroup "$g" > "$OUTF" 2>&1 ;;
    whole) timeout -k 10 "$TIMEOUT" sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$g" "$@" > "$OUTF" 2>&1 ;;
    none)  timeout -k 10 "$TIMEOUT" "$@" > "$OUTF" 2>&1 ;;
  esac
  rc=$?; secs=$(( $(date +%s) - t0 ))
  grep -v "DGLWarning\|dgl_warning(" "$OUTF" | tail -6
  res=$(grep "^RESULT" "$OUTF" | tail -1)
  peak=0; kills=0
  if [ -n "$g" ]; then
    peak=$(cat "$g/memory.max_usage_in_bytes")
    kills=$(sed -n 's/^oom_kill //p' "$g/memory.oom_control"); kills=${kills:-0}
    ungroup "$g"
  fi
  if [ $rc -eq 0 ] && [ -n "$res" ]; then st=ok
  elif [ $rc -eq 124 ] || [ $rc -eq 137 -a "$kills" = 0 ]; then st="timeout(>${TIMEOUT}s)"
  elif [ $rc -eq 137 ] || [ "$kills" != 0 ] || grep -q Killed "$OUTF"; then st=oom-killed
  else st="failed(exit $rc)"; fi
  nb=$(field "$res" batches); se=$(field "$res" sampled_edges)
  line="ROW $name status=$st batches_per_s=$(field "$res" batches_per_s) batches=${nb:-0}"
  line="$line edges_per_batch=$( [ -n "$nb" ] && [ "$nb" -gt 0 ] && echo $((se / nb)) )"
  line="$line hyperbatch=$(field "$res" hyperbatch) load_s=$(field "$res" load_s) peak_mib=$((peak >> 20)) wall_s=$secs"
  echo "$line"; echo "$line" >> "$SUM"
}

H=$("$B/gnndb" "$TDB" "PRAGMA memory_limit='$ENGINE'; EXPLAIN $TQ;" | sed -n 's/^HYPERBATCH \([0-9]*\).*/\1/p' | head -1)
H1=$("$B/gnndb" "$TDB" "PRAGMA memory_limit='1GB'; EXPLAIN $TQ;" | sed -n 's/^HYPERBATCH \([0-9]*\).*/\1/p' | head -1)
N=$((2 * ${H:-4})); N1=$((2 * ${H1:-4}))
echo "# planner's H: $H at memory_limit $ENGINE (85 % of the group), $H1 at 1GB; DGL rows: $N1 batches or ${DGL_SECONDS} s"
row gnndb whole "$B/bench/bench_sample" "$TDB" "PRAGMA memory_limit='$ENGINE'; $TQ LIMIT $N;"
row gnndb_1g none "$B/bench/bench_sample" "$TDB" "PRAGMA memory_limit='1GB'; $TQ LIMIT $N1;"
DGL="$PY $ROOT/bench/dgl_hetero.py --dir $RAW --batch 1024 --batches $N1 --seconds $DGL_SECONDS --seed 1 --drop-cache --advice normal"
row dgl_classic_direct join $DGL --sampler classic --gather direct
row dgl_graphbolt_direct join $DGL --sampler graphbolt --gather direct
row dgl_classic join $DGL --sampler classic
row dgl_graphbolt join $DGL --sampler graphbolt
row dgl_classic_w1_affinity join $DGL --sampler classic --workers 1 --affinity
row dgl_graphbolt_w1 join $DGL --sampler graphbolt --workers 1
row dgl_classic_whole whole $DGL --sampler classic
row dgl_graphbolt_whole whole $DGL --sampler graphbolt

if command -v fio > /dev/null && want fio; then
  echo "== fio: sequential 1 MiB O_DIRECT reads, depth 16"
  drop_caches
  fio --name=seq --filename="$ROOT/bench/data/fio.tmp" --size=2G --rw=read --bs=1M --direct=1 --ioengine=io_uring --iodepth=16 --runtime=15 --time_based 2>/dev/null | grep -E "READ:"
  rm -f "$ROOT/bench/data/fio.tmp"
fi
[ $MADE -eq 1 ] && rm -rf "$RAW" && echo "# removed $RAW"
uptime; others; date
echo "== summary (batches/s; edges a batch: gnndb samples each node once, DGL every layer's nodes again)"
cat "$SUM"
awk '$1 == "ROW" {
       for (i = 3; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
       if (f["status"] != "ok") next
       if ($2 == "gnndb") g = f["batches_per_s"]; else if ($2 == "gnndb_1g") g1 = f["batches_per_s"]
       else if (f["batches_per_s"] + 0 > best + 0) { best = f["batches_per_s"]; who = $2 }
     }
     END {
       if (best == "") { print "SUMMARY no DGL set-up ran"; exit }
       printf "SUMMARY fastest_dgl=%s (%s) gnndb=%s ratio=%s gnndb_1g=%s ratio_1g=%s\n", best, who,
         g, (g == "" ? "NA" : sprintf("%.2f", g / best)), g1, (g1 == "" ? "NA" : sprintf("%.2f", g1 / best))
     }' "$SUM"
