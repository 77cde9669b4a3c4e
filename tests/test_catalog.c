/* test_catalog.c — the SQLite catalog: schema, graphs, tables, splits and
** packs with cascading deletes, checksums, statistics, listings, the statement
** log, transactions, and refusing newer, busy or damaged catalogs. */
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
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
