/* show.h — what SHOW and DESCRIBE share between show.c and the typed
** graphs' part, show_hetero.c. */
#ifndef GNN_SHOW_H
#define GNN_SHOW_H

#include "cmd.h"

/* The rows of typed graph g's node types and relations (part: only that
** type or relation's; GNNDB_NOTFOUND when it names neither). */
int show_typed(gnndb *db, const cat_graph *g, const char *part, rowset *rs,
               gnn_err *e);

#endif
