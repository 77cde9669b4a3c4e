/* test_hetero_sample.c — typed SAMPLE end to end through the public API,
** checked against an independent brute-force typed sampler: in-lists per
** relation built in memory from the raw edge files (no blocks, no buffer
** pool, no hyperbatch), the same key rule and sample_choose (the one shared
** definition of which positions a node keeps); every array of every batch
** and its digest, recomputed here from docs/format.md's rule. Then each
** relation's choices at a hub are uniform over its in-list (chi-square),
** and bad typed statements are refused in words, changing nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "util.h"
#include "../exec/rng.h"
#include "../exec/sample.h"

/* the graph: three types in this order, so global ids are
** paper [0, P), author [P, P + A), field [P + A, N) */
#define P 3000
#define A 1500
#define F 20
#define N (P + A + F)
#define NTYPES 3
#define HUB_CITED 7     /* every other paper cites it: a list of 3 blocks */
#define HUB_PAPER 11    /* every author writes it */
#define HUB_AUTHOR 3    /* writes every paper */
#define NRAND 6000      /* random edges of cites and writes */
#define NTRAIN 600
#define PDIM 8
#define ADIM 5
#define MAXH 8          /* AST_MAX_HOPS: relation r keys hop h + r * 8 */

static const char *const tname[NTYPES] = {"paper", "author", "field"};
static const int64_t tfirst[NTYPES] = {0, P, P + A};
static const int64_t tcount[NTYPES] = {P, A, F};

/* one edge list of type-local ids */
typedef struct pairs {
    uint32_t *s, *d;
    size_t n, cap;
} pairs;

/* a relation's in-lists over global ids, ascending by source */
typedef struct rel {
    char name[CAT_NAME_MAX];
    int src, dst;
    int64_t *off, *nbr;
} rel;

typedef struct fx {
    tu_db d;
    pairs cites, writes, topic;
    int nrels;
    rel rels[8];            /* in the catalog's order */
    float *px, *ax;         /* paper and author features */
    int64_t *labels;        /* paper labels */
    int64_t train[NTRAIN];  /* local paper ids, ascending */
    int64_t spilled;        /* bytes the last run_case spilled */
} fx;

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void add(pairs *p, uint32_t s, uint32_t d)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 4096;
        p->s = realloc(p->s, p->cap * sizeof *p->s);
        p->d = realloc(p->d, p->cap * sizeof *p->d);
    }
    p->s[p->n] = s;
    p->d[p->n++] = d;
}

static void write_pairs(const char *dir, const char *name, const pairs *p)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.csv", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (size_t i = 0; i < p->n; i++) fprintf(f, "%u,%u\n", p->s[i], p->d[i]);
    fclose(f);
}

/* cites: paper -> paper, random (loops too) and every paper -> HUB_CITED;
** writes: author -> paper, random and every author -> HUB_PAPER and
** HUB_AUTHOR -> every paper; has_topic: field -> paper, field 0 to every
** paper and one or two random fields more. The hubs' lists hold each
** source once. */
static void make_edges(fx *f)
{
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < NRAND; i++) {
        uint32_t u = (uint32_t)(rnd(&s) % P), v = (uint32_t)(rnd(&s) % P);
        if (v == HUB_CITED) v = u == HUB_CITED ? 0 : u; /* a loop */
        add(&f->cites, u, v);
    }
    for (uint32_t u = 0; u < P; u++)
        if (u != HUB_CITED) add(&f->cites, u, HUB_CITED);
    for (int i = 0; i < NRAND; i++) {
        uint32_t a = (uint32_t)(rnd(&s) % (A - 1)), p;
        do p = (uint32_t)(rnd(&s) % P); while (p == HUB_PAPER);
        add(&f->writes, a >= HUB_AUTHOR ? a + 1 : a, p);
    }
    for (uint32_t a = 0; a < A; a++) add(&f->writes, a, HUB_PAPER);
    for (uint32_t p = 0; p < P; p++)
        if (p != HUB_PAPER) add(&f->writes, HUB_AUTHOR, p);
    for (uint32_t p = 0; p < P; p++) {
        add(&f->topic, 0, p);
        for (uint32_t k = 0; k <= p % 2; k++)
            add(&f->topic, 1 + (uint32_t)(rnd(&s) % (F - 1)), p);
    }
    write_pairs(f->d.dir, "cites", &f->cites);
    write_pairs(f->d.dir, "writes", &f->writes);
    write_pairs(f->d.dir, "topic", &f->topic);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* In-lists of relation r from its file's pairs: edge (s, d) is source
** s + first[src] in the list of d + first[dst]; a reverse turns it round. */
static void build_rel(rel *r, const pairs *p, int reverse)
{
    r->off = calloc(N + 1, sizeof *r->off);
    r->nbr = malloc((p->n + 1) * sizeof *r->nbr);
    int64_t *fill = calloc(N, sizeof *fill);
    const uint32_t *src = reverse ? p->d : p->s, *dst = reverse ? p->s : p->d;
    for (size_t i = 0; i < p->n; i++) r->off[dst[i] + tfirst[r->dst] + 1]++;
    for (int64_t k = 0; k < N; k++) r->off[k + 1] += r->off[k];
    for (size_t i = 0; i < p->n; i++) {
        int64_t v = dst[i] + tfirst[r->dst];
        r->nbr[r->off[v] + fill[v]++] = src[i] + tfirst[r->src];
    }
    for (int64_t v = 0; v < N; v++)
        qsort(r->nbr + r->off[v], (size_t)(r->off[v + 1] - r->off[v]), 8,
              cmp_i64);
    free(fill);
}

