/* batch.h — finishing mini-batches and handing them out
** (batch.c): ids in the user's id space, edge_index 2 x E, the variant's
** fields, INTO files, then the transfer. */
#ifndef GNN_BATCH_H
#define GNN_BATCH_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"
#include "index.h"
#include "hb_batch.h"

#include "exec.h"

/* n_id in the user's ids, edge_index laid out 2 x E, views filled: of
** one mini-batch (t: a read transaction of the index where the graph maps
** keys; *tmp scratch the caller frees), or of every one of x->hb. */
int hb_finish_batch(hb_ctx *x, hb_batch *b, idx_txn *t, uint64_t **tmp,
                    size_t *captmp, gnn_err *e);
int hb_finish_batches(hb_ctx *x, gnn_err *e);
/* Hand out one finished mini-batch: INTO files, transfer (its digest is
** computed when asked: hb_digest). */
int hb_emit(hb_ctx *x, hb_batch *b, const gnndb_batch_view **view,
            gnn_err *e);

/* 1 when `dir` is empty, 0 when not, -errno on failure. */
int hb_dir_empty(const char *dir);
/* Ready `dir` for INTO 'dir': create it, or accept it when it is an empty
** directory; a non-empty one is refused (never mix two runs' batches). */
int hb_prepare_into(const char *dir, gnn_err *e);

#endif
