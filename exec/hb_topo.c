/* hb_topo.c — opening and closing the topologies the hops read (hb_topo.h). */
#include "hb_topo.h"
#include "block.h"

#include <stdlib.h>
#include <string.h>

int hb_topo_open(gnndb *db, const plan *p, const cat_graph *g, int id,
                 hb_rel_topo *t, gnn_err *e)
{
    int rc = db_open_graph(db, g, id, &t->f, e);
    if (!rc) rc = db_load_graph_index(db, g, &t->idx_first, &t->idx_block,
                                      &t->nidx, e);
    /* an edge-id topology's continuation blocks hold ids too, a time
    ** graph's times as well; BY NODE TIME reads the graph's own lists,
    ** which hold none, so the kind of topology decides, not the plan */
    t->cont_cap = blk_graph_cont_capacity_flags(
        g->block_size, g->kind == CAT_GRAPH_TIME ? BLK_FLAG_EIDS |
                                                   BLK_FLAG_TIMES
                       : p->eids ? BLK_FLAG_EIDS : 0);
    t->nblocks = (uint64_t)g->graph_blocks;
    return rc;
}

void hb_topo_close(hb_rel_topo *t)
{
    if (t->f) blkf_close(t->f);
    if (t->ef) blkf_close(t->ef);
    free(t->idx_first);
    free(t->idx_block);
    memset(t, 0, sizeof *t);
}
