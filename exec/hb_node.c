/* hb_node.c — the node variant of SAMPLE (hb_variant.h): seeds are nodes,
** hops read the graph's one topology, and gather copies each node's
** feature row into x, each seed's label into y and, with EDGE FEATURES,
** each sampled edge's row into edge_attr. The link variant shares its
** topology, hops and rows. */
#include "clock.h"
#include "grow.h"
#include "exec_int.h"
#include "gather.h"
#include "hop.h"
#include "transfer.h"
#include "hb_variant.h"

#include <stdlib.h>
#include <string.h>

int hb_node_open(hb_ctx *x, gnn_err *e)
{
    x->gtopo = &x->topo;
    return hb_topo_open(x->db, x->p, &x->p->topo, 1, &x->topo, e);
}

void hb_node_close(hb_ctx *x)
{
    hb_topo_close(&x->topo);
}

static int node_seeds(hb_ctx *x, gnn_err *e)
{
    plan *p = x->p;
    return seeds_load(x->db, &p->graph, p->seeds_kind, p->split.token,
                      p->seed_list, p->n_seed_list, "", &x->seeds, e);
}

int hb_node_hop(hb_ctx *x, int hop, gnn_err *e)
{
    for (int i = 0; i < x->nb; i++) x->hb[i].hop_end = x->hb[i].nn;
    return hb_hop_pass(x, hop, -1, e);   /* the graph's own edges */
}

int hb_node_gather(hb_ctx *x, gnn_err *e)
{
    plan *p = x->p;
    for (int i = 0; i < x->nb; i++) {
        hb_batch *b = &x->hb[i];
        size_t had = b->cap_out_x;
        if (p->has_feat &&
            hb_out_grow(x, (void **)&b->x, &b->cap_out_x,
                        b->nn * p->feat.dim + 1, sizeof *b->x))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory for x");
        /* fault new pages in here, not inside the row copies, so the gather
        ** counters measure copying */
        if (b->cap_out_x > had)
            memset(b->x + had, 0, (b->cap_out_x - had) * sizeof *b->x);
        if (p->has_labels &&
            hb_out_grow(x, (void **)&b->y, &b->cap_out_y,
                        (size_t)b->nseeds + 1, sizeof *b->y))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory for y");
    }
    int rc;
    if (p->has_feat && (rc = hb_gather_nodes(x, &p->feat, x->ff, 0,
                                          &x->st.gather, e)))
        return rc;
    if (p->has_labels && (rc = hb_gather_nodes(x, &p->labels, x->lf, 1,
                                            &x->st.gather, e)))
        return rc;
    return p->has_efeat ? hb_gather_edges(x, e) : GNNDB_OK;
}

const hb_variant hb_variant_node = {
    .name = "node",
    .open = hb_node_open,
    .close = hb_node_close,
    .load_seeds = node_seeds,
    .hop = hb_node_hop,
    .gather = hb_node_gather,
};
