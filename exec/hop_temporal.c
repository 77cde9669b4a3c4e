/* hop_temporal.c — the hops of a time-respecting SAMPLE, as PyG's temporal
** NeighborLoader defines them. Each seed roots a tree of its own (a node
** reached from two seeds is two nodes of the batch; within one tree a node
** is one node), and every hop of a tree compares edge times with the root
** seed's time T: an edge is eligible when its time is <= T (< T under
** BEFORE) and, with WINDOW w, > T - w. Each list of the time graph is
** sorted by time, so the eligible entries are one run of it, found by two
** binary searches; TEMPORAL LAST takes the last k of the run, TEMPORAL
** UNIFORM k of it drawn by sample_choose under a key of (SEED, epoch,
** batch, hop, root, node), so the batches are a function of the statement.
**
** The blocks are read from a resident round's pinned frames
** (hb_resident.c, one mini-batch a worker) or through the graph's buffer
** pool one at a time (hb_tm_round, the caller's thread): an entry past a
** node's first block is found by arithmetic, as hop_resident.c's far_nbr
** finds it, and copied out before its block is let go. */
#include "clock.h"
#include "grow.h"
#include "exec_int.h"
#include "hop_temporal.h"
#include "hb_times.h"
#include "link.h"
#include "hash.h"
#include "rng.h"
#include "sample.h"
#include "sort.h"
#include "bufpool.h"

#include <stdlib.h>
#include <string.h>

/* ---- seed times ---- */

/* The node times of nodes id[0..n) (ascending; NULL: the nodes 0..n-1)
** into t, from the graph's node times table read block by block: only the
** blocks holding them. */
static int load_node_times(hb_ctx *x, const uint32_t *id, size_t n,
                           int64_t *t, gnn_err *e)
{
    const cat_table *nt = &x->p->node_times;
    blk_file *f = NULL;
    int rc = db_open_table(x->db, nt, 0, &f, e);
    void *buf = rc ? NULL : gnn_alloc_aligned(nt->block_size);
    if (!rc && !buf) rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    uint32_t rpb = nt->rows_per_block;
#define NODE_AT(i) (id ? id[i] : (uint32_t)(i))
    for (size_t i = 0; !rc && i < n;) {
        uint64_t b = NODE_AT(i) / rpb;
        if ((rc = blkf_read(f, b, buf, e))) break;
        const blk_header *h = buf;
        if (h->dtype != BLK_DTYPE_I64 || h->first_node != b * rpb)
            rc = gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %llu of %s: "
                            "not the node times it should hold",
                            (unsigned long long)b, f->path);
        for (; !rc && i < n && NODE_AT(i) / rpb == b; i++) {
            uint32_t k = (uint32_t)(NODE_AT(i) - b * rpb);
            if (k >= h->count)
                rc = gnn_seterr(e, GNNDB_CORRUPT, "%s has no row %u: a node "
                                "past its rows", f->path, NODE_AT(i));
            else memcpy(&t[i], blk_feature_row(buf, k), 8);
        }
    }
#undef NODE_AT
    gnn_free_aligned(buf);
    if (f) blkf_close(f);
    return rc;
}

/* AT TIMES: seed i of the set as loaded has time i of the file; for IN
** ORDER (not ascending) the pairs are sorted by id. */
static int file_times(hb_ctx *x, hb_tm_times *tt, gnn_err *e)
{
    const plan *p = x->p;
    if (tt->n != p->n_seed_times)
        return gnn_seterr(e, GNNDB_RANGE, "AT TIMES: %zu times for %zu seeds",
                          p->n_seed_times, tt->n);
    uint64_t *k = malloc((tt->n + 1) * sizeof *k);
    if (!k) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    for (size_t i = 0; i < tt->n; i++)
        k[i] = ((uint64_t)x->seeds.ids[i] << 32) | i;
    gnn_sort_u64(k, tt->n);
    for (size_t i = 0; i < tt->n; i++) {
        tt->id[i] = (uint32_t)(k[i] >> 32);
        tt->t[i] = p->seed_times[(uint32_t)k[i]];
    }
    free(k);
    return GNNDB_OK;
}

int hb_tm_every_node_time(hb_ctx *x, int64_t **t, gnn_err *e)
{
    size_t n = (size_t)x->p->graph.nodes;
    if (!(*t = malloc((n + 1) * sizeof **t)))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory for the node times");
    return load_node_times(x, NULL, n, *t, e);
}

