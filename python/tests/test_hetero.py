"""Typed batches (SAMPLE {rel: k, ...} FROM a typed graph SEEDS type.split)
through the binding and gnndb.torch, checked against the files with numpy:
per type and per relation shapes and dtypes, every relation's edges edges
of its file (through the types' n_id), x the features of the type-local
ids, y the seeds' labels, per-hop counts that add up and keep to the
fanouts, the global arrays the union of the typed ones, the engine's digest
recomputed, HYPERBATCH 1 and the default giving the same batches,
HeteroBatch and (with PyG) HeteroData, and examples/train_hetero.py beating
an MLP. With EDGE FEATURES w: every relation's e_id input edges of its file
with the sampled endpoints, edge_attr their rows of w where the relation has
it (None elsewhere), the global e_id in edge_index's order, the digest
recomputed, and e_id / edge_attr on HeteroBatch's and HeteroData's edge
types. The database is heterodb.py's."""
import os
import subprocess
import sys

import numpy as np
import pytest

import gnndb
from batch_digest import digest
from conftest import REPO
from heterodb import CLASSES, COUNTS, DIMS, EDGE_DIM, SQL

torch = pytest.importorskip("torch")
from gnndb.torch import (EdgeTypeFields, HeteroBatch, NodeTypeFields,  # noqa
                         loader)

RELS = {"cites": ("paper", "paper"), "writes": ("author", "paper"),
        "rev_writes": ("paper", "author"), "tags": ("field", "paper")}
FAN = {"cites": 5, "writes": 3, "rev_writes": 2, "tags": 2}
HOPS = 2


def run(hetero, sql):
    """Every batch of `sql` on the typed database, copied."""
    with gnndb.connect(hetero.path, readonly=True) as conn:
        return [b.copy() for b in conn.sample(sql)]


@pytest.fixture(scope="module")
def batches(hetero):
    return run(hetero, SQL + " SHUFFLE SEED 3;")


def test_typed_batch_shapes_and_dtypes(hetero, batches):
    assert len(batches) == 7                   # 200 seeds, BATCH 32
    for b in batches:
        assert b.is_typed and not b.is_link and b.seed_type == "paper"
        assert b.x is None                     # x lives per type
        assert list(b.types) == list(COUNTS)   # the graph's order
        assert list(b.rels) == ["cites", "writes", "rev_writes",
                                "tags"]
        for name, t in b.types.items():
            assert t.n_id.dtype == np.int64 and t.n_id.shape == \
                (t.num_nodes,)
            assert t.num_sampled_nodes.dtype == np.int64
            assert t.num_sampled_nodes.shape == (HOPS + 1,)
            if name in DIMS:
                assert t.x.dtype == np.float32
                assert t.x.shape == (t.num_nodes, DIMS[name])
            else:
                assert t.x is None
            if name == "paper":
                assert t.y.dtype == np.int64 and t.y.shape == (b.batch_size,)
                assert t.num_seeds == b.batch_size
            else:
                assert t.y is None and t.num_seeds == 0
        for name, r in b.rels.items():
            assert (r.src, r.dst) == RELS[name]
            assert r.edge_type == (r.src, name, r.dst)
            assert r.edge_index.dtype == np.int64
            assert r.edge_index.shape == (2, r.num_edges)
            assert r.num_sampled_edges.shape == (HOPS,)


def test_every_relation_edge_is_an_edge_of_its_file(hetero, batches):
    seen = dict.fromkeys(RELS, 0)
    for b in batches:
        for name, r in b.rels.items():
            src, dst = b.types[r.src], b.types[r.dst]
            ei = r.edge_index
            if r.num_edges:
                assert ei[0].min() >= 0 and ei[0].max() < src.num_nodes
                assert ei[1].min() >= 0 and ei[1].max() < dst.num_nodes
            ok = hetero.has_edges(name, src.n_id[ei[0]], dst.n_id[ei[1]])
            assert ok.all(), (name, int((~ok).sum()))
            seen[name] += r.num_edges
    assert all(seen.values()), seen             # every relation sampled


def test_x_rows_are_the_features_of_the_type_local_ids(hetero, batches):
    for b in batches:
        for name, t in b.types.items():
            assert (t.n_id >= 0).all() and (t.n_id < COUNTS[name]).all()
            assert len(np.unique(t.n_id)) == t.num_nodes, name
            if name in DIMS:
                assert np.array_equal(t.x, hetero.x[name][t.n_id]), name


