/*
** gnndb.h — the public C interface of gnndb, an embedded storage engine that
** serves mini-batches for training graph neural networks on graphs larger
** than memory.
**
** This header is the manual of the C API. Every function states what it
** returns, what it owns and what the caller must free. Handles are opaque.
**
** A typical loader:
**
**   gnndb *db;  gnndb_stmt *st;
**   if (gnndb_open("papers.gnndb", &db, GNNDB_OPEN_READONLY) != GNNDB_OK) ...
**   gnndb_prepare(db, "SAMPLE 10,10 FROM papers SEEDS train BATCH 1024;",
**                 -1, &st, NULL);
**   while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
**       const gnndb_batch_view *b = gnndb_batch(st);
**       train_on(b->n_id, b->edge_index, b->x, b->y);   // valid until next step
**   }
**   if (rc != GNNDB_DONE) fprintf(stderr, "%s\n", gnndb_errmsg(db));
**   gnndb_finalize(st);
**   gnndb_close(db);
**
** Threads and processes
**
**   A `gnndb *` handle, and every statement prepared on it, may be used by
**   one thread at a time. gnndb has no serialized mode: a handle is not
**   shared by threads that call into it concurrently. A thread may pass a
**   handle to another, provided the first has returned from every call on
**   it (a mutex or a queue orders the two).
**
**   Different handles may be used concurrently, even on the same database:
**   open one handle per thread (one connection per thread, as in SQLite).
**   Handles on the same database in one process share its LMDB environment,
**   so they may be opened and closed in any order.
**
**   Misuse is detected, not ignored: a thread that calls gnndb_prepare,
**   gnndb_step, gnndb_exec or gnndb_close on a handle while another thread
**   is inside gnndb_prepare, gnndb_step or gnndb_exec on it gets
**   GNNDB_MISUSE, and gnndb_errmsg() on that thread says "gnndb handle used
**   by two threads at once; use one handle per thread". Nothing on the
**   handle is changed. (Detection covers the calls that overlap; other
**   accessors are not checked.) Callbacks (gnndb_exec's, the progress
**   handler) run on the calling thread and may call back into the handle.
**
**   gnndb_interrupt() is the exception: it may be called from any thread,
**   or from a signal handler, at any time while the handle is open.
**
**   Several processes may open the same database at once: any number of
**   readers (GNNDB_OPEN_READONLY; data-parallel trainers each open their
**   own) and one writer. Readers go on reading, and see the state of the
**   last finished statement, while a writer imports. A statement that
**   writes while another process is writing fails with GNNDB_BUSY
**   ("database is busy"); gnndb does not wait: retry later.
**
**   After fork(), the child must not use handles its parent opened: open
**   databases in the child (an LMDB rule).
*/
#ifndef GNNDB_H
#define GNNDB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GNNDB_API __attribute__((visibility("default")))
#else
#define GNNDB_API
#endif

/* The version of this header. gnndb_libversion() gives the library's. */
#define GNNDB_VERSION        "0.1.0"
#define GNNDB_VERSION_NUMBER 1000 /* major*1000000 + minor*1000 + patch */

/* The newest on-disk format this library reads and writes: 4, a database
** holding a graph with more than one version (INSERT EDGES), which an
** older library would misread; a database is created at format 3 (edge
** ids) and moves to 4 at its first append. Opening a database written
** with a newer format fails with GNNDB_VERSION_MISMATCH, and so does one
** of format 1 (blocks without page checksums), whose message says how to
** rebuild it. A format 2 database opened writable is migrated to 3 (its
** graphs have no edge ids); opened read-only it is read as it is. */
#define GNNDB_FORMAT_VERSION 5

typedef struct gnndb gnndb;           /* an open database */
typedef struct gnndb_stmt gnndb_stmt; /* one prepared statement */

