"""Time-respecting SAMPLE (AT TIMES / AT NODE TIME) against the brute-force
temporal sampler of temporal_ref.py, written from the rules in
docs/language.md ("Time") apart from the engine: TEMPORAL LAST array for array, TEMPORAL UNIFORM by
its eligible sets and a chi-square test at a hub, the time bound on every
batch of an epoch, and bad input that changes nothing."""
import os
import numpy as np
import pytest

import gnndb
import temporal_ref
from temporal_ref import eligible, reference_last

scipy_stats = pytest.importorskip("scipy.stats")

N, E = 300, 4000


@pytest.fixture(scope="module")
def tgraph(tmp_path_factory):
    """A directed graph with a hub (node 0), edge times with ties, node
    times, and a split of 64 seeds; the database and the arrays."""
    d = tmp_path_factory.mktemp("temporal")
    rng = np.random.default_rng(7)
    src = rng.integers(0, N, E)
    dst = rng.integers(0, N, E)
    dst[:400] = 0                                   # the hub's in-edges
    t = rng.integers(0, 1000, E).astype(np.int64)   # ties on purpose
    np.savetxt(d / "e.csv", np.stack([src, dst], 1), fmt="%d", delimiter=",")
    np.save(d / "t.npy", t)
    nt = rng.integers(0, 1000, N).astype(np.int64)
    np.save(d / "nt.npy", nt)
    seeds = np.sort(rng.choice(np.arange(1, N), 64, replace=False))
    np.save(d / "seeds.npy", seeds)
    st = rng.integers(0, 1100, len(seeds)).astype(np.int64)
    np.save(d / "st.npy", st)
    path = str(d / "t.gnndb")
    with gnndb.connect(path) as c:
        c.execute("CREATE GRAPH g FROM '%s';" % (d / "e.csv"))
        c.execute("IMPORT EDGE TIMES INTO g FROM '%s';" % (d / "t.npy"))
        c.execute("IMPORT NODE TIMES INTO g FROM '%s';" % (d / "nt.npy"))
        c.execute("CREATE SPLIT train ON g FROM '%s';" % (d / "seeds.npy"))
    return dict(dir=d, path=path, src=src, dst=dst, t=t, nt=nt,
                seeds=seeds, st=st)


FIELDS = ("n_id", "edge_index", "e_id", "edge_time", "node_seed", "time",
          "num_sampled_nodes", "num_sampled_edges")


def batches(g, sql):
    """Every batch of `sql` as a dict of numpy copies."""
    return temporal_ref.batches(g["path"], sql, FIELDS)


@pytest.mark.parametrize("clause,strict,window", [
    ("", False, 0), ("BEFORE", True, 0), ("AT OR BEFORE WINDOW 300", False,
                                          300),
    ("BEFORE WINDOW 50", True, 50)])
def test_temporal_last_equals_the_reference(tgraph, clause, strict, window):
    g = tgraph
    sql = ("SAMPLE 4,3 FROM g SEEDS train AT TIMES '%s' TEMPORAL LAST %s "
           "BATCH 16;" % (g["dir"] / "st.npy", clause))
    got = batches(g, sql)
    assert len(got) == 4
    for b, chunk in zip(got, range(0, 64, 16)):
        seeds = g["seeds"][chunk:chunk + 16]
        times = g["st"][chunk:chunk + 16]
        n_id, ei, eid, root = reference_last(g, seeds, times, [4, 3], strict,
                                             window)
        np.testing.assert_array_equal(b["n_id"], n_id)
        np.testing.assert_array_equal(b["edge_index"], ei)
        np.testing.assert_array_equal(b["e_id"], eid)
        np.testing.assert_array_equal(b["edge_time"], g["t"][eid])
        np.testing.assert_array_equal(b["node_seed"], root)
        np.testing.assert_array_equal(b["time"], times)


