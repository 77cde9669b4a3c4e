#!/usr/bin/env python3
"""Unsupervised GraphSAGE trained by link prediction, as PyG 2.8.1's
examples/graph_sage_unsup.py is laid out (a 2-layer GraphSAGE encoder,
batches of edges with as many random negatives, binary cross-entropy of
<h_u, h_v>, then a logistic regression on the embeddings), with only its
data and loader lines changed: cora lives in a gnndb database and PyG's
LinkLoader samples through gnndb.pyg.NeighborSampler. (The original fits
scikit-learn's LogisticRegression, which Debian's Python lacks; the same
model is fitted with torch here.)

    build/pyg-venv/bin/python examples/pyg/link_pred.py [--epochs 10]
        [--seed 0] [--data DIR] [--db cora.gnndb] [--dim 128]

Each epoch prints `Epoch: E, Loss: L, Val: V, Test: T` (accuracy of the
logistic regression on frozen embeddings).
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
from torch_geometric.loader import LinkLoader
from torch_geometric.nn import GraphSAGE
from torch_geometric.sampler import NegativeSampling

import gnndb.pyg

sys.path.insert(0, HERE)
from graph_sage import build_cora        # noqa: E402  (the same database)


def logistic_regression(x, y, train, tests, epochs=300):
    """Multinomial logistic regression on frozen x (sklearn's default: L2,
    C = 1), fitted with LBFGS; accuracy on each mask of `tests`."""
    w = torch.zeros(x.size(1), int(y.max()) + 1, requires_grad=True)
    b = torch.zeros(int(y.max()) + 1, requires_grad=True)
    opt = torch.optim.LBFGS([w, b], max_iter=epochs)

    def closure():
        opt.zero_grad()
        loss = F.cross_entropy(x[train] @ w + b, y[train], reduction="sum")
        loss = loss + 0.5 * (w * w).sum()
        loss.backward()
        return loss
    opt.step(closure)
    with torch.no_grad():
        pred = (x @ w + b).argmax(-1)
    return [float((pred[m] == y[m]).float().mean()) for m in tests]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", default=os.path.join(
        os.environ.get("GNNDB_DATA") or os.path.join(REPO, "..", "shared",
                                                     "data"), "cora"))
    ap.add_argument("--db", default=None)
    ap.add_argument("--dim", type=int, default=128, help="features projected "
                    "onto this many random directions (0: cora's 1433)")
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    tmp = tempfile.TemporaryDirectory(prefix="gnndb-pyg-")
    db = args.db or os.path.join(tmp.name, "cora.gnndb")
    if not os.path.exists(db):
        build_cora(db, args.data, dim=args.dim)

    # -- the data and loader lines --------------------------------------------
    fs = gnndb.pyg.FeatureStore(db, "cora")
    gs = gnndb.pyg.GraphStore(db, "cora")
    with warnings.catch_warnings():     # cora's topology in memory: 0.2 MiB
        warnings.simplefilter("ignore")
        row, col = gs.get_edge_index(gnndb.pyg.PLAIN_EDGE, "coo")
    edge_index = torch.stack([row, col])
    x = fs.get_tensor(None, "x", index=None)
    y = fs.get_tensor(None, "y", index=None)
    load = lambda n: torch.from_numpy(np.load(os.path.join(args.data, n)))
    masks = {}
    for s in ("train", "val", "test"):
        masks[s] = torch.zeros(x.size(0), dtype=torch.bool)
        masks[s][load("%s_idx.npy" % s)] = True
    train_loader = LinkLoader(
        (fs, gs), link_sampler=gnndb.pyg.NeighborSampler((fs, gs), [10, 10]),
        edge_label_index=(None, edge_index), batch_size=256, shuffle=True,
        neg_sampling=NegativeSampling("binary", 1.0))
    # ---------------------------------------------------------------------------

    model = GraphSAGE(x.size(1), hidden_channels=64, num_layers=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

    def train():
        model.train()
        total_loss = 0
        for batch in train_loader:
            optimizer.zero_grad()
            h = model(batch.x, batch.edge_index)
            h_src = h[batch.edge_label_index[0]]
            h_dst = h[batch.edge_label_index[1]]
            pred = (h_src * h_dst).sum(dim=-1)
            loss = F.binary_cross_entropy_with_logits(pred, batch.edge_label)
            loss.backward()
            optimizer.step()
            total_loss += float(loss) * pred.size(0)
        return total_loss / (2 * edge_index.size(1))

    @torch.no_grad()
    def test():
        model.eval()
        out = model(x, edge_index)
        return logistic_regression(out, y, masks["train"],
                                   (masks["val"], masks["test"]))

    for epoch in range(1, args.epochs + 1):
        loss = train()
        val_acc, test_acc = test()
        print(f"Epoch: {epoch:03d}, Loss: {loss:.4f}, Val: {val_acc:.4f}, "
              f"Test: {test_acc:.4f}", flush=True)
    tmp.cleanup()


if __name__ == "__main__":
    main()