static void exec_ok(gnndb *h, const char *sql)
{
    if (gnndb_exec(h, sql, NULL, NULL) != GNNDB_OK)
        fail_msg("%s: %s", sql, gnndb_errmsg(h));
}

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    assert_int_equal(tu_db_open(&f->d, "hetero-sample"), GNNDB_OK);
    make_edges(f);
    f->px = malloc(P * PDIM * sizeof *f->px);
    f->ax = malloc(A * ADIM * sizeof *f->ax);
    f->labels = malloc(P * sizeof *f->labels);
    for (int i = 0; i < P * PDIM; i++) f->px[i] = (float)i * 0.5f;
    for (int i = 0; i < A * ADIM; i++) f->ax[i] = -(float)i;
    for (int i = 0; i < P; i++) f->labels[i] = i % 7;
    uint64_t s = 77;
    char *member = calloc(P, 1);
    for (int k = 0; k < NTRAIN;) {
        uint32_t p = (uint32_t)(rnd(&s) % P);
        if (!member[p]) member[p] = 1, k++;
    }
    for (int p = 0, k = 0; p < P; p++)
        if (member[p]) f->train[k++] = p;
    free(member);
    char px[1200], ax[1200], y[1200], tr[1200];
    snprintf(px, sizeof px, "%s/px.npy", f->d.dir);
    snprintf(ax, sizeof ax, "%s/ax.npy", f->d.dir);
    snprintf(y, sizeof y, "%s/y.npy", f->d.dir);
    snprintf(tr, sizeof tr, "%s/train.npy", f->d.dir);
    assert_int_equal(tu_write_npy(px, "<f4", f->px, P, PDIM, 4), 0);
    assert_int_equal(tu_write_npy(ax, "<f4", f->ax, A, ADIM, 4), 0);
    assert_int_equal(tu_write_npy(y, "<i8", f->labels, P, 1, 8), 0);
    assert_int_equal(tu_write_npy(tr, "<i8", f->train, NTRAIN, 1, 8), 0);
    const char *dir = f->d.dir;
    char *sql = malloc(16384);
    snprintf(sql, 16384,
             "CREATE GRAPH mag;"
             "CREATE NODES paper IN mag COUNT %d;"
             "CREATE NODES author IN mag COUNT %d;"
             "CREATE NODES field IN mag COUNT %d;"
             "CREATE RELATION cites IN mag FROM paper TO paper "
             "FROM '%s/cites.csv' BLOCK SIZE 4096;"
             "CREATE RELATION writes IN mag FROM author TO paper "
             "FROM '%s/writes.csv' BLOCK SIZE 64KB WITH REVERSE AS "
             "written_by;"
             "CREATE RELATION has_topic IN mag FROM field TO paper "
             "FROM '%s/topic.csv' BLOCK SIZE 4096 WITH REVERSE AS topic_of;"
             "IMPORT FEATURES feat INTO mag.paper FROM '%s';"
             "IMPORT FEATURES emb INTO mag.author FROM '%s';"
             "IMPORT LABELS INTO mag.paper FROM '%s';"
             "CREATE SPLIT train ON mag.paper FROM '%s';",
             P, A, F, dir, dir, dir, px, ax, y, tr);
    exec_ok(f->d.h, sql);
    free(sql);
    /* the relations in the catalog's order, each from its raw file */
    gnn_err e = {0};
    cat_graph mag;
    cat_relation *rs;
    size_t n;
    assert_int_equal(cat_graph_get(f->d.h->cat, "mag", &mag, &e), GNNDB_OK);
    assert_int_equal(cat_relation_list(f->d.h->cat, mag.id, &rs, &n, &e),
                     GNNDB_OK);
    assert_int_equal(n, 5);
    f->nrels = (int)n;
    for (size_t i = 0; i < n; i++) {
        rel *r = &f->rels[i];
        snprintf(r->name, sizeof r->name, "%s", rs[i].name);
        r->src = rs[i].src_type;
        r->dst = rs[i].dst_type;
        int rev = rs[i].reverse_of[0] != 0;
        const char *base = rev ? rs[i].reverse_of : rs[i].name;
        const pairs *p = !strcmp(base, "cites")    ? &f->cites
                         : !strcmp(base, "writes") ? &f->writes
                                                   : &f->topic;
        build_rel(r, p, rev);
    }
    free(rs);
    /* the hubs' lists of cites and topic_of are continued over several
    ** 4KB blocks; writes and written_by have blocks of 16 pages */
    cat_graph g;
    const char *hubs[] = {"mag.topic_of", "mag.cites", "mag.written_by"};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(cat_graph_get(f->d.h->cat, hubs[i], &g, &e),
                         GNNDB_OK);
        assert_int_equal(g.block_size, i < 2 ? 4096 : 65536);
        assert_true(g.max_degree >= P - 1);
        assert_true(i == 2 || g.graph_blocks >= 3);
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    tu_db_close(&f->d);
    for (int r = 0; r < f->nrels; r++) {
        free(f->rels[r].off);
        free(f->rels[r].nbr);
    }
    pairs *ps[3] = {&f->cites, &f->writes, &f->topic};
    for (int i = 0; i < 3; i++) {
        free(ps[i]->s);
        free(ps[i]->d);
    }
    free(f->px);
    free(f->ax);
    free(f->labels);
    free(f);
    return 0;
}

static int rel_no(const fx *f, const char *name)
{
    for (int r = 0; r < f->nrels; r++)
        if (!strcmp(f->rels[r].name, name)) return r;
    fail_msg("no relation %s", name);
    return -1;
}

/* ---------- the reference sampler ---------- */

/* A query as the reference reads it: fanout[r][h] (0: not sampled). */
typedef struct query {
    int hops;
    int fanout[8][MAXH];
    int replace;
    int seed_type;          /* its seeds: the train split, or all of it */
    int all;
    int64_t batch;
    int shuffle;
    uint64_t seed;
    int64_t part_k, part_n; /* PARTITION k OF n; n 0: none */
} query;

typedef struct refb {
    int64_t nn, ne, ns;
    int64_t *node;          /* global ids, first reached first */
    int64_t *esrc, *edst;   /* positions in node[] */
    int *erel;
    int64_t nsn[MAXH + 1], nse[MAXH];
} refb;

static int type_of(int64_t g)
{
    return g >= tfirst[2] ? 2 : g >= tfirst[1] ? 1 : 0;
}

/* Fisher-Yates under (seed, epoch) as the executor orders node seeds:
** draw i chooses among the first i + 1 (salt 0x5eed). */
static void order_seeds(int64_t *a, int64_t n, uint64_t seed, int64_t epoch)
{
    uint64_t key = rng_key(seed, (uint64_t)epoch, UINT64_MAX, UINT64_MAX,
                           0x5eed);
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)rng_below(rng_draw(key, (uint64_t)i),
                                       (uint64_t)i + 1);
        int64_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* The seeds of (epoch, batch): global ids; their number. */
static int64_t ref_seeds(const fx *f, const query *q, int64_t epoch,
                         int64_t batch, int64_t *out)
{
    int64_t n = q->all ? tcount[q->seed_type] : NTRAIN;
    int64_t *all = malloc((size_t)n * sizeof *all);
    for (int64_t i = 0; i < n; i++)
        all[i] = tfirst[q->seed_type] + (q->all ? i : f->train[i]);
    if (q->shuffle) order_seeds(all, n, q->seed, epoch);
    if (q->part_n) {  /* positions [kN/n, (k+1)N/n) of the epoch's order */
        int64_t a = q->part_k * n / q->part_n;
        int64_t b = (q->part_k + 1) * n / q->part_n;
        memmove(all, all + a, (size_t)(b - a) * sizeof *all);
        n = b - a;
    }
    int64_t lo = batch * q->batch;
    int64_t k = n - lo < q->batch ? n - lo : q->batch;
    memcpy(out, all + lo, (size_t)k * sizeof *out);
    free(all);
    return k;
}

static refb ref_sample(const fx *f, const query *q, int64_t epoch,
                       int64_t batch)
{
    refb r = {0};
    size_t cap = 1 << 20;
    r.node = malloc(N * sizeof *r.node);
    r.esrc = malloc(cap * sizeof *r.esrc);
    r.edst = malloc(cap * sizeof *r.edst);
    r.erel = malloc(cap * sizeof *r.erel);
    int64_t *where = malloc(N * sizeof *where);
    for (int64_t i = 0; i < N; i++) where[i] = -1;
    r.ns = ref_seeds(f, q, epoch, batch, r.node);
    for (int64_t i = 0; i < r.ns; i++) where[r.node[i]] = i;
    r.nn = r.nsn[0] = r.ns;
    uint32_t *pos = malloc((N + 1) * sizeof *pos), scratch[SAMPLE_SCRATCH];
    int64_t lo = 0;
    for (int h = 0; h < q->hops; h++) {
        int64_t hi = r.nn, ne0 = r.ne;
        for (int ri = 0; ri < f->nrels; ri++) {
            const rel *rl = &f->rels[ri];
            int fan = q->fanout[ri][h];
            if (!fan) continue;
            for (int64_t p = lo; p < hi; p++) {
                int64_t v = r.node[p];
                if (type_of(v) != rl->dst) continue;
                uint32_t deg = (uint32_t)(rl->off[v + 1] - rl->off[v]);
                uint64_t key = rng_key(q->seed, (uint64_t)epoch,
                                       (uint64_t)batch,
                                       (uint64_t)(h + ri * MAXH), (uint64_t)v);
                uint32_t k = sample_choose(key, deg, fan, q->replace, pos,
                                           scratch);
                for (uint32_t j = 0; j < k; j++) {
                    int64_t u = rl->nbr[rl->off[v] + pos[j]];
                    assert_int_equal(type_of(u), rl->src);
                    if (where[u] < 0) {
                        where[u] = r.nn;
                        r.node[r.nn++] = u;
                    }
                    assert_true((size_t)r.ne < cap);
                    r.esrc[r.ne] = where[u];
                    r.edst[r.ne] = p;
                    r.erel[r.ne++] = ri;
                }
            }
        }
        r.nse[h] = r.ne - ne0;
        r.nsn[h + 1] = r.nn - hi;
        lo = hi;
    }
    free(pos);
    free(where);
    return r;
}

