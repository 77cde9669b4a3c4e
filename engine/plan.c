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
#include "plan_size.h"

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

/* A table of a row per node must have one for each node of the version
** sampled: one imported before INSERT NODES lacks the new nodes' rows. */
static int plan_rows_cover(const plan *p, const cat_table *t, gnn_err *e)
{
    if (t->rows >= p->graph.nodes) return GNNDB_OK;
    int labels = t->kind == CAT_TABLE_LABELS;
    char stmt[CAT_NAME_MAX + 16];
    snprintf(stmt, sizeof stmt, labels ? "LABELS" : "FEATURES %s", t->name);
    return gnn_seterr(e, GNNDB_RANGE, "%s%s of graph %s has %lld rows and "
                      "version %lld of the graph has %lld nodes: import it "
                      "again with a row for each (IMPORT %s INTO %s FROM 'f' "
                      "REPLACE), or sample an older version (AS OF "
                      "VERSION)", labels ? "the label table" : "feature "
                      "table ", labels ? "" : t->name, p->graph.name,
                      (long long)t->rows, (long long)p->graph.version,
                      (long long)p->graph.nodes, stmt, p->graph.name);
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
    return p->has_feat ? plan_rows_cover(p, &p->feat, e) : GNNDB_OK;
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
    return p->has_labels ? plan_rows_cover(p, &p->labels, e) : GNNDB_OK;
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
    /* a row per input edge of the version sampled: a table imported
    ** before INSERT EDGES lacks the rows of the edges added since */
    if (p->efeat.rows < p->graph.input_edges)
        return gnn_seterr(e, GNNDB_RANGE, "edge feature table %s has %lld "
                          "rows and version %lld of graph %s has %lld input "
                          "edges: IMPORT EDGE FEATURES %s INTO %s FROM "
                          "'f' REPLACE with a row for each, or sample an "
                          "older version (AS OF VERSION)", p->efeat.name,
                          (long long)p->efeat.rows,
                          (long long)p->graph.version, p->graph.name,
                          (long long)p->graph.input_edges, p->efeat.name,
                          p->graph.name);
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
    /* a record holds the batch-field list's arrays, not a typed batch's
    ** per-type and per-relation ones (exec/pack_record.h) */
    if (s->pack && p->typed)
        return gnn_seterr(e, GNNDB_MISUSE, "INTO PACK stores node and link "
                          "batches; a SAMPLE of typed graph %s is not "
                          "stored in packs yet", p->graph.name);
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
    plan_batch_size_est(p, &nodes, &edges);
    double b = nodes * (8.0 + (double)plan_x_row_bytes(p)) +
               edges * (16.0 + (p->eids ? 8.0 : 0.0) +
                        4.0 * (double)plan_eattr_dim(p)) +
               (double)p->batch * 8.0;
    return (int64_t)fmin(b * 1.25, 9e18);
}

