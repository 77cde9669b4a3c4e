/* ddl.c — the DDL toolkit: the steps every statement that changes the
** database is made of (create.c, drop.c, ddl_hetero.c, ddl_edges.c,
** ddl_ogb.c ... call them; they call nothing of those). Each statement is
** atomic: block files are built under a temporary name, fsynced and
** renamed to a fresh name no row refers to yet; index keys go under a fresh
** token; one catalog transaction then publishes them. A crash before that
** commit leaves orphans that the next writable open removes
** (db_cleanup_orphans), so a reader sees the old state or the new one,
** never a half table. */
#include "ddl.h"
#include "segmap.h"
#include "ddl_hetero.h"
#include "block.h"
#include "edgelist.h"
#include "import.h"
#include "npy.h"
#include "rss.h"
#include "sort.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ddl_unlink(gnndb *db, const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", db->dir, file);
    unlink(path);
}

void ddl_drop_token(gnndb *db, uint64_t token)
{
    idx_txn *t;
    gnn_err e = {0};
    if (idx_begin_fresh(db->idx, &t, &e)) return;
    if (idx_drop(t, token, &e)) idx_abort(t);
    else idx_commit(t, &e);
}

/* A full disk can fail any write of a statement: a block file, an unnamed
** scratch file of the importer, the index or the catalog. Whichever it was,
** say so first and name the database the statement was writing to. */
int ddl_disk_full_words(gnndb *db, int rc, gnn_err *e)
{
    if (rc != GNNDB_FULL || strncmp(e->msg, "disk is full", 12) == 0)
        return rc;
    char what[GNN_ERRMSG_MAX];
    snprintf(what, sizeof what, "%s", e->msg);
    return gnn_seterr(e, rc, "disk is full in %s: %s", db->dir, what);
}

int ddl_edge_format(int f)
{
    switch (f) {
    case AST_FMT_TSV: return EDGE_FMT_TSV;
    case AST_FMT_CSV: return EDGE_FMT_CSV;
    case AST_FMT_BIN: return EDGE_FMT_BIN;
    default: return EDGE_FMT_AUTO;
    }
}

void ddl_edge_text_opts(const ast_stmt *s, edge_opts *t)
{
    memset(t, 0, sizeof *t);
    t->header = s->header ? EDGE_HEADER_YES : EDGE_HEADER_AUTO;
    t->columns = s->columns == AST_COLS_POS ? EDGE_COLS_POS
               : s->columns == AST_COLS_NAME ? EDGE_COLS_NAME
                                              : EDGE_COLS_FIRST;
    t->with_time = s->col_time;
    for (int w = 0; w < 2 + !!s->col_time; w++) {
        t->col[w] = (int)s->col_pos[w];
        if (s->col_name[w])
            snprintf(t->col_name[w], sizeof t->col_name[w], "%s",
                     s->col_name[w]);
    }
}

void ddl_edge_opts(gnndb *db, const ast_stmt *s, edge_opts *o)
{
    ddl_edge_text_opts(s, o);
    o->format = ddl_edge_format(s->format);
    o->key = s->key;
    o->tmpdir = db->dir;
}

int ddl_check_block_size(int64_t bs, uint32_t *out, gnn_err *e)
{
    if (bs == 0) { *out = BLK_DEFAULT_SIZE; return GNNDB_OK; }
    if (!blk_size_valid((uint64_t)bs))
        return gnn_seterr(e, GNNDB_RANGE,
                          "BLOCK SIZE %" PRId64 " is not a power of two "
                          "between 4KB and 16MB", bs);
    *out = (uint32_t)bs;
    return GNNDB_OK;
}

