/* ddl_hetero.c — typed graphs: CREATE GRAPH g (no FROM), CREATE NODES,
** CREATE RELATION [WITH REVERSE], DROP RELATION, and the view of one node
** type that IMPORT FEATURES / LABELS and CREATE SPLIT take. Each statement
** is atomic as ddl.c's are: files and index keys first under fresh names,
** then one catalog transaction. */
#include "ddl_hetero.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ddl_typed_graph_row(const char *name, uint32_t block_size, cat_graph *g)
{
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    g->token = db_new_token();
    g->directed = 1;
    g->block_size = block_size;
    snprintf(g->node_order, sizeof g->node_order, "none");
    g->kind = CAT_GRAPH_TYPED;
}

/* Run `fn(db, arg, e)` under the write lock and in one catalog
** transaction. */
static int in_txn(gnndb *db, int (*fn)(gnndb *, void *, gnn_err *),
                  void *arg, gnn_err *e)
{
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    if (!(rc = cat_begin(db->cat, e))) {
        if ((rc = fn(db, arg, e)) || (rc = cat_commit(db->cat, e)))
            cat_rollback(db->cat);
    }
    db_write_unlock(db);
    return ddl_disk_full_words(db, rc, e);
}

typedef struct new_graph { const char *name; uint32_t bs; } new_graph;

static int insert_typed(gnndb *db, void *arg, gnn_err *e)
{
    new_graph *a = arg;
    cat_graph g;
    int rc = ddl_check_new_graph(db, a->name, e);
    if (rc) return rc;
    ddl_typed_graph_row(a->name, a->bs, &g);
    return cat_graph_insert(db->cat, &g, e);
}

int ddl_create_typed_graph(gnndb *db, const char *name, int64_t block_size,
                           gnn_err *e)
{
    new_graph a = {name, 0};
    int rc = ddl_check_block_size(block_size, &a.bs, e);
    return rc ? rc : in_txn(db, insert_typed, &a, e);
}

/* Graph `name`, which must be typed; `what` names the statement. */
int ddl_typed_graph(gnndb *db, const char *name, const char *what,
                    cat_graph *g, gnn_err *e)
{
    int rc = cat_graph_get(db->cat, name, g, e);
    if (rc) return rc;
    if (g->kind == CAT_GRAPH_TYPED) return GNNDB_OK;
    return gnn_seterr(e, GNNDB_MISUSE, "%s: graph %s has no node types (it "
                      "was made from an edge file; CREATE GRAPH name "
                      "without FROM makes a graph of node types and "
                      "relations)", what, name);
}

typedef struct new_nodes {
    const char *graph, *type;
    int64_t count;
} new_nodes;

static int insert_nodes(gnndb *db, void *arg, gnn_err *e)
{
    new_nodes *a = arg;
    cat_graph g;
    int rc = ddl_typed_graph(db, a->graph, "CREATE NODES", &g, e);
    if (rc) return rc;
    cat_node_type t;
    memset(&t, 0, sizeof t);
    t.graph_id = g.id;
    t.count = a->count;
    if (strlen(a->type) >= sizeof t.name)
        return gnn_seterr(e, GNNDB_RANGE, "node type name too long: %s",
                          a->type);
    snprintf(t.name, sizeof t.name, "%s", a->type);
    return cat_type_insert(db->cat, &t, e);
}

int ddl_create_nodes(gnndb *db, const char *graph, const char *type,
                     int64_t count, gnn_err *e)
{
    if (count < 0)
        return gnn_seterr(e, GNNDB_RANGE, "CREATE NODES %s ON %s: a count "
                          "of %" PRId64 " nodes", type, graph, count);
    new_nodes a = {graph, type, count};
    return in_txn(db, insert_nodes, &a, e);
}

/* ---- one node type as a graph of its own -------------------------------- */

int ddl_type_view(gnndb *db, const char *graph, const char *type,
                  cat_graph *g, cat_node_type *t, cat_graph *view,
                  gnn_err *e)
{
    memset(t, 0, sizeof *t);
    int rc = cat_graph_get(db->cat, graph, g, e);
    if (rc) return rc;
    if (!type) {
        if (g->kind != CAT_GRAPH_TYPED) { *view = *g; return GNNDB_OK; }
        return gnn_seterr(e, GNNDB_MISUSE, "graph %s has node types: name "
                          "one, as %s.<type>", graph, graph);
    }
    if ((rc = ddl_typed_graph(db, graph, "a node type", g, e)) ||
        (rc = cat_type_get(db->cat, g->id, type, t, e)))
        return rc;
    *view = *g;
    if ((rc = cat_relation_graph_name(graph, type, view->name, e))) return rc;
    view->nodes = t->count;
    view->has_map = 0;
    return GNNDB_OK;
}

