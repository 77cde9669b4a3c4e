/* costmodel.c — EXPLAIN's analytical model (after Hyperion's): the blocks
** a hyperbatch needs follow from the nodes it touches, spread uniformly over
** the blocks; the buffer pool keeps some of them between operators and
** hyperbatches; reads are ascending and coalesced, so their time is set by
** the disk profile's bandwidth or by its per-request cost, whichever is the
** larger; the work on data in memory by the measured per-thread rates. */
#include "costmodel.h"
#include "block.h"

#include <math.h>
#include <string.h>

#define HB_MAX_DEFAULT 1024     /* plan.c's default cap on HYPERBATCH */
#define SIM_MAX_HB 4096         /* hyperbatches simulated one by one */

double cm_seq_bps(const cat_profile *pr)
{
    double b = fmax(pr->seq_read_1m_bps, pr->seq_read_4m_bps);
    return b > 0 ? b : 1e9;
}

/* Service time of one request, linear in its size through the two measured
** points (4 KiB and rand_bs at a deep queue), never below the 4 KiB one. */
double cm_request_seconds(const cat_profile *pr, double size)
{
    double t4 = 1.0 / fmax(pr->rand_4k_iops, 1.0);
    double tb = 1.0 / fmax(pr->rand_bs_iops, 1e-3);
    double bs = pr->rand_bs;
    if (!(bs > 4096) || tb <= t4) return fmax(t4, size / cm_seq_bps(pr));
    return fmax(t4, t4 + (tb - t4) * (size - 4096) / (bs - 4096));
}

/* t(z) is linear in the request size: one more page in a request costs its
** slope, a request of its own t(page). */
unsigned cm_page_gap(const cat_profile *pr, double page_size)
{
    double one = cm_request_seconds(pr, page_size);
    double more = cm_request_seconds(pr, 2.0 * page_size) - one;
    if (!(more > 0)) return 0;
    double g = one / more - 1;
    return g < 0 ? 0 : g > 64 ? 64 : (unsigned)g;
}

/* Distinct blocks out of nb touched by `touches` uniform draws. */
static double needed(double nb, double touches)
{
    return nb > 0 ? nb * (1.0 - exp(-touches / nb)) : 0;
}

/* Distinct blocks out of nb touched by `local` draws over a window of
** `win` blocks (the seeds of a hyperbatch: a run of the ascending seed
** list, so a stretch of the file) and `spread` draws over all nb. */
static double needed_win(double nb, double win, double local, double spread)
{
    if (nb <= 0) return 0;
    win = fmin(nb, fmax(win, 1e-9));
    return win * (1.0 - exp(-local / win - spread / nb)) +
           (nb - win) * (1.0 - exp(-spread / nb));
}

/* The blocks the seeds of m mini-batches span when they come in ascending
** order: their share of the seed list, and one more for the boundary. */
static double seed_window(const plan *p, double nb, double seeds_m)
{
    if (p->shuffle || p->nseeds <= 0) return nb;
    return fmin(nb, nb * seeds_m / (double)p->nseeds + 1.0);
}

/* Requests for `misses` blocks out of nb read in ascending order with runs
** of adjacent blocks merged up to `coalesce` blocks a request: a random
** subset of density q has about nb*q*(1-q) runs. */
static double requests(double misses, double nb, double coalesce)
{
    if (misses <= 0 || nb <= 0) return 0;
    double q = fmin(1.0, misses / nb);
    double runs = misses * (1.0 - q) + q;
    double r = fmax(runs, misses / fmax(1.0, coalesce));
    return fmin(r, fmax(misses, 1e-9));
}

typedef struct pool_state {  /* expected blocks of each file in a pool */
    double g, f, l;
} pool_state;

/* `blocks` blocks read as `bytes` in `req` requests: their time is set by
** the requests or by the bandwidth, whichever is the larger. */
static void add_reads(cm_op *o, const cat_profile *pr, double blocks,
                      double bytes, double req)
{
    o->blocks += blocks;
    o->bytes += bytes;
    o->requests += req;
    if (req > 0)
        o->io_s += fmax(req * cm_request_seconds(pr, bytes / req),
                        bytes / cm_seq_bps(pr));
}

