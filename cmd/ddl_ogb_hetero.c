/* ddl_ogb_hetero.c — IMPORT OGB 'dir' AS name of a heterogeneous dataset
** (ogbn-mag): typed graph `name` with the dataset's node types, one
** relation per triplet (its type-local edge ids moved to the global ids;
** with UNDIRECTED, as PyG's ToUndirected, a relation within one type gets
** its reverse edges and one between two types a reverse rev_<r>),
** for each type its features (feat), years (year: node_year as a
** one-column table), labels and the split's train, valid and test, for
** each relation its edge tables where the dataset has them (feat of
** edge-feat.csv.gz, reltype of edge_reltype.csv.gz; a reverse shares
** them), all published by one catalog transaction: a failure at any step
** leaves the database as it was. */
#include "ddl_hetero.h"
#include "block.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const split_names[3] = {"train", "valid", "test"};

/* Relation i of the dataset is rels[i]; with UNDIRECTED, the reverse of
** one between two types is rels[nrels + i] (PyG's ToUndirected). */
#define REL_SLOTS(j) (2 * (j)->h.nrels)

/* Per node type: features, years, labels, then the three splits. */
#define TABLES_PER_TYPE 3

/* Per relation of the dataset: its edge tables, by name. reltype's
** integers are stored as float32 (exact below 2^24; OGB's are relation
** numbers), the dtype SAMPLE gathers as edge_attr. */
#define EDGE_TABLES 2
static const char *const edge_table_names[EDGE_TABLES] = {"feat", "reltype"};

typedef struct hjob {
    ogb_hetero h;
    cat_graph g;                  /* the typed graph's row */
    cat_node_type *types;         /* first ids laid out here */
    ddl_rel *rels;
    ddl_table *tabs;              /* TABLES_PER_TYPE a type */
    ddl_split *splits;            /* 3 a type */
    ddl_table *etabs;             /* EDGE_TABLES a relation of the dataset */
} hjob;

static int alloc_job(hjob *j, gnn_err *e)
{
    int nt = j->h.ntypes;
    j->types = calloc((size_t)nt, sizeof *j->types);
    j->rels = calloc((size_t)REL_SLOTS(j), sizeof *j->rels);
    j->tabs = calloc((size_t)nt * TABLES_PER_TYPE, sizeof *j->tabs);
    j->splits = calloc((size_t)nt * 3, sizeof *j->splits);
    j->etabs = calloc((size_t)j->h.nrels * EDGE_TABLES, sizeof *j->etabs);
    if (!j->types || !j->rels || !j->tabs || !j->splits || !j->etabs)
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    int64_t first = 0;
    for (int t = 0; t < nt; t++) {
        cat_node_type *ty = &j->types[t];
        snprintf(ty->name, sizeof ty->name, "%s", j->h.types[t].name);
        ty->type_no = t;
        ty->first = first;
        ty->count = j->h.types[t].count;
        first += ty->count;
    }
    if (first >= (int64_t)UINT32_MAX)
        return gnn_seterr(e, GNNDB_RANGE, "%" PRId64 " nodes in all; a graph "
                          "holds at most 2^32-2", first);
    j->g.nodes = first;
    return GNNDB_OK;
}

/* The edge count num-edge-list.csv.gz gives must be the file's. */
static int check_edge_count(gnndb *db, const ogb_hetero_rel *r,
                            const ddl_rel *x, gnn_err *e)
{
    if (!r->num_edges[0] || !x->d.g.has_eids) return GNNDB_OK;
    int64_t *v = NULL;
    size_t n = 0;
    int rc = imp_id_list(r->num_edges, NULL, db->dir, &v, &n, e);
    if (!rc && (n != 1 || v[0] != x->d.r.input_edges))
        rc = gnn_seterr(e, GNNDB_FORMAT, "%s: says %" PRId64 " edges; "
                        "relation %s's edge.csv.gz has %" PRId64,
                        r->num_edges, n == 1 ? v[0] : -1, r->name,
                        x->d.r.input_edges);
    free(v);
    return rc;
}

