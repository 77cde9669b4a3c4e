#!/usr/bin/env python3
"""Node classification on a typed (heterogeneous) graph: a heterogeneous
GraphSAGE trained on typed mini-batches served by gnndb, against an MLP that
sees only the papers' own features.

    /usr/bin/python3 examples/train_hetero.py [--epochs 8] [--seed 0]
                                              [--pyg auto|yes|no]

It makes a synthetic bibliography with planted classes: authors belong to
one of C communities and their features say which (a community's centre
plus noise); a paper's class is the community most of its authors come
from, and its own features carry only a faint trace of it. Papers mostly
cite papers of their class. So a paper's class is read from its authors and
neighbours, not from itself: message passing matters, an MLP on the
paper's features stays near chance. The files go into a database in a
temporary directory:

    CREATE GRAPH mag;
    CREATE NODES paper IN mag COUNT P;  CREATE NODES author IN mag COUNT A;
    CREATE RELATION cites IN mag FROM paper TO paper FROM 'cites.tsv';
    CREATE RELATION writes IN mag FROM author TO paper FROM 'writes.tsv'
        WITH REVERSE;
    IMPORT FEATURES feat INTO mag.paper ...; ... INTO mag.author ...;
    IMPORT LABELS INTO mag.paper ...; CREATE SPLIT train/test ON mag.paper

and each epoch trains on

    SAMPLE {cites: 5, writes: 5, rev_writes: 3} * 2 FROM mag
        SEEDS paper.train BATCH 128 SHUFFLE SEED s;

(s depends on --seed and the epoch). Each batch comes from gnndb.torch as a
torch_geometric HeteroData where PyG is importable (the model is then PyG's
HeteroConv of SAGEConv, one per edge type, summed), else as a HeteroBatch of
plain tensors (the model is then the same sum of per-relation mean
aggregations in plain torch): x_dict and edge_index_dict either way. Each
epoch prints

    epoch E loss L test T

and the run ends with

    mlp test accuracy M
    gnn test accuracy G

(the MLP: two layers on the papers' features, trained on the same train
split for the same number of passes). With a fixed --seed runs are
deterministic.
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

from gnndb.torch import device_clause, loader, pick_device

try:
    from torch_geometric.nn import HeteroConv, SAGEConv as PygSAGEConv
except ImportError:
    HeteroConv = None


def quote(path):
    return "'" + str(path).replace("'", "''") + "'"


# ---- the synthetic graph ---------------------------------------------------

def make_graph(rng, papers, authors, classes, dim):
    """The arrays of a bibliography with planted classes (see the module
    documentation): a dict of numpy arrays named as the files they become."""
    centres = rng.standard_normal((classes, dim)).astype(np.float32)
    community = rng.integers(0, classes, authors)
    y = rng.integers(0, classes, papers)
    afeat = centres[community] + 0.8 * rng.standard_normal((authors, dim))
    # The papers' own features: a trace of their class in much noise.
    pfeat = 0.15 * centres[y] + rng.standard_normal((papers, dim))
    by_class = [np.flatnonzero(community == c) for c in range(classes)]
    writes = []
    for p in range(papers):
        for _ in range(rng.integers(2, 5)):
            # most authors from the paper's community, some from anywhere
            pool = by_class[y[p]] if rng.random() < 0.75 else np.arange(
                authors)
            writes.append((rng.choice(pool), p))
    papers_of = [np.flatnonzero(y == c) for c in range(classes)]
    cites = []
    for p in range(papers):
        for _ in range(rng.integers(1, 6)):
            pool = papers_of[y[p]] if rng.random() < 0.6 else np.arange(
                papers)
            cites.append((p, rng.choice(pool)))
    perm = rng.permutation(papers)
    half = papers // 2
    return {"afeat.npy": afeat.astype(np.float32),
            "pfeat.npy": pfeat.astype(np.float32),
            "plab.npy": y.astype(np.int64),
            "writes.tsv": np.array(writes, dtype=np.int64),
            "cites.tsv": np.array(cites, dtype=np.int64),
            "train.npy": np.sort(perm[:half]).astype(np.int64),
            "test.npy": np.sort(perm[half:]).astype(np.int64)}


def build_database(db_path, arrays, tmp):
    """Write the arrays into files in `tmp` and import them into a typed
    graph `mag`; DESCRIBE's properties."""
    f = {}
    for name, a in arrays.items():
        f[name] = quote(os.path.join(tmp, name))
        if name.endswith(".tsv"):
            np.savetxt(os.path.join(tmp, name), a, fmt="%d", delimiter="\t")
        else:
            np.save(os.path.join(tmp, name), a)
    with gnndb.connect(db_path) as conn:
        conn.execute(
            "CREATE GRAPH mag;"
            "CREATE NODES paper IN mag COUNT %d;" % len(arrays["plab.npy"]) +
            "CREATE NODES author IN mag COUNT %d;" % len(arrays["afeat.npy"]) +
            "CREATE RELATION cites IN mag FROM paper TO paper FROM %s;"
            % f["cites.tsv"] +
            "CREATE RELATION writes IN mag FROM author TO paper FROM %s "
            "WITH REVERSE;" % f["writes.tsv"] +
            "IMPORT FEATURES feat INTO mag.paper FROM %s;" % f["pfeat.npy"] +
            "IMPORT FEATURES feat INTO mag.author FROM %s;" % f["afeat.npy"] +
            "IMPORT LABELS INTO mag.paper FROM %s;" % f["plab.npy"] +
            "CREATE SPLIT train ON mag.paper FROM %s;" % f["train.npy"] +
            "CREATE SPLIT test ON mag.paper FROM %s;" % f["test.npy"])
        return dict(conn.execute("DESCRIBE mag;"))


