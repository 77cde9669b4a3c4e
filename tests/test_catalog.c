/* test_catalog.c — the SQLite catalog: schema, graphs, tables, splits and
** packs with cascading deletes, a graph's versions, checksums, statistics,
** listings, the statement log, transactions, and refusing newer, busy or
** damaged catalogs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "../catalog/catalog.h"
#include "block.h"
#include "util.h"

typedef struct fixture {
    char *dir;
    char path[1024];
    cat_db *c;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f) return -1;
    f->dir = tu_tmpdir("test_catalog");
    if (!f->dir) { free(f); return -1; }
    snprintf(f->path, sizeof f->path, "%s/catalog.db", f->dir);
    gnn_err e = {0};
    if (cat_open(f->path, 0, &f->c, &e) != GNNDB_OK) {
        fprintf(stderr, "cat_open: %s\n", e.msg);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    cat_close(f->c);
    tu_rmrf(f->dir);
    free(f->dir);
    free(f);
    return 0;
}

/* Run SQL on the file with a connection of our own; returns an SQLite rc. */
static int raw_exec(const char *path, const char *sql)
{
    sqlite3 *db;
    int rc = sqlite3_open(path, &db);
    if (!rc) rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_close(db);
    return rc;
}

/* One integer from SQL run on the file directly. */
static int64_t raw_int(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int64_t v = -1;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static cat_graph make_graph(const char *name, uint64_t token)
{
    cat_graph g;
    memset(&g, 0, sizeof g);
    snprintf(g.name, sizeof g.name, "%s", name);
    g.token = token;
    snprintf(g.file, sizeof g.file, "g-%016llx.blk", (unsigned long long)token);
    g.nodes = 2708;
    g.edges = 10556;
    g.directed = 1;
    g.block_size = 1 << 20;
    snprintf(g.node_order, sizeof g.node_order, "degree");
    g.graph_blocks = 3;
    g.has_map = 1;
    g.max_degree = 168;
    g.min_degree = 1;
    g.median_degree = 3;
    g.mean_degree = 3.898;
    snprintf(g.source, sizeof g.source, "/data/%s/edges.tsv", name);
    return g;
}

static cat_table make_table(int64_t graph_id, const char *name, uint64_t token)
{
    cat_table t;
    memset(&t, 0, sizeof t);
    t.graph_id = graph_id;
    snprintf(t.name, sizeof t.name, "%s", name);
    t.kind = strcmp(name, "__labels") ? CAT_TABLE_FEATURES : CAT_TABLE_LABELS;
    t.token = token;
    snprintf(t.file, sizeof t.file, "f-%016llx.blk", (unsigned long long)token);
    t.rows = 2708;
    t.dim = 1433;
    t.dtype = BLK_DTYPE_F32;
    t.block_size = 1 << 20;
    t.rows_per_block = 182;
    t.nblocks = 15;
    t.nclasses = t.kind == CAT_TABLE_LABELS ? 7 : 0;
    snprintf(t.source, sizeof t.source, "x.npy");
    return t;
}

static cat_split make_split(int64_t graph_id, const char *name, uint64_t token)
{
    cat_split s;
    memset(&s, 0, sizeof s);
    s.graph_id = graph_id;
    snprintf(s.name, sizeof s.name, "%s", name);
    s.token = token;
    s.count = 140;
    return s;
}

static void put_sums(cat_db *c, const char *file, uint64_t n, uint32_t seed)
{
    gnn_err e = {0};
    uint32_t *s = malloc((n + 1) * sizeof *s);
    for (uint64_t i = 0; i < n; i++) s[i] = (uint32_t)(i * 2654435761u) ^ seed;
    assert_int_equal(cat_checksums_put(c, file, s, n, &e), GNNDB_OK);
    free(s);
}

static uint64_t count_sums(cat_db *c, const char *file)
{
    gnn_err e = {0};
    uint32_t *s;
    uint64_t n;
    assert_int_equal(cat_checksums_get(c, file, &s, &n, &e), GNNDB_OK);
    free(s);
    return n;
}

/* ---- schema -------------------------------------------------------------- */

static void test_new_catalog_has_schema_and_version(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    int64_t v = 0;
    assert_int_equal(cat_format_version(f->c, &v, &e), GNNDB_OK);
    assert_int_equal(v, 3);   /* created at 3; an append moves it to 4 */
    const char *tables[] = { "meta", "graphs", "tables", "splits", "checksums",
                             "degree_hist", "stmt_log", "disk_profile" };
    for (int i = 0; i < 8; i++) {
        char sql[256];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM sqlite_master WHERE "
                 "type = 'table' AND name = '%s'", tables[i]);
        assert_int_equal(raw_int(f->path, sql), 1);
    }
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st,
                                        NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    sqlite3_close(db);

    /* reopening, writable and read-only, keeps everything */
    cat_close(f->c);
    f->c = NULL;
    assert_int_equal(cat_open(f->path, 0, &f->c, &e), GNNDB_OK);
    cat_db *ro;
    assert_int_equal(cat_open(f->path, 1, &ro, &e), GNNDB_OK);
    assert_int_equal(cat_format_version(ro, &v, &e), GNNDB_OK);
    assert_int_equal(v, 3);   /* created at 3; an append moves it to 4 */
    cat_close(ro);
    /* format_version, and schema_version: the last migration applied */
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM meta"), 2);
    assert_int_equal(raw_int(f->path, "SELECT value FROM meta WHERE key = "
                                      "'schema_version'"), 7);
}

/* ---- graphs -------------------------------------------------------------- */

static void test_graph_insert_get_list(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    cat_graph g = make_graph("papers", 0xfedcba9876543210ull); /* > INT64_MAX */
    assert_int_equal(cat_graph_insert(f->c, &g, &e), GNNDB_OK);
    assert_true(g.id > 0);
    cat_graph h = make_graph("cora", 42);
    assert_int_equal(cat_graph_insert(f->c, &h, &e), GNNDB_OK);
    assert_int_not_equal(h.id, g.id);

    cat_graph got;
    memset(&got, 0x55, sizeof got);
    assert_int_equal(cat_graph_get(f->c, "papers", &got, &e), GNNDB_OK);
    assert_int_equal(got.id, g.id);
    assert_string_equal(got.name, "papers");
    assert_int_equal(got.token, 0xfedcba9876543210ull);
    assert_string_equal(got.file, g.file);
    assert_int_equal(got.nodes, 2708);
    assert_int_equal(got.edges, 10556);
    assert_int_equal(got.directed, 1);
    assert_int_equal(got.block_size, 1 << 20);
    assert_string_equal(got.node_order, "degree");
    assert_int_equal(got.graph_blocks, 3);
    assert_int_equal(got.has_map, 1);
    assert_int_equal(got.max_degree, 168);
    assert_int_equal(got.min_degree, 1);
    assert_int_equal(got.median_degree, 3);
    assert_true(got.mean_degree > 3.897 && got.mean_degree < 3.899);
    assert_string_equal(got.source, "/data/papers/edges.tsv");

    cat_graph *list;
    size_t n;
    assert_int_equal(cat_graph_list(f->c, &list, &n, &e), GNNDB_OK);
    assert_int_equal(n, 2);
    assert_string_equal(list[0].name, "cora"); /* by name */
    assert_string_equal(list[1].name, "papers");
    assert_int_equal(list[1].token, 0xfedcba9876543210ull);
    free(list);
}

static void test_graph_name_taken_is_exists(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    cat_graph g = make_graph("papers", 1);
    assert_int_equal(cat_graph_insert(f->c, &g, &e), GNNDB_OK);
    cat_graph h = make_graph("papers", 2);
    assert_int_equal(cat_graph_insert(f->c, &h, &e), GNNDB_EXISTS);
    assert_string_equal(e.msg, "graph 'papers' already exists");
    assert_int_equal(e.rc, GNNDB_EXISTS);
}

static void test_missing_graph_is_notfound(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    cat_graph g;
    assert_int_equal(cat_graph_get(f->c, "nope", &g, &e), GNNDB_NOTFOUND);
    assert_string_equal(e.msg, "no such graph: nope");
    cat_graph *list;
    size_t n = 99;
    assert_int_equal(cat_graph_list(f->c, &list, &n, &e), GNNDB_OK);
    assert_int_equal(n, 0);
    free(list);
    assert_int_equal(cat_graph_delete(f->c, 12345, &e), GNNDB_NOTFOUND);
}