/* Result codes. Every function that can fail returns one of these; the words
** for the last failure on a handle come from gnndb_errmsg(). */
#define GNNDB_OK        0   /* success */
#define GNNDB_ERROR     1   /* generic error (see gnndb_errmsg) */
#define GNNDB_INTERNAL  2   /* a bug in gnndb */
#define GNNDB_NOMEM     3   /* out of memory, or memory_limit too small */
#define GNNDB_IOERR     4   /* an operating system I/O call failed */
#define GNNDB_CORRUPT   5   /* a block, index or catalog is damaged */
#define GNNDB_NOTFOUND  6   /* unknown graph, table, split or file */
#define GNNDB_EXISTS    7   /* the name is already taken */
#define GNNDB_BUSY      8   /* another process is writing the database */
#define GNNDB_SYNTAX    9   /* the statement does not parse */
#define GNNDB_MISUSE    10  /* the API was used wrongly */
#define GNNDB_RANGE     11  /* a value is out of its allowed range */
#define GNNDB_FORMAT    12  /* an input file is malformed */
#define GNNDB_INTERRUPT 13  /* gnndb_interrupt() stopped the statement */
#define GNNDB_FULL      14  /* the disk is full */
#define GNNDB_NODEVICE  15  /* no usable GPU for TO DEVICE 'cuda:N' */
#define GNNDB_CANTOPEN  16  /* the database cannot be opened */
#define GNNDB_READONLY  17  /* a write on a read-only connection */
#define GNNDB_VERSION_MISMATCH 18 /* the database has a newer (or a retired
                                    ** older) format */
#define GNNDB_ROW       100 /* gnndb_step(): a row of results is ready */
#define GNNDB_BATCH     101 /* gnndb_step(): a mini-batch is ready */
#define GNNDB_DONE      102 /* gnndb_step(): the statement has finished */

/* Flags of gnndb_open(). */
#define GNNDB_OPEN_READONLY  0x01 /* never write; several readers may share */
#define GNNDB_OPEN_READWRITE 0x02 /* read and write an existing database */
#define GNNDB_OPEN_CREATE    0x04 /* with READWRITE: create it if missing */

/* The library's version string, e.g. "0.1.0". Static storage. */
GNNDB_API const char *gnndb_libversion(void);

/* The words of the language, as sqlite3_keyword_name lists SQLite's: the
** i-th (from 0), in upper case, or NULL past the last. *reserved, when not
** NULL, is set to 1 for a word that cannot name a graph, table or split
** (SAMPLE, FEATURES), and to 0 for one that can (the words of a FORMAT or
** a REORDER, and those a newer grammar added, such as EDGES). Static
** storage. For tab completion and for checking a name before use. */
GNNDB_API const char *gnndb_keyword(int i, int *reserved);

/* Open the database at `path` (a directory, conventionally NAME.gnndb) and
** store a new handle in *pdb. With GNNDB_OPEN_CREATE the directory is created
** when missing. Even on failure *pdb is set to a handle (or NULL when memory
** ran out) whose gnndb_errmsg() says why; the caller closes it either way.
** Returns GNNDB_OK, GNNDB_CANTOPEN, GNNDB_CORRUPT, GNNDB_VERSION_MISMATCH,
** GNNDB_NOMEM or GNNDB_IOERR. */
GNNDB_API int gnndb_open(const char *path, gnndb **pdb, int flags);

/* Close a handle and free everything it owns. Statements not yet finalized
** are finalized. Accepts NULL. Returns GNNDB_OK, or GNNDB_MISUSE (closing
** nothing) when another thread is inside a call on the handle. */
GNNDB_API int gnndb_close(gnndb *db);

/* Run every statement of `sql` in turn. For each result row (and each
** mini-batch summary row of a SAMPLE) `cb`, when not NULL, is called with the
** column count, the values as text (NULL for SQL NULL) and the column names;
** the strings are valid during the call only. A non-zero return from `cb`
** stops execution with GNNDB_INTERRUPT. Returns GNNDB_OK or the error code of
** the first statement that failed; later statements are not run. */
GNNDB_API int gnndb_exec(gnndb *db, const char *sql,
                         int (*cb)(void *arg, int ncol, char **values,
                                   char **names),
                         void *arg);

/* The words for the most recent failure on `db` (English, UTF-8). Owned by
** the handle; valid until the next call on it. Never NULL. */
GNNDB_API const char *gnndb_errmsg(gnndb *db);

/* The code of the most recent failure on `db` (GNNDB_OK when none). */
GNNDB_API int gnndb_errcode(gnndb *db);