# ---- the models -----------------------------------------------------------

class RelSAGE(nn.Module):
    """One relation's SAGE messages into its target type, in plain torch:
    W_neigh mean_{src->dst} h_src + W_root h_dst (PyG's SAGEConv with a
    bipartite input computes the same)."""

    def __init__(self, src_dim, dst_dim, out_dim):
        super().__init__()
        self.lin_l = nn.Linear(src_dim, out_dim, bias=True)
        self.lin_r = nn.Linear(dst_dim, out_dim, bias=False)

    def forward(self, h_src, h_dst, edge_index):
        src, dst = edge_index[0], edge_index[1]
        msg = h_src[src]
        agg = msg.new_zeros(h_dst.size(0), msg.size(1)).index_add_(0, dst, msg)
        deg = msg.new_zeros(h_dst.size(0)).index_add_(
            0, dst, msg.new_ones(dst.numel()))
        agg = agg / deg.clamp(min=1).unsqueeze(1)
        return self.lin_l(agg) + self.lin_r(h_dst)


class PlainHeteroConv(nn.Module):
    """A RelSAGE per edge type; each target type sums its relations' outputs
    (HeteroConv's aggr='sum')."""

    def __init__(self, edge_types, dims, out_dim):
        super().__init__()
        self.edge_types = list(edge_types)
        self.convs = nn.ModuleList(
            [RelSAGE(dims[s], dims[d], out_dim) for s, _, d in edge_types])

    def forward(self, x_dict, edge_index_dict):
        out = {}
        for et, conv in zip(self.edge_types, self.convs):
            s, _, d = et
            h = conv(x_dict[s], x_dict[d], edge_index_dict[et])
            out[d] = h if d not in out else out[d] + h
        return out


class HeteroSAGE(nn.Module):
    """Two heterogeneous SAGE layers (PyG's HeteroConv of SAGEConv, or the
    plain one), ReLU between, and a linear read-out of the seeds' type."""

    def __init__(self, edge_types, dims, hidden, classes, pyg):
        super().__init__()
        dims2 = {t: hidden for t in dims}

        def layer(d):
            if pyg:
                return HeteroConv({et: PygSAGEConv((d[et[0]], d[et[2]]),
                                                   hidden)
                                   for et in edge_types}, aggr="sum")
            return PlainHeteroConv(edge_types, d, hidden)

        self.convs = nn.ModuleList([layer(dims), layer(dims2)])
        self.out = nn.Linear(hidden, classes)

    def forward(self, x_dict, edge_index_dict, seed_type, batch_size):
        h = x_dict
        for i, conv in enumerate(self.convs):
            new = conv(h, edge_index_dict)
            # a type no relation points into keeps its input
            h = {t: F.relu(new[t]) if t in new else v for t, v in h.items()}
        return self.out(h[seed_type][:batch_size])


