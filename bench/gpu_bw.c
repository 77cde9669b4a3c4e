/* gpu_bw.c — host-to-device bandwidth: the hardware's (cudaMemcpyAsync from
** pinned memory, and plain cudaMemcpy from pageable memory, 1 MB to 256 MB)
** against what the transfer operator achieves (xfer_batch on synthetic
** batches the size of the default benchmark's: SAMPLE 10,10,10 BATCH 1024 on
** 128 float32 features, about 136 k nodes and 1.1 M edges, ~88 MB a batch),
** from pageable arrays (staged) and from pinned ones, with and without the
** next batch prefetched.
**
**   gpu_bw [batches]
**
** Last line: GPU_H2D_GBPS=<xfer_batch + xfer_prefetch from pinned arrays,
** as the engine hands out device-bound batches, gathered into pinned
** memory> PEAK_GBPS=<best pinned cudaMemcpyAsync> FRACTION=<ratio>, or
** "SKIP: no CUDA device (<reason>)" with exit 0. */
#include "../gpu/xfer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef GNNDB_CUDA
#include <cuda_runtime_api.h>

#define MB ((size_t)1 << 20)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int ck(cudaError_t err, const char *what)
{
    if (err == cudaSuccess) return 0;
    fprintf(stderr, "gpu_bw: %s: %s (error %d)\n", what,
            cudaGetErrorString(err), (int)err);
    return 1;
}

/* Best-of-reps bandwidth in GB/s (1e9 bytes/s) of one copy of `bytes`. */
static int copy_bw(void *dev, void *pinned, void *pageable, size_t bytes,
                   cudaStream_t s, double *g_pinned, double *g_pageable)
{
    const int reps = bytes <= 16 * MB ? 20 : 6;
    double best_p = 1e30, best_u = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        if (ck(cudaMemcpyAsync(dev, pinned, bytes, cudaMemcpyHostToDevice, s),
               "cudaMemcpyAsync") ||
            ck(cudaStreamSynchronize(s), "cudaStreamSynchronize"))
            return 1;
        double t1 = now();
        if (ck(cudaMemcpy(dev, pageable, bytes, cudaMemcpyHostToDevice),
               "cudaMemcpy"))
            return 1;
        double t2 = now();
        if (t1 - t0 < best_p) best_p = t1 - t0;
        if (t2 - t1 < best_u) best_u = t2 - t1;
    }
    *g_pinned = (double)bytes / best_p / 1e9;
    *g_pageable = (double)bytes / best_u / 1e9;
    return 0;
}

typedef struct synth {
    gnndb_batch_view v;
    int64_t nsn[4], nse[3];
    void *arr[4];
    int pinned;
} synth;

static int synth_make(synth *b, int pinned, int64_t k)
{
    const int64_t ns = 1024, nn = 136000, ne = 1136640, dim = 128;
    memset(b, 0, sizeof *b);
    b->pinned = pinned;
    size_t len[4] = {(size_t)nn * 8, (size_t)ne * 16, (size_t)(nn * dim) * 4,
                     (size_t)ns * 8};
    for (int a = 0; a < 4; a++) {
        b->arr[a] = pinned ? xfer_pinned_alloc(len[a]) : malloc(len[a]);
        if (!b->arr[a]) return 1;
        memset(b->arr[a], (int)(k + a) & 0x7f, len[a]); /* touch every page */
    }
    b->nsn[0] = ns;
    b->nsn[1] = 10 * ns;
    b->nsn[2] = 60000;
    b->nsn[3] = nn - b->nsn[0] - b->nsn[1] - b->nsn[2];
    b->nse[0] = 10 * ns;
    b->nse[1] = 100 * ns;
    b->nse[2] = ne - b->nse[0] - b->nse[1];
    gnndb_batch_view *v = &b->v;
    v->batch = k;
    v->num_seeds = ns;
    v->num_nodes = nn;
    v->num_edges = ne;
    v->num_hops = 3;
    v->n_id = b->arr[0];
    v->edge_index = b->arr[1];
    v->x = b->arr[2];
    v->x_dim = dim;
    v->y = b->arr[3];
    v->num_sampled_nodes = b->nsn;
    v->num_sampled_edges = b->nse;
    return 0;
}

static void synth_free(synth *b)
{
    for (int a = 0; a < 4; a++) {
        if (b->pinned) xfer_pinned_free(b->arr[a]);
        else free(b->arr[a]);
    }
}

static size_t synth_bytes(const synth *b)
{
    const gnndb_batch_view *v = &b->v;
    return (size_t)v->num_nodes * 8 + (size_t)v->num_edges * 16 +
           (size_t)(v->num_nodes * v->x_dim) * 4 + (size_t)v->num_seeds * 8;
}

