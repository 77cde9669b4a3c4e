/* sort.h — ascending sorts of unsigned integer keys, the one place the
** engine and the importers sort ids, rows and packed (key << 32 | value)
** pairs. Large arrays are radix-sorted (a pass per 11-bit digit, skipping
** digits every key shares), small ones go to qsort. */
#ifndef GNN_SORT_H
#define GNN_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Sort a[0..n) ascending in place. Thread-safe; no shared state. The radix
** path borrows n elements of scratch from malloc and falls back to qsort
** when that fails, so these never fail. */
void gnn_sort_u32(uint32_t *a, size_t n);
void gnn_sort_u64(uint64_t *a, size_t n);

/* The first i with a[i] >= key in ascending a[0..n), n when there is none
** (binary search). */
size_t gnn_lower_u32(const uint32_t *a, size_t n, uint32_t key);
size_t gnn_lower_u64(const uint64_t *a, size_t n, uint64_t key);

/* qsort comparators, for callers that sort records by a leading key. */
int gnn_cmp_u32(const void *a, const void *b);
int gnn_cmp_u64(const void *a, const void *b);

#endif
