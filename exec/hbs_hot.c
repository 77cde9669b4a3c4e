/* hbs_hot.c — a spilled plan's hot rows (hotrows.h) as the executor uses
** them: chosen when the run opens, by the stored degree of each node (the
** graph read twice through its pool: a histogram, then each node offered
** against its threshold), and each feature block's hot rows copied into
** their slots the first time a round reads the block (hbs_gather.c), so no
** read is added for them. Runs leave hot rows out; the read-back copies
** them from their slots (hb_readback.c). Only the build thread fills slots,
** and a round's are all filled before it is handed out. */
#include "hbs_int.h"
#include "gather.h"
#include "hotrows.h"

#include <stdlib.h>

typedef struct hot_pass {
    hot_rows *h;
    int offer;               /* 0: counting degrees; 1: offering rows */
} hot_pass;

static void hot_degree_visit(void *arg, uint32_t node, uint32_t degree)
{
    hot_pass *d = arg;
    if (d->offer) hr_offer(d->h, node, degree);
    else hr_count(d->h, degree);
}

int hbs_hot_open(hb_ctx *x, gnn_err *e)
{
    const plan *p = x->p;
    if (p->spill_hot_rows <= 0) return GNNDB_OK;
    hot_pass d = {NULL, 0};
    int rc = hr_open((uint64_t)p->feat.rows, plan_x_row_bytes(p),
                     (uint64_t)p->feat.nblocks, (size_t)p->spill_hot_rows,
                     &d.h, e);
    if (rc) return rc;
    uint64_t *blocks = malloc(((size_t)p->topo.graph_blocks + 1) *
                              sizeof *blocks);
    if (!blocks) rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory choosing "
                                 "the hot rows");
    if (!rc) rc = hb_read_degrees(x, blocks, hot_degree_visit, &d, e);
    if (!rc) {
        hr_threshold(d.h);
        d.offer = 1;
        rc = hb_read_degrees(x, blocks, hot_degree_visit, &d, e);
    }
    if (!rc) rc = hr_seal(d.h, e);
    free(blocks);
    if (rc) {
        hr_close(d.h);
        return rc;
    }
    x->sp->hot = d.h;
    return GNNDB_OK;
}

void hbs_hot_close(hb_ctx *x)
{
    hr_close(x->sp->hot);
    x->sp->hot = NULL;
}

int hbs_hot_fill(hb_ctx *x, const hbs_section *sec, uint64_t no,
                 const blk_header *h, gnn_err *e)
{
    hot_rows *hot = x->sp->hot;
    if (!hr_block_take(hot, no)) return GNNDB_OK;
    /* every row the block should hold, or a hot one would go unfilled */
    uint64_t rpb = (uint64_t)sec->t->rows_per_block;
    uint64_t rows = (uint64_t)sec->t->rows;
    uint64_t want = no * rpb < rows ? GNN_MIN(rpb, rows - no * rpb) : 0;
    if (h->first_node != no * rpb || h->count != want)
        return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %llu of table %s: "
                          "it holds rows %llu.. (%u), not %llu.. (%llu)",
                          (unsigned long long)no, sec->t->name,
                          (unsigned long long)h->first_node, h->count,
                          (unsigned long long)(no * rpb),
                          (unsigned long long)want);
    for (uint32_t k = 0; k < h->count; k++) {
        uint64_t row = h->first_node + k;
        if (hr_is_hot(hot, row))
            hb_put_row(sec->t, hr_row(hot, hr_slot(hot, row)),
                       blk_feature_row(h, k), 0);
    }
    return GNNDB_OK;
}
