"""The link-prediction database of the tests (test_link.py, test_pyg.py):
cora's citations as `und`, each once and UNDIRECTED (both directions of an
edge share its id, the row of pairs.tsv), with random edge splits
train/valid/test, two splits from pair files (pick, held) and edge features
w; and `dir`, cora's edges.tsv as given (id = row), with dtrain/dtest and
its own w. The files are kept to check the batches against."""
import os

import numpy as np

import gnndb
from conftest import quote

EDGE_DIM = 4


class LinkData:
    """The files the link database is built from, kept to check against."""

    def __init__(self, cora, tmp):
        self.cora = cora
        self.n = n = cora.num_nodes
        e = cora.edges[cora.edges[:, 0] != cora.edges[:, 1]]
        self.pairs = np.unique(np.sort(e, axis=1), axis=0)   # u < v, once
        self.edges = cora.edges                             # as in the file
        rng = np.random.default_rng(0)
        self.ef = rng.standard_normal((len(self.pairs), EDGE_DIM)) \
            .astype(np.float32)
        self.efd = rng.standard_normal((len(self.edges), EDGE_DIM)) \
            .astype(np.float32)
        # Two explicit splits of und's pairs: `pick` (500 edges, seeds whose
        # membership we know) and `held` (another 500, left out with
        # EXCLUDE SPLIT).
        perm = rng.permutation(len(self.pairs))
        self.pick_ids = np.sort(perm[:500])
        self.held_ids = np.sort(perm[500:1000])
        self.und_keys = self.pairs[:, 0] * n + self.pairs[:, 1]  # ascending
        self.dir_keys = self.edges[:, 0] * n + self.edges[:, 1]
        self.dir_order = np.argsort(self.dir_keys, kind="stable")
        self.files = {}
        for name, arr in (("ef.npy", self.ef), ("efd.npy", self.efd),
                          ("pick.npy", self.pairs[self.pick_ids]),
                          ("held.npy", self.pairs[self.held_ids])):
            path = os.path.join(tmp, name)
            np.save(path, arr)
            self.files[name] = path
        path = os.path.join(tmp, "pairs.tsv")
        np.savetxt(path, self.pairs, fmt="%d", delimiter="\t")
        self.files["pairs.tsv"] = path

    def und_ids(self, src, dst):
        """und's edge id of each pair (either direction), -1 if none."""
        k = np.minimum(src, dst) * self.n + np.maximum(src, dst)
        pos = np.minimum(np.searchsorted(self.und_keys, k),
                         len(self.und_keys) - 1)
        return np.where(self.und_keys[pos] == k, pos, -1)

    def dir_ids(self, src, dst):
        """dir's edge id (row of edges.tsv) of each pair, -1 if none."""
        k = src * self.n + dst
        sk = self.dir_keys[self.dir_order]
        pos = np.minimum(np.searchsorted(sk, k), len(sk) - 1)
        return np.where(sk[pos] == k, self.dir_order[pos], -1)


def build_link_db(cora, tmp):
    """Write the files into folder `tmp` and build link.gnndb there from
    them; the LinkData, with .path the database."""
    d = LinkData(cora, tmp)
    d.path = os.path.join(tmp, "link.gnndb")
    f = lambda name: quote(d.files[name])
    c = lambda name: quote(os.path.join(cora.dir, name))
    with gnndb.connect(d.path) as conn:
        conn.execute(
            "CREATE GRAPH und FROM %s UNDIRECTED NODES %d;"
            % (f("pairs.tsv"), d.n) +
            "IMPORT FEATURES feat INTO und FROM %s;" % c("features.npy") +
            "IMPORT LABELS INTO und FROM %s;" % c("labels.npy") +
            "CREATE SPLIT ntrain ON und FROM %s;" % c("train_idx.npy") +
            "IMPORT EDGE FEATURES w INTO und FROM %s;" % f("ef.npy") +
            "CREATE EDGE SPLITS train, valid, test ON und "
            "RANDOM 0.85, 0.05, 0.10 SEED 7;" +
            "CREATE EDGE SPLIT pick ON und FROM %s;" % f("pick.npy") +
            "CREATE EDGE SPLIT held ON und FROM %s;" % f("held.npy") +
            "CREATE GRAPH dir FROM %s NODES %d;" % (c("edges.tsv"), d.n) +
            "IMPORT FEATURES feat INTO dir FROM %s;" % c("features.npy") +
            "IMPORT EDGE FEATURES w INTO dir FROM %s;" % f("efd.npy") +
            "CREATE EDGE SPLITS dtrain, dtest ON dir RANDOM 0.9, 0.1 SEED 3;")
        info = dict(conn.execute("DESCRIBE und;"))
    # the edge splits' sizes, as DESCRIBE reports them
    d.split_size = {k[len("edge_split."):]: int(v) for k, v in info.items()
                    if k.startswith("edge_split.") and k.count(".") == 1}
    return d
