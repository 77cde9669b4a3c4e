"""The cffi (ABI mode) declarations of include/gnndb.h and the library loader.

Only what the binding uses is declared; the layout of gnndb_batch_view must
match the header field for field.
"""
import os
import threading

from cffi import FFI

# The constants of include/gnndb.h, named without GNNDB_: the one copy in
# Python. The cdef declares each as GNNDB_<name> and gnndb/__init__.py
# exports the result codes, column types and status ops under these names;
# python/tests/test_constants.py checks every one against the header.
RESULT_CODES = {
    "OK": 0, "ERROR": 1, "INTERNAL": 2, "NOMEM": 3, "IOERR": 4,
    "CORRUPT": 5, "NOTFOUND": 6, "EXISTS": 7, "BUSY": 8, "SYNTAX": 9,
    "MISUSE": 10, "RANGE": 11, "FORMAT": 12, "INTERRUPT": 13, "FULL": 14,
    "NODEVICE": 15, "CANTOPEN": 16, "READONLY": 17, "VERSION_MISMATCH": 18,
    "ROW": 100, "BATCH": 101, "DONE": 102,
}
OPEN_FLAGS = {"OPEN_READONLY": 1, "OPEN_READWRITE": 2, "OPEN_CREATE": 4}
COLUMN_TYPES = {"INTEGER": 1, "FLOAT": 2, "TEXT": 3, "NULL": 5}
DEVICES = {"DEVICE_HOST": 0, "DEVICE_CUDA": 1}
STATUS_OPS = {
    "STATUS_SEED": 1, "STATUS_SEED_DRAWN": 2, "STATUS_BATCHES": 3,
    "STATUS_TOTAL_BATCHES": 4, "STATUS_BLOCKS_READ": 5,
    "STATUS_BYTES_READ": 6, "STATUS_CACHE_HITS": 7,
    "STATUS_CACHE_MISSES": 8, "STATUS_EDGES": 9, "STATUS_HYPERBATCH": 10,
    "STATUS_SAMPLE_CPU_NS": 11, "STATUS_GATHER_CPU_NS": 12,
    "STATUS_GATHER_BYTES": 13, "STATUS_IO_WAIT_NS": 14,
    "STATUS_SAMPLED_WORK": 15, "STATUS_ROW_CACHE_HITS": 16,
    "STATUS_ROW_CACHE_MISSES": 17, "STATUS_ROW_CACHE_SAVED": 18,
    "STATUS_SPILL_WRITTEN": 19, "STATUS_SPILL_READ": 20,
    "STATUS_PAGES_READ": 21, "STATUS_PARTIAL_BLOCKS": 22,
    "STATUS_RSS_PEAK": 23, "STATUS_BUS_BYTES": 24,
    "STATUS_DEVICE_CACHE_HITS": 25,
}
BASELINES = {"BASELINE_NOW": -1, "BASELINE_PREPARE": -2}
CONSTANTS = {**RESULT_CODES, **OPEN_FLAGS, **COLUMN_TYPES, **DEVICES,
             **STATUS_OPS, **BASELINES}

