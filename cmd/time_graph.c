/* time_graph.c — a graph's time graph (the temporal CSR of
** storage/graph_times.c) built, indexed and published in the catalog, or
** undone: the steps IMPORT EDGE TIMES (ddl_times.c) and CREATE GRAPH ...
** COLUMNS (src, dst, t) (create.c) share. Its row is "g.__time"
** (CAT_GRAPH_TIME), read through its own block file as an edge-id
** topology. */
#include "ddl.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The time graph's index entries, under its fresh token. */
static int time_index(gnndb *db, uint64_t token, const tc_graph_result *r,
                      gnn_err *e)
{
    idx_txn *t;
    int rc = idx_begin_fresh(db->idx, &t, e);
    for (size_t i = 0; !rc && i < r->n_idx; i++)
        rc = idx_put_block(t, token, r->idx_first[i], r->idx_block[i], e);
    if (rc) {
        idx_abort(t);
        return rc;
    }
    return idx_commit(t, e);
}

/* The time graph's row: graph g read through the new file, as an edge-id
** topology. */
static void time_row(const cat_graph *g, const ddl_time_graph *tg,
                     const char *path, cat_graph *t)
{
    char name[CAT_NAME_MAX + 48];
    cat_time_graph_name(g, name, sizeof name);
    *t = *g;
    t->id = 0;
    memcpy(t->name, name, sizeof t->name - 1);
    t->name[sizeof t->name - 1] = 0;
    t->token = tg->token;
    snprintf(t->file, sizeof t->file, "%s", tg->file);
    t->graph_blocks = (int64_t)tg->r.nblocks;
    t->has_map = 0;
    snprintf(t->source, sizeof t->source, "%s", path);
    t->has_eids = 1;
    snprintf(t->eid_file, sizeof t->eid_file, "%s", tg->file);
    t->eid_token = tg->token;
    t->eid_blocks = (int64_t)tg->r.nblocks;
    t->kind = CAT_GRAPH_TIME;
    t->parent_id = g->topo_id;   /* the row of g's version */
}

int ddl_time_graph_build(gnndb *db, const cat_graph *g, const char *what,
                         const int64_t *t, size_t n, ddl_time_graph *tg,
                         gnn_err *e)
{
    memset(tg, 0, sizeof *tg);
    char name[CAT_NAME_MAX + 48];
    cat_time_graph_name(g, name, sizeof name);
    if (strlen(name) >= CAT_NAME_MAX)
        return gnn_seterr(e, GNNDB_RANGE, "%s: graph name %s is too long to "
                          "name its time graph", what, g->name);
    tg->token = db_new_token();
    snprintf(tg->file, sizeof tg->file, "g-%016" PRIx64 ".blk", tg->token);
    tg->tmin = INT64_MAX;
    tg->tmax = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        if (t[i] < tg->tmin) tg->tmin = t[i];
        if (t[i] > tg->tmax) tg->tmax = t[i];
    }
    blk_file *f = NULL;
    int rc = db_open_eid_graph(db, g, 0, &f, e);
    if (rc) return rc;
    rc = tc_build_graph(f, (uint64_t)g->nodes, t, n, db->dir, tg->file,
                        tg->token, &tg->r, e);
    blkf_close(f);
    if (rc) return rc;
    tg->built = 1;
    return time_index(db, tg->token, &tg->r, e);
}

int ddl_time_graph_insert(gnndb *db, const cat_graph *g, const char *source,
                          ddl_time_graph *tg, gnn_err *e)
{
    cat_graph row;
    time_row(g, tg, source, &row);
    int rc = cat_graph_insert(db->cat, &row, e);
    if (!rc) rc = cat_checksums_put(db->cat, tg->file, tg->r.checksums,
                                    tg->r.nblocks, e);
    if (!rc && tg->tmin <= tg->tmax)
        rc = cat_time_range_put(db->cat, g->topo_id, "edge", tg->tmin, tg->tmax,
                                e);
    return rc;
}

int ddl_time_graph_index(gnndb *db, ddl_time_graph *tg, gnn_err *e)
{
    return time_index(db, tg->token, &tg->r, e);
}

void ddl_time_graph_undo(gnndb *db, ddl_time_graph *tg)
{
    if (tg->built) {
        ddl_unlink(db, tg->file);
        ddl_drop_token(db, tg->token);
    }
    ddl_time_graph_free(tg);
}

void ddl_time_graph_free(ddl_time_graph *tg)
{
    tc_graph_result_free(&tg->r);
    tg->built = 0;
}