static void ref_free(refb *r)
{
    free(r->node);
    free(r->esrc);
    free(r->edst);
    free(r->erel);
}

/* ---------- the digest, from docs/format.md (tu_digest_fold) ---------- */

/* The reference batch's arrays checked against the view, and its digest:
** the global sections (n_id, edge_index, no x, the seeds' labels), then
** per type n_id, x, y and per relation edge_index. */
static void check_batch(const fx *f, const query *q, const refb *r,
                        const gnndb_batch_view *v)
{
    int H = q->hops;
    assert_int_equal(v->num_seeds, r->ns);
    assert_int_equal(v->num_nodes, r->nn);
    assert_int_equal(v->num_edges, r->ne);
    assert_int_equal(v->num_hops, H);
    assert_int_equal(v->num_node_types, NTYPES);
    assert_int_equal(v->num_relations, f->nrels);
    assert_null(v->x);
    assert_int_equal(v->x_dim, 0);
    assert_memory_equal(v->n_id, r->node, (size_t)r->nn * 8);
    assert_memory_equal(v->num_sampled_nodes, r->nsn, (size_t)(H + 1) * 8);
    assert_memory_equal(v->num_sampled_edges, r->nse, (size_t)H * 8);
    int64_t *ei = malloc((size_t)(2 * r->ne + 1) * 8);
    memcpy(ei, r->esrc, (size_t)r->ne * 8);
    memcpy(ei + r->ne, r->edst, (size_t)r->ne * 8);
    if (r->ne) assert_memory_equal(v->edge_index, ei, (size_t)r->ne * 16);
    int64_t *y = malloc((size_t)r->ns * 8 + 8);
    for (int64_t i = 0; i < r->ns; i++)
        y[i] = f->labels[r->node[i] - tfirst[q->seed_type]];
    int labelled = q->seed_type == 0;
    if (labelled) assert_memory_equal(v->y, y, (size_t)r->ns * 8);
    else assert_null(v->y);
    uint64_t h = TU_DIGEST_START;
    h = tu_digest_fold(h, r->node, (size_t)r->nn * 8);
    h = tu_digest_fold(h, ei, (size_t)r->ne * 16);
    h = tu_digest_fold(h, NULL, 0);
    h = tu_digest_fold(h, y, labelled ? (size_t)r->ns * 8 : 0);
    /* per type: ranks, local ids, per-hop counts, rows */
    int64_t *rank = malloc((size_t)r->nn * 8 + 8), cnt[NTYPES] = {0};
    int64_t *local = malloc((size_t)r->nn * 8 + 8);
    for (int t = 0; t < NTYPES; t++) {
        const gnndb_type_view *tv = &v->types[t];
        assert_string_equal(tv->name, tname[t]);
        int64_t n = 0, nsn[MAXH + 1] = {0};
        int64_t q0 = 0;
        for (int hh = 0; hh <= H; hh++)
            for (int64_t k = 0; k < r->nsn[hh]; k++, q0++)
                if (type_of(r->node[q0]) == t) {
                    rank[q0] = cnt[t]++;
                    local[n++] = r->node[q0] - tfirst[t];
                    nsn[hh]++;
                }
        assert_int_equal(tv->num_nodes, n);
        if (n) assert_memory_equal(tv->n_id, local, (size_t)n * 8);
        assert_memory_equal(tv->num_sampled_nodes, nsn, (size_t)(H + 1) * 8);
        h = tu_digest_fold(h, local, (size_t)n * 8);
        int64_t dim = t == 0 ? PDIM : t == 1 ? ADIM : 0;
        const float *src = t == 0 ? f->px : f->ax;
        float *x = malloc((size_t)(n * dim + 1) * 4);
        for (int64_t i = 0; i < n; i++)
            memcpy(x + i * dim, src + local[i] * dim, (size_t)dim * 4);
        if (dim) {
            assert_int_equal(tv->x_dim, dim);
            if (n) assert_memory_equal(tv->x, x, (size_t)(n * dim) * 4);
        } else {
            assert_null(tv->x);
        }
        h = tu_digest_fold(h, x, (size_t)(n * dim) * 4);
        free(x);
        int has_y = labelled && t == q->seed_type;
        if (t == q->seed_type) assert_int_equal(tv->num_seeds, r->ns);
        if (has_y) assert_memory_equal(tv->y, y, (size_t)r->ns * 8);
        else assert_null(tv->y);
        h = tu_digest_fold(h, y, has_y ? (size_t)r->ns * 8 : 0);
    }
    /* per relation: ranks into the two types' n_id, per-hop counts */
    for (int ri = 0; ri < f->nrels; ri++) {
        const gnndb_rel_view *rv = &v->rels[ri];
        assert_string_equal(rv->name, f->rels[ri].name);
        assert_int_equal(rv->src_type, f->rels[ri].src);
        assert_int_equal(rv->dst_type, f->rels[ri].dst);
        int64_t m = 0, nse[MAXH] = {0}, k = 0;
        for (int64_t e = 0; e < r->ne; e++) m += r->erel[e] == ri;
        int64_t *rei = malloc((size_t)(2 * m + 1) * 8), o = 0;
        for (int hh = 0; hh < H; hh++)
            for (int64_t j = 0; j < r->nse[hh]; j++, k++)
                if (r->erel[k] == ri) {
                    rei[o] = rank[r->esrc[k]];
                    rei[m + o] = rank[r->edst[k]];
                    o++;
                    nse[hh]++;
                }
        assert_int_equal(rv->num_edges, m);
        if (m) assert_memory_equal(rv->edge_index, rei, (size_t)m * 16);
        assert_memory_equal(rv->num_sampled_edges, nse, (size_t)H * 8);
        h = tu_digest_fold(h, rei, (size_t)m * 16);
        free(rei);
    }
    assert_int_equal(v->digest, h);
    free(rank);
    free(local);
    free(ei);
    free(y);
}

/* ---------- typed batches against the reference ---------- */

/* One statement: its fanouts as written and as the reference reads them
** (rel[i] samples fan[i][h] at hop h), its seeds and clauses. */
typedef struct tcase {
    const char *fanouts;
    int hops;
    struct { const char *rel; int fan[3]; } m[5];
    int seed_type, all, replace, shuffle;
    int64_t batch, epochs, limit;
    uint64_t seed;
} tcase;

static const tcase cases[] = {
    /* every relation at both hops */
    {"{cites: 5, writes: 3, written_by: 2, has_topic: 2, topic_of: 4} * 2",
     2, {{"cites", {5, 5}}, {"writes", {3, 3}}, {"written_by", {2, 2}},
         {"has_topic", {2, 2}}, {"topic_of", {4, 4}}},
     0, 0, 0, 0, 64, 2, -1, 9},
    /* a list: relations left out at some hops, -1 (all) fanouts (the
    ** cited hub's whole list of 2999 when reached) */
    {"[{cites: 4, writes: 3, has_topic: 2}, {written_by: 2, cites: -1, "
     "topic_of: 3}, {writes: 2, has_topic: -1}]",
     3, {{"cites", {4, -1, 0}}, {"writes", {3, 0, 2}},
         {"has_topic", {2, 0, -1}}, {"written_by", {0, 2, 0}},
         {"topic_of", {0, 3, 0}}},
     0, 0, 0, 1, 50, 2, -1, 21},
    /* with replacement; topic_of's fields are never reached */
    {"{cites: 6, writes: 4, topic_of: 3} * 2", 2,
     {{"cites", {6, 6}}, {"writes", {4, 4}}, {"topic_of", {3, 3}}},
     0, 0, 1, 1, 40, 1, -1, 3},
    /* authors as seeds (no labels), all of them, three hops, LIMIT */
    {"{written_by: 3, writes: 2, topic_of: -1, has_topic: 1} * 3", 3,
     {{"written_by", {3, 3, 3}}, {"writes", {2, 2, 2}},
      {"topic_of", {-1, -1, -1}}, {"has_topic", {1, 1, 1}}},
     1, 1, 0, 1, 128, 1, 7, 5},
    /* fields as seeds: field 0's whole list of 3000 papers, over three
    ** blocks, then two relations into the papers it reached */
    {"[{topic_of: -1}, {cites: 3, has_topic: 2}]", 2,
     {{"topic_of", {-1, 0}}, {"cites", {0, 3}}, {"has_topic", {0, 2}}},
     2, 1, 0, 0, 8, 2, -1, 13},
};

