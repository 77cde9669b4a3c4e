"""Appends as delta segments, and COMPACT.

An INSERT EDGES or INSERT NODES on a graph without edge times writes the
new version as segmented files (a .seg map per file) that keep the old
version's blocks and add one small segment of the node ranges the append
changes. The references are those of test_versions.py: the graph created
at once from every edge (digest for digest, array for array), and each
version's own batches recorded before the next append. Checked here: the
files an append writes (a segment far smaller than the graph), COMPACT
(plain files again, the batches of every version unchanged, the index
kept), compaction past PRAGMA compact_fraction, the segment limit, DROP
VERSIONS of versions whose blocks later versions still read, statements
prepared or stepped across a COMPACT, CHECK of a damaged segment, and a
COMPACT killed at any moment."""
import os
import signal
import subprocess
import time

import numpy as np
import pytest

import gnndb
from test_versions import (N, NODE_SQL, NODE_SQLS, OPTS, SHELL, TIME_SQLS,
                           Pair, assert_same, blocks, node_setup, plant,
                           rand_edges, save_csv, take, versions)


def segs(listing):
    return {f for f in listing if f.endswith(".seg")}


def plain(listing):
    return {f for f in listing if f.endswith(".blk")}


def size(path, names):
    return sum(os.path.getsize(os.path.join(path, f)) for f in names)


def check(path):
    with gnndb.connect(path, readonly=True) as c:
        (row,) = c.execute("CHECK;")
    assert row[0] == "ok", row


def big_pair(d, cuts=(59700,), m=60000, n=5000, record=(NODE_SQL,)):
    """A graph of m edges among n nodes in 16 KiB blocks, and appends of
    the rows after each cut, whose targets are nodes 0-49: an append
    rewrites the few ranges of blocks that hold those nodes' lists (random
    targets would touch every range: an append writes whole ranges)."""
    rng = np.random.default_rng(7)
    rows = rand_edges(rng, m, n)
    rows[cuts[0]:, 1] = rng.integers(0, 50, m - cuts[0])
    return Pair(d, rows, list(cuts), "DROP DUPLICATES NODES %d BLOCK SIZE "
                "16KB" % n, setup=node_setup(d, rng, n), record=record)


def test_an_append_writes_a_segment_not_the_graph(tmp_path):
    p = big_pair(tmp_path)
    before, after = set(p.listing[0]), set(p.listing[1])
    new = after - before
    assert before <= after                  # version 1's files stay
    assert len(segs(new)) == 3, new         # graph, edge-id graph, edges
    written = size(p.app, plain(new))
    base = size(p.app, plain(before) & set(p.v1_blocks))
    assert 0 < written < base / 5, (written, base)
    with gnndb.connect(p.app, readonly=True) as c:
        (fv,) = c.execute("PRAGMA format_version;")
    assert fv[-1] == 5                      # a format-4 gnndb cannot read it
    assert_same(take(p.app, NODE_SQL), take(p.ref, NODE_SQL), "after")
    assert_same(take(p.app, NODE_SQL.replace(";", " AS OF VERSION 1;")),
                p.seen[1][NODE_SQL], "version 1")
    check(p.app)


