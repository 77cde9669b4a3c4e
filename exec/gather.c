/* gather.c — the gather operator: the rows of every node of every mini-batch
** of a hyperbatch, bucketed by feature block so that each block is read once
** and its rows copied into each mini-batch's contiguous x (and the labels of
** the seeds into y). With a row cache (fcache.c) the feature rows it holds
** are copied from it, only the blocks of the others are read, and the rows
** it admits are copied into it from those blocks. */
#include "clock.h"
#include "grow.h"
#include "exec_int.h"
#include "granularity.h"
#include "fcache.h"
#include "bcache.h"
#include "sort.h"
#include "copy.h"

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A gather item bound for the row cache's slot `local`, not a batch. */
#define HB_GI_CACHE UINT32_MAX

typedef struct hb_gitem {    /* one feature row to copy */
    uint32_t bi;             /* HB_GI_CACHE: into the cache's slot `local` */
    uint32_t local;
    uint32_t row;
} hb_gitem;

/* Gather's work (gather.c): the rows to copy, the table they come from,
** and the caches it consults: the row cache (fcache.c) with one gather's
** decisions, and the hot-block cache (bcache.c). */
struct hb_gather_state {
    hb_gitem *gitems;
    size_t ngitems, capgitems;
    const void *table;       /* cat_table being gathered */
    int dest;                /* HB_TO_*: where its rows go */
    int type;                /* HB_TO_TYPE_X: the node type;
                             ** HB_TO_REL_EATTR: the relation */
    gran fgran;              /* feature and label blocks: whole or pages */
    struct fcache *fc;
    struct bcache *bc;
    uint32_t *crows, *cfut;
    int64_t *csrc;
    size_t capcrows, capcfut, capcsrc;
};
typedef struct hb_gather_state hb_gather_state;

static int gather_visit(void *arg, uint64_t no, const void *data, gnn_err *e);

/* Read every graph block once, through `visit`, to choose what a static
** cache holds (blocks: room for them all); the reads count as the first
** hop's. */
static int read_graph_once(hb_exec *x, uint64_t *blocks, bp_visit_fn visit,
                           void *arg, gnn_err *e)
{
    size_t nblk = (size_t)x->p->topo.graph_blocks;
    for (size_t i = 0; i < nblk; i++) blocks[i] = i;
    bp_stats before = *bp_get_stats(x->gpool);
    int rc = bp_fetch(x->gpool, x->gtopo->f, blocks, nblk, visit, arg, e);
    if (rc) return rc;
    const bp_stats *after = bp_get_stats(x->gpool);
    x->st.hop[0].blocks_read += after->blocks_read - before.blocks_read;
    x->st.hop[0].bytes_read += after->bytes_read - before.bytes_read;
    return GNNDB_OK;
}

/* Read the feature blocks that fill a static cache, through `visit`: the
** reads count as the gather's and as fill reads, and the time since t0 (the
** choice included) as the gather's. */
static int fill_cache(hb_exec *x, const uint64_t *blocks, size_t n,
                      bp_visit_fn visit, double t0, gnn_err *e)
{
    bp_stats before = *bp_get_stats(x->fpool);
    int rc = bp_fetch(x->fpool, x->ff, blocks, n, visit, x, e);
    const bp_stats *after = bp_get_stats(x->fpool);
    x->st.cache_fill_blocks += after->blocks_read - before.blocks_read;
    x->st.gather.blocks_read += after->blocks_read - before.blocks_read;
    x->st.gather.bytes_read += after->bytes_read - before.bytes_read;
    x->st.gather.seconds += gnn_now() - t0;
    return rc;
}

typedef struct degree_pass {
    hb_exec *x;
    uint64_t *key;           /* per node: (~degree << 32) | node */
} degree_pass;

static int degree_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    degree_pass *d = arg;
    const blk_header *h = data;
    uint64_t nodes = (uint64_t)d->x->p->graph.nodes;
    for (uint32_t k = 0; k < h->count; k++) {
        const blk_node *o = blk_graph_object(data, k);
        if (o->start != 0) continue;  /* a continuation of a long list */
        if (o->node >= nodes)
            return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %llu of %s: "
                              "node %u out of range", (unsigned long long)no,
                              d->x->gtopo->f->path, o->node);
        d->key[o->node] = ((uint64_t)(UINT32_MAX - o->degree) << 32) | o->node;
    }
    return GNNDB_OK;
}

