"""gnndb as a PyG backend: a FeatureStore, a GraphStore and a sampler that
PyG's own loaders drive, all reading the database out of core.

    import gnndb.pyg as gp
    from torch_geometric.loader import NodeLoader

    fs, gs = gp.FeatureStore("cora.gnndb", "cora"), gp.GraphStore("cora.gnndb", "cora")
    sampler = gp.NeighborSampler((fs, gs), [10, 10])
    loader = NodeLoader((fs, gs), node_sampler=sampler, input_nodes=train_idx,
                        batch_size=1024, shuffle=True)

Names: a store's group is a node type (None for a plain graph) or an edge
type (src, rel, dst) (("_N", "_E", "_N") for a plain graph); its attribute
is a table: "x" the feature table the store was given (default "feat"), "y"
the labels, "edge_attr" a relation's only edge table, and every table by its
own name. Sampling is the engine's (SAMPLE ... SEEDS (ids) IN ORDER): the
sampler plans a round of the loader's batches as one statement, so the
hyperbatch reads each block once for the whole round, and hands the feature
rows it gathered to the store, so that the loader's feature fetch reads
nothing again. docs/python.md ("PyG backend") says how, and which of PyG's
options are not honoured.
"""
import os
import sys
import tempfile
import warnings

import numpy as np
import torch

import gnndb
from torch_geometric.data import EdgeAttr, TensorAttr
from torch_geometric.data import FeatureStore as _PygFeatureStore
from torch_geometric.data import GraphStore as _PygGraphStore
from torch_geometric.data.graph_store import EdgeLayout
from torch_geometric.sampler import (BaseSampler, EdgeSamplerInput,
                                     HeteroSamplerOutput, NodeSamplerInput,
                                     SamplerOutput)
from torch_geometric.sampler.base import SubgraphType
from torch_geometric.sampler.neighbor_sampler import edge_sample, node_sample

__all__ = ["FeatureStore", "GraphStore", "NeighborSampler", "PLAIN_EDGE"]

PLAIN_EDGE = ("_N", "_E", "_N")   # the edge type of a plain graph


def _q(path):
    return "'" + str(path).replace("'", "''") + "'"


# ---- the database, once per process ------------------------------------------

class _Db:
    """A path and the connection of this process to it. A DataLoader worker
    is a forked copy: it opens its own connection (an LMDB environment must
    not cross a fork) and leaves its parent's alone."""

    def __init__(self, db, readonly=None):
        if isinstance(db, _Db):
            self.path, self.readonly = db.path, db.readonly
        elif isinstance(db, gnndb.Connection):
            self.path, self.readonly = db.path, db.readonly
        else:
            self.path = os.fspath(db)
            self.readonly = bool(readonly)
        self._conn, self._pid = None, None

    def conn(self):
        if self._pid != os.getpid():
            if self._conn is not None:      # the parent's: never closed here
                self._conn._db = gnndb.ffi.NULL
            self._conn = gnndb.connect(self.path, readonly=self.readonly,
                                       create=not self.readonly)
            self._pid = os.getpid()
        return self._conn

    def forked(self):
        return self._pid is not None and self._pid != os.getpid()

    def refuse_write(self, what):
        if self.readonly:
            raise gnndb.Error(gnndb.READONLY, "%s: the database %s was opened "
                              "read-only; open it with readonly=False to "
                              "write" % (what, self.path))

    def __getstate__(self):       # a spawned worker opens its own
        return {"path": self.path, "readonly": self.readonly}

    def __setstate__(self, st):
        self.__init__(st["path"], st["readonly"])


def _parse_table(desc):
    """'1433 x float32' -> (1433, 'float32')."""
    dim, _, dtype = str(desc).partition(" x ")
    return int(dim), dtype.split()[0] if dtype else "float32"


