/* granularity.h — read granularity: for each block an operator needs, the
** pages that hold what it needs of it, and whether reading only those
** (pagefetch.c) beats reading the whole block (bufpool.c) by the cost
** model's disk profile; then both kinds of read, one visit per block. */
#ifndef GNN_GRANULARITY_H
#define GNN_GRANULARITY_H

#include <stddef.h>
#include <stdint.h>
#include "bufpool.h"
#include "pagefetch.h"
#include "../catalog/catalog.h"

struct hb_opstats;

typedef struct gran {
    int mode;                  /* GNN_GRAN_* */
    const cat_profile *pr;
    /* one operator's split: blocks read whole, blocks read in part and
    ** their runs of pages */
    uint64_t *whole, *part;
    size_t nwhole, npart, capwhole, cappart;
    pf_run *runs;
    size_t nruns, capruns;
    size_t *rstart;
    size_t caprstart;
} gran;

/* Marks in map[0..npages) (1: needed) the pages of block `no` (the i-th of
** the list) that hold what the operator needs of it. */
typedef void (*gran_mark_fn)(void *arg, size_t i, uint64_t no, uint8_t *map);

/* What an operator tells the choice and the reads. */
typedef struct gran_ops {
    gran_mark_fn mark;   /* the pages of the first read of each block */
    pf_more_fn more;     /* NULL, or the pages only the first read shows */
    /* the estimated seconds of the reads `more` will ask of block i of the
    ** list (NULL: none) */
    double (*later)(void *arg, size_t i, uint64_t no);
    bp_visit_fn visit;
    void *arg;           /* of all four */
} gran_ops;

/* Visit blocks[0..n) (ascending): each read whole or in part as the mode
** and the cost model say (a block in the pool is visited from it), the
** figures added to *o. */
int gran_fetch(gran *g, bp_pool *bp, blk_file *f, const uint64_t *blocks,
               size_t n, const gran_ops *ops, struct hb_opstats *o,
               gnn_err *e);

void gran_free(gran *g);

#endif