ffi = FFI()
ffi.cdef("".join("#define GNNDB_%s %d\n" % kv for kv in CONSTANTS.items()))
# The header's declarations that the binding uses, copied verbatim
# (python/tests/test_constants.py holds them to include/gnndb.h).
CDEF = """
typedef struct gnndb gnndb;
typedef struct gnndb_stmt gnndb_stmt;

const char *gnndb_libversion(void);
int gnndb_open(const char *path, gnndb **pdb, int flags);
int gnndb_close(gnndb *db);
const char *gnndb_errmsg(gnndb *db);
int gnndb_errcode(gnndb *db);
int gnndb_memory_baseline(gnndb *db, int64_t bytes);
const char *gnndb_errstr(int rc);
int gnndb_prepare(gnndb *db, const char *sql, int nbyte,
                  gnndb_stmt **pstmt, const char **tail);
int gnndb_step(gnndb_stmt *stmt);
int gnndb_finalize(gnndb_stmt *stmt);
const char *gnndb_sql(gnndb_stmt *stmt);

int gnndb_column_count(gnndb_stmt *stmt);
const char *gnndb_column_name(gnndb_stmt *stmt, int i);
int gnndb_column_type(gnndb_stmt *stmt, int i);
const char *gnndb_column_text(gnndb_stmt *stmt, int i);
int64_t gnndb_column_int64(gnndb_stmt *stmt, int i);
double gnndb_column_double(gnndb_stmt *stmt, int i);

typedef struct gnndb_type_view {
    const char *name;
    int64_t num_nodes;
    const int64_t *n_id;
    const int64_t *num_sampled_nodes;
    const float *x;
    int64_t x_dim;
    const int64_t *y;
    int64_t num_seeds;
} gnndb_type_view;

typedef struct gnndb_rel_view {
    const char *name;
    int32_t src_type, dst_type;
    int64_t num_edges;
    const int64_t *edge_index;
    const int64_t *num_sampled_edges;
    const int64_t *e_id;
    const float *edge_attr;
    int64_t edge_attr_dim;
} gnndb_rel_view;

typedef struct gnndb_batch_view {
    int64_t epoch;
    int64_t batch;
    int64_t num_seeds;
    int64_t num_nodes;
    int64_t num_edges;
    int32_t num_hops;
    int32_t device;
    int32_t device_index;
    const int64_t *n_id;
    const int64_t *num_sampled_nodes;
    const int64_t *num_sampled_edges;
    const int64_t *edge_index;
    const float *x;
    int64_t x_dim;
    const int64_t *y;
    uint64_t digest;
    /* link batches */
    const int64_t *e_id;
    const float *edge_attr;
    int64_t edge_attr_dim;
    int64_t num_label_edges;
    const int64_t *edge_label_index;
    const float *edge_label;
    int64_t num_pos;
    int64_t num_neg;
    const int64_t *src_index;
    const int64_t *dst_pos_index;
    const int64_t *dst_neg_index;
    /* typed batches */
    int32_t num_node_types;
    int32_t num_relations;
    const gnndb_type_view *types;
    const gnndb_rel_view *rels;
    void *cuda_stream;
    /* time-respecting batches */
    const int64_t *node_seed;
    const int64_t *time;
    const int64_t *edge_time;
} gnndb_batch_view;

const gnndb_batch_view *gnndb_batch(gnndb_stmt *stmt);
uint64_t gnndb_batch_digest(gnndb_stmt *stmt);
int gnndb_batch_field(int i, const char **name, const char **member,
                      int *is_float, int *optional,
                      const char **dim0, const char **dim1);
int64_t gnndb_stmt_status(gnndb_stmt *stmt, int op);
void gnndb_interrupt(gnndb *db);
void gnndb_progress_handler(gnndb *db, int n,
                            int (*cb)(void *arg, int64_t done, int64_t total),
                            void *arg);
"""
ffi.cdef(CDEF)

# The package's own folder: `pip install` puts libgnndb.so here. In a
# checkout (python/gnndb/_ffi.py) the repository root is two levels up.
PKG_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(PKG_DIR))

_lock = threading.Lock()
_lib = None
_lib_path = None


def candidates():
    """The places looked at, in order: $GNNDB_LIB; the libgnndb.so bundled
    in the package (pip install); the build folder of the checkout the
    package sits in; then the system loader's libgnndb.so.0 (make install)."""
    env = os.environ.get("GNNDB_LIB")
    if env:
        return [env]
    places = [os.path.join(PKG_DIR, "libgnndb.so")]
    # Only in a checkout: an installed package has no build/ beside it.
    if os.path.exists(os.path.join(REPO_ROOT, "include", "gnndb.h")):
        places.append(os.path.join(REPO_ROOT, "build", "libgnndb.so"))
    places.append("libgnndb.so.0")
    return places


def load():
    """Open libgnndb once and return it. $GNNDB_LIB, when set, is the only
    place tried, so that a wrong setting fails loudly instead of silently
    picking up another build."""
    global _lib, _lib_path
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        errors = []
        for path in candidates():
            if os.sep in path and not os.path.exists(path):
                errors.append("%s: no such file" % path)
                continue
            try:
                lib = ffi.dlopen(path)
            except OSError as exc:
                errors.append("%s: %s" % (path, exc))
                continue
            _lib, _lib_path = lib, path
            return lib
        raise OSError("gnndb: cannot load libgnndb (" + "; ".join(errors) +
                      "); build it with `make`, install the package with "
                      "`pip install .`, or set GNNDB_LIB")


def lib_path():
    """The path the library was loaded from (loads it when needed)."""
    load()
    return _lib_path
