/* xfer_cuda.cu — the transfer operator with CUDA: a finished batch's arrays
** are packed into one pinned staging buffer and copied with one stream of
** cudaMemcpyAsync into device memory, double buffered.
**
** Two buffer sets (device buffer + pinned staging + event) alternate: batch k
** uses set k%2. The device layout of a batch is one allocation holding
** n_id | edge_index | x | y, each 256-byte aligned, and the staging buffer has
** the same layout, so a batch is a handful of large copies. Host arrays are
** copied into staging in 4 MiB chunks, each chunk's DMA enqueued at once, so
** the memcpy of chunk i+1 overlaps the DMA of chunk i. Host arrays that are
** already page-locked (xfer_host_alloc) are copied straight from the caller's
** memory by xfer_batch.
**
** xfer_batch(k) synchronises the copy of k before returning (the view it
** hands out is complete); xfer_prefetch(k+1), called by the executor right
** after, starts k+1's copy into the other set, so that copy overlaps whatever
** the caller does with batch k. Before a set is refilled its event is
** synchronised. num_sampled_nodes and num_sampled_edges stay host pointers:
** they are tiny and read on the host (as PyG's lists are).
**
** Compiled only when the CUDA toolkit is present (Makefile CUDA=1); links
** against the static runtime (cudart_static), never libcuda directly. */
#include <cuda_runtime_api.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "xfer.h"
}

#define XFER_NSETS 2
#define XFER_ALIGN ((size_t)256)
#define XFER_CHUNK ((size_t)4 << 20)
#define XFER_ROUND ((size_t)1 << 20)

enum { A_NID, A_EI, A_X, A_Y, A_N };

/* Where each array of one batch lies in a set's buffers. */
struct xfer_layout {
    const void *src[A_N];
    size_t off[A_N], len[A_N];
    size_t total;
};

struct xfer_set {
    char *dev;
    size_t dev_cap;
    char *stage;
    size_t stage_cap;
    cudaEvent_t done;
    int pending;         /* a copy was enqueued and not yet waited for */
    int prefetched;      /* holds the batch described by `tag` */
    gnndb_batch_view tag;
    xfer_layout lay;
};

struct xfer {
    int index;
    cudaStream_t stream;
    xfer_set set[XFER_NSETS];
    unsigned next;       /* the set the next batch goes into */
};

static int cuda_fail(gnn_err *e, cudaError_t err, int index, const char *what)
{
    cudaGetLastError(); /* clear a non-sticky error */
    return gnn_seterr(e,
                      err == cudaErrorMemoryAllocation ? GNNDB_NOMEM
                                                       : GNNDB_ERROR,
                      "cuda:%d: %s: %s (error %d)", index, what,
                      cudaGetErrorString(err), (int)err);
}

#define CK(call, what)                                                       \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) return cuda_fail(e, err_, x->index, what);  \
    } while (0)

static size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* The caller's current device is theirs (a trainer may be on cuda:1): every
** entry point switches to the transfer's device and back. */
static int dev_enter(int index)
{
    int prev = -1;
    if (cudaGetDevice(&prev) != cudaSuccess) {
        cudaGetLastError();
        prev = -1;
    }
    if (prev != index) cudaSetDevice(index);
    return prev;
}

static void dev_leave(int prev, int index)
{
    if (prev >= 0 && prev != index) cudaSetDevice(prev);
    cudaGetLastError();
}

int xfer_compiled(void) { return 1; }

static int open_on(int index, xfer **out, gnn_err *e);