def test_y_is_the_labels_of_the_seeds(hetero, batches):
    seeds = []
    for b in batches:
        p = b.types["paper"]
        s = p.n_id[:b.batch_size]
        assert np.array_equal(p.y, hetero.y[s])
        assert p.y.min() >= 0 and p.y.max() < CLASSES
        seeds.append(s)
    # an epoch seeds every paper of the split once
    assert np.array_equal(np.sort(np.concatenate(seeds)),
                          hetero.split["train"])


def test_per_hop_counts_add_up_and_keep_to_the_fanouts(batches):
    for b in batches:
        for name, t in b.types.items():
            assert int(t.num_sampled_nodes.sum()) == t.num_nodes, name
            assert int(t.num_sampled_nodes[0]) == t.num_seeds, name
        for name, r in b.rels.items():
            nse = r.num_sampled_edges
            assert int(nse.sum()) == r.num_edges, name
            # in each hop a target takes at most the fanout of the relation
            start = 0
            for h in range(HOPS):
                dst = r.edge_index[1, start:start + nse[h]]
                if len(dst):
                    assert np.bincount(dst).max() <= FAN[name], (name, h)
                start += nse[h]
            # the targets of hop h are nodes found before it, the sources
            # nodes found by its end
            start = 0
            for h in range(HOPS):
                ei = r.edge_index[:, start:start + nse[h]]
                start += nse[h]
                if ei.size:
                    nd = b.types[r.dst].num_sampled_nodes[:h + 1].sum()
                    ns = b.types[r.src].num_sampled_nodes[:h + 2].sum()
                    assert ei[1].max() < nd and ei[0].max() < ns, (name, h)
        # the seeds' type only has nodes at hop 0
        assert b.types["author"].num_sampled_nodes[0] == 0


def test_global_arrays_hold_every_type_and_relation(hetero, batches):
    for b in batches:
        off = hetero.offset
        ids = np.concatenate([off[n] + t.n_id for n, t in b.types.items()])
        assert b.num_nodes == len(ids)
        assert np.array_equal(np.sort(b.n_id), np.sort(ids))
        assert b.num_edges == sum(r.num_edges for r in b.rels.values())
        g = b.n_id[b.edge_index]
        glob = np.sort(g[0] * b.num_nodes * 10 + g[1])
        typed = []
        for r in b.rels.values():
            s = off[r.src] + b.types[r.src].n_id[r.edge_index[0]]
            d = off[r.dst] + b.types[r.dst].n_id[r.edge_index[1]]
            typed.append(s * b.num_nodes * 10 + d)
        assert np.array_equal(glob, np.sort(np.concatenate(typed)))
        assert np.array_equal(b.y, b.types["paper"].y)


def test_digest_is_recomputed_from_the_typed_arrays(hetero):
    with gnndb.connect(hetero.path, readonly=True) as conn:
        n = 0
        for b in conn.sample(SQL + " SHUFFLE SEED 4;"):
            assert digest(b) == b.digest
            assert digest(b.copy()) == b.digest
            n += 1
        assert n == 7


def key(b):
    """Everything a typed batch holds, as bytes."""
    parts = [b.digest, b.n_id.tobytes(), b.edge_index.tobytes()]
    for t in b.types.values():
        parts += [t.n_id.tobytes(), t.num_sampled_nodes.tobytes(),
                  None if t.x is None else t.x.tobytes(),
                  None if t.y is None else t.y.tobytes()]
    for r in b.rels.values():
        parts += [r.edge_index.tobytes(), r.num_sampled_edges.tobytes()]
    return parts


def test_hyperbatch_1_and_the_default_give_the_same_batches(hetero):
    sql = SQL + " SHUFFLE SEED 9"
    one = [key(b) for b in run(hetero, sql + " HYPERBATCH 1;")]
    assert len(one) == 7
    assert one == [key(b) for b in run(hetero, sql + ";")]
    assert one == [key(b) for b in run(hetero, sql + " HYPERBATCH 4;")]
    assert one != [key(b) for b in run(hetero, SQL + " SHUFFLE SEED 10;")]


