/* hb_link.c — the executor's side of an edge-seeded SAMPLE: loading the
** seed edges (their ids order the epochs as node ids do, so SHUFFLE,
** PARTITION and the hyperbatch need nothing new), starting each mini-batch
** from its positives' and negatives' endpoints, and finishing its link
** fields. The rules themselves are link.c's. */
#include "grow.h"
#include "sort.h"
#include "exec_int.h"
#include "hb_variant.h"
#include "hop.h"
#include "hop_temporal.h"
#include "hb_times.h"
#include "edge_split.h"
#include "edge_table.h"

#include <stdlib.h>
#include <string.h>

/* The link variant's run-long state:
** what the negatives and EXCLUDE follow, the seed edges with their
** endpoints, and the bits of EXCLUDE SPLIT's edges. */
struct hb_link {
    lk_spec spec;
    lk_seeds seeds;
    uint64_t *excluded;
    uint32_t *by_time;       /* node times for the negatives (lk_by_time) */
    int64_t *times;
    /* each seed edge's time by its place in seeds (ascending edge id):
    ** AT TIMES' file (the plan's), or read as the run starts (own_t); NULL
    ** when each round reads its own from the time graph the hops read */
    const int64_t *seed_t;
    int64_t *own_t;
};

/* Seed edges on a graph with node times: every node's time, and the
** nodes in time order, for the negatives. */
static int load_by_time(hb_ctx *x, gnn_err *e)
{
    struct hb_link *l = x->link;
    int rc = hb_tm_every_node_time(x, &l->times, e);
    if (!rc) rc = lk_by_time(l->times, (size_t)x->p->graph.nodes,
                             &l->by_time, e);
    l->spec.by_time = l->by_time;
    l->spec.times = l->times;
    return rc;
}

/* EXCLUDE SPLIT: a bit per input edge of every excluded split. */
static int load_excluded(hb_ctx *x, gnn_err *e)
{
    plan *p = x->p;
    if (!p->nexclude) return GNNDB_OK;
    uint64_t nbits = (uint64_t)p->graph.input_edges;
    x->link->excluded = calloc(nbits / 64 + 1, 8);
    if (!x->link->excluded)
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory for EXCLUDE SPLIT");
    for (size_t i = 0; i < p->nexclude; i++) {
        uint64_t *ids;
        size_t n;
        int rc = edge_split_load(x->db, &p->graph, p->exclude[i].name, &ids,
                                 &n, e);
        if (rc) return rc;
        for (size_t k = 0; k < n; k++)
            if (ids[k] < nbits) x->link->excluded[ids[k] >> 6] |= 1ull << (ids[k] & 63);
        free(ids);
    }
    x->link->spec.excluded = x->link->excluded;
    x->link->spec.nexcluded = nbits;
    return GNNDB_OK;
}

/* The seed edges: ids (as the seed set orders them) and endpoints. */
static int load_edges(hb_ctx *x, gnn_err *e)
{
    plan *p = x->p;
    lk_seeds *sd = &x->link->seeds;
    uint64_t *ids;
    size_t n;
    int rc = edge_split_load(x->db, &p->graph, p->edge_split.name, &ids, &n,
                             e);
    if (rc) return rc;
    sd->src = malloc((n + 1) * 4);
    sd->dst = malloc((n + 1) * 4);
    x->seeds.ids = malloc((n + 1) * 4);
    /* the seed set orders the ids; the endpoints are looked up by them */
    sd->eid = x->seeds.ids;
    if (!sd->src || !sd->dst || !x->seeds.ids) {
        free(ids);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory loading %zu seed "
                          "edges", n);
    }
    rc = edt_endpoints(x->db, &p->graph, ids, n, sd->src, sd->dst, e);
    for (size_t i = 0; i < n && !rc; i++) {
        if (sd->src[i] == UINT32_MAX || ids[i] >= UINT32_MAX)
            rc = gnn_seterr(e, GNNDB_CORRUPT, "edge split %s names edge %llu, "
                            "which graph %s does not store",
                            p->edge_split.name, (unsigned long long)ids[i],
                            p->graph.name);
        x->seeds.ids[i] = (uint32_t)ids[i];
    }
    free(ids);
    sd->n = n;
    x->seeds.n = (int64_t)n;
    return rc;
}

