"""Time-respecting link batches whose roots or hops take other times than
AT EDGE TIME's defaults, against the brute-force sampler of
temporal_ref.py, written from docs/language.md ("Time") apart from the
engine:

- AT EDGE TIME BY NODE TIME: each tree rooted at its seed edge's own time,
  each hop judging an edge by its source node's time;
- AT TIMES 'f' (BY EDGE TIME or BY NODE TIME): each tree rooted at the
  file's time for its seed edge, value i for the split's i-th edge by
  ascending edge id (not the order of the pairs file).

TEMPORAL LAST equals the reference array for array with BEFORE, WINDOW and
EXCLUDE SEEDS; UNIFORM keeps the bound on every batch; negatives are nodes
already there; the batches do not depend on HYPERBATCH, threads or
spilling; a graph with node times only serves AT TIMES BY NODE TIME; and
what cannot run is refused in words."""
import os

import numpy as np
import pytest

import gnndb
import temporal_ref
from temporal_ref import reference_last

N, E, NSEED = 300, 4000, 48


@pytest.fixture(scope="module")
def tgraph(tmp_path_factory):
    """A directed graph with a hub (node 0), edge and node times with ties;
    graph h has both, graph n node times only, graph bare neither. The
    split's pairs file lists its 48 edges shuffled, and ft.npy holds a time
    for each in ascending edge id."""
    d = tmp_path_factory.mktemp("temporal_link_times")
    rng = np.random.default_rng(23)
    src = rng.integers(0, N, E)
    dst = rng.integers(0, N, E)
    dst[:400] = 0
    t = rng.integers(0, 1000, E).astype(np.int64)
    nt = rng.integers(0, 300, N).astype(np.int64)
    np.savetxt(d / "e.csv", np.stack([src, dst], 1), fmt="%d", delimiter=",")
    np.save(d / "t.npy", t)
    np.save(d / "nt.npy", nt)
    pair = src * N + dst
    once = np.nonzero(np.bincount(pair, minlength=N * N)[pair] == 1)[0]
    sel = np.sort(rng.choice(once, NSEED, replace=False))
    listed = rng.permutation(sel)
    np.save(d / "lp.npy", np.stack([src[listed], dst[listed]], 1))
    ft = rng.integers(300, 1100, NSEED).astype(np.int64)
    np.save(d / "ft.npy", ft)
    path = str(d / "lt.gnndb")
    with gnndb.connect(path) as c:
        for name, et, ntimes in (("h", 1, 1), ("n", 0, 1), ("bare", 0, 0)):
            c.execute("CREATE GRAPH %s FROM '%s';" % (name, d / "e.csv"))
            if et:
                c.execute("IMPORT EDGE TIMES INTO %s FROM '%s';" %
                          (name, d / "t.npy"))
            if ntimes:
                c.execute("IMPORT NODE TIMES INTO %s FROM '%s';" %
                          (name, d / "nt.npy"))
            c.execute("CREATE EDGE SPLIT lp ON %s FROM '%s';" %
                      (name, d / "lp.npy"))
    return dict(dir=d, path=path, src=src, dst=dst, t=t, nt=nt, sel=sel,
                ft=ft)


FIELDS = ("n_id", "edge_index", "e_id", "edge_time", "node_seed", "time",
          "num_sampled_nodes", "num_sampled_edges", "edge_label_index",
          "edge_label", "src_index", "dst_pos_index", "dst_neg_index")

# (graph, the time clauses, by_node, roots at the file's times)
MODES = {
    "edge-by-node": ("h", "AT EDGE TIME BY NODE TIME", True, False),
    "file-by-node": ("h", "AT TIMES '{ft}' BY NODE TIME", True, True),
    "file-by-edge": ("h", "AT TIMES '{ft}' BY EDGE TIME", False, True),
    "file-default": ("h", "AT TIMES '{ft}'", False, True),
    "node-times-only": ("n", "AT TIMES '{ft}' BY NODE TIME", True, True),
}


def sql_of(g, mode, rest):
    graph, clause, _, _ = MODES[mode]
    return "SAMPLE %s FROM %s EDGES lp %s %s" % (
        rest[0], graph, clause.format(ft=g["dir"] / "ft.npy"), rest[1])


def batches(g, sql, pragmas=None):
    return temporal_ref.batches(g["path"], sql, FIELDS, pragmas)


def seed_times(g, mode, lo, hi):
    """The times of the seed edges sel[lo:hi] (ascending edge id)."""
    return g["ft"][lo:hi] if MODES[mode][3] else g["t"][g["sel"][lo:hi]]


def judged(g, mode, eid):
    """The time each sampled edge was judged by."""
    return g["nt"][g["src"][eid]] if MODES[mode][2] else g["t"][eid]


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("clause,strict,window,exclude", [
    ("", False, 0, False), ("BEFORE", True, 0, False),
    ("WINDOW 150", False, 150, False),
    ("BEFORE WINDOW 90 EXCLUDE SEEDS", True, 90, True)])