@pytest.mark.parametrize("opts", list(OPTS))
def test_compact_keeps_every_versions_batches(tmp_path, opts):
    rng = np.random.default_rng(3)
    rows = plant(rand_edges(rng, 3000), 2000)
    p = Pair(tmp_path, rows, [2000, 2400, 2700], OPTS[opts] +
             " BLOCK SIZE 4KB", setup=node_setup(tmp_path, rng),
             record=NODE_SQLS, pre=("PRAGMA compact_fraction = 1;",))
    assert segs(blocks(p.app))
    with gnndb.connect(p.app) as c:
        c.execute("COMPACT g;")
        c.execute("COMPACT g;")             # nothing left to fold: no-op
    now = blocks(p.app)
    for q in NODE_SQLS:
        assert_same(take(p.app, q), take(p.ref, q), "%s compacted" % q)
        for v in (1, 2, 3, 4):
            assert_same(take(p.app, q.replace(";", " AS OF VERSION %d;" % v)),
                        p.seen[v][q], "%s version %d" % (q, v))
    desc = dict(gnndb.connect(p.app, readonly=True).execute("DESCRIBE g;"))
    cur = {k[5:] for k in desc if k.startswith("file.")}
    assert not segs(cur), cur               # the current version is plain
    assert segs(now)                        # versions 2 and 3 still deltas
    check(p.app)
    with gnndb.connect(p.app) as c:
        c.execute("DROP VERSIONS BEFORE 4 ON g;")
    assert not segs(blocks(p.app)), blocks(p.app)
    for q in NODE_SQLS:
        assert_same(take(p.app, q), take(p.ref, q), "%s alone" % q)
    check(p.app)


def test_an_append_past_compact_fraction_compacts(tmp_path):
    rng = np.random.default_rng(4)
    rows = rand_edges(rng, 21000)
    rows[20000:20010, 1] = rng.integers(0, 3, 10)  # one range of many
    save_csv(tmp_path / "a.csv", rows[:20000])
    save_csv(tmp_path / "b.csv", rows[20000:20010])
    save_csv(tmp_path / "c.csv", rows[20010:])      # every range
    save_csv(tmp_path / "all.csv", rows)
    path, ref = str(tmp_path / "a.gnndb"), str(tmp_path / "r.gnndb")
    for db, f in ((path, "a.csv"), (ref, "all.csv")):
        with gnndb.connect(db) as c:
            c.execute("CREATE GRAPH g FROM '%s' NODES %d BLOCK SIZE 4KB;"
                      % (tmp_path / f, N))
            for q in node_setup(tmp_path, np.random.default_rng(4)):
                c.execute(q)
    with gnndb.connect(path) as c:
        (row,) = c.execute("PRAGMA compact_fraction;")
        assert row[-1] == 0.25
        c.execute("INSERT EDGES INTO g FROM '%s';" % (tmp_path / "b.csv"))
        assert segs(blocks(path))           # 10 edges: a delta
        c.execute("PRAGMA compact_fraction = 0.5;")
        c.execute("INSERT EDGES INTO g FROM '%s';" % (tmp_path / "c.csv"))
    desc = dict(gnndb.connect(path, readonly=True).execute("DESCRIBE g;"))
    assert not segs(k[5:] for k in desc if k.startswith("file.")), desc
    assert_same(take(path, NODE_SQL), take(ref, NODE_SQL))
    check(path)


def test_appends_past_the_segment_limit(tmp_path):
    """70 appends of 5 edges with compact_fraction 1 (never by share):
    before a file would hold SEG_MAX_SEGS segments the graph is compacted,
    and the last version equals the graph created at once."""
    rng = np.random.default_rng(5)
    rows = rand_edges(rng, 2350)
    save_csv(tmp_path / "all.csv", rows)
    save_csv(tmp_path / "a.csv", rows[:2000])
    path, ref = str(tmp_path / "a.gnndb"), str(tmp_path / "r.gnndb")
    for db, f in ((path, "a.csv"), (ref, "all.csv")):
        with gnndb.connect(db) as c:
            c.execute("CREATE GRAPH g FROM '%s' DROP DUPLICATES NODES %d "
                      "BLOCK SIZE 4KB;" % (tmp_path / f, N))
            for q in node_setup(tmp_path, np.random.default_rng(5)):
                c.execute(q)
    with gnndb.connect(path) as c:
        c.execute("PRAGMA compact_fraction = 1;")
        for i, a in enumerate(range(2000, 2350, 5)):
            f = str(tmp_path / ("p%d.csv" % i))
            save_csv(f, rows[a:a + 5])
            c.execute("INSERT EDGES INTO g FROM '%s';" % f)
    assert versions(path)[-1][0] == 71
    assert_same(take(path, NODE_SQL), take(ref, NODE_SQL))
    check(path)


