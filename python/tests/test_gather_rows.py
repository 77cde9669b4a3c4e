"""Gather copies rows of any width exactly: a table whose rows are a
multiple of 16 bytes (the width where the copy uses streaming stores) and
one whose rows are not, checked against numpy's own indexing, for one and
two threads and for a hyperbatch of several mini-batches."""
import os

import numpy as np
import pytest

import gnndb
from conftest import quote


@pytest.mark.parametrize("dim", [128, 5, 36])
@pytest.mark.parametrize("threads", [1, 2])
def test_x_rows_equal_the_table(cora, tmp_path, dim, threads):
    rng = np.random.default_rng(dim)
    feat = rng.standard_normal((cora.num_nodes, dim)).astype(np.float32)
    np.save(tmp_path / "f.npy", feat)
    db = str(tmp_path / "g.gnndb")
    with gnndb.connect(db) as conn:
        conn.execute("CREATE GRAPH g FROM %s;" %
                     quote(os.path.join(cora.dir, "edges.tsv")) +
                     "IMPORT FEATURES f INTO g FROM %s;" %
                     quote(tmp_path / "f.npy"))
        conn.execute("PRAGMA threads = %d;" % threads)
        n = 0
        for b in conn.sample("SAMPLE 10,10 FROM g FEATURES f BATCH 100 "
                             "HYPERBATCH 8 SHUFFLE SEED 3;"):
            nid = np.asarray(b.n_id)
            np.testing.assert_array_equal(np.asarray(b.x), feat[nid])
            n += 1
        assert n == (cora.num_nodes + 99) // 100
