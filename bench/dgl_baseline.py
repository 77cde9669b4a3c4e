"""dgl_baseline.py — the DGL peer of bench/baseline_mmap.c: what a DGL user
does when the features do not fit in RAM, and, with --features-in ram, what
one does when they do.  The graph is a DGL graph held in memory; the
features are a float32 .npy opened with np.load(mmap_mode='r') (or read
whole into RAM); mini-batches come from dgl.dataloading.NeighborSampler
through dgl.dataloading.DataLoader, and each batch's input rows are gathered
into a contiguous x, as a training loop would.

    bench/venv/bin/python bench/dgl_baseline.py --edges edges.bin
        --features feat.npy [--fanouts 10,10,10] [--batch 1024] [--batches N]
        [--seed S] [--threads T] [--workers W] [--nodes N] [--drop-cache]
        [--advice normal|random] [--idtype int32|int64] [--load csc|coo]
        [--sampler classic|graphbolt] [--join-cgroup DIR]
        [--features-in mmap|ram] [--gather sorted|direct|pipeline]

bench/venv comes from `make bench-peers` (mk/bench.mk).  Without DGL the
program prints `SKIP: dgl unavailable: <reason>` and exits with code 3.

The edge file is little-endian int64 pairs (src, dst), the binary edge
format of bench/gen.c, read in 4 MiB chunks; ids are int32 (int64 with
--idtype int64, or when they do not fit), and N is --nodes or the largest
id + 1.  Two ways to build the DGL graph, which sample the same batches:
  --load coo   what the tutorials do: src and dst arrays handed to
               dgl.graph((src, dst), num_nodes=N), then reduced to the CSC
               format that in-edge sampling uses.  While loading, the COO
               arrays and the CSC with its edge-id array coexist: 16 E bytes
               with int32 ids, 2 GiB for the default benchmark's 128 M
               edges, more than its 1 GiB limit.
  --load csc   (the default) the pairs are streamed twice into CSC
               (indptr, indices) and handed over as
               dgl.graph(('csc', (indptr, indices, []))), with no edge-id
               array: 4 (N+1) + 4 E bytes, the C baseline's arithmetic, so
               that DGL can run under the same limit.
Loading is timed apart; the RESULT line times only the mini-batch loop
(sampling and gathering).

The seeds are a shuffle of all node ids by torch.randperm under a generator
seeded with --seed, cut into batches of --batch; only the first --batches
batches are handed to the DataLoader.  Sampling is seeded with dgl.seed.
DGL's fanout list is given per layer from the input layer; here, as in the
C baseline (PyG's num_neighbors), the first fanout is hop 1 from the seeds,
so the list is reversed for DGL.

How the numbers differ from the C baseline's: DGL builds one message-flow
graph (block) per layer, and the seeds of each layer are all the source
nodes of the layer above, the nodes already sampled included; PyG (and the
C baseline) sample each node once, at the hop it is first reached.  DGL
therefore samples more edges a batch for the same fanouts.  sampled_edges is
the total of block.num_edges() over all blocks of all batches, bytes_x the
bytes of all x gathered (len(input_nodes) rows each).

How memory is bounded in the benchmark.  The harness runs this program
inside a cgroup v1 memory group:
    mkdir /sys/fs/cgroup/memory/NAME
    echo LIMIT > /sys/fs/cgroup/memory/NAME/memory.limit_in_bytes
    echo $PID  > /sys/fs/cgroup/memory/NAME/cgroup.procs
In cgroup v1 the limit covers the group's anonymous memory and the page
cache its processes fault in, so it bounds the interpreter with torch and DGL
(about 300 MB of anonymous memory once imported, measured), the graph (see
--load above), the blocks and x of the batch in flight, and the feature
pages of the mapping.  Those are clean, so the kernel reclaims them
at the limit instead of failing: the features get what is left of LIMIT as
their cache.  The edge file is dropped from the page cache after loading.
--drop-cache (fdatasync, then POSIX_FADV_DONTNEED on the feature file)
makes the run start with none of the feature pages resident.

The advice on the mapping: np.load(mmap_mode='r') leaves it MADV_NORMAL,
whose read-around under a memory limit evicts pages a batch still needs
(see bench/baseline_mmap.c).  As in the C baseline, the default is
--advice random (mmap.madvise(MADV_RANDOM) on the mapping numpy made), and
--advice normal is the out-of-the-box behaviour.

--threads T sets OMP_NUM_THREADS (the classic sampler's OpenMP loops) and
torch's thread count (its gathers) to T; the default is 1.  Measured with
DGL 2.1 at scale 21: the classic sampler with T = 2 in the main process
(no workers) sampled about half the edges a batch (103 k against 213 k, 40 k
input nodes against 94 k), built from COO pairs or from CSC, with or
without an edge-id array; in workers, or with one thread, it samples them
all.  bench/sweep.py sets
such runs aside by their sampled_edges.
--workers W runs the DataLoader (classic or graphbolt) with W worker
processes, sampling in the workers and gathering in the main process (with
--gather pipeline, where DGL's loader puts it); the default is T when T > 1,
else 0 (num_workers=0: everything in the main process).

--features-in ram: the .npy is read whole into memory with np.load (no
mmap_mode), after joining the group, and dropped from the page cache once
read: the set-up of a DGL user whose features fit in RAM (the benchmark's
in-memory points).  Rows are then gathered by torch indexing of that tensor
(torch.index_select, which uses --threads), not by numpy over a map.  The
read is timed apart, as loading the graph is.  The default, mmap, is the
out-of-core set-up described above.

--sampler graphbolt: dgl.graphbolt instead of the classic sampler, DGL's
fastest path: the CSC handed to gb.fused_csc_sampling_graph, the seeds to
gb.ItemSampler, sample_neighbor with the same fanouts, and the input rows
read through gb.TorchBasedFeature over the same mapping (or the array in
RAM), with --gather sorted their ids sorted first (a read in random order
over a map faults pages in random order, and each fault's readahead brings
megabytes the limit then evicts) and the rows put back in input order.

--gather sorted (the default): a batch's input rows are read in ascending
id order and put back in input order, by either sampler: over a map the
faults then walk the file forwards and readahead serves neighbouring rows
(measured faster than `feat[input_nodes]` under every budget); --gather
direct is the one-line `feat[input_nodes]` (graphbolt: `feature.read(ids)`
in input order); --gather pipeline leaves the gather to DGL's own loader,
as its in-memory examples do: the classic sampler's
`NeighborSampler(..., prefetch_node_feats=['feat'])` over `g.ndata['feat']`
(x is `blocks[0].srcdata['feat']`), graphbolt's `fetch_feature` stage over
a `BasicFeatureStore` (x is `node_features['feat']`).

--join-cgroup DIR: once the graph is built, move this process into the
cgroup v1 memory group DIR (writing its pid to DIR/cgroup.procs); a process
keeps what it allocated before joining, so the limit then bounds the
feature pages and the batches, as on a machine whose RAM holds the graph
and the interpreter but not the features. Without it the harness starts
the whole process inside the group (the strict set-up).

The last line of stdout is
    RESULT batches=N seconds=S batches_per_s=R sampled_edges=E
           edges_per_s=R bytes_x=B
"""
import argparse
import os
import sys
import time

