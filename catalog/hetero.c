/* hetero.c — typed graphs in the catalog: node types (a range of the
** graph's one global id space each, in creation order) and relations (a
** topology of their own, stored as a graphs row of kind
** CAT_GRAPH_RELATION whose parent is the typed graph). */
#include "cat_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char catx_schema_types[] =
    "ALTER TABLE graphs ADD COLUMN kind INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE graphs ADD COLUMN parent_id INTEGER;"
    "CREATE TABLE IF NOT EXISTS node_types("
    "  graph_id INTEGER NOT NULL REFERENCES graphs(id) ON DELETE CASCADE,"
    "  type_no INTEGER NOT NULL,"
    "  name TEXT NOT NULL,"
    "  first_id INTEGER NOT NULL,"
    "  count INTEGER NOT NULL,"
    "  PRIMARY KEY(graph_id, type_no),"
    "  UNIQUE(graph_id, name)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS relations("
    "  graph_id INTEGER PRIMARY KEY REFERENCES graphs(id) ON DELETE CASCADE,"
    "  parent_id INTEGER NOT NULL REFERENCES graphs(id) ON DELETE CASCADE,"
    "  name TEXT NOT NULL,"
    "  src_type INTEGER NOT NULL,"
    "  dst_type INTEGER NOT NULL,"
    "  reverse_of TEXT,"
    "  UNIQUE(parent_id, name));"
    "ALTER TABLE tables ADD COLUMN node_type INTEGER;"
    "ALTER TABLE splits ADD COLUMN node_type INTEGER;";

int catx_types_schema(cat_db *c, gnn_err *e)
{
    return catx_count_nonzero(c, "SELECT count(*) FROM sqlite_master WHERE "
                                 "type = 'table' AND name = 'node_types'",
                              &c->has_types, e);
}

int cat_relation_graph_name(const char *graph, const char *rel,
                            char out[CAT_NAME_MAX], gnn_err *e)
{
    if (snprintf(out, CAT_NAME_MAX, "%s.%s", graph, rel) >= CAT_NAME_MAX)
        return gnn_seterr(e, GNNDB_RANGE, "relation name too long: %s.%s",
                          graph, rel);
    return GNNDB_OK;
}

int cat_type_object_name(const char *type, const char *name,
                         char out[CAT_NAME_MAX], gnn_err *e)
{
    if (snprintf(out, CAT_NAME_MAX, "%s.%s", type, name) >= CAT_NAME_MAX)
        return gnn_seterr(e, GNNDB_RANGE, "name too long: %s.%s", type,
                          name);
    return GNNDB_OK;
}

/* One integer from `sql` bound to (?1 = i1, ?2 = s2); *found whether a
** non-NULL one came back. */
static int one_int(cat_db *c, const char *sql, int64_t i1, const char *s2,
                   int64_t *v, int *found, gnn_err *e)
{
    sqlite3_stmt *st;
    int rc = catx_prepare(c, sql, &st, e);
    if (rc) return rc;
    sqlite3_bind_int64(st, 1, i1);
    if (s2) sqlite3_bind_text(st, 2, s2, -1, SQLITE_STATIC);
    int s = sqlite3_step(st);
    *found = s == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL;
    if (*found) *v = sqlite3_column_int64(st, 0);
    if (s != SQLITE_ROW && s != SQLITE_DONE) rc = catx_err(c, s, "reading", e);
    sqlite3_finalize(st);
    return rc;
}

/* Run `sql` bound to (?1 = i1, ?2 = i2). */
static int exec2(cat_db *c, const char *sql, int64_t i1, int64_t i2,
                 const char *what, gnn_err *e)
{
    sqlite3_stmt *st;
    int rc = catx_prepare(c, sql, &st, e);
    if (rc) return rc;
    sqlite3_bind_int64(st, 1, i1);
    sqlite3_bind_int64(st, 2, i2);
    return catx_run(c, st, what, e);
}

