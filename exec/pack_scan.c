/* pack_scan.c — SCAN PACK: the batches of a pack read back in the order
** they were stored. The blocks the selected records span are read in
** chunks of several MiB, a few chunks in flight at once through the I/O
** backend (io_uring with O_DIRECT where it can), each block verified as its
** chunk arrives; each record is copied out of the blocks' payloads into one
** buffer and the batch view points into it. The digest is computed again
** from the bytes read and must equal the one stored with the record. */
#include "pack.h"
#include "pack_record.h"
#include "exec.h"
#include "exec_int.h"
#include "batch.h"
#include "block.h"
#include "blockfile.h"
#include "io.h"
#include "pool.h"
#include "memory.h"
#include "../gpu/xfer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PK_CHUNK_BYTES (4u << 20) /* one read, at most */
#define PK_AHEAD 4                /* reads in flight: up to 16 MiB ahead */

#define SLOT_EMPTY 0
#define SLOT_READING 1
#define SLOT_READY 2

typedef struct pk_slot {
    io_req req;
    uint8_t *buf;
    uint64_t first;           /* first block it holds */
    uint32_t n;               /* blocks */
    int state;
} pk_slot;

struct pk_scan {
    gnndb *db;
    cat_pack pk;
    cat_pack_batch *bs;
    size_t nb, next;
    blk_file *f;
    io_backend *io;
    uint32_t payload, chunk_blocks;
    uint64_t b_hi, next_issue;
    pk_slot slot[PK_AHEAD];
    int head;
    uint8_t *rec;
    size_t caprec;
    gnndb_batch_view view;
    uint64_t bytes_read;
    char *into;
    wpool *pool;              /* digests of large batches */
    xfer *xf;
    gnndb_batch_view devview;
};

static int corrupt_rec(pk_scan *r, const cat_pack_batch *b, const char *why,
                       gnn_err *e)
{
    return gnn_seterr(e, GNNDB_CORRUPT, "corrupt pack %s (%s): epoch %" PRId64
                      " batch %" PRId64 ": %s", r->pk.name, r->f->path,
                      b->epoch, b->batch, why);
}

static int issue(pk_scan *r, pk_slot *s, gnn_err *e)
{
    s->state = SLOT_EMPTY;
    if (r->next_issue >= r->b_hi) return GNNDB_OK;
    s->first = r->next_issue;
    s->n = (uint32_t)GNN_MIN((uint64_t)r->chunk_blocks, r->b_hi - s->first);
    memset(&s->req, 0, sizeof s->req);
    s->req.fd = r->f->fd;
    s->req.offset = s->first * r->pk.block_size;
    s->req.len = s->n * r->pk.block_size;
    s->req.buf = s->buf;
    s->req.user = s;
    int rc = io_submit(r->io, &s->req, e);
    if (!rc) rc = io_flush(r->io, e);
    if (rc) return rc;
    s->state = SLOT_READING;
    r->next_issue += s->n;
    return GNNDB_OK;
}

/* Wait for one read; verify its blocks. */
static int complete_one(pk_scan *r, gnn_err *e)
{
    io_req *done;
    int rc = io_wait(r->io, &done, e);
    if (rc) return rc;
    pk_slot *s = done->user;
    s->state = SLOT_READY;
    if (done->result != (int64_t)done->len) {
        s->state = SLOT_EMPTY;
        if (done->result < 0)
            return gnn_seterr_errno(e, GNNDB_IOERR, (int)-done->result,
                                    "read of blocks %" PRIu64 "..%" PRIu64
                                    " of %s", s->first, s->first + s->n - 1,
                                    r->f->path);
        return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %" PRIu64 " of "
                          "%s: truncated", s->first, r->f->path);
    }
    r->bytes_read += done->len;
    for (uint32_t i = 0; i < s->n; i++)
        if ((rc = blk_verify(s->buf + (size_t)i * r->pk.block_size,
                             r->pk.block_size, BLK_KIND_PACK, s->first + i,
                             r->pk.token, r->f->path, e)))
            return rc;
    return GNNDB_OK;
}

/* Block `no` (verified), reading ahead; blocks are asked for in order. */
static int get_block(pk_scan *r, uint64_t no, const uint8_t **data,
                     gnn_err *e)
{
    for (int guard = 0; guard <= PK_AHEAD + 1; guard++) {
        pk_slot *s = &r->slot[r->head];
        if (s->state == SLOT_EMPTY || no < s->first)
            break;
        if (no >= s->first + s->n) {
            int rc = issue(r, s, e);   /* recycled as the newest read */
            if (rc) return rc;
            r->head = (r->head + 1) % PK_AHEAD;
            continue;
        }
        while (s->state == SLOT_READING) {
            int rc = complete_one(r, e);
            if (rc) return rc;
        }
        *data = s->buf + (size_t)(no - s->first) * r->pk.block_size;
        return GNNDB_OK;
    }
    return gnn_seterr(e, GNNDB_INTERNAL, "pack %s: block %" PRIu64
                      " asked for out of order", r->pk.name, no);
}

