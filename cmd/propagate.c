/* propagate.c — PROPAGATE feat OVER g HOPS k [NORMALIZE sym|row] INTO out:
** the feature table [X, ÂX, Â²X, ..., Â^k X] of SGC / PP-GNN, computed out
** of core and published atomically like IMPORT FEATURES.
**
** Â is (A + I) normalised, A the adjacency as stored for sampling (row v
** holds v's stored neighbours u, one entry per stored edge u -> v) and d_v
** = 1 + |row v| the degree of A + I:
**   sym: Â[v,u] = (A+I)[v,u] / sqrt(d_v d_u)     (GCN, SGC)
**   row: Â[v,u] = (A+I)[v,u] / d_v                (the mean over N(v) ∪ {v})
**
** Hop h computes H_h = Â H_{h-1} (H_0 = X) tile by tile: a tile T of target
** rows is accumulated from tiles S of source rows, each tile at most a
** quarter-ish of memory_limit, the graph blocks of T visited once per S
** tile through the buffer pool. H_{h-1} is read from disk (the source
** table for h = 1, else an unlinked scratch file of rows), H_h written to
** its own scratch file; the output blocks are then assembled from the k+1
** row files. Memory: two small buffer pools and 8 bytes per node
** (degrees and weights), plus two tiles while the hops run, then an output
** block, a row chunk and the block writer's buffer; never the whole table
** unless it fits.
**
** Each row's sum is taken in one fixed order (its own term first, then
** the neighbours ascending), so the bytes do not depend on PRAGMA threads,
** memory_limit (the tiling) or the order in which blocks arrive: objects
** of a node whose list spans blocks are put aside while blocks arrive and
** summed afterwards in block order. */
#include "cmd.h"
#include "block.h"
#include "blockfile.h"
#include "bufpool.h"
#include "extsort.h"
#include "io.h"
#include "pool.h"
#include "memory.h"
#include "rss.h"
#include "sort.h"
#include "grow.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Objects of a visited block handed to one worker task. */
#define PROP_TASK_OBJS 32

typedef struct prop {
    gnndb *db;
    const ast_stmt *s;
    cat_graph g;
    cat_table src;
    int64_t n;               /* nodes = rows */
    uint32_t dim;
    int hops;
    io_backend *io;
    blk_file *gf, *ff;
    bp_pool *gpool, *fpool;
    uint64_t *idx_first, *idx_block;
    size_t nidx;
    uint32_t *deg;           /* degree of A + I */
    float *pre;              /* weight of a row as a source: d^-1/2 or 1 */
    wpool *pool;
    xs_file hopf[AST_MAX_PROP_HOPS]; /* H_1 .. H_k, rows of dim floats */
    int nhopf;

    int64_t tile_rows;
    float *acc, *srct;       /* target tile, source tile */
    int64_t t_lo, t_hi, s_lo, s_hi;
    float *rows_dst;         /* read_rows: where rows [rd_lo, rd_hi) go */
    int64_t rd_lo, rd_hi;

    const void *vis;         /* the graph block being visited */
    uint32_t vis_count;
    uint64_t *spill;         /* blocks holding objects of spanning lists */
    size_t nspill, capspill;

    int64_t done, total;     /* progress, in rows */
} prop;

static int interrupted(prop *p, gnn_err *e)
{
    if (!p->db->interrupt) return GNNDB_OK;
    return gnn_seterr(e, GNNDB_INTERRUPT, "PROPAGATE %s: interrupted",
                      p->s->name);
}

/* Rows are done a tile or a block at a time: each one is reported. */
static int progress(prop *p, gnn_err *e)
{
    db_progress(p->db, p->done, 0, p->total);
    return interrupted(p, e);
}

/* ---- rows of H_h ------------------------------------------------------ */

