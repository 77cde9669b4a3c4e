"""gnndb.torch: GnnDataset and loader() yield owning torch tensors under the
field names of PyG's NeighborLoader (the plain-tensor form, pyg=False; the
PyG form is tested in test_pyg.py)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import gnndb                                  # noqa: E402
from gnndb.torch import GnnDataset, NeighborBatch, loader  # noqa: E402

SQL = ("SAMPLE 10,10 FROM cora SEEDS train FEATURES feat BATCH 64 "
       "SHUFFLE SEED 5;")
FIELDS = ("n_id", "edge_index", "x", "y", "batch_size", "num_sampled_nodes",
          "num_sampled_edges")


def reference(cora_db, sql=SQL):
    """The same run through the plain binding, copied."""
    with gnndb.connect(cora_db, readonly=True) as c:
        return [b.copy() for b in c.sample(sql)]


def test_loader_yields_neighbor_loader_fields(cora_db, cora):
    out = list(loader(cora_db, SQL, pyg=False))
    assert len(out) == 3
    for b in out:
        assert isinstance(b, NeighborBatch)
        for k in FIELDS:
            assert hasattr(b, k) and k in b.keys
        assert b.n_id.dtype == torch.int64 and b.n_id.dim() == 1
        assert b.edge_index.dtype == torch.int64
        assert b.edge_index.shape == (2, b.num_edges)
        assert b.x.dtype == torch.float32
        assert b.x.shape == (b.num_nodes, cora.x.shape[1])
        assert b.y.dtype == torch.int64 and b.y.shape == (b.batch_size,)
        assert isinstance(b.batch_size, int)
        assert b.num_sampled_nodes[0] == b.batch_size
        assert sum(b.num_sampled_nodes) == b.num_nodes
        assert sum(b.num_sampled_edges) == b.num_edges
        assert torch.equal(b.input_id, b.n_id[:b.batch_size])
        # The values are the raw files' values.
        n_id = b.n_id.numpy()
        np.testing.assert_array_equal(b.x.numpy(), cora.x[n_id])
        np.testing.assert_array_equal(b.y.numpy(),
                                      cora.y[n_id[:b.batch_size]])
        assert b["x"] is b.x


def test_loader_matches_the_binding(cora_db):
    ref = reference(cora_db)
    out = list(loader(cora_db, SQL, pyg=False))
    assert len(out) == len(ref)
    for t, r in zip(out, ref):
        for k in ("n_id", "edge_index", "x", "y"):
            np.testing.assert_array_equal(getattr(t, k).numpy(), getattr(r, k))
        assert t.num_sampled_nodes == r.num_sampled_nodes.tolist()
        assert t.num_sampled_edges == r.num_sampled_edges.tolist()
        assert (t.epoch, t.batch, t.digest) == (r.epoch, r.batch, r.digest)


def test_tensors_own_their_memory(cora_db):
    held = list(loader(cora_db, SQL, pyg=False))   # all kept at once
    ref = reference(cora_db)
    for t, r in zip(held, ref):
        np.testing.assert_array_equal(t.n_id.numpy(), r.n_id)
        np.testing.assert_array_equal(t.x.numpy(), r.x)
        t.x.add_(1.0)                          # writable, and ours


def test_dataset_with_dataloader(cora_db):
    ds = GnnDataset(cora_db, SQL, pyg=False)
    assert isinstance(ds, torch.utils.data.IterableDataset)
    dl = torch.utils.data.DataLoader(ds, batch_size=None)
    got = [(b.batch, b.digest) for b in dl]
    ref = [(r.batch, r.digest) for r in reference(cora_db)]
    assert got == ref
    # A second pass runs the statement again: same SEED, same batches.
    assert [(b.batch, b.digest) for b in dl] == ref
    ds.set_sql(SQL.replace("SEED 5", "SEED 6"))
    assert [(b.batch, b.digest) for b in dl] != ref


def test_dataset_with_two_workers(cora_db):
    sql = ("SAMPLE 5,5 FROM cora SEEDS test FEATURES feat BATCH 100 "
           "SHUFFLE SEED 2;")
    dl = torch.utils.data.DataLoader(GnnDataset(cora_db, sql, pyg=False),
                                     batch_size=None, num_workers=2)
    got = sorted((b.batch, b.digest) for b in dl)
    ref = sorted((r.batch, r.digest) for r in reference(cora_db, sql))
    assert got == ref


def test_dataset_transform(cora_db):
    ds = GnnDataset(cora_db, SQL, transform=lambda b: b.batch_size,
                    pyg=False)
    assert list(ds) == [64, 64, 12]


def test_to_device_cuda(cora_db):
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    sql = SQL.replace(";", " TO DEVICE 'cuda:0';")
    out = list(loader(cora_db, sql, pyg=False))
    ref = reference(cora_db)
    assert len(out) == len(ref)
    for t, r in zip(out, ref):
        assert t.x.is_cuda and t.n_id.is_cuda
        np.testing.assert_array_equal(t.n_id.cpu().numpy(), r.n_id)
        np.testing.assert_array_equal(t.x.cpu().numpy(), r.x)
        assert t.num_sampled_nodes == r.num_sampled_nodes.tolist()


def test_pick_device_names_a_missing_device():
    from gnndb.torch import pick_device
    if torch.cuda.is_available():
        pytest.skip("torch sees a CUDA device")
    assert pick_device(None) == torch.device("cpu")
    with pytest.raises(ValueError, match="device 'cuda': .* sees no CUDA"):
        pick_device("cuda")


def test_default_form_without_pyg_is_plain_tensors(cora_db):
    from gnndb.torch import pyg_available
    if pyg_available():
        pytest.skip("torch_geometric is installed: the default form is a "
                    "PyG Data (test_pyg.py)")
    b = next(iter(loader(cora_db, SQL)))
    assert isinstance(b, NeighborBatch)
    assert "torch_geometric" not in __import__("sys").modules
    with pytest.raises(gnndb.Error) as e:
        next(iter(loader(cora_db, SQL, pyg=True)))
    assert e.value.code == gnndb.MISUSE and "torch_geometric" in str(e.value)


def test_torch_forms_carry_every_array_the_library_lists():
    """gnndb.torch names its fields by hand, as PyG's loaders do: each
    array of the library's list (gnndb.Batch._FIELDS, gnndb_batch_field)
    reaches NeighborBatch or LinkBatch, and to_pyg's Data from each;
    every key of theirs is a Batch array or one of their own scalars; and
    the time-respecting arrays take PyG's names, those of their INTO
    files (node_seed as `batch`)."""
    from gnndb import torch as gt
    listed = gnndb.Batch._FIELDS
    forms = {gt.NeighborBatch: gt._PYG_NODE_TENSORS,
             gt.LinkBatch: gt._PYG_LINK_TENSORS}
    own = {"batch_size", "input_id", "epoch", "batch", "digest"}
    assert set(listed) <= set(gt.NeighborBatch.keys) | set(gt.LinkBatch.keys)
    for form, tensors in forms.items():
        assert set(form.keys) <= set(gnndb.Batch._ARRAYS) | own, form
        assert set(tensors) <= set(form.keys), form
        arrays = set(form.keys) & set(listed)
        assert arrays <= set(tensors) | set(gt._PYG_TIME), form
    for k, pyg_name in gt._PYG_TIME.items():
        assert listed[k].file == pyg_name, k