/* A short English description of a result code. Static storage. */
GNNDB_API const char *gnndb_errstr(int rc);

/* Compile the first statement of `sql` (`nbyte` bytes, or up to the NUL when
** negative). On success *pstmt is a new statement owned by the caller, who
** frees it with gnndb_finalize(); *pstmt is NULL when `sql` held only
** whitespace and comments. When `tail` is not NULL it receives a pointer into
** `sql` just past the compiled statement. Names are checked against the
** catalog here: an unknown graph, table or split fails now. Returns GNNDB_OK,
** GNNDB_SYNTAX, GNNDB_NOTFOUND, GNNDB_RANGE, GNNDB_NOMEM, GNNDB_ERROR (a
** SAMPLE whose plan EXPLAIN would warn of, under PRAGMA strict = on, among
** others), or GNNDB_MISUSE (a NULL argument, or another thread using the
** handle). */
GNNDB_API int gnndb_prepare(gnndb *db, const char *sql, int nbyte,
                            gnndb_stmt **pstmt, const char **tail);

/* Advance a statement. Returns GNNDB_ROW when a result row is ready,
** GNNDB_BATCH when a mini-batch is ready (SAMPLE; its summary row is readable
** through the column accessors too), GNNDB_DONE when finished, or an error
** code; after an error or DONE further steps return the same code. Data
** statements (CREATE, IMPORT, DROP) do all their work on the first step. */
GNNDB_API int gnndb_step(gnndb_stmt *stmt);

/* Free a statement and everything it owns, including the current batch.
** Accepts NULL. Returns GNNDB_OK. */
GNNDB_API int gnndb_finalize(gnndb_stmt *stmt);

/* The statement's source text, owned by the statement. */
GNNDB_API const char *gnndb_sql(gnndb_stmt *stmt);

/* Column types. */
#define GNNDB_INTEGER 1
#define GNNDB_FLOAT   2
#define GNNDB_TEXT    3
#define GNNDB_NULL    5

/* Column accessors: valid after gnndb_step() returned GNNDB_ROW or
** GNNDB_BATCH, until the next step or finalize. Strings are owned by the
** statement. An index out of range gives 0, 0.0, NULL or GNNDB_NULL. */
GNNDB_API int gnndb_column_count(gnndb_stmt *stmt);
GNNDB_API const char *gnndb_column_name(gnndb_stmt *stmt, int i);
GNNDB_API int gnndb_column_type(gnndb_stmt *stmt, int i);
GNNDB_API const char *gnndb_column_text(gnndb_stmt *stmt, int i);
GNNDB_API int64_t gnndb_column_int64(gnndb_stmt *stmt, int i);
GNNDB_API double gnndb_column_double(gnndb_stmt *stmt, int i);

/* Where a batch's arrays live. */
#define GNNDB_DEVICE_HOST 0
#define GNNDB_DEVICE_CUDA 1