def mlp_accuracy(arrays, hidden, epochs, lr, batch, device):
    """Test accuracy of a two-layer MLP on the papers' own features, trained
    on the same split with the same number of passes and batch size."""
    x = torch.from_numpy(arrays["pfeat.npy"]).to(device)
    y = torch.from_numpy(arrays["plab.npy"]).to(device)
    train = torch.from_numpy(arrays["train.npy"]).to(device)
    test = torch.from_numpy(arrays["test.npy"]).to(device)
    classes = int(y.max()) + 1
    model = nn.Sequential(nn.Linear(x.size(1), hidden), nn.ReLU(),
                          nn.Linear(hidden, classes)).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for _ in range(epochs):
        for idx in train[torch.randperm(len(train)).to(device)].split(batch):
            opt.zero_grad()
            F.cross_entropy(model(x[idx]), y[idx]).backward()
            opt.step()
    with torch.no_grad():
        pred = model(x[test]).argmax(dim=1)
    return float((pred == y[test]).float().mean())


# ---- training --------------------------------------------------------------

def seeds_of(b):
    """(seed type, batch size, the seeds' labels) of a typed batch, a
    HeteroData or a HeteroBatch alike."""
    st = next(t for t in b.node_types if "batch_size" in b[t])
    return st, int(b[st].batch_size), b[st].y


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--papers", type=int, default=3000)
    ap.add_argument("--authors", type=int, default=1500)
    ap.add_argument("--classes", type=int, default=4)
    ap.add_argument("--dim", type=int, default=16)
    ap.add_argument("--fanout", default="{cites: 5, writes: 5, rev_writes: 3}"
                    " * 2", help="the typed fanouts of training")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--pyg", choices=("auto", "yes", "no"), default="auto",
                    help="PyG's HeteroData and HeteroConv, or plain tensors")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads (fixed so runs are reproducible)")
    ap.add_argument("--device", default=None,
                    help="cpu, cuda or cuda:N (default: cuda when torch "
                         "sees a GPU); on a GPU the batches come TO DEVICE")
    args = ap.parse_args(argv)
    device = pick_device(args.device)
    to = device_clause(device)
    pyg = HeteroConv is not None if args.pyg == "auto" else args.pyg == "yes"
    if pyg and HeteroConv is None:
        sys.exit("train_hetero: --pyg yes needs torch_geometric")

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    t0 = time.time()
    arrays = make_graph(np.random.default_rng(args.seed), args.papers,
                        args.authors, args.classes, args.dim)

    with tempfile.TemporaryDirectory(prefix="gnndb-hetero-") as tmp:
        db_path = os.path.join(tmp, "mag.gnndb")
        info = build_database(db_path, arrays, tmp)
        print("database %s: %s nodes, %s edges; model %s" % (
            db_path, info.get("nodes"), info.get("edges"),
            "torch_geometric HeteroConv" if pyg else "plain torch"),
            flush=True)

        dims = {"paper": args.dim, "author": args.dim}
        edge_types = [("paper", "cites", "paper"),
                      ("author", "writes", "paper"),
                      ("paper", "rev_writes", "author")]
        model = HeteroSAGE(edge_types, dims, args.hidden, args.classes,
                           pyg).to(device)
        opt = torch.optim.Adam(model.parameters(), lr=args.lr)

        def run(split, seed, train):
            sql = ("SAMPLE %s FROM mag SEEDS paper.%s BATCH %d%s SEED %d%s;"
                   % (args.fanout, split, args.batch,
                      " SHUFFLE" if train else "", seed, to))
            loss_sum = correct = n = 0
            for b in loader(db_path, sql, pyg=pyg):
                st, bs, y = seeds_of(b)
                with torch.set_grad_enabled(train):
                    out = model(b.x_dict, b.edge_index_dict, st, bs)
                    loss = F.cross_entropy(out, y)
                if train:
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                loss_sum += float(loss) * bs
                correct += int((out.argmax(dim=1) == y).sum())
                n += bs
            return loss_sum / max(n, 1), correct / max(n, 1)

        for epoch in range(1, args.epochs + 1):
            model.train()
            loss, _ = run("train", args.seed * 1000 + epoch, True)
            model.eval()
            _, test = run("test", 1, False)
            print("epoch %d loss %.4f test %.4f" % (epoch, loss, test),
                  flush=True)
        mlp = mlp_accuracy(arrays, args.hidden, args.epochs, args.lr,
                           args.batch, device)
        print("mlp test accuracy %.4f" % mlp)
        print("gnn test accuracy %.4f" % test)
        print("%.1f s" % (time.time() - t0), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
