"""PyTorch side of the gnndb binding: mini-batches as torch tensors with the
field names of PyG's NeighborLoader.

    from gnndb.torch import GnnDataset, loader
    ds = GnnDataset("cora.gnndb",
                    "SAMPLE 10,10 FROM cora SEEDS train FEATURES feat BATCH 64 SHUFFLE SEED 1;")
    for batch in torch.utils.data.DataLoader(ds, batch_size=None):
        out = model(batch.x, batch.edge_index)[:batch.batch_size]
        loss = F.cross_entropy(out, batch.y)

A batch comes in one of two forms, chosen by the `pyg` argument of loader()
and GnnDataset:

  pyg=None   (default) a torch_geometric.data.Data when PyG is installed,
             else a NeighborBatch (a LinkBatch for SAMPLE ... EDGES, a
             HeteroBatch for a typed SAMPLE);
  pyg=True   always a Data (gnndb.Error if torch_geometric cannot be
             imported);
  pyg=False  always a NeighborBatch or LinkBatch (plain tensors; PyG is
             never imported).

A link batch (SAMPLE ... EDGES split NEGATIVE k) carries the fields of PyG's
LinkNeighborLoader: edge_label_index and edge_label, or with TRIPLET
src_index, dst_pos_index and dst_neg_index.

A typed batch (SAMPLE {rel: k, ...} FROM a typed graph) becomes a
torch_geometric.data.HeteroData, or with pyg=False (or without PyG) a
HeteroBatch: the fields of PyG's hetero NeighborLoader per node type and
per edge type (src, relation, dst), with EDGE FEATURES e_id and edge_attr
on the edge types too.

torch_geometric is imported only when a Data is to be built, never when this
module is imported.

Every tensor owns its memory (the engine's buffer is copied once), because a
DataLoader may hold several batches at a time while the engine reuses its
buffers on the next step.

On a GPU (docs/python.md, "Batches on a GPU"): a statement with TO DEVICE
'cuda:N' yields tensors on that device, cloned on the device from the
engine's buffers (read through the CUDA Array Interface) with the engine's
next refill of those buffers ordered after the clones, on the GPU, with no
host wait; loader(..., device='cuda') moves host batches there itself, and
with pin_memory=True it reads them from the engine's page-locked buffers
with non_blocking=True, waiting for those copies (an event) before the
engine's next step reuses the buffers.
"""
import importlib.util
import warnings

import numpy as np
import torch
import torch.utils.data

import gnndb
from gnndb._alloc import fix_mmap_threshold

__all__ = ["NeighborBatch", "LinkBatch", "HeteroBatch", "NodeTypeFields",
           "EdgeTypeFields", "GnnDataset", "loader", "to_torch", "to_pyg",
           "pyg_available", "pick_device", "device_clause"]


def pick_device(name=None):
    """The torch.device a training script runs on: `name` ('cuda',
    'cuda:1', 'cpu'), or by default cuda when torch sees a GPU, else cpu.
    A bare 'cuda' becomes the current device's index."""
    if name is None:
        name = "cuda" if torch.cuda.is_available() else "cpu"
    dev = torch.device(name)
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("device '%s': this torch (%s) sees no CUDA device; "
                         "use 'cpu'" % (name, torch.__version__))
    if dev.type == "cuda" and dev.index is None:
        dev = torch.device("cuda", torch.cuda.current_device())
    return dev


def device_clause(device):
    """The clause that asks gnndb for batches on `device`: " TO DEVICE
    'cuda:N'" for a CUDA device, "" for the host."""
    dev = torch.device(device)
    if dev.type != "cuda":
        return ""
    return " TO DEVICE 'cuda:%d'" % (0 if dev.index is None else dev.index)


