"""IMPORT OGB against numpy: a small random dataset written by numpy in
OGB's binary and CSV layouts (float labels with NaN for unlabelled nodes,
Fortran-order features in the binary one) comes back through the engine as
the same edges, feature rows, labels (NaN as -1) and splits."""
import gzip
import os

import numpy as np
import pytest

import gnndb
from conftest import quote

N, E, DIM = 60, 300, 5


def dataset(seed=3):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, N, E)
    dst = rng.integers(0, N, E)
    keep = src != dst
    edges = np.unique(np.stack([src[keep], dst[keep]], 1), axis=0)
    x = rng.standard_normal((N, DIM)).astype(np.float32)
    y = rng.integers(0, 4, N).astype(np.float64)
    y[rng.random(N) < 0.3] = np.nan
    perm = rng.permutation(N)
    split = {"train": perm[:30], "valid": perm[30:45], "test": perm[45:]}
    return edges, x, y, split


def gz_lines(path, rows):
    with gzip.open(path, "wt") as f:
        f.writelines(r + "\n" for r in rows)


def write_splits(root, split, name="random"):
    d = os.path.join(root, "split", name)
    os.makedirs(d)
    for k, ids in split.items():
        gz_lines(os.path.join(d, k + ".csv.gz"), ["%d" % v for v in ids])


def write_binary(root, edges, x, y, split):
    raw = os.path.join(root, "raw")
    os.makedirs(raw)
    np.savez_compressed(os.path.join(raw, "data.npz"),
                        edge_index=edges.T.astype(np.int64),
                        num_nodes_list=np.array([N], np.int64),
                        num_edges_list=np.array([len(edges)], np.int64),
                        node_feat=np.asfortranarray(x))
    np.savez_compressed(os.path.join(raw, "node-label.npz"),
                        node_label=y.reshape(-1, 1))
    write_splits(root, split)


def write_csv(root, edges, x, y, split):
    raw = os.path.join(root, "raw")
    os.makedirs(raw)
    gz_lines(os.path.join(raw, "edge.csv.gz"), ["%d,%d" % tuple(e)
                                                for e in edges])
    gz_lines(os.path.join(raw, "num-node-list.csv.gz"), ["%d" % N])
    gz_lines(os.path.join(raw, "node-feat.csv.gz"),
             [",".join("%.9g" % v for v in row) for row in x])
    gz_lines(os.path.join(raw, "node-label.csv.gz"),
             ["nan" if np.isnan(v) else "%d" % v for v in y])
    write_splits(root, split)


@pytest.mark.parametrize("layout", [write_binary, write_csv])
def test_ogb_import_matches_numpy(tmp_path, layout):
    edges, x, y, split = dataset()
    root = str(tmp_path / "ogbn_small")
    layout(root, edges, x, y, split)
    with gnndb.connect(str(tmp_path / "o.gnndb")) as c:
        c.execute("IMPORT OGB %s AS g;" % quote(root))
        # every node a seed, every in-neighbour sampled: the whole graph
        with c.sample("SAMPLE -1 FROM g SEEDS ALL FEATURES feat BATCH %d;"
                      % N) as it:
            b = next(it)
            n_id = b.n_id.copy()
            assert sorted(n_id[:N]) == list(range(N))
            np.testing.assert_array_equal(b.x, x[n_id])
            want_y = np.where(np.isnan(y), -1, y).astype(np.int64)
            np.testing.assert_array_equal(b.y, want_y[n_id[:N]])
            got = {(int(n_id[s]), int(n_id[d])) for s, d in b.edge_index.T}
            assert got == {tuple(map(int, e)) for e in edges}
        for name, ids in split.items():
            with c.sample("SAMPLE 1 FROM g SEEDS %s BATCH %d;"
                          % (name, N)) as it:
                b = next(it)
                assert sorted(b.n_id[:b.batch_size]) == sorted(ids)
        info = dict(c.execute("DESCRIBE g;"))
        assert int(info["nodes"]) == N and int(info["edges"]) == len(edges)
        counts = np.bincount(y[~np.isnan(y)].astype(int), minlength=4)
        for k in range(4):
            assert int(info["label.class.%d" % k]) == counts[k]


