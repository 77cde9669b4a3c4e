/* hop.c — one hop of the sampler over a whole hyperbatch: every frontier
** node of every mini-batch becomes an item, items are bucketed by the graph
** block that holds the start of the node's object, each block is read once
** (whole or in pages, hop_pages.c) and its items sampled in parallel, the
** neighbours in continuation blocks fetched in a second round, and the
** results assembled in frontier order into each mini-batch through its
** node map (internal id -> local index), which this file also owns. */
#include "clock.h"
#include "grow.h"
#include "hop_int.h"
#include "hop.h"
#include "rng.h"
#include "sample.h"
#include "pool.h"
#include "hash.h"

#include <stdlib.h>
#include <string.h>

/* ---- a hop's own state ---- */

size_t hb_hop_bytes(const hb_hop_state *h)
{
    if (!h) return 0;
    return h->capitems * sizeof *h->items + h->caparena * 4 +
           h->capearena * 4 + h->cappend * sizeof(hb_pend);
}

void hb_hop_release(hb_hop_state *h)
{
    if (!h) return;
    free(h->items); h->items = NULL; h->capitems = 0;
    free(h->arena); h->arena = NULL; h->caparena = 0;
    free(h->earena); h->earena = NULL; h->capearena = 0;
    free(h->pend); h->pend = NULL; h->cappend = 0;
}

static void hop_free(hb_hop_state *h, int nworkers)
{
    hb_hop_release(h);
    free(h->objs);
    free(h->bitem);
    h->objs = NULL;
    h->bitem = NULL;
    gran_free(&h->ggran);
    if (h->workers)
        for (int w = 0; w < nworkers; w++) {
            free(h->workers[w].pos);
            free(h->workers[w].pend);
        }
    free(h->workers);
    h->workers = NULL;
}

int hb_hop_open(hb_ctx *x, gnn_err *e)
{
    const plan *p = x->p;
    hb_hop_state *h = x->hop = calloc(1, sizeof *x->hop);
    if (!h) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    h->rel = -1;
    h->ggran.mode = p->read_granularity;
    h->ggran.pr = &p->profile;
    h->workers = calloc((size_t)GNN_MAX(1, p->threads), sizeof *h->workers);
    if (!h->workers)
        return gnn_seterr(e, GNNDB_NOMEM, "cannot start %d worker threads",
                          p->threads);
    return GNNDB_OK;
}

void hb_hop_close(hb_ctx *x)
{
    if (!x->hop) return;
    hop_free(x->hop, GNN_MAX(1, x->p->threads));
    free(x->hop);
    x->hop = NULL;
}

void hb_hop_exclude(hb_ctx *x, const lk_spec *spec)
{
    x->hop->exclude = spec;
}

/* ---- sample: one hop of the whole hyperbatch ---- */

/* The block holding the start of `node`'s object. */
static uint64_t start_block(const hb_ctx *x, uint32_t node)
{
    const hb_rel_topo *t = x->gtopo;
    return idx_block_of(t->idx_first, t->idx_block, t->nidx, node);
}

static int corrupt_node(hb_ctx *x, uint64_t no, uint32_t node, gnn_err *e)
{
    return gnn_seterr(e, GNNDB_CORRUPT,
                      "corrupt block %llu of %s: node %u is not where the "
                      "index says", (unsigned long long)no,
                      x->gtopo->f->path, node);
}

/* The fanout of the hop (of its relation, when typed) and the hop number
** its choices are keyed by: a typed graph's relations draw apart. */
static int hop_fanout(const hb_ctx *x)
{
    const hb_hop_state *h = x->hop;
    return h->rel >= 0 ? x->p->rels[h->rel].fanout[h->index]
                       : x->p->fanouts[h->index];
}

static uint64_t hop_key_hop(const hb_ctx *x)
{
    const hb_hop_state *h = x->hop;
    return (uint64_t)h->index +
           (h->rel >= 0 ? (uint64_t)h->rel * AST_MAX_HOPS : 0);
}

/* Record a neighbour that lies in a continuation block: position q of
** item it's list (q >= o->n), for arena slot i of the item. */
static int pend_add(hb_ctx *x, hb_worker *wk, const hb_item *it,
                    const blk_node *o, uint32_t q, uint32_t i)
{
    if (gnn_grow((void **)&wk->pend, &wk->cappend, wk->npend + 1,
                sizeof *wk->pend))
        return -1;
    hb_pend *pd = &wk->pend[wk->npend++];
    uint32_t r = q - o->n;
    pd->block = x->bk.vis_no + 1 + r / x->gtopo->cont_cap;
    pd->pos = r % x->gtopo->cont_cap;
    pd->slot = it->res_off + i;
    pd->node = it->node;
    return 0;
}

