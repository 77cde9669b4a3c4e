/* gcache_kernel.h — the work of the GPU cache's gather, one float at a
** time, written once for both sides: the CUDA kernel (gcache_cuda.cu) runs
** gc_elem for every element of a batch's x, and gc_gather_host runs the
** same function on the host, which is how the tests (and a stand-in
** runtime) check the index arithmetic without a device.
**
** For element e of x (row e / dim, column e % dim): a row the device holds
** is read from its cache slot; a missing row is read from the rows that
** crossed the bus, packed in order, and, when it is admitted, also written
** into its slot. */
#ifndef GNN_GCACHE_KERNEL_H
#define GNN_GCACHE_KERNEL_H

#include <stdint.h>

#ifdef __CUDACC__
#define GC_HD __host__ __device__
#else
#define GC_HD
#endif

typedef struct gc_args {
    float *out;            /* the batch's x, rows x dim */
    float *cache;          /* slots x dim */
    const float *miss;     /* the missing rows, packed */
    const int32_t *src;    /* per row: slot, or -(m + 1) (gcache.h) */
    const int32_t *admit;  /* per missing row: its slot, or -1 */
    int64_t rows, dim;
} gc_args;

static inline GC_HD void gc_elem(const gc_args *a, int64_t e)
{
    int64_t row = e / a->dim, col = e % a->dim;
    int32_t s = a->src[row];
    if (s >= 0) {
        a->out[e] = a->cache[(int64_t)s * a->dim + col];
        return;
    }
    int64_t m = -(int64_t)s - 1;
    float v = a->miss[m * a->dim + col];
    a->out[e] = v;
    int32_t slot = a->admit[m];
    if (slot >= 0) a->cache[(int64_t)slot * a->dim + col] = v;
}

/* The host's run of the kernel over elements [lo, hi). */
void gc_gather_host(const gc_args *a, int64_t lo, int64_t hi);
/* The kernel's host-side entry (what cudaLaunchKernel is given), so that a
** stand-in runtime can tell a launch of it apart; NULL without CUDA. */
const void *gc_kernel_entry(void);
/* Enqueue the gather of a->rows rows on `stream` (a cudaStream_t): 0, or
** the cudaError_t of the launch. */
int gc_launch(const gc_args *a, void *stream);

#endif
