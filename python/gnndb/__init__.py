"""gnndb — Python binding to libgnndb (cffi, ABI mode).

    import gnndb
    with gnndb.connect("cora.gnndb") as conn:
        conn.execute("CREATE GRAPH cora FROM 'edges.tsv';")
        print(conn.execute("DESCRIBE cora;"))
        for b in conn.sample("SAMPLE 10,10 FROM cora SEEDS train BATCH 64;"):
            train_on(b.n_id, b.edge_index, b.x, b.y)   # numpy views, no copies

The arrays of a Batch are numpy views over the engine's own buffers. They are
valid until the iterator moves on (the next batch, close(), or the end of the
run). After that, reading an array through the Batch raises gnndb.Error, but a
view taken earlier cannot be revoked by the binding: do not keep the arrays
themselves past the current iteration — keep `batch.copy()` instead.

gnndb.from_pyg(data, path, name=...) and gnndb.from_dgl(g, path, name=...)
export an in-memory graph into a database (see gnndb.interop); neither
imports PyG or DGL.
"""
import collections
import os
import threading
import weakref

import numpy as np

from . import _ffi
from ._ffi import ffi, lib_path

__all__ = ["connect", "Connection", "BatchIterator", "Batch", "BatchCopy",
           "NodeTypeBatch", "RelationBatch", "Result", "Error", "libversion",
           "ffi", "lib_path", "from_pyg", "from_dgl", "from_arrays",
           "insert_edges", "insert_nodes"]
__version__ = "0.1.0"

# Result codes, column types, gnndb_stmt_status ops and memory baselines
# (gnndb.NOTFOUND, gnndb.INTEGER, gnndb.STATUS_BATCHES, ...), from the
# tables in _ffi.
globals().update(_ffi.RESULT_CODES)
globals().update(_ffi.COLUMN_TYPES)
globals().update(_ffi.STATUS_OPS)
globals().update(_ffi.BASELINES)

_CODE_NAMES = {v: k for k, v in _ffi.RESULT_CODES.items() if v < ROW}


