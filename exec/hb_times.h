/* hb_times.h — the seeds' times of a time-respecting SAMPLE, held by the
** executor (x->tm) while it runs; the hops read them (hop_temporal.h). */
#ifndef GNN_HB_TIMES_H
#define GNN_HB_TIMES_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"

struct hb_ctx;

/* The executor's seed times (x->tm): from AT TIMES' file, in the order of
** the seed set, or from the graph's node times (AT NODE TIME), read block
** by block for the seeds only; freed by hb_tm_close (hop_temporal.c). Seed
** edges' times are the link variant's (hb_link.c): x->tm then holds only
** BY NODE TIME's node times. */
int hb_tm_open(struct hb_ctx *x, gnn_err *e);
void hb_tm_close(struct hb_ctx *x);
/* Every hop of the round's mini-batches (their seeds in place), reading
** the time graph through the graph's buffer pool on the caller's thread:
** the round of a plan whose blocks are not all resident. */
int hb_tm_round(struct hb_ctx *x, gnn_err *e);
/* Every node's time, by id, from the graph's node times table: *t
** malloc'd (the caller frees it, set even on failure). */
int hb_tm_every_node_time(struct hb_ctx *x, int64_t **t, gnn_err *e);

/* AT EDGE TIME BY NODE TIME: the time of each of the n seed edges
** src[i] -> dst[i] with id eid[i] (ascending) into t[i], read once from
** time graph tg (its edge-id view) through a pool of its own, since the
** hops read the graph's own lists, which hold no times: each endpoint's
** list scanned once, so the cost is the endpoints' degrees. */
int hb_tm_seed_times(struct hb_ctx *x, const struct cat_graph *tg,
                     const uint32_t *src, const uint32_t *dst,
                     const uint32_t *eid, size_t n, int64_t *t, gnn_err *e);

#endif