class _Fields:
    """A batch of named fields (`keys`), tensors or None, read as attributes
    or items."""

    keys = ()

    def __init__(self, **fields):
        for k in self.keys:
            setattr(self, k, fields.get(k))

    @property
    def num_nodes(self):
        return int(self.n_id.numel())

    @property
    def num_edges(self):
        return int(self.edge_index.size(1))

    def __getitem__(self, key):
        if key not in self.keys:
            raise KeyError(key)
        return getattr(self, key)

    def __contains__(self, key):
        return key in self.keys and getattr(self, key) is not None

    def _map(self, fn):
        out = {}
        for k in self.keys:
            v = getattr(self, k)
            out[k] = fn(v) if isinstance(v, torch.Tensor) else v
        return type(self)(**out)

    def to(self, device, non_blocking=False):
        """The batch with every tensor moved to `device`."""
        return self._map(lambda v: v.to(device, non_blocking=non_blocking))

    def pin_memory(self):
        return self._map(lambda v: v.pin_memory())

    def __repr__(self):
        parts = []
        for k in self.keys:
            v = getattr(self, k)
            if isinstance(v, torch.Tensor):
                parts.append("%s=[%s]" % (k, ", ".join(map(str, v.shape))))
            elif v is not None:
                parts.append("%s=%s" % (k, v))
        return "%s(%s)" % (type(self).__name__, ", ".join(parts))


class NeighborBatch(_Fields):
    """One mini-batch with the fields of a PyG NeighborLoader output:

      n_id               LongTensor [num_nodes]   global ids, seeds first
      edge_index         LongTensor [2, num_edges] local (source, target)
      x                  FloatTensor [num_nodes, x_dim] or None
      y                  LongTensor [batch_size] or None (labels of the seeds
                         only; PyG's y covers every node, its first
                         batch_size entries are these)
      batch_size         int, the number of seeds (their rows come first)
      num_sampled_nodes  list of int, per hop (hop 0: the seeds)
      num_sampled_edges  list of int, per hop
      input_id           LongTensor [batch_size], the seeds' global ids
      e_id, edge_attr    with EDGE FEATURES: LongTensor [num_edges], the
                         input edge id of each edge, and FloatTensor
                         [num_edges, edge_attr_dim] its row; else None
      node_seed, time,   a time-respecting batch (AT TIMES / AT NODE TIME):
      edge_time          LongTensors [num_nodes] (each node's seed, PyG's
                         `batch`), [batch_size] (the seeds' times) and
                         [num_edges] (each edge's time); else None
    plus gnndb's epoch, batch (its number in the epoch) and digest."""

    keys = ("n_id", "edge_index", "x", "y", "batch_size",
            "num_sampled_nodes", "num_sampled_edges", "input_id",
            "e_id", "edge_attr", "node_seed", "time", "edge_time",
            "epoch", "batch", "digest")


class LinkBatch(_Fields):
    """One link mini-batch (SAMPLE ... EDGES split NEGATIVE k) with the
    fields of a PyG LinkNeighborLoader output:

      n_id               LongTensor [num_nodes]  global ids: the distinct
                         endpoints of the seed edges and negatives first
      e_id               LongTensor [num_edges]  input edge id of each edge
      edge_index         LongTensor [2, num_edges] local (source, target)
      x                  FloatTensor [num_nodes, x_dim] or None
      edge_attr          FloatTensor [num_edges, edge_attr_dim] or None
      num_sampled_nodes  list of int, per hop (hop 0: the endpoints)
      num_sampled_edges  list of int, per hop
      edge_label_index   LongTensor [2, B + k*B]  local indices into n_id:
                         the B positives, then the negatives
      edge_label         FloatTensor [B + k*B]    1.0, then 0.0
    or, with TRIPLET, instead of those two:
      src_index          LongTensor [B]
      dst_pos_index      LongTensor [B]
      dst_neg_index      LongTensor [B, k], [B] when k == 1 (as PyG)
      node_seed, time,   AT EDGE TIME: LongTensors [num_nodes] (each node's
      edge_time          root, PyG's `batch`), [roots] (each root's time: its
                         seed edge's) and [num_edges]; else None. The roots,
                         a tree each, come first in n_id, and the label
                         arrays index them by place (docs/language.md)
    plus gnndb's epoch, batch (its number in the epoch) and digest. There is
    no y and no input_id."""

    keys = ("n_id", "e_id", "edge_index", "x", "edge_attr",
            "num_sampled_nodes", "num_sampled_edges", "edge_label_index",
            "edge_label", "src_index", "dst_pos_index", "dst_neg_index",
            "node_seed", "time", "edge_time", "epoch", "batch", "digest")


