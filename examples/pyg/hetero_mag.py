#!/usr/bin/env python3
"""A heterogeneous GraphSAGE made with to_hetero, as PyG 2.8.1's
examples/hetero/to_hetero_mag.py is laid out (a homogeneous Sequential of
SAGEConv turned heterogeneous by to_hetero with aggr='sum', lazy
parameters initialised on one batch, NeighborLoader-style training from
the papers' train split, accuracy on the validation split), with only its
data and loader lines changed: an OGB-MAG-layout dataset goes into a gnndb
database (IMPORT OGB ... UNDIRECTED, as the original's ToUndirected), and
PyG's NodeLoader samples through gnndb.pyg.NeighborSampler over
gnndb.pyg's FeatureStore and GraphStore.

The original reads the metapath2vec features PyG precomputes for the node
types that have none; here each such type gets the mean of its
neighbours' features, computed once from the GraphStore's edges and
written into the database with FeatureStore.put_tensor.

    build/pyg-venv/bin/python examples/pyg/hetero_mag.py
        [--data tests/data/ogb/ogbn_mag_tiny] [--epochs 20] [--seed 0]

Each epoch prints `Epoch: E, Loss: L, Train: A, Val: V`.
"""
import argparse
import os
import sys
import tempfile
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
try:
    import gnndb
except ImportError:                      # run from a checkout
    sys.path.insert(0, os.path.join(REPO, "python"))
    import gnndb

import numpy as np
import torch
import torch.nn.functional as F
from torch.nn import ReLU
from torch_geometric.loader import NodeLoader
from torch_geometric.nn import Linear, SAGEConv, Sequential, to_hetero

import gnndb.pyg


def featureless_means(fs, gs):
    """Give every node type without features the mean of its neighbours'
    (over any relation from a type that has some), until all have some."""
    sch = fs._schema()
    have = {t for t, i in sch.types.items() if "feat" in i["features"]}
    while len(have) < len(sch.types):
        done = False
        for (src, rel, dst) in sch.rels:
            if src in have or dst not in have:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                row, col = gs.get_edge_index((src, rel, dst), "coo")
            x = fs.get_tensor(dst, "x", index=None)
            n = sch.types[src]["count"]
            out = torch.zeros(n, x.size(1)).index_add_(0, row, x[col])
            deg = torch.bincount(row, minlength=n).clamp(min=1)
            fs.put_tensor(out / deg[:, None], src, "x", None)
            have.add(src)
            done = True
        if not done:
            raise SystemExit("node types %s have no features and no edges "
                             "to types that have" % (set(sch.types) - have))
        sch = fs._schema()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(
        REPO, "tests", "data", "ogb", "ogbn_mag_tiny"))
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=8)
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    tmp = tempfile.TemporaryDirectory(prefix="gnndb-pyg-")

    # -- the data and loader lines --------------------------------------------
    db = os.path.join(tmp.name, "mag.gnndb")
    with gnndb.connect(db) as conn:
        conn.execute("IMPORT OGB '%s' AS mag UNDIRECTED;"
                     % args.data.replace("'", "''"))
    fs = gnndb.pyg.FeatureStore(db, "mag")
    gs = gnndb.pyg.GraphStore(db, "mag")
    featureless_means(fs, gs)
    sch = fs._schema()
    metadata = (list(sch.types), list(sch.rels))
    num_classes = int(fs.get_tensor("paper", "y", index=None).max()) + 1
    split = {}
    for s in ("train", "valid"):
        path = os.path.join(args.data, "split", "time", "paper",
                            s + ".csv.gz")
        split[s] = torch.from_numpy(np.loadtxt(path, dtype=np.int64,
                                               ndmin=1))
    sampler = gnndb.pyg.NeighborSampler((fs, gs), [10] * 2)
    kwargs = {"batch_size": args.batch}
    train_loader = NodeLoader((fs, gs), node_sampler=sampler,
                              input_nodes=("paper", split["train"]),
                              shuffle=True, **kwargs)
    train_eval_loader = NodeLoader((fs, gs), node_sampler=sampler,
                                   input_nodes=("paper", split["train"]),
                                   **kwargs)
    val_loader = NodeLoader((fs, gs), node_sampler=sampler,
                            input_nodes=("paper", split["valid"]), **kwargs)
    # ---------------------------------------------------------------------------

    model = Sequential("x, edge_index", [
        (SAGEConv((-1, -1), 64), "x, edge_index -> x"),
        ReLU(inplace=True),
        (SAGEConv((-1, -1), 64), "x, edge_index -> x"),
        ReLU(inplace=True),
        (Linear(-1, num_classes), "x -> x"),
    ])
    model = to_hetero(model, metadata, aggr="sum")

    @torch.no_grad()
    def init_params():
        # Initialise the lazy parameters by running one batch through.
        batch = next(iter(train_loader))
        model(batch.x_dict, batch.edge_index_dict)

    def train():
        model.train()
        total_examples = total_loss = 0
        for batch in train_loader:
            optimizer.zero_grad()
            batch_size = batch["paper"].batch_size
            out = model(batch.x_dict, batch.edge_index_dict)["paper"]
            loss = F.cross_entropy(out[:batch_size],
                                   batch["paper"].y[:batch_size])
            loss.backward()
            optimizer.step()
            total_examples += batch_size
            total_loss += float(loss) * batch_size
        return total_loss / total_examples

    @torch.no_grad()
    def test(loader):
        model.eval()
        total_examples = total_correct = 0
        for batch in loader:
            batch_size = batch["paper"].batch_size
            out = model(batch.x_dict, batch.edge_index_dict)["paper"]
            pred = out[:batch_size].argmax(dim=-1)
            total_examples += batch_size
            total_correct += int((pred == batch["paper"].y[:batch_size])
                                 .sum())
        return total_correct / total_examples

    init_params()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for epoch in range(1, args.epochs + 1):
        loss = train()
        train_acc, val_acc = test(train_eval_loader), test(val_loader)
        print(f"Epoch: {epoch:02d}, Loss: {loss:.4f}, Train: {train_acc:.4f},"
              f" Val: {val_acc:.4f}", flush=True)
    tmp.cleanup()


if __name__ == "__main__":
    main()