static void to_query(const fx *f, const tcase *c, query *q)
{
    memset(q, 0, sizeof *q);
    q->hops = c->hops;
    for (int i = 0; i < 5 && c->m[i].rel; i++)
        for (int h = 0; h < c->hops; h++)
            q->fanout[rel_no(f, c->m[i].rel)][h] = c->m[i].fan[h];
    q->replace = c->replace;
    q->seed_type = c->seed_type;
    q->all = c->all;
    q->batch = c->batch;
    q->shuffle = c->shuffle;
    q->seed = c->seed;
}

static void case_sql(const tcase *c, const char *extra, char *sql, size_t n)
{
    char lim[32] = "";
    if (c->limit >= 0) snprintf(lim, sizeof lim, " LIMIT %" PRId64, c->limit);
    snprintf(sql, n, "SAMPLE %s FROM mag SEEDS %s.%s BATCH %" PRId64 "%s "
             "SEED %" PRIu64 " EPOCHS %" PRId64 "%s%s %s;", c->fanouts,
             tname[c->seed_type], c->all ? "ALL" : "train", c->batch,
             c->shuffle ? " SHUFFLE" : "", c->seed, c->epochs, lim,
             c->replace ? " WITH REPLACEMENT" : "", extra);
}

static int64_t case_batches(const tcase *c)
{
    int64_t ns = c->all ? tcount[c->seed_type] : NTRAIN;
    int64_t n = (ns + c->batch - 1) / c->batch * c->epochs;
    return c->limit >= 0 && c->limit < n ? c->limit : n;
}

/* Run sql after pre; each batch checked against the reference when
** `check`, else its digest against want[]; the digests into got[].
** Returns the HYPERBATCH it ran with. */
static int64_t run_case(fx *f, const tcase *c, const char *pre, const char *sql,
                     int check, const uint64_t *want, uint64_t *got)
{
    query q;
    to_query(f, c, &q);
    if (pre) exec_ok(f->d.h, pre);
    gnndb_stmt *st;
    if (gnndb_prepare(f->d.h, sql, -1, &st, NULL))
        fail_msg("%s: %s", sql, gnndb_errmsg(f->d.h));
    int64_t n = 0, total = case_batches(c);
    int64_t bpe = ((c->all ? tcount[c->seed_type] : NTRAIN) + c->batch - 1) /
                  c->batch;
    int rc;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
        const gnndb_batch_view *v = tu_batch(st);
        assert_true(n < total);
        assert_int_equal(v->epoch, n / bpe);
        assert_int_equal(v->batch, n % bpe);
        if (check) {
            refb r = ref_sample(f, &q, v->epoch, v->batch);
            check_batch(f, &q, &r, v);
            ref_free(&r);
        } else if (v->digest != want[n]) {
            fail_msg("%s (%s): batch %" PRId64 " digest %016" PRIx64
                     ", expected %016" PRIx64, sql, pre ? pre : "", n,
                     v->digest, want[n]);
        }
        got[n++] = v->digest;
    }
    if (rc != GNNDB_DONE) fail_msg("%s: %s", sql, gnndb_errmsg(f->d.h));
    assert_int_equal(n, total);
    int64_t hb = gnndb_stmt_status(st, GNNDB_STATUS_HYPERBATCH);
    f->spilled = gnndb_stmt_status(st, GNNDB_STATUS_SPILL_WRITTEN);
    gnndb_finalize(st);
    return hb;
}

/* Spilled rounds (PRAGMA spill = 'on', HYPERBATCH 3 and 8) hand out the
** reference's batches, array for array and digest for digest, through the
** spill area; and under a memory limit that spills by itself. */
static int spilled_case(fx *f, const tcase *c, const uint64_t *ref,
                        uint64_t *got, int64_t total)
{
    char sql[1024];
    const char *hb[] = {"HYPERBATCH 3", "HYPERBATCH 8"};
    for (int k = 0; k < 2; k++) {
        case_sql(c, hb[k], sql, sizeof sql);
        run_case(f, c, "PRAGMA spill = 'on'; PRAGMA threads = 2;", sql, 1,
                 NULL, got);
        assert_true(f->spilled > 0);
        assert_memory_equal(got, ref, (size_t)total * 8);
    }
    case_sql(c, "", sql, sizeof sql);
    run_case(f, c, "PRAGMA spill = 'auto'; PRAGMA memory_limit = '8MB';",
             sql, 0, ref, got);
    exec_ok(f->d.h, "PRAGMA memory_limit = '1GB'; PRAGMA threads = 4;");
    return f->spilled > 0;
}

/* Each statement's batches equal the reference's, array for array and
** digest for digest; and the same digests come with HYPERBATCH 1 and 3,
** with one thread, reading 64KB blocks in pages through pread, under a
** memory limit that lowers HYPERBATCH, and spilled (spilled_case). */
static void typed_batches_match_reference(void **state)
{
    fx *f = *state;
    int lowered = 0, spilled = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const tcase *c = &cases[i];
        int64_t total = case_batches(c);
        uint64_t *ref = calloc((size_t)total, 8);
        uint64_t *got = calloc((size_t)total, 8);
        char sql[1024];
        case_sql(c, "", sql, sizeof sql);
        int64_t h = run_case(f, c, "PRAGMA threads = 4;", sql, 1, NULL, ref);
        case_sql(c, "HYPERBATCH 1", sql, sizeof sql);
        run_case(f, c, NULL, sql, 0, ref, got);
        case_sql(c, "HYPERBATCH 3", sql, sizeof sql);
        run_case(f, c, "PRAGMA threads = 1;", sql, 0, ref, got);
        case_sql(c, "", sql, sizeof sql);
        run_case(f, c, NULL, sql, 0, ref, got);
        run_case(f, c, "PRAGMA read_granularity = 'page'; PRAGMA io = "
                 "'pread';", sql, 0, ref, got);
        exec_ok(f->d.h, "PRAGMA read_granularity = 'auto'; PRAGMA io = "
                        "'auto';");
        lowered += run_case(f, c, "PRAGMA threads = 2; PRAGMA spill = 'off'; "
                            "PRAGMA memory_limit = '8MB';", sql, 0, ref,
                            got) < h;
        exec_ok(f->d.h, "PRAGMA memory_limit = '1GB'; PRAGMA threads = 4;");
        spilled += spilled_case(f, c, ref, got, total);
        free(ref);
        free(got);
    }
    assert_true(lowered >= 3);
    assert_true(spilled >= 2);
}

/* PARTITION k OF 3 of a shuffled typed SAMPLE: each rank's batches are
** the reference's over its slice of each epoch's order, and the ranks'
** seeds together are each epoch's seeds once. */
static void typed_partitions_match_reference(void **state)
{
    fx *f = *state;
    const tcase *c = &cases[1];
    query q;
    to_query(f, c, &q);
    q.part_n = 3;
    int *seen = calloc(2 * P, sizeof *seen);
    for (q.part_k = 0; q.part_k < 3; q.part_k++) {
        char sql[1024], extra[64];
        snprintf(extra, sizeof extra, "PARTITION %" PRId64 " OF 3", q.part_k);
        case_sql(c, extra, sql, sizeof sql);
        gnndb_stmt *st;
        if (gnndb_prepare(f->d.h, sql, -1, &st, NULL))
            fail_msg("%s: %s", sql, gnndb_errmsg(f->d.h));
        int rc;
        while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
            const gnndb_batch_view *v = tu_batch(st);
            refb r = ref_sample(f, &q, v->epoch, v->batch);
            check_batch(f, &q, &r, v);
            for (int64_t i = 0; i < r.ns; i++)
                seen[v->epoch * P + r.node[i]]++;
            ref_free(&r);
        }
        if (rc != GNNDB_DONE) fail_msg("%s: %s", sql, gnndb_errmsg(f->d.h));
        gnndb_finalize(st);
    }
    for (int e = 0; e < 2; e++) {
        int64_t n = 0;
        for (int i = 0; i < NTRAIN; i++)
            assert_int_equal(seen[e * P + f->train[i]], 1);
        for (int p = 0; p < P; p++) n += seen[e * P + p];
        assert_int_equal(n, NTRAIN);
    }
    free(seen);
}

