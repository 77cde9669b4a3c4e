/* cudart_mock.c — a stand-in for the CUDA runtime, for testing the transfer
** operator's logic on machines without a GPU. Linked instead of
** cudart_static (make test-gpu builds the GPU tests both ways, and
** build/mock/libgnndb.so for the Python tests).
**
** "Device" memory is host memory the mock tracks, poisoned when allocated
** and freed, and mapped twice: at the address the caller is given, with no
** access at all, so that host code that reads or writes device memory
** faults here as it does against a real device; and at a second address
** (mock_host_view) through which the mock's copies and its kernel work. Work enqueued on a stream (cudaMemcpyAsync, kernel launches)
** is deferred, per stream, until that stream, or an event recorded on it
** after the work, is synchronised; so a missing wait, staging refilled
** before its copy ran, or host arrays changed under an asynchronous copy
** all show up as wrong bytes. An asynchronous host-to-device copy must come
** from pinned memory (cudaHostAlloc) and land inside a device allocation.
**
** The one kernel, the GPU cache's gather, runs as its host reference
** (gc_gather_host) when its stream is drained, after checking that every
** array it is given is device memory of the right size.
**
** Failures on demand: mock_fail("cudaMalloc", n, err, mode) makes the
** n-th call from now of that function fail with err: only that call (mode
** 0), every call of every function from then on (1: a lost device), or
** every call of that function from then on (2: memory that stays short).
** GNNDB_MOCK_FAIL="call:n[:lost|:always]" does the same from the
** environment, and GNNDB_MOCK_FREE_MEM sets the free memory cudaMemGetInfo
** reports (mock_free_mem). Allocations are page-aligned, as the runtime's
** are (a spilled round's read buffers are read into with O_DIRECT). */
#include <cuda_runtime_api.h>

#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcache_kernel.h"

/* The controls are exported even from build/mock/libgnndb.so, whose other
** symbols are hidden, so that the Python tests can reach them. */
#define MOCK_API __attribute__((visibility("default")))

/* ---- failures on demand ---- */
static char fail_call[64];
static long fail_left;
static cudaError_t fail_err;
static int fail_mode, lost, always;
MOCK_API int64_t mock_free_mem = (int64_t)16 << 30;
int64_t mock_total_mem = (int64_t)16 << 30;

MOCK_API void mock_fail(const char *call, long nth, cudaError_t err, int mode)
{
    snprintf(fail_call, sizeof fail_call, "%s", call ? call : "");
    fail_left = nth;
    fail_err = err;
    fail_mode = mode;
    lost = always = 0;
}

static void env_once(void)
{
    static int done;
    if (done) return;
    done = 1;
    const char *f = getenv("GNNDB_MOCK_FAIL");
    const char *m = getenv("GNNDB_MOCK_FREE_MEM");
    if (m) mock_free_mem = strtoll(m, NULL, 10);
    if (!f) return;
    char call[64];
    long n = 0;
    int mode = strstr(f, ":lost") ? 1 : strstr(f, ":always") ? 2 : 0;
    if (sscanf(f, "%63[^:]:%ld", call, &n) == 2)
        mock_fail(call, n,
                  mode == 1 ? cudaErrorLaunchFailure
                  : strstr(call, "alloc") || strstr(call, "Malloc")
                      ? cudaErrorMemoryAllocation
                      : cudaErrorUnknown,
                  mode);
}

/* cudaSuccess, or the error this call of `name` is to fail with. */
static cudaError_t failing(const char *name)
{
    env_once();
    if (lost) return fail_err;
    int mine = !strcmp(name, fail_call);
    if (always && mine) return fail_err;
    if (fail_left > 0 && mine && --fail_left == 0) {
        lost = fail_mode == 1;
        always = fail_mode == 2;
        return fail_err;
    }
    return cudaSuccess;
}

#define FAILING(name)                                                        \
    do {                                                                     \
        cudaError_t f_ = failing(name);                                      \
        if (f_ != cudaSuccess) return f_;                                    \
    } while (0)

/* ---- tracked allocations ---- */
typedef struct alloc {
    char *p;       /* what the caller was given */
    char *view;    /* where the mock reads and writes it (p for host) */
    size_t n;
    int kind; /* cudaMemoryTypeDevice or cudaMemoryTypeHost */
} alloc;
static alloc *allocs;
static int nallocs, capallocs;
/* The engine pins a batch's outputs from its worker threads, as a real
** runtime allows: the table is shared by them. */
static pthread_mutex_t allocs_mu = PTHREAD_MUTEX_INITIALIZER;

