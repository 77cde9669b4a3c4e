/* test_edge_split.c — edge splits (CREATE EDGE SPLIT ... FROM 'pairs',
** CREATE EDGE SPLITS ... RANDOM) against brute force on small graphs whose
** edges the test wrote itself: a FROM split holds exactly the input rows of
** the pairs listed (npy 2xE and Ex2 of int32, uint8 and int64, TSV; a pair
** repeated, or reversed on an undirected graph, kept once; ids mapped under
** MAP IDS), and a RANDOM split exactly the stored edges whose draw, computed
** here from rng.h, falls in its interval; fractions hold roughly on cora.
** Every refusal leaves the graph's splits as they were, and a split's kind
** is checked by each reader (SEEDS, edge_split_load). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "edge_split.h"
#include "rng.h"
#include "util.h"

/* The input rows of the small graph: rows 5 (a repeat of row 1) and 6 (a
** self loop) are dropped by DROP DUPLICATES DROP SELF LOOPS. */
static const int64_t rows[][2] = {
    {0, 1}, {1, 2}, {2, 3}, {0, 3}, {3, 4}, {1, 2}, {4, 4}, {5, 6}, {6, 7},
    {2, 0},
};
#define NROWS (sizeof rows / sizeof rows[0])
static int dropped(size_t i) { return i == 5 || i == 6; }

typedef struct fx {
    tu_db d;
    char edges[1100];
} fx;

static int exec_ok(gnndb *h, const char *sql)
{
    int rc = gnndb_exec(h, sql, NULL, NULL);
    if (rc) fprintf(stderr, "%s\n  -> %s\n", sql, gnndb_errmsg(h));
    return rc;
}

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    if (!f || tu_db_open(&f->d, "test_edge_split")) return -1;
    snprintf(f->edges, sizeof f->edges, "%s/edges.tsv", f->d.dir);
    char text[512] = "";
    for (size_t i = 0; i < NROWS; i++) {
        size_t l = strlen(text);
        snprintf(text + l, sizeof text - l, "%" PRId64 "\t%" PRId64 "\n",
                 rows[i][0], rows[i][1]);
    }
    char sql[4096];
    snprintf(sql, sizeof sql,
             "CREATE GRAPH g FROM '%s' DROP DUPLICATES DROP SELF LOOPS;"
             "CREATE GRAPH u FROM '%s' UNDIRECTED;", f->edges, f->edges);
    if (tu_write_file(f->edges, text, strlen(text)) || exec_ok(f->d.h, sql))
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    tu_db_close(&f->d);
    free(f);
    return 0;
}

/* The split's ids must be exactly want[0..n). */
static void expect_split(gnndb *h, const char *graph, const char *name,
                         const uint64_t *want, size_t n)
{
    cat_graph g;
    gnn_err e = {0};
    assert_int_equal(cat_graph_get(h->cat, graph, &g, &e), GNNDB_OK);
    uint64_t *ids;
    size_t got;
    int rc = edge_split_load(h, &g, name, &ids, &got, &e);
    if (rc) fprintf(stderr, "edge_split_load %s: %s\n", name, e.msg);
    assert_int_equal(rc, GNNDB_OK);
    assert_int_equal(got, n);
    for (size_t i = 0; i < n; i++) assert_int_equal(ids[i], want[i]);
    free(ids);
}

/* Every property of DESCRIBE g, one string, to compare before and after. */
static int describe_cb(void *arg, int ncol, char **v, char **names)
{
    char *s = arg;
    size_t l = strlen(s);
    /* file sizes may move with the statement log; the objects may not */
    if (!strncmp(v[0], "file.", 5)) return 0;
    snprintf(s + l, 8192 - l, "%s=%s\n", v[0], v[1] ? v[1] : "");
    return 0;
}

static void describe(gnndb *h, const char *graph, char out[8192])
{
    char sql[128];
    out[0] = 0;
    snprintf(sql, sizeof sql, "DESCRIBE %s;", graph);
    assert_int_equal(gnndb_exec(h, sql, describe_cb, out), GNNDB_OK);
}