/* The typed graph `id` for a change: writable, of kind CAT_GRAPH_TYPED,
** and `name` neither a node type nor a relation of it yet. */
static int check_new_name(cat_db *c, int64_t id, const char *name,
                          cat_graph *g, gnn_err *e)
{
    int rc = catx_writable(c, e), found;
    int64_t v;
    if (rc || (rc = cat_graph_get_id(c, id, g, e))) return rc;
    if (g->kind != CAT_GRAPH_TYPED)
        return gnn_seterr(e, GNNDB_MISUSE, "graph %s has no node types: it "
                          "was made from an edge file (CREATE GRAPH %s "
                          "without FROM makes a graph of node types and "
                          "relations)", g->name, g->name);
    if (strlen(name) + strlen(g->name) + 2 > CAT_NAME_MAX)
        return gnn_seterr(e, GNNDB_RANGE, "name too long: %s.%s", g->name,
                          name);
    if ((rc = one_int(c, "SELECT 1 FROM node_types WHERE graph_id = ?1 AND "
                         "name = ?2", id, name, &v, &found, e)))
        return rc;
    if (found)
        return gnn_seterr(e, GNNDB_EXISTS, "graph %s already has a node type "
                          "named %s", g->name, name);
    if ((rc = one_int(c, "SELECT 1 FROM relations WHERE parent_id = ?1 AND "
                         "name = ?2", id, name, &v, &found, e)))
        return rc;
    if (found)
        return gnn_seterr(e, GNNDB_EXISTS, "graph %s already has a relation "
                          "named %s", g->name, name);
    return GNNDB_OK;
}

/* ---- node types ---------------------------------------------------------- */

/* The relations of graph id, as "a, b, c" for a message. */
static void relation_names(cat_db *c, int64_t id, char *out, size_t cap)
{
    cat_relation *rs = NULL;
    size_t n = 0;
    gnn_err e2 = {0};
    out[0] = 0;
    if (cat_relation_list(c, id, &rs, &n, &e2)) return;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(out);
        snprintf(out + l, cap - l, "%s%s", l ? ", " : "", rs[i].name);
    }
    free(rs);
}

static int type_append(cat_db *c, cat_node_type *t, gnn_err *e)
{
    int64_t v = 0;
    int found;
    int rc = one_int(c, "SELECT max(type_no) FROM node_types WHERE "
                        "graph_id = ?1", t->graph_id, NULL, &v, &found, e);
    if (rc) return rc;
    t->type_no = found ? (int)v + 1 : 0;
    if ((rc = one_int(c, "SELECT max(first_id + count) FROM node_types "
                         "WHERE graph_id = ?1", t->graph_id, NULL, &v,
                      &found, e)))
        return rc;
    t->first = found ? v : 0;
    sqlite3_stmt *st;
    if ((rc = catx_prepare(c, "INSERT INTO node_types(graph_id, type_no, "
                              "name, first_id, count) VALUES(?1, ?2, ?3, ?4, "
                              "?5)", &st, e)))
        return rc;
    sqlite3_bind_int64(st, 1, t->graph_id);
    sqlite3_bind_int(st, 2, t->type_no);
    sqlite3_bind_text(st, 3, t->name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, t->first);
    sqlite3_bind_int64(st, 5, t->count);
    if ((rc = catx_run(c, st, "adding a node type", e))) return rc;
    return exec2(c, "UPDATE graphs SET nodes = nodes + ?2 WHERE id = ?1",
                 t->graph_id, t->count, "counting nodes", e);
}

int cat_type_insert(cat_db *c, cat_node_type *t, gnn_err *e)
{
    cat_graph g;
    int64_t v;
    int found;
    int rc = check_new_name(c, t->graph_id, t->name, &g, e);
    if (rc) return rc;
    if (t->count < 0 || g.nodes + t->count >= (int64_t)UINT32_MAX)
        return gnn_seterr(e, GNNDB_RANGE, "node type %s of graph %s: %" PRId64
                          " nodes; a graph holds at most 2^32-2 in all",
                          t->name, g.name, t->count);
    if ((rc = one_int(c, "SELECT 1 FROM relations WHERE parent_id = ?1", g.id,
                      NULL, &v, &found, e)))
        return rc;
    if (found) {
        char rels[512];
        relation_names(c, g.id, rels, sizeof rels);
        return gnn_seterr(e, GNNDB_MISUSE, "graph %s already has relations "
                          "(%s): node types are added before the first "
                          "relation, whose files cover the %" PRId64 " nodes "
                          "they were built with", g.name, rels, g.nodes);
    }
    if ((rc = catx_sp_begin(c, e))) return rc;
    return catx_sp_end(c, type_append(c, t, e), e);
}

#define TYPE_COLS "graph_id, type_no, name, first_id, count"

static void type_row(sqlite3_stmt *st, void *dst)
{
    cat_node_type *t = dst;
    t->graph_id = sqlite3_column_int64(st, 0);
    t->type_no = sqlite3_column_int(st, 1);
    catx_text(t->name, sizeof t->name, st, 2);
    t->first = sqlite3_column_int64(st, 3);
    t->count = sqlite3_column_int64(st, 4);
}

