/* hop_resident.h — the hops of a round built from resident blocks
** (hop_resident.c): one mini-batch sampled from every block pinned in
** memory, by one worker with scratch of its own. */
#ifndef GNN_HOP_RESIDENT_H
#define GNN_HOP_RESIDENT_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"
#include "plan.h"
#include "hb_batch.h"
#include "hb_topo.h"

/* A resident round's graph (hb_resident.c): the topology its hops read
** and its blocks, every one pinned, by number. */
typedef struct hb_rs_graph {
    const hb_rel_topo *t;
    const void **data;
    size_t n;
    /* each block's first node and node count, copied from its header: the
    ** hops look a node's block up for every node, and the headers, a MiB
    ** apart, would each be a cache miss */
    const uint64_t *first;
    const uint32_t *count;
} hb_rs_graph;
/* A worker's scratch for resident hops (hop_resident.c): its node map and
** the frontier nodes in flight; made, freed, its bytes. */
typedef struct hb_rs_worker hb_rs_worker;
hb_rs_worker *hb_rs_worker_new(void);
void hb_rs_worker_free(hb_rs_worker *w);
size_t hb_rs_worker_bytes(const hb_rs_worker *w);
/* Sample every hop of mini-batch b (its seeds in place) from g's pinned
** blocks with w's scratch, as hop.c would over its blocks. */
int hb_rs_sample(const hb_rs_graph *g, const plan *p, hb_batch *b,
                 hb_rs_worker *w, gnn_err *e);

#endif
