/* xfer.h — the transfer operator's device side: a finished batch's arrays
** copied to GPU memory, each batch on the stream of its own buffer set
** with an event that says when it is there, the next batch copied while the
** caller works on this one, and a GPU feature cache (gcache.h) that keeps
** hot rows on the device so that only the others cross the bus. Built with
** CUDA when the toolkit is present (GNNDB_CUDA); without it, or without a
** usable device at run time, xfer_open fails with GNNDB_NODEVICE and
** batches stay in host memory.
**
** Every error names the device ("cuda:N: ...") and what failed; a batch
** whose copy failed is never handed out, and the host batch it came from is
** left as it was. */
#ifndef GNN_XFER_H
#define GNN_XFER_H

#include <stddef.h>
#include <stdint.h>
#include "gnndb.h"
#include "err.h"

typedef struct xfer xfer;

/* What the transfer did so far. */
typedef struct xfer_stats {
    uint64_t batches;        /* handed out */
    uint64_t bus_bytes;      /* host-to-device bytes, staging and direct */
    uint64_t staged_bytes;   /* of them, copied into pinned staging first
                             ** (arrays not already in pinned memory) */
    uint64_t rows;           /* rows of x handed out ... */
    uint64_t cache_hits;     /* ... of which the device cache served */
    int64_t cache_rows;      /* the device cache: slots, and rows chosen */
    int64_t cache_chosen;
    double wait_seconds;     /* the host waiting for a batch's copy */
} xfer_stats;

/* Open device `index`: GNNDB_NODEVICE with the CUDA error's words when no
** device can be used. */
int xfer_open(int index, xfer **out, gnn_err *e);
/* Keep `rows` feature rows of `dim` floats on the device, chosen by
** counting the first `warm` batches (gcache.h); their memory is taken
** now: GNNDB_NOMEM, naming the device and the size, when it is not free. */
int xfer_cache(xfer *x, int64_t rows, int64_t dim, int warm, gnn_err *e);
/* Copy every array of `host` (xfer_layout.h) to device memory owned by x
** and fill *dev: the same view with device pointers, device and
** device_index set, cuda_stream the stream the copy ran on. The copy is
** complete when this returns (the host waited on the batch's own event,
** never on the whole device). Two buffer sets alternate, so the arrays stay
** valid through the next xfer_batch and until the xfer_prefetch after it
** (or xfer_close). */
int xfer_batch(xfer *x, const gnndb_batch_view *host, gnndb_batch_view *dev,
               gnn_err *e);
/* Start copying `next` (the batch the next xfer_batch will be given) into
** the other buffer set, so that the copy runs while the caller works on the
** current batch. next's arrays must stay unchanged until that xfer_batch
** (or xfer_close): arrays in pinned memory are read in place by the
** device. A failure here is not fatal (pass e = NULL to ignore it): the
** xfer_batch of `next` copies it again and reports. */
int xfer_prefetch(xfer *x, const gnndb_batch_view *next, gnn_err *e);
void xfer_get_stats(const xfer *x, xfer_stats *s);
void xfer_close(xfer *x);
/* Whether this build has CUDA compiled in. */
int xfer_compiled(void);

/* Free and total memory of device `index`: GNNDB_NODEVICE when it cannot
** be asked. */
int xfer_mem_info(int index, int64_t *free_bytes, int64_t *total_bytes,
                  gnn_err *e);
/* Pinned host bytes the transfer's staging holds at most for batches of
** `batch_bytes` (both buffer sets): what the planner counts. */
int64_t xfer_staging_bytes(int64_t batch_bytes);

/* Page-locked host memory that any device may copy from (portable), or
** NULL when none can be had (no CUDA, no device, the limit on locked
** memory): the caller then uses ordinary memory. */
void *xfer_pinned_alloc(size_t bytes);
void xfer_pinned_free(void *p);
/* Whether p lies in page-locked memory a device can copy from. */
int xfer_is_pinned(const void *p);

#endif
