/* hb_typed.c — the executor's side of a typed SAMPLE. A typed graph keeps
** one global id space (type t owns [first, first + count)), so a typed
** mini-batch is a homogeneous one whose hops go relation by relation: for
** each relation sampled at hop h, the hop machinery (hop.c) runs over the
** frontier nodes of the relation's target type through the relation's own
** topology, and tags the edges it appends with the relation. At the end
** each node gets its rank within its type, and the outputs are cut per
** type (n_id local to the type, x from the type's table, y on the seeds'
** type) and per relation (edge_index into the two types' n_id). */
#include "grow.h"
#include "hb_typed.h"
#include "hb_variant.h"
#include "hop.h"
#include "spill.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Feature files of the types: buffer-pool file ids from here up; the
** relations' edge feature tables after them. */
/* A typed SAMPLE takes at most HB_MAX_TYPES node types (plan_typed.c). */
#define HB_MAX_TYPES 64
#define TYPED_FILE_ID 64
#define TYPED_EFEAT_ID (TYPED_FILE_ID + HB_MAX_TYPES)

static int hb_typed_open(hb_ctx *x, gnn_err *e)
{
    plan *p = x->p;
    x->rt = calloc((size_t)p->nrels + 1, sizeof *x->rt);
    if (!x->rt) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    for (int r = 0; r < p->nrels; r++) {
        hb_rel_topo *t = &x->rt[r];
        int rc = hb_topo_open(x->db, p, &p->rels[r].topo, 16 + r, t, e);
        if (rc) return rc;
        if (p->rels[r].has_efeat &&
            (rc = db_open_table(x->db, &p->rels[r].efeat, TYPED_EFEAT_ID + r,
                                &t->ef, e)))
            return rc;
    }
    x->tf = calloc((size_t)p->ntypes + 1, sizeof *x->tf);
    if (!x->tf) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    for (int t = 0; t < p->ntypes; t++)
        if (p->types[t].has_feat) {
            int rc = db_open_table(x->db, &p->types[t].feat,
                                   TYPED_FILE_ID + t, &x->tf[t], e);
            if (rc) return rc;
        }
    x->gtopo = p->nrels ? &x->rt[0] : &x->topo;
    return GNNDB_OK;
}

static void hb_typed_close(hb_ctx *x)
{
    if (!x->rt) return;
    for (int r = 0; r < x->p->nrels; r++) hb_topo_close(&x->rt[r]);
    free(x->rt);
    x->rt = NULL;
    x->gtopo = &x->topo;   /* it pointed at a relation's */
    for (int t = 0; x->tf && t < x->p->ntypes; t++)
        if (x->tf[t]) blkf_close(x->tf[t]);
    free(x->tf);
    x->tf = NULL;
}

/* SEEDS t (ids): ids local to type t, made global and loaded as a list
** (seeds.c: sorted, or as listed with IN ORDER). */
static int typed_list(hb_ctx *x, const plan_type *t, seed_set *s,
                      gnn_err *e)
{
    const plan *p = x->p;
    int64_t *g = malloc((p->n_seed_list + 1) * sizeof *g);
    if (!g) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    for (size_t i = 0; i < p->n_seed_list; i++) {
        if (p->seed_list[i] < 0 || p->seed_list[i] >= t->count) {
            int64_t bad = p->seed_list[i];
            free(g);
            return gnn_seterr(e, GNNDB_NOTFOUND, "seed node %" PRId64 " is "
                              "not a %s node (0..%lld)", bad, t->name,
                              (long long)t->count - 1);
        }
        g[i] = p->seed_list[i] + t->first;
    }
    int rc = seeds_load(x->db, &p->graph, p->seeds_kind, 0, g,
                        p->n_seed_list, "", s, e);
    free(g);
    return rc;
}

static int hb_typed_seeds(hb_ctx *x, gnn_err *e)
{
    plan *p = x->p;
    const plan_type *t = &p->types[p->seed_type];
    seed_set *s = &x->seeds;
    if (p->seeds_kind == AST_SEEDS_SPLIT) {
        int rc = seeds_load(x->db, &p->graph, AST_SEEDS_SPLIT, p->split.token,
                            NULL, 0, "", s, e);
        if (rc) return rc;
        for (int64_t i = 0; i < s->n; i++) {
            if (s->ids[i] >= (uint64_t)t->count)
                return gnn_seterr(e, GNNDB_CORRUPT, "split %s names node %u "
                                  "beyond type %s's %lld", p->split.name,
                                  s->ids[i], t->name, (long long)t->count);
            s->ids[i] += (uint32_t)t->first;
        }
        return GNNDB_OK;
    }
    if (p->seeds_kind == AST_SEEDS_LIST || p->seeds_kind == AST_SEEDS_ORDERED)
        return typed_list(x, t, s, e);
    s->n = t->count;
    if (!(s->ids = malloc(((size_t)s->n + 1) * sizeof *s->ids)))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    for (int64_t i = 0; i < s->n; i++) s->ids[i] = (uint32_t)(t->first + i);
    return GNNDB_OK;
}

