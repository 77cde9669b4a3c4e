/* hash.h — the hash of the engine's open-addressing tables of 32-bit ids
** (a mini-batch's node map in hyperbatch.c, the feature cache's row maps
** in fcache.c). */
#ifndef GNN_HASH_H
#define GNN_HASH_H

#include <stddef.h>
#include <stdint.h>

/* Fibonacci hashing: one multiply, whose high bits index a table of `cap`
** slots, cap a power of two. Ids that are close (a block's rows, a
** neighbourhood after REORDER) land far apart, so linear probing stays
** short without a slower mix. */
static inline size_t gnn_hash_slot(uint32_t key, size_t cap)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ull) >>
                    (64 - __builtin_ctzll(cap)));
}

#endif