/* ---------- uniformity per relation ---------- */

static void make_split(fx *f, const char *type, const char *ids)
{
    char path[1200], sql[1400];
    snprintf(path, sizeof path, "%s/hub_%s.txt", f->d.dir, type);
    assert_int_equal(tu_write_file(path, ids, strlen(ids)), 0);
    snprintf(sql, sizeof sql, "CREATE SPLIT hub ON mag.%s FROM '%s';", type,
             path);
    exec_ok(f->d.h, sql);
}

/* The neighbours relation `rel` drew for the hub (local id `hub`) over the
** batches of sql: count[u] per source local id u. */
static void count_draws(fx *f, const char *sql, const char *rel, int64_t hub,
                        int fan, int64_t *count)
{
    gnndb_stmt *st;
    if (gnndb_prepare(f->d.h, sql, -1, &st, NULL))
        fail_msg("%s: %s", sql, gnndb_errmsg(f->d.h));
    int r = rel_no(f, rel), rc;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
        const gnndb_batch_view *v = tu_batch(st);
        const gnndb_rel_view *rv = &v->rels[r];
        const gnndb_type_view *s = &v->types[rv->src_type];
        const gnndb_type_view *d = &v->types[rv->dst_type];
        int got = 0;
        for (int64_t e = 0; e < rv->num_edges; e++) {
            if (d->n_id[rv->edge_index[rv->num_edges + e]] != hub) continue;
            count[s->n_id[rv->edge_index[e]]]++;
            got++;
        }
        assert_int_equal(got, fan);
    }
    if (rc != GNNDB_DONE) fail_msg("%s: %s", sql, gnndb_errmsg(f->d.h));
    gnndb_finalize(st);
}

/* Pearson's statistic of count[] against `draws` spread evenly over the
** hub's in-list (each source once); fails 5 sd above its mean; and the
** list's first and last 500 entries (different blocks) are drawn alike. */
static void check_uniform(const fx *f, const char *name, int64_t hub,
                          const int64_t *count, int64_t draws)
{
    const rel *r = &f->rels[rel_no(f, name)];
    int64_t g = hub + tfirst[r->dst];
    const int64_t *nb = r->nbr + r->off[g];
    int64_t d = r->off[g + 1] - r->off[g];
    assert_true(d > 1000);
    double expect = (double)draws / (double)d, chi = 0;
    int64_t first = 0, last = 0, sum = 0;
    for (int64_t i = 0; i < d; i++) {
        int64_t u = nb[i] - tfirst[r->src];
        assert_true(i == 0 || nb[i] > nb[i - 1]);
        double c = (double)count[u];
        chi += (c - expect) * (c - expect) / expect;
        sum += count[u];
        if (i < 500) first += count[u];
        if (i >= d - 500) last += count[u];
    }
    assert_int_equal(sum, draws);  /* nothing drawn off the list */
    double dof = (double)(d - 1);
    if (chi > dof + 5 * sqrt(2 * dof))
        fail_msg("%s at %" PRId64 ": chi-square %.1f, dof %.0f", name, hub,
                 chi, dof);
    assert_true(fabs((double)first - (double)last) < 0.15 * (double)first);
}

/* Each relation's draws at its hub are uniform over the hub's in-list of
** 1500 to 3000 sources spanning blocks: cites and writes at two papers,
** written_by at an author, topic_of at a field; relations keyed apart
** (the two papers' draws come from one statement). */
static void relation_draws_are_uniform(void **state)
{
    fx *f = *state;
    const int fan = 10, epochs = 3000;
    char ids[32], sql[512];
    snprintf(ids, sizeof ids, "%d\n%d\n", HUB_CITED, HUB_PAPER);
    make_split(f, "paper", ids);
    snprintf(ids, sizeof ids, "%d\n", HUB_AUTHOR);
    make_split(f, "author", ids);
    make_split(f, "field", "0\n");
    int64_t *cited = calloc(P, 8), *wrote = calloc(A, 8), *c = calloc(P, 8);
    snprintf(sql, sizeof sql, "SAMPLE {cites: %d, writes: %d} FROM mag SEEDS "
             "paper.hub BATCH 2 SEED 17 EPOCHS %d;", fan, fan, epochs);
    count_draws(f, sql, "cites", HUB_CITED, fan, cited);
    count_draws(f, sql, "writes", HUB_PAPER, fan, wrote);
    check_uniform(f, "cites", HUB_CITED, cited, (int64_t)fan * epochs);
    check_uniform(f, "writes", HUB_PAPER, wrote, (int64_t)fan * epochs);
    snprintf(sql, sizeof sql, "SAMPLE {written_by: %d} FROM mag SEEDS "
             "author.hub BATCH 1 SEED 18 EPOCHS %d;", fan, epochs);
    count_draws(f, sql, "written_by", HUB_AUTHOR, fan, c);
    check_uniform(f, "written_by", HUB_AUTHOR, c, (int64_t)fan * epochs);
    memset(c, 0, P * 8);
    snprintf(sql, sizeof sql, "SAMPLE {topic_of: %d} FROM mag SEEDS "
             "field.hub BATCH 1 SEED 19 EPOCHS %d;", fan, epochs);
    count_draws(f, sql, "topic_of", 0, fan, c);
    check_uniform(f, "topic_of", 0, c, (int64_t)fan * epochs);
    free(cited);
    free(wrote);
    free(c);
}

/* ---------- bad inputs ---------- */

/* the rows of a statement as one string, a line each */
static int collect(void *arg, int ncol, char **v, char **names)
{
    char *s = arg;
    size_t l = strlen(s);
    for (int i = 0; i < ncol; i++)
        l += (size_t)snprintf(s + l, 65536 - l, "%s%s", i ? "|" : "",
                              v[i] ? v[i] : "");
    snprintf(s + l, 65536 - l, "\n");
    return 0;
}

static char *rows_of(gnndb *h, const char *sql)
{
    char *s = calloc(1, 65536);
    if (gnndb_exec(h, sql, collect, s) != GNNDB_OK)
        fail_msg("%s: %s", sql, gnndb_errmsg(h));
    return s;
}

static int count_entries(const char *dir)
{
    DIR *dp = opendir(dir);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(dp))) n++;
    closedir(dp);
    return n;
}

/* sql fails with code rc, its words hold each of w (NULL-ended), and
** DESCRIBE mag, SHOW GRAPHS and the directory are as they were (an INTO
** directory is not made). */
static void refused(fx *f, const char *sql, int rc, const char *const *w)
{
    char *before = rows_of(f->d.h, "DESCRIBE mag; SHOW GRAPHS;");
    int nf = count_entries(f->d.dir);
    int got = gnndb_exec(f->d.h, sql, NULL, NULL);
    if (got != rc)
        fail_msg("%s: code %d, expected %d (%s)", sql, got, rc,
                 gnndb_errmsg(f->d.h));
    for (int i = 0; w[i]; i++)
        if (!strstr(gnndb_errmsg(f->d.h), w[i]))
            fail_msg("%s: '%s' lacks '%s'", sql, gnndb_errmsg(f->d.h), w[i]);
    char *after = rows_of(f->d.h, "DESCRIBE mag; SHOW GRAPHS;");
    assert_string_equal(before, after);
    assert_int_equal(count_entries(f->d.dir), nf);
    free(before);
    free(after);
}

