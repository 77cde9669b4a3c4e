/* plan.c — from a SAMPLE's syntax tree to a plan: names checked against the
** catalog, seeds resolved, and memory_limit divided among the buffer pools
** and the staged output of the hyperbatch, shrinking the hyperbatch when H
** staged mini-batches would not fit. */
#include "plan.h"
#include "block.h"
#include "index.h"
#include "spill.h"
#include "io.h"
#include "bufpool.h"
#include "plan_run.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HB_DEFAULT_MAX 1024
/* Mini-batches a round of a resident plan takes per thread: enough that
** every thread has work to the end of the round, each building whole
** mini-batches (exec/hb_resident.c). */
#define HB_RESIDENT_PER_THREAD 4

int plan_parse_device(const char *d, plan *p, gnn_err *e)
{
    p->device = GNNDB_DEVICE_HOST;
    p->device_index = 0;
    if (!d || strcmp(d, "host") == 0 || strcmp(d, "cpu") == 0) return GNNDB_OK;
    if (strncmp(d, "cuda", 4) == 0) {
        p->device = GNNDB_DEVICE_CUDA;
        if (d[4] == 0) return GNNDB_OK;
        if (d[4] == ':') {
            char *end;
            long v = strtol(d + 5, &end, 10);
            if (*end == 0 && end != d + 5 && v >= 0 && v < 64) {
                p->device_index = (int)v;
                return GNNDB_OK;
            }
        }
    }
    return gnn_seterr(e, GNNDB_RANGE,
                      "unknown device '%s': use 'host' or 'cuda:N'", d);
}

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

/* Upper bounds of nodes and edges of one mini-batch, and the expected
** counts (what EXPLAIN and the plan's memory estimate from). */
static void bound_batch(plan *p)
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

/* The expected bytes of one staged mini-batch, with a margin. The worst
** case (every drawn node new) is often ten times the truth, so the plan uses
** the expectation and the executor enforces the limit on what it actually
** holds, shrinking a hyperbatch that would not fit (hb_fit). */
/* The widest edge_attr row of a batch (float32 words): EDGE FEATURES' table,
** or the widest of a typed graph's relations'. */
static int64_t eattr_dim(const plan *p)
{
    int64_t d = p->has_efeat ? p->efeat.dim : 0;
    for (int r = 0; p->typed_efeat && r < p->nrels; r++)
        if (p->rels[r].has_efeat) d = GNN_MAX(d, p->rels[r].efeat.dim);
    return d;
}

static int64_t batch_bytes_est(const plan *p, int64_t dim)
{
    double nodes = 0, edges = 0;
    for (int h = 0; h <= p->nhops; h++) nodes += p->nodes_est[h];
    for (int h = 0; h < p->nhops; h++) edges += p->edges_est[h];
    nodes = fmin(nodes * 1.25, (double)p->nodes_bound);
    edges = fmin(edges * 1.25, (double)p->edges_bound);
    double eb = HB_EDGE_BYTES + (p->eids ? 8.0 : 0.0) +
                4.0 * (double)eattr_dim(p);
    double b = nodes * (double)HB_NODE_BYTES(dim) + edges * eb +
               (double)p->batch * 8 + 4096;
    return b > 9e18 ? INT64_MAX : (int64_t)b;
}

static int64_t per_batch_bytes(const plan *p)
{
    return batch_bytes_est(p, plan_x_dim(p));
}

