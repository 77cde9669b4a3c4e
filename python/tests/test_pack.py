"""Packs through the binding: db.sample("SCAN PACK ...") gives back the
batches of the SAMPLE ... INTO PACK that built them, checked against the
online SAMPLE, against cora's raw files and against a digest recomputed
with numpy from the definition in docs/format.md (batch_digest.py)."""
import os
import shutil

import numpy as np
import pytest

import gnndb
from batch_digest import digest
from conftest import build_cora

Q = ("SAMPLE 10,5 FROM cora SEEDS train FEATURES feat BATCH 32 SHUFFLE "
     "SEED 11 EPOCHS 2")


def batches(conn, sql):
    out = []
    for b in conn.sample(sql):
        out.append(dict(epoch=b.epoch, batch=b.batch, digest=b.digest,
                        mine=digest(b), n_id=np.array(b.n_id),
                        edge_index=np.array(b.edge_index), x=np.array(b.x),
                        y=np.array(b.y), seeds=b.batch_size))
    return out


@pytest.fixture(scope="module")
def pack_db(cora, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("packdb") / "p.gnndb")
    build_cora(path, cora.dir)
    with gnndb.connect(path) as c:
        rows = c.execute(Q + " INTO PACK p;")
        assert rows[0][0] == "p" and rows[0][2] == 10   # 140 seeds / 32, x2
    return path


def test_scan_pack_gives_the_online_batches(pack_db, cora):
    with gnndb.connect(pack_db, readonly=True) as c:
        online = batches(c, Q + ";")
        packed = batches(c, "SCAN PACK p;")
    assert len(online) == len(packed) == 10
    assert [b["epoch"] for b in packed] == [0] * 5 + [1] * 5
    for a, b in zip(online, packed):
        assert (a["epoch"], a["batch"]) == (b["epoch"], b["batch"])
        assert b["digest"] == b["mine"] == a["digest"] == a["mine"]
        for k in ("n_id", "edge_index", "x", "y"):
            assert np.array_equal(a[k], b[k]), k
        # independent of the engine: rows and labels are cora's
        assert np.array_equal(b["x"], cora.x[b["n_id"]])
        assert np.array_equal(b["y"], cora.y[b["n_id"][:b["seeds"]]])
        src, dst = b["n_id"][b["edge_index"][0]], b["n_id"][b["edge_index"][1]]
        assert cora.has_edges(src, dst).all()
    # the two epochs are two different shuffles of the training split
    e0 = np.concatenate([b["n_id"][:b["seeds"]] for b in packed[:5]])
    e1 = np.concatenate([b["n_id"][:b["seeds"]] for b in packed[5:]])
    assert sorted(e0.tolist()) == sorted(cora.split["train"].tolist())
    assert sorted(e1.tolist()) == sorted(e0.tolist())
    assert not np.array_equal(e0, e1)


def test_scan_pack_epoch(pack_db):
    with gnndb.connect(pack_db, readonly=True) as c:
        all_ = [(b.epoch, b.batch, b.digest) for b in c.sample("SCAN PACK p;")]
        one = [(b.epoch, b.batch, b.digest)
               for b in c.sample("SCAN PACK p EPOCH 1;")]
        assert one == [t for t in all_ if t[0] == 1]
        with pytest.raises(gnndb.Error) as ei:
            list(c.sample("SCAN PACK p EPOCH 2;"))
        assert "EPOCH 2 is beyond" in str(ei.value)
        with pytest.raises(gnndb.Error) as ei:
            list(c.sample("SCAN PACK missing;"))
        assert "no such pack: missing" in str(ei.value)


def test_scan_pack_reports_progress_and_can_be_interrupted(pack_db):
    """SCAN PACK calls the progress handler as SAMPLE does: every n batches
    handed out, with the pack's batch count as the total, and a true return
    stops it before the next batch."""
    with gnndb.connect(pack_db, readonly=True) as c:
        seen = []
        c.set_progress_handler(lambda done, total: seen.append((done, total)),
                               2)
        assert len(list(c.sample("SCAN PACK p;"))) == 10
        assert seen == [(2, 10), (4, 10), (6, 10), (8, 10), (10, 10)]

        seen.clear()
        c.set_progress_handler(lambda done, total: seen.append(done) or
                               done >= 3)
        got = []
        with pytest.raises(gnndb.Error) as ei:
            for b in c.sample("SCAN PACK p;"):
                got.append(b.batch)
        assert ei.value.code == gnndb.INTERRUPT
        assert seen == [1, 2, 3] and got == [0, 1, 2]
        c.set_progress_handler(None)
        assert len(list(c.sample("SCAN PACK p;"))) == 10


