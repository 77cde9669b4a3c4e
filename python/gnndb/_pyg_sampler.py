"""gnndb.pyg.NeighborSampler: PyG's BaseSampler, sampled by the engine.

PyG's loaders ask for one mini-batch at a time: NodeLoader's collate_fn
calls sample_from_nodes with the seeds of the batch the DataLoader drew.
The engine is fastest on a round of many batches (the hyperbatch reads
every block once for all of them), so the sampler plans ahead:

- in the loader's process (num_workers=0), it reads ahead in the
  DataLoader's own index order: the single-process iterator's index
  iterator is wrapped, once per epoch, in a read-ahead buffer that hands
  the same index lists on in the same order, and the seeds of the next
  `round_batches` batches (the loader's input_nodes at those indices) make
  one SAMPLE ... SEEDS (ids) IN ORDER ... BATCH b statement. Each later
  call finds its batch as the next batch of that statement;
- a DataLoader worker sees one batch at a time (the main process hands it
  index lists one by one), so there each batch is a round of its own;
- seeds that do not match the batch planned next (a sampler called by
  hand, a custom batch sampler) end the round and start another.

Each round is a new statement with its own SEED, drawn from the sampler's
seed and the round's number, so no two rounds draw alike. The feature rows
each batch gathered are handed to the FeatureStore for the batch in
flight, so that the loader's filter step (multi_get_tensor with the
batch's node ids) reads nothing again."""
import os
import sys

import numpy as np
import torch

import gnndb
from torch_geometric.sampler import (BaseSampler, HeteroSamplerOutput,
                                     SamplerOutput)
from torch_geometric.sampler.base import NumNeighbors, SubgraphType
from torch_geometric.sampler.neighbor_sampler import edge_sample, node_sample

from . import pyg as _pyg
from ._alloc import fix_mmap_threshold

# Rounds: a 64-bit odd multiplier spreads the round numbers over seeds.
_MIX = 0x9E3779B97F4A7C15

# Copies of a batch alive at once outside the engine: the one being built
# into PyG's tensors (and held by the FeatureStore until the next), and the
# Data before it, still referenced by the training loop.
_BATCH_COPIES = 2


class _ReadAhead:
    """An index iterator whose next items can be looked at before they are
    taken: the DataLoader gets the same index lists in the same order."""

    def __init__(self, it):
        self.it, self.buf = it, []

    def __iter__(self):
        return self

    def __next__(self):
        if self.buf:
            return self.buf.pop(0)
        return next(self.it)

    def peek(self, n):
        while len(self.buf) < n:
            try:
                self.buf.append(next(self.it))
            except StopIteration:
                break
        return self.buf[:n]


def _loader_frames():
    """(the NodeLoader or LinkLoader calling, its single-process DataLoader
    iterator), found up the stack; (None, None) where there is none (a
    DataLoader worker, a direct call)."""
    from torch.utils.data.dataloader import _SingleProcessDataLoaderIter
    from torch_geometric.loader import NodeLoader
    loader = it = None
    f = sys._getframe(2)
    for _ in range(40):
        if f is None:
            break
        me = f.f_locals.get("self")
        if loader is None and isinstance(me, NodeLoader):
            loader = me
        if isinstance(me, _SingleProcessDataLoaderIter):
            it = me
            break
        f = f.f_back
    return (loader, it) if it is not None else (None, None)


def _future_seeds(n):
    """The seeds of the next n - 1 batches the calling NodeLoader will ask
    for, in order (fewer at the epoch's end); [] when it cannot be known."""
    if n <= 1:
        return []
    loader, it = _loader_frames()
    if loader is None:
        return []
    if not isinstance(it._sampler_iter, _ReadAhead):
        it._sampler_iter = _ReadAhead(it._sampler_iter)
    out = []
    for index in it._sampler_iter.peek(n - 1):
        inp = loader.input_data[index]
        if inp.time is not None:
            return []
        out.append((inp.input_type, inp.node))
    return out