/* Expected nodes and edges of one mini-batch. */
static void batch_size_est(const plan *p, double *nodes, double *edges)
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
    batch_size_est(p, &nodes, &edges);
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
        batch_size_est(p, &nodes, &edges);
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
    if (p->has_efeat || p->typed_efeat) batch_size_est(p, &n, &edges);
    return nodes * 4.0 + edges * 1.1 * 4.0 + (double)p->batch * 16.0 + link;
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
    return reads_per_batch(p, *s, g) + 2.0 * p->run_bytes_est;
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
static void plan_spill(gnndb *db, plan *p, int64_t cap, int64_t fit)
{
    double nodes, edges;
    batch_size_est(p, &nodes, &edges);
    nodes = fmin(nodes * 1.1, (double)p->nodes_bound);
    edges = fmin(edges * 1.1, (double)p->edges_bound);
    double rowbytes = (double)plan_x_row_bytes(p);
    /* the run's layout (plan_run.h): its topology, the order of its
    ** nodes and edges, and their rows */
    double eb = (double)plan_run_edge_bytes(p);
    double nb = (double)plan_run_node_bytes(p);
    double erow = plan_run_order_edge_bytes(p)
                      ? (double)plan_run_order_edge_bytes(p) +
                        4.0 * (double)eattr_dim(p)
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
                   p->spill_topo_est >= sampling_bytes_est(p);
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
                plan_x_dim(p) + eattr_dim(p) > 0 &&
                fit < cap && g > fit &&
                (p->hyperbatch_asked > fit || p->cost_spill < p->cost_inmem));
    /* a spilled run holds n_id, edge_index, e_id, a typed batch's outputs,
    ** node rows and edge rows, of at most PLAN_SPILL_SECTIONS tables */
    if (plan_spill_sections(p) > PLAN_SPILL_SECTIONS) want = 0;
    /* a run read back must fit: the mini-batch handed out is held whole */
    if (!want || p->run_bytes_est > staged - (double)g * (double)p->batch * 16)
        return;
    p->spill = 1;
    p->hyperbatch = g;
    p->spill_subround = s;
    p->spill_wbuf = wbuf;
    p->spill_rec_est = spill_record_bytes(p, nodes) + 256 + (double)wbuf;
    /* runs read ahead of the one handed out (each in a buffer of its own
    ** beside it): as many as fit, up to what the spill area reads at once */
    double room = staged - (double)g * (double)p->batch * 16;
    p->spill_ahead = 0;
    while (p->spill_ahead < SPILL_READ_RUNS &&
           (double)(p->spill_ahead + 2) * p->run_bytes_est * 1.15 <= room)
        p->spill_ahead++;
}

/* The row cache's share of memory_limit: PRAGMA feature_cache, else the
** same share a buffer pool gets; whole rows only, never more rows than the
** table has. */
static int plan_cache(gnndb *db, plan *p, int64_t share, gnn_err *e)
{
    p->cache_policy = p->has_feat ? db->pragma.cache_policy : GNN_CACHE_NONE;
    if (p->cache_policy == GNN_CACHE_NONE) return GNNDB_OK;
    int64_t want = db->pragma.feature_cache >= 0 ? db->pragma.feature_cache
                                                 : share;
    int64_t per = (int64_t)p->feat.dim * 4 + GNN_CACHE_ROW_OVERHEAD;
    int64_t rows = GNN_MIN(want / per, p->feat.rows);
    if (p->cache_policy == GNN_CACHE_HOT_BLOCKS) {
        per = p->feat.block_size;
        rows = GNN_MIN(want / per, p->feat.nblocks);
    }
    int64_t left = p->data_bytes - p->graph_pool_bytes - p->feat_pool_bytes;
    if (rows * per > left / 2) {
        char b1[32], b2[32];
        return gnn_seterr(e, GNNDB_NOMEM,
                          "PRAGMA feature_cache %s leaves too little of "
                          "memory_limit %s for the staged mini-batches; use "
                          "at most half of what the buffer pools leave",
                          db_fmt_size(want, b1, sizeof b1),
                          db_fmt_size(p->memory_limit, b2, sizeof b2));
    }
    if (p->cache_policy == GNN_CACHE_HOT_BLOCKS) p->cache_blocks = rows;
    else p->cache_rows = rows;
    p->cache_bytes = rows * per;
    return GNNDB_OK;
}

