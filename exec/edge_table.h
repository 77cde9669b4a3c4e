/* edge_table.h — reading a graph's edge ids: from an input edge id to its
** endpoints (the edge table), from a pair of nodes to its edge id (the
** edge-id graph), and every stored edge in id order.
**
** Input edge i is row i of the graph's input edge file (0-based, counted
** before anything was dropped); ids run over [0, g->input_edges). An edge
** dropped at import (a self loop under DROP SELF LOOPS, a later copy under
** DROP DUPLICATES) keeps its id but is not stored: its endpoints read as
** UINT32_MAX. Both stored directions of an undirected edge carry its id.
** Node ids here are internal ids (what the block files hold).
**
** Every call needs a graph with edge ids: on one without (made WITHOUT
** EDGE IDS, or by a format-2 gnndb) it fails with GNNDB_NOTFOUND and
** cat_graph_need_eids' words. Blocks are read and verified as any reader
** verifies them (corruption is GNNDB_CORRUPT naming file and block); the
** calls read synchronously, hold one block buffer and nothing that grows
** with the number of edges, and stop with GNNDB_INTERRUPT when the handle
** is interrupted. They only read: a read-only handle may call them. */
#ifndef GNN_EDGE_TABLE_H
#define GNN_EDGE_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include "db.h"

/* The endpoints of input edges eids[0..n): src[i] -> dst[i], internal ids
** in the orientation the input wrote them, or UINT32_MAX for both when
** edge eids[i] was dropped. eids should ascend (each block is then read
** once; any order is answered, at the cost of reading blocks again). An
** id >= g->input_edges is GNNDB_RANGE naming it and the graph. src and
** dst are the caller's, n entries each. */
int edt_endpoints(gnndb *db, const cat_graph *g, const uint64_t *eids,
                  size_t n, uint32_t *src, uint32_t *dst, gnn_err *e);

/* The edge id of each pair src[i] -> dst[i] (internal ids): the lowest id
** stored for it, an undirected graph matching either orientation, or
** UINT64_MAX when the graph has no such edge (ids beyond the node count
** included). Queries in any order; they are sorted by target internally
** (O(n) memory of the caller's size) and each block of the edge-id graph
** that holds a queried list is read once. eids is the caller's, n
** entries. */
int edt_find_pairs(gnndb *db, const cat_graph *g, const uint32_t *src,
                   const uint32_t *dst, size_t n, uint64_t *eids,
                   gnn_err *e);

/* Call fn(arg, eid, src, dst) for every stored (not dropped) input edge
** in ascending id order, reading the edge table once. A non-zero return
** from fn stops the scan and is returned as it is (fn sets e itself when
** it means an error). */
int edt_scan(gnndb *db, const cat_graph *g,
             int (*fn)(void *arg, uint64_t eid, uint32_t src, uint32_t dst),
             void *arg, gnn_err *e);

#endif
