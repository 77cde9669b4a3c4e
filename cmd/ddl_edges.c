/* ddl_edges.c — IMPORT EDGE FEATURES w INTO g FROM 'f': a table of one row
** per input edge of g (row i: input edge i, whether or not it was dropped),
** read by the feature importer and published as ddl.c publishes a node
** feature table, as kind CAT_TABLE_EDGE_FEATURES. The graph must have edge
** ids. On a typed graph the table belongs to one relation, INTO g.r: it
** is stored on r's own topology graph (catalog/hetero.c says why), and
** r's reverse shares it; DROP FEATURES w ON g.r finds it here for
** ddl.c's DROP, and IMPORT ... REPLACE replaces it wherever it is. Every
** refusal (no such graph or relation, no edge ids, name taken, bad
** options, a missing file, a row count that is not the input edges) comes
** before anything is written, or undoes what was. */
#include "ddl.h"

#include <stdio.h>
#include <string.h>

/* Relation `rel` of graph g, which must be typed: its topology graph
** (named "g.rel", with the relation's edge ids) into *rg. */
static int relation_graph(gnndb *db, const cat_graph *g, const char *rel,
                          cat_graph *rg, gnn_err *e)
{
    if (g->kind != CAT_GRAPH_TYPED)
        return gnn_seterr(e, GNNDB_MISUSE, "IMPORT EDGE FEATURES INTO %s.%s: "
                          "graph %s has no relations (it was made from an "
                          "edge file; its edge features go INTO %s)", g->name,
                          rel, g->name, g->name);
    cat_relation r;
    cat_node_type t;
    gnn_err e2 = {0};
    int rc = cat_relation_get(db->cat, g->id, rel, &r, e);
    if (rc == GNNDB_NOTFOUND &&
        cat_type_get(db->cat, g->id, rel, &t, &e2) == GNNDB_OK)
        return gnn_seterr(e, rc, "graph %s has no relation %s: %s is a node "
                          "type (IMPORT FEATURES takes a row per node)",
                          g->name, rel, rel);
    return rc ? rc : cat_graph_get_id(db->cat, r.graph_id, rg, e);
}

/* GNNDB_EXISTS when relation `rel` of g, or the relation that shares its
** input edges, has a table `name` (of any kind: the name "__edges" is its
** edge table's); with REPLACE (`d` not NULL) that table, replaced. */
static int check_new_edge_table(gnndb *db, const cat_graph *g,
                                const char *rel, const cat_graph *rg,
                                const char *name, ddl_table *d, gnn_err *e)
{
    cat_table t;
    cat_graph owner;
    gnn_err e2 = {0};
    int rc = cat_relation_edge_table(db->cat, g->id, rel, name, &t, &e2);
    if (rc == GNNDB_NOTFOUND)
        return ddl_check_table(db, rg, name, CAT_TABLE_EDGE_FEATURES, d != NULL,
                               d, e);
    if (rc) return gnn_seterr(e, rc, "%s", e2.msg);
    if (d) return ddl_replace_table(&t, CAT_TABLE_EDGE_FEATURES, d, e);
    if (t.graph_id == rg->id)
        return gnn_seterr(e, GNNDB_EXISTS, "relation %s of graph %s already "
                          "has edge feature table %s", rel, g->name, name);
    if ((rc = cat_graph_get_id(db->cat, t.graph_id, &owner, e))) return rc;
    const char *dot = strchr(owner.name, '.');
    return gnn_seterr(e, GNNDB_EXISTS, "relation %s of graph %s already has "
                      "edge feature table %s, imported into %s, which shares "
                      "its input edges", rel, g->name, name,
                      dot ? dot + 1 : owner.name);
}

/* The graph the table goes on, into *into: g itself, which must not be
** typed, or for INTO g.r relation r's topology graph; it has edge ids
** and no table of the statement's name yet, or with REPLACE the one it
** has goes into d. */
static int edge_target(gnndb *db, const ast_stmt *s, cat_graph *g,
                       cat_graph *into, ddl_table *d, gnn_err *e)
{
    const char *rel = s->node_type;
    int rc = cat_graph_get(db->cat, s->graph, g, e);
    if (rc) return rc;
    if (!rel && g->kind == CAT_GRAPH_TYPED)
        return gnn_seterr(e, GNNDB_MISUSE, "IMPORT EDGE FEATURES INTO %s: "
                          "graph %s has relations, and edge features belong "
                          "to one: name it, as %s.<relation>", g->name,
                          g->name, g->name);
    if (!rel) *into = *g;
    else if ((rc = relation_graph(db, g, rel, into, e))) return rc;
    if ((rc = cat_graph_need_eids(into, "IMPORT EDGE FEATURES", e)))
        return rc;
    ddl_table *r = s->replace_table ? d : NULL;
    return rel ? check_new_edge_table(db, g, rel, into, s->name, r, e)
               : ddl_check_table(db, g, s->name, CAT_TABLE_EDGE_FEATURES,
                                 s->replace_table, d, e);
}

int ddl_import_edge_features(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    cat_graph g, into;
    ddl_table d;
    memset(&d, 0, sizeof d);
    d.o.edges = 1;
    d.o.relation = s->node_type != NULL;
    into.id = 0;
    (void)((rc = edge_target(db, s, &g, &into, &d, e)) ||
           (rc = ddl_table_opts(s, &d.o, e)) ||
           (rc = ddl_table_build(db, &into, NULL, s->name, s->path, &d, e)));
    return ddl_table_publish(db, into.id, &d, rc, e);
}

int ddl_drop_edge_table(gnndb *db, const ast_stmt *s, const cat_graph *g,
                        cat_table *t, int *found, gnn_err *e)
{
    cat_relation r;
    gnn_err e2 = {0};
    *found = s->kind == AST_DROP_FEATURES && s->node_type &&
             g->kind == CAT_GRAPH_TYPED &&
             cat_relation_get(db->cat, g->id, s->node_type, &r, &e2) == 0;
    if (!*found) return GNNDB_OK;
    return cat_relation_edge_table(db->cat, g->id, s->node_type, s->name, t,
                                   e);
}