/* static_degree: pin the rows of the nodes with the most neighbours stored
** in their adjacency lists (the in-degree, as graphs are stored for
** PyG-style sampling), ties to the lower node id, reading every graph block
** once to learn the degrees and the feature blocks of the chosen rows once
** to fill the cache. */
static int cache_pin_hot(hb_exec *x, gnn_err *e)
{
    hb_gather_state *gs = x->gat;
    hb_blocks *bk = &x->bk;
    plan *p = x->p;
    size_t nodes = (size_t)GNN_MIN(p->graph.nodes, p->feat.rows);
    size_t nblk = (size_t)p->topo.graph_blocks;
    degree_pass d = {x, calloc(GNN_MAX((size_t)p->graph.nodes, 1), sizeof *d.key)};
    uint64_t *blocks = malloc((nblk + 1) * sizeof *blocks);
    int rc = GNNDB_OK;
    if (!d.key || !blocks) {
        rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory choosing the rows of "
                        "the static_degree cache");
        goto out;
    }
    for (size_t i = 0; i < (size_t)p->graph.nodes; i++)
        d.key[i] = ((uint64_t)UINT32_MAX << 32) | i;  /* degree 0 */
    double t0 = gnn_now();
    if ((rc = read_graph_once(x, blocks, degree_visit, &d, e))) goto out;
    gnn_sort_u64(d.key, nodes);
    size_t n = GNN_MIN(nodes, fc_capacity(gs->fc));
    uint32_t *rows = (uint32_t *)d.key;  /* reuse: rows fit in the keys */
    for (size_t i = 0; i < n; i++) rows[i] = (uint32_t)(d.key[i] & UINT32_MAX);
    gnn_sort_u32(rows, n);
    if ((rc = fc_pin(gs->fc, rows, n, e))) goto out;
    if (gnn_grow((void **)&gs->gitems, &gs->capgitems, n + 1,
                sizeof *gs->gitems) ||
        gnn_grow((void **)&bk->blockof, &bk->capblockof, n + 1,
                sizeof *bk->blockof)) {
        rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory filling the cache");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        gs->gitems[i].bi = HB_GI_CACHE;
        gs->gitems[i].local = (uint32_t)i;
        gs->gitems[i].row = rows[i];
        bk->blockof[i] = rows[i] / p->feat.rows_per_block;
    }
    gs->ngitems = n;
    if ((rc = hb_bucket(bk, n, (uint64_t)p->feat.nblocks, e)))
        goto out;
    gs->table = &p->feat;
    gs->dest = HB_TO_X;
    rc = fill_cache(x, bk->ublocks, bk->nub, gather_visit, t0, e);
out:
    free(d.key);
    free(blocks);
    return rc;
}

/* hot_blocks: weigh each feature block by the stored neighbours of its
** rows' nodes (reading every graph block once), pin the heaviest and read
** them once. */
typedef struct hot_pass {
    hb_exec *x;
    uint64_t *weight;        /* per feature block */
} hot_pass;

static int hot_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    hot_pass *d = arg;
    const blk_header *h = data;
    const plan *p = d->x->p;
    for (uint32_t k = 0; k < h->count; k++) {
        const blk_node *o = blk_graph_object(data, k);
        if (o->start != 0) continue;  /* a continuation of a long list */
        if (o->node >= (uint64_t)p->graph.nodes)
            return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %llu of %s: "
                              "node %u out of range", (unsigned long long)no,
                              d->x->gtopo->f->path, o->node);
        uint64_t b = o->node / p->feat.rows_per_block;
        if (b < (uint64_t)p->feat.nblocks) d->weight[b] += o->degree;
    }
    return GNNDB_OK;
}

static int pin_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    hb_exec *x = arg;
    bc_store(x->gat->bc, no, data);
    return GNNDB_OK;
}

