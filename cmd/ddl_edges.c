/* ddl_edges.c — IMPORT EDGE FEATURES w INTO g FROM 'f': a table of one row
** per input edge of g (row i: input edge i, whether or not it was dropped),
** read by the feature importer and published as ddl.c publishes a node
** feature table, as kind CAT_TABLE_EDGE_FEATURES. The graph must have edge
** ids. Every refusal (no such graph, no edge ids, name taken, bad options,
** a missing file, a row count that is not the graph's input edges) comes
** before anything is written, or undoes what was. */
#include "ddl.h"

#include <string.h>

int ddl_import_edge_features(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    cat_graph g;
    ddl_table d;
    memset(&d, 0, sizeof d);
    d.o.edges = 1;
    g.id = 0;
    (void)((rc = cat_graph_get(db->cat, s->graph, &g, e)) ||
           (rc = cat_graph_need_eids(&g, "IMPORT EDGE FEATURES", e)) ||
           (rc = ddl_check_new_table(db, &g, s->name, 0, e)) ||
           (rc = ddl_table_opts(s, &d.o, e)) ||
           (rc = ddl_table_build(db, &g, NULL, s->name, s->path, &d, e)));
    return ddl_table_publish(db, g.id, &d, rc, e);
}