@pytest.mark.parametrize("neg,k,triplet", [
    ("NEGATIVE 1", 1, False), ("NEGATIVE 2 TRIPLET", 2, True)])
def test_last_equals_the_reference(tgraph, mode, clause, strict, window,
                                   exclude, neg, k, triplet):
    g = tgraph
    got = batches(g, sql_of(g, mode, ("4,3", "TEMPORAL LAST %s %s BATCH 16 "
                                             "SEED 5;" % (clause, neg))))
    assert len(got) == NSEED // 16
    by_node = MODES[mode][2]
    for b, lo in zip(got, range(0, NSEED, 16)):
        pe = g["sel"][lo:lo + 16]
        roots, times = temporal_ref.link_roots(
            b, g["src"][pe], g["dst"][pe], seed_times(g, mode, lo, lo + 16),
            k, triplet)
        ex = set(pe.tolist()) if exclude else set()
        n_id, ei, eid, root = reference_last(g, roots, times, [4, 3], strict,
                                             window, ex, by_node)
        np.testing.assert_array_equal(b["n_id"], n_id)
        np.testing.assert_array_equal(b["edge_index"], ei)
        np.testing.assert_array_equal(b["e_id"], eid)
        np.testing.assert_array_equal(b["edge_time"], judged(g, mode, eid))
        np.testing.assert_array_equal(b["node_seed"], root)
        # with node times every negative is a node already there
        negs = roots[2 * 16:] if triplet else roots[16 + 16 * k + 16:]
        ntimes = times[2 * 16:] if triplet else times[16 + 16 * k + 16:]
        assert (g["nt"][negs] <= ntimes).all()


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("clause,strict,window", [
    ("", False, 0), ("BEFORE", True, 0), ("WINDOW 200", False, 200)])
def test_uniform_keeps_the_time_bound_on_every_batch(tgraph, mode, clause,
                                                     strict, window):
    g = tgraph
    sql = sql_of(g, mode, ("5,5", "TEMPORAL UNIFORM %s NEGATIVE 2 BATCH 8 "
                                  "SHUFFLE SEED 3;" % clause))
    got = batches(g, sql)
    assert len(got) == NSEED // 8
    for b in got:
        dst_t = b["time"][b["node_seed"]][b["edge_index"][1]]
        et = b["edge_time"]
        np.testing.assert_array_equal(et, judged(g, mode, b["e_id"]))
        assert (et < dst_t).all() if strict else (et <= dst_t).all()
        if window:
            assert (et > dst_t - window).all()
        np.testing.assert_array_equal(g["src"][b["e_id"]],
                                      b["n_id"][b["edge_index"][0]])
        ns = b["node_seed"]
        np.testing.assert_array_equal(ns[b["edge_index"][0]],
                                      ns[b["edge_index"][1]])
    assert sum(len(b["e_id"]) for b in got) > 100
    again = batches(g, sql)
    assert [b["digest"] for b in got] == [b["digest"] for b in again]


