/* hyperbatch.c — the executor of SAMPLE. H mini-batches are built together:
** for each hop the frontier nodes of all of them are bucketed by graph block
** (a block x mini-batch matrix held as items sorted by block), every needed
** block is read once through the buffer pool and each (mini-batch, node) that
** needs it is sampled while it is in memory. Then gather.c copies feature
** rows the same way, and the batches are handed out in order. HYPERBATCH 1
** is the per-mini-batch strategy of older systems.
**
** Determinism: each choice depends only on (seed, epoch, batch, hop, node)
** and results are assembled in frontier order after all blocks of a hop have
** been visited, so the order in which blocks arrive changes nothing. */
#include "exec.h"
#include "exec_int.h"
#include "rng.h"
#include "sample.h"
#include "pool.h"
#include "fcache.h"
#include "sort.h"
#include "spill.h"
#include "hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <sys/stat.h>
#include <time.h>

double hb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int hb_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    /* a quarter of slack, not doubling: capacities are what count against
    ** memory_limit, and staged arrays are sized once per hop */
    size_t c = GNN_MAX(need, *cap + *cap / 4);
    if (c < 64) c = 64;
    void *q = realloc(*p, c * elem);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* ---- per mini-batch node map: internal id -> local index ---- */

/* The table holds local indices only; a slot's key is the mini-batch's
** nodes[slot], so the map costs 4 bytes a slot. It is kept at most half
** full and grown on demand, never sized for a hop's worst case.
**
** fcache.c's u32map is a table of the same kind (linear probing, the same
** hash) kept apart on purpose: H of these maps are alive at once and
** count against the staged memory, hence implied keys, growth and the
** cheap reset below; the cache's maps are one or two per run, sized once,
** must delete (eviction), and one of them is keyed by accesses that lie in
** two arrays, so they store their keys. */

/* Empty the map for reuse by a new mini-batch, whose first `expect` nodes
** it must hold without growing. `used` lists the nodes the previous
** mini-batch left (its nodes[], still in place): when they are few,
** clearing their slots beats clearing the whole table. */
static int nmap_reset(nmap *m, size_t expect, const uint32_t *used,
                      size_t nused)
{
    size_t cap = 64;
    while (cap < expect * 2) cap <<= 1;
    if (cap > m->cap) {
        free(m->slots);
        m->slots = malloc(cap * sizeof *m->slots);
        if (!m->slots) { m->cap = 0; return -1; }
        m->cap = cap;
        memset(m->slots, 0xff, m->cap * sizeof *m->slots);
    } else if (used && m->n == nused && nused * 8 < m->cap) {
        /* every listed node is present, so walking to it terminates even
        ** when slots cleared earlier opened gaps in its probe run */
        for (size_t i = 0; i < nused; i++) {
            size_t h = gnn_hash_slot(used[i], m->cap);
            while (m->slots[h] == UINT32_MAX || used[m->slots[h]] != used[i])
                h = (h + 1) & (m->cap - 1);
            m->slots[h] = UINT32_MAX;
        }
    } else {
        memset(m->slots, 0xff, m->cap * sizeof *m->slots);
    }
    m->n = 0;
    return 0;
}

/* The map's table as scratch for the nn + 1 64-bit sort keys of a finished
** mini-batch, so that spilling a sub-round allocates no keys of its own
** (grown when the table is smaller); the map is cleared whole at its next
** reset. NULL when out of memory. */
uint64_t *hb_map_scratch(hb_batch *b)
{
    size_t need = (b->nn + 1) * sizeof(uint64_t) / sizeof *b->map.slots;
    if (b->map.cap < need) {
        size_t cap = GNN_MAX(b->map.cap, 64);
        while (cap < need) cap <<= 1;
        uint32_t *t = realloc(b->map.slots, cap * sizeof *t);
        if (!t) return NULL;
        b->map.slots = t;
        b->map.cap = cap;
    }
    b->map.n = SIZE_MAX;  /* no list of used nodes matches: memset on reset */
    return (uint64_t *)b->map.slots;
}

/* Double the table and place nodes[0..n) again. */
static int nmap_rehash(nmap *m, const uint32_t *nodes)
{
    size_t cap = m->cap * 2;
    uint32_t *t = malloc(cap * sizeof *t);
    if (!t) return -1;
    memset(t, 0xff, cap * sizeof *t);
    for (size_t i = 0; i < m->n; i++) {
        size_t h = gnn_hash_slot(nodes[i], cap);
        while (t[h] != UINT32_MAX) h = (h + 1) & (cap - 1);
        t[h] = (uint32_t)i;
    }
    free(m->slots);
    m->slots = t;
    m->cap = cap;
    return 0;
}

