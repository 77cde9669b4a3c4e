/* test_import.c — the importers end to end: edge lists to graph blocks
** (adjacency read back block by block and compared with lists computed from
** the raw file), reordering, mapped ids, features and labels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "block.h"
#include "import.h"
#include "npy.h"
#include "util.h"

#define TOKEN 0x1234abcdull

static char *dir;

static int setup(void **state)
{
    (void)state;
    dir = tu_tmpdir("import");
    return dir ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    tu_rmrf(dir);
    free(dir);
    return 0;
}

static const char *in_dir(const char *name)
{
    static char p[4][1200];
    static int k;
    k = (k + 1) & 3;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

/* Files in the scratch dir other than the inputs the tests wrote: block
** files, their .tmp and importer scratch files. */
static int count_files(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *x = strrchr(de->d_name, '.');
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        if (x && (!strcmp(x, ".tsv") || !strcmp(x, ".csv") ||
                  !strcmp(x, ".bin") || !strcmp(x, ".npy") ||
                  !strcmp(x, ".txt")))
            continue;
        n++;
    }
    closedir(d);
    return n;
}

/* ---- adjacency lists ----------------------------------------------------- */

typedef struct adj {
    int64_t n;
    uint64_t *off;     /* n+1 */
    int64_t *nbr;
} adj;

static void adj_free(adj *a)
{
    free(a->off);
    free(a->nbr);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The in-neighbour lists of edges (src[i] -> dst[i]), sorted. */
static adj adj_from_edges(int64_t n, const int64_t *src, const int64_t *dst,
                          size_t m)
{
    adj a = {n, calloc((size_t)n + 1, 8), malloc((m ? m : 1) * 8)};
    for (size_t i = 0; i < m; i++) a.off[dst[i] + 1]++;
    for (int64_t v = 0; v < n; v++) a.off[v + 1] += a.off[v];
    uint64_t *at = malloc(((size_t)n + 1) * 8);
    memcpy(at, a.off, ((size_t)n + 1) * 8);
    for (size_t i = 0; i < m; i++) a.nbr[at[dst[i]]++] = src[i];
    for (int64_t v = 0; v < n; v++)
        qsort(a.nbr + a.off[v], a.off[v + 1] - a.off[v], 8, cmp_i64);
    free(at);
    return a;
}

/* Read a graph block file with pread, verify every block, walk its objects
** (continuations included) and rebuild the adjacency. Checks the index
** entries and checksums of the result on the way. */
static adj adj_from_blocks(const char *path, uint32_t bs,
                           const imp_graph_result *res)
{
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    off_t size = lseek(fd, 0, SEEK_END);
    assert_int_equal((uint64_t)size, res->nblocks * bs);
    int64_t n = res->nodes;
    adj a = {n, calloc((size_t)n + 1, 8),
             malloc(((size_t)res->edges + 1) * 8)};
    uint8_t *b = malloc(bs);
    uint64_t cur = 0;       /* nodes completed */
    int64_t open_node = -1; /* node whose list continues */
    uint32_t open_left = 0;
    uint64_t fill = 0;
    size_t idx = 0;
    uint32_t cap = blk_graph_cont_capacity(bs);
    for (uint64_t no = 0; no < res->nblocks; no++) {
        assert_int_equal(pread(fd, b, bs, (off_t)(no * bs)), (ssize_t)bs);
        gnn_err e = {0};
        if (blk_verify(b, bs, BLK_KIND_GRAPH, no, TOKEN, path, &e))
            fail_msg("%s", e.msg);
        const blk_header *h = (const blk_header *)b;
        assert_int_equal(h->checksum, res->checksums[no]);
        int64_t first_start = -1;
        for (uint32_t k = 0; k < h->count; k++) {
            const blk_node *o = blk_graph_object(b, k);
            if (o->start == 0) {
                assert_int_equal(open_left, 0);
                assert_int_equal(o->node, cur);
                if (first_start < 0) first_start = o->node;
                open_node = o->node;
                open_left = o->degree;
                a.off[o->node] = fill;
            } else {
                /* a continuation: first object, flagged, same node */
                assert_int_equal(k, 0);
                assert_true(h->flags & BLK_FLAG_CONT_FIRST);
                assert_int_equal(o->node, open_node);
                assert_int_equal(o->start, o->degree - open_left);
                if (o->start + o->n < o->degree) assert_int_equal(o->n, cap);
            }
            assert_true(o->n <= open_left);
            const uint32_t *nb = blk_node_nbrs(o);
            for (uint32_t j = 0; j < o->n; j++) a.nbr[fill++] = nb[j];
            open_left -= o->n;
            if (open_left == 0) cur = (uint64_t)o->node + 1;
        }
        if (first_start >= 0) {
            assert_true(idx < res->n_idx);
            assert_int_equal(res->idx_first[idx], first_start);
            assert_int_equal(res->idx_block[idx], no);
            idx++;
        }
    }
    assert_int_equal(idx, res->n_idx);
    assert_int_equal(cur, (uint64_t)n);
    assert_int_equal(fill, (uint64_t)res->edges);
    a.off[n] = fill;
    free(b);
    close(fd);
    return a;
}

static void adj_expect_equal(const adj *x, const adj *y)
{
    assert_int_equal(x->n, y->n);
    for (int64_t v = 0; v <= x->n; v++)
        if (x->off[v] != y->off[v]) fail_msg("node %lld: offsets differ",
                                             (long long)v);
    for (uint64_t i = 0; i < x->off[x->n]; i++)
        if (x->nbr[i] != y->nbr[i]) fail_msg("neighbour %llu differs",
                                             (unsigned long long)i);
}

/* Parse an edge file with plain stdio (the independent reference). */
static size_t read_pairs(const char *path, int64_t **src, int64_t **dst)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t cap = 1024, m = 0;
    *src = malloc(cap * 8);
    *dst = malloc(cap * 8);
    long long s, d;
    while (fscanf(f, "%lld %lld", &s, &d) == 2) {
        if (m == cap) {
            cap *= 2;
            *src = realloc(*src, cap * 8);
            *dst = realloc(*dst, cap * 8);
        }
        (*src)[m] = s;
        (*dst)[m++] = d;
    }
    fclose(f);
    return m;
}

