/* hb_round.c — seeds and rounds: each epoch's seeds loaded once, the
** mini-batch slots of a round started from them and sampled hop by hop,
** and what a round stages kept within the plan's budget (hb_fit) by
** measuring it, the process's resident bytes included. The builders of a
** round (hyperbatch.c in memory, hb_resident.c from resident blocks,
** hb_spill.c through the spill area) all start here. */
#include "clock.h"
#include "exec_int.h"
#include "gather.h"
#include "hop_resident.h"
#include "hb_round.h"
#include "hb_times.h"
#include "hop.h"
#include "transfer.h"
#include "rss.h"

#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* The resident bytes now beyond what the plan knows the process holds
** outside the staged data (the process at prepare, rounded up as the plan
** rounded it, and a stack and arena per thread, which memory_limit's
** division sets aside; the pools' frames read into, the row cache, the
** host's copies), -1 where they cannot be measured; keeps the peak. */
static int64_t staged_resident(hb_ctx *x)
{
    int64_t rss = gnn_rss_now();
    if (rss < 0 || !gnn_rss_meaningful()) return -1;
    int64_t peak = atomic_load(&x->rss_peak);
    while (rss > peak && !atomic_compare_exchange_weak(&x->rss_peak, &peak, rss))
        ;
    const plan *p = x->p;
    int64_t set_aside = GNN_MAX(p->mem.rss, p->mem.base + p->mem.process) +
                        p->mem.threads;
    int64_t outside = set_aside + (int64_t)bp_touched_bytes(x->gpool) +
                      (int64_t)bp_touched_bytes(x->fpool) + p->cache_bytes +
                      p->spill_hot_bytes + p->copies_bytes;
    return rss > outside ? rss - outside : 0;
}

size_t hb_uncounted(hb_ctx *x, size_t counted)
{
    int64_t staged = staged_resident(x);
    return staged > (int64_t)counted ? (size_t)staged - counted : 0;
}

/* ---- seeds: each epoch's seeds (seeds.c) ---- */

int hb_load_seeds(hb_ctx *x, gnn_err *e)
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

static int hb_alloc_batches(hb_ctx *x, int n, gnn_err *e)
{
    if (n <= x->capb) return GNNDB_OK;
    hb_batch *nb = realloc(x->hb, (size_t)n * sizeof *nb);
    if (!nb) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    memset(nb + x->capb, 0, (size_t)(n - x->capb) * sizeof *nb);
    x->hb = nb;
    x->capb = n;
    return GNNDB_OK;
}

void hb_slot_free(hb_ctx *x, hb_batch *b)
{
    hb_out_release(x, b);
    hb_batch_free(b);
}

/* A resident round's workers keep their node maps between rounds. */
static size_t resident_bytes(const hb_ctx *x)
{
    size_t sum = 0;
    for (int i = 0; i < x->nrsw; i++) sum += hb_rs_worker_bytes(x->rsw[i]);
    return sum;
}

size_t hb_slots_bytes(const hb_ctx *x)
{
    size_t sum = 0;
    for (int i = 0; i < x->capb; i++) sum += hb_batch_bytes(&x->hb[i]);
    return sum;
}

size_t hb_work_bytes(const hb_ctx *x)
{
    return hb_hop_bytes(x->hop) + hb_blocks_bytes(&x->bk) +
           hb_gather_bytes(x->gat) + resident_bytes(x);
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

/* Keep what is staged within the plan's budget: when the mini-batches built
** so far (plus `extra(i)` bytes each still to come, e.g. their feature rows)
** do not fit, keep the longest prefix that does and free the rest; they are
** built again in the next hyperbatch with the same result, since every
** choice depends only on its key. A single mini-batch that does not fit is
** an error. */
static int fit_prefix(hb_ctx *x, int with_features, size_t used)
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

void hb_release_work(hb_ctx *x)
{
    hb_hop_release(x->hop);
    hb_blocks_release(&x->bk);
    hb_gather_release(x->gat);
}

/* Free every mini-batch slot and the hop scratch: a spilled round's
** sampling state is not needed while its rows are gathered and read back,
** and those phases have the whole budget to themselves. */
void hb_release_sampling(hb_ctx *x)
{
    hb_release_work(x);
    for (int i = 0; i < x->capb; i++) {
        hb_slot_free(x, &x->hb[i]);
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
static void free_slots(hb_ctx *x, int from)
{
    for (int i = from; i < x->capb; i++) {
        hb_slot_free(x, &x->hb[i]);
        memset(&x->hb[i], 0, sizeof x->hb[i]);
    }
}

/* What the staged mini-batches are measured against besides their own
** bytes: the hop's scratch, what else the caller stages (staged_other) and
** what the process holds that no count has (hb_uncounted). */
static size_t fit_base(hb_ctx *x)
{
    size_t base = hb_work_bytes(x) + x->staged_other, slots = 0;
    for (int i = 0; i < x->nb; i++) slots += hb_batch_bytes(&x->hb[i]);
    int64_t resident = staged_resident(x);
    x->fit_counted = base - x->staged_other + slots;
    size_t counted = base + slots, staged = resident > 0 ? (size_t)resident : 0;
    return base + (staged > counted ? staged - counted : 0);
}

int hb_fit(hb_ctx *x, int with_features, gnn_err *e)
{
    plan *p = x->p;
    int keep = fit_prefix(x, with_features, fit_base(x));
    /* what the round held as sampled, before any cut: its builder sizes
    ** the next from it (hb_spill.c) */
    x->fit_sampled = x->nb;
    x->fit_held = x->fit_counted;
    if (keep == x->nb) return GNNDB_OK;
    hb_release_work(x);
    hb_trim();
    keep = fit_prefix(x, with_features, fit_base(x));
    if (keep == 0 && !x->ahead && !x->round_may_end) {
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

int hb_seed_round(hb_ctx *x, int64_t g, gnn_err *e)
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

int hb_sample_round(hb_ctx *x, int64_t g, gnn_err *e)
{
    plan *p = x->p;
    int rc = hb_seed_round(x, g, e);
    if (rc) return rc;
    /* time-respecting hops go tree by tree, not block by block */
    if (p->temporal) return x->nb ? hb_tm_round(x, e) : GNNDB_OK;
    for (int h = 0; h < p->nhops && x->nb; h++) {
        rc = x->var->hop(x, h, e);
        if (!rc) rc = hb_fit(x, 0, e);
        if (rc) return rc;
        hb_trim();
    }
    return GNNDB_OK;
}
