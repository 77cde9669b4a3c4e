"""sweep.py — gnndb against its peers over a sweep of memory budgets, every
system measured in this one run, each under a cgroup v1 memory group of the
budget (page cache included).

    /usr/bin/python3 bench/sweep.py --build build --csv OUT.csv [--png OUT.png]
        --point LABEL:DATA_DIR:BUDGET [--point ...] [--gnndb-batches N]
        [--gnndb-rounds R] [--gnndb-max-batches N] [--peer-batches N]
        [--gnndb-inmem-batches N]
        [--only SYSTEM,...] [--dgl-python PY] [--timeout S]
        [--gnndb-timeout S] [--dgl-workers LIST] [--dgl-threads LIST]
        [--dgl-gathers LIST]

DATA_DIR holds what bench/run.sh makes: edges.bin (int64 pairs), feat.npy
(float32, one row a node) and g.gnndb (graph g, feature table feat).  BUDGET
is bytes, or a number with K/M/G (binary units).  A point whose budget holds
feat.npy twice over is an in-memory point (at scale 21, with 1 GiB of
features: the 4 GiB and 16 GiB points); the others are out-of-core points
(1/8 to 1x of the features).  Each point runs:

  gnndb        bench/bench_sample, the whole process inside the group, with
               PRAGMA memory_limit EQUAL to the group's size (what a user
               with a container of that size writes), SAMPLE 10,10,10 ...
               BATCH 1024 SHUFFLE SEED 1 in two forms: setup "planner's H"
               (HYPERBATCH left to the planner, which spills when that is
               cheaper) and setup "HYPERBATCH 1024" (as the docs and the
               README write it).  Each form runs --gnndb-rounds R whole
               rounds of the H that EXPLAIN shows for that form under the
               budget (a LIMIT that cuts a round short measures a round's
               fixed reads over fewer mini-batches than an epoch spreads
               them over), else --gnndb-batches, at most --gnndb-max-batches
               (0: no cap); at in-memory points whole rounds enough for
               --gnndb-inmem-batches (default 400); at most --gnndb-timeout
               seconds.  The row says
               the H taken, the bytes spilled and read back, and the
               process's peak RSS (bench_sample's maxrss_kb) against
               memory_limit
  gnndb_nohot  (only when --only names it) each gnndb form again with
               PRAGMA feature_cache = 0: the spill's runs hold every row,
               the reference of the same run for the hot rows
  gnndb_pack   SCAN PACK of the same batches, stored once per graph with
               INTO PACK (outside the timing, under a 1 GiB limit; it writes
               the pack into DATA_DIR's database), read back inside the
               group with memory_limit the group's size

and, at an out-of-core point, the peers as their users run them:

  dgl          bench/dgl_baseline.py: the graph built in RAM first, then the
               process joins the group, features through
               np.load(mmap_mode='r') with its default advice, each batch's
               rows read in sorted id order; every combination of sampler
               (classic NeighborSampler, dgl.graphbolt), DataLoader workers
               (--dgl-workers, default 0 and 1) and threads (--dgl-threads,
               default 1 and the machine's cores)
  dgl_random   the same with MADV_RANDOM on the map (classic, graphbolt;
               1 thread, no workers)
  dgl_strict   the whole process inside the group (interpreter, torch and
               graph count against the budget), default advice (classic,
               graphbolt; 1 thread, no workers)
  mmap, mmap_random, mmap_strict
               the same three set-ups of bench/baseline_mmap (C, CSC in RAM,
               features from the mapped .npy)

or, at an in-memory point, DGL in its best in-memory set-up:

  dgl_inmem    bench/dgl_baseline.py --features-in ram: the graph built in RAM
               first, then the process joins the group and reads feat.npy
               whole into memory (np.load without mmap, a torch tensor; the
               read is timed apart, as the graph's build is); every
               combination of sampler, workers and threads as for dgl, and
               of gather (--dgl-gathers, default sorted, direct and
               pipeline: rows in sorted id order, torch.index_select in
               input order, or DGL's own loader fetching them:
               prefetch_node_feats, graphbolt's fetch_feature)

Every peer runs --peer-batches mini-batches (default 60), at most --timeout
seconds.  The page cache is dropped before every run, and every run gets a
fresh group, so no run inherits another's pages.  Whether the group killed a
run is read from the group itself, not guessed from the exit code: a run is
oom-killed when the oom_kill counter of the group's memory.oom_control rose
(memory.failcnt, the times usage hit the limit, is recorded beside it: page
cache reclaimed at the limit counts there too, so it is no kill); a run
stopped at its time limit is a timeout; a gnndb run that exits refusing the
budget in words naming memory_limit is refused.  A DGL run that sampled
more than 5% fewer edges a batch than the most any DGL run sampled at its
point is set aside ("less work": the classic and graphbolt samplers sample
within 1% of each other, but DGL 2.1's classic sampler with 2 threads and
no workers sampled half the edges): it is not faster at the same work.

One CSV row per run: label, budget_bytes, system, setup, memory_limit
(gnndb: the PRAGMA, equal to the budget), batches_per_s, status, batches,
sampled_edges, peak_bytes (the group's memory.max_usage_in_bytes),
maxrss_bytes (the process's peak RSS: bench_sample's maxrss_kb, else
wait4's ru_maxrss), rss_over_limit_mib (gnndb: maxrss_bytes minus
memory_limit, in MiB), oom_kills, failcnt, hyperbatch, spill_bytes
(written + read back), x_bytes, seconds.  The last stdout line is

    SWEEP dgl_speedup_min=R at=LABEL:BUDGET
          dgl_speedup_min_planner=R at_planner=.. dgl_speedup_min_hb1024=R
          at_hb1024=.. dgl_speedup_inmem=R inmem_at=LABEL:BUDGET
          dgl_speedup_inmem_planner=R dgl_speedup_inmem_hb1024=R
          rss_over_limit_max=MIB rss_over_limit_at=LABEL:BUDGET:FORM
          gnndb_oom_killed=N spill_overhead=R

dgl_speedup_min_F: the lowest, over the out-of-core points where some DGL
set-up ran, of gnndb's batches/s in form F (planner's H, HYPERBATCH 1024)
over the fastest DGL set-up's there; a form that did not serve its batches
(oom-killed, refused, failed, timed out) counts as 0 batches/s.
dgl_speedup_min: the lower of the two.  dgl_speedup_inmem_F: the same ratio
at the largest in-memory point (16x at scale 21); dgl_speedup_inmem the
lower of the two.  rss_over_limit_max: the largest peak RSS minus
memory_limit over every gnndb run (both forms and SCAN PACK, at every
point), in MiB, negative when all stayed under.  gnndb_oom_killed: gnndb
runs the group killed.  spill_overhead: the highest, over gnndb's runs, of
spilled plus read-back bytes per byte of x delivered.  A figure with no run
to compute it from is NA.
"""
import argparse
import csv
import itertools
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

