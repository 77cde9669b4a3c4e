/* import_edges.c — the edge table of CREATE GRAPH with edge ids: row i
** holds the internal (src, dst) of input edge i as written, or
** (UINT32_MAX, UINT32_MAX) when the edge was dropped (a self loop under
** DROP SELF LOOPS, a later copy under DROP DUPLICATES), in feature blocks
** of BLK_DTYPE_U32 and dim 2. The parsed pairs are read once, in order.
** The ids of dropped duplicates (g->dropped, in no particular order) are
** marked in a bitmap of one window of ids at a time, the file read again
** for each window: memory stays within the import's budget whatever the
** number of edges (one window covers 2^31 ids under the default budget). */
#include "import_graph_int.h"
#include "block.h"

#include <stdlib.h>
#include <string.h>

typedef struct et_writer {
    blk_writer *w;
    uint8_t *block;
    uint32_t bs, rpb;     /* block size, rows per block */
    uint32_t count;       /* rows in the block being filled */
    uint64_t no;          /* its number */
    uint64_t token;
    uint32_t *sums;
    uint64_t cap;
    gnn_err *e;
} et_writer;

static int et_flush(et_writer *t)
{
    if (t->count == 0) return GNNDB_OK;
    uint32_t used = blk_data_offset(t->bs) + t->count * 8u;
    blk_seal(t->block, t->bs, BLK_KIND_FEATURE, t->no,
             t->no * (uint64_t)t->rpb, t->token, t->count, used, 0,
             BLK_DTYPE_U32, 2);
    if (t->no == t->cap) {
        uint64_t nc = t->cap ? 2 * t->cap : 64;
        uint32_t *p = realloc(t->sums, nc * sizeof *p);
        if (!p) return gnn_seterr(t->e, GNNDB_NOMEM, "out of memory");
        t->sums = p;
        t->cap = nc;
    }
    t->sums[t->no++] = ((const blk_header *)t->block)->checksum;
    t->count = 0;
    return blkw_append(t->w, t->block, t->e);
}

static int et_row(et_writer *t, uint32_t src, uint32_t dst)
{
    uint32_t *r = (uint32_t *)(t->block + blk_data_offset(t->bs)) +
                  2 * (size_t)t->count;
    r[0] = src;
    r[1] = dst;
    return ++t->count == t->rpb ? et_flush(t) : GNNDB_OK;
}

/* Bits of the ids in [lo, lo + span) that g->dropped lists. */
static int mark_window(graph_ctx *g, uint64_t lo, uint64_t span,
                       uint8_t *bits)
{
    memset(bits, 0, (size_t)((span + 7) / 8));
    if (g->dropped.size == 0) return GNNDB_OK;
    xs_reader rd;
    int rc = xs_reader_init(&rd, g->dropped.fd, 0, g->dropped.size, IO_BUF,
                            g->e);
    if (rc) return rc;
    uint32_t id;
    int k;
    while ((k = xs_read(&rd, &id, sizeof id, g->e)) > 0)
        if (id >= lo && id - lo < span)
            bits[(id - lo) / 8] |= (uint8_t)(1u << ((id - lo) % 8));
    xs_reader_free(&rd);
    return k < 0 ? (g->e && g->e->rc ? g->e->rc : GNNDB_IOERR) : GNNDB_OK;
}

/* Every row, window after window of ids. */
static int write_rows(graph_ctx *g, et_writer *t, uint8_t *bits,
                      uint64_t span)
{
    xs_reader rd;
    int rc = xs_reader_init(&rd, g->pairs.fd, 0, g->pairs.size, IO_BUF, g->e);
    if (rc) return rc;
    for (uint64_t lo = 0; !rc && lo < g->npairs; lo += span) {
        uint64_t hi = GNN_MIN(g->npairs, lo + span);
        if ((rc = mark_window(g, lo, hi - lo, bits))) break;
        for (uint64_t i = lo; !rc && i < hi; i++) {
            int64_t pr[2];
            int k = xs_read(&rd, pr, sizeof pr, g->e);
            if (k <= 0) {
                rc = k < 0 && g->e && g->e->rc ? g->e->rc
                   : gnn_seterr(g->e, GNNDB_INTERNAL, "edge table: pair "
                                "%llu missing", (unsigned long long)i);
                break;
            }
            uint32_t u, v;
            pair_ids(g, pr, &u, &v);
            int gone = (u == v && g->o->drop_self_loops) ||
                       pair_skipped(g, i) ||
                       (bits[(i - lo) / 8] >> ((i - lo) % 8) & 1);
            rc = gone ? et_row(t, UINT32_MAX, UINT32_MAX) : et_row(t, u, v);
            if (!rc && (i + 1) % (CHECK_EVERY * 16) == 0) rc = interrupted(g);
        }
    }
    xs_reader_free(&rd);
    return rc;
}

int edge_table_build(graph_ctx *g, const char *dir, uint32_t **sums,
                     uint64_t *nblocks, uint32_t *rows_per_block)
{
    et_writer t = {.bs = g->bs, .token = g->o->edges_token, .e = g->e};
    t.rpb = blk_feature_rows_per_block(g->bs, 2, BLK_DTYPE_U32);
    /* a window's bitmap: a quarter of the budget, no more than the ids */
    uint64_t span = GNN_MAX((uint64_t)8, (uint64_t)g->budget / 4 * 8);
    span = GNN_MIN(span, GNN_MAX(g->npairs, (uint64_t)8));
    uint8_t *bits = malloc((size_t)(span + 7) / 8);
    t.block = gnn_alloc_aligned(g->bs);
    int rc = !bits || !t.block ? gnn_seterr(g->e, GNNDB_NOMEM,
                                            "out of memory")
                               : GNNDB_OK;
    if (!rc) rc = blkw_create(dir, g->o->edges_name, g->bs, &t.w, g->e);
    if (!rc) rc = write_rows(g, &t, bits, span);
    if (!rc) rc = et_flush(&t);
    if (!rc) {
        blk_writer *w = t.w;
        t.w = NULL;
        rc = blkw_finish(w, g->e);
    }
    blkw_abort(t.w);
    free(bits);
    gnn_free_aligned(t.block);
    if (rc) {
        free(t.sums);
        return rc;
    }
    *sums = t.sums;
    *nblocks = t.no;
    *rows_per_block = t.rpb;
    return GNNDB_OK;
}