int hb_tm_open(hb_ctx *x, gnn_err *e)
{
    hb_tm_times *tt = calloc(1, sizeof *tt);
    if (!tt) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    x->tm = tt;
    int rc;
    if (x->p->time_by_node && (rc = hb_tm_every_node_time(x, &tt->ntime, e)))
        return rc;
    /* seed edges: each round's roots are timed as it starts (hb_link.c) */
    if (x->p->link) return GNNDB_OK;
    tt->n = (size_t)x->seeds.n;
    tt->id = malloc((tt->n + 1) * sizeof *tt->id);
    tt->t = malloc((tt->n + 1) * sizeof *tt->t);
    if (!tt->id || !tt->t)
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory for the seeds' "
                          "times");
    if (x->p->time_source == AST_TIME_FILE) return file_times(x, tt, e);
    for (size_t i = 0; i < tt->n; i++) tt->id[i] = x->seeds.ids[i];
    gnn_sort_u32(tt->id, tt->n);
    if (!tt->ntime) return load_node_times(x, tt->id, tt->n, tt->t, e);
    /* BY NODE TIME holds every node's already */
    for (size_t i = 0; i < tt->n; i++) tt->t[i] = tt->ntime[tt->id[i]];
    return GNNDB_OK;
}

void hb_tm_close(hb_ctx *x)
{
    if (!x->tm) return;
    free(x->tm->id);
    free(x->tm->t);
    free(x->tm->ntime);
    free(x->tm);
    x->tm = NULL;
}

int hb_tm_round(hb_ctx *x, gnn_err *e)
{
    const plan *p = x->p;
    hb_tm_graph g = {NULL, x->gpool, x->gtopo};
    bp_stats before = *bp_get_stats(x->gpool);
    double t0 = gnn_now();
    int rc = GNNDB_OK;
    for (int i = 0; i < x->nb && !rc; i++) {
        if (hb_halted(x))
            return gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
        rc = hb_tm_sample(&g, p, x->tm, &x->hb[i], e);
    }
    const bp_stats *after = bp_get_stats(x->gpool);
    hb_opstats *o = &x->st.hop[0];
    o->blocks_read += after->blocks_read - before.blocks_read;
    o->bytes_read += after->bytes_read - before.bytes_read;
    o->misses += after->misses - before.misses;
    o->seconds += gnn_now() - t0;
    for (int i = 0; i < x->nb && !rc; i++)
        for (int h = 0; h < p->nhops; h++) {
            x->st.hop[h].items += (uint64_t)x->hb[i].nsn[h];
            x->st.hop[h].edges += (uint64_t)x->hb[i].nse[h];
        }
    return rc;
}

/* The time of seed `node` (one of tt's). */
static int64_t tm_time_of(const hb_tm_times *tt, uint32_t node)
{
    size_t lo = 0, hi = tt->n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (tt->id[mid] <= node) lo = mid;
        else hi = mid;
    }
    return tt->t[lo];
}

/* ---- the map of one batch: (root, node) -> local index ---- */

typedef struct tm_map {
    uint64_t *key;           /* (root << 32 | node) + 1; 0: empty */
    uint32_t *val;
    size_t cap, n;
} tm_map;

static int tm_map_grow(tm_map *m)
{
    size_t cap = m->cap ? 2 * m->cap : 1024;
    uint64_t *k = calloc(cap, sizeof *k);
    uint32_t *v = malloc(cap * sizeof *v);
    if (!k || !v) {
        free(k);
        free(v);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->key[i]) continue;
        size_t h = gnn_hash_slot((uint32_t)(m->key[i] ^ (m->key[i] >> 29)),
                                 cap);
        while (k[h]) h = (h + 1) & (cap - 1);
        k[h] = m->key[i];
        v[h] = m->val[i];
    }
    free(m->key);
    free(m->val);
    m->key = k;
    m->val = v;
    m->cap = cap;
    return 0;
}

/* The local index of `node` in the tree of root r, appended to b (with its
** root) when new; -1 when out of memory. */
static int tm_add(tm_map *m, hb_batch *b, uint32_t r, uint32_t node,
                  uint32_t *local)
{
    if ((m->n + 1) * 2 > m->cap && tm_map_grow(m)) return -1;
    uint64_t key = (((uint64_t)r << 32) | node) + 1;
    size_t h = gnn_hash_slot((uint32_t)(key ^ (key >> 29)), m->cap);
    while (m->key[h]) {
        if (m->key[h] == key) {
            *local = m->val[h];
            return 0;
        }
        h = (h + 1) & (m->cap - 1);
    }
    if (gnn_grow((void **)&b->nodes, &b->capn, b->nn + 1, sizeof *b->nodes) ||
        gnn_grow((void **)&b->troot, &b->captroot, b->nn + 1,
                 sizeof *b->troot))
        return -1;
    *local = (uint32_t)b->nn;
    b->troot[b->nn] = r;
    b->nodes[b->nn++] = node;
    m->key[h] = key;
    m->val[h] = *local;
    m->n++;
    return 0;
}

