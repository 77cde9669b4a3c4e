/* test_link_sample.c — SAMPLE ... EDGES end to end through the public API,
** checked digest for digest against an independent brute-force link
** sampler: in-lists with edge ids built from cora's raw edge file (no
** blocks, no buffer pool, no hyperbatch), the RANDOM edge splits drawn
** again, the epoch order, negatives and STRICT redraws, the endpoints, the
** hops with EXCLUDE, the output arrays and the digest recomputed from
** docs/format.md's rule. Plus direct checks: EXCLUDE SEEDS never returns a
** seed edge, STRICT never returns a negative that is an edge, and STRICT on
** a complete graph fails cleanly and changes nothing. */
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
#include "../exec/rng.h"

/* ---------- the raw graph, read without the engine ---------- */

typedef struct rgraph {
    int64_t n, m;          /* nodes; input rows (= edge ids) */
    int64_t *rs, *rd;      /* row i: its source and target */
    int64_t *off;          /* in-list of v: [off[v], off[v + 1]) */
    int64_t *src, *eid;    /* ascending by source, ties by edge id */
} rgraph;

typedef struct trip {
    int64_t d, s, id;
} trip;

static int cmp_trip(const void *a, const void *b)
{
    const trip *x = a, *y = b;
    if (x->d != y->d) return (x->d > y->d) - (x->d < y->d);
    if (x->s != y->s) return (x->s > y->s) - (x->s < y->s);
    return (x->id > y->id) - (x->id < y->id);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void read_rows(rgraph *g, const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int64_t s, d, cap = 1 << 12;
    g->rs = malloc((size_t)cap * 8);
    g->rd = malloc((size_t)cap * 8);
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || sscanf(line, "%" SCNd64 " %" SCNd64, &s, &d) != 2)
            continue;
        if (g->m == cap) {
            cap *= 2;
            g->rs = realloc(g->rs, (size_t)cap * 8);
            g->rd = realloc(g->rd, (size_t)cap * 8);
        }
        g->rs[g->m] = s;
        g->rd[g->m++] = d;
        if (s + 1 > g->n) g->n = s + 1;
        if (d + 1 > g->n) g->n = d + 1;
    }
    fclose(f);
}

/* Every row i (s, d) is s -> d with id i; undirected adds d -> s, id i. */
static rgraph load_graph(const char *path, int undirected)
{
    rgraph g = {0};
    read_rows(&g, path);
    int64_t k = 0;
    trip *t = malloc((size_t)(2 * g.m + 1) * sizeof *t);
    for (int64_t i = 0; i < g.m; i++) {
        t[k++] = (trip){g.rd[i], g.rs[i], i};
        if (undirected) t[k++] = (trip){g.rs[i], g.rd[i], i};
    }
    qsort(t, (size_t)k, sizeof *t, cmp_trip);
    g.off = calloc((size_t)g.n + 1, 8);
    g.src = malloc((size_t)k * 8 + 8);
    g.eid = malloc((size_t)k * 8 + 8);
    for (int64_t i = 0; i < k; i++) {
        g.off[t[i].d + 1]++;
        g.src[i] = t[i].s;
        g.eid[i] = t[i].id;
    }
    for (int64_t v = 0; v < g.n; v++) g.off[v + 1] += g.off[v];
    free(t);
    return g;
}

static void free_graph(rgraph *g)
{
    free(g->rs); free(g->rd); free(g->off); free(g->src); free(g->eid);
}

/* Whether u -> v is an edge: u in v's in-list. */
static int is_edge(const rgraph *g, int64_t u, int64_t v)
{
    int64_t lo = g->off[v], hi = g->off[v + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (g->src[mid] < u) lo = mid + 1;
        else hi = mid;
    }
    return lo < g->off[v + 1] && g->src[lo] == u;
}

/* CREATE EDGE SPLITS ... RANDOM f... SEED s, drawn again: the split index
** of every edge id, -1 for none. */
static int8_t *draw_splits(int64_t m, uint64_t seed, const double *frac,
                           int k)
{
    int8_t *of = malloc((size_t)m + 1);
    uint64_t key = rng_key(seed, 0, 0, UINT64_MAX - 2, 0);
    for (int64_t id = 0; id < m; id++) {
        double u = rng_unit(rng_draw(key, (uint64_t)id)), cum = 0;
        of[id] = -1;
        for (int i = 0; i < k; i++) {
            cum += frac[i];
            if (u < cum) { of[id] = (int8_t)i; break; }
        }
    }
    return of;
}

/* ---------- the reference link sampler ---------- */

enum { M_SOURCE, M_PAIRS, M_TRIPLET };
static const char *const SPLITS[] = {"train", "valid", "test"};

/* A SAMPLE ... EDGES statement, as the reference replays it. */
typedef struct lq {
    const char *graph;
    int hops, fan[3], replace;
    int split;                 /* the seed edges: index into SPLITS */
    int64_t B, k;              /* k 0: no NEGATIVE clause */
    int mode, strict, exclude_seeds, excl_mask, shuffle;
    uint64_t seed;
    int epochs, limit;
    int hyperbatch;            /* 0: no HYPERBATCH clause */
} lq;

