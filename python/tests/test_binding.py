"""The cffi binding: execute() round trips, zero-copy batch views and their
lifetime, errors, interrupts, and the mini-batch invariants checked with
numpy against cora's raw files."""
import os
import threading
import time

import numpy as np
import pytest

import gnndb
from gnndb import ffi

TRAIN = "SAMPLE 10,10 FROM cora SEEDS train FEATURES feat BATCH 64"


def ptr(cdata):
    return int(ffi.cast("uintptr_t", cdata))


def data_ptr(arr):
    return arr.__array_interface__["data"][0]


# -- loading and execute() ----------------------------------------------------

def test_library_is_the_one_named_by_GNNDB_LIB():
    env = os.environ.get("GNNDB_LIB")
    if env:
        assert gnndb.lib_path() == env
    assert gnndb.libversion()


def test_describe_round_trip(conn):
    rows = conn.execute("DESCRIBE cora;")
    assert isinstance(rows, list) and isinstance(rows, gnndb.Result)
    assert rows.columns == ("property", "value")
    assert all(isinstance(r, tuple) and len(r) == 2 for r in rows)
    props = dict(rows)
    assert int(props["nodes"]) == 2708
    assert int(props["edges"]) == 10556


def test_execute_returns_the_rows_of_the_last_statement(conn):
    rows = conn.execute("SHOW GRAPHS; DESCRIBE cora;")
    assert rows.columns == ("property", "value")
    shown = conn.execute("SHOW GRAPHS;")
    assert any("cora" in r for r in shown)


def test_execute_values_follow_column_types(conn):
    # The per-batch summary rows of a SAMPLE: whatever the columns are, each
    # value has the Python type of its gnndb_column_type.
    rows = conn.execute(TRAIN + " SEED 1;")
    assert len(rows) == 3                        # 140 seeds in batches of 64
    for r in rows:
        for v in r:
            assert v is None or isinstance(v, (int, float, str))
    # Checked directly against the C accessors.
    lib = gnndb._ffi.load()
    pst = ffi.new("gnndb_stmt **")
    assert lib.gnndb_prepare(conn._db, (TRAIN + " SEED 1;").encode(), -1,
                             pst, ffi.NULL) == gnndb.OK
    try:
        assert lib.gnndb_step(pst[0]) == gnndb.BATCH
        kinds = {gnndb.INTEGER: int, gnndb.FLOAT: float, gnndb.TEXT: str}
        for i, v in enumerate(rows[0]):
            t = lib.gnndb_column_type(pst[0], i)
            if t == gnndb.NULL:
                assert v is None
            else:
                assert type(v) is kinds[t]
    finally:
        lib.gnndb_finalize(pst[0])


def test_execute_on_empty_text_returns_no_rows(conn):
    rows = conn.execute("  -- nothing\n ")
    assert rows == [] and rows.columns == ()


# -- zero copy and lifetime ---------------------------------------------------

def test_arrays_are_views_of_the_engine_buffers(conn):
    with conn.sample(TRAIN + " SEED 3;") as it:
        b = next(it)
        v = b.view
        for name in ("n_id", "edge_index", "x", "y", "num_sampled_nodes",
                     "num_sampled_edges"):
            arr = getattr(b, name)
            assert data_ptr(arr) == ptr(getattr(v, name)), name
            assert not arr.flags.writeable
        assert b.n_id.dtype == np.int64 and b.n_id.shape == (v.num_nodes,)
        assert b.edge_index.dtype == np.int64
        assert b.edge_index.shape == (2, v.num_edges)
        assert b.x.dtype == np.float32 and b.x.shape == (v.num_nodes, v.x_dim)
        assert b.y.dtype == np.int64 and b.y.shape == (v.num_seeds,)
        assert b.batch_size == v.num_seeds
        assert b.num_sampled_nodes.shape == (v.num_hops + 1,)
        assert b.num_sampled_edges.shape == (v.num_hops,)
        assert b.digest == int(v.digest)
        # The second row of edge_index starts num_edges int64s later.
        assert data_ptr(b.edge_index[1]) == ptr(v.edge_index) + 8 * v.num_edges


