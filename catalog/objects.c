/* objects.c — the named objects of the catalog: graphs, their tables
** (features and labels) and their splits; inserting, finding and listing
** them, and deleting tables and splits (a graph: drop.c). */
#include "cat_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tokens are uint64 in memory and INTEGER (int64) in SQLite. */
static sqlite3_int64 tok_out(uint64_t t) { return (sqlite3_int64)t; }

/* The name of graph `id`, for messages; GNNDB_NOTFOUND when absent. */
static int graph_name(cat_db *c, int64_t id, char *name, size_t cap,
                      gnn_err *e)
{
    sqlite3_stmt *st;
    int rc = catx_prepare(c, "SELECT name FROM graphs WHERE id = ?1", &st, e);
    if (rc) return rc;
    sqlite3_bind_int64(st, 1, id);
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW) catx_text(name, cap, st, 0);
    else if (s == SQLITE_DONE)
        rc = gnn_seterr(e, GNNDB_NOTFOUND, "no such graph: id %" PRId64, id);
    else rc = catx_err(c, s, "reading a graph", e);
    sqlite3_finalize(st);
    return rc;
}

/* Does a row match `sql` bound to (?1 = i1, ?2 = s2)? */
static int exists(cat_db *c, const char *sql, int64_t i1, const char *s2,
                  int *yes, gnn_err *e)
{
    sqlite3_stmt *st;
    int rc = catx_prepare(c, sql, &st, e);
    if (rc) return rc;
    sqlite3_bind_int64(st, 1, i1);
    if (s2) sqlite3_bind_text(st, 2, s2, -1, SQLITE_STATIC);
    int s = sqlite3_step(st);
    *yes = s == SQLITE_ROW;
    if (s != SQLITE_ROW && s != SQLITE_DONE) rc = catx_err(c, s, "reading", e);
    sqlite3_finalize(st);
    return rc;
}

/* Before an object `name` is added to graph `graph_id`: the catalog must
** be writable, the graph's name is fetched for the caller's words, and
** *taken says whether `sql` (?1 the graph, ?2 the name) finds one already. */
static int check_new(cat_db *c, const char *sql, int64_t graph_id,
                     const char *name, char gname[CAT_NAME_MAX], int *taken,
                     gnn_err *e)
{
    int rc = catx_writable(c, e);
    if (rc || (rc = graph_name(c, graph_id, gname, CAT_NAME_MAX, e)))
        return rc;
    return exists(c, sql, graph_id, name, taken, e);
}

/* The object `name` of graph `graph_id` that `sql` (?1, ?2) selects, read
** by `row` into out (`size` bytes); *found is 0, and out untouched, when
** there is none, and gname names the graph for the caller's words. */
static int get_in_graph(cat_db *c, const char *sql, int64_t graph_id,
                        const char *name, catx_row_fn row, size_t size,
                        void *out, int *found, char gname[CAT_NAME_MAX],
                        const char *what, gnn_err *e)
{
    int rc = graph_name(c, graph_id, gname, CAT_NAME_MAX, e);
    if (rc) return rc;
    void *a;
    size_t n;
    if ((rc = catx_query_rows(c, sql, graph_id, name, row, size, &a, &n, what,
                              e)))
        return rc;
    if (n) memcpy(out, a, size);
    free(a);
    *found = n > 0;
    return GNNDB_OK;
}

/* ---- graphs -------------------------------------------------------------- */

const char catx_schema_eids[] =
    "ALTER TABLE graphs ADD COLUMN has_eids INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE graphs ADD COLUMN eid_file TEXT;"
    "ALTER TABLE graphs ADD COLUMN eid_token INTEGER;"
    "ALTER TABLE graphs ADD COLUMN eid_blocks INTEGER;"
    "ALTER TABLE graphs ADD COLUMN input_edges INTEGER;"
    /* edge splits: a split's kind (CAT_SPLIT_*; existing rows are node
    ** splits) and the seed a RANDOM edge split drew with, else NULL */
    "ALTER TABLE splits ADD COLUMN kind INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE splits ADD COLUMN seed INTEGER;"
    "UPDATE meta SET value = 3 WHERE key = 'format_version' AND value < 3;";