static int resolve_seeds(gnndb *db, const ast_stmt *s, plan *p, gnn_err *e)
{
    p->seeds_kind = s->seeds_kind;
    if (p->link) {
        p->nseeds = p->edge_split.count;
        return GNNDB_OK;
    }
    switch (s->seeds_kind) {
    case AST_SEEDS_SPLIT:
        if (cat_node_split_get(db->cat, &p->graph, s->seeds_split, "",
                               &p->split, e))
            return e->rc;
        p->nseeds = p->split.count;
        break;
    case AST_SEEDS_ORDERED:
    case AST_SEEDS_LIST:
        p->n_seed_list = s->n_seed_ids;
        p->seed_list = malloc((s->n_seed_ids + 1) * sizeof(int64_t));
        if (!p->seed_list) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        memcpy(p->seed_list, s->seed_ids, s->n_seed_ids * sizeof(int64_t));
        p->nseeds = (int64_t)s->n_seed_ids;
        break;
    default:
        p->nseeds = p->graph.nodes;
        break;
    }
    return GNNDB_OK;
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
    return !p->spill && !p->typed && !p->link && !p->eids && !p->has_efeat &&
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

/* The feature table: the one named, else the graph's only one (none when
** it has several and the query names none). SAMPLE hands out float32 rows:
** a float16 table's are widened as they are gathered. */
static int plan_features(gnndb *db, const ast_stmt *s, plan *p, gnn_err *e)
{
    if (s->features) {
        if (cat_table_get(db->cat, p->graph.id, s->features, &p->feat, e))
            return e->rc;
        if (p->feat.kind != CAT_TABLE_FEATURES)
            return gnn_seterr(e, GNNDB_NOTFOUND,
                              "no such feature table: %s in graph %s",
                              s->features, s->graph);
        p->has_feat = 1;
    } else {
        cat_table *ts = NULL;
        size_t nt = 0, nf = 0;
        if (cat_table_list(db->cat, p->graph.id, &ts, &nt, e)) return e->rc;
        for (size_t i = 0; i < nt; i++)
            if (ts[i].kind == CAT_TABLE_FEATURES) { p->feat = ts[i]; nf++; }
        free(ts);
        p->has_feat = nf == 1;
    }
    if (p->has_feat && p->feat.dtype != BLK_DTYPE_F32 &&
        p->feat.dtype != BLK_DTYPE_F16)
        return gnn_seterr(e, GNNDB_RANGE,
                          "feature table %s is stored as %s; SAMPLE gathers "
                          "float32 and float16 tables only", p->feat.name,
                          blk_dtype_name(p->feat.dtype));
    return GNNDB_OK;
}

/* The graph's labels, when it has them: a graph without is no error. */
static int plan_labels(gnndb *db, plan *p, gnn_err *e)
{
    gnn_err e2 = {0};
    if (cat_table_get(db->cat, p->graph.id, "__labels", &p->labels, &e2) ==
        GNNDB_OK)
        p->has_labels = 1;
    else if (e2.rc != GNNDB_NOTFOUND)
        return gnn_seterr(e, e2.rc, "%s", e2.msg);
    return GNNDB_OK;
}

/* EXCLUDE SPLIT a, b: edge splits of the graph, each named once. */
static int plan_exclude(gnndb *db, const ast_stmt *s, plan *p, gnn_err *e)
{
    for (size_t i = 0; i < s->n_exclude_splits; i++) {
        for (size_t j = 0; j < i; j++)
            if (!strcmp(s->exclude_splits[i], s->exclude_splits[j]))
                return gnn_seterr(e, GNNDB_ERROR, "EXCLUDE SPLIT names %s "
                                  "twice", s->exclude_splits[i]);
        int rc = cat_edge_split_get(db->cat, &p->graph,
                                    s->exclude_splits[i], &p->exclude[i], e);
        if (rc == GNNDB_ERROR)  /* a node split: its advice is SEEDS */
            return gnn_seterr(e, rc, "EXCLUDE SPLIT %s: '%s' is a node split "
                              "of graph '%s'; EXCLUDE SPLIT takes edge splits",
                              s->exclude_splits[i], s->exclude_splits[i],
                              p->graph.name);
        if (rc) return rc;
    }
    p->nexclude = s->n_exclude_splits;
    return GNNDB_OK;
}

/* EDGE FEATURES w: a table of a row per input edge. */
static int plan_edge_features(gnndb *db, const ast_stmt *s, plan *p,
                              gnn_err *e)
{
    if (!s->edge_features) return GNNDB_OK;
    if (cat_table_get(db->cat, p->graph.id, s->edge_features, &p->efeat, e))
        return e->rc;
    if (p->efeat.kind != CAT_TABLE_EDGE_FEATURES)
        return gnn_seterr(e, GNNDB_ERROR, "%s is a table of node features "
                          "of graph %s; EDGE FEATURES takes a table of IMPORT "
                          "EDGE FEATURES", p->efeat.name, p->graph.name);
    if (p->efeat.dtype != BLK_DTYPE_F32 && p->efeat.dtype != BLK_DTYPE_F16)
        return gnn_seterr(e, GNNDB_ERROR, "edge feature table %s is stored "
                          "as %s; SAMPLE gathers float32 and float16 tables "
                          "only", p->efeat.name,
                          blk_dtype_name(p->efeat.dtype));
    p->has_efeat = 1;
    return GNNDB_OK;
}

/* Link prediction (EDGES, its negatives, EXCLUDE, EDGE FEATURES) and the
** topology the hops read: batches carrying edge ids read the edge-id
** graph, which only a graph built with edge ids has. A link batch has no
** y: its labels are edge_label. */
static int plan_link(gnndb *db, const ast_stmt *s, plan *p, gnn_err *e)
{
    p->topo = p->graph;
    p->eids = s->edge_seeds || s->edge_features;
    if (!p->eids) return GNNDB_OK;
    if (cat_graph_eid_view(&p->graph, s->edge_seeds ? "SAMPLE ... EDGES"
                                                    : "EDGE FEATURES",
                           &p->topo, e))
        return e->rc;
    if (s->edge_seeds) {
        if (cat_edge_split_get(db->cat, &p->graph, s->edge_seeds,
                               &p->edge_split, e))
            return e->rc;
        p->link = 1;
        p->has_labels = 0;
        p->neg_mode = s->neg_mode;
        p->negative = s->negative;
        p->neg_strict = s->neg_strict;
        p->exclude_seeds = s->exclude_seeds;
        if (s->pack)
            return gnn_seterr(e, GNNDB_ERROR, "INTO PACK stores node "
                              "batches; a SAMPLE ... EDGES is not stored in "
                              "packs yet");
    }
    if (plan_exclude(db, s, p, e)) return e->rc;
    return plan_edge_features(db, s, p, e);
}

/* The seeds of every epoch, and the partition whose share this rank takes
** when the query is one of part_count (plan_set_seed_count counts it). */
static int plan_seeds(gnndb *db, const ast_stmt *s, plan *p, gnn_err *e)
{
    if (resolve_seeds(db, s, p, e)) return e->rc;
    p->nseeds_all = p->nseeds;
    if (s->part_count > 0) {
        p->part_rank = s->part_rank;
        p->part_count = s->part_count;
    }
    return GNNDB_OK;
}

/* The query's clauses, the batches they make, and the pragmas the
** executor runs under, copied into the plan. A seed is drawn when the
** query gives none (EXPLAIN and gnndb_stmt_status report it). */
static int plan_clauses(gnndb *db, const ast_stmt *s, plan *p, gnn_err *e)
{
    p->pack = s->pack != NULL;
    p->nhops = s->nhops;
    memcpy(p->fanouts, s->fanouts, sizeof p->fanouts);
    p->replace = s->replace;
    p->batch = s->batch;
    p->hyperbatch_asked = s->hyperbatch;
    p->shuffle = s->shuffle;
    p->epochs = s->epochs > 0 ? s->epochs : 1;
    p->limit = s->limit;
    if (s->has_seed) {
        p->seed = s->seed;
    } else {
        p->seed = db_new_token() & 0x7fffffffffffffffull;
        p->seed_drawn = 1;
    }
    if (s->into && !(p->into = strdup(s->into)))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    if (plan_parse_device(s->device, p, e)) return e->rc;

    plan_set_seed_count(p, p->nseeds_all);

    p->io = db->pragma.io;
    p->threads = db->pragma.threads;
    p->io_depth = db->pragma.io_depth;
    p->coalesce = db->pragma.coalesce;
    p->read_granularity = db->pragma.read_granularity;
    return GNNDB_OK;
}

/* The expected mini-batch, from the degree histogram; then memory: an
** eighth (at most 64 MiB) for graph blocks, the same for feature blocks,
** the row cache when a policy is set (plan_cache), the rest for the staged
** mini-batches of a hyperbatch (plan_hyperbatch).
** A hyperbatch visits each block once, so a pool only needs frames
** enough to keep reads in flight; staged mini-batches are what let H,
** and with it the saving in reads, grow. */
/* The largest block and the blocks in all of the tables gather reads:
** features, labels, edge features, or each type's. */
static void add_file(const cat_table *t, int64_t *bs, int64_t *blocks)
{
    *bs = GNN_MAX(*bs, (int64_t)t->block_size);
    *blocks += t->nblocks;
}

static void feature_files(const plan *p, int64_t *bs, int64_t *blocks)
{
    *bs = *blocks = 0;
    if (p->has_feat) add_file(&p->feat, bs, blocks);
    if (p->has_labels) add_file(&p->labels, bs, blocks);
    if (p->has_efeat) add_file(&p->efeat, bs, blocks);
    for (int i = 0; p->typed && i < p->ntypes; i++)
        if (p->types[i].has_feat) add_file(&p->types[i].feat, bs, blocks);
    for (int r = 0; p->typed_efeat && r < p->nrels; r++)
        if (p->rels[r].has_efeat) add_file(&p->rels[r].efeat, bs, blocks);
}

/* Frames for a pool of `share` bytes over `blocks` blocks of `bs` bytes:
** at least 4, never more than the file has blocks; and the part of the
** file the pool keeps between rounds: all of it when it fits, else what
** reads in flight leave (bufpool.c, bp_read_frames). */
static size_t pool_frames(int64_t share, int64_t bs, int64_t blocks,
                          int depth, double *resident)
{
    int64_t n = GNN_MIN(GNN_MAX(4, share / bs), GNN_MAX(4, blocks));
    int64_t spare = (int64_t)bp_read_frames((size_t)n, (unsigned)depth);
    double kept = n >= blocks ? (double)blocks
                              : (double)GNN_MAX(0, n - spare);
    *resident = blocks > 0 ? fmin(1.0, kept / (double)blocks) : 1.0;
    return (size_t)n;
}

/* Pools of gshare bytes for graph blocks and fshare for the tables gather
** reads; the row cache beside them (plan_cache). */
static int set_pools(gnndb *db, plan *p, int64_t gshare, int64_t fshare,
                     gnn_err *e)
{
    int64_t fbs, fblocks;
    feature_files(p, &fbs, &fblocks);
    int64_t gbs = p->topo.block_size;
    p->graph_frames = pool_frames(gshare, gbs, p->topo.graph_blocks,
                                  p->io_depth, &p->graph_resident);
    p->graph_pool_bytes = (int64_t)p->graph_frames * gbs;
    p->feat_frames = 0;
    p->feat_pool_bytes = 0;
    p->feat_resident = 0;
    if (fbs) {
        p->feat_frames = pool_frames(fshare, fbs, fblocks, p->io_depth,
                                     &p->feat_resident);
        p->feat_pool_bytes = (int64_t)p->feat_frames * fbs;
    }
    return plan_cache(db, p, GNN_MIN(p->data_bytes / 8, (int64_t)64 << 20), e);
}

/* Bytes of the blocks the hops read and of the tables gather reads. */
static void file_bytes(const plan *p, int64_t *gbytes, int64_t *fbytes)
{
    int64_t fbs, fblocks;
    feature_files(p, &fbs, &fblocks);
    *gbytes = p->topo.graph_blocks * (int64_t)p->topo.block_size;
    *fbytes = fblocks * fbs;
}

/* The threads a SAMPLE starts besides the caller's: its workers, the
** thread that builds the next spilled round, and the pread backend's. */
static int plan_thread_count(const plan *p)
{
    return GNN_MAX(1, p->threads) + (p->io == IO_PREAD ? 4 : 0);
}

/* Bytes of one mini-batch's output arrays (n_id, edge_index, e_id, x,
** edge_attr, y), as a host copies them. */
static int64_t batch_out_bytes(const plan *p)
{
    double nodes, edges;
    batch_size_est(p, &nodes, &edges);
    double b = nodes * (8.0 + (double)plan_x_row_bytes(p)) +
               edges * (16.0 + (p->eids ? 8.0 : 0.0) +
                        4.0 * (double)eattr_dim(p)) +
               (double)p->batch * 8.0;
    return (int64_t)fmin(b * 1.25, 9e18);
}

/* memory_limit less the process's own (memory.c) and the host's copies of
** batches: what pools and staged mini-batches divide. */
static int plan_reserve(gnndb *db, plan *p, gnn_err *e)
{
    if (!p->typed && cat_degree_hist_get(db->cat, p->graph.id, p->deg_hist,
                                         64, &p->nbuckets, e))
        return e->rc;
    bound_batch(p);
    int rc = db_memory_reserve(db, plan_thread_count(p), 1 << 20, "SAMPLE",
                               &p->mem, e);
    if (rc) return rc;
    p->memory_limit = p->mem.limit;
    p->per_batch_bytes = per_batch_bytes(p);
    p->copies_bytes = db->pragma.batch_copies * batch_out_bytes(p) +
                      (p->pack ? PLAN_PACK_WRITER_BYTES(p->total_batches) : 0);
    p->data_bytes = p->mem.data - p->copies_bytes;
    if (p->data_bytes < (1 << 20)) {
        char b1[32], b2[32];
        return gnn_seterr(e, GNNDB_NOMEM, "SAMPLE: memory_limit %s leaves no "
                          "room for data beside %d copies of a mini-batch "
                          "(%s); raise PRAGMA memory_limit or lower PRAGMA "
                          "batch_copies",
                          db_fmt_size(p->memory_limit, b1, sizeof b1),
                          db->pragma.batch_copies,
                          db_fmt_size(p->copies_bytes, b2, sizeof b2));
    }
    return GNNDB_OK;
}
/* A spilled round is gathered block by block straight into its runs: a
** row cache has nothing to serve, so its memory goes to the round; pinned
** hot blocks still spare their reads. */
static void spill_drops_row_cache(plan *p)
{
    if (!p->spill || p->cache_policy == GNN_CACHE_HOT_BLOCKS) return;
    p->staged_bytes += p->cache_bytes;
    p->cache_policy = GNN_CACHE_NONE;
    p->cache_bytes = p->cache_rows = 0;
}

/* What EXPLAIN says beside H (cap: what the query and one epoch allow),
** before a note already there (a typed plan's warning, plan_typed.c). */
static void plan_note(plan *p, int64_t cap)
{
    char b1[32], why[160] = "", was[sizeof p->note];
    if (p->spill) {
        snprintf(why, sizeof why,
                 "spilled: each mini-batch's rows wait in the spill area; "
                 "in memory_limit %s only %" PRId64 " would fit",
                 db_fmt_size(p->memory_limit, b1, sizeof b1),
                 p->hyperbatch_inmem);
    } else if (p->hyperbatch < p->hyperbatch_cap) {
        snprintf(why, sizeof why,
                 "reduced from %" PRId64 " to fit memory_limit %s",
                 cap, db_fmt_size(p->memory_limit, b1, sizeof b1));
    } else if (p->hyperbatch < cap) {
        snprintf(why, sizeof why,
                 "%d a thread: the pools keep every block, so a larger "
                 "one would read no less", HB_RESIDENT_PER_THREAD);
    }
    if (!why[0]) return;
    memcpy(was, p->note, sizeof was);
    snprintf(p->note, sizeof p->note, "%s%s%.*s", why, was[0] ? "; " : "",
             (int)(sizeof p->note - strlen(why) - 3), was);
}

/* What the seeds and their epoch order hold for the whole run: a node id
** and its place in the order, or a seed edge's id, endpoints and place,
** and a bit per edge for EXCLUDE SPLIT. */
static int64_t seeds_bytes_of(const plan *p)
{
    if (!p->link) return (p->nseeds_all + 1) * 8;
    return (p->nseeds_all + 1) * 16 +
           (p->nexclude ? p->graph.input_edges / 8 + 8 : 0);
}

/* H: as many staged mini-batches as what the pools and the cache leave
** holds, at most HYPERBATCH n (1024 by default) and one epoch; or, when
** plan_spill chooses it, a spilled round. */
static int plan_hyperbatch(gnndb *db, plan *p, gnn_err *e)
{
    /* the seeds and their epoch order stay loaded for the whole run */
    p->staged_bytes = p->data_bytes - p->graph_pool_bytes -
                      p->feat_pool_bytes - p->cache_bytes - seeds_bytes_of(p);
    char b1[32], b2[32];
    /* the seeds alone must fit; the rest is checked on what is staged */
    int64_t seeds_bytes = plan_seed_nodes(p) * HB_NODE_BYTES(plan_x_dim(p));
    if (p->staged_bytes < seeds_bytes)
        return gnn_seterr(e, GNNDB_NOMEM,
                          "memory_limit %s is too small for one mini-batch of "
                          "BATCH %" PRId64 " (its seeds alone need %s); raise "
                          "PRAGMA memory_limit or lower BATCH",
                          db_fmt_size(p->memory_limit, b1, sizeof b1), p->batch,
                          db_fmt_size(seeds_bytes, b2, sizeof b2));
    int64_t want = p->hyperbatch_asked ? p->hyperbatch_asked : HB_DEFAULT_MAX;
    int64_t bpe = GNN_MAX(1, p->batches_per_epoch);
    int64_t cap = GNN_MIN(want, bpe);  /* a hyperbatch stays in one epoch */
    p->hyperbatch_cap = cap;
    p->hyperbatch = plan_hyperbatch_fit(p, (double)p->per_batch_bytes);
    plan_spill(db, p, cap, p->hyperbatch);
    spill_drops_row_cache(p);
    /* pools that keep every block read nothing again, whatever H: a large
    ** H, asked or not, then costs memory, page faults and cache misses,
    ** and buys nothing */
    if (plan_resident(p)) {
        p->hyperbatch_cap = GNN_MIN(cap, (int64_t)GNN_MAX(1, p->threads) *
                                             HB_RESIDENT_PER_THREAD);
        p->hyperbatch = GNN_MIN(p->hyperbatch, p->hyperbatch_cap);
    }
    plan_note(p, cap);
    return GNNDB_OK;
}

/* Through the page cache or not, for EXPLAIN: the graph's topology and the
** feature table. */
static void plan_reads(gnndb *db, plan *p)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", db->dir, p->topo.file);
    db_read_choice(db, path, &p->graph_read);
    memset(&p->feat_read, 0, sizeof p->feat_read);
    if (!p->has_feat) return;
    snprintf(path, sizeof path, "%s/%s", db->dir, p->feat.file);
    db_read_choice(db, path, &p->feat_read);
}

