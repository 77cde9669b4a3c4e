"""The typed database of the tests (test_hetero.py, test_pyg.py): graph
`mag` of three node types, paper (features and labels), author (features)
and field (none), and the relations cites (paper -> paper), writes
(author -> paper, WITH REVERSE: rev_writes, paper -> author) and tags
(field -> paper), from random edge files of type-local ids (duplicates and
self-loops left in); splits train and test on paper; and edge feature table
w on writes (which rev_writes shares), whose row i is (i, author, paper of
input edge i, a random value), so a row names its edge. The arrays are kept
to check the batches against."""
import os

import numpy as np

import gnndb
from conftest import quote

COUNTS = {"paper": 300, "author": 200, "field": 20}
DIMS = {"paper": 8, "author": 4}        # field has no features
CLASSES = 5
EDGE_DIM = 4                            # of w on writes
FANOUT = "{cites: 5, writes: 3, rev_writes: 2, tags: 2} * 2"
SQL = "SAMPLE %s FROM mag SEEDS paper.train BATCH 32" % FANOUT


class TypedFiles:
    """The files the typed database is built from, kept to check against."""

    def __init__(self, tmp):
        self.tmp = tmp
        rng = np.random.default_rng(11)
        P, A, F = COUNTS["paper"], COUNTS["author"], COUNTS["field"]
        pairs = lambda n, s, d: np.stack([rng.integers(0, s, n),
                                          rng.integers(0, d, n)], axis=1)
        # (src type, dst type, edges) of each relation, ids local to types
        self.rels = {"cites": ("paper", "paper", pairs(1200, P, P)),
                     "writes": ("author", "paper", pairs(700, A, P)),
                     "tags": ("field", "paper", pairs(400, F, P))}
        w = self.rels["writes"][2]
        self.rels["rev_writes"] = ("paper", "author", w[:, ::-1].copy())
        self.x = {t: rng.standard_normal((COUNTS[t], d)).astype(np.float32)
                  for t, d in DIMS.items()}
        self.y = rng.integers(0, CLASSES, P).astype(np.int64)
        perm = rng.permutation(P)
        self.split = {"train": np.sort(perm[:200]),
                      "test": np.sort(perm[200:])}
        self.files = {}
        for r in ("cites", "writes", "tags"):
            self._save(r + ".tsv", self.rels[r][2])
        for t, a in self.x.items():
            self._save(t + ".npy", a)
        self._save("labels.npy", self.y)
        for s, a in self.split.items():
            self._save(s + ".npy", a)
        self.w = self._edge_rows(w)
        self._save("w.npy", self.w)

    @staticmethod
    def _edge_rows(edges):
        """Table w of `edges`: row i is (i, source, target, a random value),
        exact in float32 for these small ids; its own generator leaves the
        other arrays as they were."""
        n = len(edges)
        noise = np.random.default_rng(12).standard_normal(n)
        return np.column_stack([np.arange(n), edges[:, 0], edges[:, 1],
                                noise]).astype(np.float32)

    def _save(self, name, a):
        path = os.path.join(self.tmp, name)
        if name.endswith(".tsv"):
            np.savetxt(path, a, fmt="%d", delimiter="\t")
        else:
            np.save(path, a)
        self.files[name] = path

    def has_edges(self, rel, src, dst):
        """Whether each (src, dst) pair of type-local ids is an edge of
        relation `rel` in its file."""
        s, d, e = self.rels[rel]
        n = COUNTS[d]
        keys = np.unique(e[:, 0] * n + e[:, 1])
        k = src * n + dst
        pos = np.minimum(np.searchsorted(keys, k), len(keys) - 1)
        return keys[pos] == k


def build_hetero_db(tmp):
    """Write the files into folder `tmp` and build mag.gnndb there from
    them; the TypedFiles, with .path the database and .offset the first
    global id of each type (DESCRIBE's type.T.offset)."""
    d = TypedFiles(tmp)
    d.path = os.path.join(tmp, "mag.gnndb")
    f = lambda name: quote(d.files[name])
    sql = "CREATE GRAPH mag;" + "".join(
        "CREATE NODES %s IN mag COUNT %d;" % kv for kv in COUNTS.items())
    sql += ("CREATE RELATION cites IN mag FROM paper TO paper FROM %s;"
            % f("cites.tsv") +
            "CREATE RELATION writes IN mag FROM author TO paper FROM %s "
            "WITH REVERSE;" % f("writes.tsv") +
            "CREATE RELATION tags IN mag FROM field TO paper FROM %s;"
            % f("tags.tsv"))
    sql += "".join("IMPORT FEATURES feat INTO mag.%s FROM %s;"
                   % (t, f(t + ".npy")) for t in DIMS)
    sql += "IMPORT EDGE FEATURES w INTO mag.writes FROM %s;" % f("w.npy")
    sql += "IMPORT LABELS INTO mag.paper FROM %s;" % f("labels.npy")
    sql += "".join("CREATE SPLIT %s ON mag.paper FROM %s;" % (s, f(s + ".npy"))
                   for s in d.split)
    with gnndb.connect(d.path) as conn:
        conn.execute(sql)
        info = dict(conn.execute("DESCRIBE mag;"))
    d.offset = {t: int(info["type.%s.offset" % t]) for t in COUNTS}
    return d