/* The local index of `node` in mini-batch b, appending it to b->nodes when
** new. Out of memory: -1, the batch unchanged. */
static int batch_add_node(hb_batch *b, uint32_t node, uint32_t *local)
{
    nmap *m = &b->map;
    size_t h = gnn_hash_slot(node, m->cap);
    while (m->slots[h] != UINT32_MAX) {
        if (b->nodes[m->slots[h]] == node) { *local = m->slots[h]; return 0; }
        h = (h + 1) & (m->cap - 1);
    }
    if (hb_grow((void **)&b->nodes, &b->capn, b->nn + 1, sizeof *b->nodes))
        return -1;
    if ((m->n + 1) * 2 > m->cap) {
        if (nmap_rehash(m, b->nodes)) return -1;
        h = gnn_hash_slot(node, m->cap);
        while (m->slots[h] != UINT32_MAX) h = (h + 1) & (m->cap - 1);
    }
    m->slots[h] = (uint32_t)b->nn;
    b->nodes[b->nn] = node;
    *local = (uint32_t)b->nn++;
    m->n++;
    return 0;
}

/* ---- seeds: each epoch's seeds (seeds.c) ---- */

static int load_seeds(hb_exec *x, gnn_err *e)
{
    plan *p = x->p;
    int rc = seeds_load(x->db, &p->graph, p->seeds_kind, p->split.token,
                        p->seed_list, p->n_seed_list, "", &x->seeds, e);
    if (rc) return rc;
    /* the plan counted the seeds from the catalog; trust what was loaded */
    p->nseeds_all = x->seeds.n;
    p->nseeds = x->seeds.n;
    int64_t lo = 0, hi = x->seeds.n;
    if (p->part_count > 1) {
        /* every rank computes the same epoch order over all seeds and keeps
        ** its slice of it, so the ranks' shares are disjoint and their union
        ** is the single-process epoch */
        plan_partition_range(x->seeds.n, p->part_rank, p->part_count, &lo,
                             &hi);
        p->nseeds = hi - lo;
    }
    p->batches_per_epoch = (p->nseeds + p->batch - 1) / p->batch;
    p->total_batches = p->batches_per_epoch * p->epochs;
    if (p->limit >= 0 && p->limit < p->total_batches)
        p->total_batches = p->limit;
    return seeds_order_init(&x->seeds, 1, p->shuffle, p->seed, 0x5eed, lo,
                            p->nseeds, e);
}

/* ---- sample: one hop of the whole hyperbatch ---- */

/* The block holding the start of `node`'s object. */
static uint64_t start_block(const hb_exec *x, uint32_t node)
{
    return idx_block_of(x->idx_first, x->idx_block, x->nidx, node);
}

int hb_bucket(hb_exec *x, size_t n, const uint64_t *blockof,
                           uint64_t nblocks, gnn_err *e)
{
    if (hb_grow((void **)&x->bstart, &x->capbstart, nblocks + 1,
                sizeof *x->bstart) ||
        hb_grow((void **)&x->sorted, &x->capsorted, n + 1, sizeof *x->sorted) ||
        hb_grow((void **)&x->ublocks, &x->capublocks, GNN_MIN(n, nblocks) + 1,
                sizeof *x->ublocks))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory bucketing blocks");
    memset(x->bstart, 0, (nblocks + 1) * sizeof *x->bstart);
    for (size_t i = 0; i < n; i++) x->bstart[blockof[i] + 1]++;
    x->nub = 0;
    for (uint64_t b = 0; b < nblocks; b++) {
        if (x->bstart[b + 1]) x->ublocks[x->nub++] = b;
        x->bstart[b + 1] += x->bstart[b];
    }
    /* place items; bstart[b] walks forward, then is restored */
    for (size_t i = 0; i < n; i++) x->sorted[x->bstart[blockof[i]]++] = (uint32_t)i;
    for (uint64_t b = nblocks; b > 0; b--) x->bstart[b] = x->bstart[b - 1];
    x->bstart[0] = 0;
    return GNNDB_OK;
}