def test_ogb_failure_leaves_nothing(tmp_path):
    edges, x, y, split = dataset()
    root = str(tmp_path / "ogbn_bad")
    write_binary(root, edges, x, y, split)
    np.savez_compressed(os.path.join(root, "raw", "node-label.npz"),
                        node_label=y[:-1].reshape(-1, 1))
    db = str(tmp_path / "b.gnndb")
    with gnndb.connect(db) as c:
        before = sorted(os.listdir(db))
        with pytest.raises(gnndb.Error) as ei:
            c.execute("IMPORT OGB %s AS g;" % quote(root))
        assert "node-label.npz:node_label has %d rows" % (N - 1) in \
            ei.value.message
        assert c.execute("SHOW GRAPHS;") == []
        assert sorted(os.listdir(db)) == before


def add_year(root, layout, year):
    """node_year as OGB ships it (arxiv, papers100M): a member of data.npz
    of shape (N, 1), or raw/node_year.csv.gz, one year a line."""
    raw = os.path.join(root, "raw")
    if layout is write_binary:
        data = dict(np.load(os.path.join(raw, "data.npz")))
        data["node_year"] = year.reshape(-1, 1)
        np.savez_compressed(os.path.join(raw, "data.npz"), **data)
    else:
        gz_lines(os.path.join(raw, "node_year.csv.gz"),
                 ["%d" % v for v in year])


@pytest.mark.parametrize("layout", [write_binary, write_csv])
def test_ogb_node_year_becomes_node_times(tmp_path, layout):
    """IMPORT OGB of a dataset with node_year gives the node times IMPORT
    NODE TIMES gives from the same years: AT NODE TIME batches equal digest
    for digest; a dataset without node_year gets none, as before."""
    edges, x, y, split = dataset()
    year = np.random.default_rng(5).integers(1990, 2021, N).astype(np.int64)
    np.save(tmp_path / "year.npy", year)
    np.save(tmp_path / "et.npy", np.random.default_rng(6).integers(
        1990, 2021, len(edges)).astype(np.int64))
    timed, plain = str(tmp_path / "timed"), str(tmp_path / "plain")
    layout(timed, edges, x, y, split)
    add_year(timed, layout, year)
    layout(plain, edges, x, y, split)
    sql = ("SAMPLE 3,3 FROM g SEEDS train AT NODE TIME TEMPORAL LAST "
           "BATCH 8 SEED 1;")
    digests = []
    for root in (timed, plain):
        with gnndb.connect(root + ".gnndb") as c:
            c.execute("IMPORT OGB %s AS g;" % quote(root))
            d = dict(c.execute("DESCRIBE g;"))
            has = "node_times" in d
            assert has == (root == timed)
            if has:     # node_year's range, written with it
                assert (d["node_times.min"], d["node_times.max"]) == \
                    (year.min(), year.max())
            if not has:
                c.execute("IMPORT NODE TIMES INTO g FROM %s;" %
                          quote(str(tmp_path / "year.npy")))
            c.execute("IMPORT EDGE TIMES INTO g FROM %s;" %
                      quote(str(tmp_path / "et.npy")))
            digests.append([b.digest for b in c.sample(sql)])
    assert digests[0] == digests[1] and len(digests[0]) == 4


def test_ogb_bad_node_year_leaves_nothing(tmp_path):
    edges, x, y, split = dataset()
    root = str(tmp_path / "ogbn_bad")
    write_csv(root, edges, x, y, split)
    rows = ["%d" % (2000 + i) for i in range(N)]
    rows[7] = "nan"
    gz_lines(os.path.join(root, "raw", "node_year.csv.gz"), rows)
    path = str(tmp_path / "b.gnndb")
    with gnndb.connect(path) as c:
        c.execute("PRAGMA threads = 1;")
    files = sorted(os.listdir(path))
    with gnndb.connect(path) as c:
        with pytest.raises(gnndb.Error) as ex:
            c.execute("IMPORT OGB %s AS g;" % quote(root))
        assert "node_year.csv.gz:8:1: expected an integer time, found 'nan'" \
            in str(ex.value)
        assert c.execute("SHOW GRAPHS;") == []
    assert sorted(os.listdir(path)) == files