static int publish_graph_index(gnndb *db, uint64_t token, uint64_t eid_token,
                               const imp_graph_result *r, gnn_err *e)
{
    idx_txn *t;
    int rc = idx_begin_fresh(db->idx, &t, e);
    if (rc) return rc;
    for (size_t i = 0; !rc && i < r->n_idx; i++)
        rc = idx_put_block(t, token, r->idx_first[i], r->idx_block[i], e);
    if (!rc && r->i2e) {
        rc = idx_put_array(t, 'I', token, r->i2e, (uint64_t)r->nodes, e);
        for (int64_t i = 0; !rc && i < r->nodes; i++)
            rc = idx_put_key(t, token, r->i2e[i], (uint64_t)i, e);
        if (!rc && r->i2r)
            rc = idx_put_array(t, 'R', token, r->i2r, (uint64_t)r->nodes, e);
        else if (!rc) {
            /* identity row map, so that feature imports read it uniformly */
            int64_t *id = malloc(((size_t)r->nodes + 1) * sizeof *id);
            if (!id) rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
            for (int64_t i = 0; !rc && i < r->nodes; i++) id[i] = i;
            if (!rc) rc = idx_put_array(t, 'R', token, id, (uint64_t)r->nodes, e);
            free(id);
        }
    }
    for (size_t i = 0; !rc && i < r->eid_n_idx; i++)
        rc = idx_put_block(t, eid_token, r->eid_idx_first[i],
                           r->eid_idx_block[i], e);
    if (rc) { idx_abort(t); return rc; }
    return idx_commit(t, e);
}

int ddl_check_new_graph(gnndb *db, const char *name, gnn_err *e)
{
    cat_graph g;
    gnn_err e2 = {0};
    if (cat_graph_get(db->cat, name, &g, &e2) == GNNDB_OK)
        return gnn_seterr(e, GNNDB_EXISTS, "graph '%s' already exists", name);
    if (e2.rc != GNNDB_NOTFOUND) return gnn_seterr(e, e2.rc, "%s", e2.msg);
    if (strlen(name) >= CAT_NAME_MAX)
        return gnn_seterr(e, GNNDB_RANGE, "graph name too long: %s", name);
    return GNNDB_OK;
}

/* ---- graphs ------------------------------------------------------------ */

static void fill_graph(ddl_graph *d, const char *name, const char *path)
{
    cat_graph *g = &d->g;
    const imp_graph_result *r = &d->r;
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    g->token = d->o.token;
    snprintf(g->file, sizeof g->file, "%s", d->file);
    g->nodes = r->nodes;
    g->edges = r->edges;
    g->directed = !d->o.undirected;
    g->block_size = d->o.block_size;
    snprintf(g->node_order, sizeof g->node_order, "%s",
             d->o.reorder == IMP_REORDER_DEGREE ? "degree"
             : d->o.reorder == IMP_REORDER_BFS  ? "bfs"
                                                : "none");
    g->graph_blocks = (int64_t)r->nblocks;
    g->has_map = r->i2e != NULL;
    g->min_degree = r->min_degree;
    g->max_degree = r->max_degree;
    g->median_degree = r->median_degree;
    g->mean_degree = r->mean_degree;
    snprintf(g->source, sizeof g->source, "%s", path ? path : "");
    g->build_flags = (d->o.drop_duplicates ? CAT_BUILD_DROP_DUPLICATES : 0) |
                     (d->o.drop_self_loops ? CAT_BUILD_DROP_SELF_LOOPS : 0);
    if (!d->o.eid_name) return;
    g->has_eids = 1;
    snprintf(g->eid_file, sizeof g->eid_file, "%s", d->eid_file);
    g->eid_token = d->o.eid_token;
    g->eid_blocks = (int64_t)r->eid_nblocks;
    g->input_edges = r->input_edges;
    cat_table *t = &d->edges;
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", CAT_EDGES_TABLE);
    t->kind = CAT_TABLE_EDGES;
    t->token = d->o.edges_token;
    snprintf(t->file, sizeof t->file, "%s", d->edges_file);
    t->rows = r->input_edges;
    t->dim = 2;
    t->dtype = BLK_DTYPE_U32;
    t->block_size = d->o.block_size;
    t->rows_per_block = r->edges_rows_per_block;
    t->nblocks = (int64_t)r->edges_nblocks;
    snprintf(t->source, sizeof t->source, "%s", path);
}