/* Bytes of I/O per mini-batch the plan expects: reads, and a spilled
** round's runs written and read back. */
static double plan_cost(const plan *p)
{
    return p->spill ? p->cost_spill : p->cost_inmem;
}

/* Whether candidate q is a better division of memory than best: fewer
** bytes of I/O per mini-batch; or as few, and pools that keep every block
** where best's do not (its rounds are built from their frames, where H buys
** nothing), else a larger H. */
static int better(const plan *q, const plan *best)
{
    double a = plan_cost(q), b = plan_cost(best);
    if (a < b * 0.99 - 1.0) return 1;
    if (a > b * 1.01 + 1.0) return 0;
    if (plan_resident(q) != plan_resident(best)) return plan_resident(q);
    return q->hyperbatch > best->hyperbatch;
}

/* How the data's memory is divided between the buffer pools and the staged
** mini-batches, by cost: pools that keep more blocks read less each round,
** staged batches let H (or a spilled round's sampling sub-rounds) grow.
** The candidates: an eighth for each pool (at most 64 MiB: enough to keep
** reads in flight), a quarter, half and three quarters of the data for
** the pools (graph blocks first: every hop reads them, and they are the
** smaller part), and the whole database, read once, when it fits. Each is
** planned whole (H, spilled or not) and the cheapest wins. */
static int plan_memory(gnndb *db, plan *p, gnn_err *e)
{
    int rc = plan_reserve(db, p, e);
    if (!rc) rc = plan_transfer_of(db, p, e);
    if (rc) return rc;
    /* the transfer's pinned staging and the GPU cache's host index */
    p->data_bytes -= p->tr.host_bytes;
    int64_t d = p->data_bytes, dflt = GNN_MIN(d / 8, (int64_t)64 << 20);
    int64_t gb, fb;
    file_bytes(p, &gb, &fb);
    const int64_t total[] = {0, d / 4, d / 2, d / 4 * 3, gb + fb};
    plan best;
    int have = 0;
    gnn_err first = {0};
    for (size_t i = 0; i < sizeof total / sizeof *total; i++) {
        int64_t g = dflt, f = dflt;
        if (i > 0) {
            g = GNN_MAX(dflt, GNN_MIN(total[i], gb));
            f = GNN_MAX(dflt, GNN_MIN(total[i] - g, fb));
            if (g + f > d) continue;
        }
        plan q = *p;
        gnn_err e2 = {0};
        if (set_pools(db, &q, g, f, &e2) || plan_hyperbatch(db, &q, &e2)) {
            if (i == 0) first = e2;
            continue;
        }
        /* larger pools must leave room to stage mini-batches: two of the
        ** expected size (a real one may be larger than expected), and a
        ** quarter of the data at least, since estimates err */
        if (i > 0 && q.staged_bytes < GNN_MAX(2 * q.per_batch_bytes, d / 4))
            continue;
        if (!have || better(&q, &best)) {
            best = q;
            have = 1;
        }
    }
    if (!have) return gnn_seterr(e, first.rc, "%s", first.msg);
    *p = best;
    plan_reads(db, p);
    return GNNDB_OK;
}

