"""appends.py — what appending edges costs, measured side by side in one run.

    /usr/bin/python3 bench/appends.py [--scale S] [--edge-factor F]
        [--rounds R] [--batches N] [--small K] [--smalls M] [--dir DIR]
        [--build DIR]

An R-MAT graph from bench/gen (2^S nodes, F * 2^S edges) is created from
all its edges at once (the reference), and from its first 90 % and 50 %
with the rest appended by one INSERT EDGES each, kept as delta segments
(PRAGMA compact_fraction = 1); each appended graph is then copied and
compacted (COMPACT g). Then M appends of K edges each are timed one after
the other on copies of the 90 % graph: with the default compact_fraction
(an append that leaves over a quarter of the blocks in deltas compacts at
once), with compact_fraction 1 (deltas only), and, as a stream whose new
edges point at the newest nodes, K edges whose targets are the last 1 % of
node ids (defaults again).

Printed, each as min / median / max over R rounds:
- CREATE GRAPH of every edge, the two INSERT EDGES and the two COMPACTs,
  in seconds, each over the CREATE's;
- appends per second and appended edges per second of the small appends;
- SAMPLE 10,10,10 ... BATCH 1024 batches/s of the reference (0 % of edges
  in deltas), of each appended graph (10 % and 50 % of its edges appended
  as deltas) and of its compacted copy, and of the 50 % graph AS OF
  VERSION 1, run in turn within each round (the order turned by one
  each round), each over the reference's median. Every appended and compacted graph's batch check must equal the
  reference's (the same batches): the script fails otherwise.

The last line is
  APPENDS_SUMMARY insert10_over_create=R insert50_over_create=R
      compact50_over_create=R appends_per_s=R appends_per_s_deltas=R
      appends_per_s_stream=R read_ratio_10=R read_ratio_50=R
      read_ratio_10c=R read_ratio_50c=R read_ratio_asof=R
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SAMPLE = "SAMPLE 10,10,10 FROM g BATCH 1024 SHUFFLE SEED 1 LIMIT %d%s"


def run(shell, db, sql):
    t0 = time.perf_counter()
    p = subprocess.run([shell, db, sql], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    dt = time.perf_counter() - t0
    if p.returncode:
        sys.exit("appends.py: %s: %s" % (sql, p.stderr.strip()))
    return dt


def sample(bench, db, n, tail=""):
    p = subprocess.run([bench, db, SAMPLE % (n, tail) + ";"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, check=False)
    if p.returncode:
        sys.exit("appends.py: bench_sample: %s" % p.stderr.strip())
    line = [l for l in p.stdout.splitlines() if l.startswith("RESULT ")][0]
    kv = dict(f.split("=", 1) for f in line.split()[1:])
    return float(kv["batches_per_s"]), kv["check"]


def mmm(xs):
    return "%.3f / %.3f / %.3f" % (min(xs), statistics.median(xs), max(xs))


def write_slice(edges, lo, hi, path):
    with open(path, "wb") as f:
        f.write(edges[16 * lo:16 * hi])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, default=18)
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batches", type=int, default=60)
    ap.add_argument("--small", type=int, default=1000)
    ap.add_argument("--smalls", type=int, default=5)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--build", default="build")
    a = ap.parse_args()
    shell = os.path.join(a.build, "gnndb")
    bench = os.path.join(a.build, "bench", "bench_sample")
    gen = os.path.join(a.build, "bench", "gen")
    for x in (shell, bench, gen):
        if not os.access(x, os.X_OK):
            sys.exit("appends.py: no %s (make all %s/bench/gen "
                     "%s/bench/bench_sample)" % (x, a.build, a.build))
    work = a.dir or tempfile.mkdtemp(prefix="gnndb-appends-")
    os.makedirs(work, exist_ok=True)
    ep = os.path.join(work, "edges.bin")
    subprocess.run([gen, "--scale", str(a.scale), "--edge-factor",
                    str(a.edge_factor), "--out", ep], check=True,
                   stdout=subprocess.DEVNULL)
    edges = open(ep, "rb").read()
    m = len(edges) // 16
    nodes = 1 << a.scale
    cut = {"10": m - m // 10, "50": m - m // 2}
    for k, c in cut.items():
        write_slice(edges, 0, c, os.path.join(work, "base%s.bin" % k))
        write_slice(edges, c, m, os.path.join(work, "tail%s.bin" % k))
    create = "CREATE GRAPH g FROM '%s' FORMAT bin NODES %d;"
    keys = ("create", "insert10", "insert50", "compact10", "compact50",
            "appends", "appends_deltas", "appends_stream", "read_full",
            "read_10", "read_50", "read_10c", "read_50c", "read_asof")
    t = {k: [] for k in keys}
    print("appends.py: scale %d, %d nodes, %d edges, %d rounds, in %s"
          % (a.scale, nodes, m, a.rounds, work), flush=True)
    for r in range(a.rounds):
        dbs = one_round(a, shell, work, r, edges, ep, nodes, m, cut, create,
                        t)
        reads(a, bench, dbs, r, t)
        for d in dbs.values():
            shutil.rmtree(d, ignore_errors=True)
        print("  round %d done" % (r + 1), flush=True)
    report(a, t)
    if not a.dir:
        shutil.rmtree(work, ignore_errors=True)


def reads(a, bench, dbs, r, t):
    """The six SAMPLE runs of round r, in an order turned by one each
    round so that none always runs first; each check against the
    reference's."""
    order = ["full", "10", "50", "10c", "50c", "asof"]
    order = order[r % 6:] + order[:r % 6]
    chk = {}
    for k in order:
        db, tail = (dbs["50"], " AS OF VERSION 1") if k == "asof" \
            else (dbs[k], "")
        bps, chk[k] = sample(bench, db, a.batches, tail)
        t["read_" + k].append(bps)
    for k in ("10", "50", "10c", "50c"):
        if chk[k] != chk["full"]:
            sys.exit("appends.py: the %s graph's batches differ from the "
                     "reference's (%s vs %s)" % (k, chk[k], chk["full"]))


