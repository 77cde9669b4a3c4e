/* show.c — SHOW GRAPHS and DESCRIBE: what a user exploring a dataset wants
** to see, as rows. DESCRIBE's rows are (property, value) pairs so that the
** shell and programs can pick the ones they need. */
#include "show.h"
#include "block.h"
#include "blockfile.h"
#include "segmap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OOM(e) gnn_seterr(e, GNNDB_NOMEM, "out of memory")

int show_graphs(gnndb *db, rowset **out, gnn_err *e)
{
    static const char *const cols[] = {"name", "nodes", "edges", "directed",
                                       "features", "labels", "splits", NULL};
    cat_graph *gs = NULL;
    size_t n = 0;
    int rc = cat_graph_list(db->cat, &gs, &n, e);
    if (rc) return rc;
    rowset *rs = rs_new(7, cols);
    if (!rs) { free(gs); return OOM(e); }
    for (size_t i = 0; i < n && !rc; i++) {
        cat_table *ts = NULL;
        cat_split *ss = NULL;
        size_t nt = 0, ns = 0;
        if ((rc = cat_table_list(db->cat, gs[i].id, &ts, &nt, e)) ||
            (rc = cat_split_list(db->cat, gs[i].id, &ss, &ns, e))) {
            free(ts);
            break;
        }
        char feats[1024] = "", splits[1024] = "";
        int labels = 0;
        for (size_t k = 0; k < nt; k++) {
            if (ts[k].kind == CAT_TABLE_LABELS) { labels = 1; continue; }
            if (ts[k].kind != CAT_TABLE_FEATURES) continue;
            size_t l = strlen(feats);
            snprintf(feats + l, sizeof feats - l, "%s%s", l ? "," : "",
                     ts[k].name);
        }
        for (size_t k = 0; k < ns; k++) {
            size_t l = strlen(splits);
            snprintf(splits + l, sizeof splits - l, "%s%s", l ? "," : "",
                     ss[k].name);
        }
        if (rs_row(rs) || rs_text(rs, gs[i].name) || rs_int(rs, gs[i].nodes) ||
            rs_int(rs, gs[i].edges) || rs_int(rs, gs[i].directed) ||
            rs_text(rs, feats) || rs_int(rs, labels) || rs_text(rs, splits))
            rc = OOM(e);
        free(ts);
        free(ss);
    }
    free(gs);
    if (rc) { rs_free(rs); return rc; }
    *out = rs;
    return GNNDB_OK;
}

static int64_t file_size(const char *dir, const char *name)
{
    char path[1024];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &sb) == 0 ? (int64_t)sb.st_size : -1;
}

/* Class counts of a label table, read from its blocks (verified). */
static int label_counts(gnndb *db, const cat_table *t, int64_t **counts,
                        gnn_err *e)
{
    *counts = calloc((size_t)t->nclasses + 1, sizeof **counts);
    if (!*counts) return OOM(e);
    blk_file *f;
    int rc = db_open_table(db, t, 0, &f, e);
    if (rc) return rc;
    void *buf = gnn_alloc_aligned(t->block_size);
    if (!buf) { blkf_close(f); return OOM(e); }
    for (int64_t b = 0; b < t->nblocks && !rc; b++) {
        if ((rc = blkf_read(f, (uint64_t)b, buf, e))) break;
        const blk_header *h = buf;
        for (uint32_t i = 0; i < h->count; i++) {
            int64_t v;
            memcpy(&v, blk_feature_row(buf, i), sizeof v);
            if (v >= 0 && v < t->nclasses) (*counts)[v]++;
        }
    }
    gnn_free_aligned(buf);
    blkf_close(f);
    return rc;
}

/* A graph past version 1: its current version, the kept ones, and each
** one's source file and edges (what .schema builds again). */
static int version_props(gnndb *db, const cat_graph *g, rowset *rs,
                         int *oom, gnn_err *e)
{
    char key[64], buf[64];
    cat_graph *vs = NULL;
    char (*made)[CAT_MADE_MAX] = NULL;
    size_t n = 0;
    int rc = cat_version_list(db->cat, g, &vs, &made, &n, e);
    if (rc) return rc;
    *oom |= rs_prop_int(rs, "version", g->version);
    snprintf(buf, sizeof buf, "%" PRId64 " to %" PRId64, g->oldest_version,
             g->version);
    *oom |= rs_prop_text(rs, "versions_kept", buf);
    for (size_t i = 0; i < n; i++) {
        snprintf(key, sizeof key, "version.%" PRId64 ".source",
                 vs[i].version);
        *oom |= rs_prop_text(rs, key, vs[i].source);
        snprintf(key, sizeof key, "version.%" PRId64 ".nodes", vs[i].version);
        *oom |= rs_prop_int(rs, key, vs[i].nodes);
        snprintf(key, sizeof key, "version.%" PRId64 ".edges", vs[i].version);
        *oom |= rs_prop_int(rs, key, vs[i].edges);
    }
    free(vs);
    free(made);
    return GNNDB_OK;
}

