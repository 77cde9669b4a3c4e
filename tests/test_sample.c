/* test_sample.c — SAMPLE end to end through the public API, checked against
** an independent brute-force sampler (an in-memory CSR built from the raw
** edge file, no blocks, no buffer pool, no hyperbatch) that draws from the
** same counter-based generator; plus determinism across hyperbatch sizes,
** threads and memory limits, batch invariants, uniformity and error paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gnndb.h"
#include "util.h"
#include "../exec/rng.h"

/* ---------- raw data, read without the engine ---------- */

typedef struct csr {
    int64_t n;
    int64_t *off;  /* n + 1 */
    int64_t *nbr;  /* in-neighbours (sources of edges u -> v), ascending */
} csr;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static csr load_csr(const char *path, int64_t n)
{
    csr g = {n, calloc((size_t)n + 1, 8), NULL};
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int64_t s, d, m = 0, cap = 1 << 16;
    int64_t *src = malloc((size_t)cap * 8), *dst = malloc((size_t)cap * 8);
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || sscanf(line, "%" SCNd64 " %" SCNd64, &s, &d) != 2)
            continue;
        if (m == cap) {
            cap *= 2;
            src = realloc(src, (size_t)cap * 8);
            dst = realloc(dst, (size_t)cap * 8);
        }
        src[m] = s;
        dst[m] = d;
        m++;
        g.off[d + 1]++;
    }
    fclose(f);
    for (int64_t i = 0; i < n; i++) g.off[i + 1] += g.off[i];
    g.nbr = malloc((size_t)m * 8 + 8);
    int64_t *fill = calloc((size_t)n, 8);
    for (int64_t i = 0; i < m; i++)
        g.nbr[g.off[dst[i]] + fill[dst[i]]++] = src[i];
    for (int64_t v = 0; v < n; v++)
        qsort(g.nbr + g.off[v], (size_t)(g.off[v + 1] - g.off[v]), 8, cmp_i64);
    free(fill);
    free(src);
    free(dst);
    return g;
}

static void free_csr(csr *g)
{
    free(g->off);
    free(g->nbr);
}

/* A minimal .npy reader for the test's own checks (v1 headers, C order). */
static void *load_npy(const char *path, size_t *bytes)
{
    size_t len;
    char *raw = tu_read_file(path, &len);
    assert_non_null(raw);
    size_t hl = (unsigned char)raw[8] | ((size_t)(unsigned char)raw[9] << 8);
    size_t off = 10 + hl;
    *bytes = len - off;
    void *data = malloc(*bytes + 8);
    memcpy(data, raw + off, *bytes);
    free(raw);
    return data;
}

/* ---------- the reference sampler ---------- */

typedef struct refbatch {
    int64_t nn, ne;
    int64_t *n_id;
    int64_t *ei;    /* 2 x ne */
    int64_t nsn[9], nse[8];
} refbatch;

static refbatch ref_batch(const csr *g, const int64_t *seeds, int64_t ns,
                          uint64_t seed, int64_t epoch, int64_t batch,
                          const int *fan, int hops, int replace)
{
    refbatch r = {0};
    int64_t cap = 1 << 20;
    r.n_id = malloc((size_t)cap * 8);
    int64_t *src = malloc((size_t)cap * 8), *dst = malloc((size_t)cap * 8);
    int64_t *where = malloc((size_t)g->n * 8);
    for (int64_t i = 0; i < g->n; i++) where[i] = -1;
    for (int64_t i = 0; i < ns; i++) {
        where[seeds[i]] = r.nn;
        r.n_id[r.nn++] = seeds[i];
    }
    r.nsn[0] = ns;
    int64_t lo = 0, hi = r.nn;
    int64_t pos[4096];
    for (int h = 0; h < hops; h++) {
        int64_t ne0 = r.ne;
        for (int64_t p = lo; p < hi; p++) {
            int64_t v = r.n_id[p];
            int64_t d = g->off[v + 1] - g->off[v];
            uint64_t key = rng_key(seed, (uint64_t)epoch, (uint64_t)batch,
                                   (uint64_t)h, (uint64_t)v);
            int64_t k = tu_ref_choose(key, d, fan[h], replace, pos);
            for (int64_t j = 0; j < k; j++) {
                int64_t u = g->nbr[g->off[v] + pos[j]];
                if (where[u] < 0) {
                    where[u] = r.nn;
                    r.n_id[r.nn++] = u;
                }
                src[r.ne] = where[u];
                dst[r.ne] = p;
                r.ne++;
            }
        }
        r.nse[h] = r.ne - ne0;
        r.nsn[h + 1] = r.nn - hi;
        lo = hi;
        hi = r.nn;
    }
    r.ei = malloc((size_t)(2 * r.ne + 1) * 8);
    memcpy(r.ei, src, (size_t)r.ne * 8);
    memcpy(r.ei + r.ne, dst, (size_t)r.ne * 8);
    free(src);
    free(dst);
    free(where);
    return r;
}

/* ---------- fixtures ---------- */

typedef struct fx {
    char *dir;
    char db[1024];
    gnndb *h;
    csr cora;
    float *feat;
    int64_t *labels;
    int64_t *train;
    int64_t ntrain;
} fx;

static void exec_ok(gnndb *db, const char *sql)
{
    int rc = gnndb_exec(db, sql, NULL, NULL);
    if (rc) fail_msg("%s\n-> %s", sql, gnndb_errmsg(db));
}

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    f->dir = tu_tmpdir("sample");
    snprintf(f->db, sizeof f->db, "%s/cora.gnndb", f->dir);
    assert_int_equal(gnndb_open(f->db, &f->h,
                                GNNDB_OPEN_READWRITE | GNNDB_OPEN_CREATE),
                     GNNDB_OK);
    gnndb_memory_baseline(f->h, GNNDB_BASELINE_PREPARE);
    char sql[4096];
    snprintf(sql, sizeof sql,
             "CREATE GRAPH cora FROM '%s';"
             "IMPORT FEATURES feat INTO cora FROM '%s';"
             "IMPORT LABELS INTO cora FROM '%s';"
             "CREATE SPLIT train ON cora FROM '%s';",
             tu_data(0, "cora/edges.tsv"), tu_data(1, "cora/features.npy"),
             tu_data(2, "cora/labels.npy"), tu_data(3, "cora/train_idx.npy"));
    exec_ok(f->h, sql);
    f->cora = load_csr(tu_data(0, "cora/edges.tsv"), 2708);
    size_t b;
    f->feat = load_npy(tu_data(1, "cora/features.npy"), &b);
    assert_int_equal(b, 2708u * 1433 * 4);
    f->labels = load_npy(tu_data(2, "cora/labels.npy"), &b);
    f->train = load_npy(tu_data(3, "cora/train_idx.npy"), &b);
    f->ntrain = (int64_t)(b / 8);
    qsort(f->train, (size_t)f->ntrain, 8, cmp_i64);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    gnndb_close(f->h);
    tu_rmrf(f->dir);
    free(f->dir);
    free_csr(&f->cora);
    free(f->feat);
    free(f->labels);
    free(f->train);
    free(f);
    return 0;
}

