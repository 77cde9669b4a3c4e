/* plan_size.c — the planner's estimates: a mini-batch's nodes and edges
** from the graph's degree histogram, the bytes it stages, the reads a round
** costs, whether and how a round spills, and the rounds of an epoch. The
** arithmetic plan.c divides memory_limit with; nothing here reads the
** catalog or the disk but the spill area's free bytes. */
#include "plan.h"
#include "plan_size.h"
#include "block.h"
#include "spill.h"
#include "io.h"
#include "plan_run.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The degree at which bucket k of the histogram is taken. Bucket k holds
** the degrees of k bits (import_graph.c): bucket 0 degree 0 and bucket 1
** degree 1, each taken as it is, bucket k >= 2 degrees [2^(k-1), 2^k),
** taken at the range's geometric middle, 2^(k-1) * 1.414 (sqrt 2). */
static double bucket_degree(int k)
{
    return k == 0 ? 0 : k == 1 ? 1 : ldexp(1.0, k - 1) * 1.414;
}

static double kept(const plan *p, int f, double d)
{
    if (f < 0) return d;
    if (p->replace) return d > 0 ? f : 0;
    return fmin(f, d);
}

/* Expected edges and new nodes per hop, by degree class. Seeds are uniform
** nodes; a sampled neighbour is drawn in proportion to its degree (the
** histogram stands for how often a node appears in others' lists), so
** after K draws a node of degree d has been reached with probability
** 1 - exp(-K d / D), D the edges stored. Each hop's new nodes are the
** classes' gains over the last hop's, less those already seeds; their
** composition, hubs reached early, decides the next hop's edges. On skewed
** graphs this is what keeps a mini-batch's nodes far below the draws. */
static void estimate_hops(plan *p)
{
    double n = fmax(1.0, (double)p->graph.nodes), D = 0;
    double front[64], seeds = fmin((double)plan_seed_nodes(p), n);
    for (int k = 0; k < p->nbuckets; k++) {
        D += (double)p->deg_hist[k] * bucket_degree(k);
        front[k] = seeds * (double)p->deg_hist[k] / n;
    }
    double K = 0, unseeded = fmax(0.0, 1.0 - seeds / n);
    p->nodes_est[0] = seeds;
    for (int h = 0; h < p->nhops; h++) {
        double edges = 0;
        for (int k = 0; k < p->nbuckets; k++)
            edges += front[k] * kept(p, p->fanouts[h], bucket_degree(k));
        double K2 = K + edges, fresh = 0;
        for (int k = 0; k < p->nbuckets; k++) {
            double d = bucket_degree(k);
            double gain = D > 0 ? exp(-K * d / D) - exp(-K2 * d / D) : 0;
            front[k] = (double)p->deg_hist[k] * gain * unseeded;
            fresh += front[k];
        }
        p->edges_est[h] = edges;
        p->nodes_est[h + 1] = fresh;
        K = K2;
    }
}

double plan_hot_share(const plan *p, int64_t rows)
{
    double D = 0, K = 0, all = 0, hot = 0, left = (double)rows;
    for (int k = 0; k < p->nbuckets; k++)
        D += (double)p->deg_hist[k] * bucket_degree(k);
    for (int h = 0; h < p->nhops; h++) K += p->edges_est[h];
    if (D <= 0 || K <= 0) return 0;
    double seeds = fmin((double)plan_seed_nodes(p),
                        fmax(1.0, (double)p->graph.nodes));
    double seeded = seeds / fmax(1.0, (double)p->graph.nodes);
    /* classes from the highest degree down: the hot rows are theirs */
    for (int k = p->nbuckets; k-- > 1;) {
        double n = (double)p->deg_hist[k];
        double in = 1.0 - (1.0 - seeded) * exp(-K * bucket_degree(k) / D);
        double take = fmin(n, left);
        all += n * in;
        hot += take * in;
        left -= take;
    }
    return all > 0 ? hot / all : 0;
}