int catx_eids_schema(cat_db *c, gnn_err *e)
{
    return catx_count_nonzero(c, "SELECT count(*) FROM pragma_table_info("
                                 "'graphs') WHERE name = 'has_eids'",
                              &c->has_eids, e);
}

int cat_graph_need_eids(const cat_graph *g, const char *what, gnn_err *e)
{
    if (g->has_eids) return GNNDB_OK;
    if (g->kind == CAT_GRAPH_TYPED)
        return gnn_seterr(e, GNNDB_MISUSE, "%s on graph %s is not available "
                          "yet: it is a graph of node types and relations, "
                          "whose edge ids are each relation's", what,
                          g->name);
    const char *dot = strchr(g->name, '.');
    if (g->kind == CAT_GRAPH_RELATION && dot)
        return gnn_seterr(e, GNNDB_NOTFOUND, "%s needs edge ids, and relation "
                          "%s of graph %.*s has none (it was created WITHOUT "
                          "EDGE IDS): DROP RELATION %s ON %.*s and CREATE it "
                          "again", what, dot + 1, (int)(dot - g->name),
                          g->name, dot + 1, (int)(dot - g->name), g->name);
    return gnn_seterr(e, GNNDB_NOTFOUND, "%s needs edge ids, and graph %s has "
                      "none (it was created WITHOUT EDGE IDS, or by a gnndb "
                      "of format 2): DROP it and CREATE GRAPH %s again",
                      what, g->name, g->name);
}

int cat_graph_eid_view(const cat_graph *g, const char *what, cat_graph *out,
                       gnn_err *e)
{
    int rc = cat_graph_need_eids(g, what, e);
    if (rc) return rc;
    cat_graph v = *g;
    snprintf(v.file, sizeof v.file, "%s", g->eid_file);
    v.token = g->eid_token;
    v.graph_blocks = g->eid_blocks;
    *out = v;
    return GNNDB_OK;
}

int cat_graph_insert(cat_db *c, cat_graph *g, gnn_err *e)
{
    int rc = catx_writable(c, e), taken;
    if (rc) return rc;
    if ((rc = exists(c, "SELECT 1 FROM graphs WHERE name = ?2", 0, g->name,
                     &taken, e)))
        return rc;
    if (taken)
        return gnn_seterr(e, GNNDB_EXISTS, "graph '%s' already exists",
                          g->name);
    sqlite3_stmt *st;
    if ((rc = catx_prepare(c, "INSERT INTO graphs(name, token, file, nodes, "
                              "edges, directed, block_size, node_order, "
                              "graph_blocks, has_map, max_degree, min_degree, "
                              "median_degree, mean_degree, source, has_eids, "
                              "eid_file, eid_token, eid_blocks, input_edges, "
                              "kind, parent_id, version, build_flags, made) "
                              "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                              "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
                              "?19, ?20, ?21, ?22, ?23, ?24, "
                              "strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
                           &st, e)))
        return rc;
    sqlite3_bind_text(st, 1, g->name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, tok_out(g->token));
    sqlite3_bind_text(st, 3, g->file, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, g->nodes);
    sqlite3_bind_int64(st, 5, g->edges);
    sqlite3_bind_int(st, 6, g->directed);
    sqlite3_bind_int64(st, 7, g->block_size);
    sqlite3_bind_text(st, 8, g->node_order, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 9, g->graph_blocks);
    sqlite3_bind_int(st, 10, g->has_map);
    sqlite3_bind_int64(st, 11, g->max_degree);
    sqlite3_bind_int64(st, 12, g->min_degree);
    sqlite3_bind_int64(st, 13, g->median_degree);
    sqlite3_bind_double(st, 14, g->mean_degree);
    sqlite3_bind_text(st, 15, g->source, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 16, g->has_eids != 0);
    if (g->has_eids) {
        sqlite3_bind_text(st, 17, g->eid_file, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 18, tok_out(g->eid_token));
        sqlite3_bind_int64(st, 19, g->eid_blocks);
        sqlite3_bind_int64(st, 20, g->input_edges);
    }
    sqlite3_bind_int(st, 21, g->kind);
    if (g->parent_id) sqlite3_bind_int64(st, 22, g->parent_id);
    sqlite3_bind_int64(st, 23, g->version > 0 ? g->version : 1);
    if (g->build_flags >= 0) sqlite3_bind_int(st, 24, g->build_flags);
    int s = sqlite3_step(st);
    sqlite3_finalize(st);
    if ((s & 0xff) == SQLITE_CONSTRAINT)
        return gnn_seterr(e, GNNDB_EXISTS, "graph '%s' already exists",
                          g->name);
    if (s != SQLITE_DONE) return catx_err(c, s, "adding a graph", e);
    g->id = sqlite3_last_insert_rowid(c->db);
    g->topo_id = g->id;   /* a new row holds its own topology */
    if (g->version < 1) g->version = 1;
    return GNNDB_OK;
}