static int copy_rows_visit(void *arg, uint64_t no, const void *data,
                           gnn_err *e)
{
    prop *p = arg;
    const blk_header *h = data;
    (void)no;
    int64_t lo = GNN_MAX(p->rd_lo, (int64_t)h->first_node);
    int64_t hi = GNN_MIN(p->rd_hi, (int64_t)(h->first_node + h->count));
    if (h->dim != p->dim || h->dtype != BLK_DTYPE_F32)
        return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %" PRIu64 " of "
                          "table %s: rows of %u x %s, expected %u x float32",
                          no, p->src.name, h->dim,
                          blk_dtype_name(h->dtype), p->dim);
    if (lo < hi)
        memcpy(p->rows_dst + (size_t)(lo - p->rd_lo) * p->dim,
               blk_feature_row(h, (uint32_t)(lo - (int64_t)h->first_node)),
               (size_t)(hi - lo) * p->dim * sizeof(float));
    return GNNDB_OK;
}

/* Rows [lo, hi) of H_hop into dst. H_0 is the source table, read through
** the feature pool; later hops come from their scratch files. */
static int read_rows(prop *p, int hop, int64_t lo, int64_t hi, float *dst,
                     gnn_err *e)
{
    if (hi <= lo) return GNNDB_OK;
    size_t rb = (size_t)p->dim * sizeof(float);
    if (hop > 0)
        return xs_pread(p->hopf[hop - 1].fd, dst, (size_t)(hi - lo) * rb,
                        (uint64_t)lo * rb, e);
    uint64_t b0 = (uint64_t)lo / p->src.rows_per_block;
    uint64_t b1 = (uint64_t)(hi - 1) / p->src.rows_per_block;
    uint64_t blocks[64];
    p->rows_dst = dst;
    p->rd_lo = lo;
    p->rd_hi = hi;
    for (uint64_t b = b0; b <= b1;) {
        size_t n = 0;
        while (b <= b1 && n < 64) blocks[n++] = b++;
        int rc = bp_fetch(p->fpool, p->ff, blocks, n, copy_rows_visit, p, e);
        if (rc) return rc;
    }
    return GNNDB_OK;
}

/* ---- the graph -------------------------------------------------------- */

/* The block holding the start of `node`'s object. */
static uint64_t start_block(const prop *p, int64_t node)
{
    return idx_block_of(p->idx_first, p->idx_block, p->nidx, (uint64_t)node);
}

/* A graph block whose objects name a node beyond the graph is corrupt. */
static int check_nodes(const prop *p, uint64_t no, const void *data,
                       gnn_err *e)
{
    const blk_header *h = data;
    for (uint32_t k = 0; k < h->count; k++) {
        const blk_node *o = blk_graph_object(data, k);
        if (o->node >= (uint64_t)p->n)
            return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %" PRIu64
                              " of graph %s: node %u of %" PRId64, no,
                              p->g.name, o->node, p->n);
    }
    return GNNDB_OK;
}

static int degree_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    prop *p = arg;
    const blk_header *h = data;
    int rc = check_nodes(p, no, data, e);
    if (rc) return rc;
    for (uint32_t k = 0; k < h->count; k++) {
        const blk_node *o = blk_graph_object(data, k);
        if (o->start == 0) p->deg[o->node] = o->degree + 1;
    }
    return interrupted(p, e);
}

static int load_degrees(prop *p, gnn_err *e)
{
    uint64_t nb = (uint64_t)p->g.graph_blocks;
    uint64_t *all = malloc((nb + 1) * sizeof *all);
    if (!all) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    for (uint64_t b = 0; b < nb; b++) all[b] = b;
    for (int64_t v = 0; v < p->n; v++) p->deg[v] = 0;
    int rc = bp_fetch(p->gpool, p->gf, all, nb, degree_visit, p, e);
    free(all);
    if (rc) return rc;
    for (int64_t v = 0; v < p->n; v++) {
        if (!p->deg[v])
            return gnn_seterr(e, GNNDB_CORRUPT, "graph %s: node %" PRId64
                              " has no object in %s", p->g.name, v, p->g.file);
        p->pre[v] = p->s->normalize == AST_NORM_SYM
                        ? (float)(1.0 / sqrt((double)p->deg[v]))
                        : 1.0f;
    }
    return GNNDB_OK;
}