/* Fresh tokens and names for the edge-id graph and the edge table. */
static void name_eid_files(ddl_graph *d)
{
    d->o.eid_token = db_new_token();
    d->o.edges_token = db_new_token();
    snprintf(d->eid_file, sizeof d->eid_file, "g-%016" PRIx64 ".blk",
             d->o.eid_token);
    snprintf(d->edges_file, sizeof d->edges_file, "f-%016" PRIx64 ".blk",
             d->o.edges_token);
    d->o.eid_name = d->eid_file;
    d->o.edges_name = d->edges_file;
}

int ddl_graph_build(gnndb *db, const char *name, const char *path,
                    ddl_graph *d, gnn_err *e)
{
    d->built = 0;
    memset(&d->r, 0, sizeof d->r);
    d->o.token = db_new_token();
    snprintf(d->file, sizeof d->file, "g-%016" PRIx64 ".blk", d->o.token);
    if (!d->no_edge_ids) name_eid_files(d);
    ddl_ctl ctl;
    char what[2 * CAT_NAME_MAX + 32];
    if (d->what) snprintf(what, sizeof what, "%s", d->what);
    else snprintf(what, sizeof what, "%s %s",
                  strchr(name, '.') ? "CREATE RELATION" : "CREATE GRAPH",
                  name);
    int rc = ddl_ctl_init(db, what, d->o.block_size, d->least, &ctl, e);
    if (!rc) rc = imp_graph(path, db->dir, d->file, &d->o, &ctl.c, &d->r, e);
    gnn_heap_trim();  /* the import's arrays, before the index is written */
    if (rc) return rc;
    d->built = 1;
    fill_graph(d, name, path);
    return GNNDB_OK;
}

int ddl_graph_index(gnndb *db, ddl_graph *d, gnn_err *e)
{
    return publish_graph_index(db, d->o.token, d->o.eid_token, &d->r, e);
}

int ddl_graph_insert(gnndb *db, ddl_graph *d, gnn_err *e)
{
    int rc = cat_graph_insert(db->cat, &d->g, e);
    return rc ? rc : ddl_graph_insert_rest(db, d, e);
}

int ddl_graph_insert_rest(gnndb *db, ddl_graph *d, gnn_err *e)
{
    int rc = cat_checksums_put(db->cat, d->file, d->r.checksums,
                               d->r.nblocks, e);
    if (!rc) rc = cat_degree_hist_put(db->cat, d->g.id, d->r.deg_hist,
                                      d->r.nbuckets, e);
    if (rc || !d->g.has_eids) return rc;
    d->edges.graph_id = d->g.id;
    if (!(rc = cat_checksums_put(db->cat, d->eid_file, d->r.eid_checksums,
                                 d->r.eid_nblocks, e)) &&
        !(rc = cat_checksums_put(db->cat, d->edges_file,
                                 d->r.edges_checksums, d->r.edges_nblocks,
                                 e)))
        rc = cat_table_insert(db->cat, &d->edges, e);
    return rc;
}

void ddl_graph_undo(gnndb *db, ddl_graph *d)
{
    if (d->built) {
        ddl_unlink(db, d->file);
        ddl_drop_token(db, d->o.token);
        if (d->o.eid_name) {
            ddl_unlink(db, d->eid_file);
            ddl_unlink(db, d->edges_file);
            ddl_drop_token(db, d->o.eid_token);
        }
    }
    ddl_graph_free(d);
}

void ddl_graph_free(ddl_graph *d)
{
    imp_graph_result_free(&d->r);
    d->built = 0;
}

/* ---- feature and label tables ------------------------------------------ */

static int feat_format(const ast_stmt *s)
{
    if (s->format == AST_FMT_NPY) return IMP_FEAT_NPY;
    if (s->format == AST_FMT_CSV) return IMP_FEAT_CSV;
    if (s->format == AST_FMT_BIN) return IMP_FEAT_BIN;
    return 0;
}

