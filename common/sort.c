/* sort.c — radix sort of u32/u64 keys with a qsort fallback. */
#include "sort.h"

#include <stdlib.h>
#include <string.h>

#define DIGIT_BITS 11
#define DIGITS (1u << DIGIT_BITS)
/* below this, qsort's n log n beats a pass per digit and its histograms */
#define RADIX_MIN 2048
/* below this, insertion sort beats qsort's calls through a comparator */
#define SMALL_MAX 24

int gnn_cmp_u32(const void *a, const void *b)
{
    uint32_t p = *(const uint32_t *)a, q = *(const uint32_t *)b;
    return (p > q) - (p < q);
}

int gnn_cmp_u64(const void *a, const void *b)
{
    uint64_t p = *(const uint64_t *)a, q = *(const uint64_t *)b;
    return (p > q) - (p < q);
}

/* One generic LSD radix sort over keys of `width` bits, stored as u64 or
** u32 (wide says which): a read pass counts every digit's histogram, then
** a scatter pass per digit that not every key shares, alternating between
** a and tmp; the result is copied back into a when it ends in tmp. */
#define RADIX_BODY(T)                                                       \
    size_t passes = (width + DIGIT_BITS - 1) / DIGIT_BITS;                  \
    size_t *cnt = calloc(passes * DIGITS, sizeof *cnt);                     \
    T *tmp = malloc(n * sizeof *tmp);                                       \
    if (!cnt || !tmp) { free(cnt); free(tmp); return 0; }                   \
    for (size_t i = 0; i < n; i++)                                          \
        for (size_t d = 0; d < passes; d++)                                 \
            cnt[d * DIGITS + ((a[i] >> (d * DIGIT_BITS)) & (DIGITS - 1))]++; \
    T *src = a, *dst = tmp;                                                 \
    for (size_t d = 0; d < passes; d++) {                                   \
        size_t *c = cnt + d * DIGITS;                                       \
        unsigned shift = (unsigned)(d * DIGIT_BITS);                        \
        if (c[(src[0] >> shift) & (DIGITS - 1)] == n) continue;             \
        size_t sum = 0;                                                     \
        for (size_t v = 0; v < DIGITS; v++) {                               \
            size_t k = c[v];                                                \
            c[v] = sum;                                                     \
            sum += k;                                                       \
        }                                                                   \
        for (size_t i = 0; i < n; i++)                                      \
            dst[c[(src[i] >> shift) & (DIGITS - 1)]++] = src[i];            \
        T *t = src; src = dst; dst = t;                                     \
    }                                                                       \
    if (src != a) memcpy(a, src, n * sizeof *a);                            \
    free(cnt);                                                              \
    free(tmp);                                                              \
    return 1;

static int radix_u64(uint64_t *a, size_t n, unsigned width) { RADIX_BODY(uint64_t) }
static int radix_u32(uint32_t *a, size_t n, unsigned width) { RADIX_BODY(uint32_t) }

/* Insertion sort: the fastest for the few neighbours of one node. */
#define SMALL_SORT(a, n)                                                    \
    for (size_t i = 1; i < (n); i++) {                                      \
        __typeof__(*(a)) v = (a)[i];                                        \
        size_t j = i;                                                       \
        while (j > 0 && (a)[j - 1] > v) { (a)[j] = (a)[j - 1]; j--; }       \
        (a)[j] = v;                                                         \
    }

void gnn_sort_u64(uint64_t *a, size_t n)
{
    if (n < SMALL_MAX) { SMALL_SORT(a, n); return; }
    if (n >= RADIX_MIN && radix_u64(a, n, 64)) return;
    qsort(a, n, sizeof *a, gnn_cmp_u64);
}

void gnn_sort_u32(uint32_t *a, size_t n)
{
    if (n < SMALL_MAX) { SMALL_SORT(a, n); return; }
    if (n >= RADIX_MIN && radix_u32(a, n, 32)) return;
    qsort(a, n, sizeof *a, gnn_cmp_u32);
}

size_t gnn_lower_u32(const uint32_t *a, size_t n, uint32_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

size_t gnn_lower_u64(const uint64_t *a, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