class NodeTypeFields(_Fields):
    """A node type's part of a HeteroBatch, as PyG's hetero NeighborLoader
    fills data[type]:

      n_id               LongTensor [num_nodes]  ids local to the type,
                         the seeds first (on the seeds' type)
      x                  FloatTensor [num_nodes, x_dim], or None when the
                         type has no features
      num_sampled_nodes  list of int, per hop (hop 0: the seeds)
      y, batch_size      on the seeds' type: LongTensor [batch_size], the
                         seeds' labels, and their number; None elsewhere
      input_id           on the seeds' type: the seeds' ids, n_id[:bs]"""

    keys = ("n_id", "x", "y", "batch_size", "num_sampled_nodes", "input_id")


class EdgeTypeFields(_Fields):
    """An edge type's part of a HeteroBatch, as data[(src, rel, dst)]:

      edge_index         LongTensor [2, num_edges]  sources index the src
                         type's n_id, targets the dst type's
      num_sampled_edges  list of int, per hop
      e_id               with EDGE FEATURES: LongTensor [num_edges], each
                         edge's row in the relation's input file; else None
      edge_attr          with EDGE FEATURES w, where the relation (or its
                         reverse) has table w: FloatTensor [num_edges,
                         edge_attr_dim], its rows; else None"""

    keys = ("edge_index", "num_sampled_edges", "e_id", "edge_attr")

    @property
    def num_nodes(self):
        raise AttributeError("an edge type has no nodes of its own")


class HeteroBatch:
    """One typed mini-batch in plain tensors, read as PyG's HeteroData is:
    batch["paper"].x, batch["author", "writes", "paper"].edge_index (or
    batch["writes"] when the relation's name is not also a type's), the
    dictionaries x_dict, edge_index_dict, edge_attr_dict, e_id_dict,
    num_sampled_nodes_dict, num_sampled_edges_dict that a to_hetero() model
    takes (edge_attr_dict and e_id_dict only over the edge types that have
    them, as HeteroData's collect() gives them), node_types,
    edge_types and metadata(); plus gnndb's seed_type (the seeds' type),
    epoch, batch (its number in the epoch) and digest.

      node_stores  {type: NodeTypeFields}, in the graph's order
      edge_stores  {(src, rel, dst): EdgeTypeFields}"""

    def __init__(self, node_stores, edge_stores, seed_type=None, epoch=0,
                 batch=0, digest=0):
        self.node_stores = dict(node_stores)
        self.edge_stores = dict(edge_stores)
        self.seed_type = seed_type
        self.epoch = epoch
        self.batch = batch
        self.digest = digest

    @property
    def node_types(self):
        return list(self.node_stores)

    @property
    def edge_types(self):
        return list(self.edge_stores)

    def metadata(self):
        """(node_types, edge_types), what torch_geometric's to_hetero()
        takes."""
        return self.node_types, self.edge_types

    def __getitem__(self, key):
        if isinstance(key, tuple):
            return self.edge_stores[key]
        if key in self.node_stores:
            return self.node_stores[key]
        found = [k for k in self.edge_stores if k[1] == key]
        if len(found) != 1:
            raise KeyError(key)
        return self.edge_stores[found[0]]

    def _dict(self, stores, name):
        return {k: getattr(v, name) for k, v in stores.items()
                if getattr(v, name) is not None}

    x_dict = property(lambda self: self._dict(self.node_stores, "x"))
    n_id_dict = property(lambda self: self._dict(self.node_stores, "n_id"))
    num_sampled_nodes_dict = property(
        lambda self: self._dict(self.node_stores, "num_sampled_nodes"))
    edge_index_dict = property(
        lambda self: self._dict(self.edge_stores, "edge_index"))
    edge_attr_dict = property(
        lambda self: self._dict(self.edge_stores, "edge_attr"))
    e_id_dict = property(lambda self: self._dict(self.edge_stores, "e_id"))
    num_sampled_edges_dict = property(
        lambda self: self._dict(self.edge_stores, "num_sampled_edges"))

    @property
    def batch_size(self):
        """The number of seeds (on seed_type)."""
        return self.node_stores[self.seed_type].batch_size

    @property
    def y(self):
        """The seeds' labels (on seed_type)."""
        return self.node_stores[self.seed_type].y

    def _map(self, fn):
        return HeteroBatch(
            {k: v._map(fn) for k, v in self.node_stores.items()},
            {k: v._map(fn) for k, v in self.edge_stores.items()},
            self.seed_type, self.epoch, self.batch, self.digest)

    def to(self, device, non_blocking=False):
        """The batch with every tensor moved to `device`."""
        return self._map(lambda v: v.to(device, non_blocking=non_blocking))

    def pin_memory(self):
        return self._map(lambda v: v.pin_memory())

    def __repr__(self):
        parts = ["%s=%r" % (k, v) for k, v in self.node_stores.items()]
        parts += ["(%s)=%r" % (", ".join(k), v)
                  for k, v in self.edge_stores.items()]
        return "HeteroBatch(%s)" % ", ".join(parts)


