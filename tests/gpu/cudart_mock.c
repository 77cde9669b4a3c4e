/* cudart_mock.c — a stand-in for the CUDA runtime, for testing the transfer
** operator's logic on machines without a GPU. "Device" memory is host
** memory that the mock tracks; cudaMemcpyAsync is deferred until the stream
** or an event recorded after it is synchronised, so a missing wait, or
** staging memory refilled before its copy ran, shows up as wrong bytes.
**
**   cc -DGNNDB_CUDA=1 -I$CUDA_HOME/include -Iinclude -Istorage -Igpu \
**      tests/gpu/test_gpu_transfer.c tests/gpu/cudart_mock.c \
**      build/obj/gpu/xfer_cuda.cu.o storage/err.c -o test_gpu_transfer_mock
**
** Not part of the library; link it instead of -lcudart_static. */
#include <cuda_runtime_api.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- tracked allocations ---- */
typedef struct alloc {
    char *p;
    size_t n;
    int kind; /* cudaMemoryTypeDevice or cudaMemoryTypeHost */
} alloc;
static alloc allocs[256];
static int nallocs;

static alloc *find(const void *p)
{
    for (int i = 0; i < nallocs; i++)
        if ((const char *)p >= allocs[i].p &&
            (const char *)p < allocs[i].p + allocs[i].n)
            return &allocs[i];
    return NULL;
}

static cudaError_t track(void **out, size_t n, int kind)
{
    if (nallocs == 256) return cudaErrorMemoryAllocation;
    char *p = malloc(n ? n : 1);
    if (!p) return cudaErrorMemoryAllocation;
    memset(p, 0xee, n); /* poison */
    allocs[nallocs++] = (alloc){p, n, kind};
    *out = p;
    return cudaSuccess;
}

static cudaError_t untrack(void *p, int kind)
{
    for (int i = 0; i < nallocs; i++)
        if (allocs[i].p == p && allocs[i].kind == kind) {
            memset(p, 0xdd, allocs[i].n);
            free(p);
            allocs[i] = allocs[--nallocs];
            return cudaSuccess;
        }
    return cudaErrorInvalidValue;
}

/* ---- deferred copies: one queue for all streams ---- */
typedef struct copy {
    void *dst;
    const void *src;
    size_t n;
} copy;
static copy *queue;
static size_t nqueue, capqueue, done_upto;

static void drain(size_t upto)
{
    for (; done_upto < upto && done_upto < nqueue; done_upto++)
        memcpy(queue[done_upto].dst, queue[done_upto].src,
               queue[done_upto].n);
}

struct CUevent_st {
    size_t mark; /* queue position when recorded */
};
struct CUstream_st {
    int unused;
};

int mock_device_count = 1;
int mock_current = 0;

cudaError_t cudaGetDeviceCount(int *count)
{
    *count = mock_device_count;
    return mock_device_count ? cudaSuccess : cudaErrorNoDevice;
}
cudaError_t cudaGetDevice(int *d) { *d = mock_current; return cudaSuccess; }
cudaError_t cudaSetDevice(int d)
{
    if (d < 0 || d >= mock_device_count) return cudaErrorInvalidDevice;
    mock_current = d;
    return cudaSuccess;
}
const char *cudaGetErrorString(cudaError_t err)
{
    return err == cudaSuccess ? "no error" : "mock error";
}
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int d)
{
    memset(p, 0, sizeof *p);
    strcpy(p->name, "mock");
    (void)d;
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
    (void)flags;
    *s = calloc(1, sizeof **s);
    return *s ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaStreamDestroy(cudaStream_t s) { free(s); return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    (void)s;
    drain(nqueue);
    return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *ev, unsigned flags)
{
    (void)flags;
    *ev = calloc(1, sizeof **ev);
    return *ev ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaEventDestroy(cudaEvent_t ev) { free(ev); return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t ev, cudaStream_t s)
{
    (void)s;
    ev->mark = nqueue;
    return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t ev)
{
    drain(ev->mark);
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t n)
{
    return track(p, n, cudaMemoryTypeDevice);
}
cudaError_t cudaFree(void *p)
{
    drain(nqueue); /* cudaFree synchronises the device */
    return untrack(p, cudaMemoryTypeDevice);
}
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned flags)
{
    (void)flags;
    return track(p, n, cudaMemoryTypeHost);
}
cudaError_t cudaFreeHost(void *p)
{
    drain(nqueue);
    return untrack(p, cudaMemoryTypeHost);
}
cudaError_t cudaHostGetFlags(unsigned *flags, void *p)
{
    alloc *a = find(p);
    *flags = 0;
    return a && a->kind == cudaMemoryTypeHost ? cudaSuccess
                                              : cudaErrorInvalidValue;
}
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *at,
                                     const void *p)
{
    memset(at, 0, sizeof *at);
    alloc *a = find(p);
    at->type = a ? (enum cudaMemoryType)a->kind : cudaMemoryTypeUnregistered;
    return cudaSuccess;
}

static int check_dir(void *dst, const void *src, size_t n,
                     enum cudaMemcpyKind kind)
{
    alloc *d = find(dst), *s = find(src);
    if (kind == cudaMemcpyHostToDevice)
        return d && d->kind == cudaMemoryTypeDevice &&
               (char *)dst + n <= d->p + d->n &&
               !(s && s->kind == cudaMemoryTypeDevice);
    if (kind == cudaMemcpyDeviceToHost)
        return s && s->kind == cudaMemoryTypeDevice &&
               (const char *)src + n <= s->p + s->n;
    return 1;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n,
                            enum cudaMemcpyKind kind, cudaStream_t s)
{
    (void)s;
    if (!check_dir(dst, src, n, kind)) return cudaErrorInvalidValue;
    alloc *h = find(src);
    if (kind == cudaMemcpyHostToDevice && !(h && h->kind == cudaMemoryTypeHost))
        return cudaErrorInvalidValue; /* async only from pinned memory */
    if (nqueue == capqueue) {
        capqueue = capqueue ? 2 * capqueue : 64;
        queue = realloc(queue, capqueue * sizeof *queue);
        if (!queue) return cudaErrorMemoryAllocation;
    }
    queue[nqueue++] = (copy){dst, src, n};
    return cudaSuccess;
}
cudaError_t cudaMemcpy(void *dst, const void *src, size_t n,
                       enum cudaMemcpyKind kind)
{
    if (!check_dir(dst, src, n, kind)) return cudaErrorInvalidValue;
    /* the legacy default stream does not wait for non-blocking streams:
    ** copy at once, so that reading a batch before its copy was waited for
    ** gives poison */
    memcpy(dst, src, n);
    return cudaSuccess;
}

/* what nvcc's host code registers at start-up */
void **__cudaRegisterFatBinary(void *fatbin)
{
    (void)fatbin;
    static void *handle;
    return &handle;
}
void __cudaRegisterFatBinaryEnd(void **h) { (void)h; }
void __cudaUnregisterFatBinary(void **h) { (void)h; }