static int spans(const blk_node *o)
{
    return o->start > 0 || o->start + o->n < o->degree;
}

/* acc[v] += pre[u] * H[u] for the neighbours u of object o inside the
** source tile, in list order. */
static void add_object(prop *p, const blk_node *o)
{
    if ((int64_t)o->node < p->t_lo || (int64_t)o->node >= p->t_hi) return;
    const uint32_t *nb = blk_node_nbrs(o);
    float *a = p->acc + (size_t)(o->node - p->t_lo) * p->dim;
    for (uint32_t j = 0; j < o->n; j++) {
        int64_t u = nb[j];
        if (u < p->s_lo || u >= p->s_hi) continue;
        const float *x = p->srct + (size_t)(u - p->s_lo) * p->dim;
        float w = p->pre[u];
        for (uint32_t d = 0; d < p->dim; d++) a[d] += w * x[d];
    }
}

static void objects_task(void *arg, size_t task, int worker)
{
    prop *p = arg;
    (void)worker;
    uint32_t lo = (uint32_t)(task * PROP_TASK_OBJS);
    uint32_t hi = GNN_MIN(lo + PROP_TASK_OBJS, p->vis_count);
    for (uint32_t k = lo; k < hi; k++) {
        const blk_node *o = blk_graph_object(p->vis, k);
        if (!spans(o)) add_object(p, o);
    }
}

static int hop_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    prop *p = arg;
    const blk_header *h = data;
    int rc = interrupted(p, e);
    if (rc || (rc = check_nodes(p, no, data, e))) return rc;
    /* a list spanning blocks is summed after the fetch, in block order */
    if (h->count && (spans(blk_graph_object(data, 0)) ||
                     spans(blk_graph_object(data, h->count - 1)))) {
        if (gnn_grow((void **)&p->spill, &p->capspill, p->nspill + 1,
                 sizeof *p->spill))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        p->spill[p->nspill++] = no;
    }
    p->vis = data;
    p->vis_count = h->count;
    wpool_run(p->pool, (h->count + PROP_TASK_OBJS - 1) / PROP_TASK_OBJS,
              objects_task, p);
    return GNNDB_OK;
}

/* Add the source tile's contributions to the target tile. */
static int add_tile(prop *p, uint64_t *blocks, gnn_err *e)
{
    uint64_t b0 = start_block(p, p->t_lo);
    uint64_t b1 = p->t_hi < p->n ? start_block(p, p->t_hi)
                                 : (uint64_t)p->g.graph_blocks - 1;
    size_t nb = 0;
    for (uint64_t b = b0; b <= b1; b++) blocks[nb++] = b;
    p->nspill = 0;
    int rc = bp_fetch(p->gpool, p->gf, blocks, nb, hop_visit, p, e);
    if (rc) return rc;
    if (p->nspill) gnn_sort_u64(p->spill, p->nspill);
    for (size_t i = 0; i < p->nspill; i++) {
        const void *data;
        if ((rc = bp_get(p->gpool, p->gf, p->spill[i], &data, e))) return rc;
        const blk_header *h = data;
        for (uint32_t k = 0; k < h->count; k++) {
            const blk_node *o = blk_graph_object(data, k);
            if (spans(o)) add_object(p, o);
        }
        bp_unpin(p->gpool, p->gf, p->spill[i]);
    }
    return GNNDB_OK;
}

