/* db.h — the connection handle (struct gnndb) and what every engine file
** shares: the catalog and index it opened, its pragmas, its error record,
** and the write lock that makes one process at a time a writer. */
#ifndef GNN_DB_H
#define GNN_DB_H

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include "gnndb.h"
#include "err.h"
#include "../catalog/catalog.h"
#include "index.h"
#include "blockfile.h"

/* gnndb_stmt_status ops are below this */
#define GNN_NSTATUS 26

typedef struct gnn_pragmas {
    int64_t memory_limit;   /* bytes for data: pools, cache, staged batches */
    int io;                 /* IO_AUTO, IO_URING or IO_PREAD */
    int threads;            /* sampling and gather workers */
    int io_depth;           /* reads in flight */
    int coalesce;           /* blocks per coalesced read */
    int64_t import_memory;  /* edge buffers of an import */
    int64_t feature_cache;  /* bytes of the row cache; -1: the plan's share */
    int cache_policy;       /* GNN_CACHE_* */
    char temp_dir[512];     /* the spill area; "": inside the database */
    int64_t spill_limit;    /* bytes the spill area may hold; 0: the disk */
    int spill;              /* GNN_SPILL_*: when a hyperbatch may spill */
    int read_granularity;   /* GNN_GRAN_*: whole blocks or their pages */
    int strict;             /* 1: a plan's warnings refuse the statement */
    int batch_copies;       /* copies of a batch the host keeps alive at once
                            ** (the Python loader's tensors), counted inside
                            ** memory_limit */
    int pin_memory;         /* 1: host batches in page-locked memory */
    int64_t gpu_cache;      /* bytes of feature rows kept on the device */
    double compact_fraction;/* in (0, 1]: an append that leaves more than
                            ** this fraction of a graph's blocks in delta
                            ** segments compacts the graph at once */
} gnn_pragmas;

#define GNN_GRAN_AUTO  0    /* per block, whichever the cost model prefers */
#define GNN_GRAN_BLOCK 1    /* always whole blocks */
#define GNN_GRAN_PAGE  2    /* always only the pages that hold what is needed */

#define GNN_SPILL_AUTO 0    /* when the cost model says it pays */
#define GNN_SPILL_ON   1    /* always: every hyperbatch goes through disk */
#define GNN_SPILL_OFF  2    /* never: the hyperbatch shrinks to fit memory */

/* PRAGMA cache_policy: which feature rows the executor's cache keeps
** (exec/fcache.c, exec/bcache.c); the planner sizes the cache by them. */
#define GNN_CACHE_NONE          0
#define GNN_CACHE_LRU           1
#define GNN_CACHE_STATIC_DEGREE 2
#define GNN_CACHE_BELADY        3
#define GNN_CACHE_HOT_BLOCKS    4  /* whole blocks pinned, not a row policy */

/* Bytes of bookkeeping a cached row costs besides its data: the hash slots
** that find it, its recency links and its heap entry (exec/fcache.c). */
#define GNN_CACHE_ROW_OVERHEAD 64

struct gnndb {
    char dir[512];          /* the database directory */
    int flags;
    cat_db *cat;
    idx_env *idx;
    gnn_err err;
    gnn_pragmas pragma;
    atomic_int interrupt;   /* set by gnndb_interrupt from any thread or a
                            ** signal handler (lock-free, so signal-safe) */
    int (*progress)(void *, int64_t, int64_t);
    void *progress_arg;
    int progress_n;
    int lock_fd;            /* the write lock file, held during writes */
    int64_t mem_base;       /* resident bytes that are the host's, outside
                            ** memory_limit (gnndb_memory_baseline) */
    int mem_base_at_prepare;/* ... taken anew at every prepare */
    int64_t last_status[GNN_NSTATUS];/* counters of the last statement (PRAGMA stats) */
    /* misuse detection: the thread inside gnndb_prepare/step/exec (an
    ** address unique to it, 0 when none) and how deep it is (exec calls
    ** prepare and step; callbacks may call in again) */
    atomic_uintptr_t owner;
    int depth;
};