def _tensor(a):
    # np.array(copy) gives a writable, owning array: torch.from_numpy then
    # shares that copy, never the engine's buffer.
    return None if a is None else torch.from_numpy(np.array(a, copy=True))


def _cuda_clone(d, device):
    """An owning tensor on `device` from a gnndb device array (None stays
    None): as_tensor over __cuda_array_interface__ aliases the engine's
    buffer, clone() copies it on the device (microseconds) before the
    engine reuses it."""
    if d is None:
        return None
    cai = d.__cuda_array_interface__
    if 0 in cai["shape"]:       # no memory to alias: data is 0 by the spec
        return torch.empty(cai["shape"], device=device,
                           dtype=torch.from_numpy(
                               np.empty(0, cai["typestr"])).dtype)
    return torch.as_tensor(d, device=device).clone()


def _alias(a):
    """A tensor over the engine's host buffer itself, to be copied to a
    device at once (read, never written, so numpy's read-only flag is of
    no concern here)."""
    if a is None:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return torch.from_numpy(a)


def _getter(b, device=None, non_blocking=False):
    """get(part, name): an owning tensor of array `name` of batch b or of
    one of its types or relations: on b's device when it is on a GPU; else
    on `device` (None: the host), copied there from the engine's buffer
    with non_blocking (pinned buffers: the caller waits before the engine's
    next step) or through an owning host copy. The per-hop counts are host
    memory in every batch."""
    dev = getattr(b, "device", "cpu")
    if dev == "cpu" and device is not None and \
            torch.device(device).type != "cpu":
        if non_blocking:
            return lambda part, name: _to(_alias(getattr(part, name)),
                                          device, True)
        return lambda part, name: _to(_tensor(getattr(part, name)), device,
                                      False)
    if dev == "cpu":
        return lambda part, name: _tensor(getattr(part, name))

    def get(part, name):
        if name in gnndb.Batch._PER_HOP:      # a type's, a relation's too
            return _tensor(getattr(part, name))
        return _cuda_clone(part.device_array(name), dev)
    return get


def _to(t, device, non_blocking):
    return None if t is None else t.to(device, non_blocking=non_blocking)


def _order_after_clones(b):
    """The clones of a device batch are enqueued on the current stream; the
    engine refills the batch's buffers on its own stream (b.cuda_stream)
    at its next step. Make that stream wait for the clones: an event, on
    the GPU, never a host wait."""
    if getattr(b, "device", "cpu") == "cpu" or not b.cuda_stream:
        return
    dev = torch.device(b.device)
    ev = torch.cuda.Event()
    ev.record(torch.cuda.current_stream(dev))
    torch.cuda.ExternalStream(b.cuda_stream, device=dev).wait_event(ev)


def _hetero_torch(b, get):
    """The HeteroBatch of a typed gnndb Batch (or BatchCopy)."""
    nodes, edges = {}, {}
    for name, tb in b.types.items():
        n_id = get(tb, "n_id")
        seeds = name == b.seed_type
        bs = int(tb.num_seeds) if seeds else None
        nodes[name] = NodeTypeFields(
            n_id=n_id, x=get(tb, "x"), y=get(tb, "y") if seeds else None,
            batch_size=bs,
            num_sampled_nodes=[int(v) for v in tb.num_sampled_nodes],
            input_id=n_id[:bs] if seeds else None)
    for rb in b.rels.values():
        edges[rb.edge_type] = EdgeTypeFields(
            edge_index=get(rb, "edge_index"),
            num_sampled_edges=[int(v) for v in rb.num_sampled_edges],
            e_id=get(rb, "e_id"), edge_attr=get(rb, "edge_attr"))
    _order_after_clones(b)
    return HeteroBatch(nodes, edges, b.seed_type, int(b.epoch), int(b.batch),
                       int(b.digest))


