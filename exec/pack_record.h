/* pack_record.h — one mini-batch as a record of a pack file (pack.h says
** how records lie in the file): the bytes SAMPLE ... INTO PACK writes
** (cmd/pack_build.c) and the checks SCAN PACK makes before a view points
** into them (exec/pack_scan.c), in one place so that they cannot disagree.
**
**   u32 magic PK_REC_MAGIC, u32 version (1 or 2),
**   i64 epoch, batch, num_seeds, num_nodes, num_edges,
**   i32 num_hops, i32 flags, i64 x_dim, u64 digest, u64 reserved (80 bytes)
**   version 2 only: i64 num_label_edges, num_pos, num_neg, edge_attr_dim
**                                                             (32 bytes)
**   i64 num_sampled_nodes[num_hops + 1], i64 num_sampled_edges[num_hops],
**   then each array the batch holds, in the order of the batch-field list
**   (common/batch_fields.h: n_id, edge_index, x, y, e_id, edge_attr, the
**   link arrays, the time arrays), each zero-padded to 8 bytes.
**
** Version 1 holds only n_id, edge_index, x and y; its flags say whether x
** (1) and y (2) are present. Version 2's flags are a mask of the list's
** arrays present (bit i: field i; n_id and edge_index always). A batch of
** version 1's arrays is written as version 1, byte for byte as packs were
** before version 2, so that such packs and their sizes are unchanged. */
#ifndef GNN_PACK_RECORD_H
#define GNN_PACK_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"
#include "gnndb.h"

#define PK_REC_MAGIC   0x43524b50u   /* "PKRC" */
#define PK_REC_HEADER  80            /* version 1's header */
#define PK_REC_EXT     32            /* version 2's counts after it */
#define PK_FLAG_X      1             /* version 1 */
#define PK_FLAG_Y      2

/* Called with each run of the record's bytes in order; data NULL: len
** zero bytes (padding). Nonzero stops the write and is returned. */
typedef int (*pk_put_fn)(void *ctx, const void *data, size_t len, gnn_err *e);

/* Write v (a host batch of a node or link SAMPLE, time-respecting or
** not; not a typed batch, whose per-type arrays a record does not hold)
** as one record through put. */
int pk_record_write(const gnndb_batch_view *v, pk_put_fn put, void *ctx,
                    gnn_err *e);

/* Point v (cleared first) into the record of len bytes at p, which must
** stay valid and 8-byte aligned as long as v is used: NULL when its sizes
** add up to len, else the words of what is wrong with it (a static
** string; v is then cleared). The digest is left as stored: the caller
** compares it with one computed from the bytes. */
const char *pk_record_parse(const uint8_t *p, uint64_t len,
                            gnndb_batch_view *v);

#endif
