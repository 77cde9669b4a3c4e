/* test_link.c — the link operator's contract (exec/link.h): negatives are
** uniform by a chi-square test and a pure function of their key, sources
** kept or drawn as the mode says, endpoints distinct and ascending, label
** arrays pointing back at the pairs they label, and the EXCLUDE rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "link.h"
#include "../parser/ast.h"

/* seeds: edges 10..(10 + n) with src = id % 7, dst = id % 11 */
static void make_seeds(lk_seeds *sd, size_t n)
{
    sd->n = n;
    uint32_t *eid = malloc(n * 4);
    sd->eid = eid;
    sd->src = malloc(n * 4);
    sd->dst = malloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        eid[i] = (uint32_t)(10 + i);
        sd->src[i] = (uint32_t)((10 + i) % 7);
        sd->dst[i] = (uint32_t)((10 + i) % 11);
    }
}

/* Pearson's statistic of counts c[0..m) against the uniform. */
static double chi2(const uint64_t *c, size_t m, uint64_t total)
{
    double ex = (double)total / (double)m, s = 0;
    for (size_t i = 0; i < m; i++) s += ((double)c[i] - ex) * ((double)c[i] - ex) / ex;
    return s;
}

static void negatives_are_uniform(void **state)
{
    (void)state;
    enum { NODES = 40, B = 500, K = 4, EPOCHS = 20 };
    lk_seeds sd;
    make_seeds(&sd, B);
    uint32_t order[B];
    for (int i = 0; i < B; i++) order[i] = sd.eid[B - 1 - i];
    for (int mode = AST_NEG_SOURCE; mode <= AST_NEG_PAIRS; mode++) {
        lk_spec sp = {.mode = mode, .k = K, .seed = 99, .nodes = NODES};
        uint64_t cd[NODES] = {0}, cs[NODES] = {0}, total = 0;
        lk_batch b = {0};
        for (int ep = 0; ep < EPOCHS; ep++) {
            assert_int_equal(lk_batch_fill(&sp, &sd, order, 0, B, ep, 3, &b,
                                           &(gnn_err){0}), GNNDB_OK);
            assert_int_equal(b.nneg, (size_t)B * K);
            for (size_t i = 0; i < b.nneg; i++) {
                assert_true(b.ndst[i] < NODES);
                cd[b.ndst[i]]++;
                if (mode == AST_NEG_PAIRS) cs[b.nsrc[i]]++;
                else assert_int_equal(b.nsrc[i], b.psrc[i / K]);
                total++;
            }
        }
        /* 39 degrees of freedom: the 0.999 quantile is 72.05 */
        assert_true(chi2(cd, NODES, total) < 72.05);
        if (mode == AST_NEG_PAIRS) assert_true(chi2(cs, NODES, total) < 72.05);
        lk_batch_free(&b);
    }
    free((void *)sd.eid);
    lk_seeds_free(&sd);
}

static void negatives_are_a_function_of_their_key(void **state)
{
    (void)state;
    lk_seeds sd;
    make_seeds(&sd, 64);
    lk_spec sp = {.mode = AST_NEG_PAIRS, .k = 2, .seed = 5, .nodes = 1000};
    lk_batch a = {0}, b = {0};
    gnn_err e = {0};
    assert_int_equal(lk_batch_fill(&sp, &sd, sd.eid, 0, 64, 1, 2, &a, &e), 0);
    assert_int_equal(lk_batch_fill(&sp, &sd, sd.eid, 0, 64, 1, 2, &b, &e), 0);
    assert_memory_equal(a.ndst, b.ndst, a.nneg * 4);
    assert_memory_equal(a.nsrc, b.nsrc, a.nneg * 4);
    /* another mini-batch, another attempt: other draws */
    assert_int_equal(lk_batch_fill(&sp, &sd, sd.eid, 0, 64, 1, 3, &b, &e), 0);
    assert_true(memcmp(a.ndst, b.ndst, a.nneg * 4) != 0);
    uint32_t before = a.ndst[7];
    lk_redraw(&sp, 1, 2, &a, 7, 1);
    assert_int_equal(a.ntry[7], 1);
    lk_redraw(&sp, 1, 2, &a, 7, 0);
    assert_int_equal(a.ndst[7], before);
    lk_batch_free(&a);
    lk_batch_free(&b);
    free((void *)sd.eid);
    lk_seeds_free(&sd);
}

