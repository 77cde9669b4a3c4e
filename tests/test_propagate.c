/* test_propagate.c — PROPAGATE feat OVER g HOPS k [NORMALIZE sym|row] INTO
** out (cmd/propagate.c), read back with SCAN, against a dense
** brute-force computation written here: the matrix A + I built from the
** edge list (one entry per edge line, duplicates and self-loops included),
** normalised, and multiplied k times in double precision. A value must lie
** within 1e-4 of the reference relative to the same propagation of |X| (so
** that cancellation does not make a correct float sum look wrong). Checked
** on a small graph written by the test (a duplicate edge, a self-loop, an
** isolated node, a node with no stored neighbours) and on a few columns of
** cora; then the output bytes do not change with PRAGMA threads, io or a
** memory_limit that cuts the table into tiles, and a memory_limit too small
** fails with GNNDB_NOMEM and leaves no table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gnndb.h"
#include "util.h"

/* ---------- the reference ---------- */

/* Dense (A + I)[v][u]: one per edge line u -> v, plus one on the diagonal. */
static double *dense_adjacency(const int64_t *src, const int64_t *dst,
                               size_t m, int64_t n)
{
    double *a = calloc((size_t)(n * n), sizeof *a);
    for (size_t i = 0; i < m; i++) a[dst[i] * n + src[i]] += 1.0;
    for (int64_t v = 0; v < n; v++) a[v * n + v] += 1.0;
    return a;
}

/* Normalise in place: sym (D^-1/2 (A+I) D^-1/2) or row (D^-1 (A+I)), d the
** row sums of A + I. */
static void normalise(double *a, int64_t n, int row)
{
    double *d = calloc((size_t)n, sizeof *d);
    for (int64_t v = 0; v < n; v++)
        for (int64_t u = 0; u < n; u++) d[v] += a[v * n + u];
    for (int64_t v = 0; v < n; v++)
        for (int64_t u = 0; u < n; u++)
            if (a[v * n + u] != 0)
                a[v * n + u] /= row ? d[v] : sqrt(d[v] * d[u]);
    free(d);
}

/* out[v][h*cols + c] = (Â^h X)[v][cols_idx[c]] for h = 0..hops, and the same
** for |X| in absout. x has `dim` columns; only `ncols` of them are used. */
static void propagate_ref(const double *a, int64_t n, const float *x,
                          int64_t dim, const int *cols, int ncols, int hops,
                          double *out, double *absout)
{
    size_t w = (size_t)(hops + 1) * (size_t)ncols;
    double *h = malloc((size_t)n * ncols * sizeof *h), *ha = malloc((size_t)n * ncols * sizeof *h);
    double *t = malloc((size_t)n * ncols * sizeof *h), *ta = malloc((size_t)n * ncols * sizeof *h);
    for (int64_t v = 0; v < n; v++)
        for (int c = 0; c < ncols; c++) {
            h[v * ncols + c] = x[v * dim + cols[c]];
            ha[v * ncols + c] = fabs(h[v * ncols + c]);
        }
    for (int k = 0; k <= hops; k++) {
        for (int64_t v = 0; v < n; v++)
            for (int c = 0; c < ncols; c++) {
                out[v * w + (size_t)k * ncols + c] = h[v * ncols + c];
                absout[v * w + (size_t)k * ncols + c] = ha[v * ncols + c];
            }
        if (k == hops) break;
        memset(t, 0, (size_t)n * ncols * sizeof *t);
        memset(ta, 0, (size_t)n * ncols * sizeof *t);
        for (int64_t v = 0; v < n; v++)
            for (int64_t u = 0; u < n; u++) {
                double m = a[v * n + u];
                if (m == 0) continue;
                for (int c = 0; c < ncols; c++) {
                    t[v * ncols + c] += m * h[u * ncols + c];
                    ta[v * ncols + c] += m * ha[u * ncols + c];
                }
            }
        memcpy(h, t, (size_t)n * ncols * sizeof *t);
        memcpy(ha, ta, (size_t)n * ncols * sizeof *t);
    }
    free(h); free(ha); free(t); free(ta);
}

/* ---------- reading a table back ---------- */

static void exec_ok(gnndb *h, const char *sql)
{
    if (gnndb_exec(h, sql, NULL, NULL))
        fail_msg("%s\n-> %s", sql, gnndb_errmsg(h));
}

/* The whole table `t` of graph `g` in row order (malloc'd, n x *dim). */
static float *read_table(gnndb *h, const char *t, const char *g, int64_t n,
                         int64_t *dim)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SCAN %s ON %s BATCH 512;", t, g);
    gnndb_stmt *st;
    if (gnndb_prepare(h, sql, -1, &st, NULL)) fail_msg("%s", gnndb_errmsg(h));
    float *all = NULL;
    int64_t got = 0;
    int rc;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
        const gnndb_batch_view *v = gnndb_batch(st);
        if (!all) {
            *dim = v->x_dim;
            all = malloc((size_t)(n * v->x_dim) * sizeof *all);
        }
        for (int64_t i = 0; i < v->num_nodes; i++) {
            assert_int_equal(v->n_id[i], got + i);   /* ascending rows */
            memcpy(all + (got + i) * v->x_dim, v->x + i * v->x_dim,
                   (size_t)v->x_dim * 4);
        }
        got += v->num_nodes;
    }
    if (rc != GNNDB_DONE) fail_msg("%s", gnndb_errmsg(h));
    gnndb_finalize(st);
    assert_int_equal(got, n);
    return all;
}

