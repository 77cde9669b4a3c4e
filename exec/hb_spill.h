/* hb_spill.h — the spilled hyperbatch as the executor drives it (its
** files: hb_spill.c, hb_readback.c, hb_pipeline.c; its state: hbs_int.h):
** rounds whose gathered rows wait in the spill area instead of memory. */
#ifndef GNN_HB_SPILL_H
#define GNN_HB_SPILL_H

#include "err.h"
#include "exec.h"


/* Open the spill area and the read-back for a spilled plan (x->sp, x->rb,
** x->bg), and close them (nothing to do for a plan that does not spill). */
int hbp_open(hb_ctx *x, gnn_err *e);
void hbp_close(hb_ctx *x);
/* The next spilled mini-batch, switching rounds and starting the next
** round's build on its own thread as needed. */
int hbp_next(hb_ctx *x, const gnndb_batch_view **view, gnn_err *e);
/* Give up and join a build running on its own thread. */
void hbp_stop(hb_ctx *x);
/* The spill area's counters into v. */
void hbp_stats(const hb_ctx *x, hb_stats *v);

#endif