/* ---- relations ----------------------------------------------------------- */

int ddl_rel_build(gnndb *db, const cat_graph *g, const cat_node_type *src,
                  const cat_node_type *dst, const char *name,
                  const char *path, int reverse, ddl_rel *x, gnn_err *e)
{
    char full[CAT_NAME_MAX];
    int rc = cat_relation_graph_name(g->name, name, full, e);
    if (rc) return rc;
    x->t = (imp_rel){name, src->name, dst->name, src->first, src->count,
                     dst->first, dst->count, reverse};
    x->d.o.rel = &x->t;
    x->d.o.nodes = g->nodes;
    x->d.o.reorder = IMP_REORDER_NONE;
    x->d.o.map_ids = 0;
    if (!x->d.o.block_size) x->d.o.block_size = g->block_size;
    if ((rc = ddl_graph_build(db, full, path, &x->d, e))) return rc;
    x->d.g.kind = CAT_GRAPH_RELATION;
    memset(&x->r, 0, sizeof x->r);
    snprintf(x->r.name, sizeof x->r.name, "%s", name);
    x->r.src_type = reverse ? dst->type_no : src->type_no;
    x->r.dst_type = reverse ? src->type_no : dst->type_no;
    return GNNDB_OK;
}

int ddl_rel_insert(gnndb *db, int64_t parent_id, ddl_rel *x, gnn_err *e)
{
    x->d.g.parent_id = parent_id;
    int rc = ddl_graph_insert(db, &x->d, e);
    if (rc) return rc;
    x->r.graph_id = x->d.g.id;
    x->r.parent_id = parent_id;
    return cat_relation_insert(db->cat, &x->r, x->d.g.edges, e);
}

/* The relation's names are new, its types exist, UNDIRECTED only joins a
** type to itself; *src and *dst are its types. */
static int check_rel(gnndb *db, const ddl_rel_spec *r, const cat_graph *g,
                     cat_node_type *src, cat_node_type *dst, gnn_err *e)
{
    int rc;
    if ((rc = cat_type_get(db->cat, g->id, r->src_type, src, e)) ||
        (rc = cat_type_get(db->cat, g->id, r->dst_type, dst, e)))
        return rc;
    if (r->undirected && src->type_no != dst->type_no)
        return gnn_seterr(e, GNNDB_MISUSE, "relation %s of graph %s joins "
                          "%s to %s: UNDIRECTED adds reverses into the same "
                          "relation, so both ends must be of one type (WITH "
                          "REVERSE builds a reverse relation)", r->name,
                          g->name, src->name, dst->name);
    const char *names[2] = {r->name, r->with_reverse ? r->rev : NULL};
    for (int k = 0; k < 2 && names[k]; k++) {
        cat_node_type t;
        cat_relation x;
        gnn_err e2 = {0};
        if (!cat_type_get(db->cat, g->id, names[k], &t, &e2))
            return gnn_seterr(e, GNNDB_EXISTS, "graph %s already has a node "
                              "type named %s", g->name, names[k]);
        if (!cat_relation_get(db->cat, g->id, names[k], &x, &e2))
            return gnn_seterr(e, GNNDB_EXISTS, "graph %s already has a "
                              "relation named %s", g->name, names[k]);
    }
    if (r->with_reverse && !strcmp(r->name, r->rev))
        return gnn_seterr(e, GNNDB_EXISTS, "relation %s of graph %s: its "
                          "reverse needs another name", r->name, g->name);
    return GNNDB_OK;
}

static void rel_opts(const ddl_rel_spec *r, const cat_graph *g, ddl_rel *x)
{
    x->d.o = r->o;
    x->d.o.undirected = r->undirected;
    if (!x->d.o.block_size) x->d.o.block_size = g->block_size;
    x->d.no_edge_ids = r->no_edge_ids;
}