/* A statement that must fail with `rc` (any failure when -1) and words
** containing `words`, and leave DESCRIBE g as it was. */
static void refused(gnndb *h, const char *sql, int rc, const char *words)
{
    char before[8192], after[8192];
    describe(h, "g", before);
    int got = gnndb_exec(h, sql, NULL, NULL);
    if (rc == -1 && got != GNNDB_OK) rc = got;
    if (got != rc || !strstr(gnndb_errmsg(h), words))
        fprintf(stderr, "%s\n  -> %d %s (wanted %d, '%s')\n", sql, got,
                gnndb_errmsg(h), rc, words);
    assert_int_equal(got, rc);
    assert_non_null(strstr(gnndb_errmsg(h), words));
    describe(h, "g", after);
    assert_string_equal(before, after);
}

/* ---- FROM 'pairs' ------------------------------------------------------- */

/* pairs (0,1), (2,3), (0,1) again, (6,7), (2,0): rows 0, 2, 8, 9 */
static const int64_t pairs[][2] = {{0, 1}, {2, 3}, {0, 1}, {6, 7}, {2, 0}};
#define NPAIRS 5
static const uint64_t pair_ids[] = {0, 2, 8, 9};

/* The pairs as an array of `elem`-byte `descr`, 2xE or Ex2. */
static void write_pairs(const char *path, const char *descr, size_t elem,
                        int by_row)
{
    unsigned char buf[2 * NPAIRS * 8];
    for (size_t i = 0; i < NPAIRS; i++)
        for (int w = 0; w < 2; w++) {
            size_t at = by_row ? 2 * i + (size_t)w : (size_t)w * NPAIRS + i;
            int64_t v = pairs[i][w];
            memcpy(buf + at * elem, &v, elem); /* little-endian */
        }
    assert_int_equal(tu_write_npy(path, descr, buf, by_row ? NPAIRS : 2,
                                  by_row ? 2 : NPAIRS, elem), 0);
}

static void test_from_npy_of_each_dtype_and_shape(void **state)
{
    fx *f = *state;
    static const struct { const char *descr; size_t elem; } t[] = {
        {"<i4", 4}, {"|u1", 1}, {"<i8", 8}};
    for (int k = 0; k < 3; k++)
        for (int by_row = 0; by_row < 2; by_row++) {
            char path[1100], sql[1400], name[32];
            snprintf(path, sizeof path, "%s/p%d%d.npy", f->d.dir, k, by_row);
            snprintf(name, sizeof name, "s%d%d", k, by_row);
            write_pairs(path, t[k].descr, t[k].elem, by_row);
            snprintf(sql, sizeof sql, "CREATE EDGE SPLIT %s ON g FROM '%s';",
                     name, path);
            assert_int_equal(exec_ok(f->d.h, sql), GNNDB_OK);
            expect_split(f->d.h, "g", name, pair_ids, 4);
        }
}

static void test_from_tsv_and_undirected_reversed_pairs(void **state)
{
    fx *f = *state;
    char path[1100], sql[1400];
    snprintf(path, sizeof path, "%s/pairs.tsv", f->d.dir);
    const char *text = "src\tdst\n0\t1\n2\t3\n0\t1\n6\t7\n2\t0\n";
    assert_int_equal(tu_write_file(path, text, strlen(text)), 0);
    snprintf(sql, sizeof sql, "CREATE EDGE SPLIT t ON g FROM '%s';", path);
    assert_int_equal(exec_ok(f->d.h, sql), GNNDB_OK);
    expect_split(f->d.h, "g", "t", pair_ids, 4);

    /* undirected: (1,0) is row 0's edge, (3,2) row 2's, (2,1) row 1's (the
    ** lowest id of the pair: row 5 repeats it); each is one member */
    const char *rev = "1\t0\n0\t1\n3\t2\n2\t1\n";
    assert_int_equal(tu_write_file(path, rev, strlen(rev)), 0);
    snprintf(sql, sizeof sql, "CREATE EDGE SPLIT r ON u FROM '%s';", path);
    assert_int_equal(exec_ok(f->d.h, sql), GNNDB_OK);
    static const uint64_t want[] = {0, 1, 2};
    expect_split(f->d.h, "u", "r", want, 3);
}