/* The graph's own rows: its shape, where it came from, how it is stored,
** and its degrees with their histogram. */
static int graph_props(gnndb *db, const cat_graph *g, rowset *rs, int *oom,
                       gnn_err *e)
{
    char buf[256];
    *oom |= rs_prop_text(rs, "name", g->name);
    *oom |= rs_prop_int(rs, "nodes", g->nodes);
    *oom |= rs_prop_int(rs, "edges", g->edges);
    *oom |= rs_prop_int(rs, "directed", g->directed);
    *oom |= rs_prop_text(rs, "node_order", g->node_order);
    *oom |= rs_prop_int(rs, "block_size", g->block_size);
    *oom |= rs_prop_int(rs, "graph_blocks", g->graph_blocks);
    *oom |= rs_prop_text(rs, "source", g->source);
    *oom |= rs_prop_int(rs, "edge_ids", g->has_eids);
    if (g->has_eids) {
        *oom |= rs_prop_int(rs, "input_edges", g->input_edges);
        *oom |= rs_prop_int(rs, "eid_blocks", g->eid_blocks);
    }
    if (g->version > 1) {   /* appended to (INSERT EDGES) */
        int rc = version_props(db, g, rs, oom, e);
        if (rc) return rc;
    }
    if (g->kind == CAT_GRAPH_TYPED) {
        /* its degrees are its relations' (DESCRIBE graph.relation) */
        *oom |= rs_prop_text(rs, "kind", "typed");
        return GNNDB_OK;
    }
    *oom |= rs_prop_int(rs, "degree.min", g->min_degree);
    *oom |= rs_prop_int(rs, "degree.median", g->median_degree);
    snprintf(buf, sizeof buf, "%.2f", g->mean_degree);
    *oom |= rs_prop_text(rs, "degree.mean", buf);
    *oom |= rs_prop_int(rs, "degree.max", g->max_degree);
    int64_t hist[64];
    int nb = 0;
    int rc = cat_degree_hist_get(db->cat, g->topo_id, hist, 64, &nb, e);
    if (rc) return rc;
    for (int k = 0; k < nb; k++) {
        if (!hist[k]) continue;
        /* bucket 0: degree 0; bucket k: [2^(k-1), 2^k) */
        int64_t lo = k == 0 ? 0 : (int64_t)1 << (k - 1);
        int64_t hi = k == 0 ? 0 : ((int64_t)1 << k) - 1;
        snprintf(buf, sizeof buf, "degree.hist.%" PRId64 "-%" PRId64, lo, hi);
        *oom |= rs_prop_int(rs, buf, hist[k]);
    }
    return GNNDB_OK;
}

/* kind_times.min and .max ("edge" or "node") where the catalog holds
** their range (times imported by an older gnndb have none). Returns
** nonzero when out of memory. */
static int time_range_props(gnndb *db, int64_t graph_id, const char *kind,
                            rowset *rs)
{
    int64_t lo, hi;
    gnn_err e2 = {0};
    if (cat_time_range_get(db->cat, graph_id, kind, &lo, &hi, &e2))
        return 0;
    char key[32];
    snprintf(key, sizeof key, "%s_times.min", kind);
    int oom = rs_prop_int(rs, key, lo);
    snprintf(key, sizeof key, "%s_times.max", kind);
    return oom | rs_prop_int(rs, key, hi);
}

