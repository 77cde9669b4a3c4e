#!/usr/bin/env python3
"""bench/typed_data.py — a typed graph from the benchmark's generated one.

The R-MAT generator (bench/gen) numbers nodes through a random permutation,
so ranges of ids are random samples of the graph. This cuts the 2^S nodes
into three node types by range (paper: the first half, author: the next
three eighths, field: the last eighth) and every edge into the relation of
its two endpoints' types ("<src>_<dst>", nine of them), written with ids
local to each type as the int64 pairs CREATE RELATION ... FORMAT bin
reads; and each type's rows of the feature table into a .npy of its own.

    typed_data.py --edges edges.bin --features feat.npy --scale S --out DIR

Memory: a chunk of edges at a time (16 M), the feature rows streamed.
"""
import argparse
import os

import numpy as np

TYPES = ("paper", "author", "field")


def bounds(n):
    """The global id where each type starts, and the end."""
    return [0, n // 2, n // 2 + 3 * n // 8, n]


def split_edges(path, n, out, chunk=1 << 24):
    """Append each edge, as local ids, to the file of its relation."""
    b = np.array(bounds(n), dtype=np.int64)
    files = {}
    for a in range(3):
        for c in range(3):
            name = f"{TYPES[a]}_{TYPES[c]}"
            files[(a, c)] = open(os.path.join(out, name + ".bin"), "wb")
    e = np.memmap(path, dtype="<i8", mode="r").reshape(-1, 2)
    for lo in range(0, e.shape[0], chunk):
        part = np.asarray(e[lo:lo + chunk])
        ts = np.searchsorted(b, part[:, 0], side="right") - 1
        td = np.searchsorted(b, part[:, 1], side="right") - 1
        for (a, c), f in files.items():
            m = (ts == a) & (td == c)
            if m.any():
                loc = np.stack([part[m, 0] - b[a], part[m, 1] - b[c]], 1)
                f.write(loc.astype("<i8").tobytes())
    for f in files.values():
        f.close()


def split_features(path, n, out, rows=1 << 18):
    """Each type's rows of the feature table into <type>.npy."""
    x = np.load(path, mmap_mode="r")
    b = bounds(n)
    for t, name in enumerate(TYPES):
        y = np.lib.format.open_memmap(os.path.join(out, name + ".npy"),
                                      mode="w+", dtype=x.dtype,
                                      shape=(b[t + 1] - b[t], x.shape[1]))
        for lo in range(b[t], b[t + 1], rows):
            hi = min(lo + rows, b[t + 1])
            y[lo - b[t]:hi - b[t]] = x[lo:hi]
        y.flush()
        del y


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--edges", required=True)
    ap.add_argument("--features", required=True)
    ap.add_argument("--scale", type=int, required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    n = 1 << a.scale
    split_edges(a.edges, n, a.out)
    split_features(a.features, n, a.out)
    b = bounds(n)
    for t, name in enumerate(TYPES):
        print(f"{name} {b[t + 1] - b[t]}")


if __name__ == "__main__":
    main()
