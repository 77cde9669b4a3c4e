/* hop_resident.c — the hops of one mini-batch whose graph blocks are all
** pinned in memory (a round of hb_resident.c). Each frontier node costs a
** chain of cache misses: its object's entry in the block's offset table,
** the object, the neighbours chosen from its list, and their slots in the
** node map. So the frontier is walked as a pipeline: a node's block is
** found and its entry asked for 16 nodes ahead, its object 8 ahead, its
** neighbours chosen and their list entries asked for 4 ahead, and their
** ids read and map slots asked for 2 ahead; each node's neighbours are
** then added in turn. (Half those distances left most of each miss to
** wait for: a node's work is a few hundred cycles.) The map is the worker's own, each slot holding a
** node with its local index, sized once for the largest mini-batch.
**
** The choices and their order are the block-wise hop's (hop.c): each node's
** positions come from sample_choose under the same key, new nodes are
** numbered in frontier order, then in position order. */
#include "grow.h"
#include "exec_int.h"
#include "hop_resident.h"
#include "hash.h"
#include "rng.h"
#include "sample.h"

#include <stdlib.h>
#include <string.h>

#define RS_EMPTY UINT64_MAX
/* How far ahead of its adding each stage takes a node (powers of two). */
#define RS_AT_BLOCK  16
#define RS_AT_OBJECT 8
#define RS_AT_CHOOSE 4
#define RS_AT_READ   2
/* Nodes chosen and not yet added: one more than the stages between. */
#define RS_ITEMS (2 * RS_AT_CHOOSE)

typedef struct rs_item {     /* a frontier node between choice and adding */
    const blk_node *o;
    uint64_t no;             /* the block its list starts in */
    uint32_t *ids;           /* its chosen positions, then their neighbours */
    size_t cap;
    uint32_t n;
} rs_item;

struct hb_rs_worker {
    uint64_t *map;           /* (node << 32) | local index, or RS_EMPTY */
    size_t cap, n;
    rs_item item[RS_ITEMS];
    uint64_t ring[RS_AT_BLOCK]; /* the blocks of the nodes looked up ahead */
    uint32_t scratch[SAMPLE_SCRATCH];
};

hb_rs_worker *hb_rs_worker_new(void)
{
    return calloc(1, sizeof(hb_rs_worker));
}

void hb_rs_worker_free(hb_rs_worker *w)
{
    if (!w) return;
    free(w->map);
    for (int i = 0; i < RS_ITEMS; i++) free(w->item[i].ids);
    free(w);
}

size_t hb_rs_worker_bytes(const hb_rs_worker *w)
{
    size_t n = w ? sizeof *w + w->cap * 8 : 0;
    for (int i = 0; w && i < RS_ITEMS; i++) n += w->item[i].cap * 4;
    return n;
}

/* ---- the map ---- */

static int map_place(uint64_t *map, size_t cap, uint64_t s)
{
    size_t h = gnn_hash_slot((uint32_t)(s >> 32), cap);
    while (map[h] != RS_EMPTY) h = (h + 1) & (cap - 1);
    map[h] = s;
    return 0;
}

/* Double the map (or make the first one) and place what it held again. */
static int map_grow(hb_rs_worker *w)
{
    size_t cap = w->cap ? w->cap * 2 : 4096;
    uint64_t *m = malloc(cap * sizeof *m);
    if (!m) return -1;
    memset(m, 0xff, cap * sizeof *m);
    for (size_t i = 0; i < w->cap; i++)
        if (w->map[i] != RS_EMPTY) map_place(m, cap, w->map[i]);
    free(w->map);
    w->map = m;
    w->cap = cap;
    return 0;
}

/* The local index of `node` in b, appended to b's nodes when new; -1 when
** out of memory. */
static inline int map_add(hb_rs_worker *w, hb_batch *b, uint32_t node,
                          uint32_t *local)
{
    size_t h = gnn_hash_slot(node, w->cap);
    uint64_t s;
    while ((s = w->map[h]) != RS_EMPTY) {
        if ((uint32_t)(s >> 32) == node) {
            *local = (uint32_t)s;
            return 0;
        }
        h = (h + 1) & (w->cap - 1);
    }
    if (gnn_grow((void **)&b->nodes, &b->capn, b->nn + 1, sizeof *b->nodes))
        return -1;
    *local = (uint32_t)b->nn;
    b->nodes[b->nn++] = node;
    w->map[h] = ((uint64_t)node << 32) | *local;
    return ++w->n * 2 > w->cap ? map_grow(w) : 0;
}