def check_bound(g, b, strict, window, k):
    """Every sampled edge eligible against its root's time, and each node
    given min(k, eligible) of its edges."""
    root_t = b["time"][b["node_seed"]]
    dst_t = root_t[b["edge_index"][1]]
    et = b["edge_time"]
    assert (et < dst_t).all() if strict else (et <= dst_t).all()
    if window:
        assert (et > dst_t - window).all()
    np.testing.assert_array_equal(et, g["t"][b["e_id"]])
    # each edge is an input edge into its target from its source
    np.testing.assert_array_equal(g["src"][b["e_id"]],
                                  b["n_id"][b["edge_index"][0]])
    np.testing.assert_array_equal(g["dst"][b["e_id"]],
                                  b["n_id"][b["edge_index"][1]])
    # the edges of a node are distinct and as many as can be
    lo = 0
    for h, kk in enumerate(k):
        hi = lo + int(b["num_sampled_nodes"][h])
        for i in range(lo, hi):
            mine = b["e_id"][b["edge_index"][1] == i]
            assert len(set(mine.tolist())) == len(mine)
            r = b["node_seed"][i]
            m = len(eligible(g, b["n_id"][i], b["time"][r], strict, window))
            assert len(mine) == min(kk, m)
        lo = hi


@pytest.mark.parametrize("clause,strict,window", [
    ("", False, 0), ("BEFORE", True, 0), ("WINDOW 200", False, 200)])
def test_uniform_samples_only_eligible_edges_on_every_batch(tgraph, clause,
                                                           strict, window):
    g = tgraph
    sql = ("SAMPLE 5,5 FROM g SEEDS train AT TIMES '%s' TEMPORAL UNIFORM %s "
           "BATCH 8 SHUFFLE SEED 3;" % (g["dir"] / "st.npy", clause))
    got = batches(g, sql)
    assert len(got) == 8
    for b in got:
        check_bound(g, b, strict, window, [5, 5])
    # deterministic under SEED
    again = batches(g, sql)
    assert [b["digest"] for b in got] == [b["digest"] for b in again]


def test_at_node_time_uses_the_seeds_node_times(tgraph):
    g = tgraph
    got = batches(g, "SAMPLE 3,2 FROM g SEEDS train AT NODE TIME BEFORE "
                     "BATCH 32;")
    for b in got:
        np.testing.assert_array_equal(b["time"], g["nt"][b["n_id"][:32]])
        check_bound(g, b, True, 0, [3, 2])


def test_uniform_is_uniform_among_eligible_edges_at_a_hub(tgraph, tmp_path):
    g = tgraph
    T = 500
    np.save(tmp_path / "hub.npy", np.array([T], dtype=np.int64))
    el = eligible(g, 0, T, False, 0)
    assert len(el) > 50
    counts = dict.fromkeys(el.tolist(), 0)
    got = batches(g, "SAMPLE 1 FROM g SEEDS (0) AT TIMES '%s' EPOCHS 3000 "
                     "BATCH 1 SEED 11;" % (tmp_path / "hub.npy"))
    for b in got:
        assert len(b["e_id"]) == 1
        counts[int(b["e_id"][0])] += 1
    obs = np.array(list(counts.values()))
    assert obs.sum() == 3000
    assert scipy_stats.chisquare(obs).pvalue > 1e-3


def describe(path):
    with gnndb.connect(path, readonly=True) as c:
        return dict((r[0], r[1]) for r in c.execute("DESCRIBE g;"))


def test_bad_times_are_refused_and_change_nothing(tmp_path):
    np.savetxt(tmp_path / "e.csv", [[0, 1], [1, 2], [2, 0]], fmt="%d",
               delimiter=",")
    np.save(tmp_path / "f.npy", np.array([1.0, 2.0, 3.0]))
    np.save(tmp_path / "short.npy", np.array([1, 2], dtype=np.int64))
    np.save(tmp_path / "i32.npy", np.array([1, 2, 3], dtype=np.int32))
    path = str(tmp_path / "b.gnndb")
    with gnndb.connect(path) as c:
        c.execute("CREATE GRAPH g FROM '%s';" % (tmp_path / "e.csv"))
    before = describe(path)
    files = sorted(os.listdir(path))
    for f, words in (("f.npy", "int64"), ("i32.npy", "int64"),
                     ("short.npy", "2 edge times, and 3 are needed"),
                     ("none.npy", "cannot open")):
        for what in ("EDGE", "NODE"):
            with gnndb.connect(path) as c:
                with pytest.raises(gnndb.Error) as ex:
                    c.execute("IMPORT %s TIMES INTO g FROM '%s';" %
                              (what, tmp_path / f))
            assert f in str(ex.value)
            if what == "EDGE":
                assert words in str(ex.value)
    assert describe(path) == before
    assert sorted(os.listdir(path)) == files


