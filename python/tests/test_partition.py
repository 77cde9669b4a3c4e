"""SAMPLE ... PARTITION k OF n: four trainer processes, each with its own
embedded gnndb over the same database, get disjoint, balanced shares of each
epoch's seeds whose union is the single-process epoch, the same shares on
every run, and batches that are the single process's sampling of the same
seeds."""
import multiprocessing as mp

import numpy as np
import pytest

import gnndb

Q = ("SAMPLE 10,5 FROM cora SEEDS train FEATURES feat BATCH 16 SHUFFLE "
     "SEED 11 EPOCHS 3")
RANKS = 4


def seeds_by_epoch(db_path, sql):
    """{epoch: [seed ids in order]} of every batch of `sql`."""
    out = {}
    with gnndb.connect(db_path, readonly=True) as conn:
        for b in conn.sample(sql):
            out.setdefault(int(b.epoch), []).extend(
                int(v) for v in b.n_id[:b.batch_size])
    return out


def rank_main(args):
    db_path, rank = args
    return rank, seeds_by_epoch(db_path, Q + " PARTITION %d OF %d;" %
                                (rank, RANKS))


def run_ranks(db_path):
    # spawn: each trainer is a fresh process that opens the database itself,
    # as torchrun's workers do (LMDB handles never cross a fork)
    ctx = mp.get_context("spawn")
    with ctx.Pool(RANKS) as pool:
        res = dict(pool.map(rank_main, [(db_path, r) for r in range(RANKS)]))
    return [res[r] for r in range(RANKS)]


def test_partitions_are_disjoint_complete_balanced_and_deterministic(
        cora_db, cora):
    single = seeds_by_epoch(cora_db, Q + ";")
    train = set(int(v) for v in cora.split["train"])
    assert sorted(single) == [0, 1, 2]
    ranks = run_ranks(cora_db)
    for epoch in range(3):
        shares = [r[epoch] for r in ranks]
        sets = [set(s) for s in shares]
        # no seed twice within a rank, none shared between ranks
        assert all(len(s) == len(sh) for s, sh in zip(sets, shares))
        for i in range(RANKS):
            for j in range(i + 1, RANKS):
                assert not (sets[i] & sets[j]), (epoch, i, j)
        # the union is exactly the single-process epoch (the train split)
        union = set().union(*sets)
        assert union == set(single[epoch]) == train
        sizes = [len(s) for s in shares]
        assert max(sizes) - min(sizes) <= 1, sizes
        # each rank's share is a contiguous slice of the single process's
        # epoch order, in rank order
        assert sum(shares, []) == single[epoch]
    # a shuffled epoch gives each rank a different share each epoch
    assert set(ranks[0][0]) != set(ranks[0][1])
    # deterministic: a second launch gives the same shares in the same order
    assert run_ranks(cora_db) == ranks


def test_partition_batches_sample_like_the_engine_does(cora_db, cora):
    # rank 1's batches, recomputed by a single process with the same seeds
    # listed in the same order, would not be byte-identical (the mini-batch
    # number feeds the generator), but every invariant holds: edges exist,
    # x rows are the features of n_id, y the labels of the seeds.
    with gnndb.connect(cora_db, readonly=True) as conn:
        n = 0
        for b in conn.sample(Q + " PARTITION 1 OF 4;"):
            n += 1
            nid = np.asarray(b.n_id)
            ei = np.asarray(b.edge_index)
            assert cora.has_edges(nid[ei[0]], nid[ei[1]]).all()
            np.testing.assert_array_equal(np.asarray(b.x), cora.x[nid])
            np.testing.assert_array_equal(np.asarray(b.y),
                                          cora.y[nid[:b.batch_size]])
        # 35 seeds a rank (140 / 4) in batches of 16: 3 a epoch, 3 epochs
        assert n == 9


@pytest.mark.parametrize("clause,msg", [
    ("PARTITION 4 OF 4", "the rank must be 0..3"),
    ("PARTITION 0 OF 0", "out of range"),
    ("PARTITION 0 OF 2 PARTITION 1 OF 2", "given twice"),
    ("PARTITION 1", "expected"),
])
def test_partition_errors(conn, clause, msg):
    with pytest.raises(gnndb.Error) as ei:
        conn.execute(Q + " " + clause + ";")
    assert msg in str(ei.value)