def test_stale_batch_raises_and_copy_survives(conn):
    it = conn.sample(TRAIN + " SEED 3;")
    b0 = next(it)
    keep = b0.copy()
    n_id0 = np.array(b0.n_id)
    assert b0.valid
    b1 = next(it)
    assert not b0.valid and b1.valid
    for name in ("n_id", "edge_index", "x", "y", "num_sampled_nodes",
                 "num_sampled_edges"):
        with pytest.raises(gnndb.Error) as ei:
            getattr(b0, name)
        assert ei.value.code == gnndb.MISUSE
        assert "stale" in str(ei.value)
    with pytest.raises(gnndb.Error):
        b0.copy()
    assert b0.batch == 0 and b0.batch_size == 64     # scalars stay readable
    np.testing.assert_array_equal(keep.n_id, n_id0)
    assert keep.x.flags.writeable and keep.x.flags.owndata
    assert data_ptr(keep.n_id) != ptr(b1.view.n_id)
    it.close()
    with pytest.raises(gnndb.Error):
        b1.n_id
    assert list(it) == []


def test_end_of_run_and_connection_close_invalidate(cora_db):
    c = gnndb.connect(cora_db, readonly=True)
    batches = list(c.sample(TRAIN + " SEED 3;"))
    assert len(batches) == 3
    for b in batches:
        with pytest.raises(gnndb.Error):
            b.n_id
    it = c.sample(TRAIN + " SEED 3;")
    b = next(it)
    c.close()
    assert it.closed
    with pytest.raises(gnndb.Error):
        b.x
    with pytest.raises(gnndb.Error) as ei:
        c.execute("SHOW GRAPHS;")
    assert ei.value.code == gnndb.MISUSE
    c.close()                                        # twice is fine


def test_context_managers(cora_db):
    with gnndb.connect(cora_db, readonly=True) as c:
        with c.sample(TRAIN + " SEED 3;") as it:
            b = next(it)
        assert it.closed and not b.valid
    assert c.closed


# -- errors -------------------------------------------------------------------

def test_syntax_error(conn):
    with pytest.raises(gnndb.Error) as ei:
        conn.execute("SAMPEL 10 FROM cora;")
    e = ei.value
    assert e.code == gnndb.SYNTAX and e.codename == "SYNTAX"
    assert e.message and str(e) == e.message
    # The connection stays usable.
    assert int(dict(conn.execute("DESCRIBE cora;"))["nodes"]) == 2708


def test_unknown_graph(conn):
    with pytest.raises(gnndb.Error) as ei:
        conn.sample("SAMPLE 10 FROM nosuchgraph BATCH 8;")
    assert ei.value.code == gnndb.NOTFOUND
    assert "nosuchgraph" in ei.value.message
    with pytest.raises(gnndb.Error) as ei:
        conn.execute("DESCRIBE nosuchgraph;")
    assert ei.value.code == gnndb.NOTFOUND
    assert "nosuchgraph" in ei.value.message


def test_unknown_split(conn):
    with pytest.raises(gnndb.Error) as ei:
        conn.sample("SAMPLE 10 FROM cora SEEDS nosplit BATCH 8;")
    assert ei.value.code == gnndb.NOTFOUND
    assert "nosplit" in ei.value.message


def test_later_statements_do_not_run_after_an_error(tmp_path, cora):
    path = str(tmp_path / "g.gnndb")
    with gnndb.connect(path) as c:
        with pytest.raises(gnndb.Error) as ei:
            edges = os.path.join(cora.dir, "edges.tsv")
            c.execute("CREATE GRAPH a FROM '%s'; DESCRIBE nosuch; "
                      "CREATE GRAPH b FROM '%s';" % (edges, edges))
        assert ei.value.code == gnndb.NOTFOUND
        assert [r[0] for r in c.execute("SHOW GRAPHS;")] == ["a"]
        with pytest.raises(gnndb.Error):
            c.execute("DESCRIBE b;")