static imp_graph_opts gopts(int64_t nodes, uint32_t bs)
{
    imp_graph_opts o = {0};
    o.format = 0;
    o.nodes = nodes;
    o.block_size = bs;
    o.token = TOKEN;
    return o;
}

static void check_graph_against_file(const char *edges, int64_t nodes,
                                     uint32_t bs, size_t budget)
{
    int64_t *s, *d;
    size_t m = read_pairs(edges, &s, &d);
    imp_graph_opts o = gopts(nodes, bs);
    imp_ctl ctl = {0};
    ctl.mem_budget = budget;
    imp_graph_result res;
    gnn_err e = {0};
    if (imp_graph(edges, dir, "g.blk", &o, &ctl, &res, &e)) fail_msg("%s",
                                                                     e.msg);
    int64_t n = res.nodes;
    adj want = adj_from_edges(n, s, d, m);
    adj got = adj_from_blocks(in_dir("g.blk"), bs ? bs : BLK_DEFAULT_SIZE,
                              &res);
    adj_expect_equal(&want, &got);
    assert_int_equal(res.edges, (int64_t)m);
    assert_null(res.i2e);
    assert_null(res.i2r);
    /* degree statistics agree with the lists */
    int64_t hist[64] = {0}, mn = INT64_MAX, mx = 0;
    for (int64_t v = 0; v < n; v++) {
        int64_t dg = (int64_t)(want.off[v + 1] - want.off[v]);
        int k = 0;
        while (k < 63 && dg >= ((int64_t)1 << k)) k++;
        hist[k]++;
        mn = dg < mn ? dg : mn;
        mx = dg > mx ? dg : mx;
    }
    assert_int_equal(res.min_degree, mn);
    assert_int_equal(res.max_degree, mx);
    assert_true(res.mean_degree > (double)m / n - 1e-9 &&
                res.mean_degree < (double)m / n + 1e-9);
    assert_memory_equal(hist, res.deg_hist, sizeof hist);
    assert_true(hist[res.nbuckets - 1] > 0);
    adj_free(&want);
    adj_free(&got);
    imp_graph_result_free(&res);
    free(s);
    free(d);
    unlink(in_dir("g.blk"));
    assert_int_equal(count_files(), 0);
}

/* ---- graph tests ----------------------------------------------------------- */

static void imports_cora_edges(void **state)
{
    (void)state;
    const char *edges = tu_data(0, "cora/edges.tsv");
    if (access(edges, R_OK) != 0) skip();
    imp_graph_opts o = gopts(2708, 0);
    imp_graph_result res;
    gnn_err e = {0};
    assert_int_equal(imp_graph(edges, dir, "cora.blk", &o, NULL, &res, &e),
                     GNNDB_OK);
    assert_int_equal(res.nodes, 2708);
    assert_int_equal(res.edges, 10556);
    assert_int_equal(res.nblocks, 1);
    imp_graph_result_free(&res);
    unlink(in_dir("cora.blk"));
    check_graph_against_file(edges, 2708, 0, 0);
    check_graph_against_file(edges, -1, 0, 0);
}

static void imports_cora_into_small_blocks(void **state)
{
    (void)state;
    const char *edges = tu_data(0, "cora/edges.tsv");
    if (access(edges, R_OK) != 0) skip();
    check_graph_against_file(edges, 2708, 4096, 0);
}

/* The hub's in-list spans several 4 KiB blocks; other long lists start
** mid-block and continue. */
static void splits_long_lists_across_blocks(void **state)
{
    (void)state;
    FILE *f = fopen(in_dir("star.tsv"), "w");
    for (int i = 1; i < 5000; i++) fprintf(f, "%d\t0\n", i);
    for (int i = 0; i < 3000; i++) fprintf(f, "%d\t7\n", (i * 7919) % 5000);
    for (int i = 0; i < 2500; i++) fprintf(f, "%d\t4999\n", i);
    fprintf(f, "3\t8\n");
    fclose(f);
    check_graph_against_file(in_dir("star.tsv"), -1, 4096, 0);
    check_graph_against_file(in_dir("star.tsv"), 6000, 8192, 0);
    unlink(in_dir("star.tsv"));
}