static void lq_sql(const lq *q, char *s, size_t cap)
{
    size_t o = (size_t)snprintf(s, cap, "SAMPLE ");
    for (int h = 0; h < q->hops; h++)
        o += (size_t)snprintf(s + o, cap - o, "%s%d", h ? "," : "", q->fan[h]);
    o += (size_t)snprintf(s + o, cap - o, " FROM %s EDGES %s BATCH %" PRId64,
                          q->graph, SPLITS[q->split], q->B);
    if (q->k)
        o += (size_t)snprintf(s + o, cap - o, " NEGATIVE %" PRId64 "%s%s",
                              q->k, q->mode == M_PAIRS ? " PAIRS" :
                              q->mode == M_TRIPLET ? " TRIPLET" : "",
                              q->strict ? " STRICT" : "");
    if (q->exclude_seeds)
        o += (size_t)snprintf(s + o, cap - o, " EXCLUDE SEEDS");
    for (int i = 0, first = 1; i < 3; i++)
        if (q->excl_mask >> i & 1) {
            o += (size_t)snprintf(s + o, cap - o, "%s%s",
                                  first ? " EXCLUDE SPLIT " : ", ", SPLITS[i]);
            first = 0;
        }
    if (q->hyperbatch)
        o += (size_t)snprintf(s + o, cap - o, " HYPERBATCH %d", q->hyperbatch);
    snprintf(s + o, cap - o, "%s%s SEED %" PRIu64 " EPOCHS %d LIMIT %d;",
             q->shuffle ? " SHUFFLE" : "",
             q->replace ? " WITH REPLACEMENT" : "", q->seed, q->epochs,
             q->limit);
}

/* One statement's reference state: its seed edges and epoch order. */
typedef struct ref {
    const rgraph *g;
    const lq *q;
    const int8_t *split_of;
    int64_t *ids, nids;        /* the split's edge ids ascending */
    int64_t *order, order_epoch;
    const float *feat;         /* graph f's feature rows, or NULL */
    int64_t fdim;
    char *mark;                /* scratch: the batch's seed edges */
    int64_t *where;            /* scratch: node -> local index, or -1 */
} ref;

static void ref_init(ref *r, const rgraph *g, const lq *q,
                     const int8_t *split_of)
{
    memset(r, 0, sizeof *r);
    r->g = g;
    r->q = q;
    r->split_of = split_of;
    r->ids = malloc((size_t)g->m * 8 + 8);
    for (int64_t id = 0; id < g->m; id++)
        if (split_of[id] == q->split) r->ids[r->nids++] = id;
    r->order = malloc((size_t)r->nids * 8 + 8);
    r->order_epoch = -1;
    r->mark = calloc((size_t)g->m + 1, 1);
    r->where = malloc((size_t)g->n * 8);
    for (int64_t v = 0; v < g->n; v++) r->where[v] = -1;
}

static void ref_free(ref *r)
{
    free(r->ids); free(r->order); free(r->mark); free(r->where);
}

/* The epoch's order: ascending, or Fisher-Yates under the seed set's key
** (salt 0x5eed), draw i choosing among the first i + 1. */
static const int64_t *ref_order(ref *r, int64_t epoch)
{
    if (r->order_epoch == epoch) return r->order;
    memcpy(r->order, r->ids, (size_t)r->nids * 8);
    uint64_t key = rng_key(r->q->seed, (uint64_t)epoch, UINT64_MAX,
                           UINT64_MAX, 0x5eed);
    for (int64_t i = r->nids - 1; r->q->shuffle && i > 0; i--) {
        int64_t j = (int64_t)rng_below(rng_draw(key, (uint64_t)i),
                                       (uint64_t)i + 1);
        int64_t t = r->order[i];
        r->order[i] = r->order[j];
        r->order[j] = t;
    }
    r->order_epoch = epoch;
    return r->order;
}

static int64_t ref_batches_per_epoch(const ref *r)
{
    return (r->nids + r->q->B - 1) / r->q->B;
}

#define RB_CAP (1 << 20)

/* A memory_limit that cuts the hyperbatch of these statements to a few
** mini-batches, and the buffer pools to a few 4KB blocks. */
#define LK_SMALL_LIMIT "4MB"

/* One reference mini-batch. */
typedef struct rb {
    int64_t epoch, batch, npos, nneg, nn, ne, L;
    int64_t pid[1024], psrc[1024], pdst[1024];
    int64_t *nsrc, *ndst;
    int64_t *n_id, *ei, *e_id;     /* ei: 2 x ne, filled at the end */
    int64_t *esrc, *edst;
    int64_t *lab;                  /* 2L, or 2B + kB (TRIPLET) */
    float *label;
    int64_t nsn[4], nse[3];
    int failed;                    /* STRICT ran out of draws */
    unsigned max_try;              /* the latest draw a negative needs */
    float *x;                      /* n_id's feature rows (graph f) */
    int64_t xbytes;
    uint64_t digest;
} rb;

static void rb_alloc(rb *b)
{
    memset(b, 0, sizeof *b);
    b->nsrc = malloc(1024 * 1000 * 8);
    b->ndst = malloc(1024 * 1000 * 8);
    b->n_id = malloc(RB_CAP * 8);
    b->esrc = malloc(RB_CAP * 8);
    b->edst = malloc(RB_CAP * 8);
    b->e_id = malloc(RB_CAP * 8);
    b->ei = malloc(2 * RB_CAP * 8);
    b->lab = malloc(4 * 1024 * 1001 * 8);
    b->label = malloc(1024 * 1001 * 4);
}

static void rb_free(rb *b)
{
    free(b->nsrc); free(b->ndst); free(b->n_id); free(b->esrc);
    free(b->edst); free(b->e_id); free(b->ei); free(b->lab); free(b->label);
    free(b->x);
}