/* The seed edges' times where a round cannot read them from the lists
** its hops read: AT TIMES' (in the order of the split's edge ids, as
** the seeds are), or AT EDGE TIME BY NODE TIME's, from the time graph. */
static int load_seed_times(hb_ctx *x, gnn_err *e)
{
    const plan *p = x->p;
    struct hb_link *l = x->link;
    size_t n = l->seeds.n;
    if (p->time_source == AST_TIME_FILE) {
        /* the split may have changed since the statement was prepared */
        if (p->n_seed_times != n)
            return gnn_seterr(e, GNNDB_RANGE, "AT TIMES: %zu times for %zu "
                              "seed edges of edge split %s", p->n_seed_times,
                              n, p->edge_split.name);
        l->seed_t = p->seed_times;
        return GNNDB_OK;
    }
    if (!p->seed_edge_times) return GNNDB_OK;
    if (!(l->own_t = malloc((n + 1) * sizeof *l->own_t)))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory for the seed edges' "
                          "times");
    l->seed_t = l->own_t;
    return hb_tm_seed_times(x, &p->time_graph, l->seeds.src, l->seeds.dst,
                            l->seeds.eid, n, l->own_t, e);
}

static int link_seeds(hb_ctx *x, gnn_err *e)
{
    plan *p = x->p;
    lk_spec *sp = &x->link->spec;
    sp->mode = p->neg_mode;
    sp->k = p->negative;
    sp->strict = p->neg_strict;
    sp->exclude_seeds = p->exclude_seeds;
    sp->seed = p->seed;
    sp->nodes = (uint32_t)p->graph.nodes;
    sp->disjoint = p->temporal;
    if (sp->k && p->graph.nodes < 1)
        return gnn_seterr(e, GNNDB_RANGE, "graph %s has no nodes to draw "
                          "negatives from", p->graph.name);
    int rc = load_edges(x, e);
    if (!rc) rc = load_excluded(x, e);
    if (!rc && p->temporal) rc = load_seed_times(x, e);
    if (!rc && p->neg_by_time) rc = load_by_time(x, e);
    return rc;
}

static void link_close(hb_ctx *x)
{
    hb_node_close(x);
    if (!x->link) return;
    lk_seeds_free(&x->link->seeds);
    free(x->link->excluded);
    free(x->link->by_time);
    free(x->link->times);
    free(x->link->own_t);
    free(x->link);
    x->link = NULL;
}

/* STRICT over the round's mini-batches: redraw negatives that are edges. */
static int strict_round(hb_ctx *x, gnn_err *e)
{
    lk_batch **bs = malloc(((size_t)x->nb + 1) * sizeof *bs);
    int64_t *ep = malloc(((size_t)x->nb + 1) * 16);
    int rc = GNNDB_OK;
    if (!bs || !ep) {
        rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory checking negatives");
    } else {
        int64_t *bn = ep + x->nb;
        for (int i = 0; i < x->nb; i++) {
            bs[i] = &x->hb[i].lk;
            ep[i] = x->hb[i].epoch;
            bn[i] = x->hb[i].batch;
        }
        const hb_rel_topo *t = x->gtopo;
        lk_graph g = {x->gpool, t->f, t->idx_first, t->idx_block, t->nidx,
                      t->nblocks};
        rc = lk_strict(&x->link->spec, &g, bs, ep, bn, (size_t)x->nb, e);
    }
    free(bs);
    free(ep);
    return rc;
}

/* The times of l's positives: by their places among the seeds where the
** run holds them, else read by id from the time graph the hops read. */
static int positive_times(hb_ctx *x, const lk_batch *l, int64_t *tpos,
                          gnn_err *e)
{
    const struct hb_link *k = x->link;
    if (!k->seed_t) {
        hb_tm_graph g = {NULL, x->gpool, x->gtopo};
        return hb_tm_edge_times(&g, l->psrc, l->pdst, l->peid, l->npos,
                                tpos, e);
    }
    for (size_t i = 0; i < l->npos; i++) {
        size_t at = gnn_lower_u32(k->seeds.eid, k->seeds.n, l->peid[i]);
        if (at == k->seeds.n || k->seeds.eid[at] != l->peid[i])
            return gnn_seterr(e, GNNDB_CORRUPT, "seed edge %u is not among "
                              "the split's edges", l->peid[i]);
        tpos[i] = k->seed_t[at];
    }
    return GNNDB_OK;
}

