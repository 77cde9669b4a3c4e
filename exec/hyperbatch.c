/* hyperbatch.c — the executor of SAMPLE. H mini-batches are built together:
** for each hop the frontier nodes of all of them are bucketed by graph block
** (a block x mini-batch matrix held as items sorted by block), every needed
** block is read once through the buffer pool and each (mini-batch, node) that
** needs it is sampled while it is in memory (one hop: hop.c). Then gather.c
** copies feature rows the same way, and the batches are handed out in order.
** HYPERBATCH 1 is the per-mini-batch strategy of older systems.
**
** Determinism: each choice depends only on (seed, epoch, batch, hop, node)
** and results are assembled in frontier order after all blocks of a hop have
** been visited, so the order in which blocks arrive changes nothing. */
#include "clock.h"
#include "exec.h"
#include "exec_int.h"
#include "sample.h"
#include "pool.h"
#include "fcache.h"
#include "sort.h"
#include "spill.h"
#include "rss.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <sys/stat.h>

size_t hb_uncounted(hb_exec *x, size_t counted)
{
    int64_t rss = gnn_rss_now();
    if (rss < 0 || !gnn_rss_meaningful()) return 0;
    int64_t peak = atomic_load(&x->rss_peak);
    while (rss > peak && !atomic_compare_exchange_weak(&x->rss_peak, &peak, rss))
        ;
    const plan *p = x->p;
    int64_t known = p->mem.rss + (int64_t)bp_touched_bytes(x->gpool) +
                    (int64_t)bp_touched_bytes(x->fpool) + p->cache_bytes +
                    p->copies_bytes + (int64_t)counted;
    return rss > known ? (size_t)(rss - known) : 0;
}

/* ---- seeds: each epoch's seeds (seeds.c) ---- */

