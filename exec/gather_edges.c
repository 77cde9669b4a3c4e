/* gather_edges.c — EDGE FEATURES: the row of each sampled edge's input id
** copied into its mini-batch's edge_attr. As node rows are gathered, the
** edges of the whole hyperbatch are bucketed by the block that holds their
** row, and each block is read once. Rows are float32 out (float16 tables
** widened as they are copied). */
#include "exec_int.h"

#include <stdlib.h>
#include <string.h>

/* Size every mini-batch's edge_attr; list its edges as gather items
** (bi, edge, row = edge id) in gat.gitems, their blocks in bk.blockof. */
static int edge_items(hb_exec *x, gnn_err *e)
{
    const cat_table *t = &x->p->efeat;
    hb_gather_state *gs = &x->gat;
    hb_blocks *bk = &x->bk;
    size_t n = 0;
    for (int i = 0; i < x->nb; i++) n += x->hb[i].ne;
    if (hb_grow((void **)&gs->gitems, &gs->capgitems, n + 1,
                sizeof *gs->gitems) ||
        hb_grow((void **)&bk->blockof, &bk->capblockof, n + 1,
                sizeof *bk->blockof))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory gathering edges");
    gs->ngitems = 0;
    for (int i = 0; i < x->nb; i++) {
        hb_batch *b = &x->hb[i];
        if (hb_grow((void **)&b->edge_attr, &b->cap_out_eattr,
                    b->ne * t->dim + 1, sizeof *b->edge_attr))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory for edge_attr");
        for (size_t k = 0; k < b->ne; k++) {
            if (b->eid[k] >= (uint64_t)t->rows)
                return gnn_seterr(e, GNNDB_CORRUPT, "edge %u has no row in "
                                  "edge feature table %s (%lld rows)",
                                  b->eid[k], t->name, (long long)t->rows);
            hb_gitem *g = &gs->gitems[gs->ngitems];
            g->bi = (uint32_t)i;
            g->local = (uint32_t)k;
            g->row = b->eid[k];
            bk->blockof[gs->ngitems++] = g->row / t->rows_per_block;
        }
    }
    return GNNDB_OK;
}

static int edge_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    hb_exec *x = arg;
    const cat_table *t = &x->p->efeat;
    const blk_header *h = data;
    const hb_blocks *bk = &x->bk;
    size_t dim = t->dim;
    for (size_t k = bk->bstart[no]; k < bk->bstart[no + 1]; k++) {
        const hb_gitem *g = &x->gat.gitems[bk->sorted[k]];
        if (g->row < h->first_node || g->row - h->first_node >= h->count)
            return gnn_seterr(e, GNNDB_CORRUPT, "block %llu of %s does not "
                              "hold row %u", (unsigned long long)no,
                              x->ef->path, g->row);
        const void *src = blk_feature_row(h, (uint32_t)(g->row -
                                                        h->first_node));
        hb_put_row(t, x->hb[g->bi].edge_attr + (size_t)g->local * dim, src, 0);
    }
    x->st.gather.items += bk->bstart[no + 1] - bk->bstart[no];
    x->st.gather.bytes_out += (bk->bstart[no + 1] - bk->bstart[no]) * dim * 4;
    return GNNDB_OK;
}

int hb_gather_edges(hb_exec *x, gnn_err *e)
{
    int rc = edge_items(x, e);
    return rc ? rc : hb_gather_fetch(x, x->ef, (uint64_t)x->p->efeat.nblocks,
                                     edge_visit, x, e);
}

int hb_gather_fetch(hb_exec *x, blk_file *f, uint64_t nblocks, bp_visit_fn fn,
                    void *arg, gnn_err *e)
{
    int rc = hb_bucket(&x->bk, x->gat.ngitems, nblocks, e);
    if (rc) return rc;
    bp_stats before = *bp_get_stats(x->fpool);
    rc = bp_fetch(x->fpool, f, x->bk.ublocks, x->bk.nub, fn, arg, e);
    const bp_stats *after = bp_get_stats(x->fpool);
    x->st.gather.blocks_read += after->blocks_read - before.blocks_read;
    x->st.gather.bytes_read += after->bytes_read - before.bytes_read;
    return rc;
}
