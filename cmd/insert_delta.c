/* insert_delta.c — INSERT EDGES and INSERT NODES written as deltas
** (storage/graph_delta.h): the new version's edge-id graph, plain graph
** and edge table are segmented files that keep the current version's
** blocks and add a segment of the node ranges the append changes, so an
** append costs what it changes, not the graph. Each changed list is the
** old one merged with the new entries in the order CREATE GRAPH gives a
** list, (source, edge id), the new ids being above every old one; DROP
** DUPLICATES keeps the first entry of a source, so a new edge that an
** old one (or an earlier new one) duplicates is dropped, as an import of
** every edge at once would drop it. The version is then published as
** insert.c publishes a rebuilt one.
**
** A graph with edge times gets its time graph the same way: a changed
** list is the old one merged with the new entries that the edge-id graph
** kept, by (time, neighbour, edge id).
**
** Not every append takes this path (ddl_insert_delta says so through
** *taken): appends too large for the statement's memory, and graphs
** whose files already hold SEG_MAX_SEGS - 1 segments, go through the
** rebuild instead, which leaves plain files. */
#include "ddl.h"
#include "graph_delta.h"
#include "grow.h"
#include "sort.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One new entry of a list: source `src` -> target `tgt` by edge `id`. */
typedef struct dl_add {
    uint32_t tgt, src, id;
    int64_t t;               /* the edge's time (0 without edge times) */
} dl_add;

typedef struct delta {
    gnndb *db;
    const cat_graph *g;
    const ast_stmt *s;
    int undirected, dedup, no_loops, timed;
    int64_t tmin, tmax;      /* of the new edges' times, dropped ones too */
    uint64_t max_adds;       /* more would not fit: the rebuild takes it */
    uint64_t max_entries;    /* the longest list to pack again, likewise */
    dl_add *adds;            /* by (tgt, src, id) */
    size_t nadds, capadds;
    uint32_t *rows;          /* the edge table's new rows: (src, dst) */
    size_t nrows, caprows;
    uint32_t *dropped;       /* new ids dropped (loops, duplicates) */
    size_t ndropped, capdropped;
    uint32_t *changed;       /* targets of the adds, ascending */
    size_t nchanged;
    size_t at;               /* the merge's place in adds */
    int eid_pass;            /* merging the edge-id graph: note drops */
    uint32_t *nb, *ei;       /* a merged list */
    int64_t *tm;
    dl_add *tl;              /* a timed list's kept adds */
    size_t capnb, capei, captm, captl;
} delta;

static int nomem(gnn_err *e)
{
    return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
}

static int push_add(delta *d, uint32_t tgt, uint32_t src, uint32_t id,
                    int64_t t)
{
    if (gnn_grow((void **)&d->adds, &d->capadds, d->nadds + 1,
                 sizeof *d->adds))
        return GNNDB_NOMEM;
    d->adds[d->nadds++] = (dl_add){tgt, src, id, t};
    return GNNDB_OK;
}

static int push_dropped(delta *d, uint32_t id)
{
    if (gnn_grow((void **)&d->dropped, &d->capdropped, d->ndropped + 1,
                 sizeof *d->dropped))
        return GNNDB_NOMEM;
    d->dropped[d->ndropped++] = id;
    return GNNDB_OK;
}

/* One edge of the file: its row of the edge table, its entries. */
static int take(void *arg, uint32_t u, uint32_t v, int64_t t, gnn_err *e)
{
    delta *d = arg;
    uint64_t id = (uint64_t)d->g->input_edges + d->nrows;
    if (id >= UINT32_MAX)
        return gnn_seterr(e, GNNDB_RANGE, "INSERT EDGES INTO %s: more than "
                          "2^32-1 input edges", d->g->name);
    if (d->nadds + 2 > d->max_adds) return GNNDB_FULL; /* quietly: rebuild */
    if (gnn_grow((void **)&d->rows, &d->caprows, 2 * (d->nrows + 1),
                 sizeof *d->rows))
        return nomem(e);
    d->rows[2 * d->nrows] = u;
    d->rows[2 * d->nrows++ + 1] = v;
    if (t < d->tmin) d->tmin = t;
    if (t > d->tmax) d->tmax = t;
    int rc;
    if (d->no_loops && u == v) rc = push_dropped(d, (uint32_t)id);
    else if ((rc = push_add(d, v, u, (uint32_t)id, t)) == GNNDB_OK &&
             d->undirected && u != v)
        rc = push_add(d, u, v, (uint32_t)id, t);
    return rc ? nomem(e) : GNNDB_OK;
}