/* ---- tables and splits ---------------------------------------------------- */

static void test_tables_insert_get_list(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    cat_graph g = make_graph("cora", 1);
    assert_int_equal(cat_graph_insert(f->c, &g, &e), GNNDB_OK);
    cat_table feat = make_table(g.id, "feat", 0x8000000000000001ull);
    cat_table lab = make_table(g.id, "__labels", 3);
    assert_int_equal(cat_table_insert(f->c, &feat, &e), GNNDB_OK);
    assert_int_equal(cat_table_insert(f->c, &lab, &e), GNNDB_OK);
    assert_true(feat.id > 0 && lab.id > 0 && feat.id != lab.id);

    cat_table t;
    assert_int_equal(cat_table_get(f->c, g.id, "feat", &t, &e), GNNDB_OK);
    assert_int_equal(t.id, feat.id);
    assert_int_equal(t.graph_id, g.id);
    assert_int_equal(t.kind, CAT_TABLE_FEATURES);
    assert_int_equal(t.token, 0x8000000000000001ull);
    assert_string_equal(t.file, feat.file);
    assert_int_equal(t.rows, 2708);
    assert_int_equal(t.dim, 1433);
    assert_int_equal(t.dtype, BLK_DTYPE_F32);
    assert_int_equal(t.block_size, 1 << 20);
    assert_int_equal(t.rows_per_block, 182);
    assert_int_equal(t.nblocks, 15);
    assert_string_equal(t.source, "x.npy");
    assert_int_equal(cat_table_get(f->c, g.id, "__labels", &t, &e), GNNDB_OK);
    assert_int_equal(t.kind, CAT_TABLE_LABELS);
    assert_int_equal(t.nclasses, 7);

    cat_table *list;
    size_t n;
    assert_int_equal(cat_table_list(f->c, g.id, &list, &n, &e), GNNDB_OK);
    assert_int_equal(n, 2);
    free(list);

    /* the same name in the same graph, and missing names */
    cat_table dup = make_table(g.id, "feat", 9);
    assert_int_equal(cat_table_insert(f->c, &dup, &e), GNNDB_EXISTS);
    assert_non_null(strstr(e.msg, "'feat' already exists in graph cora"));
    assert_int_equal(cat_table_get(f->c, g.id, "emb", &t, &e), GNNDB_NOTFOUND);
    assert_string_equal(e.msg, "no such feature table: emb in graph cora");
    /* a table of a graph that does not exist */
    cat_table orphan = make_table(g.id + 100, "feat", 10);
    assert_int_equal(cat_table_insert(f->c, &orphan, &e), GNNDB_NOTFOUND);

    /* the same table name in another graph is fine */
    cat_graph h = make_graph("papers", 2);
    assert_int_equal(cat_graph_insert(f->c, &h, &e), GNNDB_OK);
    cat_table other = make_table(h.id, "feat", 11);
    assert_int_equal(cat_table_insert(f->c, &other, &e), GNNDB_OK);
    assert_int_equal(cat_table_list(f->c, h.id, &list, &n, &e), GNNDB_OK);
    assert_int_equal(n, 1);
    free(list);

    /* deleting a table drops its checksums only */
    put_sums(f->c, feat.file, 15, 1);
    put_sums(f->c, other.file, 15, 2);
    assert_int_equal(cat_table_delete(f->c, feat.id, &e), GNNDB_OK);
    assert_int_equal(cat_table_get(f->c, g.id, "feat", &t, &e), GNNDB_NOTFOUND);
    assert_int_equal(count_sums(f->c, feat.file), 0);
    assert_int_equal(count_sums(f->c, other.file), 15);
    assert_int_equal(cat_table_delete(f->c, feat.id, &e), GNNDB_NOTFOUND);
}

static void test_splits_insert_get_list_delete(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    cat_graph g = make_graph("cora", 1);
    assert_int_equal(cat_graph_insert(f->c, &g, &e), GNNDB_OK);
    const char *names[] = { "train", "val", "test" };
    cat_split s[3];
    for (int i = 0; i < 3; i++) {
        s[i] = make_split(g.id, names[i], UINT64_MAX - (uint64_t)i);
        s[i].count = 100 + i;
        assert_int_equal(cat_split_insert(f->c, &s[i], &e), GNNDB_OK);
    }
    cat_split got;
    assert_int_equal(cat_split_get(f->c, g.id, "val", &got, &e), GNNDB_OK);
    assert_int_equal(got.id, s[1].id);
    assert_int_equal(got.graph_id, g.id);
    assert_string_equal(got.name, "val");
    assert_int_equal(got.token, UINT64_MAX - 1);
    assert_int_equal(got.count, 101);

    cat_split dup = make_split(g.id, "train", 5);
    assert_int_equal(cat_split_insert(f->c, &dup, &e), GNNDB_EXISTS);
    assert_string_equal(e.msg, "split 'train' already exists in graph cora");
    assert_int_equal(cat_split_get(f->c, g.id, "holdout", &got, &e),
                     GNNDB_NOTFOUND);
    assert_string_equal(e.msg, "no such split: holdout in graph cora");

    cat_split *list;
    size_t n;
    assert_int_equal(cat_split_list(f->c, g.id, &list, &n, &e), GNNDB_OK);
    assert_int_equal(n, 3);
    assert_string_equal(list[0].name, "test");
    assert_string_equal(list[1].name, "train");
    assert_string_equal(list[2].name, "val");
    free(list);

    assert_int_equal(cat_split_delete(f->c, s[0].id, &e), GNNDB_OK);
    assert_int_equal(cat_split_get(f->c, g.id, "train", &got, &e),
                     GNNDB_NOTFOUND);
    assert_int_equal(cat_split_delete(f->c, s[0].id, &e), GNNDB_NOTFOUND);
    assert_int_equal(cat_split_list(f->c, g.id, &list, &n, &e), GNNDB_OK);
    assert_int_equal(n, 2);
    free(list);
}

static void test_graph_delete_cascades(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    cat_graph g = make_graph("cora", 1), h = make_graph("papers", 2);
    assert_int_equal(cat_graph_insert(f->c, &g, &e), GNNDB_OK);
    assert_int_equal(cat_graph_insert(f->c, &h, &e), GNNDB_OK);
    for (int k = 0; k < 2; k++) {
        cat_graph *x = k ? &h : &g;
        cat_table ft = make_table(x->id, "feat", 10 + (uint64_t)k);
        cat_table lt = make_table(x->id, "__labels", 20 + (uint64_t)k);
        cat_split sp = make_split(x->id, "train", 30 + (uint64_t)k);
        assert_int_equal(cat_table_insert(f->c, &ft, &e), GNNDB_OK);
        assert_int_equal(cat_table_insert(f->c, &lt, &e), GNNDB_OK);
        assert_int_equal(cat_split_insert(f->c, &sp, &e), GNNDB_OK);
        put_sums(f->c, x->file, 3, 7);
        put_sums(f->c, ft.file, 15, 8);
        put_sums(f->c, lt.file, 1, 9);
        int64_t hist[4] = { 1, 2, 3, 4 };
        assert_int_equal(cat_degree_hist_put(f->c, x->id, hist, 4, &e),
                         GNNDB_OK);
    }
    assert_int_equal(cat_begin(f->c, &e), GNNDB_OK);
    assert_int_equal(cat_graph_delete(f->c, g.id, &e), GNNDB_OK);
    assert_int_equal(cat_commit(f->c, &e), GNNDB_OK);

    cat_graph x;
    assert_int_equal(cat_graph_get(f->c, "cora", &x, &e), GNNDB_NOTFOUND);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM tables"), 2);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM splits"), 1);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM checksums"),
                     3 + 15 + 1);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM degree_hist"), 4);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM tables WHERE graph_id = "
             "%lld", (long long)g.id);
    assert_int_equal(raw_int(f->path, sql), 0);
    assert_int_equal(count_sums(f->c, g.file), 0);
    assert_int_equal(count_sums(f->c, h.file), 3);
    int64_t hist[8];
    int nb = -1;
    assert_int_equal(cat_degree_hist_get(f->c, g.id, hist, 8, &nb, &e),
                     GNNDB_OK);
    assert_int_equal(nb, 0);
    assert_int_equal(cat_degree_hist_get(f->c, h.id, hist, 8, &nb, &e),
                     GNNDB_OK);
    assert_int_equal(nb, 4);
    /* papers is whole */
    cat_table t;
    cat_split s;
    assert_int_equal(cat_table_get(f->c, h.id, "feat", &t, &e), GNNDB_OK);
    assert_int_equal(cat_split_get(f->c, h.id, "train", &s, &e), GNNDB_OK);
}