/* Compare the columns `cols` of every hop block of `got` (n x (hops+1)dim)
** with the reference. */
static void check_against(const float *got, int64_t n, int64_t dim, int hops,
                          const int *cols, int ncols, const double *want,
                          const double *absw, const char *what)
{
    size_t w = (size_t)(hops + 1) * (size_t)ncols;
    double worst = 0;
    for (int64_t v = 0; v < n; v++)
        for (int k = 0; k <= hops; k++)
            for (int c = 0; c < ncols; c++) {
                double g = got[v * (hops + 1) * dim + k * dim + cols[c]];
                double r = want[v * w + (size_t)k * ncols + c];
                double s = absw[v * w + (size_t)k * ncols + c];
                double err = fabs(g - r) / (s > 0 ? s : 1e-30);
                if (fabs(g - r) > 1e-4 * s)
                    fail_msg("%s: node %" PRId64 " hop %d column %d: %.9g, "
                             "reference %.9g", what, v, k, cols[c], g, r);
                if (err > worst) worst = err;
            }
    print_message("%s: worst relative error %.3g\n", what, worst);
}

/* ---------- tests ---------- */

/* A directed graph of 10 nodes: 7 -> 6 twice, a self-loop on 8, node 9
** isolated, node 3 with one in-neighbour and node 1 reached only from 0. */
static const int64_t SMALL_SRC[] = {0, 0, 1, 2, 3, 4, 5, 4, 6, 2, 7, 7, 8, 1, 0};
static const int64_t SMALL_DST[] = {1, 2, 2, 0, 2, 3, 4, 5, 5, 6, 6, 6, 8, 8, 7};
#define SMALL_N 10
#define SMALL_M 15
#define SMALL_DIM 5

static void small_graph_matches_dense_reference(void **state)
{
    (void)state;
    tu_db d;
    assert_int_equal(tu_db_open(&d, "prop"), GNNDB_OK);
    char edges[1200], feats[1200], sql[4096];
    snprintf(edges, sizeof edges, "%s/edges.tsv", d.dir);
    snprintf(feats, sizeof feats, "%s/x.npy", d.dir);
    char text[512] = "";
    for (int i = 0; i < SMALL_M; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text),
                 "%" PRId64 "\t%" PRId64 "\n", SMALL_SRC[i], SMALL_DST[i]);
    assert_int_equal(tu_write_file(edges, text, strlen(text)), 0);
    float x[SMALL_N * SMALL_DIM];
    for (int i = 0; i < SMALL_N * SMALL_DIM; i++)   /* signs mixed */
        x[i] = (float)((i * 37) % 23 - 11) / 7.0f;
    assert_int_equal(tu_write_npy(feats, "<f4", x, SMALL_N, SMALL_DIM, 4), 0);
    snprintf(sql, sizeof sql, "CREATE GRAPH g FROM '%s' NODES %d;"
             "IMPORT FEATURES x INTO g FROM '%s';"
             "PROPAGATE x OVER g HOPS 3 NORMALIZE sym INTO p_sym;"
             "PROPAGATE x OVER g HOPS 3 NORMALIZE row INTO p_row;"
             "PROPAGATE x OVER g HOPS 3 INTO p_default;", edges, SMALL_N, feats);
    exec_ok(d.h, sql);

    const int cols[SMALL_DIM] = {0, 1, 2, 3, 4};
    size_t w = 4 * SMALL_DIM;
    double *want = malloc(SMALL_N * w * sizeof *want);
    double *absw = malloc(SMALL_N * w * sizeof *absw);
    static const char *const tables[] = {"p_sym", "p_row", "p_default"};
    for (int i = 0; i < 3; i++) {
        double *a = dense_adjacency(SMALL_SRC, SMALL_DST, SMALL_M, SMALL_N);
        normalise(a, SMALL_N, i == 1);
        propagate_ref(a, SMALL_N, x, SMALL_DIM, cols, SMALL_DIM, 3, want, absw);
        int64_t dim;
        float *got = read_table(d.h, tables[i], "g", SMALL_N, &dim);
        assert_int_equal(dim, 4 * SMALL_DIM);
        check_against(got, SMALL_N, SMALL_DIM, 3, cols, SMALL_DIM, want, absw,
                      tables[i]);
        /* hop 0 is X itself, bit for bit */
        for (int v = 0; v < SMALL_N; v++)
            assert_memory_equal(got + v * dim, x + v * SMALL_DIM, SMALL_DIM * 4);
        /* the isolated node keeps its row at every hop (Â[9,9] = 1) */
        for (int k = 1; k <= 3; k++)
            assert_memory_equal(got + 9 * dim + k * SMALL_DIM,
                                x + 9 * SMALL_DIM, SMALL_DIM * 4);
        free(got);
        free(a);
    }
    free(want);
    free(absw);
    tu_db_close(&d);
}