int cat_graph_get(cat_db *c, const char *name, cat_graph *g, gnn_err *e)
{
    char sql[768];
    int found;
    int rc = catx_graph_one(c, catx_graph_select(c, "name = ?2", sql,
                                                 sizeof sql),
                            0, name, g, &found, e);
    if (!rc && !found)
        return gnn_seterr(e, GNNDB_NOTFOUND, "no such graph: %s", name);
    return rc ? rc : catx_version_current(c, g, e);
}

int cat_graph_get_id(cat_db *c, int64_t id, cat_graph *g, gnn_err *e)
{
    char sql[768];
    int found;
    int rc = catx_graph_one(c, catx_graph_select(c, "id = ?1", sql,
                                                 sizeof sql),
                            id, NULL, g, &found, e);
    if (!rc && !found)
        return gnn_seterr(e, GNNDB_NOTFOUND, "no such graph: id %" PRId64,
                          id);
    return rc ? rc : catx_version_current(c, g, e);
}

int cat_graph_list(cat_db *c, cat_graph **out, size_t *n, gnn_err *e)
{
    char sql[768];
    void *a;
    catx_graph_select(c, c->has_types ? "kind NOT IN (2, 3, 4) ORDER BY name"
                                 : "1 ORDER BY name", sql, sizeof sql);
    int rc = catx_query_rows(c, sql, 0, NULL, catx_graph_row, sizeof **out,
                             &a, n, "listing graphs", e);
    cat_graph *gs = a;
    for (size_t i = 0; !rc && i < *n; i++)
        rc = catx_version_current(c, &gs[i], e);
    if (rc) free(a);
    *out = rc ? NULL : a;
    return rc;
}

void cat_time_graph_name(const cat_graph *g, char *name, size_t cap)
{
    /* version 1's is "<g>.__time"; a later version's hangs off its row */
    if (g->topo_id && g->topo_id != g->id)
        snprintf(name, cap, "%s" CAT_VERSION_INFIX "%" PRId64
                 CAT_TIME_SUFFIX, g->name, g->version);
    else snprintf(name, cap, "%s" CAT_TIME_SUFFIX, g->name);
}

int cat_time_graph_get(cat_db *c, const cat_graph *g, cat_graph *t,
                       gnn_err *e)
{
    char name[CAT_NAME_MAX + 48];
    cat_time_graph_name(g, name, sizeof name);
    gnn_err e2 = {0};
    int rc = strlen(name) < CAT_NAME_MAX ? cat_graph_get(c, name, t, &e2)
                                         : GNNDB_NOTFOUND;
    if (rc == GNNDB_OK && t->kind != CAT_GRAPH_TIME) rc = GNNDB_NOTFOUND;
    if (rc == GNNDB_NOTFOUND)
        return gnn_seterr(e, rc, "graph %s has no edge times: IMPORT EDGE "
                          "TIMES INTO %s FROM 'times.npy' first", g->name,
                          g->name);
    return rc ? gnn_seterr(e, rc, "%s", e2.msg) : GNNDB_OK;
}

