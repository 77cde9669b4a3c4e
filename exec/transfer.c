/* transfer.c — the transfer operator: the last step of handing a batch out
** (to a CUDA device through gpu/xfer.h, or as it is), the memory a batch's
** arrays are gathered into (page-locked when the batch is bound for a
** device or PRAGMA pin_memory is on, so that the device copies it in place,
** with no pass through pageable memory and a second copy), and its
** counters for EXPLAIN ANALYZE.
**
** Pinned outputs are those of rounds kept in memory (x, y, edge_attr, a
** typed batch's rows, n_id and edge_index) and a spilled round's read
** buffers, which are what a spilled batch is handed out from. */
#include "clock.h"
#include "grow.h"
#include "exec_int.h"
#include "transfer.h"
#include "../gpu/gcache.h"
#include "../gpu/xfer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hb_transfer {
    xfer *xf;                /* NULL for host */
    gnndb_batch_view view;   /* the batch on the device */
    int pin;                 /* outputs and read buffers in pinned memory */
    hb_batch *last;          /* handed out last, in host memory: hb_digest */
};

int hb_transfer_open(hb_ctx *x, gnn_err *e)
{
    const plan *p = x->p;
    if (!(x->tr = calloc(1, sizeof *x->tr)))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    x->tr->pin = p->tr.pin;
    if (x->tr->pin && p->device != GNNDB_DEVICE_CUDA) {
        /* pin_memory on a machine where nothing can be pinned: ordinary
        ** memory, as PyTorch's pin_memory does without a device */
        void *probe = xfer_pinned_alloc(1);
        x->tr->pin = probe != NULL;
        xfer_pinned_free(probe);
    }
    if (p->device != GNNDB_DEVICE_CUDA) return GNNDB_OK;
    int rc = xfer_open(p->device_index, &x->tr->xf, e);
    if (!rc && p->tr.cache_rows > 0)
        rc = xfer_cache(x->tr->xf, p->tr.cache_rows, plan_x_dim(p),
                        (int)GNN_MIN(p->hyperbatch, GC_WARM_MAX), e);
    return rc;
}

void hb_transfer_close(hb_ctx *x)
{
    if (x->tr && x->tr->xf) xfer_close(x->tr->xf);
    if (x->tr) x->tr->xf = NULL;
}

void hb_transfer_free(hb_ctx *x)
{
    free(x->tr);
    x->tr = NULL;
}

/* Whether this executor's outputs go in pinned memory: a spilled round's
** outputs are written to its runs and freed, never handed out. */
static int pinning(const hb_ctx *x) { return x->tr && x->tr->pin; }

/* Whether this executor's outputs go in pinned memory: a spilled round's
** outputs are written to its runs and freed, never handed out. */
static int pin_outputs(const hb_ctx *x) { return pinning(x) && !x->p->spill; }

int hb_out_pinned(const hb_ctx *x) { return pin_outputs(x); }

int hb_out_grow(hb_ctx *x, void **p, size_t *cap, size_t need, size_t elem)
{
    if (!pin_outputs(x)) return gnn_grow(p, cap, need, elem);
    if (need <= *cap) return 0;
    size_t c = gnn_grow_cap(*cap, need);
    /* pinned when it can be had, else ordinary memory: never a failure */
    void *q = xfer_pinned_alloc(c * elem);
    if (!q && !(q = malloc(c * elem))) return -1;
    if (*p) {
        memcpy(q, *p, *cap * elem);
        hb_out_free(x, *p);
    }
    *p = q;
    *cap = c;
    return 0;
}

void hb_out_free(hb_ctx *x, void *p)
{
    if (!p) return;
    if (pinning(x) && xfer_is_pinned(p)) xfer_pinned_free(p);
    else free(p);
}

void hb_out_release(hb_ctx *x, hb_batch *b)
{
    void **arr[] = {(void **)&b->n_id, (void **)&b->edge_index,
                    (void **)&b->x,    (void **)&b->y,
                    (void **)&b->edge_attr, (void **)&b->t_x,
                    (void **)&b->t_eattr};
    for (size_t i = 0; i < sizeof arr / sizeof arr[0]; i++) {
        hb_out_free(x, *arr[i]);
        *arr[i] = NULL;
    }
    b->cap_out_nodes = b->cap_out_edges = b->cap_out_x = b->cap_out_y = 0;
    b->cap_out_eattr = b->cap_t_x = b->cap_t_eattr = 0;
}

void *hb_read_buffer(hb_ctx *x, size_t bytes)
{
    void *p = pinning(x) ? xfer_pinned_alloc(bytes) : NULL;
    if (p && (uintptr_t)p % GNN_ALIGN) { /* O_DIRECT reads need pages */
        xfer_pinned_free(p);
        p = NULL;
    }
    return p ? p : gnn_alloc_aligned(bytes);
}

void hb_read_buffer_free(hb_ctx *x, void *p)
{
    if (p && pinning(x) && xfer_is_pinned(p)) xfer_pinned_free(p);
    else gnn_free_aligned(p);
}

/* The transfer's counters as an operator's: batches, bytes over the bus,
** rows the device cache served and rows that crossed. */
static void count(hb_ctx *x, double seconds)
{
    xfer_stats s;
    xfer_get_stats(x->tr->xf, &s);
    hb_opstats *o = &x->est.transfer;
    o->seconds += seconds;
    o->cpu_seconds = s.wait_seconds;
    o->items = s.batches;
    o->bytes_out = s.bus_bytes;
    o->bytes_read = s.staged_bytes;
    o->hits = s.cache_hits;
    o->misses = s.rows - s.cache_hits;
}

/* The words of a failed transfer: the statement (its graph and device),
** the batch that was not handed out, and the device's own words. */
static int failed(hb_ctx *x, const hb_batch *b, gnn_err *e)
{
    char why[GNN_ERRMSG_MAX - 200];
    snprintf(why, sizeof why, "%.*s", (int)sizeof why - 1, e->msg);
    return gnn_seterr(e, e->rc, "SAMPLE FROM %s TO DEVICE 'cuda:%d': "
                      "mini-batch %" PRId64 " of epoch %" PRId64 " was not "
                      "handed out: %s", x->p->graph.name,
                      x->p->device_index, b->batch, b->epoch, why);
}

int hb_transfer_batch(hb_ctx *x, hb_batch *b, const gnndb_batch_view **view,
                      gnn_err *e)
{
    x->tr->last = b;
    if (!x->tr->xf) {
        *view = &b->view;
        return GNNDB_OK;
    }
    double t0 = gnn_now();
    int rc = xfer_batch(x->tr->xf, &b->view, &x->tr->view, e);
    count(x, gnn_now() - t0);
    if (rc) return failed(x, b, e);
    *view = &x->tr->view;
    return GNNDB_OK;
}

void hb_transfer_prefetch(hb_ctx *x, const hb_batch *b)
{
    if (x->tr->xf) xfer_prefetch(x->tr->xf, &b->view, NULL);
}

const gnndb_batch_view *hb_transfer_host_view(const hb_ctx *x)
{
    return x->tr && x->tr->last ? &x->tr->last->view : NULL;
}

void hb_transfer_digest(hb_ctx *x)
{
    hb_batch *b = x->tr->last;
    if (!b) return;
    /* the worker pool is the build thread's while one runs (hb_pipeline.c) */
    b->view.digest = batch_digest_pool(&b->view,
                                       x->building ? NULL : x->pool);
    x->tr->view.digest = b->view.digest;
}
