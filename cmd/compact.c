/* compact.c — COMPACT g, and the compaction an append starts on its own:
** the current version's segmented files (insert_delta.c) copied block
** after block, in logical order, into plain block files that replace
** them in the version's rows in one transaction. The blocks hold the same
** lists as before and only their places change, so the batches stay the
** same and the version keeps its number (and its index, kept under the
** same token: each block keeps its logical number). The segments no kept
** version uses any more then go, as DROP's files go; a statement already
** reading the version keeps the files it has open. */
#include "ddl.h"
#include "segmap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One file of the version to compact. */
typedef struct cp_file {
    const char *file;        /* its map */
    uint16_t kind;
    uint64_t token;
    int64_t nblocks;
    char out[64];            /* the plain file written */
    uint32_t *sums;
    int written;
} cp_file;

/* Copy f's blocks in logical order into cf->out, each sealed again with
** its logical number and the file's token. */
static int copy_blocks(gnndb *db, blk_file *f, cp_file *cf, gnn_err *e)
{
    uint32_t bs = f->block_size;
    blk_writer *w = NULL;
    uint8_t *buf = gnn_alloc_aligned(bs);
    cf->sums = malloc(((size_t)f->nblocks + 1) * sizeof *cf->sums);
    int rc = buf && cf->sums ? blkw_create(db->dir, cf->out, bs, &w, e)
                             : gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    for (uint64_t b = 0; !rc && b < f->nblocks; b++) {
        if ((rc = blkf_read(f, b, buf, e))) break;
        blk_header h = *(const blk_header *)buf;
        blk_seal(buf, bs, h.kind, b, h.first_node, cf->token, h.count,
                 h.used, h.flags, h.dtype, h.dim);
        cf->sums[b] = ((const blk_header *)buf)->checksum;
        rc = blkw_append(w, buf, e);
        if (!rc && b % 64 == 63 && db->interrupt)
            rc = gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
    }
    if (w) {
        if (rc) blkw_abort(w);
        else if (!(rc = blkw_finish(w, e))) cf->written = 1;
    }
    gnn_free_aligned(buf);
    return rc;
}

static int compact_file(gnndb *db, uint32_t bs, cp_file *cf, gnn_err *e)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", db->dir, cf->file);
    snprintf(cf->out, sizeof cf->out, "%c-%016" PRIx64 ".blk", cf->file[0],
             cf->token);
    blk_file *f;
    int rc = blkf_open(path, bs, cf->kind, cf->token, (uint64_t)cf->nblocks,
                       &f, e);
    if (rc) return rc;
    rc = copy_blocks(db, f, cf, e);
    blkf_close(f);
    return rc;
}

/* The segmented files of g's current version: its graph, edge-id graph,
** edge table and time graph. */
static size_t files_of(gnndb *db, const cat_graph *g, cat_table *et,
                       cat_graph *tg, cp_file *out)
{
    size_t n = 0;
    gnn_err e2 = {0};
    if (seg_map_is_name(g->file))
        out[n++] = (cp_file){.file = g->file, .kind = BLK_KIND_GRAPH,
                             .token = g->token, .nblocks = g->graph_blocks};
    if (g->has_eids && seg_map_is_name(g->eid_file))
        out[n++] = (cp_file){.file = g->eid_file, .kind = BLK_KIND_GRAPH,
                             .token = g->eid_token,
                             .nblocks = g->eid_blocks};
    if (cat_table_get(db->cat, g->topo_id, CAT_EDGES_TABLE, et, &e2) ==
            GNNDB_OK && seg_map_is_name(et->file))
        out[n++] = (cp_file){.file = et->file, .kind = BLK_KIND_FEATURE,
                             .token = et->token, .nblocks = et->nblocks};
    if (cat_time_graph_get(db->cat, g, tg, &e2) == GNNDB_OK &&
        seg_map_is_name(tg->eid_file))
        out[n++] = (cp_file){.file = tg->eid_file, .kind = BLK_KIND_GRAPH,
                             .token = tg->eid_token,
                             .nblocks = tg->eid_blocks};
    return n;
}

static int publish(gnndb *db, cp_file *cf, size_t n, gnn_err *e)
{
    int rc = cat_begin(db->cat, e);
    for (size_t i = 0; !rc && i < n; i++)
        rc = cat_file_replace(db->cat, cf[i].file, cf[i].out, cf[i].sums,
                              (uint64_t)cf[i].nblocks, e);
    if (!rc) rc = cat_commit(db->cat, e);
    if (rc) cat_rollback(db->cat);
    return rc;
}

/* Compact g's current version (nothing to do when it has no segmented
** file). Holds the write lock. */
static int compact(gnndb *db, const cat_graph *g, gnn_err *e)
{
    cp_file cf[4];
    cat_table et;
    cat_graph tg;
    size_t n = files_of(db, g, &et, &tg, cf);
    int rc = GNNDB_OK;
    for (size_t i = 0; !rc && i < n; i++)
        rc = compact_file(db, g->block_size, &cf[i], e);
    if (!rc && n) rc = publish(db, cf, n, e);
    ddl_doomed d;
    memset(&d, 0, sizeof d);
    for (size_t i = 0; i < n; i++) {
        /* failed: the new files go; done: the maps, and what only they
        ** kept (ddl_doomed_remove keeps what a kept version still uses) */
        if (rc && cf[i].written) ddl_unlink(db, cf[i].out);
        else if (!rc) ddl_doom_file(&d, cf[i].file, NULL);
        free(cf[i].sums);
    }
    ddl_doomed_remove(db, &d);
    ddl_doomed_free(&d);
    return rc;
}

/* The share of g's current version's graph blocks (edge-id graph, the
** larger) that lie in delta segments ("d-" files, insert_delta.c). */
static double delta_share(gnndb *db, const cat_graph *g)
{
    const char *file = g->has_eids ? g->eid_file : g->file;
    if (!seg_map_is_name(file)) return 0;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", db->dir, file);
    seg_map m;
    gnn_err e2 = {0};
    if (seg_map_read(path, &m, &e2)) return 0;
    double share = m.nblocks ? (double)seg_map_delta_blocks(&m) /
                               (double)m.nblocks : 0;
    if (m.nsegs >= SEG_MAX_SEGS - 1) share = 1;
    seg_map_free(&m);
    return share;
}

int ddl_compact_due(gnndb *db, const char *name, gnn_err *e)
{
    cat_graph g;
    int rc = cat_graph_get(db->cat, name, &g, e);
    if (rc || delta_share(db, &g) <= db->pragma.compact_fraction) return rc;
    return compact(db, &g, e);
}

int ddl_compact(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    cat_graph g;
    if (!(rc = cat_graph_get(db->cat, s->graph, &g, e)) &&
        g.kind != CAT_GRAPH_PLAIN)
        rc = gnn_seterr(e, GNNDB_MISUSE, "COMPACT %s: only a graph made from "
                        "an edge file has deltas to compact", g.name);
    if (!rc) rc = compact(db, &g, e);
    db_write_unlock(db);
    return ddl_disk_full_words(db, rc, e);
}