int xfer_open(int index, xfer **out, gnn_err *e)
{
    *out = NULL;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return gnn_seterr(e, GNNDB_NODEVICE,
                          "TO DEVICE 'cuda:%d': no usable CUDA device "
                          "(cudaGetDeviceCount: %s (error %d))",
                          index, cudaGetErrorString(err), (int)err);
    }
    if (count <= 0)
        return gnn_seterr(e, GNNDB_NODEVICE,
                          "TO DEVICE 'cuda:%d': no usable CUDA device "
                          "(cudaGetDeviceCount found none)", index);
    if (index < 0 || index >= count)
        return gnn_seterr(e, GNNDB_NODEVICE,
                          "TO DEVICE 'cuda:%d': no such CUDA device (this "
                          "machine has %d: cuda:0 to cuda:%d)",
                          index, count, count - 1);
    int prev = -1;
    if (cudaGetDevice(&prev) != cudaSuccess) prev = -1;
    err = cudaSetDevice(index);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return gnn_seterr(e, GNNDB_NODEVICE,
                          "TO DEVICE 'cuda:%d': cannot use the device "
                          "(cudaSetDevice: %s (error %d))",
                          index, cudaGetErrorString(err), (int)err);
    }
    int rc = open_on(index, out, e);
    dev_leave(prev, index);
    return rc;
}

/* xfer_open's work once `index` is the current device. */
static int open_on(int index, xfer **out, gnn_err *e)
{
    cudaError_t err;
    xfer *x = (xfer *)calloc(1, sizeof *x);
    if (!x) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    x->index = index;
    err = cudaStreamCreateWithFlags(&x->stream, cudaStreamNonBlocking);
    if (err != cudaSuccess) {
        free(x);
        cudaGetLastError();
        return gnn_seterr(e, GNNDB_NODEVICE,
                          "TO DEVICE 'cuda:%d': cannot create a stream "
                          "(%s (error %d))",
                          index, cudaGetErrorString(err), (int)err);
    }
    for (int i = 0; i < XFER_NSETS; i++) {
        err = cudaEventCreateWithFlags(&x->set[i].done,
                                       cudaEventDisableTiming);
        if (err != cudaSuccess) {
            int rc = cuda_fail(e, err, index, "cudaEventCreate");
            xfer_close(x);
            return rc;
        }
    }
    *out = x;
    return GNNDB_OK;
}

void xfer_close(xfer *x)
{
    if (!x) return;
    int prev = dev_enter(x->index);
    if (x->stream) cudaStreamSynchronize(x->stream);
    for (int i = 0; i < XFER_NSETS; i++) {
        xfer_set *s = &x->set[i];
        if (s->dev) cudaFree(s->dev);
        if (s->stage) cudaFreeHost(s->stage);
        if (s->done) cudaEventDestroy(s->done);
    }
    if (x->stream) cudaStreamDestroy(x->stream);
    dev_leave(prev, x->index);
    free(x);
}

/* Wait for the set's last copy (before reading or refilling it). */
static int set_wait(xfer *x, xfer_set *s, gnn_err *e)
{
    if (!s->pending) return GNNDB_OK;
    s->pending = 0;
    CK(cudaEventSynchronize(s->done), "waiting for a host-to-device copy");
    return GNNDB_OK;
}

static int layout(xfer *x, const gnndb_batch_view *h, xfer_layout *l,
                  gnn_err *e)
{
    if (h->num_nodes < 0 || h->num_edges < 0 || h->num_seeds < 0 ||
        h->x_dim < 0 || (h->num_nodes && !h->n_id) ||
        (h->num_edges && !h->edge_index))
        return gnn_seterr(e, GNNDB_INTERNAL,
                          "cuda:%d: malformed batch view", x->index);
    const size_t nn = (size_t)h->num_nodes, ne = (size_t)h->num_edges;
    const size_t ns = (size_t)h->num_seeds, dim = (size_t)h->x_dim;
    if (nn > SIZE_MAX / 64 || ne > SIZE_MAX / 64 ||
        (dim && nn > SIZE_MAX / 8 / dim))
        return gnn_seterr(e, GNNDB_NOMEM, "cuda:%d: batch too large",
                          x->index);
    l->src[A_NID] = h->n_id;
    l->len[A_NID] = nn * sizeof(int64_t);
    l->src[A_EI] = h->edge_index;
    l->len[A_EI] = 2 * ne * sizeof(int64_t);
    l->src[A_X] = h->x;
    l->len[A_X] = h->x ? nn * dim * sizeof(float) : 0;
    l->src[A_Y] = h->y;
    l->len[A_Y] = h->y ? ns * sizeof(int64_t) : 0;
    size_t off = 0;
    for (int a = 0; a < A_N; a++) {
        l->off[a] = off;
        off = align_up(off + l->len[a], XFER_ALIGN);
    }
    l->total = off;
    return GNNDB_OK;
}

