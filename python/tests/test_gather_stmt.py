"""GATHER t ROWS (ids) | ROWS 'ids.npy': rows by index, in the order asked,
equal to numpy's own indexing of the file imported; each block read at most
once per statement; ids out of range refused before anything is read;
within memory_limit (chunks, or a refusal that states the bytes); the
tables of node types and relations. And SAMPLE ... SEEDS (...) IN ORDER,
which the PyG sampler plans its rounds with."""
import os

import numpy as np
import pytest

import gnndb
from conftest import quote

N, DIM = 200_000, 16


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """A graph of N nodes (a ring) with a float32 table of N x DIM (13 blocks
    of 1 MiB), a float16 copy and labels."""
    d = tmp_path_factory.mktemp("gather")
    rng = np.random.default_rng(5)
    src = np.arange(N, dtype=np.int64)
    np.stack([src, (src + 1) % N], axis=1).tofile(d / "ring.bin")
    feat = rng.standard_normal((N, DIM)).astype(np.float32)
    np.save(d / "feat.npy", feat)
    np.save(d / "half.npy", feat.astype(np.float16))
    y = rng.integers(0, 7, N).astype(np.int64)
    np.save(d / "y.npy", y)
    db = str(d / "g.gnndb")
    with gnndb.connect(db) as c:
        c.execute("CREATE GRAPH g FROM %s FORMAT bin NODES %d;"
                  % (quote(d / "ring.bin"), N) +
                  "IMPORT FEATURES feat INTO g FROM %s;" % quote(d / "feat.npy")
                  + "IMPORT FEATURES half INTO g FROM %s STORE float16;"
                  % quote(d / "half.npy") +
                  "IMPORT LABELS INTO g FROM %s;" % quote(d / "y.npy"))
        info = dict(c.execute("DESCRIBE g;"))
    blocks = sum(1 for k in info if k.startswith("file.f-"))
    return {"db": db, "feat": feat, "y": y, "dir": d, "files": blocks}


