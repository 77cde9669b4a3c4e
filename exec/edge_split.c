/* edge_split.c — reading an edge split: its catalog row, checked to be of
** the edge kind (cat_edge_split_get), then its ids from the index ('T'
** keys of its token). */
#include "edge_split.h"

#include <stdlib.h>

int edge_split_load(gnndb *db, const cat_graph *g, const char *name,
                    uint64_t **eids, size_t *n, gnn_err *e)
{
    *eids = NULL;
    *n = 0;
    cat_split sp;
    idx_txn *t;
    int rc = cat_edge_split_get(db->cat, g, name, &sp, e);
    if (rc || (rc = idx_begin(db->idx, 0, &t, e))) return rc;
    rc = idx_load_edge_split(t, sp.token, (uint64_t)sp.count, eids, e);
    idx_abort(t);
    if (!rc) *n = (size_t)sp.count;
    return rc;
}
