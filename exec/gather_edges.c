/* gather_edges.c — EDGE FEATURES: the row of each sampled edge's input id
** copied into its mini-batch's edge_attr. As node rows are gathered, the
** edges of the whole hyperbatch are listed with their rows, and gather.c
** copies them as it copies node rows (hb_gather_items). Rows are float32
** out (float16 tables widened as they are copied). */
#include "exec_int.h"
#include "gather.h"
#include "transfer.h"

#include <stdlib.h>
#include <string.h>

/* Size every mini-batch's edge_attr; list its edges as gather items
** (bi, edge, row = edge id) in gat.gitems, their blocks in bk.blockof. */
static int edge_items(hb_ctx *x, gnn_err *e)
{
    const cat_table *t = &x->p->efeat;
    size_t n = 0;
    for (int i = 0; i < x->nb; i++) n += x->hb[i].ne;
    int rc = hb_gather_reserve(x, n, e);
    if (rc) return rc;
    for (int i = 0; i < x->nb; i++) {
        hb_batch *b = &x->hb[i];
        if (hb_out_grow(x, (void **)&b->edge_attr, &b->cap_out_eattr,
                        b->ne * t->dim + 1, sizeof *b->edge_attr))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory for edge_attr");
        for (size_t k = 0; k < b->ne; k++) {
            if (b->eid[k] >= (uint64_t)t->rows)
                return gnn_seterr(e, GNNDB_CORRUPT, "edge %u has no row in "
                                  "edge feature table %s (%lld rows)",
                                  b->eid[k], t->name, (long long)t->rows);
            hb_gather_add(x, (uint32_t)i, (uint32_t)k, b->eid[k],
                          t->rows_per_block);
        }
    }
    return GNNDB_OK;
}

int hb_gather_edges(hb_ctx *x, gnn_err *e)
{
    int rc = edge_items(x, e);
    return rc ? rc : hb_gather_items(x, &x->p->efeat, x->ef, HB_TO_EATTR, 0,
                                     &x->st.gather, e);
}
