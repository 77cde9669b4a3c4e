"""Link batches (SAMPLE ... EDGES split NEGATIVE k) through the binding and
gnndb.torch, checked against cora's raw files with numpy: the fields' shapes
and dtypes, positives that are edges of their split, EXCLUDE SEEDS and
EXCLUDE SPLIT against the sampled edges' endpoints read back from the edge
file by e_id, negatives drawn uniformly (chi-square) and, with STRICT, never
edges, TRIPLET's arrays, EDGE FEATURES rows, batches that neither HYPERBATCH
nor spilling changes, and the engine's digest recomputed from the arrays. The
database (graphs `und` and `dir`) is linkdb.py's."""
import numpy as np
import pytest

import gnndb
from batch_digest import digest
from conftest import run_example
from linkdb import EDGE_DIM


def run(link, sql, pragmas=None):
    """Every batch of `sql` on the link database, copied (after the
    statements `pragmas`, when given)."""
    with gnndb.connect(link.path, readonly=True) as conn:
        if pragmas:
            conn.execute(pragmas)
        return [b.copy() for b in conn.sample(sql)]


def label_pairs(b):
    """(src, dst) global ids of the batch's labelled pairs, positives first
    (binary), or of its positives and (src, dst_neg) (TRIPLET)."""
    if b.edge_label_index is not None:
        return b.n_id[b.edge_label_index[0]], b.n_id[b.edge_label_index[1]]
    return b.n_id[b.src_index], b.n_id[b.dst_pos_index]


def num_pos(b):
    """B, the batch's seed edges: num_pos with TRIPLET; the engine leaves
    num_pos and num_neg 0 in a binary batch, whose edge_label counts them."""
    if b.edge_label is not None:
        return int((b.edge_label == 1).sum())
    return b.num_pos


def positives(b):
    s, d = label_pairs(b)
    k = num_pos(b)
    return s[:k], d[:k]


def sampled(b):
    """Global (source, target) of each sampled edge."""
    return b.n_id[b.edge_index[0]], b.n_id[b.edge_index[1]]


def check_common(link, b, k):
    """What every link batch satisfies."""
    assert b.is_link and b.y is None
    n, e = b.num_nodes, b.num_edges
    for name, shape, dtype in (("n_id", (n,), np.int64),
                               ("edge_index", (2, e), np.int64),
                               ("e_id", (e,), np.int64)):
        a = getattr(b, name)
        assert a.shape == shape and a.dtype == dtype, name
    assert b.x.shape == (n, link.cora.x.shape[1]) and b.x.dtype == np.float32
    np.testing.assert_array_equal(b.x, link.cora.x[b.n_id])
    if b.src_index is not None:
        assert b.num_neg == k
    else:
        assert b.num_label_edges == (k + 1) * num_pos(b)
    # n_id starts with the distinct endpoints of every labelled pair,
    # ascending (user id = internal id here); hops follow as node sampling
    # orders them.
    m = int(b.num_sampled_nodes[0])
    assert b.batch_size == m
    assert sum(b.num_sampled_nodes) == n and sum(b.num_sampled_edges) == e
    ends = b.n_id[:m]
    assert np.all(np.diff(ends) > 0)
    assert len(np.unique(b.n_id)) == n
    if b.edge_label_index is not None:
        used = b.edge_label_index
    else:
        used = np.concatenate([b.src_index, b.dst_pos_index,
                               b.dst_neg_index.ravel()])
    assert used.min() >= 0 and used.max() < m
    assert np.array_equal(np.unique(b.n_id[used]), ends)
    assert digest(b) == b.digest


