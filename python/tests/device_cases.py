"""Device batches end to end, run by test_device.py in a Python whose
GNNDB_LIB is build/mock/libgnndb.so (GNNDB_DEVICE_MOCK=1: the library
linked with the stand-in CUDA runtime, whose device memory is host memory
read here through ctypes), or by tests/gpu/run.sh against the real library
where a device is present (then read through torch). For node, link and
typed batches, in memory and spilled: every array a TO DEVICE batch holds
on the device is exported as the CUDA Array Interface v3 says (cai.py),
its contents equal the host batch's, and the digest recomputed over them is
the engine's; time-respecting batches (AT TIMES, AT NODE TIME, AT EDGE
TIME, with EDGE FEATURES) carry their time arrays there too. With the
stand-in runtime, also: copies failing mid-epoch and
a lost device stop the run with words naming the device and the statement,
host and device runs are unchanged afterwards, and a GPU cache larger than
the device's free memory is refused at prepare."""
import os

import numpy as np
import pytest

import gnndb
import cai
from batch_digest import digest

MOCK = os.environ.get("GNNDB_DEVICE_MOCK") == "1"
COUNTS = ("num_sampled_nodes", "num_sampled_edges")


def timed_queries(timed):
    tpath, st = timed
    return [
        (tpath, "SAMPLE 5,3 FROM g SEEDS train AT TIMES '%s' FEATURES feat "
                "EDGE FEATURES w BATCH 32 SHUFFLE SEED 2" % st),
        (tpath, "SAMPLE 4,4 FROM g SEEDS train AT NODE TIME TEMPORAL LAST "
                "BEFORE FEATURES feat BATCH 32 SEED 2 LIMIT 2"),
        (tpath, "SAMPLE 4,2 FROM g EDGES a AT EDGE TIME FEATURES feat "
                "EDGE FEATURES w BATCH 64 NEGATIVE 2 EXCLUDE SEEDS SHUFFLE "
                "SEED 3 LIMIT 4"),
    ]


def queries(cora_db, link, hetero):
    from heterodb import SQL
    return [
        (cora_db, "SAMPLE 10,10 FROM cora SEEDS train FEATURES feat BATCH 64 "
                  "SHUFFLE SEED 5"),
        (link.path, "SAMPLE 10,5 FROM und EDGES train FEATURES feat EDGE "
                    "FEATURES w BATCH 256 NEGATIVE 1 SHUFFLE SEED 3 LIMIT 4"),
        (link.path, "SAMPLE 5 FROM und EDGES pick BATCH 128 NEGATIVE 2 "
                    "TRIPLET SEED 1 LIMIT 3"),
        (hetero.path, SQL + " EDGE FEATURES w SHUFFLE SEED 3 LIMIT 4"),
    ]


@pytest.fixture(autouse=True)
def device_present():
    if MOCK:
        assert "mock" in gnndb.lib_path(), gnndb.lib_path()
        return
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device for torch")


class Got:
    """A device batch read back: its arrays (through the interface) and its
    types' and relations', as batch_digest.digest() reads a batch."""


def read_part(part, names, stream):
    g = Got()
    for k in names:
        if k in COUNTS:
            setattr(g, k, np.array(getattr(part, k)))
            continue
        d = part.device_array(k)
        if d is not None:
            cai.check(d, stream)
        setattr(g, k, None if d is None else cai.read(d, MOCK))
    return g


def read_back(b):
    assert b.device == "cuda:0" and b.cuda_stream != 0
    g = read_part(b, gnndb.Batch._ARRAYS, b.cuda_stream)
    g.types = {n: read_part(t, gnndb.NodeTypeBatch._ARRAYS, b.cuda_stream)
               for n, t in b.types.items()}
    g.rels = {n: read_part(r, gnndb.RelationBatch._ARRAYS, b.cuda_stream)
              for n, r in b.rels.items()}
    with pytest.raises(gnndb.Error) as e:
        b.n_id                                 # device memory: not numpy
    assert e.value.code == gnndb.MISUSE
    return g


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    return a.dtype == b.dtype and np.array_equal(a, b)


def assert_same(h, g):
    for k in gnndb.Batch._ARRAYS:
        assert same(getattr(h, k), getattr(g, k)), k
    for n, t in h.types.items():
        for k in gnndb.NodeTypeBatch._ARRAYS:
            assert same(getattr(t, k), getattr(g.types[n], k)), (n, k)
    for n, r in h.rels.items():
        for k in gnndb.RelationBatch._ARRAYS:
            assert same(getattr(r, k), getattr(g.rels[n], k)), (n, k)
    assert digest(g) == h.digest


def host_run(path, sql, pragma=""):
    with gnndb.connect(path, readonly=True) as c:
        if pragma:
            c.execute(pragma)
        return [b.copy() for b in c.sample(sql + ";")]


def device_run(path, sql, pragma=""):
    with gnndb.connect(path, readonly=True) as c:
        if pragma:
            c.execute(pragma)
        out = []
        for b in c.sample(sql + " TO DEVICE 'cuda:0';"):
            out.append((read_back(b), b.digest))
        return out


@pytest.mark.parametrize("pragma", ["PRAGMA spill = off;",
                                    "PRAGMA spill = on;"])
