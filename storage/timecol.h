/* timecol.h — time columns (timecol.c) and the time graph built from them
** (graph_times.c). A time column is a .npy of int64, one value per input
** edge (IMPORT EDGE TIMES) or per node (IMPORT NODE TIMES), in the user's
** unit; nothing else is taken, so that no time is rounded or wrapped. The
** time graph is the temporal CSR: the edge-id graph's lists, each entry
** with its edge's time, each list sorted by (time, neighbour, edge id)
** (block.h, BLK_FLAG_TIMES). */
#ifndef GNN_TIMECOL_H
#define GNN_TIMECOL_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"
#include "blockfile.h"

/* The times a .npy held in buf[0..len) carries: int64, one dimension (or
** one column), `expect` of them (-1: any number). On success *out is a
** malloc'd array of *n times (the caller frees it). Any other dtype, shape
** or count, and a file shorter or longer than its header says, is refused
** with GNNDB_FORMAT (GNNDB_RANGE for a count that is not `expect`) and
** words naming `path` and `what` ("edge times"); nothing is returned then. */
int tc_parse(const void *buf, size_t len, const char *path, const char *what,
             int64_t expect, int64_t **out, size_t *n, gnn_err *e);
/* The same for the file at `path` (GNNDB_NOTFOUND, naming it, when it is
** missing; GNNDB_IOERR when it cannot be read). */
int tc_read_file(const char *path, const char *what, int64_t expect,
                 int64_t **out, size_t *n, gnn_err *e);

/* A time graph built by tc_build_graph: its blocks' checksums and its
** index entries (first node starting in a block -> block), malloc'd. */
typedef struct tc_graph_result {
    uint64_t nblocks;
    uint32_t *checksums;
    uint64_t *idx_first, *idx_block;
    size_t n_idx;
    int64_t edges;           /* entries over all lists */
} tc_graph_result;

/* Build `dir`/`name` (published by rename, sealed under `token`) from the
** edge-id graph `eg` of `nodes` nodes, read block by block in order: each
** node's list with its entries' times (times[eid], `ntimes` of them, one
** per input edge), sorted by (time, neighbour, edge id). A list that does
** not continue as the block format says, or an edge id past `ntimes`, is
** reported as corruption of eg. On failure nothing is left behind. */
int tc_build_graph(blk_file *eg, uint64_t nodes, const int64_t *times,
                   size_t ntimes, const char *dir, const char *name,
                   uint64_t token, tc_graph_result *r, gnn_err *e);
void tc_graph_result_free(tc_graph_result *r);

/* The time of each input edge the time graph `tg` (BLK_FLAG_TIMES blocks)
** holds, read block by block: times[eid] for each entry; the entries of
** an id not stored (a dropped edge) are left as they were. An edge id past
** `ntimes` is corruption of tg. */
int tc_read_times(blk_file *tg, int64_t *times, size_t ntimes, gnn_err *e);

#endif
