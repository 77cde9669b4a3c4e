#!/usr/bin/env python3
"""Train PyG's own GraphSAGE on cora, with PyG Data batches served by gnndb.

    build/pyg-venv/bin/python examples/train_pyg.py [--epochs 20]
                               [--seed 0] [--data ../shared/data/cora]

(`make pyg-venv` makes that Python: Debian's python3 and torch, plus
torch_geometric.) The script builds a torch_geometric.data.Data from cora's
files as Planetoid would (edge_index, row-normalised x, y, train/val/test
masks), exports it into a gnndb database in a temporary directory with
gnndb.from_pyg, and then trains torch_geometric.nn.GraphSAGE as one trains
it with PyG's NeighborLoader, except that the batches come from

    GnnDataset(db, "SAMPLE 10,10 FROM cora SEEDS train FEATURES feat
                    BATCH 64 SHUFFLE SEED s;", pyg=True)

as torch_geometric Data objects (s depends on --seed and the epoch). Val
and test accuracy come from the full two-hop neighbourhood (SAMPLE -1,-1).
Each epoch prints

    epoch E loss L val V test T

With a fixed --seed, runs are deterministic.
"""
import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
try:
    import gnndb
except ImportError:                      # run from a checkout
    sys.path.insert(0, os.path.join(REPO, "python"))
    import gnndb

import numpy as np
import torch
import torch.nn.functional as F

try:
    from torch_geometric.data import Data
    from torch_geometric.nn import GraphSAGE
except ImportError as exc:
    sys.exit("train_pyg.py needs torch_geometric (%s); `make pyg-venv` "
             "installs it into build/pyg-venv" % exc)

from gnndb.torch import GnnDataset, device_clause, pick_device
from train_sage import default_data


def cora_as_pyg(data_dir):
    """cora's files as the Data object torch_geometric's Planetoid gives."""
    load = lambda name: np.load(os.path.join(data_dir, name))
    edges = np.loadtxt(os.path.join(data_dir, "edges.tsv"), dtype=np.int64,
                       ndmin=2)
    x = torch.from_numpy(load("features.npy")).float()
    x = x / x.sum(dim=1, keepdim=True).clamp(min=1.0)   # NormalizeFeatures
    y = torch.from_numpy(load("labels.npy")).long()
    data = Data(x=x, edge_index=torch.from_numpy(edges.T.copy()), y=y)
    for s in ("train", "val", "test"):
        mask = torch.zeros(data.num_nodes, dtype=torch.bool)
        mask[torch.from_numpy(load("%s_idx.npy" % s))] = True
        data[s + "_mask"] = mask
    return data


def forward(model, batch):
    """The seeds' logits; the per-hop counts let PyG trim each layer to the
    nodes it still needs (trim_to_layer)."""
    out = model(batch.x, batch.edge_index,
                num_sampled_nodes_per_hop=batch.num_sampled_nodes,
                num_sampled_edges_per_hop=batch.num_sampled_edges)
    return out[:batch.batch_size]


@torch.no_grad()
def evaluate(model, db_path, split, fanout, to=""):
    model.eval()
    correct = total = 0
    sql = ("SAMPLE %s FROM cora SEEDS %s FEATURES feat BATCH 512 SEED 1%s;"
           % (fanout, split, to))
    for batch in GnnDataset(db_path, sql, pyg=True):
        pred = forward(model, batch).argmax(dim=1)
        correct += int((pred == batch.y[:batch.batch_size]).sum())
        total += batch.batch_size
    return correct / max(total, 1)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", default=None,
                    help="folder with cora's edges.tsv, features.npy, ... "
                         "(default: $GNNDB_DATA/cora, ../shared/data/cora "
                         "or the shipped data/cora)")
    ap.add_argument("--fanout", default="10,10", help="training fanouts")
    ap.add_argument("--eval-fanout", default="-1,-1",
                    help="fanouts for val/test (-1: every neighbour)")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--weight-decay", type=float, default=5e-4)
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads (fixed so runs are reproducible)")
    ap.add_argument("--device", default=None,
                    help="cpu, cuda or cuda:N (default: cuda when torch "
                         "sees a GPU); on a GPU the batches come TO DEVICE")
    args = ap.parse_args(argv)
    if args.data is None:
        args.data = default_data()
    device = pick_device(args.device)
    to = device_clause(device)

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    t0 = time.time()

    data = cora_as_pyg(args.data)
    with tempfile.TemporaryDirectory(prefix="gnndb-pyg-") as tmp:
        db_path = os.path.join(tmp, "cora.gnndb")
        info = gnndb.from_pyg(data, db_path, name="cora")
        print("database %s: %s nodes, %s edges (from a PyG Data)" % (
            db_path, info.get("nodes"), info.get("edges")), flush=True)

        model = GraphSAGE(data.num_features, args.hidden, num_layers=2,
                          out_channels=int(data.y.max()) + 1,
                          dropout=0.5).to(device)
        opt = torch.optim.Adam(model.parameters(), lr=args.lr,
                               weight_decay=args.weight_decay)
        train = GnnDataset(db_path, None, pyg=True)

        best = (-1.0, 0, 0.0)   # (val, epoch, test)
        for epoch in range(1, args.epochs + 1):
            model.train()
            train.set_sql("SAMPLE %s FROM cora SEEDS train FEATURES feat "
                          "BATCH %d SHUFFLE SEED %d%s;"
                          % (args.fanout, args.batch,
                             args.seed * 1000 + epoch, to))
            loss_sum = n = 0
            for batch in train:
                opt.zero_grad()
                loss = F.cross_entropy(forward(model, batch),
                                       batch.y[:batch.batch_size])
                loss.backward()
                opt.step()
                loss_sum += float(loss) * batch.batch_size
                n += batch.batch_size
            val = evaluate(model, db_path, "val", args.eval_fanout, to)
            test = evaluate(model, db_path, "test", args.eval_fanout, to)
            if val > best[0]:
                best = (val, epoch, test)
            print("epoch %d loss %.4f val %.4f test %.4f"
                  % (epoch, loss_sum / max(n, 1), val, test), flush=True)
        print("best val %.4f at epoch %d (test %.4f); %.1f s"
              % (best[0], best[1], best[2], time.time() - t0), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