/* Upper bounds of nodes and edges of one mini-batch, and the expected
** counts (what EXPLAIN and the plan's memory estimate from). */
void plan_bound_batch(plan *p)
{
    if (p->typed) plan_typed_estimate(p);
    double n = (double)p->graph.nodes;
    double maxd = (double)(p->graph.max_degree > 0 ? p->graph.max_degree : 1);
    double seeds = fmin((double)plan_seed_nodes(p), n);
    double frontier_bound = seeds, nodes_bound = seeds;
    double edges_bound = 0;
    for (int h = 0; h < p->nhops; h++) {
        int f = p->fanouts[h];
        double fb = f < 0 ? maxd : f;
        frontier_bound = fmin(n, frontier_bound);
        double eb = frontier_bound * fb;
        edges_bound += eb;
        frontier_bound = eb;
        nodes_bound += eb;
    }
    p->nodes_bound = (int64_t)fmin(n, nodes_bound);
    p->edges_bound = (int64_t)fmin(edges_bound, 9e18);
    estimate_hops(p);
}

/* The widest edge_attr row of a batch (float32 words): EDGE FEATURES' table,
** or the widest of a typed graph's relations'. */
int64_t plan_eattr_dim(const plan *p)
{
    int64_t d = p->has_efeat ? p->efeat.dim : 0;
    for (int r = 0; p->typed_efeat && r < p->nrels; r++)
        if (p->rels[r].has_efeat) d = GNN_MAX(d, p->rels[r].efeat.dim);
    return d;
}

/* The expected bytes of one staged mini-batch, with a margin. The worst
** case (every drawn node new) is often ten times the truth, so the plan uses
** the expectation and the executor enforces the limit on what it actually
** holds, shrinking a hyperbatch that would not fit (hb_fit). */
static int64_t batch_bytes_est(const plan *p, int64_t dim)
{
    double nodes = 0, edges = 0;
    for (int h = 0; h <= p->nhops; h++) nodes += p->nodes_est[h];
    for (int h = 0; h < p->nhops; h++) edges += p->edges_est[h];
    nodes = fmin(nodes * 1.25, (double)p->nodes_bound);
    edges = fmin(edges * 1.25, (double)p->edges_bound);
    double eb = HB_EDGE_BYTES + (p->eids ? 8.0 : 0.0) +
                4.0 * (double)plan_eattr_dim(p);
    double b = nodes * (double)HB_NODE_BYTES(dim) + edges * eb +
               (double)p->batch * 8 + 4096;
    return b > 9e18 ? INT64_MAX : (int64_t)b;
}

int64_t plan_per_batch_bytes(const plan *p)
{
    return batch_bytes_est(p, plan_x_dim(p));
}

/* Expected nodes and edges of one mini-batch. */
void plan_batch_size_est(const plan *p, double *nodes, double *edges)
{
    *nodes = *edges = 0;
    for (int h = 0; h <= p->nhops; h++) *nodes += p->nodes_est[h];
    for (int h = 0; h < p->nhops; h++) *edges += p->edges_est[h];
}

/* What sampling one mini-batch of a spilled round holds: its nodes, map and
** edges, and its share of a hop's scratch (frontier items, the sampling
** arena); its outputs are built one at a time. The executor measures it
** after the first sub-round and sizes the later ones by that. */
static double sampling_bytes_est(const plan *p)
{
    double nodes, edges;
    plan_batch_size_est(p, &nodes, &edges);
    nodes = fmin(nodes, (double)p->nodes_bound);
    edges = fmin(edges, (double)p->edges_bound);
    return nodes * HB_SAMPLE_NODE_BYTES + edges * HB_SAMPLE_EDGE_BYTES + 4096;
}

/* The feature blocks a mini-batch's rows come from and their bytes: the
** node features', or the types' together (a node's row is in its type's
** table; spread over all of them is near enough for the estimate). */
static void row_blocks(const plan *p, double *blocks, double *bytes)
{
    *blocks = *bytes = 0;
    if (p->has_feat) {
        *blocks = (double)p->feat.nblocks;
        *bytes = *blocks * (double)p->feat.block_size;
    }
    for (int t = 0; p->typed && t < p->ntypes; t++)
        if (p->types[t].has_feat) {
            *blocks += (double)p->types[t].feat.nblocks;
            *bytes += (double)p->types[t].feat.nblocks *
                      (double)p->types[t].feat.block_size;
        }
}

