"""gnndb.from_arrays / from_dgl (from_pyg is in test_pyg.py): an in-memory
graph exported through the library's own statements samples exactly like
the same graph imported from its files, and a failed export leaves the
database as it was. Needs numpy only (DGL for the from_dgl test, which
skips without it)."""
import sys

import numpy as np
import pytest

import gnndb

SQL = ("SAMPLE 10,10 FROM cora SEEDS train FEATURES feat BATCH 64 "
       "SHUFFLE SEED 5;")


def digests(db_path, sql=SQL):
    with gnndb.connect(db_path, readonly=True) as c:
        return [(b.epoch, b.batch, b.digest, b.n_id.tobytes(), b.x.tobytes(),
                 b.y.tobytes()) for b in c.sample(sql)]


def graphs(db_path):
    with gnndb.connect(db_path) as c:
        return [r[0] for r in c.execute("SHOW GRAPHS;")]


def masks(cora):
    out = {}
    for s, idx in cora.split.items():
        m = np.zeros(cora.num_nodes, dtype=bool)
        m[idx] = True
        out[s] = m
    return out


def test_import_does_not_pull_in_pyg_or_dgl():
    import subprocess
    code = ("import sys, gnndb; "
            "print(sorted(m for m in ('torch_geometric', 'dgl', 'torch') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], check=True,
                         stdout=subprocess.PIPE, universal_newlines=True)
    assert out.stdout.strip() == "[]"


def test_from_arrays_round_trip_same_batches(cora_db, cora, tmp_path):
    db = str(tmp_path / "arr.gnndb")
    rng = np.random.default_rng(1)
    edges = cora.edges[rng.permutation(len(cora.edges))]   # any edge order
    info = gnndb.from_arrays(db, "cora", edges.T, x=cora.x, y=cora.y,
                             splits=masks(cora))
    assert (info["nodes"], info["edges"]) == (cora.num_nodes, len(edges))
    assert digests(db) == digests(cora_db)
    # index arrays work as splits too, and float64 features are accepted
    db2 = str(tmp_path / "arr2.gnndb")
    gnndb.from_arrays(db2, "cora", edges.T, x=cora.x.astype(np.float64),
                      y=cora.y, splits=dict(cora.split))
    assert digests(db2) == digests(cora_db)


def test_trailing_isolated_nodes_are_kept(tmp_path):
    db = str(tmp_path / "iso.gnndb")
    info = gnndb.from_arrays(db, "g", [[0, 1], [1, 2]],
                             x=np.ones((5, 2), np.float32))
    assert info["nodes"] == 5 and info["edges"] == 2


def test_a_failing_statement_leaves_no_half_graph(cora, tmp_path):
    db = str(tmp_path / "fail.gnndb")
    gnndb.from_arrays(db, "other", cora.edges.T)
    # 'FROM' passes the name check but not the parser: CREATE GRAPH and
    # IMPORT FEATURES have run when CREATE SPLIT FROM fails.
    with pytest.raises(gnndb.Error) as e:
        gnndb.from_arrays(db, "cora", cora.edges.T, x=cora.x, y=cora.y,
                          splits={"train": cora.split["train"],
                                  "FROM": cora.split["val"]})
    assert e.value.code == gnndb.SYNTAX
    assert graphs(db) == ["other"]
    # nothing of it is left: the same export then succeeds
    gnndb.from_arrays(db, "cora", cora.edges.T, x=cora.x, y=cora.y,
                      splits={"train": cora.split["train"]})
    assert graphs(db) == ["cora", "other"]
    # a name already taken fails in CREATE GRAPH, and the graph that has it
    # is not dropped
    with pytest.raises(gnndb.Error) as e:
        gnndb.from_arrays(db, "other", cora.edges.T, x=cora.x)
    assert e.value.code == gnndb.EXISTS
    assert graphs(db) == ["cora", "other"]


def test_an_interrupted_export_leaves_no_half_graph(cora, tmp_path):
    db = str(tmp_path / "intr.gnndb")
    with gnndb.connect(db) as conn:
        calls = []

        def stop_in_features(done, total):
            # CREATE GRAPH counts bytes of edges, IMPORT FEATURES rows:
            # stop half-way through the rows, once the graph exists.
            calls.append((done, total))
            if total == cora.num_nodes and done > 0:
                raise KeyboardInterrupt
            return 0

        conn.set_progress_handler(stop_in_features, 1)
        with pytest.raises(KeyboardInterrupt):
            gnndb.from_arrays(conn, "cora", cora.edges.T, x=cora.x)
        conn.set_progress_handler(None)
        assert list(conn.execute("SHOW GRAPHS;")) == [], calls


@pytest.mark.parametrize("kw, words", [
    (dict(edge_index=[[0, 1, 2]]), "shape [2, num_edges]"),
    (dict(edge_index=[[0, 1], [1, 9]], num_nodes=3), "node id 9"),
    (dict(edge_index=[[0, -1], [1, 2]]), "negative"),
    (dict(edge_index=[[0.5, 1], [1, 2]]), "integers"),
    (dict(edge_index=[[0, 1], [1, 2]], num_nodes=3, x=np.ones((4, 2))),
     "4 rows"),
    (dict(edge_index=[[0, 1], [1, 2]], y=np.zeros((3, 2), np.int64)),
     "multi-label"),
    (dict(edge_index=[[0, 1], [1, 2]], y=[0.5, 1, 2]), "integer labels"),
    (dict(edge_index=[[0, 1], [1, 2]], splits={"t": [True, False]}),
     "2 entries"),
    (dict(edge_index=[[0, 1], [1, 2]], splits={"t": [0, 7]}), "outside"),
    (dict(edge_index=[[0, 1], [1, 2]], splits={"a b": [0]}), "split name"),
])
def test_bad_arrays_are_refused_before_anything_is_written(tmp_path, kw,
                                                          words):
    db = str(tmp_path / "bad.gnndb")
    with pytest.raises(gnndb.Error) as e:
        gnndb.from_arrays(db, "g", **kw)
    assert e.value.code == gnndb.MISUSE and words in str(e.value)
    assert graphs(db) == []


def test_bad_graph_name(tmp_path):
    with pytest.raises(gnndb.Error, match="graph name"):
        gnndb.from_arrays(str(tmp_path / "n.gnndb"), "1st", [[0], [1]])


def test_from_dgl_round_trip(cora_db, cora, tmp_path):
    try:
        import dgl
        import torch
    except ImportError as exc:
        pytest.skip("dgl is not importable here (%s); from_dgl is tested "
                    "where it is" % exc)
    src = torch.from_numpy(cora.edges[:, 0].copy())
    dst = torch.from_numpy(cora.edges[:, 1].copy())
    g = dgl.graph((src, dst), num_nodes=cora.num_nodes)
    g.ndata["feat"] = torch.from_numpy(cora.x)
    g.ndata["label"] = torch.from_numpy(cora.y)
    for s, m in masks(cora).items():
        g.ndata[s + "_mask"] = torch.from_numpy(m)
    db = str(tmp_path / "dgl.gnndb")
    gnndb.from_dgl(g, db, name="cora")
    assert digests(db) == digests(cora_db)