/* A read-only view of one mini-batch, in the conventions of PyG's
** NeighborLoader. Every pointer is owned by the statement and valid until the
** next gnndb_step() or gnndb_finalize() on it.
**
** With TO DEVICE 'cuda:N', `device` is GNNDB_DEVICE_CUDA and every array
** below (a link batch's and, in a typed batch, every type's and relation's
** too) is a device pointer on device `device_index`, except the per-hop
** counts (num_sampled_nodes, num_sampled_edges, and a type's and a
** relation's), which stay host pointers, as do the names and the types and
** rels arrays of structs themselves. The arrays are complete when
** gnndb_step() returns: it waited for the batch's own copy (an event on
** `cuda_stream`), never for the whole device, and a copy that failed is an
** error of that step, never a batch handed out. The statement owns the
** device memory: the next step refills it, enqueued on `cuda_stream`, so
** work a caller enqueued on another stream that reads the arrays must have
** finished, or be ordered before that stream (cudaStreamWaitEvent), by the
** next step; or copy them (a device-to-device copy takes microseconds).
**
** With PRAGMA pin_memory = on, a host batch's arrays (n_id, edge_index, x,
** y) are in page-locked memory where the machine has a CUDA device, so a
** caller may copy them to a device asynchronously; the copy must be
** complete by the next step.
**
**   n_id[num_nodes]          global node ids in the user's id space: seeds
**                            first, then the nodes first reached at hop 1, ...
**   num_sampled_nodes[num_hops+1]  nodes first reached at each hop (0: seeds)
**   num_sampled_edges[num_hops]    edges sampled at each hop
**   edge_index[2*num_edges]  row-major 2 x E: edge_index[e] is the local index
**                            of the neighbour (source), edge_index[E+e] that
**                            of the node it was sampled for (target)
**   x[num_nodes*x_dim]       feature rows of n_id, row-major (NULL if none)
**   y[num_seeds]             labels of the seeds (NULL if no labels)
**   digest                   the 64-bit digest of the batch (docs/format.md):
**                            0 until gnndb_batch_digest() computes it
**
** A link batch (SAMPLE ... EDGES split) starts from B seed edges and their
** negatives: its seeds (n_id[0..num_seeds)) are the distinct endpoints of
** all of them, ascending by internal id (time-respecting, with AT EDGE
** TIME or AT TIMES, a root per endpoint slot instead: see node_seed
** below), and y is NULL. Its link
** fields, as PyG's LinkNeighborLoader names them (NULL and 0 in a node
** batch):
**
**   e_id[num_edges]          the input edge id (row of the graph's edge
**                            file) of each sampled edge; also set in a node
**                            batch that reads EDGE FEATURES
**   edge_attr[num_edges*edge_attr_dim]  the EDGE FEATURES rows of e_id
**   edge_label_index[2*num_label_edges] row-major 2 x L, local indices into
**                            n_id: the B positives, then the negatives
**   edge_label[num_label_edges]  1.0 for a positive, 0.0 for a negative
**   (NEGATIVE k TRIPLET instead of the two above:)
**   src_index[num_pos], dst_pos_index[num_pos]  each positive's endpoints
**   dst_neg_index[num_pos*num_neg]  k negative destinations per positive
**
** Under TO DEVICE the link fields are on the device too.
*/
/* A typed batch (a SAMPLE of a typed graph) per node type and per
** relation, as PyG's HeteroData holds it: ids local to the type, local
** indices into the type's n_id. */
typedef struct gnndb_type_view {
    const char *name;
    int64_t num_nodes;
    const int64_t *n_id;              /* ids local to the type */
    const int64_t *num_sampled_nodes; /* [num_hops+1]: seeds, then each hop */
    const float *x;                   /* num_nodes x x_dim, or NULL */
    int64_t x_dim;
    const int64_t *y;                 /* the seeds' type: labels of its seeds */
    int64_t num_seeds;                /* the seeds' type: BATCH or fewer */
} gnndb_type_view;

typedef struct gnndb_rel_view {
    const char *name;
    int32_t src_type, dst_type;       /* indices into types[] */
    int64_t num_edges;
    const int64_t *edge_index;        /* 2 x num_edges: source indices into
                                      ** the src type's n_id, then targets
                                      ** into the dst type's */
    const int64_t *num_sampled_edges; /* [num_hops] */
    /* with EDGE FEATURES w: each edge's input edge id (row i of the file
    ** the relation was made from; a relation and its reverse share them),
    ** and its row of w where the relation (or its reverse) has w; else
    ** NULL, and edge_attr_dim 0 */
    const int64_t *e_id;              /* [num_edges] */
    const float *edge_attr;           /* num_edges x edge_attr_dim */
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
    /* link batches (above) */
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
    /* typed batches: n_id and edge_index above hold global ids and
    ** indices over all types, x is NULL (x_dim 0), y the seeds' labels
    ** (their type's y), and these hold the same per type and per relation
    ** (0 and NULL in other batches) */
    int32_t num_node_types;
    int32_t num_relations;
    const gnndb_type_view *types;
    const gnndb_rel_view *rels;
    /* TO DEVICE 'cuda:N': the CUDA stream (a cudaStream_t) the batch was
    ** copied on; NULL for a host batch (see above) */
    void *cuda_stream;
    /* a time-respecting batch (SAMPLE ... AT TIMES 'f' | AT NODE TIME |
    ** EDGES split AT EDGE TIME | AT TIMES 'f'; NULL in every other
    ** batch), as PyG's
    ** temporal NeighborLoader hands out: each seed roots a tree of its
    ** own (a link batch's seeds are a root per endpoint slot, in the order
    ** its label arrays index them: docs/language.md, "Time"), and
    **   node_seed  num_nodes: the index (0 .. num_seeds - 1) of the seed
    **              whose tree holds the node (PyG's `batch`)
    **   time       num_seeds: each seed's time
    **   edge_time  num_edges: each sampled edge's time (under BY NODE
    **              TIME its source node's); e_id holds its input edge
    **              id */
    const int64_t *node_seed;
    const int64_t *time;
    const int64_t *edge_time;
} gnndb_batch_view;