class _Schema:
    """What DESCRIBE says of a graph: node types (one, None, for a plain
    graph) with their counts, tables and labels; relations with their
    types, edges and edge tables."""

    def __init__(self, conn, graph):
        info = dict(conn.execute("DESCRIBE %s;" % graph))
        self.graph = graph
        self.typed = info.get("kind") == "typed"
        self.types, self.rels = {}, {}
        if not self.typed:
            self._plain(info)
        else:
            self._typed(info)

    def _plain(self, info):
        feats = {k[9:]: _parse_table(v) for k, v in info.items()
                 if k.startswith("features.")}
        self.types[None] = {"count": int(info["nodes"]), "offset": 0,
                            "features": feats, "labels": "labels" in info}
        efeats = {k[14:]: _parse_table(v) for k, v in info.items()
                  if k.startswith("edge_features.")}
        self.rels[PLAIN_EDGE] = {"name": None, "src": None, "dst": None,
                                 "edges": int(info["edges"]),
                                 "input_edges": int(info.get("input_edges",
                                                             info["edges"])),
                                 "edge_features": efeats}

    def _typed(self, info):
        for k, v in info.items():
            parts = k.split(".")
            if parts[0] == "type":
                t = self.types.setdefault(parts[1], {"features": {},
                                                     "labels": False})
                if parts[2] in ("offset", "count"):
                    t[parts[2]] = int(v)
                elif parts[2] == "labels":
                    t["labels"] = True
                elif parts[2] == "features":
                    t["features"][".".join(parts[3:])] = _parse_table(v)
            elif parts[0] == "relation":
                r = self.rels.setdefault(parts[1], {"name": parts[1],
                                                    "edge_features": {}})
                if parts[2] in ("src", "dst"):
                    r[parts[2]] = v
                elif parts[2] in ("edges", "input_edges"):
                    r[parts[2]] = int(v)
                elif parts[2] == "edge_features":
                    r["edge_features"][parts[3]] = _parse_table(v)
        self.rels = {(r["src"], n, r["dst"]): r for n, r in self.rels.items()}

    def edge_type(self, key):
        """The (src, rel, dst) of a relation named by its edge type, by
        (src, rel, dst) with PyG's wildcards, or by its name; KeyError."""
        if key is None and not self.typed:
            return PLAIN_EDGE
        if isinstance(key, str):
            hits = [et for et in self.rels if et[1] == key]
        else:
            key = tuple(key)
            hits = [et for et in self.rels if et == key or
                    (len(key) == 2 and (et[0], et[2]) == key)]
        if len(hits) == 1:
            return hits[0]
        raise KeyError("gnndb: graph %r has no relation %r; it has %s"
                       % (self.graph, key, ", ".join(map(str, self.rels))))


# ---- FeatureStore ---------------------------------------------------------------