/* Negative i's draw number `attempt`. */
static void ref_draw(const ref *r, rb *b, int64_t i, unsigned attempt)
{
    const lq *q = r->q;
    uint64_t key = rng_key(q->seed, (uint64_t)b->epoch, (uint64_t)b->batch,
                           0x4e45, attempt);
    uint64_t n = (uint64_t)r->g->n;
    b->ndst[i] = (int64_t)rng_below(rng_draw(key, 2 * (uint64_t)i + 1), n);
    b->nsrc[i] = q->mode == M_PAIRS
                     ? (int64_t)rng_below(rng_draw(key, 2 * (uint64_t)i), n)
                     : b->psrc[i / q->k];
}

/* The positives of the batch and their negatives, redrawn under STRICT
** while they are edges: draws 0..64, then the statement fails. How many a
** negative would need is counted on past 64 (max_try, up to 999), so that
** a test can pick a failure right at the limit. */
static void ref_seed_edges(ref *r, rb *b)
{
    const int64_t *order = ref_order(r, b->epoch);
    int64_t lo = b->batch * r->q->B;
    int64_t hi = lo + r->q->B < r->nids ? lo + r->q->B : r->nids;
    b->npos = hi - lo;
    assert_true(b->npos <= 1024);
    for (int64_t i = 0; i < b->npos; i++) {
        b->pid[i] = order[lo + i];
        b->psrc[i] = r->g->rs[b->pid[i]];
        b->pdst[i] = r->g->rd[b->pid[i]];
    }
    b->nneg = b->npos * r->q->k;
    for (int64_t i = 0; i < b->nneg; i++) {
        unsigned a = 0;
        for (ref_draw(r, b, i, 0); r->q->strict && a < 999 &&
             is_edge(r->g, b->nsrc[i], b->ndst[i]);)
            ref_draw(r, b, i, ++a);
        if (a > b->max_try) b->max_try = a;
    }
    b->failed = b->max_try > 64;
}

/* The distinct endpoints, ascending: the batch's first nodes. */
static void ref_endpoints(ref *r, rb *b)
{
    int64_t n = 0, *a = b->esrc;  /* scratch until the hops */
    for (int64_t i = 0; i < b->npos; i++) {
        a[n++] = b->psrc[i];
        a[n++] = b->pdst[i];
    }
    for (int64_t i = 0; i < b->nneg; i++) {
        a[n++] = b->nsrc[i];
        a[n++] = b->ndst[i];
    }
    qsort(a, (size_t)n, 8, cmp_i64);
    for (int64_t i = 0; i < n; i++)
        if (b->nn == 0 || a[i] != b->n_id[b->nn - 1]) {
            r->where[a[i]] = b->nn;
            b->n_id[b->nn++] = a[i];
        }
    b->nsn[0] = b->nn;
}

static int ref_excluded(const ref *r, int64_t id)
{
    int s = r->split_of[id];
    if (s >= 0 && (r->q->excl_mask >> s & 1)) return 1;
    return r->q->exclude_seeds && r->mark[id];
}

/* Hop h over the nodes first reached at hop h - 1 [lo, hi). */
static void ref_hop(ref *r, rb *b, int h, int64_t lo, int64_t hi)
{
    const rgraph *g = r->g;
    static int64_t pos[4096];
    int64_t ne0 = b->ne;
    for (int64_t p = lo; p < hi; p++) {
        int64_t v = b->n_id[p], d = g->off[v + 1] - g->off[v];
        uint64_t key = rng_key(r->q->seed, (uint64_t)b->epoch,
                               (uint64_t)b->batch, (uint64_t)h, (uint64_t)v);
        int64_t c = tu_ref_choose(key, d, r->q->fan[h], r->q->replace, pos);
        for (int64_t j = 0; j < c; j++) {
            int64_t at = g->off[v] + pos[j], u = g->src[at];
            if (ref_excluded(r, g->eid[at])) continue;
            if (r->where[u] < 0) {
                r->where[u] = b->nn;
                b->n_id[b->nn++] = u;
            }
            assert_true(b->ne < RB_CAP);
            b->esrc[b->ne] = r->where[u];
            b->edst[b->ne] = p;
            b->e_id[b->ne++] = g->eid[at];
        }
    }
    b->nse[h] = b->ne - ne0;
    b->nsn[h + 1] = b->nn - hi;
}

/* The label arrays in local indices (an endpoint's local index is its
** rank among the endpoints). */
static void ref_labels(const ref *r, rb *b)
{
    const int64_t *w = r->where;
    if (r->q->mode == M_TRIPLET) {
        for (int64_t i = 0; i < b->npos; i++) {
            b->lab[i] = w[b->psrc[i]];
            b->lab[b->npos + i] = w[b->pdst[i]];
        }
        for (int64_t i = 0; i < b->nneg; i++)
            b->lab[2 * b->npos + i] = w[b->ndst[i]];
        return;
    }
    b->L = b->npos + b->nneg;
    for (int64_t i = 0; i < b->L; i++) {
        int pos = i < b->npos;
        int64_t s = pos ? b->psrc[i] : b->nsrc[i - b->npos];
        int64_t d = pos ? b->pdst[i] : b->ndst[i - b->npos];
        b->lab[i] = w[s];
        b->lab[b->L + i] = w[d];
        b->label[i] = pos ? 1.0f : 0.0f;
    }
}

/* ---------- the digest, from docs/format.md (tu_digest_fold) ---------- */