/* Blocks per hop of one hyperbatch: distinct blocks touched by
** H * frontier random nodes out of nblocks; likewise the feature blocks of
** its rows. */
static void plan_blocks_est(plan *p)
{
    double nb = (double)GNN_MAX(1, p->topo.graph_blocks);
    double frontier = fmin((double)plan_seed_nodes(p),
                           (double)GNN_MAX(1, p->graph.nodes));
    for (int h = 0; h < p->nhops; h++) {
        double touches = frontier * (double)p->hyperbatch;
        p->blocks_est_hb[h] = nb * (1.0 - exp(-touches / nb));
        frontier = p->nodes_est[h + 1];
    }
    if (p->has_feat) {
        double fb = (double)GNN_MAX(1, p->feat.nblocks);
        double rows = 0;
        for (int h = 0; h <= p->nhops; h++) rows += p->nodes_est[h];
        p->feat_blocks_est_hb = fb * (1.0 - exp(-rows * p->hyperbatch / fb));
    }
}

/* EXPLAIN's estimates, and the executor's choice of whole blocks or pages,
** come from the disk profile; without one, from documented defaults. */
static int plan_profile(gnndb *db, plan *p, gnn_err *e)
{
    gnn_err e3 = {0};
    int rc = cat_profile_get(db->cat, &p->profile, &e3);
    if (rc && rc != GNNDB_NOTFOUND) return gnn_seterr(e, rc, "%s", e3.msg);
    p->calibrated = rc == GNNDB_OK;
    return GNNDB_OK;
}