def test_drop_versions_keeps_what_later_versions_read(tmp_path):
    p = big_pair(tmp_path, cuts=[59000, 59500])
    cur = take(p.app, NODE_SQL)
    v1 = set(p.v1_blocks)
    with gnndb.connect(p.app) as c:
        c.execute("DROP VERSIONS BEFORE 3 ON g;")
    left = set(blocks(p.app))
    assert v1 <= left                       # version 3 reads their blocks
    assert not (segs(p.listing[1]) - segs(p.listing[0])) & left
    assert_same(take(p.app, NODE_SQL), cur)
    check(p.app)
    with gnndb.connect(p.app) as c:
        c.execute("COMPACT g;")
    assert not segs(blocks(p.app))
    assert not v1 & set(blocks(p.app))      # nothing reads them now
    assert_same(take(p.app, NODE_SQL), cur)
    # a writable open finds no orphan to remove
    listing = blocks(p.app)
    gnndb.connect(p.app).close()
    assert blocks(p.app) == listing
    check(p.app)


@pytest.mark.parametrize("stepped", [0, 1])
def test_a_statement_reads_on_across_a_compact(tmp_path, stepped):
    p = big_pair(tmp_path)
    want = take(p.app, NODE_SQL)
    with gnndb.connect(p.app, readonly=True) as r:
        it = iter(r.sample(NODE_SQL))
        got = [next(it).copy() for _ in range(stepped)]
        with gnndb.connect(p.app) as w:
            w.execute("COMPACT g;")
        assert not segs(blocks(p.app)) - segs(p.listing[0])
        got += [b.copy() for b in it]
    assert_same(got, want, "across COMPACT")


def test_check_names_a_damaged_segment(tmp_path):
    p = big_pair(tmp_path)
    seg = sorted(plain(set(p.listing[1]) - set(p.listing[0])))
    assert seg
    with open(os.path.join(p.app, seg[0]), "r+b") as f:
        f.seek(5000)
        b = f.read(1)
        f.seek(5000)
        f.write(bytes([b[0] ^ 0xff]))
    with gnndb.connect(p.app, readonly=True) as c:
        rows = [tuple(r) for r in c.execute("CHECK;")]
    assert any(seg[0] in str(r) for r in rows), rows