/* Digests of every batch of `sql` after running `pre` (pragmas). */
static int collect(gnndb *db, const char *pre, const char *sql,
                   uint64_t *out, int max)
{
    if (pre) exec_ok(db, pre);
    gnndb_stmt *st;
    if (gnndb_prepare(db, sql, -1, &st, NULL)) fail_msg("%s", gnndb_errmsg(db));
    int n = 0, rc;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
        assert_true(n < max);
        out[n++] = gnndb_batch_digest(st);
    }
    if (rc != GNNDB_DONE) fail_msg("%s", gnndb_errmsg(db));
    gnndb_finalize(st);
    return n;
}

/* ---------- tests ---------- */

static void matches_reference_sampler(void **state)
{
    fx *f = *state;
    static const int fans[3][3] = {{5, 0, 0}, {10, 5, 0}, {4, 3, 2}};
    /* in memory, then every hyperbatch through the spill area */
    for (int spill = 0; spill <= 1; spill++)
    for (int hops = 1; hops <= 3; hops++) {
        exec_ok(f->h, spill ? "PRAGMA spill = 'on';" : "PRAGMA spill = 'off';");
        for (int replace = 0; replace <= 1; replace++) {
            char sql[512];
            const int *fan = fans[hops - 1];
            char fl[64] = "";
            for (int h = 0; h < hops; h++)
                snprintf(fl + strlen(fl), sizeof fl - strlen(fl), "%s%d",
                         h ? "," : "", fan[h]);
            snprintf(sql, sizeof sql,
                     "SAMPLE %s FROM cora SEEDS train FEATURES feat BATCH 32 "
                     "HYPERBATCH 3 SEED 99 EPOCHS 2 %s;",
                     fl, replace ? "WITH REPLACEMENT" : "");
            gnndb_stmt *st;
            assert_int_equal(gnndb_prepare(f->h, sql, -1, &st, NULL), GNNDB_OK);
            int rc, nb = 0;
            while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
                const gnndb_batch_view *v = gnndb_batch(st);
                int64_t lo = v->batch * 32;
                int64_t ns = f->ntrain - lo < 32 ? f->ntrain - lo : 32;
                refbatch r = ref_batch(&f->cora, f->train + lo, ns, 99,
                                       v->epoch, v->batch, fan, hops, replace);
                assert_int_equal(v->num_seeds, ns);
                assert_int_equal(v->num_nodes, r.nn);
                assert_int_equal(v->num_edges, r.ne);
                assert_int_equal(v->num_hops, hops);
                assert_memory_equal(v->n_id, r.n_id, (size_t)r.nn * 8);
                if (r.ne)
                    assert_memory_equal(v->edge_index, r.ei, (size_t)r.ne * 16);
                assert_memory_equal(v->num_sampled_nodes, r.nsn,
                                    (size_t)(hops + 1) * 8);
                assert_memory_equal(v->num_sampled_edges, r.nse,
                                    (size_t)hops * 8);
                assert_int_equal(v->x_dim, 1433);
                for (int64_t i = 0; i < r.nn; i++)
                    assert_memory_equal(v->x + i * 1433,
                                        f->feat + r.n_id[i] * 1433, 1433 * 4);
                for (int64_t i = 0; i < ns; i++)
                    assert_int_equal(v->y[i], f->labels[r.n_id[i]]);
                free(r.n_id);
                free(r.ei);
                nb++;
            }
            assert_int_equal(rc, GNNDB_DONE);
            assert_int_equal(nb, 2 * ((f->ntrain + 31) / 32));
            assert_true((gnndb_stmt_status(st, GNNDB_STATUS_SPILL_WRITTEN) > 0)
                        == spill);
            gnndb_finalize(st);
        }
    }
    exec_ok(f->h, "PRAGMA spill = 'auto';");
}

static void digests_independent_of_hyperbatch_threads_memory(void **state)
{
    fx *f = *state;
    const char *q = "SAMPLE 10,10,5 FROM cora SEEDS ALL BATCH 100 HYPERBATCH "
                    "%d SHUFFLE SEED 7 EPOCHS 2 LIMIT 40;";
    uint64_t ref[64], got[64];
    char sql[256];
    snprintf(sql, sizeof sql, q, 1);
    int n = collect(f->h, "PRAGMA threads = 1;", sql, ref, 64);
    assert_int_equal(n, 40);
    const int hbs[] = {7, 64};
    for (int i = 0; i < 2; i++) {
        snprintf(sql, sizeof sql, q, hbs[i]);
        for (int th = 1; th <= 2; th++) {
            char pre[64];
            snprintf(pre, sizeof pre, "PRAGMA threads = %d;", th);
            assert_int_equal(collect(f->h, pre, sql, got, 64), 40);
            assert_memory_equal(ref, got, sizeof(uint64_t) * 40);
        }
    }
    /* a memory limit so small that the pools evict and H shrinks */
    snprintf(sql, sizeof sql, q, 64);
    assert_int_equal(collect(f->h, "PRAGMA memory_limit = '40MB';", sql, got,
                             64), 40);
    assert_memory_equal(ref, got, sizeof(uint64_t) * 40);
    assert_int_equal(collect(f->h, "PRAGMA io = 'pread';", sql, got, 64), 40);
    assert_memory_equal(ref, got, sizeof(uint64_t) * 40);
    exec_ok(f->h, "PRAGMA memory_limit = '1GB'; PRAGMA io = 'auto';");
    /* every cache policy and size, down to a cache smaller than one
    ** mini-batch's rows (100KB holds 17 rows), and under a memory limit
    ** that cuts hyperbatches (belady then also cuts what it sampled ahead) */
    static const char *const pols[] = {"lru", "static_degree", "belady",
                                       "hot_blocks", "none"};
    static const char *const sizes[] = {"4MB", "100KB", "0"};
    /* and each read granularity with each policy and H */
    static const char *const grans[] = {"block", "page", "auto"};
    for (int pi = 0; pi < 5; pi++) {
        for (int si = 0; si < 3; si++) {
            for (int hi = 0; hi < 3; hi++) {
                const int hb[] = {1, 4, 64};
                char pre[320];
                snprintf(sql, sizeof sql, q, hb[hi]);
                snprintf(pre, sizeof pre,
                         "PRAGMA cache_policy = '%s'; PRAGMA feature_cache = "
                         "'%s'; PRAGMA memory_limit = '%s'; PRAGMA threads = %d;"
                         "PRAGMA read_granularity = '%s';",
                         pols[pi], sizes[si], hi == 2 ? "40MB" : "1GB",
                         1 + hi % 2, grans[(pi + si + hi) % 3]);
                assert_int_equal(collect(f->h, pre, sql, got, 64), 40);
                assert_memory_equal(ref, got, sizeof(uint64_t) * 40);
            }
        }
    }
    exec_ok(f->h, "PRAGMA memory_limit = '1GB'; PRAGMA cache_policy = 'none';"
                  "PRAGMA feature_cache = 'auto'; PRAGMA threads = 1;"
                  "PRAGMA read_granularity = 'auto';");
}

