/* hb_batch.h — a mini-batch as the executor builds it: its nodes in local
** order with the map that finds a node's local index, its edges grouped by
** hop, a link batch's seed edges, a typed batch's per-type layout, and the
** outputs handed out (the transfer operator's memory: transfer.c). Every
** operator reads and writes these; none owns them, the hyperbatch's slots
** do (hyperbatch.c). */
#ifndef GNN_HB_BATCH_H
#define GNN_HB_BATCH_H

#include <stddef.h>
#include <stdint.h>
#include "gnndb.h"
#include "plan.h"
#include "link.h"

typedef struct nmap {        /* internal id -> local index, open addressing */
    uint32_t *slots;         /* local index (key: nodes[it]); UINT32_MAX: empty */
    size_t cap, n;
} nmap;

typedef struct hb_batch {
    int64_t epoch, batch;
    int64_t nseeds;
    uint32_t *nodes;         /* internal ids, in local order */
    size_t nn, capn;
    size_t frontier_lo;      /* first node of the current frontier */
    nmap map;
    uint32_t *esrc, *edst;   /* local indices, grouped by hop */
    size_t ne, cape, capdst;
    uint32_t *eid;           /* each edge's input id (plan eids), as esrc */
    size_t capeid;
    /* a time-respecting batch (hop_temporal.c): each node's root seed
    ** (its index in the batch), each edge's time, and their outputs with
    ** the seeds' times */
    uint32_t *troot;
    size_t captroot;
    int64_t *etime;
    size_t capetime;
    int64_t *o_root, *o_time, *o_etime;
    size_t cap_o_root, cap_o_time, cap_o_etime;
    uint16_t *etype;         /* a typed batch: each edge's relation */
    size_t capetype;
    size_t hop_end;          /* the frontier's end while a hop samples */
    lk_batch lk;             /* a link batch's seed edges and negatives */
    int64_t nsn[AST_MAX_HOPS + 1];
    int64_t nse[AST_MAX_HOPS];
    /* the output, filled by gather.c and batch.c */
    int64_t *n_id;
    int64_t *edge_index;
    float *x;
    int64_t *y;
    int64_t *e_id;
    float *edge_attr;
    size_t cap_out_nodes, cap_out_edges, cap_out_x, cap_out_y;
    size_t cap_out_eid, cap_out_eattr;
    /* a typed batch (hb_typed.c): each node's rank in its type, the
    ** per-type and per-relation outputs, and their views */
    uint32_t *trank;
    size_t captrank;
    int64_t *t_out;
    size_t cap_t_out;
    float *t_x;
    size_t cap_t_x;
    float *t_eattr;          /* each relation's edge_attr, in order */
    size_t cap_t_eattr;
    gnndb_type_view *tviews;
    gnndb_rel_view *rviews;
    gnndb_batch_view view;
} hb_batch;

/* The node map: empty map m for a new mini-batch whose first `expect`
** nodes it holds without growing (`used`: the nodes the previous one
** left); the local index of `node` in b, appended when new. Both -1 when
** out of memory. */
int hb_nmap_reset(nmap *m, size_t expect, const uint32_t *used, size_t nused);
int hb_add_node(hb_batch *b, uint32_t node, uint32_t *local);
/* Room in b's edge lists (esrc, edst) for `more` edges after b->ne; -1
** when out of memory. The hops grow their own per-edge arrays beside. */
int hb_reserve_edges(hb_batch *b, size_t more);
/* The map's table as scratch for the nn + 1 64-bit sort keys of a
** finished mini-batch, so that spilling a sub-round allocates no keys of
** its own (grown when the table is smaller); the map is cleared whole at
** its next reset. NULL when out of memory. */
uint64_t *hb_map_scratch(hb_batch *b);

/* Point b->view at b's counts (epoch, batch, seeds, nodes, edges, nodes
** and edges per hop) and at these arrays; x and y only where the plan
** has features and labels. */
void hb_fill_view(const plan *p, hb_batch *b, int64_t *n_id,
                  int64_t *edge_index, float *xrows, int64_t *y);
/* Free b's arrays but the outputs handed out (hb_out_release frees those,
** before this); b itself is the caller's. */
void hb_batch_free(hb_batch *b);
/* Bytes b's arrays hold (their capacities), counted against the staged
** budget. */
size_t hb_batch_bytes(const hb_batch *b);

#endif
