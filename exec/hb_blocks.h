/* hb_blocks.h — the block x item matrix a hop walks over graph blocks and
** gather over feature blocks: items (a frontier node, a row to copy)
** bucketed by the block that holds them, the distinct blocks ascending,
** and the block being visited, whose items run as parallel tasks. Each
** operator refills it for its own items (hb_hop_state.items,
** hb_gather_state.gitems). */
#ifndef GNN_HB_BLOCKS_H
#define GNN_HB_BLOCKS_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"

struct wpool;

/* Items handed to one parallel task: large enough to amortise the hand-off. */
#define HB_CHUNK 512

typedef struct hb_blocks {
    uint64_t *blockof;       /* per item: its block (or a list of blocks) */
    size_t capblockof;
    uint32_t *sorted;        /* item indices, block by block */
    size_t capsorted;
    size_t *bstart;          /* block b: sorted[bstart[b] .. bstart[b+1]) */
    size_t capbstart;
    uint64_t *ublocks;       /* the distinct blocks, ascending */
    size_t nub, capublocks;
    uint64_t vis_no;         /* the block being visited ... */
    const void *vis_data;
    size_t vis_lo, vis_hi;   /* ... and its items in `sorted` */
} hb_blocks;

/* Sort n items on their block (bk->blockof[i] < nblocks) with a counting
** sort: bk->sorted lists item indices block by block, bk->bstart[b] ..
** bstart[b+1] the range of block b, and bk->ublocks the distinct blocks
** ascending. */
int hb_bucket(hb_blocks *bk, size_t n, uint64_t nblocks, gnn_err *e);
/* Bytes of bk counted against the staged budget (hb_work_bytes); freeing
** the arrays sized per item (release: between hops) or all of them. */
size_t hb_blocks_bytes(const hb_blocks *bk);
void hb_blocks_release(hb_blocks *bk);
void hb_blocks_free(hb_blocks *bk);
/* Visit block `no` (data in memory): run fn(arg, task, worker) over its
** items [lo, hi) of bk->sorted, HB_CHUNK items a task on the worker pool,
** and add the time to *cpu_seconds. */
void hb_run_block(hb_blocks *bk, struct wpool *pool, uint64_t no,
                  const void *data, size_t lo, size_t hi,
                  void (*fn)(void *, size_t, int), void *arg,
                  double *cpu_seconds);

#endif