/* A row for each feature table, then for the label table its classes and
** the nodes of each (counted from its blocks). */
static int table_props(gnndb *db, const cat_table *ts, size_t nt, rowset *rs,
                       int *oom, gnn_err *e)
{
    char buf[256];
    for (size_t i = 0; i < nt; i++) {
        int edge = ts[i].kind == CAT_TABLE_EDGE_FEATURES;
        if ((ts[i].kind != CAT_TABLE_FEATURES && !edge) || ts[i].has_type)
            continue;
        char key[200], val[64];
        snprintf(key, sizeof key, "%s.%s", edge ? "edge_features" : "features",
                 ts[i].name);
        snprintf(val, sizeof val, "%u x %s", ts[i].dim,
                 blk_dtype_name(ts[i].dtype));
        *oom |= rs_prop_text(rs, key, val);
    }
    for (size_t i = 0; i < nt; i++)
        if (ts[i].kind == CAT_TABLE_NODE_TIMES) {
            *oom |= rs_prop_text(rs, "node_times", ts[i].source);
            *oom |= time_range_props(db, ts[i].graph_id, "node", rs);
        }
    for (size_t i = 0; i < nt; i++) {
        if (ts[i].kind != CAT_TABLE_LABELS || ts[i].has_type) continue;
        snprintf(buf, sizeof buf, "%" PRId64 " classes", ts[i].nclasses);
        *oom |= rs_prop_text(rs, "labels", buf);
        int64_t *counts = NULL;
        int rc = label_counts(db, &ts[i], &counts, e);
        for (int64_t c = 0; !rc && c < ts[i].nclasses; c++) {
            snprintf(buf, sizeof buf, "label.class.%" PRId64, c);
            *oom |= rs_prop_int(rs, buf, counts[c]);
        }
        free(counts);
        if (rc) return rc;
    }
    return GNNDB_OK;
}

/* A row for each pack: its batches, the seed it was sampled with, its
** bytes. Returns nonzero when out of memory. */
static int pack_props(const cat_pack *ps, size_t np, rowset *rs)
{
    int oom = 0;
    for (size_t i = 0; i < np; i++) {
        char key[200], val[256];
        snprintf(key, sizeof key, "pack.%s", ps[i].name);
        snprintf(val, sizeof val, "%" PRId64 " batches (%" PRId64 " epochs x %"
                 PRId64 "), SEED %" PRIu64 ", %" PRId64 " bytes", ps[i].batches,
                 ps[i].epochs, ps[i].batches_per_epoch, ps[i].seed,
                 ps[i].nblocks * (int64_t)ps[i].block_size);
        oom |= rs_prop_text(rs, key, val);
    }
    return oom;
}

/* A segmented file (an append's deltas, insert_delta.c): the bytes of
** each segment it reads, and delta.NAME: how many of its blocks lie in
** delta segments, in how many. Returns nonzero when out of memory. */
static int seg_props(gnndb *db, const char *name, rowset *rs)
{
    char path[1024], buf[256];
    snprintf(path, sizeof path, "%s/%s", db->dir, name);
    seg_map m;
    gnn_err e2 = {0};
    if (!seg_map_is_name(name) || seg_map_read(path, &m, &e2)) return 0;
    int oom = 0;
    uint64_t delta = seg_map_delta_blocks(&m);
    uint32_t nd = 0;
    for (uint32_t i = 0; i < m.nsegs; i++) nd += !strncmp(m.segs[i].name, "d-", 2);
    for (uint32_t i = 0; i < m.nsegs; i++) {
        snprintf(buf, sizeof buf, "file.%s", m.segs[i].name);
        oom |= rs_prop_int(rs, buf, file_size(db->dir, m.segs[i].name));
    }
    snprintf(buf, sizeof buf, "delta.%s", name);
    char val[160];
    snprintf(val, sizeof val, "%" PRIu64 " of %" PRIu64 " blocks in %u "
             "delta segments (%.1f%%)", delta, m.nblocks, nd,
             m.nblocks ? 100.0 * (double)delta / (double)m.nblocks : 0.0);
    oom |= rs_prop_text(rs, buf, val);
    seg_map_free(&m);
    return oom;
}