def test_the_roots_take_the_file_in_ascending_edge_id(tgraph):
    """SHUFFLE orders the seed edges otherwise; each root still takes the
    file's time for its seed edge's place among the ascending ids."""
    g = tgraph
    place = {int(e): i for i, e in enumerate(g["sel"])}
    for b in batches(g, sql_of(g, "file-by-node", ("3", "NEGATIVE 1 "
                                                        "BATCH 12 SHUFFLE "
                                                        "SEED 7;"))):
        L = len(b["edge_label"])
        src, dst = b["n_id"][:L // 2], b["n_id"][L:L + L // 2]
        pe = [int(np.nonzero((g["src"] == s) & (g["dst"] == d))[0][0])
              for s, d in zip(src, dst)]
        np.testing.assert_array_equal(b["time"][:L // 2],
                                      g["ft"][[place[e] for e in pe]])


@pytest.mark.parametrize("mode", list(MODES))
def test_batches_do_not_depend_on_hyperbatch_threads_or_spilling(tgraph,
                                                                 mode):
    g = tgraph
    sql = sql_of(g, mode, ("5,5", "NEGATIVE 1 EXCLUDE SEEDS BATCH 8 SHUFFLE "
                                  "SEED 9 %s;"))
    ref = [b["digest"] for b in batches(g, sql % "")]
    assert len(ref) == NSEED // 8
    for extra, pragmas in (("HYPERBATCH 1", None), ("HYPERBATCH 4", None),
                           ("", "PRAGMA threads = 1;"),
                           ("", "PRAGMA spill = 'on';")):
        got = [b["digest"] for b in batches(g, sql % extra, pragmas)]
        assert got == ref, (extra, pragmas)


def test_seed_edges_past_the_first_block_of_a_list_are_timed(tmp_path):
    """AT EDGE TIME BY NODE TIME with 4 KB blocks: seed edges into a hub of
    2000 in-edges lie in continuation blocks of the time graph, and each
    root still takes its edge's own time."""
    rng = np.random.default_rng(2)
    src, dst = rng.integers(0, 2100, 3000), rng.integers(0, 2100, 3000)
    src[:2000], dst[:2000] = rng.permutation(np.arange(1, 2001)), 0
    g = dict(src=src, dst=dst, t=rng.integers(0, 1000, 3000),
             nt=rng.integers(0, 300, 2100))
    sel = np.r_[0, 1, 2, 3, 1997, 1998, 1999, 2500]
    np.savetxt(tmp_path / "e.csv", np.stack([src, dst], 1), fmt="%d",
               delimiter=",")
    np.save(tmp_path / "t.npy", g["t"].astype(np.int64))
    np.save(tmp_path / "nt.npy", g["nt"].astype(np.int64))
    np.save(tmp_path / "lp.npy", np.stack([src[sel], dst[sel]], 1))
    path = str(tmp_path / "small.gnndb")
    with gnndb.connect(path) as c:
        c.execute("CREATE GRAPH g FROM '%s' BLOCK SIZE 4 KB;" %
                  (tmp_path / "e.csv"))
        c.execute("IMPORT EDGE TIMES INTO g FROM '%s';" % (tmp_path / "t.npy"))
        c.execute("IMPORT NODE TIMES INTO g FROM '%s';" %
                  (tmp_path / "nt.npy"))
        c.execute("CREATE EDGE SPLIT lp ON g FROM '%s';" %
                  (tmp_path / "lp.npy"))
    (b,) = temporal_ref.batches(path, "SAMPLE 4 FROM g EDGES lp AT EDGE TIME "
                                "BY NODE TIME TEMPORAL LAST BATCH 8;",
                                FIELDS)
    roots, times = temporal_ref.link_roots(b, src[sel], dst[sel],
                                           g["t"][sel], 0, False)
    n_id, ei, eid, root = reference_last(g, roots, times, [4],
                                         by_node=True)
    np.testing.assert_array_equal(b["n_id"], n_id)
    np.testing.assert_array_equal(b["e_id"], eid)


def test_the_wrong_count_of_times_is_refused_at_prepare(tgraph, tmp_path):
    g = tgraph
    np.save(tmp_path / "few.npy", np.arange(10, dtype=np.int64))
    def state():
        with gnndb.connect(g["path"], readonly=True) as c:
            rows = list(c.execute("DESCRIBE h;"))
        return rows, sorted(f for f in os.listdir(g["path"])
                            if f.endswith(".blk"))
    before = state()
    with gnndb.connect(g["path"]) as c:
        with pytest.raises(gnndb.Error) as ex:
            c.sample("SAMPLE 2 FROM h EDGES lp AT TIMES '%s' BY NODE TIME "
                     "BATCH 8;" % (tmp_path / "few.npy"))
        words = str(ex.value)
        assert "few.npy" in words
        assert "10 times for 48 seed edges of edge split lp" in words
        # the connection and the database go on as before
        n = sum(1 for _ in c.sample(sql_of(g, "file-by-node",
                                           ("2", "BATCH 8;"))))
        assert n == NSEED // 8
    assert state() == before


def test_explain_says_where_the_roots_times_come_from(tgraph):
    g = tgraph
    with gnndb.connect(g["path"], readonly=True) as c:
        text = " ".join(str(r) for r in c.execute(
            "EXPLAIN " + sql_of(g, "file-by-node", ("2", "BATCH 8;"))))
    assert "each root's T its seed edge's from AT TIMES" in text
    assert "its source's node time" in text


@pytest.mark.parametrize("sql,words", [
    ("SAMPLE 2 FROM n EDGES lp AT EDGE TIME BY NODE TIME BATCH 8;",
     "graph n has no edge times: IMPORT EDGE TIMES"),
    ("SAMPLE 2 FROM n EDGES lp AT TIMES '{ft}' BATCH 8;",
     "graph n has no edge times: IMPORT EDGE TIMES"),
    ("SAMPLE 2 FROM n EDGES lp AT TIMES '{ft}' BY EDGE TIME BATCH 8;",
     "graph n has no edge times: IMPORT EDGE TIMES"),
    ("SAMPLE 2 FROM bare EDGES lp AT TIMES '{ft}' BY NODE TIME BATCH 8;",
     "BY NODE TIME: graph bare has no node times"),
    ("SAMPLE 2 FROM h EDGES lp AT NODE TIME BATCH 8;",
     "write AT EDGE TIME (each seed edge's own) or AT TIMES 'file'"),
    ("SAMPLE 2 FROM h EDGES lp AT TIMES '{ft}' NEGATIVE 1 STRICT BATCH 8;",
     "STRICT with AT TIMES is not available yet"),
    ("SAMPLE 2 FROM h EDGES lp AT EDGE TIME BY NODE TIME NEGATIVE 1 STRICT "
     "BATCH 8;", "STRICT with AT EDGE TIME is not available yet"),
])
def test_what_cannot_run_is_refused_in_words(tgraph, sql, words):
    with gnndb.connect(tgraph["path"], readonly=True) as c:
        with pytest.raises(gnndb.Error) as ex:
            list(c.sample(sql.format(ft=tgraph["dir"] / "ft.npy")))
    assert words in str(ex.value)
