"""Write cora (../shared/data/cora) as OGB node-property datasets, as a
download of ogbn-* unpacks: ogbn_cora/ in the binary layout, written by
ogb's own ogb.io.DatasetSaver (raw/data.npz, raw/node-label.npz), and
ogbn_cora_csv/ in the CSV layout (raw/*.csv.gz), written here by the same
rules. Both get split/random/{train,valid,test}.csv.gz, one id per line, as
the published datasets have them. Run once, with the Python that has ogb:

    /work/main/bench/venv/bin/python tests/data/ogb/make_cora_ogb.py \
        ../shared/data/cora tests/data/ogb

The tests read only the committed output; they need neither ogb nor this
script."""
import gzip
import os
import shutil
import sys
import tempfile

import numpy as np


def gz_write(path, text):
    # mtime 0: the same bytes on every run
    with open(path, "wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
            f.write(text.encode())


def lines(a, fmt):
    return "".join(fmt % tuple(r) + "\n" if np.ndim(r) else fmt % r + "\n"
                   for r in a)


def write_splits(root, split):
    d = os.path.join(root, "split", "random")
    os.makedirs(d, exist_ok=True)
    for name, ids in split.items():
        gz_write(os.path.join(d, name + ".csv.gz"), lines(ids, "%d"))


def binary_layout(out, edges, x, y, split):
    from ogb.io import DatasetSaver
    tmp = tempfile.mkdtemp()
    saver = DatasetSaver("ogbn-cora", is_hetero=False, version=1,
                         root=os.path.join(tmp, "sub"))
    graph = {"edge_index": edges.T.copy(), "num_nodes": x.shape[0],
             "node_feat": x, "edge_feat": None}
    saver.save_graph_list([graph])
    # float labels, as ogbn-papers100M has them (NaN would mark unlabelled)
    saver.save_target_labels(y.reshape(-1, 1).astype(np.float32))
    saver.save_split(split, "random")
    root = os.path.join(out, "ogbn_cora")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    shutil.copytree(os.path.join(saver.dataset_dir, "raw"),
                    os.path.join(root, "raw"))
    shutil.rmtree(tmp)
    write_splits(root, split)


def csv_layout(out, edges, x, y, split):
    root = os.path.join(out, "ogbn_cora_csv")
    shutil.rmtree(root, ignore_errors=True)
    raw = os.path.join(root, "raw")
    os.makedirs(raw)
    gz_write(os.path.join(raw, "edge.csv.gz"), lines(edges, "%d,%d"))
    gz_write(os.path.join(raw, "num-node-list.csv.gz"), "%d\n" % x.shape[0])
    gz_write(os.path.join(raw, "num-edge-list.csv.gz"), "%d\n" % len(edges))
    fmt = ",".join(["%.9g"] * x.shape[1])
    gz_write(os.path.join(raw, "node-feat.csv.gz"), lines(x, fmt))
    gz_write(os.path.join(raw, "node-label.csv.gz"), lines(y, "%d"))
    write_splits(root, split)


def main(src, out):
    edges = np.loadtxt(os.path.join(src, "edges.tsv"), dtype=np.int64,
                       ndmin=2)
    x = np.load(os.path.join(src, "features.npy")).astype(np.float32)
    y = np.load(os.path.join(src, "labels.npy")).astype(np.int64)
    split = {"train": np.load(os.path.join(src, "train_idx.npy")),
             "valid": np.load(os.path.join(src, "val_idx.npy")),
             "test": np.load(os.path.join(src, "test_idx.npy"))}
    binary_layout(out, edges, x, y, split)
    csv_layout(out, edges, x, y, split)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
