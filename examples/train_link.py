#!/usr/bin/env python3
"""Link prediction on cora: a GraphSAGE encoder and a dot-product decoder
trained on link mini-batches served by gnndb.

    /usr/bin/python3 examples/train_link.py [--epochs 60] [--seed 0]
                                            [--data DIR]

It builds a database in a temporary directory: cora's citations as an
undirected graph (each citation once, so that both directions of it share
one edge id), its features, and the edge splits

    CREATE EDGE SPLITS train, valid, test ON cora
        RANDOM 0.85, 0.05, 0.10 SEED 7;

Each epoch trains on

    SAMPLE 10,10 FROM cora EDGES train FEATURES feat BATCH 256 NEGATIVE 1
        EXCLUDE SEEDS EXCLUDE SPLIT valid, test SHUFFLE SEED s;

(s depends on --seed and the epoch): every batch holds 256 training edges
and 256 negatives (each keeps a positive's source and draws a destination
uniformly), the encoder sees the two-hop neighbourhood of their endpoints
without the batch's own edges (EXCLUDE SEEDS, or it would learn to look its
answer up) and without any held-out edge (EXCLUDE SPLIT). Validation and
test edges are scored the same way with every neighbour (SAMPLE -1,-1) and
NEGATIVE 1, their own split left out of the graph they are scored on. Each
epoch prints

    epoch E loss L val V

(V the validation AUC) and the run ends with

    test AUC T

The encoder is PyG's SAGEConv where torch_geometric is importable, else the
plain-torch mean aggregator of examples/train_sage.py; the same
h_dst' = W_self h_dst + W_neigh mean_{src->dst} h_src either way. The
score of a pair (u, v) is <h_u, h_v>. AUC comes from scikit-learn where it
is installed, else from a rank computation here. With a fixed --seed runs
are deterministic.
"""
import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)                 # train_sage's layer and helpers
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
from train_sage import SAGEConv as PlainSAGEConv
from train_sage import default_data, normalize, quote

try:
    from torch_geometric.nn import SAGEConv as PygSAGEConv
except ImportError:
    PygSAGEConv = None


class PygLayer(nn.Module):
    """PyG's SAGEConv (mean aggregation, root weight) over the batch's
    first num_dst nodes as targets, called as the plain layer is."""

    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.conv = PygSAGEConv(in_dim, out_dim)

    def forward(self, h, edge_index, num_dst):
        return self.conv((h, h[:num_dst]), edge_index)


class Encoder(nn.Module):
    """Two SAGE layers. Layer l (of L) computes only the nodes within L-1-l
    hops of the endpoints, from the edges of the first L-l hops (PyG's
    trim_to_layer); the last returns the endpoints' rows, which
    edge_label_index points at.

    The first layer reads the features through a shared linear map `embed`
    (no nonlinearity between: its weights are W·E instead of W, of rank at
    most `hidden`), applied as a sparse product. cora's rows are 98% zeros,
    and Debian's torch multiplies dense matrices with generic BLAS, which
    made the dense 1433-wide product nine tenths of the run."""

    def __init__(self, in_dim, hidden, out_dim, pyg, dropout=0.0):
        super().__init__()
        layer = PygLayer if pyg else PlainSAGEConv
        self.embed = nn.Linear(in_dim, hidden, bias=False)
        self.convs = nn.ModuleList([layer(hidden, hidden),
                                    layer(hidden, out_dim)])
        self.dropout = dropout

    def forward(self, x, edge_index, num_sampled_nodes, num_sampled_edges):
        h = torch.sparse.mm(x.to_sparse(), self.embed.weight.t())
        L = len(self.convs)
        for l, conv in enumerate(self.convs):
            keep = L - l
            num_dst = int(sum(num_sampled_nodes[:keep]))
            num_e = int(sum(num_sampled_edges[:keep]))
            h = conv(h, edge_index[:, :num_e], num_dst)
            if l < L - 1:
                h = F.relu(h)
                h = F.dropout(h, p=self.dropout, training=self.training)
        return h


def scores(model, b):
    """The decoder's logits <h_u, h_v> for the batch's labelled pairs."""
    h = model(normalize(b.x), b.edge_index, b.num_sampled_nodes,
              b.num_sampled_edges)
    src, dst = b.edge_label_index
    return (h[src] * h[dst]).sum(dim=-1)


def auc_numpy(y, s):
    """ROC AUC by ranks (Mann-Whitney U): the chance that a random positive
    scores above a random negative, ties counting one half."""
    y = np.asarray(y).astype(bool)
    s = np.asarray(s, dtype=np.float64)
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s), dtype=np.float64)
    sorted_s = s[order]
    # Tied scores share the mean of the ranks (1-based) they span.
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_s)) + 1]
    ends = np.r_[starts[1:], len(s)]
    mean_rank = (starts + ends + 1) / 2.0
    ranks[order] = np.repeat(mean_rank, ends - starts)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    return (ranks[y].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)


try:
    from sklearn.metrics import roc_auc_score as auc
except ImportError:
    auc = auc_numpy


def train_epoch(model, opt, batches):
    """One pass of binary cross-entropy over the link batches; the mean
    loss per labelled pair."""
    model.train()
    loss_sum = n = 0
    for b in batches:
        opt.zero_grad()
        loss = F.binary_cross_entropy_with_logits(scores(model, b),
                                                  b.edge_label)
        loss.backward()
        opt.step()
        loss_sum += float(loss) * b.edge_label.numel()
        n += b.edge_label.numel()
    return loss_sum / max(n, 1)


