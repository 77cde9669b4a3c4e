/* hyperbatch.c — the executor of SAMPLE. H mini-batches are built together:
** for each hop the frontier nodes of all of them are bucketed by graph block
** (a block x mini-batch matrix held as items sorted by block), every needed
** block is read once through the buffer pool and each (mini-batch, node) that
** needs it is sampled while it is in memory (one hop: hop.c). Then gather.c
** copies feature rows the same way, and the batches are handed out in order.
** HYPERBATCH 1 is the per-mini-batch strategy of older systems.
**
** This file opens a run (choosing its variant, node, link or typed, once:
** hb_variant.h), builds each hyperbatch in memory (its rounds: hb_round.c;
** from resident blocks: hb_resident.c), hands the batches out, and closes
** it; a spilled plan's rounds go through hb_pipeline.c instead.
**
** Determinism: each choice depends only on (seed, epoch, batch, hop, node)
** and results are assembled in frontier order after all blocks of a hop have
** been visited, so the order in which blocks arrive changes nothing. */
#include "clock.h"
#include "exec.h"
#include "exec_int.h"
#include "batch.h"
#include "gather.h"
#include "hb_resident.h"
#include "hb_round.h"
#include "hb_spill.h"
#include "hb_variant.h"
#include "hop.h"
#include "hb_times.h"
#include "transfer.h"
#include "pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The executor: the context its operators share (exec_int.h) and what
** only handing the counters out keeps. */
struct hb_exec {
    hb_ctx c;
    /* hb_get_stats adds x->c.st and x->c.est into view, from snap (the
    ** last joined round's st) while a round is built on its own thread */
    hb_stats snap, view;
};

/* What a hyperbatch stages once its rows are gathered (fit_prefix's sum). */
static size_t staged_with_features(const hb_ctx *x)
{
    int64_t dim = plan_x_dim(x->p);
    size_t sum = 0;
    for (int i = 0; i < x->nb; i++) sum += hb_staged_bytes(&x->hb[i], dim);
    return sum;
}

/* Exchange the hyperbatch being handed out with the one sampled ahead. */
static void swap_ahead(hb_ctx *x)
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

/* Build the next hyperbatch block by block: batches [next_global, ...)
** within one epoch. Under belady the hyperbatch after it is sampled before
** it is gathered (the inspector-executor split): its rows are the future
** the cache evicts by, and it is the next one handed out, cut only as
** hb_fit would cut it. */
static int build_blockwise(hb_ctx *x, gnn_err *e)
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
    if (p->cache_policy == GNN_CACHE_BELADY && after < p->total_batches) {
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
    rc = x->var->gather(x, e);
    if (rc) return rc;
    return hb_finish_batches(x, e);
}

/* Build the next hyperbatch from resident blocks where the pools hold them
** all (hb_resident.c), else block by block; then size the one after. */
static int build_hyperbatch(hb_ctx *x, gnn_err *e)
{
    plan *p = x->p;
    int done = 0;
    int rc = x->nb2 > 0 ? GNNDB_OK
                        : hb_resident_round(x, x->next_global, &done, e);
    if (!rc && !done) rc = build_blockwise(x, e);
    if (rc) return rc;
    x->next_global += x->nb;
    /* size the next hyperbatch from what this one really staged, with a
    ** tenth to spare; hb_fit still cuts one that turns out larger */
    size_t sum = hb_work_bytes(x);
    for (int i = 0; i < x->nb; i++) sum += hb_batch_bytes(&x->hb[i]);
    double per = (double)sum / (double)x->nb;
    x->h_next = plan_hyperbatch_fit(p, per * 1.1);
    if ((uint64_t)x->nb > x->st.max_hyperbatch)
        x->st.max_hyperbatch = (uint64_t)x->nb;
    x->st.hyperbatches++;
    return GNNDB_OK;
}