/* Sample the items [lo, hi) of the block being visited (one task). */
static void hop_task(void *arg, size_t task, int w)
{
    hb_ctx *x = arg;
    hb_hop_state *h = x->hop;
    const hb_blocks *bk = &x->bk;
    hb_worker *wk = &h->workers[w];
    int fanout = hop_fanout(x);
    size_t lo = bk->vis_lo + task * HB_CHUNK;
    size_t hi = GNN_MIN(lo + HB_CHUNK, bk->vis_hi);
    for (size_t k = lo; k < hi && !wk->oom; k++) {
        hb_item *it = &h->items[bk->sorted[k]];
        const blk_node *o = h->objs[k - bk->vis_lo];
        hb_batch *b = &x->hb[it->bi];
        uint64_t key = rng_key(x->p->seed, (uint64_t)b->epoch,
                               (uint64_t)b->batch, hop_key_hop(x), it->node);
        uint32_t n = sample_choose(key, o->degree, fanout, x->p->replace,
                                   wk->pos, wk->scratch);
        it->res_n = n;
        const uint32_t *nb = blk_node_nbrs(o);
        const uint32_t *ids = x->p->eids ? blk_node_eids(o) : NULL;
        uint32_t *res = h->arena + it->res_off;
        uint32_t *eres = ids ? h->earena + it->res_off : NULL;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t q = wk->pos[i];
            if (q < o->n) {
                res[i] = nb[q];
                if (ids) eres[i] = ids[q];
                continue;
            }
            /* the neighbour lies in a continuation block */
            if (pend_add(x, wk, it, o, q, i)) {
                wk->oom = 1;
                break;
            }
        }
    }
}

/* Serially: find the object of each item [lo, hi) of block `no` and
** reserve its arena slots, so that the parallel part writes only to places
** of its own; *most: the most slots one item takes. */
static int hop_reserve(hb_ctx *x, uint64_t no, const void *data, size_t lo,
                       size_t hi, uint32_t *most, gnn_err *e)
{
    hb_hop_state *h = x->hop;
    int fanout = hop_fanout(x);
    size_t need = h->narena;
    *most = 0;
    for (size_t k = lo; k < hi; k++) {
        hb_item *it = &h->items[x->bk.sorted[k]];
        const blk_node *o = blk_graph_find(data, it->node);
        /* a block read in pages was checked object by object (only its
        ** items' objects were read): the object must end where its span
        ** does */
        if (!o || o->start != 0 ||
            !blk_graph_object_fits(data, (uint32_t)(it->node -
                                   ((const blk_header *)data)->first_node)))
            return corrupt_node(x, no, it->node, e);
        h->objs[k - lo] = o;
        uint32_t m = sample_max(o->degree, fanout, x->p->replace);
        it->res_off = need;
        need += m;
        if (m > *most) *most = m;
    }
    if (gnn_grow((void **)&h->arena, &h->caparena, need + 1, sizeof *h->arena) ||
        (x->p->eids && gnn_grow((void **)&h->earena, &h->capearena, need + 1,
                               sizeof *h->earena)))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
    h->narena = need;
    return GNNDB_OK;
}

static int hop_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    hb_ctx *x = arg;
    hb_hop_state *h = x->hop;
    if (hb_halted(x))
        return gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
    size_t lo = x->bk.bstart[no], hi = x->bk.bstart[no + 1];
    if (gnn_grow((void **)&h->objs, &h->capobjs, hi - lo, sizeof *h->objs))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
    uint32_t most;
    int rc = hop_reserve(x, no, data, lo, hi, &most, e);
    if (rc) return rc;
    int nw = wpool_threads(x->pool);
    for (int w = 0; w < nw; w++) {
        hb_worker *wk = &h->workers[w];
        if (gnn_grow((void **)&wk->pos, &wk->cappos, most + 1, sizeof *wk->pos))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
        wk->npend = 0;
        wk->oom = 0;
    }
    hb_run_block(&x->bk, x->pool, no, data, lo, hi, hop_task, x,
                 &x->st.hop[h->index].cpu_seconds);
    /* gather the workers' continuation requests */
    for (int w = 0; w < nw; w++) {
        hb_worker *wk = &h->workers[w];
        if (wk->oom ||
            gnn_grow((void **)&h->pend, &h->cappend, h->npend + wk->npend + 1,
                    sizeof *h->pend))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
        if (wk->npend)
            memcpy(h->pend + h->npend, wk->pend, wk->npend * sizeof *wk->pend);
        h->npend += wk->npend;
    }
    return GNNDB_OK;
}

