/* gather.c — the gather operator: the rows of every node of every mini-batch
** of a hyperbatch, bucketed by feature block so that each block is read once
** and its rows copied into each mini-batch's contiguous x (and the labels of
** the seeds into y). With a row cache (fcache.c) the feature rows it holds
** are copied from it, only the blocks of the others are read, and the rows
** it admits are copied into it from those blocks. */
#include "clock.h"
#include "grow.h"
#include "gather_int.h"
#include "gather.h"
#include "fcache.h"
#include "bcache.h"
#include "copy.h"

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int hb_visit_pinned(hb_ctx *x, uint64_t *list, size_t *n,
                    int (*fn)(void *, uint64_t, const void *, gnn_err *),
                    void *arg, gnn_err *e)
{
    if (!x->gat->bc) return GNNDB_OK;
    size_t w = 0;
    for (size_t i = 0; i < *n; i++) {
        const void *data = bc_get(x->gat->bc, list[i]);
        if (!data) {
            list[w++] = list[i];
            continue;
        }
        int rc = fn(arg, list[i], data, e);
        if (rc) return rc;
        x->st.cache_blocks_saved++;
    }
    *n = w;
    return GNNDB_OK;
}

size_t hb_gather_bytes(const hb_gather_state *g)
{
    if (!g) return 0;
    return g->capgitems * sizeof(hb_gitem) + g->capcrows * 4 +
           g->capcfut * 4 + g->capcsrc * 8 + fc_scratch_bytes(g->fc);
}

void hb_gather_release(hb_gather_state *g)
{
    if (!g) return;
    free(g->gitems);
    g->gitems = NULL;
    g->capgitems = 0;
}

void hb_put_row(const cat_table *t, float *dst, const void *src, int stream)
{
    size_t n = (size_t)t->dim;
    if (t->dtype == BLK_DTYPE_F16)
        gnn_widen_f16(dst, src, n, stream);
    else if (stream)
        gnn_copy_stream(dst, src, n * sizeof(float));
    else
        memcpy(dst, src, n * sizeof(float));
}

/* The float32 rows of dest in mini-batch b. */
static float *dest_rows(const hb_gather_state *gs, hb_batch *b)
{
    switch (gs->dest) {
    case HB_TO_EATTR: return b->edge_attr;
    case HB_TO_TYPE_X: return (float *)(uintptr_t)b->tviews[gs->type].x;
    case HB_TO_REL_EATTR:
        return (float *)(uintptr_t)b->rviews[gs->type].edge_attr;
    default: return b->x;
    }
}

/* Copy the rows of items [lo, hi) of the visited block (one task). */
static void gather_task(void *arg, size_t task, int w)
{
    hb_ctx *x = arg;
    hb_gather_state *gs = x->gat;
    hb_blocks *bk = &x->bk;
    const blk_header *h = bk->vis_data;
    const cat_table *t = gs->table;
    size_t rowbytes = (size_t)t->dim * blk_dtype_size(t->dtype);
    size_t lo = bk->vis_lo + task * HB_CHUNK;
    size_t hi = GNN_MIN(lo + HB_CHUNK, bk->vis_hi);
    for (size_t k = lo; k < hi; k++) {
        const hb_gitem *g = &gs->gitems[bk->sorted[k]];
        const void *src = blk_feature_row(h, (uint32_t)(g->row - h->first_node));
        if (g->bi == HB_GI_CACHE) {
            memcpy(fc_slot(gs->fc, g->local), src, rowbytes);
            continue;
        }
        hb_batch *b = &x->hb[g->bi];
        if (gs->dest == HB_TO_Y)
            memcpy(&b->y[g->local], src, sizeof(int64_t));
        else
            hb_put_row(t, dest_rows(gs, b) + (size_t)g->local * t->dim, src,
                       0);
    }
}

int hb_gather_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    hb_ctx *x = arg;
    hb_gather_state *gs = x->gat;
    hb_blocks *bk = &x->bk;
    if (x->db->interrupt)
        return gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
    const blk_header *h = data;
    const cat_table *t = gs->table;
    size_t lo = bk->bstart[no], hi = bk->bstart[no + 1];
    for (size_t k = lo; k < hi; k++) {
        const hb_gitem *g = &gs->gitems[bk->sorted[k]];
        if (g->row < h->first_node || g->row - h->first_node >= h->count)
            return gnn_seterr(e, GNNDB_CORRUPT,
                              "corrupt block %llu of table %s: row %u missing",
                              (unsigned long long)no, t->name, g->row);
    }
    hb_run_block(&x->bk, x->pool, no, data, lo, hi, gather_task, x,
                 &x->st.gather.cpu_seconds);
    x->st.gather.bytes_out += (hi - lo) * (gs->dest == HB_TO_Y
                                  ? sizeof(int64_t)
                                  : (size_t)t->dim * blk_dtype_size(t->dtype));
    return GNNDB_OK;
}