/* ---- checksums, statistics, listings --------------------------------------- */

static void test_checksums_round_trip_10000_blocks(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    enum { N = 10000 };
    uint32_t *s = malloc(N * sizeof *s);
    for (uint32_t i = 0; i < N; i++) s[i] = i * 2654435761u; /* uses bit 31 */
    assert_int_equal(cat_begin(f->c, &e), GNNDB_OK);
    assert_int_equal(cat_checksums_put(f->c, "g-1.blk", s, N, &e), GNNDB_OK);
    put_sums(f->c, "f-2.blk", 5, 0);
    assert_int_equal(cat_commit(f->c, &e), GNNDB_OK);

    uint32_t *got;
    uint64_t n;
    assert_int_equal(cat_checksums_get(f->c, "g-1.blk", &got, &n, &e),
                     GNNDB_OK);
    assert_int_equal(n, N);
    assert_memory_equal(got, s, N * sizeof *s);
    free(got);
    /* rewriting replaces, never appends */
    assert_int_equal(cat_checksums_put(f->c, "g-1.blk", s + 1, 7, &e),
                     GNNDB_OK);
    assert_int_equal(cat_checksums_get(f->c, "g-1.blk", &got, &n, &e),
                     GNNDB_OK);
    assert_int_equal(n, 7);
    assert_memory_equal(got, s + 1, 7 * sizeof *s);
    free(got);
    assert_int_equal(count_sums(f->c, "nothere.blk"), 0);
    assert_int_equal(count_sums(f->c, "f-2.blk"), 5);
    free(s);
}

static void test_checksums_with_a_gap_are_corrupt(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    put_sums(f->c, "g-1.blk", 10, 0);
    assert_int_equal(raw_exec(f->path, "DELETE FROM checksums WHERE "
                                       "block_no = 4"), SQLITE_OK);
    uint32_t *got = (uint32_t *)1;
    uint64_t n;
    assert_int_equal(cat_checksums_get(f->c, "g-1.blk", &got, &n, &e),
                     GNNDB_CORRUPT);
    assert_null(got);
    assert_non_null(strstr(e.msg, "catalog.db"));
    assert_non_null(strstr(e.msg, "g-1.blk"));
}

static void test_degree_hist_round_trip(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    cat_graph g = make_graph("cora", 1);
    assert_int_equal(cat_graph_insert(f->c, &g, &e), GNNDB_OK);
    int64_t h[9] = { 0, 485, 583, 553, 389, 281, 0, 0, 0 };
    h[8] = (int64_t)1 << 40;
    assert_int_equal(cat_degree_hist_put(f->c, g.id, h, 9, &e), GNNDB_OK);
    int64_t got[64];
    int nb;
    assert_int_equal(cat_degree_hist_get(f->c, g.id, got, 64, &nb, &e),
                     GNNDB_OK);
    assert_int_equal(nb, 9);
    for (int k = 0; k < 9; k++) assert_int_equal(got[k], h[k]);
    /* fewer slots than buckets: truncated, never overrun */
    int64_t small[4] = { -1, -1, -1, -1 };
    assert_int_equal(cat_degree_hist_get(f->c, g.id, small, 3, &nb, &e),
                     GNNDB_OK);
    assert_int_equal(nb, 3);
    assert_int_equal(small[2], 583);
    assert_int_equal(small[3], -1);
    /* a new histogram replaces the old one */
    int64_t h2[2] = { 5, 6 };
    assert_int_equal(cat_degree_hist_put(f->c, g.id, h2, 2, &e), GNNDB_OK);
    assert_int_equal(cat_degree_hist_get(f->c, g.id, got, 64, &nb, &e),
                     GNNDB_OK);
    assert_int_equal(nb, 2);
    assert_int_equal(got[1], 6);
    assert_int_equal(got[5], 0);
}

static int has_name(char **names, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], s)) return 1;
    return 0;
}

static int has_token(const uint64_t *t, size_t n, uint64_t v)
{
    for (size_t i = 0; i < n; i++)
        if (t[i] == v) return 1;
    return 0;
}

static void test_files_and_tokens_listing(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    char **names;
    size_t n;
    uint64_t *toks;
    assert_int_equal(cat_files(f->c, &names, &n, &e), GNNDB_OK);
    assert_int_equal(n, 0);
    free(names);
    assert_int_equal(cat_tokens(f->c, &toks, &n, &e), GNNDB_OK);
    assert_int_equal(n, 0);
    free(toks);

    cat_graph g = make_graph("cora", 0xffffffffffffffffull);
    assert_int_equal(cat_graph_insert(f->c, &g, &e), GNNDB_OK);
    cat_table t = make_table(g.id, "feat", 0x8000000000000000ull);
    assert_int_equal(cat_table_insert(f->c, &t, &e), GNNDB_OK);
    cat_split s = make_split(g.id, "train", 7);
    assert_int_equal(cat_split_insert(f->c, &s, &e), GNNDB_OK);

    assert_int_equal(cat_files(f->c, &names, &n, &e), GNNDB_OK);
    assert_int_equal(n, 2);
    assert_true(has_name(names, n, g.file));
    assert_true(has_name(names, n, t.file));
    free(names[0]);
    free(names);

    assert_int_equal(cat_tokens(f->c, &toks, &n, &e), GNNDB_OK);
    assert_int_equal(n, 3);
    assert_true(has_token(toks, n, 0xffffffffffffffffull));
    assert_true(has_token(toks, n, 0x8000000000000000ull));
    assert_true(has_token(toks, n, 7));
    free(toks);
}

static void test_statement_log_appends(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    assert_int_equal(cat_log(f->c, "CREATE GRAPH g FROM 'x.tsv';", GNNDB_OK,
                             12.5, &e), GNNDB_OK);
    assert_int_equal(cat_log(f->c, "DROP GRAPH 'it''s';", GNNDB_NOTFOUND, 0.25,
                             &e), GNNDB_OK);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM stmt_log"), 2);
    assert_int_equal(raw_int(f->path, "SELECT rc FROM stmt_log WHERE sql = "
                                      "'DROP GRAPH ''it''''s'';'"),
                     GNNDB_NOTFOUND);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM stmt_log WHERE "
                                      "ms = 12.5 AND ts LIKE '20%'"), 1);
}

/* ---- transactions -------------------------------------------------------- */

static void test_rollback_discards_changes(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    assert_int_equal(cat_begin(f->c, &e), GNNDB_OK);
    assert_int_equal(cat_begin(f->c, &e), GNNDB_MISUSE);
    cat_graph g = make_graph("cora", 1);
    assert_int_equal(cat_graph_insert(f->c, &g, &e), GNNDB_OK);
    put_sums(f->c, g.file, 100, 3);
    cat_rollback(f->c);
    cat_graph x;
    assert_int_equal(cat_graph_get(f->c, "cora", &x, &e), GNNDB_NOTFOUND);
    assert_int_equal(count_sums(f->c, g.file), 0);
    cat_rollback(f->c); /* nothing open: harmless */
    assert_int_equal(cat_commit(f->c, &e), GNNDB_MISUSE);
}