int cat_graph_children(cat_db *c, int64_t parent_id, cat_graph **out,
                       size_t *n, gnn_err *e)
{
    char sql[768];
    void *a;
    catx_graph_select(c, c->has_types ? "parent_id = ?1 ORDER BY id"
                                 : "?1 AND 0", sql, sizeof sql);
    int rc = catx_query_rows(c, sql, parent_id, NULL, catx_graph_row,
                             sizeof **out, &a, n, "listing relations", e);
    *out = rc ? NULL : a;
    return rc;
}

/* ---- tables -------------------------------------------------------------- */

#define TABLE_COLS                                                          \
    "id, graph_id, name, kind, token, file, rows, dim, dtype, block_size, " \
    "rows_per_block, nblocks, nclasses, source"

/* "SELECT <what table_row reads> FROM tables WHERE <where>": node_type
** (migration 5), or NULL (homogeneous) in a read-only catalog older. */
static const char *table_select(cat_db *c, const char *where, char *sql,
                                size_t cap)
{
    snprintf(sql, cap, "SELECT " TABLE_COLS ", %s FROM tables WHERE %s",
             c->has_types ? "node_type" : "NULL", where);
    return sql;
}

static void table_row(sqlite3_stmt *st, void *dst)
{
    cat_table *t = dst;
    t->id = sqlite3_column_int64(st, 0);
    t->graph_id = sqlite3_column_int64(st, 1);
    catx_text(t->name, sizeof t->name, st, 2);
    t->kind = sqlite3_column_int(st, 3);
    t->token = catx_token(st, 4);
    catx_text(t->file, sizeof t->file, st, 5);
    t->rows = sqlite3_column_int64(st, 6);
    t->dim = (uint32_t)sqlite3_column_int64(st, 7);
    t->dtype = (uint32_t)sqlite3_column_int64(st, 8);
    t->block_size = (uint32_t)sqlite3_column_int64(st, 9);
    t->rows_per_block = (uint32_t)sqlite3_column_int64(st, 10);
    t->nblocks = sqlite3_column_int64(st, 11);
    t->nclasses = sqlite3_column_int64(st, 12);
    catx_text(t->source, sizeof t->source, st, 13);
    t->has_type = sqlite3_column_type(st, 14) != SQLITE_NULL;
    t->node_type = t->has_type ? sqlite3_column_int(st, 14) : 0;
}

static int is_labels(const char *name) { return strcmp(name, "__labels") == 0; }

