"""Export in-memory graphs (PyG Data, DGLGraph, numpy arrays) into a gnndb
database, through the library's own statements.

    gnndb.from_pyg(data, "cora.gnndb", name="cora")
    gnndb.from_dgl(g, "cora.gnndb", name="cora")
    gnndb.from_arrays("cora.gnndb", "cora", edge_index, x=x, y=y,
                      splits={"train": train_mask})

Each writes the arrays to temporary files (edges as little-endian int64
pairs, features, labels and splits as .npy) and runs

    CREATE GRAPH name FROM 'edges.bin' FORMAT bin NODES n;
    IMPORT FEATURES feat INTO name FROM 'x.npy';
    IMPORT LABELS INTO name FROM 'y.npy';
    CREATE SPLIT train ON name FROM 'train.npy';   -- one per split

Every statement is atomic on its own. The export as a whole is made atomic
enough: the arrays are checked before anything is written, and when a later
statement fails (or the export is interrupted) the graph just created is
dropped again, so a failure leaves the database as it was. A reader that
opens the database while an export runs may see the graph without its
features for that time.

insert_edges appends edges to a graph already in the database the same
way (INSERT EDGES INTO name FROM ...), making its next version;
insert_nodes adds nodes with their feature and label rows.

Neither torch, torch_geometric nor dgl is imported here: tensors are read
through .detach().cpu().numpy() when they have it, np.asarray otherwise.
"""
import os
import re
import tempfile

import numpy as np

import gnndb

__all__ = ["from_arrays", "from_pyg", "from_dgl", "insert_edges",
           "insert_nodes"]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_FEATURE_DTYPES = (np.float32, np.float64, np.int64)


def _err(msg):
    return gnndb.Error(gnndb.MISUSE, msg)


def _numpy(a):
    """A numpy array from a torch tensor, a numpy array or a sequence."""
    if a is None:
        return None
    if hasattr(a, "detach"):            # torch.Tensor, on any device
        a = a.detach().cpu().numpy()
    return np.asarray(a)


def _quote(path):
    return "'" + str(path).replace("'", "''") + "'"


def _check_name(what, name):
    if not isinstance(name, str) or not _NAME.match(name):
        raise _err("%s %r is not a name gnndb accepts (letters, digits and "
                   "_, not starting with a digit)" % (what, name))


def _edges(edge_index, num_nodes):
    e = _numpy(edge_index)
    if e is None:
        raise _err("the graph has no edge_index")
    if e.ndim != 2 or e.shape[0] != 2:
        raise _err("edge_index must have shape [2, num_edges], not %s"
                   % (list(e.shape),))
    if e.dtype.kind not in "iu":
        raise _err("edge_index must hold integers, not %s" % e.dtype)
    e = e.astype(np.int64, copy=False)
    if e.size:
        lo, hi = int(e.min()), int(e.max())
        if lo < 0:
            raise _err("edge_index holds a negative node id (%d)" % lo)
        if num_nodes is not None and hi >= num_nodes:
            raise _err("edge_index holds node id %d, but the graph has %d "
                       "nodes" % (hi, num_nodes))
    return e


def _features(x, num_nodes):
    x = _numpy(x)
    if x is None:
        return None
    if x.ndim == 1:
        x = x.reshape(-1, 1)
    if x.ndim != 2:
        raise _err("x must have shape [num_nodes, dim], not %s"
                   % (list(x.shape),))
    if x.shape[0] != num_nodes:
        raise _err("x has %d rows, but the graph has %d nodes"
                   % (x.shape[0], num_nodes))
    if x.dtype.type not in _FEATURE_DTYPES:
        if x.dtype.kind not in "biuf":
            raise _err("x must be numeric, not %s" % x.dtype)
        x = x.astype(np.float32)
    return np.ascontiguousarray(x)


