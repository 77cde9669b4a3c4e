"""sweep.py — gnndb against its peers over a sweep of memory budgets, every
system measured in this one run, each under a cgroup v1 memory group of the
budget (page cache included).

    /usr/bin/python3 bench/sweep.py --build build --csv OUT.csv [--png OUT.png]
        --point LABEL:DATA_DIR:BUDGET [--point ...] [--gnndb-batches N]
        [--gnndb-rounds R] [--peer-batches N] [--only SYSTEM,...]
        [--dgl-python PY]

DATA_DIR holds what bench/run.sh makes: edges.bin (int64 pairs), feat.npy
(float32, one row a node) and g.gnndb (graph g, feature table feat).  BUDGET
is bytes, or a number with K/M/G (binary units).  Each point runs:

  gnndb        bench/bench_sample, the whole process inside the group,
               PRAGMA memory_limit = 85% of BUDGET, SAMPLE 10,10,10 ... BATCH 1024
               SHUFFLE SEED 1 with HYPERBATCH left to the planner (it spills
               when that is cheaper); the row says the H it took and the
               bytes spilled and read back.  --gnndb-rounds R runs R whole
               rounds of the H that EXPLAIN shows under the budget (a
               LIMIT that cuts a round short measures a round's fixed reads
               over fewer mini-batches than an epoch spreads them over);
               else --gnndb-batches
  gnndb_pack   SCAN PACK of the same batches, stored once per graph with
               INTO PACK (outside the timing, under a 1 GiB limit), read back
               inside the group
  dgl          bench/dgl_baseline.py as a user runs it: the graph built in
               RAM first, then the process joins the group, features through
               np.load(mmap_mode='r') with its default advice; once with the
               classic NeighborSampler and once with dgl.graphbolt
  dgl_random   the same with MADV_RANDOM on the map
  dgl_strict   the whole process inside the group (interpreter, torch and
               graph count against the budget), default advice
  mmap, mmap_random, mmap_strict
               the same three set-ups of bench/baseline_mmap (C, CSC in RAM,
               features from the mapped .npy)

The page cache is dropped before every run, and every run gets a fresh group,
so no run inherits another's pages.  A run the group kills is reported as
oom-killed; one that refuses the budget, as refused.

One CSV row per run: label, budget_bytes, system, setup, batches_per_s,
status, peak_bytes (the group's memory.max_usage_in_bytes), hyperbatch,
spill_bytes (written + read back), x_bytes, seconds.  The last stdout line is
    SWEEP dgl_speedup_min=R at=LABEL:BUDGET spill_overhead=R
where dgl_speedup_min is the lowest, over the points where some DGL set-up
ran, of gnndb's batches/s over the fastest DGL set-up's, and spill_overhead
the highest, over the points, of gnndb's spilled plus read-back bytes per
byte of x delivered.
"""
import argparse
import csv
import itertools
import os
import re
import subprocess
import sys
import time

CG_ROOT = "/sys/fs/cgroup/memory"
SQL = "SAMPLE 10,10,10 FROM g FEATURES feat BATCH 1024 SHUFFLE SEED 1"
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_size(text):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]?)(?:i?B)?", text.strip(), re.I)
    if not m:
        raise argparse.ArgumentTypeError("not a size: %r" % text)
    return int(float(m[1]) * UNITS[m[2].upper()])


def fmt_size(n):
    for u, f in (("GiB", 1 << 30), ("MiB", 1 << 20)):
        if n >= f:
            return "%g %s" % (round(n / f, 3), u)
    return "%d B" % n


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default="build")
    p.add_argument("--csv", default="")
    p.add_argument("--replot", default="", help="only plot this CSV into --png")
    p.add_argument("--png", default="")
    p.add_argument("--point", action="append", default=[],
                   help="LABEL:DATA_DIR:BUDGET")
    p.add_argument("--gnndb-batches", type=int, default=128)
    p.add_argument("--gnndb-rounds", type=int, default=0,
                   help="run this many rounds of the planner's H online")
    p.add_argument("--peer-batches", type=int, default=5)
    p.add_argument("--only", default="", help="comma-separated systems")
    p.add_argument("--dgl-python", default="bench/venv/bin/python")
    p.add_argument("--timeout", type=int, default=240, help="seconds a run may take")
    a = p.parse_args()
    a.points = []
    for pt in a.point:
        label, data, budget = pt.rsplit(":", 2)
        a.points.append((label, data, parse_size(budget)))
    a.only = set(x for x in a.only.split(",") if x)
    if not a.replot and (not a.csv or not a.points):
        p.error("--csv and at least one --point are needed")
    return a