static void bad_typed_samples_are_refused(void **state)
{
    fx *f = *state;
    char sql[2048];
    snprintf(sql, sizeof sql, "CREATE GRAPH plain FROM '%s/cites.csv';",
             f->d.dir);
    exec_ok(f->d.h, sql);
    snprintf(sql, sizeof sql, "SAMPLE [{cites: 2}, {cites: 2, venue_of: 3}] "
             "FROM mag SEEDS paper.train BATCH 8 INTO '%s/out';", f->d.dir);
    refused(f, sql, GNNDB_NOTFOUND, (const char *const[]){
        "hop 2", "relation venue_of", "graph mag does not have", NULL});
    refused(f, "SAMPLE {cites: 2} FROM mag SEEDS venue.train BATCH 8;",
            GNNDB_NOTFOUND, (const char *const[]){
        "graph mag has no node type venue", NULL});
    refused(f, "SAMPLE {cites: 2} FROM mag SEEDS author.train BATCH 8;",
            GNNDB_NOTFOUND, (const char *const[]){"train", NULL});
    refused(f, "SAMPLE {cites: 2} FROM mag SEEDS train BATCH 8;",
            GNNDB_ERROR, (const char *const[]){"SEEDS type.split", NULL});
    refused(f, "SAMPLE {cites: 2} FROM mag SEEDS paper.train FEATURES "
            "nosuch BATCH 8;", GNNDB_NOTFOUND, (const char *const[]){
        "no node type of graph mag has a feature table nosuch", NULL});
    refused(f, "SAMPLE {cites: 2} FROM mag BATCH 8;", GNNDB_ERROR,
            (const char *const[]){"SEEDS type.split", NULL});
    refused(f, "SAMPLE {cites: 2} * 2 FROM plain BATCH 8;", GNNDB_MISUSE,
            (const char *const[]){"graph plain has no node types",
                                  "SAMPLE 10,5", NULL});
    refused(f, "SAMPLE 5 FROM plain SEEDS paper.train BATCH 8;",
            GNNDB_MISUSE, (const char *const[]){"plain", NULL});
    snprintf(sql, sizeof sql, "SAMPLE 5, 5 FROM mag SEEDS paper.train BATCH 8 "
             "INTO '%s/out';", f->d.dir);
    refused(f, sql, GNNDB_MISUSE, (const char *const[]){
        "graph mag is typed", "{r: 10}", NULL});
    exec_ok(f->d.h, "DROP GRAPH plain;");
}

/* A relation whose targets the hop before reached none of samples nothing
** there: EXPLAIN
** warns (an error only under PRAGMA strict, below), the SAMPLE runs, and
** its edges of that relation are none. */
static void unreached_relation_is_a_warning(void **state)
{
    fx *f = *state;
    const char *q = "SAMPLE {cites: 2, topic_of: 3} * 2 FROM mag SEEDS "
                    "paper.train BATCH 64 SEED 1;";
    char sql[512];
    snprintf(sql, sizeof sql, "EXPLAIN %s", q);
    char *plan = rows_of(f->d.h, sql);
    if (!strstr(plan, "warning: hop 1 samples relation topic_of, whose "
                      "targets (field) are not among the nodes it starts "
                      "from"))
        fail_msg("no warning in\n%s", plan);
    free(plan);
    /* it stays when memory_limit lowers HYPERBATCH */
    plan = rows_of(f->d.h, "PRAGMA memory_limit = '7MB'; EXPLAIN SAMPLE "
                   "[{cites: 5, writes: 5}, {topic_of: 3}] FROM mag SEEDS "
                   "paper.train BATCH 8 SEED 1;");
    exec_ok(f->d.h, "PRAGMA memory_limit = '1GB';");
    if (!strstr(plan, "reduced from") ||
        !strstr(plan, "warning: hop 2 samples relation topic_of"))
        fail_msg("lost the reduction or the warning in\n%s", plan);
    free(plan);
    /* reached at hop 1 by has_topic: no warning */
    plan = rows_of(f->d.h, "EXPLAIN SAMPLE [{has_topic: 2}, {topic_of: 3}] "
                   "FROM mag SEEDS paper.train BATCH 64 SEED 1;");
    assert_null(strstr(plan, "warning"));
    free(plan);
    gnndb_stmt *st;
    assert_int_equal(gnndb_prepare(f->d.h, q, -1, &st, NULL), GNNDB_OK);
    int rc, n = 0, r = rel_no(f, "topic_of");
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
        const gnndb_batch_view *v = tu_batch(st);
        assert_int_equal(v->rels[r].num_edges, 0);
        assert_int_equal(v->types[2].num_nodes, 0);
        n++;
    }
    assert_int_equal(rc, GNNDB_DONE);
    assert_int_equal(n, (NTRAIN + 63) / 64);
    gnndb_finalize(st);
}

/* Under PRAGMA strict the same warning refuses, at prepare, every form of
** the SAMPLE that would run, with GNNDB_ERROR, the relation, its hops and
** the type never reached, the database as it was; plain EXPLAIN still
** explains, the warning saying so beside a reduced HYPERBATCH's note; a
** map without the warning runs; strict off, it runs again. */
static void unreached_relation_is_an_error_under_strict(void **state)
{
    fx *f = *state;
    const char *q = "SAMPLE {cites: 2, topic_of: 3} * 2 FROM mag SEEDS "
                    "paper.train BATCH 64 SEED 1";
    const char *const words[] = {
        "PRAGMA strict", "relation topic_of would sample nothing",
        "targets (field) are never among the nodes a hop naming it starts "
        "from", "drop topic_of from the map of hops 1, 2",
        "PRAGMA strict = off", NULL};
    char sql[1024];
    exec_ok(f->d.h, "PRAGMA strict = on;");
    snprintf(sql, sizeof sql, "%s INTO '%s/out';", q, f->d.dir);
    refused(f, sql, GNNDB_ERROR, words);
    snprintf(sql, sizeof sql, "EXPLAIN ANALYZE %s;", q);
    refused(f, sql, GNNDB_ERROR, words);
    gnndb_stmt *st = NULL;
    snprintf(sql, sizeof sql, "%s;", q);
    assert_int_equal(gnndb_prepare(f->d.h, sql, -1, &st, NULL), GNNDB_ERROR);
    assert_null(st);
    char *plan = rows_of(f->d.h, "PRAGMA memory_limit = '7MB'; EXPLAIN SAMPLE "
                         "[{cites: 5, writes: 5}, {topic_of: 3}] FROM mag "
                         "SEEDS paper.train BATCH 8 SEED 1;");
    exec_ok(f->d.h, "PRAGMA memory_limit = '1GB';");
    if (!strstr(plan, "reduced from") ||
        !strstr(plan, "warning: hop 2 samples relation topic_of, whose "
                      "targets (field) are not among the nodes it starts "
                      "from; PRAGMA strict refuses to run it"))
        fail_msg("lost the reduction or the warning in\n%s", plan);
    free(plan);
    assert_int_equal(gnndb_prepare(f->d.h, "SAMPLE [{has_topic: 2}, "
                                   "{topic_of: 3}] FROM mag SEEDS paper.train "
                                   "BATCH 64 SEED 1;", -1, &st, NULL),
                     GNNDB_OK);
    gnndb_finalize(st);
    exec_ok(f->d.h, "PRAGMA strict = off;");
    assert_int_equal(gnndb_prepare(f->d.h, sql, -1, &st, NULL), GNNDB_OK);
    gnndb_finalize(st);
}

