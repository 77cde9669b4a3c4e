/* versions.c — the versions of a graph (schema migration 7). INSERT EDGES
** builds a graph's next topology beside the current one and publishes it as
** version n + 1; the older ones stay readable (SAMPLE ... AS OF VERSION n)
** until DROP VERSIONS frees them. Version 1 is the graph's own row; version
** n >= 2 is a graphs row "<g>.__v<n>" (CAT_GRAPH_VERSION) whose parent is
** the graph. Each version's edge table, time graph, degree histogram and
** edge time range hang off the row that holds it, so a statement prepared
** on one version keeps finding that version's rows while later ones are
** added. The graph's own row keeps its identity (id, name: what its tables
** and splits hang off), its current version and its oldest kept one. */
#include "cat_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char catx_schema_versions[] =
    "ALTER TABLE graphs ADD COLUMN version INTEGER NOT NULL DEFAULT 1;"
    "ALTER TABLE graphs ADD COLUMN oldest_version INTEGER NOT NULL "
    "DEFAULT 1;"
    /* CAT_BUILD_* as CREATE GRAPH recorded them; NULL before this */
    "ALTER TABLE graphs ADD COLUMN build_flags INTEGER;"
    "ALTER TABLE graphs ADD COLUMN made TEXT;";

int catx_versions_schema(cat_db *c, gnn_err *e)
{
    return catx_count_nonzero(c, "SELECT count(*) FROM pragma_table_info("
                                 "'graphs') WHERE name = 'oldest_version'",
                              &c->has_versions, e);
}

int cat_graph_as_of(cat_db *c, const cat_graph *g, int64_t n, cat_graph *out,
                    gnn_err *e)
{
    if (n < 1 || n > g->version)
        return gnn_seterr(e, GNNDB_NOTFOUND, "graph %s has no version %"
                          PRId64 " (its versions are %" PRId64 " to %" PRId64
                          ": SHOW VERSIONS %s)", g->name, n,
                          g->oldest_version, g->version, g->name);
    if (n < g->oldest_version)
        return gnn_seterr(e, GNNDB_NOTFOUND, "version %" PRId64 " of graph "
                          "%s was dropped (DROP VERSIONS); versions %" PRId64
                          " to %" PRId64 " remain", n, g->name,
                          g->oldest_version, g->version);
    cat_graph v = *g;
    if (n != g->version) {
        cat_graph r;
        int rc = cat_version_row(c, g, n, &r, e);
        if (rc) return rc;
        catx_copy_topology(&v, &r);
        v.version = n;
        v.topo_id = r.id;
    }
    *out = v;
    return GNNDB_OK;
}

/* When the row `id` was made ("" when not recorded). */
static int made_of(cat_db *c, int64_t id, char *made, gnn_err *e)
{
    sqlite3_stmt *st;
    int rc = catx_prepare(c, "SELECT coalesce(made, '') FROM graphs "
                             "WHERE id = ?1", &st, e);
    if (rc) return rc;
    sqlite3_bind_int64(st, 1, id);
    int s = sqlite3_step(st);
    made[0] = 0;
    if (s == SQLITE_ROW) catx_text(made, CAT_MADE_MAX, st, 0);
    else if (s != SQLITE_DONE) rc = catx_err(c, s, "reading a version", e);
    sqlite3_finalize(st);
    return rc;
}

int cat_version_list(cat_db *c, const cat_graph *g, cat_graph **out,
                     char (**made)[CAT_MADE_MAX], size_t *n, gnn_err *e)
{
    *out = NULL;
    *made = NULL;
    *n = 0;
    int64_t lo = c->has_versions ? g->oldest_version : 1;
    int64_t hi = c->has_versions ? g->version : 1;
    size_t k = hi >= lo ? (size_t)(hi - lo + 1) : 0;
    cat_graph *rows = calloc(k ? k : 1, sizeof *rows);
    char (*when)[CAT_MADE_MAX] = calloc(k ? k : 1, sizeof *when);
    int rc = rows && when ? GNNDB_OK
                          : gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    for (size_t i = 0; !rc && i < k; i++) {
        rc = cat_version_row(c, g, lo + (int64_t)i, &rows[i], e);
        if (!rc && c->has_versions) rc = made_of(c, rows[i].id, when[i], e);
        rows[i].version = lo + (int64_t)i;
    }
    if (rc) {
        free(rows);
        free(when);
        return rc;
    }
    *out = rows;
    *made = when;
    *n = k;
    return GNNDB_OK;
}

