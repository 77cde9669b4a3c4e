/* xfer.h — the transfer operator's device side: copying finished batches
** from pinned host staging buffers to GPU memory on a stream, double
** buffered. Built with CUDA when the toolkit is present (GNNDB_CUDA); without
** it, or without a usable device at run time, xfer_open fails with
** GNNDB_NODEVICE and batches stay in host memory. */
#ifndef GNN_XFER_H
#define GNN_XFER_H

#include <stddef.h>
#include "gnndb.h"
#include "err.h"

typedef struct xfer xfer;

/* Open device `index`: GNNDB_NODEVICE with the CUDA error's words when no
** device can be used. */
int xfer_open(int index, xfer **out, gnn_err *e);
/* Copy the arrays of `host` to device memory owned by `x`; fill *dev with
** device pointers (n_id, edge_index, x, y; num_sampled_nodes and
** num_sampled_edges stay the host pointers of `host`), device and
** device_index. The copy is complete when this returns. Two buffer sets
** alternate, so the pointers stay valid through the next xfer_batch and
** until the xfer_batch or xfer_prefetch after that (or xfer_close). */
int xfer_batch(xfer *x, const gnndb_batch_view *host, gnndb_batch_view *dev,
               gnn_err *e);
/* Advisory: start copying `next` (the batch the next xfer_batch will be
** given) into the buffer set that batch will use, so the copy runs while the
** caller works on the current batch. The arrays of `next` are copied into
** pinned staging before this returns, so they may change afterwards; the
** next xfer_batch with the same batch (epoch, batch, sizes and host
** pointers) then only waits for the copy. A failure here is not fatal:
** xfer_batch copies again (pass e = NULL to ignore it). It fills the set of
** the batch before the current one: the current batch stays valid, the one
** before it does not. */
int xfer_prefetch(xfer *x, const gnndb_batch_view *next, gnn_err *e);
/* Page-locked host memory for staging (falls back to malloc; x may be NULL,
** then always malloc). Free with xfer_host_free and the same x. Batch arrays
** in such memory are copied by xfer_batch without staging. */
void *xfer_host_alloc(xfer *x, size_t bytes);
void xfer_host_free(xfer *x, void *p);
void xfer_close(xfer *x);
/* Whether this build has CUDA compiled in. */
int xfer_compiled(void);

#endif
