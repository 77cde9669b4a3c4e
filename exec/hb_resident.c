/* hb_resident.c — a round built from resident blocks. When the buffer pools
** hold every block of the graph and of each table the round gathers (the
** plan that reads the database once: the first round reads it whole),
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
#include "clock.h"
#include "grow.h"
#include "exec_int.h"
#include "batch.h"
#include "gather.h"
#include "transfer.h"
#include "hb_resident.h"
#include "hop_resident.h"
#include "hop_temporal.h"
#include "hb_round.h"

#include <pthread.h>
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
    hb_ctx *x;
    const void **gdata;      /* graph block b: its pinned frame */
    hb_rs_graph graph;       /* the same, for the hops (hop_resident.c) */
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

/* Frames faulted in at once, part i of parts of [from, to). */
typedef struct rs_fault {
    bp_pool *bp;
    size_t from, to, parts;
} rs_fault;

static void rs_fault_task(void *arg, size_t i, int w)
{
    const rs_fault *a = arg;
    size_t n = a->to - a->from;
    bp_prefault(a->bp, a->from + n * i / a->parts,
                a->from + n * (i + 1) / a->parts);
}

/* Before nm blocks are read into frames never used: their pages faulted
** in by every worker at once. The kernel zeroes each fresh page on the
** thread that first writes it, and that was three quarters of reading a
** 1.2 GiB database into new pools on one thread (perf: clear_page_rep), a
** serial start that capped 16 threads at 8x one. Below 64 frames it is
** not worth a fork-join. */
static void rs_prefault(wpool *pool, bp_pool *bp, size_t nm)
{
    int nw = wpool_threads(pool);
    size_t from = bp_frames_touched(bp);
    if (nw < 2 || nm < 64 || from >= bp_nframes(bp)) return;
    rs_fault a = {bp, from, GNN_MIN(bp_nframes(bp), from + nm),
                  (size_t)nw};
    wpool_run(pool, a.parts, rs_fault_task, &a);
}

