"""INSERT EDGES, SAMPLE ... AS OF VERSION, SHOW VERSIONS and DROP VERSIONS.

The reference for an appended graph is the same statements over a graph
created from scratch from all its edges (the old file's rows, then the
inserted ones, one file): a SAMPLE after INSERT EDGES must give that
graph's batches digest for digest and array for array (n_id, edge_index,
x, y, e_id, the link and time arrays), with the graph's options
(UNDIRECTED, DROP DUPLICATES, DROP SELF LOOPS, MAP IDS, edge times) and
duplicates and self loops in both parts. A version's own batches are
recorded before the next insert: AS OF VERSION n must give them again, and
so must a statement prepared before another connection's or process's
INSERT and stepped after it. The timed LAST batches are also checked
against temporal_ref's brute-force sampler. Bad input and refused
statements change nothing: versions, digests and the directory's files."""
import os
import re
import subprocess

import numpy as np
import pytest

import gnndb
import temporal_ref
from batch_digest import digest as ref_digest

N = 200
SHELL = os.path.join(os.path.dirname(os.environ.get(
    "GNNDB_LIB", os.path.join("build", "libgnndb.so"))), "gnndb")


def save_csv(path, rows):
    np.savetxt(path, np.asarray(rows), fmt="%d", delimiter=",")


def blocks(path):
    """The database directory's files, less SQLite's -wal and -shm."""
    return sorted(f for f in os.listdir(path)
                  if not f.endswith(("-wal", "-shm")))


def versions(path, graph="g"):
    with gnndb.connect(path, readonly=True) as c:
        r = c.execute("SHOW VERSIONS %s;" % graph)
    assert r.columns == ("version", "edges", "input_edges", "made",
                         "current")
    return [tuple(x) for x in r]


def describe(path, graph="g"):
    with gnndb.connect(path, readonly=True) as c:
        return dict(c.execute("DESCRIBE %s;" % graph))


def take(path, sql, pragmas=None, conn=None):
    """Every batch of `sql` (owning copies), from a read-only connection."""
    def run(c):
        if pragmas:
            c.execute(pragmas)
        return [b.copy() for b in c.sample(sql)]
    if conn is not None:
        return run(conn)
    with gnndb.connect(path, readonly=True) as c:
        return run(c)


def assert_same(got, want, what=""):
    """Batch for batch: the digests, every array, and the digest recomputed
    from the arrays (batch_digest.py)."""
    assert len(got) == len(want) > 0, what
    for i, (a, b) in enumerate(zip(got, want)):
        for k in gnndb.Batch._ARRAYS:
            x, y = getattr(a, k, None), getattr(b, k, None)
            assert (x is None) == (y is None), (what, i, k)
            if x is not None:
                np.testing.assert_array_equal(x, y, err_msg="%s batch %d %s"
                                              % (what, i, k))
        assert a.digest == b.digest, (what, i)
        assert a.digest == ref_digest(a), (what, i)


def digests(bs):
    return [b.digest for b in bs]


class Pair:
    """An appended database (`app`: CREATE GRAPH from parts[0], `setup`,
    then INSERT EDGES of each later part) and a reference (`ref`: CREATE
    GRAPH from all the rows, the same `setup`). `record` SQLs are run on
    `app` before each insert and at the end: seen[v][sql] is version v's
    batches. `pre`: statements run before each insert, on its connection."""

    def __init__(self, d, rows, cuts, opts="", cols="", setup=(),
                 record=(), after=(), pre=()):
        self.dir = d
        self.rows = np.asarray(rows)
        self.parts = np.split(self.rows, cuts)
        self.files = []
        for i, p in enumerate(self.parts):
            f = str(d / ("part%d.csv" % i))
            save_csv(f, p)
            self.files.append(f)
        self.all = str(d / "all.csv")
        save_csv(self.all, self.rows)
        self.cols = cols
        self.app = str(d / "app.gnndb")
        self.ref = str(d / "ref.gnndb")
        self.seen = {}
        with gnndb.connect(self.ref) as c:
            c.execute("CREATE GRAPH g FROM '%s' %s %s;" % (self.all, opts,
                                                           cols))
            for q in list(setup) + list(after):
                c.execute(q)
        with gnndb.connect(self.app) as c:
            c.execute("CREATE GRAPH g FROM '%s' %s %s;" % (self.files[0],
                                                           opts, cols))
        self.v1_blocks = [f for f in blocks(self.app) if f.endswith(".blk")]
        with gnndb.connect(self.app) as c:
            for q in setup:
                c.execute(q)
        self.desc = [describe(self.app)]
        self.listing = [blocks(self.app)]
        self.record(1, record)
        for v, f in enumerate(self.files[1:], start=2):
            with gnndb.connect(self.app) as c:
                for q in pre:
                    c.execute(q)
                c.execute("INSERT EDGES INTO g FROM '%s' %s;" % (f, cols))
            self.desc.append(describe(self.app))
            self.listing.append(blocks(self.app))
            self.record(v, record)
        with gnndb.connect(self.app) as c:
            for q in after:
                c.execute(q)

    def record(self, v, sqls):
        self.seen[v] = {q: take(self.app, q) for q in sqls}


def rand_edges(rng, m, n=N):
    return rng.integers(0, n, (m, 2))