def to_torch(b, device=None, non_blocking=False):
    """A NeighborBatch of owning torch tensors from a gnndb Batch (or
    BatchCopy); a LinkBatch from a link batch, a HeteroBatch from a typed
    one. A batch built with TO DEVICE 'cuda:N' gives tensors on that device
    (its per-hop counts, lists, stay on the host). A host batch goes to
    `device` when one is given: with non_blocking, straight from the
    engine's buffers, so the caller must wait for the copies (an event)
    before the batch's iterator advances (loader() does). Otherwise the
    source may be invalidated right after."""
    get = _getter(b, device, non_blocking)
    if getattr(b, "is_typed", False):
        return _hetero_torch(b, get)
    # the library's list of arrays; the per-hop counts become lists below
    t = {k: get(b, k) for k in gnndb.Batch._FIELDS}
    _order_after_clones(b)
    nsn = [int(v) for v in b.num_sampled_nodes]
    nse = [int(v) for v in b.num_sampled_edges]
    if getattr(b, "is_link", False):
        neg = t["dst_neg_index"]
        if neg is not None and neg.dim() == 2 and neg.size(1) == 1:
            neg = neg.view(-1)          # PyG's shape for NEGATIVE 1 TRIPLET
        return LinkBatch(
            n_id=t["n_id"], e_id=t["e_id"], edge_index=t["edge_index"],
            x=t["x"], edge_attr=t["edge_attr"], num_sampled_nodes=nsn,
            num_sampled_edges=nse, edge_label_index=t["edge_label_index"],
            edge_label=t["edge_label"], src_index=t["src_index"],
            dst_pos_index=t["dst_pos_index"], dst_neg_index=neg,
            node_seed=t["node_seed"], time=t["time"],
            edge_time=t["edge_time"],
            epoch=int(b.epoch), batch=int(b.batch), digest=int(b.digest))
    bs = int(b.batch_size)
    return NeighborBatch(
        n_id=t["n_id"], edge_index=t["edge_index"], x=t["x"], y=t["y"],
        batch_size=bs, num_sampled_nodes=nsn, num_sampled_edges=nse,
        input_id=t["n_id"][:bs], e_id=t["e_id"], edge_attr=t["edge_attr"],
        node_seed=t["node_seed"], time=t["time"], edge_time=t["edge_time"],
        epoch=int(b.epoch), batch=int(b.batch), digest=int(b.digest))


def pyg_available():
    """True when torch_geometric is installed (found, not imported)."""
    return importlib.util.find_spec("torch_geometric") is not None


def _pyg_data_class(name="Data"):
    """torch_geometric.data.Data (or HeteroData), imported on first use."""
    try:
        import torch_geometric.data as pyg_data
    except ImportError as exc:
        raise gnndb.Error(
            gnndb.MISUSE, "PyG Data batches need torch_geometric, which "
            "cannot be imported (%s); install it (see docs/python.md) or "
            "pass pyg=False for plain tensors" % exc) from exc
    return getattr(pyg_data, name)


def _to_hetero_data(b):
    """A torch_geometric.data.HeteroData from a HeteroBatch (see to_pyg)."""
    data = _pyg_data_class("HeteroData")()
    for name, nb in b.node_stores.items():
        store = data[name]
        store.n_id = nb.n_id
        if nb.x is not None:
            store.x = nb.x
        else:                   # PyG counts nodes by x; without it, say so
            store.num_nodes = int(nb.n_id.numel())
        if nb.y is not None:
            store.y = nb.y
        if nb.batch_size is not None:
            store.batch_size = int(nb.batch_size)
        store.num_sampled_nodes = list(nb.num_sampled_nodes)
    for key, eb in b.edge_stores.items():
        store = data[key]
        store.edge_index = eb.edge_index
        store.num_sampled_edges = list(eb.num_sampled_edges)
        # only where present: a None attribute would still be a key, and a
        # model reading edge_attr_dict would see edge types without one
        for k in ("e_id", "edge_attr"):
            if eb[k] is not None:
                store[k] = eb[k]
    data.epoch = b.epoch
    data.batch_no = b.batch
    data.digest = b.digest
    return data


# The tensors to_pyg hands a Data under their own names, of a node batch
# and of a link batch, and the time-respecting three under PyG's (the
# names of their INTO files). python/tests/test_binding.py
# holds these and the keys above to the library's list of arrays.
_PYG_NODE_TENSORS = ("x", "edge_index", "y", "n_id", "e_id", "edge_attr")
_PYG_LINK_TENSORS = ("x", "edge_index", "n_id", "e_id", "edge_attr",
                     "edge_label_index", "edge_label", "src_index",
                     "dst_pos_index", "dst_neg_index")