static void test_from_maps_ids_of_a_map_ids_graph(void **state)
{
    fx *f = *state;
    char path[1100], sql[2400];
    snprintf(path, sizeof path, "%s/keyed.tsv", f->d.dir);
    const char *text = "100\t205\n205\t-7\n-7\t100\n";
    assert_int_equal(tu_write_file(path, text, strlen(text)), 0);
    snprintf(sql, sizeof sql, "CREATE GRAPH m FROM '%s' MAP IDS;", path);
    assert_int_equal(exec_ok(f->d.h, sql), GNNDB_OK);
    snprintf(path, sizeof path, "%s/keyed_pairs.tsv", f->d.dir);
    const char *p = "-7\t100\n100\t205\n";
    assert_int_equal(tu_write_file(path, p, strlen(p)), 0);
    snprintf(sql, sizeof sql, "CREATE EDGE SPLIT k ON m FROM '%s';", path);
    assert_int_equal(exec_ok(f->d.h, sql), GNNDB_OK);
    static const uint64_t want[] = {0, 2};
    expect_split(f->d.h, "m", "k", want, 2);
    /* 205 -> 100 is no edge of the directed graph; 1 is no key of it */
    const char *bad = "100\t205\n205\t100\n";
    assert_int_equal(tu_write_file(path, bad, strlen(bad)), 0);
    snprintf(sql, sizeof sql, "CREATE EDGE SPLIT k2 ON m FROM '%s';", path);
    assert_int_equal(gnndb_exec(f->d.h, sql, NULL, NULL), GNNDB_NOTFOUND);
    assert_non_null(strstr(gnndb_errmsg(f->d.h),
                           "line 2: (205, 100) is not an edge of graph 'm'"));
    const char *nokey = "1\t205\n";
    assert_int_equal(tu_write_file(path, nokey, strlen(nokey)), 0);
    assert_int_equal(gnndb_exec(f->d.h, sql, NULL, NULL), GNNDB_NOTFOUND);
    assert_non_null(strstr(gnndb_errmsg(f->d.h), "line 1: node 1 is not in"));
}

static void test_from_refusals_change_nothing(void **state)
{
    fx *f = *state;
    char path[1100], sql[1400];
    /* (1, 0) reversed on a directed graph: row 2 of the E x 2 array (three
    ** rows: a 2 x 2 array reads as 2 x E) */
    snprintf(path, sizeof path, "%s/bad.npy", f->d.dir);
    int64_t bad[] = {0, 1, 1, 2, 1, 0};
    assert_int_equal(tu_write_npy(path, "<i8", bad, 3, 2, 8), 0);
    snprintf(sql, sizeof sql, "CREATE EDGE SPLIT b ON g FROM '%s';", path);
    char words[1300];
    snprintf(words, sizeof words, "%s row 2: (1, 0) is not an edge of graph "
             "'g'", path);
    refused(f->d.h, sql, GNNDB_NOTFOUND, words);
    /* a self loop dropped at import is no edge either */
    int64_t loop[] = {4, 4};
    assert_int_equal(tu_write_npy(path, "<i8", loop, 1, 2, 8), 0);
    refused(f->d.h, sql, GNNDB_NOTFOUND, "row 0: (4, 4) is not an edge");
    /* node 8 is out of range (8 nodes) */
    int64_t far[] = {0, 1, 1, 2, 8, 0};
    assert_int_equal(tu_write_npy(path, "<i8", far, 3, 2, 8), 0);
    refused(f->d.h, sql, GNNDB_NOTFOUND, "row 2: node 8 is not in graph 'g'");
    /* a file that is missing, and one that is not integers */
    snprintf(sql, sizeof sql, "CREATE EDGE SPLIT b ON g FROM '%s/none.npy';",
             f->d.dir);
    refused(f->d.h, sql, -1, "none.npy");
    float fl[] = {0, 1};
    assert_int_equal(tu_write_npy(path, "<f4", fl, 1, 2, 4), 0);
    snprintf(sql, sizeof sql, "CREATE EDGE SPLIT b ON g FROM '%s';", path);
    refused(f->d.h, sql, GNNDB_FORMAT, "must be integers");
    /* a name any split of g already has */
    int64_t ok[] = {0, 1};
    assert_int_equal(tu_write_npy(path, "<i8", ok, 1, 2, 8), 0);
    assert_int_equal(exec_ok(f->d.h, "CREATE SPLIT nsplit ON g RANDOM 0.5 "
                                     "SEED 1;"), GNNDB_OK);
    snprintf(sql, sizeof sql, "CREATE EDGE SPLIT nsplit ON g FROM '%s';",
             path);
    refused(f->d.h, sql, GNNDB_EXISTS, "split 'nsplit' already exists");
}