from dgl_common import (SKIP_CODE, drop_file_cache, import_peer, join_cgroup,
                        pair_chunks, place, rss_anon)

CHUNK_PAIRS = 1 << 18  # 4 MiB of int64 pairs a read


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--edges", required=True)
    p.add_argument("--features", required=True)
    p.add_argument("--fanouts", default="10,10,10")
    p.add_argument("--batch", type=int, default=1024)
    p.add_argument("--batches", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--workers", type=int, default=-1,
                   help="DataLoader worker processes (default: T when --threads T > 1, else 0)")
    p.add_argument("--nodes", type=int, default=0)
    p.add_argument("--drop-cache", action="store_true")
    p.add_argument("--advice", choices=("normal", "random"), default="random")
    p.add_argument("--idtype", choices=("int32", "int64"), default="int32")
    p.add_argument("--load", choices=("csc", "coo"), default="csc")
    p.add_argument("--sampler", choices=("classic", "graphbolt"), default="classic")
    p.add_argument("--join-cgroup", default="")
    p.add_argument("--gather", choices=("sorted", "direct", "pipeline"), default="sorted")
    p.add_argument("--features-in", choices=("mmap", "ram"), default="mmap")
    a = p.parse_args()
    try:
        a.fanout_list = [int(x) for x in a.fanouts.split(",") if x.strip()]
    except ValueError:
        p.error("--fanouts: a comma-separated list of integers")
    if not a.fanout_list or any(f == 0 or f < -1 for f in a.fanout_list):
        p.error("--fanouts: each fanout is positive or -1")
    if a.batch < 1 or a.batches < 1 or a.threads < 1 or a.nodes < 0:
        p.error("--batch, --batches and --threads must be positive")
    if a.workers < 0:
        a.workers = a.threads if a.threads > 1 else 0
    return a


