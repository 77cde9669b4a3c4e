/* xfer_copy.cu — laying a batch out, copying it to the device on its set's
** stream, gathering its cached rows there, and handing it out (xfer.h; the
** state is in xfer_int.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xfer_int.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wait for the set's last copy before its batch is handed out or the set
** refilled; once it is complete, the rows it admitted to the cache are
** served from the device. */
static int set_wait(xfer *x, xfer_set *s, gnn_err *e)
{
    if (!s->pending) return GNNDB_OK;
    s->pending = 0;
    cudaError_t err = cudaEventSynchronize(s->done);
    if (err != cudaSuccess)
        return xfer_cuda_fail(e, err, x->index,
                              "copying a batch to the device");
    if (s->cached) gc_commit(&x->gc, s->admit, s->nmiss);
    s->cached = 0;
    return GNNDB_OK;
}

/* After a failure: copies already enqueued may still read staging, so the
** set's stream is drained; its batch, and what it would have admitted to
** the cache, are forgotten. */
static void set_abandon(xfer_set *s)
{
    cudaStreamSynchronize(s->stream);
    cudaGetLastError();
    s->pending = 0;
    s->prefetched = 0;
    s->cached = 0;
}

static int grow(void **p, size_t *cap, size_t n, size_t elem)
{
    if (n <= *cap) return 0;
    void *q = realloc(*p, n * elem);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* Room for the device view's types and relations. */
static int set_views(xfer_set *s, const gnndb_batch_view *h)
{
    size_t ct = (size_t)s->cap_tv, cr = (size_t)s->cap_rv;
    if (grow((void **)&s->tv, &ct, (size_t)h->num_node_types + 1,
             sizeof *s->tv) ||
        grow((void **)&s->rv, &cr, (size_t)h->num_relations + 1,
             sizeof *s->rv))
        return -1;
    s->cap_tv = (int)ct;
    s->cap_rv = (int)cr;
    return 0;
}

/* Where the cache's arrays are in the layout (XL_EXTRA items). */
enum { CX_SRC, CX_ADMIT, CX_ROWS, CX_N };

/* The cache's part of batch h: while counting, count its ids (x is copied
** whole); once the rows are chosen, plan which rows the device holds and
** add the index arrays and the missing rows to the layout. */
static int cache_plan(xfer *x, xfer_set *s, const gnndb_batch_view *h,
                      int *cx, gnn_err *e)
{
    s->cached = 0;
    if (!x->has_cache || !h->x || h->num_node_types ||
        h->x_dim != x->gc.dim)
        return GNNDB_OK;
    int64_t n = h->num_nodes;
    if (!gc_ready(&x->gc)) return gc_observe(&x->gc, h->n_id, n, e);
    /* miss and admit share one array: n + 1 entries each */
    if (grow((void **)&s->src, &s->cap_src, (size_t)n + 1, sizeof *s->src) ||
        grow((void **)&s->miss, &s->cap_miss, 2 * ((size_t)n + 1),
             sizeof *s->miss))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory planning the gpu "
                          "cache's gather");
    s->admit = s->miss + n + 1;
    s->nrows = n;
    s->nmiss = gc_plan(&x->gc, h->n_id, n, s->src, s->miss, s->admit);
    size_t row = (size_t)x->gc.dim * sizeof(float);
    cx[CX_SRC] = xl_add(&s->lay, (size_t)n * sizeof(int32_t));
    cx[CX_ADMIT] = xl_add(&s->lay, (size_t)s->nmiss * sizeof(int32_t));
    cx[CX_ROWS] = xl_add(&s->lay, (size_t)s->nmiss * row);
    if (cx[CX_SRC] < 0 || cx[CX_ADMIT] < 0 || cx[CX_ROWS] < 0)
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    s->cached = 1;
    return GNNDB_OK;
}

