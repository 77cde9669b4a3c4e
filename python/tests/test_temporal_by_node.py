"""SAMPLE ... BY NODE TIME: an edge judged by its source node's time (PyG's
NeighborLoader with a node-level time_attr), against the brute-force
sampler of temporal_ref.py, written from docs/language.md ("Time"):
TEMPORAL LAST array for array with BEFORE and WINDOW, UNIFORM keeping the
bound on every batch and uniform among the eligible neighbours
(chi-square), the same batches through the pool, resident or spilled, and
what is refused."""
import numpy as np
import pytest

import gnndb
import temporal_ref
from temporal_ref import reference_last

scipy_stats = pytest.importorskip("scipy.stats")

N, E = 300, 4000


@pytest.fixture(scope="module")
def ngraph(tmp_path_factory):
    """A directed graph with a hub (node 0) and node times with ties (no
    edge times), and a split of 64 seeds with times of their own."""
    d = tmp_path_factory.mktemp("temporal_by_node")
    rng = np.random.default_rng(5)
    src = rng.integers(0, N, E)
    dst = rng.integers(0, N, E)
    dst[:400] = 0
    nt = rng.integers(0, 200, N).astype(np.int64)
    np.savetxt(d / "e.csv", np.stack([src, dst], 1), fmt="%d", delimiter=",")
    np.save(d / "nt.npy", nt)
    seeds = np.sort(rng.choice(np.arange(1, N), 64, replace=False))
    np.save(d / "seeds.npy", seeds)
    st = rng.integers(0, 220, len(seeds)).astype(np.int64)
    np.save(d / "st.npy", st)
    path = str(d / "n.gnndb")
    with gnndb.connect(path) as c:
        c.execute("CREATE GRAPH g FROM '%s';" % (d / "e.csv"))
        c.execute("IMPORT NODE TIMES INTO g FROM '%s';" % (d / "nt.npy"))
        c.execute("CREATE SPLIT train ON g FROM '%s';" % (d / "seeds.npy"))
        c.execute("CREATE GRAPH bare FROM '%s';" % (d / "e.csv"))
        c.execute("CREATE SPLIT train ON bare FROM '%s';" % (d / "seeds.npy"))
    return dict(dir=d, path=path, src=src, dst=dst, nt=nt, seeds=seeds,
                st=st)


FIELDS = ("n_id", "edge_index", "e_id", "edge_time", "node_seed", "time",
          "num_sampled_nodes")


def batches(g, sql, pragmas=None):
    return temporal_ref.batches(g["path"], sql, FIELDS, pragmas)


def eligible(g, v, T, strict, window):
    """Input edges into v whose source's node time passes against T, in
    (source time, source, edge id) order."""
    return temporal_ref.eligible(g, v, T, strict, window, by_node=True)


@pytest.mark.parametrize("clause,strict,window", [
    ("", False, 0), ("BEFORE", True, 0), ("WINDOW 60", False, 60),
    ("BEFORE WINDOW 30", True, 30)])
def test_last_equals_the_reference(ngraph, clause, strict, window):
    g = ngraph
    got = batches(g, "SAMPLE 4,3 FROM g SEEDS train AT TIMES '%s' BY NODE "
                     "TIME TEMPORAL LAST %s BATCH 16;" %
                  (g["dir"] / "st.npy", clause))
    assert len(got) == 4
    for b, lo in zip(got, range(0, 64, 16)):
        seeds, times = g["seeds"][lo:lo + 16], g["st"][lo:lo + 16]
        n_id, ei, eid, root = reference_last(g, seeds, times, [4, 3], strict,
                                             window, by_node=True)
        np.testing.assert_array_equal(b["n_id"], n_id)
        np.testing.assert_array_equal(b["edge_index"], ei)
        np.testing.assert_array_equal(b["e_id"], eid)
        # edge_time holds the time each edge was judged by: its source's
        np.testing.assert_array_equal(b["edge_time"],
                                      g["nt"][g["src"][eid]])
        np.testing.assert_array_equal(b["node_seed"], root)
        np.testing.assert_array_equal(b["time"], times)



def test_a_list_past_its_first_block_is_read_whole(tmp_path):
    """A hub of 2000 in-edges spans continuation blocks of 4 KB: every
    entry is found where the graph's own lists put it (a list without
    times holds more entries a block than the time graph's)."""
    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, 200, 3000), rng.integers(0, 200, 3000)
    dst[:2000] = 0
    g = dict(src=src, dst=dst, nt=rng.integers(0, 100, 200))
    np.savetxt(tmp_path / "e.csv", np.stack([src, dst], 1), fmt="%d",
               delimiter=",")
    np.save(tmp_path / "nt.npy", g["nt"].astype(np.int64))
    np.save(tmp_path / "t.npy", np.array([90, 80], dtype=np.int64))
    path = str(tmp_path / "small.gnndb")
    with gnndb.connect(path) as c:
        c.execute("CREATE GRAPH g FROM '%s' BLOCK SIZE 4 KB;" %
                  (tmp_path / "e.csv"))
        c.execute("IMPORT NODE TIMES INTO g FROM '%s';" %
                  (tmp_path / "nt.npy"))
    sql = ("SAMPLE -1 FROM g SEEDS (0, 5) AT TIMES '%s' BY NODE TIME "
           "TEMPORAL LAST BATCH 2;" % (tmp_path / "t.npy"))
    n_id, ei, eid, root = reference_last(g, [0, 5], [90, 80], [-1],
                                         by_node=True)
    assert len(eid) > 1000
    for pragmas in (None, "PRAGMA spill = 'on';"):
        (b,) = temporal_ref.batches(path, sql, FIELDS, pragmas)
        np.testing.assert_array_equal(b["n_id"], n_id)
        np.testing.assert_array_equal(b["e_id"], eid)