/* The current mini-batch of a SAMPLE or SCAN statement, or NULL when the
** last step did not return GNNDB_BATCH. Owned by the statement (see above).
** A SCAN batch has no edges: num_hops 0, num_edges 0, n_id the rows' node
** ids, x the rows, y their labels. */
GNNDB_API const gnndb_batch_view *gnndb_batch(gnndb_stmt *stmt);

/* The digest of the current mini-batch (docs/format.md), computed on the
** first call for that batch and written into its view's `digest`, which
** is 0 until then: a digest reads every byte of the batch, so a step
** computes none unless asked. The digest column of the batch's summary row
** asks for it when read. 0 when the last step did not return GNNDB_BATCH
** (or another thread is using the handle). */
GNNDB_API uint64_t gnndb_batch_digest(gnndb_stmt *stmt);

/* The arrays of gnndb_batch_view, as the digest, the INTO files, TO DEVICE
** and packs walk them (the digest's order, docs/format.md), so that a binding
** can take them from here instead of listing them again: the i-th (from
** 0). Each out-parameter may be NULL; each string is static storage.
**   *name      its INTO file's name, less ".npy" ("n_id", "batch")
**   *member    its member of gnndb_batch_view ("n_id", "node_seed"; PyG's
**              `batch` is node_seed)
**   *is_float  1 for float32, 0 for int64
**   *optional  1 where a batch may lack it (a NULL pointer: absent), 0 for
**              n_id and edge_index, which every batch has (NULL when empty)
**   *dim0, *dim1  its shape: each the name of the view's count member
**              ("num_nodes", "num_edges", "num_seeds", "num_label_edges",
**              "num_pos", "num_neg", "x_dim", "edge_attr_dim") or a
**              constant ("2" in edge_index's 2 x num_edges); *dim1 NULL
**              for a 1-D array
** The per-hop counts and a typed batch's per-type and per-relation arrays
** are not among them. Returns GNNDB_OK, or GNNDB_RANGE (out-parameters
** untouched) when i is negative or past the last. */
GNNDB_API int gnndb_batch_field(int i, const char **name, const char **member,
                                int *is_float, int *optional,
                                const char **dim0, const char **dim1);

/* Counters of a statement, as sqlite3_stmt_status has: read them during or
** after its run. Unknown ops give -1. */
#define GNNDB_STATUS_SEED          1 /* the effective SEED of a SAMPLE */
#define GNNDB_STATUS_SEED_DRAWN    2 /* 1 when SEED was drawn, not given */
#define GNNDB_STATUS_BATCHES       3 /* mini-batches returned so far */
#define GNNDB_STATUS_TOTAL_BATCHES 4 /* mini-batches the run will return */
#define GNNDB_STATUS_BLOCKS_READ   5 /* blocks read from disk */
#define GNNDB_STATUS_BYTES_READ    6 /* bytes read from disk */
#define GNNDB_STATUS_CACHE_HITS    7 /* block and row requests served in memory */
#define GNNDB_STATUS_CACHE_MISSES  8 /* requests that needed a read */
#define GNNDB_STATUS_EDGES         9 /* sampled edges so far */
#define GNNDB_STATUS_HYPERBATCH    10 /* the effective HYPERBATCH */
#define GNNDB_STATUS_SAMPLE_CPU_NS 11 /* ns spent sampling blocks in memory */
#define GNNDB_STATUS_GATHER_CPU_NS 12 /* ns spent copying rows in memory */
#define GNNDB_STATUS_GATHER_BYTES  13 /* bytes of rows copied into x and y */
#define GNNDB_STATUS_IO_WAIT_NS    14 /* ns spent waiting for reads */
#define GNNDB_STATUS_SAMPLED_WORK  15 /* edges sampled, counting mini-batches
                                         cut from a hyperbatch and redone */