def test_missing_input_file(tmp_path):
    with gnndb.connect(str(tmp_path / "g.gnndb")) as c:
        with pytest.raises(gnndb.Error) as ei:
            c.execute("CREATE GRAPH g FROM '/nonexistent/edges.tsv';")
        assert "/nonexistent/edges.tsv" in ei.value.message


def test_readonly_connection_refuses_writes(conn):
    with pytest.raises(gnndb.Error) as ei:
        conn.execute("DROP GRAPH cora;")
    assert ei.value.code == gnndb.READONLY
    assert int(dict(conn.execute("DESCRIBE cora;"))["nodes"]) == 2708


def test_open_missing_database_without_create(tmp_path):
    with pytest.raises(gnndb.Error) as ei:
        gnndb.connect(str(tmp_path / "absent.gnndb"), readonly=True)
    assert ei.value.code == gnndb.CANTOPEN and ei.value.message
    with pytest.raises(gnndb.Error):
        gnndb.connect(str(tmp_path / "absent2.gnndb"), create=False)


def test_sample_wants_one_sample_statement(conn):
    with pytest.raises(gnndb.Error) as ei:
        list(conn.sample("DESCRIBE cora;"))
    assert ei.value.code == gnndb.MISUSE
    with pytest.raises(gnndb.Error) as ei:
        conn.sample(TRAIN + " SEED 1; DESCRIBE cora;")
    assert ei.value.code == gnndb.MISUSE


# -- interrupts and progress --------------------------------------------------

def test_interrupt_from_another_thread(conn):
    it = conn.sample("SAMPLE 10,10 FROM cora SEEDS test FEATURES feat "
                     "BATCH 1 SEED 5 EPOCHS 1000;")
    stop = threading.Event()

    def nag():
        while not stop.is_set():
            conn.interrupt()
            time.sleep(0.001)

    t = threading.Thread(target=nag)
    t.start()
    t0 = time.time()
    try:
        with pytest.raises(gnndb.Error) as ei:
            for _ in it:
                if time.time() - t0 > 60:
                    break
        assert ei.value.code == gnndb.INTERRUPT
    finally:
        stop.set()
        t.join()
    assert it.closed
    # The connection works afterwards.
    assert len(conn.execute(TRAIN + " SEED 1;")) == 3


def test_progress_handler_can_interrupt(conn):
    calls = []

    def handler(done, total):
        calls.append((done, total))
        return len(calls) >= 2

    conn.set_progress_handler(handler, 1)
    try:
        with pytest.raises(gnndb.Error) as ei:
            conn.execute("SAMPLE 10,10 FROM cora SEEDS test BATCH 10 SEED 1;")
        assert ei.value.code == gnndb.INTERRUPT
        assert len(calls) >= 2
    finally:
        conn.set_progress_handler(None)
    assert len(conn.execute(TRAIN + " SEED 1;")) == 3


def test_progress_handler_exception_propagates(conn):
    def handler(done, total):
        raise KeyError("from the handler")

    conn.set_progress_handler(handler, 1)
    try:
        with pytest.raises(KeyError):
            conn.execute("SAMPLE 10,10 FROM cora SEEDS test BATCH 10 SEED 1;")
    finally:
        conn.set_progress_handler(None)


# -- batch invariants against the raw files -----------------------------------