static int dtype_of(const char *name, int *npy, uint32_t *blk, gnn_err *e)
{
    if (!name) return GNNDB_OK;
    if (npy) {
        if (!strcmp(name, "float32")) *npy = NPY_F32;
        else if (!strcmp(name, "float64")) *npy = NPY_F64;
        else if (!strcmp(name, "int64")) *npy = NPY_I64;
        else return gnn_seterr(e, GNNDB_RANGE,
                               "TYPE %s: use float32, float64 or int64", name);
    } else {
        if (!strcmp(name, "float32")) *blk = BLK_DTYPE_F32;
        else if (!strcmp(name, "float16")) *blk = BLK_DTYPE_F16;
        else if (!strcmp(name, "int8")) *blk = BLK_DTYPE_I8;
        else return gnn_seterr(e, GNNDB_RANGE,
                               "STORE %s: use float32, float16 or int8", name);
    }
    return GNNDB_OK;
}

int ddl_table_opts(const ast_stmt *s, imp_feat_opts *o, gnn_err *e)
{
    o->format = feat_format(s);
    o->dim = s->dim;
    o->key = s->key;
    o->bin_dtype = NPY_F32;
    o->store_dtype = BLK_DTYPE_F32;
    int rc = dtype_of(s->dtype, &o->bin_dtype, NULL, e);
    if (!rc) rc = dtype_of(s->store, NULL, &o->store_dtype, e);
    if (!rc) rc = ddl_check_block_size(s->block_size, &o->block_size, e);
    return rc;
}

int ddl_table_build(gnndb *db, const cat_graph *g, const int64_t *i2r,
                    const char *name, const char *path, ddl_table *d,
                    gnn_err *e)
{
    d->built = 0;
    memset(&d->r, 0, sizeof d->r);
    if (strlen(name) >= CAT_NAME_MAX)
        return gnn_seterr(e, GNNDB_RANGE, "table name too long: %s", name);
    imp_feat_opts *o = &d->o;
    o->token = db_new_token();
    o->nodes = o->edges ? g->input_edges : g->nodes;
    o->graph = g->name;
    o->i2r = i2r;
    ddl_ctl ctl;
    char what[2 * CAT_NAME_MAX + 32];
    if (o->prior) snprintf(what, sizeof what, "INSERT ROWS INTO %s ON %s",
                           o->labels ? "LABELS" : name, g->name);
    else if (o->times) snprintf(what, sizeof what, "IMPORT NODE TIMES INTO %s",
                                g->name);
    else if (o->labels)
        snprintf(what, sizeof what, "IMPORT LABELS INTO %s", g->name);
    else snprintf(what, sizeof what, "IMPORT %sFEATURES %s INTO %s",
                  o->edges ? "EDGE " : "", name, g->name);
    /* the row map, and the index pages it was read from */
    int64_t least = i2r ? 16 * g->nodes : 0;
    int rc = ddl_ctl_init(db, what, o->block_size, least, &ctl, e);
    if (rc) return rc;
    snprintf(d->file, sizeof d->file, "f-%016" PRIx64 ".blk", o->token);
    rc = imp_features(path, db->dir, d->file, o, &ctl.c, &d->r, e);
    gnn_heap_trim();
    if (rc) return rc;
    d->built = 1;
    cat_table *t = &d->t;
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->kind = o->times  ? CAT_TABLE_NODE_TIMES
            : o->labels ? CAT_TABLE_LABELS
            : o->edges  ? CAT_TABLE_EDGE_FEATURES
                        : CAT_TABLE_FEATURES;
    t->token = o->token;
    snprintf(t->file, sizeof t->file, "%s", d->file);
    t->rows = d->r.rows;
    t->dim = d->r.dim;
    t->dtype = d->r.dtype;
    t->block_size = o->block_size;
    t->rows_per_block = d->r.rows_per_block;
    t->nblocks = (int64_t)d->r.nblocks;
    t->nclasses = d->r.nclasses;
    snprintf(t->source, sizeof t->source, "%s", path);
    return GNNDB_OK;
}