/* memory_limit less the process's own (memory.c) and the host's copies of
** batches: what pools and staged mini-batches divide. */
static int plan_reserve(gnndb *db, plan *p, gnn_err *e)
{
    if (!p->typed && cat_degree_hist_get(db->cat, p->graph.topo_id, p->deg_hist,
                                         64, &p->nbuckets, e))
        return e->rc;
    plan_bound_batch(p);
    int rc = db_memory_reserve(db, plan_thread_count(p), 1 << 20, "SAMPLE",
                               &p->mem, e);
    if (rc) return rc;
    p->memory_limit = p->mem.limit;
    p->per_batch_bytes = plan_per_batch_bytes(p);
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

/* A spilled plan's hot rows (exec/hotrows.h): the rows of the nodes with
** the most stored neighbours stay in memory for the run, and no run writes
** them and reads them back. PRAGMA feature_cache sizes them (at most half
** of what is staged; 0: none; the
** row cache policies, typed plans and edge rows keep the runs whole); by
** default a quarter of what is staged, when the spill they are expected
** to spare (plan_hot_share, by the degree histogram) pays for the two
** reads of the graph that choose them. The round is planned again in what
** is left, its runs' I/O less what they spare, and kept if it still spills
** and costs less. */
static void plan_spill_hot(gnndb *db, plan *p, int64_t cap)
{
    int64_t asked = db->pragma.feature_cache;
    if (!p->spill || p->typed || !p->has_feat || asked == 0 ||
        plan_spill_sections(p) != 1 || p->cache_policy != GNN_CACHE_NONE ||
        p->feat.rows <= 0 || p->feat.rows > (int64_t)UINT32_MAX + 1)
        return;
    int64_t rowb = (int64_t)plan_x_row_bytes(p);
    int64_t want = asked > 0 ? GNN_MIN(asked, p->staged_bytes / 2)
                             : p->staged_bytes / 4;
    int64_t rows = GNN_MIN((want - plan_hot_bytes(p, 0)) / rowb, p->feat.rows);
    if (rows <= 0) return;
    double nodes, edges;
    plan_batch_size_est(p, &nodes, &edges);
    /* expected by degree, but never below their share of the rows */
    double share = fmax(plan_hot_share(p, rows),
                        (double)rows / (double)p->feat.rows);
    double spare = share * fmin(nodes * 1.1, (double)p->nodes_bound) *
                   (double)rowb;
    double graph = 2.0 * (double)p->topo.graph_blocks *
                   (double)p->graph.block_size;
    if (asked < 0 && 2.0 * spare * (double)p->total_batches < graph) return;
    int64_t bytes = plan_hot_bytes(p, rows);
    plan q = *p;
    q.staged_bytes -= bytes;
    q.spill_hot_share = share;
    q.spill_hot_spare = spare;
    q.spill = 0;
    q.hyperbatch = plan_hyperbatch_fit(&q, (double)q.per_batch_bytes);
    plan_spill(db, &q, cap, q.hyperbatch);
    /* kept only where it still spills, and costs less than without */
    if (!q.spill || q.cost_spill > p->cost_spill) return;
    q.spill_hot_rows = rows;
    q.spill_hot_bytes = bytes;
    *p = q;
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
** and its place in the order, or a seed edge's id, endpoints and place
** (and its time when read as the run starts), and a bit per edge for
** EXCLUDE SPLIT. */
static int64_t seeds_bytes_of(const plan *p)
{
    /* BY NODE TIME: every node's time, held for the run */
    int64_t by_node = p->time_by_node ? (p->graph.nodes + 1) * 8 : 0;
    if (!p->link) return (p->nseeds_all + 1) * 8 + by_node;
    /* AT EDGE TIME BY NODE TIME reads the seed edges' times as the run
    ** starts: both endpoints of each (8 bytes), a flag each, and a small
    ** pool of the time graph's blocks (hb_tm_seed_times) */
    int64_t timing = p->seed_edge_times
        ? (p->nseeds_all + 1) * 9 +
          PLAN_SEED_TIME_FRAMES * (int64_t)p->time_graph.block_size
        : 0;
    return (p->nseeds_all + 1) * (p->seed_edge_times ? 24 : 16) + by_node +
           timing + (p->nexclude ? p->graph.input_edges / 8 + 8 : 0) +
           /* the nodes by time (12 bytes a node), sorted beside the times
           ** read (8 more while it is built) */
           (p->neg_by_time ? (p->graph.nodes + 1) * 20 : 0);
}

/* H: as many staged mini-batches as what the pools and the cache leave
** holds, at most HYPERBATCH n (1024 by default) and one epoch; or, when
** plan_spill chooses it, a spilled round. */
static int plan_hyperbatch(gnndb *db, plan *p, gnn_err *e)
{
    /* the seeds and their epoch order stay loaded for the whole run */
    p->staged_bytes = p->data_bytes - p->graph_pool_bytes -
                      p->feat_pool_bytes - p->cache_bytes - seeds_bytes_of(p);
    char b1[32], b2[32], b3[32];
    /* the seeds alone must fit; the rest is checked on what is staged */
    int64_t seeds_bytes = plan_seed_nodes(p) * HB_NODE_BYTES(plan_x_dim(p));
    if (p->staged_bytes < seeds_bytes)
        return gnn_seterr(e, GNNDB_NOMEM,
                          "memory_limit %s is too small for one mini-batch of "
                          "BATCH %" PRId64 " (its seeds alone need %s); raise "
                          "PRAGMA memory_limit or lower BATCH",
                          db_fmt_size(p->memory_limit, b1, sizeof b1), p->batch,
                          db_fmt_size(seeds_bytes, b2, sizeof b2));
    /* A third of one mini-batch's expected staging must fit as well:
    ** below it no round can hold a mini-batch, and the first step would
    ** say so only after the seeds and the pools were read. The estimate
    ** errs high (its 1.25 margin, and twice the truth on cora's small
    ** neighbourhoods), never three times, so nothing that could run is
    ** refused; between a third and the whole the executor decides on what
    ** it really holds (hb_fit). */
    if (p->staged_bytes < p->per_batch_bytes / 3)
        return gnn_seterr(e, GNNDB_NOMEM,
                          "memory_limit %s is too small for one mini-batch of "
                          "BATCH %" PRId64 " (it stages about %s, and the "
                          "limit leaves %s for staging); raise PRAGMA "
                          "memory_limit or lower BATCH or the fanouts",
                          db_fmt_size(p->memory_limit, b1, sizeof b1), p->batch,
                          db_fmt_size(p->per_batch_bytes, b2, sizeof b2),
                          db_fmt_size(GNN_MAX(p->staged_bytes, 0), b3,
                                      sizeof b3));
    int64_t want = p->hyperbatch_asked ? p->hyperbatch_asked : HB_DEFAULT_MAX;
    int64_t bpe = GNN_MAX(1, p->batches_per_epoch);
    /* a hyperbatch stays in one epoch, and in the statement: a round
    ** larger than LIMIT's mini-batches would be costed as if its reads
    ** were shared by batches that never run (at LIMIT 200 a round of 796
    ** looked four times cheaper than the resident pools, and was slower) */
    int64_t cap = GNN_MIN(want, bpe);
    if (p->total_batches > 0) cap = GNN_MIN(cap, p->total_batches);
    p->hyperbatch_cap = cap;
    p->hyperbatch = plan_hyperbatch_fit(p, (double)p->per_batch_bytes);
    plan_spill(db, p, cap, p->hyperbatch);
    spill_drops_row_cache(p);
    plan_spill_hot(db, p, cap);
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
    p->graph_latest = p->graph.version;
    /* AS OF VERSION n: that version's topology, read for the statement's
    ** life (its rows and files stay until DROP VERSIONS) */
    if (s->as_of &&
        cat_graph_as_of(db->cat, &p->graph, s->as_of, &p->graph, e))
        return e->rc;
    int rc;
    if (p->graph.kind == CAT_GRAPH_TYPED) rc = plan_typed(db, s, p, e);
    else if (s->typed || s->seeds_type)
        rc = gnn_seterr(e, GNNDB_MISUSE, "graph %s has no node types or "
                        "relations: sample it with fanouts (SAMPLE 10,5) "
                        "and SEEDS split", s->graph);
    else if ((rc = plan_features(db, s, p, e)) ||
             (rc = plan_labels(db, p, e)) || (rc = plan_link(db, s, p, e)))
        return rc;
    else if (!(rc = plan_seeds(db, s, p, e)))
        rc = plan_time(db, s, p, e);
    if (rc || (rc = plan_clauses(db, s, p, e)) || (rc = plan_memory(db, p, e)))
        return rc;
    plan_blocks_est(p);
    return plan_profile(db, p, e);
}

void plan_free(plan *p)
{
    free(p->seed_list);
    free(p->seed_times);
    p->seed_times = NULL;
    free(p->into);
    free(p->types);
    free(p->rels);
    p->seed_list = NULL;
    p->into = NULL;
    p->types = NULL;
    p->rels = NULL;
}