class FeatureStore(_PygFeatureStore):
    """torch_geometric.data.FeatureStore over graph `graph` of database `db`
    (a path or a gnndb.Connection). Reads are GATHER statements: the rows
    of the ids asked, each block read once; writes are IMPORT FEATURES,
    IMPORT LABELS, IMPORT EDGE FEATURES and DROP FEATURES. `x` names the
    table that attribute "x" means."""

    def __init__(self, db, graph, x="feat", readonly=None):
        super().__init__()
        if readonly is None:
            readonly = getattr(db, "readonly", False)
        self.__dict__["_db"] = _Db(db, readonly)
        self.__dict__["graph"] = graph
        self.__dict__["x_table"] = x
        # the batch in flight's rows: [(node tensor, {key: rows})], one
        # entry per node type
        self.__dict__["_inflight"] = []
        # GATHER statements run, and tensors the sampler handed over
        self.__dict__["stats"] = {"reads": 0, "handed": 0}

    def _schema(self):
        """DESCRIBE's answer, kept until this store writes (a loader asks
        for the attributes at every batch)."""
        sch = self.__dict__.get("_sch")
        if sch is None or self._db.forked():
            sch = self.__dict__["_sch"] = _Schema(self._db.conn(), self.graph)
        return sch

    def _changed(self):
        self.__dict__["_sch"] = None

    # -- names ----------------------------------------------------------------

    def _exists(self, sch):
        out = []
        for t, info in sch.types.items():
            for name in info["features"]:
                out.append("(%r, %r)" % (t, "x" if name == self.x_table
                                         else name))
            if info["labels"]:
                out.append("(%r, 'y')" % (t,))
        for et, r in sch.rels.items():
            for name in r["edge_features"]:
                out.append("(%r, %r)" % (et, name))
        return ", ".join(out) or "nothing"

    def _resolve(self, attr, sch=None):
        """(kind, table, on, rows, dim) of a TensorAttr; KeyError naming
        what exists. kind: "x" (a node table), "y" (labels), "e" (a
        relation's table)."""
        sch = sch or self._schema()
        group, name = attr.group_name, attr.attr_name
        try:
            return self._lookup(sch, group, name)
        except KeyError:
            raise KeyError("gnndb: graph %r has no attribute %r of group %r; "
                           "it has %s" % (self.graph, name, group,
                                          self._exists(sch))) from None

    def _lookup(self, sch, group, name):
        if isinstance(group, tuple):
            et = sch.edge_type(group)
            r = sch.rels[et]
            tabs = r["edge_features"]
            table = (next(iter(tabs)) if name == "edge_attr" and
                     len(tabs) == 1 else name)
            dim, _ = tabs[table]
            on = self.graph + ("." + r["name"] if r["name"] else "")
            return "e", table, on, r["input_edges"], dim
        if group not in sch.types:
            raise KeyError(group)
        t = sch.types[group]
        on = self.graph + ("." + group if group else "")
        if name == "y" and t["labels"]:
            return "y", "LABELS", on, t["count"], None
        table = self.x_table if name == "x" else name
        dim, _ = t["features"][table]
        return "x", table, on, t["count"], dim

    def get_all_tensor_attrs(self):
        """Every node table (x, y and the others by name) of every node
        type. Edge tables are not listed: PyG's loaders fetch every listed
        attribute by node ids (their edge features are a TODO of PyG's);
        read them by edge type and e_id."""
        sch = self._schema()
        out = []
        for t, info in sch.types.items():
            for name in info["features"]:
                out.append(TensorAttr(t, "x" if name == self.x_table
                                      else name))
            if info["labels"]:
                out.append(TensorAttr(t, "y"))
        return out

    def _get_tensor_size(self, attr):
        kind, _, _, rows, dim = self._resolve(attr)
        return (rows,) if kind == "y" else (rows, dim)

    # -- reads ----------------------------------------------------------------

    def _hand(self, parts):
        """The sampler's rows of the batch in flight: [(node, rows)], node
        the n_id of a node type, rows {(group, attr): tensor}. They replace
        the last batch's, which the loader has already filtered (its
        filter_fn follows each sample_from_nodes call), so that the store
        keeps no batch alive beyond the one the loader is building: the
        sampler counts two batch copies (PRAGMA batch_copies), that one and
        the one the training loop still holds."""
        self.__dict__["_inflight"] = list(parts)

    def _handed(self, attr):
        idx = attr.index
        if not isinstance(idx, torch.Tensor):
            return None
        for node, rows in reversed(self._inflight):
            if (attr.group_name, attr.attr_name) in rows and (
                    node is idx or (node.shape == idx.shape and
                                    torch.equal(node, idx))):
                self.stats["handed"] += 1
                return rows[(attr.group_name, attr.attr_name)]
        return None

    def _ids(self, index, rows):
        if index is None:
            return np.arange(rows, dtype=np.int64)
        if isinstance(index, slice):
            return np.arange(rows, dtype=np.int64)[index]
        a = index.cpu().numpy() if isinstance(index, torch.Tensor) \
            else np.asarray(index)
        if a.dtype == np.bool_:
            if a.shape != (rows,):
                raise IndexError("gnndb: a boolean index of %s rows for a "
                                 "table of %d" % (a.shape, rows))
            return np.nonzero(a)[0]
        a = a.reshape(-1).astype(np.int64)
        bad = (a < 0) | (a >= rows)
        if bad.any():
            raise IndexError("gnndb: index %d is out of range for a table of "
                             "%d rows (0..%d); nothing was read"
                             % (a[bad][0], rows, rows - 1))
        return a

    def _get_tensor(self, attr):
        got = self._handed(attr)
        if got is not None:
            return got
        kind, table, on, rows, dim = self._resolve(attr)
        ids = self._ids(attr.index, rows)
        if ids.size == 0:
            return torch.empty((0,) if kind == "y" else (0, dim),
                               dtype=torch.long if kind == "y"
                               else torch.float32)
        out = self._db.conn().gather(table, ids, on=on)
        self.stats["reads"] += 1
        return torch.from_numpy(out)

    def _multi_get_tensor(self, attrs):
        return [self._get_tensor(a) for a in attrs]

    # -- writes ---------------------------------------------------------------

    def _put_tensor(self, tensor, attr):
        """Create or replace a node table ("x" or a name), the labels ("y")
        or a relation's edge table. The whole table only (index None);
        checked against the graph first, so a refused put changes nothing.
        One statement, IMPORT ... REPLACE: the new table takes the old
        one's place in the transaction that publishes it, so that a reader
        sees the old rows or the new ones, and a failed write leaves the
        old."""
        self._db.refuse_write("put_tensor %s" % (attr,))
        sch = self._schema()
        if attr.index is not None:
            raise ValueError("gnndb: put_tensor writes whole tables; give "
                             "index=None, not %r" % (attr.index,))
        a = tensor.detach().cpu().numpy() if isinstance(tensor, torch.Tensor) \
            else np.asarray(tensor)
        stmt = self._put_statement(sch, attr, a)
        conn = self._db.conn()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "t.npy")
            np.save(path, a)
            self._changed()
            conn.execute(stmt % _q(path))
        return True

    def _put_statement(self, sch, attr, a):
        group, name = attr.group_name, attr.attr_name
        edge = isinstance(group, tuple)
        if edge:
            et = sch.edge_type(group)
            r = sch.rels[et]
            rows, on = r["input_edges"], self.graph + (
                "." + r["name"] if r["name"] else "")
            tabs = r["edge_features"]
            # "edge_attr" is the relation's only table, as a read takes it
            table = name if name != "edge_attr" else (
                next(iter(tabs)) if len(tabs) == 1 else "w")
        else:
            if group not in sch.types:
                raise KeyError("gnndb: graph %r has no node type %r; it has "
                               "%s" % (self.graph, group, list(sch.types)))
            t = sch.types[group]
            rows, on = t["count"], self.graph + ("." + group if group else "")
            table = self.x_table if name == "x" else name
        if name == "y" and not edge:
            if a.ndim != 1 or not np.issubdtype(a.dtype, np.integer) \
                    or a.shape[0] != rows:
                raise ValueError("gnndb: labels must be [%d] integers, not "
                                 "%s %s" % (rows, list(a.shape), a.dtype))
            return "IMPORT LABELS INTO %s FROM %%s REPLACE;" % on
        if a.ndim != 2 or a.shape[0] != rows or a.dtype not in (
                np.float32, np.float64, np.float16):
            raise ValueError("gnndb: %s %r must be [%d, dim] floats, not %s "
                             "%s" % ("edge table" if edge else "table", table,
                                     rows, list(a.shape), a.dtype))
        kw = "EDGE FEATURES" if edge else "FEATURES"
        return "IMPORT %s %s INTO %s FROM %%s REPLACE;" % (kw, table, on)

    def _remove_tensor(self, attr):
        self._db.refuse_write("remove_tensor %s" % (attr,))
        kind, table, on, _, _ = self._resolve(attr)
        if kind == "y":
            raise ValueError("gnndb: labels cannot be dropped")
        self._changed()
        self._db.conn().execute("DROP FEATURES %s ON %s;" % (table, on))
        return True

    def __repr__(self):
        return "gnndb.pyg.FeatureStore(%r, %r)" % (self._db.path, self.graph)


