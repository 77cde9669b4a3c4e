/* create.c — the statements that add an object: CREATE GRAPH (from an edge
** file; without one, a typed graph: ddl_hetero.c), IMPORT FEATURES / LABELS
** and CREATE SPLIT, each built with ddl.c's steps and published by one
** catalog transaction. */
#include "ddl.h"
#include "ddl_hetero.h"
#include "memory.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ddl_create_graph(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    if (!s->path) return ddl_create_typed_graph(db, s->name, s->block_size, e);
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    ddl_graph d;
    memset(&d, 0, sizeof d);
    imp_graph_opts *o = &d.o;
    o->format = ddl_edge_format(s->format);
    ddl_edge_text_opts(s, &o->text);
    o->key = s->key;
    o->undirected = s->undirected;
    o->drop_duplicates = s->drop_duplicates;
    o->drop_self_loops = s->drop_self_loops;
    o->map_ids = s->map_ids;
    o->nodes = s->nodes;
    o->reorder = s->reorder == AST_REORDER_DEGREE ? IMP_REORDER_DEGREE
               : s->reorder == AST_REORDER_BFS    ? IMP_REORDER_BFS
                                                  : IMP_REORDER_NONE;
    d.no_edge_ids = s->no_edge_ids;
    ddl_time_graph tg;
    memset(&tg, 0, sizeof tg);
    if (s->col_time && s->no_edge_ids) {
        rc = gnn_seterr(e, GNNDB_MISUSE, "CREATE GRAPH %s: a time column "
                        "needs edge ids, which WITHOUT EDGE IDS leaves out",
                        s->name);
        goto out;
    }
    /* with a time column the graph and its time graph are published by
    ** the same transaction: both or neither */
    if ((rc = ddl_check_new_graph(db, s->name, e)) ||
        (rc = ddl_check_block_size(s->block_size, &o->block_size, e)) ||
        (rc = ddl_graph_build(db, s->name, s->path, &d, e)) ||
        (rc = ddl_graph_index(db, &d, e)) ||
        (s->col_time &&
         (rc = ddl_time_graph_build(db, &d.g, "CREATE GRAPH", d.r.times,
                                    (size_t)d.r.input_edges, &tg, e))))
        goto undo;
    if ((rc = cat_begin(db->cat, e))) goto undo;
    if ((rc = ddl_graph_insert(db, &d, e)) ||
        (s->col_time &&
         (rc = ddl_time_graph_insert(db, &d.g, s->path, &tg, e))) ||
        (rc = cat_commit(db->cat, e))) {
        cat_rollback(db->cat);
        goto undo;
    }
    ddl_time_graph_free(&tg);
    ddl_graph_free(&d);
    goto out;
undo:
    ddl_time_graph_undo(db, &tg);
    ddl_graph_undo(db, &d);
out:
    db_write_unlock(db);
    return ddl_disk_full_words(db, rc, e);
}

/* The node-id -> file-row map of a graph made with mapped ids. */
int ddl_load_i2r(gnndb *db, const cat_graph *g, int64_t **i2r, gnn_err *e)
{
    *i2r = NULL;
    if (!g->has_map) return GNNDB_OK;
    idx_txn *it;
    int rc = idx_begin(db->idx, 0, &it, e);
    if (rc) return rc;
    rc = idx_load_array(it, 'R', g->token, (uint64_t)g->nodes, i2r, e);
    idx_abort(it);
    return rc;
}

int ddl_import(gnndb *db, const ast_stmt *s, int labels, gnn_err *e)
{
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    char name[CAT_NAME_MAX];
    cat_graph g, view;
    cat_node_type t;
    int64_t *i2r = NULL;
    ddl_table d;
    memset(&d, 0, sizeof d);
    d.o.labels = labels;
    if ((rc = ddl_object_name(s, labels ? "__labels" : s->name, name, e)) ||
        (rc = ddl_type_view(db, s->graph, s->node_type, &g, &t, &view, e)) ||
        (rc = ddl_check_table(db, &view, name, labels ? CAT_TABLE_LABELS
                              : CAT_TABLE_FEATURES, s->replace_table, &d,
                              e)) ||
        (rc = ddl_table_opts(s, &d.o, e)) ||
        (rc = ddl_load_i2r(db, &view, &i2r, e)) ||
        (rc = ddl_table_build(db, &view, i2r, name, s->path, &d, e)))
        goto out;
    d.t.has_type = s->node_type != NULL;
    d.t.node_type = t.type_no;
out:
    free(i2r);
    return ddl_table_publish(db, rc ? 0 : g.id, &d, rc, e);
}

