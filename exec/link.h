/* link.h — the link operator of an edge-seeded SAMPLE (SAMPLE ... EDGES
** split): each mini-batch's seed edges and their negatives, the distinct
** endpoints the hops start from, the label arrays PyG's LinkNeighborLoader
** hands out, and which sampled edges EXCLUDE drops.
**
** Determinism: the negatives of a mini-batch depend only on (SEED, epoch,
** mini-batch, attempt, position), so they are the same under any
** HYPERBATCH, thread count or memory budget. */
#ifndef GNN_LINK_H
#define GNN_LINK_H

#include <stddef.h>
#include <stdint.h>
#include "bufpool.h"
#include "blockfile.h"
#include "err.h"

/* STRICT redraws a negative that is an edge at most this many times. */
#define LK_MAX_ATTEMPTS 64

typedef struct lk_spec {
    int mode;                /* AST_NEG_* */
    int64_t k;               /* negatives per seed edge; 0: none */
    int strict;              /* no negative may be an edge */
    int exclude_seeds;       /* drop the mini-batch's seed edges */
    const uint64_t *excluded;/* EXCLUDE SPLIT: a bit per edge id, or NULL */
    uint64_t nexcluded;      /* bits of `excluded` */
    uint64_t seed;           /* the statement's SEED */
    uint32_t nodes;          /* negatives are drawn from [0, nodes) */
    int disjoint;            /* one tree per endpoint slot (time):
                             ** the roots in lk_roots' order, not the
                             ** distinct endpoints */
    const uint32_t *by_time; /* time with node times: every node, */
    const int64_t *times;    /* ascending by (time, id), and those times */
} lk_spec;

/* The seed edges of the statement, ascending by edge id, with their
** endpoints (internal ids). */
typedef struct lk_seeds {
    const uint32_t *eid;     /* borrowed: the seed set's ids (hb_link.c) */
    uint32_t *src, *dst;     /* owned: lk_seeds_free */
    size_t n;
} lk_seeds;

/* One mini-batch's link part. Arrays are malloc'd and reused from one
** mini-batch to the next; lk_batch_free releases them. */
typedef struct lk_batch {
    size_t npos, nneg;       /* B' seed edges, k B' negatives */
    uint32_t *psrc, *pdst;   /* the positives, in seed order */
    uint32_t *nsrc, *ndst;   /* the negatives (source repeated unless PAIRS) */
    uint8_t *ntry;           /* each negative's attempt */
    uint32_t *peid;          /* the positives' edge ids, in seed order */
    uint32_t *sorted_eid;    /* the seed edges' ids ascending (EXCLUDE SEEDS) */
    const lk_spec *spec;     /* what filled it (lk_batch_fill): its EXCLUDE */
    uint32_t *ends;          /* the distinct endpoints, ascending */
    size_t nends;
    size_t cap_pos, cap_neg, cap_ends;
    /* the output (lk_finish), in local indices */
    int64_t *label_index;    /* 2 x L (binary) */
    float *label;
    int64_t *src_index, *dst_pos_index, *dst_neg_index; /* TRIPLET */
    size_t cap_out;
} lk_batch;

/* Fill b with the seed edges order[lo, hi) (edge ids, found in sd) and
** their negatives' first draws. GNNDB_NOMEM, or GNNDB_CORRUPT when an id is
** not among the seeds. */
int lk_batch_fill(const lk_spec *sp, const lk_seeds *sd, const uint32_t *order,
                  int64_t lo, int64_t hi, int64_t epoch, int64_t batch,
                  lk_batch *b, gnn_err *e);

/* Draw negative i of b again, as its attempt `attempt`. */
void lk_redraw(const lk_spec *sp, int64_t epoch, int64_t batch, lk_batch *b,
               size_t i, unsigned attempt);

/* b->ends: the distinct endpoints of the positives and negatives. */
int lk_endpoints(lk_batch *b, gnn_err *e);

/* Every node by time, for lk_time_negatives: t[0..n) (node i's time)
** sorted in place, and *nodes (malloc'd, the caller's) the node ids in
** that order, ties by id. */
int lk_by_time(int64_t *t, size_t n, uint32_t **nodes, gnn_err *e);

/* Draw b's negatives again among the nodes already there at their root's
** time (node time <= tpos[i / k], the time of the positive negative i was
** drawn for; tpos[j]: positive j's), uniformly, under the keys of their
** first draws (the destination; the source too with PAIRS). GNNDB_RANGE,
** naming the seed edge, when no node is there yet. */
int lk_time_negatives(const lk_spec *sp, int64_t epoch, int64_t batch,
                      lk_batch *b, const int64_t *tpos, gnn_err *e);

/* The roots of a disjoint (time-respecting) mini-batch, one tree each,
** in the order its label arrays index them: the sources of its label
** edges (positives, then negatives), then their destinations; under
** TRIPLET the sources, the positives' and the negatives' destinations.
** Each root's time is its label edge's, a negative taking that of the
** positive it was drawn for: tpos[i] is positive i's. */
size_t lk_nroots(const lk_spec *sp, const lk_batch *b);
void lk_roots(const lk_spec *sp, const lk_batch *b, const int64_t *tpos,
              uint32_t *root, int64_t *rtime);

/* The output arrays, given that the endpoints are the mini-batch's first
** nends local indices in ascending order (disjoint: that the roots are
** its first lk_nroots local indices, in lk_roots' order). */
int lk_finish(const lk_spec *sp, lk_batch *b, gnn_err *e);

/* Whether a sampled edge of this mini-batch is dropped: one of its seed
** edges (EXCLUDE SEEDS; for an undirected graph both directions share the
** id) or an edge of an excluded split. */
int lk_excluded(const lk_spec *sp, const lk_batch *b, uint32_t eid);

void lk_batch_free(lk_batch *b);
void lk_seeds_free(lk_seeds *sd);

/* Reading adjacency lists to tell whether (u, v) is an edge u -> v, for
** STRICT: the graph's blocks through a pool (either topology file). */
typedef struct lk_graph {
    bp_pool *pool;
    blk_file *f;
    const uint64_t *idx_first, *idx_block;
    size_t nidx;
    uint64_t nblocks;
} lk_graph;

/* hit[i] = 1 when u[i] -> v[i] is an edge, else 0. */
int lk_edges_exist(const lk_graph *g, const uint32_t *u, const uint32_t *v,
                   size_t n, uint8_t *hit, gnn_err *e);

/* STRICT over the mini-batches b[0..nb) (epoch and batch numbers in
** epochs[], batches[]): redraw every negative that is an edge until none
** is, or fail with GNNDB_RANGE when one is still an edge after
** LK_MAX_ATTEMPTS redraws (attempts 0..LK_MAX_ATTEMPTS). */
int lk_strict(const lk_spec *sp, const lk_graph *g, lk_batch *const *b,
              const int64_t *epochs, const int64_t *batches, size_t nb,
              gnn_err *e);

#endif