static void test_second_writer_is_busy(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    sqlite3 *other;
    assert_int_equal(sqlite3_open(f->path, &other), SQLITE_OK);
    assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(cat_begin(f->c, &e), GNNDB_BUSY);
    assert_non_null(strstr(e.msg, "database is busy: another connection is "
                                  "writing"));
    /* reads still work: WAL */
    cat_graph x;
    assert_int_equal(cat_graph_get(f->c, "cora", &x, &e), GNNDB_NOTFOUND);
    assert_int_equal(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(other);
    assert_int_equal(cat_begin(f->c, &e), GNNDB_OK);
    assert_int_equal(cat_commit(f->c, &e), GNNDB_OK);
}

/* ---- refusing what is not ours ------------------------------------------- */

static void test_newer_format_is_version_mismatch(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    cat_close(f->c);
    f->c = NULL;
    assert_int_equal(raw_exec(f->path, "UPDATE meta SET value = 99 WHERE "
                                       "key = 'format_version'"), SQLITE_OK);
    for (int ro = 0; ro < 2; ro++) {
        cat_db *c = (cat_db *)1;
        gnn_clearerr(&e);
        assert_int_equal(cat_open(f->path, ro, &c, &e), GNNDB_VERSION_MISMATCH);
        assert_null(c);
        char want[128];
        snprintf(want, sizeof want, "catalog.db has format version 99; this "
                 "gnndb reads up to %d", GNNDB_FORMAT_VERSION);
        assert_non_null(strstr(e.msg, want));
    }
}

static void test_garbage_file_is_corrupt(void **state)
{
    fixture *f = *state;
    cat_close(f->c);
    f->c = NULL;
    tu_rmrf(f->path);
    char buf[8192];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (char)(i * 7 + 3);
    assert_int_equal(tu_write_file(f->path, buf, sizeof buf), 0);
    for (int ro = 0; ro < 2; ro++) {
        cat_db *c = (cat_db *)1;
        gnn_err e = {0};
        assert_int_equal(cat_open(f->path, ro, &c, &e), GNNDB_CORRUPT);
        assert_null(c);
        assert_non_null(strstr(e.msg, "catalog.db"));
    }
    /* the file was left as it was */
    size_t len;
    char *back = tu_read_file(f->path, &len);
    assert_non_null(back);
    assert_int_equal(len, sizeof buf);
    assert_memory_equal(back, buf, sizeof buf);
    free(back);
}

static void test_foreign_sqlite_db_is_not_a_catalog(void **state)
{
    fixture *f = *state;
    char p[1100];
    snprintf(p, sizeof p, "%s/other/catalog.db", f->dir);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/other'", f->dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(raw_exec(p, "CREATE TABLE people(name TEXT)"), SQLITE_OK);
    for (int ro = 0; ro < 2; ro++) {
        cat_db *c = (cat_db *)1;
        gnn_err e = {0};
        assert_int_equal(cat_open(p, ro, &c, &e), GNNDB_CORRUPT);
        assert_null(c);
        assert_non_null(strstr(e.msg, "catalog.db is not a gnndb catalog"));
    }
    /* nothing was added to it */
    assert_int_equal(raw_int(p, "SELECT count(*) FROM sqlite_master"), 1);
}

static void test_readonly_open(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    char p[1100];
    snprintf(p, sizeof p, "%s/none/catalog.db", f->dir);
    cat_db *c = (cat_db *)1;
    assert_int_equal(cat_open(p, 1, &c, &e), GNNDB_CANTOPEN);
    assert_null(c);
    assert_non_null(strstr(e.msg, p));

    cat_graph g = make_graph("cora", 1);
    assert_int_equal(cat_graph_insert(f->c, &g, &e), GNNDB_OK);
    assert_int_equal(cat_open(f->path, 1, &c, &e), GNNDB_OK);
    cat_graph x;
    assert_int_equal(cat_graph_get(c, "cora", &x, &e), GNNDB_OK);
    assert_int_equal(x.id, g.id);
    assert_int_equal(cat_begin(c, &e), GNNDB_READONLY);
    cat_graph h = make_graph("papers", 2);
    assert_int_equal(cat_graph_insert(c, &h, &e), GNNDB_READONLY);
    assert_int_equal(cat_log(c, "x", 0, 0, &e), GNNDB_READONLY);
    assert_non_null(strstr(e.msg, "catalog.db"));
    uint32_t s = 1;
    assert_int_equal(cat_checksums_put(c, "a.blk", &s, 1, &e), GNNDB_READONLY);
    assert_int_equal(cat_graph_delete(c, g.id, &e), GNNDB_READONLY);
    cat_close(c);
    /* an empty, new file is not a catalog to a reader */
    snprintf(p, sizeof p, "%s/empty.db", f->dir);
    assert_int_equal(tu_write_file(p, "", 0), 0);
    assert_int_equal(cat_open(p, 1, &c, &e), GNNDB_CORRUPT);
    cat_close(NULL);
}

/* ---- packs ------------------------------------------------------------ */

static cat_pack make_pack(int64_t graph_id, const char *name, uint64_t token)
{
    cat_pack p;
    memset(&p, 0, sizeof p);
    p.graph_id = graph_id;
    snprintf(p.name, sizeof p.name, "%s", name);
    p.token = token;
    snprintf(p.file, sizeof p.file, "p-%016llx.blk", (unsigned long long)token);
    snprintf(p.sql, sizeof p.sql, "SAMPLE 10 FROM g BATCH 4 EPOCHS 2");
    p.seed = 0xfedcba9876543210ull;   /* above INT64_MAX: stored as int64 */
    p.epochs = 2;
    p.batches_per_epoch = 3;
    p.batches = 6;
    p.block_size = 1 << 20;
    p.nblocks = 2;
    p.bytes = 1500000;
    p.nhops = 1;
    p.x_dim = 1433;
    p.has_y = 1;
    return p;
}

static void test_packs_insert_get_batches_delete(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    cat_graph g = make_graph("g", 1), h = make_graph("h", 2);
    assert_int_equal(cat_graph_insert(f->c, &g, &e), GNNDB_OK);
    assert_int_equal(cat_graph_insert(f->c, &h, &e), GNNDB_OK);
    cat_pack_batch b[6];
    for (int i = 0; i < 6; i++) {
        b[i].epoch = i / 3;
        b[i].batch = i % 3;
        b[i].offset = i * 250000;
        b[i].length = 250000;
    }
    cat_pack p = make_pack(g.id, "p", 0xaaaa000000000001ull);
    assert_int_equal(cat_pack_insert(f->c, &p, b, 6, &e), GNNDB_OK);
    assert_true(p.id > 0);
    cat_pack q = make_pack(h.id, "p", 0xbbbb);
    assert_int_equal(cat_pack_insert(f->c, &q, b, 6, &e), GNNDB_EXISTS);
    assert_non_null(strstr(e.msg, "pack 'p' already exists"));
    cat_pack *got = calloc(1, sizeof *got);
    assert_int_equal(cat_pack_get(f->c, "p", got, &e), GNNDB_OK);
    p.id = got->id;
    assert_memory_equal(got, &p, sizeof p);
    assert_int_equal(cat_pack_get(f->c, "nope", got, &e), GNNDB_NOTFOUND);
    assert_string_equal(e.msg, "no such pack: nope");
    free(got);

    cat_pack_batch *bs;
    size_t n;
    assert_int_equal(cat_pack_batches(f->c, p.id, -1, &bs, &n, &e), GNNDB_OK);
    assert_int_equal(n, 6);
    assert_memory_equal(bs, b, sizeof b);
    free(bs);
    assert_int_equal(cat_pack_batches(f->c, p.id, 1, &bs, &n, &e), GNNDB_OK);
    assert_int_equal(n, 3);
    assert_memory_equal(bs, b + 3, 3 * sizeof *b);
    free(bs);

    /* listed per graph; its file and token count as referenced */
    cat_pack *ps;
    assert_int_equal(cat_pack_list(f->c, g.id, &ps, &n, &e), GNNDB_OK);
    assert_int_equal(n, 1);
    free(ps);
    assert_int_equal(cat_pack_list(f->c, h.id, &ps, &n, &e), GNNDB_OK);
    assert_int_equal(n, 0);
    free(ps);
    char **names;
    assert_int_equal(cat_files(f->c, &names, &n, &e), GNNDB_OK);
    int found = 0;
    for (size_t i = 0; i < n; i++) found |= !strcmp(names[i], p.file);
    assert_true(found);
    if (n) free(names[0]);
    free(names);

    /* deleting the graph deletes its packs, their batches and checksums */
    uint32_t sums[2] = {1, 2};
    assert_int_equal(cat_checksums_put(f->c, p.file, sums, 2, &e), GNNDB_OK);
    assert_int_equal(cat_graph_delete(f->c, g.id, &e), GNNDB_OK);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM packs"), 0);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM pack_batches"), 0);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM checksums"), 0);

    /* DROP PACK's delete */
    q = make_pack(h.id, "q", 0xcccc);
    assert_int_equal(cat_pack_insert(f->c, &q, b, 2, &e), GNNDB_OK);
    assert_int_equal(cat_pack_delete(f->c, q.id, &e), GNNDB_OK);
    assert_int_equal(cat_pack_delete(f->c, q.id, &e), GNNDB_NOTFOUND);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM pack_batches"), 0);
}