/* Runs `sql` after `pre` and checks its digests against ref[0..n); the
** statement's counter `op` through *counter. */
static void digests_and_counter(gnndb *db, const char *pre, const char *sql,
                                const uint64_t *ref, int n, int op,
                                int64_t *counter)
{
    if (pre) exec_ok(db, pre);
    gnndb_stmt *st;
    if (gnndb_prepare(db, sql, -1, &st, NULL)) fail_msg("%s", gnndb_errmsg(db));
    int k = 0, rc;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
        assert_true(k < n);
        assert_int_equal(gnndb_batch_digest(st), ref[k]);
        k++;
    }
    if (rc != GNNDB_DONE) fail_msg("%s", gnndb_errmsg(db));
    assert_int_equal(k, n);
    *counter = gnndb_stmt_status(st, op);
    gnndb_finalize(st);
}

/* Whole blocks or only the pages that hold the rows: the same batches for
** every H, thread count, backend and memory limit; page reads happen under
** 'page' (and never under 'block'), and read fewer bytes where a
** mini-batch needs few rows of each block. */
static void digests_independent_of_read_granularity(void **state)
{
    fx *f = *state;
    const char *q = "SAMPLE 5,5 FROM cora SEEDS ALL FEATURES feat BATCH 16 "
                    "HYPERBATCH %d SHUFFLE SEED 11 LIMIT 12;";
    uint64_t ref[16];
    char sql[256], pre[256];
    snprintf(sql, sizeof sql, q, 1);
    /* (a spilled round reads whole blocks: keep it in memory) */
    assert_int_equal(collect(f->h, "PRAGMA read_granularity = 'block'; "
                             "PRAGMA memory_limit = '24MB'; PRAGMA spill = "
                             "'off';", sql, ref, 16), 12);
    static const char *const grans[] = {"block", "page", "auto"};
    static const char *const io[] = {"auto", "pread"};
    const int hbs[] = {1, 3, 12};
    int64_t bytes[3] = {0, 0, 0};
    for (int gi = 0; gi < 3; gi++)
        for (int k = 0; k < 6; k++) {
            int hi = k % 3, th = 1 + k / 3;
            snprintf(sql, sizeof sql, q, hbs[hi]);
            snprintf(pre, sizeof pre, "PRAGMA read_granularity = '%s'; "
                     "PRAGMA threads = %d; PRAGMA io = '%s';", grans[gi], th,
                     io[(k + gi) % 2]);
            int64_t pages;
            digests_and_counter(f->h, pre, sql, ref, 12,
                                GNNDB_STATUS_PAGES_READ, &pages);
            if (gi == 0) assert_int_equal(pages, 0);
            if (gi == 1) assert_true(pages > 0);
            if (hi == 0 && th == 1) {
                int64_t b;
                digests_and_counter(f->h, NULL, sql, ref, 12,
                                    GNNDB_STATUS_BYTES_READ, &b);
                bytes[gi] = b;
            }
        }
    /* HYPERBATCH 1 of 16 seeds: each feature block gives a few rows */
    assert_true(bytes[1] < bytes[0]);
    assert_true(bytes[2] <= bytes[0]);
    exec_ok(f->h, "PRAGMA memory_limit = '1GB'; PRAGMA threads = 1; "
                  "PRAGMA io = 'auto'; PRAGMA read_granularity = 'auto'; "
                  "PRAGMA spill = 'auto';");
    assert_int_equal(gnndb_exec(f->h, "PRAGMA read_granularity = 'rows';",
                                NULL, NULL), GNNDB_RANGE);
    assert_non_null(strstr(gnndb_errmsg(f->h), "'auto', 'block' or 'page'"));
}

static void batch_invariants_hold(void **state)
{
    fx *f = *state;
    gnndb_stmt *st;
    assert_int_equal(gnndb_prepare(f->h,
                                   "SAMPLE 15,10 FROM cora BATCH 256 SHUFFLE "
                                   "SEED 3 LIMIT 5;", -1, &st, NULL),
                     GNNDB_OK);
    while (gnndb_step(st) == GNNDB_BATCH) {
        const gnndb_batch_view *v = gnndb_batch(st);
        int64_t E = v->num_edges;
        /* every edge exists; per target no repeated neighbour; each
        ** sampled node has min(fanout, degree) neighbours */
        int64_t *cnt = calloc((size_t)v->num_nodes, 8);
        for (int64_t e = 0; e < E; e++) {
            int64_t s = v->n_id[v->edge_index[e]];
            int64_t d = v->n_id[v->edge_index[E + e]];
            const csr *g = &f->cora;
            int found = 0;
            for (int64_t k = g->off[d]; k < g->off[d + 1] && !found; k++)
                found = g->nbr[k] == s;
            assert_true(found);
            for (int64_t e2 = e + 1; e2 < E && v->edge_index[E + e2] ==
                                                   v->edge_index[E + e]; e2++)
                assert_true(v->edge_index[e2] != v->edge_index[e]);
            cnt[v->edge_index[E + e]]++;
        }
        int fan[2] = {15, 10};
        int64_t range[2][2] = {
            {0, v->num_seeds},
            {v->num_seeds, v->num_seeds + v->num_sampled_nodes[1]}};
        for (int h = 0; h < 2; h++) {
            for (int64_t p = range[h][0]; p < range[h][1]; p++) {
                int64_t d = f->cora.off[v->n_id[p] + 1] - f->cora.off[v->n_id[p]];
                assert_int_equal(cnt[p], d < fan[h] ? d : fan[h]);
            }
        }
        free(cnt);
        /* n_id has no repeats */
        char *seen = calloc(2708, 1);
        for (int64_t i = 0; i < v->num_nodes; i++) {
            assert_false(seen[v->n_id[i]]);
            seen[v->n_id[i]] = 1;
        }
        free(seen);
    }
    gnndb_finalize(st);
}

