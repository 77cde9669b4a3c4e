/* test_edge_ids.c — edge ids against a brute force built from the raw edge
** list: the edge-id graph's lists equal the plain graph's and each id names
** an input row with those endpoints; an undirected edge's two directions
** share its id; DROP DUPLICATES keeps the lowest; the edge table round-trips
** through edt_endpoints and edt_scan; edt_find_pairs finds the lowest stored
** id of each pair. Small blocks, a hub node and a small import budget make
** continued lists and several buckets occur. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block.h"
#include "blockfile.h"
#include "db.h"
#include "edge_table.h"
#include "sort.h"
#include "util.h"

#define NODES 2000
#define EDGES 70000
#define HUB   7        /* in-degree in the thousands: continued lists */

static uint32_t es[EDGES], ed[EDGES];   /* the input, row by row */

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Random edges with repeats (also reversed ones), self loops and a hub. */
static void make_edges(const char *path)
{
    uint64_t s = 0x9e3779b97f4a7c15ull;
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < EDGES; i++) {
        uint32_t a = (uint32_t)(rnd(&s) % NODES), b = (uint32_t)(rnd(&s) % NODES);
        uint64_t k = rnd(&s) % 100;
        if (i == EDGES - 1) a = b = NODES - 1;   /* fixes the node count */
        else if (k < 6) b = HUB;
        else if (k < 8) b = a;
        else if (k < 14 && i > 0) {
            uint64_t j = rnd(&s) % (uint64_t)i;
            a = k < 11 ? es[j] : ed[j];
            b = k < 11 ? ed[j] : es[j];
        }
        es[i] = a;
        ed[i] = b;
        fprintf(f, "%u\t%u\n", a, b);
    }
    fclose(f);
}

typedef struct variant {
    const char *opts;
    int undirected, dedup, noloops, reorder;
} variant;

/* What the graph should store: (target << 32 | source) -> ids, as sorted
** (key, id) records over external ids, duplicates dropped as asked. */
typedef struct rec { uint64_t key; uint32_t id; } rec;

