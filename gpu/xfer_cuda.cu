/* xfer_cuda.cu — the transfer operator with CUDA (xfer.h).
**
** Two buffer sets alternate: batch k uses set k % 2, each set with its own
** stream, event, device allocation and pinned staging. A batch's arrays are
** laid out in one allocation (xfer_layout.h); an array already in pinned
** memory (the executor gathers device-bound batches straight into pinned
** buffers) is copied by the device from where it is, any other is first
** copied into the set's staging in 4 MiB chunks, each chunk's DMA enqueued
** at once so that the memcpy of the next overlaps it.
**
** With the GPU cache (xfer_cache), a batch's x is not copied whole: the
** rows the device holds are gathered there by a kernel, and only the
** missing rows, packed, and one int32 a row of index cross the bus
** (gcache.h, gcache_kernel.h).
**
** xfer_batch(k) waits for set k's event, so the view it hands out is
** complete and a failed copy is reported before anything is handed out;
** xfer_prefetch(k+1), called by the executor right after, enqueues k+1 on
** the other set's stream, so that copy overlaps the caller's work on k.
** Nothing here synchronises the whole device.
**
** Compiled only when the CUDA toolkit is present (Makefile CUDA=1); links
** against the static runtime (cudart_static), never libcuda directly. */
#include <cuda_runtime_api.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xfer_int.h"

/* A CUDA error's code: out of memory, a misuse of ours, or the device. */
int xfer_code_of(cudaError_t err)
{
    if (err == cudaErrorMemoryAllocation) return GNNDB_NOMEM;
    if (err == cudaErrorInvalidValue) return GNNDB_INTERNAL;
    return GNNDB_NODEVICE;
}

int xfer_cuda_fail(gnn_err *e, cudaError_t err, int index, const char *what)
{
    cudaGetLastError(); /* clear a non-sticky error */
    return gnn_seterr(e, xfer_code_of(err), "cuda:%d: %s: %s (error %d)",
                      index, what, cudaGetErrorString(err), (int)err);
}

/* The caller's current device is theirs (a trainer may be on cuda:1): every
** entry point switches to the transfer's device and back. */
int xfer_dev_enter(int index)
{
    int prev = -1;
    if (cudaGetDevice(&prev) != cudaSuccess) {
        cudaGetLastError();
        prev = -1;
    }
    if (prev != index) cudaSetDevice(index);
    return prev;
}

void xfer_dev_leave(int prev, int index)
{
    if (prev >= 0 && prev != index) cudaSetDevice(prev);
    cudaGetLastError();
}

int xfer_compiled(void) { return 1; }

int64_t xfer_staging_bytes(int64_t batch_bytes)
{
    /* each set's staging holds one batch, rounded up as set_reserve does */
    size_t one = round_up((size_t)(batch_bytes > 0 ? batch_bytes : 0) +
                              XFER_ROUND, XFER_ROUND);
    return (int64_t)(XFER_NSETS * one);
}

static int check_device(int index, gnn_err *e)
{
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
    return GNNDB_OK;
}

int xfer_mem_info(int index, int64_t *free_bytes, int64_t *total_bytes,
                  gnn_err *e)
{
    int rc = check_device(index, e);
    if (rc) return rc;
    int prev = xfer_dev_enter(index);
    size_t f = 0, t = 0;
    cudaError_t err = cudaMemGetInfo(&f, &t);
    xfer_dev_leave(prev, index);
    if (err != cudaSuccess)
        return gnn_seterr(e, GNNDB_NODEVICE, "cuda:%d: cannot read its free "
                          "memory (cudaMemGetInfo: %s (error %d))", index,
                          cudaGetErrorString(err), (int)err);
    *free_bytes = (int64_t)f;
    *total_bytes = (int64_t)t;
    return GNNDB_OK;
}

static int open_on(int index, xfer **out, gnn_err *e);

int xfer_open(int index, xfer **out, gnn_err *e)
{
    *out = NULL;
    int rc = check_device(index, e);
    if (rc) return rc;
    int prev = -1;
    if (cudaGetDevice(&prev) != cudaSuccess) prev = -1;
    cudaError_t err = cudaSetDevice(index);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return gnn_seterr(e, GNNDB_NODEVICE,
                          "TO DEVICE 'cuda:%d': cannot use the device "
                          "(cudaSetDevice: %s (error %d))",
                          index, cudaGetErrorString(err), (int)err);
    }
    rc = open_on(index, out, e);
    xfer_dev_leave(prev, index);
    return rc;
}