/* A budget of 1 MiB forces several target buckets. */
static void builds_in_buckets_under_a_small_budget(void **state)
{
    (void)state;
    FILE *f = fopen(in_dir("rand.tsv"), "w");
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 300000; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        uint64_t s = x % 20000, t = (x >> 32) % 20000;
        if (i % 5 == 0) t = (x >> 20) % 50; /* some high in-degree nodes */
        fprintf(f, "%llu %llu\n", (unsigned long long)s,
                (unsigned long long)t);
    }
    fclose(f);
    check_graph_against_file(in_dir("rand.tsv"), 20000, 4096, 1 << 20);
    check_graph_against_file(in_dir("rand.tsv"), 20000, 0, 0);
}

static adj import_small(const char *txt, imp_graph_opts o, imp_graph_result *res)
{
    assert_int_equal(tu_write_file(in_dir("s.tsv"), txt, strlen(txt)), 0);
    gnn_err e = {0};
    if (imp_graph(in_dir("s.tsv"), dir, "s.blk", &o, NULL, res, &e))
        fail_msg("%s", e.msg);
    adj a = adj_from_blocks(in_dir("s.blk"), o.block_size ? o.block_size
                                                          : BLK_DEFAULT_SIZE,
                            res);
    unlink(in_dir("s.blk"));
    unlink(in_dir("s.tsv"));
    return a;
}