/* Make the set's device buffer (and, when staging, its pinned buffer) hold
** `need` bytes. The set has no copy in flight. */
static int set_reserve(xfer *x, xfer_set *s, size_t need, int staging,
                       gnn_err *e)
{
    if (need > s->dev_cap) {
        size_t cap = align_up(need > s->dev_cap + s->dev_cap / 2
                                  ? need : s->dev_cap + s->dev_cap / 2,
                              XFER_ROUND);
        if (s->dev) cudaFree(s->dev);
        s->dev = NULL;
        s->dev_cap = 0;
        cudaError_t err = cudaMalloc((void **)&s->dev, cap);
        if (err != cudaSuccess) {
            cudaGetLastError();
            return gnn_seterr(e, GNNDB_NOMEM,
                              "cuda:%d: cannot allocate %zu bytes of device "
                              "memory for a batch (%s (error %d))",
                              x->index, cap, cudaGetErrorString(err),
                              (int)err);
        }
        s->dev_cap = cap;
    }
    if (staging && need > s->stage_cap) {
        size_t cap = align_up(need > s->stage_cap + s->stage_cap / 2
                                  ? need : s->stage_cap + s->stage_cap / 2,
                              XFER_ROUND);
        if (s->stage) cudaFreeHost(s->stage);
        s->stage = NULL;
        s->stage_cap = 0;
        cudaError_t err =
            cudaHostAlloc((void **)&s->stage, cap, cudaHostAllocDefault);
        if (err != cudaSuccess) {
            cudaGetLastError();
            return gnn_seterr(e, GNNDB_NOMEM,
                              "cuda:%d: cannot allocate %zu bytes of pinned "
                              "host memory for staging (%s (error %d))",
                              x->index, cap, cudaGetErrorString(err),
                              (int)err);
        }
        s->stage_cap = cap;
    }
    return GNNDB_OK;
}

/* Whether p is page-locked memory the device can DMA from. */
static int is_pinned(const void *p)
{
    cudaPointerAttributes at;
    if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return at.type == cudaMemoryTypeHost;
}

/* Enqueue the copy of batch `h` into set `s`; `may_direct`: host arrays that
** are pinned may be read in place (the caller waits before they change). */
static int set_fill(xfer *x, xfer_set *s, const gnndb_batch_view *h,
                    int may_direct, gnn_err *e)
{
    int rc = set_wait(x, s, e);
    if (rc) return rc;
    s->prefetched = 0;
    xfer_layout *l = &s->lay;
    if ((rc = layout(x, h, l, e))) return rc;
    int direct[A_N], staging = 0;
    for (int a = 0; a < A_N; a++) {
        direct[a] = may_direct && l->len[a] && is_pinned(l->src[a]);
        if (l->len[a] && !direct[a]) staging = 1;
    }
    if ((rc = set_reserve(x, s, l->total ? l->total : 1, staging, e)))
        return rc;
    for (int a = 0; a < A_N; a++) {
        if (!l->len[a]) continue;
        const char *src = (const char *)l->src[a];
        char *dst = s->dev + l->off[a];
        cudaError_t err = cudaSuccess;
        if (direct[a]) {
            err = cudaMemcpyAsync(dst, src, l->len[a], cudaMemcpyHostToDevice,
                                  x->stream);
        } else {
            char *stg = s->stage + l->off[a];
            for (size_t o = 0; o < l->len[a] && err == cudaSuccess;
                 o += XFER_CHUNK) {
                size_t n = GNN_MIN(l->len[a] - o, XFER_CHUNK);
                memcpy(stg + o, src + o, n);
                err = cudaMemcpyAsync(dst + o, stg + o, n,
                                      cudaMemcpyHostToDevice, x->stream);
            }
        }
        if (err != cudaSuccess) {
            /* copies already enqueued may still read staging: drain them */
            cudaStreamSynchronize(x->stream);
            return cuda_fail(e, err, x->index, "cudaMemcpyAsync");
        }
    }
    cudaError_t err = cudaEventRecord(s->done, x->stream);
    if (err != cudaSuccess) {
        cudaStreamSynchronize(x->stream);
        return cuda_fail(e, err, x->index, "cudaEventRecord");
    }
    s->pending = 1;
    return GNNDB_OK;
}

