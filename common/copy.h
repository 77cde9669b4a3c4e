/* copy.h — copying rows that the CPU will not read again soon (rows bound
** for a spill run, which goes to disk by DMA): streaming stores bypass the
** cache, so the copy neither reads the destination lines first nor evicts
** the block being copied from. */
#ifndef GNN_COPY_H
#define GNN_COPY_H

#include <stddef.h>

/* Copy len bytes from src to dst like memcpy (no overlap). Streams when
** dst is 16-byte aligned and len a multiple of 16 on x86-64, else memcpy.
** Call gnn_copy_stream_done() before another thread or a device reads
** what was copied. */
void gnn_copy_stream(void *dst, const void *src, size_t len);
void gnn_copy_stream_done(void);

/* Widen n IEEE half-precision values (src, any alignment) to float32 in
** dst: exact, subnormals and infinities included; a NaN keeps its payload
** and comes out quiet (as F16C makes it, so every CPU gives the same bits).
** F16C where the CPU has it; `stream` as gnn_copy_stream (then call
** gnn_copy_stream_done). */
void gnn_widen_f16(float *dst, const void *src, size_t n, int stream);

#endif