/* Bytes read per mini-batch when rounds of h mini-batches are sampled s at
** a time: each hop's frontier touches graph blocks (each start block once
** per sampling round), each node's row a feature block (once per round),
** less what the pools keep between rounds; and what they keep is read once
** for the whole run, spread over its mini-batches. */
static double reads_per_batch(const plan *p, double s, double h)
{
    double nb = (double)GNN_MAX(1, p->topo.graph_blocks), gbytes = 0;
    double frontier = fmin((double)plan_seed_nodes(p),
                           (double)GNN_MAX(1, p->graph.nodes));
    for (int k = 0; k < p->nhops; k++) {
        gbytes += nb * (1.0 - exp(-frontier * s / nb)) *
                  (double)p->graph.block_size / s;
        frontier = p->nodes_est[k + 1];
    }
    double fb, fbytes, rows = 0;
    row_blocks(p, &fb, &fbytes);
    if (fb > 0) {
        double nodes, edges;
        plan_batch_size_est(p, &nodes, &edges);
        rows = fb * (1.0 - exp(-nodes * h / fb)) * (fbytes / fb) / h;
    }
    double once = p->graph_resident * nb * (double)p->graph.block_size +
                  p->feat_resident * fbytes;
    return gbytes * (1.0 - p->graph_resident) +
           rows * (1.0 - p->feat_resident) +
           once / (double)GNN_MAX(1, p->total_batches);
}

/* A spilled round of g mini-batches: the write buffer of each run (with
** SPILL_WRITE_DEPTH more in flight, a quarter of what is staged, 16 KiB to
** 256 KiB each), the mini-batches sampled at a time in what the records
** (sorted rows, 4 bytes a node; the seeds' labels) and buffers leave, and
** the bytes of I/O per mini-batch: reads plus each run written and read. */
/* What a spilled mini-batch's record holds in memory until its round is
** read back: its rows, sorted (4 bytes a node), and its seeds' labels. */
static double spill_record_bytes(const plan *p, double nodes)
{
    double link = p->link ? (double)p->batch * (1.0 + (double)p->negative) * 24.0
                          : 0.0;
    double n, edges = 0;
    /* with edge rows, the edges' ids too, sorted */
    if (p->has_efeat || p->typed_efeat) plan_batch_size_est(p, &n, &edges);
    return nodes * 4.0 + edges * 1.1 * 4.0 + (double)p->batch * 16.0 + link;
}

/* What a round's read-back holds beside its read buffers: the records of
** its g mini-batches and the topology of the one being finished
** (hbs_records_bytes). */
static double readback_records(const plan *p, double nodes, double g)
{
    return g * (spill_record_bytes(p, nodes) + 256) + p->spill_topo_est;
}

/* ... and with the run handed out, in a buffer a sixteenth larger than it
** (runs differ in size; hb_readback.c's buf_ready). With hot rows that
** buffer still holds every row of the mini-batch. */
static double readback_bytes(const plan *p, double nodes, double g)
{
    return readback_records(p, nodes, g) + p->run_bytes_est * 17.0 / 16.0;
}

static double spill_round(const plan *p, double nodes, double g, double *s,
                          size_t *wbuf)
{
    double staged = (double)p->staged_bytes;
    double rec = spill_record_bytes(p, nodes) + 256;
    double wb = fmin(256 << 10, fmax(16 << 10, staged * 0.25 /
                                     (g + SPILL_WRITE_DEPTH)));
    *wbuf = (size_t)wb & ~(size_t)(SPILL_ALIGN - 1);
    double left = staged - g * rec - (g + SPILL_WRITE_DEPTH) * wb -
                  p->spill_topo_est;
    /* a sub-round's batches hold their sampling state and, once finished,
    ** their records too, until the slots are reused */
    *s = fmax(1.0, fmin(g, left / fmax(sampling_bytes_est(p) + rec + wb, 1.0)));
    return reads_per_batch(p, *s, g) +
           2.0 * (p->run_bytes_est - p->spill_hot_spare);
}

