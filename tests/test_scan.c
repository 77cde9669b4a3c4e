/* test_scan.c — the seed scan: the order in which an epoch visits its
** seeds, for SAMPLE (SHUFFLE, SEED, EPOCHS, PARTITION k OF n) and for SCAN
** (CHUNK c). Tested through the public API on cora, so that it holds
** whichever file computes the order: the seeds of an epoch are read off
** the batches (the first num_seeds entries of n_id) and checked against
** the split read from train_idx.npy by the test: every epoch a permutation
** of the seeds (ascending without SHUFFLE), the same order again for the
** same SEED, a different one for another epoch or SEED; SCAN's CHUNK c keeps
** runs of c consecutive seeds together; PARTITION shares are disjoint,
** cover the epoch, are the slices ⌊kN/n⌋..⌊(k+1)N/n⌋ of its order and
** differ in size by at most one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gnndb.h"
#include "util.h"

#define MAXE 4        /* epochs a test looks at */
#define MAXS 2708     /* seeds per epoch at most (cora's nodes) */

typedef struct fx {
    tu_db d;
    int64_t train[200];   /* the split, ascending */
    int64_t ntrain;
    float *feat;
    int64_t *labels;
} fx;

typedef struct orders {
    int64_t seq[MAXE][MAXS];   /* seeds of each epoch, in visit order */
    int64_t n[MAXE];
    int64_t batches[MAXE];
} orders;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    if (tu_db_open(&f->d, "scan") || tu_import_cora(f->d.h)) return -1;
    size_t b;
    int64_t *t = tu_load_npy(tu_data(0, "cora/train_idx.npy"), &b);
    if (!t || b / 8 > 200) return -1;
    f->ntrain = (int64_t)(b / 8);
    memcpy(f->train, t, b);
    free(t);
    qsort(f->train, (size_t)f->ntrain, 8, cmp_i64);
    f->feat = tu_load_npy(tu_data(1, "cora/features.npy"), &b);
    f->labels = tu_load_npy(tu_data(2, "cora/labels.npy"), &b);
    *state = f;
    return f->feat && f->labels ? 0 : -1;
}

static int teardown(void **state)
{
    fx *f = *state;
    tu_db_close(&f->d);
    free(f->feat);
    free(f->labels);
    free(f);
    return 0;
}

/* Run `sql` and record each epoch's seeds; SCAN batches' rows are checked
** against features.npy and labels.npy on the way. */
static orders *collect(fx *f, const char *sql)
{
    orders *o = calloc(1, sizeof *o);
    gnndb_stmt *st;
    if (gnndb_prepare(f->d.h, sql, -1, &st, NULL))
        fail_msg("%s\n-> %s", sql, gnndb_errmsg(f->d.h));
    int rc;
    int64_t last_epoch = -1;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
        const gnndb_batch_view *v = gnndb_batch(st);
        assert_true(v->epoch >= 0 && v->epoch < MAXE);
        assert_true(v->epoch >= last_epoch);
        last_epoch = v->epoch;
        int64_t e = v->epoch;
        assert_int_equal(v->batch, o->batches[e]);   /* counted per epoch */
        o->batches[e]++;
        assert_true(o->n[e] + v->num_seeds <= MAXS);
        memcpy(o->seq[e] + o->n[e], v->n_id, (size_t)v->num_seeds * 8);
        o->n[e] += v->num_seeds;
        if (v->num_hops == 0) {        /* SCAN: whole rows, no edges */
            assert_int_equal(v->num_nodes, v->num_seeds);
            assert_int_equal(v->num_edges, 0);
            for (int64_t i = 0; i < v->num_nodes; i += 7) {
                assert_memory_equal(v->x + i * 1433,
                                    f->feat + v->n_id[i] * 1433, 1433 * 4);
                assert_int_equal(v->y[i], f->labels[v->n_id[i]]);
            }
        }
    }
    if (rc != GNNDB_DONE) fail_msg("%s\n-> %s", sql, gnndb_errmsg(f->d.h));
    gnndb_finalize(st);
    return o;
}

/* seq[0..n) sorted equals want[0..nw) (ascending). */
static void assert_permutation(const int64_t *seq, int64_t n,
                               const int64_t *want, int64_t nw)
{
    assert_int_equal(n, nw);
    int64_t *s = malloc((size_t)n * 8 + 8);
    memcpy(s, seq, (size_t)n * 8);
    qsort(s, (size_t)n, 8, cmp_i64);
    assert_memory_equal(s, want, (size_t)n * 8);
    free(s);
}

static int same_order(const orders *a, int ea, const orders *b, int eb)
{
    return a->n[ea] == b->n[eb] &&
           memcmp(a->seq[ea], b->seq[eb], (size_t)a->n[ea] * 8) == 0;
}