def test_at_node_time_by_node_time_is_pygs_node_level_time(ngraph):
    """Seeds at their own node times, neighbours no later than that: PyG's
    NeighborLoader(time_attr='time') on node times."""
    g = ngraph
    for b in batches(g, "SAMPLE 5,5 FROM g SEEDS train AT NODE TIME BY NODE "
                        "TIME BATCH 16 SHUFFLE SEED 2;"):
        np.testing.assert_array_equal(b["time"], g["nt"][b["n_id"][:16]])
        root_t = b["time"][b["node_seed"]]
        assert (g["nt"][b["n_id"]] <= root_t).all()


@pytest.mark.parametrize("clause,strict,window", [
    ("", False, 0), ("BEFORE", True, 0), ("WINDOW 50", False, 50)])
def test_uniform_keeps_the_bound_and_takes_what_it_can(ngraph, clause,
                                                       strict, window):
    g = ngraph
    got = batches(g, "SAMPLE 5,5 FROM g SEEDS train AT TIMES '%s' BY NODE "
                     "TIME %s BATCH 8 SHUFFLE SEED 3;" %
                  (g["dir"] / "st.npy", clause))
    assert len(got) == 8
    for b in got:
        dst_t = b["time"][b["node_seed"]][b["edge_index"][1]]
        src_t = g["nt"][b["n_id"][b["edge_index"][0]]]
        np.testing.assert_array_equal(b["edge_time"], src_t)
        assert (src_t < dst_t).all() if strict else (src_t <= dst_t).all()
        if window:
            assert (src_t > dst_t - window).all()
        np.testing.assert_array_equal(g["src"][b["e_id"]],
                                      b["n_id"][b["edge_index"][0]])
        np.testing.assert_array_equal(g["dst"][b["e_id"]],
                                      b["n_id"][b["edge_index"][1]])
        for i in range(int(b["num_sampled_nodes"][0])):
            mine = b["e_id"][b["edge_index"][1] == i]
            m = len(eligible(g, b["n_id"][i], b["time"][i], strict, window))
            assert len(mine) == min(5, m)


def test_uniform_is_uniform_among_eligible_neighbours(ngraph, tmp_path):
    """The hub (in-degree > 400) as the one seed, 400 epochs of 5 draws:
    the counts of its eligible in-edges against equal expectations."""
    g = ngraph
    T = 120
    np.save(tmp_path / "t0.npy", np.array([T], dtype=np.int64))
    got = batches(g, "SAMPLE 5 FROM g SEEDS (0) AT TIMES '%s' BY NODE TIME "
                     "BATCH 1 SHUFFLE SEED 11 EPOCHS 400;" %
                  (tmp_path / "t0.npy"))
    el = eligible(g, 0, T, False, 0)
    counts = dict.fromkeys(el.tolist(), 0)
    for b in got:
        for e in b["e_id"]:
            counts[int(e)] += 1
    obs = np.array(list(counts.values()))
    assert obs.sum() == 400 * 5
    assert scipy_stats.chisquare(obs).pvalue > 1e-4


def test_batches_do_not_depend_on_hyperbatch_threads_pool_or_spill(ngraph):
    g = ngraph
    sql = ("SAMPLE 5,5 FROM g SEEDS train AT TIMES '%s' BY NODE TIME BATCH 8 "
           "SHUFFLE SEED 9 %%s;" % (g["dir"] / "st.npy"))
    ref = [b["digest"] for b in batches(g, sql % "")]
    for extra, pragmas in (("HYPERBATCH 1", None), ("", "PRAGMA threads = 1;"),
                           ("", "PRAGMA cache_policy = 'lru';"),
                           ("", "PRAGMA spill = 'on';")):
        got = [b["digest"] for b in batches(g, sql % extra, pragmas)]
        assert got == ref, (extra, pragmas)


@pytest.mark.parametrize("sql,words", [
    ("SAMPLE 2 FROM bare SEEDS train AT NODE TIME BY NODE TIME BATCH 8;",
     "no node times"),
    ("SAMPLE 2 FROM g SEEDS train BY NODE TIME BATCH 8;", "AT TIMES"),
    ("SAMPLE 2 FROM g SEEDS train AT NODE TIME BATCH 8;",
     "IMPORT EDGE TIMES"),
])
def test_what_cannot_run_is_refused_in_words(ngraph, sql, words):
    with gnndb.connect(ngraph["path"], readonly=True) as c:
        with pytest.raises(gnndb.Error) as ex:
            list(c.sample(sql))
    assert words in str(ex.value)
