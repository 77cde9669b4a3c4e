/* graph_rows.c — reading rows of the graphs table: the columns a
** cat_graph is made of (with zeros in place of those a read-only catalog
** older than their migration lacks), one row by a query, and a plain
** graph's current version (catalog/versions.c): the topology columns of
** the row that holds it. objects.c and versions.c read graphs through it. */
#include "cat_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GRAPH_COLS0                                                          \
    "id, name, token, file, nodes, edges, directed, block_size, node_order, " \
    "graph_blocks, has_map, max_degree, min_degree, median_degree, "         \
    "mean_degree, source"

/* "SELECT <the columns catx_graph_row reads> FROM graphs WHERE <where>"
** into sql:
** the edge-id columns (format 3) and the typed-graph ones (migration 5), or
** zeros in their place in a read-only catalog older than them. */
const char *catx_graph_select(cat_db *c, const char *where, char *sql,
                              size_t cap)
{
    snprintf(sql, cap, "SELECT " GRAPH_COLS0 ", %s, %s, %s FROM graphs "
             "WHERE %s",
             c->has_eids ? "has_eids, eid_file, eid_token, eid_blocks, "
                           "input_edges" : "0, '', 0, 0, 0",
             c->has_types ? "kind, coalesce(parent_id, 0)" : "0, 0",
             c->has_versions ? "version, oldest_version, "
                               "coalesce(build_flags, -1)" : "1, 1, -1",
             where);
    return sql;
}

void catx_graph_row(sqlite3_stmt *st, void *dst)
{
    cat_graph *g = dst;
    g->id = sqlite3_column_int64(st, 0);
    catx_text(g->name, sizeof g->name, st, 1);
    g->token = catx_token(st, 2);
    catx_text(g->file, sizeof g->file, st, 3);
    g->nodes = sqlite3_column_int64(st, 4);
    g->edges = sqlite3_column_int64(st, 5);
    g->directed = sqlite3_column_int(st, 6);
    g->block_size = (uint32_t)sqlite3_column_int64(st, 7);
    catx_text(g->node_order, sizeof g->node_order, st, 8);
    g->graph_blocks = sqlite3_column_int64(st, 9);
    g->has_map = sqlite3_column_int(st, 10);
    g->max_degree = sqlite3_column_int64(st, 11);
    g->min_degree = sqlite3_column_int64(st, 12);
    g->median_degree = sqlite3_column_int64(st, 13);
    g->mean_degree = sqlite3_column_double(st, 14);
    catx_text(g->source, sizeof g->source, st, 15);
    g->has_eids = sqlite3_column_int(st, 16);
    catx_text(g->eid_file, sizeof g->eid_file, st, 17);
    g->eid_token = catx_token(st, 18);
    g->eid_blocks = sqlite3_column_int64(st, 19);
    g->input_edges = sqlite3_column_int64(st, 20);
    g->kind = sqlite3_column_int(st, 21);
    g->parent_id = sqlite3_column_int64(st, 22);
    g->version = sqlite3_column_int64(st, 23);
    g->oldest_version = sqlite3_column_int64(st, 24);
    g->build_flags = sqlite3_column_int(st, 25);
    g->topo_id = g->id;
}

/* The one graph `sql` (?1 = i1, ?2 = s2) selects; *found says whether. */
int catx_graph_one(cat_db *c, const char *sql, int64_t i1, const char *s2,
                   cat_graph *g, int *found, gnn_err *e)
{
    void *a;
    size_t n;
    int rc = catx_query_rows(c, sql, i1, s2, catx_graph_row, sizeof *g, &a, &n,
                             "reading a graph", e);
    if (rc) return rc;
    if (n) memcpy(g, a, sizeof *g);
    free(a);
    *found = n > 0;
    return GNNDB_OK;
}

/* What differs between two versions of a graph: the topology columns. */
void catx_copy_topology(cat_graph *dst, const cat_graph *src)
{
    dst->token = src->token;
    memcpy(dst->file, src->file, sizeof dst->file);
    dst->nodes = src->nodes;
    dst->edges = src->edges;
    dst->graph_blocks = src->graph_blocks;
    dst->has_map = src->has_map;
    dst->max_degree = src->max_degree;
    dst->min_degree = src->min_degree;
    dst->median_degree = src->median_degree;
    dst->mean_degree = src->mean_degree;
    memcpy(dst->source, src->source, sizeof dst->source);
    dst->has_eids = src->has_eids;
    memcpy(dst->eid_file, src->eid_file, sizeof dst->eid_file);
    dst->eid_token = src->eid_token;
    dst->eid_blocks = src->eid_blocks;
    dst->input_edges = src->input_edges;
}

int catx_version_name(const cat_graph *g, int64_t n, char *name,
                      size_t cap, gnn_err *e)
{
    int k = snprintf(name, cap, "%s" CAT_VERSION_INFIX "%" PRId64, g->name,
                     n);
    if (k < 0 || (size_t)k >= cap || (size_t)k >= CAT_NAME_MAX)
        return gnn_seterr(e, GNNDB_RANGE, "graph name %s is too long to "
                          "name its version %" PRId64, g->name, n);
    return GNNDB_OK;
}

int cat_version_row(cat_db *c, const cat_graph *g, int64_t n, cat_graph *out,
                    gnn_err *e)
{
    char sql[768], name[CAT_NAME_MAX + 32];
    int found, rc;
    if (n <= 1)
        rc = catx_graph_one(c, catx_graph_select(c, "id = ?1", sql,
                                                 sizeof sql),
                            g->id, NULL, out, &found, e);
    else if (!(rc = catx_version_name(g, n, name, sizeof name, e)))
        rc = catx_graph_one(c, catx_graph_select(c, "name = ?2 AND kind = 4",
                                                 sql, sizeof sql),
                            0, name, out, &found, e);
    if (!rc && !found)
        return gnn_seterr(e, GNNDB_CORRUPT, "%s is damaged: the row of "
                          "version %" PRId64 " of graph %s is missing",
                          c->path, n, g->name);
    return rc;
}

int catx_version_current(cat_db *c, cat_graph *g, gnn_err *e)
{
    if (!c->has_versions || g->kind != CAT_GRAPH_PLAIN || g->version <= 1)
        return GNNDB_OK;
    cat_graph v;
    int rc = cat_version_row(c, g, g->version, &v, e);
    if (rc) return rc;
    catx_copy_topology(g, &v);
    g->topo_id = v.id;
    return GNNDB_OK;
}