def test_typed_arrays_go_stale_with_their_batch(hetero):
    with gnndb.connect(hetero.path, readonly=True) as conn:
        it = conn.sample(SQL + " SEED 1;")
        b = next(it)
        t, r = b.types["paper"], b.rels["cites"]
        assert t.n_id.shape == (t.num_nodes,)
        kept = t.copy()
        next(it)
        with pytest.raises(gnndb.Error):
            t.n_id
        with pytest.raises(gnndb.Error):
            r.edge_index
        assert kept.n_id.shape == (kept.num_nodes,)
        it.close()


def check_hetero_batch(hb, b):
    """HeteroBatch `hb` holds typed gnndb batch `b`'s arrays as tensors."""
    assert isinstance(hb, HeteroBatch)
    assert hb.node_types == list(COUNTS)
    assert hb.edge_types == [r.edge_type for r in b.rels.values()]
    assert hb.seed_type == "paper" and hb.batch_size == b.batch_size
    assert set(hb.x_dict) == set(DIMS)          # field has no x
    for name, t in b.types.items():
        s = hb[name]
        assert isinstance(s, NodeTypeFields)
        assert s.n_id.dtype == torch.int64
        assert np.array_equal(s.n_id.numpy(), t.n_id)
        assert s.num_sampled_nodes == [int(v) for v in t.num_sampled_nodes]
        if t.x is not None:
            assert s.x.dtype == torch.float32
            assert np.array_equal(s.x.numpy(), t.x)
        if name == "paper":
            assert s.y.dtype == torch.int64
            assert np.array_equal(s.y.numpy(), t.y)
            assert torch.equal(s.input_id, s.n_id[:b.batch_size])
        else:
            assert s.y is None and s.batch_size is None
    for name, r in b.rels.items():
        e = hb[r.edge_type]
        assert isinstance(e, EdgeTypeFields) and e is hb[name]
        assert e.edge_index.dtype == torch.int64
        assert np.array_equal(e.edge_index.numpy(), r.edge_index)
        assert e.num_sampled_edges == [int(v) for v in r.num_sampled_edges]


def test_plain_hetero_batches(hetero, batches):
    got = list(loader(hetero.path, SQL + " SHUFFLE SEED 3;", pyg=False))
    assert len(got) == len(batches)
    for hb, b in zip(got, batches):
        check_hetero_batch(hb, b)
        assert hb.digest == b.digest
        assert hb.y is hb["paper"].y


def test_pyg_hetero_data(hetero, batches):
    pytest.importorskip("torch_geometric")
    from torch_geometric.data import HeteroData
    got = list(loader(hetero.path, SQL + " SHUFFLE SEED 3;", pyg=True))
    assert len(got) == len(batches)
    for d, b in zip(got, batches):
        assert isinstance(d, HeteroData)
        assert d.node_types == list(COUNTS)
        assert d.edge_types == [r.edge_type for r in b.rels.values()]
        for name, t in b.types.items():
            s = d[name]
            assert s.n_id.dtype == torch.int64
            assert np.array_equal(s.n_id.numpy(), t.n_id)
            assert s.num_nodes == t.num_nodes
            assert s.num_sampled_nodes == [int(v) for v in
                                           t.num_sampled_nodes]
            if name in DIMS:
                assert s.x.dtype == torch.float32
                assert np.array_equal(s.x.numpy(), t.x)
            else:
                assert "x" not in s
            if name == "paper":
                assert s.batch_size == b.batch_size
                assert s.y.dtype == torch.int64
                assert np.array_equal(s.y.numpy(), t.y)
            else:
                assert "y" not in s and "batch_size" not in s
        for name, r in b.rels.items():
            e = d[r.edge_type]
            assert e.edge_index.dtype == torch.int64
            assert np.array_equal(e.edge_index.numpy(), r.edge_index)
            assert e.num_sampled_edges == [int(v) for v in
                                           r.num_sampled_edges]
        assert (d.epoch, d.batch_no, d.digest) == (b.epoch, b.batch,
                                                   b.digest)
        d.validate(raise_on_error=True)


# ---- EDGE FEATURES w: table w on writes, which rev_writes shares ----

EF_SQL = SQL + " EDGE FEATURES w SHUFFLE SEED 3;"
WITH_W = ("writes", "rev_writes")
# The relation whose input file a relation's e_id indexes, and whether its
# edges are that file's turned round.
INPUT = {"cites": ("cites", False), "writes": ("writes", False),
         "rev_writes": ("writes", True), "tags": ("tags", False)}


@pytest.fixture(scope="module")
def ef_batches(hetero):
    return run(hetero, EF_SQL)