def test_a_time_column_equals_imported_edge_times(tgraph, tmp_path):
    """CREATE GRAPH ... COLUMNS (src, dst, t) from one CSV (by names, in
    another order than the fields, and by positions) gives the time graph
    IMPORT EDGE TIMES gives: the same batches, digest for digest."""
    g = tgraph
    with open(tmp_path / "ev.csv", "w") as f:
        f.write("t,src,dst\n")
        for a, b, t in zip(g["src"], g["dst"], g["t"]):
            f.write("%d,%d,%d\n" % (t, a, b))
    sql = ("SAMPLE 4,3 FROM g SEEDS train AT TIMES '%s' TEMPORAL LAST BATCH "
           "16 SEED 3;" % (g["dir"] / "st.npy"))
    want = [b["digest"] for b in batches(g, sql)]
    for cols in ("(src, dst, t)", "(1, 2, 0)"):
        path = str(tmp_path / ("c%d.gnndb" % len(cols)))
        with gnndb.connect(path) as c:
            c.execute("CREATE GRAPH g FROM '%s' COLUMNS %s;" %
                      (tmp_path / "ev.csv", cols))
            c.execute("CREATE SPLIT train ON g FROM '%s';" %
                      (g["dir"] / "seeds.npy"))
        d = describe(path)
        assert d["edge_times"].endswith("ev.csv")
        assert (d["edge_times.min"], d["edge_times.max"]) == \
            (g["t"].min(), g["t"].max())
        assert [b["digest"] for b in batches(dict(path=path), sql)] == want


def test_describe_shows_the_time_ranges_until_the_graph_goes(tgraph,
                                                             tmp_path):
    """DESCRIBE's edge_times.min/max and node_times.min/max equal numpy's,
    written with the times; a graph made again under the name after DROP
    GRAPH has none."""
    g = tgraph
    d = describe(g["path"])
    assert (d["edge_times.min"], d["edge_times.max"]) == \
        (g["t"].min(), g["t"].max())
    assert (d["node_times.min"], d["node_times.max"]) == \
        (g["nt"].min(), g["nt"].max())
    path = str(tmp_path / "r.gnndb")
    with gnndb.connect(path) as c:
        c.execute("CREATE GRAPH g FROM '%s';" % (g["dir"] / "e.csv"))
        c.execute("IMPORT NODE TIMES INTO g FROM '%s';" % (g["dir"] / "nt.npy"))
        c.execute("DROP GRAPH g;")
        c.execute("CREATE GRAPH g FROM '%s';" % (g["dir"] / "e.csv"))
    d = describe(path)
    assert not [k for k in d if "times" in k], d
    # node times dropped alone take their range along
    with gnndb.connect(path) as c:
        c.execute("IMPORT NODE TIMES INTO g FROM '%s';" % (g["dir"] / "nt.npy"))
        c.execute("DROP FEATURES __node_time ON g;")
    import sqlite3
    with sqlite3.connect(os.path.join(path, "catalog.db")) as db:
        assert db.execute("SELECT count(*) FROM time_ranges").fetchone() == \
            (0,)