int ddl_table_insert(gnndb *db, int64_t graph_id, ddl_table *d, gnn_err *e)
{
    d->t.graph_id = graph_id;
    int rc = cat_table_insert(db->cat, &d->t, e);
    if (!rc) rc = cat_checksums_put(db->cat, d->file, d->r.checksums,
                                    d->r.nblocks, e);
    /* node times: their range, for DESCRIBE */
    if (!rc && d->o.times && d->r.rows > 0)
        rc = cat_time_range_put(db->cat, graph_id, "node", d->r.tmin,
                                d->r.tmax, e);
    return rc;
}

void ddl_table_undo(gnndb *db, ddl_table *d)
{
    if (d->built) ddl_unlink(db, d->file);
    imp_feat_result_free(&d->r);
    d->built = 0;
}

static const char *kind_words(int kind)
{
    switch (kind) {
    case CAT_TABLE_FEATURES: return "a feature table";
    case CAT_TABLE_NODE_TIMES: return "the node times";
    case CAT_TABLE_LABELS: return "the labels";
    case CAT_TABLE_EDGE_FEATURES: return "an edge feature table";
    default: return "the graph's edge table";
    }
}

int ddl_replace_table(const cat_table *t, int kind, ddl_table *d,
                      gnn_err *e)
{
    if (t->kind != kind)
        return gnn_seterr(e, GNNDB_MISUSE, "%s is %s; REPLACE replaces %s "
                          "only", t->name, kind_words(t->kind),
                          kind_words(kind));
    d->old_id = t->id;
    snprintf(d->old_file, sizeof d->old_file, "%s", t->file);
    return GNNDB_OK;
}

int ddl_check_table(gnndb *db, const cat_graph *g, const char *name,
                       int kind, int replace, ddl_table *d, gnn_err *e)
{
    cat_table t;
    gnn_err e2 = {0};
    if (!replace)
        return ddl_check_new_table(db, g, name,
                                   kind == CAT_TABLE_LABELS, e);
    int rc = cat_table_get(db->cat, g->id, name, &t, &e2);
    if (rc == GNNDB_NOTFOUND) return GNNDB_OK;
    if (rc) return gnn_seterr(e, rc, "%s", e2.msg);
    return ddl_replace_table(&t, kind, d, e);
}

int ddl_check_new_table(gnndb *db, const cat_graph *g, const char *name,
                        int labels, gnn_err *e)
{
    cat_table t;
    gnn_err e2 = {0};
    if (cat_table_get(db->cat, g->id, name, &t, &e2) == GNNDB_OK)
        return labels ? gnn_seterr(e, GNNDB_EXISTS, "graph '%s' already has "
                                   "labels", g->name)
                      : gnn_seterr(e, GNNDB_EXISTS, "feature table '%s' "
                                   "already exists in graph '%s'", name,
                                   g->name);
    if (e2.rc != GNNDB_NOTFOUND) return gnn_seterr(e, e2.rc, "%s", e2.msg);
    return GNNDB_OK;
}

int ddl_object_name(const ast_stmt *s, const char *name,
                    char out[CAT_NAME_MAX], gnn_err *e)
{
    if (s->node_type) return cat_type_object_name(s->node_type, name, out, e);
    if (strlen(name) >= CAT_NAME_MAX)
        return gnn_seterr(e, GNNDB_RANGE, "name too long: %s", name);
    snprintf(out, CAT_NAME_MAX, "%s", name);
    return GNNDB_OK;
}

int ddl_table_publish(gnndb *db, int64_t graph_id, ddl_table *d, int rc,
                      gnn_err *e)
{
    if (!rc && (rc = cat_begin(db->cat, e)) == GNNDB_OK) {
        if ((d->old_id && (rc = cat_table_delete(db->cat, d->old_id, e))) ||
            (rc = ddl_table_insert(db, graph_id, d, e)) ||
            (rc = cat_commit(db->cat, e)))
            cat_rollback(db->cat);
    }
    if (rc) ddl_table_undo(db, d);
    else imp_feat_result_free(&d->r);
    /* committed: the replaced table's file only frees space (a crash
    ** first leaves an orphan that the next writable open removes) */
    if (!rc && d->old_id) ddl_unlink(db, d->old_file);
    db_write_unlock(db);
    return ddl_disk_full_words(db, rc, e);
}

