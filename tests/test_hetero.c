/* test_hetero.c — typed graphs against a brute force: node types own
** consecutive ranges of one global id space; each relation's lists, read
** back from its own block files, are the in-lists of its edge file moved
** by the types' first ids (WITH REVERSE's turned round, UNDIRECTED's both
** ways); every bad input is refused in words and leaves DESCRIBE and the
** directory as they were; the tiny OGB-MAG directory imports whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "block.h"
#include "blockfile.h"
#include "db.h"
#include "util.h"

#define PAPERS  300
#define AUTHORS 200
#define INSTS   7
#define WRITES  4000
#define CITES   1500
#define HUB     11      /* a paper of many authors: continued lists */

static uint32_t ws[WRITES], wd[WRITES], cs[CITES], cd[CITES];

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void write_pairs(const char *path, const uint32_t *a,
                        const uint32_t *b, int n)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < n; i++) fprintf(f, "%u,%u\n", a[i], b[i]);
    fclose(f);
}

/* writes: author -> paper (a hub paper); cites: paper -> paper (loops). */
static void make_edges(const char *dir)
{
    uint64_t s = 0x2545f4914f6cdd1dull;
    for (int i = 0; i < WRITES; i++) {
        ws[i] = (uint32_t)(rnd(&s) % AUTHORS);
        wd[i] = rnd(&s) % 5 == 0 ? HUB : (uint32_t)(rnd(&s) % PAPERS);
    }
    for (int i = 0; i < CITES; i++) {
        cs[i] = (uint32_t)(rnd(&s) % PAPERS);
        cd[i] = rnd(&s) % 50 == 0 ? cs[i] : (uint32_t)(rnd(&s) % PAPERS);
    }
    char p[1024];
    snprintf(p, sizeof p, "%s/writes.csv", dir);
    write_pairs(p, ws, wd, WRITES);
    snprintf(p, sizeof p, "%s/cites.csv", dir);
    write_pairs(p, cs, cd, CITES);
}

