"""Training through PyG's own loaders over gnndb (`make pytest-pyg`):
torch_geometric.nn.GraphSAGE trained by NodeLoader with
gnndb.pyg.NeighborSampler on cora reaches the accuracy of the same training
through PyG's own NeighborLoader on an in-memory Data, and the three
programs of examples/pyg run (the GraphSAGE, link prediction and to_hetero
ones).

PyG's loader samples through pyg_kernel.py's stand-in for its compiled
kernel where pyg-lib is not installed (see there). Torch runs on one
thread: Debian's torch multiplies on a generic BLAS, and the models here
are sized so that this file takes about two minutes on two shared cores."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
try:
    import torch_geometric  # noqa: F401
    from torch_geometric.data import Data
    from torch_geometric.loader import NeighborLoader, NodeLoader
    from torch_geometric.nn import GraphSAGE
except ImportError as exc:
    pytest.skip("torch_geometric is not importable (%s): `make pytest-pyg` "
                "runs these tests in build/pyg-venv" % exc,
                allow_module_level=True)

import gnndb.pyg as gp                            # noqa: E402
from pyg_kernel import pyg_sampler                # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

EPOCHS = 20      # trained for; scored on the mean of the last LAST
LAST = 5
SEEDS = (0, 1)   # runs per loader


class Cora:
    """cora in memory, for PyG's loader and for scoring: x, y, edge_index,
    the split, and the test accuracy of a model over the whole graph."""

    def __init__(self, cora):
        self.x = torch.from_numpy(cora.x)
        self.y = torch.from_numpy(cora.y)
        self.edge_index = torch.from_numpy(np.ascontiguousarray(
            cora.edges.T))
        self.train = torch.from_numpy(cora.split["train"])
        self.test = torch.from_numpy(cora.split["test"])

    @torch.no_grad()
    def test_accuracy(self, model):
        # Two layers over every in-neighbour: what a loader with fanout
        # [-1, -1] gives the seeds (test_pyg.py checks that, and the end
        # of the test below for gnndb's loader).
        was = model.training
        pred = model.eval()(normalised(self.x), self.edge_index).argmax(-1)
        model.train(was)
        return float((pred[self.test] == self.y[self.test]).float().mean())


def normalised(x):
    return x / x.sum(1, keepdim=True).clamp(min=1)   # as Planetoid's


def fit(data, make_loader, seed):
    """GraphSAGE (2 layers, 64 hidden) trained for EPOCHS epochs on the
    batches of make_loader(), all randomness from torch seed `seed`: the
    model and its mean test accuracy over the last LAST epochs."""
    torch.manual_seed(seed)
    loader = make_loader()
    torch.manual_seed(seed)      # the same initial weights for every loader
    model = GraphSAGE(1433, 64, num_layers=2, out_channels=7, dropout=0.5)
    opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    model.train()
    acc = []
    for epoch in range(1, EPOCHS + 1):
        for b in loader:
            opt.zero_grad()
            out = model(normalised(b.x), b.edge_index)[:b.batch_size]
            torch.nn.functional.cross_entropy(
                out, b.y[:b.batch_size]).backward()
            opt.step()
        if epoch > EPOCHS - LAST:
            acc.append(data.test_accuracy(model))
    return model, float(np.mean(acc))


def test_graphsage_through_node_loader_reaches_pyg_accuracy(cora, cora_db):
    torch.set_num_threads(1)
    data = Cora(cora)
    stores = (gp.FeatureStore(cora_db, "cora", readonly=True),
              gp.GraphStore(cora_db, "cora", readonly=True))
    # The same trainings through two loaders, from the same initial
    # weights, differing in whose sampler draws the neighbours: gnndb's,
    # driven by PyG's NodeLoader over gnndb's stores, and PyG's own
    # NeighborLoader over the Data.
    ours = lambda: NodeLoader(stores, node_sampler=gp.NeighborSampler(
        stores, [10, 10]), input_nodes=data.train, batch_size=64,
        shuffle=True)
    theirs = lambda: NeighborLoader(Data(x=data.x, y=data.y,
                                         edge_index=data.edge_index),
                                    [10, 10], input_nodes=data.train,
                                    batch_size=64, shuffle=True)
    runs = [fit(data, ours, s) for s in SEEDS]
    with pyg_sampler():
        pyg = [fit(data, theirs, s)[1] for s in SEEDS]
    a, b = np.mean([r[1] for r in runs]), np.mean(pyg)
    print("GraphSAGE on cora, test accuracy (mean of epochs %d-%d, seeds "
          "%s): %.3f %s through NodeLoader + gnndb.pyg.NeighborSampler, "
          "%.3f %s through PyG's NeighborLoader"
          % (EPOCHS - LAST + 1, EPOCHS, SEEDS, a,
             [round(r[1], 3) for r in runs], b, [round(v, 3) for v in pyg]))
    # The tolerance: one run's score varies with the draws (neighbours,
    # dropout, order) with a standard deviation of about 0.008 through
    # either loader (seeds 0-7, gnndb: 0.783 0.798 0.807 0.790 0.800
    # 0.805 0.795 0.794; seeds 0-4, PyG: 0.780 0.802 0.784 0.800 0.795),
    # so a mean of two runs about 0.006 and the difference of two such
    # means about 0.008: 0.025 is three of those. A sampler that loses
    # the graph falls far lower: with every batch's edges dropped gnndb's
    # side scored 0.559, with each batch's rows handed over shuffled
    # 0.128 (PyG's 0.791). 0.78 is issue 29's bar.
    assert a >= b - 0.025 and a >= 0.78

    # The model evaluated through gnndb's loader with every neighbour
    # gives the whole graph's outputs.
    model = runs[0][0].eval()
    loader = NodeLoader(stores, node_sampler=gp.NeighborSampler(
        stores, [-1, -1]), input_nodes=data.test, batch_size=512)
    with torch.no_grad():
        want = model(normalised(data.x), data.edge_index)
        for b in loader:
            got = model(normalised(b.x), b.edge_index)[:b.batch_size]
            torch.testing.assert_close(got, want[b.n_id[:b.batch_size]],
                                       rtol=1e-4, atol=1e-5)


def run(script, *args):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(REPO, "python")
    out = subprocess.run([sys.executable, os.path.join(REPO, "examples",
                                                       "pyg", script)] +
                         list(args), capture_output=True, text=True,
                         env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def numbers(out, key):
    return [float(v) for v in re.findall(key + r": ([0-9.]+)", out)]


def test_example_graph_sage_runs(cora):
    out = run("graph_sage.py", "--data", cora.dir, "--epochs", "3")
    assert len(numbers(out, "Test")) == 3
    assert numbers(out, "Loss")[-1] < numbers(out, "Loss")[0]


def test_example_link_pred_runs(cora):
    out = run("link_pred.py", "--data", cora.dir, "--epochs", "3")
    loss, test = numbers(out, "Loss"), numbers(out, "Test")
    assert len(test) == 3 and loss[-1] < loss[0]
    assert test[-1] > 0.4          # 7 classes: chance is about 0.14


def test_example_to_hetero_on_ogb_mag_layout():
    out = run("hetero_mag.py", "--epochs", "12", "--data",
              os.path.join(REPO, "tests", "data", "ogb", "ogbn_mag_tiny"))
    loss, train = numbers(out, "Loss"), numbers(out, "Train")
    assert len(loss) == 12 and loss[-1] < loss[0] / 4
    assert train[-1] >= 0.9        # it fits the tiny set's training labels
