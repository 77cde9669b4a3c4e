"""PROPAGATE and SCAN: the propagated table against a scipy computation of
[X, ÂX, Â²X, Â³X], its bytes independent of threads and memory_limit, and
SCAN's chunk-shuffled batches checked against the rows and labels numpy
reads from the original files."""
import os

import numpy as np
import pytest

import gnndb
from conftest import build_cora

sp = pytest.importorskip("scipy.sparse")

HOPS = 3


@pytest.fixture(scope="module")
def wdb(cora, tmp_path_factory):
    """A writable database of its own (PROPAGATE writes)."""
    path = str(tmp_path_factory.mktemp("prop") / "cora.gnndb")
    build_cora(path, cora.dir)
    return path


def reference(cora, norm, hops=HOPS):
    """[X, ÂX, ..., Â^hops X] in float64. Row v of A holds v's stored
    neighbours: the sources u of the edges u -> v."""
    n = cora.num_nodes
    e = cora.edges
    a = sp.csr_matrix((np.ones(len(e)), (e[:, 1], e[:, 0])), shape=(n, n))
    m = a + sp.eye(n)
    d = np.asarray(m.sum(axis=1)).ravel()
    if norm == "sym":
        ah = sp.diags(d ** -0.5) @ m @ sp.diags(d ** -0.5)
    else:
        ah = sp.diags(1.0 / d) @ m
    h = [cora.x.astype(np.float64)]
    for _ in range(hops):
        h.append(ah @ h[-1])
    return np.hstack(h)


def table(conn, name, n):
    """The whole table, row v at index v, read with SCAN."""
    out = None
    for b in conn.sample("SCAN %s ON cora SEEDS ALL BATCH 1000;" % name):
        if out is None:
            out = np.zeros((n, b.x_dim), dtype=np.float32)
        out[b.n_id] = b.x
    return out


@pytest.mark.parametrize("norm", ["sym", "row"])
def test_propagate_matches_scipy(cora, wdb, norm):
    with gnndb.connect(wdb) as c:
        c.execute("PROPAGATE feat OVER cora HOPS %d NORMALIZE %s INTO p_%s;"
                  % (HOPS, norm, norm))
        got = table(c, "p_" + norm, cora.num_nodes)
    want = reference(cora, norm)
    assert got.shape == (cora.num_nodes, (HOPS + 1) * cora.x.shape[1])
    np.testing.assert_array_equal(got[:, :cora.x.shape[1]], cora.x)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_default_normalisation_is_sym(cora, wdb):
    with gnndb.connect(wdb) as c:
        c.execute("PROPAGATE feat OVER cora HOPS 1 INTO p_default;")
        got = table(c, "p_default", cora.num_nodes)
    np.testing.assert_allclose(got, reference(cora, "sym", 1), rtol=1e-4,
                               atol=1e-6)


def test_out_of_core_and_threads_give_identical_bytes(cora, wdb):
    # 15MB leaves tiles of about 500 rows: 6 target x 6 source tiles
    with gnndb.connect(wdb) as c:
        c.execute("PRAGMA memory_limit = '15MB'; PRAGMA threads = 1;"
                  "PROPAGATE feat OVER cora HOPS 3 INTO p_t1;"
                  "PRAGMA threads = 2;"
                  "PROPAGATE feat OVER cora HOPS 3 INTO p_t2;"
                  "PRAGMA memory_limit = '1GB';"
                  "PROPAGATE feat OVER cora HOPS 3 INTO p_big;")
        t1 = table(c, "p_t1", cora.num_nodes)
        t2 = table(c, "p_t2", cora.num_nodes)
        big = table(c, "p_big", cora.num_nodes)
    assert t1.tobytes() == t2.tobytes()
    assert t1.tobytes() == big.tobytes()
    np.testing.assert_allclose(t1, reference(cora, "sym"), rtol=1e-4,
                               atol=1e-6)


def data_files(db):
    """Block files and temporary files: what a statement could leave."""
    return sorted(f for f in os.listdir(db)
                  if f.endswith(".blk") or f.endswith(".tmp") or
                  f.startswith(".gnndb"))


def scan(conn, sql):
    return [(b.epoch, b.batch, b.n_id.copy(), b.x.copy(),
             None if b.y is None else b.y.copy(), b.num_edges, b.num_hops)
            for b in conn.sample(sql)]


