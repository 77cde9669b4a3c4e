/* hb_topo.h — a topology the hops read: the graph's (or its edge-id
** graph's), or one relation's of a typed graph, with its block index and,
** where it has one, its EDGE FEATURES table. */
#ifndef GNN_HB_TOPO_H
#define GNN_HB_TOPO_H

#include <stddef.h>
#include <stdint.h>
#include "blockfile.h"
#include "plan.h"

typedef struct hb_rel_topo {
    blk_file *f;
    blk_file *ef;            /* EDGE FEATURES: its table, where it has one */
    uint64_t *idx_first, *idx_block;
    size_t nidx;
    uint32_t cont_cap;       /* neighbours a continuation block holds */
    uint64_t nblocks;
} hb_rel_topo;

/* Open graph g's topology (with edge ids when plan p carries them) as
** buffer-pool file `id` into *t: its file, block index, the neighbours a
** continuation block holds, its blocks. hb_topo_close frees what it holds
** (t->ef too) and zeroes it. */
int hb_topo_open(gnndb *db, const plan *p, const cat_graph *g, int id,
                 hb_rel_topo *t, gnn_err *e);
void hb_topo_close(hb_rel_topo *t);

#endif
