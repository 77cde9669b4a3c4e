"""A feature table stored as float16 (IMPORT ... STORE float16) is served
as float32 rows equal to numpy's own widening of the halves, on every path
a row takes: gathered in memory, through the row cache, through the spill
area (spilled rounds, built beside the round handed out), and with one or
two threads. Special values (subnormals, infinities, NaN, -0) included;
a NaN must stay a NaN (the importer keeps no payloads), every other value
bit for bit."""
import os

import numpy as np
import pytest

import gnndb
from conftest import quote


def halves(n, dim, seed):
    """Random float16 rows with every kind of value in them."""
    rng = np.random.default_rng(seed)
    h = (rng.standard_normal((n, dim)) * 4).astype(np.float16)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 6e-8, -6e-8,
                        6.1e-5, 65504.0, -65504.0], dtype=np.float16)
    h.flat[:len(special)] = special
    # every bit pattern once, for the scalar and the vector widening alike
    allbits = np.arange(65536, dtype=np.uint16).view(np.float16)
    take = min(len(allbits), h.size - len(special))
    h.flat[len(special):len(special) + take] = allbits[:take]
    return h


def same_bits_or_nan(got, want):
    """got equals want bit for bit, except that a NaN matches any NaN."""
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got.view(np.uint32)[~nan],
                                  want.view(np.uint32)[~nan])


SETUPS = [
    ("in memory", "PRAGMA spill = 'off';"),
    ("row cache", "PRAGMA spill = 'off'; PRAGMA cache_policy = 'lru'; "
                  "PRAGMA feature_cache = '1MB';"),
    ("spilled", "PRAGMA spill = 'on';"),
]


@pytest.mark.parametrize("dim", [128, 7])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name,pragmas", SETUPS)
def test_float16_rows_widen_exactly(cora, tmp_path, dim, threads, name,
                                    pragmas):
    h = halves(cora.num_nodes, dim, dim)
    np.save(tmp_path / "h.npy", h)
    want = h.astype(np.float32)
    db = str(tmp_path / "g.gnndb")
    with gnndb.connect(db) as conn:
        conn.execute("CREATE GRAPH g FROM %s;" %
                     quote(os.path.join(cora.dir, "edges.tsv")) +
                     "IMPORT FEATURES f INTO g FROM %s STORE float16;" %
                     quote(tmp_path / "h.npy"))
        conn.execute("PRAGMA threads = %d; %s" % (threads, pragmas))
        n = 0
        for b in conn.sample("SAMPLE 10,10 FROM g FEATURES f BATCH 100 "
                             "HYPERBATCH 8 SHUFFLE SEED 3 LIMIT 20;"):
            same_bits_or_nan(np.asarray(b.x), want[np.asarray(b.n_id)])
            n += 1
        assert n == 20


def test_float16_digests_equal_a_float32_copy(cora, tmp_path):
    """The same halves stored as float16 and widened at import into a
    float32 table: every batch, spilled or not, has the same digest (no
    NaNs here: a digest hashes bits, and NaN bits may differ)."""
    h = halves(cora.num_nodes, 16, 1)
    h[np.isnan(h)] = 0
    np.save(tmp_path / "h.npy", h)
    db = str(tmp_path / "g.gnndb")
    q = ("SAMPLE 10,10,5 FROM g FEATURES %s BATCH 64 HYPERBATCH 6 "
         "SHUFFLE SEED 11 EPOCHS 2 LIMIT 50;")
    with gnndb.connect(db) as conn:
        conn.execute("CREATE GRAPH g FROM %s;" %
                     quote(os.path.join(cora.dir, "edges.tsv")) +
                     "IMPORT FEATURES half INTO g FROM %s STORE float16;" %
                     quote(tmp_path / "h.npy") +
                     "IMPORT FEATURES full INTO g FROM %s;" %
                     quote(tmp_path / "h.npy"))
        ref = [b.digest for b in conn.sample(q % "full")]
        for spill in ("off", "on"):
            conn.execute("PRAGMA spill = '%s'; PRAGMA threads = 2;" % spill)
            assert [b.digest for b in conn.sample(q % "half")] == ref


def test_sample_refuses_an_int8_table(cora, tmp_path):
    """SAMPLE serves float32 and float16 tables only: an int8 one is
    refused by name before any batch, and the database is unchanged."""
    q8 = (np.arange(cora.num_nodes * 4) % 100).astype(np.int8).reshape(-1, 4)
    np.save(tmp_path / "q.npy", q8)
    db = str(tmp_path / "g.gnndb")
    with gnndb.connect(db) as conn:
        conn.execute("CREATE GRAPH g FROM %s;" %
                     quote(os.path.join(cora.dir, "edges.tsv")) +
                     "IMPORT FEATURES q INTO g FROM %s STORE int8;" %
                     quote(tmp_path / "q.npy"))
        before = sorted(os.listdir(db))
        with pytest.raises(gnndb.Error) as ei:
            list(conn.sample("SAMPLE 10 FROM g FEATURES q BATCH 100;"))
        assert "feature table q is stored as int8" in str(ei.value)
        assert "float32 and float16 tables only" in str(ei.value)
        assert sorted(os.listdir(db)) == before