def test_a_killed_compact_loses_nothing(tmp_path):
    p = big_pair(tmp_path, cuts=[50000])
    want = take(p.app, NODE_SQL)
    listing = blocks(p.app)
    for delay in (0.0, 0.01, 0.03, 0.08, 0.2):
        proc = subprocess.Popen([SHELL, p.app, "COMPACT g;"],
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        gnndb.connect(p.app).close()        # the writable open tidies up
        now = blocks(p.app)
        assert now == listing or not segs(now) - segs(p.listing[0]), now
        assert_same(take(p.app, NODE_SQL), want, "killed at %s" % delay)
        check(p.app)
        if now != listing:
            break


def test_a_timed_graph_appends_and_compacts(tmp_path):
    """Edge times (COLUMNS (0, 1, 2)) with node times, in 4 KiB blocks: the
    time graph is appended to as a delta as well, and every temporal
    SAMPLE equals the timed graph created at once, before and after
    COMPACT, each version's batches kept."""
    rng = np.random.default_rng(9)
    n, m = N, 12000
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    dst[:900] = 0                       # a hub over several blocks
    dst[11000:11300] = 0                # that the appends add to
    dst[11600:11700] = 5
    rows = np.stack([src, dst, rng.integers(0, 1000, m)], 1)
    nt = rng.integers(0, 300, n)
    nt[:8] = 0
    np.save(tmp_path / "nt.npy", nt)
    seeds = np.arange(0, n, 4)
    np.save(tmp_path / "seeds.npy", seeds)
    np.save(tmp_path / "st.npy", rng.integers(100, 1100, len(seeds)))
    sel = np.sort(rng.choice(np.arange(9000), 48, replace=False))
    sel = sel[np.unique(rows[sel, :2], axis=0, return_index=True)[1]]
    np.save(tmp_path / "lp.npy", rows[sel, :2])
    setup = ("IMPORT NODE TIMES INTO g FROM '%s';" % (tmp_path / "nt.npy"),
             "CREATE SPLIT tr ON g FROM '%s';" % (tmp_path / "seeds.npy"),
             "CREATE EDGE SPLIT lp ON g FROM '%s';" % (tmp_path / "lp.npy"))
    sqls = tuple(q.format(st=tmp_path / "st.npy") for q in TIME_SQLS)
    p = Pair(tmp_path, rows, [11000, 11500], "NODES %d BLOCK SIZE 4KB" % n,
             cols="COLUMNS (0, 1, 2)", setup=setup, record=sqls,
             pre=("PRAGMA compact_fraction = 1;",))
    desc = dict(gnndb.connect(p.app, readonly=True).execute("DESCRIBE g;"))
    assert sum(k.startswith("delta.") for k in desc) == 4, desc
    for stage in ("deltas", "compacted"):
        for q in sqls:
            assert_same(take(p.app, q), take(p.ref, q), "%s %s" % (stage, q))
            for v in (1, 2, 3):
                assert_same(take(p.app, q.replace(";", " AS OF VERSION %d;"
                                                  % v)),
                            p.seen[v][q], "%s AS OF %d %s" % (stage, v, q))
        check(p.app)
        with gnndb.connect(p.app) as c:
            c.execute("COMPACT g;")
    desc = dict(gnndb.connect(p.app, readonly=True).execute("DESCRIBE g;"))
    assert not any(k.startswith("delta.") for k in desc), desc
    assert desc["edge_times.min"] == rows[:, 2].min()
    assert desc["edge_times.max"] == rows[:, 2].max()


def test_a_list_too_long_for_the_memory_given_is_rebuilt(tmp_path):
    """A hub of 40000 entries needs 1.3 MB to be packed again; with
    PRAGMA import_memory 1MB the append is a rebuild (plain files), whose
    buckets fit, and its batches are the same."""
    rng = np.random.default_rng(10)
    rows = rand_edges(rng, 51000)
    rows[:40000, 1] = 0
    rows[50990:, 1] = 0
    p = Pair(tmp_path, rows, [50990], "NODES %d" % N,
             setup=node_setup(tmp_path, rng), record=(NODE_SQL,),
             pre=("PRAGMA import_memory = '1MB';",))
    assert not segs(p.listing[1]), p.listing[1]
    assert_same(take(p.app, NODE_SQL), take(p.ref, NODE_SQL))
    check(p.app)


def test_an_append_too_large_for_the_memory_given_is_rebuilt(tmp_path):
    """30000 new edges do not fit the delta's share of PRAGMA
    import_memory 1MB (48 bytes an edge): the append is a rebuild, with
    the same batches, and a bad line past that point is still named."""
    rng = np.random.default_rng(11)
    rows = rand_edges(rng, 40000)
    p = Pair(tmp_path, rows, [10000], "NODES %d" % N,
             setup=node_setup(tmp_path, rng), record=(NODE_SQL,),
             pre=("PRAGMA import_memory = '1MB';",))
    assert not segs(p.listing[1]), p.listing[1]
    assert_same(take(p.app, NODE_SQL), take(p.ref, NODE_SQL))
    bad = tmp_path / "bad.csv"
    save_csv(bad, rows[:25000])
    with open(bad, "a") as f:
        f.write("3,x\n")
    before = blocks(p.app)
    with gnndb.connect(p.app) as c:
        c.execute("PRAGMA import_memory = '1MB';")
        with pytest.raises(gnndb.Error) as ex:
            c.execute("INSERT EDGES INTO g FROM '%s';" % bad)
    assert "bad.csv:25001" in str(ex.value), str(ex.value)
    assert blocks(p.app) == before
    check(p.app)