def input_endpoints(hetero, name, e_id):
    """(sources, targets) of input edges e_id of relation `name`, type-local
    ids read from its file, turned round for a reverse relation."""
    base, rev = INPUT[name]
    e = hetero.rels[base][2]
    assert (e_id >= 0).all() and (e_id < len(e)).all(), name
    s, d = e[e_id, 0], e[e_id, 1]
    return (d, s) if rev else (s, d)


def test_edge_feature_arrays_shapes_and_dtypes(ef_batches, batches):
    for b in ef_batches:
        assert b.e_id.shape == (b.num_edges,) and b.edge_attr is None
        for name, r in b.rels.items():
            assert r.e_id.dtype == np.int64 and r.e_id.shape == \
                (r.num_edges,)
            if name in WITH_W:
                assert r.edge_attr_dim == EDGE_DIM
                assert r.edge_attr.dtype == np.float32
                assert r.edge_attr.shape == (r.num_edges, EDGE_DIM)
            else:       # sampled with edge ids, but no table w
                assert r.edge_attr is None and r.edge_attr_dim == 0
    for b in batches:   # no EDGE FEATURES: no edge arrays at all
        assert b.e_id is None
        for r in b.rels.values():
            assert r.e_id is None and r.edge_attr is None
            assert r.edge_attr_dim == 0


def test_every_e_id_is_an_input_edge_with_the_sampled_endpoints(
        hetero, ef_batches):
    seen = dict.fromkeys(RELS, 0)
    for b in ef_batches:
        for name, r in b.rels.items():
            src, dst = b.types[r.src], b.types[r.dst]
            s, d = input_endpoints(hetero, name, r.e_id)
            assert np.array_equal(src.n_id[r.edge_index[0]], s), name
            assert np.array_equal(dst.n_id[r.edge_index[1]], d), name
            seen[name] += r.num_edges
    assert all(seen.values()), seen


def test_edge_attr_is_the_row_of_its_e_id(hetero, ef_batches):
    for b in ef_batches:
        for name in WITH_W:
            r = b.rels[name]
            assert np.array_equal(r.edge_attr, hetero.w[r.e_id]), name
            # w's row names its edge: (e_id, author, paper, noise)
            assert np.array_equal(r.edge_attr[:, 0], r.e_id)
            author = b.types["author"].n_id
            a = r.edge_index[0] if name == "writes" else r.edge_index[1]
            assert np.array_equal(r.edge_attr[:, 1], author[a]), name


def global_type(hetero, ids):
    """The type of each global node id, from the types' offsets."""
    names = sorted(COUNTS, key=hetero.offset.get)
    starts = np.array([hetero.offset[n] for n in names])
    return np.array(names)[np.searchsorted(starts, ids, side="right") - 1]


def test_global_e_id_follows_the_global_edge_index(hetero, ef_batches):
    by_types = {ends: name for name, ends in RELS.items()}
    off = hetero.offset
    for b in ef_batches:
        assert np.array_equal(np.sort(b.e_id), np.sort(np.concatenate(
            [r.e_id for r in b.rels.values()])))
        g = b.n_id[b.edge_index]
        st, dt = global_type(hetero, g[0]), global_type(hetero, g[1])
        for ends, name in by_types.items():   # one relation per type pair
            k = (st == ends[0]) & (dt == ends[1])
            s, d = input_endpoints(hetero, name, b.e_id[k])
            assert np.array_equal(g[0, k], off[ends[0]] + s), name
            assert np.array_equal(g[1, k], off[ends[1]] + d), name


def test_edge_features_leave_the_sampled_nodes_and_edges_as_they_were(
        ef_batches, batches):
    assert [key(b)[1:] for b in ef_batches] == [key(b)[1:] for b in batches]


def test_digest_is_recomputed_with_the_relations_edge_arrays(hetero,
                                                             batches):
    with gnndb.connect(hetero.path, readonly=True) as conn:
        got = []
        for b in conn.sample(EF_SQL):
            assert digest(b) == b.digest
            assert digest(b.copy()) == b.digest
            got.append(b.digest)
    assert len(got) == len(batches)
    # e_id and edge_attr are in it: each digest differs from without them
    assert all(a != b.digest for a, b in zip(got, batches))