/* One fetch of `need` blocks of a file of nb blocks, `*res` of which are
** in the pool: adds its misses to o and updates *res. */
static void fetch(cm_op *o, const cat_profile *pr, double coalesce, double nb,
                  double bs, double need, double *res)
{
    if (nb <= 0 || need <= 0) return;
    double miss = need * (1.0 - fmin(1.0, *res / nb));
    add_reads(o, pr, miss, miss * bs, requests(miss, nb, coalesce));
    *res = fmin(nb, *res + miss);
}

/* Whole blocks or pages for a fetch of `need` blocks of a file of nb blocks
** (bs bytes, the pool holding `frames`) that gives `rows` rows of rowbytes:
** each block then gives r = rows/need rows, spanning rowbytes/ps + 1 pages
** each, so about np(1 - e^(-r(rowbytes/ps + 1)/np)) pages besides page 0,
** in runs: a wanted page starts a new one when the cm_page_gap() pages
** after the previous wanted one are all unwanted, (1 - q)^(gap + 1) at a
** density q of wanted pages. */
static void gran_choose(const plan *p, const cat_profile *pr, double bs,
                        double nb, double frames, double rowbytes,
                        double rows, double need, double table_pages,
                        cm_gran *g)
{
    memset(g, 0, sizeof *g);
    g->t_whole = cm_request_seconds(pr, bs);
    double ps = blk_page_size((uint32_t)bs), np = bs / ps;
    int mode = p->read_granularity;
    if (mode == GNN_GRAN_BLOCK || np < 2 || need <= 0 ||
        (mode == GNN_GRAN_AUTO && nb <= frames))
        return;
    g->rows = rows / need;
    double want = np * (1.0 - exp(-g->rows * (rowbytes / ps + 1) / np));
    g->pages = fmin(np, 1 + want);
    double q = g->pages / np;
    double gap = cm_page_gap(pr, ps);
    g->runs = 1 + fmin(g->rows, fmax(0, g->pages - 1)) * pow(1.0 - q, gap + 1);
    /* a graph block's first read also takes the pages of its nodes' offset
    ** entries, one each at most */
    double tp = fmin(g->rows, table_pages);
    g->pages = fmin(np, g->pages + tp);
    g->runs += tp;
    g->t_pages = g->runs * cm_request_seconds(pr, g->pages * ps / g->runs);
    g->page = mode == GNN_GRAN_PAGE || g->t_pages < g->t_whole;
}

/* A fetch of `need` blocks read in pages: never found in the pool, never
** kept there. */
static void fetch_pages(cm_op *o, const cat_profile *pr, double ps,
                        double need, const cm_gran *g)
{
    add_reads(o, pr, need, need * g->pages * ps, need * g->runs);
}

/* A hop's fetch of `need` graph blocks for `items` frontier nodes: whole,
** or in pages (the nodes' offset entries, then their objects of the
** graph's mean size). */
static void hop_fetch(const plan *p, const cat_profile *pr,
                      const cm_layout *l, double c, double items, double need,
                      double *res, cm_op *o, cm_gran *g)
{
    double nodes = fmax(1, (double)p->graph.nodes);
    double obj = 20.0 + 4.0 * (double)p->graph.edges / nodes;
    double ps = blk_page_size((uint32_t)l->graph_bs);
    double table = ceil(4.0 * nodes / fmax(1, l->graph_blocks) / ps);
    gran_choose(p, pr, l->graph_bs, l->graph_blocks, l->gframes, obj, items,
                need, table, g);
    if (g->page) {
        fetch_pages(o, pr, ps, need, g);
        return;
    }
    fetch(o, pr, c, l->graph_blocks, l->graph_bs, need, res);
    *res = fmin(*res, l->gframes);
}