/* Relation r of the dataset (reverse: turned round, named rev_<r>) into x. */
static int build_rel(gnndb *db, const ast_stmt *s, hjob *j,
                     const ogb_hetero_rel *r, int reverse, ddl_rel *x,
                     gnn_err *e)
{
    char name[CAT_NAME_MAX];
    snprintf(name, sizeof name, "%s%s", reverse ? "rev_" : "", r->name);
    x->d.o.format = EDGE_FMT_CSV;
    x->d.o.text.header = EDGE_HEADER_NO;
    x->d.o.block_size = j->g.block_size;
    /* UNDIRECTED: a relation within one type gets its reverses itself */
    x->d.o.undirected = s->undirected && r->src == r->dst;
    x->d.no_edge_ids = s->no_edge_ids;
    int rc = ddl_rel_build(db, &j->g, &j->types[r->src], &j->types[r->dst],
                           name, r->edges, reverse, x, e);
    if (!rc && !reverse) rc = check_edge_count(db, r, x, e);
    if (!rc) rc = ddl_graph_index(db, &x->d, e);
    if (!rc && reverse)
        snprintf(x->r.reverse_of, sizeof x->r.reverse_of, "%s", r->name);
    return rc;
}

/* The edge tables of relation i where the dataset has their files, on its
** topology graph (a row per input edge: the edge file's rows, which
** num-edge-list has been checked against); its reverse rev_<r> shares
** them (cat_relation_edge_table). A relation without edge ids could not
** hold them; IMPORT OGB always builds them. */
static int build_edge_tables(gnndb *db, hjob *j, int i, gnn_err *e)
{
    const ogb_hetero_rel *r = &j->h.rels[i];
    const cat_graph *rg = &j->rels[i].d.g;
    const char *src[EDGE_TABLES] = {r->edge_feat, r->reltype};
    int rc = GNNDB_OK;
    for (int k = 0; !rc && rg->has_eids && k < EDGE_TABLES; k++) {
        ddl_table *d = &j->etabs[i * EDGE_TABLES + k];
        if (!src[k][0]) continue;
        d->o.edges = 1;
        d->o.relation = 1;
        d->o.store_dtype = BLK_DTYPE_F32;
        d->o.block_size = j->g.block_size;
        rc = ddl_table_build(db, rg, NULL, edge_table_names[k], src[k], d, e);
    }
    if (!rc || strstr(e->msg, rg->name)) return rc;
    /* every relation's files have the same names: say whose it was */
    char msg[GNN_ERRMSG_MAX];
    snprintf(msg, sizeof msg, "%s", e->msg);
    return gnn_seterr(e, rc, "relation %s: %s", rg->name, msg);
}

static int build_rels(gnndb *db, const ast_stmt *s, hjob *j, gnn_err *e)
{
    int rc = GNNDB_OK;
    for (int i = 0; !rc && i < j->h.nrels; i++) {
        const ogb_hetero_rel *r = &j->h.rels[i];
        rc = build_rel(db, s, j, r, 0, &j->rels[i], e);
        if (!rc) rc = build_edge_tables(db, j, i, e);
        if (!rc && s->undirected && r->src != r->dst)
            rc = build_rel(db, s, j, r, 1, &j->rels[j->h.nrels + i], e);
    }
    return rc;
}

/* Table `what` (feat, year or __labels) of type t from `path`. */
static int build_table(gnndb *db, hjob *j, int t, int k, const char *what,
                       const char *path, gnn_err *e)
{
    if (!path[0]) return GNNDB_OK;
    ddl_table *d = &j->tabs[t * TABLES_PER_TYPE + k];
    cat_graph view = j->g;
    char name[CAT_NAME_MAX];
    int rc = cat_relation_graph_name(j->g.name, j->types[t].name, view.name,
                                     e);
    if (rc || (rc = cat_type_object_name(j->types[t].name, what, name, e)))
        return rc;
    view.nodes = j->types[t].count;
    d->o.labels = k == 2;
    d->o.store_dtype = BLK_DTYPE_F32;
    d->o.block_size = j->g.block_size;
    if ((rc = ddl_table_build(db, &view, NULL, name, path, d, e))) return rc;
    d->t.has_type = 1;
    d->t.node_type = t;
    return GNNDB_OK;
}

static int build_splits(gnndb *db, hjob *j, int t, gnn_err *e)
{
    const ogb_hetero_type *ty = &j->h.types[t];
    cat_graph view = j->g;
    view.nodes = ty->count;
    int rc = cat_relation_graph_name(j->g.name, ty->name, view.name, e);
    for (int k = 0; !rc && ty->has_split && k < 3; k++) {
        char name[CAT_NAME_MAX];
        uint32_t *m = NULL;
        size_t n = 0;
        ddl_split *d = &j->splits[t * 3 + k];
        if ((rc = cat_type_object_name(ty->name, split_names[k], name, e)) ||
            (rc = ddl_split_members(db, &view, ty->split[k], NULL, &m, &n, e)))
            break;
        ddl_split_build(name, m, n, d);
        d->sp.has_type = 1;
        d->sp.node_type = t;
    }
    return rc;
}