def test_relation_edge_arrays_copy_and_go_stale(hetero):
    with gnndb.connect(hetero.path, readonly=True) as conn:
        it = conn.sample(EF_SQL)
        b = next(it)
        r = b.rels["rev_writes"]
        kept, whole = r.copy(), b.copy().rels["rev_writes"]
        for k in (kept, whole):
            assert np.array_equal(k.e_id, r.e_id)
            assert np.array_equal(k.edge_attr, r.edge_attr)
            assert k.edge_attr_dim == EDGE_DIM
        assert b.copy().rels["cites"].edge_attr is None
        next(it)
        for name in ("e_id", "edge_attr"):
            with pytest.raises(gnndb.Error):
                getattr(r, name)
        assert kept.e_id.shape == (kept.num_edges,)
        it.close()


def check_edge_tensors(store, r):
    """Edge type store `store` (EdgeTypeFields or PyG's EdgeStorage) holds
    relation batch `r`'s e_id and edge_attr as tensors, absent ones
    absent."""
    assert store.e_id.dtype == torch.int64
    assert tuple(store.e_id.shape) == (r.num_edges,)
    assert np.array_equal(store.e_id.numpy(), r.e_id)
    if r.edge_attr is None:
        assert "edge_attr" not in store
        return
    assert store.edge_attr.dtype == torch.float32
    assert tuple(store.edge_attr.shape) == (r.num_edges, EDGE_DIM)
    assert np.array_equal(store.edge_attr.numpy(), r.edge_attr)


def test_plain_hetero_batches_carry_edge_features(hetero, ef_batches):
    got = list(loader(hetero.path, EF_SQL, pyg=False))
    assert len(got) == len(ef_batches)
    for hb, b in zip(got, ef_batches):
        check_hetero_batch(hb, b)
        for r in b.rels.values():
            check_edge_tensors(hb[r.edge_type], r)
        assert set(hb.edge_attr_dict) == {b.rels[n].edge_type
                                          for n in WITH_W}
        assert set(hb.e_id_dict) == set(hb.edge_types)
        assert hb.digest == b.digest


def test_pyg_hetero_data_carries_edge_features(hetero, ef_batches):
    pytest.importorskip("torch_geometric")
    from torch_geometric.data import HeteroData
    got = list(loader(hetero.path, EF_SQL, pyg=True))
    assert len(got) == len(ef_batches)
    for d, b in zip(got, ef_batches):
        assert isinstance(d, HeteroData)
        for r in b.rels.values():
            check_edge_tensors(d[r.edge_type], r)
        assert set(d.edge_attr_dict) == {b.rels[n].edge_type
                                         for n in WITH_W}
        assert d.digest == b.digest
        d.validate(raise_on_error=True)


def run_train_hetero(*args, python=None):
    """examples/train_hetero.py's output, and its (mlp, gnn) accuracies."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(REPO, "python") + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    p = subprocess.run([python or sys.executable,
                        os.path.join(REPO, "examples", "train_hetero.py"),
                        "--device", "cpu"] + list(args), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True,
                       timeout=600)
    assert p.returncode == 0, p.stdout
    acc = {}
    for line in p.stdout.splitlines():
        w = line.split()
        if len(w) == 4 and w[1:3] == ["test", "accuracy"]:
            acc[w[0]] = float(w[3])
    assert set(acc) == {"mlp", "gnn"}, p.stdout
    return p.stdout, acc["mlp"], acc["gnn"]


def test_train_hetero_plain_torch_beats_the_mlp():
    # the HeteroBatch and the plain-torch per-relation mean aggregation
    out, mlp, gnn = run_train_hetero("--pyg", "no")
    assert "model plain torch" in out, out
    assert gnn > mlp + 0.3 and gnn > 0.8, out


def test_train_hetero_pyg_beats_the_mlp():
    pytest.importorskip("torch_geometric")
    out, mlp, gnn = run_train_hetero("--pyg", "yes")
    assert "torch_geometric HeteroConv" in out, out
    assert gnn > mlp + 0.3 and gnn > 0.8, out


def test_train_hetero_is_deterministic():
    a = run_train_hetero("--pyg", "no", "--epochs", "2", "--seed", "5")[0]
    b = run_train_hetero("--pyg", "no", "--epochs", "2", "--seed", "5")[0]
    strip = lambda s: [l for l in s.splitlines()
                       if not l.startswith("database") and
                       not l.endswith(" s")]
    assert strip(a) == strip(b), a + "\n----\n" + b