static int cache_pin_blocks(hb_exec *x, gnn_err *e)
{
    plan *p = x->p;
    size_t nblk = (size_t)p->topo.graph_blocks;
    hot_pass d = {x, calloc((size_t)p->feat.nblocks + 1, sizeof(uint64_t))};
    uint64_t *blocks = malloc((nblk + 1) * sizeof *blocks);
    int rc = GNNDB_OK;
    if (!d.weight || !blocks) {
        rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory choosing hot blocks");
        goto out;
    }
    double t0 = gnn_now();
    if ((rc = read_graph_once(x, blocks, hot_visit, &d, e)) ||
        (rc = bc_choose(x->gat->bc, d.weight, e)))
        goto out;
    size_t n;
    const uint64_t *pinned = bc_pinned(x->gat->bc, &n);
    rc = fill_cache(x, pinned, n, pin_visit, t0, e);
out:
    free(d.weight);
    free(blocks);
    return rc;
}

int hb_visit_pinned(hb_exec *x, uint64_t *list, size_t *n,
                    int (*fn)(void *, uint64_t, const void *, gnn_err *),
                    void *arg, gnn_err *e)
{
    if (!x->gat->bc) return GNNDB_OK;
    size_t w = 0;
    for (size_t i = 0; i < *n; i++) {
        const void *data = bc_get(x->gat->bc, list[i]);
        if (!data) {
            list[w++] = list[i];
            continue;
        }
        int rc = fn(arg, list[i], data, e);
        if (rc) return rc;
        x->st.cache_blocks_saved++;
    }
    *n = w;
    return GNNDB_OK;
}

int hb_gather_open(hb_exec *x, gnn_err *e)
{
    plan *p = x->p;
    uint32_t frame = 0;
    int rc;
    if (!(x->gat = calloc(1, sizeof *x->gat)))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    if (p->has_feat) {
        if ((rc = db_open_table(x->db, &p->feat, 2, &x->ff, e))) return rc;
        frame = p->feat.block_size;
    }
    if (p->has_labels) {
        if ((rc = db_open_table(x->db, &p->labels, 3, &x->lf, e))) return rc;
        if (p->labels.block_size > frame) frame = p->labels.block_size;
    }
    if (p->has_efeat) {
        if ((rc = db_open_table(x->db, &p->efeat, 4, &x->ef, e))) return rc;
        if (p->efeat.block_size > frame) frame = p->efeat.block_size;
    }
    /* a typed plan's tables too (a node plan has no types, no relations) */
    for (int t = 0; t < p->ntypes; t++)
        if (p->types[t].has_feat && p->types[t].feat.block_size > frame)
            frame = p->types[t].feat.block_size;
    for (int r = 0; r < p->nrels; r++)
        if (p->rels[r].has_efeat && p->rels[r].efeat.block_size > frame)
            frame = p->rels[r].efeat.block_size;
    if (!frame) return GNNDB_OK;
    x->gat->fgran.mode = p->read_granularity;
    x->gat->fgran.pr = &p->profile;
    rc = bp_open(p->feat_frames, frame, x->io, &x->fpool, e);
    if (rc) return rc;
    bp_set_max_coalesce(x->fpool, (unsigned)p->coalesce);
    if (p->cache_policy == GNN_CACHE_HOT_BLOCKS && p->cache_blocks > 0) {
        rc = bc_open((size_t)p->cache_blocks, p->feat.block_size,
                     (uint64_t)p->feat.nblocks, &x->gat->bc, e);
        return rc ? rc : cache_pin_blocks(x, e);
    }
    if (p->cache_policy == GNN_CACHE_NONE || p->cache_rows <= 0) return GNNDB_OK;
    rc = fc_open(p->cache_policy, (size_t)p->cache_rows,
                 (size_t)p->feat.dim * blk_dtype_size(p->feat.dtype),
                 &x->gat->fc, e);
    if (!rc && p->cache_policy == GNN_CACHE_STATIC_DEGREE) rc = cache_pin_hot(x, e);
    return rc;
}

size_t hb_gather_bytes(const hb_gather_state *g)
{
    if (!g) return 0;
    return g->capgitems * sizeof(hb_gitem) + g->capcrows * 4 +
           g->capcfut * 4 + g->capcsrc * 8 + fc_scratch_bytes(g->fc);
}

void hb_gather_release(hb_gather_state *g)
{
    if (!g) return;
    free(g->gitems);
    g->gitems = NULL;
    g->capgitems = 0;
}