/* Without spill_limit the disk bounds a round: a round and the next one,
** built beside it, are both in the spill area, and the rest of the machine
** keeps a tenth of what is free. A round that did not fit would fail with
** GNNDB_FULL when the disk filled, after minutes of work. */
static int64_t spill_disk_cap(gnndb *db, plan *p)
{
    p->spill_free = spill_dir_free(db_temp_dir(db));
    p->spill_free_cap = 0;
    if (p->spill_free < 0) return INT64_MAX;
    p->spill_free_cap = GNN_MAX(1, (int64_t)((double)p->spill_free * 0.45 /
                                             plan_spill_bytes(p, 1)));
    return p->spill_free_cap;
}

/* Spill or not (PRAGMA spill; by default when HYPERBATCH n asks for more
** than memory holds, or when it costs less I/O per mini-batch than the
** hyperbatch memory holds), and the round size G:
** larger rounds read each feature block for more mini-batches, but their
** records leave less for sampling, which rereads the graph each sub-round;
** G is the cheapest of a geometric ladder up to the cap (HYPERBATCH n asks
** for n), with its runs within spill_limit. */
void plan_spill(gnndb *db, plan *p, int64_t cap, int64_t fit)
{
    double nodes, edges;
    plan_batch_size_est(p, &nodes, &edges);
    nodes = fmin(nodes * 1.1, (double)p->nodes_bound);
    edges = fmin(edges * 1.1, (double)p->edges_bound);
    double rowbytes = (double)plan_x_row_bytes(p);
    /* the run's layout (plan_run.h): its topology, the order of its
    ** nodes and edges, and their rows */
    double eb = (double)plan_run_edge_bytes(p);
    double nb = (double)plan_run_node_bytes(p);
    double erow = plan_run_order_edge_bytes(p)
                      ? (double)plan_run_order_edge_bytes(p) +
                        4.0 * (double)plan_eattr_dim(p)
                      : 0.0;
    p->run_bytes_est = nodes * (nb + PLAN_RUN_ORDER_NODE_BYTES + rowbytes) +
                       edges * (eb + erow);
    p->spill_topo_est = nodes * nb + edges * eb;
    p->hyperbatch_inmem = fit;
    p->cost_inmem = reads_per_batch(p, (double)fit, (double)fit);
    double staged = (double)p->staged_bytes;
    int64_t top = cap;
    if (db->pragma.spill_limit > 0)
        top = GNN_MIN(top, (int64_t)((double)db->pragma.spill_limit /
                                     plan_spill_bytes(p, 1)));
    else
        top = GNN_MIN(top, spill_disk_cap(db, p));
    top = GNN_MAX(1, top);
    int64_t g = 1;
    double s = 1, best = INFINITY;
    size_t wbuf = SPILL_ALIGN;
    for (double c = 1; ; c = fmax(c + 1, floor(c * 1.25))) {
        int64_t k = (int64_t)fmin(c, (double)top);
        double sk;
        size_t wk;
        double cost = spill_round(p, nodes, (double)k, &sk, &wk);
        /* the records and buffers must leave room to sample one batch */
        int fits = sk >= 1 &&
                   staged - (double)k * spill_record_bytes(p, nodes) -
                   (double)(k + SPILL_WRITE_DEPTH) * (double)wk -
                   p->spill_topo_est >= sampling_bytes_est(p) &&
                   readback_bytes(p, nodes, (double)k) <= staged;
        if (fits && (cost < best || (k == cap && p->hyperbatch_asked))) {
            best = cost;
            g = k;
            s = sk;
            wbuf = wk;
        }
        if (k >= top || !fits) break;
    }
    p->cost_spill = best;
    /* without rows to gather a round saves nothing: only the sampling
    ** sub-rounds read the graph, and they are no larger than in memory */
    /* nor where the pools keep every block: a round reads nothing again
    ** whatever its size (plan_hyperbatch takes a small one) */
    int want = db->pragma.spill == GNN_SPILL_ON ||
               (db->pragma.spill == GNN_SPILL_AUTO && !plan_resident(p) &&
                plan_x_dim(p) + plan_eattr_dim(p) > 0 &&
                fit < cap && g > fit &&
                (p->hyperbatch_asked > fit || p->cost_spill < p->cost_inmem));
    /* a spilled run holds n_id, edge_index, e_id, a typed batch's outputs,
    ** node rows and edge rows, of at most PLAN_SPILL_SECTIONS tables */
    if (plan_spill_sections(p) > PLAN_SPILL_SECTIONS) want = 0;
    /* a run read back must fit: the mini-batch handed out is held whole */
    if (!want || readback_bytes(p, nodes, (double)g) > staged)
        return;
    p->spill = 1;
    p->hyperbatch = g;
    p->spill_subround = s;
    p->spill_wbuf = wbuf;
    p->spill_rec_est = spill_record_bytes(p, nodes) + 256 + (double)wbuf;
    /* runs read ahead of the one handed out (each in a buffer of its own
    ** beside it): as many as fit, up to what the spill area reads at once */
    double room = staged - readback_records(p, nodes, (double)g);
    p->spill_ahead = 0;
    while (p->spill_ahead < SPILL_READ_RUNS &&
           (double)(p->spill_ahead + 2) * p->run_bytes_est * 1.15 <= room)
        p->spill_ahead++;
}


