/* pack.h — packs: the mini-batches of a SAMPLE materialised in the database
** (SAMPLE ... INTO PACK, as DiskGNN's offline sampling), streamed back by
** SCAN PACK and removed by DROP PACK.
**
** A pack file p-<token>.blk is a byte stream cut into blocks of kind
** BLK_KIND_PACK: each block carries block_size - blk_data_offset(block_size)
** bytes of the stream after its header and page checksums (used = that
** offset + the bytes it carries; count = records that start in it;
** first_node = the stream offset of its first byte). The
** stream is the records of the mini-batches in the order the SAMPLE handed
** them out, back to back, each record one batch stored contiguously
** (pack_record.h gives a record's layout).
**
** The catalog lists where each record starts and how long it is. */
#ifndef GNN_PACK_H
#define GNN_PACK_H

#include "db.h"
#include "plan.h"
#include "rowset.h"
#include "../parser/ast.h"

/* SAMPLE ... INTO PACK and DROP PACK are commands (cmd/cmd.h). */

/* SCAN PACK name [EPOCH e] [INTO 'dir'] [TO DEVICE d]: the stored batches,
** read back in order with large sequential reads. */
typedef struct pk_scan pk_scan;
int pk_scan_open(gnndb *db, const ast_stmt *s, pk_scan **out, gnn_err *e);
/* GNNDB_BATCH with *view (valid until the next call), GNNDB_DONE, or an
** error (GNNDB_CORRUPT naming the file and block, or the batch). */
int pk_scan_next(pk_scan *r, const gnndb_batch_view **view, gnn_err *e);
/* The batch pk_scan_next handed out last, in host memory (owned by r,
** valid until the next call; NULL before the first): under TO DEVICE the
** record the device batch was copied from. */
const gnndb_batch_view *pk_scan_host_view(const pk_scan *r);
int64_t pk_scan_total(const pk_scan *r);
uint64_t pk_scan_bytes_read(const pk_scan *r);
int64_t pk_scan_blocks_read(const pk_scan *r);
void pk_scan_close(pk_scan *r);

#endif