void hb_gather_close(hb_exec *x)
{
    hb_gather_state *gs = x->gat;
    if (!gs) return;
    fc_close(gs->fc);
    gs->fc = NULL;
    bc_close(gs->bc);
    gs->bc = NULL;
    free(gs->crows);
    free(gs->cfut);
    free(gs->csrc);
    gs->crows = gs->cfut = NULL;
    gs->csrc = NULL;
    if (x->fpool) bp_close(x->fpool);
    if (x->ff) blkf_close(x->ff);
    if (x->lf) blkf_close(x->lf);
    if (x->ef) blkf_close(x->ef);
    x->ef = NULL;
    free(gs->gitems);
    gran_free(&gs->fgran);
    x->fpool = NULL;
    x->ff = x->lf = NULL;
    free(gs);
    x->gat = NULL;
}

void hb_put_row(const cat_table *t, float *dst, const void *src, int stream)
{
    size_t n = (size_t)t->dim;
    if (t->dtype == BLK_DTYPE_F16)
        gnn_widen_f16(dst, src, n, stream);
    else if (stream)
        gnn_copy_stream(dst, src, n * sizeof(float));
    else
        memcpy(dst, src, n * sizeof(float));
}

/* The float32 rows of dest in mini-batch b. */
static float *dest_rows(const hb_gather_state *gs, hb_batch *b)
{
    switch (gs->dest) {
    case HB_TO_EATTR: return b->edge_attr;
    case HB_TO_TYPE_X: return (float *)(uintptr_t)b->tviews[gs->type].x;
    case HB_TO_REL_EATTR:
        return (float *)(uintptr_t)b->rviews[gs->type].edge_attr;
    default: return b->x;
    }
}

/* Copy the rows of items [lo, hi) of the visited block (one task). */
static void gather_task(void *arg, size_t task, int w)
{
    hb_exec *x = arg;
    hb_gather_state *gs = x->gat;
    hb_blocks *bk = &x->bk;
    const blk_header *h = bk->vis_data;
    const cat_table *t = gs->table;
    size_t rowbytes = (size_t)t->dim * blk_dtype_size(t->dtype);
    size_t lo = bk->vis_lo + task * HB_CHUNK;
    size_t hi = GNN_MIN(lo + HB_CHUNK, bk->vis_hi);
    for (size_t k = lo; k < hi; k++) {
        const hb_gitem *g = &gs->gitems[bk->sorted[k]];
        const void *src = blk_feature_row(h, (uint32_t)(g->row - h->first_node));
        if (g->bi == HB_GI_CACHE) {
            memcpy(fc_slot(gs->fc, g->local), src, rowbytes);
            continue;
        }
        hb_batch *b = &x->hb[g->bi];
        if (gs->dest == HB_TO_Y)
            memcpy(&b->y[g->local], src, sizeof(int64_t));
        else
            hb_put_row(t, dest_rows(gs, b) + (size_t)g->local * t->dim, src,
                       0);
    }
}

static int gather_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    hb_exec *x = arg;
    hb_gather_state *gs = x->gat;
    hb_blocks *bk = &x->bk;
    if (x->db->interrupt)
        return gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
    const blk_header *h = data;
    const cat_table *t = gs->table;
    size_t lo = bk->bstart[no], hi = bk->bstart[no + 1];
    for (size_t k = lo; k < hi; k++) {
        const hb_gitem *g = &gs->gitems[bk->sorted[k]];
        if (g->row < h->first_node || g->row - h->first_node >= h->count)
            return gnn_seterr(e, GNNDB_CORRUPT,
                              "corrupt block %llu of table %s: row %u missing",
                              (unsigned long long)no, t->name, g->row);
    }
    hb_run_block(&x->bk, x->pool, no, data, lo, hi, gather_task, x,
                 &x->st.gather.cpu_seconds);
    x->st.gather.bytes_out += (hi - lo) * (gs->dest == HB_TO_Y
                                  ? sizeof(int64_t)
                                  : (size_t)t->dim * blk_dtype_size(t->dtype));
    return GNNDB_OK;
}