def check_batch(b, cora, fanouts):
    """Every NeighborLoader convention of one batch, checked with numpy."""
    n_id, ei = b.n_id, b.edge_index
    nsn, nse = b.num_sampled_nodes, b.num_sampled_edges
    H = len(fanouts)
    assert b.num_hops == H and len(nsn) == H + 1 and len(nse) == H
    assert nsn[0] == b.batch_size
    assert nsn.sum() == len(n_id) == b.num_nodes
    assert nse.sum() == ei.shape[1] == b.num_edges
    assert len(np.unique(n_id)) == len(n_id), "n_id repeats a node"
    assert n_id.min() >= 0 and n_id.max() < cora.num_nodes
    # Every sampled edge exists in edges.tsv as source -> target.
    assert ei.min() >= 0 and ei.max() < len(n_id)
    src, dst = n_id[ei[0]], n_id[ei[1]]
    assert cora.has_edges(src, dst).all(), "an edge not in edges.tsv"
    # Grouped by hop: hop h samples the nodes first reached at hop h-1.
    ncum = np.concatenate([[0], np.cumsum(nsn)])
    ecum = np.concatenate([[0], np.cumsum(nse)])
    for h in range(1, H + 1):
        e = slice(ecum[h - 1], ecum[h])
        d, s = ei[1, e], ei[0, e]
        assert ((d >= ncum[h - 1]) & (d < ncum[h])).all()
        assert (s < ncum[h + 1]).all()
        # The nodes first reached at hop h are sources at hop h.
        assert np.isin(np.arange(ncum[h], ncum[h + 1]), s).all()
        # Without replacement: min(in-degree, fanout) distinct neighbours.
        targets = np.arange(ncum[h - 1], ncum[h])
        cnt = np.bincount(d - ncum[h - 1], minlength=len(targets))
        deg = cora.in_deg[n_id[targets]]
        want = deg if fanouts[h - 1] < 0 else np.minimum(deg, fanouts[h - 1])
        np.testing.assert_array_equal(cnt, want)
        pairs = s * len(n_id) + d
        assert len(np.unique(pairs)) == len(pairs), "an edge sampled twice"
    # Features and labels.
    np.testing.assert_array_equal(b.x, cora.x[n_id])
    np.testing.assert_array_equal(b.y, cora.y[n_id[:b.batch_size]])


def test_batch_invariants_train_epoch(conn, cora):
    seeds = []
    batches = 0
    for b in conn.sample(TRAIN + " SHUFFLE SEED 7;"):
        assert b.batch == batches
        assert b.batch_size == (64 if batches < 2 else 140 - 128)
        check_batch(b, cora, (10, 10))
        seeds.append(np.array(b.n_id[:b.batch_size]))
        batches += 1
    assert batches == 3
    seeds = np.concatenate(seeds)
    assert sorted(seeds.tolist()) == sorted(cora.split["train"].tolist())
    # SHUFFLE permutes the split (with this seed, the order differs).
    assert not np.array_equal(seeds, cora.split["train"])


def test_batch_invariants_test_split_three_hops(conn, cora):
    n = 0
    for b in conn.sample("SAMPLE 5,3,2 FROM cora SEEDS test FEATURES feat "
                         "BATCH 128 SEED 11;"):
        check_batch(b, cora, (5, 3, 2))
        n += b.batch_size
    assert n == 1000


def test_full_neighbourhood(conn, cora):
    for b in conn.sample("SAMPLE -1,-1 FROM cora SEEDS val FEATURES feat "
                         "BATCH 250 SEED 1;"):
        check_batch(b, cora, (-1, -1))


def test_explicit_seeds_and_the_only_feature_table(conn, cora):
    # Without FEATURES the graph's only feature table is gathered.
    b = next(iter(conn.sample("SAMPLE 4 FROM cora SEEDS (0, 1, 2) BATCH 3;")))
    assert b.n_id[:3].tolist() == [0, 1, 2]
    check_batch(b, cora, (4,))
    np.testing.assert_array_equal(b.y, cora.y[[0, 1, 2]])


def test_graph_without_features_or_labels(tmp_path, cora):
    with gnndb.connect(str(tmp_path / "g.gnndb")) as c:
        c.execute("CREATE GRAPH g FROM '%s';" %
                  os.path.join(cora.dir, "edges.tsv"))
        with c.sample("SAMPLE 3 FROM g SEEDS (5, 6) BATCH 2 SEED 1;") as it:
            b = next(it)
            assert b.x is None and b.y is None
            assert b.n_id[:2].tolist() == [5, 6]
            src, dst = b.n_id[b.edge_index[0]], b.n_id[b.edge_index[1]]
            assert cora.has_edges(src, dst).all()
            c2 = b.copy()
        assert c2.x is None and c2.y is None


def test_epochs(conn, cora):
    per_epoch = {}
    for b in conn.sample(TRAIN + " SHUFFLE SEED 9 EPOCHS 2;"):
        per_epoch.setdefault(b.epoch, []).append(
            np.array(b.n_id[:b.batch_size]))
    assert len(per_epoch) == 2
    a, c = [np.concatenate(v) for _, v in sorted(per_epoch.items())]
    assert sorted(a.tolist()) == sorted(c.tolist())
    assert not np.array_equal(a, c), "both epochs have the same order"


