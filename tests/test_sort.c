/* test_sort.c — common/sort.c against qsort as the reference: every size
** around the insertion-sort and radix thresholds, keys that share digits
** (skipped passes), duplicates, and packed (key << 32 | value) pairs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sort.h"

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Keys under `mask`: a small mask makes many duplicates and shared digits. */
static void check_u64(size_t n, uint64_t mask, uint64_t seed)
{
    uint64_t *a = malloc((n + 1) * sizeof *a), *r = malloc((n + 1) * sizeof *r);
    assert_non_null(a);
    assert_non_null(r);
    for (size_t i = 0; i < n; i++) a[i] = r[i] = next(&seed) & mask;
    gnn_sort_u64(a, n);
    qsort(r, n, sizeof *r, gnn_cmp_u64);
    assert_memory_equal(a, r, n * sizeof *a);
    free(a);
    free(r);
}

static void check_u32(size_t n, uint32_t mask, uint64_t seed)
{
    uint32_t *a = malloc((n + 1) * sizeof *a), *r = malloc((n + 1) * sizeof *r);
    assert_non_null(a);
    assert_non_null(r);
    for (size_t i = 0; i < n; i++) a[i] = r[i] = (uint32_t)next(&seed) & mask;
    gnn_sort_u32(a, n);
    qsort(r, n, sizeof *r, gnn_cmp_u32);
    assert_memory_equal(a, r, n * sizeof *a);
    free(a);
    free(r);
}

static const size_t sizes[] = {0, 1, 2, 23, 24, 25, 100, 2047, 2048, 2049,
                               5000, 100000};

static void test_u64_matches_qsort(void **state)
{
    (void)state;
    const uint64_t masks[] = {UINT64_MAX, 0xffffffffull, 0xff, 0x7fffff00000fffffull,
                              0xffffull << 40};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (size_t m = 0; m < sizeof masks / sizeof *masks; m++)
            check_u64(sizes[i], masks[m], 0x9e3779b97f4a7c15ull + i * 31 + m);
}

static void test_u32_matches_qsort(void **state)
{
    (void)state;
    const uint32_t masks[] = {UINT32_MAX, 0xff, 0xfff000ffu, 0x7fffff};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (size_t m = 0; m < sizeof masks / sizeof *masks; m++)
            check_u32(sizes[i], masks[m], 0x2545f4914f6cdd1dull + i * 17 + m);
}

/* The spill's use: (node << 32 | local) with locals 0..n-1 distinct; the
** low half of every key must follow its node. */
static void test_packed_pairs_keep_values(void **state)
{
    (void)state;
    size_t n = 50000;
    uint64_t *a = malloc(n * sizeof *a), seed = 7;
    assert_non_null(a);
    for (size_t q = 0; q < n; q++)
        a[q] = ((next(&seed) & 0x7fffff) << 32) | q;
    uint64_t *r = malloc(n * sizeof *r);
    assert_non_null(r);
    memcpy(r, a, n * sizeof *a);
    gnn_sort_u64(a, n);
    qsort(r, n, sizeof *r, gnn_cmp_u64);
    assert_memory_equal(a, r, n * sizeof *a);
    free(a);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u64_matches_qsort),
        cmocka_unit_test(test_u32_matches_qsort),
        cmocka_unit_test(test_packed_pairs_keep_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