/* H_hop = Â H_{hop-1}, written to hopf[hop-1]. */
static int run_hop(prop *p, int hop, uint64_t *blocks, gnn_err *e)
{
    int rc;
    size_t rb = (size_t)p->dim * sizeof(float);
    int64_t tr = p->tile_rows;
    int one_tile = tr >= p->n;   /* the whole source stays in memory */
    if (one_tile) {
        p->s_lo = 0;
        p->s_hi = p->n;
        if ((rc = read_rows(p, hop - 1, 0, p->n, p->srct, e))) return rc;
    }
    for (p->t_lo = 0; p->t_lo < p->n; p->t_lo = p->t_hi) {
        p->t_hi = GNN_MIN(p->n, p->t_lo + tr);
        size_t nt = (size_t)(p->t_hi - p->t_lo);
        /* each row starts with its own term: pre[v] * H[v] */
        if ((rc = read_rows(p, hop - 1, p->t_lo, p->t_hi, p->acc, e)))
            return rc;
        for (size_t i = 0; i < nt; i++) {
            float w = p->pre[p->t_lo + (int64_t)i];
            float *a = p->acc + i * p->dim;
            for (uint32_t d = 0; d < p->dim; d++) a[d] *= w;
        }
        if (one_tile) {
            if ((rc = add_tile(p, blocks, e))) return rc;
        } else {
            for (p->s_lo = 0; p->s_lo < p->n; p->s_lo = p->s_hi) {
                p->s_hi = GNN_MIN(p->n, p->s_lo + tr);
                if ((rc = read_rows(p, hop - 1, p->s_lo, p->s_hi, p->srct,
                                    e)) ||
                    (rc = add_tile(p, blocks, e)))
                    return rc;
            }
        }
        for (size_t i = 0; i < nt; i++) {
            double d = (double)p->deg[p->t_lo + (int64_t)i];
            float w = p->s->normalize == AST_NORM_SYM
                          ? (float)(1.0 / sqrt(d))
                          : (float)(1.0 / d);
            float *a = p->acc + i * p->dim;
            for (uint32_t k = 0; k < p->dim; k++) a[k] *= w;
        }
        if ((rc = xs_pwrite(p->hopf[hop - 1].fd, p->acc, nt * rb,
                            (uint64_t)p->t_lo * rb, e)))
            return rc;
        p->done += (int64_t)nt;
        if ((rc = progress(p, e))) return rc;
    }
    return GNNDB_OK;
}

/* ---- the output table ------------------------------------------------- */

/* Write the blocks of [H_0 .. H_k] to `file`; its checksums into *sums. */
static int assemble(prop *p, const char *file, uint64_t token, uint32_t bs,
                    uint32_t rpb, uint32_t **sums, uint64_t *nblocks,
                    gnn_err *e)
{
    uint32_t dout = p->dim * (uint32_t)(p->hops + 1);
    size_t rb = (size_t)p->dim * sizeof(float);
    uint64_t nb = ((uint64_t)p->n + rpb - 1) / rpb;
    unsigned char *blk = malloc(bs);
    float *chunk = malloc((size_t)rpb * rb + 1);
    uint32_t *cs = malloc((nb + 1) * sizeof *cs);
    blk_writer *w = NULL;
    int rc = GNNDB_OK;
    if (!blk || !chunk || !cs) {
        rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        goto out;
    }
    if ((rc = blkw_create(p->db->dir, file, bs, &w, e))) goto out;
    for (uint64_t b = 0; b < nb; b++) {
        int64_t r0 = (int64_t)(b * rpb);
        uint32_t cnt = (uint32_t)GNN_MIN((int64_t)rpb, p->n - r0);
        memset(blk, 0, bs);
        float *rows = (float *)(blk + blk_data_offset(bs));
        for (int h = 0; h <= p->hops; h++) {
            if ((rc = read_rows(p, h, r0, r0 + cnt, chunk, e))) goto out;
            for (uint32_t i = 0; i < cnt; i++)
                memcpy(rows + (size_t)i * dout + (size_t)h * p->dim,
                       chunk + (size_t)i * p->dim, rb);
        }
        blk_seal(blk, bs, BLK_KIND_FEATURE, b, (uint64_t)r0, token, cnt,
                 (uint32_t)(blk_data_offset(bs) + (size_t)cnt * dout * 4), 0,
                 BLK_DTYPE_F32, dout);
        cs[b] = ((const blk_header *)blk)->checksum;
        if ((rc = blkw_append(w, blk, e))) goto out;
        p->done += cnt;
        if ((rc = progress(p, e))) goto out;
    }
    rc = blkw_finish(w, e);
    w = NULL;
out:
    blkw_abort(w);
    free(blk);
    free(chunk);
    if (rc) {
        free(cs);
        return rc;
    }
    *sums = cs;
    *nblocks = nb;
    return GNNDB_OK;
}

