"""PyG interop, tested with PyG itself (torch_geometric 2.8, `make
pytest-pyg`): gnndb.torch's Data batches carry what the plain-tensor form
carries under PyG's NeighborLoader names, torch_geometric.nn.GraphSAGE gives
on a full-neighbourhood batch what it gives on the whole graph, trains to
cora's accuracy on gnndb batches, and gnndb.from_pyg exports a Data into a
database that samples exactly like one imported from the files.

Skipped, saying so, where torch_geometric cannot be imported (Debian's
python3): `make pyg-venv` installs it into build/pyg-venv."""
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
try:
    import torch_geometric  # noqa: F401
    from torch_geometric.data import Data
    from torch_geometric.nn import GraphSAGE
except ImportError as exc:
    pytest.skip("torch_geometric is not importable (%s): `make pytest-pyg` "
                "runs these tests in build/pyg-venv" % exc,
                allow_module_level=True)

import gnndb                                      # noqa: E402
from gnndb.torch import GnnDataset, NeighborBatch, loader, to_pyg  # noqa: E402

from conftest import run_example                  # noqa: E402

SQL = ("SAMPLE 10,10 FROM cora SEEDS train FEATURES feat BATCH 64 "
       "SHUFFLE SEED 5;")
PYG_FIELDS = ("x", "edge_index", "y", "n_id", "batch_size",
              "num_sampled_nodes", "num_sampled_edges")


def cora_data(cora, perm_seed=None):
    """cora's raw files as a PyG Data (raw features), with train/val/test
    masks; the edges in a random order when perm_seed is given."""
    edges = cora.edges
    if perm_seed is not None:
        edges = edges[np.random.default_rng(perm_seed).permutation(len(edges))]
    data = Data(x=torch.from_numpy(cora.x),
                edge_index=torch.from_numpy(np.ascontiguousarray(edges.T)),
                y=torch.from_numpy(cora.y))
    for s, idx in cora.split.items():
        mask = torch.zeros(cora.num_nodes, dtype=torch.bool)
        mask[torch.from_numpy(idx)] = True
        data[s + "_mask"] = mask
    return data


def test_default_form_is_pyg_data(cora_db):
    b = next(iter(loader(cora_db, SQL)))
    assert isinstance(b, Data)
    b = next(iter(GnnDataset(cora_db, SQL)))
    assert isinstance(b, Data)
    assert isinstance(next(iter(loader(cora_db, SQL, pyg=False))),
                      NeighborBatch)


def test_data_batches_equal_plain_tensor_batches(cora_db):
    pyg = list(loader(cora_db, SQL, pyg=True))
    plain = list(loader(cora_db, SQL, pyg=False))
    assert len(pyg) == len(plain) == 3
    for d, t in zip(pyg, plain):
        assert isinstance(d, Data) and isinstance(t, NeighborBatch)
        for k in ("x", "edge_index", "y", "n_id"):
            assert torch.equal(d[k], t[k]), k
            assert d[k].dtype == t[k].dtype, k
        assert d.batch_size == t.batch_size
        assert d.num_sampled_nodes == t.num_sampled_nodes
        assert d.num_sampled_edges == t.num_sampled_edges
        assert (d.epoch, d.batch_no, d.digest) == (t.epoch, t.batch, t.digest)
        assert d.num_nodes == t.num_nodes and d.num_edges == t.num_edges
        # PyG's own checks of a Data object
        d.validate(raise_on_error=True)
    # a DataLoader with two workers pickles Data batches across processes
    dl = torch.utils.data.DataLoader(GnnDataset(cora_db, SQL, pyg=True),
                                     batch_size=None, num_workers=2)
    assert sorted(b.digest for b in dl) == sorted(t.digest for t in plain)