/* What memory_limit leaves for data (memory.c) holds the list of the
** records, the largest record and a block per read in flight at least; the
** reads grow into the rest, up to PK_CHUNK_BYTES each. The list is counted
** from the catalog before it is loaded, the largest record once it is. */
static int pk_memory(pk_scan *r, mem_reserve *m, gnn_err *e)
{
    gnndb *db = r->db;
    char what[CAT_NAME_MAX + 16];
    snprintf(what, sizeof what, "SCAN PACK %s", r->pk.name);
    int threads = db->pragma.threads + (db->pragma.io == IO_PREAD ? 4 : 0);
    int64_t list = (r->pk.batches + 1) * (int64_t)sizeof(cat_pack_batch);
    return db_memory_reserve(db, threads,
                             list + PK_AHEAD * (int64_t)r->pk.block_size,
                             what, m, e);
}

/* The reads' size once the records are listed: what the largest record
** and the list leave, shared by the reads in flight. */
static int pk_chunks(pk_scan *r, const mem_reserve *m, gnn_err *e)
{
    int64_t rec = 0;
    for (size_t i = 0; i < r->nb; i++) rec = GNN_MAX(rec, r->bs[i].length);
    int64_t bs = r->pk.block_size;
    int64_t list = (r->pk.batches + 1) * (int64_t)sizeof(cat_pack_batch);
    int64_t left = m->data - list - (rec + 8);
    if (left < PK_AHEAD * bs) {
        char b1[32], b2[32], b3[32], b4[32];
        return gnn_seterr(e, GNNDB_NOMEM, "SCAN PACK %s: memory_limit %s is "
                          "too small: its largest batch (%s) and reads ahead "
                          "need %s, and it leaves %s for data; raise PRAGMA "
                          "memory_limit", r->pk.name,
                          db_fmt_size(m->limit, b1, sizeof b1),
                          db_fmt_size(rec, b2, sizeof b2),
                          db_fmt_size(list + rec + 8 + PK_AHEAD * bs, b3,
                                      sizeof b3),
                          db_fmt_size(m->data, b4, sizeof b4));
    }
    r->chunk_blocks = (uint32_t)GNN_MAX(1, GNN_MIN(left / PK_AHEAD / bs,
                                                   PK_CHUNK_BYTES / bs));
    if (!(r->rec = malloc((size_t)rec + 8)))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    r->caprec = (size_t)rec;
    return GNNDB_OK;
}

int pk_scan_open(gnndb *db, const ast_stmt *s, pk_scan **out, gnn_err *e)
{
    *out = NULL;
    pk_scan *r = calloc(1, sizeof *r);
    if (!r) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    r->db = db;
    char path[1024];
    plan dev;
    int rc = cat_pack_get(db->cat, s->name, &r->pk, e);
    if (rc) goto fail;
    if (s->epoch >= r->pk.epochs) {
        rc = gnn_seterr(e, GNNDB_RANGE, "SCAN PACK %s: EPOCH %" PRId64 " is "
                        "beyond the pack's epochs (it holds %" PRId64
                        ", numbered from 0)", r->pk.name, s->epoch,
                        r->pk.epochs);
        goto fail;
    }
    memset(&dev, 0, sizeof dev);
    mem_reserve m;
    if ((rc = plan_parse_device(s->device, &dev, e)) ||
        (rc = pk_memory(r, &m, e)) ||
        (rc = cat_pack_batches(db->cat, r->pk.id, s->epoch, &r->bs, &r->nb,
                               e)) ||
        (rc = pk_chunks(r, &m, e)))
        goto fail;
    if (s->into) {
        if (!(r->into = strdup(s->into))) {
            rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
            goto fail;
        }
        if ((rc = hb_prepare_into(s->into, e))) goto fail;
    }
    snprintf(path, sizeof path, "%s/%s", db->dir, r->pk.file);
    if ((rc = blkf_open(path, r->pk.block_size, BLK_KIND_PACK, r->pk.token,
                        (uint64_t)r->pk.nblocks, &r->f, e)))
        goto fail;
    r->payload = r->pk.block_size - blk_data_offset(r->pk.block_size);
    if (r->nb) {
        /* the selected records are consecutive in the stream */
        const cat_pack_batch *a = &r->bs[0], *z = &r->bs[r->nb - 1];
        uint64_t end = (uint64_t)(z->offset + z->length);
        r->next_issue = (uint64_t)a->offset / r->payload;
        r->b_hi = end ? (end - 1) / r->payload + 1 : 0;
        if (r->b_hi > (uint64_t)r->pk.nblocks || a->offset < 0 ||
            z->length < 0) {
            rc = gnn_seterr(e, GNNDB_CORRUPT, "corrupt catalog: pack %s lists "
                            "records past the end of %s", r->pk.name, path);
            goto fail;
        }
    }
    if ((rc = io_open(db->pragma.io, PK_AHEAD, &r->io, e))) goto fail;
    for (int i = 0; i < PK_AHEAD; i++)
        if (!(r->slot[i].buf = gnn_alloc_aligned((size_t)r->chunk_blocks *
                                                 r->pk.block_size))) {
            rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
            goto fail;
        }
    for (int i = 0; i < PK_AHEAD; i++)
        if ((rc = issue(r, &r->slot[i], e))) goto fail;
    if (!(r->pool = wpool_new(db->pragma.threads))) {
        rc = gnn_seterr(e, GNNDB_NOMEM, "cannot start %d worker threads",
                        db->pragma.threads);
        goto fail;
    }
    if (dev.device == GNNDB_DEVICE_CUDA &&
        (rc = xfer_open(dev.device_index, &r->xf, e)))
        goto fail;
    *out = r;
    return GNNDB_OK;
fail:
    pk_scan_close(r);
    return rc;
}

