"""The time tests' reference: a brute-force temporal sampler written from
docs/language.md ("Time"), apart from the engine, and a reader that copies
every batch of a statement, and the layout of a link batch's roots. A
graph `g` is a dict of numpy arrays: src and dst (input edge i is src[i]
-> dst[i]), t (edge times) and nt (node times)."""
import shutil

import numpy as np

import gnndb


def batches(path, sql, fields, pragmas=None):
    """Every batch of `sql` on the database at `path` (after the statements
    `pragmas`, when given): a dict of numpy copies of `fields` (None where
    the batch has no such array) and its digest."""
    out = []
    with gnndb.connect(path, readonly=True) as c:
        if pragmas:
            c.execute(pragmas)
        for b in c.sample(sql):
            d = {}
            for k in fields:
                a = getattr(b, k)
                d[k] = None if a is None else np.array(a)
            d["digest"] = b.digest
            out.append(d)
    return out


def eligible(g, v, T, strict, window, by_node=False):
    """The input edges into v whose time passes against root time T, in
    the order (time, source, edge id); an edge's time is its own, or with
    by_node its source's node time."""
    e = np.nonzero(g["dst"] == v)[0]
    tt = g["nt"][g["src"][e]] if by_node else g["t"][e]
    ok = tt < T if strict else tt <= T
    if window:
        ok &= tt > T - window
    e, tt = e[ok], tt[ok]
    return e[np.lexsort((e, g["src"][e], tt))]


def reference_last(g, roots, times, fanouts, strict=False, window=0,
                   exclude=(), by_node=False):
    """TEMPORAL LAST by brute force: each root's tree apart (root r at
    times[r]), nodes numbered in frontier order, each node's picks the
    latest k eligible edges (every one for k < 0), less those in `exclude`
    (dropped after the choice, before their source joins). Returns n_id,
    edge_index, e_id and each node's root."""
    nodes = list(roots)
    root = list(range(len(roots)))
    where = {(r, v): r for r, v in enumerate(roots)}
    es, ed, eid = [], [], []
    lo = 0
    for k in fanouts:
        hi = len(nodes)
        for i in range(lo, hi):
            r = root[i]
            el = eligible(g, nodes[i], times[r], strict, window, by_node)
            for e in (el if k < 0 else el[max(0, len(el) - k):]):
                if int(e) in exclude:
                    continue
                u = int(g["src"][e])
                if (r, u) not in where:
                    where[(r, u)] = len(nodes)
                    nodes.append(u)
                    root.append(r)
                es.append(where[(r, u)])
                ed.append(i)
                eid.append(int(e))
        lo = hi
    return (np.array(nodes), np.array([es, ed]).reshape(2, -1),
            np.array(eid, dtype=np.int64), np.array(root))


def link_roots(b, src, dst, tp, k, triplet):
    """Check the roots of link batch b (docs: "AT EDGE TIME") against its
    seed edges src[i] -> dst[i] (in order) at times tp[i], with k negatives
    each, and return (roots, their times): sources then destinations of
    the label edges (binary), or sources, positive and negative
    destinations (triplet); a negative at its positive's time."""
    B = len(src)
    r = b["n_id"]
    if triplet:
        n = 2 * B + k * B
        np.testing.assert_array_equal(r[:B], src)
        np.testing.assert_array_equal(r[B:2 * B], dst)
        times = np.concatenate([tp, tp, np.repeat(tp, k)])
        np.testing.assert_array_equal(b["src_index"], np.arange(B))
        np.testing.assert_array_equal(b["dst_pos_index"], np.arange(B, 2 * B))
        np.testing.assert_array_equal(b["dst_neg_index"].ravel(),
                                      np.arange(2 * B, n))
    else:
        L = B + k * B
        n = 2 * L
        np.testing.assert_array_equal(r[:B], src)
        np.testing.assert_array_equal(r[B:L], np.repeat(src, k))
        np.testing.assert_array_equal(r[L:L + B], dst)
        times = np.tile(np.concatenate([tp, np.repeat(tp, k)]), 2)
        np.testing.assert_array_equal(b["edge_label_index"],
                                      np.stack([np.arange(L),
                                                np.arange(L, 2 * L)]))
        np.testing.assert_array_equal(b["edge_label"],
                                      np.r_[np.ones(B), np.zeros(k * B)])
    assert int(b["num_sampled_nodes"][0]) == n
    np.testing.assert_array_equal(b["time"], times)
    return r[:n], times


def with_edge_features(src, tmp_path, rows, dim, seed):
    """A copy, in tmp_path, of the database at src whose graph g gains
    edge features w (rows x dim, standard normal from `seed`): (its path,
    w)."""
    w = np.random.default_rng(seed).standard_normal((rows, dim))
    w = w.astype(np.float32)
    np.save(tmp_path / "w.npy", w)
    path = str(tmp_path / "w.gnndb")
    shutil.copytree(src, path)
    with gnndb.connect(path) as c:
        c.execute("IMPORT EDGE FEATURES w INTO g FROM '%s';" %
                  (tmp_path / "w.npy"))
    return path, w


def check_edge_features(path, sql, fields, w, pragmas):
    """sql ({ef} where EDGE FEATURES go) with EDGE FEATURES w gives, under
    each of `pragmas`, the batches it gives without them in `fields` (e_id
    among them), and each batch's edge_attr is the rows of its e_id.
    Returns the batches without."""
    plain = batches(path, sql.format(ef=""), fields + ("edge_attr",))
    assert all(b["edge_attr"] is None for b in plain)
    for pr in pragmas:
        got = batches(path, sql.format(ef="EDGE FEATURES w"),
                      fields + ("edge_attr",), pr)
        assert len(got) == len(plain)
        for b, ref in zip(got, plain):
            for k in fields:
                if ref[k] is None:
                    assert b[k] is None, k
                else:
                    np.testing.assert_array_equal(b[k], ref[k])
            assert b["edge_attr"].shape == (len(b["e_id"]), w.shape[1])
            np.testing.assert_array_equal(b["edge_attr"], w[b["e_id"]])
    return plain