/* ---------- tests ---------- */

static void sample_epochs_are_seeded_permutations(void **state)
{
    fx *f = *state;
    orders *asc = collect(f, "SAMPLE 1 FROM cora SEEDS train BATCH 16 SEED 5 "
                             "EPOCHS 2;");
    for (int e = 0; e < 2; e++) {
        assert_int_equal(asc->n[e], f->ntrain);
        assert_memory_equal(asc->seq[e], f->train, (size_t)f->ntrain * 8);
        assert_int_equal(asc->batches[e], (f->ntrain + 15) / 16);
    }
    const char *q = "SAMPLE 1 FROM cora SEEDS train BATCH 16 SHUFFLE SEED %d "
                    "EPOCHS 3 HYPERBATCH %d;";
    char sql[256];
    snprintf(sql, sizeof sql, q, 5, 4);
    orders *a = collect(f, sql);
    snprintf(sql, sizeof sql, q, 5, 1);
    orders *again = collect(f, sql);       /* same SEED, other HYPERBATCH */
    snprintf(sql, sizeof sql, q, 6, 4);
    orders *other = collect(f, sql);
    for (int e = 0; e < 3; e++) {
        assert_permutation(a->seq[e], a->n[e], f->train, f->ntrain);
        assert_permutation(other->seq[e], other->n[e], f->train, f->ntrain);
        assert_true(same_order(a, e, again, e));
        assert_false(same_order(a, e, other, e));
        assert_false(same_order(a, e, asc, 0));
        for (int e2 = 0; e2 < e; e2++) assert_false(same_order(a, e, a, e2));
    }
    free(asc); free(a); free(again); free(other);

    /* every node, and a list of seeds */
    orders *all = collect(f, "SAMPLE 1 FROM cora SEEDS ALL BATCH 300 SHUFFLE "
                             "SEED 1 EPOCHS 2;");
    int64_t *ids = malloc(MAXS * 8);
    for (int64_t i = 0; i < 2708; i++) ids[i] = i;
    for (int e = 0; e < 2; e++) assert_permutation(all->seq[e], all->n[e], ids, 2708);
    assert_false(same_order(all, 0, all, 1));
    free(all);
    orders *list = collect(f, "SAMPLE 1 FROM cora SEEDS (2000, 3, 77, 1500, 9) "
                              "BATCH 2 SHUFFLE SEED 2;");
    const int64_t lw[] = {3, 9, 77, 1500, 2000};
    assert_permutation(list->seq[0], list->n[0], lw, 5);
    free(list);
    free(ids);
}

static void partition_shares_slice_the_epoch(void **state)
{
    fx *f = *state;
    char sql[256];
    orders *whole = collect(f, "SAMPLE 1 FROM cora SEEDS train BATCH 8 SHUFFLE "
                               "SEED 9 EPOCHS 2;");
    const int counts[] = {1, 2, 3, 7};
    for (int c = 0; c < 4; c++) {
        int n = counts[c];
        int64_t off[MAXE] = {0};
        int64_t smallest = INT64_MAX, largest = 0;
        for (int k = 0; k < n; k++) {
            snprintf(sql, sizeof sql, "SAMPLE 1 FROM cora SEEDS train BATCH 8 "
                     "SHUFFLE SEED 9 EPOCHS 2 PARTITION %d OF %d;", k, n);
            orders *o = collect(f, sql);
            for (int e = 0; e < 2; e++) {
                int64_t lo = (int64_t)k * f->ntrain / n;
                int64_t hi = (int64_t)(k + 1) * f->ntrain / n;
                /* the slice [lo, hi) of the whole epoch's order, so the
                ** shares are disjoint and, in rank order, the epoch */
                assert_int_equal(lo, off[e]);
                assert_int_equal(o->n[e], hi - lo);
                assert_memory_equal(o->seq[e], whole->seq[e] + lo,
                                    (size_t)(hi - lo) * 8);
                assert_int_equal(o->batches[e], (hi - lo + 7) / 8);
                off[e] = hi;
                if (o->n[e] < smallest) smallest = o->n[e];
                if (o->n[e] > largest) largest = o->n[e];
            }
            /* with SHUFFLE a rank's share changes from epoch to epoch */
            if (n > 1) {
                int64_t s0[MAXS], s1[MAXS];
                memcpy(s0, o->seq[0], (size_t)o->n[0] * 8);
                memcpy(s1, o->seq[1], (size_t)o->n[1] * 8);
                qsort(s0, (size_t)o->n[0], 8, cmp_i64);
                qsort(s1, (size_t)o->n[1], 8, cmp_i64);
                assert_true(o->n[0] != o->n[1] || memcmp(s0, s1, (size_t)o->n[0] * 8) != 0);
            }
            free(o);
        }
        for (int e = 0; e < 2; e++) assert_int_equal(off[e], f->ntrain);
        assert_true(largest - smallest <= 1);
    }
    free(whole);
    /* a rank outside 0..n-1 is refused */
    gnndb_stmt *st = NULL;
    int rc = gnndb_prepare(f->d.h, "SAMPLE 1 FROM cora BATCH 8 PARTITION 3 OF "
                           "3;", -1, &st, NULL);
    assert_int_not_equal(rc, GNNDB_OK);
    assert_null(st);
}

