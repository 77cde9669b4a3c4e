/* ddl_times.c — IMPORT EDGE TIMES and IMPORT NODE TIMES INTO g FROM 'f'.
**
** Edge times (one int64 per input edge, row i for input edge i) become
** the graph's time graph (time_graph.c builds and publishes it): the
** temporal CSR of storage/graph_times.c, the lists of the edge-id graph
** sorted by time, in a block file and a graphs row of its own ("g.__time",
** CAT_GRAPH_TIME). The plain graph, its
** edge-id graph and everything sampled from them stay as they were. Node
** times (one int64 per node, in the order of the graph's feature rows)
** become the table "__node_time". The whole file is read and checked
** (int64, one per input edge or node) before anything is written; the
** new objects are then published in one catalog transaction, or undone. */
#include "ddl.h"
#include "timecol.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The plain graph the statement names. */
static int times_graph(gnndb *db, const ast_stmt *s, cat_graph *g,
                       gnn_err *e)
{
    int rc = cat_graph_get(db->cat, s->graph, g, e);
    if (rc) return rc;
    if (g->kind != CAT_GRAPH_PLAIN)
        return gnn_seterr(e, GNNDB_MISUSE, "IMPORT %s TIMES INTO %s: times "
                          "of a graph of node types and relations are not "
                          "available yet", s->time_nodes ? "NODE" : "EDGE",
                          g->name);
    return GNNDB_OK;
}

static int import_node_times(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    cat_graph g;
    int64_t *t = NULL, *i2r = NULL;
    size_t n = 0;
    ddl_table d;
    memset(&d, 0, sizeof d);
    d.o.times = 1;
    d.o.format = IMP_FEAT_NPY;
    d.o.block_size = BLK_DEFAULT_SIZE;
    int rc;
    (void)((rc = times_graph(db, s, &g, e)) ||
           (rc = tc_read_file(s->path, "node times", g.nodes, &t, &n, e)) ||
           (rc = ddl_check_table(db, &g, CAT_NODE_TIME_TABLE,
                                 CAT_TABLE_NODE_TIMES, 0, &d, e)) ||
           (rc = ddl_load_i2r(db, &g, &i2r, e)) ||
           (rc = ddl_table_build(db, &g, i2r, CAT_NODE_TIME_TABLE, s->path,
                                 &d, e)));
    free(t);
    free(i2r);
    if (rc == GNNDB_EXISTS)
        rc = gnn_seterr(e, rc, "graph %s already has node times", g.name);
    return ddl_table_publish(db, rc ? 0 : g.id, &d, rc, e);
}

static int import_edge_times(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    cat_graph g, old;
    int64_t *t = NULL;
    size_t n = 0;
    ddl_time_graph tg;
    memset(&tg, 0, sizeof tg);
    gnn_err e2 = {0};
    int rc;
    if ((rc = times_graph(db, s, &g, e)) ||
        (rc = cat_graph_need_eids(&g, "IMPORT EDGE TIMES", e)))
        goto out;
    if (cat_time_graph_get(db->cat, &g, &old, &e2) == GNNDB_OK) {
        rc = gnn_seterr(e, GNNDB_EXISTS, "graph %s already has edge times "
                        "(from %s)", g.name, old.source);
        goto out;
    }
    if ((rc = tc_read_file(s->path, "edge times", g.input_edges, &t, &n, e)) ||
        (rc = ddl_time_graph_build(db, &g, "IMPORT EDGE TIMES", t, n, &tg,
                                   e)))
        goto out;
    if (!(rc = cat_begin(db->cat, e))) {
        if ((rc = ddl_time_graph_insert(db, &g, s->path, &tg, e)) ||
            (rc = cat_commit(db->cat, e)))
            cat_rollback(db->cat);
    }
out:
    if (rc) ddl_time_graph_undo(db, &tg);
    else ddl_time_graph_free(&tg);
    free(t);
    db_write_unlock(db);
    return ddl_disk_full_words(db, rc, e);
}

int ddl_import_times(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    if (s->time_nodes) return import_node_times(db, s, e);
    return import_edge_times(db, s, e);
}
