/* gather.c — the gather operator: the rows of every node of every mini-batch
** of a hyperbatch, bucketed by feature block so that each block is read once
** and its rows copied into each mini-batch's contiguous x (and the labels of
** the seeds into y). */
#include "exec_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int open_table(hb_exec *x, const cat_table *t, blk_file **f, int id,
                      gnn_err *e)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", x->db->dir, t->file);
    int rc = blkf_open(path, t->block_size, BLK_KIND_FEATURE, t->token,
                       (uint64_t)t->nblocks, f, e);
    if (!rc) (*f)->id = id;
    return rc;
}

int hb_gather_open(hb_exec *x, gnn_err *e)
{
    plan *p = x->p;
    uint32_t frame = 0;
    int rc;
    if (p->has_feat) {
        if ((rc = open_table(x, &p->feat, &x->ff, 2, e))) return rc;
        frame = p->feat.block_size;
    }
    if (p->has_labels) {
        if ((rc = open_table(x, &p->labels, &x->lf, 3, e))) return rc;
        if (p->labels.block_size > frame) frame = p->labels.block_size;
    }
    if (!frame) return GNNDB_OK;
    rc = bp_open(p->feat_frames, frame, x->io, &x->fpool, e);
    if (!rc) bp_set_max_coalesce(x->fpool, (unsigned)p->coalesce);
    return rc;
}

void hb_gather_close(hb_exec *x)
{
    if (x->fpool) bp_close(x->fpool);
    if (x->ff) blkf_close(x->ff);
    if (x->lf) blkf_close(x->lf);
    free(x->gitems);
    x->fpool = NULL;
    x->ff = x->lf = NULL;
    x->gitems = NULL;
}

/* Copy the rows of items [lo, hi) of the visited block (one task). */
static void gather_task(void *arg, size_t task, int w)
{
    hb_exec *x = arg;
    const blk_header *h = x->vis_data;
    const cat_table *t = x->gather_table;
    size_t rowbytes = (size_t)t->dim * blk_dtype_size(t->dtype);
    size_t lo = x->vis_lo + task * HB_CHUNK;
    size_t hi = GNN_MIN(lo + HB_CHUNK, x->vis_hi);
    for (size_t k = lo; k < hi; k++) {
        const hb_gitem *g = &x->gitems[x->sorted[k]];
        const void *src = blk_feature_row(h, (uint32_t)(g->row - h->first_node));
        hb_batch *b = &x->hb[g->bi];
        if (x->gather_labels)
            memcpy(&b->y[g->local], src, sizeof(int64_t));
        else
            memcpy(&b->x[(size_t)g->local * t->dim], src, rowbytes);
    }
}

static int gather_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    hb_exec *x = arg;
    if (x->db->interrupt)
        return gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
    const blk_header *h = data;
    const cat_table *t = x->gather_table;
    size_t lo = x->bstart[no], hi = x->bstart[no + 1];
    for (size_t k = lo; k < hi; k++) {
        const hb_gitem *g = &x->gitems[x->sorted[k]];
        if (g->row < h->first_node || g->row - h->first_node >= h->count)
            return gnn_seterr(e, GNNDB_CORRUPT,
                              "corrupt block %llu of table %s: row %u missing",
                              (unsigned long long)no, t->name, g->row);
    }
    hb_run_block(x, no, data, lo, hi, gather_task, &x->st.gather.cpu_seconds);
    x->st.gather.bytes_out += (hi - lo) * (x->gather_labels
                                  ? sizeof(int64_t)
                                  : (size_t)t->dim * blk_dtype_size(t->dtype));
    return GNNDB_OK;
}

/* Gather one table for the first `per_batch(b)` nodes of each batch. */
static int gather_table(hb_exec *x, const cat_table *t, blk_file *f,
                        int labels, hb_opstats *o, gnn_err *e)
{
    double t0 = hb_now();
    bp_stats before = *bp_get_stats(x->fpool);
    x->ngitems = 0;
    for (int i = 0; i < x->nb; i++) {
        hb_batch *b = &x->hb[i];
        size_t n = labels ? (size_t)b->nseeds : b->nn;
        if (hb_grow((void **)&x->gitems, &x->capgitems, x->ngitems + n,
                    sizeof *x->gitems) ||
            hb_grow((void **)&x->blockof, &x->capblockof, x->ngitems + n,
                    sizeof *x->blockof))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory gathering");
        for (size_t q = 0; q < n; q++) {
            hb_gitem *g = &x->gitems[x->ngitems];
            g->bi = (uint32_t)i;
            g->local = (uint32_t)q;
            g->row = b->nodes[q];
            x->blockof[x->ngitems] = g->row / t->rows_per_block;
            x->ngitems++;
        }
    }
    int rc = hb_bucket(x, x->ngitems, x->blockof, (uint64_t)t->nblocks, e);
    if (rc) return rc;
    x->gather_table = t;
    x->gather_labels = labels;
    rc = bp_fetch(x->fpool, f, x->ublocks, x->nub, gather_visit, x, e);
    const bp_stats *after = bp_get_stats(x->fpool);
    o->blocks_read += after->blocks_read - before.blocks_read;
    o->bytes_read += after->bytes_read - before.bytes_read;
    o->hits += after->hits - before.hits;
    o->misses += after->misses - before.misses;
    o->reads_issued += after->reads_issued - before.reads_issued;
    o->items += x->ngitems;
    o->seconds += hb_now() - t0;
    return rc;
}

int hb_gather(hb_exec *x, gnn_err *e)
{
    plan *p = x->p;
    for (int i = 0; i < x->nb; i++) {
        hb_batch *b = &x->hb[i];
        size_t had = b->cap_out_x;
        if (p->has_feat &&
            hb_grow((void **)&b->x, &b->cap_out_x, b->nn * p->feat.dim + 1,
                    sizeof *b->x))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory for x");
        /* fault new pages in here, not inside the row copies, so the gather
        ** counters measure copying */
        if (b->cap_out_x > had)
            memset(b->x + had, 0, (b->cap_out_x - had) * sizeof *b->x);
        if (p->has_labels &&
            hb_grow((void **)&b->y, &b->cap_out_y, (size_t)b->nseeds + 1,
                    sizeof *b->y))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory for y");
    }
    int rc;
    if (p->has_feat && (rc = gather_table(x, &p->feat, x->ff, 0,
                                          &x->st.gather, e)))
        return rc;
    if (p->has_labels && (rc = gather_table(x, &p->labels, x->lf, 1,
                                            &x->st.gather, e)))
        return rc;
    return GNNDB_OK;
}