@torch.no_grad()
def auc_of(model, batches):
    """The AUC of the model's scores over the link batches' labels."""
    model.eval()
    ys, ss = [], []
    for b in batches:
        ss.append(scores(model, b).cpu().numpy())
        ys.append(b.edge_label.cpu().numpy())
    return float(auc(np.concatenate(ys), np.concatenate(ss)))


def evaluate(model, db_path, split, exclude, fanout, seed, to=""):
    """AUC on the edges of `split` against as many uniform negatives, with
    the splits `exclude` left out of the neighbourhoods."""
    sql = ("SAMPLE %s FROM cora EDGES %s FEATURES feat BATCH 1024 NEGATIVE 1 "
           "EXCLUDE SPLIT %s SEED %d%s;" % (fanout, split, exclude, seed, to))
    return auc_of(model, loader(db_path, sql))


def citation_pairs(data):
    """cora's citations, each pair once (the file lists both directions),
    self loops dropped: an (E, 2) array, ascending."""
    e = np.loadtxt(os.path.join(data, "edges.tsv"), dtype=np.int64, ndmin=2)
    e = e[e[:, 0] != e[:, 1]]
    return np.unique(np.sort(e, axis=1), axis=0)


def add_training_args(ap):
    """The options of the encoder and its training both link examples
    take."""
    ap.add_argument("--fanout", default="10,10", help="training fanouts")
    ap.add_argument("--batch", type=int, default=256,
                    help="positive edges per batch")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--out", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--pyg", choices=("auto", "yes", "no"), default="auto",
                    help="encoder layers: PyG's SAGEConv or the plain one")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads (fixed so runs are reproducible)")


def use_pyg(args, prog):
    """Whether the encoder takes PyG's layers, as --pyg asks; exits,
    naming `prog`, when --pyg yes finds no torch_geometric."""
    pyg = PygSAGEConv is not None if args.pyg == "auto" else args.pyg == "yes"
    if pyg and PygSAGEConv is None:
        sys.exit("%s: --pyg yes needs torch_geometric" % prog)
    return pyg


def build_database(db_path, data, tmp, split_seed):
    """cora as an undirected graph of its citations, each pair once (the
    file lists both directions), with features and the three edge splits.
    DESCRIBE's rows as a dict."""
    pairs = citation_pairs(data)
    und = os.path.join(tmp, "edges_once.tsv")
    np.savetxt(und, pairs, fmt="%d", delimiter="\t")
    nodes = np.load(os.path.join(data, "features.npy"), mmap_mode="r").shape[0]
    with gnndb.connect(db_path) as conn:
        conn.execute(
            "CREATE GRAPH cora FROM %s UNDIRECTED NODES %d;" % (quote(und),
                                                                 nodes) +
            "IMPORT FEATURES feat INTO cora FROM %s;"
            % quote(os.path.join(data, "features.npy")) +
            "CREATE EDGE SPLITS train, valid, test ON cora "
            "RANDOM 0.85, 0.05, 0.10 SEED %d;" % split_seed)
        return dict(conn.execute("DESCRIBE cora;"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--split-seed", type=int, default=7,
                    help="SEED of CREATE EDGE SPLITS")
    ap.add_argument("--data", default=None,
                    help="folder with cora's edges.tsv and features.npy "
                         "(default: $GNNDB_DATA/cora, ../shared/data/cora "
                         "or the shipped data/cora)")
    ap.add_argument("--db", default=None,
                    help="database directory to create (default: a temp dir)")
    add_training_args(ap)
    ap.add_argument("--eval-fanout", default="-1,-1",
                    help="fanouts for valid/test (-1: every neighbour)")
    ap.add_argument("--device", default=None,
                    help="cpu, cuda or cuda:N (default: cuda when torch "
                         "sees a GPU); on a GPU the batches come TO DEVICE")
    args = ap.parse_args(argv)
    if args.data is None:
        args.data = default_data()
    device = pick_device(args.device)
    to = device_clause(device)
    pyg = use_pyg(args, "train_link")

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    t0 = time.time()

    with tempfile.TemporaryDirectory(prefix="gnndb-link-") as tmp:
        db_path = args.db or os.path.join(tmp, "cora.gnndb")
        info = build_database(db_path, args.data, tmp, args.split_seed)
        print("database %s: %s nodes, %s edges; encoder %s" % (
            db_path, info.get("nodes"), info.get("edges"),
            "torch_geometric SAGEConv" if pyg else "plain torch"),
            flush=True)

        in_dim = np.load(os.path.join(args.data, "features.npy"),
                         mmap_mode="r").shape[1]
        model = Encoder(in_dim, args.hidden, args.out, pyg).to(device)
        opt = torch.optim.Adam(model.parameters(), lr=args.lr)

        for epoch in range(1, args.epochs + 1):
            sql = ("SAMPLE %s FROM cora EDGES train FEATURES feat BATCH %d "
                   "NEGATIVE 1 EXCLUDE SEEDS EXCLUDE SPLIT valid, test "
                   "SHUFFLE SEED %d%s;" % (args.fanout, args.batch,
                                           args.seed * 1000 + epoch, to))
            loss = train_epoch(model, opt, loader(db_path, sql))
            val = evaluate(model, db_path, "valid", "valid, test",
                           args.eval_fanout, 1, to)
            print("epoch %d loss %.4f val %.4f" % (epoch, loss, val),
                  flush=True)
        test = evaluate(model, db_path, "test", "test", args.eval_fanout, 2,
                        to)
        print("test AUC %.4f" % test, flush=True)
        print("%.1f s" % (time.time() - t0), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
