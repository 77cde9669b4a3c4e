/* drop.c — deleting a graph from the catalog with everything that hangs
** off it: its packs, its relations' graphs (a typed graph's, each deleted
** the same way), its node types and relation rows, checksums, degree
** histogram, tables and splits, in one savepoint. */
#include "cat_int.h"

#include <inttypes.h>
#include <stdlib.h>

/* The graphs rows of typed graph graph_id's relations, each with all that
** hangs off it (none when the catalog has no typed graphs). */
static int drop_relations(cat_db *c, int64_t graph_id, gnn_err *e)
{
    if (!c->has_types) return GNNDB_OK;
    cat_graph *kids = NULL;
    size_t n = 0;
    int rc = cat_graph_children(c, graph_id, &kids, &n, e);
    for (size_t i = 0; !rc && i < n; i++)
        rc = cat_graph_delete(c, kids[i].id, e);
    free(kids);
    return rc;
}

int cat_graph_delete(cat_db *c, int64_t graph_id, gnn_err *e)
{
    /* explicit rather than left to ON DELETE CASCADE: checksums hang off
    ** file names, and a connection may have foreign keys off */
    static const char *const sqls[] = {
        "DELETE FROM checksums WHERE file IN ("
        "  SELECT file FROM tables WHERE graph_id = ?1"
        "  UNION SELECT file FROM graphs WHERE id = ?1"
        "  UNION SELECT eid_file FROM graphs WHERE id = ?1 AND has_eids)",
        "DELETE FROM degree_hist WHERE graph_id = ?1",
        "DELETE FROM tables WHERE graph_id = ?1",
        "DELETE FROM splits WHERE graph_id = ?1",
        "DELETE FROM graphs WHERE id = ?1",
        NULL,
    };
    int changed = 0;
    int rc = catx_writable(c, e);
    if (rc || (rc = catx_sp_begin(c, e))) return rc;
    rc = catx_packs_drop_graph(c, graph_id, e);
    if (!rc) rc = drop_relations(c, graph_id, e);
    if (!rc) rc = catx_types_drop_graph(c, graph_id, e);
    if (!rc) rc = catx_delete_all(c, sqls, graph_id, &changed, e);
    if (!rc && !changed)
        rc = gnn_seterr(e, GNNDB_NOTFOUND, "no such graph: id %" PRId64,
                        graph_id);
    return catx_sp_end(c, rc, e);
}