def drop_caches():
    os.sync()
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
    except OSError:
        pass


class Group:
    """A fresh cgroup v1 memory group limited to `limit` bytes."""

    def __init__(self, limit):
        self.path = os.path.join(CG_ROOT, "gnndb-sweep-%d-%d" % (os.getpid(), time.monotonic_ns()))
        os.mkdir(self.path)
        with open(os.path.join(self.path, "memory.limit_in_bytes"), "w") as f:
            f.write(str(limit))

    def peak(self):
        with open(os.path.join(self.path, "memory.max_usage_in_bytes")) as f:
            return int(f.read())

    def join_fn(self):
        procs = os.path.join(self.path, "cgroup.procs")

        def join():
            with open(procs, "w") as f:
                f.write(str(os.getpid()))
        return join

    def close(self):
        for _ in range(50):
            try:
                os.rmdir(self.path)
                return
            except OSError:
                time.sleep(0.1)


def fields(line):
    return dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)


def run_in_group(limit, argv, join_inside, log, timeout=240):
    """Run argv under a fresh group: the whole process (join_inside False) or
    with --join-cgroup DIR added, the program joining once its graph is
    built.  A run past `timeout` seconds is killed (a peer whose reads stall
    under the budget would otherwise hold the sweep for hours) and reported
    as a timeout.  Returns (status, RESULT fields, peak bytes)."""
    drop_caches()
    g = Group(limit)
    try:
        if join_inside:
            argv = argv + ["--join-cgroup", g.path]
            pre = None
        else:
            pre = g.join_fn()
        t0 = time.perf_counter()
        try:
            p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, preexec_fn=pre, timeout=timeout)
        except subprocess.TimeoutExpired as t:
            log.write("$ %s\n# timed out after %d s\n%s\n" % (" ".join(argv), timeout,
                                                            (t.stderr or b"")[-2000:]))
            log.flush()
            return "timeout (>%d s)" % timeout, {}, g.peak()
        secs = time.perf_counter() - t0
        res = [l for l in p.stdout.splitlines() if l.startswith("RESULT")]
        log.write("$ %s\n# exit %d, %.1f s\n%s%s\n" % (" ".join(argv), p.returncode, secs,
                                                       p.stdout[-2000:], p.stderr[-4000:]))
        log.flush()
        if p.returncode == 0 and res:
            return "ok", fields(res[-1]), g.peak()
        if p.returncode in (137, -9) or "Killed" in p.stderr:
            return "oom-killed", {}, g.peak()
        if "too small" in p.stderr:
            return "refused", {}, g.peak()
        return "failed (exit %d)" % p.returncode, {}, g.peak()
    finally:
        g.close()


def planned_hyperbatch(a, db, budget, log):
    """The H the planner takes for SQL under `budget` (EXPLAIN's HYPERBATCH
    line), or 0 when EXPLAIN does not say."""
    shell = os.path.join(a.build, "gnndb")
    q = "PRAGMA memory_limit='%d'; EXPLAIN %s;" % (engine_limit(budget), SQL)
    p = subprocess.run([shell, db, q], capture_output=True, text=True)
    m = re.search(r"^HYPERBATCH (\d+)", p.stdout, re.M)
    log.write("$ %s %s\n# exit %d: %s\n" % (shell, q, p.returncode,
                                          m[0] if m else p.stderr[-500:]))
    return int(m[1]) if m else 0


def online_batches(a, db, budget, log):
    """Mini-batches of the online row: --gnndb-rounds whole rounds, else
    --gnndb-batches."""
    h = planned_hyperbatch(a, db, budget, log) if a.gnndb_rounds > 0 else 0
    return a.gnndb_rounds * h if h > 0 else a.gnndb_batches