/* The pages of feature block `no` that hold the rows its items copy. */
static void gather_mark(void *arg, size_t i, uint64_t no, uint8_t *map)
{
    hb_ctx *x = arg;
    hb_gather_state *gs = x->gat;
    hb_blocks *bk = &x->bk;
    const cat_table *t = gs->table;
    size_t rowbytes = (size_t)t->dim * blk_dtype_size(t->dtype);
    uint64_t first = no * t->rows_per_block;
    uint32_t ps = blk_page_size(t->block_size), np = blk_npages(t->block_size);
    uint64_t at = blk_data_offset(t->block_size);
    for (size_t k = bk->bstart[no]; k < bk->bstart[no + 1]; k++) {
        uint64_t row = gs->gitems[bk->sorted[k]].row;
        /* a row outside the block is reported by hb_gather_visit */
        if (row < first || row - first >= t->rows_per_block) continue;
        uint64_t off = at + (row - first) * rowbytes;
        uint64_t lo = off / ps, hi = (off + rowbytes - 1) / ps;
        for (uint64_t pg = lo; pg <= hi && pg < np; pg++) map[pg] = 1;
    }
}

/* Consult the cache for the accesses in gitems (gather order): copy the
** rows it held from it, keep in gitems only the rows to copy from blocks,
** add the rows it admitted (copied into it from their blocks), and bucket
** them again. The future it evicts by is the next hyperbatch's rows. */
static int cache_gather(hb_ctx *x, const cat_table *t, gnn_err *e)
{
    hb_gather_state *gs = x->gat;
    hb_blocks *bk = &x->bk;
    size_t n = gs->ngitems, nf = 0;
    for (int i = 0; i < x->nb2; i++) nf += x->hb2[i].nn;
    if (gnn_grow((void **)&gs->crows, &gs->capcrows, n + 1, sizeof *gs->crows) ||
        gnn_grow((void **)&gs->csrc, &gs->capcsrc, n + 1, sizeof *gs->csrc) ||
        gnn_grow((void **)&gs->cfut, &gs->capcfut, nf + 1, sizeof *gs->cfut))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory gathering");
    for (size_t k = 0; k < n; k++) gs->crows[k] = gs->gitems[k].row;
    nf = 0;
    for (int i = 0; i < x->nb2; i++) {
        memcpy(gs->cfut + nf, x->hb2[i].nodes, x->hb2[i].nn * sizeof *gs->cfut);
        nf += x->hb2[i].nn;
    }
    uint64_t h0 = fc_hits(gs->fc), m0 = fc_misses(gs->fc);
    int rc = fc_plan(gs->fc, gs->crows, n, gs->cfut, nf, gs->csrc, e);
    if (rc) return rc;
    x->st.cache_hits += fc_hits(gs->fc) - h0;
    x->st.cache_misses += fc_misses(gs->fc) - m0;
    size_t rowbytes = (size_t)t->dim * blk_dtype_size(t->dtype), w = 0;
    double c0 = gnn_now();
    for (size_t k = 0; k < n; k++) {
        const hb_gitem *g = &gs->gitems[k];
        if (gs->csrc[k] >= 0) {
            hb_put_row(t, &x->hb[g->bi].x[(size_t)g->local * t->dim],
                       fc_slot(gs->fc, (uint32_t)gs->csrc[k]), 0);
            x->st.gather.bytes_out += rowbytes;
        } else {
            gs->gitems[w] = *g;
            bk->blockof[w++] = g->row / t->rows_per_block;
        }
    }
    x->st.gather.cpu_seconds += gnn_now() - c0;
    const uint32_t *frows, *fslots;
    size_t nfill = fc_fills(gs->fc, &frows, &fslots);
    if (gnn_grow((void **)&gs->gitems, &gs->capgitems, w + nfill + 1,
                sizeof *gs->gitems) ||
        gnn_grow((void **)&bk->blockof, &bk->capblockof, w + nfill + 1,
                sizeof *bk->blockof))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory gathering");
    for (size_t i = 0; i < nfill; i++, w++) {
        gs->gitems[w].bi = HB_GI_CACHE;
        gs->gitems[w].local = fslots[i];
        gs->gitems[w].row = frows[i];
        bk->blockof[w] = frows[i] / t->rows_per_block;
    }
    gs->ngitems = w;
    return hb_bucket(bk, w, (uint64_t)t->nblocks, e);
}

