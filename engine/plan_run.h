/* plan_run.h — the bytes of a spilled mini-batch's run, as a function of
** the plan: what the planner estimates a run to hold and what the
** executor lays out in it (exec/hbs_format.h) come from these, so the
** two cannot drift apart. A run holds, in order: n_id (8 bytes a node),
** edge_index (16 an edge), e_id when the batches carry edge ids (8 an
** edge), a typed batch's per-type and per-relation outputs
** (plan_typed_words), then the order of its nodes by row (4 + 4 a node),
** with edge rows the order of its edges by id (4 + 4 an edge), then the
** rows themselves. */
#ifndef GNN_PLAN_RUN_H
#define GNN_PLAN_RUN_H

#include <stddef.h>
#include "plan.h"

/* Words of a typed batch's outputs of nn nodes, ne edges: the types' n_id
** (nn in all), their per-hop node counts, the relations' edge_index (2 ne
** in all), their per-hop edge counts, and with edge ids the relations'
** e_id (ne in all). */
size_t plan_typed_words(const plan *p, size_t nn, size_t ne);

/* A run's topology (n_id, edge_index, e_id, a typed batch's outputs):
** bytes per node, per edge, and in all for nn nodes and ne edges. */
size_t plan_run_node_bytes(const plan *p);
size_t plan_run_edge_bytes(const plan *p);
size_t plan_run_topo_bytes(const plan *p, size_t nn, size_t ne);

/* The order of a run's nodes by row: each one's place and its row. */
#define PLAN_RUN_ORDER_NODE_BYTES 8
/* The order of its edges by id, where the batches carry edge rows. */
size_t plan_run_order_edge_bytes(const plan *p);

/* What a spilled plan's hot rows (exec/hotrows.c) hold with room for
** `cap` rows of the node features: their bytes, a bit and a 4-byte count
** per 64 rows, a flag per feature block, and while they are chosen a
** histogram of 65536 degrees. */
int64_t plan_hot_bytes(const plan *p, int64_t cap);

#endif
