/* gather_rows.h — the GATHER statement: rows of one table (node features,
** labels, edge features, a node type's or a relation's table) by index,
** out of core, returned in the order asked. */
#ifndef GNN_GATHER_ROWS_H
#define GNN_GATHER_ROWS_H

#include <stdint.h>
#include "db.h"
#include "../parser/ast.h"

typedef struct gr_exec gr_exec;

/* Resolve the table, read and check every id (an id out of range fails
** here, before any block is read), size the buffers within memory_limit
** and open what the reads need. On failure the words are in *e and
** nothing is left open. */
int gr_open(gnndb *db, const ast_stmt *s, gr_exec **out, gnn_err *e);
/* The next chunk of rows: GNNDB_BATCH with *view set (n_id the ids asked,
** x the rows of a feature table, y those of a label table; valid until
** the next call), GNNDB_DONE, or an error code. */
int gr_next(gr_exec *x, const gnndb_batch_view **view, gnn_err *e);
/* The run's counters, as gnndb_stmt_status numbers them. */
void gr_status(const gr_exec *x, int64_t *status);
void gr_close(gr_exec *x);

#endif