/* n_id, edge_index, x, y, e_id, edge_attr, edge_label_index, edge_label,
** src_index, dst_pos_index, dst_neg_index (a link batch has no y; no
** EDGE FEATURES here: edge_attr is empty). */
static uint64_t ref_digest(const rb *b, int triplet)
{
    size_t B = (size_t)b->npos, E = (size_t)b->ne, L = (size_t)b->L;
    uint64_t h = TU_DIGEST_START;
    h = tu_digest_fold(h, b->n_id, (size_t)b->nn * 8);
    h = tu_digest_fold(h, b->ei, E * 16);
    h = tu_digest_fold(h, b->x, (size_t)b->xbytes);
    h = tu_digest_fold(h, NULL, 0);
    h = tu_digest_fold(h, b->e_id, E * 8);
    h = tu_digest_fold(h, NULL, 0);
    h = tu_digest_fold(h, b->lab, triplet ? 0 : 2 * L * 8);
    h = tu_digest_fold(h, b->label, triplet ? 0 : L * 4);
    h = tu_digest_fold(h, b->lab, triplet ? B * 8 : 0);
    h = tu_digest_fold(h, b->lab + B, triplet ? B * 8 : 0);
    return tu_digest_fold(h, b->lab + 2 * B, triplet ? (size_t)b->nneg * 8 : 0);
}

/* Mini-batch (epoch, batch) of the statement, brute force. */
static void ref_batch(ref *r, int64_t epoch, int64_t batch, rb *b)
{
    b->epoch = epoch;
    b->batch = batch;
    b->npos = b->nneg = b->nn = b->ne = b->L = 0;
    b->failed = 0;
    b->max_try = 0;
    memset(b->nsn, 0, sizeof b->nsn);
    memset(b->nse, 0, sizeof b->nse);
    ref_seed_edges(r, b);
    if (b->failed) return;
    ref_endpoints(r, b);
    for (int64_t i = 0; i < b->npos; i++) r->mark[b->pid[i]] = 1;
    for (int64_t h = 0, lo = 0, hi; h < r->q->hops; h++, lo = hi) {
        hi = b->nn;
        ref_hop(r, b, (int)h, lo, hi);
    }
    for (int64_t i = 0; i < b->npos; i++) r->mark[b->pid[i]] = 0;
    memcpy(b->ei, b->esrc, (size_t)b->ne * 8);
    memcpy(b->ei + b->ne, b->edst, (size_t)b->ne * 8);
    ref_labels(r, b);
    for (int64_t i = 0; i < b->nn; i++) r->where[b->n_id[i]] = -1;
    b->xbytes = r->feat ? b->nn * r->fdim * 4 : 0;
    if (r->feat) {
        b->x = realloc(b->x, (size_t)b->xbytes + 4);
        for (int64_t i = 0; i < b->nn; i++)
            memcpy(b->x + i * r->fdim, r->feat + b->n_id[i] * r->fdim,
                   (size_t)r->fdim * 4);
    }
    b->digest = ref_digest(b, r->q->mode == M_TRIPLET);
}

/* ---------- fixtures ---------- */

typedef struct fx {
    char *dir;
    char db[1024];
    gnndb *h;
    rgraph u, d;           /* graph u (UNDIRECTED, 4KB blocks), graph d;
                           ** graph f is u's edges with FEATURES feat */
    float *feat;           /* cora's features, 1433 a row */
    int8_t *split_of;      /* train 0, valid 1, test 2, none -1 */
    rgraph s;              /* graph s (strict_allows_64_redraws...) */
    int8_t *s_split;       /* all of its edges in train */
    int64_t spilled;       /* bytes the last run_against_ref spilled */
} fx;

static void exec_ok(gnndb *db, const char *sql)
{
    int rc = gnndb_exec(db, sql, NULL, NULL);
    if (rc) fail_msg("%s\n-> %s", sql, gnndb_errmsg(db));
}

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    f->dir = tu_tmpdir("link_sample");
    snprintf(f->db, sizeof f->db, "%s/lk.gnndb", f->dir);
    assert_int_equal(gnndb_open(f->db, &f->h,
                                GNNDB_OPEN_READWRITE | GNNDB_OPEN_CREATE),
                     GNNDB_OK);
    gnndb_memory_baseline(f->h, GNNDB_BASELINE_PREPARE);
    const char *edges = tu_data(0, "cora/edges.tsv");
    char sql[4096];
    snprintf(sql, sizeof sql,
             "CREATE GRAPH u FROM '%s' UNDIRECTED BLOCK SIZE 4KB;"
             "CREATE GRAPH d FROM '%s';"
             "CREATE EDGE SPLITS train, valid, test ON u RANDOM 0.85, 0.05, "
             "0.10 SEED 7;"
             "CREATE EDGE SPLITS train, valid, test ON d RANDOM 0.85, 0.05, "
             "0.10 SEED 7;"
             "CREATE GRAPH f FROM '%s' UNDIRECTED;"
             "IMPORT FEATURES feat INTO f FROM '%s';"
             "CREATE EDGE SPLITS train, valid, test ON f RANDOM 0.85, 0.05, "
             "0.10 SEED 7;", edges, edges, edges,
             tu_data(1, "cora/features.npy"));
    exec_ok(f->h, sql);
    f->u = load_graph(edges, 1);
    f->d = load_graph(edges, 0);
    size_t fb;
    f->feat = tu_load_npy(tu_data(1, "cora/features.npy"), &fb);
    assert_int_equal(fb, (size_t)f->u.n * 1433 * 4);
    static const double frac[] = {0.85, 0.05, 0.10};
    f->split_of = draw_splits(f->u.m, 7, frac, 3);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    gnndb_close(f->h);
    tu_rmrf(f->dir);
    free(f->dir);
    free_graph(&f->u);
    free_graph(&f->d);
    free(f->split_of);
    free(f->feat);
    if (f->s_split) {
        free_graph(&f->s);
        free(f->s_split);
    }
    free(f);
    return 0;
}