# ---- GraphStore -------------------------------------------------------------------

class GraphStore(_PygGraphStore):
    """torch_geometric.data.GraphStore over graph `graph` of database `db`.
    The topology stays on disk; _get_edge_index streams it out (COO or CSC,
    with a warning of the bytes it materialises) for code that asks for
    it. Samplers do not: gnndb.pyg.NeighborSampler samples in the engine."""

    def __init__(self, db, graph, readonly=None):
        super().__init__()
        if readonly is None:
            readonly = getattr(db, "readonly", False)
        self.__dict__["_db"] = _Db(db, readonly)
        self.__dict__["graph"] = graph

    def _schema(self):
        return _Schema(self._db.conn(), self.graph)

    def get_all_edge_attrs(self):
        sch = self._schema()
        out = []
        for et, r in sch.rels.items():
            n = (sch.types[r["src"]]["count"], sch.types[r["dst"]]["count"])
            out.append(EdgeAttr(et, EdgeLayout.CSC, True, n))
        return out

    def _stream(self, sch, et):
        """(row, col) of every edge of relation et, grouped by target in
        ascending order: each target's in-neighbours as stored."""
        r = sch.rels[et]
        typed = sch.typed
        dst = sch.types[r["dst"]]
        if typed:
            sql = ("SAMPLE {%s: -1} FROM %s SEEDS %s.ALL BATCH 8192 SEED 1;"
                   % (r["name"], self.graph, r["dst"]))
        else:
            sql = "SAMPLE -1 FROM %s SEEDS ALL BATCH 8192 SEED 1;" % self.graph
        rows, cols = [], []
        for b in self._db.conn().sample(sql):
            if typed:
                rel = b.rels[r["name"]]
                ei = np.asarray(rel.edge_index)
                rows.append(np.asarray(b.types[r["src"]].n_id)[ei[0]])
                cols.append(np.asarray(b.types[r["dst"]].n_id)[ei[1]])
            else:
                ei, nid = np.asarray(b.edge_index), np.asarray(b.n_id)
                rows.append(nid[ei[0]])
                cols.append(nid[ei[1]])
        row = np.concatenate(rows) if rows else np.empty(0, np.int64)
        col = np.concatenate(cols) if cols else np.empty(0, np.int64)
        order = np.argsort(col, kind="stable")
        return row[order], col[order], dst["count"]

    def _get_edge_index(self, edge_attr):
        sch = self._schema()
        et = sch.edge_type(edge_attr.edge_type)
        r = sch.rels[et]
        layout = EdgeLayout(edge_attr.layout)
        nbytes = r["edges"] * 16
        warnings.warn("gnndb: materialising relation %s of graph %s in "
                      "memory as %s: %d edges, about %.1f MiB"
                      % (et, self.graph, layout.value, r["edges"],
                         nbytes / 2 ** 20), stacklevel=3)
        row, col, ndst = self._stream(sch, et)
        row, col = torch.from_numpy(row), torch.from_numpy(col)
        if layout == EdgeLayout.COO:
            return row, col
        if layout == EdgeLayout.CSC:
            ptr = torch.zeros(ndst + 1, dtype=torch.long)
            ptr[1:] = torch.cumsum(torch.bincount(col, minlength=ndst), 0)
            return row, ptr
        nsrc = sch.types[r["src"]]["count"]
        order = torch.argsort(row * max(ndst, 1) + col)
        ptr = torch.zeros(nsrc + 1, dtype=torch.long)
        ptr[1:] = torch.cumsum(torch.bincount(row, minlength=nsrc), 0)
        return ptr, col[order]

    def _put_edge_index(self, edge_index, edge_attr):
        """A plain graph (edge type None or ("_N", "_E", "_N")) from COO,
        or a relation (src, rel, dst) of a typed graph, its node types made
        from edge_attr.size when missing. Graphs are immutable: an existing
        graph or relation is refused."""
        self._db.refuse_write("put_edge_index %s" % (edge_attr.edge_type,))
        if EdgeLayout(edge_attr.layout) != EdgeLayout.COO:
            raise ValueError("gnndb: put_edge_index takes COO (row, col)")
        row, col = (torch.as_tensor(t).reshape(-1) for t in edge_index)
        ei = torch.stack([row, col]).numpy()
        conn = self._db.conn()
        et = edge_attr.edge_type
        if et is None or tuple(et) == PLAIN_EDGE:
            n = edge_attr.size[0] if edge_attr.size else None
            gnndb.from_arrays(conn, self.graph, ei, num_nodes=n)
            return True
        return self._put_relation(conn, tuple(et), ei, edge_attr.size)

    def _put_relation(self, conn, et, ei, size):
        names = [r[0] for r in conn.execute("SHOW GRAPHS;")]
        sql = "" if self.graph in names else "CREATE GRAPH %s;" % self.graph
        have = {} if not sql else None
        if have is None:
            have = {t: i["count"] for t, i in self._schema().types.items()}
        for k, t in enumerate((et[0], et[2])):
            if t not in have:
                if not size:
                    raise ValueError("gnndb: node type %r is new: give "
                                     "size=(num_src, num_dst)" % t)
                sql += "CREATE NODES %s IN %s COUNT %d;" % (t, self.graph,
                                                           size[k])
                have[t] = size[k]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "e.tsv")
            np.savetxt(path, ei.T, fmt="%d", delimiter="\t")
            conn.execute(sql + "CREATE RELATION %s IN %s FROM %s TO %s FROM "
                         "%s;" % (et[1], self.graph, et[0], et[2], _q(path)))
        return True

    def _remove_edge_index(self, edge_attr):
        self._db.refuse_write("remove_edge_index %s" % (edge_attr.edge_type,))
        sch = self._schema()
        et = sch.edge_type(edge_attr.edge_type)
        if sch.typed:
            self._db.conn().execute("DROP RELATION %s ON %s;"
                                    % (et[1], self.graph))
        else:
            self._db.conn().execute("DROP GRAPH %s;" % self.graph)
        return True

    def __repr__(self):
        return "gnndb.pyg.GraphStore(%r, %r)" % (self._db.path, self.graph)


from ._pyg_sampler import NeighborSampler  # noqa: E402  (uses the stores)