/* One hyperbatch of m mini-batches: adds to e. */
static void one_hb(const plan *p, const cat_profile *pr, const cm_layout *l,
                   double m, pool_state *ps, cm_est *e)
{
    double seeds = p->batches_per_epoch > 0
                       ? (double)p->nseeds / (double)p->batches_per_epoch
                       : (double)p->batch;
    double scale = p->batch > 0 ? seeds / (double)p->batch : 1;
    double c = p->coalesce > 0 ? p->coalesce : 1;
    /* a spilled hyperbatch samples in sub-rounds, each reading the graph
    ** blocks its own frontier needs */
    double sub = l->subround > 0 ? fmin(m, l->subround) : m;
    for (double done = 0; done < m; done += sub) {
        double k = fmin(sub, m - done), sk = seeds * k;
        for (int h = 0; h < p->nhops; h++) {
            double front = p->nodes_est[h] * scale * k;
            double need = h == 0 ? needed_win(l->graph_blocks,
                                              seed_window(p, l->graph_blocks, sk),
                                              sk, 0)
                                 : needed(l->graph_blocks, front);
            hop_fetch(p, pr, l, c, h == 0 ? sk : front, need, &ps->g,
                      &e->hop[h], &e->hop_gran[h]);
            e->hop[h].work += p->edges_est[h] * scale * k;
        }
    }
    double sm = seeds * m;
    /* each spilled mini-batch is written and read back once, in sequence */
    e->gather.io_s += 2.0 * l->spill_bytes * m / cm_seq_bps(pr);
    double rows = 0;
    for (int h = 0; h <= p->nhops; h++) rows += p->nodes_est[h];
    rows *= scale * m;
    if (l->feat_blocks > 0) {
        double need = needed_win(l->feat_blocks,
                                 seed_window(p, l->feat_blocks, sm), sm,
                                 fmax(0, rows - sm));
        double rb = p->has_feat ? p->feat.dim * 4.0 : 4.0;
        /* a spilled round reads its feature blocks whole */
        if (l->subround > 0)
            memset(&e->gather_gran, 0, sizeof e->gather_gran);
        else
            gran_choose(p, pr, l->feat_bs, l->feat_blocks, l->fframes, rb,
                        rows, need, 0, &e->gather_gran);
        if (e->gather_gran.page)
            fetch_pages(&e->gather, pr, blk_page_size((uint32_t)l->feat_bs),
                        need, &e->gather_gran);
        else
            fetch(&e->gather, pr, c, l->feat_blocks, l->feat_bs, need, &ps->f);
        e->gather.work += rows * (p->has_feat ? p->feat.dim : 0) * 4.0;
    }
    if (l->label_blocks > 0) {
        fetch(&e->gather, pr, c, l->label_blocks, l->label_bs,
              needed_win(l->label_blocks, seed_window(p, l->label_blocks, sm),
                         sm, 0), &ps->l);
        e->gather.work += seeds * m * 8.0;
    }
    /* feature and label blocks share one pool */
    double fl = ps->f + ps->l;
    if (fl > l->fframes && fl > 0) {
        ps->f *= l->fframes / fl;
        ps->l *= l->fframes / fl;
    }
}

/* d += k * (b - a): the cost of k more hyperbatches like the one that
** took an operator from a to b */
static void op_add_scaled(cm_op *d, const cm_op *a, const cm_op *b, double k)
{
    d->blocks += k * (b->blocks - a->blocks);
    d->bytes += k * (b->bytes - a->bytes);
    d->requests += k * (b->requests - a->requests);
    d->io_s += k * (b->io_s - a->io_s);
    d->work += k * (b->work - a->work);
}

static void finish_op(cm_op *o, double cpu_rate)
{
    o->cpu_s = o->work / fmax(cpu_rate, 1.0);
    o->seconds = fmax(o->io_s, o->cpu_s);
}