static void list_is(const adj *a, int64_t v, const int64_t *want, size_t n)
{
    assert_int_equal(a->off[v + 1] - a->off[v], n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(a->nbr[a->off[v] + i], want[i]);
}

static void counts_undirected_duplicates_and_loops(void **state)
{
    (void)state;
    const char *g = "0 1\n0 1\n1 1\n2 0\n";
    imp_graph_result r;
    imp_graph_opts o = gopts(-1, 4096);
    adj a = import_small(g, o, &r);
    assert_int_equal(r.nodes, 3);
    assert_int_equal(r.edges, 4);
    list_is(&a, 1, (int64_t[]){0, 0, 1}, 3);
    list_is(&a, 0, (int64_t[]){2}, 1);
    adj_free(&a);
    imp_graph_result_free(&r);

    o.drop_duplicates = 1;
    a = import_small(g, o, &r);
    assert_int_equal(r.edges, 3);
    list_is(&a, 1, (int64_t[]){0, 1}, 2);
    adj_free(&a);
    imp_graph_result_free(&r);

    o.drop_duplicates = 0;
    o.drop_self_loops = 1;
    a = import_small(g, o, &r);
    assert_int_equal(r.edges, 3);
    list_is(&a, 1, (int64_t[]){0, 0}, 2);
    adj_free(&a);
    imp_graph_result_free(&r);

    o.drop_self_loops = 0;
    o.undirected = 1;  /* a self-loop is its own reverse */
    a = import_small(g, o, &r);
    assert_int_equal(r.edges, 7);
    list_is(&a, 0, (int64_t[]){1, 1, 2}, 3);
    list_is(&a, 1, (int64_t[]){0, 0, 1}, 3);
    list_is(&a, 2, (int64_t[]){0}, 1);
    adj_free(&a);
    imp_graph_result_free(&r);

    o.drop_duplicates = o.drop_self_loops = 1;
    a = import_small(g, o, &r);
    assert_int_equal(r.edges, 4);
    list_is(&a, 0, (int64_t[]){1, 2}, 2);
    list_is(&a, 1, (int64_t[]){0}, 1);
    assert_int_equal(r.min_degree, 1);
    assert_int_equal(r.max_degree, 2);
    assert_int_equal(r.median_degree, 1);
    assert_int_equal(r.deg_hist[1], 2);
    assert_int_equal(r.deg_hist[2], 1);
    assert_int_equal(r.nbuckets, 3);
    adj_free(&a);
    imp_graph_result_free(&r);

    /* declared nodes beyond the ids: isolated nodes get empty objects */
    o = gopts(10, 4096);
    a = import_small(g, o, &r);
    assert_int_equal(r.nodes, 10);
    assert_int_equal(r.min_degree, 0);
    assert_int_equal(r.deg_hist[0], 8);
    adj_free(&a);
    imp_graph_result_free(&r);
    assert_int_equal(count_files(), 0);
}

/* The permuted graph, mapped back through i2e, is the input graph. */
static void check_reorder(const char *edges, int64_t nodes, int mode,
                          uint32_t bs, int map_ids)
{
    int64_t *s, *d;
    size_t m = read_pairs(edges, &s, &d);
    imp_graph_opts o = gopts(nodes, bs);
    o.reorder = mode;
    o.map_ids = map_ids;
    imp_graph_result res;
    gnn_err e = {0};
    if (imp_graph(edges, dir, "r.blk", &o, NULL, &res, &e)) fail_msg("%s",
                                                                    e.msg);
    int64_t n = res.nodes;
    assert_non_null(res.i2e);
    /* i2e is a permutation of the ids; i2r the same (ids = rows) */
    char *seen = calloc((size_t)n, 1);
    for (int64_t i = 0; i < n; i++) {
        assert_true(res.i2e[i] >= 0 && res.i2e[i] < n);
        assert_false(seen[res.i2e[i]]);
        seen[res.i2e[i]] = 1;
        assert_int_equal(res.i2r[i], res.i2e[i]);
    }
    free(seen);
    adj got = adj_from_blocks(in_dir("r.blk"), bs ? bs : BLK_DEFAULT_SIZE,
                              &res);
    /* map back: node i2e[v] has in-neighbours i2e[got(v)] */
    int64_t *bs_ = malloc((m ? m : 1) * 8), *bd = malloc((m ? m : 1) * 8);
    size_t k = 0;
    for (int64_t v = 0; v < n; v++)
        for (uint64_t j = got.off[v]; j < got.off[v + 1]; j++) {
            bs_[k] = res.i2e[got.nbr[j]];
            bd[k++] = res.i2e[v];
            if (j > got.off[v]) assert_true(got.nbr[j - 1] <= got.nbr[j]);
        }
    assert_int_equal(k, m);
    adj back = adj_from_edges(n, bs_, bd, k);
    adj want = adj_from_edges(n, s, d, m);
    adj_expect_equal(&want, &back);
    if (mode == IMP_REORDER_DEGREE) {
        for (int64_t v = 1; v < n; v++) {
            uint64_t d0 = got.off[v] - got.off[v - 1],
                     d1 = got.off[v + 1] - got.off[v];
            assert_true(d0 > d1 || (d0 == d1 && res.i2e[v - 1] < res.i2e[v]));
        }
    } else {
        /* the root is the highest in-degree node (smallest id on ties) */
        int64_t best = 0;
        for (int64_t v = 1; v < n; v++)
            if (want.off[v + 1] - want.off[v] >
                want.off[best + 1] - want.off[best])
                best = v;
        assert_int_equal(res.i2e[0], best);
    }
    adj_free(&got);
    adj_free(&back);
    adj_free(&want);
    free(bs_);
    free(bd);
    free(s);
    free(d);
    imp_graph_result_free(&res);
    unlink(in_dir("r.blk"));
}

static void reorders_by_degree(void **state)
{
    (void)state;
    const char *edges = tu_data(0, "cora/edges.tsv");
    if (access(edges, R_OK) != 0) skip();
    check_reorder(edges, 2708, IMP_REORDER_DEGREE, 0, 0);
    check_reorder(edges, 2708, IMP_REORDER_DEGREE, 4096, 0);
}

static void reorders_breadth_first(void **state)
{
    (void)state;
    const char *edges = tu_data(0, "cora/edges.tsv");
    if (access(edges, R_OK) != 0) skip();
    check_reorder(edges, 2708, IMP_REORDER_BFS, 0, 0);
    check_reorder(edges, 2708, IMP_REORDER_BFS, 4096, 0);
    /* mapped ids that happen to be 0..n-1 reorder the same way */
    check_reorder(edges, -1, IMP_REORDER_BFS, 4096, 1);
    /* BFS neighbours are visited in order: a path 2 -> 1 -> 0 and a
    ** separate component 3 -> 4 */
    const char *g = "2 1\n1 0\n0 5\n1 5\n3 4\n";
    assert_int_equal(tu_write_file(in_dir("p.tsv"), g, strlen(g)), 0);
    imp_graph_opts o = gopts(-1, 4096);
    o.reorder = IMP_REORDER_BFS;
    imp_graph_result r;
    gnn_err e = {0};
    assert_int_equal(imp_graph(in_dir("p.tsv"), dir, "p.blk", &o, NULL, &r,
                               &e), GNNDB_OK);
    /* root 5 (in-degree 2), then its in-neighbours 0 and 1, then 2 (the
    ** in-neighbour of 1); then node 3 (lowest unvisited), then 4 */
    int64_t order[6] = {5, 0, 1, 2, 3, 4};
    for (int i = 0; i < 6; i++) assert_int_equal(r.i2e[i], order[i]);
    imp_graph_result_free(&r);
    unlink(in_dir("p.blk"));
    unlink(in_dir("p.tsv"));
}

static void maps_sparse_and_negative_keys(void **state)
{
    (void)state;
    const char *g = "-5\t1000000\n1000000\t7\n7\t-5\n123456789012\t7\n"
                    "# c\n-5\t7\n";
    imp_graph_opts o = gopts(-1, 4096);
    o.map_ids = 1;
    imp_graph_result r;
    adj a = import_small(g, o, &r);
    assert_int_equal(r.nodes, 4);
    assert_int_equal(r.edges, 5);
    int64_t keys[4] = {-5, 7, 1000000, 123456789012ll};
    assert_non_null(r.i2e);
    assert_null(r.i2r);  /* rows follow the key order */
    for (int i = 0; i < 4; i++) assert_int_equal(r.i2e[i], keys[i]);
    list_is(&a, 0, (int64_t[]){1}, 1);        /* -5 <- 7 */
    list_is(&a, 1, (int64_t[]){0, 2, 3}, 3);  /* 7 <- -5, 1000000, 1.2e11 */
    list_is(&a, 2, (int64_t[]){0}, 1);        /* 1000000 <- -5 */
    list_is(&a, 3, NULL, 0);
    adj_free(&a);
    imp_graph_result_free(&r);

    /* declared nodes must equal the distinct keys */
    assert_int_equal(tu_write_file(in_dir("m.tsv"), g, strlen(g)), 0);
    o.nodes = 5;
    gnn_err e = {0};
    assert_int_equal(imp_graph(in_dir("m.tsv"), dir, "m.blk", &o, NULL, &r,
                               &e), GNNDB_RANGE);
    assert_non_null(strstr(e.msg, "4 distinct node keys"));
    unlink(in_dir("m.tsv"));

    /* with reordering, i2r gives the key rank */
    o.nodes = -1;
    o.reorder = IMP_REORDER_DEGREE;
    a = import_small(g, o, &r);
    assert_int_equal(r.i2e[0], 7);
    assert_int_equal(r.i2r[0], 1);
    for (int i = 0; i < 4; i++) assert_int_equal(r.i2e[i], keys[r.i2r[i]]);
    adj_free(&a);
    imp_graph_result_free(&r);
    assert_int_equal(count_files(), 0);
}

/* Many keys under a small budget: the key sort spills and merges runs. */
static void maps_many_keys_with_external_sort(void **state)
{
    (void)state;
    FILE *f = fopen(in_dir("k.tsv"), "w");
    size_t m = 200000;
    int64_t *s = malloc(m * 8), *d = malloc(m * 8);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < m; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        s[i] = (int64_t)(x % 150000) * 1000003 - 7000000000ll;
        d[i] = (int64_t)((x >> 29) % 150000) * 1000003 - 7000000000ll;
        fprintf(f, "%lld,%lld\n", (long long)s[i], (long long)d[i]);
    }
    fclose(f);
    imp_graph_opts o = gopts(-1, 0);
    o.map_ids = 1;
    o.format = 2; /* EDGE_FMT_CSV */
    /* the arrays of its 150000 nodes (imp_graph_node_bytes each) and a
    ** mebibyte: the key sort's eighth of it holds fewer keys than there
    ** are, so it spills */
    imp_ctl ctl = {0};
    ctl.mem_budget = (size_t)(150000 * imp_graph_node_bytes(&o)) + (1 << 20);
    ctl.tmpdir = dir;
    imp_graph_result r;
    gnn_err e = {0};
    if (imp_graph(in_dir("k.tsv"), dir, "k.blk", &o, &ctl, &r, &e))
        fail_msg("%s", e.msg);
    int64_t n = r.nodes;
    for (int64_t i = 1; i < n; i++) assert_true(r.i2e[i - 1] < r.i2e[i]);
    /* every key present, and the graph maps back to the input */
    int64_t *ms = malloc(m * 8), *md = malloc(m * 8);
    for (size_t i = 0; i < m; i++) {
        int64_t *p = bsearch(&s[i], r.i2e, (size_t)n, 8, cmp_i64);
        int64_t *q = bsearch(&d[i], r.i2e, (size_t)n, 8, cmp_i64);
        assert_non_null(p);
        assert_non_null(q);
        ms[i] = p - r.i2e;
        md[i] = q - r.i2e;
    }
    adj want = adj_from_edges(n, ms, md, m);
    adj got = adj_from_blocks(in_dir("k.blk"), BLK_DEFAULT_SIZE, &r);
    adj_expect_equal(&want, &got);
    adj_free(&want);
    adj_free(&got);
    imp_graph_result_free(&r);
    free(s); free(d); free(ms); free(md);
    unlink(in_dir("k.blk"));
    unlink(in_dir("k.tsv"));
    assert_int_equal(count_files(), 0);
}