/* ---- the statement ---------------------------------------------------- */

static int open_inputs(prop *p, gnn_err *e)
{
    gnndb *db = p->db;
    int rc;
    if ((rc = io_open(db->pragma.io, (unsigned)db->pragma.io_depth, &p->io,
                      e)) ||
        (rc = db_open_graph(db, &p->g, 1, &p->gf, e)) ||
        (rc = db_open_table(db, &p->src, 2, &p->ff, e)))
        return rc;
    return db_load_graph_index(db, &p->g, &p->idx_first, &p->idx_block,
                               &p->nidx, e);
}

/* What the run holds besides its tiles: the degrees and weights (8 bytes
** a node), the graph's block list and block index (an entry a block at
** most); and, once the tiles are freed, what assembling the output takes:
** a block, a row chunk and the block writer's buffer. */
static int64_t prop_fixed(const prop *p)
{
    return p->n * 8 + (p->g.graph_blocks + 1) * 24;
}

static int64_t prop_assembly(uint32_t out_bs)
{
    return 2 * (int64_t)out_bs +
           GNN_MAX((int64_t)out_bs, (int64_t)BLKW_BUF_BYTES);
}

/* What memory_limit must leave for data (memory.c): prop_fixed for the
** whole run, and the more of the hops (both pools of 4 frames, two tiles
** of one row) and the assembly (the feature pool and the output's
** buffers). */
static int prop_reserve(prop *p, uint32_t out_bs, mem_reserve *r,
                        int64_t *need, gnn_err *e)
{
    gnndb *db = p->db;
    int64_t rb = (int64_t)p->dim * 4, fpool = 4 * (int64_t)p->src.block_size;
    /* the hops: both pools and two tiles of a row; the assembly: the
    ** feature pool (H_0 is read through it) and the output's buffers */
    int64_t least = prop_fixed(p) +
                    GNN_MAX(4 * (int64_t)p->g.block_size + fpool + 2 * rb,
                            fpool + prop_assembly(out_bs));
    char what[CAT_NAME_MAX + 16];
    snprintf(what, sizeof what, "PROPAGATE %s", p->s->name);
    int threads = db->pragma.threads + (db->pragma.io == IO_PREAD ? 4 : 0);
    *need = least;
    return db_memory_reserve(db, threads, least, what, r, e);
}

/* Divide it: each pool 4 frames and a sixteenth of what is left beyond
** the least, prop_fixed for the whole run; the rest holds the two tiles
** while the hops run, then the output's assembly. */
static int plan_memory(prop *p, uint32_t out_bs, gnn_err *e)
{
    gnndb *db = p->db;
    int64_t rb = (int64_t)p->dim * 4;
    mem_reserve r;
    int64_t need;
    int rc = prop_reserve(p, out_bs, &r, &need, e);
    if (rc) return rc;
    /* each pool: 4 frames and a sixteenth of what the least leaves */
    int64_t extra = (r.data - need) / 16;
    size_t gframes = (size_t)GNN_MIN(4 + extra / p->g.block_size,
                                     GNN_MAX(4, p->g.graph_blocks));
    size_t fframes = (size_t)GNN_MIN(4 + extra / p->src.block_size,
                                     GNN_MAX(4, p->src.nblocks));
    int64_t fixed = (int64_t)gframes * p->g.block_size +
                    (int64_t)fframes * p->src.block_size + prop_fixed(p);
    p->tile_rows = GNN_MIN((r.data - fixed) / 2 / rb, GNN_MAX(p->n, 1));
    if ((rc = bp_open(gframes, p->g.block_size, p->io, &p->gpool, e)) ||
        (rc = bp_open(fframes, p->src.block_size, p->io, &p->fpool, e)))
        return rc;
    bp_set_max_coalesce(p->gpool, (unsigned)db->pragma.coalesce);
    bp_set_max_coalesce(p->fpool, (unsigned)db->pragma.coalesce);
    size_t tb = (size_t)p->tile_rows * (size_t)rb;
    p->acc = malloc(tb);
    p->srct = malloc(tb);
    p->deg = malloc(((size_t)p->n + 1) * sizeof *p->deg);
    p->pre = malloc(((size_t)p->n + 1) * sizeof *p->pre);
    if (!p->acc || !p->srct || !p->deg || !p->pre)
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    return GNNDB_OK;
}

