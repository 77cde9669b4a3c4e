"""gnndb as a PyG backend (gnndb.pyg), tested with PyG 2.8 itself (`make
pytest-pyg`): the FeatureStore and GraphStore against the files, their
faults; gnndb.pyg.NeighborSampler against PyG's own NeighborSampler on an
in-memory Data (the same per-hop counts with every neighbour, the same
distribution at a hub with fanout 10); NodeLoader and LinkLoader driving it
unchanged, with workers too, with the rows handed over rather than read
twice and rounds planned ahead; typed stores and HeteroData batches.

PyG's NeighborSampler runs through pyg_kernel.py's stand-in for the one
compiled kernel it needs (see there) where pyg-lib is not installed."""
import os
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
try:
    import torch_geometric  # noqa: F401
    from torch_geometric.data import Data, HeteroData
    from torch_geometric.loader import LinkLoader, NodeLoader
    from torch_geometric.sampler import NegativeSampling, NodeSamplerInput
    from torch_geometric.sampler import NeighborSampler as PygSampler
except ImportError as exc:
    pytest.skip("torch_geometric is not importable (%s): `make pytest-pyg` "
                "runs these tests in build/pyg-venv" % exc,
                allow_module_level=True)

import gnndb                                      # noqa: E402
import gnndb.pyg as gp                            # noqa: E402
from pyg_kernel import pyg_sampler                # noqa: E402


@pytest.fixture
def stores(cora_db):
    return (gp.FeatureStore(cora_db, "cora", readonly=True),
            gp.GraphStore(cora_db, "cora", readonly=True))


def cora_data(cora):
    return Data(edge_index=torch.from_numpy(np.ascontiguousarray(
        cora.edges.T)), num_nodes=cora.num_nodes)


def edge_keys(src, dst, n):
    return np.sort(np.asarray(src, np.int64) * n + np.asarray(dst))


# ---- the sampler against PyG's ------------------------------------------------

def hops(out):
    """Per hop: the sorted nodes first reached there, the sorted global
    (src, dst) keys of its edges."""
    node, n = out.node.numpy(), 1 << 20
    res, at, e = [], 0, 0
    src, dst = node[out.row.numpy()], node[out.col.numpy()]
    for k, c in enumerate(out.num_sampled_nodes):
        h = {"nodes": np.sort(node[at:at + c])}
        if k > 0:
            m = out.num_sampled_edges[k - 1]
            h["edges"] = edge_keys(src[e:e + m], dst[e:e + m], n)
            e += m
        res.append(h)
        at += c
    return res


def test_every_neighbour_gives_pyg_counts(cora, stores):
    rng = np.random.default_rng(3)
    ours = gp.NeighborSampler(stores, [-1, -1], seed=1)
    with pyg_sampler():
        theirs = PygSampler(cora_data(cora), [-1, -1])
        for _ in range(12):
            seeds = torch.from_numpy(rng.choice(cora.num_nodes, 64, False))
            inp = NodeSamplerInput(None, seeds)
            a, b = ours.sample_from_nodes(inp), theirs.sample_from_nodes(inp)
            assert list(a.num_sampled_nodes) == list(b.num_sampled_nodes)
            assert list(a.num_sampled_edges) == list(b.num_sampled_edges)
            assert torch.equal(a.node[:64], seeds)
            for ha, hb in zip(hops(a), hops(b)):
                for k in ha:
                    np.testing.assert_array_equal(ha[k], hb[k])


def hub_counts(sampler, hub, draws):
    counts = {}
    for _ in range(draws):
        out = sampler.sample_from_nodes(NodeSamplerInput(None,
                                                         torch.tensor([hub])))
        first = out.node[out.row[:out.num_sampled_edges[0]]].tolist()
        assert len(first) == 10 and len(set(first)) == 10
        for u in first:
            counts[u] = counts.get(u, 0) + 1
    return counts