/* GB/s of `n` xfer_batch calls alternating between two batches; with
** `prefetch`, each call is followed by xfer_prefetch of the next one, as the
** executor does. */
static int xfer_bw(xfer *x, synth b[2], int n, int prefetch, double *gbps)
{
    gnn_err e = {0};
    gnndb_batch_view d;
    /* warm up: buffers grow to size */
    for (int k = 0; k < 2; k++)
        if (xfer_batch(x, &b[k].v, &d, &e)) goto fail;
    double t0 = now();
    for (int k = 0; k < n; k++) {
        synth *cur = &b[k % 2], *nxt = &b[(k + 1) % 2];
        cur->v.batch = k;
        if (xfer_batch(x, &cur->v, &d, &e)) goto fail;
        nxt->v.batch = k + 1;
        if (prefetch && k + 1 < n && xfer_prefetch(x, &nxt->v, &e)) goto fail;
    }
    double t = now() - t0;
    *gbps = (double)synth_bytes(&b[0]) * n / t / 1e9;
    return 0;
fail:
    fprintf(stderr, "gpu_bw: %s\n", e.msg);
    return 1;
}
#endif

int main(int argc, char **argv)
{
    int nbatches = argc > 1 ? atoi(argv[1]) : 20;
    if (nbatches < 1) nbatches = 1;
    gnn_err e = {0};
    xfer *x = NULL;
    if (xfer_open(0, &x, &e) != GNNDB_OK) {
        printf("SKIP: no CUDA device (%s)\n", e.msg);
        return 0;
    }
#ifdef GNNDB_CUDA
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        printf("device: %s\n", prop.name);
    const size_t maxb = 256 * MB;
    void *dev = NULL, *pinned = NULL, *pageable = malloc(maxb);
    cudaStream_t s;
    if (!pageable ||
        ck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream") ||
        ck(cudaMalloc(&dev, maxb), "cudaMalloc") ||
        ck(cudaHostAlloc(&pinned, maxb, cudaHostAllocDefault),
           "cudaHostAlloc"))
        return 1;
    memset(pinned, 1, maxb);
    memset(pageable, 2, maxb);
    double peak = 0, peak_pageable = 0;
    printf("%10s %14s %16s\n", "size_MB", "pinned_async", "pageable_memcpy");
    for (size_t bytes = MB; bytes <= maxb; bytes *= 2) {
        double gp, gu;
        if (copy_bw(dev, pinned, pageable, bytes, s, &gp, &gu)) return 1;
        printf("%10zu %14.2f %16.2f\n", bytes / MB, gp, gu);
        if (gp > peak) peak = gp;
        if (gu > peak_pageable) peak_pageable = gu;
    }
    cudaFree(dev);
    cudaFreeHost(pinned);
    free(pageable);
    cudaStreamDestroy(s);

    synth b[2], p[2];
    double g_xfer, g_prefetch, g_pinned, g_pinned_pf;
    if (synth_make(&b[0], 0, 0) || synth_make(&b[1], 0, 1) ||
        synth_make(&p[0], 1, 0) || synth_make(&p[1], 1, 1)) {
        fprintf(stderr, "gpu_bw: out of memory\n");
        return 1;
    }
    printf("batch: %.1f MB (136000 nodes x 128 float32, 1136640 edges)\n",
           (double)synth_bytes(&b[0]) / 1e6);
    if (xfer_bw(x, b, nbatches, 0, &g_xfer) ||
        xfer_bw(x, b, nbatches, 1, &g_prefetch) ||
        xfer_bw(x, p, nbatches, 0, &g_pinned) ||
        xfer_bw(x, p, nbatches, 1, &g_pinned_pf))
        return 1;
    printf("xfer_batch, pageable arrays (staged):   %.2f GB/s\n", g_xfer);
    printf("xfer_batch + xfer_prefetch, pageable:   %.2f GB/s\n", g_prefetch);
    printf("xfer_batch, pinned arrays:              %.2f GB/s\n", g_pinned);
    printf("xfer_batch + xfer_prefetch, pinned:     %.2f GB/s\n",
           g_pinned_pf);
    printf("PAGEABLE_GBPS=%.2f\n", peak_pageable);
    for (int i = 0; i < 2; i++) {
        synth_free(&b[i]);
        synth_free(&p[i]);
    }
    xfer_close(x);
    printf("GPU_H2D_GBPS=%.2f PEAK_GBPS=%.2f FRACTION=%.3f\n", g_pinned_pf,
           peak, peak > 0 ? g_pinned_pf / peak : 0.0);
#else
    xfer_close(x);
#endif
    return 0;
}