int cat_version_add(cat_db *c, const cat_graph *g, cat_graph *v, gnn_err *e)
{
    int rc = catx_writable(c, e);
    if (rc) return rc;
    if (g->kind != CAT_GRAPH_PLAIN)
        return gnn_seterr(e, GNNDB_MISUSE, "graph %s: only a graph made from "
                          "an edge file has versions", g->name);
    int64_t n = g->version + 1;
    if ((rc = catx_version_name(g, n, v->name, sizeof v->name, e))) return rc;
    v->directed = g->directed;
    v->block_size = g->block_size;
    memcpy(v->node_order, g->node_order, sizeof v->node_order);
    v->kind = CAT_GRAPH_VERSION;
    v->parent_id = g->id;
    v->version = n;
    v->build_flags = -1;
    if ((rc = cat_graph_insert(c, v, e))) return rc;
    v->topo_id = v->id;
    sqlite3_stmt *st;
    if ((rc = catx_prepare(c, "UPDATE graphs SET version = ?2 WHERE id = ?1",
                           &st, e)))
        return rc;
    sqlite3_bind_int64(st, 1, g->id);
    sqlite3_bind_int64(st, 2, n);
    if ((rc = catx_run(c, st, "moving a graph to its next version", e)))
        return rc;
    /* a library before versions would read such a graph as its first
    ** version and list its version rows as graphs: format 4 keeps it out */
    return catx_exec(c, "UPDATE meta SET value = 4 WHERE key = "
                        "'format_version' AND value < 4", e);
}

