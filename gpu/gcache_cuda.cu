/* gcache_cuda.cu — the GPU cache's gather kernel: every element of a
** batch's x from its cache slot or from the rows that crossed the bus
** (gcache_kernel.h holds the per-element work, shared with the host's
** reference run). Launched through cudaLaunchKernel with the kernel's
** entry, so that a stand-in runtime in the tests can recognise it. */
#include <cuda_runtime_api.h>

extern "C" {
#include "gcache_kernel.h"
}

/* A grid-stride loop: a bounded grid covers batches of any size. */
__global__ void gc_gather_kernel(gc_args a)
{
    int64_t n = a.rows * a.dim;
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += step)
        gc_elem(&a, e);
}

extern "C" const void *gc_kernel_entry(void)
{
    return (const void *)gc_gather_kernel;
}

extern "C" int gc_launch(const gc_args *a, void *stream)
{
    const int threads = 256;
    int64_t n = a->rows * a->dim;
    if (n <= 0) return 0;
    int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 8192) blocks = 8192;
    gc_args copy = *a;
    void *args[1] = {&copy};
    return (int)cudaLaunchKernel(gc_kernel_entry(), dim3((unsigned)blocks),
                                 dim3(threads), args, 0,
                                 (cudaStream_t)stream);
}