static void rejects_ids_beyond_declared_nodes(void **state)
{
    (void)state;
    const char *edges = tu_data(0, "cora/edges.tsv");
    if (access(edges, R_OK) != 0) skip();
    imp_graph_opts o = gopts(2000, 0);
    imp_graph_result r;
    gnn_err e = {0};
    assert_int_equal(imp_graph(edges, dir, "bad.blk", &o, NULL, &r, &e),
                     GNNDB_RANGE);
    assert_non_null(strstr(e.msg, "edges.tsv:"));
    assert_non_null(strstr(e.msg, "is beyond the 2000 nodes declared"));
    assert_int_equal(count_files(), 0);

    const char *g = "0 1\n1 2\n2 5000\n";
    assert_int_equal(tu_write_file(in_dir("b.tsv"), g, strlen(g)), 0);
    o = gopts(2708, 0);
    assert_int_equal(imp_graph(in_dir("b.tsv"), dir, "bad.blk", &o, NULL, &r,
                               &e), GNNDB_RANGE);
    assert_string_equal(e.msg, "b.tsv:3:3: node id 5000 is beyond the 2708 "
                               "nodes declared");
    g = "0 1\n-4 2\n";
    assert_int_equal(tu_write_file(in_dir("b.tsv"), g, strlen(g)), 0);
    o = gopts(-1, 0);
    assert_int_equal(imp_graph(in_dir("b.tsv"), dir, "bad.blk", &o, NULL, &r,
                               &e), GNNDB_RANGE);
    assert_non_null(strstr(e.msg, "b.tsv:2:1: negative node id -4"));
    g = "0 1\n1 x\n";
    assert_int_equal(tu_write_file(in_dir("b.tsv"), g, strlen(g)), 0);
    assert_int_equal(imp_graph(in_dir("b.tsv"), dir, "bad.blk", &o, NULL, &r,
                               &e), GNNDB_FORMAT);
    assert_non_null(strstr(e.msg, "b.tsv:2:3:"));
    unlink(in_dir("b.tsv"));
    assert_int_equal(count_files(), 0);
}

static int stop_at_once(void *arg, int64_t done, int64_t total)
{
    (void)done;
    (void)total;
    ++*(int *)arg;
    return 1;
}