/* Run `sql` bound to ?1 = id and ?2 = text, or to ?2 = n without text. */
static int run_bound(cat_db *c, const char *sql, int64_t id,
                     const char *text, int64_t n, gnn_err *e)
{
    sqlite3_stmt *st;
    int rc = catx_prepare(c, sql, &st, e);
    if (rc) return rc;
    sqlite3_bind_int64(st, 1, id);
    if (text) sqlite3_bind_text(st, 2, text, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_int64(st, 2, n);
    return catx_run(c, st, "dropping versions", e);
}

/* Version 1 lives in the graph's own row, which stays: only what hangs
** off its topology goes (its edge table, time graph, histogram, edge time
** range and the checksums of its files). */
static int drop_first(cat_db *c, const cat_graph *g, gnn_err *e)
{
    cat_graph v1;
    int rc = cat_version_row(c, g, 1, &v1, e);
    if (rc) return rc;
    cat_graph *kids = NULL;
    size_t n = 0;
    if ((rc = cat_graph_children(c, g->id, &kids, &n, e))) return rc;
    for (size_t i = 0; !rc && i < n; i++)
        if (kids[i].kind == CAT_GRAPH_TIME)
            rc = cat_graph_delete(c, kids[i].id, e);
    free(kids);
    static const char *const sqls[] = {
        "DELETE FROM checksums WHERE file IN (SELECT file FROM tables "
        "  WHERE graph_id = ?1 AND kind = 3) OR file = ?2",
        "DELETE FROM tables WHERE graph_id = ?1 AND kind = 3",
        "DELETE FROM degree_hist WHERE graph_id = ?1",
        "DELETE FROM time_ranges WHERE graph_id = ?1 AND kind = 'edge'",
        NULL,
    };
    for (int i = 0; !rc && sqls[i]; i++)
        rc = run_bound(c, sqls[i], g->id, v1.file, 0, e);
    if (!rc && v1.has_eids)
        rc = run_bound(c, "DELETE FROM checksums WHERE file = ?2 AND ?1",
                       1, v1.eid_file, 0, e);
    return rc;
}

int cat_versions_drop(cat_db *c, const cat_graph *g, int64_t before,
                      gnn_err *e)
{
    int rc = catx_writable(c, e);
    if (rc) return rc;
    if (!c->has_versions || before <= g->oldest_version) return GNNDB_OK;
    if (before > g->version)
        return gnn_seterr(e, GNNDB_RANGE, "DROP VERSIONS BEFORE %" PRId64
                          " ON %s: version %" PRId64 " is the current one "
                          "and stays", before, g->name, g->version);
    if ((rc = catx_sp_begin(c, e))) return rc;
    for (int64_t n = g->oldest_version; !rc && n < before; n++) {
        cat_graph r;
        if (n == 1) rc = drop_first(c, g, e);
        else if (!(rc = cat_version_row(c, g, n, &r, e)))
            rc = cat_graph_delete(c, r.id, e);
    }
    if (!rc)
        rc = run_bound(c, "UPDATE graphs SET oldest_version = ?2 "
                          "WHERE id = ?1", g->id, NULL, before, e);
    return catx_sp_end(c, rc, e);
}

int cat_file_replace(cat_db *c, const char *old, const char *file,
                     const uint32_t *sums, uint64_t n, gnn_err *e)
{
    static const char *const sqls[] = {
        "UPDATE graphs SET file = ?3 WHERE file = ?2 AND ?1",
        "UPDATE graphs SET eid_file = ?3 WHERE eid_file = ?2 AND ?1",
        "UPDATE tables SET file = ?3 WHERE file = ?2 AND ?1",
        "DELETE FROM checksums WHERE file = ?2 AND ?1",
        NULL,
    };
    int rc = catx_writable(c, e);
    if (rc || (rc = catx_sp_begin(c, e))) return rc;
    for (int i = 0; !rc && sqls[i]; i++) {
        sqlite3_stmt *st;
        if ((rc = catx_prepare(c, sqls[i], &st, e))) break;
        sqlite3_bind_int64(st, 1, 1);
        sqlite3_bind_text(st, 2, old, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, file, -1, SQLITE_TRANSIENT);
        rc = catx_run(c, st, "replacing a file", e);
    }
    if (!rc) rc = cat_checksums_put(c, file, sums, n, e);
    return catx_sp_end(c, rc, e);
}

int cat_file_of_token(cat_db *c, uint64_t token, char out[CAT_NAME_MAX],
                      gnn_err *e)
{
    sqlite3_stmt *st;
    int rc = catx_prepare(c, "SELECT file FROM graphs WHERE token = ?1 "
                             "UNION ALL SELECT eid_file FROM graphs WHERE "
                             "has_eids AND eid_token = ?1 UNION ALL SELECT "
                             "file FROM tables WHERE token = ?1 LIMIT 1",
                          &st, e);
    if (rc) return rc;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)token);
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW) {
        const char *f = (const char *)sqlite3_column_text(st, 0);
        snprintf(out, CAT_NAME_MAX, "%s", f ? f : "");
    } else if (s == SQLITE_DONE) {
        rc = gnn_seterr(e, GNNDB_NOTFOUND, "no file of token %016llx",
                        (unsigned long long)token);
    } else {
        rc = catx_err(c, s, "finding a file", e);
    }
    sqlite3_finalize(st);
    return rc;
}

int cat_format_raise(cat_db *c, int version, gnn_err *e)
{
    sqlite3_stmt *st;
    int rc = catx_writable(c, e);
    if (rc || (rc = catx_prepare(c, "UPDATE meta SET value = ?1 WHERE key = "
                                    "'format_version' AND value < ?1",
                                 &st, e)))
        return rc;
    sqlite3_bind_int(st, 1, version);
    return catx_run(c, st, "raising the format version", e);
}