static void labels_point_at_their_pairs(void **state)
{
    (void)state;
    lk_seeds sd;
    make_seeds(&sd, 30);
    gnn_err e = {0};
    for (int mode = AST_NEG_SOURCE; mode <= AST_NEG_TRIPLET; mode++) {
        lk_spec sp = {.mode = mode, .k = 3, .seed = 1, .nodes = 25};
        lk_batch b = {0};
        assert_int_equal(lk_batch_fill(&sp, &sd, sd.eid, 5, 25, 0, 0, &b, &e), 0);
        assert_int_equal(b.npos, 20);
        assert_int_equal(lk_endpoints(&b, &e), 0);
        for (size_t i = 1; i < b.nends; i++) assert_true(b.ends[i - 1] < b.ends[i]);
        assert_int_equal(lk_finish(&sp, &b, &e), 0);
        size_t L = b.npos + b.nneg;
        for (size_t i = 0; i < b.npos; i++) {
            assert_int_equal(b.psrc[i], sd.src[5 + i]);
            assert_int_equal(b.pdst[i], sd.dst[5 + i]);
        }
        if (mode == AST_NEG_TRIPLET) {
            assert_null(b.label);
            for (size_t i = 0; i < b.npos; i++) {
                assert_int_equal(b.ends[b.src_index[i]], b.psrc[i]);
                assert_int_equal(b.ends[b.dst_pos_index[i]], b.pdst[i]);
            }
            for (size_t i = 0; i < b.nneg; i++)
                assert_int_equal(b.ends[b.dst_neg_index[i]], b.ndst[i]);
        } else {
            for (size_t i = 0; i < L; i++) {
                uint32_t s = i < b.npos ? b.psrc[i] : b.nsrc[i - b.npos];
                uint32_t d = i < b.npos ? b.pdst[i] : b.ndst[i - b.npos];
                assert_int_equal(b.ends[b.label_index[i]], s);
                assert_int_equal(b.ends[b.label_index[L + i]], d);
                assert_true(b.label[i] == (i < b.npos ? 1.0f : 0.0f));
            }
        }
        lk_batch_free(&b);
    }
    free((void *)sd.eid);
    lk_seeds_free(&sd);
}

static void exclude_drops_seeds_and_split_edges(void **state)
{
    (void)state;
    lk_seeds sd;
    make_seeds(&sd, 10);
    uint64_t bits[2] = {0, 1ull << 3};   /* edge 67 */
    lk_spec sp = {.k = 0, .seed = 1, .nodes = 5, .exclude_seeds = 1};
    lk_batch b = {0};
    uint32_t order[3] = {14, 11, 17};
    assert_int_equal(lk_batch_fill(&sp, &sd, order, 0, 3, 0, 0, &b,
                                   &(gnn_err){0}), 0);
    assert_true(lk_excluded(&sp, &b, 11) && lk_excluded(&sp, &b, 14) &&
                lk_excluded(&sp, &b, 17));
    assert_false(lk_excluded(&sp, &b, 12) || lk_excluded(&sp, &b, 67));
    sp.excluded = bits;
    sp.nexcluded = 128;
    assert_true(lk_excluded(&sp, &b, 67));
    sp.exclude_seeds = 0;
    assert_false(lk_excluded(&sp, &b, 11));
    /* an id that is not a seed edge is an error, not a silent pair */
    uint32_t bad[1] = {3};
    gnn_err e = {0};
    assert_int_equal(lk_batch_fill(&sp, &sd, bad, 0, 1, 0, 0, &b, &e),
                     GNNDB_CORRUPT);
    lk_batch_free(&b);
    free((void *)sd.eid);
    lk_seeds_free(&sd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(negatives_are_uniform),
        cmocka_unit_test(negatives_are_a_function_of_their_key),
        cmocka_unit_test(labels_point_at_their_pairs),
        cmocka_unit_test(exclude_drops_seeds_and_split_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