CG_ROOT = "/sys/fs/cgroup/memory"
SQL = "SAMPLE 10,10,10 FROM g FEATURES feat BATCH 1024 SHUFFLE SEED 1"
# gnndb's two forms at every point: (setup, key in the SWEEP line, clause)
FORMS = [("planner's H", "planner", ""), ("HYPERBATCH 1024", "hb1024", " HYPERBATCH 1024")]
INMEM_FACTOR = 2  # a budget holding the features this many times over: in memory
WORK_TOLERANCE = 0.05  # a DGL run sampling this much less than the most: set aside
SAMPLERS = ("classic", "graphbolt")
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
MIB = 1 << 20


def parse_size(text):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]?)(?:i?B)?", text.strip(), re.I)
    if not m:
        raise argparse.ArgumentTypeError("not a size: %r" % text)
    return int(float(m[1]) * UNITS[m[2].upper()])


def fmt_size(n):
    for u, f in (("GiB", 1 << 30), ("MiB", MIB)):
        if abs(n) >= f:
            return "%g %s" % (round(n / f, 3), u)
    return "%d B" % n


def int_list(text):
    try:
        return sorted(set(int(x) for x in text.split(",") if x.strip()))
    except ValueError:
        raise argparse.ArgumentTypeError("not a comma-separated list of integers: %r" % text)


