"""PyG's own NeighborSampler needs a compiled sampling kernel, pyg-lib's
`torch.ops.pyg.neighbor_sample` (or torch-sparse's), and neither is built
for Debian's torch 1.13. This module stands in for that one kernel, written
from pyg-lib's contract for the case the tests use (CSC, directed, not
disjoint, no time, no weights), so that the rest of PyG's sampler runs as
it is: its CSC conversion of the Data (to_csc), its node_sample, its
SamplerOutput and NodeLoader's filtering. Where pyg-lib or torch-sparse is
importable, `pyg_sampler()` uses the real kernel instead.

The contract: seeds keep their order and become nodes 0..s-1; hop h visits
the nodes first reached at hop h-1 in order, and for each takes all its
in-neighbours (fanout -1, or fewer neighbours than the fanout) or a
uniform choice of `fanout` of them without replacement; a neighbour not yet
reached gets the next local index; each sampled edge is (row = the
neighbour's local index, col = the node's) with its position in the CSC
arrays as its id; per-hop counts of new nodes and of edges."""
import contextlib

import numpy as np
import torch

import torch_geometric.typing as pyg_typing


def neighbor_sample(colptr, row, seed, num_neighbors, node_time=None,
                    seed_time=None, csc=True, replace=False, directed=True,
                    disjoint=False, temporal_strategy="uniform",
                    return_edge_id=True, generator=None):
    assert csc and directed and not disjoint and node_time is None
    # drawn from torch's generator, so that torch.manual_seed repeats a run
    rng = generator or np.random.default_rng(
        int(torch.randint(0, 2 ** 62, (1,))))
    colptr, row = colptr.numpy(), row.numpy()
    node = seed.tolist()
    local = {v: i for i, v in enumerate(node)}
    rows, cols, edges = [], [], []
    nsn, nse = [len(node)], []
    begin, end = 0, len(node)
    for k in num_neighbors:
        ne = len(rows)
        for i in range(begin, end):
            lo, hi = colptr[node[i]], colptr[node[i] + 1]
            deg = hi - lo
            if k < 0 or (deg <= k and not replace):
                picks = range(lo, hi)
            elif replace:
                picks = lo + rng.integers(0, deg, k) if deg else []
            else:
                picks = lo + rng.choice(deg, k, replace=False)
            for e in picks:
                u = int(row[e])
                if u not in local:
                    local[u] = len(node)
                    node.append(u)
                rows.append(local[u])
                cols.append(i)
                edges.append(int(e))
        nsn.append(len(node) - end)
        nse.append(len(rows) - ne)
        begin, end = end, len(node)
    t = lambda a: torch.tensor(a, dtype=torch.long)
    return t(rows), t(cols), t(node), t(edges), nsn, nse


class _Ops:
    neighbor_sample = staticmethod(neighbor_sample)


@contextlib.contextmanager
def pyg_sampler():
    """Within the block, PyG's NeighborSampler samples through the real
    kernel where one is installed, else through neighbor_sample above.
    Yields whether the stand-in is in use."""
    if pyg_typing.WITH_PYG_LIB or pyg_typing.WITH_TORCH_SPARSE:
        yield False
        return
    saved = pyg_typing.WITH_PYG_LIB
    ns = torch.ops.pyg
    had = "neighbor_sample" in ns.__dict__
    old = ns.__dict__.get("neighbor_sample")
    pyg_typing.WITH_PYG_LIB = True
    ns.neighbor_sample = neighbor_sample
    try:
        yield True
    finally:
        pyg_typing.WITH_PYG_LIB = saved
        if had:
            ns.neighbor_sample = old
        else:
            del ns.neighbor_sample
