"""The cffi (ABI mode) declarations of include/gnndb.h and the library loader.

Only what the binding uses is declared; the layout of gnndb_batch_view must
match the header field for field.
"""
import os
import threading

from cffi import FFI

ffi = FFI()
ffi.cdef("""
typedef struct gnndb gnndb;
typedef struct gnndb_stmt gnndb_stmt;

#define GNNDB_OK        0
#define GNNDB_ERROR     1
#define GNNDB_INTERNAL  2
#define GNNDB_NOMEM     3
#define GNNDB_IOERR     4
#define GNNDB_CORRUPT   5
#define GNNDB_NOTFOUND  6
#define GNNDB_EXISTS    7
#define GNNDB_BUSY      8
#define GNNDB_SYNTAX    9
#define GNNDB_MISUSE    10
#define GNNDB_RANGE     11
#define GNNDB_FORMAT    12
#define GNNDB_INTERRUPT 13
#define GNNDB_FULL      14
#define GNNDB_NODEVICE  15
#define GNNDB_CANTOPEN  16
#define GNNDB_READONLY  17
#define GNNDB_VERSION_MISMATCH 18
#define GNNDB_ROW       100
#define GNNDB_BATCH     101
#define GNNDB_DONE      102

#define GNNDB_OPEN_READONLY  1
#define GNNDB_OPEN_READWRITE 2
#define GNNDB_OPEN_CREATE    4

#define GNNDB_INTEGER 1
#define GNNDB_FLOAT   2
#define GNNDB_TEXT    3
#define GNNDB_NULL    5

#define GNNDB_DEVICE_HOST 0
#define GNNDB_DEVICE_CUDA 1

#define GNNDB_STATUS_SEED          1
#define GNNDB_STATUS_SEED_DRAWN    2
#define GNNDB_STATUS_BATCHES       3
#define GNNDB_STATUS_TOTAL_BATCHES 4
#define GNNDB_STATUS_BLOCKS_READ   5
#define GNNDB_STATUS_BYTES_READ    6
#define GNNDB_STATUS_CACHE_HITS    7
#define GNNDB_STATUS_CACHE_MISSES  8
#define GNNDB_STATUS_EDGES         9
#define GNNDB_STATUS_HYPERBATCH    10
#define GNNDB_STATUS_PAGES_READ       21
#define GNNDB_STATUS_PARTIAL_BLOCKS   22

const char *gnndb_libversion(void);
int gnndb_open(const char *path, gnndb **pdb, int flags);
int gnndb_close(gnndb *db);
const char *gnndb_errmsg(gnndb *db);
int gnndb_errcode(gnndb *db);
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
} gnndb_batch_view;

const gnndb_batch_view *gnndb_batch(gnndb_stmt *stmt);
int64_t gnndb_stmt_status(gnndb_stmt *stmt, int op);
void gnndb_interrupt(gnndb *db);
void gnndb_progress_handler(gnndb *db, int n,
                            int (*cb)(void *arg, int64_t done, int64_t total),
                            void *arg);
""")

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