def test_data_batch_has_the_layout_of_pyg_neighbor_loader(cora_db, cora):
    # What PyG's NeighborLoader gives (its own run needs pyg-lib or
    # torch-sparse, compiled extensions with no build for Debian's torch):
    # tensors x, edge_index, y, n_id; int batch_size; lists of int
    # num_sampled_nodes/edges, seeds first, edges grouped by hop.
    for d in loader(cora_db, SQL, pyg=True):
        for k in PYG_FIELDS:
            assert k in d, k
        assert d.x.dtype == torch.float32 and d.x.dim() == 2
        for k in ("edge_index", "y", "n_id"):
            assert d[k].dtype == torch.int64, k
        assert type(d.batch_size) is int
        for k in ("num_sampled_nodes", "num_sampled_edges"):
            assert type(d[k]) is list and all(type(v) is int for v in d[k])
        assert len(d.num_sampled_nodes) == 3 and len(d.num_sampled_edges) == 2
        assert d.num_sampled_nodes[0] == d.batch_size
        assert sum(d.num_sampled_nodes) == d.num_nodes
        assert sum(d.num_sampled_edges) == d.num_edges
        ends = np.cumsum([0] + d.num_sampled_edges)
        firsts = np.cumsum([0] + d.num_sampled_nodes)
        for h in range(2):
            dst = d.edge_index[1, ends[h]:ends[h + 1]]
            assert int(dst.min()) >= firsts[h] and \
                int(dst.max()) < firsts[h + 1], (h, d)
        # PyG's y is y[n_id]; gnndb's holds the seeds' labels, its first rows
        assert torch.equal(d.y[:d.batch_size],
                           torch.from_numpy(cora.y)[d.n_id[:d.batch_size]])


def test_full_neighbourhood_batch_is_pyg_k_hop_subgraph(cora_db, cora):
    # Reference: torch_geometric.utils.k_hop_subgraph. With every neighbour
    # sampled, n_id holds the 2-hop neighbourhood of the seeds, and the
    # edges are those pointing at a node within 1 hop of them.
    from torch_geometric.utils import k_hop_subgraph
    data = cora_data(cora)
    sql = "SAMPLE -1,-1 FROM cora SEEDS val FEATURES feat BATCH 100 SEED 1;"
    for d in loader(cora_db, sql, pyg=True):
        seeds = d.n_id[:d.batch_size]
        two, _, _, _ = k_hop_subgraph(seeds, 2, data.edge_index,
                                      num_nodes=data.num_nodes)
        one, _, _, _ = k_hop_subgraph(seeds, 1, data.edge_index,
                                      num_nodes=data.num_nodes)
        assert sorted(d.n_id.tolist()) == sorted(two.tolist())
        into_one = torch.isin(data.edge_index[1], one)
        ref = sorted(map(tuple, data.edge_index[:, into_one].t().tolist()))
        got = sorted(map(tuple, d.n_id[d.edge_index].t().tolist()))
        assert got == ref


@torch.no_grad()
def test_graphsage_on_full_neighbourhood_batches_equals_full_graph(
        cora_db, cora):
    # An independent reference: PyG's GraphSAGE run on the whole graph. On a
    # batch holding every neighbour (SAMPLE -1,-1) its output for the seeds
    # must be the same, with trimming per hop and without.
    torch.manual_seed(0)
    data = cora_data(cora)
    model = GraphSAGE(cora.x.shape[1], 32, num_layers=2, out_channels=7)
    model.eval()
    full = model(data.x, data.edge_index)
    sql = "SAMPLE -1,-1 FROM cora SEEDS test FEATURES feat BATCH 200 SEED 1;"
    seen = 0
    for b in loader(cora_db, sql, pyg=True):
        seeds = b.n_id[:b.batch_size]
        ref = full[seeds]
        out = model(b.x, b.edge_index)[:b.batch_size]
        torch.testing.assert_close(out, ref, rtol=1e-4, atol=1e-5)
        trimmed = model(b.x, b.edge_index,
                        num_sampled_nodes_per_hop=b.num_sampled_nodes,
                        num_sampled_edges_per_hop=b.num_sampled_edges)
        torch.testing.assert_close(trimmed[:b.batch_size], ref, rtol=1e-4,
                                   atol=1e-5)
        seen += b.batch_size
    assert seen == len(cora.split["test"])


def test_pyg_graphsage_reaches_78_percent_on_cora(cora):
    out, epochs = run_example("train_pyg.py", cora, "--epochs", "20",
                              "--seed", "0")
    assert [int(e[0]) for e in epochs] == list(range(1, 21)), out
    loss = [float(e[1]) for e in epochs]
    val = [float(e[2]) for e in epochs]
    test = [float(e[3]) for e in epochs]
    assert loss[-1] < loss[0] / 4, out
    assert test[-1] >= 0.78, out
    assert test[int(np.argmax(val))] >= 0.78, out    # at the best val epoch


def test_pyg_sage_link_prediction_reaches_auc_085(cora):
    # examples/train_link.py with torch_geometric.nn.SAGEConv layers on Data
    # link batches (test_link.py runs its plain-torch encoder)
    out, _ = run_example("train_link.py", cora, "--pyg", "yes")
    assert "torch_geometric SAGEConv" in out, out
    lines = [l for l in out.splitlines() if l.startswith("test AUC ")]
    assert len(lines) == 1, out
    assert float(lines[0].split()[2]) >= 0.85, out


