/* pagefetch.h — reads of some pages of blocks: for each block, page 0 (its
** header and page checksums) and the runs of pages that hold what the
** caller needs, read through the I/O backend into a frame borrowed from a
** buffer pool, each page at its place in the block, verified page by page
** and handed to the caller; the frame goes back to the pool uncached, since
** it does not hold the whole block. */
#ifndef GNN_PAGEFETCH_H
#define GNN_PAGEFETCH_H

#include <stddef.h>
#include <stdint.h>
#include "bufpool.h"

typedef struct pf_stats {
    uint64_t blocks;   /* blocks read in part */
    uint64_t pages;    /* pages read (page 0 and gaps included) */
    uint64_t bytes;
    uint64_t reads;    /* I/O requests */
} pf_stats;

/* A run of adjacent pages of one block. */
typedef struct pf_run {
    uint32_t first, n;
} pf_run;

/* The runs that read page 0 and pages[0..n) (ascending, no repeats) when
** wanted pages at most `gap` pages apart are read in one request (the pages
** between them are read too). Writes at most n + 1 runs to out; returns
** how many. */
size_t pf_runs(const uint32_t *pages, size_t n, unsigned gap, pf_run *out);

/* A second read of a block, for what only its first pages tell (where a
** graph block's objects lie, from its offset table): called once the first
** runs of block `no` have landed and been verified, it marks in
** map[0..npages) the further pages the visit needs (marking a page already
** read costs nothing). A non-OK return fails the fetch. */
typedef int (*pf_more_fn)(void *arg, uint64_t no, const void *data,
                          uint8_t *map, gnn_err *e);

/* Visit blocks[0..n) (ascending, no repeats) read in part: block i needs
** the runs runs[rstart[i] .. rstart[i+1]) (from pf_runs, page 0 first). All
** runs of as many blocks as the pool lends frames and the backend takes
** requests are in flight at once, queued together and started with one
** flush; each block is verified (blk_verify_pages) and visited as soon as
** its last run lands, in any order. A damaged page fails the fetch with
** GNNDB_CORRUPT naming file, block and page; nothing of it is visited.
** Counts into *st. */
typedef struct pf_visit {
    bp_visit_fn visit;   /* the block, its needed pages read and verified */
    pf_more_fn more;     /* NULL: the first runs are all a block needs */
    void *arg;           /* of both */
    unsigned gap;        /* how more's pages are merged into runs */
} pf_visit;

int pf_fetch(bp_pool *bp, blk_file *f, const uint64_t *blocks, size_t n,
             const pf_run *runs, const size_t *rstart, const pf_visit *v,
             pf_stats *st, gnn_err *e);

#endif
