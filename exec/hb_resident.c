/* hb_resident.c — a round built from resident blocks. When the buffer pools
** hold every block of the graph and of each table the round gathers (the
** plan that reads the database once, after its first round has read it),
** each mini-batch is sampled hop by hop, gathered and finished by one task
** of the worker pool, reading neighbours and rows straight from pinned
** frames. The block x mini-batch matrix, the arena of choices and the
** gather's items exist to visit each block once per round; a resident
** block costs nothing to visit again, so here they only cost time.
**
** The batches are those of the block-wise round (hop.c, gather.c): every
** choice has the same key, neighbours are taken in the same order and new
** nodes numbered in frontier order, so the result is the same whatever H,
** the thread count or which path built the round. Memory is checked as the
** block-wise round checks it (hb_fit): once the round is sampled, the
** longest prefix of its mini-batches whose rows fit is kept, and the rest
** are built again next round. */
#include "exec_int.h"
#include "rng.h"
#include "sample.h"
#include "pool.h"
#include "copy.h"

#include <stdlib.h>
#include <string.h>

/* A table's pinned blocks, checked to hold rows [b * rpb, ...) each, so
** that a row's place follows from its number alone. */
typedef struct rs_table {
    const cat_table *t;
    const void **data;       /* block b: its pinned frame */
    uint64_t rows;
    uint32_t rpb;
    size_t off, rowbytes;    /* the rows' start in a block, a row's bytes */
} rs_table;

typedef struct rs_round {
    hb_exec *x;
    const void **gdata;      /* graph block b: its pinned frame */
    rs_table feat, labels;
    size_t ng, nf, nl;       /* blocks pinned in each */
    pthread_mutex_t mu;      /* guards err and err_at */
    gnn_err err;
    size_t err_at;           /* the batch the error came from */
    double *busy;            /* per worker: seconds in hops, then gather */
} rs_round;

/* ---- pinning ---- */

static int fill_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    return GNNDB_OK;
}

/* Read the blocks [0, n) of f that the pool lacks (those no round has
** needed yet: the plan reads the database once, and a resident round
** finds its blocks without asking), with the reads counted in *o; then pin
** all of them into data[]. */
static int pin_all(bp_pool *bp, blk_file *f, size_t n, const void **data,
                   hb_opstats *o, gnn_err *e)
{
    size_t nm = 0;
    for (size_t b = 0; b < n; b++) nm += !bp_has(bp, f, b);
    if (nm) {
        uint64_t *miss = malloc(nm * sizeof *miss);
        if (!miss) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        nm = 0;
        for (size_t b = 0; b < n; b++)
            if (!bp_has(bp, f, b)) miss[nm++] = b;
        bp_stats before = *bp_get_stats(bp);
        int rc = bp_fetch(bp, f, miss, nm, fill_visit, NULL, e);
        free(miss);
        const bp_stats *after = bp_get_stats(bp);
        o->blocks_read += after->blocks_read - before.blocks_read;
        o->bytes_read += after->bytes_read - before.bytes_read;
        o->misses += after->misses - before.misses;
        o->reads_issued += after->reads_issued - before.reads_issued;
        if (rc) return rc;
    }
    for (size_t b = 0; b < n; b++) {
        int rc = bp_get(bp, f, b, &data[b], e);
        if (rc == GNNDB_OK) continue;
        while (b-- > 0) bp_unpin(bp, f, b);
        return rc;
    }
    return GNNDB_OK;
}

static void unpin_all(bp_pool *bp, blk_file *f, size_t n)
{
    for (size_t b = 0; b < n; b++) bp_unpin(bp, f, b);
}

static void rs_unpin(rs_round *r)
{
    hb_exec *x = r->x;
    if (r->ng) unpin_all(x->gpool, x->gtopo->f, r->ng);
    if (r->nf) unpin_all(x->fpool, x->ff, r->nf);
    if (r->nl) unpin_all(x->fpool, x->lf, r->nl);
    r->ng = r->nf = r->nl = 0;
}

