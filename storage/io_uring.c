/* io_uring.c — the io_uring read backend: one ring per backend, reads
** prepared on submit and started on flush, short reads resubmitted for the
** rest. Uses only the liburing 2.3 API. */
#include "io.h"
#include "io_backend.h"

#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>

/* Valgrind cannot see the kernel fill a buffer from io_uring: without a
** word from us every byte read that way looks uninitialised to memcheck.
** HAVE_VALGRIND is set by mk/valgrind.mk where the headers exist; the
** client request is a no-op when the program does not run under valgrind. */
#ifdef HAVE_VALGRIND
#include <valgrind/memcheck.h>
#endif


/* A ring smaller than this would cap the depth a caller asks for later. */
#define IOU_MIN_ENTRIES 32

/* One read in flight. */
typedef struct iou_slot {
    io_req *r;
    uint64_t total;       /* bytes the read asks for */
    uint64_t done;        /* bytes read so far */
    struct iovec *rest;   /* the iovecs left after a short vectored read */
    int nrest, caprest;
    struct iou_slot *next_free;
} iou_slot;

typedef struct iou {
    struct io_uring ring;
    unsigned depth;
    iou_slot *slots;
    iou_slot *free;
} iou;

int iou_open(unsigned depth, void **impl, gnn_err *e)
{
    iou *u = calloc(1, sizeof *u);
    if (!u) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    u->depth = depth;
    u->slots = calloc(depth, sizeof *u->slots);
    if (!u->slots) {
        free(u);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    }
    for (unsigned i = 0; i < depth; i++) {
        u->slots[i].next_free = u->free;
        u->free = &u->slots[i];
    }
    unsigned entries = depth < IOU_MIN_ENTRIES ? IOU_MIN_ENTRIES : depth;
    int ret = io_uring_queue_init(entries, &u->ring, 0);
    if (ret < 0) {
        free(u->slots);
        free(u);
        /* -ENOSYS: no io_uring; -EPERM: forbidden (io_uring_disabled,
        ** seccomp). Either way IO_AUTO falls back to pread. */
        return gnn_seterr_errno(e, GNNDB_IOERR, -ret, "io_uring unavailable");
    }
    *impl = u;
    return GNNDB_OK;
}

void iou_close(void *impl)
{
    iou *u = impl;
    if (!u) return;
    io_uring_queue_exit(&u->ring);
    for (unsigned i = 0; i < u->depth; i++) free(u->slots[i].rest);
    free(u->slots);
    free(u);
}

#ifdef HAVE_VALGRIND
/* Tell valgrind that bytes [from, from + n) of r's buffers were written by
** the kernel. */
static void mark_read(const io_req *r, uint64_t from, uint64_t n)
{
    if (!r->iov) {
        VALGRIND_MAKE_MEM_DEFINED((char *)r->buf + from, n);
        return;
    }
    for (int i = 0; i < r->iovcnt && n > 0; i++) {
        uint64_t len = r->iov[i].iov_len;
        if (from >= len) { from -= len; continue; }
        uint64_t k = GNN_MIN(len - from, n);
        VALGRIND_MAKE_MEM_DEFINED((char *)r->iov[i].iov_base + from, k);
        n -= k;
        from = 0;
    }
}
#endif

static struct io_uring_sqe *get_sqe(iou *u)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
    if (!sqe) {
        /* The submission queue is full of prepared reads: start them. */
        io_uring_submit(&u->ring);
        sqe = io_uring_get_sqe(&u->ring);
    }
    return sqe;
}

/* Prepare the rest of slot s's read: everything from byte s->done on. */
static int prep(iou *u, iou_slot *s, gnn_err *e)
{
    struct io_uring_sqe *sqe = get_sqe(u);
    if (!sqe)
        return gnn_seterr(e, GNNDB_IOERR, "io_uring submission queue full");
    io_req *r = s->r;
    uint64_t off = r->offset + s->done;
    if (r->write) {
        io_uring_prep_write(sqe, r->fd, (const char *)r->buf + s->done,
                            (unsigned)(s->total - s->done), off);
    } else if (!r->iov) {
        io_uring_prep_read(sqe, r->fd, (char *)r->buf + s->done,
                           (unsigned)(s->total - s->done), off);
    } else if (s->done == 0) {
        io_uring_prep_readv(sqe, r->fd, r->iov, (unsigned)r->iovcnt, off);
    } else {
        if (s->caprest < r->iovcnt) {
            struct iovec *v = realloc(s->rest, (size_t)r->iovcnt * sizeof *v);
            if (!v) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
            s->rest = v;
            s->caprest = r->iovcnt;
        }
        s->nrest = io_iov_skip(r->iov, r->iovcnt, s->done, s->rest);
        io_uring_prep_readv(sqe, r->fd, s->rest, (unsigned)s->nrest, off);
    }
    io_uring_sqe_set_data(sqe, s);
    return GNNDB_OK;
}

int iou_submit(void *impl, io_req *r, gnn_err *e)
{
    iou *u = impl;
    iou_slot *s = u->free;
    if (!s) return gnn_seterr(e, GNNDB_MISUSE, "io_uring: no free slot");
    s->r = r;
    s->done = 0;
    if (r->iov) {
        s->total = 0;
        for (int i = 0; i < r->iovcnt; i++) s->total += r->iov[i].iov_len;
    } else {
        s->total = r->len;
    }
    int rc = prep(u, s, e);
    if (rc) return rc;
    u->free = s->next_free;
    return GNNDB_OK;
}

static int submit_ring(iou *u, gnn_err *e)
{
    for (;;) {
        int ret = io_uring_submit(&u->ring);
        if (ret >= 0) return GNNDB_OK;
        if (ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
            return gnn_seterr_errno(e, GNNDB_IOERR, -ret,
                                    "io_uring_submit");
        /* -EAGAIN/-EBUSY: the kernel is short of room until completions
        ** are reaped; the waiter resubmits what is left. */
        if (ret != -EINTR) return GNNDB_OK;
    }
}

int iou_flush(void *impl, gnn_err *e)
{
    return submit_ring(impl, e);
}

int iou_wait(void *impl, io_req **done, gnn_err *e)
{
    iou *u = impl;
    for (;;) {
        struct io_uring_cqe *cqe;
        if (io_uring_sq_ready(&u->ring) > 0) {
            /* reads a refused submit left behind: start them before
            ** sleeping on their completions */
            int rc = submit_ring(u, e);
            if (rc) return rc;
        }
        int ret = io_uring_wait_cqe(&u->ring, &cqe);
        if (ret == -EINTR) continue;
        if (ret == -EAGAIN || ret == -EBUSY) continue;
        if (ret < 0)
            return gnn_seterr_errno(e, GNNDB_IOERR, -ret, "io_uring_wait_cqe");
        iou_slot *s = io_uring_cqe_get_data(cqe);
        int res = cqe->res;
        io_uring_cqe_seen(&u->ring, cqe);
#ifdef HAVE_VALGRIND
        if (res > 0 && !s->r->write) mark_read(s->r, s->done, (uint64_t)res);
#endif
        if (res == -EINTR || res == -EAGAIN || (res > 0 &&
            (s->done += (uint64_t)res) < s->total)) {
            /* interrupted or short: read the rest */
            int rc = prep(u, s, e);
            if (!rc) rc = submit_ring(u, e);
            if (!rc) continue;
            s->r->result = -EIO;
        } else {
            s->r->result = res < 0 ? res : (int64_t)s->done;
        }
        *done = s->r;
        s->r = NULL;
        s->next_free = u->free;
        u->free = s;
        return GNNDB_OK;
    }
}