def test_a_bad_time_column_creates_nothing(tmp_path):
    rows = ["a,b,t", "0,1,5", "1,2,x7", "2,0,9"]
    (tmp_path / "bad.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "short.csv").write_text("0,1,5\n1,2\n")
    (tmp_path / "e.bin").write_bytes(np.array([0, 1, 1, 2], "<i8").tobytes())
    path = str(tmp_path / "b.gnndb")
    with gnndb.connect(path) as c:
        c.execute("PRAGMA threads = 1;")
    files = sorted(os.listdir(path))
    for sql, words in (
            ("CREATE GRAPH g FROM '%s' COLUMNS (a, b, t)" % (tmp_path / "bad.csv"),
             "bad.csv:3:5: expected an integer time, found 'x7'"),
            ("CREATE GRAPH g FROM '%s' COLUMNS (0, 1, 2)" % (tmp_path / "short.csv"),
             "short.csv:2:4: expected 3 fields"),
            ("CREATE GRAPH g FROM '%s' COLUMNS (a, b, when)" % (tmp_path / "bad.csv"),
             "no column named 'when'"),
            ("CREATE GRAPH g FROM '%s' COLUMNS (0, 1, 2)" % (tmp_path / "e.bin"),
             "a time column is read from a text edge list"),
            ("CREATE GRAPH g FROM '%s' COLUMNS (0, 1, 2) WITHOUT EDGE IDS" %
             (tmp_path / "short.csv"), "needs edge ids")):
        with gnndb.connect(path) as c:
            with pytest.raises(gnndb.Error) as ex:
                c.execute(sql + ";")
            assert words in str(ex.value), str(ex.value)
            assert c.execute("SHOW GRAPHS;") == []
        assert sorted(os.listdir(path)) == files


def test_at_times_with_the_wrong_count_is_refused_at_prepare(tgraph,
                                                            tmp_path):
    g = tgraph
    np.save(tmp_path / "few.npy", np.arange(10, dtype=np.int64))
    with gnndb.connect(g["path"], readonly=True) as c:
        with pytest.raises(gnndb.Error) as ex:
            c.sample("SAMPLE 2 FROM g SEEDS train AT TIMES '%s' BATCH 8;" %
                     (tmp_path / "few.npy"))
    assert "10 times for 64 seeds" in str(ex.value)


def test_untimed_samples_of_a_timed_graph_are_unchanged(tgraph, tmp_path):
    """Importing times adds a file: the plain graph and what is sampled
    from it stay the same, digest for digest."""
    g = tgraph
    path = str(tmp_path / "plain.gnndb")
    with gnndb.connect(path) as c:
        c.execute("CREATE GRAPH g FROM '%s';" % (g["dir"] / "e.csv"))
        c.execute("CREATE SPLIT train ON g FROM '%s';" %
                  (g["dir"] / "seeds.npy"))
    sql = "SAMPLE 5,5 FROM g SEEDS train BATCH 16 SHUFFLE SEED 1;"
    a = [b["digest"] for b in batches(dict(path=path), sql)]
    b = [b["digest"] for b in batches(g, sql)]
    assert a == b


def test_batches_do_not_depend_on_hyperbatch_or_threads(tgraph):
    g = tgraph
    sql = ("SAMPLE 4,4 FROM g SEEDS train AT TIMES '%s' BATCH 8 SHUFFLE "
           "SEED 5 %s;")
    digests = []
    for pragmas, hb in (("PRAGMA threads = 1;", "HYPERBATCH 1"),
                        ("PRAGMA threads = 2;", ""),
                        ("PRAGMA threads = 2;", "HYPERBATCH 3")):
        with gnndb.connect(g["path"], readonly=True) as c:
            c.execute(pragmas)
            digests.append([b.digest for b in
                            c.sample(sql % (g["dir"] / "st.npy", hb))])
    assert digests[0] == digests[1] == digests[2]


def test_undirected_edges_share_their_time(tmp_path):
    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, 50, 400), rng.integers(0, 50, 400)
    t = rng.integers(0, 100, 400).astype(np.int64)
    np.savetxt(tmp_path / "e.csv", np.stack([src, dst], 1), fmt="%d",
               delimiter=",")
    np.save(tmp_path / "t.npy", t)
    path = str(tmp_path / "u.gnndb")
    with gnndb.connect(path) as c:
        c.execute("CREATE GRAPH g FROM '%s' UNDIRECTED;" % (tmp_path / "e.csv"))
        c.execute("IMPORT EDGE TIMES INTO g FROM '%s';" % (tmp_path / "t.npy"))
    np.save(tmp_path / "st.npy", np.full(50, 60, dtype=np.int64))
    got = batches(dict(path=path), "SAMPLE -1 FROM g SEEDS ALL AT TIMES '%s' "
                  "BATCH 50;" % (tmp_path / "st.npy"))
    b = got[0]
    u = b["n_id"][b["edge_index"][0]]
    v = b["n_id"][b["edge_index"][1]]
    e = b["e_id"]
    fwd = (src[e] == u) & (dst[e] == v)
    rev = (src[e] == v) & (dst[e] == u)
    assert (fwd | rev).all()
    np.testing.assert_array_equal(b["edge_time"], t[e])
    assert (b["edge_time"] <= 60).all()
    # every eligible edge of every seed, in both directions (-1: all; a
    # self loop is stored once)
    ok = t <= 60
    assert len(e) == 2 * int(ok.sum()) - int((ok & (src == dst)).sum())


@pytest.mark.parametrize("clause", [
    "AT TIMES '{st}' TEMPORAL LAST", "AT TIMES '{st}' BEFORE WINDOW 300",
    "AT NODE TIME"])