/* The caches hold node feature rows: what they spare of this gather. */
static int gather_cached(hb_ctx *x, const cat_table *t, size_t accesses,
                         gnn_err *e)
{
    hb_gather_state *gs = x->gat;
    hb_blocks *bk = &x->bk;
    int rc;
    if (gs->fc) {
        size_t nub_all = bk->nub;
        if ((rc = cache_gather(x, t, e))) return rc;
        x->st.cache_blocks_saved += nub_all - bk->nub;
    }
    if (!gs->bc) return GNNDB_OK;
    /* rows copied from pinned blocks count as the cache's hits */
    uint64_t hits = 0;
    for (size_t i = 0; i < bk->nub; i++)
        if (bc_get(gs->bc, bk->ublocks[i]))
            hits += bk->bstart[bk->ublocks[i] + 1] - bk->bstart[bk->ublocks[i]];
    x->st.cache_hits += hits;
    x->st.cache_misses += accesses - hits;
    return hb_visit_pinned(x, bk->ublocks, &bk->nub, hb_gather_visit, x, e);
}

int hb_gather_items(hb_ctx *x, const cat_table *t, blk_file *f, int dest,
                    int type, hb_opstats *o, gnn_err *e)
{
    hb_gather_state *gs = x->gat;
    hb_blocks *bk = &x->bk;
    double t0 = gnn_now();
    size_t accesses = gs->ngitems;
    int rc = hb_bucket(bk, gs->ngitems, (uint64_t)t->nblocks, e);
    if (rc) return rc;
    gs->table = t;
    gs->dest = dest;
    gs->type = type;
    if (dest == HB_TO_X && (rc = gather_cached(x, t, accesses, e))) return rc;
    gran_ops ops = {gather_mark, NULL, NULL, hb_gather_visit, x};
    rc = gran_fetch(&gs->fgran, x->fpool, f, bk->ublocks, bk->nub, &ops, o, e);
    o->items += accesses;
    o->seconds += gnn_now() - t0;
    return rc;
}

int hb_gather_reserve(hb_ctx *x, size_t n, gnn_err *e)
{
    if (gnn_grow((void **)&x->gat->gitems, &x->gat->capgitems, n + 1,
                sizeof *x->gat->gitems) ||
        gnn_grow((void **)&x->bk.blockof, &x->bk.capblockof, n + 1,
                sizeof *x->bk.blockof))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory listing %zu rows "
                          "to gather", n);
    x->gat->ngitems = 0;
    return GNNDB_OK;
}

int hb_gather_nodes(hb_ctx *x, const cat_table *t, blk_file *f, int labels,
                    hb_opstats *o, gnn_err *e)
{
    hb_gather_state *gs = x->gat;
    hb_blocks *bk = &x->bk;
    double t0 = gnn_now();
    gs->ngitems = 0;
    for (int i = 0; i < x->nb; i++) {
        hb_batch *b = &x->hb[i];
        size_t n = labels ? (size_t)b->nseeds : b->nn;
        if (gnn_grow((void **)&gs->gitems, &gs->capgitems, gs->ngitems + n,
                    sizeof *gs->gitems) ||
            gnn_grow((void **)&bk->blockof, &bk->capblockof, gs->ngitems + n,
                    sizeof *bk->blockof))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory gathering");
        for (size_t q = 0; q < n; q++) {
            hb_gitem *g = &gs->gitems[gs->ngitems];
            g->bi = (uint32_t)i;
            g->local = (uint32_t)q;
            g->row = b->nodes[q];
            bk->blockof[gs->ngitems] = g->row / t->rows_per_block;
            gs->ngitems++;
        }
    }
    o->seconds += gnn_now() - t0;  /* listing the items is gather's too */
    return hb_gather_items(x, t, f, labels ? HB_TO_Y : HB_TO_X, 0, o, e);
}

void hb_gather_add(hb_ctx *x, uint32_t bi, uint32_t local, uint32_t row,
                   uint32_t rpb)
{
    hb_gitem *it = &x->gat->gitems[x->gat->ngitems];
    it->bi = bi;
    it->local = local;
    it->row = row;
    x->bk.blockof[x->gat->ngitems++] = row / rpb;
}