/* The map emptied, then holding b's nodes so far (its seeds). */
static int map_start(hb_rs_worker *w, const hb_batch *b)
{
    if (!w->cap && map_grow(w)) return -1;
    memset(w->map, 0xff, w->cap * sizeof *w->map);
    w->n = 0;
    for (size_t q = 0; q < b->nn; q++) {
        map_place(w->map, w->cap, ((uint64_t)b->nodes[q] << 32) | q);
        if (++w->n * 2 > w->cap && map_grow(w)) return -1;
    }
    return 0;
}

/* ---- finding a node's object ---- */

static int corrupt(const hb_rs_graph *g, uint64_t no, uint32_t node,
                   gnn_err *e)
{
    return gnn_seterr(e, GNNDB_CORRUPT,
                      "corrupt block %llu of %s: node %u is not where the "
                      "index says", (unsigned long long)no, g->t->f->path,
                      node);
}

/* Where the offset-table entry of `node`'s object lies in block no; NULL
** when the block does not hold the node (found corrupt later). */
static const uint32_t *entry_of(const hb_rs_graph *g, uint64_t no,
                                uint32_t node)
{
    if (no >= g->n || node < g->first[no] ||
        node - g->first[no] >= g->count[no])
        return NULL;
    return (const uint32_t *)((const char *)g->data[no] +
                              blk_data_offset(g->t->f->block_size)) +
           (node - g->first[no]);
}

/* The object of `node` in block no, checked as hop_reserve checks it;
** NULL (and *e set) when the block disagrees. */
static const blk_node *object_of(const hb_rs_graph *g, uint32_t node,
                                 uint64_t no, gnn_err *e)
{
    if (no >= g->n) return corrupt(g, no, node, e), NULL;
    const void *data = g->data[no];
    const blk_node *o = blk_graph_find(data, node);
    if (!o || o->start != 0 ||
        !blk_graph_object_fits(data, (uint32_t)(node -
                               ((const blk_header *)data)->first_node))) {
        corrupt(g, no, node, e);
        return NULL;
    }
    return o;
}

/* Neighbour q of o (q >= o->n: in a continuation block after block no),
** checked as pend_visit checks it. */
static int far_nbr(const hb_rs_graph *g, const blk_node *o, uint64_t no,
                   uint32_t q, uint32_t *nbr, gnn_err *e)
{
    uint32_t cap = g->t->cont_cap, k = q - o->n;
    uint64_t cb = no + 1 + k / cap;
    if (cb >= g->n) return corrupt(g, cb, o->node, e);
    const blk_header *hd = g->data[cb];
    const blk_node *c = hd->count ? blk_graph_object(hd, 0) : NULL;
    if (!c || c->node != o->node || !(hd->flags & BLK_FLAG_CONT_FIRST) ||
        k % cap >= c->n)
        return corrupt(g, cb, o->node, e);
    *nbr = blk_node_nbrs(c)[k % cap];
    return GNNDB_OK;
}

/* ---- the stages of one frontier node ---- */

typedef struct rs_hop {
    const hb_rs_graph *g;
    hb_rs_worker *w;
    hb_batch *b;
    int fanout, replace;
    uint64_t key;            /* the hop's part of every node's key */
} rs_hop;

/* The node's block found, its entry asked for. */
static void stage_block(rs_hop *h, size_t i)
{
    uint32_t node = h->b->nodes[i];
    const hb_rel_topo *t = h->g->t;
    uint64_t no = idx_block_of(t->idx_first, t->idx_block, t->nidx, node);
    h->w->ring[i % RS_AT_BLOCK] = no;
    const uint32_t *ent = entry_of(h->g, no, node);
    if (ent) __builtin_prefetch(ent);
}

/* Its object asked for. */
static void stage_object(rs_hop *h, size_t i)
{
    uint64_t no = h->w->ring[i % RS_AT_BLOCK];
    const uint32_t *ent = entry_of(h->g, no, h->b->nodes[i]);
    if (!ent || *ent >= BLK_MAX_SIZE) return;
    const char *o = (const char *)h->g->data[no] + *ent;
    __builtin_prefetch(o);
    __builtin_prefetch(o + 64);
}

