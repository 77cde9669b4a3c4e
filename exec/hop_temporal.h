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

struct hb_exec;

/* Each seed's time, by internal node id (the executor's, hb_tm_open):
** from AT TIMES' file, in the order of the seed set, or from the graph's
** node times (AT NODE TIME). */
int hb_tm_open(struct hb_exec *x, gnn_err *e);
/* Sample every hop of mini-batch b (its seeds in place) from g's pinned
** time-graph blocks: b's nodes numbered tree by tree within a hop, each
** node's root seed in b->troot, each edge's id and time beside it. */
int hb_tm_sample(const hb_rs_graph *g, const plan *p, const int64_t *stime,
                 hb_batch *b, gnn_err *e);

#endif