_PYG_TIME = {"node_seed": "batch", "time": "time", "edge_time": "edge_time"}


def to_pyg(b):
    """A torch_geometric.data.Data from a NeighborBatch or LinkBatch (or a
    gnndb Batch or BatchCopy, converted with to_torch first), with the
    attributes PyG's NeighborLoader gives a homogeneous batch:

      x, edge_index, y, n_id, batch_size, num_sampled_nodes,
      num_sampled_edges (and e_id, edge_attr with EDGE FEATURES)

    or, for a link batch, those of its LinkNeighborLoader:

      x, edge_index, n_id, e_id, edge_attr, num_sampled_nodes,
      num_sampled_edges, and edge_label_index, edge_label or (TRIPLET)
      src_index, dst_pos_index, dst_neg_index (and with AT EDGE TIME
      batch, time and edge_time, as for a time-respecting node batch)

    and gnndb's epoch, batch_no (the batch's number in its epoch; `batch`
    means something else to PyG) and digest. y holds the seeds' labels only,
    as in a NeighborBatch (`y[:batch_size]` reads the same in both). There
    is no input_id: PyG's is the seeds' position in input_nodes, which a
    SEEDS split does not have; the seeds' ids are n_id[:batch_size].

    A typed batch (or HeteroBatch) becomes a HeteroData with what PyG's
    hetero NeighborLoader puts there: per node type n_id (ids local to the
    type), x (where the type has features; num_nodes otherwise) and
    num_sampled_nodes, and on the seeds' type y (the seeds' labels) and
    batch_size; per edge type (src, rel, dst) edge_index and
    num_sampled_edges, and with EDGE FEATURES e_id and (where the relation
    has the table) edge_attr; and epoch, batch_no, digest."""
    if not isinstance(b, (_Fields, HeteroBatch)):
        b = to_torch(b)
    if isinstance(b, HeteroBatch):
        return _to_hetero_data(b)
    Data = _pyg_data_class()
    tensors = (_PYG_LINK_TENSORS if isinstance(b, LinkBatch)
               else _PYG_NODE_TENSORS)
    # Only the fields present: a None given to Data would still be a key.
    data = Data(**{k: b[k] for k in tensors if b[k] is not None})
    if b.x is None:             # PyG counts nodes by x; without it, say so
        data.num_nodes = int(b.n_id.numel())
    if isinstance(b, NeighborBatch):
        data.batch_size = int(b.batch_size)
    if b.edge_time is not None:         # PyG's temporal fields
        for k, pyg_name in _PYG_TIME.items():
            setattr(data, pyg_name, b[k])
    data.num_sampled_nodes = list(b.num_sampled_nodes)
    data.num_sampled_edges = list(b.num_sampled_edges)
    data.epoch = b.epoch
    data.batch_no = b.batch
    data.digest = b.digest
    return data


def _converter(pyg, device=None, non_blocking=False):
    """The function that turns a gnndb Batch into the requested form."""
    if pyg is None:
        pyg = pyg_available()
    to = lambda b: to_torch(b, device, non_blocking)   # noqa: E731
    if not pyg:
        return to
    _pyg_data_class()           # fail before the first batch, not during it
    return lambda b: to_pyg(to(b))


# Copies of a batch the loader's consumer holds at once: the batch being
# built from the engine's arrays, and the one before it, still referenced by
# the training loop until the next one replaces it.
_BATCH_COPIES = 2


def _pragma_sql(pragmas):
    """PRAGMA statements for a dict {name: value} (the loader's pragmas),
    with batch_copies counted unless given."""
    p = {"batch_copies": _BATCH_COPIES}
    p.update(pragmas or {})
    return "".join("PRAGMA %s = '%s';" % (k, v) for k, v in p.items())


def _on_cuda(device):
    return device is not None and torch.device(device).type == "cuda"


