/* hop_temporal.h — the hops of a time-respecting SAMPLE (hop_temporal.c):
** each seed's tree sampled apart, every hop comparing edge times with the
** root seed's time, from the time graph's blocks pinned in memory. */
#ifndef GNN_HOP_TEMPORAL_H
#define GNN_HOP_TEMPORAL_H

#include <stdint.h>
#include "err.h"
#include "plan.h"
#include "hb_batch.h"
#include "hop_resident.h"

/* The seeds' times: seed id[i] (ascending) has time t[i]. Twelve bytes
** a seed, never a table of every node. */
typedef struct hb_tm_times {
    uint32_t *id;
    int64_t *t;
    size_t n;
    int64_t *ntime;          /* BY NODE TIME: every node's time, by id */
} hb_tm_times;

/* The time graph the hops read: a resident round's pinned blocks (rs), or
** else its file through the buffer pool bp (t: its index and file). */
typedef struct hb_tm_graph {
    const hb_rs_graph *rs;
    struct bp_pool *bp;
    const hb_rel_topo *t;
} hb_tm_graph;

/* Sample every hop of mini-batch b (its seeds in place) from g's
** time-graph blocks (with a pool: on one thread at a time): b's nodes numbered tree by tree within a hop, each
** node's root seed in b->troot, each edge's id and time beside it, and
** each seed's time in b->o_time. */
int hb_tm_sample(const hb_tm_graph *g, const plan *p, const hb_tm_times *tt,
                 hb_batch *b, gnn_err *e);

/* AT EDGE TIME: the time of each seed edge src[i] -> dst[i] with id
** eid[i], found by its id in src's list of the time graph, else in dst's
** (the list holding it depends on the edge's direction), read through g
** (with a pool: on one thread at a time). A scan of each list, so its
** cost grows with the endpoints' degrees. */
int hb_tm_edge_times(const hb_tm_graph *g, const uint32_t *src,
                     const uint32_t *dst, const uint32_t *eid, size_t n,
                     int64_t *t, gnn_err *e);

#endif