static int corrupt_node(hb_exec *x, uint64_t no, uint32_t node, gnn_err *e)
{
    return gnn_seterr(e, GNNDB_CORRUPT,
                      "corrupt block %llu of %s: node %u is not where the "
                      "index says", (unsigned long long)no, x->gf->path, node);
}

void hb_run_block(hb_exec *x, uint64_t no, const void *data, size_t lo,
                  size_t hi, void (*fn)(void *, size_t, int),
                  double *cpu_seconds)
{
    x->vis_no = no;
    x->vis_data = data;
    x->vis_lo = lo;
    x->vis_hi = hi;
    size_t tasks = (hi - lo + HB_CHUNK - 1) / HB_CHUNK;
    double t0 = hb_now();
    /* small blocks of work are not worth waking the workers for */
    wpool_run(tasks > 1 ? x->pool : NULL, tasks, fn, x);
    *cpu_seconds += hb_now() - t0;
}

/* Sample the items [lo, hi) of the block being visited (one task). */
static void hop_task(void *arg, size_t task, int w)
{
    hb_exec *x = arg;
    hb_worker *wk = &x->workers[w];
    int fanout = x->p->fanouts[x->hop];
    size_t lo = x->vis_lo + task * HB_CHUNK;
    size_t hi = GNN_MIN(lo + HB_CHUNK, x->vis_hi);
    for (size_t k = lo; k < hi && !wk->oom; k++) {
        hb_item *it = &x->items[x->sorted[k]];
        const blk_node *o = x->objs[k - x->vis_lo];
        hb_batch *b = &x->hb[it->bi];
        uint64_t key = rng_key(x->p->seed, (uint64_t)b->epoch,
                               (uint64_t)b->batch, (uint64_t)x->hop, it->node);
        uint32_t n = sample_choose(key, o->degree, fanout, x->p->replace,
                                   wk->pos, wk->scratch);
        it->res_n = n;
        const uint32_t *nb = blk_node_nbrs(o);
        uint32_t *res = x->arena + it->res_off;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t q = wk->pos[i];
            if (q < o->n) {
                res[i] = nb[q];
                continue;
            }
            /* the neighbour lies in a continuation block */
            if (hb_grow((void **)&wk->pend, &wk->cappend, wk->npend + 1,
                        sizeof *wk->pend)) {
                wk->oom = 1;
                break;
            }
            hb_pend *pd = &wk->pend[wk->npend++];
            uint32_t r = q - o->n;
            pd->block = x->vis_no + 1 + r / x->cont_cap;
            pd->pos = r % x->cont_cap;
            pd->slot = it->res_off + i;
            pd->node = it->node;
        }
    }
}

static int hop_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    hb_exec *x = arg;
    if (hb_halted(x))
        return gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
    int fanout = x->p->fanouts[x->hop];
    size_t lo = x->bstart[no], hi = x->bstart[no + 1];
    if (hb_grow((void **)&x->objs, &x->capobjs, hi - lo, sizeof *x->objs))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
    /* serially: find each object and reserve its arena slots, so that the
    ** parallel part writes only to places of its own */
    uint32_t most = 0;
    size_t need = x->narena;
    for (size_t k = lo; k < hi; k++) {
        hb_item *it = &x->items[x->sorted[k]];
        const blk_node *o = blk_graph_find(data, it->node);
        /* a block read in pages was checked object by object (only its
        ** items' objects were read): the object must end where its span
        ** does */
        if (!o || o->start != 0 ||
            !blk_graph_object_fits(data, (uint32_t)(it->node -
                                   ((const blk_header *)data)->first_node)))
            return corrupt_node(x, no, it->node, e);
        x->objs[k - lo] = o;
        uint32_t m = sample_max(o->degree, fanout, x->p->replace);
        it->res_off = need;
        need += m;
        if (m > most) most = m;
    }
    if (hb_grow((void **)&x->arena, &x->caparena, need + 1, sizeof *x->arena))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
    x->narena = need;
    int nw = wpool_threads(x->pool);
    for (int w = 0; w < nw; w++) {
        hb_worker *wk = &x->workers[w];
        if (hb_grow((void **)&wk->pos, &wk->cappos, most + 1, sizeof *wk->pos))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
        wk->npend = 0;
        wk->oom = 0;
    }
    hb_run_block(x, no, data, lo, hi, hop_task, &x->st.hop[x->hop].cpu_seconds);
    /* gather the workers' continuation requests */
    for (int w = 0; w < nw; w++) {
        hb_worker *wk = &x->workers[w];
        if (wk->oom ||
            hb_grow((void **)&x->pend, &x->cappend, x->npend + wk->npend + 1,
                    sizeof *x->pend))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
        if (wk->npend)
            memcpy(x->pend + x->npend, wk->pend, wk->npend * sizeof *wk->pend);
        x->npend += wk->npend;
    }
    return GNNDB_OK;
}