def parse_args():
    cores = os.cpu_count() or 1
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default="build")
    p.add_argument("--csv", default="")
    p.add_argument("--replot", default="", help="only plot this CSV into --png")
    p.add_argument("--png", default="")
    p.add_argument("--point", action="append", default=[],
                   help="LABEL:DATA_DIR:BUDGET")
    p.add_argument("--gnndb-batches", type=int, default=128)
    p.add_argument("--gnndb-rounds", type=int, default=0,
                   help="run this many rounds of each form's H")
    p.add_argument("--gnndb-inmem-batches", type=int, default=400,
                   help="at in-memory points, at least this many (whole rounds)")
    p.add_argument("--gnndb-max-batches", type=int, default=0,
                   help="at most this many mini-batches a gnndb run (0: no cap)")
    p.add_argument("--peer-batches", type=int, default=60)
    p.add_argument("--only", default="", help="comma-separated systems")
    p.add_argument("--dgl-python", default="bench/venv/bin/python")
    p.add_argument("--timeout", type=int, default=240, help="seconds a peer's run may take")
    p.add_argument("--gnndb-timeout", type=int, default=900,
                   help="seconds a gnndb run may take")
    p.add_argument("--dgl-workers", type=int_list, default=[0, 1],
                   help="DataLoader workers to try (comma-separated)")
    p.add_argument("--dgl-threads", type=int_list, default=int_list("1,%d" % cores),
                   help="torch/OpenMP threads to try (comma-separated)")
    p.add_argument("--dgl-gathers", default="sorted,direct,pipeline",
                   help="gathers to try at in-memory points (dgl_baseline.py --gather)")
    a = p.parse_args()
    a.points = []
    for pt in a.point:
        label, data, budget = pt.rsplit(":", 2)
        a.points.append((label, data, parse_size(budget)))
    a.only = set(x for x in a.only.split(",") if x)
    a.dgl_gathers = [x for x in a.dgl_gathers.split(",") if x]
    if not a.replot and (not a.csv or not a.points):
        p.error("--csv and at least one --point are needed")
    # bench_sample links the library statically: one older than it would
    # measure the engine as it was
    lib, bench = (os.path.join(a.build, x) for x in ("libgnndb.a", "bench/bench_sample"))
    if not a.replot and os.path.exists(lib) and os.path.exists(bench) and \
            os.path.getmtime(bench) < os.path.getmtime(lib):
        p.error("%s is older than %s: rebuild it (make %s)" % (bench, lib, bench))
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

    def read(self, name):
        with open(os.path.join(self.path, name)) as f:
            return f.read()

    def peak(self):
        return int(self.read("memory.max_usage_in_bytes"))

    def failcnt(self):
        return int(self.read("memory.failcnt"))

    def oom_kills(self):
        """Processes the kernel's OOM killer took from this group (the
        oom_kill line of memory.oom_control), or None on a kernel without
        that counter."""
        for line in self.read("memory.oom_control").splitlines():
            k, _, v = line.partition(" ")
            if k == "oom_kill":
                return int(v)
        return None

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


def wait_rusage(p, timeout):
    """Wait for Popen p at most `timeout` seconds, then kill its session.
    Returns (exit code as subprocess gives it, ru_maxrss in bytes, timed out):
    wait4 reports the peak RSS of a run that printed nothing, a killed one
    included."""
    deadline = time.monotonic() + timeout
    timed_out = False
    try:
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                os.killpg(p.pid, signal.SIGKILL)
                pid, status, ru = os.wait4(p.pid, 0)
                timed_out = True
                break
            time.sleep(0.05)
    except BaseException:  # the sweep itself stopped: leave no run behind in a group
        os.killpg(p.pid, signal.SIGKILL)
        os.wait4(p.pid, 0)
        raise
    p.returncode = os.waitstatus_to_exitcode(status)
    try:
        os.killpg(p.pid, signal.SIGKILL)  # what it left behind (a killed loader's workers)
    except ProcessLookupError:
        pass
    return p.returncode, ru.ru_maxrss * 1024, timed_out


