"""gnndb.insert_edges: edges appended from numpy or torch make the graph's
next version, which samples exactly as the graph exported with all the
edges at once (the reference: from_arrays of the whole edge list), while
the version before stays readable AS OF it; bad arrays change nothing."""
import os

import numpy as np
import pytest

import gnndb

SQL = ("SAMPLE 10,10 FROM cora SEEDS train FEATURES feat BATCH 64 "
       "SHUFFLE SEED 5%s;")


def digests(db_path, tail=""):
    with gnndb.connect(db_path, readonly=True) as c:
        return [(b.digest, b.n_id.tobytes(), b.x.tobytes(), b.y.tobytes())
                for b in c.sample(SQL % tail)]


def versions(db_path):
    with gnndb.connect(db_path, readonly=True) as c:
        return [tuple(r) for r in c.execute("SHOW VERSIONS cora;")]


def export(path, cora, edges):
    gnndb.from_arrays(path, "cora", edges.T, x=cora.x, y=cora.y,
                      splits={"train": cora.split["train"]})


@pytest.fixture
def parts(cora):
    rng = np.random.default_rng(3)
    edges = cora.edges[rng.permutation(len(cora.edges))]
    k = len(edges) * 4 // 5
    return edges, k


def test_numpy_and_torch_appends_equal_an_export_of_every_edge(
        cora, parts, tmp_path):
    edges, k = parts
    ref = str(tmp_path / "ref.gnndb")
    export(ref, cora, edges)
    db = str(tmp_path / "db.gnndb")
    export(db, cora, edges[:k])
    before = digests(db)
    assert before != digests(ref)
    half = k + (len(edges) - k) // 2
    assert gnndb.insert_edges(db, "cora", edges[k:half].T) == 2
    torch = pytest.importorskip("torch")
    with gnndb.connect(db) as c:     # an open connection, a tensor
        assert gnndb.insert_edges(c, "cora",
                                  torch.from_numpy(edges[half:].T)) == 3
    assert digests(db) == digests(ref)
    assert digests(db, " AS OF VERSION 1") == before
    vs = versions(db)
    assert [v[0] for v in vs] == [1, 2, 3]
    assert [v[2] for v in vs] == [k, half, len(edges)]
    assert [v[4] for v in vs] == ["", "", "yes"]


def test_times_go_with_the_edges(tmp_path):
    rng = np.random.default_rng(8)
    n, m = 60, 900
    e = rng.integers(0, n, size=(m, 2))
    t = rng.integers(0, 1000, size=m)
    seeds = np.arange(0, n, 3, dtype=np.int64)
    st = rng.integers(200, 1200, size=len(seeds)).astype(np.int64)

    def make(path, rows):
        csv = str(tmp_path / (os.path.basename(path) + ".csv"))
        np.savetxt(csv, np.column_stack([e[:rows], t[:rows]]), fmt="%d",
                   delimiter=",")
        np.save(str(tmp_path / "seeds.npy"), seeds)
        np.save(str(tmp_path / "st.npy"), st)
        with gnndb.connect(path) as c:
            c.execute("CREATE GRAPH g FROM '%s' FORMAT csv COLUMNS "
                      "(0, 1, 2) NODES %d;" % (csv, n))
            c.execute("CREATE SPLIT s ON g FROM '%s';"
                      % (tmp_path / "seeds.npy"))

    sql = ("SAMPLE 4,4 FROM g SEEDS s BATCH 8 SEED 2 AT TIMES '%s' "
           "TEMPORAL LAST;" % (tmp_path / "st.npy"))

    def batches(path):
        with gnndb.connect(path, readonly=True) as c:
            return [(b.digest, b.n_id.tobytes(), b.e_id.tobytes(),
                     b.edge_time.tobytes()) for b in c.sample(sql)]

    ref, db = str(tmp_path / "ref.gnndb"), str(tmp_path / "db.gnndb")
    make(ref, m)
    make(db, 600)
    with pytest.raises(gnndb.Error) as ex:        # the graph has times
        gnndb.insert_edges(db, "g", e[600:].T)
    assert "COLUMNS (src, dst, t)" in str(ex.value)
    with pytest.raises(gnndb.Error):              # one time per edge
        gnndb.insert_edges(db, "g", e[600:].T, time=t[600:-1])
    assert gnndb.insert_edges(db, "g", e[600:].T, time=t[600:]) == 2
    assert batches(db) == batches(ref)


