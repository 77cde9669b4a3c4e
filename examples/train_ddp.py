#!/usr/bin/env python3
"""Data-parallel GraphSAGE on cora: DistributedDataParallel over gnndb's
SAMPLE ... PARTITION rank OF world: with NCCL and one GPU per rank (its
LOCAL_RANK; batches TO DEVICE) when torch sees GPUs, else on CPUs with
gloo (--device cpu forces that).

    python3 -m torch.distributed.run --nproc_per_node 2 --redirects 2 \\
        --tee 2 examples/train_ddp.py [--epochs 20] [--seed 0]
                                      [--data ../shared/data/cora]

(`torchrun --nproc-per-node 2 ...` in newer torch; Debian's torch 1.13
under Python 3.11 needs --redirects and --tee, see docs/scaling.md.) The
model, optimiser and schedule are those of examples/train_sage.py, whose
SAGE it imports.
Rank 0 builds the database (in a temporary directory unless --db names
one) and the other ranks open it read-only once it is built. Each epoch
every rank runs

    SAMPLE 10,10 FROM cora SEEDS train FEATURES feat BATCH b SHUFFLE SEED s
           PARTITION rank OF world;

with the SEED of train_sage.py (s = 1000*seed + epoch) and b = --batch /
world. A step then covers --batch seeds across all ranks, as one batch of
train_sage.py does, and the loss is the mean over those seeds.

Every rank takes the same number of steps, because DDP's all-reduce
needs every rank in each step. The ranks' shares of an epoch differ by at
most one seed, so a rank may have one batch less than the others. That
rank then repeats its last batch with weight 0 (a forward and a backward
that add nothing), and no seed is dropped. Val and test accuracy come from
the full two-hop neighbourhood (SAMPLE -1,-1), also split with PARTITION,
and the counts are summed over the ranks. Rank 0 prints

    epoch E loss L val V test T

--dump DIR writes DIR/rank<R>.json per rank, with each epoch's seeds,
steps and batches and a digest of the final parameters. The tests use it
to check the shares and that DDP kept the replicas identical.
"""
import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
try:
    import gnndb
except ImportError:                      # run from a checkout
    sys.path.insert(0, os.path.join(REPO, "python"))
    import gnndb

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from gnndb.torch import device_clause, to_torch
from train_sage import SAGE, build_database, default_data, normalize


def all_sum(device, *values):
    """The sums over the ranks of a few numbers (one all-reduce; NCCL
    reduces tensors on the rank's GPU)."""
    t = torch.tensor(values, dtype=torch.float64, device=device)
    dist.all_reduce(t, op=dist.ReduceOp.SUM)
    return t.tolist()


def rank_device(name):
    """(device, backend): this rank's GPU (LOCAL_RANK) and NCCL when torch
    sees GPUs (or --device cuda asks for one), else the CPU and gloo."""
    want = name or ("cuda" if torch.cuda.is_available() else "cpu")
    if torch.device(want).type != "cuda":
        return torch.device("cpu"), "gloo"
    local = int(os.environ.get("LOCAL_RANK", "0"))
    dev = torch.device("cuda", local)
    torch.cuda.set_device(dev)
    return dev, "nccl"


def shared_database(args, rank):
    """(path, tmpdir or None): rank 0 builds it, the others wait for it."""
    tmp = None
    if rank == 0:
        if args.db and os.path.exists(args.db):
            path = args.db
        else:
            if args.db:
                path = args.db
            else:
                tmp = tempfile.mkdtemp(prefix="gnndb-ddp-")
                path = os.path.join(tmp, "cora.gnndb")
            build_database(path, args.data)
        box = [path]
    else:
        box = [None]
    dist.broadcast_object_list(box, src=0)   # also the "it is built" barrier
    return box[0], tmp


def forward_seeds(model, b):
    out = model(normalize(b.x), b.edge_index, b.num_sampled_nodes,
                b.num_sampled_edges)
    return out[:b.batch_size]


def train_epoch(ddp, opt, conn, sql, record, device):
    """One epoch of the same number of steps on every rank; returns this
    rank's (loss sum, seeds)."""
    ddp.train()
    with conn.sample(sql) as it:
        mine = it.total_batches
        steps = torch.tensor([mine], device=device)
        dist.all_reduce(steps, op=dist.ReduceOp.MAX)
        steps = int(steps)
        if mine == 0:
            raise SystemExit("rank %d has no seeds in its share: fewer seeds "
                             "than ranks" % dist.get_rank())
        record["steps"].append(steps)
        record["batches"].append(mine)
        loss_sum = n = 0.0
        b = None
        for step in range(steps):
            real = step < mine
            if real:
                b = to_torch(next(it))
                record["seeds"][-1].extend(b.n_id[:b.batch_size].tolist())
            count = b.batch_size if real else 0
            # Mean over the step's seeds on all ranks: DDP averages the
            # gradients over ranks, so scale this rank's sum by world/total.
            total, = all_sum(device, count)
            opt.zero_grad()
            ce = F.cross_entropy(forward_seeds(ddp, b), b.y, reduction="sum")
            loss = ce * (dist.get_world_size() / total) if real else ce * 0.0
            loss.backward()
            opt.step()
            if real:
                loss_sum += float(ce)
                n += count
        # the iterator must be exhausted: no batch may be left unused
        assert next(it, None) is None
    return loss_sum, n