/* ---- splits ------------------------------------------------------------ */

int ddl_split_members(gnndb *db, const cat_graph *g, const char *path,
                      const char *key, uint32_t **out, size_t *n, gnn_err *e)
{
    int64_t *ids = NULL;
    size_t k = 0;
    int rc = imp_id_list(path, key, db->dir, &ids, &k, e);
    if (rc) return rc;
    uint32_t *m = malloc((k + 1) * sizeof *m);
    idx_txn *t = NULL;
    if (!m) rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    if (!rc && g->has_map) rc = idx_begin(db->idx, 0, &t, e);
    for (size_t i = 0; !rc && i < k; i++) {
        uint64_t in = (uint64_t)ids[i];
        int found = 1;
        if (t) {
            gnn_err e3 = {0};
            int r3 = idx_get_key(t, g->token, ids[i], &in, &e3);
            if (r3 == GNNDB_NOTFOUND) found = 0;
            else if (r3) rc = gnn_seterr(e, r3, "%s", e3.msg);
        } else if (ids[i] < 0 || ids[i] >= g->nodes) {
            found = 0;
        }
        if (!rc && !found)
            rc = gnn_seterr(e, GNNDB_NOTFOUND,
                            "%s: entry %zu: node %" PRId64
                            " is not in graph %s (%" PRId64 " nodes)",
                            path, i, ids[i], g->name, g->nodes);
        if (!rc) m[i] = (uint32_t)in;
    }
    idx_abort(t);
    free(ids);
    if (rc) { free(m); return rc; }
    *out = m;
    *n = k;
    return GNNDB_OK;
}

void ddl_split_build(const char *name, uint32_t *m, size_t n, ddl_split *d)
{
    gnn_sort_u32(m, n);
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || m[i] != m[i - 1]) m[w++] = m[i];
    memset(d, 0, sizeof *d);
    snprintf(d->sp.name, sizeof d->sp.name, "%s", name);
    d->sp.token = db_new_token();
    d->sp.count = (int64_t)w;
    d->m = m;
}

int ddl_split_index(gnndb *db, ddl_split *d, gnn_err *e)
{
    idx_txn *t;
    int rc = idx_begin_fresh(db->idx, &t, e);
    if (rc) return rc;
    d->built = 1;  /* from here an undo drops the token */
    if ((rc = idx_put_split(t, d->sp.token, d->m, (size_t)d->sp.count, e))) {
        idx_abort(t);
        return rc;
    }
    return idx_commit(t, e);
}

int ddl_split_insert(gnndb *db, int64_t graph_id, ddl_split *d, gnn_err *e)
{
    d->sp.graph_id = graph_id;
    return cat_split_insert(db->cat, &d->sp, e);
}

void ddl_split_undo(gnndb *db, ddl_split *d)
{
    if (d->built) ddl_drop_token(db, d->sp.token);
    ddl_split_free(d);
}

void ddl_split_free(ddl_split *d)
{
    d->built = 0;
    free(d->m);
    d->m = NULL;
}

/* ---- drops ------------------------------------------------------------ */

int ddl_doom_file(ddl_doomed *d, const char *file, gnn_err *e)
{
    if (!file[0]) return GNNDB_OK;   /* a typed graph has no file */
    if (d->nf == d->capf) {
        size_t cap = d->capf ? d->capf * 2 : 16;
        void *p = realloc(d->files, cap * sizeof *d->files);
        if (!p) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        d->files = p;
        d->capf = cap;
    }
    snprintf(d->files[d->nf++], CAT_NAME_MAX, "%s", file);
    return GNNDB_OK;
}