static void exec_ok(tu_db *d, const char *sql)
{
    if (gnndb_exec(d->h, sql, NULL, NULL) != GNNDB_OK)
        fail_msg("%s: %s", sql, gnndb_errmsg(d->h));
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Every (target << 32 | source) of a relation's topology, sorted. */
static uint64_t *read_lists(gnndb *db, const cat_graph *g, size_t *n)
{
    gnn_err e = {0};
    blk_file *f;
    assert_int_equal(db_open_graph(db, g, 0, &f, &e), GNNDB_OK);
    uint8_t *buf = gnn_alloc_aligned(g->block_size);
    uint64_t *r = malloc((size_t)(g->edges + 1) * sizeof *r);
    size_t k = 0;
    for (uint64_t b = 0; b < f->nblocks; b++) {
        assert_int_equal(blkf_read(f, b, buf, &e), GNNDB_OK);
        const blk_header *h = (const blk_header *)buf;
        for (uint32_t j = 0; j < h->count; j++) {
            const blk_node *o = blk_graph_object(buf, j);
            for (uint32_t q = 0; q < o->n; q++) {
                assert_true(k < (size_t)g->edges);
                r[k++] = (uint64_t)o->node << 32 | blk_node_nbrs(o)[q];
            }
        }
    }
    assert_int_equal(k, (size_t)g->edges);
    gnn_free_aligned(buf);
    blkf_close(f);
    qsort(r, k, sizeof *r, cmp_u64);
    *n = k;
    return r;
}

/* The brute force: edge i is src[i] + fs -> dst[i] + fd, stored in the
** list of its target; reverse turns it round; undirected adds the other
** direction of every edge that is not a loop. */
static uint64_t *expect(const uint32_t *src, const uint32_t *dst, int n,
                        uint64_t fs, uint64_t fd, int reverse,
                        int undirected, size_t *k)
{
    uint64_t *r = malloc(2 * (size_t)n * sizeof *r);
    *k = 0;
    for (int i = 0; i < n; i++) {
        uint64_t u = src[i] + fs, v = dst[i] + fd;
        r[(*k)++] = reverse ? u << 32 | v : v << 32 | u;
        if (undirected && u != v) r[(*k)++] = u << 32 | v;
    }
    qsort(r, *k, sizeof *r, cmp_u64);
    return r;
}

static void check_relation(tu_db *d, const cat_graph *mag, const char *name,
                           const uint64_t *want, size_t nwant)
{
    gnn_err e = {0};
    cat_relation r;
    cat_graph g;
    assert_int_equal(cat_relation_get(d->h->cat, mag->id, name, &r, &e),
                     GNNDB_OK);
    assert_int_equal(cat_graph_get_id(d->h->cat, r.graph_id, &g, &e),
                     GNNDB_OK);
    assert_int_equal(g.kind, CAT_GRAPH_RELATION);
    assert_int_equal(g.parent_id, mag->id);
    assert_int_equal(g.nodes, mag->nodes);
    size_t n;
    uint64_t *got = read_lists(d->h, &g, &n);
    assert_int_equal(n, nwant);
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("%s: entry %zu is %llx -> %llx, expected %llx -> %llx",
                     name, i, (unsigned long long)(got[i] & 0xffffffff),
                     (unsigned long long)(got[i] >> 32),
                     (unsigned long long)(want[i] & 0xffffffff),
                     (unsigned long long)(want[i] >> 32));
    free(got);
}

/* mag: paper, author, institution; writes WITH REVERSE, cites
** UNDIRECTED; small blocks so the hub's list is continued. */
static void make_mag(tu_db *d)
{
    char sql[4096];
    make_edges(d->dir);
    snprintf(sql, sizeof sql,
             "CREATE GRAPH mag;"
             "CREATE NODES paper IN mag COUNT %d;"
             "CREATE NODES author IN mag COUNT %d;"
             "CREATE NODES institution IN mag COUNT %d;"
             "CREATE RELATION writes IN mag FROM author TO paper "
             "FROM '%s/writes.csv' BLOCK SIZE 4096 WITH REVERSE AS "
             "written_by;"
             "CREATE RELATION cites IN mag FROM paper TO paper "
             "FROM '%s/cites.csv' UNDIRECTED BLOCK SIZE 4096;",
             PAPERS, AUTHORS, INSTS, d->dir, d->dir);
    exec_ok(d, sql);
}

static void test_types_and_relations_match_brute_force(void **state)
{
    tu_db d;
    assert_int_equal(tu_db_open(&d, "hetero"), GNNDB_OK);
    make_mag(&d);
    gnn_err e = {0};
    cat_graph mag;
    assert_int_equal(cat_graph_get(d.h->cat, "mag", &mag, &e), GNNDB_OK);
    assert_int_equal(mag.kind, CAT_GRAPH_TYPED);
    assert_int_equal(mag.nodes, PAPERS + AUTHORS + INSTS);
    cat_node_type *ty;
    size_t nt;
    assert_int_equal(cat_type_list(d.h->cat, mag.id, &ty, &nt, &e), GNNDB_OK);
    assert_int_equal(nt, 3);
    const int64_t first[3] = {0, PAPERS, PAPERS + AUTHORS};
    const int64_t count[3] = {PAPERS, AUTHORS, INSTS};
    for (int t = 0; t < 3; t++) {
        assert_int_equal(ty[t].type_no, t);
        assert_int_equal(ty[t].first, first[t]);
        assert_int_equal(ty[t].count, count[t]);
    }
    free(ty);
    size_t n;
    uint64_t *w = expect(ws, wd, WRITES, PAPERS, 0, 0, 0, &n);
    check_relation(&d, &mag, "writes", w, n);
    free(w);
    w = expect(ws, wd, WRITES, PAPERS, 0, 1, 0, &n);
    check_relation(&d, &mag, "written_by", w, n);
    free(w);
    w = expect(cs, cd, CITES, 0, 0, 0, 1, &n);
    check_relation(&d, &mag, "cites", w, n);
    free(w);
    size_t ncites = n;
    cat_relation r;
    assert_int_equal(cat_relation_get(d.h->cat, mag.id, "written_by", &r, &e),
                     GNNDB_OK);
    assert_string_equal(r.reverse_of, "writes");
    assert_int_equal(r.src_type, 0);   /* paper -> author */
    assert_int_equal(r.dst_type, 1);
    /* SHOW GRAPHS lists the typed graph alone: edges the relations' sum */
    cat_graph *gs;
    assert_int_equal(cat_graph_list(d.h->cat, &gs, &n, &e), GNNDB_OK);
    assert_int_equal(n, 1);
    assert_int_equal(gs[0].edges, 2 * WRITES + (int64_t)ncites);
    free(gs);
    tu_db_close(&d);
}

/* DESCRIBE mag as one string of "property=value;" */
static int collect(void *arg, int ncol, char **v, char **names)
{
    char *s = arg;
    size_t l = strlen(s);
    snprintf(s + l, 65536 - l, "%s=%s;", v[0], ncol > 1 && v[1] ? v[1] : "");
    return 0;
}

static char *describe(tu_db *d)
{
    char *s = calloc(1, 65536);
    assert_int_equal(gnndb_exec(d->h, "DESCRIBE mag;", collect, s), GNNDB_OK);
    return s;
}

static int count_files(const char *dir)
{
    DIR *dp = opendir(dir);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(dp))) n += strstr(de->d_name, ".blk") != NULL;
    closedir(dp);
    return n;
}