/* ---- a node's list, in pinned blocks or through the pool ---- */

/* Block `no` of the time graph: a pinned frame of the resident round, or
** pinned now in the buffer pool (read when absent) until tm_put; -1 when
** the graph has no such block. */
static int tm_get(const hb_tm_graph *g, uint64_t no, const void **data,
                  gnn_err *e)
{
    if (g->rs) {
        if (no >= g->rs->n) return -1;
        *data = g->rs->data[no];
        return GNNDB_OK;
    }
    if (no >= g->t->nblocks) return -1;
    return bp_get(g->bp, g->t->f, no, data, e);
}

static void tm_put(const hb_tm_graph *g, uint64_t no)
{
    if (!g->rs) bp_unpin(g->bp, g->t->f, no);
}

/* What the hops keep of a node's list: its first object's place and
** sizes (the blocks are released between reads). With ntime (BY NODE
** TIME) it is one of the graph's own lists, ascending by neighbour, and an
** entry's time is its neighbour's node time. */
typedef struct tm_list {
    const hb_tm_graph *g;
    const int64_t *ntime;
    uint32_t node, degree, n0; /* n0: entries in its first block */
    uint64_t no;             /* its first block */
} tm_list;

/* One entry of a list, copied out of its block. */
typedef struct tm_ent {
    uint32_t nbr, eid;
    int64_t t;
} tm_ent;

static int tm_corrupt(const hb_tm_graph *g, uint64_t no, uint32_t node,
                      gnn_err *e)
{
    return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %llu of %s: node %u "
                      "is not where the index says", (unsigned long long)no,
                      g->t->f->path, node);
}

static int tm_find(const hb_tm_graph *g, const int64_t *ntime,
                   uint32_t node, tm_list *l, gnn_err *e)
{
    const hb_rel_topo *t = g->t;
    uint64_t no = idx_block_of(t->idx_first, t->idx_block, t->nidx, node);
    const void *data;
    int rc = tm_get(g, no, &data, e);
    if (rc < 0) return tm_corrupt(g, no, node, e);
    if (rc) return rc;
    const blk_node *o = blk_graph_find(data, node);
    const blk_header *h = data;
    int ok = o && o->start == 0 && (ntime || (h->flags & BLK_FLAG_TIMES));
    if (ok) *l = (tm_list){g, ntime, node, o->degree, o->n, no};
    tm_put(g, no);
    if (!ok) return tm_corrupt(g, no, node, e);
    return GNNDB_OK;
}

/* Entry q of the list, from its first block or a continuation block. */
static int tm_entry(const tm_list *l, uint32_t q, tm_ent *out, gnn_err *e)
{
    uint32_t cap = l->g->t->cont_cap, k = q < l->n0 ? 0 : q - l->n0;
    uint64_t no = q < l->n0 ? l->no : l->no + 1 + k / cap;
    const void *data;
    int rc = tm_get(l->g, no, &data, e);
    if (rc < 0) return tm_corrupt(l->g, no, l->node, e);
    if (rc) return rc;
    const blk_header *hd = data;
    const blk_node *o;
    uint32_t j;
    if (q < l->n0) {
        o = blk_graph_find(data, l->node);
        j = q;
    } else {
        o = hd->count && (hd->flags & BLK_FLAG_CONT_FIRST)
                ? blk_graph_object(hd, 0) : NULL;
        j = k % cap;
    }
    int ok = o && o->node == l->node && j < o->n &&
             (l->ntime || (hd->flags & BLK_FLAG_TIMES));
    if (ok) {
        uint32_t nbr = blk_node_nbrs(o)[j];
        *out = (tm_ent){nbr, blk_node_eids(o)[j],
                        l->ntime ? l->ntime[nbr] : blk_node_time(o, j)};
    }
    tm_put(l->g, no);
    return ok ? GNNDB_OK : tm_corrupt(l->g, no, l->node, e);
}