def plant(rows, cut, loop0=False):
    """Duplicates and self loops in both parts: an old self loop and
    duplicates (one reversed), a new self loop, a new copy of a kept old
    edge, a new copy of an old dropped row, a duplicate inside the new
    part and a reversed copy of an old edge. Node 0 (a seed) gets an old
    duplicate so that a dropped old row fed again as the stand-in self
    loop 0 -> 0 would change its batches; with `loop0`, row 35 is a real
    self loop 0 -> 0 whose id such a stand-in would take."""
    r = rows.copy()
    r[10] = (5, 5)
    r[11] = (0, 17)
    r[20] = r[11]                     # dropped as a duplicate
    r[30] = r[12][::-1]               # undirected: a duplicate
    r[31] = (9, 9)
    if loop0:
        r[35] = (0, 0)                # after the dropped row 20
    r[cut + 5] = (7, 7)
    r[cut + 10] = r[11]
    r[cut + 15] = r[20]
    r[cut + 20] = r[cut + 3]
    r[cut + 25] = r[40][::-1]
    r[cut + 26] = r[31]
    return r


def node_setup(d, rng, n=N):
    np.save(d / "x.npy", rng.random((n, 5), dtype=np.float32))
    np.save(d / "y.npy", rng.integers(0, 4, n))
    np.save(d / "tr.npy", np.arange(0, n, 2))
    return ("IMPORT FEATURES feat INTO g FROM '%s';" % (d / "x.npy"),
            "IMPORT LABELS INTO g FROM '%s';" % (d / "y.npy"),
            "CREATE SPLIT tr ON g FROM '%s';" % (d / "tr.npy"))


NODE_SQL = "SAMPLE 5,5 FROM g SEEDS tr FEATURES feat BATCH 16 SEED 3;"
SHUF_SQL = ("SAMPLE 4,3,2 FROM g SEEDS tr FEATURES feat BATCH 12 SHUFFLE "
            "EPOCHS 2 SEED 11;")
REPL_SQL = ("SAMPLE 6,3 FROM g SEEDS tr BATCH 20 WITH REPLACEMENT "
            "SEED 5;")
NODE_SQLS = (NODE_SQL, SHUF_SQL, REPL_SQL)

OPTS = {
    "directed": "NODES %d" % N,
    "undirected": "UNDIRECTED NODES %d" % N,
    "dedup-loops": "DROP DUPLICATES DROP SELF LOOPS NODES %d" % N,
    "undirected-dedup-loops": ("UNDIRECTED DROP DUPLICATES DROP SELF LOOPS "
                               "NODES %d" % N),
    "dedup-only": "DROP DUPLICATES NODES %d" % N,
    "undirected-dedup": "UNDIRECTED DROP DUPLICATES NODES %d" % N,
    "loops-only": "UNDIRECTED DROP SELF LOOPS NODES %d" % N,
}


@pytest.mark.parametrize("opts", list(OPTS))
def test_node_sample_after_insert_equals_the_graph_from_scratch(tmp_path,
                                                                opts):
    rng = np.random.default_rng(1)
    rows = plant(rand_edges(rng, 3000), 2400)
    p = Pair(tmp_path, rows, [2400], OPTS[opts], setup=node_setup(
        tmp_path, rng), record=NODE_SQLS)
    for q in NODE_SQLS:
        assert_same(take(p.app, q), take(p.ref, q), q)
        # the insert changed the batches: the test compares something
        assert digests(p.seen[1][q]) != digests(take(p.app, q))
    d, r = p.desc[-1], describe(p.ref)
    for k in ("nodes", "edges", "input_edges", "directed", "degree.max",
              "degree.min", "degree.mean"):
        assert d[k] == r[k], k
    assert versions(p.app)[-1][1:3] == (int(r["edges"]),
                                        int(r["input_edges"]))


def test_two_inserts_make_version_3_equal_to_the_graph_from_scratch(
        tmp_path):
    rng = np.random.default_rng(2)
    rows = plant(rand_edges(rng, 3000), 2000)
    rows[2600] = rows[2001]           # the third part repeats the second's
    rows[2610] = (3, 3)
    p = Pair(tmp_path, rows, [2000, 2600],
             OPTS["undirected-dedup-loops"], setup=node_setup(tmp_path, rng),
             record=NODE_SQLS)
    assert [v[0] for v in versions(p.app)] == [1, 2, 3]
    for q in NODE_SQLS:
        assert_same(take(p.app, q), take(p.ref, q), q)
        # and each older version still gives what it gave
        for v in (1, 2):
            assert_same(take(p.app, q.replace(";", " AS OF VERSION %d;" % v)),
                        p.seen[v][q], "AS OF %d: %s" % (v, q))
        assert_same(take(p.app, q.replace(";", " AS OF VERSION 3;")),
                    p.seen[3][q], q)


def test_as_of_version_1_equals_the_batches_before_the_insert(tmp_path):
    """Also on a reopened database, with EXPLAIN, and not on a version
    that never was."""
    rng = np.random.default_rng(3)
    rows = plant(rand_edges(rng, 3000), 2400)
    p = Pair(tmp_path, rows, [2400], OPTS["undirected-dedup-loops"],
             setup=node_setup(tmp_path, rng), record=NODE_SQLS)
    for q in NODE_SQLS:
        old = q.replace(";", " AS OF VERSION 1;")
        assert_same(take(p.app, old), p.seen[1][q], old)
        assert_same(take(p.app, old, "PRAGMA threads = 1;"), p.seen[1][q],
                    old)
        assert_same(take(p.app, q.replace(";", " AS OF VERSION 2;")),
                    take(p.app, q), q)
    with gnndb.connect(p.app, readonly=True) as c:
        plan = c.execute("EXPLAIN " + NODE_SQL.replace(";", " AS OF VERSION "
                                                       "1;"))
        assert len(plan) > 3
        for v in (3, 99):
            with pytest.raises(gnndb.Error) as ex:
                c.sample(NODE_SQL.replace(";", " AS OF VERSION %d;" % v))
            assert "graph g has no version %d (its versions are 1 to 2" % v \
                in str(ex.value)