/* The steps in order: each reads what the ones before it filled in. */
int plan_build(gnndb *db, const ast_stmt *s, plan *p, gnn_err *e)
{
    memset(p, 0, sizeof *p);
    if (cat_graph_get(db->cat, s->graph, &p->graph, e)) return e->rc;
    int rc;
    if (p->graph.kind == CAT_GRAPH_TYPED) rc = plan_typed(db, s, p, e);
    else if (s->typed || s->seeds_type)
        rc = gnn_seterr(e, GNNDB_MISUSE, "graph %s has no node types or "
                        "relations: sample it with fanouts (SAMPLE 10,5) "
                        "and SEEDS split", s->graph);
    else if ((rc = plan_features(db, s, p, e)) ||
             (rc = plan_labels(db, p, e)) || (rc = plan_link(db, s, p, e)))
        return rc;
    else
        rc = plan_seeds(db, s, p, e);
    if (rc || (rc = plan_clauses(db, s, p, e)) || (rc = plan_memory(db, p, e)))
        return rc;
    plan_blocks_est(p);
    return plan_profile(db, p, e);
}

void plan_free(plan *p)
{
    free(p->seed_list);
    free(p->into);
    free(p->types);
    free(p->rels);
    p->seed_list = NULL;
    p->into = NULL;
    p->types = NULL;
    p->rels = NULL;
}
