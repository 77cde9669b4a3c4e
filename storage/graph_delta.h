/* graph_delta.h — an append's new version of a graph file, written as a
** delta: the node ranges whose lists change are read from the old
** version, changed by the caller, and packed again into a new segment (an
** ordinary block file); every other block stays where it lies. The new
** version's file is segmented (segmap.h): its map lists the old segments
** that still hold some of its blocks and the new one, in logical order.
** So an append writes what it changes, not the graph, and the old
** version's files are never touched: a reader of it goes on unaware.
**
** A range is a run of blocks from one whose first object starts its node
** (no BLK_FLAG_CONT_FIRST) up to the next such block: every list that
** starts in it ends in it, so it can be packed again alone, and the
** logical blocks after it only move along. Lists keep the order the
** caller gives them; the caller makes them those a graph created at once
** would hold, so batches do not depend on how a version was made. */
#ifndef GNN_GRAPH_DELTA_H
#define GNN_GRAPH_DELTA_H

#include <stddef.h>
#include <stdint.h>
#include "blockfile.h"
#include "segmap.h"

/* One node's list: nbrs, and with edge ids eids, and in a time graph
** times (NULL where the file has none). */
typedef struct gd_list {
    const uint32_t *nbrs;
    const uint32_t *eids;
    const int64_t *times;
    uint32_t n;
} gd_list;

/* The new list of changed node v, from its old one. *out's arrays are the
** callee's and must stay valid until its next call. */
typedef int (*gd_list_fn)(void *arg, uint32_t v, const gd_list *old,
                          gd_list *out, gnn_err *e);

/* The old version's file. */
typedef struct gd_old {
    blk_file *f;              /* open: its logical blocks */
    const seg_map *map;       /* its map when it is segmented, else NULL */
    const char *name;         /* a plain file's name in `dir` */
    uint64_t token;           /* ... and its token */
    const uint64_t *idx_first, *idx_block;   /* its block index */
    size_t nidx;
    const uint32_t *sums;     /* checksum of each logical block */
    uint64_t nodes;
    uint32_t flags;           /* 0, BLK_FLAG_EIDS, or with BLK_FLAG_TIMES */
    uint64_t max_entries;     /* the longest list the caller's memory
                              ** takes: a longer one to pack again is
                              ** GNNDB_NOMEM (0: no bound) */
} gd_old;

/* The new version's file. */
typedef struct gd_result {
    seg_map map;              /* what the caller writes (seg_map_write) */
    uint32_t *sums;           /* checksum of each logical block */
    uint64_t *idx_first, *idx_block;         /* its block index */
    size_t nidx;
    uint64_t seg_blocks;      /* blocks of the new segment (0: no file) */
} gd_result;

/* Write the new version of graph file `old` with `nodes` nodes (as many
** or more: the new ones have empty lists) in which each node of
** changed[0..nchanged) (ascending, distinct, below old->nodes) has the
** list fn gives it. The rewritten ranges go to the new segment
** `seg_name` in dir (blocks of token seg_token, written under a temporary
** name and renamed: removed again by gd_result_undo); *out gets the map
** (token map_token), index and checksums. Blocks read are verified;
** corruption is GNNDB_CORRUPT naming file and block. */
int gd_rewrite(const gd_old *old, uint64_t nodes, const uint32_t *changed,
               size_t nchanged, gd_list_fn fn, void *arg, const char *dir,
               const char *seg_name, uint64_t seg_token, uint64_t map_token,
               gd_result *out, gnn_err *e);

/* The same for a table of rows_per_block rows of `rowbytes` bytes (the
** edge table: two uint32 a row): rows[0..nrows) appended after the old
** file's old_rows; the last old block, when part full, is written again
** with them. dtype and dim as the table's. */
typedef struct gd_table {
    blk_file *f;
    const seg_map *map;
    const char *name;
    uint64_t token;
    const uint32_t *sums;
    uint64_t rows;
    uint32_t rows_per_block, dtype, dim;
} gd_table;
int gd_append_rows(const gd_table *old, const void *rows, uint64_t nrows,
                   const char *dir, const char *seg_name, uint64_t seg_token,
                   uint64_t map_token, gd_result *out, gnn_err *e);

void gd_result_free(gd_result *r);

/* The degrees of a graph file read back block after block: the smallest,
** median and largest, and the log2 histogram of cat_degree_hist_put
** (hist[64], nbuckets used). Holds nothing that grows with the nodes
** but the few lists of over 65535 neighbours. */
typedef struct gd_degrees {
    int64_t min, median, max, edges;
    int64_t hist[64];
    int nbuckets;
} gd_degrees;
int gd_degree_stats(blk_file *f, uint64_t nodes, gd_degrees *out, gnn_err *e);

#endif