/* Table t's pinned blocks as rt, each checked to hold the rows its place
** says (the block-wise gather checks every row against its block's header
** instead). */
static int rs_table_of(rs_table *rt, const cat_table *t, const void **data,
                       gnn_err *e)
{
    rt->t = t;
    rt->data = data;
    rt->rows = (uint64_t)t->rows;
    rt->rpb = t->rows_per_block;
    rt->off = blk_data_offset(t->block_size);
    rt->rowbytes = (size_t)t->dim * blk_dtype_size(t->dtype);
    for (int64_t b = 0; b < t->nblocks; b++) {
        const blk_header *h = data[b];
        uint64_t first = (uint64_t)b * rt->rpb;
        uint64_t n = GNN_MIN((uint64_t)rt->rpb, rt->rows - first);
        if (h->kind != BLK_KIND_FEATURE || h->first_node != first ||
            h->count != n)
            return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %lld of "
                              "table %s: it holds rows from %llu, not %llu",
                              (long long)b, t->name,
                              (unsigned long long)h->first_node,
                              (unsigned long long)first);
    }
    return GNNDB_OK;
}

/* Pin every block the round reads. */
static int rs_pin(rs_round *r, gnn_err *e)
{
    hb_exec *x = r->x;
    const plan *p = x->p;
    size_t ng = (size_t)x->gtopo->nblocks;
    size_t nf = p->has_feat ? (size_t)p->feat.nblocks : 0;
    size_t nl = p->has_labels ? (size_t)p->labels.nblocks : 0;
    r->gdata = calloc(ng + nf + nl + 1, sizeof *r->gdata);
    if (!r->gdata) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    const void **fdata = r->gdata + ng, **ldata = fdata + nf;
    int rc = pin_all(x->gpool, x->gtopo->f, ng, r->gdata, &x->st.hop[0], e);
    if (!rc) r->ng = ng;
    if (!rc && nf &&
        !(rc = pin_all(x->fpool, x->ff, nf, fdata, &x->st.gather, e)))
        r->nf = nf;
    if (!rc && nl &&
        !(rc = pin_all(x->fpool, x->lf, nl, ldata, &x->st.gather, e)))
        r->nl = nl;
    if (!rc && nf) rc = rs_table_of(&r->feat, &p->feat, fdata, e);
    if (!rc && nl) rc = rs_table_of(&r->labels, &p->labels, ldata, e);
    return rc;
}

/* Whether this round is built here: the plan keeps every block resident
** (plan_resident), and a round has run block by block, reading the blocks
** its batches needed with reads in flight; the pools have the frames. */
static int rs_eligible(const hb_exec *x)
{
    const plan *p = x->p;
    size_t need = (p->has_feat ? (size_t)p->feat.nblocks : 0) +
                  (p->has_labels ? (size_t)p->labels.nblocks : 0);
    return plan_resident(p) && x->st.hyperbatches > 0 &&
           bp_nframes(x->gpool) >= (size_t)x->gtopo->nblocks &&
           (!need || bp_nframes(x->fpool) >= need);
}

/* ---- errors ---- */

/* Keep the error of the earliest batch, whichever thread met it first. */
static void rs_fail(rs_round *r, size_t i, const gnn_err *e)
{
    pthread_mutex_lock(&r->mu);
    if (!r->err.rc || i < r->err_at) {
        r->err = *e;
        r->err_at = i;
    }
    pthread_mutex_unlock(&r->mu);
}

/* ---- one hop of one mini-batch ---- */

static int rs_corrupt(const hb_exec *x, uint64_t no, uint32_t node, gnn_err *e)
{
    return gnn_seterr(e, GNNDB_CORRUPT,
                      "corrupt block %llu of %s: node %u is not where the "
                      "index says", (unsigned long long)no,
                      x->gtopo->f->path, node);
}

/* The block that holds the start of `node`'s list. */
static uint64_t rs_block_of(const rs_round *r, uint32_t node)
{
    const hb_rel_topo *t = r->x->gtopo;
    return idx_block_of(t->idx_first, t->idx_block, t->nidx, node);
}

/* Where the offset-table entry of `node`'s object lies in block no; NULL
** when the block does not hold the node (found corrupt later). */
static const uint32_t *rs_entry(const rs_round *r, uint64_t no, uint32_t node)
{
    if (no >= r->ng) return NULL;
    const blk_header *h = r->gdata[no];
    if (node < h->first_node || node - h->first_node >= h->count) return NULL;
    return (const uint32_t *)((const char *)h + blk_data_offset(h->block_size))
           + (node - h->first_node);
}