#define GNNDB_STATUS_ROW_CACHE_HITS   16 /* feature rows copied from the row
                                            cache (PRAGMA cache_policy) */
#define GNNDB_STATUS_ROW_CACHE_MISSES 17 /* feature rows not found in it */
#define GNNDB_STATUS_ROW_CACHE_SAVED  18 /* feature blocks not read because
                                            the cache held all their rows */
#define GNNDB_STATUS_SPILL_WRITTEN    19 /* bytes of mini-batches written to
                                            the spill area (PRAGMA temp_dir) */
#define GNNDB_STATUS_SPILL_READ       20 /* bytes of them read back */
#define GNNDB_STATUS_PAGES_READ       21 /* pages read by reads of part of a
                                            block (PRAGMA read_granularity);
                                            their bytes are in BYTES_READ */
#define GNNDB_STATUS_PARTIAL_BLOCKS   22 /* blocks read in part; BLOCKS_READ
                                            counts the blocks read whole */
#define GNNDB_STATUS_RSS_PEAK         23 /* the most resident bytes of the
                                            process (above the baseline of
                                            gnndb_memory_baseline) the
                                            executor saw at its memory checks:
                                            memory_limit's promise, measured */
#define GNNDB_STATUS_BUS_BYTES        24 /* TO DEVICE: bytes copied from host
                                            to device memory */
#define GNNDB_STATUS_DEVICE_CACHE_HITS 25 /* TO DEVICE: feature rows gathered
                                            from the GPU cache (PRAGMA
                                            gpu_cache) instead of crossing */
GNNDB_API int64_t gnndb_stmt_status(gnndb_stmt *stmt, int op);

/* Ask the statement running on `db` to stop at its next check point (before
** the next mini-batch is handed out, and inside long reads and imports); its
** gnndb_step() then returns GNNDB_INTERRUPT. Safe to call from another thread
** or a signal handler. A request made while nothing runs is forgotten: the
** first step of a statement clears it. */
GNNDB_API void gnndb_interrupt(gnndb *db);

/* Install a progress callback called about every `n` units of work (rows
** imported or mini-batches built) of long statements with (arg, done, total);
** total is 0 when unknown. A non-zero return interrupts the statement. A NULL
** callback removes it. */
GNNDB_API void gnndb_progress_handler(gnndb *db, int n,
                                      int (*cb)(void *arg, int64_t done,
                                                int64_t total),
                                      void *arg);

/* Memory. PRAGMA memory_limit is a promise about the process: while a
** statement runs, the resident bytes of the program that uses gnndb (the
** shell, or any program that links the library) stay within it. At prepare
** the engine takes out of the limit what the process already holds, the
** stacks and allocator arenas of the statement's threads and the kernel's
** share (page tables, I/O rings), and plans its data in the rest; a
** statement that cannot run in what is left is refused at prepare with the
** bytes it needs (GNNDB_NOMEM). EXPLAIN shows the division.
**
** A host whose own memory is not gnndb's to count (an interpreter and its
** libraries, a model, tensors it keeps) declares it: memory_limit then
** bounds the resident bytes above `bytes`. GNNDB_BASELINE_NOW takes the
** process's resident bytes at the call; GNNDB_BASELINE_PREPARE takes them
** anew at every gnndb_prepare, so that memory_limit bounds what each
** statement adds (the Python binding's choice: the interpreter, torch and
** the model stay outside, the loader's copies of batches inside); 0, the
** default, counts the whole process. Returns GNNDB_OK, or GNNDB_MISUSE for
** a NULL handle or a negative `bytes` other than these two. */
#define GNNDB_BASELINE_NOW     (-1)
#define GNNDB_BASELINE_PREPARE (-2)
GNNDB_API int gnndb_memory_baseline(gnndb *db, int64_t bytes);

#ifdef __cplusplus
}
#endif
#endif /* GNNDB_H */
