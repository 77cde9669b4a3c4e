/* io_pread.c — the portable read backend: a few threads doing blocking
** pread/preadv, fed from a work queue and answering through a completion
** queue, for when io_uring is missing or not wanted. */
#include "io.h"
#include "io_backend.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* Enough to keep an SSD's queue busy without crowding the caller's cores. */
#define IOP_THREADS 4

/* A ring of request pointers; with at most `depth` reads in flight no ring
** of `depth` entries can overflow. */
typedef struct iop_queue {
    io_req **q;
    unsigned head, count;
} iop_queue;

typedef struct iop {
    unsigned depth;
    io_req **pending;      /* submitted, not yet flushed: the caller's only */
    unsigned npending;
    pthread_mutex_t mu;    /* guards work, done and stop */
    pthread_cond_t work_cv, done_cv;
    iop_queue work, done;
    int stop;
    pthread_t threads[IOP_THREADS];
    unsigned nthreads;
} iop;

static void q_push(iop_queue *q, unsigned cap, io_req *r)
{
    q->q[(q->head + q->count) % cap] = r;
    q->count++;
}

static io_req *q_pop(iop_queue *q, unsigned cap)
{
    io_req *r = q->q[q->head];
    q->head = (q->head + 1) % cap;
    q->count--;
    return r;
}

/* Read (or write) all of r, retrying short and interrupted transfers; bytes
** moved (fewer only at end of file, or a full disk) or -errno. */
static int64_t read_full(io_req *r)
{
    uint64_t total = 0, done = 0;
    if (!r->iov) {
        total = r->len;
        while (done < total) {
            ssize_t n = r->write
                ? pwrite(r->fd, (const char *)r->buf + done, total - done,
                         (off_t)(r->offset + done))
                : pread(r->fd, (char *)r->buf + done, total - done,
                        (off_t)(r->offset + done));
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) return -errno;
            if (n == 0) break;
            done += (uint64_t)n;
        }
        return (int64_t)done;
    }
    for (int i = 0; i < r->iovcnt; i++) total += r->iov[i].iov_len;
    struct iovec *rest = NULL;
    int64_t result;
    for (;;) {
        const struct iovec *v = r->iov;
        int nv = r->iovcnt;
        if (done > 0) {
            if (!rest && !(rest = malloc((size_t)nv * sizeof *rest))) {
                result = -ENOMEM;
                break;
            }
            nv = io_iov_skip(r->iov, r->iovcnt, done, rest);
            v = rest;
        }
        ssize_t n = preadv(r->fd, v, nv, (off_t)(r->offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            result = -errno;
            break;
        }
        done += (uint64_t)n;
        if (n == 0 || done >= total) {
            result = (int64_t)done;
            break;
        }
    }
    free(rest);
    return result;
}

static void *worker(void *arg)
{
    iop *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->work.count == 0)
            pthread_cond_wait(&p->work_cv, &p->mu);
        if (p->stop) break;
        io_req *r = q_pop(&p->work, p->depth);
        pthread_mutex_unlock(&p->mu);
        int64_t res = read_full(r);
        pthread_mutex_lock(&p->mu);
        r->result = res;
        q_push(&p->done, p->depth, r);
        pthread_cond_signal(&p->done_cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int iop_open(unsigned depth, void **impl, gnn_err *e)
{
    iop *p = calloc(1, sizeof *p);
    if (!p) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    p->depth = depth;
    p->pending = calloc(depth, sizeof *p->pending);
    p->work.q = calloc(depth, sizeof *p->work.q);
    p->done.q = calloc(depth, sizeof *p->done.q);
    if (!p->pending || !p->work.q || !p->done.q) {
        iop_close(p);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work_cv, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    unsigned want = depth < IOP_THREADS ? depth : IOP_THREADS;
    for (unsigned i = 0; i < want; i++) {
        int err = pthread_create(&p->threads[i], NULL, worker, p);
        if (err) {
            if (p->nthreads > 0) break; /* fewer threads still work */
            iop_close(p);
            return gnn_seterr_errno(e, GNNDB_IOERR, err,
                                    "cannot start I/O threads");
        }
        p->nthreads++;
    }
    *impl = p;
    return GNNDB_OK;
}

void iop_close(void *impl)
{
    iop *p = impl;
    if (!p) return;
    if (p->work.q && p->done.q && p->pending) {
        pthread_mutex_lock(&p->mu);
        p->stop = 1;
        pthread_cond_broadcast(&p->work_cv);
        pthread_mutex_unlock(&p->mu);
        for (unsigned i = 0; i < p->nthreads; i++)
            pthread_join(p->threads[i], NULL);
        pthread_cond_destroy(&p->work_cv);
        pthread_cond_destroy(&p->done_cv);
        pthread_mutex_destroy(&p->mu);
    }
    free(p->pending);
    free(p->work.q);
    free(p->done.q);
    free(p);
}

int iop_submit(void *impl, io_req *r, gnn_err *e)
{
    iop *p = impl;
    if (p->npending >= p->depth)
        return gnn_seterr(e, GNNDB_MISUSE, "pread: queue full");
    p->pending[p->npending++] = r;
    return GNNDB_OK;
}

int iop_flush(void *impl, gnn_err *e)
{
    iop *p = impl;
    if (p->npending == 0) return GNNDB_OK;
    pthread_mutex_lock(&p->mu);
    for (unsigned i = 0; i < p->npending; i++)
        q_push(&p->work, p->depth, p->pending[i]);
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    p->npending = 0;
    return GNNDB_OK;
}

int iop_wait(void *impl, io_req **done, gnn_err *e)
{
    iop *p = impl;
    pthread_mutex_lock(&p->mu);
    while (p->done.count == 0) pthread_cond_wait(&p->done_cv, &p->mu);
    *done = q_pop(&p->done, p->depth);
    pthread_mutex_unlock(&p->mu);
    return GNNDB_OK;
}