def feat_blocks(ids, rows_per_block):
    return len(np.unique(np.asarray(ids) // rows_per_block))


@pytest.mark.parametrize("n", [1, 1000, 1_000_000])
def test_rows_equal_numpy_indexing(big, n):
    ids = np.random.default_rng(n).integers(0, N, n)
    st = {}
    with gnndb.connect(big["db"], readonly=True) as c:
        got = c.gather("feat", ids, on="g", status=st)
    np.testing.assert_array_equal(got, np.load(big["dir"] / "feat.npy")[ids])
    assert st["chunks"] == 1
    # each block that holds a wanted row read once, whole or in pages
    rpb = (1 << 20) // (DIM * 4) - 1     # rows of a 1 MiB block, less header
    need = st["blocks_read"] + st["partial_blocks"]
    assert need <= feat_blocks(ids, rpb) + 1
    assert need >= feat_blocks(ids, rpb + 1)


def test_file_of_ids_any_integer_dtype(big, tmp_path):
    ids = np.random.default_rng(1).integers(0, N, 5000)
    want = big["feat"][ids]
    with gnndb.connect(big["db"], readonly=True) as c:
        for dt in (np.int32, np.uint32, np.int64):
            p = tmp_path / ("ids-%s.npy" % np.dtype(dt).name)
            np.save(p, ids.astype(dt))
            rows = [np.array(b.x) for b in
                    c.sample("GATHER feat ON g ROWS %s;" % quote(p))]
            np.testing.assert_array_equal(np.concatenate(rows), want)
            b = next(iter(c.sample("GATHER feat ROWS %s;" % quote(p))))
            np.testing.assert_array_equal(np.asarray(b.n_id), ids)


def test_float16_and_labels(big):
    ids = np.array([7, 3, 7, N - 1, 0])
    with gnndb.connect(big["db"], readonly=True) as c:
        half = c.gather("half", ids, on="g")
        y = c.gather("LABELS", ids, on="g")
    np.testing.assert_array_equal(
        half, big["feat"][ids].astype(np.float16).astype(np.float32))
    np.testing.assert_array_equal(y, big["y"][ids])


def test_one_row_reads_pages_not_the_block(big):
    with gnndb.connect(big["db"], readonly=True) as c:
        c.execute("PRAGMA read_granularity = 'page';")
        st = {}
        got = c.gather("feat", [123457], on="g", status=st)
    np.testing.assert_array_equal(got, big["feat"][[123457]])
    assert st["blocks_read"] == 0 and st["partial_blocks"] == 1
    assert st["bytes_read"] <= 3 * 4096


def test_out_of_range_reads_nothing(big):
    with gnndb.connect(big["db"], readonly=True) as c:
        for bad in ([0, N], [-1], [5, 2 ** 40]):
            with pytest.raises(gnndb.Error) as ei:
                c.gather("feat", bad, on="g")
            assert ei.value.code == gnndb.RANGE
            assert "nothing was read" in str(ei.value)
            assert "out of range" in str(ei.value)


def test_memory_limit_chunks_or_refuses(big, tmp_path):
    ids = np.random.default_rng(9).integers(0, N, 300_000)
    np.save(tmp_path / "ids.npy", ids)
    with gnndb.connect(big["db"], readonly=True) as c:
        c.execute("PRAGMA memory_limit = '24MB';")
        # a BATCH beyond the ids asks for no more than they need
        with c.sample("GATHER feat ON g ROWS (1,2,3) BATCH 10000000;") as it:
            assert len(list(it)) == 1
        with pytest.raises(gnndb.Error) as ei:
            c.sample("GATHER feat ON g ROWS %s BATCH 300000;"
                     % quote(tmp_path / "ids.npy"))
        assert ei.value.code == gnndb.NOMEM
        assert "memory_limit" in str(ei.value) and "MiB" in str(ei.value)
        st = {}
        got = c.gather("feat", ids, on="g", status=st)
        assert st["chunks"] > 1
        np.testing.assert_array_equal(got, big["feat"][ids])


def test_unknown_table_and_bad_files(big, tmp_path):
    with gnndb.connect(big["db"], readonly=True) as c:
        with pytest.raises(gnndb.Error) as ei:
            c.gather("nosuch", [1], on="g")
        assert ei.value.code == gnndb.NOTFOUND
        np.save(tmp_path / "f.npy", np.zeros(3, np.float32))
        with pytest.raises(gnndb.Error) as ei:
            c.sample("GATHER feat ROWS %s;" % quote(tmp_path / "f.npy"))
        assert ei.value.code == gnndb.FORMAT and "integers" in str(ei.value)
        np.save(tmp_path / "two.npy", np.zeros((3, 2), np.int64))
        with pytest.raises(gnndb.Error) as ei:
            c.sample("GATHER feat ROWS %s;" % quote(tmp_path / "two.npy"))
        assert "one column" in str(ei.value)
        with pytest.raises(gnndb.Error) as ei:
            c.sample("GATHER feat ON g;")
        assert ei.value.code == gnndb.SYNTAX and "ROWS" in str(ei.value)


def test_typed_tables(tmp_path):
    from heterodb import build_hetero_db
    d = build_hetero_db(str(tmp_path))
    with gnndb.connect(d.path, readonly=True) as c:
        ids = np.array([5, 0, 299, 5])
        np.testing.assert_array_equal(c.gather("feat", ids, on="mag.paper"),
                                      d.x["paper"][ids])
        np.testing.assert_array_equal(c.gather("feat", [199], on="mag.author"),
                                      d.x["author"][[199]])
        np.testing.assert_array_equal(c.gather("LABELS", ids, on="mag.paper"),
                                      d.y[ids])
        e = np.array([699, 1, 1])
        np.testing.assert_array_equal(c.gather("w", e, on="mag.writes"),
                                      d.w[e])
        np.testing.assert_array_equal(c.gather("w", e, on="mag.rev_writes"),
                                      d.w[e])
        with pytest.raises(gnndb.Error):
            c.gather("feat", [300], on="mag.paper")


def test_seeds_in_order(cora_db):
    order = [2000, 5, 1999, 17, 3, 100, 7]
    with gnndb.connect(cora_db, readonly=True) as c:
        got = [np.array(b.n_id[:b.batch_size]) for b in c.sample(
            "SAMPLE 5,5 FROM cora SEEDS (%s) IN ORDER BATCH 3 HYPERBATCH 3 "
            "SEED 1;" % ",".join(map(str, order)))]
        assert [g.tolist() for g in got] == [order[0:3], order[3:6], order[6:]]
        # a batch is the one SEEDS (its ids) gives alone, whatever the round
        one = [b.copy() for b in c.sample(
            "SAMPLE 5,5 FROM cora SEEDS (2000, 5, 1999) IN ORDER BATCH 3 "
            "SEED 1;")]
        assert len(one) == 1 and one[0].n_id[:3].tolist() == order[:3]
        for bad, code in (("(5, 3, 5) IN ORDER", gnndb.RANGE),
                          ("(5, 3) IN ORDER SHUFFLE", gnndb.SYNTAX),
                          ("train IN ORDER", gnndb.SYNTAX)):
            with pytest.raises(gnndb.Error) as ei:
                list(c.sample("SAMPLE 5 FROM cora SEEDS %s BATCH 2;" % bad))
            assert ei.value.code == code
