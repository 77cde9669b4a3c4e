#!/usr/bin/env python3
"""A graph that grows by the day: each day's events are appended to the
database, the model is evaluated on them before it sees them, then trained
on them (test, then train), and one day's evaluation is repeated at the end
from the version that day made, batch for batch.

    /usr/bin/python3 examples/train_streaming.py [--days 10] [--first 5]
        [--epochs 2] [--seed 0] [--data DIR]

It builds a database in a temporary directory from cora's citations (an
undirected graph, each citation once) with a time for each: its place in a
random order of arrival drawn with --seed (cora has no dates), cut into
--days equal days. The first --first days make the graph (CREATE GRAPH ...
COLUMNS (src, dst, t)), on which the model trains first. Then for each
later day d:

    gnndb.insert_edges(db, "cora", day_d_pairs.T, time=day_d_times)
        -- INSERT EDGES INTO cora FROM ... : version v_d of the graph
    CREATE EDGE SPLIT day_d ON cora FROM 'day_d.npy';
    SAMPLE 10,10 FROM cora EDGES day_d FEATURES feat AT EDGE TIME BEFORE
        BATCH 1024 NEGATIVE 1 SEED s;       -- scored: the model's AUC on d
    SAMPLE 10,10 FROM cora EDGES day_d FEATURES feat AT EDGE TIME BEFORE
        BATCH 256 NEGATIVE 1 SHUFFLE SEED s;   -- then trained on, --epochs

Scoring with AT EDGE TIME BEFORE gives each new citation only what was
known strictly before it, as a model running that day would have had. At
the end day --first's evaluation runs again with AS OF VERSION v (the
version its append made), after every later day was appended: the batches,
and so the AUC, are the same, since a version's batches do not change as
the graph grows. It prints one line per day,

    day D version V edges E auc A loss L

then "replay day D AS OF VERSION V: auc A (same)". On cora (the defaults,
2 cores, about 30 s with the plain layers) the AUC on each new day before
training on it went 0.62, 0.65, 0.64, 0.64, 0.68 over days 5 to 9, and the
replay of day 5 gave 0.6237 again.
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


def days_of(data, ndays, seed):
    """cora's citations in a random order of arrival, their times 0..E-1,
    cut into ndays days: a list of (pairs, times) per day."""
    pairs = citation_pairs(data)
    order = np.random.default_rng(seed).permutation(len(pairs))
    pairs, t = pairs[order], np.arange(len(pairs), dtype=np.int64)
    cuts = np.linspace(0, len(pairs), ndays + 1).astype(int)
    return [(pairs[a:b], t[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]


def build_database(db_path, data, tmp, days, first):
    """The graph of the first days, with cora's features and an edge split
    of those days' citations to train on first."""
    pairs = np.concatenate([p for p, _ in days[:first]])
    t = np.concatenate([t for _, t in days[:first]])
    csv = os.path.join(tmp, "first.csv")
    np.savetxt(csv, np.column_stack([pairs, t]), fmt="%d", delimiter=",")
    np.save(os.path.join(tmp, "start.npy"), pairs)
    nodes = np.load(os.path.join(data, "features.npy"), mmap_mode="r").shape[0]
    with gnndb.connect(db_path) as conn:
        conn.execute(
            "CREATE GRAPH cora FROM %s FORMAT csv COLUMNS (0, 1, 2) "
            "UNDIRECTED NODES %d;" % (quote(csv), nodes) +
            "IMPORT FEATURES feat INTO cora FROM %s;"
            % quote(os.path.join(data, "features.npy")) +
            "CREATE EDGE SPLIT start ON cora FROM %s;"
            % quote(os.path.join(tmp, "start.npy")))


def append_day(db_path, tmp, d, pairs, t):
    """Day d's citations appended (the graph's next version) and made an
    edge split; the new version's number."""
    v = gnndb.insert_edges(db_path, "cora", pairs.T, time=t)
    f = os.path.join(tmp, "day%d.npy" % d)
    np.save(f, pairs)
    with gnndb.connect(db_path) as conn:
        conn.execute("CREATE EDGE SPLIT day%d ON cora FROM %s;"
                     % (d, quote(f)))
    return v