static int rec_cmp(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static rec *expected(const variant *v, size_t *n)
{
    rec *r = malloc(2 * EDGES * sizeof *r);
    size_t k = 0;
    for (uint32_t i = 0; i < EDGES; i++) {
        if (es[i] == ed[i] && v->noloops) continue;
        r[k++] = (rec){(uint64_t)ed[i] << 32 | es[i], i};
        if (v->undirected && es[i] != ed[i])
            r[k++] = (rec){(uint64_t)es[i] << 32 | ed[i], i};
    }
    qsort(r, k, sizeof *r, rec_cmp);
    if (v->dedup) {
        size_t w = 0;
        for (size_t j = 0; j < k; j++)
            if (!w || r[j].key != r[w - 1].key) r[w++] = r[j];
        k = w;
    }
    *n = k;
    return r;
}

/* internal -> external ids (identity without a map) */
static int64_t *load_i2e(gnndb *db, const cat_graph *g)
{
    int64_t *m = NULL;
    if (g->has_map) {
        idx_txn *t;
        gnn_err e = {0};
        assert_int_equal(idx_begin(db->idx, 0, &t, &e), GNNDB_OK);
        assert_int_equal(idx_load_array(t, 'I', g->token, (uint64_t)g->nodes,
                                        &m, &e), GNNDB_OK);
        idx_abort(t);
        return m;
    }
    m = malloc((size_t)g->nodes * sizeof *m);
    for (int64_t i = 0; i < g->nodes; i++) m[i] = i;
    return m;
}

/* Every (target, source, id) of a graph file in file order: from the
** edge-id graph, or with id 0 from the plain one. Checks lists ascend by
** (source, id) and each node's pieces add up to its degree. */
static rec *read_lists(gnndb *db, const cat_graph *g, int eids, size_t *n)
{
    gnn_err e = {0};
    blk_file *f;
    int rc = eids ? db_open_eid_graph(db, g, 0, &f, &e)
                  : db_open_graph(db, g, 0, &f, &e);
    assert_int_equal(rc, GNNDB_OK);
    uint8_t *buf = gnn_alloc_aligned(g->block_size);
    rec *r = malloc((size_t)(g->edges + 1) * sizeof *r);
    size_t k = 0;
    int conts = 0;
    for (uint64_t b = 0; b < f->nblocks; b++) {
        assert_int_equal(blkf_read(f, b, buf, &e), GNNDB_OK);
        const blk_header *h = (const blk_header *)buf;
        assert_int_equal(!!(h->flags & BLK_FLAG_EIDS), eids);
        conts += !!(h->flags & BLK_FLAG_CONT_FIRST);
        for (uint32_t j = 0; j < h->count; j++) {
            const blk_node *o = blk_graph_object(buf, j);
            assert_true(blk_graph_object_fits(buf, j));
            for (uint32_t q = 0; q < o->n; q++) {
                assert_true(k < (size_t)g->edges);
                uint32_t id = eids ? blk_node_eids(o)[q] : 0;
                r[k++] = (rec){(uint64_t)o->node << 32 | blk_node_nbrs(o)[q],
                               id};
                if (k > 1 && r[k - 2].key >> 32 == (uint64_t)o->node)
                    assert_true(rec_cmp(&r[k - 2], &r[k - 1]) <= 0);
            }
        }
    }
    assert_true(conts > 0);  /* the hub's list was continued */
    assert_int_equal(k, (size_t)g->edges);
    gnn_free_aligned(buf);
    blkf_close(f);
    *n = k;
    return r;
}

/* The two files hold the same lists; the ids are the brute force's. */
static void check_lists(gnndb *db, const cat_graph *g, const variant *v,
                        const int64_t *i2e)
{
    size_t np, ne, nx;
    rec *p = read_lists(db, g, 0, &np);
    rec *q = read_lists(db, g, 1, &ne);
    rec *x = expected(v, &nx);
    assert_int_equal(np, ne);
    assert_int_equal(ne, nx);
    for (size_t i = 0; i < ne; i++) {
        assert_true(p[i].key == q[i].key);
        /* to external ids, for the brute force's order */
        q[i].key = (uint64_t)i2e[q[i].key >> 32] << 32 |
                   (uint64_t)i2e[(uint32_t)q[i].key];
    }
    qsort(q, ne, sizeof *q, rec_cmp);
    for (size_t i = 0; i < ne; i++) {
        assert_true(q[i].key == x[i].key);
        assert_int_equal(q[i].id, x[i].id);
    }
    free(p);
    free(q);
    free(x);
}

/* Row i of the edge table: the internal endpoints, or UINT32_MAX when no
** stored entry carries id i. */
static void expected_rows(const variant *v, const int64_t *i2e, int64_t n,
                          uint32_t *src, uint32_t *dst)
{
    uint32_t *e2i = malloc(NODES * sizeof *e2i);
    for (int64_t i = 0; i < n; i++) e2i[i2e[i]] = (uint32_t)i;
    size_t nx;
    rec *x = expected(v, &nx);
    uint8_t *kept = calloc(EDGES, 1);
    for (size_t i = 0; i < nx; i++) kept[x[i].id] = 1;
    for (uint32_t i = 0; i < EDGES; i++) {
        src[i] = kept[i] ? e2i[es[i]] : UINT32_MAX;
        dst[i] = kept[i] ? e2i[ed[i]] : UINT32_MAX;
    }
    free(kept);
    free(x);
    free(e2i);
}

typedef struct scan_acc { const uint32_t *src, *dst; uint64_t next, seen; } scan_acc;

static int on_edge(void *arg, uint64_t eid, uint32_t s, uint32_t d)
{
    scan_acc *a = arg;
    assert_true(eid >= a->next);
    for (uint64_t i = a->next; i < eid; i++) assert_true(a->src[i] == UINT32_MAX);
    assert_int_equal(s, a->src[eid]);
    assert_int_equal(d, a->dst[eid]);
    a->next = eid + 1;
    a->seen++;
    return 0;
}

static void check_table(gnndb *db, const cat_graph *g, const variant *v,
                        const int64_t *i2e, uint32_t *xs, uint32_t *xd)
{
    gnn_err e = {0};
    assert_int_equal(g->input_edges, EDGES);
    expected_rows(v, i2e, g->nodes, xs, xd);
    uint64_t *ids = malloc(EDGES * sizeof *ids);
    uint32_t *s = malloc(EDGES * sizeof *s), *d = malloc(EDGES * sizeof *d);
    for (uint64_t i = 0; i < EDGES; i++) ids[i] = i;
    assert_int_equal(edt_endpoints(db, g, ids, EDGES, s, d, &e), GNNDB_OK);
    assert_memory_equal(s, xs, EDGES * sizeof *s);
    assert_memory_equal(d, xd, EDGES * sizeof *d);
    for (uint64_t i = 0; i < 100; i++) ids[i] = (i * 7919) % EDGES;
    assert_int_equal(edt_endpoints(db, g, ids, 100, s, d, &e), GNNDB_OK);
    for (uint64_t i = 0; i < 100; i++) assert_int_equal(s[i], xs[ids[i]]);
    ids[0] = EDGES;
    assert_int_equal(edt_endpoints(db, g, ids, 1, s, d, &e), GNNDB_RANGE);
    scan_acc a = {xs, xd, 0, 0};
    assert_int_equal(edt_scan(db, g, on_edge, &a, &e), GNNDB_OK);
    for (uint64_t i = a.next; i < EDGES; i++) assert_true(xs[i] == UINT32_MAX);
    free(ids);
    free(s);
    free(d);
}

/* The lowest kept id of u -> v (internal) by brute force over the rows. */
static uint64_t lowest(const uint32_t *xs, const uint32_t *xd, int undirected,
                       uint32_t u, uint32_t v)
{
    for (uint32_t i = 0; i < EDGES; i++)
        if ((xs[i] == u && xd[i] == v) ||
            (undirected && xs[i] == v && xd[i] == u))
            return i;
    return UINT64_MAX;
}

static void check_pairs(gnndb *db, const cat_graph *g, const variant *v,
                        const uint32_t *xs, const uint32_t *xd)
{
    enum { Q = 600 };
    uint32_t s[Q], d[Q];
    uint64_t got[Q], seed = 42;
    for (int i = 0; i < Q; i++) {
        uint32_t r = (uint32_t)(rnd(&seed) % EDGES);
        int k = i % 4;
        s[i] = k == 3 ? (uint32_t)(rnd(&seed) % NODES) : k == 1 ? xd[r] : xs[r];
        d[i] = k == 3 ? (uint32_t)(rnd(&seed) % NODES) : k == 1 ? xs[r] : xd[r];
        if (xs[r] == UINT32_MAX && k != 3) s[i] = d[i] = HUB; /* dropped row */
    }
    s[0] = NODES + 5;                       /* beyond the nodes */
    gnn_err e = {0};
    assert_int_equal(edt_find_pairs(db, g, s, d, Q, got, &e), GNNDB_OK);
    for (int i = 0; i < Q; i++)
        assert_true(got[i] == lowest(xs, xd, v->undirected, s[i], d[i]));
}

static const char *edges_path(tu_db *d)
{
    static char p[2048];
    snprintf(p, sizeof p, "%s/edges.tsv", d->dir);
    return p;
}

static void exec_ok(tu_db *d, const char *sql)
{
    if (gnndb_exec(d->h, sql, NULL, NULL) != GNNDB_OK)
        fail_msg("%s: %s", sql, gnndb_errmsg(d->h));
}

static void run_variant(const variant *v)
{
    tu_db d;
    assert_int_equal(tu_db_open(&d, "eids"), GNNDB_OK);
    make_edges(edges_path(&d));
    char sql[8192];
    exec_ok(&d, "PRAGMA import_memory = '1MB';");
    snprintf(sql, sizeof sql, "CREATE GRAPH g FROM '%s' %s BLOCK SIZE 4096;",
             edges_path(&d), v->opts);
    exec_ok(&d, sql);
    cat_graph g;
    gnn_err e = {0};
    assert_int_equal(cat_graph_get(d.h->cat, "g", &g, &e), GNNDB_OK);
    assert_true(g.has_eids);
    int64_t *i2e = load_i2e(d.h, &g);
    uint32_t *xs = malloc(EDGES * sizeof *xs), *xd = malloc(EDGES * sizeof *xd);
    check_lists(d.h, &g, v, i2e);
    check_table(d.h, &g, v, i2e, xs, xd);
    check_pairs(d.h, &g, v, xs, xd);
    free(xs);
    free(xd);
    free(i2e);
    tu_db_close(&d);
}

static void test_directed_keeps_every_copy(void **state)
{
    (void)state;
    variant v = {"", 0, 0, 0, 0};
    run_variant(&v);
}

static void test_directed_drop_duplicates_keeps_lowest(void **state)
{
    (void)state;
    variant v = {"DROP DUPLICATES DROP SELF LOOPS", 0, 1, 1, 0};
    run_variant(&v);
}

static void test_undirected_directions_share_ids(void **state)
{
    (void)state;
    variant v = {"UNDIRECTED", 1, 0, 0, 0};
    run_variant(&v);
}

static void test_undirected_dedup_reordered(void **state)
{
    (void)state;
    variant v = {"UNDIRECTED DROP DUPLICATES DROP SELF LOOPS REORDER degree",
                 1, 1, 1, 1};
    run_variant(&v);
}

static void test_mapped_ids_bfs(void **state)
{
    (void)state;
    variant v = {"MAP IDS DROP DUPLICATES REORDER bfs", 0, 1, 0, 1};
    run_variant(&v);
}

/* One block of a file with its token and checksum taken out: what must
** match between two builds of the same graph under different tokens. */
static void blank(uint8_t *b)
{
    blk_header *h = (blk_header *)b;
    h->file_token = 0;
    h->checksum = 0;
}

/* The plain graph is the same with and without edge ids, block for block,
** and a graph WITHOUT EDGE IDS has none: every reader says so by name. */
static void test_plain_graph_unchanged_and_without(void **state)
{
    (void)state;
    tu_db d;
    assert_int_equal(tu_db_open(&d, "eids"), GNNDB_OK);
    make_edges(edges_path(&d));
    char sql[8192];
    snprintf(sql, sizeof sql, "CREATE GRAPH a FROM '%s' UNDIRECTED BLOCK SIZE "
             "4096; CREATE GRAPH b FROM '%s' UNDIRECTED WITHOUT EDGE IDS "
             "BLOCK SIZE 4096;", edges_path(&d), edges_path(&d));
    exec_ok(&d, sql);
    cat_graph a, b;
    gnn_err e = {0};
    assert_int_equal(cat_graph_get(d.h->cat, "a", &a, &e), GNNDB_OK);
    assert_int_equal(cat_graph_get(d.h->cat, "b", &b, &e), GNNDB_OK);
    assert_true(a.has_eids && !b.has_eids);
    assert_int_equal(a.graph_blocks, b.graph_blocks);
    blk_file *fa, *fb;
    assert_int_equal(db_open_graph(d.h, &a, 0, &fa, &e), GNNDB_OK);
    assert_int_equal(db_open_graph(d.h, &b, 1, &fb, &e), GNNDB_OK);
    uint8_t *x = gnn_alloc_aligned(4096), *y = gnn_alloc_aligned(4096);
    for (uint64_t k = 0; k < (uint64_t)a.graph_blocks; k++) {
        assert_int_equal(blkf_read(fa, k, x, &e), GNNDB_OK);
        assert_int_equal(blkf_read(fb, k, y, &e), GNNDB_OK);
        blank(x);
        blank(y);
        assert_memory_equal(x, y, 4096);
    }
    gnn_free_aligned(x);
    gnn_free_aligned(y);
    blkf_close(fa);
    blkf_close(fb);
    uint64_t id = 0, got;
    uint32_t s, t;
    gnn_clearerr(&e);
    assert_int_equal(edt_endpoints(d.h, &b, &id, 1, &s, &t, &e),
                     GNNDB_NOTFOUND);
    assert_non_null(strstr(e.msg, "graph b has no"));
    assert_non_null(strstr(e.msg, "CREATE GRAPH b again"));
    assert_int_equal(edt_find_pairs(d.h, &b, &s, &t, 1, &got, &e),
                     GNNDB_NOTFOUND);
    exec_ok(&d, "CHECK;");
    tu_db_close(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_directed_keeps_every_copy),
        cmocka_unit_test(test_directed_drop_duplicates_keeps_lowest),
        cmocka_unit_test(test_undirected_directions_share_ids),
        cmocka_unit_test(test_undirected_dedup_reordered),
        cmocka_unit_test(test_mapped_ids_bfs),
        cmocka_unit_test(test_plain_graph_unchanged_and_without),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