static void errors_are_clear_and_change_nothing(void **state)
{
    fx *f = *state;
    struct { const char *sql; int rc; const char *words; } cases[] = {
        {"SAMPLE 10 FROM nosuch BATCH 8;", GNNDB_NOTFOUND, "nosuch"},
        {"SAMPLE 10 FROM cora SEEDS nosplit BATCH 8;", GNNDB_NOTFOUND, "nosplit"},
        {"SAMPLE 10 FROM cora FEATURES nofeat BATCH 8;", GNNDB_NOTFOUND, "nofeat"},
        {"SAMPLE 0 FROM cora BATCH 8;", GNNDB_RANGE, "fanout"},
        {"SAMPLE 10 FROM cora BATCH 0;", GNNDB_RANGE, "BATCH"},
        {"SAMPLE 10 FROM cora BATCHES 8;", GNNDB_SYNTAX, "BATCHES"},
        {"SAMPLE 10 FROM cora SEEDS (1, 99999) BATCH 8;", GNNDB_NOTFOUND, "99999"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gnndb_stmt *st = NULL;
        int rc = gnndb_prepare(f->h, cases[i].sql, -1, &st, NULL);
        if (rc == GNNDB_OK) {
            rc = gnndb_step(st);
            gnndb_finalize(st);
        }
        if (rc != cases[i].rc || !strstr(gnndb_errmsg(f->h), cases[i].words))
            fail_msg("%s: rc %d, '%s'", cases[i].sql, rc, gnndb_errmsg(f->h));
    }
    /* INTO a non-empty directory is refused and writes nothing */
    char into[1200], junk[1300];
    snprintf(into, sizeof into, "%s/out", f->dir);
    mkdir(into, 0777);
    snprintf(junk, sizeof junk, "%s/keep.txt", into);
    assert_int_equal(tu_write_file(junk, "x", 1), 0);
    char sql[1400];
    snprintf(sql, sizeof sql, "SAMPLE 5 FROM cora BATCH 8 LIMIT 1 INTO '%s';",
             into);
    assert_int_equal(gnndb_exec(f->h, sql, NULL, NULL), GNNDB_EXISTS);
    assert_non_null(strstr(gnndb_errmsg(f->h), "not empty"));
    char probe[1400];
    snprintf(probe, sizeof probe, "%s/epoch-0", into);
    struct stat sb;
    assert_int_not_equal(stat(probe, &sb), 0);
}

static void into_writes_numpy_files(void **state)
{
    fx *f = *state;
    char into[1200], sql[1400], path[1400];
    snprintf(into, sizeof into, "%s/batches", f->dir);
    snprintf(sql, sizeof sql,
             "SAMPLE 5,5 FROM cora SEEDS train BATCH 64 SEED 5 INTO '%s';",
             into);
    exec_ok(f->h, sql);
    snprintf(path, sizeof path, "%s/epoch-0/batch-000002/x.npy", into);
    size_t b;
    float *x = load_npy(path, &b);
    snprintf(path, sizeof path, "%s/epoch-0/batch-000002/n_id.npy", into);
    size_t bn;
    int64_t *nid = load_npy(path, &bn);
    assert_int_equal(b, bn / 8 * 1433 * 4);
    for (size_t i = 0; i < bn / 8; i++)
        assert_memory_equal(x + i * 1433, f->feat + nid[i] * 1433, 1433 * 4);
    free(x);
    free(nid);
}

/* A hub whose adjacency list spans several 4 KiB blocks: every neighbour in
** every block must be chosen equally often (chi-square). */
static void neighbour_choice_is_uniform_across_blocks(void **state)
{
    fx *f = *state;
    const int64_t deg = 2500, hub = 0;
    char edges[1200];
    snprintf(edges, sizeof edges, "%s/star.tsv", f->dir);
    FILE *o = fopen(edges, "w");
    for (int64_t u = 1; u <= deg; u++) fprintf(o, "%" PRId64 "\t0\n", u);
    fclose(o);
    char sql[2048];
    snprintf(sql, sizeof sql, "CREATE GRAPH star FROM '%s' BLOCK SIZE 4KB;",
             edges);
    exec_ok(f->h, sql);
    const int epochs = 4000, fan = 10;
    snprintf(sql, sizeof sql,
             "SAMPLE %d FROM star SEEDS (%" PRId64 ") BATCH 1 SEED 11 "
             "EPOCHS %d;", fan, hub, epochs);
    gnndb_stmt *st;
    assert_int_equal(gnndb_prepare(f->h, sql, -1, &st, NULL), GNNDB_OK);
    int64_t *count = calloc((size_t)deg + 1, 8);
    int rc;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
        const gnndb_batch_view *v = gnndb_batch(st);
        assert_int_equal(v->num_edges, fan);
        for (int64_t e = 0; e < v->num_edges; e++)
            count[v->n_id[v->edge_index[e]]]++;
    }
    assert_int_equal(rc, GNNDB_DONE);
    gnndb_finalize(st);
    double expect = (double)epochs * fan / (double)deg, chi = 0;
    for (int64_t u = 1; u <= deg; u++)
        chi += (count[u] - expect) * (count[u] - expect) / expect;
    /* dof = 2499: mean 2499, sd ~70.7; 5 sd above the mean fails */
    if (chi > 2499 + 5 * 70.7) fail_msg("chi-square %.1f too large", chi);
    /* the last block's neighbours are reached as often as the first's */
    int64_t first = 0, last = 0;
    for (int64_t u = 1; u <= 500; u++) first += count[u];
    for (int64_t u = deg - 499; u <= deg; u++) last += count[u];
    assert_true(fabs((double)first - (double)last) < 0.1 * (double)first);
    free(count);
}