class Error(Exception):
    """A failure reported by gnndb (or a misuse caught by the binding).

    `code` is the GNNDB_* result code (gnndb.SYNTAX, gnndb.NOTFOUND, ...),
    `message` the engine's words from gnndb_errmsg()."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = int(code)
        self.message = message

    @property
    def codename(self):
        return _CODE_NAMES.get(self.code, str(self.code))

    def __str__(self):
        return self.message

    def __repr__(self):
        return "gnndb.Error(%s, %r)" % (self.codename, self.message)


def _str(p):
    if p == ffi.NULL:
        return None
    return ffi.string(p).decode("utf-8", "replace")


def _load():
    """libgnndb, opened once (_ffi.load). The first call also gives Batch
    the arrays the library lists (_take_fields), so that they are read
    once, before any batch exists."""
    lib = _ffi.load()
    if _BATCH_FIELDS is None:
        _take_fields(lib)
    return lib


def libversion():
    """The version string of the loaded library."""
    return _str(_load().gnndb_libversion())


def errstr(code):
    """A short English description of a result code."""
    return _str(_load().gnndb_errstr(int(code)))


class Result(list):
    """The rows of a statement: a list of tuples, with the column names in
    `.columns` (a tuple; empty when the statement returned no rows)."""

    def __init__(self, rows=(), columns=()):
        super().__init__(rows)
        self.columns = tuple(columns)

    def __repr__(self):
        return "Result(%s, columns=%r)" % (list.__repr__(self), self.columns)


def connect(path, readonly=False, create=True):
    """Open the database directory at `path` and return a Connection.

    readonly=True opens it read-only (several readers may share it);
    otherwise it is opened read-write, and created when missing if `create`."""
    return Connection(path, readonly=readonly, create=create)


def _row(lib, st):
    n = lib.gnndb_column_count(st)
    vals = []
    for i in range(n):
        t = lib.gnndb_column_type(st, i)
        if t == INTEGER:
            vals.append(int(lib.gnndb_column_int64(st, i)))
        elif t == FLOAT:
            vals.append(float(lib.gnndb_column_double(st, i)))
        elif t == NULL:
            vals.append(None)
        else:
            vals.append(_str(lib.gnndb_column_text(st, i)))
    return tuple(vals)


def _columns(lib, st):
    return tuple(_str(lib.gnndb_column_name(st, i))
                 for i in range(lib.gnndb_column_count(st)))


class Connection:
    """An open gnndb database. Use as a context manager or call close().

    A connection may be used from several threads; calls into the engine are
    serialised by a lock, except interrupt(), which is meant to be called
    while another thread is inside execute() or iterating a sample()."""

    def __init__(self, path, readonly=False, create=True):
        self._lib = lib = _load()
        self.path = os.fspath(path)
        self.readonly = bool(readonly)
        if readonly:
            flags = lib.GNNDB_OPEN_READONLY
        else:
            flags = lib.GNNDB_OPEN_READWRITE
            if create:
                flags |= lib.GNNDB_OPEN_CREATE
        self._lock = threading.RLock()
        self._iters = weakref.WeakSet()
        self._progress = None       # the ffi.callback, kept alive
        self._progress_exc = None   # an exception raised by the callback
        self._db = ffi.NULL
        pdb = ffi.new("gnndb **")
        rc = lib.gnndb_open(os.fsencode(self.path), pdb, flags)
        if rc != OK:
            msg = _str(lib.gnndb_errmsg(pdb[0])) if pdb[0] != ffi.NULL \
                else "out of memory"
            lib.gnndb_close(pdb[0])
            raise Error(rc, msg or errstr(rc))
        self._db = pdb[0]
        # memory_limit bounds what each statement adds to the process: the
        # interpreter, torch and the model stay outside it, the copies the
        # torch loader makes of batches inside (PRAGMA batch_copies)
        lib.gnndb_memory_baseline(self._db, lib.GNNDB_BASELINE_PREPARE)

    # -- life cycle ---------------------------------------------------------

    @property
    def closed(self):
        return self._db == ffi.NULL

    def close(self):
        """Finalize every open sample iterator and close the handle. Safe to
        call twice."""
        with self._lock:
            if self._db == ffi.NULL:
                return
            for it in list(self._iters):
                it.close()
            db, self._db = self._db, ffi.NULL
            self._lib.gnndb_close(db)
            self._progress = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        return "<gnndb.Connection %r%s>" % (
            self.path, " closed" if self.closed else "")

    # -- helpers ------------------------------------------------------------

    def _check(self):
        if self._db == ffi.NULL:
            raise Error(MISUSE, "the connection is closed")

    def _raise_progress_exc(self):
        """Re-raise an exception the progress handler raised during the last
        engine call, even when the engine finished the call anyway."""
        exc = self._progress_exc
        if exc is not None:
            self._progress_exc = None
            raise exc

    def _error(self, rc):
        """The exception for result code `rc` on this handle."""
        exc = self._progress_exc
        if exc is not None:
            self._progress_exc = None
            return exc
        msg = _str(self._lib.gnndb_errmsg(self._db)) if self._db != ffi.NULL \
            else None
        return Error(rc, msg or errstr(rc) or "error %d" % rc)

    # -- statements ---------------------------------------------------------

    def execute(self, sql):
        """Run every statement of `sql` in turn and return the rows of the
        last one as a Result (a list of tuples with `.columns`). Values are
        int, float, str or None by the column's type. A SAMPLE run here
        returns its per-batch summary rows. The first failing statement
        raises gnndb.Error; later statements are not run."""
        lib = self._lib
        data = _encode(sql)
        buf = ffi.new("char[]", data)
        base = int(ffi.cast("uintptr_t", buf))
        pst = ffi.new("gnndb_stmt **")
        ptail = ffi.new("const char **")
        result = Result()
        with self._lock:
            self._check()
            off = 0
            while off < len(data):
                rc = lib.gnndb_prepare(self._db, buf + off, -1, pst, ptail)
                if rc != OK:
                    raise self._error(rc)
                st = pst[0]
                if st == ffi.NULL:
                    break           # only whitespace and comments were left
                try:
                    rows, cols = [], ()
                    while True:
                        rc = lib.gnndb_step(st)
                        self._raise_progress_exc()
                        if rc == ROW or rc == BATCH:
                            if not cols:
                                cols = _columns(lib, st)
                            rows.append(_row(lib, st))
                        elif rc == DONE:
                            break
                        else:
                            raise self._error(rc)
                    result = Result(rows, cols)
                finally:
                    lib.gnndb_finalize(st)
                new = int(ffi.cast("uintptr_t", ptail[0])) - base \
                    if ptail[0] != ffi.NULL else len(data)
                if new <= off:
                    break
                off = new
        return result

    def sample(self, sql):
        """Prepare one SAMPLE (or SCAN, or SCAN PACK) statement and return a
        BatchIterator over its mini-batches. The batches' arrays are zero-copy views valid until
        the iterator advances (see the module documentation)."""
        lib = self._lib
        data = _encode(sql)
        buf = ffi.new("char[]", data)
        base = int(ffi.cast("uintptr_t", buf))
        pst = ffi.new("gnndb_stmt **")
        ptail = ffi.new("const char **")
        with self._lock:
            self._check()
            rc = lib.gnndb_prepare(self._db, buf, -1, pst, ptail)
            if rc != OK:
                raise self._error(rc)
            st = pst[0]
            if st == ffi.NULL:
                raise Error(MISUSE, "sample(): no statement in %r" % sql)
            # Refuse trailing statements rather than silently drop them.
            off = int(ffi.cast("uintptr_t", ptail[0])) - base \
                if ptail[0] != ffi.NULL else len(data)
            if off < len(data):
                pst2 = ffi.new("gnndb_stmt **")
                rc = lib.gnndb_prepare(self._db, buf + off, -1, pst2, ffi.NULL)
                extra = pst2[0] != ffi.NULL or rc != OK
                lib.gnndb_finalize(pst2[0])
                if extra:
                    lib.gnndb_finalize(st)
                    raise Error(MISUSE,
                                "sample() takes one SAMPLE statement; run the "
                                "others with execute()")
            it = BatchIterator(self, st)
            self._iters.add(it)
            return it

    def gather(self, table, ids, on=None, tmp_dir=None, status=None):
        """The rows of `table` (a feature table's name, or "LABELS") at `ids`
        (1-D integers), in the order given, as one owning numpy array:
        float32 [len(ids), dim] for a feature or edge-feature table, int64
        [len(ids)] for labels. `on` names the graph ("cora"), a node type or
        a relation of a typed graph ("mag.paper", "mag.writes"). It runs
        `GATHER table ON on ROWS ...`: the engine reads each block that
        holds a wanted row once, in chunks that fit memory_limit. Long id
        lists go to the engine as a temporary .npy file (in `tmp_dir`, by
        default the system's). An id out of range raises gnndb.Error
        (RANGE) before anything is read. `status`, a dict, receives the
        statement's blocks and bytes read."""
        ids = np.ascontiguousarray(np.asarray(ids).reshape(-1))
        if ids.size and not np.issubdtype(ids.dtype, np.integer):
            raise Error(MISUSE, "gather(): ids must be integers, not %s"
                        % ids.dtype)
        ids = ids.astype(np.int64, copy=False)
        labels = table.upper() == "LABELS"
        head = "GATHER %s%s " % ("LABELS" if labels else table,
                                 " ON " + on if on else "")
        tmp = None
        if ids.size <= _GATHER_INLINE:
            sql = head + "ROWS (%s);" % ",".join(map(str, ids.tolist())) \
                if ids.size else None
        else:
            import tempfile
            fd, tmp = tempfile.mkstemp(suffix=".npy", dir=tmp_dir)
            os.close(fd)
            np.save(tmp, ids)
            sql = head + "ROWS '%s';" % tmp.replace("'", "''")
        try:
            return self._gather_chunks(sql, ids.size, labels, status)
        finally:
            if tmp:
                os.unlink(tmp)

    def _gather_chunks(self, sql, n, labels, status):
        out, at = None, 0
        if sql is None:
            return np.empty(0, np.int64) if labels else None
        with self.sample(sql) as it:
            for b in it:
                a = b.y if labels else b.x
                if out is None:
                    out = np.empty((n,) + a.shape[1:], a.dtype)
                out[at:at + len(a)] = a
                at += len(a)
                if status is not None:    # read while the statement lives
                    for k, op in (("blocks_read", STATUS_BLOCKS_READ),
                                  ("partial_blocks", STATUS_PARTIAL_BLOCKS),
                                  ("bytes_read", STATUS_BYTES_READ),
                                  ("chunks", STATUS_BATCHES)):
                        status[k] = it.status(op)
        return out

    def interrupt(self):
        """Ask the statement running on this connection to stop; its step
        then fails with gnndb.Error(code=gnndb.INTERRUPT). Callable from
        another thread. A request made while nothing runs is forgotten."""
        db = self._db
        if db != ffi.NULL:
            self._lib.gnndb_interrupt(db)

    def set_progress_handler(self, handler, n=1):
        """Call handler(done, total) about every `n` units of work of long
        statements; a true return value interrupts the statement. An
        exception raised by the handler interrupts the statement and is
        re-raised from the call that ran it. None removes the handler."""
        with self._lock:
            self._check()
            if handler is None:
                self._lib.gnndb_progress_handler(self._db, 0, ffi.NULL,
                                                 ffi.NULL)
                self._progress = None
                return
            me = weakref.ref(self)

            def onerror(exc_type, exc, tb):
                conn = me()
                if conn is not None:
                    conn._progress_exc = exc
                return 1

            @ffi.callback("int(void *, int64_t, int64_t)", onerror=onerror)
            def cb(arg, done, total):
                return 1 if handler(int(done), int(total)) else 0

            self._progress = cb
            self._progress_exc = None
            self._lib.gnndb_progress_handler(self._db, int(n), cb, ffi.NULL)


# Ids a gather() writes into the statement itself; longer lists go to the
# engine as a .npy file, which it reads faster than it parses text.
_GATHER_INLINE = 4096


def _encode(sql):
    if isinstance(sql, bytes):
        data = sql
    else:
        data = str(sql).encode("utf-8")
    if b"\0" in data:
        raise Error(MISUSE, "the statement text contains a NUL character")
    return data


class BatchIterator:
    """The mini-batches of one SAMPLE statement, one at a time.

    Each step invalidates the previous Batch; close() (or the end of the run,
    or leaving a `with` block) frees the statement and invalidates the last
    one."""

    def __init__(self, conn, stmt):
        self._conn = conn
        self._lib = conn._lib
        self._stmt = stmt
        self._gen = 0           # bumped whenever the batch buffers change
        self._done = False

    def __iter__(self):
        return self

    def __next__(self):
        conn, lib = self._conn, self._lib
        with conn._lock:
            if self._stmt == ffi.NULL:
                raise StopIteration
            self._gen += 1
            rc = lib.gnndb_step(self._stmt)
            if conn._progress_exc is not None:
                self.close()
                conn._raise_progress_exc()
            if rc == BATCH:
                view = lib.gnndb_batch(self._stmt)
                if view == ffi.NULL:
                    self.close()
                    raise Error(INTERNAL, "gnndb_step() returned GNNDB_BATCH "
                                          "but gnndb_batch() gave NULL")
                return Batch(self, self._gen, view)
            if rc == DONE:
                self._done = True
                self.close()
                raise StopIteration
            if rc == ROW:
                self.close()
                raise Error(MISUSE, "sample() needs a SAMPLE statement; use "
                                    "execute() for statements that return rows")
            exc = conn._error(rc)
            self.close()
            raise exc

    def status(self, op):
        """gnndb_stmt_status(op) (gnndb.STATUS_*); -1 once closed."""
        with self._conn._lock:
            if self._stmt == ffi.NULL:
                return -1
            return int(self._lib.gnndb_stmt_status(self._stmt, int(op)))

    @property
    def seed(self):
        """The effective SEED of the run (drawn when the query gave none)."""
        return self.status(STATUS_SEED)

    @property
    def total_batches(self):
        return self.status(STATUS_TOTAL_BATCHES)

    @property
    def closed(self):
        return self._stmt == ffi.NULL

    def close(self):
        """Finalize the statement. The last Batch becomes stale."""
        with self._conn._lock:
            self._gen += 1
            st, self._stmt = self._stmt, ffi.NULL
            if st != ffi.NULL and self._conn._db != ffi.NULL:
                self._lib.gnndb_finalize(st)
            self._conn._iters.discard(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            if self._stmt != ffi.NULL:
                self.close()
        except Exception:
            pass


class _DeviceArray:
    """One array of a batch built with TO DEVICE 'cuda:N', described by the
    CUDA Array Interface, version 3: shape, typestr, data as (pointer,
    False) (a consumer such as torch.as_tensor(a, device='cuda:N') may write
    to it; PyTorch refuses a read-only flag), strides None (C order), and
    stream: the engine's stream the array was copied on, as an int, or None
    for an empty array. The copy is complete when the batch is handed out,
    so a consumer that synchronises on that stream returns at once.

    The engine owns the memory, and its next step (the iterator advancing)
    refills it: a consumer that keeps the data copies it (gnndb.torch clones
    it on the device, microseconds)."""

    def __init__(self, ptr, shape, typestr, stream, device):
        count = 1
        for s in shape:
            count *= s
        self.shape = tuple(shape)
        self.device = device
        self.__cuda_array_interface__ = {
            "shape": self.shape, "typestr": typestr,
            # the spec: 0 for an empty array, and no stream to wait for
            "data": (int(ptr) if count else 0, False), "version": 3,
            "strides": None, "stream": int(stream) if count and stream
            else None,
        }


# One array of the library's list (gnndb_batch_field): name, the view's
# member and Batch's attribute; file, its INTO file's name less .npy (PyG's
# `batch` for node_seed); dtype, np.int64 or np.float32; optional, whether
# a batch may lack it; dims, its shape as the names of the view's counts
# and constant ints, e.g. (2, "num_edges").
_Field = collections.namedtuple("_Field", "name file dtype optional dims")

_BATCH_FIELDS = None    # [_Field] in the list's order, once read


def _read_fields(lib):
    """[_Field] of every array gnndb_batch_field reports, in its order."""
    name, member, dim0, dim1 = (ffi.new("const char **") for _ in range(4))
    is_float, optional = ffi.new("int *"), ffi.new("int *")
    fields = []
    while lib.gnndb_batch_field(len(fields), name, member, is_float,
                                optional, dim0, dim1) == OK:
        dims = tuple(_str(d[0]) for d in (dim0, dim1) if d[0] != ffi.NULL)
        fields.append(_Field(
            _str(member[0]), _str(name[0]),
            np.float32 if is_float[0] else np.int64, bool(optional[0]),
            tuple(int(d) if d.isdigit() else d for d in dims)))
    return fields


def _take_fields(lib):
    """Give Batch the library's arrays: its tables of them and a property
    for each. Two threads that race here set the same values."""
    global _BATCH_FIELDS
    fields = _read_fields(lib)
    for f in fields:
        setattr(Batch, f.name, property(
            lambda self, n=f.name: self._array(n),
            doc="%s [%s]" % (np.dtype(f.dtype).name, ", ".join(
                map(str, f.dims)))))
    Batch._FIELDS = {f.name: f for f in fields}
    Batch._ARRAYS = tuple(f.name for f in fields) + tuple(Batch._PER_HOP)
    Batch._ON_DEVICE = frozenset(f.name for f in fields)
    Batch._OPTIONAL = frozenset(f.name for f in fields if f.optional)
    _BATCH_FIELDS = fields


class _FromLibrary:
    """A class attribute of Batch that the library's list gives: read
    before any connection (Batch._ARRAYS in a process that only holds
    copies), it loads the library, which sets the value in its place."""

    def __set_name__(self, owner, name):
        self.owner, self.name = owner, name

    def __get__(self, obj, cls=None):
        _load()
        return vars(self.owner)[self.name]


class Batch:
    """One mini-batch, in the conventions of PyG's NeighborLoader.

    Arrays (numpy views over the engine's buffers, read-only, no copies):
      n_id               int64 [num_nodes]       global ids, seeds first
      edge_index         int64 [2, num_edges]    local (source, target)
      x                  float32 [num_nodes, x_dim] or None
      y                  int64 [batch_size] or None (labels of the seeds)
      num_sampled_nodes  int64 [num_hops + 1]
      num_sampled_edges  int64 [num_hops]
    A link batch (SAMPLE ... EDGES split) has y None and, as PyG's
    LinkNeighborLoader names them (None where absent):
      e_id               int64 [num_edges]  input edge id of each sampled
                         edge (also in a node batch with EDGE FEATURES)
      edge_attr          float32 [num_edges, edge_attr_dim] (EDGE FEATURES)
      edge_label_index   int64 [2, num_label_edges]  local indices into
                         n_id: the num_pos positives, then the negatives
      edge_label         float32 [num_label_edges]   1.0 / 0.0
      src_index, dst_pos_index  int64 [num_pos]      (NEGATIVE k TRIPLET,
      dst_neg_index      int64 [num_pos, num_neg]     instead of the two
                                                      above)
    A time-respecting batch (SAMPLE ... AT TIMES 'f' | AT NODE TIME) holds
    one tree per seed, as PyG's temporal NeighborLoader (None elsewhere):
      node_seed          int64 [num_nodes]  the seed whose tree holds each
                         node (PyG's `batch`; the PyG Data has it as batch)
      time               int64 [batch_size] each seed's time
      edge_time          int64 [num_edges]  each sampled edge's time (e_id
                         holds its input edge id)
    Scalars: batch_size (= num_seeds; in a link batch the distinct
    endpoints), epoch, batch, digest, num_nodes, num_edges, num_hops, x_dim,
    device, and edge_attr_dim, num_label_edges, num_pos, num_neg (0 in a node
    batch), is_link, is_typed.

    A typed batch (SAMPLE {rel: k, ...} FROM a typed graph SEEDS type.split)
    keeps n_id and edge_index over all types (global ids) with x None (and
    with EDGE FEATURES e_id, every relation's in the order of edge_index,
    with edge_attr None: its width differs by relation), and holds the same
    per type and per relation, as PyG's hetero NeighborLoader gives them:
      types    {type name: NodeTypeBatch}, in the graph's order, each with
               n_id (ids local to the type, seeds first), x (or None),
               num_sampled_nodes [num_hops + 1], num_nodes, x_dim, and on the
               seeds' type y (the seeds' labels) and num_seeds (0 elsewhere)
      rels     {relation name: RelationBatch}, each with src and dst (type
               names), edge_type (src, name, dst), edge_index [2, num_edges]
               (sources index the src type's n_id, targets the dst type's),
               num_sampled_edges [num_hops], num_edges, and with EDGE
               FEATURES e_id [num_edges] (input edges of the relation's
               file) and edge_attr [num_edges, edge_attr_dim] (None where
               the relation has no such table)
    Both are empty in other batches; seed_type names the seeds' type.

    The arrays are valid only until the iterator advances; afterwards reading
    them through the Batch raises gnndb.Error. Keep `copy()` if you need them
    longer."""

    # The view's arrays come from the library's list of them
    # (gnndb_batch_field), the one the digest, the INTO files and TO DEVICE
    # walk: _take_fields sets these four, and a property for each array,
    # when the library is first loaded. _FIELDS: {name: _Field}.
    _FIELDS = _FromLibrary()
    # Every array: the list's, then the per-hop counts.
    _ARRAYS = _FromLibrary()
    # The arrays a TO DEVICE batch holds on the GPU (gnndb.h): the list's;
    # the per-hop counts stay in host memory (a type's and a relation's
    # too: _TYPED_ON_DEVICE).
    _ON_DEVICE = _FromLibrary()
    # The arrays a batch may lack: None when the pointer is NULL.
    _OPTIONAL = _FromLibrary()
    # The per-hop counts, which the list leaves out as the C side walks
    # them apart: {name: its length less num_hops}.
    _PER_HOP = {"num_sampled_nodes": 1, "num_sampled_edges": 0}
    # The scalars copy() keeps.
    _SCALARS = ("epoch", "batch", "batch_size", "num_nodes", "num_edges",
                "num_hops", "x_dim", "digest", "edge_attr_dim",
                "num_label_edges", "num_pos", "num_neg", "is_link",
                "is_typed", "seed_type")

    def __init__(self, it, gen, view):
        self._it = it
        self._gen = gen
        self._view = view
        self.epoch = int(view.epoch)
        self.batch = int(view.batch)
        self.batch_size = int(view.num_seeds)
        self.num_seeds = self.batch_size
        self.num_nodes = int(view.num_nodes)
        self.num_edges = int(view.num_edges)
        self.num_hops = int(view.num_hops)
        self.x_dim = int(view.x_dim)
        self._digest = None
        self.device_type = int(view.device)
        self.device_index = int(view.device_index)
        self.cuda_stream = int(ffi.cast("uintptr_t", view.cuda_stream))
        self.edge_attr_dim = int(view.edge_attr_dim)
        self.num_label_edges = int(view.num_label_edges)
        self.num_pos = int(view.num_pos)
        self.num_neg = int(view.num_neg)
        # A link batch carries labels in one of its two forms.
        self.is_link = (view.edge_label_index != ffi.NULL or
                        view.src_index != ffi.NULL)
        self._cache = {}
        self.is_typed = view.num_node_types > 0
        self.types, self.rels = _typed_parts(self, view)
        self.seed_type = next((t.name for t in self.types.values()
                               if t.num_seeds > 0), None)

    @property
    def digest(self):
        """The batch's 64-bit digest (docs/format.md), computed when first
        read: it reads every byte of the batch (gnndb_batch_digest)."""
        if self._digest is None:
            self._check()
            it = self._it
            with it._conn._lock:
                self._digest = int(it._lib.gnndb_batch_digest(it._stmt))
        return self._digest

    @property
    def device(self):
        if self.device_type == 1:
            return "cuda:%d" % self.device_index
        return "cpu"

    @property
    def valid(self):
        """True while the arrays may be read."""
        it = self._it
        return it._stmt != ffi.NULL and it._gen == self._gen

    def _check(self):
        if not self.valid:
            raise Error(MISUSE, "stale gnndb batch (epoch %d, batch %d): its "
                        "buffers were freed when the iterator advanced; keep "
                        "batch.copy() to use it later" % (self.epoch,
                                                          self.batch))

    @property
    def view(self):
        """The raw gnndb_batch_view * (cffi cdata) while the batch is valid."""
        self._check()
        return self._view

    def _spec(self, name):
        """(pointer, shape, numpy dtype) of an array, pointer NULL if none;
        ("type", i, field) and ("rel", i, field) name a typed batch's."""
        v = self._view
        if isinstance(name, tuple):
            return _typed_spec(v, self.num_hops, *name)
        if name in self._PER_HOP:
            return (getattr(v, name), (self.num_hops + self._PER_HOP[name],),
                    np.int64)
        f = self._FIELDS.get(name)
        if f is None:
            raise KeyError(name)
        # a shape's counts are the view's members that the list names
        shape = tuple(d if isinstance(d, int) else int(getattr(v, d))
                      for d in f.dims)
        return getattr(v, name), shape, f.dtype

    def _array(self, name):
        self._check()
        try:
            return self._cache[name]
        except KeyError:
            pass
        ptr, shape, dtype = self._spec(name)
        if self._on_device(name):
            raise Error(MISUSE, "the batch lives on %s: use "
                        "batch.device_array(%r) or gnndb.torch" %
                        (self.device, name))
        optional = (name[2] in _TYPED_OPTIONAL if isinstance(name, tuple)
                    else name in self._OPTIONAL)
        arr = _host_view(ptr, shape, dtype, optional=optional)
        self._cache[name] = arr
        return arr

    def _on_device(self, name):
        """Whether array `name` (or a type's or relation's, a tuple) is in
        device memory."""
        if self.device_type != 1:
            return False
        if isinstance(name, tuple):
            return name[2] in _TYPED_ON_DEVICE
        return name in self._ON_DEVICE

    # (the list's arrays get theirs from _take_fields)
    num_sampled_nodes = property(lambda self: self._array("num_sampled_nodes"))
    num_sampled_edges = property(lambda self: self._array("num_sampled_edges"))

    def device_array(self, name):
        """For a batch on a GPU: an object exposing __cuda_array_interface__
        (version 3) over the engine's device buffer of array `name` (None
        for an absent one): any of the batch's arrays but the per-hop
        counts, which stay on the host (read them as batch.NAME); a typed
        batch's per-type and per-relation arrays through its types and rels
        (batch.types["paper"].device_array("x")). Valid, like the batch,
        until the iterator advances."""
        self._check()
        if self.device_type != 1:
            raise Error(MISUSE, "the batch is on the host; use batch.%s" %
                        (name,))
        if not self._on_device(name):
            raise Error(MISUSE, "batch.%s lives on the host even in a batch "
                        "on %s; read it as batch.%s" % (name, self.device,
                                                         name))
        ptr, shape, dtype = self._spec(name)
        if ptr == ffi.NULL:
            return None
        return _DeviceArray(int(ffi.cast("uintptr_t", ptr)), shape,
                            np.dtype(dtype).str, self.cuda_stream,
                            self.device)

    def copy(self):
        """An owning copy (BatchCopy) of every array and scalar, valid
        forever. Host batches only; on a GPU copy with gnndb.torch."""
        self._check()
        if self.device_type == 1:
            raise Error(MISUSE, "a batch on %s: copy it with gnndb.torch "
                        "(to_torch), which clones it on the device" %
                        self.device)
        arrays = {}
        for name in self._ARRAYS:
            a = self._array(name)
            arrays[name] = None if a is None else a.copy()
        return BatchCopy(arrays, self._scalars(),
                         {k: t.copy() for k, t in self.types.items()},
                         {k: r.copy() for k, r in self.rels.items()})

    def _scalars(self):
        return {k: getattr(self, k) for k in self._SCALARS}

    def __repr__(self):
        return ("<gnndb.Batch epoch=%d batch=%d batch_size=%d num_nodes=%d "
                "num_edges=%d%s>" % (self.epoch, self.batch, self.batch_size,
                                     self.num_nodes, self.num_edges,
                                     "" if self.valid else " stale"))


def _host_view(ptr, shape, dtype, optional=False):
    """A read-only numpy view of `shape` over host memory at `ptr`."""
    if ptr == ffi.NULL:
        if optional:
            return None
        return np.empty(shape, dtype=dtype)   # an empty array may be NULL
    count = 1
    for s in shape:
        count *= s
    if count == 0:
        return np.empty(shape, dtype=dtype)
    nbytes = count * np.dtype(dtype).itemsize
    arr = np.frombuffer(ffi.buffer(ptr, nbytes), dtype=dtype,
                        count=count).reshape(shape)
    arr.flags.writeable = False
    return arr


class BatchCopy:
    """An owning copy of a Batch: the same fields, as writable numpy arrays
    that stay valid after the iterator has moved on (a typed batch's types
    and rels too)."""

    def __init__(self, arrays, scalars, types=None, rels=None):
        for k, v in arrays.items():
            setattr(self, k, v)
        for k, v in scalars.items():
            setattr(self, k, v)
        self.types = dict(types or {})
        self.rels = dict(rels or {})
        self.num_seeds = self.batch_size
        self.device = "cpu"
        self.valid = True

    def copy(self):
        arrays = {k: (None if getattr(self, k) is None
                      else getattr(self, k).copy()) for k in Batch._ARRAYS}
        scalars = {k: getattr(self, k) for k in Batch._SCALARS}
        return BatchCopy(arrays, scalars,
                         {k: t.copy() for k, t in self.types.items()},
                         {k: r.copy() for k, r in self.rels.items()})

    def __repr__(self):
        return ("<gnndb.BatchCopy epoch=%d batch=%d batch_size=%d "
                "num_nodes=%d num_edges=%d>" % (
                    self.epoch, self.batch, self.batch_size, self.num_nodes,
                    self.num_edges))


class _Part:
    """One node type or relation of a typed batch: scalars as attributes,
    and arrays read either through the live Batch (valid until the
    iterator advances, like the Batch's own) or from owned copies."""

    _ARRAYS = ()
    _SCALARS = ()

    def __init__(self, scalars, batch=None, key=None, arrays=None):
        for k in self._SCALARS:
            setattr(self, k, scalars[k])
        self._batch = batch         # live: arrays come from batch._array
        self._key = key             # ("type" or "rel", index)
        self._arrays = arrays       # a copy: {name: ndarray or None}

    def __getattr__(self, name):
        if name in type(self)._ARRAYS:
            if self._arrays is not None:
                return self._arrays[name]
            return self._batch._array(self._key + (name,))
        raise AttributeError(name)

    def device_array(self, name):
        """Of a live part of a batch on a GPU: Batch.device_array of this
        type's or relation's array `name`."""
        if self._batch is None:
            raise Error(MISUSE, "a copied part lives on the host")
        return self._batch.device_array(self._key + (name,))

    def copy(self):
        """An owning copy, valid forever."""
        arrays = {}
        for k in self._ARRAYS:
            a = getattr(self, k)
            arrays[k] = None if a is None else a.copy()
        return type(self)({k: getattr(self, k) for k in self._SCALARS},
                          arrays=arrays)

    def __repr__(self):
        return "<gnndb.%s %s>" % (type(self).__name__, " ".join(
            "%s=%s" % (k, getattr(self, k)) for k in self._SCALARS))


class NodeTypeBatch(_Part):
    """A node type's part of a typed batch: n_id (int64, ids local to the
    type, seeds first, then each hop's new nodes), num_sampled_nodes (int64
    [num_hops + 1]), x (float32 [num_nodes, x_dim], None when the type has
    no features), y (int64 [num_seeds], the seeds' labels, None but on the
    seeds' type)."""

    _ARRAYS = ("n_id", "num_sampled_nodes", "x", "y")
    _SCALARS = ("name", "index", "num_nodes", "x_dim", "num_seeds")

    @property
    def batch_size(self):
        return self.num_seeds


class RelationBatch(_Part):
    """A relation's part of a typed batch: edge_index (int64 [2,
    num_edges]: sources index the src type's n_id, targets the dst type's)
    and num_sampled_edges (int64 [num_hops]). With EDGE FEATURES w, e_id
    (int64 [num_edges]: each edge's row in the file the relation was made
    from; a reverse relation's edges name the rows they turn round) and,
    where the relation or its reverse has a table w, edge_attr (float32
    [num_edges, edge_attr_dim], its rows of w); None otherwise, with
    edge_attr_dim 0."""

    _ARRAYS = ("edge_index", "num_sampled_edges", "e_id", "edge_attr")
    _SCALARS = ("name", "index", "src", "dst", "num_edges", "edge_attr_dim")

    @property
    def edge_type(self):
        """(src type, relation, dst type), PyG's key of an edge type."""
        return (self.src, self.name, self.dst)


def _typed_parts(batch, view):
    """({type: NodeTypeBatch}, {relation: RelationBatch}) of a batch view;
    both empty for an untyped batch."""
    types, rels = {}, {}
    names = []
    for i in range(view.num_node_types):
        tv = view.types[i]
        names.append(_str(tv.name))
        types[names[-1]] = NodeTypeBatch(
            {"name": names[-1], "index": i, "num_nodes": int(tv.num_nodes),
             "x_dim": int(tv.x_dim), "num_seeds": int(tv.num_seeds)},
            batch=batch, key=("type", i))
    for i in range(view.num_relations):
        rv = view.rels[i]
        name = _str(rv.name)
        rels[name] = RelationBatch(
            {"name": name, "index": i, "src": names[rv.src_type],
             "dst": names[rv.dst_type], "num_edges": int(rv.num_edges),
             "edge_attr_dim": int(rv.edge_attr_dim)},
            batch=batch, key=("rel", i))
    return types, rels


# The arrays of a typed batch's parts that may be absent (a NULL pointer
# reads as None): a type's x and y, and a relation's edge arrays, which only
# EDGE FEATURES fills.
_TYPED_OPTIONAL = frozenset(("x", "y", "e_id", "edge_attr"))
# The arrays of a typed batch's parts that TO DEVICE puts on the GPU: all
# but the per-hop counts.
_TYPED_ON_DEVICE = frozenset(("n_id", "x", "y", "edge_index", "e_id",
                              "edge_attr"))


def _typed_spec(v, num_hops, kind, i, field):
    """(pointer, shape, dtype) of a typed batch's per-type or per-relation
    array, as Batch._spec gives the batch's own."""
    if kind == "type":
        tv = v.types[i]
        n = int(tv.num_nodes)
        if field == "n_id":
            return tv.n_id, (n,), np.int64
        if field == "num_sampled_nodes":
            return tv.num_sampled_nodes, (num_hops + 1,), np.int64
        if field == "x":
            return tv.x, (n, int(tv.x_dim)), np.float32
        if field == "y":
            return tv.y, (int(tv.num_seeds),), np.int64
    elif kind == "rel":
        rv = v.rels[i]
        if field == "edge_index":
            return rv.edge_index, (2, int(rv.num_edges)), np.int64
        if field == "num_sampled_edges":
            return rv.num_sampled_edges, (num_hops,), np.int64
        if field == "e_id":
            return rv.e_id, (int(rv.num_edges),), np.int64
        if field == "edge_attr":
            return (rv.edge_attr, (int(rv.num_edges), int(rv.edge_attr_dim)),
                    np.float32)
    raise KeyError((kind, i, field))


# Last: interop uses the names above.
from .interop import (from_arrays, from_dgl, from_pyg,  # noqa: E402
                      insert_edges, insert_nodes)