/* Its neighbours chosen, their list entries asked for. */
static int stage_choose(rs_hop *h, size_t i, gnn_err *e)
{
    uint32_t node = h->b->nodes[i];
    rs_item *it = &h->w->item[i % RS_ITEMS];
    it->no = h->w->ring[i % RS_AT_BLOCK];
    if (!(it->o = object_of(h->g, node, it->no, e))) return e->rc;
    uint32_t most = sample_max(it->o->degree, h->fanout, h->replace);
    if (gnn_grow((void **)&it->ids, &it->cap, most + 1, sizeof *it->ids))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
    it->n = sample_choose(rng_key_node(h->key, node), it->o->degree,
                          h->fanout, h->replace, it->ids, h->w->scratch);
    /* a long run of positions (all of a list) streams without asking */
    const uint32_t *nb = blk_node_nbrs(it->o);
    for (uint32_t j = 0; j < it->n && it->n <= 32; j++)
        if (it->ids[j] < it->o->n) __builtin_prefetch(&nb[it->ids[j]]);
    return GNNDB_OK;
}

/* The chosen neighbours read, their map slots asked for. */
static int stage_read(rs_hop *h, size_t i, gnn_err *e)
{
    rs_item *it = &h->w->item[i % RS_ITEMS];
    const uint32_t *nb = blk_node_nbrs(it->o);
    for (uint32_t j = 0; j < it->n; j++) {
        uint32_t at = it->ids[j];
        if (at < it->o->n) it->ids[j] = nb[at];
        else if (far_nbr(h->g, it->o, it->no, at, &it->ids[j], e))
            return e->rc;
        __builtin_prefetch(&h->w->map[gnn_hash_slot(it->ids[j],
                                                    h->w->cap)]);
    }
    return GNNDB_OK;
}

/* Its turn: each neighbour added to the batch, with its edge. */
static int stage_add(rs_hop *h, size_t i, gnn_err *e)
{
    const rs_item *it = &h->w->item[i % RS_ITEMS];
    hb_batch *b = h->b;
    if (hb_reserve_edges(b, it->n))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
    for (uint32_t j = 0; j < it->n; j++) {
        uint32_t local;
        if (map_add(h->w, b, it->ids[j], &local))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
        b->esrc[b->ne] = local;
        b->edst[b->ne++] = (uint32_t)i;
    }
    return GNNDB_OK;
}

/* Whether stage `at` (its distance ahead) has a node when the pipeline's
** lead is at q: the node q - (RS_AT_BLOCK - at) of [lo, hi), in *i. */
static int stage_node(size_t q, size_t lo, size_t hi, size_t at, size_t *i)
{
    size_t back = RS_AT_BLOCK - at;
    *i = q - back;
    return q >= lo + back && *i < hi;
}

/* Hop `hop` of b: the frontier [frontier_lo, nn) through the stages. */
static int one_hop(rs_hop *h, int hop, gnn_err *e)
{
    hb_batch *b = h->b;
    size_t lo = b->frontier_lo, hi = b->nn, ne0 = b->ne, i;
    int rc = GNNDB_OK;
    for (size_t q = lo; q < hi + RS_AT_BLOCK && !rc; q++) {
        if (q < hi) stage_block(h, q);
        if (stage_node(q, lo, hi, RS_AT_OBJECT, &i)) stage_object(h, i);
        if (stage_node(q, lo, hi, RS_AT_CHOOSE, &i))
            rc = stage_choose(h, i, e);
        if (!rc && stage_node(q, lo, hi, RS_AT_READ, &i))
            rc = stage_read(h, i, e);
        if (!rc && stage_node(q, lo, hi, 0, &i)) rc = stage_add(h, i, e);
    }
    if (rc) return rc;
    b->frontier_lo = hi;
    b->nsn[hop + 1] = (int64_t)(b->nn - hi);
    b->nse[hop] = (int64_t)(b->ne - ne0);
    return GNNDB_OK;
}

int hb_rs_sample(const hb_rs_graph *g, const plan *p, hb_batch *b,
                 hb_rs_worker *w, gnn_err *e)
{
    if (map_start(w, b))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory sampling");
    rs_hop h = {g, w, b, 0, p->replace, 0};
    for (int hop = 0; hop < p->nhops; hop++) {
        h.fanout = p->fanouts[hop];
        h.key = rng_key_hop(p->seed, (uint64_t)b->epoch, (uint64_t)b->batch,
                            (uint64_t)hop);
        int rc = one_hop(&h, hop, e);
        if (rc) return rc;
    }
    return GNNDB_OK;
}