void cm_layout_of(const plan *p, cm_layout *l)
{
    memset(l, 0, sizeof *l);
    l->hyperbatch = p->hyperbatch;
    if (p->spill) {
        l->subround = p->spill_subround;
        l->spill_bytes = p->run_bytes_est - p->spill_hot_spare;
        l->hot_passes = p->spill_hot_rows > 0 ? 2 : 0;
    }
    l->graph_blocks = (double)p->topo.graph_blocks;
    l->graph_bs = p->graph.block_size;
    if (p->has_feat) {
        l->feat_blocks = (double)p->feat.nblocks;
        l->feat_bs = p->feat.block_size;
    }
    if (p->has_labels) {
        l->label_blocks = (double)p->labels.nblocks;
        l->label_bs = p->labels.block_size;
    }
    l->gframes = (double)p->graph_frames;
    l->fframes = (double)p->feat_frames;
}

void cm_estimate(const plan *p, const cat_profile *pr, const cm_layout *l,
                 cm_est *out)
{
    memset(out, 0, sizeof *out);
    pool_state ps = {0, 0, 0};
    int64_t H = l->hyperbatch > 0 ? l->hyperbatch : 1;
    int64_t bpe = p->batches_per_epoch > 0 ? p->batches_per_epoch : 1;
    int64_t left = p->total_batches, in_epoch = bpe, nhb = 0;
    cm_est before;
    memset(&before, 0, sizeof before);
    int64_t last_m = 1;
    if (l->hot_passes > 0 && l->graph_blocks > 0) {
        /* the hot rows' choice reads the graph whole, in order, through
        ** the graph pool, which keeps its last blocks (as the first hop's
        ** reads) */
        double c = p->coalesce > 0 ? p->coalesce : 1, nb = l->graph_blocks;
        add_reads(&out->hop[0], pr, l->hot_passes * nb,
                  l->hot_passes * nb * l->graph_bs,
                  l->hot_passes * requests(nb, nb, c));
        ps.g = fmin(nb, l->gframes);
    }
    while (left > 0) {
        if (nhb >= SIM_MAX_HB) {
            /* steady state: the rest costs what the last one did, per
            ** mini-batch */
            double k = (double)left / (double)last_m;
            cm_est last = *out;
            for (int h = 0; h < AST_MAX_HOPS; h++)
                op_add_scaled(&out->hop[h], &before.hop[h], &last.hop[h], k);
            op_add_scaled(&out->gather, &before.gather, &last.gather, k);
            out->hyperbatches += k;
            break;
        }
        int64_t m = GNN_MIN(H, GNN_MIN(in_epoch, left));
        before = *out;
        one_hb(p, pr, l, (double)m, &ps, out);
        out->hyperbatches += 1;
        nhb++;
        last_m = m;
        left -= m;
        in_epoch -= m;
        if (in_epoch == 0) in_epoch = bpe;
    }
    double threads = p->threads > 0 ? p->threads : 1;
    cm_op *t = &out->total;
    for (int h = 0; h < p->nhops; h++) {
        cm_op *o = &out->hop[h];
        finish_op(o, pr->sample_edges_per_s * threads);
        t->blocks += o->blocks;
        t->bytes += o->bytes;
        t->requests += o->requests;
        t->io_s += o->io_s;
        t->cpu_s += o->cpu_s;
        t->seconds += o->seconds;
    }
    finish_op(&out->gather, pr->gather_bps * threads);
    t->blocks += out->gather.blocks;
    t->bytes += out->gather.bytes;
    t->requests += out->gather.requests;
    t->io_s += out->gather.io_s;
    t->cpu_s += out->gather.cpu_s;
    t->seconds += out->gather.seconds;
    out->batches_per_s = t->seconds > 0 ? (double)p->total_batches / t->seconds
                                        : 0;
}

int64_t cm_hyperbatch_fit(const plan *p)
{
    if (p->per_batch_bytes <= 0) return 1;
    return GNN_MAX(1, p->staged_bytes / p->per_batch_bytes);
}

