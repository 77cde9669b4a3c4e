/* test_fcache.c — the row-level feature cache (exec/fcache.c) under each
** policy, checked against a brute-force replay written here: a plain array
** of resident rows searched linearly, next uses found by scanning the
** window, no hash table, list or heap. For random skewed access sequences
** over many gathers it checks, gather by gather, the hits and misses, which
** accesses may be copied from a slot, the rows resident afterwards (so the
** evictions) and that no slot beyond the capacity is used; the test plays
** the executor (copy hits from slots, the rest from their "blocks", then
** the fills into their slots) and every row it assembles must equal the
** true row byte for byte. Then, through the public API on cora, every
** policy (none included) returns the rows of features.npy unchanged and
** counts each row it gathers once, as a hit or a miss. */
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
#include "../exec/fcache.h"

#define ROWBYTES 52               /* 13 floats: not a power of two */
#define NEVER UINT64_MAX

/* The true bytes of row r, as its block would give them. */
static void true_row(uint32_t r, unsigned char *out)
{
    for (int j = 0; j < ROWBYTES; j++)
        out[j] = (unsigned char)(r * 131u + (unsigned)j * 7u + (r >> 8));
}

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Skewed rows of [0, u): the lower of two uniform draws, so low rows are
** hot, as high-degree nodes are. */
static uint32_t skewed_row(uint64_t *s, uint32_t u)
{
    uint32_t a = (uint32_t)(next_rand(s) % u), b = (uint32_t)(next_rand(s) % u);
    return a < b ? a : b;
}

/* ---------- the reference ---------- */

typedef struct ref {
    int policy;
    size_t cap, used;
    uint32_t *row;      /* resident rows, in no particular order */
    uint64_t *last;     /* clock of the last access */
    uint64_t *next;     /* belady: next use in the current window */
    uint64_t *pass;     /* the gather that admitted it (0: pinned) */
    uint64_t clock, gather, hits, misses, evictions;
} ref;

static void ref_init(ref *r, int policy, size_t cap)
{
    memset(r, 0, sizeof *r);
    r->policy = policy;
    r->cap = cap;
    r->row = calloc(cap + 1, sizeof *r->row);
    r->last = calloc(cap + 1, sizeof *r->last);
    r->next = calloc(cap + 1, sizeof *r->next);
    r->pass = calloc(cap + 1, sizeof *r->pass);
}

static void ref_free(ref *r)
{
    free(r->row); free(r->last); free(r->next); free(r->pass);
}

static long ref_find(const ref *r, uint32_t row)
{
    for (size_t i = 0; i < r->used; i++)
        if (r->row[i] == row) return (long)i;
    return -1;
}

/* The position after `from` in window w[0..n) where `row` is next used. */
static uint64_t next_use(const uint32_t *w, size_t n, size_t from, uint32_t row)
{
    for (size_t j = from; j < n; j++)
        if (w[j] == row) return j;
    return NEVER;
}

/* One gather: rows[0..n) then the known future; hit_resident[k] says
** whether access k finds a row that was resident before this gather. */
static void ref_gather(ref *r, const uint32_t *rows, size_t n,
                       const uint32_t *future, size_t nf, char *hit_resident)
{
    size_t nw = n + nf;
    uint32_t *w = malloc((nw + 1) * sizeof *w);
    memcpy(w, rows, n * sizeof *w);
    if (nf) memcpy(w + n, future, nf * sizeof *w);
    r->gather++;
    for (size_t i = 0; i < r->used; i++) r->next[i] = next_use(w, nw, 0, r->row[i]);
    for (size_t k = 0; k < n; k++, r->clock++) {
        uint64_t nu = next_use(w, nw, k + 1, rows[k]);
        long i = ref_find(r, rows[k]);
        hit_resident[k] = 0;
        if (i >= 0) {
            r->hits++;
            hit_resident[k] = r->pass[i] != r->gather;
            r->last[i] = r->clock;
            r->next[i] = nu;
            continue;
        }
        r->misses++;
        if (r->cap == 0 || r->policy == GNN_CACHE_STATIC_DEGREE) continue;
        size_t v;
        if (r->used < r->cap) {
            v = r->used++;
        } else {
            v = 0;
            for (size_t j = 1; j < r->used; j++) {
                int better = r->policy == GNN_CACHE_LRU
                    ? r->last[j] < r->last[v]
                    : r->next[j] > r->next[v] ||
                      (r->next[j] == r->next[v] && r->last[j] < r->last[v]);
                if (better) v = j;
            }
            if (r->policy == GNN_CACHE_BELADY && nu > r->next[v]) continue;
            r->evictions++;
        }
        r->row[v] = rows[k];
        r->last[v] = r->clock;
        r->next[v] = nu;
        r->pass[v] = r->gather;
    }
    free(w);
}