/* The object of `node`, whose list starts in block no, checked as
** hop_reserve checks it; NULL (and *e set) when the block disagrees. */
static const blk_node *rs_object(const rs_round *r, uint32_t node,
                                 uint64_t no, gnn_err *e)
{
    if (no >= r->ng) return rs_corrupt(r->x, no, node, e), NULL;
    const void *data = r->gdata[no];
    const blk_node *o = blk_graph_find(data, node);
    if (!o || o->start != 0 ||
        !blk_graph_object_fits(data, (uint32_t)(node -
                               ((const blk_header *)data)->first_node))) {
        rs_corrupt(r->x, no, node, e);
        return NULL;
    }
    return o;
}

/* Frontier nodes looked up ahead of the one being sampled: each node's
** offset-table entry, object and list are cache misses one after the
** other; RS_HOP_AHEAD places on its block is found and its entry asked
** for, half as far on its object. */
#define RS_HOP_AHEAD 8

static void rs_hop_ahead(const rs_round *r, const hb_batch *b, size_t q,
                         size_t hi, uint64_t *ring)
{
    size_t far = q + RS_HOP_AHEAD, near = q + RS_HOP_AHEAD / 2;
    if (far < hi) {
        uint64_t no = rs_block_of(r, b->nodes[far]);
        ring[far % RS_HOP_AHEAD] = no;
        const uint32_t *ent = rs_entry(r, no, b->nodes[far]);
        if (ent) __builtin_prefetch(ent);
    }
    if (near < hi) {
        const uint32_t *ent = rs_entry(r, ring[near % RS_HOP_AHEAD],
                                       b->nodes[near]);
        const char *data = r->gdata[ring[near % RS_HOP_AHEAD]];
        if (ent && *ent < BLK_MAX_SIZE) {
            __builtin_prefetch(data + *ent);
            __builtin_prefetch(data + *ent + 64);
        }
    }
}

/* Neighbour q of o (q >= o->n: in a continuation block after block no),
** checked as pend_visit checks it. */
static int rs_far_nbr(const rs_round *r, const blk_node *o, uint64_t no,
                      uint32_t q, uint32_t *nbr, gnn_err *e)
{
    uint32_t cap = r->x->gtopo->cont_cap, k = q - o->n;
    uint64_t cb = no + 1 + k / cap;
    if (cb >= r->ng) return rs_corrupt(r->x, cb, o->node, e);
    const blk_header *hd = r->gdata[cb];
    const blk_node *c = hd->count ? blk_graph_object(hd, 0) : NULL;
    if (!c || c->node != o->node || !(hd->flags & BLK_FLAG_CONT_FIRST) ||
        k % cap >= c->n)
        return rs_corrupt(r->x, cb, o->node, e);
    *nbr = blk_node_nbrs(c)[k % cap];
    return GNNDB_OK;
}

/* Grow b's edge arrays for `more` edges after b->ne. */
static int rs_reserve_edges(hb_batch *b, size_t more)
{
    if (hb_grow((void **)&b->esrc, &b->cape, b->ne + more + 1,
                sizeof *b->esrc))
        return -1;
    if (b->cape > b->capdst) {
        uint32_t *d = realloc(b->edst, b->cape * sizeof *d);
        if (!d) return -1;
        b->edst = d;
        b->capdst = b->cape;
    }
    return 0;
}

/* Sample hop h of mini-batch b: for each frontier node in order, its
** neighbours chosen, each added to the batch (new ones numbered in turn)
** with its edge. */
static int rs_hop(rs_round *r, hb_batch *b, int h, hb_worker *wk, gnn_err *e)
{
    const plan *p = r->x->p;
    int fanout = p->fanouts[h];
    uint64_t kh = rng_key_hop(p->seed, (uint64_t)b->epoch, (uint64_t)b->batch,
                              (uint64_t)h);
    size_t lo = b->frontier_lo, hi = b->nn, ne0 = b->ne;
    uint64_t ring[RS_HOP_AHEAD];
    for (size_t q = lo; q < lo + RS_HOP_AHEAD && q < hi; q++)
        ring[q % RS_HOP_AHEAD] = rs_block_of(r, b->nodes[q]);
    for (size_t q = lo; q < hi; q++) {
        uint32_t node = b->nodes[q];
        uint64_t no = ring[q % RS_HOP_AHEAD];
        rs_hop_ahead(r, b, q, hi, ring);
        const blk_node *o = rs_object(r, node, no, e);
        if (!o) return e->rc;
        uint32_t most = sample_max(o->degree, fanout, p->replace);
        if (hb_grow((void **)&wk->pos, &wk->cappos, most + 1, sizeof *wk->pos)
            || rs_reserve_edges(b, most))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
        uint32_t n = sample_choose(rng_key_node(kh, node), o->degree, fanout,
                                   p->replace, wk->pos, wk->scratch);
        const uint32_t *nb = blk_node_nbrs(o);
        for (uint32_t j = 0; j < n; j++)
            if (wk->pos[j] < o->n) hb_nmap_prefetch(&b->map, nb[wk->pos[j]]);
        for (uint32_t j = 0; j < n; j++) {
            uint32_t v = 0, local, at = wk->pos[j];
            if (at < o->n) v = nb[at];
            else if (rs_far_nbr(r, o, no, at, &v, e)) return e->rc;
            if (hb_add_node(b, v, &local))
                return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
            b->esrc[b->ne] = local;
            b->edst[b->ne++] = (uint32_t)q;
        }
    }
    b->frontier_lo = hi;
    b->nsn[h + 1] = (int64_t)(b->nn - hi);
    b->nse[h] = (int64_t)(b->ne - ne0);
    return GNNDB_OK;
}