def digests(conn, sql):
    return [(b.epoch, b.batch, b.digest, b.n_id.tobytes(),
             b.edge_index.tobytes()) for b in conn.sample(sql)]


def test_same_seed_same_batches(conn):
    a = digests(conn, TRAIN + " SHUFFLE SEED 42;")
    assert a == digests(conn, TRAIN + " SHUFFLE SEED 42;")
    assert a != digests(conn, TRAIN + " SHUFFLE SEED 43;")


def test_hyperbatch_size_does_not_change_batches(conn):
    sql = "SAMPLE 10,10 FROM cora SEEDS test FEATURES feat BATCH 100 SEED 4"
    a = digests(conn, sql + " HYPERBATCH 1;")
    assert a == digests(conn, sql + " HYPERBATCH 3;")
    assert a == digests(conn, sql + " HYPERBATCH 64;")


def test_drawn_seed_is_reported_and_replays(conn):
    it = conn.sample(TRAIN + " SHUFFLE;")
    b = next(it)
    first = [(b.digest, b.n_id.tobytes())]
    assert it.status(gnndb.STATUS_SEED_DRAWN) == 1
    seed = it.seed
    it.close()
    it2 = conn.sample(TRAIN + " SHUFFLE SEED %d;" % seed)
    b = next(it2)
    assert [(b.digest, b.n_id.tobytes())] == first
    it2.close()


def test_feature_cache_counts_every_row_and_keeps_batches(conn):
    sql = TRAIN + " HYPERBATCH 1 SHUFFLE SEED 8 EPOCHS 2;"
    plain = [d[2] for d in digests(conn, sql)]
    conn.execute("PRAGMA cache_policy = 'lru'; PRAGMA feature_cache = '2MB';")
    it = conn.sample(sql)
    rows, got = 0, []
    for b in it:
        rows += len(b.n_id)
        got.append(b.digest)
        # the run closes its statement when it ends: read the counters
        # while the last batch is current
        hits = it.status(gnndb.STATUS_ROW_CACHE_HITS)
        misses = it.status(gnndb.STATUS_ROW_CACHE_MISSES)
    it.close()
    conn.execute("PRAGMA cache_policy = 'none';")
    assert got == plain
    assert hits > 0 and hits + misses == rows