static void prop_close(prop *p)
{
    for (int i = 0; i < p->nhopf; i++) xs_file_close(&p->hopf[i]);
    if (p->gpool) bp_close(p->gpool);
    if (p->fpool) bp_close(p->fpool);
    if (p->gf) blkf_close(p->gf);
    if (p->ff) blkf_close(p->ff);
    if (p->io) io_close(p->io);
    wpool_free(p->pool);
    free(p->idx_first);
    free(p->idx_block);
    free(p->deg);
    free(p->pre);
    free(p->acc);
    free(p->srct);
    free(p->spill);
}

/* The checks that need the catalog: names, types, and that the output row
** fits in a block. */
static int check_names(prop *p, uint32_t *out_bs, uint32_t *out_rpb,
                       gnn_err *e)
{
    const ast_stmt *s = p->s;
    cat_table t;
    gnn_err e2 = {0};
    int rc;
    if ((rc = cat_graph_get(p->db->cat, s->graph, &p->g, e))) return rc;
    if (p->g.kind == CAT_GRAPH_TYPED)
        return gnn_seterr(e, GNNDB_MISUSE, "PROPAGATE over graph %s is not "
                          "available yet: it is a graph of node types and "
                          "relations", s->graph);
    if (cat_table_get(p->db->cat, p->g.id, s->name, &p->src, &e2) ||
        p->src.kind != CAT_TABLE_FEATURES) {
        if (e2.rc && e2.rc != GNNDB_NOTFOUND)
            return gnn_seterr(e, e2.rc, "%s", e2.msg);
        return gnn_seterr(e, GNNDB_NOTFOUND, "PROPAGATE: no such feature "
                          "table: %s in graph %s", s->name, s->graph);
    }
    if (p->src.dtype != BLK_DTYPE_F32)
        return gnn_seterr(e, GNNDB_RANGE, "PROPAGATE: feature table %s is "
                          "stored as %s; PROPAGATE reads float32 tables only",
                          s->name, blk_dtype_name(p->src.dtype));
    if (p->src.rows != p->g.nodes)
        return gnn_seterr(e, GNNDB_CORRUPT, "feature table %s has %" PRId64
                          " rows, graph %s %" PRId64 " nodes", s->name,
                          p->src.rows, s->graph, p->g.nodes);
    memset(&e2, 0, sizeof e2);
    if (cat_table_get(p->db->cat, p->g.id, s->target, &t, &e2) == GNNDB_OK)
        return gnn_seterr(e, GNNDB_EXISTS, "PROPAGATE: feature table '%s' "
                          "already exists in graph '%s'", s->target, s->graph);
    if (e2.rc != GNNDB_NOTFOUND) return gnn_seterr(e, e2.rc, "%s", e2.msg);
    if (strlen(s->target) >= CAT_NAME_MAX)
        return gnn_seterr(e, GNNDB_RANGE, "PROPAGATE: table name too long: "
                          "%s", s->target);
    if (strncmp(s->target, "__", 2) == 0)   /* __labels and the like */
        return gnn_seterr(e, GNNDB_RANGE, "PROPAGATE: table names starting "
                          "with __ are reserved: %s", s->target);
    p->n = p->g.nodes;
    p->dim = p->src.dim;
    p->hops = (int)s->hops;
    uint32_t dout = p->dim * (uint32_t)(p->hops + 1);
    uint32_t bs = p->src.block_size;
    while (bs < BLK_MAX_SIZE &&
           blk_feature_rows_per_block(bs, dout, BLK_DTYPE_F32) == 0)
        bs *= 2;
    uint32_t rpb = blk_feature_rows_per_block(bs, dout, BLK_DTYPE_F32);
    if (rpb == 0)
        return gnn_seterr(e, GNNDB_RANGE, "PROPAGATE: a row of %u x %d "
                          "floats does not fit in a %u-byte block", p->dim,
                          p->hops + 1, BLK_MAX_SIZE);
    *out_bs = bs;
    *out_rpb = rpb;
    return GNNDB_OK;
}