/* The catalog of a format-2 library: graphs without the edge-id columns
** (migrations 4, 5 and 7 undone). */
static void make_format2(const char *path)
{
    assert_int_equal(raw_exec(path, "DROP TABLE node_types;"
                                    "DROP TABLE relations;"
                                    "ALTER TABLE graphs DROP COLUMN version;"
                                    "ALTER TABLE graphs DROP COLUMN "
                                    "oldest_version;"
                                    "ALTER TABLE graphs DROP COLUMN "
                                    "build_flags;"
                                    "ALTER TABLE graphs DROP COLUMN made;"
                                    "ALTER TABLE graphs DROP COLUMN kind;"
                                    "ALTER TABLE graphs DROP COLUMN parent_id;"
                                    "ALTER TABLE tables DROP COLUMN node_type;"
                                    "ALTER TABLE splits DROP COLUMN node_type;"
                                    "ALTER TABLE graphs DROP COLUMN has_eids;"
                                    "ALTER TABLE graphs DROP COLUMN eid_file;"
                                    "ALTER TABLE graphs DROP COLUMN eid_token;"
                                    "ALTER TABLE graphs DROP COLUMN eid_blocks;"
                                    "ALTER TABLE graphs DROP COLUMN "
                                    "input_edges;"
                                    "ALTER TABLE splits DROP COLUMN seed;"
                                    "ALTER TABLE splits DROP COLUMN kind;"
                                    "UPDATE meta SET value = 2 "
                                    "WHERE key = 'format_version';"
                                    "UPDATE meta SET value = 3 WHERE key = "
                                    "'schema_version';"), SQLITE_OK);
}

/* A catalog made before packs existed: a writable open adds the tables, a
** read-only one sees no packs. */
static void test_packs_tables_added_to_an_older_catalog(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    cat_close(f->c);
    f->c = NULL;
    /* schema version 2: the catalog of a library before packs */
    make_format2(f->path);
    assert_int_equal(raw_exec(f->path, "DROP TABLE pack_batches; "
                                       "DROP TABLE packs; UPDATE meta SET "
                                       "value = 2 WHERE key = "
                                       "'schema_version';"), SQLITE_OK);
    cat_db *ro;
    assert_int_equal(cat_open(f->path, 1, &ro, &e), GNNDB_OK);
    cat_pack *ps, p;
    size_t n = 99;
    assert_int_equal(cat_pack_list(ro, 1, &ps, &n, &e), GNNDB_OK);
    assert_int_equal(n, 0);
    free(ps);
    assert_int_equal(cat_pack_get(ro, "p", &p, &e), GNNDB_NOTFOUND);
    cat_close(ro);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sqlite_master "
                                      "WHERE name = 'packs'"), 0);
    assert_int_equal(cat_open(f->path, 0, &f->c, &e), GNNDB_OK);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sqlite_master "
                                      "WHERE name IN ('packs', "
                                      "'pack_batches')"), 2);
    assert_int_equal(raw_int(f->path, "SELECT value FROM meta WHERE key = "
                                      "'schema_version'"), 7);
}

/* A format-2 catalog: read-only, it reads as it is (graphs without edge
** ids, format 2 kept); writable, it is migrated to format 3, its graphs
** still without edge ids, and a graph with them can be added. */
static void test_format2_catalog_read_as_is_or_migrated(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    cat_graph g = make_graph("old", 77), got;
    assert_int_equal(cat_graph_insert(f->c, &g, &e), GNNDB_OK);
    cat_close(f->c);
    f->c = NULL;
    make_format2(f->path);
    cat_db *ro;
    int64_t v = 0;
    assert_int_equal(cat_open(f->path, 1, &ro, &e), GNNDB_OK);
    assert_int_equal(cat_format_version(ro, &v, &e), GNNDB_OK);
    assert_int_equal(v, 2);
    memset(&got, 0x55, sizeof got);
    assert_int_equal(cat_graph_get(ro, "old", &got, &e), GNNDB_OK);
    assert_int_equal(got.has_eids, 0);
    assert_int_equal(got.input_edges, 0);
    assert_int_equal(cat_graph_need_eids(&got, "IMPORT EDGE FEATURES", &e),
                     GNNDB_NOTFOUND);
    assert_non_null(strstr(e.msg, "graph old has none"));
    char **names;
    size_t n;
    assert_int_equal(cat_files(ro, &names, &n, &e), GNNDB_OK);
    free(names[0]);
    free(names);
    cat_close(ro);
    assert_int_equal(cat_open(f->path, 0, &f->c, &e), GNNDB_OK);
    assert_int_equal(cat_format_version(f->c, &v, &e), GNNDB_OK);
    assert_int_equal(v, 3);
    assert_int_equal(cat_graph_get(f->c, "old", &got, &e), GNNDB_OK);
    assert_int_equal(got.has_eids, 0);
    cat_graph h = make_graph("new", 78);
    h.has_eids = 1;
    snprintf(h.eid_file, sizeof h.eid_file, "g-eids.blk");
    h.eid_token = 0xfedcba9876543210ull;
    h.eid_blocks = 4;
    h.input_edges = 1234;
    assert_int_equal(cat_graph_insert(f->c, &h, &e), GNNDB_OK);
    assert_int_equal(cat_graph_get(f->c, "new", &got, &e), GNNDB_OK);
    assert_true(got.has_eids && got.eid_token == h.eid_token);
    assert_string_equal(got.eid_file, "g-eids.blk");
    assert_int_equal(got.input_edges, 1234);
    assert_int_equal(cat_graph_need_eids(&got, "x", &e), GNNDB_OK);
}

/* ---- versions ------------------------------------------------------------ */

/* A graph row as CREATE GRAPH makes one: edge ids, recorded options. */
static cat_graph make_versioned(const char *name, uint64_t token)
{
    cat_graph g = make_graph(name, token);
    snprintf(g.node_order, sizeof g.node_order, "none");
    g.has_map = 0;
    g.has_eids = 1;
    snprintf(g.eid_file, sizeof g.eid_file, "g-%016llx.blk",
             (unsigned long long)token + 1);
    g.eid_token = token + 1;
    g.eid_blocks = 2;
    g.input_edges = 6000;
    g.build_flags = CAT_BUILD_DROP_DUPLICATES | CAT_BUILD_DROP_SELF_LOOPS;
    return g;
}

/* The next version's topology, as INSERT EDGES fills it before
** cat_version_add: files, tokens and counts of its own. */
static cat_graph make_topology(uint64_t token, int64_t edges,
                               int64_t input_edges)
{
    cat_graph v;
    memset(&v, 0, sizeof v);
    v.token = token;
    snprintf(v.file, sizeof v.file, "g-%016llx.blk",
             (unsigned long long)token);
    v.nodes = 2708;
    v.edges = edges;
    v.graph_blocks = 4;
    v.max_degree = 170;
    v.min_degree = 1;
    v.median_degree = 4;
    v.mean_degree = 4.5;
    snprintf(v.source, sizeof v.source, "/data/more-%lld.tsv",
             (long long)edges);
    v.has_eids = 1;
    snprintf(v.eid_file, sizeof v.eid_file, "g-%016llx.blk",
             (unsigned long long)token + 1);
    v.eid_token = token + 1;
    v.eid_blocks = 3;
    v.input_edges = input_edges;
    return v;
}

/* What hangs off one version's topology row `topo`: its edge table (and
** that file's checksums), the checksums of its topology files, its degree
** histogram and edge time range, and a time graph row. */
static void hang_off(cat_db *c, const cat_graph *g, int64_t topo,
                     int64_t version, const char *topo_file,
                     const char *eid_file, uint64_t token)
{
    gnn_err e = {0};
    cat_table t = make_table(topo, CAT_EDGES_TABLE, token);
    t.kind = CAT_TABLE_EDGES;
    assert_int_equal(cat_table_insert(c, &t, &e), GNNDB_OK);
    put_sums(c, t.file, 3, 1);
    put_sums(c, topo_file, 4, 2);
    put_sums(c, eid_file, 2, 3);
    int64_t hist[4] = {1, 2, 3, 4};
    assert_int_equal(cat_degree_hist_put(c, topo, hist, 4, &e), GNNDB_OK);
    assert_int_equal(cat_time_range_put(c, topo, "edge", 5, 500, &e),
                     GNNDB_OK);
    /* the time graph of that version, named as cat_time_graph_get looks */
    cat_graph view;
    if (topo == g->id) {
        view = *g;
    } else {
        memset(&view, 0, sizeof view);
        view.id = g->id;
        view.topo_id = topo;
        view.version = version;
        snprintf(view.name, sizeof view.name, "%s", g->name);
    }
    cat_graph tg = make_graph("x", token + 2);
    cat_time_graph_name(topo == g->id ? g : &view, tg.name, sizeof tg.name);
    tg.kind = CAT_GRAPH_TIME;
    tg.parent_id = topo;
    assert_int_equal(cat_graph_insert(c, &tg, &e), GNNDB_OK);
}

