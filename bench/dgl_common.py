"""dgl_common.py — what the benchmark's DGL peers share (dgl_baseline.py,
the homogeneous one, and dgl_hetero.py, the heterogeneous one): importing
DGL or saying why it is missing, reading a binary edge file a chunk at a
time, the stable counting sort that builds a CSC from such chunks, and the
process's memory, page cache and cgroup chores.  Written once here so that
both peers build their graphs and are measured the same way.
"""
import os

SKIP_CODE = 3  # the peer cannot run here (no DGL): the harness skips it


def import_peer(threads):
    """(mmap, numpy, torch, dgl) set up for `threads` threads, or None after
    printing `SKIP: dgl unavailable: <reason>` when any of them fails to
    import (an ImportError, or a shared library that does not load)."""
    os.environ.setdefault("DGLBACKEND", "pytorch")
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    try:
        import mmap
        import numpy as np
        import torch
        import dgl
    except Exception as e:
        reason = ("%s: %s" % (type(e).__name__, e)).replace("\n", " ")
        print("SKIP: dgl unavailable: %s" % reason)
        return None
    torch.set_num_threads(threads)
    return mmap, np, torch, dgl


def rss_anon():
    """Resident anonymous memory of this process, in bytes."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def drop_file_cache(path):
    """Drop `path` from the page cache, so that its first reads go to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            os.fdatasync(fd)
        except OSError:
            pass
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def join_cgroup(group):
    """Move this process into cgroup v1 memory group `group` (a directory):
    from here on its memory and the page cache it faults in count there."""
    with open(os.path.join(group, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))


def pair_chunks(np, path, chunk, who):
    """The (src, dst) little-endian int64 pairs of edge file `path`, `chunk`
    pairs at a time as k x 2 arrays; the file is dropped from the page cache
    once read.  Errors name `who` (the program) and the file."""
    size = os.path.getsize(path)
    if size % 16:
        raise SystemExit("%s: %s: size %d is not a multiple of 16" % (who, path, size))
    m = size // 16
    with open(path, "rb") as f:
        done = 0
        while done < m:
            k = min(chunk, m - done)
            pairs = np.fromfile(f, dtype="<i8", count=2 * k)
            if pairs.size != 2 * k:
                raise SystemExit("%s: %s: short read" % (who, path))
            done += k
            yield pairs.reshape(k, 2)
        try:
            os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
        except OSError:
            pass


def place(np, pairs, dst, cursor, indices, src_off=0, types=None, type_id=0):
    """Put a chunk's sources (+ src_off) at the next free slots of their
    destinations `dst` (cursor[d]: d's next slot), a stable counting sort, so
    that a node's in-neighbours keep their file order as DGL's own COO to
    CSC conversion keeps them; with `types`, tag each slot with type_id."""
    order = np.argsort(dst, kind="stable")
    ds = dst[order]
    uniq, start, count = np.unique(ds, return_index=True, return_counts=True)
    rank = np.arange(ds.size, dtype=np.int64) - np.repeat(start, count)
    slot = cursor[ds] + rank
    indices[slot] = pairs[order, 0] + src_off
    if types is not None:
        types[slot] = type_id
    cursor[uniq] += count