static void stops_when_interrupted(void **state)
{
    (void)state;
    const char *edges = tu_data(0, "cora/edges.tsv");
    if (access(edges, R_OK) != 0) skip();
    int calls = 0;
    imp_ctl ctl = {0};
    ctl.progress = stop_at_once;
    ctl.progress_arg = &calls;
    imp_graph_opts o = gopts(2708, 0);
    imp_graph_result r;
    gnn_err e = {0};
    assert_int_equal(imp_graph(edges, dir, "i.blk", &o, &ctl, &r, &e),
                     GNNDB_INTERRUPT);
    assert_true(calls > 0);
    volatile int flag = 1;
    imp_ctl ctl2 = {0};
    ctl2.interrupt = &flag;
    o.reorder = IMP_REORDER_BFS;
    assert_int_equal(imp_graph(edges, dir, "i.blk", &o, &ctl2, &r, &e),
                     GNNDB_INTERRUPT);
    assert_int_equal(count_files(), 0);
}

static void reads_binary_edge_lists(void **state)
{
    (void)state;
    int64_t p[8] = {0, 1, 2, 1, 3, 0, 1, 3};
    assert_int_equal(tu_write_file(in_dir("e.bin"), p, sizeof p), 0);
    imp_graph_opts o = gopts(-1, 4096);
    imp_graph_result r;
    gnn_err e = {0};
    assert_int_equal(imp_graph(in_dir("e.bin"), dir, "e.blk", &o, NULL, &r,
                               &e), GNNDB_OK);
    assert_int_equal(r.nodes, 4);
    assert_int_equal(r.edges, 4);
    adj a = adj_from_blocks(in_dir("e.blk"), 4096, &r);
    list_is(&a, 1, (int64_t[]){0, 2}, 2);
    adj_free(&a);
    imp_graph_result_free(&r);
    unlink(in_dir("e.blk"));
    o.nodes = 3;
    assert_int_equal(imp_graph(in_dir("e.bin"), dir, "e.blk", &o, NULL, &r,
                               &e), GNNDB_RANGE);
    assert_non_null(strstr(e.msg, "e.bin: edge 3 (byte offset 32)"));
    unlink(in_dir("e.bin"));
    assert_int_equal(count_files(), 0);
}

/* ---- features -------------------------------------------------------------- */

/* Row i of a feature block file (any block size). */
static void read_row(int fd, uint32_t bs, uint32_t rpb, uint64_t token,
                     int64_t i, void *out, size_t rowbytes, uint8_t *blk,
                     uint64_t *cached)
{
    uint64_t no = (uint64_t)i / rpb;
    if (*cached != no) {
        assert_int_equal(pread(fd, blk, bs, (off_t)(no * bs)), (ssize_t)bs);
        gnn_err e = {0};
        if (blk_verify(blk, bs, BLK_KIND_FEATURE, no, token, "f", &e))
            fail_msg("%s", e.msg);
        assert_int_equal(((blk_header *)blk)->first_node, no * rpb);
        *cached = no;
    }
    memcpy(out, blk_feature_row(blk, (uint32_t)(i % rpb)), rowbytes);
}

static void check_cora_features(uint32_t bs, const int64_t *i2r)
{
    const char *src = tu_data(1, "cora/features.npy");
    imp_feat_opts o = {0};
    o.block_size = bs;
    o.token = TOKEN;
    o.nodes = 2708;
    o.i2r = i2r;
    imp_feat_result r;
    gnn_err e = {0};
    if (imp_features(src, dir, "x.blk", &o, NULL, &r, &e)) fail_msg("%s",
                                                                   e.msg);
    assert_int_equal(r.rows, 2708);
    assert_int_equal(r.dim, 1433);
    assert_int_equal(r.dtype, BLK_DTYPE_F32);
    assert_int_equal(r.rows_per_block,
                     blk_feature_rows_per_block(bs, 1433, BLK_DTYPE_F32));
    assert_int_equal(r.nblocks, (2708 + r.rows_per_block - 1) /
                                    r.rows_per_block);
    size_t len;
    char *raw = tu_read_file(src, &len);
    int fd = open(in_dir("x.blk"), O_RDONLY);
    uint8_t *blk = malloc(bs);
    uint64_t cached = UINT64_MAX;
    float row[1433];
    for (int64_t i = 0; i < 2708; i++) {
        read_row(fd, bs, r.rows_per_block, TOKEN, i, row, sizeof row, blk,
                 &cached);
        if (i % r.rows_per_block == 0)
            assert_int_equal(((blk_header *)blk)->checksum,
                             r.checksums[i / r.rows_per_block]);
        int64_t fr = i2r ? i2r[i] : i;
        if (memcmp(row, raw + 128 + fr * sizeof row, sizeof row) != 0)
            fail_msg("row %lld differs", (long long)i);
    }
    close(fd);
    free(blk);
    free(raw);
    imp_feat_result_free(&r);
    unlink(in_dir("x.blk"));
}

