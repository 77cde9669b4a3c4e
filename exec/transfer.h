/* transfer.h — the transfer operator (transfer.c): the last step of
** handing a batch out, to a CUDA device or as it is; the memory a batch's
** outputs and a spilled round's read buffers live in; the digest of the
** batch handed out. Its state is its own, in the context's slot x->tr. */
#ifndef GNN_TRANSFER_H
#define GNN_TRANSFER_H

#include <stddef.h>
#include "err.h"
#include "hb_batch.h"

#include "exec.h"

/* The transfer operator (transfer.c): open it (the device and its GPU
** cache, for TO DEVICE 'cuda:N') and close it; hand b out, to the device
** or as it is (*view: what the caller gets). */
int hb_transfer_open(hb_ctx *x, gnn_err *e);
void hb_transfer_close(hb_ctx *x);
void hb_transfer_free(hb_ctx *x);
/* Start copying b, the next to be handed out, while the caller works. */
void hb_transfer_prefetch(hb_ctx *x, const hb_batch *b);
int hb_transfer_batch(hb_ctx *x, hb_batch *b, const gnndb_batch_view **view,
                      gnn_err *e);
/* The last batch handed out, in host memory, and its digest computed into
** its views (exec.h: hb_host_view, hb_digest). */
const gnndb_batch_view *hb_transfer_host_view(const hb_ctx *x);
void hb_transfer_digest(hb_ctx *x);
/* A batch's outputs that are handed out (n_id, edge_index, x, y,
** edge_attr, a typed batch's rows) grow with hb_out_grow, as gnn_grow
** does, in pinned memory when the transfer wants it (hb_transfer.pin, a
** round kept in memory), and are freed with hb_out_free; hb_out_release
** frees all of b's before batch_free. A spilled round's read buffers, what
** its batches are handed out from, come from hb_read_buffer (aligned for
** O_DIRECT, pinned when wanted) and go back with hb_read_buffer_free. */
int hb_out_grow(hb_ctx *x, void **p, size_t *cap, size_t need, size_t elem);
/* Whether hb_out_grow gives pinned memory. */
int hb_out_pinned(const hb_ctx *x);
void hb_out_free(hb_ctx *x, void *p);
void hb_out_release(hb_ctx *x, hb_batch *b);
void *hb_read_buffer(hb_ctx *x, size_t bytes);
void hb_read_buffer_free(hb_ctx *x, void *p);

#endif