static int same_batch(const gnndb_batch_view *a, const gnndb_batch_view *b)
{
    return a->epoch == b->epoch && a->batch == b->batch &&
           a->num_seeds == b->num_seeds && a->num_nodes == b->num_nodes &&
           a->num_edges == b->num_edges && a->x_dim == b->x_dim &&
           a->n_id == b->n_id && a->edge_index == b->edge_index &&
           a->x == b->x && a->y == b->y;
}

static int prefetch_on(xfer *x, const gnndb_batch_view *next, gnn_err *e)
{
    xfer_set *s = &x->set[x->next];
    if (s->prefetched && same_batch(&s->tag, next)) return GNNDB_OK;
    int rc = set_fill(x, s, next, 0, e);
    if (rc) return rc;
    s->tag = *next;
    s->prefetched = 1;
    return GNNDB_OK;
}

int xfer_prefetch(xfer *x, const gnndb_batch_view *next, gnn_err *e)
{
    if (!x || !next) return GNNDB_OK;
    int prev = dev_enter(x->index);
    int rc = prefetch_on(x, next, e);
    dev_leave(prev, x->index);
    return rc;
}

static int batch_on(xfer *x, const gnndb_batch_view *host,
                    gnndb_batch_view *dev, gnn_err *e)
{
    xfer_set *s = &x->set[x->next];
    int rc;
    if (!(s->prefetched && same_batch(&s->tag, host)) &&
        (rc = set_fill(x, s, host, 1, e)))
        return rc;
    s->prefetched = 0;
    if ((rc = set_wait(x, s, e))) return rc;
    x->next = (x->next + 1) % XFER_NSETS;

    const xfer_layout *l = &s->lay;
    *dev = *host;
    dev->device = GNNDB_DEVICE_CUDA;
    dev->device_index = x->index;
    dev->n_id = l->len[A_NID] ? (const int64_t *)(s->dev + l->off[A_NID])
                              : NULL;
    dev->edge_index = l->len[A_EI]
                          ? (const int64_t *)(s->dev + l->off[A_EI])
                          : NULL;
    dev->x = host->x ? (const float *)(s->dev + l->off[A_X]) : NULL;
    dev->y = host->y ? (const int64_t *)(s->dev + l->off[A_Y]) : NULL;
    /* num_sampled_nodes / num_sampled_edges: host pointers, as given */
    return GNNDB_OK;
}

int xfer_batch(xfer *x, const gnndb_batch_view *host, gnndb_batch_view *dev,
               gnn_err *e)
{
    if (!x) return gnn_seterr(e, GNNDB_NODEVICE, "no CUDA device");
    int prev = dev_enter(x->index);
    int rc = batch_on(x, host, dev, e);
    dev_leave(prev, x->index);
    return rc;
}

/* Pinned allocations carry no header: cudaHostGetFlags tells them apart
** from the malloc fallback when freed. Free with the same `x`. */
void *xfer_host_alloc(xfer *x, size_t bytes)
{
    void *p = NULL;
    if (x) {
        int prev = dev_enter(x->index);
        if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocPortable) !=
            cudaSuccess)
            p = NULL;
        dev_leave(prev, x->index);
        if (p) return p;
    }
    return malloc(bytes ? bytes : 1);
}

void xfer_host_free(xfer *x, void *p)
{
    if (!p) return;
    if (!x) { /* xfer_host_alloc(NULL, ...) is always malloc */
        free(p);
        return;
    }
    unsigned flags;
    if (cudaHostGetFlags(&flags, p) == cudaSuccess) {
        cudaFreeHost(p);
        return;
    }
    cudaGetLastError();
    free(p);
}