/* sql fails with code rc, its words hold each of `words` (NULL-ended), and
** DESCRIBE and the block files are as they were. */
static void refused(tu_db *d, const char *sql, int rc, const char *const *w)
{
    char *before = describe(d);
    int nf = count_files(d->path);
    int got = gnndb_exec(d->h, sql, NULL, NULL);
    if (got != rc)
        fail_msg("%s: code %d, expected %d (%s)", sql, got, rc,
                 gnndb_errmsg(d->h));
    for (int i = 0; w[i]; i++)
        if (!strstr(gnndb_errmsg(d->h), w[i]))
            fail_msg("%s: '%s' lacks '%s'", sql, gnndb_errmsg(d->h), w[i]);
    char *after = describe(d);
    assert_string_equal(before, after);
    assert_int_equal(count_files(d->path), nf);
    free(before);
    free(after);
}

static void test_bad_inputs_are_refused_and_change_nothing(void **state)
{
    tu_db d;
    assert_int_equal(tu_db_open(&d, "hetero-bad"), GNNDB_OK);
    make_mag(&d);
    char p[1024], sql[4096];
    snprintf(p, sizeof p, "%s/bad.csv", d.dir);
    assert_int_equal(tu_write_file(p, "1,2\n3,300\n", 10), 0);
    snprintf(sql, sizeof sql, "CREATE RELATION bad IN mag FROM author TO "
             "paper FROM '%s' WITH REVERSE;", p);
    refused(&d, sql, GNNDB_RANGE, (const char *const[]){
        "bad.csv:2", "300", "paper", "300 nodes", NULL});
    snprintf(sql, sizeof sql, "CREATE RELATION bad IN mag FROM author TO "
             "venue FROM '%s';", p);
    refused(&d, sql, GNNDB_NOTFOUND, (const char *const[]){
        "no node type venue", NULL});
    snprintf(sql, sizeof sql, "CREATE RELATION writes IN mag FROM author TO "
             "paper FROM '%s';", p);
    refused(&d, sql, GNNDB_EXISTS, (const char *const[]){
        "already has a relation named writes", NULL});
    snprintf(sql, sizeof sql, "CREATE RELATION paper IN mag FROM author TO "
             "paper FROM '%s';", p);
    refused(&d, sql, GNNDB_EXISTS, (const char *const[]){
        "already has a node type named paper", NULL});
    snprintf(sql, sizeof sql, "CREATE RELATION x IN mag FROM author TO "
             "paper FROM '%s' WITH REVERSE AS cites;", p);
    refused(&d, sql, GNNDB_EXISTS, (const char *const[]){"cites", NULL});
    refused(&d, "CREATE NODES venue IN mag COUNT 5;", GNNDB_MISUSE,
            (const char *const[]){"already has relations", "writes",
                                  "before the first relation", NULL});
    refused(&d, "CREATE NODES paper IN mag COUNT 5;", GNNDB_EXISTS,
            (const char *const[]){"node type named paper", NULL});
    float x[(PAPERS - 1) * 2] = {0};
    snprintf(p, sizeof p, "%s/x.npy", d.dir);
    assert_int_equal(tu_write_npy(p, "<f4", x, PAPERS - 1, 2, 4), 0);
    snprintf(sql, sizeof sql, "IMPORT FEATURES feat INTO mag.paper FROM "
             "'%s';", p);
    refused(&d, sql, GNNDB_RANGE, (const char *const[]){
        "299 rows", "mag.paper", "300 nodes", NULL});
    snprintf(sql, sizeof sql, "IMPORT FEATURES feat INTO mag FROM '%s';", p);
    refused(&d, sql, GNNDB_MISUSE, (const char *const[]){
        "has node types", NULL});
    refused(&d, "SAMPLE 2 FROM mag BATCH 4;", GNNDB_MISUSE,
            (const char *const[]){"graph mag is typed", "{r: 10}", NULL});
    tu_db_close(&d);
}