int propagate_prepare(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    prop p;
    memset(&p, 0, sizeof p);
    p.db = db;
    p.s = s;
    uint32_t bs = 0, rpb = 0;
    mem_reserve r;
    int64_t need;
    int rc = check_names(&p, &bs, &rpb, e);
    return rc ? rc : prop_reserve(&p, bs, &r, &need, e);
}

int propagate_run(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    prop p;
    memset(&p, 0, sizeof p);
    p.db = db;
    p.s = s;
    uint32_t bs = 0, rpb = 0, *sums = NULL;
    uint64_t nblocks = 0, token = 0;
    char file[64];
    uint64_t *blocks = NULL;
    if ((rc = check_names(&p, &bs, &rpb, e)) || (rc = open_inputs(&p, e)) ||
        (rc = plan_memory(&p, bs, e)))
        goto out;
    if (!(p.pool = wpool_new(db->pragma.threads)) ||
        !(blocks = malloc(((size_t)p.g.graph_blocks + 1) * sizeof *blocks))) {
        rc = gnn_seterr(e, GNNDB_NOMEM, "cannot start %d worker threads",
                        db->pragma.threads);
        goto out;
    }
    p.total = p.n * (p.hops + 1);
    if ((rc = load_degrees(&p, e))) goto out;
    for (int h = 1; h <= p.hops; h++) {
        if ((rc = xs_file_open(&p.hopf[h - 1], db->dir, 0, e))) goto out;
        p.nhopf = h;
        if ((rc = run_hop(&p, h, blocks, e))) goto out;
    }
    /* the tiles and the graph's pool are no longer needed while the
    ** output is assembled: its buffers take their place */
    free(p.acc);
    free(p.srct);
    p.acc = p.srct = NULL;
    bp_close(p.gpool);
    p.gpool = NULL;
    gnn_heap_trim();
    token = db_new_token();
    snprintf(file, sizeof file, "f-%016" PRIx64 ".blk", token);
    if ((rc = assemble(&p, file, token, bs, rpb, &sums, &nblocks, e)))
        goto out;

    cat_table t;
    memset(&t, 0, sizeof t);
    t.graph_id = p.g.id;
    snprintf(t.name, sizeof t.name, "%s", s->target);
    t.kind = CAT_TABLE_FEATURES;
    t.token = token;
    snprintf(t.file, sizeof t.file, "%s", file);
    t.rows = p.n;
    t.dim = p.dim * (uint32_t)(p.hops + 1);
    t.dtype = BLK_DTYPE_F32;
    t.block_size = bs;
    t.rows_per_block = rpb;
    t.nblocks = (int64_t)nblocks;
    snprintf(t.source, sizeof t.source, "PROPAGATE %s HOPS %d NORMALIZE %s",
             s->name, p.hops, s->normalize == AST_NORM_SYM ? "sym" : "row");
    if ((rc = cat_begin(db->cat, e)) == GNNDB_OK) {
        if ((rc = cat_table_insert(db->cat, &t, e)) ||
            (rc = cat_checksums_put(db->cat, file, sums, nblocks, e)) ||
            (rc = cat_commit(db->cat, e)))
            cat_rollback(db->cat);
    }
    if (rc) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", db->dir, file);
        unlink(path);
    }
out:
    free(sums);
    free(blocks);
    prop_close(&p);
    db_write_unlock(db);
    return rc;
}