int ddl_doom_token(ddl_doomed *d, uint64_t token, gnn_err *e)
{
    if (d->nt == d->capt) {
        size_t cap = d->capt ? d->capt * 2 : 16;
        uint64_t *p = realloc(d->tokens, cap * sizeof *p);
        if (!p) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        d->tokens = p;
        d->capt = cap;
    }
    d->tokens[d->nt++] = token;
    return GNNDB_OK;
}

/* The tables', splits' and packs' files and tokens of graph id. */
static int doom_objects(gnndb *db, int64_t id, ddl_doomed *d, gnn_err *e)
{
    cat_table *ts = NULL;
    cat_split *ss = NULL;
    cat_pack *ps = NULL;
    size_t nt = 0, ns = 0, np = 0;
    int rc;
    if (!(rc = cat_table_list(db->cat, id, &ts, &nt, e)) &&
        !(rc = cat_split_list(db->cat, id, &ss, &ns, e)))
        rc = cat_pack_list(db->cat, id, &ps, &np, e);
    for (size_t i = 0; !rc && i < nt; i++)
        rc = ddl_doom_file(d, ts[i].file, e);
    for (size_t i = 0; !rc && i < ns; i++)
        rc = ddl_doom_token(d, ss[i].token, e);
    for (size_t i = 0; !rc && i < np; i++)
        rc = ddl_doom_file(d, ps[i].file, e);
    free(ts);
    free(ss);
    free(ps);
    return rc;
}

int ddl_doomed_graph(gnndb *db, const cat_graph *g, ddl_doomed *d,
                     gnn_err *e)
{
    int rc;
    /* a graph past version 1: its own row's files are version 1's, the
    ** later versions' rows are among its children */
    cat_graph own;
    if (g->kind == CAT_GRAPH_PLAIN && g->topo_id != g->id) {
        if ((rc = cat_version_row(db->cat, g, 1, &own, e))) return rc;
        g = &own;
    }
    if ((rc = ddl_doom_file(d, g->file, e)) ||
        (rc = ddl_doom_token(d, g->token, e)))
        return rc;
    if (g->has_eids && ((rc = ddl_doom_file(d, g->eid_file, e)) ||
                        (rc = ddl_doom_token(d, g->eid_token, e))))
        return rc;
    if ((rc = doom_objects(db, g->id, d, e))) return rc;
    cat_graph *kids = NULL;
    size_t n = 0;
    rc = cat_graph_children(db->cat, g->id, &kids, &n, e);
    for (size_t i = 0; !rc && i < n; i++)
        rc = ddl_doomed_graph(db, &kids[i], d, e);
    free(kids);
    return rc;
}

/* After the rows are gone: each doomed file, and each segment a doomed
** map names, unless a kept row or a kept map still names it (a version's
** segments are shared with the versions after it). Where the kept files
** cannot be listed nothing goes: the next writable open removes what is
** left. */
void ddl_doomed_remove(gnndb *db, ddl_doomed *d)
{
    db_files live, gone;
    gnn_err e2 = {0};
    memset(&gone, 0, sizeof gone);
    int known = db_files_live(db, &live, &e2) == GNNDB_OK && !live.partial;
    if (!known && live.names) db_files_free(&live);
    for (size_t i = 0; known && i < d->nf; i++)
        if (seg_map_is_name(d->files[i]))
            db_files_add_segments(db, &gone, d->files[i]);
    for (size_t i = 0; known && i < d->nf; i++)
        if (!db_files_has(&live, d->files[i])) ddl_unlink(db, d->files[i]);
    for (size_t i = 0; known && i < gone.nsegs; i++)
        if (!db_files_has(&live, gone.segs[i])) ddl_unlink(db, gone.segs[i]);
    if (known) db_files_free(&live);
    db_files_free(&gone);
    for (size_t i = 0; i < d->nt; i++) ddl_drop_token(db, d->tokens[i]);
    ddl_doomed_free(d);
}

void ddl_doomed_free(ddl_doomed *d)
{
    free(d->files);
    free(d->tokens);
    memset(d, 0, sizeof *d);
}

