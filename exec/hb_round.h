/* hb_round.h — seeds and rounds (hb_round.c): the seeds loaded, the
** slots of a round started and sampled, and what it stages kept within
** the plan's budget. Every builder of a round starts here. */
#ifndef GNN_HB_ROUND_H
#define GNN_HB_ROUND_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"
#include "hb_batch.h"

#include "exec.h"

/* Bytes the process holds beyond what the plan knows of (the process at
** prepare, the pools' frames read into, the row cache, the host's copies)
** and `counted`, what the caller counts of the staged data: allocator slack
** and anything a count misses. Measured (the process's resident bytes
** now), so that budgets hold whatever the counts miss; keeps the peak. */
size_t hb_uncounted(hb_ctx *x, size_t counted);

/* Load the seeds (through the variant) and order each epoch's
** (hb_round.c). */
int hb_load_seeds(hb_ctx *x, gnn_err *e);
/* Free slot b's arrays; those handed out are the transfer operator's
** memory (perhaps pinned: hb_out_release). */
void hb_slot_free(hb_ctx *x, hb_batch *b);
/* Start mini-batches [g, g + h_next) of one epoch in x->hb (x->nb of
** them): their seeds, nothing sampled yet. */
int hb_seed_round(hb_ctx *x, int64_t g, gnn_err *e);
/* Sample mini-batches [g, g + h_next) of one epoch into x->hb (cut by
** hb_fit to what memory_limit holds beside x->staged_other). */
int hb_sample_round(hb_ctx *x, int64_t g, gnn_err *e);
/* Keep the mini-batches of x->hb that fit the staged budget beside
** x->staged_other (with_features: once their rows are gathered and they
** are finished): the longest prefix, the others freed to be built again
** next round; an error when not even one fits. */
int hb_fit(hb_ctx *x, int with_features, gnn_err *e);
/* Free the scratch of a hop and of gather (sized for a whole hyperbatch). */
void hb_release_work(hb_ctx *x);
void hb_release_sampling(hb_ctx *x);
void hb_trim(void);
/* Bytes the scratch of a hop and one staged mini-batch hold. */
size_t hb_work_bytes(const hb_ctx *x);
/* What every slot's arrays hold, those beyond the round's mini-batches
** included: the next round's sampling reuses them. */
size_t hb_slots_bytes(const hb_ctx *x);
/* What b stages once its rows (dim a row) are gathered and it is finished:
** what it holds, and the outputs still to be sized (a slot reused from an
** earlier hyperbatch already holds some of their capacity). */
size_t hb_staged_bytes(const hb_batch *b, int64_t dim);

#endif