/* ---- RANDOM ------------------------------------------------------------- */

/* Brute force: stored rows whose draw under seed falls in split k's
** interval [sum f[0..k), sum f[0..k]). */
static size_t expected_random(uint64_t seed, const double *fr, size_t k,
                              size_t nrows, int (*drop)(size_t),
                              uint64_t *out)
{
    uint64_t key = rng_key(seed, 0, 0, UINT64_MAX - 2, 0);
    size_t n = 0;
    for (size_t i = 0; i < nrows; i++) {
        if (drop && drop(i)) continue;
        double u = rng_unit(rng_draw(key, i)), lo = 0;
        for (size_t j = 0; j < k; j++) lo += fr[j];
        if (u >= lo && u < lo + fr[k]) out[n++] = i;
    }
    return n;
}

static void test_random_matches_brute_force(void **state)
{
    fx *f = *state;
    assert_int_equal(exec_ok(f->d.h, "CREATE EDGE SPLITS a, b, c ON g RANDOM "
                                     "0.5, 0.2, 0.2 SEED 7;"), GNNDB_OK);
    const double fr[] = {0.5, 0.2, 0.2};
    const char *names[] = {"a", "b", "c"};
    size_t total = 0;
    for (size_t k = 0; k < 3; k++) {
        uint64_t want[NROWS];
        size_t n = expected_random(7, fr, k, NROWS, dropped, want);
        expect_split(f->d.h, "g", names[k], want, n);
        total += n;
    }
    assert_true(total <= NROWS - 2);
    /* the seed is kept: DESCRIBE shows it */
    char d[8192];
    describe(f->d.h, "g", d);
    assert_non_null(strstr(d, "edge_split.a.seed=7\n"));
    /* drawn when not given, and the draw is the recorded seed's */
    assert_int_equal(exec_ok(f->d.h, "CREATE EDGE SPLITS x ON u RANDOM 0.6;"),
                     GNNDB_OK);
    cat_graph g;
    cat_split sp;
    gnn_err e = {0};
    assert_int_equal(cat_graph_get(f->d.h->cat, "u", &g, &e), GNNDB_OK);
    assert_int_equal(cat_edge_split_get(f->d.h->cat, &g, "x", &sp, &e), GNNDB_OK);
    assert_true(sp.has_seed);
    uint64_t want[NROWS];
    const double f6[] = {0.6};
    size_t n = expected_random(sp.seed, f6, 0, NROWS, NULL, want);
    expect_split(f->d.h, "u", "x", want, n);
}