def test_scan_chunks(cora, conn):
    train = np.sort(cora.split["train"])
    sql = "SCAN feat SEEDS train BATCH 16 SHUFFLE CHUNK 4 SEED 9 EPOCHS 3;"
    got = scan(conn, sql)
    chunks = [tuple(train[i:i + 4]) for i in range(0, len(train), 4)]
    orders = []
    for ep in range(3):
        bs = [g for g in got if g[0] == ep]
        assert [g[1] for g in bs] == list(range(len(bs)))
        ids = np.concatenate([g[2] for g in bs])
        # every seed exactly once per epoch
        assert sorted(ids.tolist()) == train.tolist()
        for _, _, n_id, x, y, ne, nh in bs:
            assert ne == 0 and nh == 0
            np.testing.assert_array_equal(x, cora.x[n_id])
            np.testing.assert_array_equal(y, cora.y[n_id])
            # batches are runs of whole chunks (16 = 4 chunks of 4)
            runs = [tuple(n_id[i:i + 4]) for i in range(0, len(n_id), 4)]
            assert all(r in chunks for r in runs), runs
        orders.append(ids.tolist())
    # shuffled, and differently each epoch
    assert orders[0] != train.tolist()
    assert orders[0] != orders[1]
    # a different SEED, a different order; the same SEED, the same bytes
    other = scan(conn, sql.replace("SEED 9", "SEED 10"))
    assert [g[2].tolist() for g in other] != [g[2].tolist() for g in got]
    again = scan(conn, sql)
    assert all((a[2] == b[2]).all() and a[3].tobytes() == b[3].tobytes()
               for a, b in zip(got, again))


def test_scan_without_chunk_is_a_plain_shuffle(cora, conn):
    ids = np.concatenate([g[2] for g in scan(
        conn, "SCAN feat SEEDS ALL BATCH 500 SHUFFLE SEED 1;")])
    assert sorted(ids.tolist()) == list(range(cora.num_nodes))
    # far from ascending: few neighbours in the order are consecutive ids
    assert np.mean(np.diff(ids) == 1) < 0.01


def test_scan_without_shuffle_is_ascending(cora, conn):
    got = scan(conn, "SCAN feat SEEDS (5, 3, 9, 3) BATCH 2 LIMIT 1;")
    assert len(got) == 1
    assert got[0][2].tolist() == [3, 5]
    np.testing.assert_array_equal(got[0][3], cora.x[[3, 5]])


def test_scan_reads_few_blocks_per_batch(cora, wdb):
    # chunks of 64 contiguous rows: each batch of 64 rows lies in at most 2
    # of the 182-row blocks; a plain shuffle needs nearly all 15
    with gnndb.connect(wdb, readonly=True) as c:
        it = c.sample("SCAN feat SEEDS ALL BATCH 64 SHUFFLE CHUNK 64 SEED 2 "
                      "LIMIT 10;")
        for _ in range(10):
            next(it)
        chunked = it.status(gnndb.STATUS_CACHE_MISSES) + \
            it.status(gnndb.STATUS_CACHE_HITS)
        it.close()
        it = c.sample("SCAN feat SEEDS ALL BATCH 64 SHUFFLE SEED 2 LIMIT 10;")
        for _ in range(10):
            next(it)
        plain = it.status(gnndb.STATUS_CACHE_MISSES) + \
            it.status(gnndb.STATUS_CACHE_HITS)
        it.close()
    # (+1 a batch: the label block)
    assert chunked <= 30
    assert plain > 100


@pytest.mark.parametrize("sql, code", [
    ("PROPAGATE nope OVER cora HOPS 2 INTO x;", gnndb.NOTFOUND),
    ("PROPAGATE feat OVER nograph HOPS 2 INTO x;", gnndb.NOTFOUND),
    ("PROPAGATE feat OVER cora HOPS 2 INTO feat;", gnndb.EXISTS),
    ("PROPAGATE feat OVER cora HOPS 0 INTO x;", gnndb.RANGE),
    ("PROPAGATE feat OVER cora HOPS 9 INTO x;", gnndb.RANGE),
    ("PROPAGATE feat OVER cora HOPS 2 NORMALIZE col INTO x;", gnndb.SYNTAX),
    ("SCAN feat SEEDS ALL BATCH 0;", gnndb.RANGE),
    ("SCAN feat BATCH 8 CHUNK 0;", gnndb.RANGE),
    ("SCAN feat SEEDS ALL;", gnndb.SYNTAX),
    ("SCAN nope BATCH 8;", gnndb.NOTFOUND),
    ("SCAN feat ON nograph BATCH 8;", gnndb.NOTFOUND),
])
def test_errors_change_nothing(wdb, sql, code):
    before = data_files(wdb)
    with gnndb.connect(wdb) as c:
        graphs = c.execute("SHOW GRAPHS;")
        with pytest.raises(gnndb.Error) as ex:
            c.execute(sql)
        assert ex.value.code == code, str(ex.value)
        assert c.execute("SHOW GRAPHS;") == graphs
    assert data_files(wdb) == before


def test_interrupt_leaves_nothing_behind(wdb):
    before = data_files(wdb)
    calls = []
    with gnndb.connect(wdb) as c:
        graphs = c.execute("SHOW GRAPHS;")
        c.set_progress_handler(lambda done, total: calls.append(done) or
                               len(calls) >= 3)
        with pytest.raises(gnndb.Error) as ex:
            c.execute("PRAGMA memory_limit = '15MB';"
                      "PROPAGATE feat OVER cora HOPS 2 INTO p_stopped;")
        assert ex.value.code == gnndb.INTERRUPT
        c.set_progress_handler(None)
        assert c.execute("SHOW GRAPHS;") == graphs
    assert len(calls) == 3
    assert data_files(wdb) == before


