/* plan_size.h — the planner's estimates (plan_size.c), for plan.c. */
#ifndef GNNDB_PLAN_SIZE_H
#define GNNDB_PLAN_SIZE_H

#include "plan.h"

/* The width of an edge feature row the plan gathers (0: none). */
int64_t plan_eattr_dim(const plan *p);
/* Expected nodes and edges of one mini-batch, from the degree histogram. */
void plan_batch_size_est(const plan *p, double *nodes, double *edges);
/* Estimate each hop and bound the mini-batch by the graph's size. */
void plan_bound_batch(plan *p);
/* Bytes one mini-batch stages, its rows included. */
int64_t plan_per_batch_bytes(const plan *p);
/* The share of a mini-batch's rows expected among the `rows` nodes of the
** highest degree (a spilled plan's hot rows), by the degree classes of
** estimate_hops: a node of degree d is in a mini-batch of K draws with
** probability 1 - exp(-K d / D). */
double plan_hot_share(const plan *p, int64_t rows);
/* Spill or not, and the round size: cap is the largest H asked or
** allowed, fit the H memory holds unspilled. */
void plan_spill(gnndb *db, plan *p, int64_t cap, int64_t fit);

#endif