static int hb_typed_hop(hb_ctx *x, int hop, gnn_err *e)
{
    const plan *p = x->p;
    for (int i = 0; i < x->nb; i++) x->hb[i].hop_end = x->hb[i].nn;
    for (int r = 0; r < p->nrels; r++) {
        if (!p->rels[r].fanout[hop]) continue;
        x->gtopo = &x->rt[r];
        int rc = hb_hop_pass(x, hop, r, e);
        if (rc) return rc;
    }
    for (int i = 0; i < x->nb; i++) {
        hb_batch *b = &x->hb[i];
        size_t before = 0;
        for (int h = 0; h < hop; h++) before += (size_t)b->nse[h];
        b->nsn[hop + 1] = (int64_t)(b->nn - b->hop_end);
        b->nse[hop] = (int64_t)(b->ne - before);
        b->frontier_lo = b->hop_end;
    }
    return GNNDB_OK;
}

/* The type of global id g (types are in ascending ranges). */
static int type_of(const plan *p, uint64_t g)
{
    int lo = 0, hi = p->ntypes - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if ((uint64_t)p->types[mid].first <= g) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* b's type and relation views, allocated once a slot; 0 without memory. */
static int have_views(const plan *p, hb_batch *b)
{
    if (!b->tviews)
        b->tviews = calloc((size_t)p->ntypes + 1, sizeof *b->tviews);
    if (!b->rviews)
        b->rviews = calloc((size_t)p->nrels + 1, sizeof *b->rviews);
    return b->tviews && b->rviews;
}

int hb_typed_layout(const plan *p, hb_batch *b, gnn_err *e)
{
    if (!have_views(p, b) ||
        gnn_grow((void **)&b->trank, &b->captrank, b->nn + 1, sizeof *b->trank))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    for (int t = 0; t < p->ntypes; t++) b->tviews[t].num_nodes = 0;
    for (size_t q = 0; q < b->nn; q++)
        b->trank[q] = (uint32_t)b->tviews[type_of(p, b->nodes[q])].num_nodes++;
    return GNNDB_OK;
}

void hb_typed_bind_x(const plan *p, hb_batch *b, float *t_x)
{
    size_t off = 0;
    for (int t = 0; t < p->ntypes; t++) {
        gnndb_type_view *v = &b->tviews[t];
        int has = p->types[t].has_feat && t_x;
        v->x = has ? t_x + off : NULL;
        v->x_dim = has ? p->types[t].feat.dim : 0;
        if (has) off += (size_t)v->num_nodes * (size_t)v->x_dim;
    }
}

void hb_typed_bind_eattr(const plan *p, hb_batch *b, float *t_eattr)
{
    size_t off = 0;
    for (int r = 0; r < p->nrels; r++) {
        gnndb_rel_view *v = &b->rviews[r];
        int has = p->rels[r].has_efeat && t_eattr;
        v->edge_attr = has ? t_eattr + off : NULL;
        v->edge_attr_dim = has ? p->rels[r].efeat.dim : 0;
        if (has) off += (size_t)v->num_edges * (size_t)v->edge_attr_dim;
    }
}

static int64_t sum_counts(const int64_t *c, size_t n)
{
    int64_t s = 0;
    for (size_t i = 0; i < n; i++) s += c[i];
    return s;
}

/* Point b's type and relation views (allocated here once a slot) into
** `out`, laid out as plan_typed_words says, whose counts are filled, and
** into t_x (each type's rows, in type order; NULL: none yet); y on the
** seeds' type. b->nn, b->ne, b->nseeds and b->y must be b's. A spilled
** batch read back is bound in its read buffer this way. */
static int typed_bind(const plan *p, hb_batch *b, int64_t *out, float *t_x,
                      gnn_err *e)
{
    if (!have_views(p, b)) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    size_t H = (size_t)p->nhops, off = 0;
    int64_t *nsn = out + b->nn;
    for (int t = 0; t < p->ntypes; t++) {
        gnndb_type_view *v = &b->tviews[t];
        v->name = p->types[t].name;
        v->num_sampled_nodes = nsn + (size_t)t * (H + 1);
        v->num_nodes = sum_counts(v->num_sampled_nodes, H + 1);
        v->n_id = out + off;
        off += (size_t)v->num_nodes;
        v->y = NULL;
        v->num_seeds = 0;
    }
    hb_typed_bind_x(p, b, t_x);
    gnndb_type_view *sv = &b->tviews[p->seed_type];
    sv->num_seeds = b->nseeds;
    sv->y = p->has_labels ? b->y : NULL;
    int64_t *ei = nsn + (size_t)p->ntypes * (H + 1), *nse = ei + 2 * b->ne;
    int64_t *eid = nse + (size_t)p->nrels * H;
    off = 0;
    for (int r = 0; r < p->nrels; r++) {
        gnndb_rel_view *v = &b->rviews[r];
        v->name = p->rels[r].name;
        v->src_type = p->rels[r].src;
        v->dst_type = p->rels[r].dst;
        v->num_sampled_edges = nse + (size_t)r * H;
        v->num_edges = sum_counts(v->num_sampled_edges, H);
        v->edge_index = ei + 2 * off;
        v->e_id = p->eids ? eid + off : NULL;
        off += (size_t)v->num_edges;
    }
    hb_typed_bind_eattr(p, b, b->t_eattr);
    gnndb_batch_view *bv = &b->view;
    bv->num_node_types = p->ntypes;
    bv->num_relations = p->nrels;
    bv->types = b->tviews;
    bv->rels = b->rviews;
    return GNNDB_OK;
}

/* The counts hb_typed_bind reads: per type the nodes first reached at
** each hop, per relation the edges each hop added. */
static void count_outputs(const plan *p, const hb_batch *b, int64_t *out)
{
    size_t H = (size_t)p->nhops, q = 0, k = 0;
    int64_t *nsn = out + b->nn;
    int64_t *nse = nsn + (size_t)p->ntypes * (H + 1) + 2 * b->ne;
    memset(nsn, 0, (size_t)p->ntypes * (H + 1) * sizeof *nsn);
    memset(nse, 0, (size_t)p->nrels * H * sizeof *nse);
    for (size_t h = 0; h <= H; h++)
        for (int64_t j = 0; j < b->nsn[h]; j++, q++)
            nsn[(size_t)type_of(p, b->nodes[q]) * (H + 1) + h]++;
    for (size_t h = 0; h < H; h++)
        for (int64_t j = 0; j < b->nse[h]; j++, k++)
            nse[(size_t)b->etype[k] * H + h]++;
}

/* Fill the bound views: each type's n_id (local to the type, by rank),
** each relation's edge_index (source ranks in its source type, then
** target ranks in its target type), edges in the order they were added. */
static int fill_outputs(const plan *p, hb_batch *b, gnn_err *e)
{
    for (size_t q = 0; q < b->nn; q++) {
        int t = type_of(p, b->nodes[q]);
        ((int64_t *)(uintptr_t)b->tviews[t].n_id)[b->trank[q]] =
            (int64_t)(b->nodes[q] - (uint64_t)p->types[t].first);
    }
    size_t *cnt = calloc((size_t)p->nrels + 1, sizeof *cnt);
    if (!cnt)
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory finishing batches");
    for (size_t k = 0; k < b->ne; k++) {
        gnndb_rel_view *v = &b->rviews[b->etype[k]];
        int64_t *e2 = (int64_t *)(uintptr_t)v->edge_index;
        size_t c = cnt[b->etype[k]]++;
        e2[c] = b->trank[b->esrc[k]];
        e2[(size_t)v->num_edges + c] = b->trank[b->edst[k]];
        if (v->e_id) ((int64_t *)(uintptr_t)v->e_id)[c] = b->eid[k];
    }
    free(cnt);
    return GNNDB_OK;
}

static int hb_typed_finish(hb_ctx *x, hb_batch *b, gnn_err *e)
{
    const plan *p = x->p;
    int rc;
    if (gnn_grow((void **)&b->t_out, &b->cap_t_out,
                plan_typed_words(p, b->nn, b->ne) + 1, sizeof *b->t_out))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory finishing batches");
    count_outputs(p, b, b->t_out);
    rc = typed_bind(p, b, b->t_out, b->t_x, e);
    return rc ? rc : fill_outputs(p, b, e);
}

/* A spilled typed batch's outputs go in its run after its e_id. */
static int typed_spill(const plan *p, const hb_batch *b, hb_sbatch *s,
                       gnn_err *e)
{
    return spill_run_append(s->run, b->t_out,
                            plan_typed_words(p, b->nn, b->ne) * 8, e);
}

/* A typed batch read back: its views bound in the read buffer. */
static int typed_bind_run(const plan *p, hb_batch *b, const hb_sbatch *s,
                          unsigned char *buf, float *rows, float *erows,
                          gnn_err *e)
{
    int64_t *out = (int64_t *)(buf + hbs_off_typed(p, s->nn, s->ne));
    /* the read buffer's, not the slot's own (the view owns no arrays) */
    b->t_eattr = erows;
    return typed_bind(p, b, out, rows, e);
}

const hb_variant hb_variant_typed = {
    .name = "typed",
    .open = hb_typed_open,
    .close = hb_typed_close,
    .load_seeds = hb_typed_seeds,
    .hop = hb_typed_hop,
    .gather = hb_typed_gather,
    .layout = hb_typed_layout,
    .finish = hb_typed_finish,
    .spill = typed_spill,
    .bind = typed_bind_run,
};
