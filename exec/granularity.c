/* granularity.c — whole blocks or their pages: per block, the runs of
** pages that hold what is needed (page 0 always: header and checksums),
** priced with the disk profile against one read of the block; the blocks
** then read whole through the buffer pool (coalesced, cached) and the
** others in part through pagefetch.c. The two kinds of read bring the same
** bytes to the visit, so the result does not depend on the choice. */
#include "grow.h"
#include "granularity.h"
#include "block.h"
#include "costmodel.h"
#include "db.h"
#include "exec.h"

#include <stdlib.h>
#include <string.h>

/* The seconds of reading runs[0..n) of a block of `bs` bytes, a request
** each. */
static double runs_seconds(const cat_profile *pr, uint32_t bs,
                           const pf_run *runs, size_t n)
{
    uint32_t ps = blk_page_size(bs);
    double t = 0;
    for (size_t i = 0; i < n; i++)
        t += cm_request_seconds(pr, (double)runs[i].n * ps);
    return t;
}

/* Block i: whole, or in part with its runs appended. */
static int split_one(gran *g, bp_pool *bp, blk_file *f, size_t i, uint64_t no,
                     const uint8_t *map, unsigned gap, const gran_ops *ops,
                     gnn_err *e)
{
    uint32_t np = blk_npages(f->block_size), pages[BLK_MAX_PAGES];
    size_t n = 0;
    for (uint32_t k = 1; k < np; k++)
        if (map[k]) pages[n++] = k;
    if (gnn_grow((void **)&g->runs, &g->capruns, g->nruns + n + 1,
                sizeof *g->runs) ||
        gnn_grow((void **)&g->whole, &g->capwhole, g->nwhole + 1, 8) ||
        gnn_grow((void **)&g->part, &g->cappart, g->npart + 1, 8) ||
        gnn_grow((void **)&g->rstart, &g->caprstart, g->npart + 2,
                sizeof *g->rstart))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory choosing reads");
    pf_run *runs = g->runs + g->nruns;
    size_t nr = pf_runs(pages, n, gap, runs);
    int part = g->mode == GNN_GRAN_PAGE;
    if (!part && !bp_has(bp, f, no)) {
        double t = runs_seconds(g->pr, f->block_size, runs, nr);
        if (ops->later) t += ops->later(ops->arg, i, no);
        part = t < cm_request_seconds(g->pr, f->block_size);
    }
    if (!part) {
        g->whole[g->nwhole++] = no;
        return GNNDB_OK;
    }
    g->part[g->npart++] = no;
    g->nruns += nr;
    g->rstart[g->npart] = g->nruns;
    return GNNDB_OK;
}

static int split(gran *g, bp_pool *bp, blk_file *f, const uint64_t *blocks,
                 size_t n, const gran_ops *ops, unsigned gap, gnn_err *e)
{
    uint32_t np = blk_npages(f->block_size);
    uint8_t map[BLK_MAX_PAGES];
    g->nwhole = g->npart = g->nruns = 0;
    if (gnn_grow((void **)&g->rstart, &g->caprstart, 1, sizeof *g->rstart))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory choosing reads");
    g->rstart[0] = 0;
    for (size_t i = 0; i < n; i++) {
        memset(map, 0, np);
        ops->mark(ops->arg, i, blocks[i], map);
        int rc = split_one(g, bp, f, i, blocks[i], map, gap, ops, e);
        if (rc) return rc;
    }
    return GNNDB_OK;
}

int gran_fetch(gran *g, bp_pool *bp, blk_file *f, const uint64_t *blocks,
               size_t n, const gran_ops *ops, hb_opstats *o, gnn_err *e)
{
    bp_stats before = *bp_get_stats(bp);
    pf_stats ps = {0, 0, 0, 0};
    int rc;
    /* a one-page block has nothing to spare; under auto, a file the pool
    ** holds whole is read once and then found there, which no read of
    ** pages (never cached) can beat */
    if (g->mode == GNN_GRAN_BLOCK || blk_npages(f->block_size) < 2 ||
        (g->mode == GNN_GRAN_AUTO && f->nblocks <= bp_nframes(bp))) {
        rc = bp_fetch(bp, f, blocks, n, ops->visit, ops->arg, e);
    } else {
        unsigned gap = cm_page_gap(g->pr, blk_page_size(f->block_size));
        pf_visit v = {ops->visit, ops->more, ops->arg, gap};
        rc = split(g, bp, f, blocks, n, ops, gap, e);
        if (!rc)
            rc = bp_fetch(bp, f, g->whole, g->nwhole, ops->visit, ops->arg, e);
        if (!rc)
            rc = pf_fetch(bp, f, g->part, g->npart, g->runs, g->rstart, &v,
                          &ps, e);
    }
    const bp_stats *after = bp_get_stats(bp);
    o->blocks_read += after->blocks_read - before.blocks_read;
    o->bytes_read += after->bytes_read - before.bytes_read + ps.bytes;
    o->hits += after->hits - before.hits;
    o->misses += after->misses - before.misses + ps.blocks;
    o->reads_issued += after->reads_issued - before.reads_issued + ps.reads;
    o->pages_read += ps.pages;
    o->partial_blocks += ps.blocks;
    return rc;
}

void gran_free(gran *g)
{
    free(g->whole);
    free(g->part);
    free(g->runs);
    free(g->rstart);
    memset(g, 0, sizeof *g);
}
