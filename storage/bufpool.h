/* bufpool.h — a pool of block-sized frames over block files: LRU eviction,
** pinning, and batched fetches that keep many reads in flight and hand each
** block to the caller as soon as it arrives. */
#ifndef GNN_BUFPOOL_H
#define GNN_BUFPOOL_H

#include <stddef.h>
#include <stdint.h>
#include "blockfile.h"
#include "io.h"

typedef struct bp_pool bp_pool;

typedef struct bp_stats {
    uint64_t hits;          /* requests served from a frame */
    uint64_t misses;        /* requests that needed a read */
    uint64_t blocks_read;   /* blocks read from disk */
    uint64_t bytes_read;
    uint64_t reads_issued;  /* I/O requests (coalesced reads count once) */
} bp_stats;

/* Frames of a pool of nframes frames kept for reads in flight, never
** protected: a quarter, and at least one a read the I/O backend keeps in
** flight (`depth`), so that the disk streams. The pool keeps the rest of
** its frames' blocks between rounds when its file does not fit. */
size_t bp_read_frames(size_t nframes, unsigned depth);

/* A pool of `nframes` frames of `frame_size` bytes (>= the block size of any
** file used with it), reading through `io` (not owned). */
int bp_open(size_t nframes, uint32_t frame_size, io_backend *io,
            bp_pool **out, gnn_err *e);
void bp_close(bp_pool *bp);

/* Pin block `no` of `f` and return its verified data through *data, reading
** it when absent. Unpin with bp_unpin(). */
int bp_get(bp_pool *bp, blk_file *f, uint64_t no, const void **data,
           gnn_err *e);
void bp_unpin(bp_pool *bp, blk_file *f, uint64_t no);

/* Called once per fetched block while it is pinned; a non-OK return stops
** the fetch with that code. */
typedef int (*bp_visit_fn)(void *arg, uint64_t no, const void *data,
                           gnn_err *e);

/* Visit every block of `blocks` (ascending, no repeats): those already in
** the pool first, then the others as their reads complete, reads issued in
** ascending order, adjacent blocks coalesced into one read (up to
** `max_coalesce` blocks), as many in flight as free frames and the backend
** allow. Blocks are verified before they are visited. */
int bp_fetch(bp_pool *bp, blk_file *f, const uint64_t *blocks, size_t n,
             bp_visit_fn visit, void *arg, gnn_err *e);

/* 1 when block `no` of `f` is in a frame (a read of it would be a hit). */
int bp_has(const bp_pool *bp, const blk_file *f, uint64_t no);
/* A frame lent out for a read that is not a whole block (pagefetch.c):
** pinned, holding nothing, never found by lookups; NULL when every frame is
** pinned. bp_return gives it back empty. */
uint8_t *bp_borrow(bp_pool *bp);
void bp_return(bp_pool *bp, uint8_t *data);
io_backend *bp_io(const bp_pool *bp);

/* Frames ever read into (or faulted in by bp_prefault): they are the
** first ones, since empty frames are taken in order. */
size_t bp_frames_touched(const bp_pool *bp);
/* Fault in the pages of frames [from, to) never read into, writing a byte
** in each page, and count them as touched. Reading a whole file into a
** new pool spends most of its time in the kernel zeroing the fresh pages
** on the reading thread; callers split the frames among threads that call
** this at once, each for its own range, while nothing else uses the pool. */
void bp_prefault(bp_pool *bp, size_t from, size_t to);

void bp_set_max_coalesce(bp_pool *bp, unsigned blocks);
const bp_stats *bp_get_stats(const bp_pool *bp);
void bp_reset_stats(bp_pool *bp);
size_t bp_nframes(const bp_pool *bp);
/* Bytes of the frames ever read into (NULL: 0): what of the pool is
** resident; the rest is address space not yet touched. */
size_t bp_touched_bytes(const bp_pool *bp);
/* Forget every frame of file `f` (before closing it). */
void bp_drop_file(bp_pool *bp, const blk_file *f);

#endif