def gnndb_runs(a, label, data, budget, log):
    db = os.path.join(data, "g.gnndb")
    bench = os.path.join(a.build, "bench", "bench_sample")
    if want(a, "gnndb"):
        n = online_batches(a, db, budget, log)
        q = "PRAGMA memory_limit='%d'; %s LIMIT %d;" % (engine_limit(budget), SQL, n)
        yield ("gnndb", "online, planner's H") + run_in_group(budget, [bench, db, q], False, log,
                                                              a.timeout)
    if want(a, "gnndb_pack") and ensure_pack(a, db, log):
        q = "PRAGMA memory_limit='%d'; SCAN PACK sweep_pack;" % engine_limit(budget)
        yield ("gnndb_pack", "SCAN PACK") + run_in_group(budget, [bench, db, q], False, log,
                                                         a.timeout)


def engine_limit(budget):
    """PRAGMA memory_limit for a group of `budget` bytes: the engine's data
    gets 85%; code, stacks, SQLite's page cache and the allocator's slack
    (RSS measured up to 10% over the engine's count at 128 MiB) the rest."""
    return budget * 85 // 100


def ensure_pack(a, db, log):
    """Store the gnndb row's batches once per graph as pack sweep_pack."""
    shell = os.path.join(a.build, "gnndb")
    stamp = "%s LIMIT %d" % (SQL, a.gnndb_batches)
    mark = os.path.join(os.path.dirname(db), "sweep_pack.query")  # what the pack holds
    if os.path.exists(mark) and open(mark).read() == stamp:
        return True
    subprocess.run([shell, db, "DROP PACK sweep_pack;"], capture_output=True)
    p = subprocess.run([shell, db, "PRAGMA memory_limit='1GB'; %s INTO PACK sweep_pack;" % stamp],
                       capture_output=True, text=True)
    log.write("$ INTO PACK sweep_pack\n# exit %d\n%s\n" % (p.returncode, p.stderr[-2000:]))
    if p.returncode != 0:
        return False
    with open(mark, "w") as f:
        f.write(stamp)
    return True


PEERS = [  # system, setup, program, joins after build, extra arguments
    ("dgl", "classic, default advice", "dgl", True, ["--sampler", "classic", "--advice", "normal"]),
    ("dgl", "graphbolt, default advice", "dgl", True, ["--sampler", "graphbolt", "--advice", "normal"]),
    ("dgl_random", "classic, MADV_RANDOM", "dgl", True, ["--sampler", "classic", "--advice", "random"]),
    ("dgl_random", "graphbolt, MADV_RANDOM", "dgl", True, ["--sampler", "graphbolt", "--advice", "random"]),
    ("dgl_strict", "classic, whole process", "dgl", False, ["--sampler", "classic", "--advice", "normal"]),
    ("dgl_strict", "graphbolt, whole process", "dgl", False, ["--sampler", "graphbolt", "--advice", "normal"]),
    ("mmap", "default advice", "mmap", True, ["--advice", "normal"]),
    ("mmap_random", "MADV_RANDOM", "mmap", True, ["--advice", "random"]),
    ("mmap_strict", "whole process", "mmap", False, ["--advice", "normal"]),
]


def peer_runs(a, data, budget, log):
    common = ["--edges", os.path.join(data, "edges.bin"), "--features", os.path.join(data, "feat.npy"),
              "--fanouts", "10,10,10", "--batch", "1024", "--batches", str(a.peer_batches),
              "--seed", "1", "--drop-cache"]
    for system, setup, prog, join, extra in PEERS:
        if not want(a, system):
            continue
        if prog == "dgl":
            if not os.access(a.dgl_python, os.X_OK):
                yield (system, setup, "not installed (make bench-peers)", {}, 0)
                continue
            argv = [a.dgl_python, os.path.join(os.path.dirname(__file__), "dgl_baseline.py")]
        else:
            argv = [os.path.join(a.build, "bench", "baseline_mmap")]
        yield (system, setup) + run_in_group(budget, argv + common + extra, join, log, a.timeout)


def want(a, system):
    return not a.only or system in a.only


def spill_bytes(r):
    return int(r.get("spill_written", 0)) + int(r.get("spill_read", 0))