def test_fanout_10_distribution_at_a_hub(cora, stores):
    from scipy.stats import chi2_contingency, chisquare
    deg = np.bincount(cora.edges[:, 1], minlength=cora.num_nodes)
    hub = int(np.argmax(deg))
    nbrs = np.unique(cora.edges[cora.edges[:, 1] == hub, 0])
    assert len(nbrs) == deg[hub] > 100     # no repeated neighbour
    draws = 600
    ours = hub_counts(gp.NeighborSampler(stores, [10], seed=2), hub, draws)
    with pyg_sampler():
        theirs = hub_counts(PygSampler(cora_data(cora), [10]), hub, draws)
    table = np.array([[c.get(int(u), 0) for u in nbrs] for c in (ours,
                                                                  theirs)])
    assert table.sum() == 2 * 10 * draws
    _, p, _, _ = chi2_contingency(table)
    p_ours = chisquare(table[0]).pvalue
    print("hub %d, degree %d: chi-square p %.3f (gnndb vs PyG), %.3f (gnndb "
          "vs uniform)" % (hub, deg[hub], p, p_ours))
    assert p > 0.001 and p_ours > 0.001


# ---- NodeLoader and LinkLoader --------------------------------------------------

@pytest.mark.parametrize("workers", [0, 2])
def test_node_loader_batches(cora, stores, workers):
    fs, gs = stores
    sampler = gp.NeighborSampler(stores, [10, 5], seed=4, round_batches=8)
    train = torch.from_numpy(cora.split["train"])
    loader = NodeLoader(stores, node_sampler=sampler, input_nodes=train,
                        batch_size=16, shuffle=True, num_workers=workers)
    keys = edge_keys(cora.edges[:, 0], cora.edges[:, 1], 1 << 20)
    seen = []
    for b in loader:
        nid = b.n_id.numpy()
        np.testing.assert_array_equal(b.x.numpy(), cora.x[nid])
        np.testing.assert_array_equal(b.y.numpy(), cora.y[nid])
        assert b.batch_size == len(b.input_id)
        np.testing.assert_array_equal(nid[:b.batch_size],
                                      train.numpy()[b.input_id.numpy()])
        src, dst = nid[b.edge_index[0].numpy()], nid[b.edge_index[1].numpy()]
        k = np.asarray(src, np.int64) * (1 << 20) + dst
        assert np.isin(k, keys).all()
        assert sum(b.num_sampled_nodes) == b.num_nodes
        assert sum(b.num_sampled_edges) == b.num_edges
        seen.extend(nid[:b.batch_size].tolist())
    assert sorted(seen) == sorted(train.tolist())
    if workers == 0:
        # rounds planned ahead: 140 seeds are 8 batches of 16 (one round
        # of 8) and one of 12 (a round of its own size)
        assert sampler.stats["rounds"] == 2, sampler.stats
        assert fs.stats["handed"] == sampler.stats["batches"]


def test_rows_are_handed_not_read_again(cora, stores):
    fs, gs = stores
    sampler = gp.NeighborSampler(stores, [10, 10], seed=5)
    loader = NodeLoader(stores, node_sampler=sampler,
                        input_nodes=torch.arange(cora.num_nodes),
                        batch_size=256, shuffle=True)
    n = sum(1 for _ in loader)
    assert fs.stats["handed"] == n
    # x came from the sampler; only y (labels of every node) was read
    assert fs.stats["reads"] == n


def test_finished_rounds_hold_nothing(cora, stores):
    """A round's statement is finalized once its last batch is copied out,
    and the store keeps only the batch in flight's rows, so an epoch's end
    leaves no pools or batch copies behind (the sampler counts two copies
    inside memory_limit: PRAGMA batch_copies)."""
    fs, gs = stores
    sampler = gp.NeighborSampler(stores, [10, 10], seed=5, round_batches=4,
                                 pragmas={"memory_limit": "64MB"})
    loader = NodeLoader(stores, node_sampler=sampler,
                        input_nodes=torch.arange(cora.num_nodes),
                        batch_size=256, shuffle=True)
    batches = list(loader)
    assert sampler._round is None
    assert len(fs._inflight) == 1
    assert fs._inflight[0][0] is batches[-1].n_id
    assert sampler.stats["bytes_read"] > 0
    conn = sampler._db.conn()
    assert dict(conn.execute("PRAGMA batch_copies;"))["batch_copies"] == 2


