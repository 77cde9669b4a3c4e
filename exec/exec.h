/* exec.h — the hyperbatch executor: runs a plan and hands out mini-batches
** one at a time, built H at a time. */
#ifndef GNN_EXEC_H
#define GNN_EXEC_H

#include <stdint.h>
#include "plan.h"
#include "rowset.h"

typedef struct hb_exec hb_exec;
/* The context the executor's operators share (exec_int.h); opaque here. */
typedef struct hb_ctx hb_ctx;

typedef struct hb_opstats {
    double seconds;
    double cpu_seconds;        /* inside block visits: work on data in memory */
    uint64_t bytes_out;        /* gather: bytes copied */
    uint64_t blocks_read, bytes_read, hits, misses, reads_issued;
    uint64_t pages_read, partial_blocks; /* reads of part of a block */
    uint64_t items;            /* nodes sampled / rows gathered */
    uint64_t edges;
} hb_opstats;

typedef struct hb_stats {
    hb_opstats seeds;          /* each mini-batch's seeds (seeds.c) */
    hb_opstats hop[AST_MAX_HOPS];
    hb_opstats gather;
    hb_opstats transfer;
    uint64_t batches, hyperbatches, edges, nodes;
    uint64_t shrunk;           /* hyperbatches cut short to fit memory */
    uint64_t max_hyperbatch;   /* the largest hyperbatch built */
    /* the row cache (fcache.c): accesses found in it and not, feature
    ** blocks it spared a read, and blocks read to fill a static cache */
    uint64_t cache_hits, cache_misses, cache_blocks_saved, cache_fill_blocks;
    /* the spill area: mini-batches spilled, bytes written and read back,
    ** the most it held at once, and time spent writing, waiting for reads
    ** (spill.seconds: writing topology and sealing runs; spill.cpu_seconds:
    ** putting rows read back into order) */
    hb_opstats spill;
    uint64_t spill_batches, spill_written, spill_read, spill_peak;
    uint64_t spill_hot_rows;   /* rows served from the hot rows, not runs */
    double spill_read_wait, spill_write_seconds;
    uint64_t overlapped;       /* rounds built while one was handed out */
    uint64_t resident_rounds;  /* rounds built from pinned resident blocks */
    int64_t rss_peak;          /* the most resident bytes seen at a check */
    /* bytes read from the database (blocks and pages) when the first
    ** epoch's rounds were built, and the epochs begun */
    uint64_t epoch0_read;
    int64_t epochs_begun;
    double seconds;
} hb_stats;

int hb_open(gnndb *db, plan *p, hb_exec **out, gnn_err *e);
/* The next mini-batch: GNNDB_BATCH with *view set (owned by the executor,
** valid until the next call), GNNDB_DONE, or an error code. */
int hb_next(hb_exec *x, const gnndb_batch_view **view, gnn_err *e);
/* The digest of the batch hb_next handed out last, computed into its view
** (and into the device view under TO DEVICE): hb_next leaves it 0, since
** it reads every byte of the batch. */
void hb_digest(hb_exec *x);
/* The batch hb_next handed out last, in host memory (owned by x, valid
** until the next call; NULL before the first): the view hb_next gave, or
** under TO DEVICE the host batch it was copied from, whose arrays, unlike
** the device view's, the host can read. */
const gnndb_batch_view *hb_host_view(const hb_exec *x);
/* Bytes read from the database so far, blocks and pages of every hop and
** of the gather. */
uint64_t hb_bytes_read(const hb_stats *s);
/* The counters so far (owned by x, valid until the next call). */
const hb_stats *hb_get_stats(hb_exec *x);
void hb_close(hb_exec *x);

/* The 64-bit digest of a batch (docs/format.md gives the definition). */
uint64_t batch_digest(const gnndb_batch_view *v);
/* The same, with the work spread over a worker pool (NULL: inline). */
struct wpool;
uint64_t batch_digest_pool(const gnndb_batch_view *v, struct wpool *pool);

/* Write a batch's arrays as .npy files into `dir` (created). */
int batch_write_npy(const gnndb_batch_view *v, const char *dir, gnn_err *e);

#endif