SPILL = [
    ("HYPERBATCH 1", None),
    ("HYPERBATCH 3", None),
    ("", "PRAGMA threads = 1;"),
    ("", "PRAGMA threads = 2;"),
    ("HYPERBATCH 4", "PRAGMA spill = 'on'; PRAGMA threads = 2;"),
    ("", "PRAGMA memory_limit = '64MB';"),
]


@pytest.fixture(scope="module")
def undirected_pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("versions_und")
    rng = np.random.default_rng(4)
    rows = plant(rand_edges(rng, 3000), 2400)
    return Pair(d, rows, [2400], OPTS["undirected-dedup-loops"],
                setup=node_setup(d, rng), record=(NODE_SQL, SHUF_SQL))


@pytest.mark.parametrize("extra,pragmas", SPILL)
def test_hyperbatch_threads_and_spilling_do_not_change_the_new_version(
        undirected_pair, extra, pragmas):
    p = undirected_pair
    for q in (NODE_SQL, SHUF_SQL):
        want = take(p.ref, q)
        sql = q.replace(";", " %s;" % extra)
        assert_same(take(p.app, sql, pragmas), want, (sql, pragmas))
        old = q.replace(";", " %s AS OF VERSION 1;" % extra)
        assert_same(take(p.app, old, pragmas), p.seen[1][q], (old, pragmas))


def test_spilled_batches_of_both_versions(undirected_pair):
    """The spill area is really used (not only allowed)."""
    p = undirected_pair
    for sql, want in ((NODE_SQL, take(p.ref, NODE_SQL)),
                      (NODE_SQL.replace(";", " AS OF VERSION 1;"),
                       p.seen[1][NODE_SQL])):
        with gnndb.connect(p.app, readonly=True) as c:
            c.execute("PRAGMA spill = 'on';")
            with c.sample(sql.replace("BATCH 16", "BATCH 16 HYPERBATCH 4")) \
                    as it:
                got = []
                for b in it:
                    got.append(b.copy())
                    written = it.status(gnndb.STATUS_SPILL_WRITTEN)
        assert written > 0
        assert_same(got, want, sql)


# ---- MAP IDS ------------------------------------------------------------

def test_map_ids_with_sparse_keys(tmp_path):
    """Keys spread over int64 (negative ones too); the new edges join
    existing keys; a key whose only old edge was a dropped self loop stays
    a node."""
    rng = np.random.default_rng(5)
    keys = np.sort(rng.choice(1 << 40, N, replace=False)) - (1 << 39)
    idx = rng.integers(0, N - 1, (3000, 2))
    idx[100:100 + N - 1, 0] = np.arange(N - 1)   # every key in the old part
    idx[99] = (N - 1, N - 1)          # ... the last one only in a self loop
    idx = plant(idx, 2400)
    rows = keys[idx]
    np.save(tmp_path / "tr.npy", keys[::3])
    np.save(tmp_path / "x.npy", rng.random((N, 4), dtype=np.float32))
    setup = ("CREATE SPLIT tr ON g FROM '%s';" % (tmp_path / "tr.npy"),
             "IMPORT FEATURES feat INTO g FROM '%s';" % (tmp_path / "x.npy"))
    p = Pair(tmp_path, rows, [2400], "MAP IDS UNDIRECTED DROP DUPLICATES "
             "DROP SELF LOOPS", setup=setup, record=(NODE_SQL,))
    assert p.desc[0]["nodes"] == p.desc[1]["nodes"] == N
    for q in (NODE_SQL, SHUF_SQL):
        got = take(p.app, q)
        assert_same(got, take(p.ref, q), q)
        assert np.isin(np.concatenate([b.n_id for b in got]), keys).all()
    assert_same(take(p.app, NODE_SQL.replace(";", " AS OF VERSION 1;")),
                p.seen[1][NODE_SQL])
    # a key that is not a node: refused, naming the file, line and key;
    # nothing changes
    bad = tmp_path / "bad.csv"
    save_csv(bad, [[keys[0], keys[1]], [keys[2], keys[3] + 1]])
    expect_refused(p.app, "INSERT EDGES INTO g FROM '%s';" % bad,
                   ["bad.csv:2:", "node key %d is not a node of graph g"
                    % (keys[3] + 1)],
                   [NODE_SQL])


# ---- edge ids and link seeds ----------------------------------------------

LINK_SQLS = (
    "SAMPLE 5,3 FROM g EDGES s NEGATIVE 1 EXCLUDE SEEDS FEATURES feat "
    "BATCH 32 SHUFFLE SEED 4;",
    "SAMPLE 4,4 FROM g EDGES old NEGATIVE 2 TRIPLET EXCLUDE SEEDS "
    "BATCH 16 SEED 9;",
    "SAMPLE 3,3 FROM g SEEDS tr EDGE FEATURES w BATCH 16 SEED 2;",
    "SAMPLE 3,3 FROM g EDGES s NEGATIVE 1 EDGE FEATURES w BATCH 40 "
    "SEED 8 HYPERBATCH 2;",
)


