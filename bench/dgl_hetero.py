"""dgl_hetero.py — the DGL peer of the benchmark's typed row: what a DGL user
with a heterogeneous graph does when the features do not fit in RAM.  The
graph is a DGL heterograph held in memory; each node type's features are a
float32 .npy opened with np.load(mmap_mode='r'); mini-batches come from
dgl.dataloading.NeighborSampler with a fanout per edge type, through
dgl.dataloading.DataLoader over the seed type's nodes, and each batch's
input rows are gathered per node type out of the mappings into contiguous
tensors, as a training loop would.  bench/dgl_baseline.py is the
homogeneous peer; this one mirrors its structure and options.

    bench/venv/bin/python bench/dgl_hetero.py --dir DIR
        [--types paper,author,field] [--fanouts REL=K,...] [--hops 3]
        [--seed-type paper] [--batch 1024] [--batches N] [--seconds S]
        [--seed S] [--threads T] [--drop-cache] [--advice normal|random]
        [--sampler classic|graphbolt] [--join-cgroup DIR]
        [--gather sorted|direct] [--workers W] [--affinity]

bench/venv comes from `make bench-peers` (mk/bench.mk).  Without DGL the
program prints `SKIP: dgl unavailable: <reason>` and exits with code 3.

DIR is what bench/typed_data.py writes: for each relation "<src>_<dst>" a
file <src>_<dst>.bin of little-endian int64 (src, dst) pairs of type-local
ids, and for each node type a <type>.npy of float32 rows, one a node; a
type's node count is its row count.  --types lists the node types in the
order of their global id ranges (graphbolt numbers nodes globally).
--fanouts maps each relation to the number of in-neighbours a node of its
destination type samples through it, the same at each of --hops hops (the
default is the benchmark's: 5 from papers, 3 from authors, 2 from fields
into every type, gnndb's `SAMPLE {paper_paper: 5, author_paper: 3, ...} * 3`).
A relation the map names is read from DIR; a file the map does not name is
not part of the graph.

The graph is built the memory-lean way, as dgl_baseline.py's --load csc:
each relation's pairs are streamed twice (in 1 M-pair chunks) into a CSC
(indptr, indices) of int32 ids without an edge-id array, a node's
in-neighbours kept in file order:
  classic    dgl.heterograph({(src, rel, dst): ('csc', (indptr, indices, []))},
             num_nodes_dict), reduced to the CSC format in-edge sampling uses:
             4 (N_dst + 1) per relation + 4 E bytes, 0.64 GB for the
             benchmark's 134 M edges.
  graphbolt  dgl.graphbolt.fused_csc_sampling_graph over global ids (the
             types' ranges in --types order): the relations' CSCs merged per
             destination node, each node's in-edges grouped by relation in
             edge-type-id order (graphbolt's per-type sampling assumes it),
             with node_type_offset, type_per_edge (uint8), node_type_to_id
             and edge_type_to_id ("src:rel:dst"): 8 (N + 1) + 5 E bytes,
             0.74 GB.
(What the tutorials do, dgl.heterograph({etype: (src, dst)}), holds the COO
arrays and the CSC with edge ids at once, over 2 GB at this size; it is not
offered.)  Loading is timed apart (load_s); the RESULT line's seconds time
only the mini-batch loop (sampling and gathering).

The seeds are a shuffle of the --seed-type's nodes by torch.randperm under a
generator seeded with --seed, cut into batches of --batch; only the first
--batches batches are handed to the loader.  Sampling is seeded with
dgl.seed.  --seconds S stops the loop after the batch in flight once S
seconds have passed (0: no limit), so a run is --batches batches or S
seconds of them, whichever is fewer; the RESULT line counts the batches that
ran.  DGL's fanout list is given per layer from the input layer, so the
per-hop maps are handed over reversed (all hops alike here).
  classic    dgl.dataloading.NeighborSampler([{(src, rel, dst): k, ...}] * hops)
             and dgl.dataloading.DataLoader(g, {seed_type: seeds}, ...);
             input rows gathered per type (see --gather).
  graphbolt  gb.ItemSampler over gb.ItemSetDict({seed_type: seeds}),
             sample_neighbor(graph, [fanout tensor in edge-type-id order] *
             hops), then fetch_feature(gb.BasicFeatureStore) with one
             gb.TorchBasedFeature per (node type, "feat") over the type's
             mapping, and gb.DataLoader; the batch's features are
             mb.node_features.

How the numbers differ from gnndb's: DGL builds one message-flow graph
(block) per layer, and the seeds of each layer are all the source nodes of
the layer above, of every type, the nodes already sampled included; gnndb
(as PyG) samples each node once, at the hop it is first reached.  DGL
therefore samples more edges a batch for the same fanouts.  sampled_edges is
the total of block.num_edges() (all edge types) over all blocks of all
batches, bytes_x the bytes of all rows gathered (every input node of every
type, one row each).

How memory is bounded in the benchmark: as for dgl_baseline.py, the harness
runs this program inside a cgroup v1 memory group (limit_in_bytes; in cgroup
v1 the limit covers the group's anonymous memory and the page cache its
processes fault in).  With --join-cgroup DIR the program moves itself into
the group once the graph is built, so the limit bounds the feature pages of
the mappings and the batches in flight, as on a machine whose RAM holds the
graph and the interpreter but not the features; without it the harness
starts the whole process inside the group (the strict set-up: interpreter,
torch, DGL, the graph and the loading's temporaries count too).  Feature
pages are clean, so the kernel reclaims them at the limit instead of
failing: the features get what is left of the limit as their cache.  The
relation files are dropped from the page cache after loading; --drop-cache
(fdatasync, then POSIX_FADV_DONTNEED on each type's feature file) makes the
run start with none of the feature pages resident.  With --join-cgroup the
RESULT line's peak_bytes is the group's memory.max_usage_in_bytes at the end
(else 0: the harness reads the group's itself).

--advice: np.load(mmap_mode='r') leaves each mapping MADV_NORMAL;
--advice random puts MADV_RANDOM on it (the default, as in dgl_baseline.py;
the benchmark's sweep measures --advice normal, the out-of-the-box one, as
the default set-up: with ids sorted, readahead serves neighbouring rows).

--gather sorted (the default): a type's input rows are read from its map in
ascending id order and put back in input order (for graphbolt, a
TorchBasedFeature whose read sorts the ids first); --gather direct is the
one-line `feat[ids]` of the classic loop, and graphbolt's own
TorchBasedFeature.read, rows in input order.

--threads T: T > 1 runs the loader with T worker processes (classic: the
DataLoader's num_workers; graphbolt: gb.DataLoader's num_workers, which runs
everything before fetch_feature, the sampling, in the workers) with the
gather in the main process, and sets OMP_NUM_THREADS and torch's thread
count to T; the default is 1 thread and num_workers=0.  --workers W sets
the number of worker processes apart from T (on this 2-core machine, 1
worker for the sampling and the main process for the gather).
--affinity (classic only, W >= 1): the loop runs inside the DataLoader's
enable_cpu_affinity(), DGL's CPU best practice (docs.dgl.ai, "CPU best
practices"; DGL warns when it is off): workers pinned to the first W
cores, the main process's threads to the rest.

The last line of stdout is
    RESULT batches=N seconds=S batches_per_s=R sampled_edges=E
           edges_per_s=R bytes_x=B input_nodes=I load_s=L peak_bytes=P
"""
import argparse
import contextlib
import os
import sys
import time