/* EXPLAIN of a typed plan names per hop the relations sampled into each
** target type with their fanouts and source types, the types' feature
** tables, and the seeds' type and split. */
static void typed_explain_names_relations(void **state)
{
    fx *f = *state;
    static const char *const want[] = {
        "-> gather paper.feat (8 x float32), author.emb (5 x float32) "
        "+ labels\n",
        "-> sample hop 3: writes 2, has_topic all (paper <- author, field) "
        "with replacement: est. ",
        "-> sample hop 2: cites all (paper <- paper); written_by 2 (author "
        "<- paper); topic_of 3 (field <- paper) with replacement: est. ",
        "-> sample hop 1: cites 4, writes 3, has_topic 2 (paper <- paper, "
        "author, field) with replacement: est. ",
        "-> scan split paper.train: 600 seeds, BATCH 50, shuffled order\n",
        NULL};
    char *plan = rows_of(f->d.h, "EXPLAIN SAMPLE [{cites: 4, writes: 3, "
                         "has_topic: 2}, {written_by: 2, cites: -1, topic_of: "
                         "3}, {writes: 2, has_topic: -1}] FROM mag SEEDS "
                         "paper.train BATCH 50 SHUFFLE SEED 21 WITH "
                         "REPLACEMENT;");
    for (int i = 0; want[i]; i++)
        if (!strstr(plan, want[i]))
            fail_msg("no '%s' in\n%s", want[i], plan);
    assert_null(strstr(plan, "fanout"));
    assert_null(strstr(plan, "warning"));
    free(plan);
    plan = rows_of(f->d.h, "EXPLAIN SAMPLE {written_by: 3} * 2 FROM mag "
                   "SEEDS author.ALL BATCH 100 SEED 1;");
    if (!strstr(plan, "-> scan all author nodes: 1500 seeds, BATCH 100, "
                      "ascending order\n") ||
        !strstr(plan, "-> sample hop 2: written_by 3 (author <- paper): ") ||
        !strstr(plan, "-> gather paper.feat (8 x float32), author.emb (5 x "
                      "float32)\n"))
        fail_msg("author seeds:\n%s", plan);
    free(plan);
}

/* A typed batch's row: the node batch's columns, feature_bytes the
** types' x, then nodes per type and edges per relation as name=count. */
static void typed_row_summarises_types(void **state)
{
    fx *f = *state;
    gnndb_stmt *st;
    const char *sql = "SAMPLE {cites: 5, writes: 3, written_by: 2, has_topic: "
                      "2, topic_of: 4} * 2 FROM mag SEEDS paper.train BATCH "
                      "64 SEED 9 LIMIT 3;";
    assert_int_equal(gnndb_prepare(f->d.h, sql, -1, &st, NULL), GNNDB_OK);
    static const char *const cols[] = {
        "epoch", "batch", "seeds", "nodes", "edges", "feature_bytes", "types",
        "relations", "digest"};
    int rc;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
        const gnndb_batch_view *v = tu_batch(st);
        assert_int_equal(gnndb_column_count(st), 9);
        for (int i = 0; i < 9; i++)
            assert_string_equal(gnndb_column_name(st, i), cols[i]);
        assert_int_equal(gnndb_column_int64(st, 3), v->num_nodes);
        assert_int_equal(gnndb_column_int64(st, 5),
                         (v->types[0].num_nodes * PDIM +
                          v->types[1].num_nodes * ADIM) * 4);
        char want[512];
        snprintf(want, sizeof want, "paper=%" PRId64 " author=%" PRId64
                 " field=%" PRId64, v->types[0].num_nodes,
                 v->types[1].num_nodes, v->types[2].num_nodes);
        assert_string_equal(gnndb_column_text(st, 6), want);
        size_t o = 0;
        for (int r = 0; r < f->nrels; r++)
            o += (size_t)snprintf(want + o, sizeof want - o, "%s%s=%" PRId64,
                                  r ? " " : "", f->rels[r].name,
                                  v->rels[r].num_edges);
        assert_string_equal(gnndb_column_text(st, 7), want);
        char dg[32];
        snprintf(dg, sizeof dg, "%016" PRIx64, v->digest);
        assert_string_equal(gnndb_column_text(st, 8), dg);
    }
    assert_int_equal(rc, GNNDB_DONE);
    gnndb_finalize(st);
}

/* INTO 'dir' writes each type's and relation's arrays as .npy files equal
** to the batch's view. */
static void typed_into_writes_types_and_relations(void **state)
{
    fx *f = *state;
    const char *q = "SAMPLE [{cites: 3, writes: 2, topic_of: 1}, {written_by: "
                    "2}] FROM mag SEEDS paper.train BATCH 64 SEED 2 LIMIT 2";
    char sql[1400], path[1400];
    snprintf(sql, sizeof sql, "%s INTO '%s/into';", q, f->d.dir);
    exec_ok(f->d.h, sql);
    snprintf(sql, sizeof sql, "%s;", q);
    gnndb_stmt *st;
    assert_int_equal(gnndb_prepare(f->d.h, sql, -1, &st, NULL), GNNDB_OK);
    int rc;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
        const gnndb_batch_view *v = tu_batch(st);
        char dir[1300];
        snprintf(dir, sizeof dir, "%s/into/epoch-0/batch-%06" PRId64,
                 f->d.dir, v->batch);
        size_t b;
        for (int t = 0; t < NTYPES; t++) {
            const gnndb_type_view *tv = &v->types[t];
            snprintf(path, sizeof path, "%s/%s.n_id.npy", dir, tname[t]);
            int64_t *nid = tu_load_npy(path, &b);
            assert_non_null(nid);
            assert_int_equal(b, (size_t)tv->num_nodes * 8);
            if (b) assert_memory_equal(nid, tv->n_id, b);
            free(nid);
            snprintf(path, sizeof path, "%s/%s.x.npy", dir, tname[t]);
            float *x = tu_load_npy(path, &b);
            assert_true((x != NULL) == (tv->x != NULL));
            if (x && b) assert_memory_equal(x, tv->x, b);
            if (x) assert_int_equal(b, (size_t)(tv->num_nodes * tv->x_dim) * 4);
            free(x);
            snprintf(path, sizeof path, "%s/%s.y.npy", dir, tname[t]);
            int64_t *y = tu_load_npy(path, &b);
            assert_true((y != NULL) == (t == 0));
            if (y) assert_memory_equal(y, tv->y, (size_t)tv->num_seeds * 8);
            free(y);
        }
        for (int r = 0; r < f->nrels; r++) {
            const gnndb_rel_view *rv = &v->rels[r];
            snprintf(path, sizeof path, "%s/%s.edge_index.npy", dir,
                     rv->name);
            int64_t *ei = tu_load_npy(path, &b);
            assert_non_null(ei);
            assert_int_equal(b, (size_t)rv->num_edges * 16);
            if (b) assert_memory_equal(ei, rv->edge_index, b);
            free(ei);
            snprintf(path, sizeof path, "%s/%s.num_sampled_edges.npy", dir,
                     rv->name);
            int64_t *ns = tu_load_npy(path, &b);
            assert_non_null(ns);
            assert_memory_equal(ns, rv->num_sampled_edges, 2 * 8);
            free(ns);
        }
    }
    assert_int_equal(rc, GNNDB_DONE);
    gnndb_finalize(st);
}

/* Rows of an edge feature file: relation base's input edge i gets
** (i, s, d, i * 0.5) for writes (dim 4), (-i, s) for cites (dim 2). */
static float *edge_rows(const pairs *p, int dim)
{
    float *w = malloc((p->n + 1) * (size_t)dim * sizeof *w);
    for (size_t i = 0; i < p->n; i++) {
        float *row = w + i * (size_t)dim;
        row[0] = dim == 4 ? (float)i : -(float)i;
        row[1] = (float)p->s[i];
        if (dim == 4) {
            row[2] = (float)p->d[i];
            row[3] = (float)i * 0.5f;
        }
    }
    return w;
}