/* ---- splits ------------------------------------------------------------ */

/* RANDOM fraction [SEED s]: each node joins with probability `fraction`,
** by a draw that depends only on (seed, node): reproducible, O(1) memory
** per node. */
static int random_members(const ast_stmt *s, int64_t nodes, uint32_t **out,
                          size_t *n, gnn_err *e)
{
    uint64_t seed = s->has_seed ? s->seed : db_new_token();
    uint64_t key = rng_key(seed, 0, 0, UINT64_MAX - 1, 0);
    uint32_t *m = malloc(((size_t)nodes + 1) * sizeof *m);
    if (!m) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    *n = 0;
    for (int64_t v = 0; v < nodes; v++)
        if (rng_unit(rng_draw(key, (uint64_t)v)) < s->fraction)
            m[(*n)++] = (uint32_t)v;
    *out = m;
    return GNNDB_OK;
}

static int check_new_split(gnndb *db, const cat_graph *g, const char *name,
                           const char *shown, gnn_err *e)
{
    cat_split sp;
    gnn_err e2 = {0};
    if (cat_split_get(db->cat, g->id, name, &sp, &e2) == GNNDB_OK)
        return gnn_seterr(e, GNNDB_EXISTS, "split '%s' already exists in "
                          "graph '%s'", shown, g->name);
    if (e2.rc != GNNDB_NOTFOUND) return gnn_seterr(e, e2.rc, "%s", e2.msg);
    return GNNDB_OK;
}

/* A split holds at most a member a node: 4 bytes each and a sort's
** scratch, and read from a file 8 more; and an index transaction's pages.
** They must fit in what memory_limit leaves for data (memory.c). */
static int split_memory(gnndb *db, const ast_stmt *s, const cat_graph *g,
                        gnn_err *e)
{
    char what[2 * CAT_NAME_MAX + 32];
    snprintf(what, sizeof what, "CREATE SPLIT %s ON %s", s->name, s->graph);
    int64_t per = s->split_random ? 8 : 16;
    mem_reserve r;
    return db_memory_reserve(db, 0, g->nodes * per + (int64_t)IDX_TXN_BYTES,
                             what, &r, e);
}

int ddl_create_split(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    char name[CAT_NAME_MAX];
    cat_graph g, view;
    cat_node_type t;
    ddl_split d;
    memset(&d, 0, sizeof d);
    uint32_t *m = NULL;
    size_t n = 0;
    if ((rc = ddl_object_name(s, s->name, name, e)) ||
        (rc = ddl_type_view(db, s->graph, s->node_type, &g, &t, &view, e)) ||
        (rc = check_new_split(db, &g, name, s->name, e)) ||
        (rc = split_memory(db, s, &view, e)))
        goto out;
    rc = s->split_random
             ? random_members(s, view.nodes, &m, &n, e)
             : ddl_split_members(db, &view, s->path, s->key, &m, &n, e);
    if (rc) goto out;
    ddl_split_build(name, m, n, &d);
    m = NULL;
    d.sp.has_type = s->node_type != NULL;
    d.sp.node_type = t.type_no;
    if ((rc = ddl_split_index(db, &d, e))) goto out;
    if ((rc = cat_begin(db->cat, e)) == GNNDB_OK) {
        if ((rc = ddl_split_insert(db, g.id, &d, e)) ||
            (rc = cat_commit(db->cat, e)))
            cat_rollback(db->cat);
    }
out:
    if (rc) ddl_split_undo(db, &d);
    else ddl_split_free(&d);
    free(m);
    db_write_unlock(db);
    return ddl_disk_full_words(db, rc, e);
}