def _labels(y, num_nodes):
    y = _numpy(y)
    if y is None:
        return None
    if y.ndim == 2 and y.shape[1] == 1:     # e.g. ogbn-arxiv's [N, 1]
        y = y[:, 0]
    if y.ndim != 1:
        raise _err("y must be one integer label per node (shape [%d]); "
                   "gnndb stores no multi-label or multi-target y, got %s"
                   % (num_nodes, list(y.shape)))
    if y.shape[0] != num_nodes:
        raise _err("y has %d entries, but the graph has %d nodes"
                   % (y.shape[0], num_nodes))
    if y.dtype.kind == "f":
        if not np.all(np.isfinite(y)) or np.any(y != np.round(y)):
            raise _err("y must hold integer labels (-1: unlabeled), not "
                       "fractional values")
    elif y.dtype.kind not in "biu":
        raise _err("y must hold integer labels, not %s" % y.dtype)
    return np.ascontiguousarray(y.astype(np.int64))


def _split(name, s, num_nodes):
    """The node ids of split `name`, from a boolean mask or an index array."""
    a = _numpy(s)
    if a.ndim != 1:
        raise _err("split %r must be a 1-D mask or index array, not shape "
                   "%s (several masks per split are not supported: pass "
                   "one column)" % (name, list(a.shape)))
    if a.dtype == np.bool_:
        if a.shape[0] != num_nodes:
            raise _err("mask of split %r has %d entries, but the graph has "
                       "%d nodes" % (name, a.shape[0], num_nodes))
        return np.flatnonzero(a).astype(np.int64)
    if a.dtype.kind not in "iu":
        raise _err("split %r must be a boolean mask or integer node ids, "
                   "not %s" % (name, a.dtype))
    a = a.astype(np.int64)
    if a.size and (a.min() < 0 or a.max() >= num_nodes):
        raise _err("split %r holds node ids outside 0..%d"
                   % (name, num_nodes - 1))
    return a


def from_arrays(path, name, edge_index, num_nodes=None, x=None, y=None,
                splits=None, features="feat", tmp_dir=None):
    """Create graph `name` in the database at `path` (a directory, created
    when missing, or an open read-write gnndb.Connection) from arrays:

      edge_index  [2, E] integers, row 0 the source, row 1 the target (a
                  message flows from source to target, as in PyG and DGL)
      num_nodes   the node count (default: rows of x, else entries of y,
                  else the largest id + 1)
      x           [num_nodes, dim] features, imported as table `features`
      y           [num_nodes] integer labels (-1: unlabeled)
      splits      {name: boolean mask [num_nodes] or 1-D node ids}

    Tensors, numpy arrays and sequences are accepted. The arrays are
    checked first; a failing statement drops the graph again, so a failure
    leaves no half graph (see the module documentation). Returns the
    graph's DESCRIBE rows as a dict."""
    _check_name("graph name", name)
    if x is not None:
        _check_name("feature table name", features)
    splits = dict(splits or {})
    for s in splits:
        _check_name("split name", s)

    if num_nodes is None:
        for a in (x, y):
            a = _numpy(a)
            if a is not None and a.ndim >= 1:
                num_nodes = int(a.shape[0])
                break
    edges = _edges(edge_index, num_nodes)
    if num_nodes is None:
        num_nodes = int(edges.max()) + 1 if edges.size else 0
    num_nodes = int(num_nodes)
    if num_nodes <= 0:
        raise _err("the graph has no nodes")
    xs = _features(x, num_nodes)
    ys = _labels(y, num_nodes)
    ids = {s: _split(s, m, num_nodes) for s, m in splits.items()}

    return _on_connection(path, lambda conn: _export(
        conn, name, edges, num_nodes, xs, ys, ids, features, tmp_dir))


