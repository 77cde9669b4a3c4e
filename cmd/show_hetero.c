/* show_hetero.c — DESCRIBE of a typed graph: its node types (range of the
** global ids, feature tables, labels, splits) and its relations (source
** and target types, edges, the relation a reverse was built from, the
** edge feature tables it reads), as (property, value) rows beside
** show.c's. */
#include "show.h"
#include "block.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OOM(e) gnn_seterr(e, GNNDB_NOMEM, "out of memory")

/* The part of a stored name "type.name" after the type's prefix. */
static const char *local_name(const char *stored)
{
    const char *d = strchr(stored, '.');
    return d ? d + 1 : stored;
}

/* type.T.offset/count, then the tables and splits of T. */
static int type_rows(const cat_node_type *t, const cat_table *ts, size_t nt,
                     const cat_split *ss, size_t ns, rowset *rs)
{
    char key[400], val[128];
    int oom = 0;
    snprintf(key, sizeof key, "type.%s.offset", t->name);
    oom |= rs_prop_int(rs, key, t->first);
    snprintf(key, sizeof key, "type.%s.count", t->name);
    oom |= rs_prop_int(rs, key, t->count);
    for (size_t i = 0; i < nt; i++) {
        if (!ts[i].has_type || ts[i].node_type != t->type_no) continue;
        if (ts[i].kind == CAT_TABLE_LABELS) {
            snprintf(key, sizeof key, "type.%s.labels", t->name);
            snprintf(val, sizeof val, "%" PRId64 " classes", ts[i].nclasses);
        } else {
            snprintf(key, sizeof key, "type.%s.features.%s", t->name,
                     local_name(ts[i].name));
            snprintf(val, sizeof val, "%u x %s", ts[i].dim,
                     blk_dtype_name(ts[i].dtype));
        }
        oom |= rs_prop_text(rs, key, val);
    }
    for (size_t i = 0; i < ns; i++) {
        if (!ss[i].has_type || ss[i].node_type != t->type_no) continue;
        snprintf(key, sizeof key, "type.%s.split.%s", t->name,
                 local_name(ss[i].name));
        oom |= rs_prop_int(rs, key, ss[i].count);
    }
    return oom;
}

/* relation.R.edge_features.W (DIM x DTYPE) for each edge feature table
** on topology graph graph_id: R's own, or with `owner` those of the
** relation that shares its input edges, which R reads as its own. */
static int edge_table_rows(gnndb *db, const char *rel, int64_t graph_id,
                           const char *owner, rowset *rs, gnn_err *e)
{
    cat_table *ts = NULL;
    size_t n = 0;
    int rc = cat_table_list(db->cat, graph_id, &ts, &n, e), oom = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        if (ts[i].kind != CAT_TABLE_EDGE_FEATURES) continue;
        char key[400], val[300];
        snprintf(key, sizeof key, "relation.%s.edge_features.%s", rel,
                 ts[i].name);
        snprintf(val, sizeof val, "%u x %s%s%s%s", ts[i].dim,
                 blk_dtype_name(ts[i].dtype), owner ? " (imported into " : "",
                 owner ? owner : "", owner ? ")" : "");
        oom |= rs_prop_text(rs, key, val);
    }
    free(ts);
    return !rc && oom ? OOM(e) : rc;
}

/* The edge tables relation r reads: its own, then its partner's. */
static int relation_tables(gnndb *db, const cat_relation *r, rowset *rs,
                           gnn_err *e)
{
    cat_relation p;
    gnn_err e2 = {0};
    int rc = edge_table_rows(db, r->name, r->graph_id, NULL, rs, e);
    if (rc) return rc;
    rc = cat_relation_partner(db->cat, r, &p, &e2);
    if (rc == GNNDB_NOTFOUND) return GNNDB_OK;
    if (rc) return gnn_seterr(e, rc, "%s", e2.msg);
    return edge_table_rows(db, r->name, p.graph_id, p.name, rs, e);
}

/* relation.R.src/dst/edges/edge_ids[/input_edges][/reverse_of], then its
** edge tables. */
static int relation_rows(gnndb *db, const cat_relation *r,
                         const cat_node_type *ty, size_t nty, rowset *rs,
                         gnn_err *e)
{
    cat_graph rg;
    int rc = cat_graph_get_id(db->cat, r->graph_id, &rg, e);
    if (rc) return rc;
    char key[400];
    int oom = 0;
    const char *src = (size_t)r->src_type < nty ? ty[r->src_type].name : "?";
    const char *dst = (size_t)r->dst_type < nty ? ty[r->dst_type].name : "?";
    snprintf(key, sizeof key, "relation.%s.src", r->name);
    oom |= rs_prop_text(rs, key, src);
    snprintf(key, sizeof key, "relation.%s.dst", r->name);
    oom |= rs_prop_text(rs, key, dst);
    snprintf(key, sizeof key, "relation.%s.edges", r->name);
    oom |= rs_prop_int(rs, key, rg.edges);
    snprintf(key, sizeof key, "relation.%s.edge_ids", r->name);
    oom |= rs_prop_int(rs, key, rg.has_eids);
    if (rg.has_eids) {   /* the rows an edge feature table must have */
        snprintf(key, sizeof key, "relation.%s.input_edges", r->name);
        oom |= rs_prop_int(rs, key, rg.input_edges);
    }
    if (r->reverse_of[0]) {
        snprintf(key, sizeof key, "relation.%s.reverse_of", r->name);
        oom |= rs_prop_text(rs, key, r->reverse_of);
    }
    return oom ? OOM(e) : relation_tables(db, r, rs, e);
}

int show_typed(gnndb *db, const cat_graph *g, const char *part, rowset *rs,
               gnn_err *e)
{
    cat_node_type *ty = NULL;
    cat_relation *rl = NULL;
    cat_table *ts = NULL;
    cat_split *ss = NULL;
    size_t nty = 0, nrl = 0, nt = 0, ns = 0;
    int rc, oom = 0, shown = 0;
    if ((rc = cat_type_list(db->cat, g->id, &ty, &nty, e)) ||
        (rc = cat_relation_list(db->cat, g->id, &rl, &nrl, e)) ||
        (rc = cat_table_list(db->cat, g->id, &ts, &nt, e)) ||
        (rc = cat_split_list(db->cat, g->id, &ss, &ns, e)))
        goto out;
    for (size_t i = 0; i < nty; i++) {
        if (part && strcmp(part, ty[i].name)) continue;
        oom |= type_rows(&ty[i], ts, nt, ss, ns, rs);
        shown++;
    }
    for (size_t i = 0; !rc && i < nrl; i++) {
        if (part && strcmp(part, rl[i].name)) continue;
        rc = relation_rows(db, &rl[i], ty, nty, rs, e);
        shown++;
    }
    if (!rc && oom) rc = OOM(e);
    if (!rc && part && !shown)
        rc = gnn_seterr(e, GNNDB_NOTFOUND, "graph %s has no node type or "
                        "relation named %s", g->name, part);
out:
    free(ty);
    free(rl);
    free(ts);
    free(ss);
    return rc;
}