def run_in_group(limit, argv, join_inside, log, timeout):
    """Run argv under a fresh group of `limit` bytes: the whole process
    (join_inside False) or with --join-cgroup DIR added, the program joining
    once its graph is built.  A run past `timeout` seconds is killed (a peer
    whose reads stall under the budget would otherwise hold the sweep for
    hours).  Returns a dict: status, res (RESULT fields), peak, maxrss,
    oom_kills, failcnt."""
    drop_caches()
    g = Group(limit)
    try:
        if join_inside:
            argv = argv + ["--join-cgroup", g.path]
            pre = None
        else:
            pre = g.join_fn()
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            t0 = time.perf_counter()
            p = subprocess.Popen(argv, stdout=out, stderr=err, text=True, preexec_fn=pre,
                                 start_new_session=True)
            rc, maxrss, timed_out = wait_rusage(p, timeout)
            secs = time.perf_counter() - t0
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read(), err.read()
        kills, failcnt, peak = g.oom_kills(), g.failcnt(), g.peak()
        res = [fields(l) for l in stdout.splitlines() if l.startswith("RESULT")]
        res = res[-1] if res else {}
        if "maxrss_kb" in res:
            maxrss = int(res["maxrss_kb"]) * 1024
        log.write("$ %s\n# exit %d, %.1f s%s; group: oom_kill %s, failcnt %d, peak %d; "
                  "peak RSS %d\n%s%s\n"
                  % (" ".join(argv), rc, secs, ", timed out" if timed_out else "",
                     "n/a" if kills is None else kills, failcnt, peak, maxrss,
                     stdout[-2000:], stderr[-4000:]))
        log.flush()
        if kills:
            status = "oom-killed"
        elif timed_out:
            status = "timeout (>%d s)" % timeout
        elif rc == 0 and res:
            status = "ok"
        elif kills is None and (rc in (137, -9) or "Killed" in stderr):
            status = "oom-killed"  # the exit code is all an old kernel tells
        elif rc in (137, -9):
            status = "killed (signal 9, not by the group)"
        elif "memory_limit" in stderr:
            status = "refused"
        else:
            status = "failed (exit %d)" % rc
        return dict(status=status, res=res if status == "ok" else {}, peak=peak,
                    maxrss=maxrss, oom_kills=kills, failcnt=failcnt)
    finally:
        g.close()


def planned_hyperbatch(a, db, budget, sql, log):
    """The H the planner takes for sql under memory_limit `budget` (EXPLAIN's
    HYPERBATCH line), or 0 when EXPLAIN does not say."""
    shell = os.path.join(a.build, "gnndb")
    q = "PRAGMA memory_limit='%d'; EXPLAIN %s;" % (budget, sql)
    p = subprocess.run([shell, "-readonly", db, q], capture_output=True, text=True)
    m = re.search(r"^HYPERBATCH (\d+)", p.stdout, re.M)
    log.write("$ %s -readonly %s %s\n# exit %d: %s\n" % (shell, db, q, p.returncode,
                                                        m[0] if m else p.stderr[-500:]))
    return int(m[1]) if m else 0


def online_batches(a, db, budget, sql, log):
    """Mini-batches of a gnndb form's run: --gnndb-rounds whole rounds of
    its H, else --gnndb-batches; at most --gnndb-max-batches."""
    h = planned_hyperbatch(a, db, budget, sql, log) if a.gnndb_rounds > 0 else 0
    n = a.gnndb_rounds * h if h > 0 else a.gnndb_batches
    n = inmem_batches(a, db, budget, h, n)
    return min(n, a.gnndb_max_batches) if a.gnndb_max_batches > 0 else n


