/* grow.h — the one growth policy of the engine's arrays: a quarter of
** slack, not doubling, because capacities are what count against
** memory_limit and most arrays are sized once per hop or per batch. */
#ifndef GNN_GROW_H
#define GNN_GROW_H

#include <stddef.h>

/* The capacity an array of capacity `cap` grows to when it must hold
** `need` elements (need > cap): need, or a quarter more than cap, at
** least 64. */
size_t gnn_grow_cap(size_t cap, size_t need);

/* Grow *p to hold `need` elements of `elem` bytes (*cap: its capacity in
** elements, updated); 0, or -1 when out of memory with *p unchanged. */
int gnn_grow(void **p, size_t *cap, size_t need, size_t elem);

#endif
