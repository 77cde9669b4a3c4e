/* bcache.h — the hot-block cache of a SAMPLE run (PRAGMA cache_policy =
** 'hot_blocks'): whole feature blocks, those whose rows' nodes have the
** most stored neighbours, read once when the run opens and pinned for its
** life, so that every hyperbatch (spilled or not) visits them from memory
** instead of reading them. A row cache saves a read only when every row a
** hyperbatch needs from a block is cached; a pinned block always does.
** With REORDER degree the hot nodes share the first blocks. */
#ifndef GNN_BCACHE_H
#define GNN_BCACHE_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"

typedef struct bcache bcache;

/* Room for `cap` blocks of `block_size` bytes of a table of `nblocks`. */
int bc_open(size_t cap, uint32_t block_size, uint64_t nblocks, bcache **out,
            gnn_err *e);
void bc_close(bcache *c);
size_t bc_capacity(const bcache *c);
/* Choose the blocks to pin: the `cap` highest of weight[0..nblocks) (ties
** to the lower block), listed ascending in *blocks (bc_pinned_count of
** them); bc_store then copies each one's data as it is read. */
int bc_choose(bcache *c, const uint64_t *weight, gnn_err *e);
const uint64_t *bc_pinned(const bcache *c, size_t *n);
void bc_store(bcache *c, uint64_t no, const void *data);
/* The pinned data of block `no`, or NULL. */
const void *bc_get(const bcache *c, uint64_t no);

#endif