/* The pages of feature block `no` that hold the rows its items copy. */
static void gather_mark(void *arg, size_t i, uint64_t no, uint8_t *map)
{
    hb_exec *x = arg;
    hb_gather_state *gs = x->gat;
    hb_blocks *bk = &x->bk;
    const cat_table *t = gs->table;
    size_t rowbytes = (size_t)t->dim * blk_dtype_size(t->dtype);
    uint64_t first = no * t->rows_per_block;
    uint32_t ps = blk_page_size(t->block_size), np = blk_npages(t->block_size);
    uint64_t at = blk_data_offset(t->block_size);
    for (size_t k = bk->bstart[no]; k < bk->bstart[no + 1]; k++) {
        uint64_t row = gs->gitems[bk->sorted[k]].row;
        /* a row outside the block is reported by gather_visit */
        if (row < first || row - first >= t->rows_per_block) continue;
        uint64_t off = at + (row - first) * rowbytes;
        uint64_t lo = off / ps, hi = (off + rowbytes - 1) / ps;
        for (uint64_t pg = lo; pg <= hi && pg < np; pg++) map[pg] = 1;
    }
}

/* Consult the cache for the accesses in gitems (gather order): copy the
** rows it held from it, keep in gitems only the rows to copy from blocks,
** add the rows it admitted (copied into it from their blocks), and bucket
** them again. The future it evicts by is the next hyperbatch's rows. */
static int cache_gather(hb_exec *x, const cat_table *t, gnn_err *e)
{
    hb_gather_state *gs = x->gat;
    hb_blocks *bk = &x->bk;
    size_t n = gs->ngitems, nf = 0;
    for (int i = 0; i < x->nb2; i++) nf += x->hb2[i].nn;
    if (gnn_grow((void **)&gs->crows, &gs->capcrows, n + 1, sizeof *gs->crows) ||
        gnn_grow((void **)&gs->csrc, &gs->capcsrc, n + 1, sizeof *gs->csrc) ||
        gnn_grow((void **)&gs->cfut, &gs->capcfut, nf + 1, sizeof *gs->cfut))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory gathering");
    for (size_t k = 0; k < n; k++) gs->crows[k] = gs->gitems[k].row;
    nf = 0;
    for (int i = 0; i < x->nb2; i++) {
        memcpy(gs->cfut + nf, x->hb2[i].nodes, x->hb2[i].nn * sizeof *gs->cfut);
        nf += x->hb2[i].nn;
    }
    uint64_t h0 = fc_hits(gs->fc), m0 = fc_misses(gs->fc);
    int rc = fc_plan(gs->fc, gs->crows, n, gs->cfut, nf, gs->csrc, e);
    if (rc) return rc;
    x->st.cache_hits += fc_hits(gs->fc) - h0;
    x->st.cache_misses += fc_misses(gs->fc) - m0;
    size_t rowbytes = (size_t)t->dim * blk_dtype_size(t->dtype), w = 0;
    double c0 = gnn_now();
    for (size_t k = 0; k < n; k++) {
        const hb_gitem *g = &gs->gitems[k];
        if (gs->csrc[k] >= 0) {
            hb_put_row(t, &x->hb[g->bi].x[(size_t)g->local * t->dim],
                       fc_slot(gs->fc, (uint32_t)gs->csrc[k]), 0);
            x->st.gather.bytes_out += rowbytes;
        } else {
            gs->gitems[w] = *g;
            bk->blockof[w++] = g->row / t->rows_per_block;
        }
    }
    x->st.gather.cpu_seconds += gnn_now() - c0;
    const uint32_t *frows, *fslots;
    size_t nfill = fc_fills(gs->fc, &frows, &fslots);
    if (gnn_grow((void **)&gs->gitems, &gs->capgitems, w + nfill + 1,
                sizeof *gs->gitems) ||
        gnn_grow((void **)&bk->blockof, &bk->capblockof, w + nfill + 1,
                sizeof *bk->blockof))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory gathering");
    for (size_t i = 0; i < nfill; i++, w++) {
        gs->gitems[w].bi = HB_GI_CACHE;
        gs->gitems[w].local = fslots[i];
        gs->gitems[w].row = frows[i];
        bk->blockof[w] = frows[i] / t->rows_per_block;
    }
    gs->ngitems = w;
    return hb_bucket(bk, w, (uint64_t)t->nblocks, e);
}

