/* drop.c — DROP GRAPH, DROP FEATURES and DROP SPLIT: the catalog rows go in
** one transaction, then the files and index keys they named (ddl.c's
** ddl_doomed), so that a crash leaves only orphans for the next writable
** open to remove. */
#include "ddl.h"

#include <stdio.h>
#include <string.h>

/* The table or split a DROP FEATURES / DROP SPLIT names: its file or
** token into d, its row id into *id. */
static int drop_target(gnndb *db, const ast_stmt *s, const cat_graph *g,
                       int64_t *id, ddl_doomed *d, gnn_err *e)
{
    char name[CAT_NAME_MAX];
    cat_node_type ty;
    cat_table et;
    int found;
    int rc = ddl_drop_edge_table(db, s, g, &et, &found, e);
    if (rc) return rc;
    if (found) {   /* ON g.r: a relation's edge table */
        *id = et.id;
        return ddl_doom_file(d, et.file, e);
    }
    if ((rc = ddl_object_name(s, s->name, name, e))) return rc;
    if (s->node_type && (rc = cat_type_get(db->cat, g->id, s->node_type, &ty,
                                           e)))
        return rc;
    if (s->kind == AST_DROP_FEATURES) {
        cat_table t;
        if ((rc = cat_table_get(db->cat, g->id, name, &t, e))) return rc;
        if (t.kind == CAT_TABLE_EDGES)
            return gnn_seterr(e, GNNDB_MISUSE, "%s is the edge table of "
                              "graph %s: it goes with DROP GRAPH %s", s->name,
                              g->name, g->name);
        *id = t.id;
        return ddl_doom_file(d, t.file, e);
    }
    cat_split sp;
    if ((rc = cat_split_get(db->cat, g->id, name, &sp, e))) return rc;
    *id = sp.id;
    return ddl_doom_token(d, sp.token, e);
}

int ddl_drop(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    const char *gname = s->kind == AST_DROP_GRAPH ? s->name : s->graph;
    cat_graph g;
    ddl_doomed d;
    memset(&d, 0, sizeof d);
    int64_t id = 0;
    if ((rc = cat_graph_get(db->cat, gname, &g, e))) goto out;
    if (s->kind == AST_DROP_GRAPH) rc = ddl_doomed_graph(db, &g, &d, e);
    else rc = drop_target(db, s, &g, &id, &d, e);
    if (rc || (rc = cat_begin(db->cat, e))) goto out;
    if (s->kind == AST_DROP_GRAPH) rc = cat_graph_delete(db->cat, g.id, e);
    else if (s->kind == AST_DROP_FEATURES) rc = cat_table_delete(db->cat, id, e);
    else rc = cat_split_delete(db->cat, id, e);
    if (!rc) rc = cat_commit(db->cat, e);
    if (rc) { cat_rollback(db->cat); goto out; }
    /* committed: what follows only frees space; a crash here leaves
    ** orphans that the next writable open removes */
    ddl_doomed_remove(db, &d);
out:
    ddl_doomed_free(&d);
    db_write_unlock(db);
    return ddl_disk_full_words(db, rc, e);
}