@pytest.mark.parametrize("opts", ["directed", "undirected-dedup-loops",
                                  "dedup-only"])
def test_link_samples_and_edge_ids_equal_the_graph_from_scratch(tmp_path,
                                                                 opts):
    """Edge splits: `old`'s pairs are old edges (made before the insert on
    the appended graph), `s` a RANDOM split made after it; edge features w
    (a row per input edge of the whole file) are imported after it, so
    that e_id and edge_attr of node and link batches are compared."""
    rng = np.random.default_rng(6)
    rows = plant(rand_edges(rng, 3000), 2400, loop0=True)
    ok = np.nonzero(rows[100:2400, 0] != rows[100:2400, 1])[0] + 100
    pick = rng.choice(ok, 64, replace=False)
    np.save(tmp_path / "old.npy", rows[pick])
    np.save(tmp_path / "w.npy", rng.random((3000, 3), dtype=np.float32))
    setup = node_setup(tmp_path, rng) + (
        "CREATE EDGE SPLIT old ON g FROM '%s';" % (tmp_path / "old.npy"),)
    after = ("CREATE EDGE SPLITS s, rest ON g RANDOM 0.3, 0.7 SEED 1;",
             "IMPORT EDGE FEATURES w INTO g FROM '%s';" % (tmp_path /
                                                           "w.npy"))
    p = Pair(tmp_path, rows, [2400], OPTS[opts], setup=setup, after=after,
             record=(LINK_SQLS[1],))
    assert describe(p.app)["edge_split.s"] == describe(p.ref)["edge_split.s"]
    seen_new = False
    for q in LINK_SQLS:
        got = take(p.app, q)
        assert_same(got, take(p.ref, q), q)
        eid = np.concatenate([b.e_id for b in got])
        seen_new |= bool((eid >= 2400).any())
        # e_id is the input row: the edge's endpoints are that row's
        for b in got:
            s, t = b.n_id[b.edge_index[0]], b.n_id[b.edge_index[1]]
            r = rows[b.e_id]
            ok = (r[:, 0] == s) & (r[:, 1] == t)
            if opts.startswith("undirected"):
                ok |= (r[:, 0] == t) & (r[:, 1] == s)
            assert ok.all(), q
    assert seen_new
    # the split made before the insert gives the same batches on version 1
    q = LINK_SQLS[1]
    assert_same(take(p.app, q.replace(";", " AS OF VERSION 1;")),
                p.seen[1][q], q)


# ---- edge times -------------------------------------------------------------

TIME_FIELDS = ("n_id", "edge_index", "e_id", "edge_time", "node_seed",
               "time")


@pytest.fixture(scope="module")
def timed_pair(tmp_path_factory):
    """A directed graph created with COLUMNS (0, 1, 2), node times, a node
    split with its times file and an edge split; two inserts with times."""
    d = tmp_path_factory.mktemp("versions_timed")
    rng = np.random.default_rng(7)
    src, dst = rng.integers(0, N, 3000), rng.integers(0, N, 3000)
    dst[:300] = 0                      # a hub
    dst[2500:2700] = 0                 # that the inserts add to
    t = rng.integers(0, 1000, 3000)
    nt = rng.integers(0, 300, N)
    nt[:4] = 0
    rows = np.stack([src, dst, t], 1)
    np.save(d / "nt.npy", nt)
    seeds = np.arange(0, N, 4)
    np.save(d / "seeds.npy", seeds)
    st = rng.integers(100, 1100, len(seeds))
    np.save(d / "st.npy", st)
    sel = np.sort(rng.choice(np.arange(2000), 48, replace=False))
    sel = sel[np.unique(rows[sel, :2], axis=0, return_index=True)[1]]
    np.save(d / "lp.npy", rows[sel, :2])
    setup = ("IMPORT NODE TIMES INTO g FROM '%s';" % (d / "nt.npy"),
             "CREATE SPLIT tr ON g FROM '%s';" % (d / "seeds.npy"),
             "CREATE EDGE SPLIT lp ON g FROM '%s';" % (d / "lp.npy"))
    sqls = tuple(q.format(st=d / "st.npy") for q in TIME_SQLS)
    p = Pair(d, rows, [2000, 2600], "NODES %d" % N, cols="COLUMNS (0, 1, 2)",
             setup=setup, record=sqls)
    p.g = dict(src=src, dst=dst, t=t, nt=nt, seeds=seeds, st=st, sel=sel)
    p.sqls = sqls
    return p


TIME_SQLS = (
    "SAMPLE 4,3 FROM g SEEDS tr AT TIMES '{st}' TEMPORAL LAST BATCH 16;",
    "SAMPLE 4,3 FROM g SEEDS tr AT NODE TIME TEMPORAL LAST BEFORE "
    "BATCH 16;",
    "SAMPLE 5,5 FROM g SEEDS tr AT TIMES '{st}' TEMPORAL UNIFORM BATCH 8 "
    "SHUFFLE SEED 3;",
    "SAMPLE 4,2 FROM g EDGES lp AT EDGE TIME TEMPORAL LAST NEGATIVE 1 "
    "EXCLUDE SEEDS BATCH 16 SEED 5;",
    "SAMPLE 4,4 FROM g EDGES lp AT EDGE TIME TEMPORAL UNIFORM WINDOW 400 "
    "NEGATIVE 2 BATCH 12 SEED 6;",
)


