/* gcache.h — the GPU feature cache's host side (PRAGMA gpu_cache): which
** rows it keeps, where each lies in device memory, and per batch which rows
** are gathered there and which must cross the bus. Plain C, no CUDA: the
** transfer operator (xfer_cuda.cu) drives it, the kernel (gcache_kernel.h)
** follows the index arrays it writes, and the tests check both on the host.
**
** Policy `frequency` (static, as DiskGNN picks hot rows from a planned
** round): the first `warm` mini-batches handed out (the plan's first round,
** at most GC_WARM_MAX) are counted, row by row of n_id, and the `rows`
** most frequent (ties: the lower id) get a slot each. From then on the set
** does not change. A slot is filled the first time its row crosses the bus
** (the kernel writes it while it copies the row into the batch), and is
** served from the device once that batch's copy is known complete
** (gc_commit), so a later batch never reads a slot still being written.
**
** Keys are the ids of n_id as handed out, so the cache serves node and link
** batches (their x is one row per node); typed batches are not cached. */
#ifndef GNN_GCACHE_H
#define GNN_GCACHE_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"

/* At most this many mini-batches are counted before the choice. */
#define GC_WARM_MAX 16

typedef struct gcache {
    int64_t rows;          /* slots on the device */
    int64_t dim;           /* floats a row */
    int warm_left;         /* batches still to count; 0: chosen */
    /* counting: an open-addressing table of ids and their counts; ids
    ** beyond `climit` distinct ones are not counted */
    int64_t *ckey;
    uint32_t *ccount;
    size_t ccap, cn, climit;
    /* after the choice: id -> slot, and whether each slot holds its row */
    int64_t *skey;
    int32_t *sslot;
    size_t scap;
    uint8_t *valid;
    int64_t chosen;        /* slots given a row (at most `rows`) */
    int64_t filled;        /* slots that hold it */
} gcache;

/* A cache of `rows` rows of `dim` floats, counting the first `warm` batches
** (at least 1, at most GC_WARM_MAX). */
int gc_init(gcache *g, int64_t rows, int64_t dim, int warm, gnn_err *e);
void gc_free(gcache *g);
/* Host bytes the cache's index holds at most for `rows` rows (the counting
** table, then the slot table and the valid bits): what the planner counts
** inside memory_limit. */
size_t gc_host_bytes(int64_t rows);

/* While counting: count the n ids of one batch; the last counted batch
** makes the choice. GNNDB_NOMEM when the slot table cannot be made. */
int gc_observe(gcache *g, const int64_t *ids, int64_t n, gnn_err *e);
/* Whether batches are served from the cache (the choice is made). */
static inline int gc_ready(const gcache *g) { return g->warm_left == 0; }

/* One batch's plan, for rows i = 0..n-1 of its x (ids[i] its node):
** src[i] = the slot of a row the device holds, or -(m + 1) for the m-th
** missing row, which crosses the bus; miss[m] = i; admit[m] = the slot the
** missing row fills, or -1. Returns the number of missing rows. */
int64_t gc_plan(const gcache *g, const int64_t *ids, int64_t n, int32_t *src,
                int32_t *miss, int32_t *admit);
/* The batch planned with `admit` (nmiss entries) is complete on the
** device: its admitted rows are now served from their slots. */
void gc_commit(gcache *g, const int32_t *admit, int64_t nmiss);

#endif
