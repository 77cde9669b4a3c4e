/* plan_typed.c — planning a SAMPLE of a typed graph: its node types (the
** global id range of each, the feature table and labels it gathers from),
** its relations (each one's topology and fanout per hop), the seeds' type
** and split, and the expected size of a mini-batch, hop by hop and
** relation by relation. */
#include "plan.h"
#include "block.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The index of type `name`, or -1. */
static int type_index(const plan *p, const char *name)
{
    for (int i = 0; i < p->ntypes; i++)
        if (!strcmp(p->types[i].name, name)) return i;
    return -1;
}

/* A type's table `name` (node features, or "__labels"): 1 found, 0 not. */
static int type_table(gnndb *db, const plan *p, const plan_type *t,
                      const char *name, cat_table *out, gnn_err *e)
{
    char stored[CAT_NAME_MAX];
    gnn_err e2 = {0};
    if (cat_type_object_name(t->name, name, stored, e)) return -e->rc;
    int rc = cat_table_get(db->cat, p->graph.id, stored, out, &e2);
    if (rc == GNNDB_NOTFOUND) return 0;
    if (rc) return -gnn_seterr(e, rc, "%s", e2.msg);
    return 1;
}

/* The feature table of type t: FEATURES name where the type has it, else
** the type's only node feature table; and its labels. */
static int type_tables(gnndb *db, const ast_stmt *s, plan *p, plan_type *t,
                       gnn_err *e)
{
    int rc = 0;
    if (s->features) {
        rc = type_table(db, p, t, s->features, &t->feat, e);
    } else {
        cat_table *ts = NULL;
        size_t nt = 0, nf = 0;
        char prefix[CAT_NAME_MAX + 2];
        snprintf(prefix, sizeof prefix, "%s.", t->name);
        if (cat_table_list(db->cat, p->graph.id, &ts, &nt, e)) return e->rc;
        for (size_t i = 0; i < nt; i++)
            if (ts[i].kind == CAT_TABLE_FEATURES && ts[i].has_type &&
                !strncmp(ts[i].name, prefix, strlen(prefix))) {
                t->feat = ts[i];
                nf++;
            }
        free(ts);
        rc = nf == 1;
    }
    if (rc < 0) return e->rc;
    t->has_feat = rc > 0 && t->feat.kind == CAT_TABLE_FEATURES &&
                  (t->feat.dtype == BLK_DTYPE_F32 ||
                   t->feat.dtype == BLK_DTYPE_F16);
    rc = type_table(db, p, t, "__labels", &t->labels, e);
    if (rc < 0) return e->rc;
    t->has_labels = rc;
    return GNNDB_OK;
}

static int load_types(gnndb *db, const ast_stmt *s, plan *p, gnn_err *e)
{
    cat_node_type *ts = NULL;
    size_t n = 0;
    if (cat_type_list(db->cat, p->graph.id, &ts, &n, e)) return e->rc;
    p->types = calloc(n + 1, sizeof *p->types);
    if (!p->types) {
        free(ts);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    }
    p->ntypes = (int)n;
    for (size_t i = 0; i < n; i++) {
        plan_type *t = &p->types[i];
        snprintf(t->name, sizeof t->name, "%s", ts[i].name);
        t->first = ts[i].first;
        t->count = ts[i].count;
    }
    free(ts);
    int found = 0;
    for (int i = 0; i < p->ntypes; i++) {
        if (type_tables(db, s, p, &p->types[i], e)) return e->rc;
        found |= p->types[i].has_feat;
    }
    /* FEATURES w gathers w of each type that has it: at least one must */
    if (s->features && !found)
        return gnn_seterr(e, GNNDB_NOTFOUND, "no node type of graph %s has "
                          "a feature table %s", p->graph.name, s->features);
    return GNNDB_OK;
}

/* Relation r's in-degree histogram into the graph's: the sum of its
** relations' (a node's in-degree in each counts apart). */
static int add_hist(gnndb *db, plan *p, plan_rel *r, gnn_err *e)
{
    int64_t h[64];
    int nb = 0;
    if (cat_degree_hist_get(db->cat, r->topo.id, h, 64, &nb, e)) return e->rc;
    for (int k = 1; k < nb; k++) p->deg_hist[k] += h[k];
    if (nb > p->nbuckets) p->nbuckets = nb;
    return GNNDB_OK;
}