/* A generated graph whose blocks do not fit in the buffer pool: the same
** digests for every HYPERBATCH, thread count and memory limit, and a large
** hyperbatch reads far fewer blocks than HYPERBATCH 1. */
static void generated_graph_larger_than_pool(void **state)
{
    fx *f = *state;
    char edges[1200];
    snprintf(edges, sizeof edges, "%s/gen.tsv", f->dir);
    FILE *o = fopen(edges, "w");
    uint64_t s = 12345;
    const int64_t n = 20000, m = 1000000;
    for (int64_t i = 0; i < m; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int64_t a = (int64_t)((s >> 33) % (uint64_t)n);
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int64_t b = (int64_t)((s >> 33) % (uint64_t)n);
        fprintf(o, "%" PRId64 " %" PRId64 "\n", a, b);
    }
    fclose(o);
    char sql[2048];
    snprintf(sql, sizeof sql,
             "CREATE GRAPH gen FROM '%s' NODES %" PRId64 " BLOCK SIZE 64KB;",
             edges, n);
    exec_ok(f->h, sql);
    const char *q = "SAMPLE 5,5 FROM gen BATCH 16 HYPERBATCH %d SHUFFLE SEED 9 "
                    "LIMIT 200;";
    uint64_t ref[256], got[256];
    int64_t blocks[2];
    const int hb[2] = {1, 1024};
    for (int i = 0; i < 2; i++) {
        snprintf(sql, sizeof sql, q, hb[i]);
        exec_ok(f->h, "PRAGMA memory_limit = '3MB'; PRAGMA threads = 1;");
        gnndb_stmt *st;
        assert_int_equal(gnndb_prepare(f->h, sql, -1, &st, NULL), GNNDB_OK);
        int k = 0, rc;
        while ((rc = gnndb_step(st)) == GNNDB_BATCH)
            (i ? got : ref)[k++] = gnndb_batch_digest(st);
        assert_int_equal(rc, GNNDB_DONE);
        assert_int_equal(k, 200);
        /* whole or in part (HYPERBATCH 1 reads few objects a block: pages) */
        blocks[i] = gnndb_stmt_status(st, GNNDB_STATUS_BLOCKS_READ) +
                    gnndb_stmt_status(st, GNNDB_STATUS_PARTIAL_BLOCKS);
        if (i) assert_true(gnndb_stmt_status(st, GNNDB_STATUS_HYPERBATCH) > 4);
        gnndb_finalize(st);
    }
    assert_memory_equal(ref, got, 200 * sizeof(uint64_t));
    print_message("generated graph (1M edges, 64 KiB blocks, memory_limit 3MB): "
                  "HYPERBATCH 1 read %" PRId64 " blocks, HYPERBATCH 1024 read %"
                  PRId64 "\n", blocks[0], blocks[1]);
    assert_true(blocks[1] * 3 < blocks[0]);
    snprintf(sql, sizeof sql, q, 64);
    assert_int_equal(collect(f->h, "PRAGMA memory_limit = '64MB'; "
                                   "PRAGMA threads = 2;", sql, got, 256), 200);
    assert_memory_equal(ref, got, 200 * sizeof(uint64_t));
    /* graph blocks read whole, or as their entries and objects only */
    static const char *const grans[] = {"block", "page"};
    for (int gi = 0; gi < 2; gi++) {
        char pre[128];
        snprintf(pre, sizeof pre, "PRAGMA memory_limit = '4MB'; PRAGMA "
                 "read_granularity = '%s';", grans[gi]);
        snprintf(sql, sizeof sql, q, 1 + 63 * gi);
        assert_int_equal(collect(f->h, pre, sql, got, 256), 200);
        assert_memory_equal(ref, got, 200 * sizeof(uint64_t));
    }
    exec_ok(f->h, "PRAGMA memory_limit = '1GB'; PRAGMA threads = 1; "
                  "PRAGMA read_granularity = 'auto';");
}

/* ---------- the spill area ---------- */

/* Files in `dir` (0 when it does not exist). */
static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) n++;
    closedir(d);
    return n;
}

static void spilled_digests_match_in_memory(void **state)
{
    fx *f = *state;
    const char *q = "SAMPLE 10,10,5 FROM cora SEEDS ALL BATCH 100 HYPERBATCH "
                    "%d SHUFFLE SEED 7 EPOCHS 2 LIMIT 40;";
    uint64_t ref[64], got[64];
    char sql[256], pre[1600], tmp[1100];
    snprintf(tmp, sizeof tmp, "%s/spill-here", f->dir);
    snprintf(sql, sizeof sql, q, 1);
    assert_int_equal(collect(f->h, "PRAGMA spill = 'off'; PRAGMA threads = 1;",
                             sql, ref, 64), 40);
    /* every H, thread count, backend, memory limit and cache policy */
    static const char *const io[] = {"auto", "pread"};
    static const char *const mem[] = {"1GB", "40MB", "28MB"};
    static const char *const pol[] = {"none", "lru", "hot_blocks",
                                      "static_degree"};
    const int hbs[] = {1, 7, 64};
    /* twelve combinations that take each value of each setting */
    for (int k = 0; k < 12; k++) {
        int hi = k % 3, th = 1 + (k / 3) % 2, ii = (k / 6) % 2;
        int mi = (k + k / 3) % 3;
        snprintf(sql, sizeof sql, q, hbs[hi]);
        snprintf(pre, sizeof pre, "PRAGMA spill = 'on'; PRAGMA threads = %d; "
                 "PRAGMA io = '%s'; PRAGMA memory_limit = '%s'; PRAGMA "
                 "cache_policy = '%s'; PRAGMA temp_dir = '%s';", th, io[ii],
                 mem[mi], pol[k % 4], tmp);
        assert_int_equal(collect(f->h, pre, sql, got, 64), 40);
        assert_memory_equal(ref, got, sizeof(uint64_t) * 40);
        /* runs are unlinked files: nothing stays in the spill area */
        assert_int_equal(count_files(tmp), 0);
    }
    /* by default a memory limit too small for the rows of H mini-batches
    ** spills them rather than shrink H (HYPERBATCH 64 asks for 64) */
    snprintf(sql, sizeof sql, q, 64);
    exec_ok(f->h, "PRAGMA spill = 'auto'; PRAGMA memory_limit = '28MB'; "
                  "PRAGMA cache_policy = 'none'; PRAGMA io = 'auto';");
    gnndb_stmt *st;
    assert_int_equal(gnndb_prepare(f->h, sql, -1, &st, NULL), GNNDB_OK);
    int n = 0, rc;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH)
        got[n++] = gnndb_batch_digest(st);
    assert_int_equal(rc, GNNDB_DONE);
    assert_int_equal(n, 40);
    assert_memory_equal(ref, got, sizeof(uint64_t) * 40);
    assert_true(gnndb_stmt_status(st, GNNDB_STATUS_SPILL_WRITTEN) > 0);
    assert_int_equal(gnndb_stmt_status(st, GNNDB_STATUS_SPILL_READ),
                     gnndb_stmt_status(st, GNNDB_STATUS_SPILL_WRITTEN));
    assert_true(gnndb_stmt_status(st, GNNDB_STATUS_HYPERBATCH) > 4);
    gnndb_finalize(st);
    exec_ok(f->h, "PRAGMA memory_limit = '1GB'; PRAGMA threads = 1; "
                  "PRAGMA temp_dir = '';");
}

