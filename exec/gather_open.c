/* gather_open.c — opening the gather operator: the tables the plan
** gathers from, the feature pool, and the caches, a static one filled here
** once for the run (static_degree: the rows of the nodes with the most
** stored neighbours; hot_blocks: the feature blocks whose nodes have the
** most), the graph read once to choose them. Closing frees it all. */
#include "clock.h"
#include "grow.h"
#include "gather_int.h"
#include "gather.h"
#include "fcache.h"
#include "bcache.h"
#include "sort.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A graph block's first objects' (node, degree) to the caller's function,
** each node checked against the graph's. */
typedef struct degree_walk {
    hb_ctx *x;
    hb_degree_fn fn;
    void *arg;
} degree_walk;

static int degree_walk_visit(void *arg, uint64_t no, const void *data,
                             gnn_err *e)
{
    degree_walk *d = arg;
    const blk_header *h = data;
    uint64_t nodes = (uint64_t)d->x->p->graph.nodes;
    for (uint32_t k = 0; k < h->count; k++) {
        const blk_node *o = blk_graph_object(data, k);
        if (o->start != 0) continue;  /* a continuation of a long list */
        if (o->node >= nodes)
            return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %llu of %s: "
                              "node %u out of range", (unsigned long long)no,
                              d->x->gtopo->f->path, o->node);
        d->fn(d->arg, o->node, o->degree);
    }
    return GNNDB_OK;
}

int hb_read_degrees(hb_ctx *x, uint64_t *blocks, hb_degree_fn fn, void *arg,
                    gnn_err *e)
{
    size_t nblk = (size_t)x->p->topo.graph_blocks;
    for (size_t i = 0; i < nblk; i++) blocks[i] = i;
    degree_walk d = {x, fn, arg};
    bp_stats before = *bp_get_stats(x->gpool);
    int rc = bp_fetch(x->gpool, x->gtopo->f, blocks, nblk, degree_walk_visit,
                      &d, e);
    if (rc) return rc;
    const bp_stats *after = bp_get_stats(x->gpool);
    x->st.hop[0].blocks_read += after->blocks_read - before.blocks_read;
    x->st.hop[0].bytes_read += after->bytes_read - before.bytes_read;
    return GNNDB_OK;
}

/* Read the feature blocks that fill a static cache, through `visit`: the
** reads count as the gather's and as fill reads, and the time since t0 (the
** choice included) as the gather's. */
static int fill_cache(hb_ctx *x, const uint64_t *blocks, size_t n,
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
    hb_ctx *x;
    uint64_t *key;           /* per node: (~degree << 32) | node */
} degree_pass;

static void degree_visit(void *arg, uint32_t node, uint32_t degree)
{
    degree_pass *d = arg;
    d->key[node] = ((uint64_t)(UINT32_MAX - degree) << 32) | node;
}

/* static_degree: pin the rows of the nodes with the most neighbours stored
** in their adjacency lists (the in-degree, as graphs are stored for
** PyG-style sampling), ties to the lower node id, reading every graph block
** once to learn the degrees and the feature blocks of the chosen rows once
** to fill the cache. */
static int cache_pin_hot(hb_ctx *x, gnn_err *e)
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
    if ((rc = hb_read_degrees(x, blocks, degree_visit, &d, e))) goto out;
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
    rc = fill_cache(x, bk->ublocks, bk->nub, hb_gather_visit, t0, e);
out:
    free(d.key);
    free(blocks);
    return rc;
}

/* hot_blocks: weigh each feature block by the stored neighbours of its
** rows' nodes (reading every graph block once), pin the heaviest and read
** them once. */
typedef struct hot_pass {
    hb_ctx *x;
    uint64_t *weight;        /* per feature block */
} hot_pass;

static void hot_visit(void *arg, uint32_t node, uint32_t degree)
{
    hot_pass *d = arg;
    const plan *p = d->x->p;
    uint64_t b = node / p->feat.rows_per_block;
    if (b < (uint64_t)p->feat.nblocks) d->weight[b] += degree;
}

static int pin_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    hb_ctx *x = arg;
    bc_store(x->gat->bc, no, data);
    return GNNDB_OK;
}

static int cache_pin_blocks(hb_ctx *x, gnn_err *e)
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
    if ((rc = hb_read_degrees(x, blocks, hot_visit, &d, e)) ||
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

int hb_gather_open(hb_ctx *x, gnn_err *e)
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

void hb_gather_close(hb_ctx *x)
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
