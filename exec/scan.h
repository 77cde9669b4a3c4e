/* scan.h — the SCAN statement: batches of whole rows of one feature table
** (no sampling), read in shuffled chunks of contiguous rows. */
#ifndef GNN_SCAN_H
#define GNN_SCAN_H

#include <stdint.h>
#include "db.h"
#include "../parser/ast.h"

typedef struct scan_exec scan_exec;

/* Resolve the table, graph and seeds of a SCAN and open what it reads.
** On failure the words are in *e and nothing is left open. */
int scan_open(gnndb *db, const ast_stmt *s, scan_exec **out, gnn_err *e);
/* The next batch: GNNDB_BATCH with *view set (valid until the next call),
** GNNDB_DONE, or an error code. */
int scan_next(scan_exec *x, const gnndb_batch_view **view, gnn_err *e);
void scan_close(scan_exec *x);
/* The digest of the batch scan_next handed out last, into its view (the
** step leaves it 0). */
void scan_digest(scan_exec *x);

/* The run's counters, as gnndb_stmt_status numbers them (GNNDB_STATUS_*);
** `status` has 16 entries. */
void scan_status(const scan_exec *x, int64_t *status);

#endif
