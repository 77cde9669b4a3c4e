/* xfer_host.c — the transfer operator when gnndb is built without CUDA:
** every device request fails clearly, pinned memory is never had (callers
** fall back to ordinary memory), and host batches are untouched. */
#ifndef GNNDB_CUDA
#include "xfer.h"

#include <string.h>

static int no_cuda(gnn_err *e, int index)
{
    return gnn_seterr(e, GNNDB_NODEVICE,
                      "TO DEVICE 'cuda:%d': this gnndb was built without CUDA "
                      "(rebuild with the CUDA toolkit installed)", index);
}

int xfer_open(int index, xfer **out, gnn_err *e)
{
    *out = NULL;
    return no_cuda(e, index);
}

int xfer_cache(xfer *x, int64_t rows, int64_t dim, int warm, gnn_err *e)
{
    (void)x;
    (void)rows;
    (void)dim;
    (void)warm;
    return no_cuda(e, 0);
}

int xfer_batch(xfer *x, const gnndb_batch_view *host, gnndb_batch_view *dev,
               gnn_err *e)
{
    (void)x;
    (void)host;
    (void)dev;
    return no_cuda(e, 0);
}

int xfer_prefetch(xfer *x, const gnndb_batch_view *next, gnn_err *e)
{
    (void)x;
    (void)next;
    return no_cuda(e, 0);
}

void xfer_get_stats(const xfer *x, xfer_stats *s)
{
    (void)x;
    memset(s, 0, sizeof *s);
}

void xfer_close(xfer *x) { (void)x; }
int xfer_compiled(void) { return 0; }

int xfer_mem_info(int index, int64_t *free_bytes, int64_t *total_bytes,
                  gnn_err *e)
{
    *free_bytes = *total_bytes = 0;
    return no_cuda(e, index);
}

int64_t xfer_staging_bytes(int64_t batch_bytes)
{
    (void)batch_bytes;
    return 0; /* nothing is ever staged */
}

void *xfer_pinned_alloc(size_t bytes)
{
    (void)bytes;
    return NULL;
}

void xfer_pinned_free(void *p) { (void)p; }
int xfer_is_pinned(const void *p)
{
    (void)p;
    return 0;
}
#else
typedef int xfer_host_unused;
#endif