/* ---------- the module, driven as the executor drives it ---------- */

typedef struct run {
    fcache *c;
    uint32_t *slotrow;  /* what the test put in each slot; UINT32_MAX none */
    size_t cap;
} run;

/* Plan one gather, assemble its rows, fill the admitted ones, and compare
** everything with the reference. */
static void gather_and_check(run *m, ref *r, const uint32_t *rows, size_t n,
                             const uint32_t *future, size_t nf)
{
    int64_t *src = malloc((n + 1) * sizeof *src);
    char *hr = malloc(n + 1);
    unsigned char *out = malloc((n + 1) * ROWBYTES), want[ROWBYTES];
    gnn_err e = {0};
    uint64_t h0 = fc_hits(m->c), m0 = fc_misses(m->c);
    uint64_t rh0 = r->hits, rm0 = r->misses;
    assert_int_equal(fc_plan(m->c, rows, n, future, nf, src, &e), GNNDB_OK);
    ref_gather(r, rows, n, future, nf, hr);
    assert_int_equal(fc_hits(m->c) - h0, r->hits - rh0);
    assert_int_equal(fc_misses(m->c) - m0, r->misses - rm0);
    /* resident rows first, from their slots; then the rest from blocks */
    for (size_t k = 0; k < n; k++) {
        if ((src[k] >= 0) != hr[k])
            fail_msg("access %zu (row %u): src %" PRId64 ", reference %s", k,
                     rows[k], src[k], hr[k] ? "resident" : "not resident");
        if (src[k] >= 0) {
            assert_true((size_t)src[k] < m->cap);
            assert_int_equal(m->slotrow[src[k]], rows[k]);
            memcpy(out + k * ROWBYTES, fc_slot(m->c, (uint32_t)src[k]), ROWBYTES);
        }
    }
    for (size_t k = 0; k < n; k++)
        if (src[k] < 0) true_row(rows[k], out + k * ROWBYTES);
    const uint32_t *frows, *fslots;
    size_t nfill = fc_fills(m->c, &frows, &fslots);
    assert_true(nfill <= m->cap);
    for (size_t i = 0; i < nfill; i++) {
        assert_true(fslots[i] < m->cap);
        true_row(frows[i], fc_slot(m->c, fslots[i]));
        m->slotrow[fslots[i]] = frows[i];
    }
    for (size_t k = 0; k < n; k++) {
        true_row(rows[k], want);
        assert_memory_equal(out + k * ROWBYTES, want, ROWBYTES);
    }
    /* the same rows resident, each in one slot, within the capacity */
    size_t resident = 0;
    for (size_t s = 0; s < m->cap; s++) {
        if (m->slotrow[s] == UINT32_MAX) continue;
        resident++;
        if (ref_find(r, m->slotrow[s]) < 0)
            fail_msg("slot %zu holds row %u, which the reference evicted", s,
                     m->slotrow[s]);
        true_row(m->slotrow[s], want);
        assert_memory_equal(fc_slot(m->c, (uint32_t)s), want, ROWBYTES);
    }
    assert_int_equal(resident, r->used);
    free(src); free(hr); free(out);
}

static void run_open(run *m, int policy, size_t cap)
{
    gnn_err e = {0};
    assert_int_equal(fc_open(policy, cap, ROWBYTES, &m->c, &e), GNNDB_OK);
    assert_int_equal(fc_capacity(m->c), cap);
    m->cap = cap;
    m->slotrow = malloc((cap + 1) * sizeof *m->slotrow);
    for (size_t s = 0; s <= cap; s++) m->slotrow[s] = UINT32_MAX;
}

static void run_close(run *m)
{
    fc_close(m->c);
    free(m->slotrow);
}