/* Features, labels and splits of a type: its count of rows, local ids. */
static void test_type_tables_and_splits(void **state)
{
    tu_db d;
    assert_int_equal(tu_db_open(&d, "hetero-tab"), GNNDB_OK);
    make_mag(&d);
    static float x[AUTHORS * 3];
    for (int i = 0; i < AUTHORS * 3; i++) x[i] = (float)i;
    char p[1024], q[1024], sql[4096];
    snprintf(p, sizeof p, "%s/xa.npy", d.dir);
    assert_int_equal(tu_write_npy(p, "<f4", x, AUTHORS, 3, 4), 0);
    snprintf(q, sizeof q, "%s/ids.txt", d.dir);
    assert_int_equal(tu_write_file(q, "3\n199\n5\n", 8), 0);
    snprintf(sql, sizeof sql, "IMPORT FEATURES feat INTO mag.author FROM '%s';"
             "CREATE SPLIT train ON mag.author FROM '%s';", p, q);
    exec_ok(&d, sql);
    gnn_err e = {0};
    cat_graph mag;
    cat_table t;
    cat_split s;
    assert_int_equal(cat_graph_get(d.h->cat, "mag", &mag, &e), GNNDB_OK);
    assert_int_equal(cat_table_get(d.h->cat, mag.id, "author.feat", &t, &e),
                     GNNDB_OK);
    assert_int_equal(t.rows, AUTHORS);
    assert_true(t.has_type);
    assert_int_equal(t.node_type, 1);
    assert_int_equal(cat_split_get(d.h->cat, mag.id, "author.train", &s, &e),
                     GNNDB_OK);
    assert_int_equal(s.count, 3);
    assert_int_equal(s.node_type, 1);
    /* an id beyond the type's count is not a member */
    assert_int_equal(tu_write_file(q, "200\n", 4), 0);
    snprintf(sql, sizeof sql, "CREATE SPLIT t2 ON mag.author FROM '%s';", q);
    refused(&d, sql, GNNDB_NOTFOUND, (const char *const[]){
        "200", "mag.author", "200 nodes", NULL});
    char *desc = describe(&d);
    assert_non_null(strstr(desc, "type.author.features.feat=3 x float32;"));
    assert_non_null(strstr(desc, "type.author.split.train=3;"));
    assert_non_null(strstr(desc, "relation.written_by.reverse_of=writes;"));
    free(desc);
    exec_ok(&d, "DROP FEATURES feat ON mag.author; DROP SPLIT train ON "
                "mag.author; DROP RELATION cites ON mag; CHECK;");
    exec_ok(&d, "DROP GRAPH mag;");
    assert_int_equal(count_files(d.path), 0);
    tu_db_close(&d);
}

/* Row `row` of table t (dim floats or two u32), read from its blocks. */
static void table_row(tu_db *d, const cat_table *t, int64_t row, void *out,
                      size_t bytes)
{
    gnn_err e = {0};
    blk_file *f;
    assert_int_equal(db_open_table(d->h, t, 0, &f, &e), GNNDB_OK);
    uint8_t *buf = gnn_alloc_aligned(t->block_size);
    uint64_t b = (uint64_t)(row / t->rows_per_block);
    assert_int_equal(blkf_read(f, b, buf, &e), GNNDB_OK);
    memcpy(out, blk_feature_row(buf, (uint32_t)(row % t->rows_per_block)),
           bytes);
    gnn_free_aligned(buf);
    blkf_close(f);
}

