/* test_hotrows.c — a spilled plan's hot rows (exec/hotrows.c) against a
** brute force written here: for random skewed degrees (some beyond the
** histogram's last bucket), capacities from none to every row, offered in
** a random order, the rows chosen must be exactly the `cap` of highest
** degree but for the ties at the lowest degree chosen (any of them, as many
** as room is left), never one of degree 0; each hot row's slot is its rank
** among the hot rows, found by counting; and a block is taken once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gnndb.h"
#include "../exec/hotrows.h"

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Degrees a power law would give, with some 0 and some past 65535. */
static uint32_t skewed_degree(uint64_t *s)
{
    uint64_t r = next_rand(s) % 1000;
    if (r < 50) return 0;
    if (r < 55) return 65536 + (uint32_t)(next_rand(s) % 100000);
    return (uint32_t)(1000000 / ((next_rand(s) % 997) + 1) / 50);
}

static int cmp_desc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The capped degree a row is ranked by. */
static uint32_t capped(uint32_t d) { return d < 65535 ? d : 65535; }

static void check_one(uint64_t nrows, size_t cap, uint64_t seed)
{
    uint64_t s = seed;
    uint32_t *deg = malloc(nrows * sizeof *deg);
    uint32_t *sorted = malloc(nrows * sizeof *sorted);
    uint32_t *perm = malloc(nrows * sizeof *perm);
    assert_non_null(deg);
    assert_non_null(sorted);
    assert_non_null(perm);
    size_t positive = 0;
    for (uint64_t r = 0; r < nrows; r++) {
        deg[r] = skewed_degree(&s);
        sorted[r] = capped(deg[r]);
        perm[r] = (uint32_t)r;
        positive += deg[r] > 0;
    }
    for (uint64_t r = nrows; r-- > 1;) {   /* the order rows are offered in */
        uint64_t k = next_rand(&s) % (r + 1);
        uint32_t t = perm[r]; perm[r] = perm[k]; perm[k] = t;
    }
    qsort(sorted, nrows, sizeof *sorted, cmp_desc);
    size_t want = cap < positive ? cap : positive;
    /* the lowest capped degree that must be hot, and how many above it */
    uint32_t low = want ? sorted[want - 1] : UINT32_MAX;
    size_t above = 0;
    for (size_t i = 0; i < want; i++) above += sorted[i] > low;

    hot_rows *h;
    gnn_err e = {0};
    uint64_t nblocks = nrows / 7 + 1;
    assert_int_equal(hr_open(nrows, 12, nblocks, cap, &h, &e), GNNDB_OK);
    for (uint64_t r = 0; r < nrows; r++) hr_count(h, deg[r]);
    hr_threshold(h);
    for (uint64_t i = 0; i < nrows; i++) hr_offer(h, perm[i], deg[perm[i]]);
    hr_offer(h, nrows + 5, 70000);     /* beyond the table: never hot */
    assert_int_equal(hr_seal(h, &e), GNNDB_OK);
    assert_int_equal(hr_count_hot(h), want);
    size_t rank = 0, at_low = 0;
    for (uint64_t r = 0; r < nrows; r++) {
        uint32_t c = capped(deg[r]);
        if (!want || c < low || deg[r] == 0) {
            assert_false(hr_is_hot(h, r));
            continue;
        }
        if (c > low) assert_true(hr_is_hot(h, r));
        if (!hr_is_hot(h, r)) continue;
        at_low += c == low;
        assert_int_equal(hr_slot(h, r), rank);
        /* each slot its own bytes */
        memset(hr_row(h, rank), (int)(r & 0xff), 12);
        rank++;
    }
    assert_int_equal(rank, want);
    assert_int_equal(at_low, want - above);
    assert_false(hr_is_hot(h, nrows + 5));
    for (uint64_t r = 0, k = 0; r < nrows; r++)
        if (hr_is_hot(h, r)) {
            const unsigned char *b = hr_row_const(h, k++);
            assert_int_equal(b[0], r & 0xff);
            assert_int_equal(b[11], r & 0xff);
        }
    for (uint64_t b = 0; b < nblocks; b++) {
        assert_int_equal(hr_block_take(h, b), 1);
        assert_int_equal(hr_block_take(h, b), 0);
    }
    assert_int_equal(hr_block_take(h, nblocks), 0);
    hr_close(h);
    free(deg);
    free(sorted);
    free(perm);
}

static void chosen_rows_are_the_highest_degrees(void **state)
{
    (void)state;
    const uint64_t sizes[] = {1, 63, 64, 65, 1000, 20011};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        uint64_t n = sizes[i];
        const size_t caps[] = {0, 1, (size_t)n / 50, (size_t)n / 3,
                               (size_t)n - 1, (size_t)n, (size_t)n * 2};
        for (size_t c = 0; c < sizeof caps / sizeof *caps; c++)
            check_one(n, caps[c], 0x9e3779b97f4a7c15ull + i * 31 + c);
    }
}

static void tables_beyond_32_bits_are_refused(void **state)
{
    (void)state;
    hot_rows *h = (hot_rows *)1;
    gnn_err e = {0};
    assert_int_equal(hr_open((uint64_t)UINT32_MAX + 2, 4, 1, 10, &h, &e),
                     GNNDB_RANGE);
    assert_null(h);
    assert_non_null(strstr(e.msg, "32-bit"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chosen_rows_are_the_highest_degrees),
        cmocka_unit_test(tables_beyond_32_bits_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