from dgl_common import (SKIP_CODE, drop_file_cache, import_peer, join_cgroup,
                        pair_chunks, place, rss_anon)

CHUNK_PAIRS = 1 << 20  # 16 MiB of int64 pairs a read
DEFAULT_FANOUTS = ",".join("%s_%s=%d" % (s, d, k) for d in ("paper", "author", "field")
                           for s, k in (("paper", 5), ("author", 3), ("field", 2)))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dir", required=True)
    p.add_argument("--types", default="paper,author,field")
    p.add_argument("--fanouts", default=DEFAULT_FANOUTS)
    p.add_argument("--hops", type=int, default=3)
    p.add_argument("--seed-type", default="paper")
    p.add_argument("--batch", type=int, default=1024)
    p.add_argument("--batches", type=int, default=100)
    p.add_argument("--seconds", type=float, default=0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--drop-cache", action="store_true")
    p.add_argument("--advice", choices=("normal", "random"), default="random")
    p.add_argument("--sampler", choices=("classic", "graphbolt"), default="classic")
    p.add_argument("--join-cgroup", default="")
    p.add_argument("--gather", choices=("sorted", "direct"), default="sorted")
    p.add_argument("--workers", type=int, default=-1)
    p.add_argument("--affinity", action="store_true")
    a = p.parse_args()
    if a.workers < 0:
        a.workers = a.threads if a.threads > 1 else 0
    if a.affinity and (a.sampler != "classic" or a.workers < 1):
        p.error("--affinity: the classic sampler with --workers 1 or more")
    a.type_list = [t for t in a.types.split(",") if t]
    if len(set(a.type_list)) != len(a.type_list) or not a.type_list:
        p.error("--types: a comma-separated list of distinct node types")
    if a.seed_type not in a.type_list:
        p.error("--seed-type: not one of --types")
    a.rels = []  # (name, src type, dst type, fanout), in edge-type-id order
    for item in a.fanouts.split(","):
        if not item.strip():
            continue
        name, _, k = item.replace(":", "=").partition("=")
        name = name.strip()
        ends = [(s, name[len(s) + 1:]) for s in a.type_list
                if name.startswith(s + "_") and name[len(s) + 1:] in a.type_list]
        try:
            k = int(k)
        except ValueError:
            p.error("--fanouts: %r: REL=K with K an integer" % item)
        if len(ends) != 1 or k == 0 or k < -1:
            p.error("--fanouts: %r: REL is <src>_<dst> of two --types, K positive or -1" % item)
        if name in [r[0] for r in a.rels]:
            p.error("--fanouts: %s twice" % name)
        a.rels.append((name, ends[0][0], ends[0][1], k))
    if not a.rels:
        p.error("--fanouts: no relation")
    if a.batch < 1 or a.batches < 1 or a.threads < 1 or a.hops < 1 or a.seconds < 0:
        p.error("--batch, --batches, --hops and --threads must be positive")
    return a


def row_count(np, path):
    """Rows and columns of a 2-D float32 .npy, from its header."""
    with open(path, "rb") as f:
        version = np.lib.format.read_magic(f)
        shape, _, dtype = np.lib.format._read_array_header(f, version)
    if len(shape) != 2 or dtype != np.float32:
        raise SystemExit("dgl_hetero: %s: expected a 2-D float32 array, got %s %s"
                         % (path, dtype, shape))
    return shape[0]


def check_ids(path, pairs, n_src, n_dst):
    if pairs.size == 0:
        return
    if int(pairs.min()) < 0:
        raise SystemExit("dgl_hetero: %s: negative node id" % path)
    if int(pairs[:, 0].max()) >= n_src or int(pairs[:, 1].max()) >= n_dst:
        raise SystemExit("dgl_hetero: %s: a node id past its type's rows" % path)


def relation_csc(np, path, n_src, n_dst):
    """One relation's CSC (indptr, indices), int32, without edge ids."""
    m = os.path.getsize(path) // 16
    if max(m, n_src, n_dst) >= 2**31 - 1:
        raise SystemExit("dgl_hetero: %s: too large for int32 ids" % path)
    deg = np.zeros(n_dst, dtype=np.int64)
    for pairs in pair_chunks(np, path, CHUNK_PAIRS, "dgl_hetero"):
        check_ids(path, pairs, n_src, n_dst)
        deg += np.bincount(pairs[:, 1], minlength=n_dst)
    indptr = np.zeros(n_dst + 1, dtype=np.int32)
    np.cumsum(deg, out=indptr[1:])
    del deg
    cursor = indptr[:-1].astype(np.int64)
    indices = np.empty(m, dtype=np.int32)
    for pairs in pair_chunks(np, path, CHUNK_PAIRS, "dgl_hetero"):
        place(np, pairs, pairs[:, 1], cursor, indices)
    return indptr, indices


def fused_csc(np, a, counts, offsets):
    """The relations merged into one CSC over global ids: each destination's
    in-edges grouped by relation in --fanouts order (the edge-type ids),
    with the relation of every edge in a uint8 type_per_edge."""
    n = offsets[-1]
    paths = [os.path.join(a.dir, r[0] + ".bin") for r in a.rels]
    m = sum(os.path.getsize(p) // 16 for p in paths)
    if max(m, n) >= 2**31 - 1 or len(a.rels) > 255:
        raise SystemExit("dgl_hetero: too large for int32 ids and uint8 edge types")
    deg = np.zeros(n, dtype=np.int64)
    for (name, s, d, _), path in zip(a.rels, paths):
        for pairs in pair_chunks(np, path, CHUNK_PAIRS, "dgl_hetero"):
            check_ids(path, pairs, counts[s], counts[d])
            lo = offsets[a.type_list.index(d)]
            deg[lo:lo + counts[d]] += np.bincount(pairs[:, 1], minlength=counts[d])
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(deg, out=indptr[1:])
    del deg
    cursor = indptr[:-1].copy()
    indices = np.empty(m, dtype=np.int32)
    types = np.empty(m, dtype=np.uint8)
    for t, ((name, s, d, _), path) in enumerate(zip(a.rels, paths)):
        so, do = offsets[a.type_list.index(s)], offsets[a.type_list.index(d)]
        for pairs in pair_chunks(np, path, CHUNK_PAIRS, "dgl_hetero"):
            place(np, pairs, pairs[:, 1] + do, cursor, indices, so, types, t)
    del cursor
    return indptr, indices, types, m


def main():
    a = parse_args()
    peer = import_peer(a.threads)
    if peer is None:
        return SKIP_CODE
    mmap, np, torch, dgl = peer
    feat_path = {t: os.path.join(a.dir, t + ".npy") for t in a.type_list}
    counts = {t: row_count(np, feat_path[t]) for t in a.type_list}
    offsets = [0]
    for t in a.type_list:
        offsets.append(offsets[-1] + counts[t])
    canon = [(s, name, d) for name, s, d, _ in a.rels]

    # The graph, in memory.
    t0 = time.perf_counter()
    if a.sampler == "graphbolt":
        import dgl.graphbolt as gb
        indptr, indices, types, m = fused_csc(np, a, counts, offsets)
        g = gb.fused_csc_sampling_graph(
            torch.from_numpy(indptr), torch.from_numpy(indices),
            node_type_offset=torch.tensor(offsets, dtype=torch.int64),
            type_per_edge=torch.from_numpy(types),
            node_type_to_id={t: i for i, t in enumerate(a.type_list)},
            edge_type_to_id={"%s:%s:%s" % c: i for i, c in enumerate(canon)})
        del indptr, indices, types
    else:
        data = {}
        m = 0
        eids = torch.empty(0, dtype=torch.int32)  # none: edge i of a CSC is edge i
        for (s, name, d) in canon:
            indptr, indices = relation_csc(np, os.path.join(a.dir, name + ".bin"),
                                           counts[s], counts[d])
            m += indices.size
            data[(s, name, d)] = ("csc", (torch.from_numpy(indptr), torch.from_numpy(indices), eids))
            del indptr, indices
        g = dgl.heterograph(data, num_nodes_dict=counts, idtype=torch.int32)
        del data
        g = g.formats("csc")
        g.create_formats_()
    t_load = time.perf_counter() - t0
    anon_load = rss_anon()
    if a.join_cgroup:
        join_cgroup(a.join_cgroup)

    # The features, mapped, one map a type.
    feats = {}
    for t in a.type_list:
        if a.drop_cache:
            drop_file_cache(feat_path[t])
        feats[t] = np.load(feat_path[t], mmap_mode="r")
        mm = getattr(feats[t], "_mmap", None)
        if a.advice == "random" and mm is not None and hasattr(mm, "madvise"):
            mm.madvise(mmap.MADV_RANDOM)
    dim = feats[a.type_list[0]].shape[1]

    # The seeds: a seeded shuffle of the seed type's nodes, the first --batches batches of it.
    n_seed = counts[a.seed_type]
    batches = min(a.batches, (n_seed + a.batch - 1) // a.batch)
    gen = torch.Generator().manual_seed(a.seed)
    seeds = torch.randperm(n_seed, generator=gen)[: batches * a.batch].to(torch.int32)
    dgl.seed(a.seed)
    workers = a.workers
    if a.sampler == "graphbolt":
        import warnings

        class SortedFeature(gb.TorchBasedFeature):
            """TorchBasedFeature whose read takes the rows in ascending id order."""

            def read(self, ids=None):
                if ids is None:
                    return super().read()
                order = torch.argsort(ids)
                x = torch.empty((ids.numel(),) + tuple(self.size()), dtype=torch.float32)
                x[order] = super().read(ids[order])
                return x

        kind = SortedFeature if a.gather == "sorted" else gb.TorchBasedFeature
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the maps are read-only
            store = gb.BasicFeatureStore({("node", t, "feat"): kind(torch.from_numpy(feats[t]))
                                          for t in a.type_list})
        fan = torch.LongTensor([r[3] for r in a.rels])
        dp = gb.ItemSampler(gb.ItemSetDict({a.seed_type: gb.ItemSet(seeds, names="seed_nodes")}),
                            batch_size=a.batch, shuffle=False)
        dp = dp.sample_neighbor(g, [fan] * a.hops)
        dp = dp.fetch_feature(store, node_feature_keys={t: ["feat"] for t in a.type_list})
        loader = gb.DataLoader(dp, num_workers=workers)

        def batches_of():
            for mb in loader:
                ids = mb.node_ids()
                x = {t: mb.node_features[(t, "feat")] for t in ids}
                yield sum(int(v.numel()) for v in ids.values()), x, \
                    sum(int(b.num_edges()) for b in mb.blocks)
    else:
        fan = {c: r[3] for c, r in zip(canon, a.rels)}
        sampler = dgl.dataloading.NeighborSampler(list(reversed([fan] * a.hops)))
        loader = dgl.dataloading.DataLoader(
            g, {a.seed_type: seeds}, sampler, batch_size=a.batch, shuffle=False,
            drop_last=False, num_workers=workers, persistent_workers=False)

        def gather(f, ids):
            ids = ids.numpy()
            if a.gather == "direct":
                return torch.from_numpy(f[ids])
            order = np.argsort(ids)
            x = torch.empty((ids.size, f.shape[1]), dtype=torch.float32)
            x[torch.from_numpy(order)] = torch.from_numpy(f[ids[order]])
            return x

        def batches_of():
            for input_nodes, output_nodes, blocks in loader:
                x = {t: gather(feats[t], ids) for t, ids in input_nodes.items()}
                yield sum(int(v.numel()) for v in input_nodes.values()), x, \
                    sum(int(b.num_edges()) for b in blocks)

    # The timed loop: sample, then gather x as a training loop would.
    nb = se = bx = nt = 0
    t1 = time.perf_counter()
    with (loader.enable_cpu_affinity() if a.affinity else contextlib.nullcontext()):
        for n_in, x, edges in batches_of():
            nb += 1
            nt += n_in
            se += edges
            bx += sum(v.numel() * v.element_size() for v in x.values())
            del x
            if a.seconds and time.perf_counter() - t1 >= a.seconds:
                break
    secs = time.perf_counter() - t1
    peak = 0
    if a.join_cgroup:
        try:
            with open(os.path.join(a.join_cgroup, "memory.max_usage_in_bytes")) as f:
                peak = int(f.read())
        except (OSError, ValueError):
            pass

    print("dgl_hetero: dgl %s, torch %s; %s sampler; graph %d node types (%s), %d relations, "
          "%d nodes, %d edges (int32 ids, csc load), loaded in %.2f s, anonymous memory then %.0f MB; "
          "features %d columns float32 (advice %s, gather %s%s%s)"
          % (dgl.__version__, torch.__version__, a.sampler, len(a.type_list),
             ", ".join("%s %d" % (t, counts[t]) for t in a.type_list), len(a.rels),
             offsets[-1], m, t_load, anon_load / 1e6, dim, a.advice, a.gather,
             ", cache dropped" if a.drop_cache else "", ", cpu affinity" if a.affinity else ""))
    print("dgl_hetero: %d batches of %d %s seeds (of %d asked%s), %d hops of {%s}, %d workers: "
          "%.3f s, %.2f batches/s, %.0f input nodes and %.0f block edges a batch, "
          "%.1f MB/s into x; anonymous memory %.0f MB"
          % (nb, a.batch, a.seed_type, batches,
             ", stopped at %g s" % a.seconds if a.seconds and nb < batches else "",
             a.hops, ", ".join("%s: %d" % (r[0], r[3]) for r in a.rels), workers,
             secs, nb / secs, nt / max(nb, 1), se / max(nb, 1), bx / secs / 1e6, rss_anon() / 1e6))
    print("RESULT batches=%d seconds=%.3f batches_per_s=%.3f sampled_edges=%d "
          "edges_per_s=%.0f bytes_x=%d input_nodes=%d load_s=%.2f peak_bytes=%d"
          % (nb, secs, nb / secs, se, se / secs, bx, nt, t_load, peak))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