/* A time-respecting link batch: a tree per endpoint slot, each rooted at
** its seed edge's time (the roots in lk_roots' order); hop_temporal.c
** samples them. */
static int link_roots(hb_ctx *x, hb_batch *b, gnn_err *e)
{
    lk_batch *l = &b->lk;
    size_t n = lk_nroots(&x->link->spec, l);
    int64_t *tpos = malloc((l->npos + 1) * sizeof *tpos);
    if (!tpos ||
        gnn_grow((void **)&b->nodes, &b->capn, n + 1, sizeof *b->nodes) ||
        gnn_grow((void **)&b->o_time, &b->cap_o_time, n + 1,
                 sizeof *b->o_time)) {
        free(tpos);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    }
    int rc = positive_times(x, l, tpos, e);
    if (!rc && x->link->spec.by_time)
        rc = lk_time_negatives(&x->link->spec, b->epoch, b->batch, l, tpos,
                               e);
    if (!rc) {
        lk_roots(&x->link->spec, l, tpos, b->nodes, b->o_time);
        b->nn = n;
        b->nsn[0] = b->nseeds = (int64_t)n;
    }
    free(tpos);
    return rc;
}

static int link_start(hb_ctx *x, const uint32_t *order, gnn_err *e)
{
    plan *p = x->p;
    int rc;
    for (int i = 0; i < x->nb; i++) {
        hb_batch *b = &x->hb[i];
        int64_t lo = b->batch * p->batch;
        int64_t hi = GNN_MIN(lo + p->batch, p->nseeds);
        if ((rc = lk_batch_fill(&x->link->spec, &x->link->seeds, order, lo, hi,
                                b->epoch, b->batch, &b->lk, e)))
            return rc;
    }
    if (x->link->spec.strict && x->link->spec.k && (rc = strict_round(x, e)))
        return rc;
    for (int i = 0; i < x->nb; i++) {
        hb_batch *b = &x->hb[i];
        if (x->link->spec.disjoint) {
            if ((rc = link_roots(x, b, e))) return rc;
            continue;
        }
        if ((rc = lk_endpoints(&b->lk, e))) return rc;
        if (hb_nmap_reset(&b->map, b->lk.nends, b->nodes, b->map.n))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        /* the endpoints ascending: each one's local index is its rank,
        ** which lk_finish relies on */
        for (size_t k = 0; k < b->lk.nends; k++) {
            uint32_t local;
            if (hb_add_node(b, b->lk.ends[k], &local))
                return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        }
        b->nsn[0] = (int64_t)b->nn;
        b->nseeds = (int64_t)b->nn;
    }
    return GNNDB_OK;
}

/* Point v's link fields at label arrays laid out as lk_finish lays them
** in `words`, for npos seed edges and nneg negatives. */
static void link_view(const plan *p, gnndb_batch_view *v, int64_t *words,
                      size_t npos, size_t nneg)
{
    if (p->neg_mode == AST_NEG_TRIPLET) {
        v->num_pos = (int64_t)npos;
        v->num_neg = p->negative;
        v->src_index = words;
        v->dst_pos_index = words + npos;
        v->dst_neg_index = words + 2 * npos;
    } else {
        size_t L = npos + nneg;
        v->num_label_edges = (int64_t)L;
        v->edge_label_index = words;
        v->edge_label = (const float *)(words + 2 * L);
    }
}

static int link_finish(hb_ctx *x, hb_batch *b, gnn_err *e)
{
    lk_batch *l = &b->lk;
    int rc = lk_finish(&x->link->spec, l, e);
    if (!rc) link_view(x->p, &b->view, l->label_index, l->npos, l->nneg);
    return rc;
}

/* The hops keep out what EXCLUDE drops (hop.c reads it through its state). */
static int link_open(hb_ctx *x, gnn_err *e)
{
    if (!(x->link = calloc(1, sizeof *x->link)))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    hb_hop_exclude(x, &x->link->spec);
    return hb_node_open(x, e);
}

/* A spilled link batch's label arrays stay in its record (a few words a
** seed edge), laid out as lk_finish left them. */
static int link_spill(const plan *p, const hb_batch *b, hb_sbatch *s,
                      gnn_err *e)
{
    size_t words = 3 * (b->lk.npos + b->lk.nneg) + 1;
    s->lk_words = malloc(words * sizeof *s->lk_words);
    if (!s->lk_words)
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory spilling");
    memcpy(s->lk_words, b->lk.label_index, words * sizeof *s->lk_words);
    s->npos = b->lk.npos;
    s->nneg = b->lk.nneg;
    return GNNDB_OK;
}

static int link_bind_run(const plan *p, hb_batch *b, const hb_sbatch *s,
                         unsigned char *buf, float *rows, float *erows,
                         gnn_err *e)
{
    link_view(p, &b->view, s->lk_words, s->npos, s->nneg);
    return GNNDB_OK;
}

const hb_variant hb_variant_link = {
    .name = "link",
    .open = link_open,
    .close = link_close,
    .load_seeds = link_seeds,
    .start = link_start,
    .hop = hb_node_hop,
    .gather = hb_node_gather,
    .finish = link_finish,
    .spill = link_spill,
    .bind = link_bind_run,
};