static const rgraph *graph_of(const fx *f, const lq *q)
{
    switch (q->graph[0]) {
    case 'd': return &f->d;
    case 's': return &f->s;
    default: return &f->u;  /* u, and f: the same edges with features */
    }
}

/* ---------- the engine against the reference ---------- */

static void check_batch(const gnndb_batch_view *v, const rb *b, int triplet)
{
    assert_int_equal(v->num_seeds, b->nsn[0]);
    assert_int_equal(v->num_nodes, b->nn);
    assert_int_equal(v->num_edges, b->ne);
    assert_null(v->y);
    if (b->xbytes) {
        assert_int_equal(v->x_dim, 1433);
        assert_memory_equal(v->x, b->x, (size_t)b->xbytes);
    } else {
        assert_null(v->x);
    }
    assert_memory_equal(v->n_id, b->n_id, (size_t)b->nn * 8);
    assert_memory_equal(v->num_sampled_nodes, b->nsn,
                        (size_t)(v->num_hops + 1) * 8);
    assert_memory_equal(v->num_sampled_edges, b->nse, (size_t)v->num_hops * 8);
    if (b->ne) {
        assert_memory_equal(v->edge_index, b->ei, (size_t)b->ne * 16);
        assert_memory_equal(v->e_id, b->e_id, (size_t)b->ne * 8);
    }
    if (triplet) {
        assert_int_equal(v->num_pos, b->npos);
        assert_null(v->edge_label_index);
        assert_memory_equal(v->src_index, b->lab, (size_t)b->npos * 8);
        assert_memory_equal(v->dst_pos_index, b->lab + b->npos,
                            (size_t)b->npos * 8);
        assert_memory_equal(v->dst_neg_index, b->lab + 2 * b->npos,
                            (size_t)b->nneg * 8);
    } else {
        assert_int_equal(v->num_label_edges, b->L);
        assert_null(v->src_index);
        assert_memory_equal(v->edge_label_index, b->lab, (size_t)b->L * 16);
        assert_memory_equal(v->edge_label, b->label, (size_t)b->L * 4);
    }
    assert_int_equal(v->digest, b->digest);
}

/* Run q after `pre` and check every batch against the reference; the
** number of batches. */
static int64_t run_against_ref(fx *f, const char *pre, const lq *q)
{
    char sql[1024];
    lq_sql(q, sql, sizeof sql);
    if (pre) exec_ok(f->h, pre);
    ref r;
    ref_init(&r, graph_of(f, q), q, q->graph[0] == 's' ? f->s_split
                                                        : f->split_of);
    if (q->graph[0] == 'f') {
        r.feat = f->feat;
        r.fdim = 1433;
    }
    rb b;
    rb_alloc(&b);
    gnndb_stmt *st;
    if (gnndb_prepare(f->h, sql, -1, &st, NULL))
        fail_msg("%s\n-> %s", sql, gnndb_errmsg(f->h));
    int rc, n = 0;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
        const gnndb_batch_view *v = tu_batch(st);
        assert_int_equal(v->epoch, n / ref_batches_per_epoch(&r));
        assert_int_equal(v->batch, n % ref_batches_per_epoch(&r));
        ref_batch(&r, v->epoch, v->batch, &b);
        assert_false(b.failed);
        check_batch(v, &b, q->mode == M_TRIPLET);
        n++;
    }
    if (rc != GNNDB_DONE) fail_msg("%s\n-> %s", sql, gnndb_errmsg(f->h));
    int64_t want = q->epochs * ref_batches_per_epoch(&r);
    assert_int_equal(n, want < q->limit ? want : q->limit);
    int64_t H = gnndb_stmt_status(st, GNNDB_STATUS_HYPERBATCH);
    f->spilled = gnndb_stmt_status(st, GNNDB_STATUS_SPILL_WRITTEN);
    print_message("%s: %d batches match (hyperbatch %" PRId64 ")\n", sql, n,
                  H);
    gnndb_finalize(st);
    rb_free(&b);
    ref_free(&r);
    return H;
}

static void negative_1_exclude_seeds_shuffle_match_reference(void **state)
{
    fx *f = *state;
    lq q = {.graph = "u", .hops = 2, .fan = {10, 5}, .split = 0, .B = 64,
            .k = 1, .exclude_seeds = 1, .shuffle = 1, .seed = 7,
            .epochs = 2, .limit = 1000};
    run_against_ref(f, NULL, &q);
    /* the directed graph, three hops with replacement */
    lq d = {.graph = "d", .hops = 3, .fan = {4, 3, 2}, .replace = 1,
            .split = 0, .B = 100, .k = 2, .exclude_seeds = 1, .shuffle = 1,
            .seed = 8, .epochs = 2, .limit = 30};
    run_against_ref(f, NULL, &d);
}

static void pairs_strict_match_reference(void **state)
{
    fx *f = *state;
    lq q = {.graph = "u", .hops = 2, .fan = {5, 5}, .split = 1, .B = 32,
            .k = 3, .mode = M_PAIRS, .strict = 1, .seed = 11, .epochs = 1,
            .limit = 1000};
    run_against_ref(f, NULL, &q);
    q.graph = "d";
    q.shuffle = 1;
    q.epochs = 2;
    run_against_ref(f, NULL, &q);
}