/* On cora (10556 input edges) each split holds about its fraction. */
static void test_random_fractions_hold_on_cora(void **state)
{
    fx *f = *state;
    char sql[1400];
    snprintf(sql, sizeof sql, "CREATE GRAPH cora FROM '%s';"
             "CREATE EDGE SPLITS tr, va, te ON cora RANDOM 0.85, 0.05, 0.10;",
             tu_data(0, "cora/edges.tsv"));
    assert_int_equal(exec_ok(f->d.h, sql), GNNDB_OK);
    const char *names[] = {"tr", "va", "te"};
    const double fr[] = {0.85, 0.05, 0.10};
    cat_graph g;
    gnn_err e = {0};
    assert_int_equal(cat_graph_get(f->d.h->cat, "cora", &g, &e), GNNDB_OK);
    size_t sum = 0;
    for (int k = 0; k < 3; k++) {
        uint64_t *ids;
        size_t n;
        assert_int_equal(edge_split_load(f->d.h, &g, names[k], &ids, &n, &e),
                         GNNDB_OK);
        double share = (double)n / (double)g.input_edges;
        assert_true(fabs(share - fr[k]) < 0.02);
        for (size_t i = 1; i < n; i++) assert_true(ids[i - 1] < ids[i]);
        sum += n;
        free(ids);
    }
    /* the fractions sum to 1: every edge is in exactly one split */
    assert_true(sum >= (size_t)g.input_edges - 1 &&
                sum <= (size_t)g.input_edges);
}

static void test_random_refusals_change_nothing(void **state)
{
    fx *f = *state;
    assert_int_equal(exec_ok(f->d.h, "CREATE SPLIT taken ON g RANDOM 0.5 "
                                     "SEED 3;"), GNNDB_OK);
    refused(f->d.h, "CREATE EDGE SPLITS fresh, taken ON g RANDOM 0.5, 0.5;",
            GNNDB_EXISTS, "split 'taken' already exists");
    refused(f->d.h, "CREATE EDGE SPLITS p, q ON g RANDOM 0.7, 0.4;",
            GNNDB_RANGE, "sum to");
}

/* ---- kinds -------------------------------------------------------------- */

static void test_each_reader_checks_the_kind(void **state)
{
    fx *f = *state;
    assert_int_equal(exec_ok(f->d.h, "CREATE EDGE SPLITS e1 ON g RANDOM 1 "
                                     "SEED 2; CREATE SPLIT n1 ON g RANDOM "
                                     "0.5 SEED 2;"), GNNDB_OK);
    refused(f->d.h, "SAMPLE 2 FROM g SEEDS e1 BATCH 4;", GNNDB_ERROR,
            "'e1' is an edge split; use EDGES e1");
    cat_graph g;
    gnn_err e = {0};
    uint64_t *ids;
    size_t n;
    assert_int_equal(cat_graph_get(f->d.h->cat, "g", &g, &e), GNNDB_OK);
    assert_int_equal(edge_split_load(f->d.h, &g, "n1", &ids, &n, &e),
                     GNNDB_ERROR);
    assert_non_null(strstr(e.msg, "'n1' is a node split"));
    assert_null(ids);
    assert_int_equal(edge_split_load(f->d.h, &g, "none", &ids, &n, &e),
                     GNNDB_NOTFOUND);
    /* DROP SPLIT drops either kind */
    assert_int_equal(exec_ok(f->d.h, "DROP SPLIT e1 ON g; DROP SPLIT n1 ON g;"),
                     GNNDB_OK);
    assert_int_equal(edge_split_load(f->d.h, &g, "e1", &ids, &n, &e),
                     GNNDB_NOTFOUND);
}

static void test_graph_without_edge_ids_is_refused(void **state)
{
    fx *f = *state;
    char sql[1400];
    snprintf(sql, sizeof sql, "CREATE GRAPH plain FROM '%s' WITHOUT EDGE IDS;",
             f->edges);
    assert_int_equal(exec_ok(f->d.h, sql), GNNDB_OK);
    int rc = gnndb_exec(f->d.h, "CREATE EDGE SPLITS a ON plain RANDOM 0.5;",
                        NULL, NULL);
    assert_int_not_equal(rc, GNNDB_OK);
    assert_non_null(strstr(gnndb_errmsg(f->d.h), "needs edge ids"));
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_from_npy_of_each_dtype_and_shape),
        T(test_from_tsv_and_undirected_reversed_pairs),
        T(test_from_maps_ids_of_a_map_ids_graph),
        T(test_from_refusals_change_nothing),
        T(test_random_matches_brute_force),
        T(test_random_fractions_hold_on_cora),
        T(test_random_refusals_change_nothing),
        T(test_each_reader_checks_the_kind),
        T(test_graph_without_edge_ids_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