def test_scan_pack_reports_a_damaged_block(pack_db, tmp_path):
    with gnndb.connect(pack_db, readonly=True) as c:
        props = dict(c.execute("DESCRIBE cora;"))
    files = [k[5:] for k in props if k.startswith("file.p-")]
    assert len(files) == 1
    path = os.path.join(pack_db, files[0])
    with open(path, "rb") as f:
        saved = f.read()
    try:
        with open(path, "r+b") as f:
            f.seek(2 * 1048576 + 100)
            f.write(b"\xff\x00\xff")
        with gnndb.connect(pack_db, readonly=True) as c:
            with pytest.raises(gnndb.Error) as ei:
                list(c.sample("SCAN PACK p;"))
        assert ei.value.code == gnndb.CORRUPT
        assert "corrupt block 2 of" in str(ei.value) and files[0] in str(ei.value)
    finally:
        with open(path, "wb") as f:
            f.write(saved)


def every_array(b):
    """A batch's arrays by Batch._ARRAYS's names (None where absent), its
    digest and the digest numpy recomputes."""
    d = {k: (None if getattr(b, k) is None else np.array(getattr(b, k)))
         for k in gnndb.Batch._ARRAYS}
    d.update(epoch=b.epoch, batch=b.batch, digest=b.digest, mine=digest(b),
             counts=(b.num_label_edges, b.num_pos, b.num_neg, b.x_dim,
                     b.edge_attr_dim, b.is_link))
    return d


def pack_cases(link, timed):
    tpath, st = timed
    return [
        ("edge features", link.path,
         "SAMPLE 5,5 FROM und SEEDS ntrain FEATURES feat EDGE FEATURES w "
         "BATCH 64 SHUFFLE SEED 2 EPOCHS 2"),
        ("link", link.path,
         "SAMPLE 5,3 FROM und EDGES train FEATURES feat EDGE FEATURES w "
         "BATCH 256 NEGATIVE 2 EXCLUDE SEEDS SHUFFLE SEED 3 LIMIT 4"),
        ("triplet", link.path,
         "SAMPLE 5 FROM dir EDGES dtrain BATCH 128 NEGATIVE 3 TRIPLET SEED 1 "
         "LIMIT 3"),
        ("time", tpath,
         "SAMPLE 4,3 FROM g SEEDS train AT TIMES '%s' FEATURES feat EDGE "
         "FEATURES w BATCH 32 SHUFFLE SEED 2" % st),
        ("edge time", tpath,
         "SAMPLE 4,2 FROM g EDGES a AT EDGE TIME FEATURES feat BATCH 64 "
         "NEGATIVE 2 EXCLUDE SEEDS SHUFFLE SEED 3 LIMIT 4"),
    ]


@pytest.mark.parametrize("case", range(5))
def test_packs_keep_every_array_of_link_time_and_edge_feature_batches(
        link, timed, tmp_path, case):
    """A pack record holds every array of the batch-field list that the
    batch holds (version 2 records): link labels, TRIPLET indices, e_id and
    edge_attr, and the time arrays come back from SCAN PACK as the online
    SAMPLE handed them out, and the digests agree with numpy's."""
    name, src, sql = pack_cases(link, timed)[case]
    path = str(tmp_path / "copy.gnndb")
    shutil.copytree(src, path)
    with gnndb.connect(path) as c:
        online = [every_array(b) for b in c.sample(sql + ";")]
        rows = c.execute(sql + " INTO PACK q;")
        assert rows[0][2] == len(online) > 0, name
        packed = [every_array(b) for b in c.sample("SCAN PACK q;")]
    assert len(packed) == len(online)
    for a, b in zip(online, packed):
        assert b["digest"] == b["mine"] == a["digest"] == a["mine"], name
        assert (a["epoch"], a["batch"], a["counts"]) == \
            (b["epoch"], b["batch"], b["counts"]), name
        for k in gnndb.Batch._ARRAYS:
            if a[k] is None:
                assert b[k] is None, (name, k)
            else:
                assert a[k].dtype == b[k].dtype, (name, k)
                np.testing.assert_array_equal(a[k], b[k], err_msg=name + k)


def test_a_typed_sample_into_a_pack_is_refused_and_changes_nothing(hetero,
                                                                  tmp_path):
    from heterodb import SQL
    path = str(tmp_path / "copy.gnndb")
    shutil.copytree(hetero.path, path)
    before = sorted(os.listdir(path))
    with gnndb.connect(path) as c:
        with pytest.raises(gnndb.Error) as ei:
            c.execute(SQL + " SEED 1 LIMIT 2 INTO PACK hp;")
        assert ei.value.code == gnndb.MISUSE
        assert "typed graph mag is not stored in packs" in str(ei.value)
        with pytest.raises(gnndb.Error):
            c.execute("DESCRIBE hp;")
    after = [f for f in sorted(os.listdir(path))
             if not f.endswith(("-shm", "-wal", "-lock"))]
    assert after == [f for f in before
                     if not f.endswith(("-shm", "-wal", "-lock"))]
