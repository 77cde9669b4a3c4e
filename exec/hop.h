/* hop.h — the hop operator (hop.c): one hop of the sampler over a whole
** hyperbatch. Its state is its own (hop_int.h); the executor holds it as
** x->hop and the variants drive it through these. */
#ifndef GNN_HOP_H
#define GNN_HOP_H

#include <stddef.h>
#include "err.h"
#include "link.h"

#include "exec.h"
struct hb_hop_state;

/* Open the hop's state (its worker scratch, its read granularity) as
** x->hop; close frees it all. */
int hb_hop_open(hb_ctx *x, gnn_err *e);
void hb_hop_close(hb_ctx *x);
/* EXCLUDE: the edges a link's spec drops are not added (NULL: none). */
void hb_hop_exclude(hb_ctx *x, const lk_spec *spec);
/* One pass of hop `hop` over the frontier [frontier_lo, hop_end) of each
** mini-batch of x->hb, through x->gtopo: for relation `rel` of a typed
** graph (rel >= 0) only the nodes of its target type, its edges tagged
** with it; rel -1: the graph's own edges. */
int hb_hop_pass(hb_ctx *x, int hop, int rel, gnn_err *e);
/* Bytes the hop's scratch holds against the staged budget (NULL: none);
** freeing its arrays sized per item (between hops and rounds). */
size_t hb_hop_bytes(const struct hb_hop_state *h);
void hb_hop_release(struct hb_hop_state *h);

#endif