def score(model, db_path, split, seed, device, as_of=None):
    """AUC on the split's edges against as many uniform negatives, each
    seen with only what came strictly before it."""
    sql = ("SAMPLE 10,10 FROM cora EDGES %s FEATURES feat AT EDGE TIME "
           "BEFORE BATCH 1024 NEGATIVE 1 SEED %d%s;"
           % (split, seed, " AS OF VERSION %d" % as_of if as_of else ""))
    return auc_of(model, loader(db_path, sql, device=device))


def train_on(model, opt, db_path, split, args, day, device, as_of=None):
    """--epochs passes over the split; the last one's mean loss."""
    loss = float("nan")
    for epoch in range(args.epochs):
        sql = ("SAMPLE %s FROM cora EDGES %s FEATURES feat AT EDGE TIME "
               "BEFORE BATCH %d NEGATIVE 1 SHUFFLE SEED %d%s;"
               % (args.fanout, split, args.batch,
                  args.seed * 100000 + day * 100 + epoch,
                  " AS OF VERSION %d" % as_of if as_of else ""))
        loss = train_epoch(model, opt, loader(db_path, sql, device=device))
    return loss


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--days", type=int, default=10)
    ap.add_argument("--first", type=int, default=5,
                    help="days in the graph before the stream starts")
    ap.add_argument("--epochs", type=int, default=2,
                    help="passes over each day's citations")
    ap.add_argument("--seed", type=int, default=0,
                    help="the model's seed and the order of arrival's")
    ap.add_argument("--data", default=None,
                    help="folder with cora's edges.tsv and features.npy "
                         "(default: $GNNDB_DATA/cora, ../shared/data/cora "
                         "or the shipped data/cora)")
    add_training_args(ap)
    ap.add_argument("--device", default=None,
                    help="cpu, cuda or cuda:N (default: cuda when torch "
                         "sees a GPU)")
    args = ap.parse_args(argv)
    if not 1 <= args.first < args.days:
        ap.error("--first must be at least 1 and below --days")
    device = pick_device(args.device)
    if args.data is None:
        args.data = default_data()
    pyg = use_pyg(args, "train_streaming")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    t0 = time.time()
    days = days_of(args.data, args.days, args.seed)
    in_dim = np.load(os.path.join(args.data, "features.npy"),
                     mmap_mode="r").shape[1]
    model = Encoder(in_dim, args.hidden, args.out, pyg).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    with tempfile.TemporaryDirectory(prefix="gnndb-stream-") as tmp:
        db_path = os.path.join(tmp, "cora.gnndb")
        build_database(db_path, args.data, tmp, days, args.first)
        loss = train_on(model, opt, db_path, "start", args, 0, device)
        print("days 0-%d: the first graph, loss %.4f"
              % (args.first - 1, loss), flush=True)
        replay = None
        for d in range(args.first, args.days):
            pairs, t = days[d]
            v = append_day(db_path, tmp, d, pairs, t)
            a = score(model, db_path, "day%d" % d, d, device)
            if replay is None:
                replay = (d, v, a)
            loss = train_on(model, opt, db_path, "day%d" % d, args, d,
                            device)
            print("day %d version %d edges %d auc %.4f loss %.4f"
                  % (d, v, len(pairs), a, loss), flush=True)
        # day `first`'s evaluation again, by a model trained again as the
        # one that scored it was: on version 1, then scored AS OF the
        # version day `first` made
        d, v, a = replay
        print("replay day %d AS OF VERSION %d:" % (d, v), end=" ")
        torch.manual_seed(args.seed)
        fresh = Encoder(in_dim, args.hidden, args.out, pyg).to(device)
        fresh_opt = torch.optim.Adam(fresh.parameters(), lr=args.lr)
        train_on(fresh, fresh_opt, db_path, "start", args, 0, device, 1)
        b = score(fresh, db_path, "day%d" % d, d, device, as_of=v)
        print("auc %.4f (%s)" % (b, "same" if b == a else "DIFFERENT"))
        print("%.1f s" % (time.time() - t0), flush=True)
        return 0 if b == a else 1


if __name__ == "__main__":
    sys.exit(main())
