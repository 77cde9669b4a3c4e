/* hb_variant.h — what a node, an edge-seeded (link) or a typed SAMPLE does
** differently, as one table of operations chosen once when the executor
** opens (hyperbatch.c), the way storage/io.c chooses an I/O backend. The
** generic operators (rounds, hop, gather, finish, spill, read-back) reach a
** variant only through x->var, never by name. An operation left NULL has
** nothing to add to the generic work. */
#ifndef GNN_HB_VARIANT_H
#define GNN_HB_VARIANT_H

#include <stdint.h>
#include "err.h"
#include "plan.h"
#include "hb_batch.h"
#include "hbs_format.h"

#include "exec.h"

typedef struct hb_variant {
    const char *name;
    /* Open the topology the hops read and what else the variant alone
    ** reads; close frees all of it (also after a failed open). */
    int (*open)(hb_ctx *x, gnn_err *e);
    void (*close)(hb_ctx *x);
    /* Load the seeds into x->seeds: node ids, or a link's edge ids. */
    int (*load_seeds)(hb_ctx *x, gnn_err *e);
    /* Start the mini-batches of x->hb from the epoch's `order` (NULL:
    ** each one's seeds are its slice of the order, as nodes). */
    int (*start)(hb_ctx *x, const uint32_t *order, gnn_err *e);
    /* Sample hop `hop` of every mini-batch of x->hb. */
    int (*hop)(hb_ctx *x, int hop, gnn_err *e);
    /* Gather the rows of every mini-batch of x->hb into its outputs. */
    int (*gather)(hb_ctx *x, gnn_err *e);
    /* Lay b out before it is finished without a gather (a spilled
    ** round's): what the gather would have done to it. */
    int (*layout)(const plan *p, hb_batch *b, gnn_err *e);
    /* Finish b's own fields into its view, after the generic finish. */
    int (*finish)(hb_ctx *x, hb_batch *b, gnn_err *e);
    /* Spilling finished b: keep its own fields in record s, or append
    ** them to s's run (after its n_id, edge_index and e_id). */
    int (*spill)(const plan *p, const hb_batch *b, hb_sbatch *s,
                 gnn_err *e);
    /* Bind the view of b, read back from record s's run in buf (its node
    ** rows at rows, its edge rows at erows), to its own fields. */
    int (*bind)(const plan *p, hb_batch *b, const hb_sbatch *s,
                unsigned char *buf, float *rows, float *erows, gnn_err *e);
} hb_variant;

extern const hb_variant hb_variant_node;   /* hb_node.c */
extern const hb_variant hb_variant_link;   /* hb_link.c */
extern const hb_variant hb_variant_typed;  /* hb_typed.c */

/* The node variant's operations, which the link variant shares: the
** graph's topology, its hops, and its rows (features, labels and EDGE
** FEATURES). */
int hb_node_open(hb_ctx *x, gnn_err *e);
void hb_node_close(hb_ctx *x);
int hb_node_hop(hb_ctx *x, int hop, gnn_err *e);
int hb_node_gather(hb_ctx *x, gnn_err *e);

#endif