/* Gathers of `n` skewed accesses over `u` rows; belady is told the next
** gather as its future, as the executor samples one hyperbatch ahead. */
static void replay(int policy, size_t cap, uint32_t u, size_t n, int gathers,
                   uint64_t seed, uint64_t *hits, uint64_t *evictions)
{
    run m;
    ref r;
    run_open(&m, policy, cap);
    ref_init(&r, policy, cap);
    uint32_t *seq = malloc(((size_t)gathers + 1) * n * sizeof *seq);
    for (size_t i = 0; i < ((size_t)gathers + 1) * n; i++)
        seq[i] = skewed_row(&seed, u);
    if (policy == GNN_CACHE_STATIC_DEGREE) {
        /* pin rows 0, 2, 4, ...: the hot ones and some cold ones */
        size_t np = cap < u / 2 ? cap : u / 2;
        uint32_t *pin = malloc((np + 1) * sizeof *pin);
        for (size_t i = 0; i < np; i++) pin[i] = (uint32_t)(2 * i);
        gnn_err e = {0};
        assert_int_equal(fc_pin(m.c, pin, np, &e), GNNDB_OK);
        for (size_t i = 0; i < np; i++) {
            true_row(pin[i], fc_slot(m.c, (uint32_t)i));
            m.slotrow[i] = pin[i];
            r.row[i] = pin[i];
        }
        r.used = np;
        free(pin);
    }
    for (int g = 0; g < gathers; g++) {
        size_t nf = policy == GNN_CACHE_BELADY && g + 1 < gathers ? n : 0;
        gather_and_check(&m, &r, seq + (size_t)g * n, n, seq + (size_t)(g + 1) * n, nf);
    }
    assert_int_equal(fc_hits(m.c), r.hits);
    assert_int_equal(fc_misses(m.c), (uint64_t)gathers * n - r.hits);
    *hits = r.hits;
    *evictions = r.evictions;
    free(seq);
    ref_free(&r);
    run_close(&m);
}

/* ---------- tests ---------- */

static void each_policy_matches_brute_force_replay(void **state)
{
    (void)state;
    static const int pols[] = {GNN_CACHE_LRU, GNN_CACHE_BELADY, GNN_CACHE_STATIC_DEGREE};
    static const size_t caps[] = {1, 7, 64, 300};
    for (int p = 0; p < 3; p++)
        for (int c = 0; c < 4; c++)
            for (uint64_t seed = 1; seed <= 3; seed++) {
                uint64_t hits, ev;
                uint32_t u = seed == 3 ? 40 : 500;   /* 40: all fit at 64 */
                replay(pols[p], caps[c], u, 200, 12, seed * 7919, &hits, &ev);
                /* a cache of one row still hits repeats; one that holds
                ** every row hits all but the first accesses */
                if (caps[c] >= 64 && pols[p] != GNN_CACHE_STATIC_DEGREE)
                    assert_true(hits > 0);
                if (caps[c] >= u && pols[p] != GNN_CACHE_STATIC_DEGREE)
                    assert_int_equal(ev, 0);
            }
}

/* Belady with the whole future known (one gather) never hits less than LRU
** on the same sequence: a check of the reference as much as of the cache. */
static void belady_hits_at_least_lru_with_whole_future(void **state)
{
    (void)state;
    for (uint64_t seed = 11; seed < 14; seed++) {
        uint64_t hl, hb, ev;
        replay(GNN_CACHE_LRU, 32, 300, 2000, 1, seed, &hl, &ev);
        replay(GNN_CACHE_BELADY, 32, 300, 2000, 1, seed, &hb, &ev);
        print_message("seed %" PRIu64 ": lru %" PRIu64 ", belady %" PRIu64
                      " hits of 2000\n", seed, hl, hb);
        assert_true(hb >= hl);
    }
}

