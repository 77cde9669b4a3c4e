/* insert_rows.c — INSERT ROWS INTO t ON g FROM 'f' (and INTO LABELS):
** rows appended to a table of a row per node or per input edge, for the
** nodes INSERT NODES added or the edges INSERT EDGES added. The table is
** written again, its rows so far (read and verified from its file) then
** the file's, into a new file that replaces it in one transaction, as
** IMPORT ... REPLACE does: a version sampled before reads the same rows
** (its rows are a prefix), and a failure leaves the table as it was. */
#include "ddl.h"

#include <stdio.h>
#include <string.h>

/* The table the statement names, and whether rows can be added to it. */
static int target_table(gnndb *db, const ast_stmt *s, const cat_graph *g,
                        cat_table *t, gnn_err *e)
{
    const char *name = s->name ? s->name : "__labels";
    const char *shown = s->name ? s->name : "LABELS";
    gnn_err e2 = {0};
    int rc = cat_table_get(db->cat, g->id, name, t, &e2);
    if (rc == GNNDB_NOTFOUND)
        return gnn_seterr(e, rc, "INSERT ROWS INTO %s ON %s: graph %s has "
                          "no %s%s (IMPORT it first)", shown, g->name,
                          g->name, s->name ? "table " : "labels",
                          s->name ? s->name : "");
    if (rc) return gnn_seterr(e, rc, "%s", e2.msg);
    if (t->kind != CAT_TABLE_FEATURES && t->kind != CAT_TABLE_LABELS &&
        t->kind != CAT_TABLE_EDGE_FEATURES)
        return gnn_seterr(e, GNNDB_MISUSE, "INSERT ROWS INTO %s ON %s: rows "
                          "are added to feature, label and edge feature "
                          "tables only", shown, g->name);
    if (t->has_type)
        return gnn_seterr(e, GNNDB_MISUSE, "INSERT ROWS INTO %s ON %s: a "
                          "node type's table is not appended to yet", shown,
                          g->name);
    return GNNDB_OK;
}

int ddl_insert_rows(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    cat_graph g;
    cat_table t;
    ddl_table d;
    blk_file *old = NULL;
    memset(&d, 0, sizeof d);
    if ((rc = cat_graph_get(db->cat, s->graph, &g, e)) ||
        (rc = target_table(db, s, &g, &t, e)) ||
        (rc = ddl_table_opts(s, &d.o, e)) ||
        (rc = db_open_table(db, &t, 0, &old, e)))
        goto out;
    /* the table's own layout; its rows first */
    d.o.labels = t.kind == CAT_TABLE_LABELS;
    d.o.edges = t.kind == CAT_TABLE_EDGE_FEATURES;
    d.o.store_dtype = t.dtype;
    d.o.block_size = t.block_size;
    d.o.prior = old;
    d.o.prior_rows = t.rows;
    d.o.prior_dim = t.dim;
    d.old_id = t.id;
    snprintf(d.old_file, sizeof d.old_file, "%s", t.file);
    rc = ddl_table_build(db, &g, NULL, t.name, s->path, &d, e);
out:
    blkf_close(old);
    return ddl_table_publish(db, rc ? 0 : g.id, &d, rc, e);
}