/* Which items are read in place (pinned, and not x when the kernel fills
** it) and where the others go in staging; the staging bytes. */
static size_t stage_layout(xfer_set *s)
{
    size_t soff = 0;
    for (int i = 0; i < s->lay.n; i++) {
        xl_item *it = &s->lay.it[i];
        int by_kernel = it->kind == XL_X && s->cached;
        it->direct = !by_kernel && it->kind != XL_EXTRA &&
                     (!it->bytes || xfer_is_pinned(it->src));
        it->soff = soff;
        if (!it->direct && !by_kernel)
            soff = round_up(soff + it->bytes, XL_ALIGN);
    }
    return soff;
}

/* Enqueue one array's copy: from where it lies when pinned, else through
** staging, 4 MiB at a time so that the memcpy of a chunk overlaps the DMA
** of the one before. */
static cudaError_t copy_item(xfer_set *s, const xl_item *it)
{
    char *dst = s->dev + it->off;
    if (!it->bytes) return cudaSuccess;
    s->bus += it->bytes;
    if (it->direct)
        return cudaMemcpyAsync(dst, it->src, it->bytes,
                               cudaMemcpyHostToDevice, s->stream);
    s->staged += it->bytes;
    char *stg = s->stage + it->soff;
    const char *src = (const char *)it->src;
    cudaError_t err = cudaSuccess;
    for (size_t o = 0; o < it->bytes && err == cudaSuccess; o += XFER_CHUNK) {
        size_t n = it->bytes - o < XFER_CHUNK ? it->bytes - o : XFER_CHUNK;
        memcpy(stg + o, src + o, n);
        err = cudaMemcpyAsync(dst + o, stg + o, n, cudaMemcpyHostToDevice,
                              s->stream);
    }
    return err;
}

/* Fill the cache's items in staging (the index arrays, the missing rows of
** h's x packed in order) and enqueue them, then the kernel that gathers x. */
static cudaError_t copy_cached(xfer *x, xfer_set *s,
                               const gnndb_batch_view *h, const int *cx)
{
    xl_item *src = &s->lay.it[cx[CX_SRC]], *adm = &s->lay.it[cx[CX_ADMIT]];
    xl_item *rows = &s->lay.it[cx[CX_ROWS]];
    src->src = s->src;
    adm->src = s->admit;
    cudaError_t err = copy_item(s, src);
    if (err == cudaSuccess) err = copy_item(s, adm);
    size_t row = (size_t)x->gc.dim * sizeof(float);
    char *stg = s->stage + rows->soff;
    const char *hx = (const char *)h->x;
    for (int64_t m = 0; m < s->nmiss; m++)
        memcpy(stg + (size_t)m * row, hx + (size_t)s->miss[m] * row, row);
    if (err == cudaSuccess && rows->bytes)
        err = cudaMemcpyAsync(s->dev + rows->off, stg, rows->bytes,
                              cudaMemcpyHostToDevice, s->stream);
    s->bus += rows->bytes;
    s->staged += rows->bytes;
    const xl_item *xi = NULL;
    for (int i = 0; i < s->lay.n && !xi; i++)
        if (s->lay.it[i].kind == XL_X) xi = &s->lay.it[i];
    gc_args a = {(float *)(s->dev + xi->off), x->cache_dev,
                 (const float *)(s->dev + rows->off),
                 (const int32_t *)(s->dev + src->off),
                 (const int32_t *)(s->dev + adm->off), s->nrows, x->gc.dim};
    if (err == cudaSuccess) err = (cudaError_t)gc_launch(&a, s->stream);
    return err;
}