/* FNV-1a of a table's bytes, as SCAN returns them. */
static uint64_t table_hash(gnndb *h, const char *t, int64_t *rows)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SCAN %s ON cora BATCH 512;", t);
    gnndb_stmt *st;
    if (gnndb_prepare(h, sql, -1, &st, NULL)) fail_msg("%s", gnndb_errmsg(h));
    uint64_t f = 1469598103934665603ull;
    int rc;
    *rows = 0;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
        const gnndb_batch_view *v = gnndb_batch(st);
        const unsigned char *b = (const unsigned char *)v->x;
        for (size_t i = 0; i < (size_t)(v->num_nodes * v->x_dim) * 4; i++)
            f = (f ^ b[i]) * 1099511628211ull;
        *rows += v->num_nodes;
    }
    if (rc != GNNDB_DONE) fail_msg("%s", gnndb_errmsg(h));
    gnndb_finalize(st);
    return f;
}

static void cora_matches_reference_and_settings_do_not_matter(void **state)
{
    (void)state;
    tu_db d;
    assert_int_equal(tu_db_open(&d, "propcora"), GNNDB_OK);
    assert_int_equal(tu_import_cora(d.h), GNNDB_OK);
    exec_ok(d.h, "PRAGMA threads = 2; PRAGMA memory_limit = '1GB';"
                 "PRAGMA io = 'auto';"
                 "PROPAGATE feat OVER cora HOPS 2 NORMALIZE sym INTO pp;");

    /* the reference from the raw files: edges.tsv and features.npy */
    size_t len, fb;
    char *text = tu_read_file(tu_data(0, "cora/edges.tsv"), &len);
    float *x = tu_load_npy(tu_data(1, "cora/features.npy"), &fb);
    assert_non_null(text);
    assert_non_null(x);
    int64_t *src = malloc(20000 * 8), *dst = malloc(20000 * 8);
    size_t m = 0;
    for (char *p = text; *p && m < 20000;) {
        char *end;
        long long s = strtoll(p, &end, 10), t = strtoll(end, &end, 10);
        src[m] = s;
        dst[m++] = t;
        p = strchr(end, '\n');
        if (!p) break;
        p++;
    }
    assert_int_equal(m, 10556);
    const int64_t n = 2708, dim = 1433;
    const int cols[6] = {0, 19, 500, 777, 1200, 1432};
    double *a = dense_adjacency(src, dst, m, n);
    normalise(a, n, 0);
    double *want = malloc((size_t)n * 18 * sizeof *want);
    double *absw = malloc((size_t)n * 18 * sizeof *absw);
    propagate_ref(a, n, x, dim, cols, 6, 2, want, absw);
    int64_t got_dim;
    float *got = read_table(d.h, "pp", "cora", n, &got_dim);
    assert_int_equal(got_dim, 3 * dim);
    check_against(got, n, dim, 2, cols, 6, want, absw, "cora sym");
    free(got); free(a); free(want); free(absw); free(src); free(dst);
    free(text); free(x);

    /* the same bytes with one thread, pread, and tiles of a few hundred
    ** rows under a small memory_limit */
    int64_t rows;
    uint64_t ref = table_hash(d.h, "pp", &rows);
    assert_int_equal(rows, n);
    static const char *const settings[] = {
        "PRAGMA threads = 1; PRAGMA memory_limit = '1GB';",
        "PRAGMA threads = 2; PRAGMA memory_limit = '16MB'; PRAGMA io = 'pread';",
        "PRAGMA threads = 1; PRAGMA memory_limit = '20MB'; PRAGMA io = 'auto';",
    };
    for (int i = 0; i < 3; i++) {
        char sql[512];
        snprintf(sql, sizeof sql, "%s PROPAGATE feat OVER cora HOPS 2 INTO "
                 "pp%d;", settings[i], i);
        exec_ok(d.h, sql);
        exec_ok(d.h, "PRAGMA memory_limit = '1GB';");
        snprintf(sql, sizeof sql, "pp%d", i);
        assert_int_equal(table_hash(d.h, sql, &rows), ref);
    }

    /* too little memory: a clear error, and no table left behind */
    exec_ok(d.h, "PRAGMA memory_limit = '4MB';");
    int rc = gnndb_exec(d.h, "PROPAGATE feat OVER cora HOPS 1 INTO tiny;",
                        NULL, NULL);
    assert_int_equal(rc, GNNDB_NOMEM);
    assert_non_null(strstr(gnndb_errmsg(d.h), "memory_limit"));
    exec_ok(d.h, "PRAGMA memory_limit = '1GB';");
    gnndb_stmt *st;
    assert_int_equal(gnndb_prepare(d.h, "SCAN tiny ON cora BATCH 8;", -1, &st,
                                   NULL), GNNDB_NOTFOUND);
    tu_db_close(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_graph_matches_dense_reference),
        cmocka_unit_test(cora_matches_reference_and_settings_do_not_matter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