/* The endpoints of input edge i in a relation's edge table. */
static void edge_ends(tu_db *d, int64_t graph_id, int64_t i, uint32_t ends[2])
{
    gnn_err e = {0};
    cat_table t;
    assert_int_equal(cat_table_get(d->h->cat, graph_id, "__edges", &t, &e),
                     GNNDB_OK);
    table_row(d, &t, i, ends, 2 * sizeof *ends);
}

/* A table imported into written_by (WITH REVERSE of writes) is found from
** both, on written_by's topology graph, row i for input edge i, which is
** the same edge in both relations; cites (UNDIRECTED) has no partner; a
** relation made again under the name writes from another file is none. */
static void test_relation_edge_table_shared_with_reverse(void **state)
{
    tu_db d;
    assert_int_equal(tu_db_open(&d, "hetero-reltab"), GNNDB_OK);
    make_mag(&d);
    static float w[WRITES * 2];
    for (int i = 0; i < WRITES; i++) {
        w[2 * i] = (float)i;
        w[2 * i + 1] = (float)ws[i];
    }
    char p[1024], sql[4096];
    snprintf(p, sizeof p, "%s/w.npy", d.dir);
    assert_int_equal(tu_write_npy(p, "<f4", w, WRITES, 2, 4), 0);
    snprintf(sql, sizeof sql, "IMPORT EDGE FEATURES w INTO mag.written_by "
             "FROM '%s' BLOCK SIZE 4096;", p);
    exec_ok(&d, sql);
    gnn_err e = {0};
    cat_graph mag;
    cat_relation wr, wb, pr;
    cat_table a, b;
    cat_db *c = d.h->cat;
    assert_int_equal(cat_graph_get(c, "mag", &mag, &e), GNNDB_OK);
    assert_int_equal(cat_relation_get(c, mag.id, "writes", &wr, &e), 0);
    assert_int_equal(cat_relation_get(c, mag.id, "written_by", &wb, &e), 0);
    assert_int_equal(cat_relation_partner(c, &wr, &pr, &e), GNNDB_OK);
    assert_string_equal(pr.name, "written_by");
    assert_int_equal(cat_relation_partner(c, &wb, &pr, &e), GNNDB_OK);
    assert_string_equal(pr.name, "writes");
    assert_int_equal(cat_relation_edge_table(c, mag.id, "writes", "w", &a, &e),
                     GNNDB_OK);
    assert_int_equal(cat_relation_edge_table(c, mag.id, "written_by", "w", &b,
                                             &e), GNNDB_OK);
    assert_int_equal(a.id, b.id);
    assert_int_equal(a.graph_id, wb.graph_id);
    assert_int_equal(a.kind, CAT_TABLE_EDGE_FEATURES);
    assert_int_equal(a.rows, WRITES);
    /* row i is input edge i, and input edge i is one edge in both */
    for (int64_t i = 0; i < WRITES; i += 397) {
        float row[2];
        uint32_t x[2], y[2];
        table_row(&d, &a, i, row, sizeof row);
        assert_true(row[0] == (float)i && row[1] == (float)ws[i]);
        edge_ends(&d, wr.graph_id, i, x);
        edge_ends(&d, wb.graph_id, i, y);
        assert_true((x[0] == y[0] && x[1] == y[1]) ||
                    (x[0] == y[1] && x[1] == y[0]));
    }
    cat_relation ci;
    assert_int_equal(cat_relation_get(c, mag.id, "cites", &ci, &e), 0);
    assert_int_equal(cat_relation_partner(c, &ci, &pr, &e), GNNDB_NOTFOUND);
    assert_int_equal(cat_relation_edge_table(c, mag.id, "writes", "x", &a, &e),
                     GNNDB_NOTFOUND);
    assert_non_null(strstr(e.msg, "relation writes of graph mag has no edge "
                                  "feature table x (nor has written_by"));
    assert_int_equal(cat_relation_edge_table(c, mag.id, "cites", "w", &a, &e),
                     GNNDB_NOTFOUND);
    assert_int_equal(cat_relation_edge_table(c, mag.id, "venue", "w", &a, &e),
                     GNNDB_NOTFOUND);
    assert_non_null(strstr(e.msg, "no relation venue"));
    /* writes again, from cites.csv: written_by's reverse_of is stale */
    snprintf(sql, sizeof sql, "DROP RELATION writes ON mag; CREATE RELATION "
             "writes IN mag FROM paper TO paper FROM '%s/cites.csv';", d.dir);
    exec_ok(&d, sql);
    assert_int_equal(cat_relation_partner(c, &wb, &pr, &e), GNNDB_NOTFOUND);
    assert_int_equal(cat_relation_edge_table(c, mag.id, "writes", "w", &a, &e),
                     GNNDB_NOTFOUND);
    assert_int_equal(cat_relation_edge_table(c, mag.id, "written_by", "w", &a,
                                             &e), GNNDB_OK);
    exec_ok(&d, "CHECK mag; DROP GRAPH mag;");
    assert_int_equal(count_files(d.path), 0);
    tu_db_close(&d);
}