class _Round:
    """One statement: the batches planned, the iterator, the next one."""

    def __init__(self, it, batches):
        self.it, self.batches, self.next = it, batches, 0

    def matches(self, seeds):
        if self.next >= len(self.batches):
            return False
        want = self.batches[self.next]
        return want.shape == seeds.shape and torch.equal(want, seeds)

    def close(self, forked=False):
        if forked:      # the parent's statement: never finalized here
            self.it._stmt = gnndb.ffi.NULL
        else:
            self.it.close()


class NeighborSampler(BaseSampler):
    """torch_geometric.sampler.BaseSampler whose sampling is gnndb's
    (uniform neighbour sampling, the same conventions as PyG's
    NeighborSampler: seeds first in the order given, then each hop's new
    nodes; edges (row = neighbour, col = the node sampled from) grouped by
    hop; per-hop node and edge counts).

    data: (FeatureStore, GraphStore) of gnndb.pyg (the rows the engine
    gathers go to that FeatureStore for the batch in flight), or a
    database path / gnndb.Connection with `graph=`. num_neighbors: a list
    per hop (-1: every neighbour), or for a typed graph a dict
    {edge_type: list} (0: the relation is not sampled at that hop).
    replace: WITH REPLACEMENT. round_batches: batches planned as one
    statement (the hyperbatch; 1 turns planning off). seed: the base of
    every round's SEED (default: drawn from torch's generator, so that
    torch.manual_seed repeats a run). pragmas: PRAGMAs run on the
    sampler's connection (e.g. {"memory_limit": "512MB"}). PyG's options
    that gnndb does not sample by (disjoint, subgraph types other than
    directional, time_attr, weight_attr) are refused in words, not
    ignored."""

    def __init__(self, data, num_neighbors, graph=None, replace=False,
                 round_batches=64, seed=None, pragmas=None,
                 subgraph_type="directional", disjoint=False,
                 edge_features=None, time_attr=None, weight_attr=None):
        if time_attr is not None:
            raise ValueError("gnndb.pyg.NeighborSampler has no temporal "
                             "sampling (time_attr=%r)" % (time_attr,))
        if weight_attr is not None:
            raise ValueError("gnndb.pyg.NeighborSampler samples uniformly; "
                             "it has no weighted sampling (weight_attr=%r)"
                             % (weight_attr,))
        if SubgraphType(subgraph_type) != SubgraphType.directional:
            raise ValueError("gnndb.pyg.NeighborSampler samples directional "
                             "subgraphs only, not %r" % subgraph_type)
        if disjoint:
            raise ValueError("gnndb.pyg.NeighborSampler has no disjoint "
                             "sampling")
        if isinstance(data, tuple):
            fs, gs = data
            self.fs, self.graph = fs, graph or fs.graph
            db = fs._db
        else:
            self.fs, self.graph, db = None, graph, data
        if self.graph is None:
            raise ValueError("gnndb.pyg.NeighborSampler: name the graph")
        self._db = _pyg._Db(db, True)
        fix_mmap_threshold()    # the bound's promise: gnndb._alloc says why
        self.schema = _pyg._Schema(self._db.conn(), self.graph)
        self.replace = bool(replace)
        self.round_batches = max(1, int(round_batches))
        self.pragmas = dict(pragmas or {})
        self.edge_features = edge_features
        self.seed = (int(seed) if seed is not None else
                     int(torch.randint(0, 2 ** 62, (1,)).item()))
        self.num_neighbors = num_neighbors
        self._round, self._rounds, self._read = None, 0, 0
        self._pid = os.getpid()
        # in this process: statements run, batches handed out, bytes read
        self.stats = {"rounds": 0, "batches": 0, "bytes_read": 0}

    # -- the statement --------------------------------------------------------

    @property
    def num_neighbors(self):
        return self._num_neighbors

    @num_neighbors.setter
    def num_neighbors(self, v):
        self._num_neighbors = v if isinstance(v, NumNeighbors) \
            else NumNeighbors(v)
        self._fanout_sql = self._fanouts()

    @property
    def is_hetero(self):
        return self.schema.typed

    @property
    def edge_permutation(self):
        return None

    def _fanouts(self):
        nn = self._num_neighbors
        if not self.schema.typed:
            vals = nn.get_mapped_values() if isinstance(nn.values, dict) \
                else nn.values
            if isinstance(vals, dict):
                vals = next(iter(vals.values()))
            if any(f == 0 or f < -1 for f in vals):
                raise ValueError("gnndb: fanouts are -1 (every neighbour) or "
                                 "1..1000, not %r" % (vals,))
            return ",".join(str(int(f)) for f in vals)
        ets = list(self.schema.rels)
        vals = nn.get_values(ets)
        hops = max(len(v) for v in vals.values())
        maps = []
        for h in range(hops):
            parts = ["%s: %d" % (et[1], v[h]) for et, v in vals.items()
                     if h < len(v) and v[h] != 0]
            maps.append("{%s}" % ", ".join(parts))
        return "[%s]" % ", ".join(maps)

    def _sql(self, seed_type, ids, batch, rnd):
        x = "FEATURES %s " % self.fs.x_table if self.fs is not None else ""
        seeds = ",".join(map(str, ids.tolist()))
        seeds = ("%s (%s)" % (seed_type, seeds) if seed_type
                 else "(%s)" % seeds)
        ef = ("EDGE FEATURES %s " % self.edge_features
              if self.edge_features else "")
        seed = (self.seed + rnd * _MIX) % (2 ** 63)
        return ("SAMPLE %s FROM %s SEEDS %s IN ORDER %s%sBATCH %d "
                "HYPERBATCH %d SEED %d%s;"
                % (self._fanout_sql, self.graph, seeds, x, ef, batch,
                   self.round_batches, seed,
                   " WITH REPLACEMENT" if self.replace else ""))

    def _pragmas(self):
        """The sampler's pragmas, with the batch copies this process holds
        at once counted inside memory_limit unless given: the batch being
        converted and handed to the FeatureStore, and the one before it
        that the training loop still holds (as gnndb.torch.loader)."""
        p = {"batch_copies": _BATCH_COPIES}
        p.update(self.pragmas)
        return p

    def _start(self, seed_type, seeds, future):
        """A new round: this batch and the planned ones of its size."""
        if self._round is not None:
            self._end_round()
        batches = [seeds]
        for t, s in future:
            if t != seed_type or s.numel() != seeds.numel():
                break
            batches.append(s)
        ids = torch.cat(batches).numpy()
        if len(np.unique(ids)) != len(ids):    # a repeat: this batch alone
            batches = [seeds]
            ids = seeds.numpy()
        if len(np.unique(ids)) != len(ids):
            raise ValueError("gnndb: a batch lists a seed twice")
        conn = self._db.conn()
        for k, v in self._pragmas().items():
            conn.execute("PRAGMA %s = '%s';" % (k, v))
        wid = torch.utils.data.get_worker_info()
        rnd = self._rounds * 64 + (wid.id + 1 if wid else 0)
        self._rounds += 1
        it = conn.sample(self._sql(seed_type, ids, seeds.numel(), rnd))
        self._round = _Round(it, batches)
        self.stats["rounds"] += 1

    def _end_round(self):
        """Finalize the round's statement, its reads counted: its pools and
        staged batches are freed now, not when the next round starts (after
        an epoch's last round, that may be never, or during another
        loader's run)."""
        r, self._round = self._round, None
        self._read += max(0, r.it.status(gnndb.STATUS_BYTES_READ))
        self.stats["bytes_read"] = self._read
        r.close()

    def _next_batch(self, seed_type, seeds):
        if self._pid != os.getpid():          # a forked worker
            if self._round is not None:
                self._round.close(forked=True)
            self._round, self._pid = None, os.getpid()
        seeds = seeds.to(torch.long).cpu()
        if self._round is None or not self._round.matches(seeds):
            self._start(seed_type, seeds,
                        _future_seeds(self.round_batches))
        r = self._round
        b = next(r.it)
        r.next += 1
        self.stats["batches"] += 1
        self.stats["bytes_read"] = self._read + max(
            0, r.it.status(gnndb.STATUS_BYTES_READ))
        return b

    # -- batches into PyG's outputs ---------------------------------------------

    def _plain(self, b):
        node = torch.from_numpy(np.array(b.n_id))
        ei = torch.from_numpy(np.array(b.edge_index))
        edge = None if b.e_id is None else torch.from_numpy(np.array(b.e_id))
        if self.fs is not None:
            rows = {}
            if b.x is not None:
                rows[(None, "x")] = torch.from_numpy(np.array(b.x))
            if b.edge_attr is not None:
                rows[(_pyg.PLAIN_EDGE, "edge_attr")] = \
                    torch.from_numpy(np.array(b.edge_attr))
            self.fs._hand([(node, rows)])
        return SamplerOutput(
            node=node, row=ei[0], col=ei[1], edge=edge, batch=None,
            num_sampled_nodes=np.asarray(b.num_sampled_nodes).tolist(),
            num_sampled_edges=np.asarray(b.num_sampled_edges).tolist())

    def _typed(self, b):
        node, row, col, edge, nsn, nse = {}, {}, {}, {}, {}, {}
        handed = []
        for t, part in b.types.items():
            node[t] = torch.from_numpy(np.array(part.n_id))
            nsn[t] = np.asarray(part.num_sampled_nodes).tolist()
            if self.fs is not None and part.x is not None:
                handed.append((node[t], {(t, "x"):
                                         torch.from_numpy(np.array(part.x))}))
        if self.fs is not None:
            self.fs._hand(handed)
        for name, rel in b.rels.items():
            et = rel.edge_type
            ei = torch.from_numpy(np.array(rel.edge_index))
            row[et], col[et] = ei[0], ei[1]
            edge[et] = (None if rel.e_id is None
                        else torch.from_numpy(np.array(rel.e_id)))
            nse[et] = np.asarray(rel.num_sampled_edges).tolist()
        return HeteroSamplerOutput(node=node, row=row, col=col, edge=edge,
                                   batch=None, num_sampled_nodes=nsn,
                                   num_sampled_edges=nse)

    def _sample(self, seed, seed_time=None, **kwargs):
        if seed_time is not None:
            raise ValueError("gnndb.pyg.NeighborSampler has no temporal "
                             "sampling (seed_time)")
        if isinstance(seed, dict):
            if len(seed) != 1:
                raise ValueError("gnndb: a typed SAMPLE starts from seeds of "
                                 "one node type, not %s" % list(seed))
            (t, s), = seed.items()
            out = self._typed(self._next_batch(t, s))
        else:
            out = self._plain(self._next_batch(None, seed))
        # the batch is copied out: a round whose batches are all handed out
        # has nothing left to step to
        if self._round.next == len(self._round.batches):
            self._end_round()
        return out

    # -- BaseSampler ----------------------------------------------------------

    def sample_from_nodes(self, inputs, **kwargs):
        return node_sample(inputs, self._sample)

    def sample_from_edges(self, inputs, neg_sampling=None):
        """PyG's own edge_sample (its negatives, its edge_label_index and
        labels), with the engine sampling the k-hop neighbourhood of the
        batch's distinct endpoints."""
        num = ({t: i["count"] for t, i in self.schema.types.items()}
               if self.schema.typed else self.schema.types[None]["count"])
        return edge_sample(inputs, self._sample, num, False, None,
                           neg_sampling)

    def __getstate__(self):
        st = dict(self.__dict__)
        st["_round"] = None
        return st

    def __repr__(self):
        return "gnndb.pyg.NeighborSampler(%r, %s)" % (self.graph,
                                                       self._fanout_sql)