def test_bad_arrays_change_nothing(cora, parts, tmp_path):
    edges, k = parts
    db = str(tmp_path / "db.gnndb")
    export(db, cora, edges[:k])
    before, vs = digests(db), versions(db)
    files = sorted(os.listdir(db))
    bad = edges[k:].T.copy()
    bad[1, 5] = cora.num_nodes          # no such node
    with pytest.raises(gnndb.Error) as ex:
        gnndb.insert_edges(db, "cora", bad)
    assert "not a node of graph cora" in str(ex.value)
    for arg in (edges[k:], edges[k:].T.astype(np.float32)):
        with pytest.raises(gnndb.Error):
            gnndb.insert_edges(db, "cora", arg)
    with pytest.raises(gnndb.Error):           # a graph without times
        gnndb.insert_edges(db, "cora", edges[k:].T,
                           time=np.zeros(len(edges) - k, np.int64))
    assert digests(db) == before and versions(db) == vs
    assert sorted(os.listdir(db)) == files


def test_the_streaming_example_learns_and_replays_a_day(cora):
    """examples/train_streaming.py, short: each appended day makes the
    next version, and the first streamed day's evaluation, run again at
    the end AS OF the version it was made on, gives the same AUC."""
    pytest.importorskip("torch")
    from conftest import run_example
    out, _ = run_example("train_streaming.py", cora, "--days", "5",
                         "--first", "3", "--epochs", "1", "--pyg", "no")
    days = [l.split() for l in out.splitlines() if l.startswith("day ")]
    assert [(int(w[1]), int(w[3])) for w in days] == [(3, 2), (4, 3)], out
    assert all(0.0 < float(w[7]) < 1.0 for w in days), out
    assert "replay day 3 AS OF VERSION 2" in out and "(same)" in out, out


def test_insert_nodes_equals_a_graph_declared_with_them(cora, parts,
                                                         tmp_path):
    """INSERT NODES adds isolated nodes (the graph's next version): its
    batches, negatives drawn among the new nodes too, equal a graph made
    with them declared at once (NODES n + k). A table of a row per node
    must then cover them: SAMPLE says how before anything runs."""
    edges, k = parts
    n = cora.num_nodes
    f = str(tmp_path / "e.bin")
    np.ascontiguousarray(edges, dtype="<i8").tofile(f)
    x = str(tmp_path / "x.npy")
    x2 = str(tmp_path / "x2.npy")
    np.save(x, cora.x)
    np.save(x2, np.vstack([cora.x, np.ones((7, cora.x.shape[1]),
                                           np.float32)]))
    db, ref = str(tmp_path / "db.gnndb"), str(tmp_path / "ref.gnndb")
    sql = "SAMPLE 5,5 FROM g EDGES lp BATCH 64 NEGATIVE 2 SEED 4%s;"
    for path, nodes, feat in ((db, n, x), (ref, n + 7, x2)):
        with gnndb.connect(path) as c:
            c.execute("CREATE GRAPH g FROM '%s' FORMAT bin NODES %d;"
                      "CREATE EDGE SPLITS lp ON g RANDOM 0.2 SEED 3;"
                      "IMPORT FEATURES feat INTO g FROM '%s';"
                      % (f, nodes, feat))

    def batches(c, tail=""):
        return [(b.digest, b.n_id.tobytes(), b.edge_label_index.tobytes(),
                 b.x.tobytes()) for b in c.sample(sql % tail)]

    with gnndb.connect(db) as c:
        before = batches(c)
        c.execute("INSERT NODES INTO g COUNT 7;")
        assert dict(c.execute("DESCRIBE g;"))["nodes"] == n + 7
        with pytest.raises(gnndb.Error) as ex:      # feat lacks 7 rows
            c.sample(sql % "")
        assert ("has %d rows and version 2 of the graph has %d nodes"
                % (n, n + 7)) in str(ex.value)
        c.execute("IMPORT FEATURES feat INTO g FROM '%s' REPLACE;" % x2)
        got = batches(c)
        assert batches(c, " AS OF VERSION 1") == before
        b = next(iter(c.sample("SAMPLE 5 FROM g SEEDS (%d) BATCH 1;"
                               % (n + 3))))
        assert b.n_id.tolist() == [n + 3] and (b.x == 1).all()
    with gnndb.connect(ref, readonly=True) as c:
        assert got == batches(c)