def main():
    a = parse_args()
    if a.replot:
        with open(a.replot, newline="") as f:
            rows = list(csv.DictReader(f))
        for r in rows:
            r["budget_bytes"] = int(r["budget_bytes"])
        plot(rows, a.png)
        return
    if not os.path.isdir(CG_ROOT):
        sys.exit("sweep.py: no cgroup v1 memory controller at %s" % CG_ROOT)
    os.makedirs(os.path.dirname(os.path.abspath(a.csv)), exist_ok=True)
    rows = []
    with open(a.csv + ".log", "w") as log:
        for label, data, budget in a.points:
            print("== %s, budget %s" % (label, fmt_size(budget)), file=sys.stderr, flush=True)
            for system, setup, status, r, peak in itertools.chain(
                    gnndb_runs(a, label, data, budget, log), peer_runs(a, data, budget, log)):
                rows.append(dict(label=label, budget_bytes=budget, system=system, setup=setup,
                                 batches_per_s=r.get("batches_per_s", ""), status=status,
                                 peak_bytes=peak, hyperbatch=r.get("hyperbatch", ""),
                                 spill_bytes=spill_bytes(r) if r else "",
                                 x_bytes=r.get("x_bytes", r.get("bytes_x", "")),
                                 seconds=r.get("seconds", "")))
                print_row(rows[-1])
                log.flush()
    with open(a.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    if a.png:
        plot(rows, a.png)
    print(summary(rows, a.points))


def print_row(r):
    extra = ""
    if r["system"] == "gnndb" and r["status"] == "ok":
        extra = " H=%s spilled+read %s" % (r["hyperbatch"], fmt_size(int(r["spill_bytes"] or 0)))
    print("%-6s %10s  %-11s %-26s %8s b/s  %-12s peak %s%s" % (
        r["label"], fmt_size(r["budget_bytes"]), r["system"], r["setup"],
        r["batches_per_s"] or "-", r["status"], fmt_size(r["peak_bytes"]), extra), flush=True)


def best(rows, label, budget, prefix):
    rates = [float(r["batches_per_s"]) for r in rows
             if r["label"] == label and r["budget_bytes"] == budget and r["status"] == "ok"
             and r["system"].startswith(prefix)]
    return max(rates) if rates else None


def summary(rows, points):
    worst, at, overhead = None, "NA", 0.0
    for label, _, budget in points:
        online = [r for r in rows if r["label"] == label and r["budget_bytes"] == budget
                  and r["system"] == "gnndb" and r["status"] == "ok"]
        d = best(rows, label, budget, "dgl")
        if online and d:
            ratio = float(online[0]["batches_per_s"]) / d
            if worst is None or ratio < worst:
                worst, at = ratio, "%s:%s" % (label, fmt_size(budget).replace(" ", ""))
        if online and online[0]["x_bytes"]:
            overhead = max(overhead, int(online[0]["spill_bytes"]) / int(online[0]["x_bytes"]))
    return "SWEEP dgl_speedup_min=%s at=%s spill_overhead=%.2f" % (
        "NA" if worst is None else "%.2f" % worst, at, overhead)


def series_key(r):
    """The plot's line of a row: gnndb's by system, a peer's by system and
    the first word of its set-up (classic, graphbolt, ...)."""
    if r["system"].startswith("gnndb"):
        return r["system"]
    return "%s (%s)" % (r["system"], r["setup"].split(",")[0])


def plot(rows, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        print("sweep.py: no plot (%s; apt-get install python3-matplotlib)" % e, file=sys.stderr)
        return
    labels = sorted(set(r["label"] for r in rows), key=lambda l: [r["label"] for r in rows].index(l))
    fig, axes = plt.subplots(1, len(labels), figsize=(8.5 * len(labels), 4.8), squeeze=False)
    for ax, label in zip(axes[0], labels):
        mine = [r for r in rows if r["label"] == label]
        budgets = sorted(set(r["budget_bytes"] for r in mine))
        series = []
        for r in mine:
            if series_key(r) not in series:
                series.append(series_key(r))
        for key in series:
            xs, ys = [], []
            for b in budgets:
                v = [float(r["batches_per_s"]) for r in mine if r["budget_bytes"] == b and r["status"] == "ok"
                     and series_key(r) == key]
                if v:
                    xs.append(b / (1 << 30))
                    ys.append(max(v))
            style = "-o" if key.startswith("gnndb") else "--."
            ax.plot(xs, ys, style, label=key, linewidth=2.5 if key == "gnndb" else 1.2)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("memory budget (GiB, cgroup limit incl. page cache)")
        ax.set_ylabel("mini-batches/s (SAMPLE 10,10,10 BATCH 1024)")
        ax.set_title("%s: batches/s against the budget (a missing point: killed or timed out)" % label,
                     fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
