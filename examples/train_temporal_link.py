#!/usr/bin/env python3
"""Temporal link prediction on a chronological split, trained twice: once
on batches that let each training edge see itself (the leak), once on
time-respecting batches. The test AUC, measured the same honest way for
both, shows what the leak costs; the leaky model's own validation AUC
shows how well the leak hides it.

    /usr/bin/python3 examples/train_temporal_link.py [--epochs 15]
        [--seed 0] [--data DIR]

It builds a database in a temporary directory: cora's citations as an
undirected graph (each citation once), its features, and a time for each
citation (its place in a random order of arrival, drawn with --seed: cora
has no dates, so the example gives it a history). The citations are split
by time, train the earliest 80 %, valid the next 10 %, test the last 10 %:

    IMPORT EDGE TIMES INTO cora FROM 'times.npy';
    CREATE EDGE SPLIT train ON cora FROM 'train.npy';  (valid, test alike)

Each model trains on

    SAMPLE 10,10 FROM cora EDGES train FEATURES feat AT EDGE TIME [BEFORE]
        BATCH 256 NEGATIVE 1 SHUFFLE SEED s;

Every endpoint of a training edge roots a tree of its own at the edge's
time. Without BEFORE a tree keeps the edges at or before that time, the
training edge itself among them: the encoder sees the answer it must
predict (the leak). With BEFORE it keeps the strictly earlier edges only,
as a model at that moment would. Validation and test edges are scored on
their own past the same way (AT EDGE TIME BEFORE, every neighbour), and
the leaky model is also scored as its trainer would have scored it
(without BEFORE). The run ends with

    leak             val_as_trained V1  val V2  test T1
    time-respecting  val V3  test T2

(val_as_trained: the leaky model scored on leaky validation batches)

The encoder and decoder are examples/train_link.py's (GraphSAGE, dot
product). Batches come to the host and move to --device from there: TO
DEVICE does not carry times yet. On cora (15 epochs, 2 cores, about
three minutes) the leak's validation AUC as trained was 0.91 while its
test AUC was 0.78, against 0.87 for the time-respecting model.
"""
import argparse
import os
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

from gnndb.torch import loader, pick_device
from train_link import (Encoder, add_training_args, auc_of, citation_pairs,
                        train_epoch, use_pyg)
from train_sage import default_data, quote


def build_database(db_path, data, tmp, seed):
    """cora's citations once each, undirected, with a random order of
    arrival as their times and the chronological edge splits; returns
    DESCRIBE's rows as a dict."""
    pairs = citation_pairs(data)
    t = np.random.default_rng(seed).permutation(len(pairs)).astype(np.int64)
    files = {"edges": os.path.join(tmp, "edges_once.tsv"),
             "times": os.path.join(tmp, "times.npy")}
    np.savetxt(files["edges"], pairs, fmt="%d", delimiter="\t")
    np.save(files["times"], t)
    cut = np.quantile(t, [0.8, 0.9])
    parts = {"train": t < cut[0], "valid": (t >= cut[0]) & (t < cut[1]),
             "test": t >= cut[1]}
    for name, m in parts.items():
        files[name] = os.path.join(tmp, name + ".npy")
        np.save(files[name], pairs[m])
    nodes = np.load(os.path.join(data, "features.npy"), mmap_mode="r").shape[0]
    with gnndb.connect(db_path) as conn:
        conn.execute(
            "CREATE GRAPH cora FROM %s UNDIRECTED NODES %d;"
            % (quote(files["edges"]), nodes) +
            "IMPORT FEATURES feat INTO cora FROM %s;"
            % quote(os.path.join(data, "features.npy")) +
            "IMPORT EDGE TIMES INTO cora FROM %s;" % quote(files["times"]) +
            "".join("CREATE EDGE SPLIT %s ON cora FROM %s;"
                    % (n, quote(files[n])) for n in parts))
        return dict(conn.execute("DESCRIBE cora;"))


def evaluate(model, db_path, split, before, seed, device):
    """AUC on the edges of `split` against as many uniform negatives, each
    scored on the graph up to its time (before: strictly earlier edges)."""
    sql = ("SAMPLE -1,-1 FROM cora EDGES %s FEATURES feat AT EDGE TIME %s "
           "BATCH 1024 NEGATIVE 1 SEED %d;"
           % (split, "BEFORE" if before else "", seed))
    return auc_of(model, loader(db_path, sql, device=device))


def train(db_path, in_dim, args, pyg, before, device):
    """A model trained on leaky (before False) or time-respecting
    batches; prints each epoch's loss and returns the model."""
    torch.manual_seed(args.seed)
    model = Encoder(in_dim, args.hidden, args.out, pyg).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    name = "time-respecting" if before else "leak"
    for epoch in range(1, args.epochs + 1):
        sql = ("SAMPLE %s FROM cora EDGES train FEATURES feat AT EDGE TIME %s "
               "BATCH %d NEGATIVE 1 SHUFFLE SEED %d;"
               % (args.fanout, "BEFORE" if before else "", args.batch,
                  args.seed * 1000 + epoch))
        loss = train_epoch(model, opt, loader(db_path, sql, device=device))
        print("%s epoch %d loss %.4f" % (name, epoch, loss), flush=True)
    return model


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--seed", type=int, default=0,
                    help="the model's seed and the order of arrival's")
    ap.add_argument("--data", default=None,
                    help="folder with cora's edges.tsv and features.npy "
                         "(default: $GNNDB_DATA/cora, ../shared/data/cora "
                         "or the shipped data/cora)")
    add_training_args(ap)
    ap.add_argument("--device", default=None,
                    help="cpu, cuda or cuda:N (default: cuda when torch "
                         "sees a GPU); host batches are moved there")
    args = ap.parse_args(argv)
    device = pick_device(args.device)
    if args.data is None:
        args.data = default_data()
    pyg = use_pyg(args, "train_temporal_link")
    torch.set_num_threads(args.threads)
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="gnndb-tlink-") as tmp:
        db_path = os.path.join(tmp, "cora.gnndb")
        info = build_database(db_path, args.data, tmp, args.seed)
        print("database %s: %s nodes, %s edges, edge times from %s" % (
            db_path, info.get("nodes"), info.get("edges"),
            os.path.basename(str(info.get("edge_times")))), flush=True)
        in_dim = np.load(os.path.join(args.data, "features.npy"),
                         mmap_mode="r").shape[1]
        rows = []
        for before in (False, True):
            model = train(db_path, in_dim, args, pyg, before, device)
            row = {"val": evaluate(model, db_path, "valid", True, 1, device),
                   "test": evaluate(model, db_path, "test", True, 2, device)}
            if not before:
                row["val_as_trained"] = evaluate(model, db_path, "valid",
                                                 False, 1, device)
            rows.append(row)
        leak, fair = rows
        print("leak             val_as_trained %.4f  val %.4f  test %.4f"
              % (leak["val_as_trained"], leak["val"], leak["test"]))
        print("time-respecting  val %.4f  test %.4f"
              % (fair["val"], fair["test"]))
        print("%.1f s" % (time.time() - t0), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
