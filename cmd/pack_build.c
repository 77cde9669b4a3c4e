/* pack_build.c — SAMPLE ... INTO PACK and DROP PACK: running a SAMPLE and
** storing each mini-batch it hands out as one record of a pack file (the
** layout is in pack.h), then publishing the file as every other object is
** published: written under a temporary name, fsynced, renamed, and listed
** with its batches and block checksums in one catalog transaction. A crash
** before the commit leaves an unlisted file that the next writable open
** removes. */
#include "pack.h"
#include "pack_record.h"
#include "exec.h"
#include "block.h"
#include "blockfile.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Pack blocks are the default size: records are cut across blocks, so the
** size only sets the checksum granularity and the waste of the last block. */
#define PK_BLOCK_SIZE BLK_DEFAULT_SIZE

typedef struct pk_writer {
    blk_writer *w;
    uint64_t token;
    uint32_t bs, payload;
    uint8_t *blk;             /* the block being filled (aligned) */
    uint32_t fill;            /* stream bytes in it */
    uint32_t starts;          /* records starting in it */
    uint64_t block_no;
    uint64_t bytes;           /* stream bytes so far */
    uint32_t *sums;           /* checksum of each block written */
    size_t capsums;
} pk_writer;

static int pkw_seal(pk_writer *k, gnn_err *e)
{
    if (k->block_no >= k->capsums) {
        size_t cap = k->capsums ? k->capsums * 2 : 256;
        uint32_t *s = realloc(k->sums, cap * sizeof *s);
        if (!s) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        k->sums = s;
        k->capsums = cap;
    }
    blk_seal(k->blk, k->bs, BLK_KIND_PACK, k->block_no,
             k->block_no * (uint64_t)k->payload, k->token, k->starts,
             blk_data_offset(k->bs) + k->fill, 0, 0, 0);
    k->sums[k->block_no] = ((const blk_header *)k->blk)->checksum;
    int rc = blkw_append(k->w, k->blk, e);
    k->block_no++;
    k->fill = 0;
    k->starts = 0;
    return rc;
}

/* Append bytes to the stream, sealing each block as it fills. */
static int pkw_put(pk_writer *k, const void *data, size_t len, gnn_err *e)
{
    const uint8_t *p = data;
    while (len > 0) {
        size_t take = GNN_MIN(len, (size_t)(k->payload - k->fill));
        uint8_t *dst = k->blk + blk_data_offset(k->bs) + k->fill;
        if (p) memcpy(dst, p, take);
        else memset(dst, 0, take);
        k->fill += (uint32_t)take;
        k->bytes += take;
        if (p) p += take;
        len -= take;
        if (k->fill == k->payload) {
            int rc = pkw_seal(k, e);
            if (rc) return rc;
        }
    }
    return GNNDB_OK;
}

/* pkw_put as pack_record.c's writer calls it. */
static int pkw_put_fn(void *ctx, const void *data, size_t len, gnn_err *e)
{
    return pkw_put(ctx, data, len, e);
}

/* One batch as one record (pack_record.h); *len gets its length. */
static int pkw_record(pk_writer *k, const gnndb_batch_view *v, uint64_t *len,
                      gnn_err *e)
{
    uint64_t start = k->bytes;
    k->starts++;
    int rc = pk_record_write(v, pkw_put_fn, k, e);
    *len = k->bytes - start;
    return rc;
}

static void unlink_in(gnndb *db, const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", db->dir, file);
    unlink(path);
}

static int64_t file_size(gnndb *db, const char *file)
{
    char path[1024];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", db->dir, file);
    return stat(path, &sb) == 0 ? (int64_t)sb.st_size : 0;
}