static int pend_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    hb_ctx *x = arg;
    hb_hop_state *h = x->hop;
    const blk_header *hd = data;
    const blk_node *o = hd->count ? blk_graph_object(data, 0) : NULL;
    for (size_t k = x->bk.bstart[no]; k < x->bk.bstart[no + 1]; k++) {
        hb_pend *pd = &h->pend[x->bk.sorted[k]];
        if (!o || o->node != pd->node || !(hd->flags & BLK_FLAG_CONT_FIRST) ||
            pd->pos >= o->n)
            return corrupt_node(x, no, pd->node, e);
        h->arena[pd->slot] = blk_node_nbrs(o)[pd->pos];
        if (x->p->eids) h->earena[pd->slot] = blk_node_eids(o)[pd->pos];
    }
    return GNNDB_OK;
}

static void stats_add(hb_opstats *o, const bp_stats *before,
                      const bp_stats *after)
{
    o->blocks_read += after->blocks_read - before->blocks_read;
    o->bytes_read += after->bytes_read - before->bytes_read;
    o->hits += after->hits - before->hits;
    o->misses += after->misses - before->misses;
    o->reads_issued += after->reads_issued - before->reads_issued;
}

/* Size b's edge arrays for `more` edges after its b->ne (and its edge ids
** when the plan reads them, its edges' relations in a typed hop); -1 when
** out of memory. */
static int reserve_edges(const plan *p, hb_batch *b, size_t more, int typed)
{
    if (hb_reserve_edges(b, more)) return -1;
    if (p->eids && b->cape > b->capeid) {
        uint32_t *d = realloc(b->eid, b->cape * sizeof *d);
        if (!d) return -1;
        b->eid = d;
        b->capeid = b->cape;
    }
    if (typed && b->cape > b->capetype) {
        uint16_t *d = realloc(b->etype, b->cape * sizeof *d);
        if (!d) return -1;
        b->etype = d;
        b->capetype = b->cape;
    }
    return 0;
}

/* Append one mini-batch's sampled neighbours of this hop: the edge arrays
** are sized once for the hop (every sampled edge at most), the nodes and
** the map grow as new nodes appear. An edge EXCLUDE drops is dropped
** here, before its source is added, so what it alone reached is not in
** the batch. */
static void assemble_task(void *arg, size_t i, int w)
{
    hb_ctx *x = arg;
    hb_hop_state *h = x->hop;
    hb_batch *b = &x->hb[i];
    const lk_spec *ex = h->exclude;
    size_t k0 = h->bitem[i], k1 = h->bitem[i + 1], total = 0;
    for (size_t k = k0; k < k1; k++) total += h->items[k].res_n;
    size_t before_nn = b->nn, before_ne = b->ne;
    if (reserve_edges(x->p, b, total, h->rel >= 0)) {
        h->asm_fail = 1;
        return;
    }
    uint32_t *esrc = b->esrc, *edst = b->edst;
    size_t ne = b->ne;
    for (size_t k = k0; k < k1; k++) {
        const hb_item *it = &h->items[k];
        const uint32_t *res = h->arena + it->res_off;
        const uint32_t *eres = h->earena ? h->earena + it->res_off : NULL;
        for (uint32_t j = 0; j < it->res_n; j++) {
            if (ex && lk_excluded(ex, &b->lk, eres[j])) continue;
            uint32_t local;
            if (hb_add_node(b, res[j], &local)) { h->asm_fail = 1; return; }
            esrc[ne] = local;
            edst[ne] = it->pos;
            if (eres) b->eid[ne] = eres[j];
            if (h->rel >= 0) b->etype[ne] = (uint16_t)h->rel;
            ne++;
        }
    }
    b->ne = ne;
    if (h->rel >= 0) return;  /* hb_typed_hop counts the whole hop */
    b->frontier_lo = before_nn;
    b->nsn[h->index + 1] = (int64_t)(b->nn - before_nn);
    b->nse[h->index] = (int64_t)(ne - before_ne);
}

