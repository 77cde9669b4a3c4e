/* xfer_int.h — the transfer operator's state with CUDA, shared by
** xfer_cuda.cu (device, streams, memory) and xfer_copy.cu (laying out,
** copying and handing out batches). Included by CUDA sources only. */
#ifndef GNN_XFER_INT_H
#define GNN_XFER_INT_H

#include <cuda_runtime_api.h>

extern "C" {
#include "xfer.h"
#include "xfer_layout.h"
#include "gcache.h"
#include "gcache_kernel.h"
}

#define XFER_NSETS 2
#define XFER_CHUNK ((size_t)4 << 20)
#define XFER_ROUND ((size_t)1 << 20)

/* One buffer set: the stream and event of the batch it holds, its device
** allocation and pinned staging, and the device view's types and
** relations. */
struct xfer_set {
    cudaStream_t stream;
    cudaEvent_t done;
    char *dev;
    size_t dev_cap;
    char *stage;
    size_t stage_cap;
    int pending;         /* a copy was enqueued and not yet waited for */
    int prefetched;      /* holds the batch described by `tag` */
    gnndb_batch_view tag;
    xl lay;
    gnndb_type_view *tv;
    gnndb_rel_view *rv;
    int cap_tv, cap_rv;
    /* the cache's plan of this set's batch (gcache.h) */
    int cached;          /* x is gathered by the kernel */
    int32_t *src, *miss, *admit; /* admit points into miss's array */
    size_t cap_src, cap_miss;
    int64_t nrows, nmiss;
    uint64_t bus;        /* bytes this batch sends */
    uint64_t staged;     /* of them, through staging */
};

struct xfer {
    int index;
    xfer_set set[XFER_NSETS];
    unsigned next;       /* the set the next batch goes into */
    gcache gc;
    float *cache_dev;    /* gc.rows x gc.dim floats on the device */
    int has_cache;
    xfer_stats st;
};

static inline size_t round_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

/* A CUDA error as a GNNDB code: out of memory, a misuse of ours, or the
** device (lost, failed, unusable). */
int xfer_code_of(cudaError_t err);
/* Record "cuda:N: what: words (error n)" and return its code. */
int xfer_cuda_fail(gnn_err *e, cudaError_t err, int index, const char *what);
/* Make `index` the current device; the one before, for xfer_dev_leave. */
int xfer_dev_enter(int index);
void xfer_dev_leave(int prev, int index);
/* Grow a set's device allocation and staging (contents are lost). */
int xfer_set_reserve(xfer *x, xfer_set *s, size_t dev_need,
                     size_t stage_need, gnn_err *e);

#endif