static void empty_cache_and_pinning_limits(void **state)
{
    (void)state;
    /* no rows (policy none, or a feature_cache too small for one row):
    ** every access misses, nothing is copied or filled */
    static const int pols[] = {GNN_CACHE_LRU, GNN_CACHE_BELADY, GNN_CACHE_STATIC_DEGREE};
    uint32_t rows[6] = {3, 3, 9, 3, 9, 1};
    int64_t src[6];
    for (int p = 0; p < 3; p++) {
        fcache *c;
        gnn_err e = {0};
        assert_int_equal(fc_open(pols[p], 0, ROWBYTES, &c, &e), GNNDB_OK);
        assert_int_equal(fc_plan(c, rows, 6, rows, 6, src, &e), GNNDB_OK);
        for (int k = 0; k < 6; k++) assert_int_equal(src[k], -1);
        const uint32_t *fr, *fs;
        assert_int_equal(fc_fills(c, &fr, &fs), 0);
        assert_int_equal(fc_hits(c), 0);
        assert_int_equal(fc_misses(c), 6);
        fc_close(c);
    }
    /* more pinned rows than slots is refused */
    fcache *c;
    gnn_err e = {0};
    assert_int_equal(fc_open(GNN_CACHE_STATIC_DEGREE, 2, ROWBYTES, &c, &e), GNNDB_OK);
    assert_int_equal(fc_pin(c, rows, 3, &e), GNNDB_RANGE);
    fc_close(c);
    /* a policy that keeps no rows is refused rows (fc_plan cannot run it) */
    assert_int_equal(fc_open(GNN_CACHE_NONE, 1, ROWBYTES, &c, &e), GNNDB_MISUSE);
    assert_null(c);
    assert_int_equal(fc_open(GNN_CACHE_HOT_BLOCKS, 4, ROWBYTES, &c, &e), GNNDB_MISUSE);
    /* the names PRAGMA cache_policy takes */
    static const char *const names[] = {"none", "lru", "static_degree",
                                        "belady"};
    static const int ids[] = {GNN_CACHE_NONE, GNN_CACHE_LRU, GNN_CACHE_STATIC_DEGREE, GNN_CACHE_BELADY};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(fc_policy_parse(names[i]), ids[i]);
        assert_string_equal(fc_policy_name(ids[i]), names[i]);
    }
    assert_int_equal(fc_policy_parse("fifo"), -1);
}

/* Through the engine on cora: whatever the policy, x holds the rows of
** features.npy, and every row gathered counts once as a hit or a miss. */
static void sample_rows_identical_under_every_policy(void **state)
{
    (void)state;
    tu_db d;
    assert_int_equal(tu_db_open(&d, "fcache"), GNNDB_OK);
    assert_int_equal(tu_import_cora(d.h), GNNDB_OK);
    size_t fb;
    float *feat = tu_load_npy(tu_data(0, "cora/features.npy"), &fb);
    assert_non_null(feat);
    assert_int_equal(fb, 2708u * 1433 * 4);
    static const char *const pols[] = {"none", "lru", "static_degree", "belady"};
    static const char *const sizes[] = {"100KB", "2MB"};
    for (int p = 0; p < 4; p++)
        for (int s = 0; s < 2; s++) {
            char sql[256];
            snprintf(sql, sizeof sql, "PRAGMA spill = 'off'; PRAGMA "
                     "cache_policy = '%s'; PRAGMA feature_cache = '%s';",
                     pols[p], sizes[s]);
            assert_int_equal(gnndb_exec(d.h, sql, NULL, NULL), GNNDB_OK);
            gnndb_stmt *st;
            assert_int_equal(gnndb_prepare(d.h, "SAMPLE 5,5 FROM cora BATCH 64 "
                                           "HYPERBATCH 2 SHUFFLE SEED 3 "
                                           "LIMIT 12;", -1, &st, NULL),
                             GNNDB_OK);
            int rc;
            int64_t rows = 0;
            while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
                const gnndb_batch_view *v = gnndb_batch(st);
                assert_int_equal(v->x_dim, 1433);
                for (int64_t i = 0; i < v->num_nodes; i++)
                    assert_memory_equal(v->x + i * 1433,
                                        feat + v->n_id[i] * 1433, 1433 * 4);
                rows += v->num_nodes;
            }
            assert_int_equal(rc, GNNDB_DONE);
            int64_t h = gnndb_stmt_status(st, GNNDB_STATUS_ROW_CACHE_HITS);
            int64_t m = gnndb_stmt_status(st, GNNDB_STATUS_ROW_CACHE_MISSES);
            print_message("%s %s: %" PRId64 " hits, %" PRId64 " misses of %"
                          PRId64 " rows\n", pols[p], sizes[s], h, m, rows);
            if (p == 0) {       /* no cache: nothing counted */
                assert_int_equal(h, 0);
                assert_int_equal(m, 0);
            } else {
                assert_int_equal(h + m, rows);
                if (s == 1) assert_true(h > 0);   /* 361 rows */
            }
            gnndb_finalize(st);
        }
    free(feat);
    tu_db_close(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_policy_matches_brute_force_replay),
        cmocka_unit_test(belady_hits_at_least_lru_with_whole_future),
        cmocka_unit_test(empty_cache_and_pinning_limits),
        cmocka_unit_test(sample_rows_identical_under_every_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