int hb_open(gnndb *db, plan *p, hb_exec **out, gnn_err *e)
{
    *out = NULL;
    hb_exec *ex = calloc(1, sizeof *ex);
    if (!ex) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    hb_ctx *x = &ex->c;
    x->db = db;
    x->p = p;
    /* the variant, chosen once: every difference between node, link and
    ** typed batches goes through it */
    x->var = p->link ? &hb_variant_link
             : p->typed ? &hb_variant_typed : &hb_variant_node;
    x->h_next = p->hyperbatch;
    int rc = GNNDB_OK;

    if (p->into && (rc = hb_prepare_into(p->into, e))) goto fail;
    if ((rc = io_open(p->io, (unsigned)p->io_depth, &x->io, e))) goto fail;

    /* the hop first: a variant's open tells it what to exclude */
    if ((rc = hb_hop_open(x, e))) goto fail;
    if ((rc = x->var->open(x, e))) goto fail;
    if ((rc = bp_open(p->graph_frames, p->topo.block_size, x->io, &x->gpool,
                      e)))
        goto fail;
    bp_set_max_coalesce(x->gpool, (unsigned)p->coalesce);
    x->pool = wpool_new(p->threads);
    if (!x->pool) {
        rc = gnn_seterr(e, GNNDB_NOMEM, "cannot start %d worker threads",
                        p->threads);
        goto fail;
    }
    if ((rc = hb_gather_open(x, e))) goto fail;
    if (p->spill && (rc = hbp_open(x, e))) goto fail;
    if ((rc = hb_load_seeds(x, e))) goto fail;
    if (p->temporal && (rc = hb_tm_open(x, e))) goto fail;
    if ((rc = hb_transfer_open(x, e))) goto fail;
    *out = ex;
    return GNNDB_OK;
fail:
    hb_close(ex);
    return rc;
}

int hb_next(hb_exec *ex, const gnndb_batch_view **view, gnn_err *e)
{
    hb_ctx *x = &ex->c;
    *view = NULL;
    if (x->p->spill) return hbp_next(x, view, e);
    if (x->cur >= x->nb) {
        if (x->next_global >= x->p->total_batches) return GNNDB_DONE;
        if (x->db->interrupt)
            return gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
        double t0 = gnn_now();
        int rc = build_hyperbatch(x, e);
        x->est.seconds += gnn_now() - t0;
        if (rc) return rc;
    }
    hb_batch *b = &x->hb[x->cur++];
    int rc = hb_emit(x, b, view, e);
    if (rc) return rc;
    /* start copying the next batch while the caller trains on this one */
    if (x->cur < x->nb) hb_transfer_prefetch(x, &x->hb[x->cur]);
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
const hb_stats *hb_get_stats(hb_exec *ex)
{
    hb_ctx *x = &ex->c;
    if (!x->building) ex->snap = x->st;
    hb_stats *v = &ex->view;
    *v = ex->snap;
    v->batches += x->est.batches;
    v->nodes += x->est.nodes;
    v->edges += x->est.edges;
    v->seconds += x->est.seconds;
    v->overlapped += x->est.overlapped;
    v->rss_peak = atomic_load(&x->rss_peak);
    opstats_add(&v->transfer, &x->est.transfer);
    opstats_add(&v->spill, &x->est.spill);
    hbp_stats(x, v);
    return v;
}

const gnndb_batch_view *hb_host_view(const hb_exec *ex)
{
    return hb_transfer_host_view(&ex->c);
}

void hb_digest(hb_exec *ex)
{
    hb_transfer_digest(&ex->c);
}

void hb_close(hb_exec *ex)
{
    if (!ex) return;
    hb_ctx *x = &ex->c;
    hbp_stop(x);
    hb_transfer_close(x);
    for (int i = 0; i < x->capb; i++) hb_slot_free(x, &x->hb[i]);
    free(x->hb);
    for (int i = 0; i < x->capb2; i++) hb_slot_free(x, &x->hb2[i]);
    free(x->hb2);
    hb_gather_close(x);
    hbp_close(x);
    if (x->gpool) bp_close(x->gpool);
    x->var->close(x);
    if (x->io) io_close(x->io);
    seeds_free(&x->seeds);
    hb_tm_close(x);
    hb_hop_close(x);
    hb_resident_close(x);
    hb_blocks_free(&x->bk);
    wpool_free(x->pool);
    hb_transfer_free(x);   /* last: freeing outputs asks whether pinned */
    free(ex);
}
