/* gather_typed.c — a typed hyperbatch's rows: for each node type with a
** feature table, the rows of its nodes (ids local to the type) copied into
** each mini-batch's x of that type; and the seeds' labels. The items of
** the whole hyperbatch are listed here and copied by gather.c as node rows
** are (hb_gather_items). */
#include "hb_typed.h"
#include "gather.h"
#include "transfer.h"

#include <stdlib.h>
#include <string.h>

/* List the items of one type's rows (type >= 0: every node of the type,
** going to its rank in the type) or of the seeds' labels (type < 0: every
** seed, going to its index), each with its row local to the type. */
static int type_items(hb_ctx *x, int type, const cat_table *t, gnn_err *e)
{
    const plan *p = x->p;
    const plan_type *pt = &p->types[type < 0 ? p->seed_type : type];
    uint64_t first = (uint64_t)pt->first, end = first + (uint64_t)pt->count;
    size_t n = 0;
    for (int i = 0; i < x->nb; i++) n += x->hb[i].nn;
    int rc = hb_gather_reserve(x, n, e);
    if (rc) return rc;
    for (int i = 0; i < x->nb; i++) {
        const hb_batch *b = &x->hb[i];
        size_t nq = type < 0 ? (size_t)b->nseeds : b->nn;
        for (size_t q = 0; q < nq; q++) {
            if (b->nodes[q] < first || b->nodes[q] >= end) continue;
            hb_gather_add(x, (uint32_t)i,
                          type < 0 ? (uint32_t)q : b->trank[q],
                          (uint32_t)(b->nodes[q] - first), t->rows_per_block);
        }
    }
    return GNNDB_OK;
}

/* Size b's x of every type with features, and its y. */
static int size_outputs(hb_ctx *x, const plan *p, hb_batch *b, gnn_err *e)
{
    size_t total = 0;
    for (int t = 0; t < p->ntypes; t++)
        if (p->types[t].has_feat)
            total += (size_t)b->tviews[t].num_nodes * p->types[t].feat.dim;
    if (hb_out_grow(x, (void **)&b->t_x, &b->cap_t_x, total + 1,
                    sizeof *b->t_x) ||
        (p->has_labels && hb_out_grow(x, (void **)&b->y, &b->cap_out_y,
                                      (size_t)b->nseeds + 1, sizeof *b->y)))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory for x");
    hb_typed_bind_x(p, b, b->t_x);
    return GNNDB_OK;
}

/* Size b's edge_attr of every relation with EDGE FEATURES, its edges
** counted per relation into the relation views. */
static int size_eattr(hb_ctx *x, const plan *p, hb_batch *b, gnn_err *e)
{
    for (int r = 0; r < p->nrels; r++) b->rviews[r].num_edges = 0;
    for (size_t k = 0; k < b->ne; k++) b->rviews[b->etype[k]].num_edges++;
    size_t total = 0;
    for (int r = 0; r < p->nrels; r++)
        if (p->rels[r].has_efeat)
            total += (size_t)b->rviews[r].num_edges * p->rels[r].efeat.dim;
    if (hb_out_grow(x, (void **)&b->t_eattr, &b->cap_t_eattr, total + 1,
                    sizeof *b->t_eattr))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory for edge_attr");
    hb_typed_bind_eattr(p, b, b->t_eattr);
    return GNNDB_OK;
}

/* List the items of relation r's edge rows: each of its edges, going to
** its place among r's edges, its row its edge id. */
static int rel_items(hb_ctx *x, int r, gnn_err *e)
{
    const cat_table *t = &x->p->rels[r].efeat;
    size_t n = 0;
    for (int i = 0; i < x->nb; i++) n += x->hb[i].ne;
    int rc = hb_gather_reserve(x, n, e);
    if (rc) return rc;
    for (int i = 0; i < x->nb; i++) {
        const hb_batch *b = &x->hb[i];
        uint32_t c = 0;
        for (size_t k = 0; k < b->ne; k++) {
            if (b->etype[k] != r) continue;
            if (b->eid[k] >= (uint64_t)t->rows)
                return gnn_seterr(e, GNNDB_CORRUPT, "edge %u of relation %s "
                                  "has no row in edge feature table %s "
                                  "(%lld rows)", b->eid[k], x->p->rels[r].name,
                                  t->name, (long long)t->rows);
            hb_gather_add(x, (uint32_t)i, c++, b->eid[k], t->rows_per_block);
        }
    }
    return GNNDB_OK;
}

/* Each relation's EDGE FEATURES rows into its edge_attr. */
static int gather_rel_edges(hb_ctx *x, gnn_err *e)
{
    const plan *p = x->p;
    for (int i = 0; i < x->nb; i++) {
        int rc = size_eattr(x, p, &x->hb[i], e);
        if (rc) return rc;
    }
    for (int r = 0; r < p->nrels; r++) {
        if (!p->rels[r].has_efeat) continue;
        int rc = rel_items(x, r, e);
        if (!rc) rc = hb_gather_items(x, &p->rels[r].efeat, x->rt[r].ef,
                                      HB_TO_REL_EATTR, r, &x->st.gather, e);
        if (rc) return rc;
    }
    return GNNDB_OK;
}

int hb_typed_gather(hb_ctx *x, gnn_err *e)
{
    const plan *p = x->p;
    for (int i = 0; i < x->nb; i++) {
        int rc = hb_typed_layout(p, &x->hb[i], e);
        if (!rc) rc = size_outputs(x, p, &x->hb[i], e);
        if (rc) return rc;
    }
    for (int t = 0; t < p->ntypes; t++) {
        const cat_table *ft = &p->types[t].feat;
        if (!p->types[t].has_feat) continue;
        int rc = type_items(x, t, ft, e);
        if (!rc) rc = hb_gather_items(x, ft, x->tf[t], HB_TO_TYPE_X, t,
                                      &x->st.gather, e);
        if (rc) return rc;
    }
    if (p->typed_efeat) {
        int rc = gather_rel_edges(x, e);
        if (rc) return rc;
    }
    if (!p->has_labels) return GNNDB_OK;
    int rc = type_items(x, -1, &p->labels, e);
    return rc ? rc : hb_gather_items(x, &p->labels, x->lf, HB_TO_Y, 0,
                                     &x->st.gather, e);
}
