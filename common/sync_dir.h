/* sync_dir.h — fsync of a directory, so that a rename in it is durable. */
#ifndef GNN_SYNC_DIR_H
#define GNN_SYNC_DIR_H

#include "err.h"

/* GNNDB_IOERR naming `dir` when it cannot be opened or synced. */
int gnn_sync_dir(const char *dir, gnn_err *e);

#endif