/* SCAN's order: chunks of c consecutive seeds (of the sorted seed list),
** each kept whole and ascending, the chunks shuffled per epoch. */
static void assert_chunked(const int64_t *seq, int64_t n, const int64_t *sorted,
                           int64_t c)
{
    int64_t nchunks = (n + c - 1) / c;
    char *seen = calloc((size_t)nchunks, 1);
    for (int64_t i = 0; i < n;) {
        int64_t *p = bsearch(&seq[i], sorted, (size_t)n, 8, cmp_i64);
        assert_non_null(p);
        int64_t pos = p - sorted, ch = pos / c;
        if (pos % c != 0 || seen[ch])
            fail_msg("position %" PRId64 ": seed %" PRId64 " does not start "
                     "chunk %" PRId64, i, seq[i], ch);
        seen[ch] = 1;
        int64_t len = ch == nchunks - 1 ? n - ch * c : c;
        assert_true(i + len <= n);
        assert_memory_equal(seq + i, sorted + ch * c, (size_t)len * 8);
        i += len;
    }
    free(seen);
}

static void scan_chunks_keep_consecutive_seeds(void **state)
{
    fx *f = *state;
    orders *asc = collect(f, "SCAN feat ON cora SEEDS train BATCH 32;");
    assert_memory_equal(asc->seq[0], f->train, (size_t)f->ntrain * 8);
    free(asc);
    const int64_t chunks[] = {1, 16, 20};   /* 140, 9 and 7 chunks */
    char sql[256];
    for (int c = 0; c < 3; c++) {
        snprintf(sql, sizeof sql, "SCAN feat ON cora SEEDS train BATCH 10 "
                 "SHUFFLE CHUNK %" PRId64 " SEED 7 EPOCHS 3;", chunks[c]);
        orders *o = collect(f, sql);
        orders *again = collect(f, sql);
        for (int e = 0; e < 3; e++) {
            assert_permutation(o->seq[e], o->n[e], f->train, f->ntrain);
            assert_chunked(o->seq[e], o->n[e], f->train, chunks[c]);
            assert_true(same_order(o, e, again, e));
            assert_int_equal(o->batches[e], 14);
            for (int e2 = 0; e2 < e; e2++)
                if (same_order(o, e, o, e2))
                    fail_msg("CHUNK %" PRId64 ": epochs %d and %d in the same "
                             "order", chunks[c], e2, e);
        }
        free(o);
        free(again);
    }
    /* another SEED, another order; one chunk holding every seed is the
    ** ascending order */
    orders *a = collect(f, "SCAN feat ON cora SEEDS train BATCH 10 SHUFFLE "
                           "CHUNK 16 SEED 7;");
    orders *b = collect(f, "SCAN feat ON cora SEEDS train BATCH 10 SHUFFLE "
                           "CHUNK 16 SEED 8;");
    assert_false(same_order(a, 0, b, 0));
    free(a); free(b);
    orders *one = collect(f, "SCAN feat ON cora SEEDS train BATCH 10 SHUFFLE "
                             "CHUNK 1000 SEED 7;");
    assert_memory_equal(one->seq[0], f->train, (size_t)f->ntrain * 8);
    free(one);
    /* every node in chunks of 100 */
    orders *all = collect(f, "SCAN feat ON cora BATCH 256 SHUFFLE CHUNK 100 "
                             "SEED 3 EPOCHS 2 LIMIT 11;");
    int64_t *ids = malloc(MAXS * 8);
    for (int64_t i = 0; i < 2708; i++) ids[i] = i;
    assert_permutation(all->seq[0], all->n[0], ids, 2708);
    assert_chunked(all->seq[0], all->n[0], ids, 100);
    assert_int_equal(all->batches[0], 11);   /* LIMIT 11 = one epoch */
    assert_int_equal(all->n[1], 0);
    free(ids);
    free(all);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sample_epochs_are_seeded_permutations),
        cmocka_unit_test(partition_shares_slice_the_epoch),
        cmocka_unit_test(scan_chunks_keep_consecutive_seeds),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
