/* io.h — asynchronous read (and plain write) backends: io_uring (O_DIRECT, deep queue) and a
** pread thread pool used when io_uring is unavailable or asked for. */
#ifndef GNN_IO_H
#define GNN_IO_H

#include <stdint.h>
#include <sys/uio.h>
#include "err.h"

#define IO_AUTO  0
#define IO_URING 1
#define IO_PREAD 2

/* One read of `len` bytes at `offset` into `buf`; or, when `iov` is not
** NULL, a vectored read filling iov[0..iovcnt) in turn (buf and len are then
** ignored), so that adjacent blocks come in one read into separate frames.
** Zero-initialise requests so that plain reads have iov NULL. The request
** and its iovecs stay the caller's and must live until io_wait() returns
** it. */
typedef struct io_req {
    int fd;
    uint64_t offset;
    uint32_t len;
    void *buf;         /* aligned for O_DIRECT */
    void *user;        /* the caller's */
    int64_t result;    /* bytes read, or -errno */
    struct iovec *iov; /* vectored read: buffers aligned for O_DIRECT */
    int iovcnt;        /* entries of iov (at most IOV_MAX) */
    int write;         /* 1: write buf[0..len) at offset instead (plain
                       ** buffers only; the spill area's sequential runs) */
} io_req;

typedef struct io_backend io_backend;

/* Open a backend of `kind` with room for `depth` reads in flight. IO_AUTO
** tries io_uring and falls back to pread. */
int io_open(int kind, unsigned depth, io_backend **out, gnn_err *e);
void io_close(io_backend *io);
/* Queue a read; it may not start before io_flush(). Fails with GNNDB_MISUSE
** when `depth` reads are already in flight. */
int io_submit(io_backend *io, io_req *r, gnn_err *e);
/* Start the queued reads. */
int io_flush(io_backend *io, gnn_err *e);
/* Wait for one read to complete and return it through *done (its result
** field filled, short reads retried to the end). */
int io_wait(io_backend *io, io_req **done, gnn_err *e);
unsigned io_inflight(const io_backend *io);
unsigned io_depth(const io_backend *io);
int io_kind(const io_backend *io);
const char *io_name(const io_backend *io); /* "uring" or "pread" */

#endif