static void triplet_matches_reference(void **state)
{
    fx *f = *state;
    lq q = {.graph = "u", .hops = 1, .fan = {10}, .split = 0, .B = 50,
            .k = 4, .mode = M_TRIPLET, .strict = 1, .shuffle = 1, .seed = 3,
            .epochs = 1, .limit = 40};
    run_against_ref(f, NULL, &q);
    lq d = {.graph = "d", .hops = 2, .fan = {6, 4}, .split = 2, .B = 64,
            .k = 2, .mode = M_TRIPLET, .exclude_seeds = 1, .seed = 4,
            .epochs = 2, .limit = 1000};
    run_against_ref(f, NULL, &d);
}

static void exclude_split_matches_reference(void **state)
{
    fx *f = *state;
    lq q = {.graph = "u", .hops = 2, .fan = {10, 10}, .split = 0, .B = 128,
            .k = 2, .excl_mask = 6, .seed = 5, .epochs = 1, .limit = 40};
    run_against_ref(f, NULL, &q);
    /* every neighbour, both exclusions, positives only */
    lq d = {.graph = "d", .hops = 1, .fan = {-1}, .split = 0, .B = 200,
            .excl_mask = 4, .exclude_seeds = 1, .shuffle = 1, .seed = 6,
            .epochs = 1, .limit = 1000};
    run_against_ref(f, NULL, &d);
}

static void hyperbatch_and_memory_limit_match_reference(void **state)
{
    fx *f = *state;
    lq q = {.graph = "u", .hops = 2, .fan = {10, 5}, .split = 0, .B = 64,
            .k = 2, .strict = 1, .exclude_seeds = 1, .excl_mask = 2,
            .shuffle = 1, .seed = 21, .epochs = 2, .limit = 60,
            .hyperbatch = 1};
    run_against_ref(f, "PRAGMA threads = 1;", &q);
    q.hyperbatch = 3;
    run_against_ref(f, "PRAGMA threads = 2;", &q);
    q.hyperbatch = 0;
    int64_t big = run_against_ref(f, NULL, &q);
    int64_t small = run_against_ref(f, "PRAGMA memory_limit = '"
                                    LK_SMALL_LIMIT "';", &q);
    assert_true(small < big);
    q.mode = M_TRIPLET;
    run_against_ref(f, NULL, &q);
    /* pread completes reads in another order than io_uring does, and a
    ** small pool holds fewer blocks: STRICT's lookups must not care in
    ** which order the graph blocks arrive */
    q.mode = M_PAIRS;
    run_against_ref(f, "PRAGMA memory_limit = '1GB'; PRAGMA io = 'pread';",
                    &q);
    run_against_ref(f, "PRAGMA memory_limit = '" LK_SMALL_LIMIT "';", &q);
    exec_ok(f->h, "PRAGMA memory_limit = '1GB'; PRAGMA threads = 1;"
                  "PRAGMA io = 'auto';");
}

/* Link batches spill as node batches do: every hyperbatch through the
** spill area, read back as the reference has them, feature rows
** included. (Graph f: a spilled SAMPLE of a graph without features hands
** out batches that the next run's read ahead overwrites.) */
static void spilled_batches_match_reference(void **state)
{
    fx *f = *state;
    char pre[1200];
    snprintf(pre, sizeof pre, "PRAGMA spill = 'on'; PRAGMA temp_dir = '%s';",
             f->dir);
    lq q = {.graph = "f", .hops = 2, .fan = {10, 5}, .split = 0, .B = 64,
            .k = 2, .strict = 1, .exclude_seeds = 1, .excl_mask = 4,
            .shuffle = 1, .seed = 31, .epochs = 2, .limit = 50,
            .hyperbatch = 8};
    run_against_ref(f, pre, &q);
    assert_true(f->spilled > 0);
    q.mode = M_TRIPLET;
    run_against_ref(f, NULL, &q);
    assert_true(f->spilled > 0);
    exec_ok(f->h, "PRAGMA spill = 'auto'; PRAGMA temp_dir = '';");
}

/* ---------- direct checks ---------- */

/* The input row s -> t, or -1: a binary search over rows sorted by
** (s, t), built once per graph. */
typedef struct rowkeys {
    int64_t *key, *id, m, n;
} rowkeys;

static int cmp_key_id(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

static rowkeys rowkeys_of(const rgraph *g)
{
    rowkeys k = {malloc((size_t)g->m * 8 + 8), malloc((size_t)g->m * 8 + 8),
                 g->m, g->n};
    int64_t *pair = malloc((size_t)g->m * 16 + 16);
    for (int64_t i = 0; i < g->m; i++) {
        pair[2 * i] = g->rs[i] * g->n + g->rd[i];
        pair[2 * i + 1] = i;
    }
    qsort(pair, (size_t)g->m, 16, cmp_key_id);
    for (int64_t i = 0; i < g->m; i++) {
        k.key[i] = pair[2 * i];
        k.id[i] = pair[2 * i + 1];
    }
    free(pair);
    return k;
}

static int64_t row_id(const rowkeys *k, int64_t s, int64_t t)
{
    int64_t want = s * k->n + t, lo = 0, hi = k->m;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (k->key[mid] < want) lo = mid + 1;
        else hi = mid;
    }
    return lo < k->m && k->key[lo] == want ? k->id[lo] : -1;
}