/* One version's rows, n >= 2, published as INSERT EDGES does. */
static cat_graph add_version(cat_db *c, const char *name, uint64_t token,
                             int64_t edges, int64_t input_edges)
{
    gnn_err e = {0};
    cat_graph g, v = make_topology(token, edges, input_edges);
    assert_int_equal(cat_graph_get(c, name, &g, &e), GNNDB_OK);
    assert_int_equal(cat_begin(c, &e), GNNDB_OK);
    if (cat_version_add(c, &g, &v, &e) != GNNDB_OK)
        fail_msg("cat_version_add: %s", e.msg);
    assert_int_equal(cat_commit(c, &e), GNNDB_OK);
    assert_int_equal(v.version, g.version + 1);
    assert_int_equal(v.topo_id, v.id);
    assert_int_equal(v.kind, CAT_GRAPH_VERSION);
    assert_int_equal(v.parent_id, g.id);
    char want[CAT_NAME_MAX];
    snprintf(want, sizeof want, "%s.__v%lld", name, (long long)v.version);
    assert_string_equal(v.name, want);
    hang_off(c, &g, v.id, v.version, v.file, v.eid_file, token + 100);
    return v;
}

static int64_t count_where(const char *path, const char *fmt, int64_t id)
{
    char sql[512];
    snprintf(sql, sizeof sql, fmt, (long long)id);
    return raw_int(path, sql);
}

/* cat_version_add moves a graph to its next version: cat_graph_get hands
** out the current one's topology (with topo_id its row) under the graph's
** own identity, and the listing shows the graph once. */
static void test_version_add_and_get_current(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    cat_graph g = make_versioned("g", 0x100), got;
    assert_int_equal(cat_graph_insert(f->c, &g, &e), GNNDB_OK);
    hang_off(f->c, &g, g.id, 1, g.file, g.eid_file, 0x150);
    assert_int_equal(cat_graph_get(f->c, "g", &got, &e), GNNDB_OK);
    assert_int_equal(got.version, 1);
    assert_int_equal(got.oldest_version, 1);
    assert_int_equal(got.topo_id, g.id);
    assert_int_equal(got.build_flags, CAT_BUILD_DROP_DUPLICATES |
                                      CAT_BUILD_DROP_SELF_LOOPS);

    cat_graph v2 = add_version(f->c, "g", 0x200, 20000, 9000);
    assert_int_equal(v2.version, 2);
    memset(&got, 0x55, sizeof got);
    assert_int_equal(cat_graph_get(f->c, "g", &got, &e), GNNDB_OK);
    /* identity and options: the graph's */
    assert_int_equal(got.id, g.id);
    assert_string_equal(got.name, "g");
    assert_int_equal(got.kind, CAT_GRAPH_PLAIN);
    assert_int_equal(got.directed, 1);
    assert_string_equal(got.node_order, "none");
    assert_int_equal(got.build_flags, g.build_flags);
    assert_int_equal(got.version, 2);
    assert_int_equal(got.oldest_version, 1);
    /* topology: version 2's */
    assert_int_equal(got.topo_id, v2.id);
    assert_string_equal(got.file, v2.file);
    assert_true(got.token == 0x200);
    assert_int_equal(got.edges, 20000);
    assert_int_equal(got.input_edges, 9000);
    assert_int_equal(got.graph_blocks, 4);
    assert_string_equal(got.eid_file, v2.eid_file);
    assert_true(got.eid_token == 0x201);
    assert_int_equal(got.eid_blocks, 3);
    assert_int_equal(got.max_degree, 170);
    assert_string_equal(got.source, "/data/more-20000.tsv");
    /* by id too */
    memset(&got, 0, sizeof got);
    assert_int_equal(cat_graph_get_id(f->c, g.id, &got, &e), GNNDB_OK);
    assert_int_equal(got.topo_id, v2.id);
    assert_int_equal(got.edges, 20000);
    /* the time graph is the version's */
    cat_graph tg;
    assert_int_equal(cat_time_graph_get(f->c, &got, &tg, &e), GNNDB_OK);
    assert_int_equal(tg.parent_id, v2.id);
    assert_string_equal(tg.name, "g.__v2.__time");

    cat_graph v3 = add_version(f->c, "g", 0x300, 30000, 12000);
    assert_int_equal(v3.version, 3);
    assert_int_equal(cat_graph_get(f->c, "g", &got, &e), GNNDB_OK);
    assert_int_equal(got.version, 3);
    assert_int_equal(got.topo_id, v3.id);
    assert_int_equal(got.edges, 30000);

    /* listed once, as its current version; version rows are no graphs */
    cat_graph *list;
    size_t n;
    assert_int_equal(cat_graph_list(f->c, &list, &n, &e), GNNDB_OK);
    assert_int_equal(n, 1);
    assert_string_equal(list[0].name, "g");
    assert_int_equal(list[0].edges, 30000);
    assert_int_equal(list[0].topo_id, v3.id);
    free(list);
    /* a version row's name is not a graph's to take */
    cat_graph clash = make_graph("g.__v2", 0x999);
    assert_int_equal(cat_graph_insert(f->c, &clash, &e), GNNDB_EXISTS);
}

/* cat_graph_as_of gives each kept version: the graph's identity with that
** version's topology; refuses versions that never were, in words. */
static void test_graph_as_of_each_version(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    cat_graph g = make_versioned("g", 0x100), cur, at;
    assert_int_equal(cat_graph_insert(f->c, &g, &e), GNNDB_OK);
    hang_off(f->c, &g, g.id, 1, g.file, g.eid_file, 0x150);
    /* one version: as of 1 is the graph itself */
    assert_int_equal(cat_graph_get(f->c, "g", &cur, &e), GNNDB_OK);
    assert_int_equal(cat_graph_as_of(f->c, &cur, 1, &at, &e), GNNDB_OK);
    assert_int_equal(at.topo_id, g.id);
    assert_int_equal(at.edges, g.edges);

    cat_graph v2 = add_version(f->c, "g", 0x200, 20000, 9000);
    cat_graph v3 = add_version(f->c, "g", 0x300, 30000, 12000);
    assert_int_equal(cat_graph_get(f->c, "g", &cur, &e), GNNDB_OK);
    const struct { int64_t n, topo, edges, input; const char *file; } want[] = {
        {1, g.id, 10556, 6000, g.file},
        {2, v2.id, 20000, 9000, v2.file},
        {3, v3.id, 30000, 12000, v3.file},
    };
    for (int i = 0; i < 3; i++) {
        memset(&at, 0x55, sizeof at);
        assert_int_equal(cat_graph_as_of(f->c, &cur, want[i].n, &at, &e),
                         GNNDB_OK);
        assert_int_equal(at.id, g.id);
        assert_string_equal(at.name, "g");
        assert_int_equal(at.kind, CAT_GRAPH_PLAIN);
        assert_int_equal(at.version, want[i].n);
        assert_int_equal(at.topo_id, want[i].topo);
        assert_int_equal(at.edges, want[i].edges);
        assert_int_equal(at.input_edges, want[i].input);
        assert_string_equal(at.file, want[i].file);
        assert_int_equal(at.build_flags, g.build_flags);
        /* what hangs off it is found through topo_id */
        cat_graph tg;
        assert_int_equal(cat_time_graph_get(f->c, &at, &tg, &e), GNNDB_OK);
        assert_int_equal(tg.parent_id, want[i].topo);
        cat_table et;
        assert_int_equal(cat_table_get(f->c, at.topo_id, CAT_EDGES_TABLE,
                                       &et, &e), GNNDB_OK);
        int64_t lo, hi;
        assert_int_equal(cat_time_range_get(f->c, at.topo_id, "edge", &lo,
                                            &hi, &e), GNNDB_OK);
        /* the version row itself */
        cat_graph row;
        assert_int_equal(cat_version_row(f->c, &cur, want[i].n, &row, &e),
                         GNNDB_OK);
        assert_int_equal(row.id, want[i].topo);
    }
    /* the current one, asked for by number, is the graph as it is */
    assert_int_equal(cat_graph_as_of(f->c, &cur, 3, &at, &e), GNNDB_OK);
    assert_memory_equal(&at, &cur, sizeof at);
    assert_int_equal(cat_graph_as_of(f->c, &cur, 4, &at, &e),
                     GNNDB_NOTFOUND);
    assert_string_equal(e.msg, "graph g has no version 4 (its versions are "
                               "1 to 3: SHOW VERSIONS g)");
    assert_int_equal(cat_graph_as_of(f->c, &cur, 0, &at, &e),
                     GNNDB_NOTFOUND);
    assert_non_null(strstr(e.msg, "graph g has no version 0"));
    assert_int_equal(cat_graph_as_of(f->c, &cur, -7, &at, &e),
                     GNNDB_NOTFOUND);

    /* a read-only handle sees the same versions */
    cat_db *ro;
    assert_int_equal(cat_open(f->path, 1, &ro, &e), GNNDB_OK);
    assert_int_equal(cat_graph_get(ro, "g", &cur, &e), GNNDB_OK);
    assert_int_equal(cat_graph_as_of(ro, &cur, 2, &at, &e), GNNDB_OK);
    assert_int_equal(at.edges, 20000);
    cat_close(ro);
}