/* Point the view into the record (pack_record.c checks that its sizes add
** up); then the digest of its bytes must be the one stored. */
static int parse_record(pk_scan *r, const cat_pack_batch *b, gnn_err *e)
{
    gnndb_batch_view *v = &r->view;
    const char *why = pk_record_parse(r->rec, (uint64_t)b->length, v);
    if (why) return corrupt_rec(r, b, why, e);
    if (v->epoch != b->epoch || v->batch != b->batch)
        return corrupt_rec(r, b, "the record holds another batch", e);
    uint64_t stored = v->digest;
    v->digest = batch_digest_pool(v, r->pool);
    if (v->digest != stored)
        return corrupt_rec(r, b, "digest mismatch", e);
    return GNNDB_OK;
}

int pk_scan_next(pk_scan *r, const gnndb_batch_view **view, gnn_err *e)
{
    *view = NULL;
    if (r->next >= r->nb) return GNNDB_DONE;
    const cat_pack_batch *b = &r->bs[r->next];
    size_t len = (size_t)b->length;
    if (len > r->caprec) {
        /* 8-byte aligned for the int64 arrays the view points to */
        uint8_t *q = realloc(r->rec, len + 8);
        if (!q) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        r->rec = q;
        r->caprec = len;
    }
    uint64_t pos = (uint64_t)b->offset, end = pos + len;
    while (pos < end) {
        uint64_t no = pos / r->payload;
        uint32_t in = (uint32_t)(pos % r->payload);
        size_t take = (size_t)GNN_MIN((uint64_t)(r->payload - in), end - pos);
        const uint8_t *blk = NULL;
        int rc = get_block(r, no, &blk, e);
        if (rc) return rc;
        const blk_header *h = (const blk_header *)blk;
        uint32_t at = blk_data_offset(h->block_size);
        if (at + in + take > h->used)
            return corrupt_rec(r, b, "the record runs past the bytes its "
                               "block holds", e);
        memcpy(r->rec + (pos - (uint64_t)b->offset), blk + at + in,
               take);
        pos += take;
    }
    int rc = parse_record(r, b, e);
    if (rc) return rc;
    r->next++;
    if (r->into) {
        char dir[1200];
        snprintf(dir, sizeof dir, "%s/epoch-%" PRId64 "/batch-%06" PRId64,
                 r->into, r->view.epoch, r->view.batch);
        if ((rc = batch_write_npy(&r->view, dir, e))) return rc;
    }
    if (r->xf) {
        if ((rc = xfer_batch(r->xf, &r->view, &r->devview, e))) return rc;
        r->devview.digest = r->view.digest;
        *view = &r->devview;
        return GNNDB_BATCH;
    }
    *view = &r->view;
    return GNNDB_BATCH;
}

const gnndb_batch_view *pk_scan_host_view(const pk_scan *r)
{
    return r->view.n_id ? &r->view : NULL;
}

int64_t pk_scan_total(const pk_scan *r) { return (int64_t)r->nb; }
uint64_t pk_scan_bytes_read(const pk_scan *r) { return r->bytes_read; }
int64_t pk_scan_blocks_read(const pk_scan *r)
{
    return (int64_t)(r->bytes_read / r->pk.block_size);
}

void pk_scan_close(pk_scan *r)
{
    if (!r) return;
    if (r->io) {
        /* reads in flight write into the buffers: let them land first */
        gnn_err e = {0};
        while (io_inflight(r->io) > 0) {
            io_req *d;
            if (io_wait(r->io, &d, &e)) break;
        }
        io_close(r->io);
    }
    if (r->xf) xfer_close(r->xf);
    wpool_free(r->pool);
    for (int i = 0; i < PK_AHEAD; i++) gnn_free_aligned(r->slot[i].buf);
    blkf_close(r->f);
    free(r->bs);
    free(r->rec);
    free(r->into);
    free(r);
}