static int by_entry(const void *a, const void *b)
{
    const dl_add *x = a, *y = b;
    if (x->tgt != y->tgt) return x->tgt < y->tgt ? -1 : 1;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* The adds in list order, and the nodes they change. */
static int order_adds(delta *d, gnn_err *e)
{
    qsort(d->adds, d->nadds, sizeof *d->adds, by_entry);
    if (d->nadds && !(d->changed = malloc(d->nadds * sizeof *d->changed)))
        return nomem(e);
    for (size_t i = 0; i < d->nadds; i++)
        if (!d->nchanged || d->changed[d->nchanged - 1] != d->adds[i].tgt)
            d->changed[d->nchanged++] = d->adds[i].tgt;
    return GNNDB_OK;
}

/* Changed node v's list: the old entries and v's adds by (source, id),
** the old ones first on a tie (their ids are lower); under DROP
** DUPLICATES an add whose source is there already is dropped. */
static int merge(void *arg, uint32_t v, const gd_list *old, gd_list *out,
                 gnn_err *e)
{
    delta *d = arg;
    while (d->at < d->nadds && d->adds[d->at].tgt < v) d->at++;
    size_t a = d->at, a1 = a;
    while (a1 < d->nadds && d->adds[a1].tgt == v) a1++;
    size_t cap = (size_t)old->n + (a1 - a);
    if (gnn_grow((void **)&d->nb, &d->capnb, cap + 1, sizeof *d->nb) ||
        gnn_grow((void **)&d->ei, &d->capei, cap + 1, sizeof *d->ei))
        return nomem(e);
    uint32_t i = 0, n = 0;
    while (i < old->n || a < a1) {
        int take_old = i < old->n && (a == a1 || old->nbrs[i] <= d->adds[a].src);
        uint32_t src = take_old ? old->nbrs[i] : d->adds[a].src;
        uint32_t id = take_old ? (old->eids ? old->eids[i] : 0) : d->adds[a].id;
        if (take_old) i++;
        else a++;
        if (!take_old && d->dedup && n && d->nb[n - 1] == src) {
            if (d->eid_pass && push_dropped(d, id)) return nomem(e);
            continue;
        }
        d->nb[n] = src;
        d->ei[n++] = id;
    }
    d->at = a1;
    out->nbrs = d->nb;
    out->eids = old->eids ? d->ei : NULL;
    out->times = NULL;
    out->n = n;
    return GNNDB_OK;
}

static int dropped(const delta *d, uint32_t id)
{
    size_t at = gnn_lower_u32(d->dropped, d->ndropped, id);
    return at < d->ndropped && d->dropped[at] == id;
}

static int by_time(const void *a, const void *b)
{
    const dl_add *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* Changed node v's list in the time graph: the old entries and v's adds
** that the edge-id graph kept, by (time, neighbour, edge id). */
static int merge_times(void *arg, uint32_t v, const gd_list *old,
                       gd_list *out, gnn_err *e)
{
    delta *d = arg;
    while (d->at < d->nadds && d->adds[d->at].tgt < v) d->at++;
    size_t k = 0, cap = (size_t)old->n + 1;
    for (; d->at < d->nadds && d->adds[d->at].tgt == v; d->at++) {
        if (dropped(d, d->adds[d->at].id)) continue;
        if (gnn_grow((void **)&d->tl, &d->captl, k + 1, sizeof *d->tl))
            return nomem(e);
        d->tl[k++] = d->adds[d->at];
    }
    qsort(d->tl, k, sizeof *d->tl, by_time);
    cap += k;
    if (gnn_grow((void **)&d->nb, &d->capnb, cap, sizeof *d->nb) ||
        gnn_grow((void **)&d->ei, &d->capei, cap, sizeof *d->ei) ||
        gnn_grow((void **)&d->tm, &d->captm, cap, sizeof *d->tm))
        return nomem(e);
    uint32_t i = 0, n = 0;
    size_t a = 0;
    while (i < old->n || a < k) {
        dl_add o = i < old->n ? (dl_add){v, old->nbrs[i], old->eids[i],
                                        old->times[i]} : (dl_add){0};
        int take_old = i < old->n && (a == k || by_time(&o, &d->tl[a]) < 0);
        const dl_add *x = take_old ? &o : &d->tl[a];
        d->nb[n] = x->src;
        d->ei[n] = x->id;
        d->tm[n++] = x->t;
        if (take_old) i++;
        else a++;
    }
    *out = (gd_list){d->nb, d->ei, d->tm, n};
    return GNNDB_OK;
}

/* ---- one file of the new version ---------------------------------------- */

/* A file of the new version: its map's name and token, its segment's. */
typedef struct dl_file {
    char map[64], seg[64];
    uint64_t token, seg_token;
    int map_written;
    gd_result r;
} dl_file;

static void name_file(dl_file *f, char kind)
{
    f->token = db_new_token();
    f->seg_token = db_new_token();
    snprintf(f->map, sizeof f->map, "%c-%016" PRIx64 ".seg", kind, f->token);
    /* "d-": a delta segment, told apart from a base file (created or
    ** compacted) by name alone (ddl_compact_due, DESCRIBE) */
    snprintf(f->seg, sizeof f->seg, "d-%016" PRIx64 ".blk", f->seg_token);
}

/* What of the old file a delta needs beside its blocks: its map (when it
** is segmented) and checksums. */
typedef struct dl_old {
    blk_file *f;
    seg_map map;
    int has_map;
    uint32_t *sums;
    uint64_t nsums;
    uint64_t *idx_first, *idx_block;
    size_t nidx;
} dl_old;

static void old_free(dl_old *o)
{
    blkf_close(o->f);
    if (o->has_map) seg_map_free(&o->map);
    free(o->sums);
    free(o->idx_first);
    free(o->idx_block);
    memset(o, 0, sizeof *o);
}

static int old_open(gnndb *db, const char *file, uint64_t nblocks,
                    dl_old *o, gnn_err *e)
{
    int rc = cat_checksums_get(db->cat, file, &o->sums, &o->nsums, e);
    if (!rc && o->nsums != nblocks)
        rc = gnn_seterr(e, GNNDB_CORRUPT, "catalog.db is damaged: %llu "
                        "checksums of %s's %llu blocks",
                        (unsigned long long)o->nsums, file,
                        (unsigned long long)nblocks);
    if (rc || !seg_map_is_name(file)) return rc;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", db->dir, file);
    if ((rc = seg_map_read(path, &o->map, e))) return rc;
    o->has_map = 1;
    return GNNDB_OK;
}

/* The new version of one graph file of g (eids: the edge-id graph). */
static int graph_file(delta *d, int eids, uint64_t nodes, dl_file *nf,
                      gnn_err *e)
{
    gnndb *db = d->db;
    const cat_graph *g = d->g;
    dl_old o = {0};
    int rc = eids ? db_open_eid_graph(db, g, 0, &o.f, e)
                  : db_open_graph(db, g, 0, &o.f, e);
    if (!rc) rc = old_open(db, eids ? g->eid_file : g->file,
                           (uint64_t)(eids ? g->eid_blocks : g->graph_blocks),
                           &o, e);
    if (!rc) rc = eids ? db_load_eid_index(db, g, &o.idx_first, &o.idx_block,
                                           &o.nidx, e)
                       : db_load_graph_index(db, g, &o.idx_first,
                                             &o.idx_block, &o.nidx, e);
    if (!rc) {
        gd_old go = {o.f, o.has_map ? &o.map : NULL,
                     eids ? g->eid_file : g->file,
                     eids ? g->eid_token : g->token, o.idx_first,
                     o.idx_block, o.nidx, o.sums, (uint64_t)g->nodes,
                     eids ? BLK_FLAG_EIDS : 0, d->max_entries};
        d->at = 0;
        d->eid_pass = eids;
        rc = gd_rewrite(&go, nodes, d->changed, d->nchanged, merge, d,
                        db->dir, nf->seg, nf->seg_token, nf->token, &nf->r,
                        e);
    }
    if (!rc && !(rc = seg_map_write(db->dir, nf->map, &nf->r.map, e)))
        nf->map_written = 1;
    old_free(&o);
    return rc;
}

/* The edge table's new version: a row per new id, (-1, -1) where the
** edge was dropped. */
static int edge_file(delta *d, cat_table *t, dl_file *nf, gnn_err *e)
{
    gnndb *db = d->db;
    dl_old o = {0};
    int rc = cat_table_get(db->cat, d->g->topo_id, CAT_EDGES_TABLE, t, e);
    if (!rc) rc = db_open_table(db, t, 0, &o.f, e);
    if (!rc) rc = old_open(db, t->file, (uint64_t)t->nblocks, &o, e);
    for (size_t i = 0; !rc && i < d->ndropped; i++) {
        uint64_t k = d->dropped[i] - (uint64_t)d->g->input_edges;
        d->rows[2 * k] = d->rows[2 * k + 1] = UINT32_MAX;
    }
    if (!rc) {
        gd_table go = {o.f, o.has_map ? &o.map : NULL, t->file, t->token,
                       o.sums, (uint64_t)t->rows, t->rows_per_block,
                       t->dtype, t->dim};
        rc = gd_append_rows(&go, d->rows, d->nrows, db->dir, nf->seg,
                            nf->seg_token, nf->token, &nf->r, e);
    }
    if (!rc && !(rc = seg_map_write(db->dir, nf->map, &nf->r.map, e)))
        nf->map_written = 1;
    old_free(&o);
    return rc;
}

/* Hand a file's checksums and index over to the result. */
static void take_file(dl_file *f, uint64_t *nblocks, uint32_t **sums,
                      uint64_t **first, uint64_t **block, size_t *n)
{
    *nblocks = f->r.map.nblocks;
    *sums = f->r.sums;
    f->r.sums = NULL;
    if (!first) return;
    *first = f->r.idx_first;
    *block = f->r.idx_block;
    *n = f->r.nidx;
    f->r.idx_first = f->r.idx_block = NULL;
}

/* The new version's time graph, changed where the edge-id graph changed,
** into tg as ddl_time_graph_insert takes it; *src: the old one's source
** (what INSERT NODES keeps). */
static int time_file(delta *d, uint64_t nodes, dl_file *nf,
                     ddl_time_graph *tg, char *src, size_t cap, gnn_err *e)
{
    gnndb *db = d->db;
    cat_graph old;
    dl_old o = {0};
    int rc = cat_time_graph_get(db->cat, d->g, &old, e);
    if (!rc) rc = db_open_eid_graph(db, &old, 0, &o.f, e);
    if (!rc) rc = old_open(db, old.eid_file, (uint64_t)old.eid_blocks, &o, e);
    if (!rc) rc = db_load_eid_index(db, &old, &o.idx_first, &o.idx_block,
                                    &o.nidx, e);
    if (!rc) {
        gd_old go = {o.f, o.has_map ? &o.map : NULL, old.eid_file,
                     old.eid_token, o.idx_first, o.idx_block, o.nidx, o.sums,
                     (uint64_t)d->g->nodes, BLK_FLAG_EIDS | BLK_FLAG_TIMES,
                     d->max_entries};
        d->at = 0;
        rc = gd_rewrite(&go, nodes, d->changed, d->nchanged, merge_times, d,
                        db->dir, nf->seg, nf->seg_token, nf->token, &nf->r,
                        e);
    }
    if (!rc && !(rc = seg_map_write(db->dir, nf->map, &nf->r.map, e)))
        nf->map_written = 1;
    old_free(&o);
    if (rc) return rc;
    int64_t lo, hi;
    gnn_err e2 = {0};
    if (cat_time_range_get(db->cat, d->g->topo_id, "edge", &lo, &hi, &e2)) {
        lo = INT64_MAX;
        hi = INT64_MIN;
    }
    snprintf(src, cap, "%s", old.source);
    tg->tmin = GNN_MIN(lo, d->tmin);
    tg->tmax = GNN_MAX(hi, d->tmax);
    tg->token = nf->token;
    snprintf(tg->file, sizeof tg->file, "%s", nf->map);
    take_file(nf, &tg->r.nblocks, &tg->r.checksums, &tg->r.idx_first,
              &tg->r.idx_block, &tg->r.n_idx);
    return ddl_time_graph_index(db, tg, e);
}

static void file_undo(gnndb *db, dl_file *f)
{
    if (f->map_written) ddl_unlink(db, f->map);
    if (f->r.seg_blocks) ddl_unlink(db, f->seg);
    gd_result_free(&f->r);
}

/* ---- the new version ----------------------------------------------------- */

/* Its degrees, read back from its plain graph. */
static int version_degrees(gnndb *db, const dl_file *pf, uint32_t bs,
                           uint64_t nodes, imp_graph_result *r, gnn_err *e)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", db->dir, pf->map);
    blk_file *f;
    int rc = blkf_open(path, bs, BLK_KIND_GRAPH, pf->token,
                       pf->r.map.nblocks, &f, e);
    if (rc) return rc;
    gd_degrees g;
    rc = gd_degree_stats(f, nodes, &g, e);
    blkf_close(f);
    if (rc) return rc;
    r->edges = g.edges;
    r->min_degree = g.min;
    r->median_degree = g.median;
    r->max_degree = g.max;
    r->mean_degree = nodes ? (double)g.edges / (double)nodes : 0;
    memcpy(r->deg_hist, g.hist, sizeof r->deg_hist);
    r->nbuckets = g.nbuckets;
    return GNNDB_OK;
}

/* v: the new version as the rebuild would describe it (ddl_graph), for
** ddl_graph_index and ddl_version_publish. */
static int fill_version(delta *d, uint64_t nodes, dl_file *pf, dl_file *ef,
                        dl_file *tf, const cat_table *ot, ddl_graph *v,
                        gnn_err *e)
{
    const cat_graph *g = d->g;
    imp_graph_result *r = &v->r;
    v->o.token = pf->token;
    v->o.eid_token = ef->token;
    v->o.edges_token = tf->token;
    snprintf(v->file, sizeof v->file, "%s", pf->map);
    snprintf(v->eid_file, sizeof v->eid_file, "%s", ef->map);
    snprintf(v->edges_file, sizeof v->edges_file, "%s", tf->map);
    r->nodes = (int64_t)nodes;
    r->input_edges = g->input_edges + (int64_t)d->nrows;
    take_file(pf, &r->nblocks, &r->checksums, &r->idx_first, &r->idx_block,
              &r->n_idx);
    take_file(ef, &r->eid_nblocks, &r->eid_checksums, &r->eid_idx_first,
              &r->eid_idx_block, &r->eid_n_idx);
    take_file(tf, &r->edges_nblocks, &r->edges_checksums, NULL, NULL, NULL);
    r->edges_rows_per_block = ot->rows_per_block;
    int rc = version_degrees(d->db, pf, g->block_size, nodes, r, e);
    if (!rc && g->has_map) {
        idx_txn *it;
        if (!(rc = idx_begin(d->db->idx, 0, &it, e))) {
            rc = idx_load_array(it, 'I', g->token, nodes, &r->i2e, e);
            idx_abort(it);
        }
    }
    if (rc) return rc;
    cat_graph *n = &v->g;
    *n = *g;
    n->token = pf->token;
    snprintf(n->file, sizeof n->file, "%s", pf->map);
    n->nodes = r->nodes;
    n->edges = r->edges;
    n->graph_blocks = (int64_t)r->nblocks;
    n->min_degree = r->min_degree;
    n->max_degree = r->max_degree;
    n->median_degree = r->median_degree;
    n->mean_degree = r->mean_degree;
    snprintf(n->eid_file, sizeof n->eid_file, "%s", ef->map);
    n->eid_token = ef->token;
    n->eid_blocks = (int64_t)r->eid_nblocks;
    n->input_edges = r->input_edges;
    cat_table *t = &v->edges;
    *t = *ot;
    t->token = tf->token;
    snprintf(t->file, sizeof t->file, "%s", tf->map);
    t->rows = r->input_edges;
    t->nblocks = (int64_t)r->edges_nblocks;
    return GNNDB_OK;
}

/* The file's edges into d (INSERT EDGES), or GNNDB_FULL when they would
** not fit the statement's memory. */
static int read_adds(delta *d, const ddl_ctl *ctl, gnn_err *e)
{
    const cat_graph *g = d->g;
    imp_graph_opts o;
    memset(&o, 0, sizeof o);
    imp_prior prior = {.graph = g->name};
    int64_t *keys = NULL;
    int rc = GNNDB_OK;
    if (g->has_map) {
        idx_txn *it;
        if ((rc = idx_begin(d->db->idx, 0, &it, e))) return rc;
        rc = idx_load_array(it, 'I', g->token, (uint64_t)g->nodes, &keys, e);
        idx_abort(it);
        prior.keys = keys;
        prior.nkeys = (size_t)g->nodes;
    }
    ddl_insert_opts(d->s, g, d->timed, &o);
    o.prior = &prior;
    /* GNNDB_FULL from take: too many to hold, said in no words */
    if (!rc && (rc = imp_edges_each(d->s->path, &o, &ctl->c, take, d, e)) ==
        GNNDB_FULL)
        gnn_clearerr(e);
    free(keys);
    return rc;
}

static void delta_free(delta *d)
{
    free(d->adds);
    free(d->rows);
    free(d->dropped);
    free(d->changed);
    free(d->nb);
    free(d->ei);
    free(d->tm);
    free(d->tl);
}

/* Write the three files and publish them as g's next version. */
static int write_version(delta *d, const char *source, gnn_err *e)
{
    gnndb *db = d->db;
    uint64_t nodes = (uint64_t)d->g->nodes +
        (d->s->kind == AST_INSERT_NODES ? (uint64_t)d->s->count : 0);
    dl_file pf = {0}, ef = {0}, tf = {0};
    ddl_graph v;
    cat_table ot;
    memset(&v, 0, sizeof v);
    name_file(&pf, 'g');
    name_file(&ef, 'g');
    name_file(&tf, 'f');
    dl_file xf = {0};
    ddl_time_graph tg;
    memset(&tg, 0, sizeof tg);
    char tsource[CAT_PATH_MAX];
    name_file(&xf, 'g');
    int rc = graph_file(d, 1, nodes, &ef, e);
    gnn_sort_u32(d->dropped, d->ndropped);     /* merge_times looks up */
    if (!rc) rc = graph_file(d, 0, nodes, &pf, e);
    if (!rc && d->timed)
        rc = time_file(d, nodes, &xf, &tg, tsource, sizeof tsource, e);
    if (!rc) rc = edge_file(d, &ot, &tf, e);
    if (!rc) rc = fill_version(d, nodes, &pf, &ef, &tf, &ot, &v, e);
    int indexed = 0;
    if (!rc && !(rc = ddl_graph_index(db, &v, e))) indexed = 1;
    snprintf(v.g.source, sizeof v.g.source, "%s", source);
    tg.r.edges = v.r.edges;
    if (!rc) rc = ddl_version_publish(db, d->g, d->s->path ? source : tsource,
                                      &v, &tg, d->timed, e);
    if (rc) {
        file_undo(db, &pf);
        file_undo(db, &ef);
        file_undo(db, &tf);
        file_undo(db, &xf);
        if (indexed) {
            ddl_drop_token(db, pf.token);
            ddl_drop_token(db, ef.token);
        }
        if (tg.r.checksums) ddl_drop_token(db, xf.token);
    }
    gd_result_free(&pf.r);
    gd_result_free(&ef.r);
    gd_result_free(&tf.r);
    gd_result_free(&xf.r);
    ddl_time_graph_free(&tg);
    ddl_graph_free(&v);
    return rc;
}

/* Segments of file (none when it is a plain block file), or -1 when its
** map cannot be read (the delta then reports it). */
static int segments_of(gnndb *db, const char *file)
{
    if (!seg_map_is_name(file)) return 0;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", db->dir, file);
    seg_map m;
    gnn_err e2 = {0};
    if (seg_map_read(path, &m, &e2)) return -1;
    int n = (int)m.nsegs;
    seg_map_free(&m);
    return n;
}

/* Whether g's files may take one more segment each. */
static int room_for_segment(gnndb *db, const cat_graph *g)
{
    cat_table t;
    gnn_err e2 = {0};
    if (cat_table_get(db->cat, g->topo_id, CAT_EDGES_TABLE, &t, &e2))
        return 1;
    return segments_of(db, g->file) < SEG_MAX_SEGS - 1 &&
           segments_of(db, g->eid_file) < SEG_MAX_SEGS - 1 &&
           segments_of(db, t.file) < SEG_MAX_SEGS - 1;
}

int ddl_insert_delta(gnndb *db, const ast_stmt *s, const cat_graph *g,
                     int timed, const char *what, const char *source,
                     int *taken, gnn_err *e)
{
    *taken = 0;
    if (g->nodes == 0 || g->graph_blocks == 0 || !g->has_eids ||
        !room_for_segment(db, g))
        return GNNDB_OK;
    delta d = {.db = db, .g = g, .s = s, .undirected = !g->directed,
               .dedup = (g->build_flags & CAT_BUILD_DROP_DUPLICATES) != 0,
               .no_loops = (g->build_flags & CAT_BUILD_DROP_SELF_LOOPS) != 0,
               .timed = timed, .tmin = INT64_MAX, .tmax = INT64_MIN};
    ddl_ctl ctl;
    /* with MAP IDS the keys (8 bytes a node) are read beside the edges,
    ** and the index gets them and a row map back: twice that at most */
    int64_t least = g->has_map ? 16 * g->nodes : 0;
    int rc = ddl_ctl_init(db, what, g->block_size, least, &ctl, e);
    if (rc) return rc;
    /* an add, its row and its share of the sort and the merge */
    d.max_adds = ctl.c.mem_budget / 48;
    if (s->kind == AST_INSERT_EDGES && (rc = read_adds(&d, &ctl, e))) {
        delta_free(&d);
        return rc == GNNDB_FULL ? GNNDB_OK : rc;
    }
    /* a list read, and merged: 16 bytes an entry each at most */
    uint64_t held = (uint64_t)d.nadds * sizeof *d.adds + 8 * d.nrows;
    d.max_entries = ctl.c.mem_budget > held
        ? GNN_MAX((ctl.c.mem_budget - held) / 32, 1) : 1;
    if (!(rc = order_adds(&d, e))) {
        rc = write_version(&d, source, e);
        /* a list too long for the statement's memory (or no memory): the
        ** rebuild's buckets take it (write_version removed what it
        ** wrote), or say in words what is short */
        *taken = rc != GNNDB_NOMEM;
        if (!*taken) {
            gnn_clearerr(e);
            rc = GNNDB_OK;
        }
    }
    delta_free(&d);
    return rc;
}
