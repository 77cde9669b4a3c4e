/* hb_resident.h — rounds built from resident blocks (hb_resident.c), where
** the pools hold every block a round reads. */
#ifndef GNN_HB_RESIDENT_H
#define GNN_HB_RESIDENT_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"
#include "plan.h"
#include "hb_batch.h"

#include "exec.h"

/* Build mini-batches [g, g + h_next) of one epoch into x->hb, sampled,
** gathered and finished, from the pools' frames when they hold every
** block the round reads (hb_resident.c); *done 0 (and nothing changed)
** when they do not, or the plan's batches are not built that way. */
int hb_resident_round(hb_ctx *x, int64_t g, int *done, gnn_err *e);
/* The resident round's workers (their node maps): freed. */
void hb_resident_close(hb_ctx *x);

#endif