def test_every_array_written_into_a_directory_is_a_batch_field(tmp_path):
    """SAMPLE ... INTO writes the view's arrays from the engine's one list
    of them (common/batch_fields.h), which Python's Batch is built from
    too (gnndb_batch_field): each .npy it writes, for node, link, triplet
    and time-respecting batches with features and edge features, is an
    array Batch exposes under that name (PyG's `batch` is node_seed),
    of the same shape and dtype, byte for byte."""
    rng = np.random.default_rng(2)
    n, m = 200, 1500
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    np.savetxt(tmp_path / "e.csv", np.stack([src, dst], 1), fmt="%d",
               delimiter=",")
    np.save(tmp_path / "x.npy", rng.random((n, 3), dtype=np.float32))
    np.save(tmp_path / "y.npy", rng.integers(0, 4, n))
    np.save(tmp_path / "w.npy", rng.random((m, 2), dtype=np.float32))
    np.save(tmp_path / "t.npy", rng.integers(0, 100, m))
    np.save(tmp_path / "st.npy", rng.integers(0, 100, n))
    path = str(tmp_path / "f.gnndb")
    q = lambda p: "'%s'" % (tmp_path / p)
    with gnndb.connect(path) as c:
        c.execute("CREATE GRAPH g FROM %s NODES %d;" % (q("e.csv"), n))
        c.execute("IMPORT FEATURES feat INTO g FROM %s;" % q("x.npy"))
        c.execute("IMPORT LABELS INTO g FROM %s;" % q("y.npy"))
        c.execute("IMPORT EDGE FEATURES w INTO g FROM %s;" % q("w.npy"))
        c.execute("IMPORT EDGE TIMES INTO g FROM %s;" % q("t.npy"))
        c.execute("CREATE EDGE SPLITS a ON g RANDOM 0.2 SEED 1;")
    stmts = {
        "node": "SAMPLE 3,3 FROM g SEEDS ALL FEATURES feat EDGE FEATURES w "
                "BATCH 32 SEED 1 LIMIT 2",
        "link": "SAMPLE 3 FROM g EDGES a FEATURES feat BATCH 16 NEGATIVE 2 "
                "SEED 1 LIMIT 2",
        "triplet": "SAMPLE 3 FROM g EDGES a BATCH 16 NEGATIVE 2 TRIPLET "
                   "SEED 1 LIMIT 2",
        "time": "SAMPLE 3,3 FROM g SEEDS ALL AT TIMES %s FEATURES feat "
                "BATCH 32 SEED 1 LIMIT 2" % q("st.npy"),
    }
    for kind, sql in stmts.items():
        out = tmp_path / kind
        with gnndb.connect(path) as c:
            c.execute("%s INTO '%s';" % (sql, out))
            got = [b.copy() for b in c.sample(sql + ";")]
        for i, b in enumerate(got):
            d = out / "epoch-0" / ("batch-%06d" % i)
            names = sorted(f[:-4] for f in os.listdir(d))
            assert "n_id" in names and len(names) >= 4, (kind, names)
            for name in names:
                field = "node_seed" if name == "batch" else name
                assert field in gnndb.Batch._ARRAYS, (kind, name)
                want = np.load(d / (name + ".npy"))
                have = np.asarray(getattr(b, field))
                assert have.dtype == want.dtype, (kind, name)
                assert have.shape == want.shape, (kind, name)
                np.testing.assert_array_equal(have, want)


def library_batch_fields():
    """What gnndb_batch_field reports, read here apart from the binding:
    [(name, member, is_float, optional, dim0, dim1)], in its order."""
    lib = gnndb._ffi.load()
    name, member, dim0, dim1 = (ffi.new("const char **") for _ in range(4))
    is_float, optional = ffi.new("int *"), ffi.new("int *")
    text = lambda p: None if p[0] == ffi.NULL else ffi.string(p[0]).decode()
    out = []
    while True:
        rc = lib.gnndb_batch_field(len(out), name, member, is_float,
                                   optional, dim0, dim1)
        if rc != gnndb.OK:
            assert rc == gnndb.RANGE
            break
        out.append((text(name), text(member), is_float[0], optional[0],
                    text(dim0), text(dim1)))
    assert lib.gnndb_batch_field(-1, *[ffi.NULL] * 6) == gnndb.RANGE
    return out


def test_batch_arrays_are_the_ones_the_library_lists():
    """Batch's arrays are the library's list (gnndb_batch_field, what the
    digest, the INTO files and TO DEVICE walk), field for field: names,
    files, dtypes, shapes, which may be absent and which go to a device,
    each a property over a pointer of the view of its element type, with
    the per-hop counts, kept apart in C too, after them."""
    want = library_batch_fields()
    B = gnndb.Batch
    have = [(f.file, f.name, int(f.dtype is np.float32), int(f.optional),
             str(f.dims[0]), str(f.dims[1]) if len(f.dims) > 1 else None)
            for f in B._FIELDS.values()]
    assert have == want
    members = [w[1] for w in want]
    assert {"n_id", "edge_index", "x", "y"} <= set(members)
    assert B._ARRAYS == tuple(members) + ("num_sampled_nodes",
                                          "num_sampled_edges")
    assert B._OPTIONAL == {w[1] for w in want if w[3]}
    assert B._ON_DEVICE == set(members)
    view = dict(ffi.typeof("gnndb_batch_view").fields)
    for _, member, is_float, _, d0, d1 in want:
        assert isinstance(vars(B)[member], property), member
        elem = "float" if is_float else "int64_t"
        assert view[member].type == ffi.typeof("const %s *" % elem), member
        for d in (d0, d1):
            assert d is None or d.isdigit() or \
                view[d].type == ffi.typeof("int64_t"), (member, d)