@pytest.mark.parametrize("workers", [0, 2])
def test_link_loader(cora, stores, workers):
    sampler = gp.NeighborSampler(stores, [10, 10], seed=6)
    pos = torch.from_numpy(np.ascontiguousarray(cora.edges[:400].T))
    loader = LinkLoader(stores, link_sampler=sampler,
                        edge_label_index=(None, pos), batch_size=64,
                        shuffle=True, num_workers=workers,
                        neg_sampling=NegativeSampling("binary", 1))
    total = 0
    for b in loader:
        nid = b.n_id.numpy()
        eli = b.edge_label_index.numpy()
        m = b.edge_label.numel() // 2
        assert b.edge_label[:m].eq(1).all() and b.edge_label[m:].eq(0).all()
        got = edge_keys(nid[eli[0, :m]], nid[eli[1, :m]], 1 << 20)
        want = edge_keys(pos[0, b.input_id].numpy(),
                         pos[1, b.input_id].numpy(), 1 << 20)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(b.x.numpy(), cora.x[nid])
        total += m
    assert total == 400


# ---- the stores -----------------------------------------------------------------------

def test_feature_store_reads(cora, stores):
    fs, _ = stores
    idx = torch.tensor([3, 2707, 3, 0])
    assert torch.equal(fs[None, "x", idx], torch.from_numpy(cora.x)[idx])
    assert torch.equal(fs[None, "y", idx], torch.from_numpy(cora.y)[idx])
    assert torch.equal(fs.get_tensor(None, "x", index=None),
                       torch.from_numpy(cora.x))
    assert fs.get_tensor_size(None, "x") == (cora.num_nodes, 1433)
    assert fs.get_tensor_size(None, "y") == (cora.num_nodes,)
    names = {(a.group_name, a.attr_name) for a in fs.get_all_tensor_attrs()}
    assert names == {(None, "x"), (None, "y")}


def test_feature_store_faults(cora, stores, cora_db):
    fs, _ = stores
    with pytest.raises(KeyError) as ei:
        fs.get_tensor(None, "z", index=torch.tensor([1]))
    assert "(None, 'x')" in str(ei.value) and "'z'" in str(ei.value)
    with pytest.raises(KeyError) as ei:
        fs.get_tensor("paper", "x", index=torch.tensor([1]))
    assert "has" in str(ei.value)
    with pytest.raises(IndexError) as ei:
        fs.get_tensor(None, "x", index=torch.tensor([1, 2708]))
    assert "nothing was read" in str(ei.value)
    with pytest.raises(gnndb.Error) as ei:       # read-only database
        fs.put_tensor(torch.zeros(cora.num_nodes, 4), None, "z", None)
    assert ei.value.code == gnndb.READONLY and "read-only" in str(ei.value)
    with pytest.raises(gnndb.Error) as ei:
        gp.GraphStore(cora_db, "cora", readonly=True).remove_edge_index(
            gp.PLAIN_EDGE, "coo")
    assert ei.value.code == gnndb.READONLY
    assert len(fs._schema().types[None]["features"]) == 1   # unchanged


def test_feature_store_writes(cora, cora_db, tmp_path):
    import shutil
    db = str(tmp_path / "w.gnndb")
    shutil.copytree(cora_db, db)
    fs = gp.FeatureStore(db, "cora", readonly=False)
    before = fs._schema().types
    for bad in (torch.zeros(5, 4), torch.zeros(cora.num_nodes, 4,
                                               dtype=torch.long),
                torch.zeros(cora.num_nodes)):
        with pytest.raises(ValueError):
            fs.put_tensor(bad, None, "z", None)
    assert fs._schema().types == before            # unchanged
    z = torch.randn(cora.num_nodes, 4)
    assert fs.put_tensor(z, None, "z", None)
    assert torch.equal(fs[None, "z", torch.arange(10)], z[:10])
    z2 = torch.randn(cora.num_nodes, 6)
    assert fs.put_tensor(z2, None, "z", None)            # replaces it
    assert torch.equal(fs[None, "z", torch.tensor([5])], z2[[5]])
    assert fs.remove_tensor(None, "z", None)
    with pytest.raises(KeyError):
        fs[None, "z", torch.tensor([0])]