static void imports_cora_features(void **state)
{
    (void)state;
    if (access(tu_data(1, "cora/features.npy"), R_OK) != 0) skip();
    check_cora_features(BLK_DEFAULT_SIZE, NULL);
    check_cora_features(8192, NULL);
    /* rows permuted as a degree reorder permutes them */
    const char *edges = tu_data(0, "cora/edges.tsv");
    imp_graph_opts go = gopts(2708, 0);
    go.reorder = IMP_REORDER_DEGREE;
    imp_graph_result gr;
    gnn_err e = {0};
    assert_int_equal(imp_graph(edges, dir, "g.blk", &go, NULL, &gr, &e),
                     GNNDB_OK);
    check_cora_features(BLK_DEFAULT_SIZE, gr.i2r);
    imp_graph_result_free(&gr);
    unlink(in_dir("g.blk"));
    assert_int_equal(count_files(), 0);
}

static void rejects_row_count_mismatch(void **state)
{
    (void)state;
    if (access(tu_data(1, "cora/features.npy"), R_OK) != 0) skip();
    imp_feat_opts o = {0};
    o.token = TOKEN;
    o.nodes = 2700;
    o.graph = "cora";
    imp_feat_result r;
    gnn_err e = {0};
    assert_int_equal(imp_features(tu_data(1, "cora/features.npy"), dir,
                                  "x.blk", &o, NULL, &r, &e), GNNDB_RANGE);
    assert_string_equal(e.msg, "features.npy has 2708 rows but graph cora "
                               "has 2700 nodes");
    /* a row larger than a block */
    o.nodes = 2708;
    o.block_size = 4096;
    assert_int_equal(imp_features(tu_data(1, "cora/features.npy"), dir,
                                  "x.blk", &o, NULL, &r, &e), GNNDB_RANGE);
    assert_non_null(strstr(e.msg, "does not fit in a 4096-byte block"));
    assert_int_equal(count_files(), 0);
}

static void counts_cora_label_classes(void **state)
{
    (void)state;
    const char *src = tu_data(1, "cora/labels.npy");
    if (access(src, R_OK) != 0) skip();
    /* the reference counts, straight from the file */
    npy_info info;
    int fd;
    gnn_err e = {0};
    assert_int_equal(npy_open(src, &info, &fd, &e), GNNDB_OK);
    int64_t *lab = malloc(2708 * 8);
    assert_int_equal(pread(fd, lab, 2708 * 8, (off_t)info.data_offset),
                     2708 * 8);
    close(fd);
    int64_t want[7] = {0};
    for (int i = 0; i < 2708; i++)
        if (lab[i] >= 0) want[lab[i]]++;
    int64_t readme[7] = {351, 217, 418, 818, 426, 298, 180};
    assert_memory_equal(want, readme, sizeof want);

    imp_feat_opts o = {0};
    o.labels = 1;
    o.token = TOKEN;
    o.nodes = 2708;
    imp_feat_result r;
    assert_int_equal(imp_features(src, dir, "y.blk", &o, NULL, &r, &e),
                     GNNDB_OK);
    assert_int_equal(r.dtype, BLK_DTYPE_I64);
    assert_int_equal(r.dim, 1);
    assert_int_equal(r.nclasses, 7);
    assert_memory_equal(r.class_counts, want, sizeof want);
    fd = open(in_dir("y.blk"), O_RDONLY);
    uint8_t *blk = malloc(BLK_DEFAULT_SIZE);
    uint64_t cached = UINT64_MAX;
    for (int64_t i = 0; i < 2708; i++) {
        int64_t v;
        read_row(fd, BLK_DEFAULT_SIZE, r.rows_per_block, TOKEN, i, &v, 8, blk,
                 &cached);
        assert_int_equal(v, lab[i]);
    }
    close(fd);
    free(blk);
    imp_feat_result_free(&r);
    unlink(in_dir("y.blk"));

    /* a matrix of features is not labels */
    assert_int_equal(imp_features(tu_data(2, "cora/features.npy"), dir,
                                  "y.blk", &o, NULL, &r, &e), GNNDB_FORMAT);
    assert_non_null(strstr(e.msg, "labels must be a vector"));
    /* unlabeled (-1) rows are not counted */
    lab[5] = -1;
    lab[6] = -1;
    int64_t n = 2708;
    assert_int_equal(npy_write(in_dir("l.npy"), NPY_I64, 1, &n, lab, &e),
                     GNNDB_OK);
    assert_int_equal(imp_features(in_dir("l.npy"), dir, "y.blk", &o, NULL, &r,
                                  &e), GNNDB_OK);
    int64_t total = 0;
    for (int k = 0; k < r.nclasses; k++) total += r.class_counts[k];
    assert_int_equal(total, 2706);
    imp_feat_result_free(&r);
    unlink(in_dir("y.blk"));
    unlink(in_dir("l.npy"));
    free(lab);
    assert_int_equal(count_files(), 0);
}