/* The caches hold node feature rows: what they spare of this gather. */
static int gather_cached(hb_exec *x, const cat_table *t, size_t accesses,
                         gnn_err *e)
{
    hb_gather_state *gs = x->gat;
    hb_blocks *bk = &x->bk;
    int rc;
    if (gs->fc) {
        size_t nub_all = bk->nub;
        if ((rc = cache_gather(x, t, e))) return rc;
        x->st.cache_blocks_saved += nub_all - bk->nub;
    }
    if (!gs->bc) return GNNDB_OK;
    /* rows copied from pinned blocks count as the cache's hits */
    uint64_t hits = 0;
    for (size_t i = 0; i < bk->nub; i++)
        if (bc_get(gs->bc, bk->ublocks[i]))
            hits += bk->bstart[bk->ublocks[i] + 1] - bk->bstart[bk->ublocks[i]];
    x->st.cache_hits += hits;
    x->st.cache_misses += accesses - hits;
    return hb_visit_pinned(x, bk->ublocks, &bk->nub, gather_visit, x, e);
}

int hb_gather_items(hb_exec *x, const cat_table *t, blk_file *f, int dest,
                    int type, hb_opstats *o, gnn_err *e)
{
    hb_gather_state *gs = x->gat;
    hb_blocks *bk = &x->bk;
    double t0 = gnn_now();
    size_t accesses = gs->ngitems;
    int rc = hb_bucket(bk, gs->ngitems, (uint64_t)t->nblocks, e);
    if (rc) return rc;
    gs->table = t;
    gs->dest = dest;
    gs->type = type;
    if (dest == HB_TO_X && (rc = gather_cached(x, t, accesses, e))) return rc;
    gran_ops ops = {gather_mark, NULL, NULL, gather_visit, x};
    rc = gran_fetch(&gs->fgran, x->fpool, f, bk->ublocks, bk->nub, &ops, o, e);
    o->items += accesses;
    o->seconds += gnn_now() - t0;
    return rc;
}

int hb_gather_reserve(hb_exec *x, size_t n, gnn_err *e)
{
    if (gnn_grow((void **)&x->gat->gitems, &x->gat->capgitems, n + 1,
                sizeof *x->gat->gitems) ||
        gnn_grow((void **)&x->bk.blockof, &x->bk.capblockof, n + 1,
                sizeof *x->bk.blockof))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory listing %zu rows "
                          "to gather", n);
    x->gat->ngitems = 0;
    return GNNDB_OK;
}

int hb_gather_nodes(hb_exec *x, const cat_table *t, blk_file *f, int labels,
                    hb_opstats *o, gnn_err *e)
{
    hb_gather_state *gs = x->gat;
    hb_blocks *bk = &x->bk;
    double t0 = gnn_now();
    gs->ngitems = 0;
    for (int i = 0; i < x->nb; i++) {
        hb_batch *b = &x->hb[i];
        size_t n = labels ? (size_t)b->nseeds : b->nn;
        if (gnn_grow((void **)&gs->gitems, &gs->capgitems, gs->ngitems + n,
                    sizeof *gs->gitems) ||
            gnn_grow((void **)&bk->blockof, &bk->capblockof, gs->ngitems + n,
                    sizeof *bk->blockof))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory gathering");
        for (size_t q = 0; q < n; q++) {
            hb_gitem *g = &gs->gitems[gs->ngitems];
            g->bi = (uint32_t)i;
            g->local = (uint32_t)q;
            g->row = b->nodes[q];
            bk->blockof[gs->ngitems] = g->row / t->rows_per_block;
            gs->ngitems++;
        }
    }
    o->seconds += gnn_now() - t0;  /* listing the items is gather's too */
    return hb_gather_items(x, t, f, labels ? HB_TO_Y : HB_TO_X, 0, o, e);
}

void hb_gather_add(hb_exec *x, uint32_t bi, uint32_t local, uint32_t row,
                   uint32_t rpb)
{
    hb_gitem *it = &x->gat->gitems[x->gat->ngitems];
    it->bi = bi;
    it->local = local;
    it->row = row;
    x->bk.blockof[x->gat->ngitems++] = row / rpb;
}
