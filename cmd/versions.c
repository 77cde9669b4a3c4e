/* versions.c — SHOW VERSIONS g (a row per kept version) and DROP VERSIONS
** BEFORE n ON g (the older versions' rows go in one transaction, then
** their files and index keys, as DROP GRAPH frees a graph's). */
#include "ddl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int show_versions(gnndb *db, const char *graph, rowset **out, gnn_err *e)
{
    static const char *const cols[] = {"version", "edges", "input_edges",
                                       "made", "current", NULL};
    cat_graph g, *vs = NULL;
    char (*made)[CAT_MADE_MAX] = NULL;
    size_t n = 0;
    int rc = cat_graph_get(db->cat, graph, &g, e);
    if (!rc && g.kind != CAT_GRAPH_PLAIN)
        rc = gnn_seterr(e, GNNDB_MISUSE, "SHOW VERSIONS %s: only a graph "
                        "made from an edge file has versions", graph);
    if (rc || (rc = cat_version_list(db->cat, &g, &vs, &made, &n, e)))
        return rc;
    rowset *rs = rs_new(5, cols);
    if (!rs) rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++)
        if (rs_row(rs) || rs_int(rs, vs[i].version) ||
            rs_int(rs, vs[i].edges) || rs_int(rs, vs[i].input_edges) ||
            rs_text(rs, made[i]) ||
            rs_text(rs, vs[i].version == g.version ? "yes" : ""))
            rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    free(vs);
    free(made);
    if (rc) {
        rs_free(rs);
        return rc;
    }
    *out = rs;
    return GNNDB_OK;
}

/* The files and tokens of version n of g: its topology, edge table and
** time graph (version 1's are in g's own row, whose tables stay). */
static int doom_version(gnndb *db, const cat_graph *g, int64_t n,
                        ddl_doomed *d, gnn_err *e)
{
    cat_graph v;
    int rc = cat_version_row(db->cat, g, n, &v, e);
    if (rc) return rc;
    if (n > 1) return ddl_doomed_graph(db, &v, d, e);
    cat_graph at, tg;
    cat_table et;
    gnn_err e2 = {0};
    if ((rc = ddl_doom_file(d, v.file, e)) ||
        (rc = ddl_doom_token(d, v.token, e)))
        return rc;
    if (v.has_eids && ((rc = ddl_doom_file(d, v.eid_file, e)) ||
                       (rc = ddl_doom_token(d, v.eid_token, e))))
        return rc;
    if (cat_table_get(db->cat, g->id, CAT_EDGES_TABLE, &et, &e2) ==
            GNNDB_OK &&
        (rc = ddl_doom_file(d, et.file, e)))
        return rc;
    if ((rc = cat_graph_as_of(db->cat, g, 1, &at, e))) return rc;
    if (cat_time_graph_get(db->cat, &at, &tg, &e2) == GNNDB_OK)
        rc = ddl_doomed_graph(db, &tg, d, e);
    return rc;
}

int ddl_drop_versions(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    cat_graph g;
    ddl_doomed d;
    memset(&d, 0, sizeof d);
    if ((rc = cat_graph_get(db->cat, s->graph, &g, e))) goto out;
    if (g.kind != CAT_GRAPH_PLAIN) {
        rc = gnn_seterr(e, GNNDB_MISUSE, "DROP VERSIONS ON %s: only a graph "
                        "made from an edge file has versions", g.name);
        goto out;
    }
    if (s->count > g.version) {
        rc = gnn_seterr(e, GNNDB_RANGE, "DROP VERSIONS BEFORE %" PRId64
                        " ON %s: the current version is %" PRId64 ", and it "
                        "stays", s->count, g.name, g.version);
        goto out;
    }
    for (int64_t n = g.oldest_version; !rc && n < s->count; n++)
        rc = doom_version(db, &g, n, &d, e);
    if (rc || (rc = cat_begin(db->cat, e))) goto out;
    if ((rc = cat_versions_drop(db->cat, &g, s->count, e)) ||
        (rc = cat_commit(db->cat, e))) {
        cat_rollback(db->cat);
        goto out;
    }
    /* committed: a crash before these leaves orphans for the next open */
    ddl_doomed_remove(db, &d);
out:
    ddl_doomed_free(&d);
    db_write_unlock(db);
    return ddl_disk_full_words(db, rc, e);
}
