/* time_ranges.c — the range of a graph's edge times and node times (table
** time_ranges, schema migration 6): one row per graph and kind, written in
** the transaction that publishes the times, so that DESCRIBE can show it
** without reading the times back. It goes with its graph (ON DELETE
** CASCADE). A read-only handle on a catalog older than the migration, or
** times imported before it, have no row: NOTFOUND. */
#include "cat_int.h"

#include <string.h>

const char catx_schema_time_ranges[] =
    "CREATE TABLE IF NOT EXISTS time_ranges("
    "  graph_id INTEGER NOT NULL REFERENCES graphs(id) ON DELETE CASCADE,"
    "  kind TEXT NOT NULL,"
    "  tmin INTEGER NOT NULL,"
    "  tmax INTEGER NOT NULL,"
    "  PRIMARY KEY(graph_id, kind)) WITHOUT ROWID;";

int cat_time_range_put(cat_db *c, int64_t graph_id, const char *kind,
                       int64_t tmin, int64_t tmax, gnn_err *e)
{
    int rc = catx_writable(c, e);
    if (rc) return rc;
    sqlite3_stmt *st;
    if ((rc = catx_prepare(c, "INSERT OR REPLACE INTO time_ranges(graph_id, "
                              "kind, tmin, tmax) VALUES(?1, ?2, ?3, ?4)",
                           &st, e)))
        return rc;
    sqlite3_bind_int64(st, 1, graph_id);
    sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, tmin);
    sqlite3_bind_int64(st, 4, tmax);
    return catx_run(c, st, "writing a time range", e);
}

int cat_time_range_get(cat_db *c, int64_t graph_id, const char *kind,
                       int64_t *tmin, int64_t *tmax, gnn_err *e)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(c->db, "SELECT tmin, tmax FROM time_ranges "
                                "WHERE graph_id = ?1 AND kind = ?2",
                                -1, &st, NULL);
    if (rc) {
        if (strstr(sqlite3_errmsg(c->db), "no such table"))
            return gnn_seterr(e, GNNDB_NOTFOUND, "no time range stored");
        return catx_err(c, rc, "reading a time range", e);
    }
    sqlite3_bind_int64(st, 1, graph_id);
    sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW) {
        *tmin = sqlite3_column_int64(st, 0);
        *tmax = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    if (s == SQLITE_ROW) return GNNDB_OK;
    if (s == SQLITE_DONE)
        return gnn_seterr(e, GNNDB_NOTFOUND, "no time range stored");
    return catx_err(c, s, "reading a time range", e);
}