static alloc *find(const void *p)
{
    for (int i = 0; i < nallocs; i++)
        if ((const char *)p >= allocs[i].p &&
            (const char *)p < allocs[i].p + allocs[i].n)
            return &allocs[i];
    return NULL;
}

/* Whether [p, p + n) lies in one allocation of `kind`. */
static int inside(const void *p, size_t n, int kind)
{
    if (!n) return 1;
    pthread_mutex_lock(&allocs_mu);
    alloc *a = find(p);
    int in = a && a->kind == kind && (const char *)p + n <= a->p + a->n;
    pthread_mutex_unlock(&allocs_mu);
    return in;
}

/* The kind of the allocation p lies in, or -1. */
static int kind_at(const void *p)
{
    pthread_mutex_lock(&allocs_mu);
    alloc *a = find(p);
    int k = a ? a->kind : -1;
    pthread_mutex_unlock(&allocs_mu);
    return k;
}

/* Device memory: one shared file mapped inaccessible at *p and writable at
** *view. Host memory: page-aligned heap memory, both at once. */
static int map_pages(int kind, size_t n, char **p, char **view)
{
    if (kind != cudaMemoryTypeDevice) {
        void *v = NULL;
        if (posix_memalign(&v, 4096, n)) return -1;
        *p = *view = v;
        return 0;
    }
    int fd = memfd_create("cudart_mock", MFD_CLOEXEC);
    if (fd < 0) return -1;
    void *a = MAP_FAILED, *b = MAP_FAILED;
    if (!ftruncate(fd, (off_t)n)) {
        a = mmap(NULL, n, PROT_NONE, MAP_SHARED, fd, 0);
        b = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    close(fd);
    if (a == MAP_FAILED || b == MAP_FAILED) {
        if (a != MAP_FAILED) munmap(a, n);
        if (b != MAP_FAILED) munmap(b, n);
        return -1;
    }
    *p = a;
    *view = b;
    return 0;
}

static void unmap_pages(const alloc *a)
{
    memset(a->view, 0xdd, a->n);
    if (a->kind != cudaMemoryTypeDevice) {
        free(a->p);
        return;
    }
    munmap(a->p, a->n);
    munmap(a->view, a->n);
}

static cudaError_t track(void **out, size_t n, int kind)
{
    char *p, *view;
    if (!n) n = 1;
    if (map_pages(kind, n, &p, &view)) return cudaErrorMemoryAllocation;
    memset(view, 0xee, n); /* poison */
    alloc rec = {p, view, n, kind};
    pthread_mutex_lock(&allocs_mu);
    if (nallocs == capallocs) {
        int cap = capallocs ? 2 * capallocs : 256;
        alloc *a = realloc(allocs, (size_t)cap * sizeof *a);
        if (!a) {
            pthread_mutex_unlock(&allocs_mu);
            unmap_pages(&rec);
            return cudaErrorMemoryAllocation;
        }
        allocs = a;
        capallocs = cap;
    }
    allocs[nallocs++] = rec;
    pthread_mutex_unlock(&allocs_mu);
    *out = p;
    return cudaSuccess;
}

static cudaError_t untrack(void *p, int kind)
{
    pthread_mutex_lock(&allocs_mu);
    for (int i = 0; i < nallocs; i++)
        if (allocs[i].p == p && allocs[i].kind == kind) {
            alloc a = allocs[i];
            allocs[i] = allocs[--nallocs];
            pthread_mutex_unlock(&allocs_mu);
            unmap_pages(&a);
            return cudaSuccess;
        }
    pthread_mutex_unlock(&allocs_mu);
    return cudaErrorInvalidValue;
}

/* Where the mock (and a test reading a device array back) reaches the
** bytes at p: its writable mapping for device memory, p itself otherwise. */
MOCK_API void *mock_host_view(const void *p)
{
    pthread_mutex_lock(&allocs_mu);
    alloc *a = find(p);
    char *v = a ? a->view + ((const char *)p - a->p) : (char *)p;
    pthread_mutex_unlock(&allocs_mu);
    return v;
}

/* How many allocations of `kind` are live (the tests check for leaks). */
MOCK_API int mock_live(int kind)
{
    int n = 0;
    pthread_mutex_lock(&allocs_mu);
    for (int i = 0; i < nallocs; i++) n += allocs[i].kind == kind;
    pthread_mutex_unlock(&allocs_mu);
    return n;
}

/* ---- streams: deferred work ---- */
typedef struct work {
    int is_kernel;
    void *dst;
    const void *src;
    size_t n;
    gc_args k;
} work;

struct CUstream_st {
    work *q;
    size_t n, cap, done;
};
struct CUevent_st {
    cudaStream_t s;
    size_t mark; /* the stream's queue length when recorded */
};

/* Every stream, so that a device-wide wait drains them all. */
static cudaStream_t streams[64];
static int nstreams;

static int kernel_ok(const gc_args *a)
{
    size_t rows = (size_t)a->rows, dim = (size_t)a->dim, nmiss = 0;
    if (!inside(a->src, rows * 4, cudaMemoryTypeDevice)) return 0;
    const int32_t *src = mock_host_view(a->src);
    for (size_t i = 0; i < rows; i++)
        if (src[i] < 0) nmiss++;
    return inside(a->out, rows * dim * 4, cudaMemoryTypeDevice) &&
           inside(a->admit, nmiss * 4, cudaMemoryTypeDevice) &&
           inside(a->miss, nmiss * dim * 4, cudaMemoryTypeDevice) &&
           kind_at(a->cache) == cudaMemoryTypeDevice;
}

static void run(work *w)
{
    if (!w->is_kernel) {
        memcpy(mock_host_view(w->dst), mock_host_view(w->src), w->n);
        return;
    }
    if (!kernel_ok(&w->k)) {
        fprintf(stderr, "cudart_mock: the gather kernel was given memory "
                        "that is not a device allocation of its size\n");
        abort();
    }
    gc_args k = w->k;
    k.out = mock_host_view(k.out);
    k.cache = mock_host_view(k.cache);
    k.miss = mock_host_view(k.miss);
    k.src = mock_host_view(k.src);
    k.admit = mock_host_view(k.admit);
    gc_gather_host(&k, 0, k.rows * k.dim);
}

static void drain(cudaStream_t s, size_t upto)
{
    for (; s->done < upto && s->done < s->n; s->done++) run(&s->q[s->done]);
}

static void drain_all(void)
{
    for (int i = 0; i < nstreams; i++) drain(streams[i], streams[i]->n);
}

static cudaError_t enqueue(cudaStream_t s, const work *w)
{
    if (!s) { /* the legacy default stream: at once */
        work c = *w;
        run(&c);
        return cudaSuccess;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        work *q = realloc(s->q, cap * sizeof *q);
        if (!q) return cudaErrorMemoryAllocation;
        s->q = q;
        s->cap = cap;
    }
    s->q[s->n++] = *w;
    return cudaSuccess;
}

/* ---- the API ---- */
int mock_device_count = 1;
int mock_current = 0;

cudaError_t cudaGetDeviceCount(int *count)
{
    env_once();
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
    switch (err) {
    case cudaSuccess: return "no error";
    case cudaErrorMemoryAllocation: return "out of memory (mock)";
    case cudaErrorLaunchFailure: return "unspecified launch failure (mock)";
    default: return "mock error";
    }
}
cudaError_t cudaGetLastError(void) { return lost ? fail_err : cudaSuccess; }
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int d)
{
    memset(p, 0, sizeof *p);
    strcpy(p->name, "mock");
    (void)d;
    return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total_b)
{
    FAILING("cudaMemGetInfo");
    *free_b = (size_t)mock_free_mem;
    *total_b = (size_t)mock_total_mem;
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
    (void)flags;
    FAILING("cudaStreamCreateWithFlags");
    if (nstreams == 64) return cudaErrorMemoryAllocation;
    *s = calloc(1, sizeof **s);
    if (!*s) return cudaErrorMemoryAllocation;
    streams[nstreams++] = *s;
    return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    drain(s, s->n);
    for (int i = 0; i < nstreams; i++)
        if (streams[i] == s) streams[i] = streams[--nstreams];
    free(s->q);
    free(s);
    return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    FAILING("cudaStreamSynchronize");
    if (s) drain(s, s->n);
    else drain_all();
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
    FAILING("cudaEventRecord");
    ev->s = s;
    ev->mark = s ? s->n : 0;
    return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t ev)
{
    FAILING("cudaEventSynchronize");
    if (ev->s) drain(ev->s, ev->mark);
    return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t ev, unsigned fl)
{
    (void)s;
    (void)fl;
    if (ev->s) drain(ev->s, ev->mark); /* stricter than a real wait */
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t n)
{
    FAILING("cudaMalloc");
    return track(p, n, cudaMemoryTypeDevice);
}
cudaError_t cudaFree(void *p)
{
    drain_all(); /* cudaFree synchronises the device */
    return p ? untrack(p, cudaMemoryTypeDevice) : cudaSuccess;
}
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned flags)
{
    (void)flags;
    FAILING("cudaHostAlloc");
    return track(p, n, cudaMemoryTypeHost);
}
cudaError_t cudaFreeHost(void *p)
{
    drain_all();
    return p ? untrack(p, cudaMemoryTypeHost) : cudaSuccess;
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
    if (kind == cudaMemcpyHostToDevice)
        return inside(dst, n, cudaMemoryTypeDevice) &&
               kind_at(src) != cudaMemoryTypeDevice;
    if (kind == cudaMemcpyDeviceToHost)
        return inside(src, n, cudaMemoryTypeDevice);
    if (kind == cudaMemcpyDeviceToDevice)
        return inside(src, n, cudaMemoryTypeDevice) &&
               inside(dst, n, cudaMemoryTypeDevice);
    return 1;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n,
                            enum cudaMemcpyKind kind, cudaStream_t s)
{
    FAILING("cudaMemcpyAsync");
    if (!check_dir(dst, src, n, kind)) return cudaErrorInvalidValue;
    if (kind == cudaMemcpyHostToDevice && !inside(src, n, cudaMemoryTypeHost))
        return cudaErrorInvalidValue; /* async only from pinned memory */
    work w = {0, dst, src, n, {0}};
    return enqueue(s, &w);
}
cudaError_t cudaMemcpy(void *dst, const void *src, size_t n,
                       enum cudaMemcpyKind kind)
{
    if (!check_dir(dst, src, n, kind)) return cudaErrorInvalidValue;
    /* the legacy default stream does not wait for non-blocking streams:
    ** copy at once, so that reading a batch before its copy was waited for
    ** gives poison */
    memcpy(mock_host_view(dst), mock_host_view(src), n);
    return cudaSuccess;
}

cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block,
                             void **args, size_t shmem, cudaStream_t s)
{
    (void)grid;
    (void)block;
    (void)shmem;
    FAILING("cudaLaunchKernel");
    if (func != gc_kernel_entry()) return cudaErrorInvalidDeviceFunction;
    work w = {1, NULL, NULL, 0, *(const gc_args *)args[0]};
    return enqueue(s, &w);
}

/* what nvcc's host code calls at start-up and in a kernel's stub */
void **__cudaRegisterFatBinary(void *fatbin)
{
    (void)fatbin;
    static void *handle;
    return &handle;
}
void __cudaRegisterFatBinaryEnd(void **h) { (void)h; }
void __cudaUnregisterFatBinary(void **h) { (void)h; }
void __cudaRegisterFunction(void **h, const char *hf, char *df,
                            const char *dn, int tl, uint3 *tid, uint3 *bid,
                            dim3 *bd, dim3 *gd, int *ws)
{
    (void)h, (void)hf, (void)df, (void)dn, (void)tl, (void)tid, (void)bid;
    (void)bd, (void)gd, (void)ws;
}
cudaError_t __cudaPopCallConfiguration(dim3 *g, dim3 *b, size_t *sh,
                                       void *st)
{
    (void)g, (void)b, (void)sh, (void)st;
    return cudaErrorNotSupported;
}
unsigned __cudaPushCallConfiguration(dim3 g, dim3 b, size_t sh, void *st)
{
    (void)g, (void)b, (void)sh, (void)st;
    return 0;
}
cudaError_t __cudaGetKernel(void **k, const void *f)
{
    *k = (void *)f;
    return cudaSuccess;
}
cudaError_t __cudaLaunchKernel(void *k, dim3 g, dim3 b, void **args,
                               size_t sh, cudaStream_t s)
{
    return cudaLaunchKernel(k, g, b, args, sh, s);
}