/* The first entry whose time is above `t` (strict 0) or at or above it
** (strict 1): with `t` the root's time, the end of what is at or before
** it (before it). */
static int tm_bound(const tm_list *l, int64_t t, int strict, uint32_t *at,
                    gnn_err *e)
{
    uint32_t lo = 0, hi = l->degree;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        tm_ent v;
        int rc = tm_entry(l, mid, &v, e);
        if (rc) return rc;
        if (strict ? v.t < t : v.t <= t) lo = mid + 1;
        else hi = mid;
    }
    *at = lo;
    return GNNDB_OK;
}

/* ---- the hops ---- */

typedef struct tm_hop {
    const hb_tm_graph *g;
    const plan *p;
    const int64_t *ntime;    /* BY NODE TIME: every node's time */
    tm_ent *ents;            /* BY NODE TIME: a node's eligible entries */
    size_t capents;
    const int64_t *rtime;    /* each root's time: b->o_time */
    hb_batch *b;
    tm_map m;
    uint32_t *pos;
    size_t cappos;
    uint32_t scratch[SAMPLE_SCRATCH];
} tm_hop;

static int tm_reserve(hb_batch *b, size_t more)
{
    size_t need = b->ne + more + 1;
    if (hb_reserve_edges(b, more) ||
        gnn_grow((void **)&b->eid, &b->capeid, need, sizeof *b->eid) ||
        gnn_grow((void **)&b->etime, &b->capetime, need, sizeof *b->etime))
        return -1;
    return 0;
}

/* Chosen entry v of frontier node i (of root r's tree) into b: its source
** in r's tree (added when new) and the edge, unless EXCLUDE drops it
** first. */
static int tm_take(tm_hop *h, size_t i, uint32_t r, const tm_ent *v,
                   gnn_err *e)
{
    hb_batch *b = h->b;
    uint32_t local;
    if (h->p->link && lk_excluded(b->lk.spec, &b->lk, v->eid))
        return GNNDB_OK;
    if (tm_add(&h->m, b, r, v->nbr, &local))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
    b->esrc[b->ne] = local;
    b->edst[b->ne] = (uint32_t)i;
    b->eid[b->ne] = v->eid;
    b->etime[b->ne++] = v->t;
    return GNNDB_OK;
}

/* Whether time t passes against root time T (BEFORE, WINDOW). */
static int tm_passes(const plan *p, int64_t t, int64_t T)
{
    if (p->time_strict ? !(t < T) : !(t <= T)) return 0;
    return p->time_window <= 0 || T < INT64_MIN + p->time_window ||
           t > T - p->time_window;
}

static int tm_ent_cmp(const void *a, const void *b)
{
    const tm_ent *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    if (x->nbr != y->nbr) return x->nbr < y->nbr ? -1 : 1;
    return (x->eid > y->eid) - (x->eid < y->eid);
}

/* BY NODE TIME: node i's list (ascending by neighbour) read whole, the
** entries whose source passes kept in list order; TEMPORAL LAST takes the
** k latest by (time, neighbour, edge id), in ascending time, UNIFORM k of
** them drawn under the key the edge-time hop uses. */
static int tm_node_by_node(tm_hop *h, const tm_list *l, size_t i, int fanout,
                           uint64_t khop, gnn_err *e)
{
    const plan *p = h->p;
    uint32_t r = h->b->troot[i], m = 0, n;
    int64_t T = h->rtime[r];
    if (gnn_grow((void **)&h->ents, &h->capents, (size_t)l->degree + 1,
                 sizeof *h->ents))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
    for (uint32_t q = 0; q < l->degree; q++) {
        int rc = tm_entry(l, q, &h->ents[m], e);
        if (rc) return rc;
        m += (uint32_t)tm_passes(p, h->ents[m].t, T);
    }
    uint32_t most = sample_max(m, fanout, p->replace);
    if (gnn_grow((void **)&h->pos, &h->cappos, most + 1, sizeof *h->pos) ||
        tm_reserve(h->b, most))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
    if (p->time_strategy == AST_TEMPORAL_LAST) {
        qsort(h->ents, m, sizeof *h->ents, tm_ent_cmp);
        n = fanout < 0 || (uint32_t)fanout > m ? m : (uint32_t)fanout;
        for (uint32_t j = 0; j < n; j++) h->pos[j] = m - n + j;
    } else {
        uint64_t key = rng_key_node(rng_mix(khop ^ (0x51ed27u + r)), l->node);
        n = sample_choose(key, m, fanout, p->replace, h->pos, h->scratch);
    }
    for (uint32_t j = 0; j < n; j++) {
        int rc = tm_take(h, i, r, &h->ents[h->pos[j]], e);
        if (rc) return rc;
    }
    return GNNDB_OK;
}

