"""Write ogbn_mag_tiny/: a small heterogeneous OGB node-property dataset in
the layout of ogbn-mag as its download unpacks and the ogb package reads it
(ogb.io.read_graph_raw.read_csv_heterograph_raw, read_node_label_hetero,
read_nodesplitidx_split_hetero): four node types, four relations (each with
edge_reltype.csv.gz, as ogbn-mag has, and writes with edge-feat.csv.gz, a
row of EDGE_DIM floats per edge, which ogbn-mag lacks but the layout
allows), features, years and labels of papers, and the split 'time' on
papers. Random but fixed (seed 23; the edge features draw from a
generator of their own, seed 24, so that adding them changed no other
file) and gzip'd with mtime 0, so a run writes the same bytes:

    /usr/bin/python3 tests/data/ogb/make_mag_tiny_ogb.py tests/data/ogb

The tests read only the committed output."""
import gzip
import os
import shutil
import sys

import numpy as np

TYPES = {"author": 40, "field_of_study": 12, "institution": 6, "paper": 30}
RELS = [("author", "affiliated_with", "institution", 45),
        ("author", "writes", "paper", 90),
        ("paper", "cites", "paper", 70),
        ("paper", "has_topic", "field_of_study", 60)]
DIM, CLASSES = 8, 4
EDGE_FEAT_RELS, EDGE_DIM = ("writes",), 3


def gz_write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
            f.write(text.encode())


def rows(a, fmt):
    return "".join(fmt % tuple(r) + "\n" for r in np.atleast_2d(a))


def main(out):
    rng = np.random.default_rng(23)
    erng = np.random.default_rng(24)
    root = os.path.join(out, "ogbn_mag_tiny")
    shutil.rmtree(root, ignore_errors=True)
    raw = os.path.join(root, "raw")
    names = list(TYPES)
    gz_write(os.path.join(raw, "num-node-dict.csv.gz"),
             ",".join(names) + "\n" + ",".join(str(TYPES[t]) for t in names)
             + "\n")
    gz_write(os.path.join(raw, "triplet-type-list.csv.gz"),
             "".join("%s,%s,%s\n" % r[:3] for r in RELS))
    for k, (s, r, d, n) in enumerate(RELS):
        e = np.stack([rng.integers(0, TYPES[s], n),
                      rng.integers(0, TYPES[d], n)], axis=1)
        sub = os.path.join(raw, "relations", "%s___%s___%s" % (s, r, d))
        gz_write(os.path.join(sub, "edge.csv.gz"), rows(e, "%d,%d"))
        gz_write(os.path.join(sub, "num-edge-list.csv.gz"), "%d\n" % n)
        gz_write(os.path.join(sub, "edge_reltype.csv.gz"), "%d\n" % k * n)
        if r in EDGE_FEAT_RELS:
            w = erng.standard_normal((n, EDGE_DIM)).astype(np.float32)
            gz_write(os.path.join(sub, "edge-feat.csv.gz"),
                     rows(w, ",".join(["%.9g"] * EDGE_DIM)))
    p = TYPES["paper"]
    x = rng.standard_normal((p, DIM)).astype(np.float32)
    gz_write(os.path.join(raw, "node-feat", "paper", "node-feat.csv.gz"),
             rows(x, ",".join(["%.9g"] * DIM)))
    year = rng.integers(2010, 2020, p)
    gz_write(os.path.join(raw, "node-feat", "paper", "node_year.csv.gz"),
             rows(year[:, None], "%d"))
    gz_write(os.path.join(raw, "nodetype-has-label.csv.gz"),
             ",".join(names) + "\n" +
             ",".join("True" if t == "paper" else "False" for t in names)
             + "\n")
    y = rng.integers(0, CLASSES, p)
    y[0] = CLASSES - 1
    gz_write(os.path.join(raw, "node-label", "paper", "node-label.csv.gz"),
             rows(y[:, None], "%d"))
    sd = os.path.join(root, "split", "time")
    gz_write(os.path.join(sd, "nodetype-has-split.csv.gz"),
             ",".join(names) + "\n" +
             ",".join("True" if t == "paper" else "False" for t in names)
             + "\n")
    order = np.argsort(year, kind="stable")
    parts = {"train": order[:18], "valid": order[18:24], "test": order[24:]}
    for name, ids in parts.items():
        gz_write(os.path.join(sd, "paper", name + ".csv.gz"),
                 rows(np.sort(ids)[:, None], "%d"))


if __name__ == "__main__":
    main(sys.argv[1])