def _export(conn, name, edges, num_nodes, x, y, splits, features, tmp_dir):
    with tempfile.TemporaryDirectory(prefix="gnndb-export-",
                                     dir=tmp_dir) as tmp:
        f = lambda n: _quote(os.path.join(tmp, n))
        np.ascontiguousarray(edges.T, dtype="<i8").tofile(
            os.path.join(tmp, "edges.bin"))
        after = []      # the statements that run once the graph exists
        if x is not None:
            np.save(os.path.join(tmp, "x.npy"), x)
            after.append("IMPORT FEATURES %s INTO %s FROM %s;"
                         % (features, name, f("x.npy")))
        if y is not None:
            np.save(os.path.join(tmp, "y.npy"), y)
            after.append("IMPORT LABELS INTO %s FROM %s;" % (name, f("y.npy")))
        for s, ids in splits.items():
            np.save(os.path.join(tmp, "split_%s.npy" % s), ids)
            after.append("CREATE SPLIT %s ON %s FROM %s;"
                         % (s, name, f("split_%s.npy" % s)))

        # CREATE GRAPH is atomic: if it fails (the name is taken, say),
        # nothing was made and nothing must be dropped.
        conn.execute("CREATE GRAPH %s FROM %s FORMAT bin NODES %d;"
                     % (name, f("edges.bin"), num_nodes))
        try:
            for sql in after:
                conn.execute(sql)
        except BaseException as exc:
            try:
                conn.execute("DROP GRAPH %s;" % name)
            except gnndb.Error as drop_exc:
                raise gnndb.Error(
                    getattr(exc, "code", gnndb.ERROR),
                    "%s (and dropping the half-made graph %s failed too: "
                    "%s)" % (exc, name, drop_exc)) from exc
            raise
    return dict(conn.execute("DESCRIBE %s;" % name))


def from_pyg(data, path, name, features="feat", splits=None, tmp_dir=None):
    """Export a torch_geometric.data.Data into graph `name` of the database
    at `path`: edge_index, x (as feature table `features`), y, and the
    train_mask / val_mask / test_mask it has as splits train / val / test
    (or the masks or id arrays given in `splits`, a {name: mask} dict).
    Edge attributes are not exported. See from_arrays()."""
    if hasattr(data, "node_types") and hasattr(data, "edge_types") and \
            not hasattr(data, "edge_index"):
        raise _err("from_pyg takes a homogeneous Data; a HeteroData has "
                   "several node or edge types")
    edge_index = getattr(data, "edge_index", None)
    if edge_index is None:
        raise _err("from_pyg needs data.edge_index (a SparseTensor adj_t "
                   "alone is not supported)")
    if splits is None:
        splits = {}
        for s in ("train", "val", "test"):
            m = getattr(data, s + "_mask", None)
            if m is not None:
                splits[s] = m
    return from_arrays(path, name, edge_index, num_nodes=data.num_nodes,
                       x=getattr(data, "x", None), y=getattr(data, "y", None),
                       splits=splits, features=features, tmp_dir=tmp_dir)


def from_dgl(g, path, name, features="feat", feat_key="feat",
             label_key="label", splits=None, tmp_dir=None):
    """Export a homogeneous DGLGraph into graph `name` of the database at
    `path`: its edges (u, v) (messages flow u -> v), g.ndata[feat_key] as
    feature table `features`, g.ndata[label_key] as labels, and the
    train_mask / val_mask / test_mask in g.ndata as splits (or `splits`).
    DGL itself is not imported. See from_arrays()."""
    ntypes = list(getattr(g, "ntypes", ["_N"]))
    etypes = list(getattr(g, "canonical_etypes", [None]))
    if len(ntypes) != 1 or len(etypes) != 1:
        raise _err("from_dgl takes a homogeneous graph; this one has node "
                   "types %s and edge types %s" % (ntypes, etypes))
    src, dst = g.edges()
    src, dst = _numpy(src), _numpy(dst)
    nd = g.ndata
    if splits is None:
        splits = {s: nd[s + "_mask"] for s in ("train", "val", "test")
                  if s + "_mask" in nd}
    return from_arrays(path, name, np.stack([src, dst]),
                       num_nodes=int(g.num_nodes()),
                       x=nd[feat_key] if feat_key in nd else None,
                       y=nd[label_key] if label_key in nd else None,
                       splits=splits, features=features, tmp_dir=tmp_dir)


def _on_connection(path, run):
    """run(conn) on `path`, an open Connection or a database to open."""
    if isinstance(path, gnndb.Connection):
        return run(path)
    with gnndb.connect(path) as conn:
        return run(conn)


def _current_version(conn, name):
    """The number of graph `name`'s current version (SHOW VERSIONS)."""
    rows = conn.execute("SHOW VERSIONS %s;" % name)
    return int([r for r in rows if r[4] == "yes"][0][0])