def load_edges(np, path, idtype, nodes):
    """Stream the (src, dst) int64 pairs into two arrays of idtype."""
    m = os.path.getsize(path) // 16
    dt = np.int32 if idtype == "int32" else np.int64
    src = np.empty(m, dtype=dt)
    dst = np.empty(m, dtype=dt)
    hi = -1
    done = 0
    for pairs in pair_chunks(np, path, CHUNK_PAIRS, "dgl_baseline"):
        k = len(pairs)
        if k:
            if int(pairs.min()) < 0:
                raise SystemExit("dgl_baseline: %s: negative node id" % path)
            hi = max(hi, int(pairs.max()))
            if dt is np.int32 and hi >= 2**31 - 1:
                # Too large for int32: start again with int64 ids.
                del src, dst, pairs
                return load_edges(np, path, "int64", nodes)
        src[done:done + k] = pairs[:, 0]
        dst[done:done + k] = pairs[:, 1]
        done += k
    n = nodes if nodes else hi + 1
    if hi >= n:
        raise SystemExit("dgl_baseline: node id %d but --nodes %d" % (hi, n))
    return src, dst, n, ("int32" if dt is np.int32 else "int64")


def load_csc(np, path, idtype, nodes):
    """Stream the pairs twice into CSC (indptr, indices) without edge ids.

    Pass 1 counts in-degrees; pass 2 places each edge's source at the next
    free slot of its destination, chunk by chunk (a stable counting sort),
    so that a node's in-neighbours keep their file order, as DGL's own
    COO -> CSC conversion keeps them.  Peak memory is indptr, indices and
    one chunk's temporaries, the CSC the C baseline holds."""
    m = os.path.getsize(path) // 16

    def chunks():
        return pair_chunks(np, path, CHUNK_PAIRS, "dgl_baseline")

    deg = np.zeros(max(nodes, 1), dtype=np.int64)
    hi = -1
    for pairs in chunks():
        if pairs.size and int(pairs.min()) < 0:
            raise SystemExit("dgl_baseline: %s: negative node id" % path)
        if pairs.size:
            hi = max(hi, int(pairs.max()))
        if nodes and hi >= nodes:
            raise SystemExit("dgl_baseline: node id %d but --nodes %d" % (hi, nodes))
        if hi >= deg.size:
            deg = np.concatenate([deg, np.zeros(max(hi + 1, 2 * deg.size) - deg.size, np.int64)])
        deg += np.bincount(pairs[:, 1], minlength=deg.size)
    n = nodes if nodes else hi + 1
    deg = deg[:n]
    if idtype == "int32" and max(n, m) >= 2**31 - 1:
        idtype = "int64"
    dt = np.int32 if idtype == "int32" else np.int64
    indptr = np.zeros(n + 1, dtype=dt)
    np.cumsum(deg, out=indptr[1:])
    del deg
    cursor = indptr[:-1].astype(np.int64)
    indices = np.empty(m, dtype=dt)
    for pairs in chunks():
        place(np, pairs, pairs[:, 1], cursor, indices)
    del cursor
    return indptr, indices, n, idtype