def small_appends(a, shell, work, base, name, r, lo, hi, pragma=""):
    """a.smalls appends of a.small edges on a copy of `base`, timed: edges
    from rows [lo, hi) of the generated file, or with `hi` None, the rows
    after lo with their targets moved to the last 1 % of node ids."""
    db = os.path.join(work, "r%d-%s.gnndb" % (r, name))
    shutil.rmtree(db, ignore_errors=True)
    shutil.copytree(base, db)
    paths = []
    for i in range(a.smalls):
        sp = os.path.join(work, "%s%d.bin" % (name, i))
        rows = bytearray(a.edges[16 * (lo + i * a.small):
                                 16 * (lo + (i + 1) * a.small)])
        if hi is None:
            nodes = 1 << a.scale
            for j in range(a.small):
                d = int.from_bytes(rows[16 * j + 8:16 * j + 16], "little")
                d = nodes - 1 - d % max(nodes // 100, 1)
                rows[16 * j + 8:16 * j + 16] = d.to_bytes(8, "little")
        with open(sp, "wb") as f:
            f.write(rows)
        paths.append(sp)
    t0 = time.perf_counter()
    for sp in paths:
        run(shell, db, "%sINSERT EDGES INTO g FROM '%s' FORMAT bin;"
            % (pragma, sp))
    dt = time.perf_counter() - t0
    shutil.rmtree(db, ignore_errors=True)
    return a.smalls / dt


def one_round(a, shell, work, r, edges, ep, nodes, m, cut, create, t):
    dbs = {}
    for name in ("full", "10", "50", "10c", "50c"):
        dbs[name] = os.path.join(work, "r%d-%s.gnndb" % (r, name))
        shutil.rmtree(dbs[name], ignore_errors=True)
    t["create"].append(run(shell, dbs["full"], create % (ep, nodes)))
    keep = "PRAGMA compact_fraction = 1; "
    for k in ("10", "50"):
        run(shell, dbs[k], create % (os.path.join(work, "base%s.bin" % k),
                                     nodes))
        t["insert" + k].append(run(
            shell, dbs[k], "%sINSERT EDGES INTO g FROM '%s' FORMAT bin;"
            % (keep, os.path.join(work, "tail%s.bin" % k))))
        shutil.copytree(dbs[k], dbs[k + "c"])
        t["compact" + k].append(run(shell, dbs[k + "c"], "COMPACT g;"))
    a.edges = edges
    c = cut["10"]
    t["appends"].append(small_appends(a, shell, work, dbs["10"], "small", r,
                                      c, m))
    t["appends_deltas"].append(small_appends(a, shell, work, dbs["10"],
                                             "delta", r, c, m, keep))
    t["appends_stream"].append(small_appends(a, shell, work, dbs["10"],
                                             "stream", r, c, None))
    return dbs


def report(a, t):
    med = {k: statistics.median(v) for k, v in t.items()}
    print("CREATE GRAPH, every edge (s):      %s" % mmm(t["create"]))
    for k in ("10", "50"):
        print("INSERT EDGES of the last %s%% (s): %s  (%.2fx the CREATE)"
              % (k, mmm(t["insert" + k]), med["insert" + k] / med["create"]))
        print("COMPACT of that graph (s):         %s  (%.2fx the CREATE)"
              % (mmm(t["compact" + k]), med["compact" + k] / med["create"]))
    for k, what in (("appends", "default compact_fraction"),
                    ("appends_deltas", "compact_fraction 1"),
                    ("appends_stream", "targets in the newest 1%")):
        print("appends of %d edges, %s (per s): %s  (%.0f edges/s)"
              % (a.small, what, mmm(t[k]), med[k] * a.small))
    print("SAMPLE batches/s, reference (0%% in deltas): %s"
          % mmm(t["read_full"]))
    for k, what in (("10", "10% in deltas"), ("50", "50% in deltas"),
                    ("10c", "10% compacted"), ("50c", "50% compacted"),
                    ("asof", "50% graph AS OF VERSION 1")):
        print("SAMPLE batches/s, %-26s %s  (%.2fx the reference)"
              % (what + ":", mmm(t["read_" + k]),
                 med["read_" + k] / med["read_full"]))
    print("APPENDS_SUMMARY insert10_over_create=%.3f insert50_over_create=%.3f"
          " compact50_over_create=%.3f appends_per_s=%.3f"
          " appends_per_s_deltas=%.3f appends_per_s_stream=%.3f"
          " read_ratio_10=%.3f read_ratio_50=%.3f read_ratio_10c=%.3f"
          " read_ratio_50c=%.3f read_ratio_asof=%.3f"
          % (med["insert10"] / med["create"], med["insert50"] / med["create"],
             med["compact50"] / med["create"], med["appends"],
             med["appends_deltas"], med["appends_stream"],
             med["read_10"] / med["read_full"],
             med["read_50"] / med["read_full"],
             med["read_10c"] / med["read_full"],
             med["read_50c"] / med["read_full"],
             med["read_asof"] / med["read_full"]))


if __name__ == "__main__":
    main()
