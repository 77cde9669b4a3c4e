/* edge_split.h — reading edge splits: the input edge ids that CREATE EDGE
** SPLIT and CREATE EDGE SPLITS stored (cmd/ddl_edge_split.c), for the seeds
** of a link-prediction SAMPLE and for what it excludes. */
#ifndef GNN_EDGE_SPLIT_H
#define GNN_EDGE_SPLIT_H

#include <stddef.h>
#include <stdint.h>
#include "db.h"

/* The members of edge split `name` of graph g: *n input edge ids, ascending
** and distinct, in *eids. On GNNDB_OK *eids is malloc'd (also when *n is 0)
** and the caller frees it; on an error (cat_edge_split_get's, or a
** damaged index: GNNDB_CORRUPT) *eids is NULL and *n 0. */
int edge_split_load(gnndb *db, const cat_graph *g, const char *name,
                    uint64_t **eids, size_t *n, gnn_err *e);

#endif