def test_binary_batch_fields(link):
    sql = ("SAMPLE 10,5 FROM und EDGES train FEATURES feat BATCH 256 "
           "NEGATIVE 2 SHUFFLE SEED 4;")
    bs = run(link, sql)
    seen = []
    for b in bs:
        check_common(link, b, 2)
        B = num_pos(b)
        L = 3 * B
        assert b.num_label_edges == L
        assert b.edge_label_index.shape == (2, L)
        assert b.edge_label_index.dtype == np.int64
        assert b.edge_label.dtype == np.float32
        np.testing.assert_array_equal(b.edge_label,
                                      np.r_[np.ones(B), np.zeros(2 * B)])
        for a in (b.src_index, b.dst_pos_index, b.dst_neg_index,
                  b.edge_attr):
            assert a is None
        s, d = positives(b)
        ids = link.und_ids(s, d)
        assert (ids >= 0).all()                  # every positive an edge
        seen.append(ids)
        # by default a negative keeps its positive's source
        ns, nd = label_pairs(b)
        np.testing.assert_array_equal(ns[B:], np.repeat(s, 2))
        # the sampled edges read back through e_id are cora's
        es, ed = sampled(b)
        fs, fd = link.pairs[b.e_id, 0], link.pairs[b.e_id, 1]
        assert np.all(((es == fs) & (ed == fd)) | ((es == fd) & (ed == fs)))
    # one epoch: each training edge once, none of valid's or test's
    seen = np.concatenate(seen)
    assert len(bs) == -(-len(seen) // 256)
    assert len(seen) == link.split_size["train"]
    assert len(seen) == len(np.unique(seen))
    other = np.concatenate([
        np.concatenate([link.und_ids(*positives(b)) for b in run(
            link, "SAMPLE 1 FROM und EDGES %s BATCH 512 NEGATIVE 1 SEED 1;"
            % s)]) for s in ("valid", "test")])
    assert len(np.intersect1d(seen, other)) == 0
    assert len(other) == link.split_size["valid"] + link.split_size["test"]
    # RANDOM draws each edge's split, so the sizes are near the fractions
    # (within 4 standard deviations) and cover every edge
    for name, f in (("train", 0.85), ("valid", 0.05), ("test", 0.10)):
        sd = (len(link.pairs) * f * (1 - f)) ** 0.5
        assert abs(link.split_size[name] - f * len(link.pairs)) < 4 * sd
    assert len(seen) + len(other) == len(link.pairs)


def test_positives_are_the_split_given_by_pairs(link):
    bs = run(link, "SAMPLE 5 FROM und EDGES pick BATCH 128 NEGATIVE 1 "
                   "SHUFFLE SEED 2;")
    ids = np.concatenate([link.und_ids(*positives(b)) for b in bs])
    np.testing.assert_array_equal(np.sort(ids), link.pick_ids)


@pytest.mark.parametrize("graph", ["und", "dir"])
def test_exclude_seeds_drops_the_batch_edges(link, graph):
    split = "train" if graph == "und" else "dtrain"
    ids_of = link.und_ids if graph == "und" else link.dir_ids
    base = ("SAMPLE -1 FROM %s EDGES %s BATCH 200 NEGATIVE 1 SHUFFLE SEED 9"
            % (graph, split))
    with_seeds = run(link, base + ";")
    without = run(link, base + " EXCLUDE SEEDS;")
    assert len(with_seeds) == len(without)
    for a, b in zip(with_seeds, without):
        seeds = ids_of(*positives(b))
        np.testing.assert_array_equal(seeds, ids_of(*positives(a)))
        assert (seeds >= 0).all()
        # Reference: the sampled edges' endpoints read back from the file
        # by e_id must be n_id[edge_index].
        es, ed = sampled(b)
        if graph == "und":
            fs, fd = link.pairs[b.e_id, 0], link.pairs[b.e_id, 1]
            ok = ((es == fs) & (ed == fd)) | ((es == fd) & (ed == fs))
        else:
            ok = (link.edges[b.e_id, 0] == es) & (link.edges[b.e_id, 1] == ed)
        assert ok.all()
        assert not np.isin(b.e_id, seeds).any()
        assert not np.isin(ids_of(es, ed), seeds).any()
        # ...while with the whole first hop they were there: every seed
        # edge points at its source, an endpoint (both directions in und).
        assert np.isin(seeds, a.e_id).all()
        if graph == "und":
            assert np.isin(seeds, ids_of(*sampled(a))).all()
        # EXCLUDE SEEDS removes those edges and nothing else
        kept = a.e_id[~np.isin(a.e_id, seeds)]
        np.testing.assert_array_equal(np.sort(b.e_id), np.sort(kept))
        assert digest(a) == a.digest and digest(b) == b.digest


def test_exclude_split_keeps_held_edges_out(link):
    sql = ("SAMPLE 10,10 FROM und EDGES pick BATCH 128 NEGATIVE 1 "
           "EXCLUDE SEEDS EXCLUDE SPLIT held, test SHUFFLE SEED 3;")
    test_ids = np.concatenate([link.und_ids(*positives(b)) for b in run(
        link, "SAMPLE 1 FROM und EDGES test BATCH 512 NEGATIVE 1 SEED 1;")])
    out = set()
    for b in run(link, sql):
        ids = link.und_ids(*sampled(b))
        assert (ids == b.e_id).all()
        assert not np.isin(ids, link.held_ids).any()
        assert not np.isin(ids, test_ids).any()
        out.update(ids.tolist())
    # without the clause held edges are sampled: the check can fail
    plain = np.concatenate([b.e_id for b in run(
        link, sql.replace("EXCLUDE SPLIT held, test ", ""))])
    assert np.isin(plain, link.held_ids).any()


def chisquare_uniform(values, n):
    from scipy.stats import chisquare
    counts = np.bincount(values, minlength=n)
    return chisquare(counts).pvalue


@pytest.mark.parametrize("mode", ["", "PAIRS"])
def test_negatives_are_uniform(link, mode):
    pytest.importorskip("scipy")
    sql = ("SAMPLE 1 FROM und EDGES train BATCH 1024 NEGATIVE 10 %s "
           "EPOCHS 2 SEED 5;" % mode)
    srcs, dsts = [], []
    for b in run(link, sql):
        s, d = label_pairs(b)
        B = num_pos(b)
        assert b.num_label_edges == 11 * B
        srcs.append(s[B:])
        dsts.append(d[B:])
        if not mode:
            np.testing.assert_array_equal(s[B:], np.repeat(s[:B], 10))
    dsts = np.concatenate(dsts)
    assert len(dsts) > 20 * link.n
    assert chisquare_uniform(dsts, link.n) > 1e-3
    if mode == "PAIRS":
        assert chisquare_uniform(np.concatenate(srcs), link.n) > 1e-3


def negatives(b):
    """(src, dst) global ids of the batch's negatives, in either form."""
    if b.src_index is not None:
        k = b.dst_neg_index.shape[1]
        return (np.repeat(b.n_id[b.src_index], k),
                b.n_id[b.dst_neg_index].ravel())
    s, d = label_pairs(b)
    B = num_pos(b)
    return s[B:], d[B:]


@pytest.mark.parametrize("mode", ["", "PAIRS", "TRIPLET"])
def test_strict_negatives_are_not_edges(link, mode):
    sql = ("SAMPLE 1 FROM und EDGES train BATCH 512 NEGATIVE 5 %s STRICT "
           "SEED 4;" % mode)
    for b in run(link, sql):
        assert (link.und_ids(*negatives(b)) < 0).all()
        assert digest(b) == b.digest
    # without STRICT some are (on cora about 1 in 700), so the check bites
    loose = run(link, sql.replace("STRICT ", ""))
    assert sum(int((link.und_ids(*negatives(b)) >= 0).sum())
               for b in loose) > 0


def test_link_batches_do_not_depend_on_hyperbatch(link):
    sql = ("SAMPLE 10,5 FROM und EDGES train FEATURES feat BATCH 128 "
           "NEGATIVE 2 EXCLUDE SEEDS EXCLUDE SPLIT valid EDGE FEATURES w "
           "SHUFFLE SEED 12")
    a = [(b.batch, b.digest) for b in run(link, sql + " HYPERBATCH 1;")]
    b = [(b.batch, b.digest) for b in run(link, sql + " HYPERBATCH 8;")]
    assert a == b and len(a) > 8


def test_spilled_link_batches_are_the_same(link):
    sql = ("SAMPLE 10,5 FROM und EDGES train FEATURES feat BATCH 128 "
           "NEGATIVE 1 TRIPLET EXCLUDE SEEDS SHUFFLE SEED 13 HYPERBATCH 8;")
    mem = run(link, sql, "PRAGMA spill = 'off'; PRAGMA threads = 2;")
    with gnndb.connect(link.path, readonly=True) as conn:
        conn.execute("PRAGMA spill = 'on'; PRAGMA threads = 2;")
        spilled, written = [], 0
        with conn.sample(sql) as it:
            for b in it:            # (the status goes once the run ends)
                spilled.append(b.copy())
                written = it.status(gnndb.STATUS_SPILL_WRITTEN)
    assert written > 0
    assert len(mem) == len(spilled) > 8
    for a, b in zip(mem, spilled):
        assert a.digest == b.digest == digest(b)
        for k in ("n_id", "e_id", "edge_index", "x", "src_index",
                  "dst_pos_index", "dst_neg_index"):
            np.testing.assert_array_equal(getattr(a, k), getattr(b, k))


@pytest.mark.parametrize("k", [1, 3])
def test_triplet(link, k):
    sql = ("SAMPLE 5,5 FROM und EDGES train FEATURES feat BATCH 100 "
           "NEGATIVE %d TRIPLET SHUFFLE SEED 8;" % k)
    bs = run(link, sql)
    for b in bs:
        check_common(link, b, k)
        B = b.num_pos
        assert b.edge_label_index is None and b.edge_label is None
        assert b.src_index.shape == b.dst_pos_index.shape == (B,)
        assert b.dst_neg_index.shape == (B, k)
        for a in (b.src_index, b.dst_pos_index, b.dst_neg_index):
            assert a.dtype == np.int64
        s, d = b.n_id[b.src_index], b.n_id[b.dst_pos_index]
        assert (link.und_ids(s, d) >= 0).all()
    assert sum(b.num_pos for b in bs) == link.split_size["train"]


@pytest.mark.parametrize("graph", ["und", "dir"])
def test_edge_features_are_the_rows_of_e_id(link, graph):
    ef = link.ef if graph == "und" else link.efd
    split = "train" if graph == "und" else "dtrain"
    sql = ("SAMPLE 10,10 FROM %s EDGES %s BATCH 300 NEGATIVE 1 EXCLUDE SEEDS "
           "EDGE FEATURES w SHUFFLE SEED 6;" % (graph, split))
    for b in run(link, sql):
        # x: the graph's only feature table, the default
        np.testing.assert_array_equal(b.x, link.cora.x[b.n_id])
        assert b.edge_attr_dim == EDGE_DIM
        assert b.edge_attr.shape == (b.num_edges, EDGE_DIM)
        assert b.edge_attr.dtype == np.float32
        np.testing.assert_array_equal(b.edge_attr, ef[b.e_id])
        assert digest(b) == b.digest


@pytest.mark.parametrize("sql", [
    "SAMPLE 10,10 FROM und EDGES train BATCH 300 NEGATIVE 1 EXCLUDE SEEDS "
    "EDGE FEATURES w SHUFFLE SEED 6",
    "SAMPLE 10,10 FROM und SEEDS ntrain FEATURES feat BATCH 64 "
    "EDGE FEATURES w SHUFFLE SEED 1"])
def test_spilled_edge_features_are_the_same_batches(link, sql, tmp_path):
    """Batches with EDGE FEATURES spill: their edge rows wait in the spill
    area with the node rows and come back in their edges' order."""
    want = run(link, sql + " HYPERBATCH 1;")
    pragmas = ("PRAGMA spill = 'on'; PRAGMA temp_dir = '%s';" % tmp_path)
    with gnndb.connect(link.path, readonly=True) as conn:
        conn.execute(pragmas)
        st = conn.sample(sql + " HYPERBATCH 5;")
        got, spilled = [], 0
        for b in st:
            got.append(b.copy())
            spilled = st.status(gnndb.STATUS_SPILL_WRITTEN)
        assert spilled > 0
    assert [b.digest for b in got] == [b.digest for b in want]
    for b in got:
        np.testing.assert_array_equal(b.edge_attr, link.ef[b.e_id])
        np.testing.assert_array_equal(b.x, link.cora.x[b.n_id])
        assert digest(b) == b.digest


def test_node_batch_with_edge_features(link):
    sql = ("SAMPLE 10,10 FROM und SEEDS ntrain FEATURES feat BATCH 64 "
           "EDGE FEATURES w SHUFFLE SEED 1;")
    for b in run(link, sql):
        assert not b.is_link and b.y is not None
        assert b.edge_label_index is None and b.src_index is None
        np.testing.assert_array_equal(b.edge_attr, link.ef[b.e_id])
        assert digest(b) == b.digest
    # and a node batch without them hashes exactly the four sections
    for b in run(link, sql.replace("EDGE FEATURES w ", "")):
        assert b.e_id is None and b.edge_attr is None
        assert digest(b) == b.digest


def test_stale_link_arrays_raise(link):
    with gnndb.connect(link.path, readonly=True) as conn:
        it = conn.sample("SAMPLE 5 FROM und EDGES train BATCH 64 NEGATIVE 1 "
                         "SEED 1;")
        b = next(it)
        assert b.edge_label_index.shape == (2, 128)
        next(it)
        with pytest.raises(gnndb.Error):
            b.edge_label_index
        it.close()


# -- gnndb.torch ---------------------------------------------------------

def test_torch_link_batch(link):
    torch = pytest.importorskip("torch")
    from gnndb.torch import LinkBatch, loader
    sql = ("SAMPLE 10,10 FROM und EDGES train FEATURES feat BATCH 256 "
           "NEGATIVE 1 EXCLUDE SEEDS EDGE FEATURES w SHUFFLE SEED 2;")
    ref = run(link, sql)
    out = list(loader(link.path, sql, pyg=False))
    assert len(out) == len(ref)
    for t, r in zip(out, ref):
        assert isinstance(t, LinkBatch)
        for k in ("n_id", "e_id", "edge_index", "x", "edge_attr",
                  "edge_label_index", "edge_label"):
            np.testing.assert_array_equal(t[k].numpy(), getattr(r, k))
        assert t.edge_label.dtype == torch.float32
        assert t.edge_label_index.dtype == torch.int64
        assert t.num_sampled_nodes == r.num_sampled_nodes.tolist()
        assert t.num_sampled_edges == r.num_sampled_edges.tolist()
        assert "src_index" not in t and "y" not in t.keys
        assert t.digest == r.digest
    sql = sql.replace("NEGATIVE 1", "NEGATIVE 1 TRIPLET")
    for t in loader(link.path, sql, pyg=False):
        assert t.edge_label_index is None
        assert t.dst_neg_index.shape == t.src_index.shape   # PyG's [B]


def test_torch_node_batch_with_edge_features(link):
    pytest.importorskip("torch")
    from gnndb.torch import NeighborBatch, loader
    sql = ("SAMPLE 10,10 FROM und SEEDS ntrain FEATURES feat BATCH 64 "
           "EDGE FEATURES w SHUFFLE SEED 1;")
    for t in loader(link.path, sql, pyg=False):
        assert isinstance(t, NeighborBatch) and "e_id" in t
        np.testing.assert_array_equal(t.edge_attr.numpy(),
                                      link.ef[t.e_id.numpy()])
    t = next(iter(loader(link.path, sql.replace("EDGE FEATURES w ", ""),
                         pyg=False)))
    assert t.e_id is None and "edge_attr" not in t


# -- the example ---------------------------------------------------------

def test_train_link_reaches_auc_085(cora):
    pytest.importorskip("torch")
    out, _ = run_example("train_link.py", cora, "--pyg", "no")
    lines = [l for l in out.splitlines() if l.startswith("test AUC ")]
    assert len(lines) == 1, out
    assert float(lines[0].split()[2]) >= 0.85, out


def test_train_link_fixed_seed_is_deterministic(cora):
    pytest.importorskip("torch")

    def lines(out):
        return [l for l in out.splitlines() if l.startswith(("epoch ",
                                                              "test AUC"))]
    a, _ = run_example("train_link.py", cora, "--pyg", "no", "--epochs", "2",
                       "--seed", "3")
    b, _ = run_example("train_link.py", cora, "--pyg", "no", "--epochs", "2",
                       "--seed", "3")
    assert len(lines(a)) == 3 and lines(a) == lines(b), a + "\n----\n" + b