# In memory, the planner keeps every block in its pools and builds rounds of
# a few mini-batches a thread: two such rounds would time little more than
# reading the database into the pools. There gnndb runs whole rounds
# enough for --gnndb-inmem-batches (as DGL, whose graph and features are
# loaded before its timing starts, runs --peer-batches).
def inmem_batches(a, db, budget, h, n):
    if h <= 0 or not in_memory(os.path.dirname(db), budget):
        return n
    return max(n, -(-a.gnndb_inmem_batches // h) * h)


def gnndb_runs(a, data, budget, log):
    """(system, setup, memory_limit, run) of gnndb's runs at a point."""
    db = os.path.join(data, "g.gnndb")
    bench = os.path.join(a.build, "bench", "bench_sample")
    if want(a, "gnndb"):
        for setup, _, clause in FORMS:
            sql = SQL + clause
            n = online_batches(a, db, budget, sql, log)
            q = "PRAGMA memory_limit='%d'; %s LIMIT %d;" % (budget, sql, n)
            yield "gnndb", setup, budget, run_in_group(budget, [bench, db, q], False, log,
                                                       a.gnndb_timeout)
    # the reference of the same run for the spill's hot rows: each form
    # again with PRAGMA feature_cache = 0 (runs hold every row)
    if "gnndb_nohot" in a.only:
        for setup, _, clause in FORMS:
            sql = SQL + clause
            n = online_batches(a, db, budget, sql, log)
            q = "PRAGMA memory_limit='%d'; PRAGMA feature_cache = 0; %s LIMIT %d;" % (
                budget, sql, n)
            yield "gnndb_nohot", setup, budget, run_in_group(budget, [bench, db, q], False,
                                                             log, a.gnndb_timeout)
    if want(a, "gnndb_pack") and ensure_pack(a, db, log):
        q = "PRAGMA memory_limit='%d'; SCAN PACK sweep_pack;" % budget
        yield "gnndb_pack", "SCAN PACK", budget, run_in_group(budget, [bench, db, q], False, log,
                                                              a.gnndb_timeout)


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


def in_memory(data, budget):
    """Whether a point's budget holds its features INMEM_FACTOR times over."""
    return budget >= INMEM_FACTOR * os.path.getsize(os.path.join(data, "feat.npy"))


def peer_setups(a, inmem):
    """(system, setup, program, joins after build, extra arguments) of every
    peer run at a point: in memory, dgl_inmem's grid; else the out-of-core
    set-ups, dgl's grid first."""
    grid = [(s, w, t) for s in SAMPLERS for w in a.dgl_workers for t in a.dgl_threads]
    if inmem:
        for (s, w, t), gth in itertools.product(grid, a.dgl_gathers):
            yield ("dgl_inmem", "%s, features in RAM, %d workers, %d threads, gather %s" % (s, w, t, gth),
                   "dgl", True, ["--sampler", s, "--workers", str(w), "--threads", str(t),
                                 "--gather", gth, "--features-in", "ram"])
        return
    for s, w, t in grid:
        yield ("dgl", "%s, default advice, %d workers, %d threads" % (s, w, t), "dgl", True,
               ["--sampler", s, "--workers", str(w), "--threads", str(t), "--advice", "normal"])
    for s in SAMPLERS:
        yield ("dgl_random", "%s, MADV_RANDOM" % s, "dgl", True,
               ["--sampler", s, "--workers", "0", "--threads", "1", "--advice", "random"])
    for s in SAMPLERS:
        yield ("dgl_strict", "%s, whole process" % s, "dgl", False,
               ["--sampler", s, "--workers", "0", "--threads", "1", "--advice", "normal"])
    yield ("mmap", "default advice", "mmap", True, ["--advice", "normal"])
    yield ("mmap_random", "MADV_RANDOM", "mmap", True, ["--advice", "random"])
    yield ("mmap_strict", "whole process", "mmap", False, ["--advice", "normal"])


def peer_runs(a, data, budget, log):
    """(system, setup, memory_limit, run) of the peers' runs at a point."""
    common = ["--edges", os.path.join(data, "edges.bin"), "--features", os.path.join(data, "feat.npy"),
              "--fanouts", "10,10,10", "--batch", "1024", "--batches", str(a.peer_batches),
              "--seed", "1", "--drop-cache"]
    for system, setup, prog, join, extra in peer_setups(a, in_memory(data, budget)):
        if not want(a, system):
            continue
        if prog == "dgl":
            if not os.access(a.dgl_python, os.X_OK):
                yield system, setup, None, dict(status="not installed (make bench-peers)", res={},
                                                peak=0, maxrss=None, oom_kills=None, failcnt=None)
                continue
            argv = [a.dgl_python, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                               "dgl_baseline.py")]
        else:
            argv = [os.path.join(a.build, "bench", "baseline_mmap")]
        yield system, setup, None, run_in_group(budget, argv + common + extra, join, log, a.timeout)


def want(a, system):
    return not a.only or system in a.only


def spill_bytes(r):
    return int(r.get("spill_written", 0)) + int(r.get("spill_read", 0))


def row_of(label, budget, system, setup, limit, run):
    r = run["res"]
    over = ""
    if limit is not None and run["maxrss"]:
        over = "%.1f" % ((run["maxrss"] - limit) / MIB)
    return dict(label=label, budget_bytes=budget, system=system, setup=setup,
                memory_limit="" if limit is None else limit,
                batches_per_s=r.get("batches_per_s", ""), status=run["status"],
                batches=r.get("batches", ""), sampled_edges=r.get("sampled_edges", ""),
                peak_bytes=run["peak"],
                maxrss_bytes="" if run["maxrss"] is None else run["maxrss"],
                rss_over_limit_mib=over,
                oom_kills="" if run["oom_kills"] is None else run["oom_kills"],
                failcnt="" if run["failcnt"] is None else run["failcnt"],
                hyperbatch=r.get("hyperbatch", ""),
                spill_bytes=spill_bytes(r) if "spill_written" in r else "",
                x_bytes=r.get("x_bytes", r.get("bytes_x", "")),
                seconds=r.get("seconds", ""))


def check_work(rows):
    """Set aside the DGL runs of a point that sampled more than
    WORK_TOLERANCE fewer edges a batch than the most any DGL run sampled
    there: with the same fanouts and seeds a set-up that samples less does
    less work, so it is not faster (a sampler cannot take more than its
    fanouts, so the most is the reference).  Returns those rows, their
    status now saying why."""
    work = [(r, int(r["sampled_edges"]) / int(r["batches"])) for r in rows
            if r["system"].startswith("dgl") and r["status"] == "ok" and r["sampled_edges"]
            and int(r["batches"] or 0) > 0]
    most = max((w for _, w in work), default=0)
    odd = []
    for r, w in work:
        if w < (1 - WORK_TOLERANCE) * most:
            r["status"] = "less work (%.0f edges a batch, against %.0f)" % (w, most)
            odd.append(r)
    return odd


def main():
    a = parse_args()
    # stopped from outside, end the run in flight and remove its group
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
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
            kind = "in memory" if in_memory(data, budget) else "out of core"
            print("== %s, budget %s (%s)" % (label, fmt_size(budget), kind), file=sys.stderr, flush=True)
            for system, setup, limit, run in itertools.chain(gnndb_runs(a, data, budget, log),
                                                             peer_runs(a, data, budget, log)):
                rows.append(row_of(label, budget, system, setup, limit, run))
                print_row(rows[-1])
            for r in check_work([r for r in rows if r["label"] == label and r["budget_bytes"] == budget]):
                print("%-6s %10s  %-10s %-62s excluded: %s" % (
                    label, fmt_size(budget), r["system"], r["setup"], r["status"]), flush=True)
    if not rows:
        sys.exit("sweep.py: no run (--only %s)" % ",".join(sorted(a.only)))
    with open(a.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    if a.png:
        plot(rows, a.png)
    print(summary(rows, a.points))


def print_row(r):
    extra = ""
    if r["system"].startswith("gnndb"):
        if r["status"] == "ok" and r["system"] == "gnndb":
            extra += " H=%s spilled+read %s" % (r["hyperbatch"], fmt_size(int(r["spill_bytes"] or 0)))
        if r["maxrss_bytes"] != "":
            extra += "; peak RSS %s, %+.1f MiB over memory_limit" % (
                fmt_size(int(r["maxrss_bytes"])), float(r["rss_over_limit_mib"]))
    if r["oom_kills"] not in ("", 0):
        extra += "; oom_kill %s" % r["oom_kills"]
    print("%-6s %10s  %-10s %-62s %8s b/s  %-16s group peak %s%s" % (
        r["label"], fmt_size(r["budget_bytes"]), r["system"], r["setup"],
        r["batches_per_s"] or "-", r["status"], fmt_size(r["peak_bytes"]), extra), flush=True)


def at(label, budget):
    return "%s:%s" % (label, fmt_size(budget).replace(" ", ""))


def best_dgl(rows, label, budget):
    """The fastest DGL set-up's batches/s at a point, or None when none ran."""
    rates = [float(r["batches_per_s"]) for r in rows
             if r["label"] == label and r["budget_bytes"] == budget and r["status"] == "ok"
             and r["system"].startswith("dgl")]
    return max(rates) if rates else None


def form_rate(rows, label, budget, setup):
    """gnndb's batches/s in a form at a point: 0 when it did not serve its
    batches, None when it was not run."""
    mine = [r for r in rows if r["label"] == label and r["budget_bytes"] == budget
            and r["system"] == "gnndb" and r["setup"] == setup]
    if not mine:
        return None
    return float(mine[0]["batches_per_s"]) if mine[0]["status"] == "ok" else 0.0


def run_key(r):
    """A gnndb row's name in the SWEEP line: its form's key, or pack."""
    keys = {setup: key for setup, key, _ in FORMS}
    return keys.get(r["setup"], "pack") if r["system"] == "gnndb" else "pack"


def fmt_ratio(x):
    return "NA" if x is None else "%.2f" % x


def summary(rows, points):
    out = []
    # dgl_speedup_min over the out-of-core points, per form, then the lower
    worst = {}
    for setup, key, _ in FORMS:
        lo, lo_at = None, "NA"
        for label, data, budget in points:
            d, g = best_dgl(rows, label, budget), form_rate(rows, label, budget, setup)
            if in_memory(data, budget) or d is None or g is None:
                continue
            if lo is None or g / d < lo:
                lo, lo_at = g / d, at(label, budget)
        worst[key] = (lo, lo_at)
    got = [v for v in worst.values() if v[0] is not None]
    lo = min(got) if got else (None, "NA")
    out += ["dgl_speedup_min=%s" % fmt_ratio(lo[0]), "at=%s" % lo[1]]
    for _, key, _ in FORMS:
        out += ["dgl_speedup_min_%s=%s" % (key, fmt_ratio(worst[key][0])),
                    "at_%s=%s" % (key, worst[key][1])]
    # dgl_speedup_inmem at the largest in-memory point, per form, then the lower
    inmem = [(budget, label) for label, data, budget in points if in_memory(data, budget)]
    per = {key: None for _, key, _ in FORMS}
    where = "NA"
    if inmem:
        budget, label = max(inmem)
        where = at(label, budget)
        d = best_dgl(rows, label, budget)
        for setup, key, _ in FORMS:
            g = form_rate(rows, label, budget, setup)
            if d is not None and g is not None:
                per[key] = g / d
    got = [v for v in per.values() if v is not None]
    out += ["dgl_speedup_inmem=%s" % fmt_ratio(min(got) if got else None), "inmem_at=%s" % where]
    out += ["dgl_speedup_inmem_%s=%s" % (key, fmt_ratio(per[key])) for _, key, _ in FORMS]
    # peak RSS against memory_limit over every gnndb run; kills; spill
    over, over_at = None, "NA"
    kills, overhead = 0, 0.0
    for r in rows:
        if not r["system"].startswith("gnndb"):
            continue
        if r["rss_over_limit_mib"] != "" and (over is None or float(r["rss_over_limit_mib"]) > over):
            over = float(r["rss_over_limit_mib"])
            over_at = "%s:%s" % (at(r["label"], r["budget_bytes"]), run_key(r))
        if r["status"] == "oom-killed":
            kills += 1
        if r["status"] == "ok" and r["system"] == "gnndb" and r["x_bytes"]:
            overhead = max(overhead, int(r["spill_bytes"]) / int(r["x_bytes"]))
    out += ["rss_over_limit_max=%s" % ("NA" if over is None else "%.1f" % over),
                "rss_over_limit_at=%s" % over_at, "gnndb_oom_killed=%d" % kills,
                "spill_overhead=%.2f" % overhead]
    return "SWEEP " + " ".join(out)


def series_key(r):
    """The plot's line of a row: gnndb's by system and form, a peer's by
    system and the first word of its set-up (classic, graphbolt, ...)."""
    if r["system"] == "gnndb":
        return "gnndb (%s)" % r["setup"]
    if r["system"] == "gnndb_nohot":
        return "gnndb, no hot rows (%s)" % r["setup"]
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
            ax.plot(xs, ys, style, label=key, linewidth=2.5 if key.startswith("gnndb (") else 1.2)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("memory budget (GiB, cgroup limit incl. page cache; gnndb's memory_limit)")
        ax.set_ylabel("mini-batches/s (SAMPLE 10,10,10 BATCH 1024)")
        ax.set_title("%s: batches/s against the budget, a peer's best set-up "
                     "(a missing point: killed or timed out)" % label, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