static void imports_csv_and_binary_features(void **state)
{
    (void)state;
    const char *csv = "1.5, 2, -3\n# c\n\n4,5e2,6\n";
    assert_int_equal(tu_write_file(in_dir("f.csv"), csv, strlen(csv)), 0);
    imp_feat_opts o = {0};
    o.token = TOKEN;
    o.nodes = 2;
    imp_feat_result r;
    gnn_err e = {0};
    assert_int_equal(imp_features(in_dir("f.csv"), dir, "c.blk", &o, NULL,
                                  &r, &e), GNNDB_OK);
    assert_int_equal(r.dim, 3);
    size_t len;
    char *b = tu_read_file(in_dir("c.blk"), &len);
    const float *f = blk_feature_row(b, 0);
    float want[6] = {1.5f, 2, -3, 4, 500, 6};
    assert_memory_equal(f, want, sizeof want);
    free(b);
    imp_feat_result_free(&r);
    unlink(in_dir("c.blk"));

    csv = "1,2,3\n4,5\n";
    assert_int_equal(tu_write_file(in_dir("f.csv"), csv, strlen(csv)), 0);
    assert_int_equal(imp_features(in_dir("f.csv"), dir, "c.blk", &o, NULL,
                                  &r, &e), GNNDB_FORMAT);
    assert_non_null(strstr(e.msg, "f.csv:2:4: expected 3 values"));
    csv = "1,2,3\n4,zz,6\n";
    assert_int_equal(tu_write_file(in_dir("f.csv"), csv, strlen(csv)), 0);
    assert_int_equal(imp_features(in_dir("f.csv"), dir, "c.blk", &o, NULL,
                                  &r, &e), GNNDB_FORMAT);
    assert_string_equal(e.msg, "f.csv:2:3: expected a number, found 'zz'");
    unlink(in_dir("f.csv"));

    double d[6] = {1, 2, 3, 4, 5, 6};
    assert_int_equal(tu_write_file(in_dir("f.bin"), d, sizeof d), 0);
    o.dim = 3;
    o.bin_dtype = NPY_F64;
    o.i2r = (const int64_t[]){1, 0};
    assert_int_equal(imp_features(in_dir("f.bin"), dir, "b.blk", &o, NULL,
                                  &r, &e), GNNDB_OK);
    b = tu_read_file(in_dir("b.blk"), &len);
    float want2[6] = {4, 5, 6, 1, 2, 3};
    assert_memory_equal(blk_feature_row(b, 0), want2, sizeof want2);
    free(b);
    imp_feat_result_free(&r);
    unlink(in_dir("b.blk"));
    /* float16 storage */
    o.store_dtype = BLK_DTYPE_F16;
    assert_int_equal(imp_features(in_dir("f.bin"), dir, "h.blk", &o, NULL,
                                  &r, &e), GNNDB_OK);
    b = tu_read_file(in_dir("h.blk"), &len);
    uint16_t h16[6] = {0x4400, 0x4500, 0x4600, 0x3c00, 0x4000, 0x4200};
    assert_memory_equal(blk_feature_row(b, 0), h16, sizeof h16);
    free(b);
    imp_feat_result_free(&r);
    unlink(in_dir("h.blk"));
    o.dim = 4; /* 48 bytes are not rows of 4 float64 */
    assert_int_equal(imp_features(in_dir("f.bin"), dir, "b.blk", &o, NULL,
                                  &r, &e), GNNDB_FORMAT);
    unlink(in_dir("f.bin"));
    assert_int_equal(count_files(), 0);
}

static void reads_id_lists(void **state)
{
    (void)state;
    int64_t *ids;
    size_t n;
    gnn_err e = {0};
    if (access(tu_data(0, "cora/train_idx.npy"), R_OK) == 0) {
        assert_int_equal(imp_id_list(tu_data(0, "cora/train_idx.npy"), NULL, NULL, &ids,
                                     &n, &e), GNNDB_OK);
        assert_int_equal(n, 140);
        for (size_t i = 0; i < n; i++)
            assert_true(ids[i] >= 0 && ids[i] < 2708);
        free(ids);
    }
    const char *txt = "# ids\n3\n 17 \n\n-2\n";
    assert_int_equal(tu_write_file(in_dir("ids.txt"), txt, strlen(txt)), 0);
    assert_int_equal(imp_id_list(in_dir("ids.txt"), NULL, NULL, &ids, &n, &e), GNNDB_OK);
    assert_int_equal(n, 3);
    assert_int_equal(ids[0], 3);
    assert_int_equal(ids[1], 17);
    assert_int_equal(ids[2], -2);
    free(ids);
    txt = "3\nfour\n";
    assert_int_equal(tu_write_file(in_dir("ids.txt"), txt, strlen(txt)), 0);
    assert_int_equal(imp_id_list(in_dir("ids.txt"), NULL, NULL, &ids, &n, &e),
                     GNNDB_FORMAT);
    assert_non_null(strstr(e.msg, "ids.txt:2:1:"));
    unlink(in_dir("ids.txt"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(imports_cora_edges),
        cmocka_unit_test(imports_cora_into_small_blocks),
        cmocka_unit_test(splits_long_lists_across_blocks),
        cmocka_unit_test(builds_in_buckets_under_a_small_budget),
        cmocka_unit_test(counts_undirected_duplicates_and_loops),
        cmocka_unit_test(reorders_by_degree),
        cmocka_unit_test(reorders_breadth_first),
        cmocka_unit_test(maps_sparse_and_negative_keys),
        cmocka_unit_test(maps_many_keys_with_external_sort),
        cmocka_unit_test(rejects_ids_beyond_declared_nodes),
        cmocka_unit_test(stops_when_interrupted),
        cmocka_unit_test(reads_binary_edge_lists),
        cmocka_unit_test(imports_cora_features),
        cmocka_unit_test(rejects_row_count_mismatch),
        cmocka_unit_test(counts_cora_label_classes),
        cmocka_unit_test(imports_csv_and_binary_features),
        cmocka_unit_test(reads_id_lists),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
