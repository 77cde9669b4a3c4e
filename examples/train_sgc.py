#!/usr/bin/env python3
"""Train SGC on cora from features pre-propagated by gnndb.

    /usr/bin/python3 examples/train_sgc.py [--epochs 30] [--seed 0] [--hops 2]
                                           [--data DIR]

SGC (Wu et al., 2019) drops the nonlinearities of a GCN: its prediction is
softmax(Â^K X W), so Â^K X can be computed once, before training, and the
model is a logistic regression on its rows. gnndb does the propagation out
of core and serves the rows in shuffled contiguous chunks (the PP-GNN
recipe):

    PROPAGATE feat OVER cora HOPS K NORMALIZE sym INTO feat_pp;
    SCAN feat_pp SEEDS train BATCH 64 SHUFFLE CHUNK 8 SEED s;  -- each epoch

The features are row-normalised before import (Planetoid's usual
NormalizeFeatures), and the model reads the last K-hop slice of each row
(columns K*dim .. (K+1)*dim) — the table holds [X, ÂX, ..., Â^K X];
`--concat` uses all of them instead (SIGN-style). Each epoch prints

    epoch E loss L val V test T

with val/test accuracy over `SCAN feat_pp SEEDS val|test BATCH 512`. With a
fixed --seed, runs are deterministic; cora reaches about 0.8 test accuracy.
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
import torch.nn as nn
import torch.nn.functional as F

from gnndb.torch import loader, pick_device
from train_sage import default_data


def quote(path):
    return "'" + str(path).replace("'", "''") + "'"


def build_database(db_path, data, tmp, hops):
    """cora with row-normalised features, propagated `hops` hops."""
    x = np.load(os.path.join(data, "features.npy")).astype(np.float32)
    x /= np.maximum(x.sum(axis=1, keepdims=True), 1.0)
    xn = os.path.join(tmp, "features_norm.npy")
    np.save(xn, x)
    f = lambda name: quote(os.path.join(data, name))
    with gnndb.connect(db_path) as conn:
        conn.execute(
            "CREATE GRAPH cora FROM %s;" % f("edges.tsv") +
            "IMPORT FEATURES feat INTO cora FROM %s;" % quote(xn) +
            "IMPORT LABELS INTO cora FROM %s;" % f("labels.npy") +
            "CREATE SPLIT train ON cora FROM %s;" % f("train_idx.npy") +
            "CREATE SPLIT val ON cora FROM %s;" % f("val_idx.npy") +
            "CREATE SPLIT test ON cora FROM %s;" % f("test_idx.npy"))
        t0 = time.time()
        conn.execute("PROPAGATE feat OVER cora HOPS %d NORMALIZE sym "
                     "INTO feat_pp;" % hops)
        return x.shape[1], time.time() - t0


def features(b, dim, hops, concat):
    return b.x if concat else b.x[:, hops * dim:(hops + 1) * dim]


@torch.no_grad()
def evaluate(model, db_path, split, dim, hops, concat, device):
    model.eval()
    correct = total = 0
    sql = "SCAN feat_pp ON cora SEEDS %s BATCH 512;" % split
    for b in loader(db_path, sql, device=device):
        pred = model(features(b, dim, hops, concat)).argmax(dim=1)
        correct += int((pred == b.y).sum())
        total += b.batch_size
    return correct / max(total, 1)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hops", type=int, default=2)
    ap.add_argument("--data", default=None,
                    help="folder with cora's edges.tsv, features.npy, ... "
                         "(default: $GNNDB_DATA/cora, ../shared/data/cora "
                         "or the shipped data/cora)")
    ap.add_argument("--db", default=None,
                    help="database directory to create (default: a temp dir)")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--chunk", type=int, default=8,
                    help="contiguous rows per shuffled chunk")
    ap.add_argument("--concat", action="store_true",
                    help="train on [X, ÂX, ..., Â^K X] instead of Â^K X")
    ap.add_argument("--lr", type=float, default=0.2)
    ap.add_argument("--weight-decay", type=float, default=5e-5)
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads (fixed so runs are reproducible)")
    ap.add_argument("--device", default=None,
                    help="cpu, cuda or cuda:N (default: cuda when torch "
                         "sees a GPU); SCAN has no TO DEVICE, so the loader "
                         "moves its batches there")
    args = ap.parse_args(argv)
    if args.data is None:
        args.data = default_data()
    device = pick_device(args.device)

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    t0 = time.time()

    with tempfile.TemporaryDirectory(prefix="gnndb-sgc-") as tmp:
        db_path = args.db or os.path.join(tmp, "cora.gnndb")
        dim, secs = build_database(db_path, args.data, tmp, args.hops)
        print("PROPAGATE %d hops of %d features: %.2f s"
              % (args.hops, dim, secs), flush=True)
        num_classes = int(np.load(os.path.join(args.data,
                                               "labels.npy")).max()) + 1
        in_dim = dim * (args.hops + 1) if args.concat else dim
        model = nn.Linear(in_dim, num_classes).to(device)
        opt = torch.optim.Adam(model.parameters(), lr=args.lr,
                               weight_decay=args.weight_decay)

        best = (-1.0, 0, 0.0)   # (val, epoch, test)
        for epoch in range(1, args.epochs + 1):
            model.train()
            sql = ("SCAN feat_pp ON cora SEEDS train BATCH %d SHUFFLE CHUNK %d "
                   "SEED %d;" % (args.batch, args.chunk,
                                 args.seed * 1000 + epoch))
            loss_sum = n = 0
            for b in loader(db_path, sql, device=device):
                opt.zero_grad()
                out = model(features(b, dim, args.hops, args.concat))
                loss = F.cross_entropy(out, b.y)
                loss.backward()
                opt.step()
                loss_sum += float(loss) * b.batch_size
                n += b.batch_size
            val = evaluate(model, db_path, "val", dim, args.hops, args.concat,
                           device)
            test = evaluate(model, db_path, "test", dim, args.hops,
                            args.concat, device)
            if val > best[0]:
                best = (val, epoch, test)
            print("epoch %d loss %.4f val %.4f test %.4f"
                  % (epoch, loss_sum / max(n, 1), val, test), flush=True)
        print("best val %.4f at epoch %d (test %.4f); %.1f s"
              % (best[0], best[1], best[2], time.time() - t0), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