static int load_rels(gnndb *db, plan *p, gnn_err *e)
{
    cat_relation *rs = NULL;
    size_t n = 0;
    if (cat_relation_list(db->cat, p->graph.id, &rs, &n, e)) return e->rc;
    p->rels = calloc(n + 1, sizeof *p->rels);
    int rc = p->rels ? GNNDB_OK : gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    p->nrels = p->rels ? (int)n : 0;
    for (size_t i = 0; i < n && !rc; i++) {
        plan_rel *r = &p->rels[i];
        char gname[CAT_NAME_MAX];
        snprintf(r->name, sizeof r->name, "%s", rs[i].name);
        r->src = rs[i].src_type;
        r->dst = rs[i].dst_type;
        rc = cat_relation_graph_name(p->graph.name, r->name, gname, e);
        if (!rc) rc = cat_graph_get(db->cat, gname, &r->topo, e);

    }
    free(rs);
    return rc;
}

/* The fanout maps: each names relations of the graph. */
static int load_fanouts(const ast_stmt *s, plan *p, gnn_err *e)
{
    for (int h = 0; h < s->nhops; h++)
        for (int k = 0; k < s->n_rels[h]; k++) {
            const char *name = s->rels[h][k].rel;
            int r = -1;
            for (int i = 0; i < p->nrels && r < 0; i++)
                if (!strcmp(p->rels[i].name, name)) r = i;
            if (r < 0)
                return gnn_seterr(e, GNNDB_NOTFOUND, "hop %d samples "
                                  "relation %s, which graph %s does not "
                                  "have", h + 1, name, p->graph.name);
            p->rels[r].fanout[h] = s->rels[h][k].fanout;
        }
    return GNNDB_OK;
}

/* SEEDS t.split, SEEDS t.ALL or SEEDS t (ids): the seeds' type, and their
** count. */
static int load_seed_type(gnndb *db, const ast_stmt *s, plan *p, gnn_err *e)
{
    if (!s->seeds_type)
        return gnn_seterr(e, GNNDB_ERROR, "a SAMPLE of typed graph %s needs "
                          "SEEDS type.split, SEEDS type.ALL or SEEDS type "
                          "(ids)", p->graph.name);
    p->seed_type = type_index(p, s->seeds_type);
    if (p->seed_type < 0)
        return gnn_seterr(e, GNNDB_NOTFOUND, "graph %s has no node type %s",
                          p->graph.name, s->seeds_type);
    p->seeds_kind = s->seeds_kind;
    if (s->seeds_kind == AST_SEEDS_LIST || s->seeds_kind == AST_SEEDS_ORDERED) {
        p->n_seed_list = s->n_seed_ids;
        p->seed_list = malloc((s->n_seed_ids + 1) * sizeof(int64_t));
        if (!p->seed_list) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        memcpy(p->seed_list, s->seed_ids, s->n_seed_ids * sizeof(int64_t));
        p->nseeds = (int64_t)s->n_seed_ids;
        return GNNDB_OK;
    }
    if (s->seeds_kind != AST_SEEDS_SPLIT) {
        p->nseeds = p->types[p->seed_type].count;
        return GNNDB_OK;
    }
    char stored[CAT_NAME_MAX];
    if (cat_type_object_name(s->seeds_type, s->seeds_split, stored, e) ||
        cat_node_split_get(db->cat, &p->graph, stored, "", &p->split, e))
        return e->rc;
    p->nseeds = p->split.count;
    return GNNDB_OK;
}

/* The hops (bit h for hop h + 1) at which relation `rel` is sampled while
** the hop before reached no node of its targets' type, so that it samples
** nothing there (a hop starts from the nodes the one before reached first:
** the seeds at hop 1); *named: the hops whose map names it. A hop reaches
** the sources of the relations it samples into its frontier's types. */
static unsigned unreached_hops(const plan *p, int nhops, int rel,
                               unsigned *named)
{
    uint64_t reached = 1ull << p->seed_type, next;
    unsigned hops = 0;
    *named = 0;
    for (int h = 0; h < nhops; h++) {
        next = 0;
        if (p->rels[rel].fanout[h]) *named |= 1u << h;
        for (int r = 0; r < p->nrels; r++) {
            if (!p->rels[r].fanout[h]) continue;
            if (reached >> p->rels[r].dst & 1) next |= 1ull << p->rels[r].src;
            else if (r == rel) hops |= 1u << h;
        }
        reached = next;
    }
    return hops;
}