/* Every object's files and index keys, before the catalog knows. */
static int build_all(gnndb *db, const ast_stmt *s, hjob *j, gnn_err *e)
{
    int rc = build_rels(db, s, j, e);
    for (int t = 0; !rc && t < j->h.ntypes; t++) {
        const ogb_hetero_type *ty = &j->h.types[t];
        if ((rc = build_table(db, j, t, 0, "feat", ty->feat, e)) ||
            (rc = build_table(db, j, t, 1, "year", ty->year, e)) ||
            (rc = build_table(db, j, t, 2, "__labels", ty->label, e)))
            break;
        rc = build_splits(db, j, t, e);
    }
    /* every input read: now the splits' index keys */
    for (int i = 0; !rc && i < j->h.ntypes * 3; i++)
        if (j->splits[i].m) rc = ddl_split_index(db, &j->splits[i], e);
    return rc;
}

static int insert_all(gnndb *db, hjob *j, gnn_err *e)
{
    int rc = cat_begin(db->cat, e);
    if (rc) return rc;
    int64_t nodes = j->g.nodes;
    j->g.nodes = 0;   /* each type adds its count */
    rc = cat_graph_insert(db->cat, &j->g, e);
    for (int t = 0; !rc && t < j->h.ntypes; t++) {
        cat_node_type ty = j->types[t];
        ty.graph_id = j->g.id;
        rc = cat_type_insert(db->cat, &ty, e);
    }
    j->g.nodes = nodes;
    for (int i = 0; !rc && i < REL_SLOTS(j); i++)
        if (j->rels[i].d.built) rc = ddl_rel_insert(db, j->g.id, &j->rels[i], e);
    for (int i = 0; !rc && i < j->h.nrels * EDGE_TABLES; i++)
        if (j->etabs[i].built)
            rc = ddl_table_insert(db, j->rels[i / EDGE_TABLES].d.g.id,
                                  &j->etabs[i], e);
    for (int i = 0; !rc && i < j->h.ntypes * TABLES_PER_TYPE; i++)
        if (j->tabs[i].built) rc = ddl_table_insert(db, j->g.id, &j->tabs[i], e);
    for (int i = 0; !rc && i < j->h.ntypes * 3; i++)
        if (j->splits[i].m) rc = ddl_split_insert(db, j->g.id, &j->splits[i], e);
    if (!rc) rc = cat_commit(db->cat, e);
    if (rc) cat_rollback(db->cat);
    return rc;
}

/* Undo (rc != 0) or only free what was built. */
static void finish(gnndb *db, hjob *j, int rc)
{
    for (int i = 0; j->rels && i < REL_SLOTS(j); i++) {
        if (rc) ddl_graph_undo(db, &j->rels[i].d);
        else ddl_graph_free(&j->rels[i].d);
    }
    for (int i = 0; j->tabs && i < j->h.ntypes * TABLES_PER_TYPE; i++) {
        if (rc) ddl_table_undo(db, &j->tabs[i]);
        else imp_feat_result_free(&j->tabs[i].r);
    }
    for (int i = 0; j->splits && i < j->h.ntypes * 3; i++) {
        if (rc) ddl_split_undo(db, &j->splits[i]);
        else ddl_split_free(&j->splits[i]);
    }
    for (int i = 0; j->etabs && i < j->h.nrels * EDGE_TABLES; i++) {
        if (rc) ddl_table_undo(db, &j->etabs[i]);
        else imp_feat_result_free(&j->etabs[i].r);
    }
    free(j->types);
    free(j->rels);
    free(j->tabs);
    free(j->splits);
    free(j->etabs);
    ogb_hetero_free(&j->h);
}

int ddl_import_ogb_hetero(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    hjob j;
    memset(&j, 0, sizeof j);
    uint32_t bs;
    int rc = ddl_check_new_graph(db, s->name, e);
    if (rc || (rc = ddl_check_block_size(s->block_size, &bs, e))) return rc;
    ddl_typed_graph_row(s->name, bs, &j.g);
    snprintf(j.g.source, sizeof j.g.source, "%s", s->path);
    if (!(rc = ogb_hetero_open(s->path, s->split, &j.h, e)) &&
        !(rc = alloc_job(&j, e)) && !(rc = build_all(db, s, &j, e)))
        rc = insert_all(db, &j, e);
    finish(db, &j, rc);
    return rc;
}