/* Frontier node i of b: its eligible entries [lo, hi), the chosen ones
** added with their edges. */
static int tm_node(tm_hop *h, size_t i, int fanout, uint64_t khop,
                   gnn_err *e)
{
    hb_batch *b = h->b;
    const plan *p = h->p;
    uint32_t node = b->nodes[i], r = b->troot[i];
    int64_t T = h->rtime[r];
    tm_list l;
    uint32_t lo = 0, hi;
    int rc = tm_find(h->g, h->ntime, node, &l, e);
    if (!rc && h->ntime) return tm_node_by_node(h, &l, i, fanout, khop, e);
    if (!rc) rc = tm_bound(&l, T, p->time_strict, &hi, e);
    /* WINDOW w keeps T - w < time: entries at or before T - w go */
    if (!rc && p->time_window > 0 && T >= INT64_MIN + p->time_window)
        rc = tm_bound(&l, T - p->time_window, 0, &lo, e);
    if (rc) return rc;
    if (lo > hi) lo = hi;
    uint32_t m = hi - lo, n;
    uint32_t most = sample_max(m, fanout, p->replace);
    if (gnn_grow((void **)&h->pos, &h->cappos, most + 1, sizeof *h->pos))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
    if (p->time_strategy == AST_TEMPORAL_LAST) {
        n = fanout < 0 || (uint32_t)fanout > m ? m : (uint32_t)fanout;
        for (uint32_t j = 0; j < n; j++) h->pos[j] = hi - n + j;
    } else {
        uint64_t key = rng_key_node(rng_mix(khop ^ (0x51ed27u + r)), node);
        n = sample_choose(key, m, fanout, p->replace, h->pos, h->scratch);
        for (uint32_t j = 0; j < n; j++) h->pos[j] += lo;
    }
    if (tm_reserve(b, n))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
    for (uint32_t j = 0; j < n; j++) {
        tm_ent v;
        if ((rc = tm_entry(&l, h->pos[j], &v, e)) ||
            (rc = tm_take(h, i, r, &v, e)))
            return rc;
    }
    return GNNDB_OK;
}

/* The time of edge `eid` in node's list: 0 when found (in *t), 1 when the
** list does not hold it. */
static int tm_find_eid(const hb_tm_graph *g, uint32_t node, uint32_t eid,
                       int64_t *t, gnn_err *e)
{
    tm_list l;
    int rc = tm_find(g, NULL, node, &l, e);
    for (uint32_t q = 0; !rc && q < l.degree; q++) {
        tm_ent v;
        if ((rc = tm_entry(&l, q, &v, e))) break;
        if (v.eid == eid) {
            *t = v.t;
            return GNNDB_OK;
        }
    }
    return rc ? rc : 1;
}

int hb_tm_edge_times(const hb_tm_graph *g, const uint32_t *src,
                     const uint32_t *dst, const uint32_t *eid, size_t n,
                     int64_t *t, gnn_err *e)
{
    for (size_t i = 0; i < n; i++) {
        int rc = tm_find_eid(g, src[i], eid[i], &t[i], e);
        if (rc == 1) rc = tm_find_eid(g, dst[i], eid[i], &t[i], e);
        if (rc == 1)
            return gnn_seterr(e, GNNDB_CORRUPT, "seed edge %u (%u -> %u) is "
                              "in neither endpoint's list of the time graph "
                              "%s", eid[i], src[i], dst[i], g->t->f->path);
        if (rc) return rc;
    }
    return GNNDB_OK;
}

/* The distinct endpoints of the n seed edges, ascending, into *ends
** (malloc'd, the caller's). */
static int tm_ends(const uint32_t *src, const uint32_t *dst, size_t n,
                   uint32_t **ends, size_t *nends, gnn_err *e)
{
    uint32_t *a = malloc((2 * n + 1) * sizeof *a);
    if (!(*ends = a))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory timing the seed "
                          "edges");
    memcpy(a, src, n * sizeof *a);
    memcpy(a + n, dst, n * sizeof *a);
    gnn_sort_u32(a, 2 * n);
    size_t m = 0;
    for (size_t i = 0; i < 2 * n; i++)
        if (m == 0 || a[i] != a[m - 1]) a[m++] = a[i];
    *nends = m;
    return GNNDB_OK;
}