def test_feature_store_write_faults_and_labels(cora, cora_db, tmp_path):
    import shutil
    db = str(tmp_path / "w.gnndb")
    shutil.copytree(cora_db, db)
    fs = gp.FeatureStore(db, "cora", readonly=False)
    before = fs._schema().types
    x = torch.zeros(cora.num_nodes, 4)
    with pytest.raises(ValueError, match="whole tables"):
        fs.put_tensor(x, None, "z", torch.arange(4))
    with pytest.raises(KeyError, match="no node type 'paper'; it has"):
        fs.put_tensor(x, "paper", "z", None)
    with pytest.raises(ValueError, match="labels must be"):
        fs.put_tensor(torch.zeros(cora.num_nodes), None, "y", None)
    with pytest.raises(ValueError, match="cannot be dropped"):
        fs.remove_tensor(None, "y", None)
    with pytest.raises(KeyError, match="has no attribute 'z'"):
        fs.remove_tensor(None, "z", None)
    assert fs._schema().types == before            # unchanged
    # the labels replaced, in one statement
    y2 = (torch.from_numpy(cora.y) + 1) % 7
    assert fs.put_tensor(y2, None, "y", None)
    assert torch.equal(fs.get_tensor(None, "y", index=None), y2)


def test_graph_store(cora, cora_db, tmp_path):
    gs = gp.GraphStore(cora_db, "cora")
    (attr,) = gs.get_all_edge_attrs()
    assert attr.size == (cora.num_nodes, cora.num_nodes)
    with pytest.warns(UserWarning, match="MiB"):
        row, col = gs.get_edge_index(gp.PLAIN_EDGE, "coo")
    n = 1 << 20
    np.testing.assert_array_equal(
        edge_keys(row, col, n), edge_keys(cora.edges[:, 0], cora.edges[:, 1],
                                          n))
    with pytest.warns(UserWarning):
        r2, ptr = gs.get_edge_index(gp.PLAIN_EDGE, "csc")
    assert ptr[-1] == len(cora.edges)
    deg = np.bincount(cora.edges[:, 1], minlength=cora.num_nodes)
    np.testing.assert_array_equal(np.diff(ptr.numpy()), deg)
    gs2 = gp.GraphStore(str(tmp_path / "new.gnndb"), "ring", readonly=False)
    ring = torch.stack([torch.arange(10), (torch.arange(10) + 1) % 10])
    gs2.put_edge_index(ring, edge_type=None, layout="coo", size=(10, 10))
    with pytest.warns(UserWarning):
        r, c = gs2.get_edge_index(gp.PLAIN_EDGE, "coo")
    assert sorted(zip(r.tolist(), c.tolist())) == sorted(
        zip(ring[0].tolist(), ring[1].tolist()))
    assert gs2.remove_edge_index(gp.PLAIN_EDGE, "coo")
    with pytest.raises(gnndb.Error):
        gs2.get_all_edge_attrs()


def test_graph_store_faults(cora_db, tmp_path):
    gs = gp.GraphStore(cora_db, "cora", readonly=True)
    with pytest.raises(KeyError) as ei:
        gs.get_edge_index(("paper", "cites", "paper"), "coo")
    assert "('_N', '_E', '_N')" in str(ei.value)
    ring = torch.stack([torch.arange(4), (torch.arange(4) + 1) % 4])
    with pytest.raises(gnndb.Error) as ei:
        gs.put_edge_index(ring, edge_type=None, layout="coo", size=(4, 4))
    assert ei.value.code == gnndb.READONLY
    gs2 = gp.GraphStore(str(tmp_path / "g.gnndb"), "ring", readonly=False)
    with pytest.raises(ValueError, match="COO"):
        gs2.put_edge_index((ring[0], torch.tensor([0, 1, 2, 3, 4])),
                           edge_type=None, layout="csc", size=(4, 4))
    gs2.put_edge_index(ring, edge_type=None, layout="coo", size=(4, 4))
    with pytest.raises(gnndb.Error) as ei:      # graphs are immutable
        gs2.put_edge_index(ring, edge_type=None, layout="coo", size=(4, 4))
    assert ei.value.code == gnndb.EXISTS
    assert len(gs2.get_all_edge_attrs()) == 1


