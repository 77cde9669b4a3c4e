"""The digest of a batch (docs/format.md), recomputed with numpy from the
batch's arrays: an independent check of the engine's gnndb_batch_view
digest. A link batch, or any batch with e_id, hashes seven more sections
after y; a typed batch goes on with each type's n_id, x and y, then each
relation's edge_index, followed (with EDGE FEATURES, when the relation's
e_id is set) by its e_id and edge_attr. A time-respecting batch hashes
three more after the seven: node_seed, time and edge_time."""
import numpy as np

K0 = 0x6a09e667f3bcc908
K1 = np.uint64(0x9e3779b97f4a7c15)
K2 = 0xc2b2ae3d27d4eb4f
M = (1 << 64) - 1

# The sections after n_id, edge_index, x, y when e_id is present, in order.
LINK_SECTIONS = ("e_id", "edge_attr", "edge_label_index", "edge_label",
                 "src_index", "dst_pos_index", "dst_neg_index")
# The sections after those of a time-respecting batch (edge_time set):
# PyG's `batch` (node_seed here), the seeds' times, the edges' times.
TIME_SECTIONS = ("node_seed", "time", "edge_time")


def fmix(z):
    z = z ^ (z >> np.uint64(33))
    z = z * np.uint64(0xff51afd7ed558ccd)
    z = z ^ (z >> np.uint64(33))
    z = z * np.uint64(0xc4ceb9fe1a85ec53)
    return z ^ (z >> np.uint64(33))


def fmix_int(v):
    return int(fmix(np.array([v], dtype=np.uint64))[0])


def section_sum(arr):
    """(S, length in bytes) of one section; None is an empty section."""
    raw = b"" if arr is None else np.ascontiguousarray(arr).tobytes()
    pad = (-len(raw)) % 8
    w = np.frombuffer(raw + b"\0" * pad, dtype="<u8")
    i = np.arange(1, len(w) + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return int(fmix(w ^ (i * K1)).sum(dtype=np.uint64)) if len(w) else 0, \
            len(raw)


def digest(b):
    """The digest of batch `b` (a gnndb Batch or BatchCopy, or any object
    with its array attributes)."""
    sections = [b.n_id, b.edge_index, b.x, b.y]
    if getattr(b, "e_id", None) is not None:
        sections += [getattr(b, k, None) for k in LINK_SECTIONS]
    if getattr(b, "edge_time", None) is not None:
        sections += [getattr(b, k) for k in TIME_SECTIONS]
    types = getattr(b, "types", None) or {}
    for t in types.values():                # in the batch view's order
        sections += [t.n_id, t.x, t.y]
    for r in (getattr(b, "rels", None) or {}).values():
        sections.append(r.edge_index)
        # an absent edge_attr is an empty section, an absent e_id none at
        # all: typed digests without EDGE FEATURES stay as they were
        if getattr(r, "e_id", None) is not None:
            sections += [r.e_id, r.edge_attr]
    h = K0
    for arr in sections:
        s, n = section_sum(arr)
        h = fmix_int(h ^ s ^ ((n * K2) & M))
    return h