static int build_rels(gnndb *db, const ddl_rel_spec *r, const cat_graph *g,
                      ddl_rel x[2], gnn_err *e)
{
    cat_node_type src, dst;
    int rc = check_rel(db, r, g, &src, &dst, e);
    if (rc) return rc;
    rel_opts(r, g, &x[0]);
    if ((rc = ddl_rel_build(db, g, &src, &dst, r->name, r->path, 0, &x[0],
                            e)) ||
        (rc = ddl_graph_index(db, &x[0].d, e)))
        return rc;
    if (!r->with_reverse) return GNNDB_OK;
    rel_opts(r, g, &x[1]);
    if ((rc = ddl_rel_build(db, g, &src, &dst, r->rev, r->path, 1, &x[1],
                            e)) ||
        (rc = ddl_graph_index(db, &x[1].d, e)))
        return rc;
    snprintf(x[1].r.reverse_of, sizeof x[1].r.reverse_of, "%s", r->name);
    return GNNDB_OK;
}

int ddl_create_relation(gnndb *db, const ddl_rel_spec *spec, gnn_err *e)
{
    ddl_rel_spec r = *spec;
    char rev[CAT_NAME_MAX];
    if (r.with_reverse && !r.rev) {
        snprintf(rev, sizeof rev, "rev_%s", r.name);
        r.rev = rev;
    }
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    ddl_rel *x = calloc(2, sizeof *x);
    cat_graph g;
    if (!x) rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    if (!rc && !(rc = ddl_typed_graph(db, r.graph, "CREATE RELATION", &g, e)) &&
        !(rc = build_rels(db, &r, &g, x, e)) &&
        !(rc = cat_begin(db->cat, e))) {
        if ((rc = ddl_rel_insert(db, g.id, &x[0], e)) ||
            (r.with_reverse && (rc = ddl_rel_insert(db, g.id, &x[1], e))) ||
            (rc = cat_commit(db->cat, e)))
            cat_rollback(db->cat);
    }
    for (int k = 0; x && k < 2; k++) {
        if (rc) ddl_graph_undo(db, &x[k].d);
        else ddl_graph_free(&x[k].d);
    }
    free(x);
    db_write_unlock(db);
    return ddl_disk_full_words(db, rc, e);
}

int ddl_drop_relation(gnndb *db, const char *graph, const char *name,
                      gnn_err *e)
{
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    cat_graph g, rg;
    cat_relation r;
    ddl_doomed d;
    memset(&d, 0, sizeof d);
    if (!(rc = ddl_typed_graph(db, graph, "DROP RELATION", &g, e)) &&
        !(rc = cat_relation_get(db->cat, g.id, name, &r, e)) &&
        !(rc = cat_graph_get_id(db->cat, r.graph_id, &rg, e)) &&
        !(rc = ddl_doomed_graph(db, &rg, &d, e)) &&
        !(rc = cat_begin(db->cat, e))) {
        if ((rc = cat_graph_delete(db->cat, rg.id, e)) ||
            (rc = cat_commit(db->cat, e)))
            cat_rollback(db->cat);
    }
    if (!rc) ddl_doomed_remove(db, &d);
    ddl_doomed_free(&d);
    db_write_unlock(db);
    return ddl_disk_full_words(db, rc, e);
}

/* ---- the statements ------------------------------------------------------ */

int ddl_create_nodes_stmt(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    return ddl_create_nodes(db, s->graph, s->name, s->count, e);
}

int ddl_create_relation_stmt(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    ddl_rel_spec r;
    memset(&r, 0, sizeof r);
    r.graph = s->graph;
    r.name = s->name;
    r.src_type = s->src_type;
    r.dst_type = s->dst_type;
    r.path = s->path;
    r.with_reverse = s->with_reverse;
    r.rev = s->reverse_name;
    r.undirected = s->undirected;
    r.no_edge_ids = s->no_edge_ids;
    edge_opts eo;
    ddl_edge_opts(db, s, &eo);
    r.o.format = eo.format;
    r.o.text = eo;
    r.o.key = s->key;
    r.o.drop_duplicates = s->drop_duplicates;
    r.o.drop_self_loops = s->drop_self_loops;
    int rc = ddl_check_block_size(s->block_size, &r.o.block_size, e);
    if (!s->block_size) r.o.block_size = 0;   /* the graph's */
    return rc ? rc : ddl_create_relation(db, &r, e);
}

int ddl_drop_relation_stmt(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    return ddl_drop_relation(db, s->graph, s->name, e);
}
