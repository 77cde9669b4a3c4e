/* io.c — the I/O backend front: picks io_uring or the pread pool, counts
** reads in flight against the depth, and holds what both backends share. */
#include "io.h"
#include "io_backend.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define IO_DEFAULT_DEPTH 64
#define IO_MAX_DEPTH     4096

typedef struct io_ops {
    int kind;
    const char *name;
    int (*open)(unsigned depth, void **impl, gnn_err *e);
    void (*close)(void *impl);
    int (*submit)(void *impl, io_req *r, gnn_err *e);
    int (*flush)(void *impl, gnn_err *e);
    int (*wait)(void *impl, io_req **done, gnn_err *e);
} io_ops;

static const io_ops uring_ops = {
    IO_URING, "uring", iou_open, iou_close, iou_submit, iou_flush, iou_wait,
};
static const io_ops pread_ops = {
    IO_PREAD, "pread", iop_open, iop_close, iop_submit, iop_flush, iop_wait,
};

struct io_backend {
    const io_ops *ops;
    void *impl;
    unsigned depth;
    unsigned inflight; /* submitted and not yet handed back by io_wait */
    unsigned queued;   /* submitted and not yet flushed */
};

/* The iovecs that remain of src[0..n) after its first `skip` bytes, into
** dst (room for n); returns how many. */
int io_iov_skip(const struct iovec *src, int n, uint64_t skip,
                struct iovec *dst)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (skip >= src[i].iov_len) {
            skip -= src[i].iov_len;
            continue;
        }
        dst[k].iov_base = (char *)src[i].iov_base + skip;
        dst[k].iov_len = src[i].iov_len - skip;
        skip = 0;
        k++;
    }
    return k;
}

static int try_open(const io_ops *ops, unsigned depth, io_backend **out,
                    gnn_err *e)
{
    io_backend *io = calloc(1, sizeof *io);
    if (!io) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    int rc = ops->open(depth, &io->impl, e);
    if (rc) {
        free(io);
        return rc;
    }
    io->ops = ops;
    io->depth = depth;
    *out = io;
    return GNNDB_OK;
}

int io_open(int kind, unsigned depth, io_backend **out, gnn_err *e)
{
    *out = NULL;
    if (depth == 0) depth = IO_DEFAULT_DEPTH;
    if (depth > IO_MAX_DEPTH) depth = IO_MAX_DEPTH;
    switch (kind) {
    case IO_URING: return try_open(&uring_ops, depth, out, e);
    case IO_PREAD: return try_open(&pread_ops, depth, out, e);
    case IO_AUTO:
        /* io_uring may be missing (old kernel, seccomp, io_uring_disabled):
        ** the pool of pread threads always works. */
        if (try_open(&uring_ops, depth, out, e) == GNNDB_OK)
            return GNNDB_OK;
        gnn_clearerr(e);
        return try_open(&pread_ops, depth, out, e);
    default:
        return gnn_seterr(e, GNNDB_MISUSE, "unknown I/O backend %d", kind);
    }
}

void io_close(io_backend *io)
{
    if (!io) return;
    /* The kernel or a worker may still be writing into the callers'
    ** buffers: let every read land before the backend goes away. */
    gnn_err scratch;
    if (io->queued && io->ops->flush(io->impl, &scratch) == GNNDB_OK)
        io->queued = 0;
    while (io->inflight > io->queued) {
        io_req *r;
        if (io->ops->wait(io->impl, &r, &scratch)) break;
        io->inflight--;
    }
    io->ops->close(io->impl);
    free(io);
}

int io_submit(io_backend *io, io_req *r, gnn_err *e)
{
    if (io->inflight >= io->depth)
        return gnn_seterr(e, GNNDB_MISUSE, "%u reads already in flight",
                          io->inflight);
    if (r->iov && (r->iovcnt <= 0 || r->iovcnt > IOV_MAX))
        return gnn_seterr(e, GNNDB_MISUSE, "vectored read of %d buffers",
                          r->iovcnt);
    r->result = 0;
    int rc = io->ops->submit(io->impl, r, e);
    if (rc) return rc;
    io->inflight++;
    io->queued++;
    return GNNDB_OK;
}

int io_flush(io_backend *io, gnn_err *e)
{
    if (io->queued == 0) return GNNDB_OK;
    int rc = io->ops->flush(io->impl, e);
    if (!rc) io->queued = 0;
    return rc;
}

int io_wait(io_backend *io, io_req **done, gnn_err *e)
{
    *done = NULL;
    if (io->inflight == 0)
        return gnn_seterr(e, GNNDB_MISUSE, "no read in flight to wait for");
    int rc = io_flush(io, e); /* waiting on unstarted reads would hang */
    if (rc) return rc;
    rc = io->ops->wait(io->impl, done, e);
    if (rc) return rc;
    io->inflight--;
    return GNNDB_OK;
}

unsigned io_inflight(const io_backend *io) { return io->inflight; }
unsigned io_depth(const io_backend *io) { return io->depth; }
int io_kind(const io_backend *io) { return io->ops->kind; }
const char *io_name(const io_backend *io) { return io->ops->name; }