int64_t cm_suggest_hyperbatch(const plan *p, const cat_profile *pr,
                              cm_est *est)
{
    int64_t top = GNN_MIN(cm_hyperbatch_fit(p), HB_MAX_DEFAULT);
    top = GNN_MAX(1, GNN_MIN(top, GNN_MAX(1, p->batches_per_epoch)));
    int64_t cand[40];
    cm_est ests[40];
    int n = 0;
    for (int64_t h = 1; h < top && n < 38; h *= 2) cand[n++] = h;
    cand[n++] = top;
    cm_layout l;
    cm_layout_of(p, &l);
    l.subround = l.spill_bytes = 0;  /* the in-memory hyperbatches */
    double best = -1;
    for (int i = 0; i < n; i++) {
        l.hyperbatch = cand[i];
        cm_estimate(p, pr, &l, &ests[i]);
        best = fmax(best, ests[i].batches_per_s);
    }
    for (int i = 0; i < n; i++)
        if (ests[i].batches_per_s >= 0.95 * best) {
            *est = ests[i];
            return cand[i];
        }
    *est = ests[n - 1];
    return cand[n - 1];
}

/* The layout of the plan's data at block size bs; 0 when it cannot be
** stored or planned that way. */
static int layout_at(const plan *p, double bs, cm_layout *l)
{
    memset(l, 0, sizeof *l);
    const double hdr = blk_data_offset((uint32_t)bs);
    if (bs == p->graph.block_size) {
        l->graph_blocks = (double)p->topo.graph_blocks;
    } else {
        /* node objects (16 bytes and a 4-byte offset) and 4-byte entries */
        double gbytes = (double)p->graph.nodes * 20 + (double)p->graph.edges * 4;
        l->graph_blocks = fmax(1, ceil(gbytes / (bs - hdr)));
    }
    l->graph_bs = bs;
    double fblocks = 0;
    if (p->has_feat) {
        double rpb = floor((bs - hdr) / (p->feat.dim * 4.0));
        if (rpb < 1) return 0;      /* a row must fit a block */
        l->feat_blocks = ceil((double)p->feat.rows / rpb);
        l->feat_bs = bs;
        fblocks += l->feat_blocks;
    }
    if (p->has_labels) {
        double rpb = floor((bs - hdr) / 8.0);
        l->label_blocks = ceil((double)p->labels.rows / rpb);
        l->label_bs = bs;
        fblocks += l->label_blocks;
    }
    /* plan.c's default split of the data's memory */
    double share = fmin((double)p->data_bytes / 8, 64.0 * (1 << 20));
    l->gframes = fmin(fmax(4, floor(share / bs)), fmax(4, l->graph_blocks));
    l->fframes = fblocks > 0 ? fmin(fmax(4, floor(share / bs)), fmax(4, fblocks))
                             : 0;
    double staged = (double)p->data_bytes - (l->gframes + l->fframes) * bs;
    double fit = p->per_batch_bytes > 0 ? floor(staged / p->per_batch_bytes) : 1;
    double seeds_bytes =
        (double)p->batch * HB_NODE_BYTES(p->has_feat ? p->feat.dim : 0);
    if (staged < seeds_bytes) return 0;
    l->hyperbatch = (int64_t)fmax(1, fmin((double)p->hyperbatch, fit));
    return 1;
}

int64_t cm_suggest_block_size(const plan *p, const cat_profile *pr,
                              cm_layout *l, cm_est *est)
{
    int64_t best_bs = 0;
    double best = -1;
    for (int64_t bs = 4096; bs <= (16 << 20); bs *= 2) {
        cm_layout cl;
        cm_est ce;
        if (!layout_at(p, (double)bs, &cl)) continue;
        cm_estimate(p, pr, &cl, &ce);
        if (ce.batches_per_s > best * 1.0001) {
            best = ce.batches_per_s;
            best_bs = bs;
            *l = cl;
            *est = ce;
        }
    }
    return best_bs;
}