/* ---- gather of one mini-batch ---- */

static int rs_bad_row(const cat_table *t, uint32_t row, gnn_err *e)
{
    return gnn_seterr(e, GNNDB_CORRUPT, "table %s has no row %u: a node id "
                      "past its %lld rows", t->name, row, (long long)t->rows);
}

/* Where row `row` lies in its pinned block. */
static inline const char *rs_row_at(const rs_table *rt, uint32_t row)
{
    return (const char *)rt->data[row / rt->rpb] + rt->off +
           (size_t)(row % rt->rpb) * rt->rowbytes;
}

/* Rows asked for ahead of the one being copied: each row is a cache miss
** in a table of any size, and a copy alone would wait for one at a time. */
#define RS_AHEAD 8

static inline void rs_prefetch(const char *row, size_t bytes)
{
    for (size_t c = 0; c < bytes; c += 64) __builtin_prefetch(row + c);
}

/* The rows of ids[0..n) of table rt, as float32, into dst (dim a row):
** streamed, since the batch is read only after the round. */
static int rs_copy_rows(const rs_table *rt, const uint32_t *ids, size_t n,
                        float *dst, gnn_err *e)
{
    const cat_table *t = rt->t;
    const char *ring[RS_AHEAD];
    for (size_t q = 0; q < n + RS_AHEAD; q++) {
        /* row k = q - RS_AHEAD leaves its slot of the ring to row q */
        if (q >= RS_AHEAD) {
            size_t k = q - RS_AHEAD;
            hb_put_row(t, dst + k * (size_t)t->dim, ring[k % RS_AHEAD], 1);
        }
        if (q >= n) continue;
        if (ids[q] >= rt->rows) return rs_bad_row(t, ids[q], e);
        ring[q % RS_AHEAD] = rs_row_at(rt, ids[q]);
        rs_prefetch(ring[q % RS_AHEAD], rt->rowbytes);
    }
    gnn_copy_stream_done();
    return GNNDB_OK;
}

/* b's feature rows into its x and its seeds' labels into y, in local
** order. */
static int rs_gather(rs_round *r, hb_batch *b, gnn_err *e)
{
    const plan *p = r->x->p;
    if (p->has_feat) {
        if (hb_grow((void **)&b->x, &b->cap_out_x, b->nn * p->feat.dim + 1,
                    sizeof *b->x))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory for x");
        int rc = rs_copy_rows(&r->feat, b->nodes, b->nn, b->x, e);
        if (rc) return rc;
    }
    if (p->has_labels) {
        if (hb_grow((void **)&b->y, &b->cap_out_y, (size_t)b->nseeds + 1,
                    sizeof *b->y))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory for y");
        for (size_t q = 0; q < (size_t)b->nseeds; q++) {
            if (b->nodes[q] >= r->labels.rows)
                return rs_bad_row(&p->labels, b->nodes[q], e);
            memcpy(&b->y[q], rs_row_at(&r->labels, b->nodes[q]),
                   sizeof *b->y);
        }
    }
    return GNNDB_OK;
}

/* ---- the tasks: one mini-batch each ---- */

static void rs_sample_task(void *arg, size_t i, int w)
{
    rs_round *r = arg;
    hb_exec *x = r->x;
    hb_batch *b = &x->hb[i];
    gnn_err e = {0};
    double t0 = hb_now();
    int rc = hb_halted(x) ? gnn_seterr(&e, GNNDB_INTERRUPT, "interrupted")
                          : GNNDB_OK;
    for (int h = 0; h < x->p->nhops && !rc; h++)
        rc = rs_hop(r, b, h, &x->hop.workers[w], &e);
    r->busy[2 * w] += hb_now() - t0;
    if (rc) rs_fail(r, i, &e);
}