@pytest.mark.parametrize("store", ["float32", "float16"])
def test_insert_rows_appends_to_features_labels_and_edge_features(
        cora, parts, tmp_path, store):
    """INSERT ROWS: the table reads as the old rows then the file's, for
    node features (float32 and float16 stores), labels and edge features;
    the version before reads what it read; a file of the wrong width or
    too many rows changes nothing."""
    edges, k = parts
    n = cora.num_nodes
    f = str(tmp_path / "e.bin")
    np.ascontiguousarray(edges[:k], dtype="<i8").tofile(f)
    tail = str(tmp_path / "tail.bin")
    np.ascontiguousarray(edges[k:], dtype="<i8").tofile(tail)
    rng = np.random.default_rng(5)
    x_new = rng.standard_normal((4, cora.x.shape[1])).astype(np.float32)
    w = rng.standard_normal((len(edges), 3)).astype(np.float32)
    y_new = np.array([0, 2, -1, 1])
    save = lambda name, a: np.save(str(tmp_path / name), a) or \
        str(tmp_path / name)
    db = str(tmp_path / "db.gnndb")
    with gnndb.connect(db) as c:
        c.execute("CREATE GRAPH g FROM '%s' FORMAT bin NODES %d;"
                  "IMPORT FEATURES feat INTO g FROM '%s' STORE %s;"
                  "IMPORT LABELS INTO g FROM '%s';"
                  "IMPORT EDGE FEATURES w INTO g FROM '%s';"
                  % (f, n, save("x.npy", cora.x), store,
                     save("y.npy", cora.y), save("w0.npy", w[:k])))
        old = c.gather("feat", np.arange(n), on="g")
        c.execute("INSERT NODES INTO g COUNT 4;"
                  "INSERT EDGES INTO g FROM '%s' FORMAT bin;" % tail)
        for bad in (np.ones((4, 3), np.float32),           # width
                    np.ones((5, cora.x.shape[1]), np.float32)):   # rows
            with pytest.raises(gnndb.Error):
                c.execute("INSERT ROWS INTO feat ON g FROM '%s';"
                          % save("bad.npy", bad))
        assert np.array_equal(c.gather("feat", np.arange(n), on="g"), old)
        c.execute("INSERT ROWS INTO feat ON g FROM '%s';"
                  "INSERT ROWS INTO LABELS ON g FROM '%s';"
                  "INSERT ROWS INTO w ON g FROM '%s';"
                  % (save("xn.npy", x_new), save("yn.npy", y_new),
                     save("w1.npy", w[k:])))
        x = c.gather("feat", np.arange(n + 4), on="g")
        assert np.array_equal(x[:n], old)
        want = x_new.astype(np.float16).astype(np.float32) \
            if store == "float16" else x_new
        assert np.array_equal(x[n:], want)
        assert np.array_equal(c.gather("LABELS", np.arange(n + 4), on="g"),
                              np.r_[cora.y, y_new])
        assert np.array_equal(c.gather("w", np.arange(len(edges)), on="g"),
                              w)
        # every version samples, with the rows it has
        for tail_sql in ("", " AS OF VERSION 1", " AS OF VERSION 2"):
            assert list(c.sample("SAMPLE 5 FROM g SEEDS (%d, 1) BATCH 2 "
                                 "EDGE FEATURES w%s;" % (n - 1, tail_sql)))
        assert dict(c.execute("CHECK;")).get("ok") is not None


def test_insert_nodes_from_python_with_their_rows(cora, parts, tmp_path):
    """gnndb.insert_nodes: k nodes with their features and labels, then
    edges to them, sample as the graph exported with all of it at once."""
    edges, _ = parts
    n, k = cora.num_nodes, 5
    rng = np.random.default_rng(2)
    x_new = rng.standard_normal((k, cora.x.shape[1])).astype(np.float32)
    y_new = np.array([1, -1, 0, 3, 2])
    links = np.array([[n + i, int(rng.integers(0, n))] for i in range(k)] +
                     [[int(rng.integers(0, n)), n + i] for i in range(k)])
    ref, db = str(tmp_path / "ref.gnndb"), str(tmp_path / "db.gnndb")
    gnndb.from_arrays(ref, "cora", np.vstack([edges, links]).T,
                      num_nodes=n + k, x=np.vstack([cora.x, x_new]),
                      y=np.r_[cora.y, y_new],
                      splits={"train": np.arange(n - 20, n + k)})
    gnndb.from_arrays(db, "cora", edges.T, x=cora.x, y=cora.y)
    with pytest.raises(gnndb.Error):          # rows of the wrong count
        gnndb.insert_nodes(db, "cora", k, x=x_new[:3])
    assert versions(db)[-1][0] == 1
    assert gnndb.insert_nodes(db, "cora", k, x=x_new, y=y_new) == 2
    assert gnndb.insert_edges(db, "cora", links.T) == 3
    with gnndb.connect(db) as c:
        c.execute("CREATE SPLIT train ON cora FROM '%s';"
                  % (np.save(str(tmp_path / "t.npy"),
                             np.arange(n - 20, n + k)) or
                     tmp_path / "t.npy"))
    sql = "SAMPLE 5,5 FROM cora SEEDS train BATCH 8 SHUFFLE SEED 3;"
    got, want = ([(b.digest, b.x.tobytes(), b.y.tobytes())
                  for b in gnndb.connect(p, readonly=True).sample(sql)]
                 for p in (db, ref))
    assert got == want
