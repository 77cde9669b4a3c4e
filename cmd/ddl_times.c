/* ddl_times.c — IMPORT EDGE TIMES and IMPORT NODE TIMES INTO g FROM 'f'.
**
** Edge times (one int64 per input edge, row i for input edge i) become
** the graph's time graph: the temporal CSR (storage/graph_times.c), its
** lists those of the edge-id graph sorted by time, in a block file and a
** graphs row of its own ("g.__time", CAT_GRAPH_TIME). The plain graph, its
** edge-id graph and everything sampled from them stay as they were. Node
** times (one int64 per node, in the order of the graph's feature rows)
** become the table "__node_time". The whole file is read and checked
** (int64, one per input edge or node) before anything is written; the
** new objects are then published in one catalog transaction, or undone. */
#include "ddl.h"
#include "timecol.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The plain graph the statement names. */
static int times_graph(gnndb *db, const ast_stmt *s, cat_graph *g,
                       gnn_err *e)
{
    int rc = cat_graph_get(db->cat, s->graph, g, e);
    if (rc) return rc;
    if (g->kind != CAT_GRAPH_PLAIN)
        return gnn_seterr(e, GNNDB_MISUSE, "IMPORT %s TIMES INTO %s: times "
                          "of a graph of node types and relations are not "
                          "available yet", s->time_nodes ? "NODE" : "EDGE",
                          g->name);
    return GNNDB_OK;
}

static int import_node_times(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    cat_graph g;
    int64_t *t = NULL, *i2r = NULL;
    size_t n = 0;
    ddl_table d;
    memset(&d, 0, sizeof d);
    d.o.times = 1;
    d.o.format = IMP_FEAT_NPY;
    d.o.block_size = BLK_DEFAULT_SIZE;
    int rc;
    (void)((rc = times_graph(db, s, &g, e)) ||
           (rc = tc_read_file(s->path, "node times", g.nodes, &t, &n, e)) ||
           (rc = ddl_check_table(db, &g, CAT_NODE_TIME_TABLE,
                                 CAT_TABLE_NODE_TIMES, 0, &d, e)) ||
           (rc = ddl_load_i2r(db, &g, &i2r, e)) ||
           (rc = ddl_table_build(db, &g, i2r, CAT_NODE_TIME_TABLE, s->path,
                                 &d, e)));
    free(t);
    free(i2r);
    if (rc == GNNDB_EXISTS)
        rc = gnn_seterr(e, rc, "graph %s already has node times", g.name);
    return ddl_table_publish(db, rc ? 0 : g.id, &d, rc, e);
}

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
static void time_row(const cat_graph *g, uint64_t token, const char *file,
                     const tc_graph_result *r, const char *path,
                     cat_graph *t)
{
    char name[CAT_NAME_MAX + sizeof CAT_TIME_SUFFIX];
    snprintf(name, sizeof name, "%s" CAT_TIME_SUFFIX, g->name);
    *t = *g;
    t->id = 0;
    memcpy(t->name, name, sizeof t->name - 1);
    t->name[sizeof t->name - 1] = 0;
    t->token = token;
    snprintf(t->file, sizeof t->file, "%s", file);
    t->graph_blocks = (int64_t)r->nblocks;
    t->has_map = 0;
    snprintf(t->source, sizeof t->source, "%s", path);
    t->has_eids = 1;
    snprintf(t->eid_file, sizeof t->eid_file, "%s", file);
    t->eid_token = token;
    t->eid_blocks = (int64_t)r->nblocks;
    t->kind = CAT_GRAPH_TIME;
    t->parent_id = g->id;
}

static int import_edge_times(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    cat_graph g, old;
    int64_t *t = NULL;
    size_t n = 0;
    blk_file *f = NULL;
    tc_graph_result r;
    memset(&r, 0, sizeof r);
    uint64_t token = db_new_token();
    char file[64];
    snprintf(file, sizeof file, "g-%016" PRIx64 ".blk", token);
    gnn_err e2 = {0};
    int rc, built = 0;
    if ((rc = times_graph(db, s, &g, e)) ||
        (rc = cat_graph_need_eids(&g, "IMPORT EDGE TIMES", e)))
        goto out;
    if (strlen(g.name) + strlen(CAT_TIME_SUFFIX) >= CAT_NAME_MAX) {
        rc = gnn_seterr(e, GNNDB_RANGE, "IMPORT EDGE TIMES: graph name %s is "
                        "too long to name its time graph", g.name);
        goto out;
    }
    if (cat_time_graph_get(db->cat, &g, &old, &e2) == GNNDB_OK) {
        rc = gnn_seterr(e, GNNDB_EXISTS, "graph %s already has edge times "
                        "(from %s)", g.name, old.source);
        goto out;
    }
    if ((rc = tc_read_file(s->path, "edge times", g.input_edges, &t, &n, e)) ||
        (rc = db_open_eid_graph(db, &g, 0, &f, e)))
        goto out;
    rc = tc_build_graph(f, (uint64_t)g.nodes, t, n, db->dir, file, token, &r,
                        e);
    blkf_close(f);
    if (rc) goto out;
    built = 1;
    if ((rc = time_index(db, token, &r, e))) goto out;
    cat_graph row;
    time_row(&g, token, file, &r, s->path, &row);
    if (!(rc = cat_begin(db->cat, e))) {
        if ((rc = cat_graph_insert(db->cat, &row, e)) ||
            (rc = cat_checksums_put(db->cat, file, r.checksums, r.nblocks,
                                    e)) ||
            (rc = cat_commit(db->cat, e)))
            cat_rollback(db->cat);
    }
out:
    if (rc && built) {
        ddl_unlink(db, file);
        ddl_drop_token(db, token);
    }
    tc_graph_result_free(&r);
    free(t);
    db_write_unlock(db);
    return ddl_disk_full_words(db, rc, e);
}

int ddl_import_times(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    if (s->time_nodes) return import_node_times(db, s, e);
    return import_edge_times(db, s, e);
}
