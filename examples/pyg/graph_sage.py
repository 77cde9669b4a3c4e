#!/usr/bin/env python3
"""GraphSAGE on a homogeneous graph, as PyG 2.8.1's examples/reddit.py is
laid out (a SAGE model with layer-wise inference, NeighborLoader-style
training, train/val/test accuracy per epoch), with only its data and
loader lines changed: the graph lives in a gnndb database (cora here,
built from its files on first use), PyG's NodeLoader samples through
gnndb.pyg.NeighborSampler over gnndb.pyg's FeatureStore and GraphStore.

    build/pyg-venv/bin/python examples/pyg/graph_sage.py [--epochs 20]
        [--seed 0] [--data DIR] [--db cora.gnndb] [--workers 0]

Each epoch prints `Epoch: E, Loss: L, Train: A, Val: V, Test: T`; the last
line is `best val V at epoch E: test T`.
"""
import argparse
import os
import sys
import tempfile

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
from torch_geometric.loader import NodeLoader
from torch_geometric.nn import SAGEConv

import gnndb.pyg


def build_cora(db, data_dir, dim=None):
    """The data line of the original (Reddit(path)[0]): cora's files into a
    gnndb database, features row-normalised as Planetoid's NormalizeFeatures
    does; with `dim`, projected onto `dim` random directions (a fixed
    Gaussian map, which keeps distances), because Debian's torch multiplies
    cora's 1433-wide dense rows slowly."""
    x = np.load(os.path.join(data_dir, "features.npy")).astype(np.float32)
    x /= np.maximum(x.sum(1, keepdims=True), 1)
    if dim:
        rng = np.random.default_rng(0)
        r = rng.standard_normal((x.shape[1], dim)).astype(np.float32)
        x = (x @ r) / np.float32(np.sqrt(dim)) * np.float32(10)
    with tempfile.TemporaryDirectory() as tmp:
        np.save(os.path.join(tmp, "x.npy"), x)
        q = lambda p: "'" + p.replace("'", "''") + "'"
        f = lambda n: q(os.path.join(data_dir, n))
        with gnndb.connect(db) as conn:
            conn.execute(
                "CREATE GRAPH cora FROM %s;" % f("edges.tsv") +
                "IMPORT FEATURES feat INTO cora FROM %s;"
                % q(os.path.join(tmp, "x.npy")) +
                "IMPORT LABELS INTO cora FROM %s;" % f("labels.npy"))


class SAGE(torch.nn.Module):
    def __init__(self, in_channels, hidden_channels, out_channels):
        super().__init__()
        self.convs = torch.nn.ModuleList()
        self.convs.append(SAGEConv(in_channels, hidden_channels))
        self.convs.append(SAGEConv(hidden_channels, out_channels))

    def forward(self, x, edge_index):
        for i, conv in enumerate(self.convs):
            x = conv(x, edge_index)
            if i < len(self.convs) - 1:
                x = x.relu_()
                x = F.dropout(x, p=0.5, training=self.training)
        return x

    @torch.no_grad()
    def inference(self, x_all, subgraph_loader):
        # Layer by layer over every node, each node's full neighbourhood.
        for i, conv in enumerate(self.convs):
            xs = []
            for batch in subgraph_loader:
                x = x_all[batch.n_id]
                x = conv(x, batch.edge_index)
                if i < len(self.convs) - 1:
                    x = x.relu_()
                xs.append(x[:batch.batch_size])
            x_all = torch.cat(xs, dim=0)
        return x_all


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", default=os.path.join(
        os.environ.get("GNNDB_DATA") or os.path.join(REPO, "..", "shared",
                                                     "data"), "cora"))
    ap.add_argument("--db", default=None, help="the database (default: "
                    "a temporary one built from --data)")
    ap.add_argument("--workers", type=int, default=0)
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    tmp = tempfile.TemporaryDirectory(prefix="gnndb-pyg-")
    db = args.db or os.path.join(tmp.name, "cora.gnndb")
    if not os.path.exists(db):
        build_cora(db, args.data)

    # -- the data and loader lines --------------------------------------------
    fs = gnndb.pyg.FeatureStore(db, "cora")
    gs = gnndb.pyg.GraphStore(db, "cora")
    load = lambda n: torch.from_numpy(np.load(os.path.join(args.data, n)))
    num_nodes, num_features = fs.get_tensor_size(None, "x")
    y = fs.get_tensor(None, "y", index=None)
    masks = {}
    for s in ("train", "val", "test"):
        masks[s] = torch.zeros(num_nodes, dtype=torch.bool)
        masks[s][load("%s_idx.npy" % s)] = True
    kwargs = {"batch_size": 64, "num_workers": args.workers}
    train_loader = NodeLoader(
        (fs, gs), node_sampler=gnndb.pyg.NeighborSampler((fs, gs), [25, 10]),
        input_nodes=masks["train"], shuffle=True, **kwargs)
    subgraph_loader = NodeLoader(
        (fs, gs), node_sampler=gnndb.pyg.NeighborSampler((fs, gs), [-1]),
        input_nodes=torch.arange(num_nodes), shuffle=False,
        batch_size=512, num_workers=args.workers)
    x_all = fs.get_tensor(None, "x", index=None)
    # ---------------------------------------------------------------------------

    model = SAGE(num_features, 64, int(y.max()) + 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01,
                                 weight_decay=5e-4)

    def train():
        model.train()
        total_loss = total_examples = 0
        for batch in train_loader:
            optimizer.zero_grad()
            out = model(batch.x, batch.edge_index)[:batch.batch_size]
            loss = F.cross_entropy(out, batch.y[:batch.batch_size])
            loss.backward()
            optimizer.step()
            total_loss += float(loss) * batch.batch_size
            total_examples += batch.batch_size
        return total_loss / total_examples

    @torch.no_grad()
    def test():
        model.eval()
        pred = model.inference(x_all, subgraph_loader).argmax(dim=-1)
        return [float((pred[m] == y[m]).float().mean())
                for m in (masks["train"], masks["val"], masks["test"])]

    best = (-1.0, 0, 0.0)
    for epoch in range(1, args.epochs + 1):
        loss = train()
        train_acc, val_acc, test_acc = test()
        print(f"Epoch: {epoch:02d}, Loss: {loss:.4f}, Train: {train_acc:.4f}, "
              f"Val: {val_acc:.4f}, Test: {test_acc:.4f}", flush=True)
        if val_acc > best[0]:
            best = (val_acc, epoch, test_acc)
    print("best val %.4f at epoch %d: test %.4f" % best)
    tmp.cleanup()


if __name__ == "__main__":
    main()