/* Enqueue the copy of batch h into set s (which holds no copy in flight
** once set_wait returned). */
static int set_fill(xfer *x, xfer_set *s, const gnndb_batch_view *h,
                    gnn_err *e)
{
    int rc = set_wait(x, s, e);
    if (rc) return rc;
    s->prefetched = 0;
    s->bus = s->staged = 0;
    int cx[CX_N];
    if ((rc = xl_plan(&s->lay, h, e)) || (rc = cache_plan(x, s, h, cx, e)))
        return rc;
    if (set_views(s, h))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    size_t stage = stage_layout(s);
    if ((rc = xfer_set_reserve(x, s, s->lay.total ? s->lay.total : 1,
                               stage, e)))
        return rc;
    cudaError_t err = cudaSuccess;
    for (int i = 0; i < s->lay.n && err == cudaSuccess; i++) {
        const xl_item *it = &s->lay.it[i];
        if (it->kind == XL_EXTRA || (it->kind == XL_X && s->cached)) continue;
        err = copy_item(s, it);
    }
    if (err == cudaSuccess && s->cached) err = copy_cached(x, s, h, cx);
    if (err == cudaSuccess) err = cudaEventRecord(s->done, s->stream);
    if (err != cudaSuccess)
        return xfer_cuda_fail(e, err, x->index,
                              "enqueueing a batch's copy to the device");
    s->pending = 1;
    return GNNDB_OK;
}

/* The batch a prefetch filled the set with is the one now handed out:
** the same place in the run, counts and arrays (the digest is set later). */
static int same_batch(const gnndb_batch_view *a, const gnndb_batch_view *b)
{
    return a->epoch == b->epoch && a->batch == b->batch &&
           a->num_seeds == b->num_seeds && a->num_nodes == b->num_nodes &&
           a->num_edges == b->num_edges && a->x_dim == b->x_dim &&
           a->n_id == b->n_id && a->edge_index == b->edge_index &&
           a->x == b->x && a->y == b->y && a->e_id == b->e_id &&
           a->edge_label_index == b->edge_label_index &&
           a->num_node_types == b->num_node_types && a->types == b->types &&
           a->rels == b->rels;
}

static int prefetch_on(xfer *x, const gnndb_batch_view *next, gnn_err *e)
{
    xfer_set *s = &x->set[x->next];
    if (s->prefetched && same_batch(&s->tag, next)) return GNNDB_OK;
    int rc = set_fill(x, s, next, e);
    if (rc) {
        set_abandon(s);
        return rc;
    }
    s->tag = *next;
    s->prefetched = 1;
    return GNNDB_OK;
}

int xfer_prefetch(xfer *x, const gnndb_batch_view *next, gnn_err *e)
{
    if (!x || !next) return GNNDB_OK;
    int prev = xfer_dev_enter(x->index);
    int rc = prefetch_on(x, next, e);
    xfer_dev_leave(prev, x->index);
    return rc;
}

static void count_batch(xfer *x, const xfer_set *s, const gnndb_batch_view *h,
                        int cached)
{
    x->st.batches++;
    x->st.bus_bytes += s->bus;
    x->st.staged_bytes += s->staged;
    if (!h->x || h->num_node_types) return;
    x->st.rows += (uint64_t)h->num_nodes;
    if (cached) x->st.cache_hits += (uint64_t)(s->nrows - s->nmiss);
}

static int batch_on(xfer *x, const gnndb_batch_view *h, gnndb_batch_view *d,
                    gnn_err *e)
{
    xfer_set *s = &x->set[x->next];
    double t0 = now();
    int rc = GNNDB_OK;
    if (!(s->prefetched && same_batch(&s->tag, h))) rc = set_fill(x, s, h, e);
    int cached = s->cached; /* set_wait clears it once committed */
    if (!rc) rc = set_wait(x, s, e);
    x->st.wait_seconds += now() - t0;
    if (rc) {
        set_abandon(s);
        return rc;
    }
    s->prefetched = 0;
    x->next = (x->next + 1) % XFER_NSETS;
    xl_bind(&s->lay, h, s->dev, d, s->tv, s->rv);
    d->device = GNNDB_DEVICE_CUDA;
    d->device_index = x->index;
    d->cuda_stream = (void *)s->stream;
    count_batch(x, s, h, cached);
    return GNNDB_OK;
}

int xfer_batch(xfer *x, const gnndb_batch_view *host, gnndb_batch_view *dev,
               gnn_err *e)
{
    if (!x) return gnn_seterr(e, GNNDB_NODEVICE, "no CUDA device");
    int prev = xfer_dev_enter(x->index);
    int rc = batch_on(x, host, dev, e);
    xfer_dev_leave(prev, x->index);
    return rc;
}