/* The hop's items, in (batch, frontier position) order, each with the
** graph block that holds the start of its node's object: the frontier
** [frontier_lo, hop_end) of each mini-batch, for a typed hop only the
** nodes of its relation's target type. */
static int hop_items(hb_ctx *x, gnn_err *e)
{
    hb_hop_state *h = x->hop;
    hb_blocks *bk = &x->bk;
    uint64_t tlo = 0, thi = UINT64_MAX;
    if (h->rel >= 0) {
        const plan_type *t = &x->p->types[x->p->rels[h->rel].dst];
        tlo = (uint64_t)t->first;
        thi = tlo + (uint64_t)t->count;
    }
    h->nitems = 0;
    for (int i = 0; i < x->nb; i++) {
        hb_batch *b = &x->hb[i];
        size_t lo = b->frontier_lo, hi = b->hop_end;
        if (gnn_grow((void **)&h->items, &h->capitems, h->nitems + (hi - lo),
                    sizeof *h->items) ||
            gnn_grow((void **)&bk->blockof, &bk->capblockof,
                    h->nitems + (hi - lo), sizeof *bk->blockof))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
        for (size_t q = lo; q < hi; q++) {
            if (b->nodes[q] < tlo || b->nodes[q] >= thi) continue;
            hb_item *it = &h->items[h->nitems];
            it->node = b->nodes[q];
            it->bi = (uint32_t)i;
            it->pos = (uint32_t)q;
            bk->blockof[h->nitems] = start_block(x, it->node);
            h->nitems++;
        }
    }
    return GNNDB_OK;
}

/* Second round: the continuation blocks of long adjacency lists, read
** whole. */
static int hop_continuations(hb_ctx *x, gnn_err *e)
{
    hb_hop_state *h = x->hop;
    hb_blocks *bk = &x->bk;
    uint64_t nblocks = x->gtopo->nblocks;
    if (gnn_grow((void **)&bk->blockof, &bk->capblockof, h->npend,
                sizeof *bk->blockof))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
    for (size_t i = 0; i < h->npend; i++) {
        if (h->pend[i].block >= nblocks)
            return corrupt_node(x, h->pend[i].block, h->pend[i].node, e);
        bk->blockof[i] = h->pend[i].block;
    }
    int rc = hb_bucket(bk, h->npend, nblocks, e);
    if (!rc)
        rc = bp_fetch(x->gpool, x->gtopo->f, bk->ublocks, bk->nub,
                      pend_visit, x, e);
    return rc;
}

/* Assemble in frontier order: new nodes get the next local index;
** mini-batches are independent, so they are assembled in parallel. */
static int hop_assemble(hb_ctx *x, gnn_err *e)
{
    hb_hop_state *h = x->hop;
    if (gnn_grow((void **)&h->bitem, &h->capbitem, (size_t)x->nb + 1,
                sizeof *h->bitem))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
    for (size_t k = 0, i = 0; i <= (size_t)x->nb; i++) {
        while (k < h->nitems && h->items[k].bi < i) k++;
        h->bitem[i] = k;
    }
    h->asm_fail = 0;
    wpool_run(x->pool, (size_t)x->nb, assemble_task, x);
    if (h->asm_fail)
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
    return GNNDB_OK;
}

int hb_hop_pass(hb_ctx *x, int hop, int rel, gnn_err *e)
{
    double t0 = gnn_now();
    hb_hop_state *h = x->hop;
    h->rel = rel;
    hb_opstats *o = &x->st.hop[hop];
    h->index = hop;
    int rc = hop_items(x, e);
    if (rc) return rc;
    h->narena = 0;
    h->npend = 0;
    rc = hb_bucket(&x->bk, h->nitems, x->gtopo->nblocks, e);
    gran_ops ops;
    hb_hop_ops(x, hop_visit, &ops);
    if (!rc)
        rc = gran_fetch(&h->ggran, x->gpool, x->gtopo->f, x->bk.ublocks,
                        x->bk.nub, &ops, o, e);
    /* continuation blocks are read whole */
    bp_stats before = *bp_get_stats(x->gpool);
    if (!rc && h->npend) rc = hop_continuations(x, e);
    if (rc) return rc;

    double ta = gnn_now();
    size_t ne0 = 0, ne1 = 0;
    for (int i = 0; i < x->nb; i++) ne0 += x->hb[i].ne;
    if ((rc = hop_assemble(x, e))) return rc;
    for (int i = 0; i < x->nb; i++) ne1 += x->hb[i].ne;
    o->cpu_seconds += gnn_now() - ta;
    stats_add(o, &before, bp_get_stats(x->gpool));
    o->items += h->nitems;
    o->edges += ne1 - ne0;
    o->seconds += gnn_now() - t0;
    return GNNDB_OK;
}