@pytest.mark.parametrize("i", range(len(TIME_SQLS)))
def test_temporal_sample_after_insert_equals_the_timed_graph_from_scratch(
        timed_pair, i):
    p = timed_pair
    q = p.sqls[i]
    got = take(p.app, q)
    assert_same(got, take(p.ref, q), q)
    assert all(b.edge_time is not None for b in got)
    for v in (1, 2):
        assert_same(take(p.app, q.replace(";", " AS OF VERSION %d;" % v)),
                    p.seen[v][q], "AS OF %d: %s" % (v, q))
    assert_same(got, p.seen[3][q], q)
    assert digests(p.seen[1][q]) != digests(got)


def test_temporal_last_of_each_version_equals_the_brute_force(timed_pair):
    """Version v's graph is the first rows of all.csv: TEMPORAL LAST over
    AS OF VERSION v against temporal_ref on those rows alone."""
    p = timed_pair
    g = p.g
    q = p.sqls[0]
    for v, m in ((1, 2000), (2, 2600), (3, 3000)):
        sub = dict(src=g["src"][:m], dst=g["dst"][:m], t=g["t"][:m],
                   nt=g["nt"])
        got = take(p.app, q.replace(";", " AS OF VERSION %d;" % v))
        for b, lo in zip(got, range(0, len(g["seeds"]), 16)):
            seeds = g["seeds"][lo:lo + 16]
            n_id, ei, eid, root = temporal_ref.reference_last(
                sub, seeds, g["st"][lo:lo + 16], [4, 3])
            np.testing.assert_array_equal(b.n_id, n_id)
            np.testing.assert_array_equal(b.edge_index, ei)
            np.testing.assert_array_equal(b.e_id, eid)
            np.testing.assert_array_equal(b.edge_time, g["t"][eid])
            np.testing.assert_array_equal(b.node_seed, root)
        if v == 3:
            assert (np.concatenate([b.e_id for b in got]) >= 2600).any()