static int pend_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    hb_exec *x = arg;
    const blk_header *h = data;
    const blk_node *o = h->count ? blk_graph_object(data, 0) : NULL;
    for (size_t k = x->bstart[no]; k < x->bstart[no + 1]; k++) {
        hb_pend *pd = &x->pend[x->sorted[k]];
        if (!o || o->node != pd->node || !(h->flags & BLK_FLAG_CONT_FIRST) ||
            pd->pos >= o->n)
            return corrupt_node(x, no, pd->node, e);
        x->arena[pd->slot] = blk_node_nbrs(o)[pd->pos];
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

/* Append one mini-batch's sampled neighbours of this hop: the edge arrays
** are sized once for the hop (every sampled edge is kept), the nodes and
** the map grow as new nodes appear. */
static void assemble_task(void *arg, size_t i, int w)
{
    hb_exec *x = arg;
    hb_batch *b = &x->hb[i];
    size_t k0 = x->bitem[i], k1 = x->bitem[i + 1], total = 0;
    for (size_t k = k0; k < k1; k++) total += x->items[k].res_n;
    size_t before_nn = b->nn, before_ne = b->ne;
    int fail = hb_grow((void **)&b->esrc, &b->cape, b->ne + total + 1,
                       sizeof *b->esrc);
    if (!fail && b->cape > b->capdst) {
        uint32_t *d = realloc(b->edst, b->cape * sizeof *d);
        if (d) { b->edst = d; b->capdst = b->cape; } else fail = 1;
    }
    if (fail) { x->asm_fail = 1; return; }
    uint32_t *esrc = b->esrc, *edst = b->edst;
    size_t ne = b->ne;
    for (size_t k = k0; k < k1; k++) {
        const hb_item *it = &x->items[k];
        const uint32_t *res = x->arena + it->res_off;
        for (uint32_t j = 0; j < it->res_n; j++) {
            uint32_t local;
            if (batch_add_node(b, res[j], &local)) { x->asm_fail = 1; return; }
            esrc[ne] = local;
            edst[ne] = it->pos;
            ne++;
        }
    }
    b->ne = ne;
    b->frontier_lo = before_nn;
    b->nsn[x->hop + 1] = (int64_t)(b->nn - before_nn);
    b->nse[x->hop] = (int64_t)(ne - before_ne);
}

static int run_hop(hb_exec *x, int hop, gnn_err *e)
{
    double t0 = hb_now();
    hb_opstats *o = &x->st.hop[hop];
    x->hop = hop;
    x->nitems = 0;
    /* items in (batch, frontier position) order */
    for (int i = 0; i < x->nb; i++) {
        hb_batch *b = &x->hb[i];
        size_t lo = b->frontier_lo, hi = b->nn;
        if (hb_grow((void **)&x->items, &x->capitems, x->nitems + (hi - lo),
                    sizeof *x->items) ||
            hb_grow((void **)&x->blockof, &x->capblockof, x->nitems + (hi - lo),
                    sizeof *x->blockof))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
        for (size_t q = lo; q < hi; q++) {
            hb_item *it = &x->items[x->nitems];
            it->node = b->nodes[q];
            it->bi = (uint32_t)i;
            it->pos = (uint32_t)q;
            x->blockof[x->nitems] = start_block(x, it->node);
            x->nitems++;
        }
    }
    x->narena = 0;
    x->npend = 0;
    int rc = hb_bucket(x, x->nitems, x->blockof,
                             (uint64_t)x->p->graph.graph_blocks, e);
    gran_ops ops;
    hb_hop_ops(x, hop_visit, &ops);
    if (!rc)
        rc = gran_fetch(&x->ggran, x->gpool, x->gf, x->ublocks, x->nub, &ops,
                        o, e);
    /* continuation blocks are read whole */
    bp_stats before = *bp_get_stats(x->gpool);
    if (!rc && x->npend) {
        /* second round: continuation blocks of long adjacency lists */
        if (hb_grow((void **)&x->blockof, &x->capblockof, x->npend,
                    sizeof *x->blockof))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
        for (size_t i = 0; i < x->npend; i++) {
            if (x->pend[i].block >= (uint64_t)x->p->graph.graph_blocks)
                return corrupt_node(x, x->pend[i].block, x->pend[i].node, e);
            x->blockof[i] = x->pend[i].block;
        }
        rc = hb_bucket(x, x->npend, x->blockof,
                             (uint64_t)x->p->graph.graph_blocks, e);
        if (!rc)
            rc = bp_fetch(x->gpool, x->gf, x->ublocks, x->nub, pend_visit, x, e);
    }
    if (rc) return rc;

    /* assemble in frontier order: new nodes get the next local index;
    ** mini-batches are independent, so they are assembled in parallel */
    double ta = hb_now();
    if (hb_grow((void **)&x->bitem, &x->capbitem, (size_t)x->nb + 1,
                sizeof *x->bitem))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
    for (size_t k = 0, i = 0; i <= (size_t)x->nb; i++) {
        while (k < x->nitems && x->items[k].bi < i) k++;
        x->bitem[i] = k;
    }
    x->asm_fail = 0;
    wpool_run(x->pool, (size_t)x->nb, assemble_task, x);
    if (x->asm_fail)
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
    uint64_t edges = 0;
    for (int i = 0; i < x->nb; i++) edges += (uint64_t)x->hb[i].nse[hop];
    o->cpu_seconds += hb_now() - ta;
    stats_add(o, &before, bp_get_stats(x->gpool));
    o->items += x->nitems;
    o->edges += edges;
    o->seconds += hb_now() - t0;
    return GNNDB_OK;
}

/* ---- hyperbatch orchestration ---- */

static int hb_alloc_batches(hb_exec *x, int n, gnn_err *e)
{
    if (n <= x->capb) return GNNDB_OK;
    hb_batch *nb = realloc(x->hb, (size_t)n * sizeof *nb);
    if (!nb) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    memset(nb + x->capb, 0, (size_t)(n - x->capb) * sizeof *nb);
    x->hb = nb;
    x->capb = n;
    return GNNDB_OK;
}

static void batch_free(hb_batch *b)
{
    free(b->nodes);
    free(b->map.slots);
    free(b->esrc);
    free(b->edst);
    free(b->n_id);
    free(b->edge_index);
    free(b->x);
    free(b->y);
}

size_t hb_batch_bytes(const hb_batch *b)
{
    return b->capn * 4 + b->map.cap * 4 + b->cape * 4 + b->capdst * 4 +
           b->cap_out_nodes * 8 + b->cap_out_edges * 8 + b->cap_out_x * 4 +
           b->cap_out_y * 8;
}

size_t hb_work_bytes(const hb_exec *x)
{
    return x->capitems * sizeof *x->items + x->capblockof * 8 +
           x->capsorted * 4 + x->caparena * 4 + x->capgitems * sizeof(hb_gitem) +
           x->cappend * sizeof(hb_pend) + x->capbstart * sizeof(size_t) +
           x->capcrows * 4 + x->capcfut * 4 + x->capcsrc * 8 +
           fc_scratch_bytes(x->fc);
}

/* Bytes that growing an array of `cap` elements to `need` adds. */
static size_t grow_bytes(size_t need, size_t cap, size_t elem)
{
    return need > cap ? (need - cap) * elem : 0;
}

/* What mini-batch b stages: what it holds, and with its rows gathered the
** outputs still to be sized (a slot reused from an earlier hyperbatch
** already holds some of their capacity). */
static size_t staged_of(const hb_batch *b, int64_t dim)
{
    return hb_batch_bytes(b) + grow_bytes(b->nn * (size_t)dim, b->cap_out_x, 4) +
           grow_bytes(b->nn, b->cap_out_nodes, 8) +
           grow_bytes(2 * b->ne, b->cap_out_edges, 8) +
           grow_bytes((size_t)b->nseeds, b->cap_out_y, 8);
}

/* What a hyperbatch stages once its rows are gathered (fit_prefix's sum). */
static size_t staged_with_features(const hb_exec *x)
{
    int64_t dim = x->p->has_feat ? x->p->feat.dim : 0;
    size_t sum = 0;
    for (int i = 0; i < x->nb; i++) sum += staged_of(&x->hb[i], dim);
    return sum;
}

/* Exchange the hyperbatch being handed out with the one sampled ahead. */
static void swap_ahead(hb_exec *x)
{
    hb_batch *b = x->hb;
    int n = x->nb, c = x->capb;
    x->hb = x->hb2;
    x->nb = x->nb2;
    x->capb = x->capb2;
    x->hb2 = b;
    x->nb2 = n;
    x->capb2 = c;
}

/* Keep what is staged within the plan's budget: when the mini-batches built
** so far (plus `extra(i)` bytes each still to come, e.g. their feature rows)
** do not fit, keep the longest prefix that does and free the rest; they are
** built again in the next hyperbatch with the same result, since every
** choice depends only on its key. A single mini-batch that does not fit is
** an error. */
static int fit_prefix(hb_exec *x, int with_features, size_t used)
{
    plan *p = x->p;
    int64_t dim = with_features && p->has_feat ? p->feat.dim : 0;
    int keep = 0;
    for (int i = 0; i < x->nb; i++) {
        size_t more = with_features ? staged_of(&x->hb[i], dim)
                                    : hb_batch_bytes(&x->hb[i]);
        if (used + more > (size_t)p->staged_bytes) break;
        used += more;
        keep++;
    }
    return keep;
}

/* Release the scratch of a hop (sized for every mini-batch of the
** hyperbatch); between hops it holds nothing that is still needed. */
static void work_free(hb_exec *x)
{
    free(x->items); x->items = NULL; x->capitems = 0;
    free(x->blockof); x->blockof = NULL; x->capblockof = 0;
    free(x->sorted); x->sorted = NULL; x->capsorted = 0;
    free(x->arena); x->arena = NULL; x->caparena = 0;
    free(x->pend); x->pend = NULL; x->cappend = 0;
    free(x->gitems); x->gitems = NULL; x->capgitems = 0;
}

/* Free every mini-batch slot and the hop scratch: a spilled round's
** sampling state is not needed while its rows are gathered and read back,
** and those phases have the whole budget to themselves. */
void hb_release_sampling(hb_exec *x)
{
    work_free(x);
    for (int i = 0; i < x->capb; i++) {
        batch_free(&x->hb[i]);
        memset(&x->hb[i], 0, sizeof x->hb[i]);
    }
    x->nb = 0;
    hb_trim();
}

/* Hand freed pages back to the system: glibc keeps large freed chunks in
** its arenas (its mmap threshold rises with every large free), and the
** pages it keeps count against a memory cgroup as if still in use. */
void hb_trim(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

static int hb_fit(hb_exec *x, int with_features, gnn_err *e)
{
    plan *p = x->p;
    int keep = fit_prefix(x, with_features, hb_work_bytes(x) + x->staged_other);
    if (keep == x->nb) return GNNDB_OK;
    work_free(x);
    keep = fit_prefix(x, with_features, hb_work_bytes(x) + x->staged_other);
    if (keep == 0 && !x->ahead) {
        char b1[32], b2[32];
        return gnn_seterr(e, GNNDB_NOMEM,
                          "memory_limit %s is too small for one mini-batch of "
                          "BATCH %lld (it stages more than %s); raise PRAGMA "
                          "memory_limit or lower BATCH or the fanouts",
                          db_fmt_size(p->memory_limit, b1, sizeof b1),
                          (long long)p->batch,
                          db_fmt_size(p->staged_bytes, b2, sizeof b2));
    }
    for (int i = keep; i < x->capb; i++) {
        batch_free(&x->hb[i]);
        memset(&x->hb[i], 0, sizeof x->hb[i]);
    }
    x->nb = keep;
    x->st.shrunk++;
    return GNNDB_OK;
}

int hb_sample_round(hb_exec *x, int64_t g, gnn_err *e)
{
    plan *p = x->p;
    int64_t epoch = g / p->batches_per_epoch;
    int64_t first = g % p->batches_per_epoch;
    int64_t n = GNN_MIN(x->h_next, p->batches_per_epoch - first);
    n = GNN_MIN(n, p->total_batches - g);
    double t0 = hb_now();
    if (hb_alloc_batches(x, (int)n, e)) return e->rc;
    const uint32_t *order = seeds_order(&x->seeds, epoch);
    for (int i = 0; i < (int)n; i++) {
        hb_batch *b = &x->hb[i];
        b->epoch = epoch;
        b->batch = first + i;
        int64_t lo = b->batch * p->batch;
        int64_t hi = GNN_MIN(lo + p->batch, p->nseeds);
        b->nn = b->ne = 0;
        b->frontier_lo = 0;
        b->nseeds = hi - lo;
        memset(b->nsn, 0, sizeof b->nsn);
        memset(b->nse, 0, sizeof b->nse);
        /* sized for the seeds; assembly grows it once per hop as needed */
        if (nmap_reset(&b->map, (size_t)p->batch, b->nodes, b->map.n))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        for (int64_t s = lo; s < hi; s++) {
            uint32_t local;
            if (batch_add_node(b, order[s], &local))
                return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        }
        /* a seed listed twice (impossible after dedup) would shrink this */
        b->nsn[0] = (int64_t)b->nn;
        b->nseeds = (int64_t)b->nn;
    }
    x->nb = (int)n;
    x->cur = 0;
    x->st.seeds.seconds += hb_now() - t0;
    for (int h = 0; h < p->nhops && x->nb; h++) {
        int rc = run_hop(x, h, e);
        if (!rc) rc = hb_fit(x, 0, e);
        if (rc) return rc;
    }
    return GNNDB_OK;
}

/* Build the next hyperbatch: batches [next_global, ...) within one epoch.
** Under belady the hyperbatch after it is sampled before it is gathered
** (the inspector-executor split): its rows are the future the cache evicts
** by, and it is the next one handed out, cut only as hb_fit would cut it. */
static int build_hyperbatch(hb_exec *x, gnn_err *e)
{
    plan *p = x->p;
    int rc;
    x->staged_other = 0;
    if (x->nb2 > 0) {
        swap_ahead(x);
        x->nb2 = 0;
        x->cur = 0;
    } else if ((rc = hb_sample_round(x, x->next_global, e))) {
        return rc;
    }
    rc = hb_fit(x, 1, e);
    if (rc) return rc;
    int64_t after = x->next_global + x->nb;
    if (p->cache_policy == FC_BELADY && after < p->total_batches) {
        x->staged_other = staged_with_features(x);
        swap_ahead(x);
        x->ahead = 1;
        rc = hb_sample_round(x, after, e);
        x->ahead = 0;
        swap_ahead(x);
        x->cur = 0;
        x->staged_other = 0;
        if (rc) return rc;
    }
    rc = hb_gather(x, e);
    if (rc) return rc;
    rc = hb_finish_batches(x, e);
    if (rc) return rc;
    x->next_global += x->nb;
    /* size the next hyperbatch from what this one really staged, with a
    ** tenth to spare; hb_fit still cuts one that turns out larger */
    size_t sum = hb_work_bytes(x);
    for (int i = 0; i < x->nb; i++) sum += hb_batch_bytes(&x->hb[i]);
    double per = (double)sum / (double)x->nb;
    /* belady holds two hyperbatches at once */
    if (p->cache_policy == FC_BELADY) per *= 2;
    int64_t h = (int64_t)((double)p->staged_bytes / (per * 1.1));
    x->h_next = GNN_MAX(1, GNN_MIN(h, p->hyperbatch_cap));
    if ((uint64_t)x->nb > x->st.max_hyperbatch)
        x->st.max_hyperbatch = (uint64_t)x->nb;
    x->st.hyperbatches++;
    return GNNDB_OK;
}

int hb_open(gnndb *db, plan *p, hb_exec **out, gnn_err *e)
{
    *out = NULL;
    hb_exec *x = calloc(1, sizeof *x);
    if (!x) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    x->db = db;
    x->p = p;
    x->cont_cap = blk_graph_cont_capacity(p->graph.block_size);
    x->h_next = p->hyperbatch;
    x->emit = &x->rounds[0];
    x->build = &x->rounds[1];
    int rc = GNNDB_OK;

    if (p->into && (rc = hb_prepare_into(p->into, e))) goto fail;
    if ((rc = io_open(p->io, (unsigned)p->io_depth, &x->io, e))) goto fail;

    if ((rc = db_open_graph(db, &p->graph, 1, &x->gf, e))) goto fail;
    if ((rc = bp_open(p->graph_frames, p->graph.block_size, x->io, &x->gpool,
                      e)))
        goto fail;
    bp_set_max_coalesce(x->gpool, (unsigned)p->coalesce);
    x->ggran.mode = p->read_granularity;
    x->ggran.pr = &p->profile;
    if ((rc = db_load_graph_index(db, &p->graph, &x->idx_first, &x->idx_block,
                                  &x->nidx, e)))
        goto fail;
    x->pool = wpool_new(p->threads);
    x->workers = calloc((size_t)GNN_MAX(1, p->threads), sizeof *x->workers);
    if (!x->pool || !x->workers) {
        rc = gnn_seterr(e, GNNDB_NOMEM, "cannot start %d worker threads",
                        p->threads);
        goto fail;
    }
    if ((rc = hb_gather_open(x, e))) goto fail;
    if (p->spill && (rc = hbs_open(x, e))) goto fail;
    x->s_next = p->spill ? (int64_t)GNN_MAX(1, p->spill_subround) : p->hyperbatch;
    if ((rc = load_seeds(x, e))) goto fail;
    if ((rc = hb_transfer_open(x, e))) goto fail;
    *out = x;
    return GNNDB_OK;
fail:
    hb_close(x);
    return rc;
}

int hb_next(hb_exec *x, const gnndb_batch_view **view, gnn_err *e)
{
    *view = NULL;
    if (x->p->spill) return hbp_next(x, view, e);
    if (x->cur >= x->nb) {
        if (x->next_global >= x->p->total_batches) return GNNDB_DONE;
        if (x->db->interrupt)
            return gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
        double t0 = hb_now();
        int rc = build_hyperbatch(x, e);
        x->est.seconds += hb_now() - t0;
        if (rc) return rc;
    }
    hb_batch *b = &x->hb[x->cur++];
    int rc = hb_emit(x, b, view, e);
    if (rc) return rc;
    /* start copying the next batch while the caller trains on this one */
    if (x->xf && x->cur < x->nb)
        xfer_prefetch(x->xf, &x->hb[x->cur].view, NULL);
    x->est.batches++;
    return GNNDB_BATCH;
}

static void opstats_add(hb_opstats *a, const hb_opstats *b)
{
    a->seconds += b->seconds;
    a->cpu_seconds += b->cpu_seconds;
    a->bytes_out += b->bytes_out;
    a->blocks_read += b->blocks_read;
    a->bytes_read += b->bytes_read;
    a->hits += b->hits;
    a->misses += b->misses;
    a->reads_issued += b->reads_issued;
    a->pages_read += b->pages_read;
    a->partial_blocks += b->partial_blocks;
    a->items += b->items;
    a->edges += b->edges;
}

/* What building counted (as of the last round joined, while one is being
** built on its own thread), what handing out counted, and the spill
** area's counters. */
const hb_stats *hb_get_stats(hb_exec *x)
{
    if (!x->bg_running) x->snap = x->st;
    hb_stats *v = &x->view;
    *v = x->snap;
    v->batches += x->est.batches;
    v->nodes += x->est.nodes;
    v->edges += x->est.edges;
    v->seconds += x->est.seconds;
    v->overlapped += x->est.overlapped;
    opstats_add(&v->transfer, &x->est.transfer);
    opstats_add(&v->spill, &x->est.spill);
    if (x->spill) {
        spill_stats s;
        spill_get_stats(x->spill, &s);
        v->spill_written = s.bytes_written;
        v->spill_read = s.bytes_read;
        v->spill_peak = s.peak_bytes;
        v->spill_read_wait = s.read_wait_seconds;
        v->spill_write_seconds = s.write_seconds;
    }
    return v;
}

void hb_close(hb_exec *x)
{
    if (!x) return;
    hbp_stop(x);
    hb_transfer_close(x);
    for (int i = 0; i < x->capb; i++) batch_free(&x->hb[i]);
    free(x->hb);
    for (int i = 0; i < x->capb2; i++) batch_free(&x->hb2[i]);
    free(x->hb2);
    hb_gather_close(x);
    hbs_close(x);
    if (x->gpool) bp_close(x->gpool);
    gran_free(&x->ggran);
    if (x->gf) blkf_close(x->gf);
    if (x->io) io_close(x->io);
    free(x->idx_first);
    free(x->idx_block);
    seeds_free(&x->seeds);
    free(x->items);
    free(x->blockof);
    free(x->sorted);
    free(x->bstart);
    free(x->ublocks);
    free(x->arena);
    free(x->pend);
    free(x->objs);
    free(x->bitem);
    if (x->workers)
        for (int w = 0; w < GNN_MAX(1, x->p->threads); w++) {
            free(x->workers[w].pos);
            free(x->workers[w].pend);
        }
    free(x->workers);
    wpool_free(x->pool);
    free(x);
}