int cat_table_insert(cat_db *c, cat_table *t, gnn_err *e)
{
    int taken;
    char gname[CAT_NAME_MAX];
    int rc = check_new(c, "SELECT 1 FROM tables WHERE graph_id = ?1 AND "
                          "name = ?2", t->graph_id, t->name, gname, &taken, e);
    if (rc) return rc;
    if (taken)
        return is_labels(t->name)
                   ? gnn_seterr(e, GNNDB_EXISTS,
                                "graph %s already has labels", gname)
                   : gnn_seterr(e, GNNDB_EXISTS,
                                "feature table '%s' already exists in graph "
                                "%s", t->name, gname);
    sqlite3_stmt *st;
    if ((rc = catx_prepare(c, "INSERT INTO tables(graph_id, name, kind, token,"
                              " file, rows, dim, dtype, block_size, "
                              "rows_per_block, nblocks, nclasses, source, "
                              "node_type) "
                              "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                              "?10, ?11, ?12, ?13, ?14)", &st, e)))
        return rc;
    sqlite3_bind_int64(st, 1, t->graph_id);
    sqlite3_bind_text(st, 2, t->name, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, t->kind);
    sqlite3_bind_int64(st, 4, tok_out(t->token));
    sqlite3_bind_text(st, 5, t->file, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, t->rows);
    sqlite3_bind_int64(st, 7, t->dim);
    sqlite3_bind_int64(st, 8, t->dtype);
    sqlite3_bind_int64(st, 9, t->block_size);
    sqlite3_bind_int64(st, 10, t->rows_per_block);
    sqlite3_bind_int64(st, 11, t->nblocks);
    sqlite3_bind_int64(st, 12, t->nclasses);
    sqlite3_bind_text(st, 13, t->source, -1, SQLITE_STATIC);
    if (t->has_type) sqlite3_bind_int(st, 14, t->node_type);
    if ((rc = catx_run(c, st, "adding a table", e))) return rc;
    t->id = sqlite3_last_insert_rowid(c->db);
    return GNNDB_OK;
}

int cat_table_get(cat_db *c, int64_t graph_id, const char *name,
                  cat_table *t, gnn_err *e)
{
    char gname[CAT_NAME_MAX], sql[512];
    int found;
    table_select(c, "graph_id = ?1 AND name = ?2", sql, sizeof sql);
    int rc = get_in_graph(c, sql, graph_id, name, table_row, sizeof *t, t,
                          &found, gname, "reading a table", e);
    if (rc || found) return rc;
    if (is_labels(name))
        return gnn_seterr(e, GNNDB_NOTFOUND, "graph %s has no labels", gname);
    return gnn_seterr(e, GNNDB_NOTFOUND,
                      "no such feature table: %s in graph %s", name, gname);
}

int cat_table_list(cat_db *c, int64_t graph_id, cat_table **out, size_t *n,
                   gnn_err *e)
{
    void *a;
    char sql[768];
    table_select(c, "graph_id = ?1 ORDER BY name", sql, sizeof sql);
    int rc = catx_query_rows(c, sql, graph_id, NULL, table_row, sizeof **out,
                             &a, n, "listing tables", e);
    *out = rc ? NULL : a;
    return rc;
}

_Static_assert(CAT_TABLE_NODE_TIMES == 5, "cat_table_delete names kind 5");

int cat_table_delete(cat_db *c, int64_t table_id, gnn_err *e)
{
    /* node times (kind 5, CAT_TABLE_NODE_TIMES) take their range with
    ** them (time_ranges.c) */
    static const char *const sqls[] = {
        "DELETE FROM time_ranges WHERE kind = 'node' AND graph_id IN ("
        "  SELECT graph_id FROM tables WHERE id = ?1 AND kind = 5)",
        "DELETE FROM checksums WHERE file IN ("
        "  SELECT file FROM tables WHERE id = ?1)",
        "DELETE FROM tables WHERE id = ?1",
        NULL,
    };
    int changed = 0;
    int rc = catx_delete_all(c, sqls, table_id, &changed, e);
    if (!rc && !changed)
        return gnn_seterr(e, GNNDB_NOTFOUND, "no such table: id %" PRId64,
                          table_id);
    return rc;
}

/* ---- splits -------------------------------------------------------------- */

/* The columns split_row reads; a format-2 catalog (read-only: a writable
** open migrates it) has node splits without a seed. */
static const char *split_cols(cat_db *c)
{
    if (c->has_types)
        return "id, graph_id, name, token, count, kind, seed, node_type";
    return c->has_eids ? "id, graph_id, name, token, count, kind, seed, NULL"
                       : "id, graph_id, name, token, count, 0, NULL, NULL";
}

static void split_row(sqlite3_stmt *st, void *dst)
{
    cat_split *s = dst;
    s->id = sqlite3_column_int64(st, 0);
    s->graph_id = sqlite3_column_int64(st, 1);
    catx_text(s->name, sizeof s->name, st, 2);
    s->token = catx_token(st, 3);
    s->count = sqlite3_column_int64(st, 4);
    s->kind = sqlite3_column_int(st, 5);
    s->has_seed = sqlite3_column_type(st, 6) != SQLITE_NULL;
    s->seed = catx_token(st, 6);
    s->has_type = sqlite3_column_type(st, 7) != SQLITE_NULL;
    s->node_type = s->has_type ? sqlite3_column_int(st, 7) : 0;
}

/* Bind what cat_split_insert stores ('?1'..'?6'); an edge split needs the
** kind column (a writable catalog always has it: open migrates). */
static int split_insert_stmt(cat_db *c, const cat_split *s,
                             sqlite3_stmt **st, gnn_err *e)
{
    int rc = catx_prepare(c, "INSERT INTO splits(graph_id, name, token, count,"
                             " kind, seed, node_type) VALUES(?1, ?2, ?3, ?4, "
                             "?5, ?6, ?7)",
                          st, e);
    if (rc) return rc;
    sqlite3_bind_int64(*st, 1, s->graph_id);
    sqlite3_bind_text(*st, 2, s->name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(*st, 3, tok_out(s->token));
    sqlite3_bind_int64(*st, 4, s->count);
    sqlite3_bind_int(*st, 5, s->kind);
    if (s->has_seed) sqlite3_bind_int64(*st, 6, tok_out(s->seed));
    else sqlite3_bind_null(*st, 6);
    if (s->has_type) sqlite3_bind_int(*st, 7, s->node_type);
    return GNNDB_OK;
}

int cat_split_insert(cat_db *c, cat_split *s, gnn_err *e)
{
    int taken;
    char gname[CAT_NAME_MAX];
    int rc = check_new(c, "SELECT 1 FROM splits WHERE graph_id = ?1 AND "
                          "name = ?2", s->graph_id, s->name, gname, &taken, e);
    if (rc) return rc;
    if (taken)
        return gnn_seterr(e, GNNDB_EXISTS,
                          "split '%s' already exists in graph %s", s->name,
                          gname);
    sqlite3_stmt *st;
    if ((rc = split_insert_stmt(c, s, &st, e))) return rc;
    if ((rc = catx_run(c, st, "adding a split", e))) return rc;
    s->id = sqlite3_last_insert_rowid(c->db);
    return GNNDB_OK;
}

int cat_split_get(cat_db *c, int64_t graph_id, const char *name,
                  cat_split *s, gnn_err *e)
{
    char gname[CAT_NAME_MAX], sql[256];
    int found;
    snprintf(sql, sizeof sql, "SELECT %s FROM splits WHERE graph_id = ?1 AND "
             "name = ?2", split_cols(c));
    int rc = get_in_graph(c, sql, graph_id, name, split_row, sizeof *s, s,
                          &found, gname, "reading a split", e);
    if (rc || found) return rc;
    return gnn_seterr(e, GNNDB_NOTFOUND, "no such split: %s in graph %s",
                      name, gname);
}

int cat_node_split_get(cat_db *c, const cat_graph *g, const char *name,
                       const char *who, cat_split *sp, gnn_err *e)
{
    int rc = cat_split_get(c, g->id, name, sp, e);
    if (rc) return rc;
    if (sp->kind != CAT_SPLIT_NODE)
        return gnn_seterr(e, GNNDB_ERROR, "%s'%s' is an edge split; use "
                          "EDGES %s", who, name, name);
    return GNNDB_OK;
}

int cat_edge_split_get(cat_db *c, const cat_graph *g, const char *name,
                       cat_split *sp, gnn_err *e)
{
    int rc = cat_split_get(c, g->id, name, sp, e);
    if (rc) return rc;
    if (sp->kind != CAT_SPLIT_EDGE)
        return gnn_seterr(e, GNNDB_ERROR, "'%s' is a node split of graph "
                          "'%s', not an edge split; use SEEDS %s", name,
                          g->name, name);
    return GNNDB_OK;
}

int cat_split_list(cat_db *c, int64_t graph_id, cat_split **out, size_t *n,
                   gnn_err *e)
{
    void *a;
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT %s FROM splits WHERE graph_id = ?1 "
             "ORDER BY name", split_cols(c));
    int rc = catx_query_rows(c, sql, graph_id, NULL, split_row, sizeof **out,
                             &a, n, "listing splits", e);
    *out = rc ? NULL : a;
    return rc;
}

int cat_split_delete(cat_db *c, int64_t split_id, gnn_err *e)
{
    static const char *const sqls[] = {
        "DELETE FROM splits WHERE id = ?1",
        NULL,
    };
    int changed = 0;
    int rc = catx_delete_all(c, sqls, split_id, &changed, e);
    if (!rc && !changed)
        return gnn_seterr(e, GNNDB_NOTFOUND, "no such split: id %" PRId64,
                          split_id);
    return rc;
}