static void rs_gather_task(void *arg, size_t i, int w)
{
    rs_round *r = arg;
    hb_exec *x = r->x;
    hb_batch *b = &x->hb[i];
    gnn_err e = {0};
    double t0 = hb_now();
    int rc = rs_gather(r, b, &e);
    /* n_id through the key map needs the index, read on the caller's
    ** thread after the round (rs_run) */
    if (!rc && !x->p->graph.has_map)
        rc = hb_finish_batch(x, b, NULL, NULL, NULL, &e);
    r->busy[2 * w + 1] += hb_now() - t0;
    if (rc) rs_fail(r, i, &e);
}

/* ---- the round ---- */

/* Add what the round did to the counters: per hop its nodes and edges, the
** workers' busy seconds as the hops' and gather's CPU time. */
static void rs_count(rs_round *r, int kept)
{
    hb_exec *x = r->x;
    const plan *p = x->p;
    int nw = wpool_threads(x->pool);
    double hop_s = 0, gat_s = 0;
    for (int w = 0; w < nw; w++) {
        hop_s += r->busy[2 * w];
        gat_s += r->busy[2 * w + 1];
    }
    /* the hops' time is split between them by the edges each sampled */
    uint64_t eh[AST_MAX_HOPS] = {0}, edges = 0;
    for (int i = 0; i < kept; i++)
        for (int h = 0; h < p->nhops; h++) {
            x->st.hop[h].items += (uint64_t)x->hb[i].nsn[h];
            eh[h] += (uint64_t)x->hb[i].nse[h];
            edges += (uint64_t)x->hb[i].nse[h];
        }
    for (int h = 0; h < p->nhops; h++) {
        double share = edges ? (double)eh[h] / (double)edges
                             : 1.0 / p->nhops;
        x->st.hop[h].edges += eh[h];
        x->st.hop[h].cpu_seconds += hop_s * share;
        x->st.hop[h].seconds += hop_s * share;
    }
    x->st.gather.cpu_seconds += gat_s;
    x->st.gather.seconds += gat_s;
    for (int i = 0; i < kept; i++) {
        x->st.gather.items += x->hb[i].nn;
        x->st.gather.bytes_out += x->hb[i].nn *
                                  (size_t)plan_x_dim(p) * sizeof(float);
    }
}

/* The round's error, if a task met one. */
static int rs_settle(rs_round *r, gnn_err *e)
{
    if (!r->err.rc) return GNNDB_OK;
    return gnn_seterr(e, r->err.rc, "%s", r->err.msg);
}

/* Seeds, then every mini-batch sampled in parallel; the prefix that fits
** kept (hb_fit); then each one's rows gathered and the batch finished in
** parallel. */
static int rs_run(rs_round *r, int64_t g, gnn_err *e)
{
    hb_exec *x = r->x;
    int nw = wpool_threads(x->pool);
    r->busy = calloc(2 * (size_t)nw, sizeof *r->busy);
    if (!r->busy) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    int rc = hb_seed_round(x, g, e);
    if (rc) return rc;
    wpool_run(x->pool, (size_t)x->nb, rs_sample_task, r);
    if ((rc = rs_settle(r, e)) || (rc = hb_fit(x, 1, e))) return rc;
    wpool_run(x->pool, (size_t)x->nb, rs_gather_task, r);
    if ((rc = rs_settle(r, e))) return rc;
    rs_count(r, x->nb);
    x->st.resident_rounds++;
    return x->p->graph.has_map ? hb_finish_batches(x, e) : GNNDB_OK;
}

int hb_resident_round(hb_exec *x, int64_t g, int *done, gnn_err *e)
{
    *done = 0;
    if (!rs_eligible(x)) return GNNDB_OK;
    rs_round r;
    memset(&r, 0, sizeof r);
    r.x = x;
    /* the block-wise scratch of an earlier round holds nothing needed */
    hb_release_work(x);
    pthread_mutex_init(&r.mu, NULL);
    int rc = rs_pin(&r, e);
    if (!rc) rc = rs_run(&r, g, e);
    pthread_mutex_destroy(&r.mu);
    rs_unpin(&r);
    free(r.gdata);
    free(r.busy);
    *done = rc == GNNDB_OK;
    return rc;
}