/* A relation that samples nothing at a hop is EXPLAIN's warning (the
** note): the first such hop, and the first such relation there in the
** graph's order. One that samples nothing at every hop its maps name, whose
** targets are never reached, is under PRAGMA strict taken for the mistake
** it almost always is, and every form of the SAMPLE that would run is
** refused here, the one place; plain EXPLAIN still explains the plan, its
** warning saying strict refuses it. A map repeated over hops (`{...} * k`,
** as PyG's num_neighbors) naming a relation that only later hops reach is
** warned of, not refused. The refusal names every hop the relation must
** leave. */
static int note_unreached(gnndb *db, const ast_stmt *s, plan *p, gnn_err *e)
{
    int r = -1, first = AST_MAX_HOPS, never = -1;
    unsigned hops = 0, nhops = 0;
    for (int i = 0; i < p->nrels; i++) {
        unsigned named, m = unreached_hops(p, s->nhops, i, &named);
        if (m && __builtin_ctz(m) < first) {
            r = i;
            hops = m;
            first = __builtin_ctz(m);
        }
        if (m && m == named && never < 0) {
            never = i;
            nhops = m;
        }
    }
    if (r < 0) return GNNDB_OK;
    const char *rel = p->rels[r].name, *dst = p->types[p->rels[r].dst].name;
    if (db->pragma.strict && never >= 0 && s->explain != 1) {
        r = never;
        hops = nhops;
        first = __builtin_ctz(nhops);
        rel = p->rels[r].name;
        dst = p->types[p->rels[r].dst].name;
        char list[4 * AST_MAX_HOPS] = "";
        size_t n = 0;
        for (int h = 0; h < s->nhops; h++)
            if (hops >> h & 1)
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%d",
                                      n ? ", " : "", h + 1);
        return gnn_seterr(e, GNNDB_ERROR, "PRAGMA strict: relation %s would "
                          "sample nothing: its targets (%s) are never among "
                          "the nodes a hop naming it starts from; drop %s "
                          "from the map of hop%s %s (a list of maps, [{...}, "
                          "{...}], lets hops differ) or set PRAGMA strict = "
                          "off", rel, dst, rel, hops & (hops - 1) ? "s" : "",
                          list);
    }
    snprintf(p->note, sizeof p->note, "warning: hop %d samples relation "
             "%.60s, whose targets (%.60s) are not among the nodes it starts "
             "from%s", first + 1, rel, dst,
             db->pragma.strict && never >= 0
                 ? "; PRAGMA strict refuses to run it" : "");
    return GNNDB_OK;
}

/* Whether relation r is sampled at any of nhops hops. */
static int rel_sampled(int nhops, const plan_rel *r)
{
    for (int h = 0; h < nhops; h++)
        if (r->fanout[h]) return 1;
    return 0;
}

/* Relation r's table w, where r or the reverse it shares input edges with
** has one (*found 0 where neither does): gathered as float32. */
static int rel_edge_table(gnndb *db, const plan *p, plan_rel *r,
                          const char *w, int *found, gnn_err *e)
{
    gnn_err e2 = {0};
    int rc = cat_relation_edge_table(db->cat, p->graph.id, r->name, w,
                                     &r->efeat, &e2);
    *found = rc == GNNDB_OK;
    if (rc == GNNDB_NOTFOUND) return GNNDB_OK;
    if (rc) return gnn_seterr(e, rc, "%s", e2.msg);
    if (r->efeat.dtype != BLK_DTYPE_F32 && r->efeat.dtype != BLK_DTYPE_F16)
        return gnn_seterr(e, GNNDB_ERROR, "edge feature table %s of relation "
                          "%s is stored as %s; SAMPLE gathers float32 and "
                          "float16 tables only", w, r->name,
                          blk_dtype_name(r->efeat.dtype));
    return GNNDB_OK;
}

/* EDGE FEATURES w on a typed graph: each relation the SAMPLE samples
** reads its edge-id topology, so each edge carries its input id (e_id);
** edge_attr comes from w where the relation has it, and at least one
** sampled relation must. */
static int typed_edge_features(gnndb *db, const ast_stmt *s, plan *p,
                               gnn_err *e)
{
    if (!s->edge_features) return GNNDB_OK;
    int any = 0;
    for (int i = 0; i < p->nrels; i++) {
        plan_rel *r = &p->rels[i];
        if (!rel_sampled(s->nhops, r)) continue;
        int found, rc;
        char what[CAT_NAME_MAX + 64];
        snprintf(what, sizeof what, "EDGE FEATURES (relation %s)", r->name);
        if ((rc = cat_graph_eid_view(&r->topo, what, &r->topo, e)) ||
            (rc = rel_edge_table(db, p, r, s->edge_features, &found, e)))
            return rc;
        r->has_efeat = found;
        any |= found;
    }
    if (!any)
        return gnn_seterr(e, GNNDB_NOTFOUND, "no relation this SAMPLE of "
                          "graph %s samples has an edge feature table %s "
                          "(IMPORT EDGE FEATURES %s INTO %s.<relation>)",
                          p->graph.name, s->edge_features, s->edge_features,
                          p->graph.name);
    p->eids = 1;
    p->typed_efeat = 1;
    return GNNDB_OK;
}