/* Hot rows (exec/hotrows.c): a spilled plan keeps the rows of the nodes
** with the most stored neighbours in memory and leaves them out of its
** runs. From a handful of cora's rows to all of them, at every memory
** limit (28MB puts runs in order in place), H and thread count, the
** batches equal the in-memory ones, and the runs hold fewer bytes than
** with none (PRAGMA feature_cache = 0); at 28MB the round planned again
** in what the hot rows would leave may not spill, and then has none. */
static void spilled_hot_rows_match_in_memory(void **state)
{
    fx *f = *state;
    const char *q = "SAMPLE 10,10,5 FROM cora SEEDS ALL BATCH 100 HYPERBATCH "
                    "%d SHUFFLE SEED 7 EPOCHS 2 LIMIT 40;";
    uint64_t ref[64], got[64];
    char sql[256], pre[1600], tmp[1100];
    snprintf(tmp, sizeof tmp, "%s/spill-hot", f->dir);
    snprintf(sql, sizeof sql, q, 1);
    assert_int_equal(collect(f->h, "PRAGMA spill = 'off'; PRAGMA threads = 1;",
                             sql, ref, 64), 40);
    /* 5, some 130, some 680 and all 2708 rows (a row: 1433 floats) */
    static const char *const hot[] = {"300KB", "1MB", "4MB", "40MB"};
    static const char *const mem[] = {"1GB", "40MB", "28MB"};
    const int hbs[] = {7, 64};
    for (int k = 0; k < 12; k++) {
        int mi = k % 3, th = 1 + (k / 3) % 2, hi = (k / 2) % 2;
        snprintf(sql, sizeof sql, q, hbs[hi]);
        uint64_t written[2];
        for (int with = 0; with <= 1; with++) {
            snprintf(pre, sizeof pre, "PRAGMA spill = 'on'; PRAGMA threads = "
                     "%d; PRAGMA memory_limit = '%s'; PRAGMA cache_policy = "
                     "'none'; PRAGMA feature_cache = '%s'; PRAGMA temp_dir = "
                     "'%s';", th, mem[mi], with ? hot[k % 4] : "0", tmp);
            exec_ok(f->h, pre);
            gnndb_stmt *st;
            if (gnndb_prepare(f->h, sql, -1, &st, NULL))
                fail_msg("%s", gnndb_errmsg(f->h));
            int n = 0, rc;
            while ((rc = gnndb_step(st)) == GNNDB_BATCH)
                got[n++] = gnndb_batch_digest(st);
            if (rc != GNNDB_DONE) fail_msg("%s: %s", pre, gnndb_errmsg(f->h));
            assert_int_equal(n, 40);
            assert_memory_equal(ref, got, sizeof(uint64_t) * 40);
            written[with] = (uint64_t)gnndb_stmt_status(
                st, GNNDB_STATUS_SPILL_WRITTEN);
            gnndb_finalize(st);
            assert_int_equal(count_files(tmp), 0);
        }
        if (mi < 2 && written[1] >= written[0])
            fail_msg("%s: %llu bytes spilled with hot rows, %llu without",
                     pre, (unsigned long long)written[1],
                     (unsigned long long)written[0]);
    }
    exec_ok(f->h, "PRAGMA spill = 'auto'; PRAGMA memory_limit = '1GB'; "
                  "PRAGMA threads = 1; PRAGMA feature_cache = 'auto'; "
                  "PRAGMA temp_dir = '';");
}

static void spill_limit_and_interrupt_leave_nothing(void **state)
{
    fx *f = *state;
    char tmp[1100], pre[1400];
    snprintf(tmp, sizeof tmp, "%s/spill-lim", f->dir);
    /* no hot rows: cora's would all be, and its runs fit in any limit */
    snprintf(pre, sizeof pre, "PRAGMA spill = 'on'; PRAGMA temp_dir = '%s'; "
             "PRAGMA spill_limit = '1MB'; PRAGMA feature_cache = 0;", tmp);
    exec_ok(f->h, pre);
    const char *sql = "SAMPLE 10,10 FROM cora BATCH 256 HYPERBATCH 8 SEED 1;";
    gnndb_stmt *st;
    assert_int_equal(gnndb_prepare(f->h, sql, -1, &st, NULL), GNNDB_OK);
    assert_int_equal(gnndb_step(st), GNNDB_FULL);
    const char *msg = gnndb_errmsg(f->h);
    assert_non_null(strstr(msg, tmp));
    assert_non_null(strstr(msg, "spill_limit"));
    gnndb_finalize(st);
    assert_int_equal(count_files(tmp), 0);
    /* PRAGMA spill_limit refuses sizes below 1MB */
    assert_int_equal(gnndb_exec(f->h, "PRAGMA spill_limit = '10KB';", NULL,
                                NULL), GNNDB_RANGE);
    assert_int_equal(gnndb_exec(f->h, "PRAGMA spill = 'sometimes';", NULL,
                                NULL), GNNDB_RANGE);
    /* an interrupt in the middle of a spilled round stops it */
    exec_ok(f->h, "PRAGMA spill_limit = 0;");
    assert_int_equal(gnndb_prepare(f->h, sql, -1, &st, NULL), GNNDB_OK);
    assert_int_equal(gnndb_step(st), GNNDB_BATCH);
    gnndb_interrupt(f->h);
    assert_int_equal(gnndb_step(st), GNNDB_INTERRUPT);
    gnndb_finalize(st);
    assert_int_equal(count_files(tmp), 0);
    exec_ok(f->h, "PRAGMA spill = 'auto'; PRAGMA temp_dir = ''; "
                  "PRAGMA feature_cache = 'auto';");
}

/* ---------- the row cache against brute-force replays ---------- */

/* Bytes PRAGMA feature_cache needs for `rows` cora rows: a row's 1433
** floats and 64 bytes of bookkeeping (docs/language.md). */
#define CORA_ROW_COST (1433 * 4 + 64)

typedef struct accesses {
    int64_t *row;      /* every batch's n_id, in the order batches come */
    int64_t n, cap;
    int64_t *start;    /* first access of each batch */
    int64_t nb;
} accesses;

static void acc_add(accesses *a, const gnndb_batch_view *v)
{
    if (a->n + v->num_nodes > a->cap) {
        a->cap = (a->n + v->num_nodes) * 2;
        a->row = realloc(a->row, (size_t)a->cap * 8);
    }
    a->start = realloc(a->start, (size_t)(a->nb + 2) * 8);
    a->start[a->nb++] = a->n;
    a->start[a->nb] = a->n + v->num_nodes;
    memcpy(a->row + a->n, v->n_id, (size_t)v->num_nodes * 8);
    a->n += v->num_nodes;
}

/* LRU over `cap` rows: hits counted by scanning a recency array. */
/* Rows per feature block of cora's table: 1 MiB blocks of 1433 float32
** rows, as EXPLAIN prints (182 rows each). */
#define CORA_ROWS_PER_BLOCK 182

/* LRU over `cap` rows: hits counted by scanning a recency array. Blocks
** saved, with hyperbatches [bnd[w], bnd[w+1]): feature blocks a hyperbatch
** touches none of whose accesses needs the block, i.e. every access is a
** hit on a row already cached when the hyperbatch began. */
static int64_t sim_lru(const accesses *a, int64_t cap, const int64_t *bnd,
                       int64_t nhb, int64_t *saved)
{
    int64_t *res = malloc((size_t)(cap + 1) * 8), *when = malloc((size_t)(cap + 1) * 8);
    int64_t *adm = malloc((size_t)(cap + 1) * 8);
    int64_t used = 0, hits = 0;
    *saved = 0;
    for (int64_t w = 0; w < nhb; w++) {
        char touched[64] = {0}, needed[64] = {0};
        for (int64_t k = bnd[w]; k < bnd[w + 1]; k++) {
            int64_t i, oldest = 0, blk = a->row[k] / CORA_ROWS_PER_BLOCK;
            touched[blk] = 1;
            for (i = 0; i < used && res[i] != a->row[k]; i++) {}
            if (i < used) {
                hits++;
                when[i] = k;
                if (adm[i] == w) needed[blk] = 1;
                continue;
            }
            needed[blk] = 1;
            if (cap == 0) continue;
            if (used < cap) i = used++;
            else {
                for (i = 1; i < used; i++) if (when[i] < when[oldest]) oldest = i;
                i = oldest;
            }
            res[i] = a->row[k];
            when[i] = k;
            adm[i] = w;
        }
        for (int b = 0; b < 64; b++) *saved += touched[b] && !needed[b];
    }
    free(res);
    free(when);
    free(adm);
    return hits;
}