/* xfer_open's work once `index` is the current device: a stream and an
** event per set. */
static int open_on(int index, xfer **out, gnn_err *e)
{
    xfer *x = (xfer *)calloc(1, sizeof *x);
    if (!x) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    x->index = index;
    for (int i = 0; i < XFER_NSETS; i++) {
        cudaError_t err = cudaStreamCreateWithFlags(&x->set[i].stream,
                                                    cudaStreamNonBlocking);
        if (err == cudaSuccess)
            err = cudaEventCreateWithFlags(&x->set[i].done,
                                           cudaEventDisableTiming);
        if (err != cudaSuccess) {
            int rc = xfer_cuda_fail(e, err, index,
                                    "creating a stream and event");
            xfer_close(x);
            return rc == GNNDB_INTERNAL ? GNNDB_NODEVICE : rc;
        }
    }
    *out = x;
    return GNNDB_OK;
}

int xfer_cache(xfer *x, int64_t rows, int64_t dim, int warm, gnn_err *e)
{
    int rc = gc_init(&x->gc, rows, dim, warm, e);
    if (rc) return rc;
    size_t bytes = (size_t)rows * (size_t)dim * sizeof(float);
    int prev = xfer_dev_enter(x->index);
    cudaError_t err = cudaMalloc((void **)&x->cache_dev, bytes);
    xfer_dev_leave(prev, x->index);
    if (err != cudaSuccess) {
        x->cache_dev = NULL;
        gc_free(&x->gc);
        return gnn_seterr(e, xfer_code_of(err), "cuda:%d: cannot allocate "
                          "the gpu cache (%lld rows, %zu bytes): %s "
                          "(error %d)",
                          x->index, (long long)rows, bytes,
                          cudaGetErrorString(err), (int)err);
    }
    x->has_cache = 1;
    x->st.cache_rows = rows;
    return GNNDB_OK;
}

static void set_free(xfer_set *s)
{
    if (s->dev) cudaFree(s->dev);
    if (s->stage) cudaFreeHost(s->stage);
    if (s->done) cudaEventDestroy(s->done);
    if (s->stream) cudaStreamDestroy(s->stream);
    xl_free(&s->lay);
    free(s->tv);
    free(s->rv);
    free(s->src);
    free(s->miss); /* admit lies in it */
}

void xfer_close(xfer *x)
{
    if (!x) return;
    int prev = xfer_dev_enter(x->index);
    for (int i = 0; i < XFER_NSETS; i++) {
        /* copies may still read staging or a caller's pinned arrays */
        if (x->set[i].stream) cudaStreamSynchronize(x->set[i].stream);
        set_free(&x->set[i]);
    }
    if (x->cache_dev) cudaFree(x->cache_dev);
    gc_free(&x->gc);
    xfer_dev_leave(prev, x->index);
    free(x);
}

void xfer_get_stats(const xfer *x, xfer_stats *s)
{
    *s = x->st;
    s->cache_chosen = x->gc.chosen;
}

int xfer_is_pinned(const void *p)
{
    cudaPointerAttributes at;
    if (!p || cudaPointerGetAttributes(&at, p) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return at.type == cudaMemoryTypeHost;
}

/* Grow a device or pinned buffer to `need` bytes (its contents go). */
static cudaError_t reserve(char **p, size_t *cap, size_t need, int pinned)
{
    if (need <= *cap) return cudaSuccess;
    size_t c = round_up(need > *cap + *cap / 2 ? need : *cap + *cap / 2,
                        XFER_ROUND);
    if (*p) pinned ? cudaFreeHost(*p) : cudaFree(*p);
    *p = NULL;
    *cap = 0;
    cudaError_t err = pinned ? cudaHostAlloc((void **)p, c,
                                             cudaHostAllocDefault)
                             : cudaMalloc((void **)p, c);
    if (err == cudaSuccess) *cap = c;
    else *p = NULL;
    return err;
}

int xfer_set_reserve(xfer *x, xfer_set *s, size_t dev_need,
                     size_t stage_need, gnn_err *e)
{
    cudaError_t err = reserve(&s->dev, &s->dev_cap, dev_need, 0);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return gnn_seterr(e, xfer_code_of(err), "cuda:%d: cannot allocate "
                          "%zu bytes of device memory for a batch%s: %s "
                          "(error %d)", x->index, dev_need,
                          x->has_cache ? " beside the gpu cache" : "",
                          cudaGetErrorString(err), (int)err);
    }
    err = reserve(&s->stage, &s->stage_cap, stage_need, 1);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return gnn_seterr(e, xfer_code_of(err), "cuda:%d: cannot allocate "
                          "%zu bytes of pinned host memory for staging: %s "
                          "(error %d)", x->index, stage_need,
                          cudaGetErrorString(err), (int)err);
    }
    return GNNDB_OK;
}

/* Portable: pinned for every device, whichever is current when a copy
** reads it. Without a device (or CUDA) this fails, and callers fall back
** to pageable memory. */
void *xfer_pinned_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocPortable) !=
        cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return p;
}

void xfer_pinned_free(void *p)
{
    if (p) cudaFreeHost(p);
}