int plan_typed(gnndb *db, const ast_stmt *s, plan *p, gnn_err *e)
{
    if (!s->typed)
        return gnn_seterr(e, GNNDB_MISUSE, "graph %s is typed: give each hop "
                          "a map of relation fanouts, e.g. SAMPLE {r: 10} * 2",
                          p->graph.name);
    if (s->edge_seeds)
        return gnn_seterr(e, GNNDB_ERROR, "EDGES on typed graph %s is not "
                          "available yet (link batches are of one relation "
                          "over one node type)", p->graph.name);
    p->typed = 1;
    int rc;
    if ((rc = load_types(db, s, p, e)) || (rc = load_rels(db, p, e)) ||
        (rc = load_fanouts(s, p, e)) || (rc = load_seed_type(db, s, p, e)))
        return rc;
    for (int r = 0; r < p->nrels; r++)
        if ((rc = add_hist(db, p, &p->rels[r], e))) return rc;
    if (p->ntypes > 64)
        return gnn_seterr(e, GNNDB_RANGE, "graph %s has %d node types; a "
                          "typed SAMPLE takes at most 64", p->graph.name,
                          p->ntypes);
    if ((rc = note_unreached(db, s, p, e)) ||
        (rc = typed_edge_features(db, s, p, e)))
        return rc;
    p->nseeds_all = p->nseeds;
    plan_type *st = &p->types[p->seed_type];
    p->has_labels = st->has_labels;
    if (p->has_labels) p->labels = st->labels;
    for (int i = 0; i < p->ntypes; i++)
        if (p->types[i].has_feat && p->types[i].feat.dim > p->typed_xdim)
            p->typed_xdim = p->types[i].feat.dim;
    /* the relations stand for the topology in what reads one: the graph
    ** pool's frames fit the largest of their blocks (not the typed graph's
    ** own size, only their default: 1MB frames for 4KB blocks left a pool
    ** of four frames), and the blocks of all of them are summed */
    p->topo = p->graph;
    p->topo.graph_blocks = 0;
    p->topo.block_size = 0;
    for (int r = 0; r < p->nrels; r++) {
        const cat_graph *g = &p->rels[r].topo;
        p->topo.graph_blocks += g->graph_blocks;
        if (g->block_size > p->topo.block_size)
            p->topo.block_size = g->block_size;
    }
    /* the bounds of a -1 fanout (plan.c) take the most neighbours one node
    ** can have, its in-lists of every relation into its type together: the
    ** typed graph's own row has no degrees (they were bounded by 1) */
    p->graph.max_degree = 0;
    for (int t = 0; t < p->ntypes; t++) {
        int64_t sum = 0;
        for (int r = 0; r < p->nrels; r++)
            if (p->rels[r].dst == t) sum += p->rels[r].topo.max_degree;
        p->graph.max_degree = GNN_MAX(p->graph.max_degree, sum);
    }
    if (!p->topo.block_size) p->topo.block_size = p->graph.block_size;
    p->graph.block_size = p->topo.block_size;
    if (s->part_count > 0) {
        p->part_rank = s->part_rank;
        p->part_count = s->part_count;
    }
    return GNNDB_OK;
}

/* The estimates of a typed plan come from plan.c's model of one graph:
** its histogram is the relations' summed (add_hist), and its fanout at a
** hop is the most edges one node can take in it, over the types (the sum
** of the fanouts of the relations into the type; -1 when one takes all).
** A relation whose targets a hop does not start from was noted by plan_typed
** (note_unreached): it counts here all the same, as it did. */
void plan_typed_estimate(plan *p)
{
    for (int h = 0; h < p->nhops; h++) {
        int most = 0, all = 0;
        for (int t = 0; t < p->ntypes; t++) {
            int sum = 0;
            for (int r = 0; r < p->nrels; r++) {
                int f = p->rels[r].fanout[h];
                if (p->rels[r].dst != t || !f) continue;
                if (f < 0) all = 1;
                else sum += f;
            }
            most = GNN_MAX(most, sum);
        }
        p->fanouts[h] = all ? -1 : GNN_MAX(1, GNN_MIN(most, 1000));
    }
}