/* cat_version_list: a row per kept version, oldest first, with when it
** was made. */
static void test_version_list(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    cat_graph g = make_versioned("g", 0x100), cur, *vs;
    char (*made)[CAT_MADE_MAX];
    size_t n;
    assert_int_equal(cat_graph_insert(f->c, &g, &e), GNNDB_OK);
    assert_int_equal(cat_graph_get(f->c, "g", &cur, &e), GNNDB_OK);
    assert_int_equal(cat_version_list(f->c, &cur, &vs, &made, &n, &e),
                     GNNDB_OK);
    assert_int_equal(n, 1);
    assert_int_equal(vs[0].version, 1);
    assert_int_equal(vs[0].edges, 10556);
    free(vs);
    free(made);

    cat_graph v2 = add_version(f->c, "g", 0x200, 20000, 9000);
    add_version(f->c, "g", 0x300, 30000, 12000);
    assert_int_equal(cat_graph_get(f->c, "g", &cur, &e), GNNDB_OK);
    assert_int_equal(cat_version_list(f->c, &cur, &vs, &made, &n, &e),
                     GNNDB_OK);
    assert_int_equal(n, 3);
    const int64_t edges[] = {10556, 20000, 30000};
    const int64_t input[] = {6000, 9000, 12000};
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(vs[i].version, (int64_t)i + 1);
        assert_int_equal(vs[i].edges, edges[i]);
        assert_int_equal(vs[i].input_edges, input[i]);
        /* YYYY-MM-DDTHH:MM:SSZ */
        assert_int_equal(strlen(made[i]), 20);
        assert_true(made[i][4] == '-' && made[i][10] == 'T' &&
                    made[i][19] == 'Z');
    }
    assert_int_equal(vs[0].id, g.id);
    assert_int_equal(vs[1].id, v2.id);
    assert_string_equal(vs[1].file, v2.file);
    free(vs);
    free(made);
}

/* cat_versions_drop: the older versions' rows go with what hangs off
** them, the graph's own row stays (version 1's topology columns are in
** it), oldest_version moves, and the current version stays. */
static void test_versions_drop(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    cat_graph g = make_versioned("g", 0x100), cur, at;
    assert_int_equal(cat_graph_insert(f->c, &g, &e), GNNDB_OK);
    hang_off(f->c, &g, g.id, 1, g.file, g.eid_file, 0x150);
    cat_table feat = make_table(g.id, "feat", 0x170);
    assert_int_equal(cat_table_insert(f->c, &feat, &e), GNNDB_OK);
    put_sums(f->c, feat.file, 5, 9);
    cat_split sp = make_split(g.id, "train", 0x180);
    assert_int_equal(cat_split_insert(f->c, &sp, &e), GNNDB_OK);
    cat_graph v2 = add_version(f->c, "g", 0x200, 20000, 9000);
    cat_graph v3 = add_version(f->c, "g", 0x300, 30000, 12000);
    assert_int_equal(cat_graph_get(f->c, "g", &cur, &e), GNNDB_OK);

    /* before the oldest: nothing to do */
    assert_int_equal(cat_begin(f->c, &e), GNNDB_OK);
    assert_int_equal(cat_versions_drop(f->c, &cur, 1, &e), GNNDB_OK);
    assert_int_equal(cat_commit(f->c, &e), GNNDB_OK);
    assert_int_equal(cat_graph_as_of(f->c, &cur, 1, &at, &e), GNNDB_OK);
    /* never the current one */
    assert_int_equal(cat_begin(f->c, &e), GNNDB_OK);
    assert_int_equal(cat_versions_drop(f->c, &cur, 4, &e), GNNDB_RANGE);
    assert_string_equal(e.msg, "DROP VERSIONS BEFORE 4 ON g: version 3 is "
                               "the current one and stays");
    cat_rollback(f->c);

    int64_t graphs_before = raw_int(f->path, "SELECT count(*) FROM graphs");
    assert_int_equal(cat_begin(f->c, &e), GNNDB_OK);
    if (cat_versions_drop(f->c, &cur, 2, &e) != GNNDB_OK)
        fail_msg("cat_versions_drop: %s", e.msg);
    assert_int_equal(cat_commit(f->c, &e), GNNDB_OK);
    /* version 1: what hung off the graph's row is gone, the row stays */
    assert_int_equal(count_where(f->path, "SELECT count(*) FROM graphs "
                                 "WHERE id = %lld", g.id), 1);
    assert_int_equal(count_where(f->path, "SELECT count(*) FROM tables "
                                 "WHERE graph_id = %lld AND kind = 3", g.id),
                     0);
    assert_int_equal(count_where(f->path, "SELECT count(*) FROM degree_hist "
                                 "WHERE graph_id = %lld", g.id), 0);
    assert_int_equal(count_where(f->path, "SELECT count(*) FROM time_ranges "
                                 "WHERE graph_id = %lld", g.id), 0);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM graphs WHERE "
                                      "name = 'g.__time'"), 0);
    assert_int_equal(count_sums(f->c, g.file), 0);
    assert_int_equal(count_sums(f->c, g.eid_file), 0);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM checksums WHERE "
                                      "file = 'f-0000000000000150.blk'"), 0);
    /* one row fewer: version 1's time graph */
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM graphs"),
                     graphs_before - 1);
    /* the graph's own tables and splits stay, and the later versions */
    assert_int_equal(count_sums(f->c, feat.file), 5);
    cat_table t;
    assert_int_equal(cat_table_get(f->c, g.id, "feat", &t, &e), GNNDB_OK);
    cat_split s;
    assert_int_equal(cat_split_get(f->c, g.id, "train", &s, &e), GNNDB_OK);
    assert_int_equal(count_sums(f->c, v2.file), 4);
    assert_int_equal(count_sums(f->c, v3.eid_file), 2);

    memset(&cur, 0, sizeof cur);
    assert_int_equal(cat_graph_get(f->c, "g", &cur, &e), GNNDB_OK);
    assert_int_equal(cur.oldest_version, 2);
    assert_int_equal(cur.version, 3);
    assert_int_equal(cur.topo_id, v3.id);
    assert_int_equal(cat_graph_as_of(f->c, &cur, 1, &at, &e),
                     GNNDB_NOTFOUND);
    assert_string_equal(e.msg, "version 1 of graph g was dropped (DROP "
                               "VERSIONS); versions 2 to 3 remain");
    assert_int_equal(cat_graph_as_of(f->c, &cur, 2, &at, &e), GNNDB_OK);
    assert_int_equal(at.edges, 20000);
    cat_graph *vs;
    char (*made)[CAT_MADE_MAX];
    size_t n;
    assert_int_equal(cat_version_list(f->c, &cur, &vs, &made, &n, &e),
                     GNNDB_OK);
    assert_int_equal(n, 2);
    assert_int_equal(vs[0].version, 2);
    assert_int_equal(vs[1].version, 3);
    free(vs);
    free(made);

    /* version 2: its row and everything hanging off it go */
    assert_int_equal(cat_begin(f->c, &e), GNNDB_OK);
    assert_int_equal(cat_versions_drop(f->c, &cur, 3, &e), GNNDB_OK);
    assert_int_equal(cat_commit(f->c, &e), GNNDB_OK);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM graphs WHERE "
                                      "name LIKE 'g.__v2%'"), 0);
    assert_int_equal(count_where(f->path, "SELECT count(*) FROM tables "
                                 "WHERE graph_id = %lld", v2.id), 0);
    assert_int_equal(count_where(f->path, "SELECT count(*) FROM degree_hist "
                                 "WHERE graph_id = %lld", v2.id), 0);
    assert_int_equal(count_sums(f->c, v2.file), 0);
    assert_int_equal(count_sums(f->c, v2.eid_file), 0);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM checksums WHERE "
                                      "file = 'f-0000000000000264.blk'"), 0);
    assert_int_equal(cat_graph_get(f->c, "g", &cur, &e), GNNDB_OK);
    assert_int_equal(cur.oldest_version, 3);
    assert_int_equal(cat_graph_as_of(f->c, &cur, 2, &at, &e),
                     GNNDB_NOTFOUND);
    assert_non_null(strstr(e.msg, "version 2 of graph g was dropped"));
    assert_int_equal(cat_version_list(f->c, &cur, &vs, &made, &n, &e),
                     GNNDB_OK);
    assert_int_equal(n, 1);
    assert_int_equal(vs[0].version, 3);
    assert_int_equal(vs[0].id, v3.id);
    free(vs);
    free(made);
    /* the current version stays whatever is asked */
    assert_int_equal(cat_begin(f->c, &e), GNNDB_OK);
    assert_int_equal(cat_versions_drop(f->c, &cur, 4, &e), GNNDB_RANGE);
    cat_rollback(f->c);
    assert_int_equal(cat_graph_get(f->c, "g", &cur, &e), GNNDB_OK);
    assert_int_equal(cur.edges, 30000);

    /* a later version after the drops, then DROP GRAPH takes them all */
    cat_graph v4 = add_version(f->c, "g", 0x400, 40000, 15000);
    assert_int_equal(v4.version, 4);
    assert_int_equal(cat_graph_get(f->c, "g", &cur, &e), GNNDB_OK);
    assert_int_equal(cur.oldest_version, 3);
    assert_int_equal(cat_graph_delete(f->c, g.id, &e), GNNDB_OK);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM graphs"), 0);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM tables"), 0);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM checksums"), 0);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM degree_hist"), 0);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM time_ranges"), 0);
}

