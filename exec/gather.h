/* gather.h — the gather operator (gather.c): rows of tables copied into
** each mini-batch of a hyperbatch, bucketed by block so that each block is
** read once, node features through the caches. The variants list their
** items here (node rows, labels, edge rows, a type's rows) and gather
** copies them. Its state is its own (gather.c); the executor holds it as
** x->gat. */
#ifndef GNN_GATHER_H
#define GNN_GATHER_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"
#include "exec.h"
#include "blockfile.h"
#include "../catalog/catalog.h"

struct hb_gather_state;

/* Where a gather copies its rows in a mini-batch, at the item's `local`:
** x, y (labels), edge_attr, the x of one node type, or the edge_attr of
** one relation. */
#define HB_TO_X      0
#define HB_TO_Y      1
#define HB_TO_EATTR  2
#define HB_TO_TYPE_X 3
#define HB_TO_REL_EATTR 4

/* Open the tables the plan gathers from, the feature pool and the caches
** (x->gat); close frees them. */
int hb_gather_open(hb_ctx *x, gnn_err *e);
void hb_gather_close(hb_ctx *x);
/* Read every graph block once and give fn each node's stored degree (a
** block's node out of the graph's range fails it as corrupt), to choose
** what a static cache or the spill's hot rows hold (blocks: room for them
** all); the reads count as the first hop's. */
typedef void (*hb_degree_fn)(void *arg, uint32_t node, uint32_t degree);
int hb_read_degrees(hb_ctx *x, uint64_t *blocks, hb_degree_fn fn, void *arg,
                    gnn_err *e);
/* Bytes gather's state holds against the staged budget (its items, the
** row cache's per-gather scratch; NULL: none); freeing its items between
** rounds. */
size_t hb_gather_bytes(const struct hb_gather_state *g);
void hb_gather_release(struct hb_gather_state *g);
/* Visit the blocks of list[0..*n) the hot-block cache holds from memory
** with fn, and keep in list only the others (order kept); counts what it
** spared. */
int hb_visit_pinned(hb_ctx *x, uint64_t *list, size_t *n,
                    int (*fn)(void *, uint64_t, const void *, gnn_err *),
                    void *arg, gnn_err *e);
/* Room for n gather items (and their blocks), the list emptied; then each
** item added with hb_gather_add: mini-batch bi, its place there, its row
** of a table of rpb rows a block. */
int hb_gather_reserve(hb_ctx *x, size_t n, gnn_err *e);
void hb_gather_add(hb_ctx *x, uint32_t bi, uint32_t local, uint32_t row,
                   uint32_t rpb);
/* Copy the rows of table t (file f) that the items listed name into
** `dest` (HB_TO_*; `type` for HB_TO_TYPE_X and HB_TO_REL_EATTR) of each
** item's mini-batch: each block read once, whole or in pages, rows copied
** in parallel; node features go through the caches. The figures go to
** *o. */
int hb_gather_items(hb_ctx *x, const cat_table *t, blk_file *f, int dest,
                    int type, hb_opstats *o, gnn_err *e);
/* Gather table t for every mini-batch of x->hb: its nodes' rows into x,
** or (labels) its seeds' labels into y. */
int hb_gather_nodes(hb_ctx *x, const cat_table *t, blk_file *f, int labels,
                    hb_opstats *o, gnn_err *e);
/* Copy the EDGE FEATURES row of every sampled edge of the hyperbatch
** into its mini-batch's edge_attr (gather_edges.c), block by block. */
int hb_gather_edges(hb_ctx *x, gnn_err *e);
/* One feature row of table t, as stored, into float32 dst: float16 rows
** widened, float32 copied; with `stream`, as gnn_copy_stream (the caller
** then calls gnn_copy_stream_done). The row cache keeps rows as stored. */
void hb_put_row(const cat_table *t, float *dst, const void *src, int stream);

#endif