/* Read the blocks [0, n) of f that the pool lacks (all of them at the
** first round: the plan reads the database once, and a resident round finds
** its blocks without asking), with the reads counted in *o; then pin all of
** them into data[]. */
static int pin_all(wpool *pool, bp_pool *bp, blk_file *f, size_t n,
                   const void **data, hb_opstats *o, gnn_err *e)
{
    size_t nm = 0;
    for (size_t b = 0; b < n; b++) nm += !bp_has(bp, f, b);
    if (nm) {
        rs_prefault(pool, bp, nm);
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
    hb_ctx *x = r->x;
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

/* The pinned graph as the hops read it, with each block's first node and
** count beside it. */
static int rs_graph_of(rs_round *r, gnn_err *e)
{
    uint64_t *first = malloc((r->ng + 1) * sizeof *first);
    uint32_t *count = malloc((r->ng + 1) * sizeof *count);
    if (!first || !count) {
        free(first);
        free(count);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    }
    for (size_t b = 0; b < r->ng; b++) {
        const blk_header *h = r->gdata[b];
        first[b] = h->first_node;
        count[b] = h->count;
    }
    r->graph = (hb_rs_graph){r->x->gtopo, r->gdata, r->ng, first, count};
    return GNNDB_OK;
}

/* Pin every block the round reads. */
static int rs_pin(rs_round *r, gnn_err *e)
{
    hb_ctx *x = r->x;
    const plan *p = x->p;
    size_t ng = (size_t)x->gtopo->nblocks;
    size_t nf = p->has_feat ? (size_t)p->feat.nblocks : 0;
    size_t nl = p->has_labels ? (size_t)p->labels.nblocks : 0;
    r->gdata = calloc(ng + nf + nl + 1, sizeof *r->gdata);
    if (!r->gdata) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    const void **fdata = r->gdata + ng, **ldata = fdata + nf;
    int rc = pin_all(x->pool, x->gpool, x->gtopo->f, ng, r->gdata,
                     &x->st.hop[0], e);
    if (!rc) {
        r->ng = ng;
        rc = rs_graph_of(r, e);
    }
    if (!rc && nf &&
        !(rc = pin_all(x->pool, x->fpool, x->ff, nf, fdata, &x->st.gather,
                       e)))
        r->nf = nf;
    if (!rc && nl &&
        !(rc = pin_all(x->pool, x->fpool, x->lf, nl, ldata, &x->st.gather,
                       e)))
        r->nl = nl;
    if (!rc && nf) rc = rs_table_of(&r->feat, &p->feat, fdata, e);
    if (!rc && nl) rc = rs_table_of(&r->labels, &p->labels, ldata, e);
    return rc;
}

/* Whether this round is built here: the plan keeps every block resident
** (plan_resident), and the pools have the frames. */
static int rs_eligible(const hb_ctx *x)
{
    const plan *p = x->p;
    size_t need = (p->has_feat ? (size_t)p->feat.nblocks : 0) +
                  (p->has_labels ? (size_t)p->labels.nblocks : 0);
    return plan_resident(p) &&
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

/* Where the outputs go in pinned memory (PRAGMA pin_memory, TO DEVICE),
** every kept batch's grown to its size on the caller's thread before the
** gather tasks, so that no worker allocates or frees pinned memory, which
** synchronises the device. Ordinary memory is grown by each batch's task,
** on the worker's own arena: grown here, on the caller's, the round's
** freed outputs stayed in one arena and a Python loader under 64 MiB grew
** past it. */
static int rs_reserve(hb_ctx *x, gnn_err *e)
{
    const plan *p = x->p;
    if (!hb_out_pinned(x)) return GNNDB_OK;
    for (int i = 0; i < x->nb; i++) {
        hb_batch *b = &x->hb[i];
        if ((p->has_feat &&
             hb_out_grow(x, (void **)&b->x, &b->cap_out_x,
                         b->nn * p->feat.dim + 1, sizeof *b->x)) ||
            (p->has_labels &&
             hb_out_grow(x, (void **)&b->y, &b->cap_out_y,
                         (size_t)b->nseeds + 1, sizeof *b->y)) ||
            hb_out_grow(x, (void **)&b->n_id, &b->cap_out_nodes, b->nn + 1,
                        sizeof *b->n_id) ||
            hb_out_grow(x, (void **)&b->edge_index, &b->cap_out_edges,
                        2 * b->ne + 1, sizeof *b->edge_index))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory for a round's "
                              "batches");
    }
    return GNNDB_OK;
}

/* b's feature rows into its x and its seeds' labels into y, in local
** order (the arrays grown here unless rs_reserve did). */
static int rs_gather(rs_round *r, hb_batch *b, gnn_err *e)
{
    const plan *p = r->x->p;
    if (p->has_feat) {
        if (hb_out_grow(r->x, (void **)&b->x, &b->cap_out_x,
                        b->nn * p->feat.dim + 1, sizeof *b->x))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory for x");
        int rc = rs_copy_rows(&r->feat, b->nodes, b->nn, b->x, e);
        if (rc) return rc;
    }
    if (p->has_labels) {
        if (hb_out_grow(r->x, (void **)&b->y, &b->cap_out_y,
                        (size_t)b->nseeds + 1, sizeof *b->y))
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
    hb_ctx *x = r->x;
    hb_batch *b = &x->hb[i];
    gnn_err e = {0};
    double t0 = gnn_now();
    int rc = hb_halted(x) ? gnn_seterr(&e, GNNDB_INTERRUPT, "interrupted")
                          : GNNDB_OK;
    if (!rc && x->p->temporal) {
        hb_tm_graph tg = {&r->graph, NULL, r->graph.t};
        rc = hb_tm_sample(&tg, x->p, x->tm, b, &e);
    }
    else if (!rc) rc = hb_rs_sample(&r->graph, x->p, b, x->rsw[w], &e);
    r->busy[2 * w] += gnn_now() - t0;
    if (rc) rs_fail(r, i, &e);
}

static void rs_gather_task(void *arg, size_t i, int w)
{
    rs_round *r = arg;
    hb_ctx *x = r->x;
    hb_batch *b = &x->hb[i];
    gnn_err e = {0};
    double t0 = gnn_now();
    int rc = rs_gather(r, b, &e);
    /* n_id through the key map needs the index, read on the caller's
    ** thread after the round (rs_run) */
    if (!rc && !x->p->graph.has_map)
        rc = hb_finish_batch(x, b, NULL, NULL, NULL, &e);
    r->busy[2 * w + 1] += gnn_now() - t0;
    if (rc) rs_fail(r, i, &e);
}

/* ---- the round ---- */

/* Add what the round did to the counters: per hop its nodes and edges, the
** workers' busy seconds as the hops' and gather's CPU time. */
static void rs_count(rs_round *r, int kept)
{
    hb_ctx *x = r->x;
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
    hb_ctx *x = r->x;
    int nw = wpool_threads(x->pool);
    r->busy = calloc(2 * (size_t)nw, sizeof *r->busy);
    if (!r->busy) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    if (!x->rsw) {
        if (!(x->rsw = calloc((size_t)nw, sizeof *x->rsw)))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        x->nrsw = nw;
        for (int w = 0; w < nw; w++)
            if (!(x->rsw[w] = hb_rs_worker_new()))
                return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    }
    int rc = hb_seed_round(x, g, e);
    if (rc) return rc;
    wpool_run(x->pool, (size_t)x->nb, rs_sample_task, r);
    if ((rc = rs_settle(r, e)) || (rc = hb_fit(x, 1, e)) ||
        (rc = rs_reserve(x, e)))
        return rc;
    wpool_run(x->pool, (size_t)x->nb, rs_gather_task, r);
    if ((rc = rs_settle(r, e))) return rc;
    rs_count(r, x->nb);
    x->st.resident_rounds++;
    return x->p->graph.has_map ? hb_finish_batches(x, e) : GNNDB_OK;
}

void hb_resident_close(hb_ctx *x)
{
    for (int w = 0; w < x->nrsw; w++) hb_rs_worker_free(x->rsw[w]);
    free(x->rsw);
    x->rsw = NULL;
    x->nrsw = 0;
}

int hb_resident_round(hb_ctx *x, int64_t g, int *done, gnn_err *e)
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
    free((void *)r.graph.first);
    free((void *)r.graph.count);
    free(r.busy);
    *done = rc == GNNDB_OK;
    return rc;
}