def _insert_file(tmp, edges, time):
    """The file and clauses of INSERT EDGES: int64 pairs (FORMAT bin), or
    with times a csv of (src, dst, t), the only form that carries them."""
    if time is None:
        path = os.path.join(tmp, "edges.bin")
        np.ascontiguousarray(edges.T, dtype="<i8").tofile(path)
        return path, "FORMAT bin"
    path = os.path.join(tmp, "edges.csv")
    np.savetxt(path, np.column_stack([edges.T, time]), fmt="%d",
               delimiter=",")
    return path, "FORMAT csv COLUMNS (0, 1, 2)"


def insert_edges(path, name, edge_index, time=None, tmp_dir=None):
    """Append edges to graph `name` of the database at `path` (a directory
    or an open read-write gnndb.Connection): INSERT EDGES INTO name, which
    makes the graph's next version. The new edges take the input edge ids
    after the graph's (the i-th new edge gets input_edges + i), and the
    graph's own options (UNDIRECTED, DROP DUPLICATES, MAP IDS ...) apply
    to them as its creation applied them to the first.

      edge_index  [2, E] integers, source then target, the graph's node ids
                  (its keys when it was created with MAP IDS); no new
                  nodes
      time        [E] integers, each new edge's time: required when the
                  graph has edge times, refused when it has none

    Statements prepared before keep reading the version they were prepared
    on; `SAMPLE ... AS OF VERSION n` reads an older one. Returns the new
    version's number. The append is atomic: on any error (a node id the
    graph lacks, a wrong time count) nothing changes."""
    _check_name("graph name", name)
    e = _numpy(edge_index)
    if e is None or e.ndim != 2 or e.shape[0] != 2:
        raise _err("edge_index must have shape [2, num_edges], not %s"
                   % (None if e is None else list(e.shape),))
    if e.dtype.kind not in "iu":
        raise _err("edge_index must hold integers, not %s" % e.dtype)
    e = e.astype(np.int64, copy=False)
    t = _numpy(time)
    if t is not None:
        t = t.reshape(-1)
        if t.dtype.kind not in "iu":
            raise _err("time must hold integers, not %s" % t.dtype)
        if t.shape[0] != e.shape[1]:
            raise _err("time has %d entries for %d edges"
                       % (t.shape[0], e.shape[1]))
        t = t.astype(np.int64, copy=False)

    def run(conn):
        with tempfile.TemporaryDirectory(prefix="gnndb-insert-",
                                         dir=tmp_dir) as tmp:
            f, clauses = _insert_file(tmp, e, t)
            conn.execute("INSERT EDGES INTO %s FROM %s %s;"
                         % (name, _quote(f), clauses))
        return _current_version(conn, name)

    return _on_connection(path, run)


def insert_nodes(path, name, count, x=None, y=None, features="feat",
                 tmp_dir=None):
    """Add `count` nodes to graph `name` (INSERT NODES INTO name COUNT
    count: the graph's next version, ids `nodes` to `nodes + count - 1`,
    no edges yet) with their rows: `x` ([count, dim]) appended to feature
    table `features` and `y` ([count] integers, -1 unlabeled) to the
    labels (INSERT ROWS). A table of a row per node that gets no rows here
    makes SAMPLE refuse the new version until it has them. Each statement
    is atomic; the arrays are checked first. Returns the new version's
    number."""
    _check_name("graph name", name)
    count = int(count)
    if count < 1:
        raise _err("count must be at least 1, not %d" % count)
    xs = None if x is None else _features(x, count)
    if xs is not None:
        _check_name("feature table name", features)
    ys = None if y is None else _labels(y, count)

    def run(conn):
        with tempfile.TemporaryDirectory(prefix="gnndb-insert-",
                                         dir=tmp_dir) as tmp:
            conn.execute("INSERT NODES INTO %s COUNT %d;" % (name, count))
            if xs is not None:
                np.save(os.path.join(tmp, "x.npy"), xs)
                conn.execute("INSERT ROWS INTO %s ON %s FROM %s;"
                             % (features, name,
                                _quote(os.path.join(tmp, "x.npy"))))
            if ys is not None:
                np.save(os.path.join(tmp, "y.npy"), ys)
                conn.execute("INSERT ROWS INTO LABELS ON %s FROM %s;"
                             % (name, _quote(os.path.join(tmp, "y.npy"))))
        return _current_version(conn, name)

    return _on_connection(path, run)