def test_timed_graph_from_edge_times_takes_an_insert_with_times(tmp_path):
    """A graph given its times by IMPORT EDGE TIMES (not a time column)
    appends as the graph created with COLUMNS (0, 1, 2) from all rows."""
    rng = np.random.default_rng(8)
    rows = np.c_[rand_edges(rng, 3000), rng.integers(0, 1000, 3000)]
    save_csv(tmp_path / "a.csv", rows[:2400, :2])
    np.save(tmp_path / "t.npy", rows[:2400, 2])
    save_csv(tmp_path / "b.csv", rows[2400:])
    save_csv(tmp_path / "all.csv", rows)
    np.save(tmp_path / "st.npy", rng.integers(0, 1100, N // 2))
    np.save(tmp_path / "tr.npy", np.arange(0, N, 2))
    app, ref = str(tmp_path / "app.gnndb"), str(tmp_path / "ref.gnndb")
    with gnndb.connect(app) as c:
        c.execute("CREATE GRAPH g FROM '%s' NODES %d;" % (tmp_path / "a.csv",
                                                         N))
        c.execute("IMPORT EDGE TIMES INTO g FROM '%s';" % (tmp_path /
                                                          "t.npy"))
        c.execute("CREATE SPLIT tr ON g FROM '%s';" % (tmp_path / "tr.npy"))
        c.execute("INSERT EDGES INTO g FROM '%s' COLUMNS (0, 1, 2);" %
                  (tmp_path / "b.csv"))
    with gnndb.connect(ref) as c:
        c.execute("CREATE GRAPH g FROM '%s' COLUMNS (0, 1, 2) NODES %d;" %
                  (tmp_path / "all.csv", N))
        c.execute("CREATE SPLIT tr ON g FROM '%s';" % (tmp_path / "tr.npy"))
    q = ("SAMPLE 5,5 FROM g SEEDS tr AT TIMES '%s' TEMPORAL LAST BATCH 16;"
         % (tmp_path / "st.npy"))
    assert_same(take(app, q), take(ref, q), q)


# ---- snapshots: a statement reads the version of its prepare --------------

def insert_in_process(path, f):
    p = subprocess.run([SHELL, path, "INSERT EDGES INTO g FROM '%s';" % f],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=120)
    assert p.returncode == 0, p.stdout


def small_graph(d, rng, m=3000, cut=2400):
    rows = plant(rand_edges(rng, m), cut)
    save_csv(d / "a.csv", rows[:cut])
    save_csv(d / "b.csv", rows[cut:])
    path = str(d / "s.gnndb")
    with gnndb.connect(path) as c:
        c.execute("CREATE GRAPH g FROM '%s' UNDIRECTED DROP DUPLICATES "
                  "NODES %d;" % (d / "a.csv", N))
        for q in node_setup(d, rng):
            c.execute(q)
    return path, str(d / "b.csv")


@pytest.mark.parametrize("writer", ["process", "connection"])
def test_a_statement_prepared_before_an_insert_reads_the_old_version(
        tmp_path, writer):
    """Prepared on version 1 (one not yet stepped, one stepped once), then
    another process (the shell) or another connection of this process
    inserts: both statements give version 1's batches; a statement
    prepared afterwards gives version 2's."""
    path, b = small_graph(tmp_path, np.random.default_rng(9))
    before = take(path, SHUF_SQL)
    with gnndb.connect(path, readonly=True) as r:
        fresh = r.sample(SHUF_SQL)
        started = r.sample(SHUF_SQL)
        first = [next(started).copy()]
        if writer == "process":
            insert_in_process(path, b)
        else:
            with gnndb.connect(path) as w:
                w.execute("INSERT EDGES INTO g FROM '%s';" % b)
        assert [v[0] for v in versions(path)] == [1, 2]
        assert_same([x.copy() for x in fresh], before, "not stepped")
        assert_same(first + [x.copy() for x in started], before, "stepped")
        after = take(path, SHUF_SQL, conn=r)
    assert digests(after) != digests(before)
    assert_same(after, take(path, SHUF_SQL.replace(";", " AS OF VERSION "
                                                   "2;")))


def test_a_writable_connection_with_an_open_statement(tmp_path):
    """The connection that inserts has a statement open on version 1: it
    reads on to its end as it began."""
    path, b = small_graph(tmp_path, np.random.default_rng(10))
    before = take(path, NODE_SQL)
    with gnndb.connect(path) as w:
        it = w.sample(NODE_SQL)
        first = [next(it).copy()]
        w.execute("INSERT EDGES INTO g FROM '%s';" % b)
        assert_same(first + [x.copy() for x in it], before)
        assert digests(take(path, NODE_SQL, conn=w)) != digests(before)


# ---- SHOW VERSIONS, DROP VERSIONS, DROP GRAPH ------------------------------

MADE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def test_show_versions_lists_each_version(tmp_path):
    rng = np.random.default_rng(11)
    rows = plant(rand_edges(rng, 3000), 2000)
    p = Pair(tmp_path, rows, [2000, 2600], OPTS["undirected-dedup-loops"])
    vs = versions(p.app)
    assert [v[0] for v in vs] == [1, 2, 3]
    assert [v[4] for v in vs] == ["", "", "yes"]
    assert all(MADE.match(v[3]) for v in vs), vs
    # each version's counts: what CREATE GRAPH makes of that many rows
    for v, m in ((1, 2000), (2, 2600), (3, 3000)):
        path = str(tmp_path / ("p%d.gnndb" % v))
        save_csv(tmp_path / ("pre%d.csv" % v), rows[:m])
        with gnndb.connect(path) as c:
            c.execute("CREATE GRAPH g FROM '%s' %s;" % (
                tmp_path / ("pre%d.csv" % v),
                OPTS["undirected-dedup-loops"]))
        d = describe(path)
        assert vs[v - 1][1:3] == (int(d["edges"]), int(d["input_edges"]))
        assert vs[v - 1][2] == m
        assert d["edges"] == p.desc[v - 1]["edges"]
    assert describe(p.app)["edges"] == describe(p.ref)["edges"]
    with gnndb.connect(p.app, readonly=True) as c:
        with pytest.raises(gnndb.Error) as ex:
            c.execute("SHOW VERSIONS nosuch;")
        assert "no such graph: nosuch" in str(ex.value)
    # a graph never appended to has its one version
    with gnndb.connect(p.ref, readonly=True) as c:
        (row,) = c.execute("SHOW VERSIONS g;")
    assert row[0] == 1 and row[4] == "yes"


def test_drop_versions_before_frees_the_old_files(tmp_path):
    rng = np.random.default_rng(12)
    rows = plant(rand_edges(rng, 3000), 2000)
    p = Pair(tmp_path, rows, [2000, 2600], OPTS["undirected-dedup-loops"],
             setup=node_setup(tmp_path, rng), record=(NODE_SQL,))
    v1 = set(p.v1_blocks)
    v2 = set(p.listing[1]) - set(p.listing[0])
    v3 = set(p.listing[2]) - set(p.listing[1])
    assert v1 and v2 and v3
    assert v1 <= set(p.listing[2])
    cur = take(p.app, NODE_SQL)
    v2_batches = take(p.app, NODE_SQL.replace(";", " AS OF VERSION 2;"))
    with gnndb.connect(p.app) as c:
        c.execute("DROP VERSIONS BEFORE 1 ON g;")       # nothing before 1
        assert blocks(p.app) == p.listing[2]
        c.execute("DROP VERSIONS BEFORE 2 ON g;")
    # what version 1 alone read goes; the blocks of its files that the
    # deltas of versions 2 and 3 still read stay (test_deltas.py)
    read = described_files(describe(p.app))
    assert set(blocks(p.app)) == set(p.listing[2]) - (v1 - read)
    assert [v[0] for v in versions(p.app)] == [2, 3]
    with gnndb.connect(p.app, readonly=True) as c:
        with pytest.raises(gnndb.Error) as ex:
            c.sample(NODE_SQL.replace(";", " AS OF VERSION 1;"))
        assert "version 1 of graph g was dropped (DROP VERSIONS); " \
            "versions 2 to 3 remain" in str(ex.value)
        (row,) = c.execute("CHECK;")
        assert row[0] == "ok", row
    assert_same(take(p.app, NODE_SQL), cur)
    assert_same(take(p.app, NODE_SQL.replace(";", " AS OF VERSION 2;")),
                v2_batches)
    # the current version stays; a writable open leaves the files alone
    with gnndb.connect(p.app) as c:
        with pytest.raises(gnndb.Error) as ex:
            c.execute("DROP VERSIONS BEFORE 4 ON g;")
        assert "the current version is 3, and it stays" in str(ex.value)
        c.execute("DROP VERSIONS BEFORE 3 ON g;")
    read = described_files(describe(p.app))
    assert set(blocks(p.app)) == set(p.listing[2]) - ((v1 | v2) - read)
    assert {f for f in blocks(p.app) if f.endswith(".blk")} == read
    assert [v[0] for v in versions(p.app)] == [3]
    assert_same(take(p.app, NODE_SQL), cur)
    assert_same(take(p.app, NODE_SQL.replace(";", " AS OF VERSION 3;")), cur)
    # another version after the drops
    with gnndb.connect(p.app) as c:
        c.execute("INSERT EDGES INTO g FROM '%s';" % p.files[2])
        (row,) = c.execute("CHECK;")
        assert row[0] == "ok", row
    assert [v[0] for v in versions(p.app)] == [3, 4]
    assert_same(take(p.app, NODE_SQL.replace(";", " AS OF VERSION 3;")), cur)


def described_files(d):
    """The block files a DESCRIBE (a dict of its rows) lists."""
    return {k[len("file."):] for k in d
            if k.startswith("file.") and k.endswith(".blk")}


def blk(listing):
    return {f for f in listing if f.endswith(".blk")}


def test_describe_lists_the_current_versions_files(tmp_path):
    """DESCRIBE's file.* rows: the current version's topology, edge-id
    topology, edge table and time graph, with the graph's tables; after
    DROP VERSIONS of every older version, exactly the directory's."""
    rng = np.random.default_rng(16)
    rows = np.c_[plant(rand_edges(rng, 3000), 2000), rng.integers(0, 9, 3000)]
    p = Pair(tmp_path, rows, [2000, 2600], OPTS["dedup-loops"],
             cols="COLUMNS (0, 1, 2)", setup=node_setup(tmp_path, rng))
    # one version: every file of the directory is the graph's
    assert described_files(p.desc[0]) == blk(p.listing[0])
    assert set(p.v1_blocks) <= described_files(p.desc[0])
    new = blk(set(p.listing[2]) - set(p.listing[1]))
    got = described_files(p.desc[2])
    assert new <= got, (new, got)
    assert not got & set(p.v1_blocks)
    with gnndb.connect(p.app) as c:
        c.execute("DROP VERSIONS BEFORE 3 ON g;")
    after = described_files(describe(p.app))
    assert after == blk(blocks(p.app)) == got


def test_drop_versions_of_a_timed_graph_frees_its_time_graph(timed_pair,
                                                             tmp_path):
    p = timed_pair
    path = str(tmp_path / "copy.gnndb")
    subprocess.run(["cp", "-a", p.app, path], check=True)
    q = p.sqls[0]
    with gnndb.connect(path) as c:
        c.execute("DROP VERSIONS BEFORE 3 ON g;")
        (row,) = c.execute("CHECK;")
        assert row[0] == "ok", row
    left = set(blocks(path))
    v2 = set(p.listing[1]) - set(p.listing[0])
    assert v2 and set(p.v1_blocks) <= set(p.listing[2])
    assert left == set(p.listing[2]) - set(p.v1_blocks) - v2
    assert len(left) < len(p.listing[2])
    assert_same(take(path, q), p.seen[3][q])


def test_drop_graph_of_a_versioned_graph_leaves_no_block_files(tmp_path):
    rng = np.random.default_rng(13)
    rows = plant(rand_edges(rng, 3000), 2000)
    np.save(tmp_path / "w.npy", rng.random((3000, 2), dtype=np.float32))
    p = Pair(tmp_path, np.c_[rows, rng.integers(0, 9, 3000)], [2000, 2600],
             OPTS["undirected-dedup-loops"], cols="COLUMNS (0, 1, 2)",
             setup=node_setup(tmp_path, rng),
             after=("IMPORT EDGE FEATURES w INTO g FROM '%s';" %
                    (tmp_path / "w.npy"),))
    with gnndb.connect(p.app) as c:
        c.execute("DROP VERSIONS BEFORE 2 ON g;")
        c.execute("DROP GRAPH g;")
    assert [f for f in blocks(p.app) if f.endswith(".blk")] == []
    with gnndb.connect(p.app) as c:       # a writable open finds no orphans
        assert list(c.execute("SHOW GRAPHS;")) == []
    assert [f for f in blocks(p.app) if f.endswith(".blk")] == []


# ---- bad input and refusals change nothing -----------------------------------

def expect_refused(path, sql, words, sqls=(), graph="g"):
    """`sql` fails with each of `words` in its message; SHOW VERSIONS, the
    directory's files and the batches of `sqls` are as before."""
    vs = (lambda: versions(path, graph)) if graph else list
    before = (vs(), blocks(path), [digests(take(path, q)) for q in sqls])
    with gnndb.connect(path) as c:
        with pytest.raises(gnndb.Error) as ex:
            c.execute(sql)
    for w in words:
        assert w in str(ex.value), (w, str(ex.value))
    after = (vs(), blocks(path), [digests(take(path, q)) for q in sqls])
    assert after == before
    with gnndb.connect(path) as c:       # a writable open: no orphans either
        pass
    assert blocks(path) == before[1]
    return str(ex.value)


@pytest.fixture
def appended(tmp_path):
    rng = np.random.default_rng(14)
    rows = plant(rand_edges(rng, 3000), 2400)
    return Pair(tmp_path, rows, [2400], OPTS["undirected-dedup-loops"],
                setup=node_setup(tmp_path, rng))


def test_bad_files_change_nothing(appended, tmp_path):
    p = appended
    lines = ["1,2", "3,4", "5,6", "7,8"]
    cases = [
        (["5,%d" % N], ["beyond.csv:3:", "node id %d is not a node of graph "
                                          "g (its %d nodes are ids 0 to %d)"
                        % (N, N, N - 1)], "beyond.csv"),
        (["%d,5" % (N + 50)], ["beyond2.csv:3:", "node id %d" % (N + 50)],
         "beyond2.csv"),
        (["5,x"], ["malformed.csv:3:", "expected an integer node id, found "
                                       "'x'"], "malformed.csv"),
        (["-1,5"], ["negative.csv:3:"], "negative.csv"),
    ]
    for bad, words, name in cases:
        f = tmp_path / name
        f.write_text("\n".join(lines[:2] + bad + lines[2:]) + "\n")
        expect_refused(p.app, "INSERT EDGES INTO g FROM '%s';" % f, words,
                       [NODE_SQL])
    expect_refused(p.app, "INSERT EDGES INTO g FROM '%s';" %
                   (tmp_path / "nope.csv"), ["nope.csv"], [NODE_SQL])
    expect_refused(p.app, "INSERT EDGES INTO nosuch FROM '%s';" % p.files[1],
                   ["no such graph: nosuch"])
    # a time column into a graph without times
    f = tmp_path / "timed.csv"
    f.write_text("1,2,5\n3,4,6\n")
    expect_refused(p.app, "INSERT EDGES INTO g FROM '%s' COLUMNS (0, 1, 2);"
                   % f, ["INSERT EDGES INTO g: g has no edge times"],
                   [NODE_SQL])
    # and the graph still takes a good file afterwards
    with gnndb.connect(p.app) as c:
        c.execute("INSERT EDGES INTO g FROM '%s';" % (tmp_path / "timed.csv"))
    assert [v[0] for v in versions(p.app)] == [1, 2, 3]


def test_bad_times_change_nothing(timed_pair, tmp_path):
    p = timed_pair
    path = str(tmp_path / "copy.gnndb")
    subprocess.run(["cp", "-a", p.app, path], check=True)
    q = p.sqls[0]
    f = tmp_path / "badtime.csv"
    f.write_text("1,2,5\n3,4,6\n5,6,x7\n")
    expect_refused(path, "INSERT EDGES INTO g FROM '%s' COLUMNS (0, 1, 2);"
                   % f, ["badtime.csv:3:5: expected an integer time, found "
                         "'x7'"], [q])
    expect_refused(path, "INSERT EDGES INTO g FROM '%s';" % p.files[1],
                   ["g has edge times; give the new edges theirs with "
                    "COLUMNS (src, dst, t)"], [q])
    g = tmp_path / "beyond.csv"
    g.write_text("1,2,5\n3,%d,6\n" % N)
    expect_refused(path, "INSERT EDGES INTO g FROM '%s' COLUMNS (0, 1, 2);"
                   % g, ["beyond.csv:2:", "is not a node of graph g"], [q])
    assert_same(take(path, q), p.seen[3][q])


@pytest.mark.parametrize("opts,words", [
    ("REORDER degree", "was created with REORDER degree"),
    ("REORDER bfs", "was created with REORDER bfs"),
    ("WITHOUT EDGE IDS", "INSERT EDGES needs edge ids, and graph g has "
                         "none"),
])
def test_graphs_that_cannot_append_refuse_in_words(tmp_path, opts, words):
    rng = np.random.default_rng(15)
    rows = rand_edges(rng, 600)
    save_csv(tmp_path / "a.csv", rows)
    path = str(tmp_path / "r.gnndb")
    with gnndb.connect(path) as c:
        c.execute("CREATE GRAPH g FROM '%s' NODES %d %s;" % (
            tmp_path / "a.csv", N, opts))
    expect_refused(path, "INSERT EDGES INTO g FROM '%s';" %
                   (tmp_path / "a.csv"), [words])


def test_a_typed_graph_refuses_insert_and_versions(tmp_path):
    """A graph of node types and relations has no versions."""
    save_csv(tmp_path / "r.csv", [[0, 1], [1, 2]])
    path = str(tmp_path / "t.gnndb")
    with gnndb.connect(path) as c:
        c.execute("CREATE GRAPH t; CREATE NODES a IN t COUNT 5;"
                  "CREATE RELATION r IN t FROM a TO a FROM '%s';" %
                  (tmp_path / "r.csv"))
    for sql, words in (
            ("INSERT EDGES INTO t FROM '%s';" % (tmp_path / "r.csv"),
             "INSERT EDGES INTO t: t is a graph of node types and "
             "relations"),
            ("DROP VERSIONS BEFORE 2 ON t;",
             "DROP VERSIONS ON t: only a graph made from an edge file"),
            ("COMPACT t;",
             "COMPACT t: only a graph made from an edge file has deltas"),
            ("COMPACT nosuch;", "nosuch")):
        expect_refused(path, sql, [words], graph=None)
    with gnndb.connect(path, readonly=True) as c:
        with pytest.raises(gnndb.Error) as ex:
            c.execute("SHOW VERSIONS t;")
    assert "SHOW VERSIONS t: only a graph made from an edge file has " \
        "versions" in str(ex.value)