/* Hyperbatch boundaries: H batches at a time within each epoch of bpe. */
static int64_t hb_bounds(const accesses *a, int64_t bpe, int64_t epochs,
                         int H, int64_t *bnd)
{
    int64_t nhb = 0;
    for (int64_t e = 0; e < epochs; e++)
        for (int64_t b = 0; b < bpe; b += H)
            bnd[nhb++] = a->start[e * bpe + b];
    bnd[nhb] = a->n;
    return nhb;
}

/* The rows with the most in-neighbours (ties: lower id) are always hits. */
static int64_t sim_static(const accesses *a, const csr *g, int64_t cap)
{
    char *pinned = calloc((size_t)g->n, 1);
    for (int64_t c = 0; c < cap && c < g->n; c++) {
        int64_t best = -1;
        for (int64_t v = 0; v < g->n; v++)
            if (!pinned[v] && (best < 0 || g->off[v + 1] - g->off[v] >
                                               g->off[best + 1] - g->off[best]))
                best = v;
        pinned[best] = 1;
    }
    int64_t hits = 0;
    for (int64_t k = 0; k < a->n; k++) hits += pinned[a->row[k]];
    free(pinned);
    return hits;
}

/* Belady over `cap` rows, the accesses gathered in hyperbatches
** [bnd[w], bnd[w+1]) (bnd[nwin] = a->n), where the future known while
** gathering hyperbatch w is the rest of it and hyperbatch w+1: the next use
** of a row is its next access there, never when none. Evict the resident
** used farthest ahead (ties: least recently used); skip admitting a row
** used later than all. */
static int64_t sim_belady(const accesses *a, int64_t cap, const int64_t *bnd,
                          int64_t nwin, int64_t nodes)
{
    const int64_t NEVER = INT64_MAX;
    int64_t *res = malloc((size_t)(cap + 1) * 8), *nu = malloc((size_t)(cap + 1) * 8);
    int64_t *last = malloc((size_t)(cap + 1) * 8), *nxt = malloc((size_t)a->n * 8 + 8);
    int64_t *seen = malloc((size_t)nodes * 8);
    int64_t used = 0, hits = 0;
    for (int64_t w = 0; w < nwin; w++) {
        int64_t lo = bnd[w], n = bnd[w + 1], hi = bnd[w + 2 < nwin ? w + 2 : nwin];
        for (int64_t v = 0; v < nodes; v++) seen[v] = NEVER;
        for (int64_t k = hi - 1; k >= lo; k--) {
            nxt[k] = seen[a->row[k]];
            seen[a->row[k]] = k;
        }
        for (int64_t i = 0; i < used; i++) nu[i] = seen[res[i]];
        for (int64_t k = lo; k < n; k++) {
            int64_t i, far = 0;
            for (i = 0; i < used && res[i] != a->row[k]; i++) {}
            if (i < used) { hits++; nu[i] = nxt[k]; last[i] = k; continue; }
            if (cap == 0) continue;
            if (used < cap) i = used++;
            else {
                for (i = 1; i < used; i++)
                    if (nu[i] > nu[far] || (nu[i] == nu[far] && last[i] < last[far]))
                        far = i;
                if (nxt[k] > nu[far]) continue;
                i = far;
            }
            res[i] = a->row[k];
            nu[i] = nxt[k];
            last[i] = k;
        }
    }
    free(res); free(nu); free(last); free(nxt); free(seen);
    return hits;
}

/* Run `sql` under a policy; its batches' n_id into *a, the counters out. */
static void run_cached(fx *f, const char *policy, int64_t rows, const char *sql,
                       accesses *a, int64_t *hits, int64_t *misses,
                       int64_t *saved)
{
    char pre[256];
    snprintf(pre, sizeof pre, "PRAGMA cache_policy = '%s'; "
             "PRAGMA feature_cache = %lld;", policy,
             (long long)(rows * CORA_ROW_COST));
    exec_ok(f->h, pre);
    gnndb_stmt *st;
    if (gnndb_prepare(f->h, sql, -1, &st, NULL)) fail_msg("%s", gnndb_errmsg(f->h));
    int rc;
    memset(a, 0, sizeof *a);
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) acc_add(a, gnndb_batch(st));
    assert_int_equal(rc, GNNDB_DONE);
    *hits = gnndb_stmt_status(st, GNNDB_STATUS_ROW_CACHE_HITS);
    *misses = gnndb_stmt_status(st, GNNDB_STATUS_ROW_CACHE_MISSES);
    *saved = gnndb_stmt_status(st, GNNDB_STATUS_ROW_CACHE_SAVED);
    gnndb_finalize(st);
}