/* Sampled edges of v that are seed edges of v (a positive's endpoints are
** its row's, so its id is that row's: cora repeats no row); every e_id is
** checked to name a row joining the edge's endpoints. */
static int64_t seed_edges_sampled(const gnndb_batch_view *v,
                                  const rowkeys *k, int undirected)
{
    int64_t L = v->num_label_edges, E = v->num_edges, hits = 0;
    int64_t pid[1024], np = 0;
    for (int64_t i = 0; i < L && v->edge_label[i] == 1.0f; i++) {
        pid[np] = row_id(k, v->n_id[v->edge_label_index[i]],
                         v->n_id[v->edge_label_index[L + i]]);
        assert_true(pid[np++] >= 0);
    }
    for (int64_t j = 0; j < E; j++) {
        int64_t s = v->n_id[v->edge_index[j]];
        int64_t t = v->n_id[v->edge_index[E + j]];
        int64_t id = v->e_id[j];
        assert_true(id == row_id(k, s, t) ||
                    (undirected && id == row_id(k, t, s)));
        for (int64_t i = 0; i < np; i++) hits += pid[i] == id;
    }
    return hits;
}

static void exclude_seeds_never_samples_a_seed_edge(void **state)
{
    fx *f = *state;
    for (int g = 0; g < 2; g++) {
        rowkeys k = rowkeys_of(g ? &f->d : &f->u);
        for (int ex = 0; ex <= 1; ex++) {
            char sql[256];
            snprintf(sql, sizeof sql, "SAMPLE 10,10 FROM %s EDGES train "
                     "BATCH 64 NEGATIVE 1 %s SHUFFLE SEED 13 LIMIT 60;",
                     g ? "d" : "u", ex ? "EXCLUDE SEEDS" : "");
            gnndb_stmt *st;
            assert_int_equal(gnndb_prepare(f->h, sql, -1, &st, NULL), 0);
            int64_t hits = 0, rc, n = 0;
            while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
                hits += seed_edges_sampled(tu_batch(st), &k, !g);
                n++;
            }
            assert_int_equal(rc, GNNDB_DONE);
            assert_int_equal(n, 60);
            gnndb_finalize(st);
            print_message("%s: %" PRId64 " seed edges sampled\n", sql, hits);
            if (ex) assert_int_equal(hits, 0);
            else assert_true(hits > 0);
        }
        free(k.key);
        free(k.id);
    }
}

/* Negatives of every batch of sql that are edges of the raw file (u -> v
** a row, or v -> u too when undirected); *total counts the negatives. */
static int64_t edge_negatives(fx *f, const char *sql, const rowkeys *k,
                              int undirected, int64_t *total)
{
    gnndb_stmt *st;
    if (gnndb_prepare(f->h, sql, -1, &st, NULL))
        fail_msg("%s", gnndb_errmsg(f->h));
    int rc;
    int64_t hits = 0;
    *total = 0;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
        const gnndb_batch_view *v = tu_batch(st);
        int64_t L = v->num_label_edges, m = v->num_pos * v->num_neg;
        for (int64_t i = 0; i < (v->src_index ? m : L); i++) {
            int64_t a, b;
            if (v->src_index) {
                a = v->n_id[v->src_index[i / v->num_neg]];
                b = v->n_id[v->dst_neg_index[i]];
            } else if (v->edge_label[i] == 0.0f) {
                a = v->n_id[v->edge_label_index[i]];
                b = v->n_id[v->edge_label_index[L + i]];
            } else {
                continue;
            }
            hits += row_id(k, a, b) >= 0 ||
                    (undirected && row_id(k, b, a) >= 0);
            (*total)++;
        }
    }
    if (rc != GNNDB_DONE) fail_msg("%s\n-> %s", sql, gnndb_errmsg(f->h));
    gnndb_finalize(st);
    return hits;
}

static void strict_never_returns_an_edge(void **state)
{
    fx *f = *state;
    static const char *const modes[] = {"", "PAIRS", "TRIPLET"};
    for (int g = 0; g < 2; g++) {
        rowkeys k = rowkeys_of(g ? &f->d : &f->u);
        for (int m = 0; m < 3; m++)
            for (int strict = 0; strict <= 1; strict++) {
                char sql[256];
                int64_t total;
                snprintf(sql, sizeof sql, "SAMPLE 2 FROM %s EDGES train BATCH "
                         "256 NEGATIVE 5 %s %s SHUFFLE SEED 17 EPOCHS 2;",
                         g ? "d" : "u", modes[m], strict ? "STRICT" : "");
                int64_t hits = edge_negatives(f, sql, &k, !g, &total);
                print_message("%s: %" PRId64 " of %" PRId64 " negatives are "
                              "edges\n", sql, hits, total);
                assert_int_equal(total, 2 * 5 * 8957);
                if (strict) assert_int_equal(hits, 0);
                /* keeping the source, some draws land on its neighbours */
                else if (m != 1) assert_true(hits > 0);
            }
        free(k.key);
        free(k.id);
    }
}

/* DESCRIBE k and SHOW GRAPHS as text, less the catalog file's size. */
static void describe(gnndb *db, char *out, size_t cap)
{
    static const char *const q[] = {"DESCRIBE k;", "SHOW GRAPHS;"};
    size_t o = 0;
    out[0] = 0;
    for (int i = 0; i < 2; i++) {
        gnndb_stmt *st;
        assert_int_equal(gnndb_prepare(db, q[i], -1, &st, NULL), GNNDB_OK);
        while (gnndb_step(st) == GNNDB_ROW) {
            const char *a = gnndb_column_text(st, 0);
            if (a && !strncmp(a, "file.catalog", 12)) continue;
            for (int c = 0; c < gnndb_column_count(st); c++) {
                const char *t = gnndb_column_text(st, c);
                o += (size_t)snprintf(out + o, cap - o, "%s|", t ? t : "");
            }
            o += (size_t)snprintf(out + o, cap - o, "\n");
            assert_true(o < cap);
        }
        gnndb_finalize(st);
    }
}