int cat_type_list(cat_db *c, int64_t graph_id, cat_node_type **out,
                  size_t *n, gnn_err *e)
{
    void *a;
    int rc = catx_query_rows(c, c->has_types
                                    ? "SELECT " TYPE_COLS " FROM node_types "
                                      "WHERE graph_id = ?1 ORDER BY type_no"
                                    : "SELECT 1, 1, 1, 1, 1 WHERE ?1 AND 0",
                             graph_id, NULL, type_row, sizeof **out, &a, n,
                             "listing node types", e);
    *out = rc ? NULL : a;
    return rc;
}

int cat_type_get(cat_db *c, int64_t graph_id, const char *name,
                 cat_node_type *t, gnn_err *e)
{
    void *a;
    size_t n = 0;
    int rc = c->has_types
                 ? catx_query_rows(c, "SELECT " TYPE_COLS " FROM node_types "
                                      "WHERE graph_id = ?1 AND name = ?2",
                                   graph_id, name, type_row, sizeof *t, &a,
                                   &n, "reading a node type", e)
                 : GNNDB_OK;
    if (rc) return rc;
    if (c->has_types) {
        if (n) memcpy(t, a, sizeof *t);
        free(a);
    }
    if (n) return GNNDB_OK;
    cat_graph g;
    if ((rc = cat_graph_get_id(c, graph_id, &g, e))) return rc;
    return gnn_seterr(e, GNNDB_NOTFOUND, "graph %s has no node type %s",
                      g.name, name);
}

/* ---- relations ----------------------------------------------------------- */

int cat_relation_insert(cat_db *c, const cat_relation *r, int64_t edges,
                        gnn_err *e)
{
    cat_graph g;
    int rc = check_new_name(c, r->parent_id, r->name, &g, e);
    if (rc || (rc = catx_sp_begin(c, e))) return rc;
    sqlite3_stmt *st;
    if (!(rc = catx_prepare(c, "INSERT INTO relations(graph_id, parent_id, "
                               "name, src_type, dst_type, reverse_of) "
                               "VALUES(?1, ?2, ?3, ?4, ?5, ?6)", &st, e))) {
        sqlite3_bind_int64(st, 1, r->graph_id);
        sqlite3_bind_int64(st, 2, r->parent_id);
        sqlite3_bind_text(st, 3, r->name, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 4, r->src_type);
        sqlite3_bind_int(st, 5, r->dst_type);
        if (r->reverse_of[0])
            sqlite3_bind_text(st, 6, r->reverse_of, -1, SQLITE_STATIC);
        rc = catx_run(c, st, "adding a relation", e);
    }
    if (!rc)
        rc = exec2(c, "UPDATE graphs SET edges = edges + ?2 WHERE id = ?1",
                   r->parent_id, edges, "counting edges", e);
    return catx_sp_end(c, rc, e);
}

#define REL_COLS "graph_id, parent_id, name, src_type, dst_type, reverse_of"

static void rel_row(sqlite3_stmt *st, void *dst)
{
    cat_relation *r = dst;
    r->graph_id = sqlite3_column_int64(st, 0);
    r->parent_id = sqlite3_column_int64(st, 1);
    catx_text(r->name, sizeof r->name, st, 2);
    r->src_type = sqlite3_column_int(st, 3);
    r->dst_type = sqlite3_column_int(st, 4);
    catx_text(r->reverse_of, sizeof r->reverse_of, st, 5);
}

int cat_relation_list(cat_db *c, int64_t parent_id, cat_relation **out,
                      size_t *n, gnn_err *e)
{
    void *a;
    int rc = catx_query_rows(c, c->has_types
                                    ? "SELECT " REL_COLS " FROM relations "
                                      "WHERE parent_id = ?1 ORDER BY graph_id"
                                    : "SELECT 1, 1, 1, 1, 1, 1 WHERE ?1 AND 0",
                             parent_id, NULL, rel_row, sizeof **out, &a, n,
                             "listing relations", e);
    *out = rc ? NULL : a;
    return rc;
}

int cat_relation_get(cat_db *c, int64_t parent_id, const char *name,
                     cat_relation *r, gnn_err *e)
{
    cat_relation *rs = NULL;
    size_t n = 0;
    int rc = cat_relation_list(c, parent_id, &rs, &n, e);
    if (rc) return rc;
    size_t i = 0;
    while (i < n && strcmp(rs[i].name, name)) i++;
    if (i < n) *r = rs[i];
    free(rs);
    if (i < n) return GNNDB_OK;
    cat_graph g;
    if ((rc = cat_graph_get_id(c, parent_id, &g, e))) return rc;
    return gnn_seterr(e, GNNDB_NOTFOUND, "graph %s has no relation %s",
                      g.name, name);
}