/* Sample every batch into the writer; the index of records into *bs. */
static int pack_fill(gnndb *db, plan *p, pk_writer *k, cat_pack_batch **bs,
                     size_t *nb, gnn_err *e)
{
    /* the index of records sized once, as the plan counted it */
    size_t cap = (size_t)GNN_MAX(p->total_batches, 1);
    if (!(*bs = malloc(cap * sizeof **bs)))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    hb_exec *x;
    int rc = hb_open(db, p, &x, e);
    if (rc) return rc;
    const gnndb_batch_view *v;
    int64_t done = 0;
    while ((rc = hb_next(x, &v, e)) == GNNDB_BATCH) {
        if (*nb == cap) {
            cap *= 2;
            cat_pack_batch *a = realloc(*bs, cap * sizeof *a);
            if (!a) { rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory"); break; }
            *bs = a;
        }
        cat_pack_batch *b = &(*bs)[*nb];
        b->epoch = v->epoch;
        b->batch = v->batch;
        b->offset = (int64_t)k->bytes;
        uint64_t len;
        hb_digest(x);  /* each record keeps its batch's digest */
        if ((rc = pkw_record(k, v, &len, e))) break;
        b->length = (int64_t)len;
        (*nb)++;
        done++;
        if (db_progress(db, done, 1, p->total_batches)) {
            rc = gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
            break;
        }
    }
    hb_close(x);
    return rc == GNNDB_DONE ? GNNDB_OK : rc;
}

/* A new pack may be built: its name fits, no pack has it (*scratch holds
** the lookup), and the graph is still the one the statement was prepared
** against (*g). */
static int pack_check_new(gnndb *db, const char *name, const plan *p,
                          cat_pack *scratch, cat_graph *g, gnn_err *e)
{
    gnn_err e2 = {0};
    if (strlen(name) >= CAT_NAME_MAX)
        return gnn_seterr(e, GNNDB_RANGE, "pack name too long: %s", name);
    if (cat_pack_get(db->cat, name, scratch, &e2) == GNNDB_OK)
        return gnn_seterr(e, GNNDB_EXISTS, "pack '%s' already exists; DROP "
                          "PACK %s first", name, name);
    else if (e2.rc != GNNDB_NOTFOUND)
        return gnn_seterr(e, e2.rc, "%s", e2.msg);
    /* the graph may have gone since the statement was prepared */
    int rc = cat_graph_get(db->cat, p->graph.name, g, e);
    if (rc) return rc;
    /* a later version may have come (INSERT EDGES): the statement still
    ** reads the one it was prepared on, unless that one was dropped */
    if (g->id != p->graph.id || p->graph.version < g->oldest_version)
        return gnn_seterr(e, GNNDB_NOTFOUND, "graph %s changed since the "
                          "statement was prepared", p->graph.name);
    return GNNDB_OK;
}

/* Run the SAMPLE into a new pack file `file` (named from a new token) and
** finish it, its blocks' checksums in k; the file is removed on failure. */
static int pack_write(gnndb *db, plan *p, pk_writer *k, char *file,
                      size_t filecap, cat_pack_batch **bs, size_t *nb,
                      gnn_err *e)
{
    k->token = db_new_token();
    k->bs = PK_BLOCK_SIZE;
    k->payload = k->bs - blk_data_offset(k->bs);
    snprintf(file, filecap, "p-%016" PRIx64 ".blk", k->token);
    if (!(k->blk = gnn_alloc_aligned(k->bs)))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    int rc = blkw_create(db->dir, file, k->bs, &k->w, e);
    if (rc) return rc;
    rc = pack_fill(db, p, k, bs, nb, e);
    if (!rc && k->fill) rc = pkw_seal(k, e);
    if (rc) {
        blkw_abort(k->w);
        return rc;
    }
    return blkw_finish(k->w, e);
}

/* The catalog's record of the pack just written. */
static void pack_describe(cat_pack *pk, const char *name, const plan *p,
                          const cat_graph *g, const pk_writer *k,
                          const char *file, const char *sql, size_t nb)
{
    pk->graph_id = g->id;
    snprintf(pk->name, sizeof pk->name, "%s", name);
    pk->token = k->token;
    snprintf(pk->file, sizeof pk->file, "%s", file);
    snprintf(pk->sql, sizeof pk->sql, "%s", sql);
    pk->seed = p->seed;
    pk->epochs = p->epochs;
    pk->batches_per_epoch = p->batches_per_epoch;
    pk->batches = (int64_t)nb;
    pk->block_size = k->bs;
    pk->nblocks = (int64_t)k->block_no;
    pk->bytes = (int64_t)k->bytes;
    pk->nhops = p->nhops;
    pk->x_dim = p->has_feat ? p->feat.dim : 0;
    pk->has_y = p->has_labels;
}

/* List the pack, its batches and its block checksums in one catalog
** transaction; the file is removed when that fails. */
static int pack_publish(gnndb *db, cat_pack *pk, const pk_writer *k,
                        const cat_pack_batch *bs, size_t nb, gnn_err *e)
{
    int rc;
    if ((rc = cat_begin(db->cat, e)) == GNNDB_OK) {
        if ((rc = cat_pack_insert(db->cat, pk, bs, nb, e)) ||
            (rc = cat_checksums_put(db->cat, pk->file, k->sums, k->block_no,
                                    e)) ||
            (rc = cat_commit(db->cat, e)))
            cat_rollback(db->cat);
    }
    if (rc) unlink_in(db, pk->file);
    return rc;
}

/* The statement's one row: pack, epochs, batches, bytes. */
static int pack_report(gnndb *db, const cat_pack *pk, rowset **out,
                       gnn_err *e)
{
    static const char *const cols[] = {"pack", "epochs", "batches", "bytes",
                                       NULL};
    rowset *rs = rs_new(4, cols);
    if (!rs || rs_row(rs) || rs_text(rs, pk->name) ||
        rs_int(rs, pk->epochs) || rs_int(rs, pk->batches) ||
        rs_int(rs, file_size(db, pk->file))) {
        rs_free(rs);
        /* the pack is published; only the report is lost */
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    }
    *out = rs;
    return GNNDB_OK;
}

int pack_build(gnndb *db, const ast_stmt *s, plan *p, const char *sql,
               rowset **out, gnn_err *e)
{
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    pk_writer k;
    memset(&k, 0, sizeof k);
    cat_pack_batch *bs = NULL;
    size_t nb = 0;
    char file[64] = "";
    cat_graph g;
    cat_pack *pk = calloc(1, sizeof *pk);
    if (!pk) rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    if (!rc) rc = pack_check_new(db, s->pack, p, pk, &g, e);
    if (!rc) rc = pack_write(db, p, &k, file, sizeof file, &bs, &nb, e);
    if (!rc) {
        pack_describe(pk, s->pack, p, &g, &k, file, sql, nb);
        rc = pack_publish(db, pk, &k, bs, nb, e);
    }
    if (!rc) rc = pack_report(db, pk, out, e);
    gnn_free_aligned(k.blk);
    free(k.sums);
    free(bs);
    free(pk);
    db_write_unlock(db);
    return rc;
}

int pack_drop(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    cat_pack *pk = calloc(1, sizeof *pk);
    if (!pk) rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    if (!rc) rc = cat_pack_get(db->cat, s->name, pk, e);
    if (!rc && !(rc = cat_begin(db->cat, e))) {
        if ((rc = cat_pack_delete(db->cat, pk->id, e)) ||
            (rc = cat_commit(db->cat, e)))
            cat_rollback(db->cat);
        /* committed: removing the file only frees space; a crash before
        ** leaves an orphan that the next writable open removes */
        else unlink_in(db, pk->file);
    }
    free(pk);
    db_write_unlock(db);
    return rc;
}