void plan_partition_range(int64_t total, int64_t k, int64_t n, int64_t *lo,
                          int64_t *hi)
{
    if (n <= 1) {
        *lo = 0;
        *hi = total;
        return;
    }
    /* floor(k * total / n) without overflow for any total < 2^63 */
    __int128 t = total;
    *lo = (int64_t)(t * k / n);
    *hi = (int64_t)(t * (k + 1) / n);
}

void plan_batch_counts(int64_t nseeds, int64_t batch, int64_t epochs,
                       int64_t limit, int64_t *per_epoch, int64_t *total)
{
    *per_epoch = (nseeds + batch - 1) / batch;
    *total = *per_epoch * epochs;
    if (limit >= 0 && limit < *total) *total = limit;
}

void plan_set_seed_count(plan *p, int64_t loaded)
{
    int64_t lo = 0, hi = loaded;
    /* every rank computes the same epoch order over all seeds and keeps its
    ** slice of it, so the ranks' shares are disjoint and their union is the
    ** single-process epoch */
    if (p->part_count > 1)
        plan_partition_range(loaded, p->part_rank, p->part_count, &lo, &hi);
    p->nseeds_all = loaded;
    p->nseeds = hi - lo;
    p->seed_lo = lo;
    plan_batch_counts(p->nseeds, p->batch, p->epochs, p->limit,
                      &p->batches_per_epoch, &p->total_batches);
}

int64_t plan_round(const plan *p, int64_t g, int64_t want, int64_t *epoch,
                   int64_t *first)
{
    *epoch = g / p->batches_per_epoch;
    *first = g % p->batches_per_epoch;
    int64_t n = GNN_MIN(want, p->batches_per_epoch - *first);
    return GNN_MIN(n, p->total_batches - g);
}

int plan_resident(const plan *p)
{
    return !p->spill && !p->typed && !p->link && (!p->eids || p->temporal) &&
           !p->has_efeat &&
           p->cache_policy == GNN_CACHE_NONE &&
           p->read_granularity != GNN_GRAN_PAGE &&
           p->graph_resident >= 1.0 &&
           (p->feat_frames == 0 || p->feat_resident >= 1.0);
}

int64_t plan_hyperbatch_fit(const plan *p, double per_batch)
{
    if (p->cache_policy == GNN_CACHE_BELADY) per_batch *= 2;
    int64_t h = (int64_t)((double)p->staged_bytes / per_batch);
    return GNN_MAX(1, GNN_MIN(h, p->hyperbatch_cap));
}
