/* costmodel.h — EXPLAIN's analytical cost model: from the catalog's
** statistics, the plan and the disk profile (PRAGMA calibrate) to the
** blocks, bytes, requests and seconds of each operator, the batches per
** second, and the HYPERBATCH and BLOCK SIZE the model would choose.
** docs/architecture.md gives the formulas. */
#ifndef GNN_COSTMODEL_H
#define GNN_COSTMODEL_H

#include <stdint.h>
#include "plan.h"

/* The on-disk layout and memory split the model evaluates: the plan's own,
** or a hypothetical one (another block size). */
typedef struct cm_layout {
    int64_t hyperbatch;
    double subround;                 /* spilled: mini-batches sampled at a
                                     ** time (0: the whole hyperbatch) */
    double spill_bytes;              /* spilled: run bytes per mini-batch */
    double hot_passes;               /* spilled: whole reads of the graph
                                     ** choosing the hot rows, at open */
    double graph_blocks, graph_bs;   /* blocks of the topology, block bytes */
    double feat_blocks, feat_bs;     /* 0 blocks: no feature table */
    double label_blocks, label_bs;   /* 0 blocks: no labels */
    double gframes, fframes;         /* buffer pool frames */
} cm_layout;

/* Totals of one operator over the whole statement. */
typedef struct cm_op {
    double blocks;     /* blocks read from disk (pool misses) */
    double bytes;      /* bytes read from disk */
    double requests;   /* I/O requests after coalescing */
    double work;       /* sampled edges, or gathered bytes */
    double io_s, cpu_s;
    double seconds;    /* max(io_s, cpu_s): reads overlap the work */
} cm_op;

/* Whole blocks or pages (PRAGMA read_granularity) for one file: the
** expected pages and reads of a block read in part, their time and the
** whole block's, and the choice. */
typedef struct cm_gran {
    int page;          /* 1: the blocks are read in pages */
    double rows;       /* rows needed per block read */
    double pages, runs;
    double t_pages, t_whole;
} cm_gran;

typedef struct cm_est {
    cm_op hop[AST_MAX_HOPS];
    cm_op gather;
    cm_gran gather_gran;  /* the feature table's (last hyperbatch) */
    cm_gran hop_gran[AST_MAX_HOPS];  /* the graph's, per hop */
    cm_op total;
    double hyperbatches;
    double batches_per_s;
} cm_est;

/* The seconds one request of `size` bytes costs, and the bandwidth of
** reads in ascending order (what a profile says). */
double cm_request_seconds(const cat_profile *pr, double size);
double cm_seq_bps(const cat_profile *pr);
/* Pages between two wanted ones that cost less to read than to skip with a
** second request (reads of part of a block merge runs that close). */
unsigned cm_page_gap(const cat_profile *pr, double page_size);

/* The plan's own layout. */
void cm_layout_of(const plan *p, cm_layout *l);
/* Evaluate the model. */
void cm_estimate(const plan *p, const cat_profile *pr, const cm_layout *l,
                 cm_est *out);

/* The largest HYPERBATCH that fits memory_limit by the plan's reckoning. */
int64_t cm_hyperbatch_fit(const plan *p);
/* The HYPERBATCH to use: the smallest within 5% of the best batches/s
** among those that fit memory_limit (powers of two and the fit itself). */
int64_t cm_suggest_hyperbatch(const plan *p, const cat_profile *pr,
                              cm_est *est);
/* The block size (4 KiB..16 MiB, for the topology and the feature table
** alike) with the most batches/s at the plan's HYPERBATCH; 0 when none is
** possible. *l gets its layout. */
int64_t cm_suggest_block_size(const plan *p, const cat_profile *pr,
                              cm_layout *l, cm_est *est);

#endif