def main():
    a = parse_args()
    peer = import_peer(a.threads)
    if peer is None:
        return SKIP_CODE
    mmap, np, torch, dgl = peer

    # The graph, in memory.
    t0 = time.perf_counter()
    if a.load == "coo":
        src, dst, n, idtype = load_edges(np, a.edges, a.idtype, a.nodes)
        tid = torch.int32 if idtype == "int32" else torch.int64
        g = dgl.graph((torch.from_numpy(src), torch.from_numpy(dst)), num_nodes=n, idtype=tid)
        del src, dst
        g = g.formats("csc")  # what in-edge sampling uses; frees the COO arrays
    elif a.sampler == "graphbolt":
        indptr, indices, n, idtype = load_csc(np, a.edges, a.idtype, a.nodes)
        tid = torch.int32 if idtype == "int32" else torch.int64
        import dgl.graphbolt as gb
        g = gb.fused_csc_sampling_graph(torch.from_numpy(indptr.astype(np.int64)),
                                        torch.from_numpy(indices))
        del indptr, indices
    else:
        indptr, indices, n, idtype = load_csc(np, a.edges, a.idtype, a.nodes)
        tid = torch.int32 if idtype == "int32" else torch.int64
        eids = torch.empty(0, dtype=tid)  # none: edge i of the CSC is edge i
        g = dgl.graph(("csc", (torch.from_numpy(indptr), torch.from_numpy(indices), eids)),
                      num_nodes=n, idtype=tid)
        del indptr, indices
        g = g.formats("csc")
    if a.sampler == "classic":
        g.create_formats_()
    t_load = time.perf_counter() - t0
    anon_load = rss_anon()
    if a.join_cgroup:
        join_cgroup(a.join_cgroup)

    # The features: mapped, or read whole into RAM (--features-in).
    if a.drop_cache:
        drop_file_cache(a.features)
    t2 = time.perf_counter()
    feat = np.load(a.features, mmap_mode="r" if a.features_in == "mmap" else None)
    t_feat = time.perf_counter() - t2
    if feat.ndim != 2 or feat.dtype != np.float32:
        raise SystemExit("dgl_baseline: %s: expected a 2-D float32 array, got %s %s"
                         % (a.features, feat.dtype, feat.shape))
    if feat.shape[0] < n:
        raise SystemExit("dgl_baseline: %s has %d rows, the graph %d nodes"
                         % (a.features, feat.shape[0], n))
    if a.features_in == "ram":
        drop_file_cache(a.features)  # the rows are in the array: its pages serve nothing now
    mm = getattr(feat, "_mmap", None)
    if a.features_in == "mmap" and a.advice == "random" and mm is not None and hasattr(mm, "madvise"):
        mm.madvise(mmap.MADV_RANDOM)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a map is read-only; nothing writes to it
        feat_t = torch.from_numpy(feat)
    dim = feat.shape[1]

    # The seeds: a seeded shuffle of all nodes, the first --batches batches of it.
    batches = min(a.batches, (n + a.batch - 1) // a.batch)
    gen = torch.Generator().manual_seed(a.seed)
    seeds = torch.randperm(n, generator=gen)[: batches * a.batch].to(tid)
    dgl.seed(a.seed)
    workers = a.workers

    def read_rows(ids):
        """The feature rows of ids (a tensor), in their order."""
        if a.sampler == "graphbolt":
            return feature.read(ids)
        if a.features_in == "ram":
            return torch.index_select(feat_t, 0, ids)
        return torch.from_numpy(feat[ids.numpy()])

    def gather(ids):
        """x of a batch whose input nodes are ids, by --gather sorted or direct."""
        if a.gather == "direct":
            return read_rows(ids)
        order = torch.argsort(ids)
        x = torch.empty((ids.numel(), dim), dtype=torch.float32)
        x[order] = read_rows(ids[order])
        return x

    if a.sampler == "graphbolt":
        import dgl.graphbolt as gb
        feature = gb.TorchBasedFeature(feat_t)
        dp = gb.ItemSampler(gb.ItemSet(seeds, names="seed_nodes"),
                            batch_size=a.batch, shuffle=False)
        dp = dp.sample_neighbor(g, [torch.LongTensor([f]) for f in reversed(a.fanout_list)])
        if a.gather == "pipeline":
            store = gb.BasicFeatureStore({("node", None, "feat"): feature})
            dp = dp.fetch_feature(store, node_feature_keys=["feat"])
        loader = gb.DataLoader(dp, num_workers=workers)

        def batches_of():
            for mb in loader:
                ids = mb.node_ids()
                x = mb.node_features["feat"] if a.gather == "pipeline" else gather(ids)
                yield ids, x, sum(int(b.num_edges()) for b in mb.blocks)
    else:
        prefetch = None
        if a.gather == "pipeline":
            g.ndata["feat"] = feat_t[:n]
            prefetch = ["feat"]
        sampler = dgl.dataloading.NeighborSampler(list(reversed(a.fanout_list)),
                                                  prefetch_node_feats=prefetch)
        loader = dgl.dataloading.DataLoader(
            g, seeds, sampler, batch_size=a.batch, shuffle=False, drop_last=False,
            num_workers=workers, persistent_workers=False)

        def batches_of():
            for input_nodes, output_nodes, blocks in loader:
                x = blocks[0].srcdata["feat"] if a.gather == "pipeline" else gather(input_nodes)
                yield input_nodes, x, sum(int(b.num_edges()) for b in blocks)

    # The timed loop: sample, then gather x as a training loop would.
    nb = se = bx = nt = 0
    t1 = time.perf_counter()
    for input_nodes, x, edges in batches_of():
        nb += 1
        nt += len(input_nodes)
        se += edges
        bx += x.numel() * x.element_size()
        del x
    secs = time.perf_counter() - t1

    print("dgl_baseline: dgl %s, torch %s; %s sampler; graph %d nodes, %d edges (%s ids, %s load), loaded in %.2f s, "
          "anonymous memory then %.0f MB; features %d x %d float32 %s (%s%s), %.2f s"
          % (dgl.__version__, torch.__version__, a.sampler, n, g.total_num_edges if a.sampler == "graphbolt" else g.num_edges(),
             idtype, a.load, t_load, anon_load / 1e6, feat.shape[0], feat.shape[1],
             "read into RAM" if a.features_in == "ram" else "mapped",
             "advice " + a.advice if a.features_in == "mmap" else "np.load",
             ", cache dropped" if a.drop_cache else "", t_feat))
    print("dgl_baseline: %d batches of %d seeds, fanouts %s, %d workers, %d threads, gather %s: "
          "%.3f s, %.2f batches/s, %.0f input nodes and %.0f block edges a batch, %.1f MB/s into x; "
          "anonymous memory %.0f MB"
          % (nb, a.batch, a.fanouts, workers, a.threads, a.gather, secs, nb / secs, nt / max(nb, 1),
             se / max(nb, 1), bx / secs / 1e6, rss_anon() / 1e6))
    print("RESULT batches=%d seconds=%.3f batches_per_s=%.3f sampled_edges=%d "
          "edges_per_s=%.0f bytes_x=%d" % (nb, secs, nb / secs, se, se / secs, bx))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