def test_plain_torch_example_trains_the_same_on_data_batches(cora):
    # examples/train_sage.py reads batch.x, edge_index, num_sampled_*, y and
    # batch_size: here it gets Data batches (PyG installed), under the base
    # python without PyG plain tensors; same torch, so the same numbers.
    import gnndb.torch
    assert gnndb.torch.pyg_available()
    base = getattr(sys, "_base_executable", None)
    if sys.prefix == sys.base_prefix or not base:
        pytest.skip("not in a venv: no PyG-less python to compare with")
    ours, a = run_example("train_sage.py", cora, "--epochs", "3")
    plain, b = run_example("train_sage.py", cora, "--epochs", "3",
                           python=base)
    assert len(a) == 3 and a == b, ours + "\n----\n" + plain


def sample_all(db_path, sql):
    with gnndb.connect(db_path, readonly=True) as c:
        return [b.copy() for b in c.sample(sql)]


@pytest.mark.parametrize("perm_seed", [None, 3])
def test_from_pyg_round_trip_samples_like_the_files(cora_db, cora, tmp_path,
                                                   perm_seed):
    data = cora_data(cora, perm_seed)
    db = str(tmp_path / "pyg.gnndb")
    info = gnndb.from_pyg(data, db, name="cora")
    assert info["nodes"] == cora.num_nodes
    assert info["edges"] == len(cora.edges)
    assert info["features.feat"] == "%d x float32" % cora.x.shape[1]
    for s, idx in cora.split.items():
        assert info["split." + s] == len(idx)
    for sql in (SQL, "SAMPLE 5,5 FROM cora SEEDS test FEATURES feat "
                     "BATCH 100 SHUFFLE SEED 9 EPOCHS 2;"):
        ours, ref = sample_all(db, sql), sample_all(cora_db, sql)
        assert len(ours) == len(ref) > 0
        for a, b in zip(ours, ref):
            assert a.digest == b.digest
            for k in ("n_id", "edge_index", "x", "y"):
                np.testing.assert_array_equal(getattr(a, k), getattr(b, k))


def test_from_pyg_refuses_what_it_cannot_store(tmp_path, cora):
    db = str(tmp_path / "bad.gnndb")
    data = cora_data(cora)
    data.y = torch.zeros(cora.num_nodes, 3, dtype=torch.long)
    with pytest.raises(gnndb.Error, match="multi-label"):
        gnndb.from_pyg(data, db, name="cora")
    with gnndb.connect(db) as c:
        assert list(c.execute("SHOW GRAPHS;")) == []


def test_from_pyg_refuses_a_hetero_data(tmp_path):
    from torch_geometric.data import HeteroData
    h = HeteroData()
    h["paper"].x = torch.ones(3, 2)
    h["paper", "cites", "paper"].edge_index = torch.tensor([[0, 1], [1, 2]])
    with pytest.raises(gnndb.Error, match="homogeneous"):
        gnndb.from_pyg(h, str(tmp_path / "h.gnndb"), name="g")


def test_to_pyg_of_a_plain_batch(cora_db):
    for t in loader(cora_db, SQL, pyg=False):
        d = to_pyg(t)
        assert isinstance(d, Data)
        assert torch.equal(d.edge_index, t.edge_index)
        assert d.batch_size == t.batch_size


def test_pyg_link_data(link):
    # A link batch as the Data PyG's LinkNeighborLoader gives (TRIPLET)
    sql = ("SAMPLE 10,10 FROM und EDGES train FEATURES feat BATCH 256 "
           "NEGATIVE 2 TRIPLET EDGE FEATURES w SHUFFLE SEED 2;")
    for d in loader(link.path, sql, pyg=True):
        assert isinstance(d, Data)
        for k in ("x", "edge_index", "n_id", "e_id", "edge_attr",
                  "src_index", "dst_pos_index", "dst_neg_index",
                  "num_sampled_nodes", "num_sampled_edges"):
            assert k in d, k
        assert "edge_label_index" not in d and "y" not in d
        assert d.dst_neg_index.shape == (d.src_index.numel(), 2)
        d.validate(raise_on_error=True)


# test_hetero.py's tests that need PyG, collected here too: `make
# pytest-pyg` runs this file in build/pyg-venv, while test_hetero.py runs
# under Debian's python3, where they skip.
from test_hetero import (batches, ef_batches,  # noqa: E402,F401
                         test_pyg_hetero_data,
                         test_pyg_hetero_data_carries_edge_features,
                         test_train_hetero_pyg_beats_the_mlp)
