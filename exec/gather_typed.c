/* gather_typed.c — a typed hyperbatch's rows: for each node type with a
** feature table, the rows of its nodes (ids local to the type) copied into
** each mini-batch's x of that type; and the seeds' labels. As elsewhere,
** the items of the whole hyperbatch are bucketed by block and each block
** is read once. */
#include "exec_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct tg_pass {
    hb_exec *x;
    const cat_table *t;
    blk_file *f;
    int type;                /* the type whose rows; -1: the seeds' labels */
} tg_pass;

/* The items of one pass: every node of the type (or every seed), its row
** local to the type, and the place it goes (its rank in the type, or the
** seed's index). */
static int pass_items(tg_pass *g, gnn_err *e)
{
    hb_exec *x = g->x;
    const plan *p = x->p;
    int type = g->type < 0 ? p->seed_type : g->type;
    uint64_t first = (uint64_t)p->types[type].first;
    uint64_t end = first + (uint64_t)p->types[type].count;
    hb_gather_state *gs = &x->gat;
    hb_blocks *bk = &x->bk;
    size_t n = 0;
    for (int i = 0; i < x->nb; i++) n += x->hb[i].nn;
    if (hb_grow((void **)&gs->gitems, &gs->capgitems, n + 1, sizeof *gs->gitems) ||
        hb_grow((void **)&bk->blockof, &bk->capblockof, n + 1,
                sizeof *bk->blockof))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory gathering rows");
    gs->ngitems = 0;
    for (int i = 0; i < x->nb; i++) {
        const hb_batch *b = &x->hb[i];
        size_t nq = g->type < 0 ? (size_t)b->nseeds : b->nn;
        for (size_t q = 0; q < nq; q++) {
            if (b->nodes[q] < first || b->nodes[q] >= end) continue;
            hb_gitem *it = &gs->gitems[gs->ngitems];
            it->bi = (uint32_t)i;
            it->local = g->type < 0 ? (uint32_t)q : b->trank[q];
            it->row = (uint32_t)(b->nodes[q] - first);
            bk->blockof[gs->ngitems++] = it->row / g->t->rows_per_block;
        }
    }
    return GNNDB_OK;
}

static int pass_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    tg_pass *g = arg;
    hb_exec *x = g->x;
    const blk_header *h = data;
    const hb_blocks *bk = &x->bk;
    size_t dim = g->t->dim;
    for (size_t k = bk->bstart[no]; k < bk->bstart[no + 1]; k++) {
        const hb_gitem *it = &x->gat.gitems[bk->sorted[k]];
        if (it->row < h->first_node || it->row - h->first_node >= h->count)
            return gnn_seterr(e, GNNDB_CORRUPT, "block %llu of %s does not "
                              "hold row %u", (unsigned long long)no,
                              g->f->path, it->row);
        const void *src = blk_feature_row(h, (uint32_t)(it->row -
                                                         h->first_node));
        hb_batch *b = &x->hb[it->bi];
        if (g->type < 0) {
            memcpy(&b->y[it->local], src, sizeof *b->y);
        } else {
            float *dst = (float *)(uintptr_t)b->tviews[g->type].x;
            hb_put_row(g->t, dst + (size_t)it->local * dim, src, 0);
        }
    }
    x->st.gather.items += bk->bstart[no + 1] - bk->bstart[no];
    return GNNDB_OK;
}

static int run_pass(tg_pass *g, gnn_err *e)
{
    int rc = pass_items(g, e);
    return rc ? rc : hb_gather_fetch(g->x, g->f, (uint64_t)g->t->nblocks,
                                     pass_visit, g, e);
}

/* Size b's x of every type with features, and its y. */
static int size_outputs(const plan *p, hb_batch *b, gnn_err *e)
{
    size_t total = 0;
    for (int t = 0; t < p->ntypes; t++)
        if (p->types[t].has_feat)
            total += (size_t)b->tviews[t].num_nodes * p->types[t].feat.dim;
    if (hb_grow((void **)&b->t_x, &b->cap_t_x, total + 1, sizeof *b->t_x) ||
        (p->has_labels && hb_grow((void **)&b->y, &b->cap_out_y,
                                  (size_t)b->nseeds + 1, sizeof *b->y)))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory for x");
    size_t off = 0;
    for (int t = 0; t < p->ntypes; t++) {
        gnndb_type_view *v = &b->tviews[t];
        v->x = p->types[t].has_feat ? b->t_x + off : NULL;
        v->x_dim = p->types[t].has_feat ? p->types[t].feat.dim : 0;
        if (v->x) off += (size_t)v->num_nodes * (size_t)v->x_dim;
    }
    return GNNDB_OK;
}

int hb_typed_gather(hb_exec *x, gnn_err *e)
{
    const plan *p = x->p;
    for (int i = 0; i < x->nb; i++) {
        int rc = hb_typed_layout(p, &x->hb[i], e);
        if (!rc) rc = size_outputs(p, &x->hb[i], e);
        if (rc) return rc;
    }
    for (int t = 0; t < p->ntypes; t++) {
        if (!p->types[t].has_feat) continue;
        tg_pass g = {x, &p->types[t].feat, x->tf[t], t};
        int rc = run_pass(&g, e);
        if (rc) return rc;
    }
    if (!p->has_labels) return GNNDB_OK;
    tg_pass g = {x, &p->labels, x->lf, -1};
    return run_pass(&g, e);
}
