"""Shared fixtures: the cora files and a database built from them once per
test session. Run through tests/run_pytest.sh, which sets GNNDB_LIB,
GNNDB_DATA and PYTHONPATH."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))   # when run without PYTHONPATH

import gnndb  # noqa: E402


def data_dir():
    """cora's folder: under $GNNDB_DATA, else the one scripts/data.sh finds
    (../shared/data beside the checkout, or the cora shipped in data/cora,
    decompressed into build/data); None when there is none."""
    p = subprocess.run(["sh", os.path.join(REPO, "scripts", "data.sh")],
                       stdout=subprocess.PIPE, universal_newlines=True)
    return os.path.join(p.stdout.strip(), "cora") if p.returncode == 0 \
        else None


# A line of the training examples' output, one per epoch.
EPOCH_LINE = re.compile(
    r"^epoch (\d+) loss ([0-9.]+) val ([0-9.]+) test ([0-9.]+)$")


def run_example(name, cora, *args, python=None):
    """Run examples/`name` on cora's files with the binding on PYTHONPATH
    (with `python`, default this one); its whole output and the (epoch,
    loss, val, test) strings per epoch. On the CPU unless args name a
    --device: the tests compare exact numbers between runs, and a GPU's
    scatter-adds do not add in a fixed order."""
    if "--device" not in args:
        args = args + ("--device", "cpu")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(REPO, "python") + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    p = subprocess.run([python or sys.executable,
                        os.path.join(REPO, "examples", name),
                        "--data", cora.dir] + list(args), env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=900)
    assert p.returncode == 0, p.stdout
    epochs = [m.groups() for m in map(EPOCH_LINE.match, p.stdout.splitlines())
              if m]
    return p.stdout, epochs


@pytest.fixture(scope="session")
def sage_20_epochs(cora):
    """examples/train_sage.py --epochs 20 --seed 0, run once per session
    (test_train checks it, test_ddp compares with it): (output, epochs)."""
    return run_example("train_sage.py", cora, "--epochs", "20", "--seed", "0")


def quote(path):
    return "'" + str(path).replace("'", "''") + "'"


class Cora:
    """The raw files, loaded with numpy, to check the engine against."""

    def __init__(self, d):
        self.dir = d
        self.edges = np.loadtxt(os.path.join(d, "edges.tsv"), dtype=np.int64,
                                ndmin=2)
        self.x = np.load(os.path.join(d, "features.npy"))
        self.y = np.load(os.path.join(d, "labels.npy"))
        self.num_nodes = self.x.shape[0]
        self.split = {s: np.load(os.path.join(d, "%s_idx.npy" % s))
                      for s in ("train", "val", "test")}
        n = self.num_nodes
        # Edge keys src*n+dst, sorted, for membership tests with searchsorted.
        self.edge_keys = np.unique(self.edges[:, 0] * n + self.edges[:, 1])
        # In-degree: the neighbours sampled for v are the sources of edges
        # src -> v.
        self.in_deg = np.bincount(self.edges[:, 1], minlength=n)

    def has_edges(self, src, dst):
        k = src * self.num_nodes + dst
        pos = np.searchsorted(self.edge_keys, k)
        pos = np.minimum(pos, len(self.edge_keys) - 1)
        return self.edge_keys[pos] == k


@pytest.fixture(scope="session")
def cora():
    d = data_dir()
    if d is None:
        pytest.skip("cora not found (scripts/data.sh; set GNNDB_DATA)")
    return Cora(d)


def build_cora(db_path, d):
    f = lambda name: quote(os.path.join(d, name))
    with gnndb.connect(db_path) as conn:
        conn.execute(
            "CREATE GRAPH cora FROM %s;" % f("edges.tsv") +
            "IMPORT FEATURES feat INTO cora FROM %s;" % f("features.npy") +
            "IMPORT LABELS INTO cora FROM %s;" % f("labels.npy") +
            "CREATE SPLIT train ON cora FROM %s;" % f("train_idx.npy") +
            "CREATE SPLIT val ON cora FROM %s;" % f("val_idx.npy") +
            "CREATE SPLIT test ON cora FROM %s;" % f("test_idx.npy"))


@pytest.fixture(scope="session")
def cora_db(cora, tmp_path_factory):
    """Path of a database holding graph cora, feature table feat, labels and
    the splits train/val/test."""
    path = str(tmp_path_factory.mktemp("db") / "cora.gnndb")
    build_cora(path, cora.dir)
    return path


@pytest.fixture
def conn(cora_db):
    c = gnndb.connect(cora_db, readonly=True)
    yield c
    c.close()


@pytest.fixture(scope="session")
def link(cora, tmp_path_factory):
    """The link-prediction database and its files (linkdb.LinkData)."""
    from linkdb import build_link_db
    return build_link_db(cora, str(tmp_path_factory.mktemp("link")))


@pytest.fixture(scope="session")
def hetero(tmp_path_factory):
    """The typed database and its files (heterodb.TypedFiles)."""
    from heterodb import build_hetero_db
    return build_hetero_db(str(tmp_path_factory.mktemp("hetero")))


@pytest.fixture(scope="session")
def timed(tmp_path_factory):
    """A graph g with edge and node times, features feat, edge features w,
    a seed split train and an edge split a; (database path, seed times
    file)."""
    d = tmp_path_factory.mktemp("timed")
    rng = np.random.default_rng(8)
    n, m = 300, 4000
    np.savetxt(d / "e.csv", rng.integers(0, n, (m, 2)), fmt="%d",
               delimiter=",")
    np.save(d / "t.npy", rng.integers(0, 1000, m))
    nt = rng.integers(0, 1000, n)
    nt[:8] = 0                     # negatives exist at every edge's time
    np.save(d / "nt.npy", nt)
    np.save(d / "x.npy", rng.random((n, 6), dtype=np.float32))
    np.save(d / "w.npy", rng.random((m, 3), dtype=np.float32))
    np.save(d / "seeds.npy", np.arange(0, n, 3))
    np.save(d / "st.npy", rng.integers(0, 1100, len(range(0, n, 3))))
    path = str(d / "timed.gnndb")
    with gnndb.connect(path) as c:
        for q in ("CREATE GRAPH g FROM '{d}/e.csv' NODES %d;" % n,
                  "IMPORT EDGE TIMES INTO g FROM '{d}/t.npy';",
                  "IMPORT NODE TIMES INTO g FROM '{d}/nt.npy';",
                  "IMPORT FEATURES feat INTO g FROM '{d}/x.npy';",
                  "IMPORT EDGE FEATURES w INTO g FROM '{d}/w.npy';",
                  "CREATE SPLIT train ON g FROM '{d}/seeds.npy';",
                  "CREATE EDGE SPLITS a ON g RANDOM 0.1 SEED 1;"):
            c.execute(q.format(d=d))
    return path, str(d / "st.npy")