#define MAG "tests/data/ogb/ogbn_mag_tiny"
#define WRITES_DIR "raw/relations/author___writes___paper/"
#define WRITES_CSV WRITES_DIR "edge.csv.gz"

/* The pairs of a gzip'd CSV of src,dst lines. */
static int read_gz_pairs(const char *path, uint32_t *a, uint32_t *b, int max)
{
    gzFile f = gzopen(path, "rb");
    assert_non_null(f);
    char line[128];
    int n = 0;
    while (n < max && gzgets(f, line, sizeof line))
        if (sscanf(line, "%u,%u", &a[n], &b[n]) == 2) n++;
    gzclose(f);
    return n;
}

/* The first line of a gzip'd CSV of floats. */
static int read_gz_floats(const char *path, float *v, int max)
{
    gzFile f = gzopen(path, "rb");
    assert_non_null(f);
    char line[512], *p = line;
    int n = 0;
    if (gzgets(f, line, sizeof line))
        for (char *end; n < max; p = end + (*end == ',')) {
            v[n] = strtof(p, &end);
            if (end == p) break;
            n++;
        }
    gzclose(f);
    return n;
}

/* Each relation's edge tables: reltype (its number in the triplet list,
** as a float32 column) for all, feat (3 floats from edge-feat.csv.gz) for
** writes alone; found the same from a reverse (rev: "rev_"). */
static void check_ogb_edge_tables(tu_db *d, const cat_graph *mag,
                                  const char *rev)
{
    static const char *const rels[4] = {"affiliated_with", "writes",
                                        "cites", "has_topic"};
    static const int64_t counts[4] = {45, 90, 70, 60};
    gnn_err e = {0};
    cat_table t;
    for (int i = 0; i < 4; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s%s", i == 2 ? "" : rev, rels[i]);
        assert_int_equal(cat_relation_edge_table(d->h->cat, mag->id, name,
                                                 "reltype", &t, &e), GNNDB_OK);
        assert_int_equal(t.rows, counts[i]);
        assert_int_equal(t.dim, 1);
        assert_int_equal(t.dtype, BLK_DTYPE_F32);
        float v;
        table_row(d, &t, counts[i] - 1, &v, sizeof v);
        assert_true(v == (float)i);
        assert_int_equal(cat_relation_edge_table(d->h->cat, mag->id, name,
                                                 "feat", &t, &e),
                         i == 1 ? GNNDB_OK : GNNDB_NOTFOUND);
    }
    char name[64];
    snprintf(name, sizeof name, "%swrites", rev);
    assert_int_equal(cat_relation_edge_table(d->h->cat, mag->id, name, "feat",
                                             &t, &e), GNNDB_OK);
    assert_int_equal(t.rows, 90);
    assert_int_equal(t.dim, 3);
    float want[3], got[3];
    assert_int_equal(read_gz_floats(MAG "/" WRITES_DIR "edge-feat.csv.gz",
                                    want, 3), 3);
    table_row(d, &t, 0, got, sizeof got);
    assert_memory_equal(want, got, sizeof got);
}