/* ---- a relation's edge tables --------------------------------------------
** An edge feature table of a relation is a tables row on the relation's
** own topology graph (graph_id: its graphs row, which holds the edge ids
** and input_edges the rows are counted against), so that DROP RELATION
** and DROP GRAPH drop it with the topology, as they drop the edge table,
** and the catalog needs no column to say which relation it belongs to. */

/* Whether relations a and b were made from one edge file, so that input
** edge i of one is input edge i of the other. reverse_of is a name, and it
** outlives the relation it names (DROP RELATION leaves the reverse): a
** relation made later under that name, from another file, is no partner.
** So the two must also be turned round (types swapped), both have edge
** ids, and agree on their source file and input edge count. */
static int same_input(cat_db *c, const cat_relation *a,
                      const cat_relation *b, int *same, gnn_err *e)
{
    cat_graph ga, gb;
    int rc;
    *same = 0;
    if ((rc = cat_graph_get_id(c, a->graph_id, &ga, e)) ||
        (rc = cat_graph_get_id(c, b->graph_id, &gb, e)))
        return rc;
    *same = a->src_type == b->dst_type && a->dst_type == b->src_type &&
            ga.has_eids && gb.has_eids && ga.input_edges == gb.input_edges &&
            strcmp(ga.source, gb.source) == 0;
    return GNNDB_OK;
}

int cat_relation_partner(cat_db *c, const cat_relation *r, cat_relation *p,
                         gnn_err *e)
{
    cat_relation *rs = NULL;
    size_t n = 0;
    int rc = cat_relation_list(c, r->parent_id, &rs, &n, e), same = 0;
    for (size_t i = 0; !rc && !same && i < n; i++) {
        int named = r->reverse_of[0] ? strcmp(rs[i].name, r->reverse_of) == 0
                                     : strcmp(rs[i].reverse_of, r->name) == 0;
        if (named && !(rc = same_input(c, r, &rs[i], &same, e)) && same)
            *p = rs[i];
    }
    free(rs);
    if (rc || same) return rc;
    return gnn_seterr(e, GNNDB_NOTFOUND, "relation %s has no reverse made "
                      "from its edge file", r->name);
}

/* Edge feature table `name` on topology graph graph_id, if there: *found. */
static int edge_table_on(cat_db *c, int64_t graph_id, const char *name,
                         cat_table *t, int *found, gnn_err *e)
{
    gnn_err e2 = {0};
    int rc = cat_table_get(c, graph_id, name, t, &e2);
    *found = rc == GNNDB_OK && t->kind == CAT_TABLE_EDGE_FEATURES;
    if (rc == GNNDB_OK || rc == GNNDB_NOTFOUND) return GNNDB_OK;
    return gnn_seterr(e, rc, "%s", e2.msg);
}

int cat_relation_edge_table(cat_db *c, int64_t parent_id, const char *rel,
                            const char *name, cat_table *t, gnn_err *e)
{
    cat_relation r, p;
    gnn_err e2 = {0};
    int found = 0;
    int rc = cat_relation_get(c, parent_id, rel, &r, e);
    if (rc || (rc = edge_table_on(c, r.graph_id, name, t, &found, e)) ||
        found)
        return rc;
    int paired = (rc = cat_relation_partner(c, &r, &p, &e2)) == GNNDB_OK;
    if (rc && rc != GNNDB_NOTFOUND) return gnn_seterr(e, rc, "%s", e2.msg);
    if (paired && ((rc = edge_table_on(c, p.graph_id, name, t, &found, e)) ||
                   found))
        return rc;
    cat_graph g;
    if ((rc = cat_graph_get_id(c, parent_id, &g, e))) return rc;
    return gnn_seterr(e, GNNDB_NOTFOUND, "relation %s of graph %s has no edge "
                      "feature table %s%s%s%s", rel, g.name, name,
                      paired ? " (nor has " : "", paired ? p.name : "",
                      paired ? ", its reverse)" : "");
}

int catx_types_drop_graph(cat_db *c, int64_t graph_id, gnn_err *e)
{
    if (!c->has_types) return GNNDB_OK;
    int rc = exec2(c, "UPDATE graphs SET edges = edges - (SELECT edges FROM "
                      "graphs WHERE id = ?1) WHERE id = (SELECT parent_id "
                      "FROM graphs WHERE id = ?1 AND ?2)", graph_id, 1,
                   "counting edges", e);
    if (!rc)
        rc = exec2(c, "DELETE FROM relations WHERE graph_id = ?1 OR "
                      "parent_id = ?1 OR ?2 = 0", graph_id, 1,
                   "deleting relations", e);
    if (!rc)
        rc = exec2(c, "DELETE FROM node_types WHERE graph_id = ?1 OR ?2 = 0",
                   graph_id, 1, "deleting node types", e);
    return rc;
}