static void strict_on_complete_graph_fails_cleanly(void **state)
{
    fx *f = *state;
    char path[1100], sql[1400], text[512], before[16384], after[16384];
    size_t o = 0;
    for (int s = 0; s < 5; s++)   /* every pair, self loops included */
        for (int t = 0; t < 5; t++)
            o += (size_t)snprintf(text + o, sizeof text - o, "%d\t%d\n", s, t);
    snprintf(path, sizeof path, "%s/complete.tsv", f->dir);
    assert_int_equal(tu_write_file(path, text, o), 0);
    snprintf(sql, sizeof sql, "CREATE GRAPH k FROM '%s';"
             "CREATE EDGE SPLITS every ON k RANDOM 1.0 SEED 1;", path);
    exec_ok(f->h, sql);
    describe(f->h, before, sizeof before);
    static const char *const modes[] = {"", "PAIRS", "TRIPLET"};
    for (int m = 0; m < 3; m++) {
        snprintf(sql, sizeof sql, "SAMPLE 2 FROM k EDGES every BATCH 4 "
                 "NEGATIVE 2 %s STRICT SEED 1;", modes[m]);
        gnndb_stmt *st;
        assert_int_equal(gnndb_prepare(f->h, sql, -1, &st, NULL), GNNDB_OK);
        assert_int_equal(gnndb_step(st), GNNDB_RANGE);
        const char *msg = gnndb_errmsg(f->h);
        print_message("%s -> %s\n", sql, msg);
        assert_non_null(strstr(msg, "STRICT"));
        assert_int_equal(gnndb_step(st), GNNDB_RANGE);
        gnndb_finalize(st);
        describe(f->h, after, sizeof after);
        assert_string_equal(before, after);
    }
    /* the same without STRICT runs: 25 seed edges in batches of 4 */
    uint64_t n = 0;
    gnndb_stmt *st;
    assert_int_equal(gnndb_prepare(f->h, "SAMPLE 2 FROM k EDGES every BATCH 4 "
                                   "NEGATIVE 2 SEED 1;", -1, &st, NULL), 0);
    while (gnndb_step(st) == GNNDB_BATCH) n++;
    gnndb_finalize(st);
    assert_int_equal(n, 7);
    exec_ok(f->h, "DROP GRAPH k;");
}

/* A graph s of 10 nodes where node 0 reaches every node but 9 (itself
** included), and 9 -> 1: a negative from 0 is an edge 9 times in 10, so
** some need many redraws. */
static void make_dense_graph(fx *f)
{
    char path[1100], sql[1400], text[256];
    size_t o = 0;
    for (int t = 0; t < 9; t++)
        o += (size_t)snprintf(text + o, sizeof text - o, "0\t%d\n", t);
    o += (size_t)snprintf(text + o, sizeof text - o, "9\t1\n");
    snprintf(path, sizeof path, "%s/dense.tsv", f->dir);
    assert_int_equal(tu_write_file(path, text, o), 0);
    snprintf(sql, sizeof sql, "CREATE GRAPH s FROM '%s';"
             "CREATE EDGE SPLITS train ON s RANDOM 1.0 SEED 1;", path);
    exec_ok(f->h, sql);
    f->s = load_graph(path, 0);
    f->s_split = calloc((size_t)f->s.m + 1, 1);
}

/* STRICT takes draws 0..64 of a negative (64 redraws): a SEED whose worst
** negative needs draw 64 runs and matches the reference, one whose worst
** needs draw 65 fails with GNNDB_RANGE. */
static void strict_allows_64_redraws_and_no_more(void **state)
{
    fx *f = *state;
    make_dense_graph(f);
    lq q = {.graph = "s", .hops = 1, .fan = {2}, .split = 0, .B = 16,
            .k = 100, .strict = 1, .epochs = 1, .limit = 10};
    ref r;
    rb b;
    rb_alloc(&b);
    uint64_t ok = 0, bad = 0;
    for (uint64_t seed = 1; seed < 5000 && (!ok || !bad); seed++) {
        q.seed = seed;
        ref_init(&r, &f->s, &q, f->s_split);
        ref_batch(&r, 0, 0, &b);
        if (b.max_try == 65 && !bad) bad = seed;
        if (!b.failed && b.max_try == 64 && !ok) ok = seed;
        ref_free(&r);
    }
    rb_free(&b);
    assert_true(ok && bad);
    q.seed = ok;
    run_against_ref(f, NULL, &q);
    char sql[512];
    q.seed = bad;
    lq_sql(&q, sql, sizeof sql);
    gnndb_stmt *st;
    assert_int_equal(gnndb_prepare(f->h, sql, -1, &st, NULL), GNNDB_OK);
    assert_int_equal(gnndb_step(st), GNNDB_RANGE);
    print_message("%s -> %s\n", sql, gnndb_errmsg(f->h));
    gnndb_finalize(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(negative_1_exclude_seeds_shuffle_match_reference),
        cmocka_unit_test(pairs_strict_match_reference),
        cmocka_unit_test(triplet_matches_reference),
        cmocka_unit_test(exclude_split_matches_reference),
        cmocka_unit_test(hyperbatch_and_memory_limit_match_reference),
        cmocka_unit_test(spilled_batches_match_reference),
        cmocka_unit_test(exclude_seeds_never_samples_a_seed_edge),
        cmocka_unit_test(strict_never_returns_an_edge),
        cmocka_unit_test(strict_on_complete_graph_fails_cleanly),
        cmocka_unit_test(strict_allows_64_redraws_and_no_more),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