/* Every entry of the lists of `ends` whose id is a seed edge's (eid,
** ascending) gives that edge its time t[at], seen[at] set. */
static int tm_scan_ends(const hb_tm_graph *g, const uint32_t *ends,
                        size_t nends, const uint32_t *eid, size_t n,
                        int64_t *t, uint8_t *seen, gnn_err *e)
{
    for (size_t i = 0; i < nends; i++) {
        tm_list l;
        int rc = tm_find(g, NULL, ends[i], &l, e);
        for (uint32_t q = 0; !rc && q < l.degree; q++) {
            tm_ent v;
            if ((rc = tm_entry(&l, q, &v, e))) break;
            size_t at = gnn_lower_u32(eid, n, v.eid);
            if (at < n && eid[at] == v.eid) {
                t[at] = v.t;
                seen[at] = 1;
            }
        }
        if (rc) return rc;
    }
    return GNNDB_OK;
}

int hb_tm_seed_times(hb_ctx *x, const cat_graph *tg,
                     const uint32_t *src, const uint32_t *dst,
                     const uint32_t *eid, size_t n, int64_t *t, gnn_err *e)
{
    hb_rel_topo topo = {0};
    bp_pool *bp = NULL;
    uint32_t *ends = NULL;
    uint8_t *seen = calloc(n + 1, 1);
    size_t nends = 0;
    /* a list is read an entry at a time, so a few frames do */
    int rc = seen ? hb_topo_open(x->db, x->p, tg, 2, &topo, e)
                  : gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    if (!rc) rc = bp_open(PLAN_SEED_TIME_FRAMES, tg->block_size, x->io, &bp,
                          e);
    if (!rc) rc = tm_ends(src, dst, n, &ends, &nends, e);
    hb_tm_graph g = {NULL, bp, &topo};
    if (!rc) rc = tm_scan_ends(&g, ends, nends, eid, n, t, seen, e);
    for (size_t i = 0; !rc && i < n; i++)
        if (!seen[i])
            rc = gnn_seterr(e, GNNDB_CORRUPT, "seed edge %u (%u -> %u) is "
                            "in neither endpoint's list of the time graph "
                            "%s", eid[i], src[i], dst[i], topo.f->path);
    if (bp) bp_close(bp);
    hb_topo_close(&topo);
    free(ends);
    free(seen);
    return rc;
}

int hb_tm_sample(const hb_tm_graph *g, const plan *p, const hb_tm_times *tt,
                 hb_batch *b, gnn_err *e)
{
    size_t ns = (size_t)b->nseeds;
    if (gnn_grow((void **)&b->o_time, &b->cap_o_time, ns + 1,
                 sizeof *b->o_time))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
    /* a link batch's roots were timed by their seed edges (hb_link.c) */
    if (!p->link)
        for (size_t q = 0; q < ns; q++)
            b->o_time[q] = tm_time_of(tt, b->nodes[q]);
    tm_hop *h = calloc(1, sizeof *h);
    if (!h) return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
    h->g = g;
    h->p = p;
    h->ntime = tt->ntime;
    h->rtime = b->o_time;
    h->b = b;
    int rc = GNNDB_OK;
    /* the seeds: each the root of its own tree */
    if (gnn_grow((void **)&b->troot, &b->captroot, b->nn + 1,
                 sizeof *b->troot))
        rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
    for (size_t q = 0; !rc && q < b->nn; q++) {
        uint32_t local;
        size_t nn = b->nn;
        b->nn = q;            /* tm_add appends seed q where it already is */
        if (tm_add(&h->m, b, (uint32_t)q, b->nodes[q], &local))
            rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
        b->nn = nn;
    }
    for (int hop = 0; !rc && hop < p->nhops; hop++) {
        uint64_t khop = rng_key_hop(p->seed, (uint64_t)b->epoch,
                                    (uint64_t)b->batch, (uint64_t)hop);
        size_t lo = b->frontier_lo, hi = b->nn, ne0 = b->ne;
        for (size_t i = lo; !rc && i < hi; i++)
            rc = tm_node(h, i, p->fanouts[hop], khop, e);
        if (rc) break;
        b->frontier_lo = hi;
        b->nsn[hop + 1] = (int64_t)(b->nn - hi);
        b->nse[hop] = (int64_t)(b->ne - ne0);
    }
    free(h->m.key);
    free(h->m.val);
    free(h->pos);
    free(h->ents);
    free(h);
    return rc;
}