def test_lists_spanning_blocks(tmp_path):
    """A hub whose list fills several 4KB graph blocks (about 1000
    neighbours each): its objects arrive out of order and are summed after
    the fetch; the result matches scipy and does not depend on threads or
    tiling (7MB leaves tiles of about 650 of these 4KB rows)."""
    rng = np.random.default_rng(5)
    n, dim = 3000, 1024
    src = rng.integers(0, n, 6000)
    dst = rng.integers(0, n, 6000)
    hub_src = np.arange(1, 2800)            # 2799 in-neighbours of node 0
    src = np.concatenate([src, hub_src, np.arange(2000, 2300)])
    dst = np.concatenate([dst, np.zeros_like(hub_src),
                          np.full(300, 1500)])  # and a second, smaller hub
    np.savetxt(tmp_path / "e.tsv", np.stack([src, dst], 1), fmt="%d",
               delimiter="\t")
    x = rng.standard_normal((n, dim)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    db = str(tmp_path / "hub.gnndb")
    with gnndb.connect(db) as c:
        c.execute("CREATE GRAPH g FROM '%s' NODES %d BLOCK SIZE 4KB;"
                  "IMPORT FEATURES x INTO g FROM '%s' BLOCK SIZE 64KB;"
                  % (tmp_path / "e.tsv", n, tmp_path / "x.npy"))
        blocks = dict(c.execute("DESCRIBE g;"))["graph_blocks"]
        c.execute("PRAGMA threads = 1; PROPAGATE x OVER g HOPS 2 INTO p1;"
                  "PRAGMA threads = 2; PROPAGATE x OVER g HOPS 2 INTO p2;"
                  "PRAGMA memory_limit = '7MB';"
                  "PROPAGATE x OVER g HOPS 2 NORMALIZE row INTO r_small;"
                  "PRAGMA memory_limit = '1GB';"
                  "PROPAGATE x OVER g HOPS 2 NORMALIZE row INTO r_big;")

        def whole(name):
            out = np.zeros((n, 3 * dim), dtype=np.float32)
            for b in c.sample("SCAN %s SEEDS ALL BATCH 700;" % name):
                out[b.n_id] = b.x
            return out
        p1, p2 = whole("p1"), whole("p2")
        r_small, r_big = whole("r_small"), whole("r_big")
    assert int(blocks) > 5
    a = sp.csr_matrix((np.ones(len(src)), (dst, src)), shape=(n, n))
    m = a + sp.eye(n)
    d = np.asarray(m.sum(axis=1)).ravel()
    for got, ah in ((p1, sp.diags(d ** -0.5) @ m @ sp.diags(d ** -0.5)),
                    (r_big, sp.diags(1.0 / d) @ m)):
        h = [x.astype(np.float64)]
        for _ in range(2):
            h.append(ah @ h[-1])
        np.testing.assert_allclose(got, np.hstack(h), rtol=1e-4, atol=1e-5)
    assert p1.tobytes() == p2.tobytes()
    assert r_small.tobytes() == r_big.tobytes()


def test_reordered_graph_keeps_user_ids(cora, tmp_path):
    """With REORDER the rows are stored in another order; PROPAGATE works
    in that order and SCAN gives the user's ids back, so the rows still
    match scipy's by node id."""
    db = str(tmp_path / "re.gnndb")
    d = cora.dir
    with gnndb.connect(db) as c:
        c.execute("CREATE GRAPH cora FROM '%s/edges.tsv' REORDER degree;"
                  "IMPORT FEATURES feat INTO cora FROM '%s/features.npy';"
                  "IMPORT LABELS INTO cora FROM '%s/labels.npy';"
                  "PROPAGATE feat OVER cora HOPS 2 NORMALIZE row INTO pp;"
                  % (d, d, d))
        got = table(c, "pp", cora.num_nodes)
        ids = []
        for b in c.sample("SCAN feat SEEDS (0, 1, 2, 3) BATCH 4;"):
            ids = b.n_id.tolist()
            np.testing.assert_array_equal(b.x, cora.x[b.n_id])
            np.testing.assert_array_equal(b.y, cora.y[b.n_id])
    assert sorted(ids) == [0, 1, 2, 3]
    np.testing.assert_allclose(got, reference(cora, "row", 2), rtol=1e-4,
                               atol=1e-6)


def test_scan_progress_and_interrupt(conn):
    seen = []
    conn.set_progress_handler(lambda done, total: seen.append((done, total))
                              or done >= 2)
    try:
        it = conn.sample("SCAN feat SEEDS ALL BATCH 100 SHUFFLE SEED 1;")
        with pytest.raises(gnndb.Error) as ex:
            for _ in it:
                pass
        assert ex.value.code == gnndb.INTERRUPT
    finally:
        conn.set_progress_handler(None)
    assert seen == [(1, 28), (2, 28)]