def loader(path, sql, readonly=True, shard=None, pyg=None, device=None,
           pin_memory=False, pragmas=None, status=None):
    """Yield the batches of the SAMPLE statement `sql` run on the database
    at `path` (opened read-only by default): torch_geometric Data objects
    or NeighborBatch objects as `pyg` says (see the module documentation).
    The connection is closed when the generator finishes or is closed.
    It fixes glibc's mmap threshold for the process (gnndb._alloc says
    why; GNNDB_KEEP_MALLOC=1 leaves it).

    A statement with TO DEVICE 'cuda:N' yields tensors on that device.
    Otherwise `device` (e.g. 'cuda') moves each host batch there; with
    pin_memory=True the engine gathers host batches into page-locked
    memory (PRAGMA pin_memory) and the loader copies them with
    non_blocking=True straight from there, waiting for those copies before
    the engine's next step.

    pragmas={"memory_limit": "2GB", "threads": 8, ...} sets pragmas first.
    memory_limit then bounds what the loader adds to the process's resident
    memory, the tensors it copies the batches into included (it counts two
    batches' copies: PRAGMA batch_copies); the interpreter, torch and the
    model stay outside it.

    shard=(k, n) keeps only the batches whose position in the run is k mod n
    (how GnnDataset splits a run among DataLoader workers).

    status, a dict, receives the run's bytes and blocks read so far
    (gnndb.STATUS_BYTES_READ, STATUS_BLOCKS_READ) at each batch."""
    fix_mmap_threshold()
    async_copy = bool(pin_memory) and _on_cuda(device)
    convert = _converter(pyg, device, async_copy)
    with gnndb.connect(path, readonly=readonly, create=False) as conn:
        pragmas = dict(pragmas or {})
        if pin_memory:
            pragmas.setdefault("pin_memory", "on")
        conn.execute(_pragma_sql(pragmas))
        with conn.sample(sql) as it:
            for i, b in enumerate(it):
                if i == 0 and shard is not None and \
                        it.status(gnndb.STATUS_SEED_DRAWN) == 1:
                    raise gnndb.Error(
                        gnndb.MISUSE, "several DataLoader workers need a "
                        "SAMPLE with SEED, or each draws its own batches")
                if shard is not None and i % shard[1] != shard[0]:
                    continue
                if status is not None:
                    status["bytes_read"] = it.status(gnndb.STATUS_BYTES_READ)
                    status["blocks_read"] = it.status(
                        gnndb.STATUS_BLOCKS_READ)
                out = convert(b)
                done = None
                if async_copy and b.device == "cpu":
                    done = torch.cuda.Event()
                    done.record()
                try:
                    yield out
                finally:
                    # the engine's next step (or its close) reuses the
                    # buffers these copies read
                    if done is not None:
                        done.synchronize()


class GnnDataset(torch.utils.data.IterableDataset):
    """An IterableDataset over the mini-batches of one SAMPLE statement.

    Each iteration opens its own read-only connection and runs `sql` from
    the start; with a fixed SEED every iteration yields the same batches, so
    give a different SEED per epoch (or use EPOCHS n, or set_sql()) to
    reshuffle. Use it with DataLoader(ds, batch_size=None): the batches are
    already batched. With num_workers > 1 each worker runs the statement
    and keeps every num_workers-th batch, so the union is the whole run in a
    worker-interleaved order (sampling is a pure function of the SEED, so
    the workers agree on the batches). `pyg` chooses the batches' form,
    `device` and `pin_memory` where they go, and `pragmas` the pragmas set
    first, as in loader() (memory_limit is then each worker's); a DataLoader
    with workers yields from other processes, so keep device=None there and
    move batches in the training loop (or use TO DEVICE without workers)."""

    def __init__(self, path, sql, readonly=True, transform=None, pyg=None,
                 device=None, pin_memory=False, pragmas=None):
        super().__init__()
        self.path = str(path)
        self.sql = sql
        self.readonly = readonly
        self.transform = transform
        self.pyg = pyg
        self.device = device
        self.pin_memory = pin_memory
        self.pragmas = dict(pragmas or {})

    def set_sql(self, sql):
        """Replace the statement (e.g. with a new SEED for the next epoch)."""
        self.sql = sql

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        shard = None
        if info is not None and info.num_workers > 1:
            shard = (info.id, info.num_workers)
        for b in loader(self.path, self.sql, readonly=self.readonly,
                        shard=shard, pyg=self.pyg, device=self.device,
                        pin_memory=self.pin_memory, pragmas=self.pragmas):
            yield self.transform(b) if self.transform is not None else b