def test_edge_features_are_each_sampled_edges_row(tgraph, tmp_path, clause):
    """EDGE FEATURES of a time-respecting SAMPLE: edge_attr holds the row of
    each sampled edge's e_id (the input edge), and the batches are those of
    the same SAMPLE without it, in memory, spilled, with pages read and on
    one thread."""
    g = tgraph
    path, w = temporal_ref.with_edge_features(g["path"], tmp_path, E, 5, 3)
    sql = ("SAMPLE 4,3 FROM g SEEDS train %s %s BATCH 16 SHUFFLE SEED 2 "
           "EPOCHS 2;" % (clause.format(st=g["dir"] / "st.npy"), "{ef}"))
    plain = temporal_ref.check_edge_features(
        path, sql, FIELDS, w, (None, "PRAGMA spill = 'on';",
                               "PRAGMA read_granularity = 'page';",
                               "PRAGMA threads = 1; PRAGMA spill = 'on';"))
    assert len(plain) == 8


def test_into_dir_writes_the_time_arrays(tgraph, tmp_path):
    g = tgraph
    out = tmp_path / "out"
    got = batches(g, "SAMPLE 3 FROM g SEEDS train AT NODE TIME BATCH 64 "
                     "INTO '%s';" % out)
    d = out / "epoch-0" / "batch-000000"
    for k in ("batch", "time", "edge_time", "e_id"):
        arr = np.load(d / (k + ".npy"))
        np.testing.assert_array_equal(
            arr, got[0]["node_seed" if k == "batch" else k])


def test_lists_across_continuation_blocks_equal_the_reference(tmp_path):
    """4 KiB blocks: a hub's 1500 entries span several continuation blocks,
    and the binary searches and picks cross them."""
    rng = np.random.default_rng(11)
    n, m = 60, 3000
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    dst[:1500] = 1
    t = rng.integers(0, 5000, m).astype(np.int64)
    np.savetxt(tmp_path / "e.csv", np.stack([src, dst], 1), fmt="%d",
               delimiter=",")
    np.save(tmp_path / "t.npy", t)
    seeds = np.arange(n)
    st = rng.integers(0, 5500, n).astype(np.int64)
    st[1] = 2500
    np.save(tmp_path / "st.npy", st)
    path = str(tmp_path / "small.gnndb")
    with gnndb.connect(path) as c:
        c.execute("CREATE GRAPH g FROM '%s' BLOCK SIZE 4096;" %
                  (tmp_path / "e.csv"))
        c.execute("IMPORT EDGE TIMES INTO g FROM '%s';" % (tmp_path / "t.npy"))
        rows = dict((r[0], r[1]) for r in c.execute("DESCRIBE g;"))
        assert int(rows["graph_blocks"]) > 2   # the time graph: 4x that
        assert "ok" in str(c.execute("CHECK g;"))
    g = dict(path=path, src=src, dst=dst, t=t)
    for clause, strict, window in (("", False, 0), ("BEFORE WINDOW 700",
                                                    True, 700)):
        got = batches(g, "SAMPLE 300,2 FROM g SEEDS ALL AT TIMES '%s' "
                         "TEMPORAL LAST %s BATCH 20;" % (tmp_path / "st.npy",
                                                         clause))
        for b, lo in zip(got, range(0, n, 20)):
            n_id, ei, eid, root = reference_last(
                g, seeds[lo:lo + 20], st[lo:lo + 20], [300, 2], strict,
                window)
            np.testing.assert_array_equal(b["n_id"], n_id)
            np.testing.assert_array_equal(b["edge_index"], ei)
            np.testing.assert_array_equal(b["e_id"], eid)
            np.testing.assert_array_equal(b["node_seed"], root)
        got = batches(g, "SAMPLE 300,5 FROM g SEEDS ALL AT TIMES '%s' %s "
                         "BATCH 20 SEED 2;" % (tmp_path / "st.npy", clause))
        for b in got:
            check_bound(g, b, strict, window, [300, 5])


def test_seed_list_times_follow_their_ids(tgraph, tmp_path):
    g = tgraph
    np.save(tmp_path / "three.npy", np.array([70, 30, 90], dtype=np.int64))
    for order in ("", "IN ORDER"):
        got = batches(g, "SAMPLE 2 FROM g SEEDS (5, 3, 9) %s AT TIMES '%s' "
                         "BATCH 3;" % (order, tmp_path / "three.npy"))
        b = got[0]
        want = {5: 70, 3: 30, 9: 90}
        assert [want[int(v)] for v in b["n_id"][:3]] == b["time"].tolist()
        check_bound(g, b, False, 0, [2])