/* The bytes on disk of every file the graph owns, then of the catalog and
** the index, which the whole database shares. Returns nonzero when out of
** memory. */
static int file_props(gnndb *db, const cat_graph *g, const cat_table *ts,
                      size_t nt, const cat_pack *ps, size_t np, rowset *rs)
{
    char buf[256];
    int oom = 0;
    if (g->file[0]) {
        snprintf(buf, sizeof buf, "file.%s", g->file);
        oom |= rs_prop_int(rs, buf, file_size(db->dir, g->file));
        oom |= seg_props(db, g->file, rs);
    }
    if (g->has_eids) {
        snprintf(buf, sizeof buf, "file.%s", g->eid_file);
        oom |= rs_prop_int(rs, buf, file_size(db->dir, g->eid_file));
        oom |= seg_props(db, g->eid_file, rs);
    }
    cat_graph tg;
    gnn_err e2 = {0};
    if (g->kind == CAT_GRAPH_PLAIN &&
        cat_time_graph_get(db->cat, g, &tg, &e2) == GNNDB_OK) {
        oom |= rs_prop_text(rs, "edge_times", tg.source);
        oom |= time_range_props(db, g->topo_id, "edge", rs);
        snprintf(buf, sizeof buf, "file.%s", tg.file);
        oom |= rs_prop_int(rs, buf, file_size(db->dir, tg.file));
        oom |= seg_props(db, tg.file, rs);
    }
    for (size_t i = 0; i < nt; i++) {
        /* version 1's edge table hangs off the graph's own row; a later
        ** version's off its version row (below) */
        if (ts[i].kind == CAT_TABLE_EDGES && g->topo_id != g->id) continue;
        snprintf(buf, sizeof buf, "file.%s", ts[i].file);
        oom |= rs_prop_int(rs, buf, file_size(db->dir, ts[i].file));
    }
    cat_table et;
    if (g->topo_id != g->id &&
        cat_table_get(db->cat, g->topo_id, CAT_EDGES_TABLE, &et, &e2) ==
            GNNDB_OK) {
        snprintf(buf, sizeof buf, "file.%s", et.file);
        oom |= rs_prop_int(rs, buf, file_size(db->dir, et.file));
        oom |= seg_props(db, et.file, rs);
    }
    for (size_t i = 0; i < np; i++) {
        snprintf(buf, sizeof buf, "file.%s", ps[i].file);
        oom |= rs_prop_int(rs, buf, file_size(db->dir, ps[i].file));
    }
    oom |= rs_prop_int(rs, "file.catalog.db", file_size(db->dir, "catalog.db"));
    oom |= rs_prop_int(rs, "file.index.mdb", file_size(db->dir, "index.mdb"));
    return oom;
}

/* split.NAME (node count) for a node split; edge_split.NAME (edge count)
** and, when RANDOM drew it, edge_split.NAME.seed for an edge split. */
static int split_props(const cat_split *ss, size_t ns, rowset *rs)
{
    char buf[256];
    int oom = 0;
    for (size_t i = 0; i < ns; i++) {
        if (ss[i].has_type) continue;   /* under its type's rows */
        int edge = ss[i].kind == CAT_SPLIT_EDGE;
        snprintf(buf, sizeof buf, "%s.%s", edge ? "edge_split" : "split",
                 ss[i].name);
        oom |= rs_prop_int(rs, buf, ss[i].count);
        if (!edge || !ss[i].has_seed) continue;
        char seed[24];
        snprintf(buf, sizeof buf, "edge_split.%s.seed", ss[i].name);
        snprintf(seed, sizeof seed, "%" PRIu64, ss[i].seed);
        oom |= rs_prop_text(rs, buf, seed);
    }
    return oom;
}

/* DESCRIBE graph: (property, value) rows, in *out (the caller frees them
** with rs_free) when it returns GNNDB_OK. */
int show_describe(gnndb *db, const char *graph, const char *part,
                  rowset **out, gnn_err *e)
{
    static const char *const cols[] = {"property", "value", NULL};
    cat_graph g;
    int rc = cat_graph_get(db->cat, graph, &g, e);
    if (rc) return rc;
    if (part && g.kind != CAT_GRAPH_TYPED)
        return gnn_seterr(e, GNNDB_NOTFOUND, "graph %s has no node types: "
                          "DESCRIBE %s.%s names none", graph, graph, part);
    rowset *rs = rs_new(2, cols);
    if (!rs) return OOM(e);
    cat_table *ts = NULL;
    cat_split *ss = NULL;
    cat_pack *ps = NULL;
    size_t nt = 0, ns = 0, np = 0;
    int oom = 0;
    if (part) {
        rc = show_typed(db, &g, part, rs, e);
        goto out;
    }
    if ((rc = graph_props(db, &g, rs, &oom, e)) ||
        (rc = cat_table_list(db->cat, g.id, &ts, &nt, e)) ||
        (rc = cat_split_list(db->cat, g.id, &ss, &ns, e)) ||
        (rc = table_props(db, ts, nt, rs, &oom, e)))
        goto out;
    oom |= split_props(ss, ns, rs);
    if (g.kind == CAT_GRAPH_TYPED && (rc = show_typed(db, &g, NULL, rs, e)))
        goto out;
    if ((rc = cat_pack_list(db->cat, g.id, &ps, &np, e))) goto out;
    oom |= pack_props(ps, np, rs);
    oom |= file_props(db, &g, ts, nt, ps, np, rs);
    if (oom) rc = OOM(e);
out:
    free(ts);
    free(ss);
    free(ps);
    if (rc) {
        rs_free(rs);
        return rc;
    }
    *out = rs;
    return GNNDB_OK;
}
