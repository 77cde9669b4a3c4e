"""PyG's NodeLoader driving gnndb.pyg.NeighborSampler against
gnndb.torch.loader running the same query, in one run: batches/s and bytes
read per batch of each, and their ratio.

    build/pyg-venv/bin/python bench/pyg_loader.py [--db bench/data/s21-e16-d128/g.gnndb]
        [--memory 512MB] [--fanouts 10,10] [--batch 1024] [--round 64]
        [--batches 64] [--passes 2]

The query is SAMPLE <fanouts> FROM g FEATURES feat BATCH <batch>
HYPERBATCH <round> SHUFFLE LIMIT <batches> over every node, under PRAGMA
memory_limit <memory>; the PyG side is NodeLoader((fs, gs),
node_sampler=NeighborSampler(..., round_batches=<round>), input_nodes=all,
batch_size=<batch>, shuffle=True), whose rounds are the same size as the
loader's hyperbatch (keep <batches> a multiple of <round>: then both sides
build the same rounds).
Each pass times <batches> batches of one and then of the other (the order
alternating), each from a fresh start (the first round's build included),
touching every batch's x and edge_index as a training loop would. The
scale-21 data is made by bench/run.sh (bench/data/s21-e16-d128); on a
shared machine keep --batches small: the default is one round each. The
interpreter with torch and PyG imported is outside memory_limit's promise:
the script prints its resident size before the first run ("baseline"),
and the process's resident and peak resident sizes after each."""
import argparse
import gc
import os
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

import gnndb                               # noqa: E402
import gnndb.pyg as gp                     # noqa: E402
from gnndb.torch import loader             # noqa: E402
from torch_geometric.loader import NodeLoader   # noqa: E402


def rss():
    """(resident, peak resident) of this process, MiB."""
    kb = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                kb[line[:5]] = int(line.split()[1])
    return kb["VmRSS"] / 1024, kb["VmHWM"] / 1024


def touch(x, ei):
    return float(x[:, 0].sum()) + int(ei.shape[1])


def run_torch(a, seed):
    # LIMIT: the run ends with the batches timed, so its last round is not
    # followed by one built on the loader's pipeline thread that nobody
    # takes (the PyG side plans rounds only as its batches are asked for),
    # and its reads are all counted by the last batch (a round built on
    # that thread is counted when it is joined)
    sql = ("SAMPLE %s FROM g FEATURES feat BATCH %d HYPERBATCH %d SHUFFLE "
           "SEED %d LIMIT %d;" % (a.fanouts, a.batch, a.round, seed,
                                  a.batches))
    st = {}
    t, n = time.perf_counter(), 0
    it = loader(a.db, sql, pyg=True, pragmas={"memory_limit": a.memory},
                status=st)
    for b in it:
        touch(b.x, b.edge_index)
        n += 1
        if n == a.batches:
            break
    dt = time.perf_counter() - t
    it.close()
    return {"batches": n, "seconds": dt, "read": st.get("bytes_read", 0)}


def run_pyg(a, seed):
    fs = gp.FeatureStore(a.db, "g", readonly=True)
    gs = gp.GraphStore(a.db, "g", readonly=True)
    s = gp.NeighborSampler((fs, gs), [int(f) for f in a.fanouts.split(",")],
                           round_batches=a.round, seed=seed,
                           pragmas={"memory_limit": a.memory})
    nn = fs.get_tensor_size(None, "x")[0]
    t, n = time.perf_counter(), 0
    g = torch.Generator()
    g.manual_seed(seed)
    ld = NodeLoader((fs, gs), node_sampler=s, input_nodes=torch.arange(nn),
                    batch_size=a.batch, shuffle=True, generator=g)
    for b in ld:
        touch(b.x, b.edge_index)
        n += 1
        if n == a.batches:
            break
    dt = time.perf_counter() - t
    return {"batches": n, "seconds": dt, "read": s.stats["bytes_read"],
            "rounds": s.stats["rounds"], "handed": fs.stats["handed"],
            "reads": fs.stats["reads"]}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--db", default=os.path.join(
        HERE, "data", "s21-e16-d128", "g.gnndb"))
    p.add_argument("--memory", default="512MB")
    p.add_argument("--fanouts", default="10,10")
    p.add_argument("--batch", type=int, default=1024)
    p.add_argument("--round", type=int, default=64)
    p.add_argument("--batches", type=int, default=64)
    p.add_argument("--passes", type=int, default=2)
    a = p.parse_args()
    torch.set_num_threads(1)
    print("baseline (interpreter, torch, PyG, gnndb imported): resident "
          "%.1f MiB" % rss()[0], flush=True)
    res = {"torch": [], "pyg": []}
    for k in range(a.passes):
        order = ("torch", "pyg") if k % 2 == 0 else ("pyg", "torch")
        for name in order:
            r = (run_torch if name == "torch" else run_pyg)(a, 100 + k)
            gc.collect()    # what the run left (loader cycles), untimed
            read = ("%.1f MiB" % (r["read"] / r["batches"] / 2 ** 20)
                    if r["read"] > 0 else "n/a (a pipelined spilled run "
                    "counts a round's reads when the thread that builds it "
                    "is joined)")
            res[name].append(r)
            extra = ("" if name == "torch" else
                     " (%d rounds, %d row sets handed over, %d GATHERs)"
                     % (r["rounds"], r["handed"], r["reads"]))
            print("pass %d %-5s %3d batches in %6.1f s: %.2f batches/s, "
                  "read per batch %s%s; resident %.1f MiB, peak %.1f MiB"
                  % ((k, name, r["batches"], r["seconds"],
                      r["batches"] / r["seconds"], read, extra) + rss()),
                  flush=True)
    bps = {n: sum(r["batches"] for r in v) / sum(r["seconds"] for r in v)
           for n, v in res.items()}
    mib = {n: sum(r["read"] for r in v) / sum(r["batches"] for r in v)
           / 2 ** 20 for n, v in res.items()}
    print("SUMMARY torch_batches_per_s=%.3f pyg_batches_per_s=%.3f "
          "ratio=%.3f torch_read_mib_per_batch=%.1f "
          "pyg_read_mib_per_batch=%.1f peak_rss_mib=%.1f "
          "(NodeLoader + gnndb.pyg.NeighborSampler / gnndb.torch.loader; "
          "%s, memory_limit %s, BATCH %d, rounds of %d, %d batches x %d "
          "passes each)" % (
              bps["torch"], bps["pyg"], bps["pyg"] / bps["torch"],
              mib["torch"], mib["pyg"], rss()[1], a.fanouts, a.memory,
              a.batch, a.round, a.batches, a.passes))


if __name__ == "__main__":
    main()
