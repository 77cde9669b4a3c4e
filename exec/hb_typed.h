/* hb_typed.h — the typed variant's files (hb_typed.c: topology, seeds,
** hops, layout and finish; gather_typed.c: its rows) share these. */
#ifndef GNN_HB_TYPED_H
#define GNN_HB_TYPED_H

#include "exec_int.h"

/* Gather each type's rows, each relation's EDGE FEATURES rows and the
** seeds' labels of x->hb (gather_typed.c). */
int hb_typed_gather(hb_ctx *x, gnn_err *e);
/* Each node's rank within its type and the types' node counts in b's
** views (allocated once a slot): what hb_typed_finish needs first. The
** gather does it for an in-memory round, the spill writer (through the
** variant's layout) for a spilled one. */
int hb_typed_layout(const plan *p, hb_batch *b, gnn_err *e);
/* Point each type's x into t_x by the types' num_nodes (NULL: no rows). */
void hb_typed_bind_x(const plan *p, hb_batch *b, float *t_x);
/* Point each relation's edge_attr into t_eattr by the relations'
** num_edges (NULL: none). */
void hb_typed_bind_eattr(const plan *p, hb_batch *b, float *t_eattr);

#endif