@torch.no_grad()
def evaluate(model, conn, split, fanout, rank, world, device):
    model.eval()
    correct = total = 0
    sql = ("SAMPLE %s FROM cora SEEDS %s FEATURES feat BATCH 512 SEED 1 "
           "PARTITION %d OF %d%s;" % (fanout, split, rank, world,
                                      device_clause(device)))
    for raw in conn.sample(sql):
        b = to_torch(raw)
        pred = forward_seeds(model, b).argmax(dim=1)
        correct += int((pred == b.y).sum())
        total += b.batch_size
    c, t = all_sum(device, correct, total)
    return c / max(t, 1)


def param_digest(model):
    h = hashlib.sha256()
    for p in model.state_dict().values():
        h.update(p.detach().cpu().numpy().tobytes())
    return h.hexdigest()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", default=default_data(),
                    help="folder with cora's edges.tsv, features.npy, ...")
    ap.add_argument("--db", default=None,
                    help="database directory (default: a temp dir); rank 0 "
                         "builds it when missing")
    ap.add_argument("--fanout", default="10,10", help="training fanouts")
    ap.add_argument("--eval-fanout", default="-1,-1",
                    help="fanouts for val/test (-1: every neighbour)")
    ap.add_argument("--batch", type=int, default=64,
                    help="seeds per step over all ranks (per rank: / world)")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--weight-decay", type=float, default=5e-4)
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads per rank")
    ap.add_argument("--dump", default=None,
                    help="folder for rank<R>.json (seeds, steps, digest)")
    ap.add_argument("--device", default=None,
                    help="cpu (gloo) or cuda (NCCL, one GPU per rank); "
                         "default: cuda when torch sees a GPU")
    args = ap.parse_args(argv)

    if "RANK" not in os.environ:
        sys.exit("train_ddp.py runs under torchrun: python3 -m "
                 "torch.distributed.run --nproc_per_node 2 %s" % sys.argv[0])
    device, backend = rank_device(args.device)
    dist.init_process_group(backend)
    rank, world = dist.get_rank(), dist.get_world_size()
    per_rank = args.batch // world
    if per_rank < 1:
        sys.exit("--batch %d is smaller than the %d ranks" % (args.batch,
                                                                world))
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)         # the same initial weights everywhere
    t0 = time.time()
    db_path, tmp = shared_database(args, rank)
    try:
        in_dim = np.load(os.path.join(args.data, "features.npy"),
                         mmap_mode="r").shape[1]
        num_classes = int(np.load(os.path.join(args.data,
                                               "labels.npy")).max()) + 1
        model = SAGE(in_dim, args.hidden, num_classes).to(device)
        ddp = DDP(model, device_ids=[device.index] if device.type == "cuda"
                  else None)
        opt = torch.optim.Adam(ddp.parameters(), lr=args.lr,
                               weight_decay=args.weight_decay)
        torch.manual_seed(args.seed * 1000 + rank)   # dropout differs by rank
        record = {"rank": rank, "world": world, "steps": [], "batches": [],
                  "seeds": []}
        if rank == 0:
            print("%d ranks (%s), %d seeds per rank and step; database %s"
                  % (world, backend, per_rank, db_path), flush=True)
        best = (-1.0, 0, 0.0)
        with gnndb.connect(db_path, readonly=True) as conn:
            for epoch in range(1, args.epochs + 1):
                record["seeds"].append([])
                sql = ("SAMPLE %s FROM cora SEEDS train FEATURES feat "
                       "BATCH %d SHUFFLE SEED %d PARTITION %d OF %d%s;"
                       % (args.fanout, per_rank, args.seed * 1000 + epoch,
                          rank, world, device_clause(device)))
                loss_sum, n = train_epoch(ddp, opt, conn, sql, record, device)
                loss_sum, n = all_sum(device, loss_sum, n)
                val = evaluate(model, conn, "val", args.eval_fanout, rank,
                               world, device)
                test = evaluate(model, conn, "test", args.eval_fanout, rank,
                                world, device)
                if val > best[0]:
                    best = (val, epoch, test)
                if rank == 0:
                    print("epoch %d loss %.4f val %.4f test %.4f"
                          % (epoch, loss_sum / max(n, 1), val, test),
                          flush=True)
        record["param_digest"] = param_digest(model)
        digests = [None] * world
        dist.all_gather_object(digests, record["param_digest"])
        if args.dump:
            os.makedirs(args.dump, exist_ok=True)
            with open(os.path.join(args.dump, "rank%d.json" % rank), "w") as f:
                json.dump(record, f)
        if rank == 0:
            print("replicas identical: %s" %
                  ("yes" if len(set(digests)) == 1 else "NO"), flush=True)
            print("best val %.4f at epoch %d (test %.4f); %.1f s"
                  % (best[0], best[1], best[2], time.time() - t0), flush=True)
        dist.barrier()                   # nobody reads the database now
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    # Leave without running destructors. In torch 1.13, destroying the
    # gloo process group (here: with the DDP reducer that holds it) joins
    # its worker threads while holding the GIL, and a worker that frees a
    # tensor needs the GIL: now and then a rank hangs at exit after its
    # work is done (pytorch/pytorch#56297, fixed by #154976). Everything is
    # written by now.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