/* Relation r's edges in batch v: each e_id is an input edge of its file
** whose endpoints are the edge's (turned round for a reverse), and
** edge_attr, where the relation has w, is that input edge's row. */
static void check_rel_edges(const fx *f, const gnndb_batch_view *v, int r,
                            const float *rows, int dim)
{
    const gnndb_rel_view *rv = &v->rels[r];
    const rel *rl = &f->rels[r];
    int rev = !strcmp(rl->name, "written_by") || !strcmp(rl->name, "topic_of");
    const pairs *p = !strcmp(rl->name, "cites") ? &f->cites
                     : strstr(rl->name, "topic") ? &f->topic : &f->writes;
    assert_non_null(rv->e_id);
    assert_int_equal(rv->edge_attr_dim, rows ? dim : 0);
    if (!rows) assert_null(rv->edge_attr);
    const int64_t *sn = v->types[rv->src_type].n_id;
    const int64_t *dn = v->types[rv->dst_type].n_id;
    for (int64_t k = 0; k < rv->num_edges; k++) {
        int64_t e = rv->e_id[k];
        assert_true(e >= 0 && (size_t)e < p->n);
        uint32_t s = rev ? p->d[e] : p->s[e], d = rev ? p->s[e] : p->d[e];
        assert_int_equal(sn[rv->edge_index[k]], s);
        assert_int_equal(dn[rv->edge_index[rv->num_edges + k]], d);
        if (rows)
            assert_memory_equal(rv->edge_attr + k * dim, rows + e * dim,
                                (size_t)dim * 4);
    }
}

/* The batches of q with EDGE FEATURES w equal q's without it, type for
** type and relation for relation, and add e_id and edge_attr (checked by
** check_rel_edges); their digests (from pre's settings) go to got[]. */
static int64_t run_edge_features(fx *f, const char *pre, const char *q,
                                 const float *wrows, const float *crows,
                                 uint64_t *got)
{
    char sql[1024];
    gnndb_stmt *plain, *st;
    snprintf(sql, sizeof sql, "%s;", q);
    assert_int_equal(gnndb_prepare(f->d.h, sql, -1, &plain, NULL), GNNDB_OK);
    if (pre) exec_ok(f->d.h, pre);
    snprintf(sql, sizeof sql, "%s EDGE FEATURES w;", q);
    if (gnndb_prepare(f->d.h, sql, -1, &st, NULL))
        fail_msg("%s: %s", sql, gnndb_errmsg(f->d.h));
    int64_t n = 0;
    int rc;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
        assert_int_equal(gnndb_step(plain), GNNDB_BATCH);
        const gnndb_batch_view *v = tu_batch(st), *u = tu_batch(plain);
        for (int t = 0; t < NTYPES; t++) {
            assert_int_equal(v->types[t].num_nodes, u->types[t].num_nodes);
            assert_memory_equal(v->types[t].n_id, u->types[t].n_id,
                                (size_t)u->types[t].num_nodes * 8 + 1);
        }
        for (int r = 0; r < f->nrels; r++) {
            const gnndb_rel_view *a = &v->rels[r], *b = &u->rels[r];
            assert_int_equal(a->num_edges, b->num_edges);
            assert_memory_equal(a->edge_index, b->edge_index,
                                (size_t)b->num_edges * 16 + 1);
            assert_null(b->e_id);
            const char *nm = f->rels[r].name;
            int w = !strcmp(nm, "writes") || !strcmp(nm, "written_by");
            check_rel_edges(f, v, r, w ? wrows : !strcmp(nm, "cites") ? crows
                                                                      : NULL,
                            w ? 4 : 2);
        }
        assert_true(v->digest != u->digest);
        got[n++] = v->digest;
        f->spilled = gnndb_stmt_status(st, GNNDB_STATUS_SPILL_WRITTEN);
    }
    if (rc != GNNDB_DONE) fail_msg("%s (%s): %s", sql, pre ? pre : "",
                                   gnndb_errmsg(f->d.h));
    assert_int_equal(gnndb_step(plain), GNNDB_DONE);
    gnndb_finalize(st);
    gnndb_finalize(plain);
    exec_ok(f->d.h, "PRAGMA threads = 4; PRAGMA memory_limit = '1GB'; "
                    "PRAGMA read_granularity = 'auto'; PRAGMA io = 'auto';");
    return n;
}

/* EDGE FEATURES w on the typed graph: w imported into writes (so its
** reverse written_by has it too) and cites, not the topic relations,
** which carry e_id without edge_attr. The same batches, digest for digest,
** with HYPERBATCH 1, one thread, pages through pread, a small memory limit
** and spilled; w missing from every sampled relation is refused. */
static void typed_edge_features_are_their_edges_rows(void **state)
{
    fx *f = *state;
    float *wrows = edge_rows(&f->writes, 4), *crows = edge_rows(&f->cites, 2);
    char wp[1200], cp[1200], sql[4096];
    snprintf(wp, sizeof wp, "%s/wrows.npy", f->d.dir);
    snprintf(cp, sizeof cp, "%s/crows.npy", f->d.dir);
    assert_int_equal(tu_write_npy(wp, "<f4", wrows, (int64_t)f->writes.n, 4,
                                  4), 0);
    assert_int_equal(tu_write_npy(cp, "<f4", crows, (int64_t)f->cites.n, 2,
                                  4), 0);
    snprintf(sql, sizeof sql, "IMPORT EDGE FEATURES w INTO mag.writes FROM "
             "'%s'; IMPORT EDGE FEATURES w INTO mag.cites FROM '%s';", wp, cp);
    exec_ok(f->d.h, sql);
    const char *q = "SAMPLE {cites: 5, writes: 3, written_by: 2, has_topic: "
                    "2, topic_of: 4} * 2 FROM mag SEEDS paper.train BATCH 64 "
                    "SHUFFLE SEED 9";
    uint64_t ref[64], got[64];
    int64_t n = run_edge_features(f, NULL, q, wrows, crows, ref);
    assert_int_equal(n, (NTRAIN + 63) / 64);
    const char *pre[] = {"PRAGMA threads = 1;",
                         "PRAGMA read_granularity = 'page'; PRAGMA io = "
                         "'pread';",
                         "PRAGMA threads = 2; PRAGMA memory_limit = '8MB';",
                         "PRAGMA spill = 'on';"};
    for (size_t k = 0; k < sizeof pre / sizeof *pre; k++) {
        memset(got, 0, sizeof got);
        assert_int_equal(run_edge_features(f, pre[k], q, wrows, crows, got),
                         n);
        assert_memory_equal(got, ref, (size_t)n * 8);
    }
    /* spilled, the edge rows too (the last run, PRAGMA spill = 'on') */
    assert_true(f->spilled > 0);
    exec_ok(f->d.h, "PRAGMA spill = 'auto';");
    char hq[1024];
    snprintf(hq, sizeof hq, "%s HYPERBATCH 1", q);
    assert_int_equal(run_edge_features(f, NULL, hq, wrows, crows, got), n);
    assert_memory_equal(got, ref, (size_t)n * 8);
    const char *const w1[] = {"no relation this SAMPLE of graph mag samples "
                              "has an edge feature table nosuch", NULL};
    refused(f, "SAMPLE {cites: 5} FROM mag SEEDS paper.train BATCH 8 EDGE "
               "FEATURES nosuch;", GNNDB_NOTFOUND, w1);
    const char *const w2[] = {"has an edge feature table w", NULL};
    refused(f, "SAMPLE {has_topic: 5} FROM mag SEEDS paper.train BATCH 8 "
               "EDGE FEATURES w;", GNNDB_NOTFOUND, w2);
    free(wrows);
    free(crows);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(typed_batches_match_reference),
        cmocka_unit_test(typed_partitions_match_reference),
        cmocka_unit_test(relation_draws_are_uniform),
        cmocka_unit_test(bad_typed_samples_are_refused),
        cmocka_unit_test(unreached_relation_is_a_warning),
        cmocka_unit_test(unreached_relation_is_an_error_under_strict),
        cmocka_unit_test(typed_explain_names_relations),
        cmocka_unit_test(typed_row_summarises_types),
        cmocka_unit_test(typed_into_writes_types_and_relations),
        cmocka_unit_test(typed_edge_features_are_their_edges_rows),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