def test_rounds_read_through_the_pool_or_spilled_equal_resident_rounds(
        tmp_path):
    """A feature cache keeps a plan off the resident rounds: the hops then
    read the time graph through the buffer pool on the caller's thread;
    PRAGMA spill = 'on' sends every round through the spill area, whose
    runs carry the times. Both must give the same batches, digest for
    digest, with x gathered for every node of every tree."""
    rng = np.random.default_rng(5)
    n, m = 80, 2500
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    dst[:1200] = 2
    t = rng.integers(0, 1000, m).astype(np.int64)
    x = rng.standard_normal((n, 8)).astype(np.float32)
    np.savetxt(tmp_path / "e.csv", np.stack([src, dst], 1), fmt="%d",
               delimiter=",")
    np.save(tmp_path / "t.npy", t)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "st.npy", rng.integers(0, 1100, n).astype(np.int64))
    path = str(tmp_path / "pool.gnndb")
    with gnndb.connect(path) as c:
        c.execute("CREATE GRAPH g FROM '%s' BLOCK SIZE 4096;" %
                  (tmp_path / "e.csv"))
        c.execute("IMPORT EDGE TIMES INTO g FROM '%s';" % (tmp_path / "t.npy"))
        c.execute("IMPORT FEATURES x INTO g FROM '%s';" % (tmp_path / "x.npy"))
    sql = ("SAMPLE 20,5 FROM g SEEDS ALL AT TIMES '%s' BATCH 16 SHUFFLE "
           "SEED 9 EPOCHS 2;" % (tmp_path / "st.npy"))
    runs = []
    for pragmas in ("", "PRAGMA cache_policy = 'lru'; "
                        "PRAGMA feature_cache = '1MB';",
                    "PRAGMA cache_policy = 'belady'; "
                    "PRAGMA feature_cache = '1MB'; PRAGMA threads = 1;",
                    "PRAGMA spill = 'on';",
                    "PRAGMA read_granularity = 'page';",
                    "PRAGMA spill = 'on'; PRAGMA threads = 1;"):
        with gnndb.connect(path, readonly=True) as c:
            if pragmas:
                c.execute(pragmas)
            got = []
            for b in c.sample(sql):
                np.testing.assert_array_equal(np.array(b.x), x[b.n_id])
                root_t = np.array(b.time)[np.array(b.node_seed)]
                dst = np.array(b.edge_index)[1]
                assert (np.array(b.edge_time) <= root_t[dst]).all()
                np.testing.assert_array_equal(b.edge_time, t[b.e_id])
                got.append(b.digest)
            runs.append(got)
    assert len(runs[0]) == 10
    for r in runs[1:]:
        assert r == runs[0]


def test_copies_and_torch_batches_keep_the_time_fields(tgraph):
    torch = pytest.importorskip("torch")
    import gnndb.torch as gt
    g = tgraph
    sql = ("SAMPLE 3,2 FROM g SEEDS train AT TIMES '%s' BATCH 16 SEED 1;" %
           (g["dir"] / "st.npy"))
    with gnndb.connect(g["path"], readonly=True) as c:
        copies = [b.copy() for b in c.sample(sql)]
    tb = list(gt.loader(g["path"], sql, pyg=False))
    assert len(copies) == len(tb) == 4
    for cb, t in zip(copies, tb):
        for k in ("node_seed", "time", "edge_time", "e_id"):
            np.testing.assert_array_equal(getattr(cb, k),
                                          getattr(t, k).numpy())
        assert t.node_seed.dtype == torch.int64
        assert t.time.shape == (t.batch_size,)
    if gt.pyg_available():
        d = next(iter(gt.loader(g["path"], sql, pyg=True)))
        np.testing.assert_array_equal(d.batch.numpy(), copies[0].node_seed)
        np.testing.assert_array_equal(d.time.numpy(), copies[0].time)
        np.testing.assert_array_equal(d.edge_time.numpy(),
                                      copies[0].edge_time)


def test_digest_covers_the_time_sections(tgraph):
    """The engine's digest of a time-respecting batch equals batch_digest's,
    recomputed with numpy from docs/format.md: three sections after the
    seven of e_id's, and none of them may change without the digest."""
    from batch_digest import digest
    g = tgraph
    sql = ("SAMPLE 3,2 FROM g SEEDS train AT TIMES '%s' BATCH 16 SEED 1;" %
           (g["dir"] / "st.npy"))
    with gnndb.connect(g["path"], readonly=True) as c:
        copies = [b.copy() for b in c.sample(sql)]
    assert len(copies) == 4
    for b in copies:
        assert digest(b) == b.digest
        b.time = b.time + 1
        assert digest(b) != b.digest
