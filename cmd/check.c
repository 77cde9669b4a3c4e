/* check.c — CHECK [graph]: read every block of every file the catalog lists
** (topology, tables, packs), verify its checksum against the block and the
** catalog, and the graph's object index against its blocks; one row per
** problem, or one 'ok' row. */
#include "stmt.h"
#include "block.h"
#include "blockfile.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ck {
    gnndb *db;
    rowset *rs;
    int64_t problems;
    int64_t blocks;
} ck;

static int problem(ck *c, const char *what, const char *detail)
{
    c->problems++;
    if (rs_row(c->rs) || rs_text(c->rs, what) || rs_text(c->rs, detail))
        return GNNDB_NOMEM;
    return GNNDB_OK;
}

static int check_file(ck *c, const char *file, uint32_t bs, uint16_t kind,
                      uint64_t token, int64_t nblocks, gnn_err *e)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", c->db->dir, file);
    uint32_t *sums = NULL;
    uint64_t nsums = 0;
    gnn_err pe = {0};
    int rc = cat_checksums_get(c->db->cat, file, &sums, &nsums, e);
    if (rc) return rc;
    if ((int64_t)nsums != nblocks) {
        char d[256];
        snprintf(d, sizeof d, "catalog lists %" PRIu64 " checksums for %"
                 PRId64 " blocks", nsums, nblocks);
        if ((rc = problem(c, file, d))) goto out;
    }
    blk_file *f;
    if (blkf_open(path, bs, kind, token, (uint64_t)nblocks, &f, &pe)) {
        rc = problem(c, file, pe.msg);
        goto out;
    }
    void *buf = gnn_alloc_aligned(bs);
    if (!buf) { blkf_close(f); rc = GNNDB_NOMEM; goto out; }
    for (int64_t b = 0; b < nblocks && !rc; b++) {
        if (c->db->interrupt) {
            rc = gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
            break;
        }
        c->blocks++;
        gnn_clearerr(&pe);
        if (blkf_read(f, (uint64_t)b, buf, &pe)) {
            rc = problem(c, file, pe.msg);
            continue;
        }
        const blk_header *h = buf;
        if ((uint64_t)b < nsums && h->checksum != sums[b]) {
            char d[256];
            snprintf(d, sizeof d, "block %" PRId64 ": checksum %08x differs "
                     "from the catalog's %08x", b, h->checksum, sums[b]);
            rc = problem(c, file, d);
        }
    }
    gnn_free_aligned(buf);
    blkf_close(f);
out:
    free(sums);
    return rc;
}

static int check_graph(ck *c, const cat_graph *g, gnn_err *e)
{
    int rc = check_file(c, g->file, g->block_size, BLK_KIND_GRAPH, g->token,
                        g->graph_blocks, e);
    if (rc) return rc;
    idx_txn *t = NULL;
    uint64_t *first = NULL, *blk = NULL;
    size_t n = 0;
    gnn_err pe = {0};
    if (idx_begin(c->db->idx, 0, &t, &pe))
        return problem(c, "index.mdb", pe.msg);
    int lrc = idx_load_blocks(t, g->token, &first, &blk, &n, &pe);
    idx_abort(t);
    if (lrc) return problem(c, "index.mdb", pe.msg);
    if (n == 0 && g->nodes > 0)
        rc = problem(c, "index.mdb", "no block index for the graph");
    for (size_t i = 0; i < n && !rc; i++) {
        if ((int64_t)blk[i] >= g->graph_blocks ||
            (i && (first[i] <= first[i - 1] || blk[i] <= blk[i - 1]))) {
            char d[256];
            snprintf(d, sizeof d, "graph %s: index entry %zu (node %" PRIu64
                     " -> block %" PRIu64 ") is out of order or range",
                     g->name, i, first[i], blk[i]);
            rc = problem(c, "index.mdb", d);
        }
    }
    free(first);
    free(blk);
    cat_table *ts = NULL;
    size_t nt = 0;
    if (!rc) rc = cat_table_list(c->db->cat, g->id, &ts, &nt, e);
    for (size_t i = 0; i < nt && !rc; i++)
        rc = check_file(c, ts[i].file, ts[i].block_size, BLK_KIND_FEATURE,
                        ts[i].token, ts[i].nblocks, e);
    free(ts);
    cat_pack *ps = NULL;
    size_t np = 0;
    if (!rc) rc = cat_pack_list(c->db->cat, g->id, &ps, &np, e);
    for (size_t i = 0; i < np && !rc; i++)
        rc = check_file(c, ps[i].file, ps[i].block_size, BLK_KIND_PACK,
                        ps[i].token, ps[i].nblocks, e);
    free(ps);
    return rc;
}

int check_run(gnndb *db, const ast_stmt *s, rowset **out, gnn_err *e)
{
    static const char *const cols[] = {"object", "problem", NULL};
    ck c = {db, rs_new(2, cols), 0, 0};
    if (!c.rs) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    cat_graph *gs = NULL;
    size_t n = 0;
    int rc;
    if (s->graph) {
        gs = calloc(1, sizeof *gs);
        if (!gs) rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        else rc = cat_graph_get(db->cat, s->graph, gs, e);
        n = 1;
    } else {
        rc = cat_graph_list(db->cat, &gs, &n, e);
    }
    for (size_t i = 0; i < n && !rc; i++) rc = check_graph(&c, &gs[i], e);
    free(gs);
    if (!rc && c.problems == 0) {
        char d[128];
        snprintf(d, sizeof d, "%" PRId64 " blocks verified", c.blocks);
        rc = problem(&c, "ok", d);
        c.problems = 0;
    }
    if (rc) {
        rs_free(c.rs);
        return rc == GNNDB_NOMEM && !e->rc
                   ? gnn_seterr(e, GNNDB_NOMEM, "out of memory") : rc;
    }
    *out = c.rs;
    return GNNDB_OK;
}