static void test_ogb_mag_tiny_imports_whole(void **state)
{
    tu_db d;
    assert_int_equal(tu_db_open(&d, "hetero-ogb"), GNNDB_OK);
    exec_ok(&d, "IMPORT OGB '" MAG "' AS mag;");
    gnn_err e = {0};
    cat_graph mag;
    assert_int_equal(cat_graph_get(d.h->cat, "mag", &mag, &e), GNNDB_OK);
    assert_int_equal(mag.nodes, 40 + 12 + 6 + 30);
    assert_int_equal(mag.edges, 45 + 90 + 70 + 60);
    cat_node_type *ty;
    size_t nt;
    assert_int_equal(cat_type_list(d.h->cat, mag.id, &ty, &nt, &e), GNNDB_OK);
    assert_int_equal(nt, 4);
    assert_string_equal(ty[0].name, "author");
    assert_string_equal(ty[3].name, "paper");
    assert_int_equal(ty[3].first, 58);
    assert_int_equal(ty[3].count, 30);
    free(ty);
    /* writes: author (first 0) -> paper (first 58), as in the file */
    int n = read_gz_pairs(MAG "/" WRITES_CSV, ws, wd, WRITES);
    assert_int_equal(n, 90);
    size_t k;
    uint64_t *w = expect(ws, wd, n, 0, 58, 0, 0, &k);
    check_relation(&d, &mag, "writes", w, k);
    free(w);
    cat_table t;
    assert_int_equal(cat_table_get(d.h->cat, mag.id, "paper.feat", &t, &e),
                     GNNDB_OK);
    assert_int_equal(t.rows, 30);
    assert_int_equal(t.dim, 8);
    assert_int_equal(cat_table_get(d.h->cat, mag.id, "paper.__labels", &t,
                                   &e), GNNDB_OK);
    assert_int_equal(t.nclasses, 4);
    assert_int_equal(cat_table_get(d.h->cat, mag.id, "paper.year", &t, &e),
                     GNNDB_OK);
    const char *sn[3] = {"paper.train", "paper.valid", "paper.test"};
    const int64_t sc[3] = {18, 6, 6};
    for (int i = 0; i < 3; i++) {
        cat_split sp;
        assert_int_equal(cat_split_get(d.h->cat, mag.id, sn[i], &sp, &e),
                         GNNDB_OK);
        assert_int_equal(sp.count, sc[i]);
        assert_true(sp.has_type);
        assert_int_equal(sp.node_type, 3);
    }
    char *desc = describe(&d);
    assert_non_null(strstr(desc, "type.paper.count=30;"));
    assert_non_null(strstr(desc, "relation.has_topic.dst=field_of_study;"));
    assert_non_null(strstr(desc, "type.paper.split.train=18;"));
    assert_non_null(strstr(desc, "relation.writes.edge_features.feat=3 x "
                                 "float32;"));
    assert_non_null(strstr(desc, "relation.cites.edge_features.reltype=1 x "
                                 "float32;"));
    free(desc);
    check_ogb_edge_tables(&d, &mag, "");
    exec_ok(&d, "CHECK mag;");
    exec_ok(&d, "DROP GRAPH mag;");
    assert_int_equal(count_files(d.path), 0);
    tu_db_close(&d);
}

/* UNDIRECTED, as PyG's ToUndirected: cites (paper to paper) holds both
** directions, writes gains rev_writes (paper -> author). */
static void test_ogb_mag_tiny_undirected(void **state)
{
    tu_db d;
    assert_int_equal(tu_db_open(&d, "hetero-ogb-u"), GNNDB_OK);
    exec_ok(&d, "IMPORT OGB '" MAG "' AS mag UNDIRECTED;");
    gnn_err e = {0};
    cat_graph mag;
    assert_int_equal(cat_graph_get(d.h->cat, "mag", &mag, &e), GNNDB_OK);
    int n = read_gz_pairs(MAG "/" WRITES_CSV, ws, wd, WRITES);
    size_t k;
    uint64_t *w = expect(ws, wd, n, 0, 58, 1, 0, &k);
    check_relation(&d, &mag, "rev_writes", w, k);
    free(w);
    n = read_gz_pairs(MAG "/raw/relations/paper___cites___paper/edge.csv.gz",
                      cs, cd, CITES);
    assert_int_equal(n, 70);
    w = expect(cs, cd, n, 58, 58, 0, 1, &k);
    check_relation(&d, &mag, "cites", w, k);
    free(w);
    cat_relation r;
    assert_int_equal(cat_relation_get(d.h->cat, mag.id, "rev_has_topic", &r,
                                      &e), GNNDB_OK);
    assert_string_equal(r.reverse_of, "has_topic");
    assert_int_equal(cat_relation_get(d.h->cat, mag.id, "rev_cites", &r, &e),
                     GNNDB_NOTFOUND);
    check_ogb_edge_tables(&d, &mag, "rev_");
    tu_db_close(&d);
}