def test_device_batches_equal_host_batches(cora_db, link, hetero, timed,
                                           pragma):
    for path, sql in (queries(cora_db, link, hetero) +
                      timed_queries(timed)):
        ref = host_run(path, sql, pragma)
        got = device_run(path, sql, pragma)
        assert len(got) == len(ref) > 0, sql
        for h, (g, dg) in zip(ref, got):
            assert dg == h.digest
            assert_same(h, g)


def test_gather_to_device_equals_host(cora_db):
    # GATHER's chunks (repeats, BATCH 2, labels) cross to the device as
    # SAMPLE's batches do
    for sql in ("GATHER feat ON cora ROWS (2707, 0, 5, 0, 1000) BATCH 2",
                "GATHER LABELS ON cora ROWS (3, 1, 2)"):
        ref = host_run(cora_db, sql)
        got = device_run(cora_db, sql)
        assert len(got) == len(ref) > 0, sql
        for h, (g, dg) in zip(ref, got):
            assert dg == h.digest
            assert_same(h, g)


def test_scan_pack_to_device_equals_host(timed, tmp_path):
    # a pack of time-respecting link batches (version 2 records) crosses
    # to the device as the SAMPLE's batches do
    import shutil
    path = str(tmp_path / "timed.gnndb")
    shutil.copytree(timed[0], path)
    with gnndb.connect(path) as c:
        c.execute(timed_queries(timed)[2][1] + " INTO PACK tp;")
    ref = host_run(path, "SCAN PACK tp")
    got = device_run(path, "SCAN PACK tp")
    assert len(got) == len(ref) == 4
    for h, (g, dg) in zip(ref, got):
        assert dg == h.digest
        assert_same(h, g)


def test_pinned_host_batches_are_the_same(cora_db, link):
    for path, sql in queries(cora_db, link, link)[:2]:
        plain = [b.digest for b in host_run(path, sql)]
        pinned = host_run(path, sql, "PRAGMA pin_memory = on;")
        assert [b.digest for b in pinned] == plain
        for b in pinned:
            assert digest(b) == b.digest


def test_gpu_cache_gives_the_same_batches(cora_db):
    sql = ("SAMPLE 10,10 FROM cora FEATURES feat BATCH 64 EPOCHS 3 SHUFFLE "
           "SEED 2")
    ref = host_run(cora_db, sql)
    with gnndb.connect(cora_db, readonly=True) as c:
        c.execute("PRAGMA gpu_cache = '2MB';")
        it = c.sample(sql + " TO DEVICE 'cuda:0';")
        got, hits = [], 0
        for b in it:
            got.append(read_back(b))
            hits = it.status(gnndb.STATUS_DEVICE_CACHE_HITS)
        assert hits > 0
        plan = [r[0] for r in c.execute("EXPLAIN ANALYZE " + sql +
                                        " TO DEVICE 'cuda:0';")]
    assert len(got) == len(ref)
    for h, g in zip(ref, got):
        assert_same(h, g)
    text = "\n".join(plan)
    assert "policy frequency" in text and "device cache:" in text, text


# ---- the stand-in runtime's faults ----

def mock_controls():
    if not MOCK:
        pytest.skip("faults on demand need the stand-in runtime")
    from cffi import FFI
    ffi = FFI()
    ffi.cdef("void mock_fail(const char *call, long nth, int err, int mode);"
             "extern int64_t mock_free_mem;")
    return ffi.dlopen(gnndb.lib_path())


@pytest.mark.parametrize("call,nth,err,mode,code", [
    ("cudaMemcpyAsync", 12, 999, 2, gnndb.NODEVICE),     # fails for good
    ("cudaEventSynchronize", 4, 719, 1, gnndb.NODEVICE), # the device lost
])
def test_a_fault_mid_epoch_leaves_no_half_batch(link, call, nth, err, mode,
                                                code):
    m = mock_controls()
    sql = queries(None, link, link)[1][1]
    ref = host_run(link.path, sql)
    seen = []
    m.mock_fail(call.encode(), nth, err, mode)
    try:
        with pytest.raises(gnndb.Error) as e:
            with gnndb.connect(link.path, readonly=True) as c:
                for b in c.sample(sql + " TO DEVICE 'cuda:0';"):
                    seen.append(read_back(b))
    finally:
        m.mock_fail(gnndb.ffi.NULL, 0, 0, 0)
    assert e.value.code == code
    assert "cuda:0" in str(e.value) and "SAMPLE FROM und" in str(e.value)
    assert 0 < len(seen) < len(ref)
    for h, g in zip(ref, seen):
        assert_same(h, g)
    assert [b.digest for b in host_run(link.path, sql)] == \
        [b.digest for b in ref]
    again = device_run(link.path, sql)
    assert [d for _, d in again] == [b.digest for b in ref]


def test_a_gpu_cache_larger_than_the_device_is_refused(cora_db):
    m = mock_controls()
    was = m.mock_free_mem
    m.mock_free_mem = 1 << 20
    try:
        with gnndb.connect(cora_db, readonly=True) as c:
            c.execute("PRAGMA gpu_cache = '64MB';")
            with pytest.raises(gnndb.Error) as e:
                c.sample("SAMPLE 10 FROM cora FEATURES feat BATCH 64 "
                         "TO DEVICE 'cuda:0';")
    finally:
        m.mock_free_mem = was
    assert e.value.code == gnndb.NOMEM
    assert "does not fit on cuda:0" in str(e.value)