/* Only a graph made from an edge file has versions; a rolled-back
** cat_version_add leaves the graph as it was. */
static void test_version_add_refusals_and_rollback(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    cat_graph t = make_graph("typed", 0x500), cur;
    t.kind = CAT_GRAPH_TYPED;
    assert_int_equal(cat_graph_insert(f->c, &t, &e), GNNDB_OK);
    cat_graph v = make_topology(0x600, 1, 1);
    assert_int_equal(cat_begin(f->c, &e), GNNDB_OK);
    assert_int_equal(cat_version_add(f->c, &t, &v, &e), GNNDB_MISUSE);
    assert_non_null(strstr(e.msg, "graph typed: only a graph made from an "
                                  "edge file has versions"));
    cat_rollback(f->c);

    cat_graph g = make_versioned("g", 0x100);
    assert_int_equal(cat_graph_insert(f->c, &g, &e), GNNDB_OK);
    v = make_topology(0x200, 20000, 9000);
    assert_int_equal(cat_begin(f->c, &e), GNNDB_OK);
    assert_int_equal(cat_version_add(f->c, &g, &v, &e), GNNDB_OK);
    cat_rollback(f->c);
    assert_int_equal(cat_graph_get(f->c, "g", &cur, &e), GNNDB_OK);
    assert_int_equal(cur.version, 1);
    assert_int_equal(cur.topo_id, g.id);
    assert_int_equal(cur.edges, 10556);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM graphs WHERE "
                                      "kind = 4"), 0);

    /* a read-only catalog refuses both */
    cat_db *ro;
    assert_int_equal(cat_open(f->path, 1, &ro, &e), GNNDB_OK);
    v = make_topology(0x200, 20000, 9000);
    assert_int_not_equal(cat_version_add(ro, &cur, &v, &e), GNNDB_OK);
    assert_int_not_equal(cat_versions_drop(ro, &cur, 1, &e), GNNDB_OK);
    cat_close(ro);
}

/* A graph of a catalog made before versions: migrated, it is version 1 of
** 1, its import options unrecorded (-1: INSERT EDGES refuses it), listed
** with no time made. */
static void test_graph_from_before_versions(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    cat_graph g = make_versioned("old", 0x100), got;
    assert_int_equal(cat_graph_insert(f->c, &g, &e), GNNDB_OK);
    cat_close(f->c);
    f->c = NULL;
    assert_int_equal(raw_exec(f->path, "ALTER TABLE graphs DROP COLUMN version;"
                                       "ALTER TABLE graphs DROP COLUMN "
                                       "oldest_version;"
                                       "ALTER TABLE graphs DROP COLUMN "
                                       "build_flags;"
                                       "ALTER TABLE graphs DROP COLUMN made;"
                                       "UPDATE meta SET value = 6 WHERE key = "
                                       "'schema_version';"), SQLITE_OK);
    /* read-only: read as it is */
    cat_db *ro;
    assert_int_equal(cat_open(f->path, 1, &ro, &e), GNNDB_OK);
    assert_int_equal(cat_graph_get(ro, "old", &got, &e), GNNDB_OK);
    assert_int_equal(got.version, 1);
    assert_int_equal(got.oldest_version, 1);
    assert_int_equal(got.build_flags, -1);
    cat_graph *vs;
    char (*made)[CAT_MADE_MAX];
    size_t n;
    assert_int_equal(cat_version_list(ro, &got, &vs, &made, &n, &e),
                     GNNDB_OK);
    assert_int_equal(n, 1);
    assert_int_equal(vs[0].edges, 10556);
    free(vs);
    free(made);
    cat_close(ro);
    /* writable: migrated, the same */
    assert_int_equal(cat_open(f->path, 0, &f->c, &e), GNNDB_OK);
    assert_int_equal(raw_int(f->path, "SELECT value FROM meta WHERE key = "
                                      "'schema_version'"), 7);
    assert_int_equal(cat_graph_get(f->c, "old", &got, &e), GNNDB_OK);
    assert_int_equal(got.version, 1);
    assert_int_equal(got.oldest_version, 1);
    assert_int_equal(got.build_flags, -1);
    assert_int_equal(cat_graph_as_of(f->c, &got, 1, &got, &e), GNNDB_OK);
    assert_int_equal(cat_version_list(f->c, &got, &vs, &made, &n, &e),
                     GNNDB_OK);
    assert_int_equal(n, 1);
    assert_string_equal(made[0], "");
    free(vs);
    free(made);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
        T(test_new_catalog_has_schema_and_version),
        T(test_graph_insert_get_list),
        T(test_graph_name_taken_is_exists),
        T(test_missing_graph_is_notfound),
        T(test_tables_insert_get_list),
        T(test_splits_insert_get_list_delete),
        T(test_graph_delete_cascades),
        T(test_checksums_round_trip_10000_blocks),
        T(test_checksums_with_a_gap_are_corrupt),
        T(test_degree_hist_round_trip),
        T(test_files_and_tokens_listing),
        T(test_statement_log_appends),
        T(test_rollback_discards_changes),
        T(test_second_writer_is_busy),
        T(test_newer_format_is_version_mismatch),
        T(test_format2_catalog_read_as_is_or_migrated),
        T(test_garbage_file_is_corrupt),
        T(test_foreign_sqlite_db_is_not_a_catalog),
        T(test_readonly_open),
        T(test_packs_insert_get_batches_delete),
        T(test_packs_tables_added_to_an_older_catalog),
        T(test_version_add_and_get_current),
        T(test_graph_as_of_each_version),
        T(test_version_list),
        T(test_versions_drop),
        T(test_version_add_refusals_and_rollback),
        T(test_graph_from_before_versions),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