def test_sampler_refuses_what_it_does_not_do(stores):
    for bad in ([0], [10, -2]):
        with pytest.raises(ValueError, match="fanouts"):
            gp.NeighborSampler(stores, bad)
    with pytest.raises(ValueError, match="disjoint"):
        gp.NeighborSampler(stores, [5], disjoint=True)
    with pytest.raises(ValueError, match="directional"):
        gp.NeighborSampler(stores, [5], subgraph_type="bidirectional")
    with pytest.raises(ValueError, match="temporal"):
        gp.NeighborSampler(stores, [5], time_attr="time")
    with pytest.raises(ValueError, match="weighted"):
        gp.NeighborSampler(stores, [5], weight_attr="w")
    with pytest.raises(ValueError, match="name the graph"):
        gp.NeighborSampler(stores[0]._db.path, [5])
    s = gp.NeighborSampler(stores, [5], seed=1)
    with pytest.raises(ValueError, match="temporal"):
        s.sample_from_nodes(NodeSamplerInput(None, torch.tensor([1, 2]),
                                             time=torch.tensor([0, 0])))
    with pytest.raises(ValueError, match="twice"):
        s.sample_from_nodes(NodeSamplerInput(None, torch.tensor([1, 2, 1])))
    with pytest.raises(gnndb.Error) as ei:       # no such node
        s.sample_from_nodes(NodeSamplerInput(None, torch.tensor([5000])))
    assert "5000" in str(ei.value)


# ---- typed graphs -------------------------------------------------------------------

@pytest.fixture(scope="module")
def mag(tmp_path_factory):
    from heterodb import build_hetero_db
    return build_hetero_db(str(tmp_path_factory.mktemp("mag")))


def test_typed_stores_and_hetero_batches(mag):
    fs, gs = gp.FeatureStore(mag.path, "mag"), gp.GraphStore(mag.path, "mag")
    names = {(a.group_name, a.attr_name) for a in fs.get_all_tensor_attrs()}
    assert names == {("paper", "x"), ("author", "x"), ("paper", "y")}
    ets = {a.edge_type for a in gs.get_all_edge_attrs()}
    assert ("author", "writes", "paper") in ets and len(ets) == 4
    assert torch.equal(fs["paper", "x", torch.tensor([4, 1])],
                       torch.from_numpy(mag.x["paper"][[4, 1]]))
    w = fs.get_tensor(("author", "writes", "paper"), "edge_attr",
                      index=torch.tensor([0, 699]))
    np.testing.assert_array_equal(w.numpy(), mag.w[[0, 699]])
    nn = {et: [3, 2] for et in ets}
    sampler = gp.NeighborSampler((fs, gs), nn, seed=7, round_batches=4)
    train = torch.from_numpy(mag.split["train"])
    loader = NodeLoader((fs, gs), node_sampler=sampler,
                        input_nodes=("paper", train), batch_size=32,
                        shuffle=True)
    seen = []
    for b in loader:
        assert isinstance(b, HeteroData)
        p = b["paper"]
        np.testing.assert_array_equal(p.x.numpy(),
                                      mag.x["paper"][p.n_id.numpy()])
        np.testing.assert_array_equal(p.y.numpy(), mag.y[p.n_id.numpy()])
        a = b["author"]
        np.testing.assert_array_equal(a.x.numpy(),
                                      mag.x["author"][a.n_id.numpy()])
        for et in b.edge_types:
            ei = b[et].edge_index.numpy()
            src = b[et[0]].n_id.numpy()[ei[0]]
            dst = b[et[2]].n_id.numpy()[ei[1]]
            assert mag.has_edges(et[1], src, dst).all()
        seen.extend(p.n_id[:p.batch_size].tolist())
    assert sorted(seen) == sorted(train.tolist())
    # 200 seeds: 6 batches of 32 in rounds of 4 and 2, then one of 8
    assert sampler.stats["rounds"] == 3


def test_typed_writes(tmp_path):
    from heterodb import build_hetero_db
    mag = build_hetero_db(str(tmp_path))
    fs = gp.FeatureStore(mag.path, "mag", readonly=False)
    wt = ("author", "writes", "paper")
    # "edge_attr" is the relation's only table (w) for a write as for a
    # read, whichever side of writes/rev_writes names it
    w2 = torch.randn(len(mag.w), 3)
    assert fs.put_tensor(w2, ("paper", "rev_writes", "author"), "edge_attr",
                         None)
    got = fs.get_tensor(wt, "edge_attr", index=torch.tensor([0, 5]))
    assert torch.equal(got, w2[[0, 5]])
    x2 = torch.randn(fs.get_tensor_size("author", "x")[0], 2)
    assert fs.put_tensor(x2, "author", "x", None)
    assert torch.equal(fs["author", "x", torch.tensor([3])], x2[[3]])
    with pytest.raises(ValueError, match="edge table"):
        fs.put_tensor(torch.randn(len(mag.w) + 1, 3), wt, "edge_attr", None)
    assert torch.equal(fs.get_tensor(wt, "edge_attr", index=None), w2)