static void cache_counters_match_simulation(void **state)
{
    fx *f = *state;
    /* 43 batches an epoch in hyperbatches of H: the last of an epoch is
    ** shorter, and a hyperbatch never spans two epochs */
    const int64_t bpe = 43, epochs = 2;
    const int hbs[] = {1, 4};
    const int64_t caps[] = {17, 300, 1200};
    char sql[256];
    exec_ok(f->h, "PRAGMA memory_limit = '1GB'; PRAGMA threads = 2;");
    for (int hi = 0; hi < 2; hi++) {
        int H = hbs[hi];
        snprintf(sql, sizeof sql, "SAMPLE 10,5 FROM cora BATCH 64 HYPERBATCH "
                 "%d SHUFFLE SEED 11 EPOCHS %d;", H, (int)epochs);
        for (int ci = 0; ci < 3; ci++) {
            int64_t cap = caps[ci], h, m, s;
            accesses a;
            run_cached(f, "lru", cap, sql, &a, &h, &m, &s);
            assert_int_equal(a.nb, bpe * epochs);
            assert_int_equal(h + m, a.n);
            int64_t *bnd = malloc((size_t)(a.nb + 2) * 8), saved;
            int64_t nhb = hb_bounds(&a, bpe, epochs, H, bnd);
            assert_int_equal(h, sim_lru(&a, cap, bnd, nhb, &saved));
            assert_int_equal(s, saved);
            int64_t lru = h, lru_saved = s;
            free(a.row); free(a.start);

            run_cached(f, "static_degree", cap, sql, &a, &h, &m, &s);
            assert_int_equal(h + m, a.n);
            assert_int_equal(h, sim_static(&a, &f->cora, cap));
            free(a.row); free(a.start);

            run_cached(f, "belady", cap, sql, &a, &h, &m, &s);
            assert_int_equal(h + m, a.n);
            /* windows: each hyperbatch and the next one */
            int64_t bel = sim_belady(&a, cap, bnd, nhb, f->cora.n);
            /* the optimum: the whole sequence known */
            int64_t whole[2] = {0, a.n};
            int64_t opt = sim_belady(&a, cap, whole, 1, f->cora.n);
            print_message("H %d, %" PRId64 " rows: hits lru %" PRId64
                          " (%" PRId64 " blocks saved), belady %" PRId64
                          ", optimum %" PRId64 " of %" PRId64 "\n", H, cap,
                          lru, lru_saved, h, opt, a.n);
            assert_int_equal(h, bel);
            assert_true(h <= opt);
            free(bnd); free(a.row); free(a.start);
        }
    }
    /* tiny mini-batches touch few blocks: many are saved outright */
    {
        int64_t hh, mm, ss, sv;
        accesses t;
        run_cached(f, "lru", 1200, "SAMPLE 3,2 FROM cora BATCH 4 HYPERBATCH 1 "
                   "SHUFFLE SEED 5 EPOCHS 2;", &t, &hh, &mm, &ss);
        assert_int_equal(t.nb, 2 * 677);
        int64_t *bb = malloc((size_t)(t.nb + 2) * 8);
        int64_t nb = hb_bounds(&t, 677, 2, 1, bb);
        assert_int_equal(hh, sim_lru(&t, 1200, bb, nb, &sv));
        assert_int_equal(ss, sv);
        print_message("BATCH 4, 1200 rows: lru hits %" PRId64 " of %" PRId64
                      ", %" PRId64 " blocks saved\n", hh, t.n, ss);
        assert_true(ss > 0);
        free(bb); free(t.row); free(t.start);
    }
    /* a static cache of every row: nothing missed, no feature block read
    ** after filling it */
    int64_t h, m, s;
    accesses a;
    run_cached(f, "static_degree", 2708, sql, &a, &h, &m, &s);
    assert_int_equal(m, 0);
    assert_int_equal(h, a.n);
    int64_t *bnd = malloc((size_t)(a.nb + 2) * 8), every = 0;
    int64_t nhb = hb_bounds(&a, bpe, epochs, hbs[1], bnd);
    for (int64_t w = 0; w < nhb; w++) {
        char touched[64] = {0};
        for (int64_t k = bnd[w]; k < bnd[w + 1]; k++)
            touched[a.row[k] / CORA_ROWS_PER_BLOCK] = 1;
        for (int b = 0; b < 64; b++) every += touched[b];
    }
    assert_int_equal(s, every);
    free(bnd);
    free(a.row); free(a.start);
    exec_ok(f->h, "PRAGMA cache_policy = 'none'; PRAGMA feature_cache = 'auto';"
                  "PRAGMA threads = 1;");
}

static void cache_pragmas_reject_bad_values(void **state)
{
    fx *f = *state;
    struct { const char *sql; int rc; const char *words; } cases[] = {
        {"PRAGMA cache_policy = 'fifo';", GNNDB_RANGE, "fifo"},
        {"PRAGMA cache_policy = 3;", GNNDB_RANGE, "belady"},
        {"PRAGMA feature_cache = 'lots';", GNNDB_RANGE, "lots"},
        {"PRAGMA feature_cache = '-5MB';", GNNDB_RANGE, "feature_cache"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = gnndb_exec(f->h, cases[i].sql, NULL, NULL);
        if (rc != cases[i].rc || !strstr(gnndb_errmsg(f->h), cases[i].words))
            fail_msg("%s: rc %d, '%s'", cases[i].sql, rc, gnndb_errmsg(f->h));
    }
    /* the settings are unchanged */
    gnndb_stmt *st;
    assert_int_equal(gnndb_prepare(f->h, "PRAGMA cache_policy;", -1, &st, NULL), 0);
    assert_int_equal(gnndb_step(st), GNNDB_ROW);
    assert_string_equal(gnndb_column_text(st, 1), "none");
    gnndb_finalize(st);
    /* EXPLAIN shows the cache's share; EXPLAIN ANALYZE its figures */
    exec_ok(f->h, "PRAGMA cache_policy = 'lru'; PRAGMA feature_cache = '1MB';");
    assert_int_equal(gnndb_prepare(f->h, "EXPLAIN ANALYZE SAMPLE 5 FROM cora "
                                   "BATCH 8 HYPERBATCH 1 SEED 1 LIMIT 4;", -1,
                                   &st, NULL), 0);
    int planned = 0, analyzed = 0;
    while (gnndb_step(st) == GNNDB_ROW) {
        const char *t = gnndb_column_text(st, 0);
        planned |= strstr(t, ": 180 rows, policy lru") != NULL;
        analyzed |= strstr(t, "feature cache: hits ") != NULL &&
                    strstr(t, "% hit), ") != NULL;
    }
    gnndb_finalize(st);
    assert_true(planned);
    assert_true(analyzed);
    /* a cache that leaves too little of memory_limit for one mini-batch */
    exec_ok(f->h, "PRAGMA memory_limit = '20MB'; PRAGMA cache_policy = 'lru';"
                  "PRAGMA feature_cache = '19MB';");
    int rc = gnndb_exec(f->h, "SAMPLE 5 FROM cora BATCH 8 LIMIT 1;", NULL, NULL);
    assert_int_equal(rc, GNNDB_NOMEM);
    assert_non_null(strstr(gnndb_errmsg(f->h), "feature_cache"));
    exec_ok(f->h, "PRAGMA memory_limit = '1GB'; PRAGMA cache_policy = 'none';"
                  "PRAGMA feature_cache = 'auto';");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matches_reference_sampler),
        cmocka_unit_test(digests_independent_of_hyperbatch_threads_memory),
        cmocka_unit_test(digests_independent_of_read_granularity),
        cmocka_unit_test(batch_invariants_hold),
        cmocka_unit_test(errors_are_clear_and_change_nothing),
        cmocka_unit_test(into_writes_numpy_files),
        cmocka_unit_test(neighbour_choice_is_uniform_across_blocks),
        cmocka_unit_test(generated_graph_larger_than_pool),
        cmocka_unit_test(spilled_digests_match_in_memory),
        cmocka_unit_test(spilled_hot_rows_match_in_memory),
        cmocka_unit_test(spill_limit_and_interrupt_leave_nothing),
        cmocka_unit_test(cache_counters_match_simulation),
        cmocka_unit_test(cache_pragmas_reject_bad_values),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