static int load_seeds(hb_exec *x, gnn_err *e)
{
    plan *p = x->p;
    int rc = x->var->load_seeds(x, e);
    if (rc) return rc;
    /* the plan counted the seeds from the catalog; trust what was loaded */
    plan_set_seed_count(p, x->seeds.n);
    return seeds_order_init(&x->seeds, 1, p->shuffle, p->seed, 0x5eed,
                            p->seed_lo, p->nseeds, e);
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

/* Free slot b's arrays; those handed out are the transfer operator's
** memory (perhaps pinned: hb_out_release). */
static void batch_free(hb_exec *x, hb_batch *b)
{
    hb_out_release(x, b);
    hb_batch_free(b);
}

size_t hb_work_bytes(const hb_exec *x)
{
    return hb_hop_bytes(&x->hop) + hb_blocks_bytes(&x->bk) +
           hb_gather_bytes(&x->gat) + hb_resident_bytes(x);
}

/* Bytes that growing an array of `cap` elements to `need` adds. */
static size_t grow_bytes(size_t need, size_t cap, size_t elem)
{
    return need > cap ? (need - cap) * elem : 0;
}

size_t hb_staged_bytes(const hb_batch *b, int64_t dim)
{
    return hb_batch_bytes(b) + grow_bytes(b->nn * (size_t)dim, b->cap_out_x, 4) +
           grow_bytes(b->nn, b->cap_out_nodes, 8) +
           grow_bytes(2 * b->ne, b->cap_out_edges, 8) +
           grow_bytes((size_t)b->nseeds, b->cap_out_y, 8);
}

/* What a hyperbatch stages once its rows are gathered (fit_prefix's sum). */
static size_t staged_with_features(const hb_exec *x)
{
    int64_t dim = plan_x_dim(x->p);
    size_t sum = 0;
    for (int i = 0; i < x->nb; i++) sum += hb_staged_bytes(&x->hb[i], dim);
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
    int64_t dim = with_features ? plan_x_dim(p) : 0;
    int keep = 0;
    for (int i = 0; i < x->nb; i++) {
        size_t more = with_features ? hb_staged_bytes(&x->hb[i], dim)
                                    : hb_batch_bytes(&x->hb[i]);
        if (used + more > (size_t)p->staged_bytes) break;
        used += more;
        keep++;
    }
    return keep;
}

void hb_release_work(hb_exec *x)
{
    hb_hop_release(&x->hop);
    hb_blocks_release(&x->bk);
    hb_gather_release(&x->gat);
}

/* Free every mini-batch slot and the hop scratch: a spilled round's
** sampling state is not needed while its rows are gathered and read back,
** and those phases have the whole budget to themselves. */
void hb_release_sampling(hb_exec *x)
{
    hb_release_work(x);
    for (int i = 0; i < x->capb; i++) {
        batch_free(x, &x->hb[i]);
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

/* Free the arrays of slots [from, capb): nothing of theirs is staged. */
static void free_slots(hb_exec *x, int from)
{
    for (int i = from; i < x->capb; i++) {
        batch_free(x, &x->hb[i]);
        memset(&x->hb[i], 0, sizeof x->hb[i]);
    }
}

/* What the staged mini-batches are measured against besides their own
** bytes: the hop's scratch, what else the caller stages (staged_other) and
** what the process holds that no count has (hb_uncounted). */
static size_t fit_base(hb_exec *x)
{
    size_t base = hb_work_bytes(x) + x->staged_other, slots = 0;
    for (int i = 0; i < x->nb; i++) slots += hb_batch_bytes(&x->hb[i]);
    return base + hb_uncounted(x, base + slots);
}

int hb_fit(hb_exec *x, int with_features, gnn_err *e)
{
    plan *p = x->p;
    int keep = fit_prefix(x, with_features, fit_base(x));
    if (keep == x->nb) return GNNDB_OK;
    hb_release_work(x);
    hb_trim();
    keep = fit_prefix(x, with_features, fit_base(x));
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
    free_slots(x, keep);
    x->nb = keep;
    x->st.shrunk++;
    return GNNDB_OK;
}

uint64_t hb_bytes_read(const hb_stats *s)
{
    uint64_t by = s->gather.bytes_read;
    for (int h = 0; h < AST_MAX_HOPS; h++) by += s->hop[h].bytes_read;
    return by;
}

/* A round of epoch `epoch` begins: rounds stay within an epoch, so what
** was read before the first round of epoch 1 is the first epoch's. */
static void count_epoch(hb_stats *st, int64_t epoch)
{
    if (epoch + 1 <= st->epochs_begun) return;
    if (epoch == 1) st->epoch0_read = hb_bytes_read(st);
    st->epochs_begun = epoch + 1;
}

int hb_seed_round(hb_exec *x, int64_t g, gnn_err *e)
{
    plan *p = x->p;
    int64_t epoch, first;
    int64_t n = plan_round(p, g, x->h_next, &epoch, &first);
    if (!x->ahead) count_epoch(&x->st, epoch);
    double t0 = gnn_now();
    if (hb_alloc_batches(x, (int)n, e)) return e->rc;
    /* slots a larger hyperbatch left beyond this one hold their arrays'
    ** memory, which no budget counts: give it back */
    free_slots(x, (int)n);
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
        if (x->var->start) continue;   /* the variant starts it */
        /* sized for the seeds; assembly grows it once per hop as needed */
        if (hb_nmap_reset(&b->map, (size_t)p->batch, b->nodes, b->map.n))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        for (int64_t s = lo; s < hi; s++) {
            uint32_t local;
            if (hb_add_node(b, order[s], &local))
                return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        }
        /* a seed listed twice (impossible after dedup) would shrink this */
        b->nsn[0] = (int64_t)b->nn;
        b->nseeds = (int64_t)b->nn;
    }
    x->nb = (int)n;
    x->cur = 0;
    if (x->var->start) {
        int rc = x->var->start(x, order, e);
        if (rc) return rc;
    }
    x->st.seeds.seconds += gnn_now() - t0;
    return GNNDB_OK;
}

int hb_sample_round(hb_exec *x, int64_t g, gnn_err *e)
{
    plan *p = x->p;
    int rc = hb_seed_round(x, g, e);
    if (rc) return rc;
    for (int h = 0; h < p->nhops && x->nb; h++) {
        rc = x->var->hop(x, h, e);
        if (!rc) rc = hb_fit(x, 0, e);
        if (rc) return rc;
        hb_trim();
    }
    return GNNDB_OK;
}

/* Build the next hyperbatch block by block: batches [next_global, ...)
** within one epoch. Under belady the hyperbatch after it is sampled before
** it is gathered (the inspector-executor split): its rows are the future
** the cache evicts by, and it is the next one handed out, cut only as
** hb_fit would cut it. */
static int build_blockwise(hb_exec *x, gnn_err *e)
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
static int build_hyperbatch(hb_exec *x, gnn_err *e)
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
    hb_exec *x = calloc(1, sizeof *x);
    if (!x) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    x->db = db;
    x->p = p;
    /* the variant, chosen once: every difference between node, link and
    ** typed batches goes through it */
    x->var = p->link ? &hb_variant_link
             : p->typed ? &hb_variant_typed : &hb_variant_node;
    x->h_next = p->hyperbatch;
    x->sp.emit = &x->sp.rounds[0];
    x->sp.build = &x->sp.rounds[1];
    int rc = GNNDB_OK;

    if (p->into && (rc = hb_prepare_into(p->into, e))) goto fail;
    if ((rc = io_open(p->io, (unsigned)p->io_depth, &x->io, e))) goto fail;

    if ((rc = x->var->open(x, e))) goto fail;
    if ((rc = bp_open(p->graph_frames, p->topo.block_size, x->io, &x->gpool,
                      e)))
        goto fail;
    bp_set_max_coalesce(x->gpool, (unsigned)p->coalesce);
    x->hop.ggran.mode = p->read_granularity;
    x->hop.ggran.pr = &p->profile;
    x->pool = wpool_new(p->threads);
    x->hop.workers = calloc((size_t)GNN_MAX(1, p->threads),
                            sizeof *x->hop.workers);
    if (!x->pool || !x->hop.workers) {
        rc = gnn_seterr(e, GNNDB_NOMEM, "cannot start %d worker threads",
                        p->threads);
        goto fail;
    }
    if ((rc = hb_gather_open(x, e))) goto fail;
    if (p->spill && (rc = hbs_open(x, e))) goto fail;
    x->sp.s_next = p->spill ? (int64_t)GNN_MAX(1, p->spill_subround)
                            : p->hyperbatch;
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
        double t0 = gnn_now();
        int rc = build_hyperbatch(x, e);
        x->est.seconds += gnn_now() - t0;
        if (rc) return rc;
    }
    hb_batch *b = &x->hb[x->cur++];
    int rc = hb_emit(x, b, view, e);
    if (rc) return rc;
    /* start copying the next batch while the caller trains on this one */
    if (x->tr.xf && x->cur < x->nb)
        xfer_prefetch(x->tr.xf, &x->hb[x->cur].view, NULL);
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
    if (!x->bg.running) x->snap = x->st;
    hb_stats *v = &x->view;
    *v = x->snap;
    v->batches += x->est.batches;
    v->nodes += x->est.nodes;
    v->edges += x->est.edges;
    v->seconds += x->est.seconds;
    v->overlapped += x->est.overlapped;
    v->rss_peak = atomic_load(&x->rss_peak);
    opstats_add(&v->transfer, &x->est.transfer);
    opstats_add(&v->spill, &x->est.spill);
    if (x->sp.area) {
        spill_stats s;
        spill_get_stats(x->sp.area, &s);
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
    for (int i = 0; i < x->capb; i++) batch_free(x, &x->hb[i]);
    free(x->hb);
    for (int i = 0; i < x->capb2; i++) batch_free(x, &x->hb2[i]);
    free(x->hb2);
    hb_gather_close(x);
    hbs_close(x);
    if (x->gpool) bp_close(x->gpool);
    x->var->close(x);
    if (x->io) io_close(x->io);
    seeds_free(&x->seeds);
    hb_hop_free(&x->hop, GNN_MAX(1, x->p->threads));
    hb_resident_close(x);
    hb_blocks_free(&x->bk);
    wpool_free(x->pool);
    free(x);
}
