"""The C allocator's mmap threshold, fixed for loaders that promise a
memory bound.

glibc serves a block larger than its mmap threshold (128 KiB at start) with
a mapping of its own, unmapped when freed; but each time such a block is
freed it raises the threshold to that block's size, up to 32 MiB. After a
few batches, blocks of a batch's size (a feature matrix, the loader's
tensor copies) come from its arenas instead, and a freed one stays there,
resident, until it happens to be reused: with the engine's worker threads
each on an arena of its own, a loader under memory_limit 64 MiB grew 2-4
MiB past it in some runs. Setting the threshold (mallopt M_MMAP_THRESHOLD)
ends that adjustment. It is a property of the process, so the loaders set
it when they start, once; GNNDB_KEEP_MALLOC=1 in the environment leaves
the allocator as it is."""
import ctypes
import os

M_MMAP_THRESHOLD = -3
THRESHOLD = 1 << 20     # blocks of a mebibyte and more: mapped, unmapped


def fix_mmap_threshold():
    """Fix glibc's mmap threshold at THRESHOLD; whether it was set (False
    where the C library is not glibc, or GNNDB_KEEP_MALLOC is set)."""
    if os.environ.get("GNNDB_KEEP_MALLOC"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return mallopt(M_MMAP_THRESHOLD, THRESHOLD) == 1