static void gz_put(const char *path, const char *text)
{
    gzFile f = gzopen(path, "wb");
    assert_non_null(f);
    gzputs(f, text);
    gzclose(f);
}

/* A copy of the tiny dataset with one file replaced; IMPORT OGB fails
** with `words` and leaves no graph and no file. */
static void bad_copy(tu_db *d, const char *rel, const char *text,
                     const char *w1, const char *w2)
{
    char cmd[4096], sql[4096], path[2048];
    snprintf(cmd, sizeof cmd, "rm -rf '%s/m' && cp -r " MAG " '%s/m'",
             d->dir, d->dir);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/m/%s", d->dir, rel);
    gz_put(path, text);
    snprintf(sql, sizeof sql, "IMPORT OGB '%s/m' AS mag;", d->dir);
    assert_int_not_equal(gnndb_exec(d->h, sql, NULL, NULL), GNNDB_OK);
    const char *msg = gnndb_errmsg(d->h);
    if (!strstr(msg, w1) || (w2 && !strstr(msg, w2)))
        fail_msg("%s: '%s' lacks '%s' or '%s'", rel, msg, w1, w2 ? w2 : "");
    gnn_err e = {0};
    cat_graph g;
    assert_int_equal(cat_graph_get(d->h->cat, "mag", &g, &e), GNNDB_NOTFOUND);
    assert_int_equal(cat_graph_get(d->h->cat, "mag.writes", &g, &e),
                     GNNDB_NOTFOUND);
    assert_int_equal(count_files(d->path), 0);
}

static void test_ogb_bad_dataset_leaves_nothing(void **state)
{
    tu_db d;
    assert_int_equal(tu_db_open(&d, "hetero-ogb-bad"), GNNDB_OK);
    bad_copy(&d, WRITES_CSV, "0,1\n3,30\n", "edge.csv.gz:2:3: relation "
             "writes: node id 30", "type paper (30 nodes");
    bad_copy(&d, "raw/num-node-dict.csv.gz",
             "author,field_of_study,institution,paper\n40,12,x,30\n",
             "num-node-dict.csv.gz", "'x' is not a node count");
    bad_copy(&d, "raw/triplet-type-list.csv.gz",
             "author,writes,venue\n", "row 1", "'venue'");
    bad_copy(&d, "raw/node-feat/paper/node-feat.csv.gz", "1,2\n3,4\n",
             "2 rows", "mag.paper");
    bad_copy(&d, "split/time/paper/valid.csv.gz", "30\n", "30",
             "mag.paper");
    bad_copy(&d, "raw/relations/paper___cites___paper/num-edge-list.csv.gz",
             "71\n", "71 edges", "cites");
    bad_copy(&d, WRITES_DIR "edge-feat.csv.gz", "1,2,3\n4,5,6\n",
             "edge-feat.csv.gz has 2 rows", "relation mag.writes has 90 "
             "input edges");
    bad_copy(&d, "raw/relations/paper___has_topic___field_of_study/"
             "edge_reltype.csv.gz", "3\n3\n", "edge_reltype.csv.gz has 2 "
             "rows", "relation mag.has_topic has 60 input edges");
    bad_copy(&d, "raw/relations/paper___cites___paper/edge_reltype.csv.gz",
             "2\nx\n", "relation mag.cites: edge_reltype.csv.gz:2", "'x'");
    tu_db_close(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_types_and_relations_match_brute_force),
        cmocka_unit_test(test_bad_inputs_are_refused_and_change_nothing),
        cmocka_unit_test(test_type_tables_and_splits),
        cmocka_unit_test(test_relation_edge_table_shared_with_reverse),
        cmocka_unit_test(test_ogb_mag_tiny_imports_whole),
        cmocka_unit_test(test_ogb_mag_tiny_undirected),
        cmocka_unit_test(test_ogb_bad_dataset_leaves_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