/* Record an error on the handle and return rc. */
int db_error(gnndb *db, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Copy an internal error record onto the handle; returns its code. */
int db_take(gnndb *db, gnn_err *e);

/* Enter / leave a public entry point that uses the handle's state. A
** second thread entering while another is inside gets GNNDB_MISUSE (its
** gnndb_errmsg says so) and must not touch the handle; the owning thread
** may re-enter. */
int db_enter(gnndb *db);
void db_leave(gnndb *db);

/* Take the write lock (non-blocking): GNNDB_BUSY when another process
** writes, GNNDB_READONLY on a read-only handle. */
int db_write_lock(gnndb *db);
void db_write_unlock(gnndb *db);

/* The progress rule, for every long statement: `done` of `total` units of
** work are done (total 0: unknown), `step` of them since the last report.
** The handler of gnndb_progress_handler, when one is installed, is called
** when the step reached a multiple of its n; work that comes in chunks of
** its own size (rows of a block, bytes of a file) passes step 0 and reports
** every chunk, since a chunk seldom ends on a multiple of n. A non-zero
** return from the handler asks the statement to stop, as gnndb_interrupt
** does. Returns GNNDB_INTERRUPT when it is to stop (asked now or before),
** GNNDB_OK otherwise. */
int db_progress(gnndb *db, int64_t done, int64_t step, int64_t total);
/* The same as an importer's callback (imp_ctl.progress, its arg the
** handle): non-zero when the import is to stop. */
int db_import_progress(void *db, int64_t done, int64_t total);

/* Remove files and index keys that no catalog row refers to: the leftovers
** of a crash between publishing a file and committing the catalog. Runs
** under the write lock. */
int db_cleanup_orphans(gnndb *db, gnn_err *e);
/* The files the database still reads (engine/live_files.c): those its
** catalog names and the segments their maps name. */
typedef struct db_files {
    char **names;             /* the catalog's (cat_files) */
    size_t n;
    char (*segs)[64];         /* the maps' */
    size_t nsegs, capsegs;
    int partial;              /* a map could not be read */
} db_files;
int db_files_live(gnndb *db, db_files *f, gnn_err *e);
/* Add the segments map `name` names (none, and f->partial set, when it
** cannot be read). */
int db_files_add_segments(gnndb *db, db_files *f, const char *name);
int db_files_has(const db_files *f, const char *name);
void db_files_free(db_files *f);

/* Open the block file of table `t` (features or labels) of this database,
** checked against the catalog's block size, token and block count, with
** buffer-pool file id `id`. The caller closes *f with blkf_close(). */
int db_open_table(gnndb *db, const cat_table *t, int id, blk_file **f,
                  gnn_err *e);
/* The same for the topology of graph `g`. */
int db_open_graph(gnndb *db, const cat_graph *g, int id, blk_file **f,
                  gnn_err *e);
/* The same for the edge-id graph of `g` (GNNDB_NOTFOUND, with
** cat_graph_need_eids' words, when it has none), and its block index. */
int db_open_eid_graph(gnndb *db, const cat_graph *g, int id, blk_file **f,
                      gnn_err *e);
int db_load_eid_index(gnndb *db, const cat_graph *g, uint64_t **first_nodes,
                      uint64_t **block_nos, size_t *n, gnn_err *e);
/* The block index of graph `g` from index.mdb (idx_load_blocks' arrays,
** which the caller frees); a graph with nodes and no entries is corrupt. */
int db_load_graph_index(gnndb *db, const cat_graph *g, uint64_t **first_nodes,
                        uint64_t **block_nos, size_t *n, gnn_err *e);

/* Where spill areas go: PRAGMA temp_dir, else the database directory
** (owned by db). */
const char *db_temp_dir(const gnndb *db);

/* A fresh random 64-bit token (never 0). */
uint64_t db_new_token(void);

/* Parse sizes like "2GB", "512MB", "1048576" -> bytes; -1 when invalid. */
int64_t db_parse_size(const char *s);
/* Format bytes as "1.5 GiB" into buf. */
const char *db_fmt_size(int64_t bytes, char *buf, size_t len);

#endif
