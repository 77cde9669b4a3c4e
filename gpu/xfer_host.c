/* xfer_host.c — the transfer operator when gnndb is built without CUDA:
** every device request fails clearly; host batches are untouched. */
#ifndef GNNDB_CUDA
#include "xfer.h"

#include <stdlib.h>

int xfer_open(int index, xfer **out, gnn_err *e)
{
    *out = NULL;
    return gnn_seterr(e, GNNDB_NODEVICE,
                      "TO DEVICE 'cuda:%d': this gnndb was built without CUDA "
                      "(rebuild with the CUDA toolkit installed)", index);
}

int xfer_batch(xfer *x, const gnndb_batch_view *host, gnndb_batch_view *dev,
               gnn_err *e)
{
    (void)x;
    (void)host;
    (void)dev;
    return gnn_seterr(e, GNNDB_NODEVICE, "no CUDA device");
}

int xfer_prefetch(xfer *x, const gnndb_batch_view *next, gnn_err *e)
{
    (void)x;
    (void)next;
    return gnn_seterr(e, GNNDB_NODEVICE, "no CUDA device");
}

void *xfer_host_alloc(xfer *x, size_t bytes)
{
    (void)x;
    return malloc(bytes ? bytes : 1);
}

void xfer_host_free(xfer *x, void *p)
{
    (void)x;
    free(p);
}
void xfer_close(xfer *x) { (void)x; }
int xfer_compiled(void) { return 0; }
#else
typedef int xfer_host_unused;
#endif
