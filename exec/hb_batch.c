/* hb_batch.c — a mini-batch's arrays (hb_batch.h): the node map, the view
** of its outputs, freeing and sizing them. */
#include "hb_batch.h"
#include "grow.h"
#include "hash.h"

#include <stdlib.h>
#include <string.h>

/* The table holds local indices only; a slot's key is the mini-batch's
** nodes[slot], so the map costs 4 bytes a slot. It is kept at most half
** full and grown on demand, never sized for a hop's worst case.
**
** fcache.c's u32map is a table of the same kind (linear probing, the same
** hash) kept apart on purpose: H of these maps are alive at once and
** count against the staged memory, hence implied keys, growth and the
** cheap reset below; the cache's maps are one or two per run, sized once,
** must delete (eviction), and one of them is keyed by accesses that lie in
** two arrays, so they store their keys. */

/* Empty the map for reuse by a new mini-batch, whose first `expect` nodes
** it must hold without growing. `used` lists the nodes the previous
** mini-batch left (its nodes[], still in place): when they are few,
** clearing their slots beats clearing the whole table. */
int hb_nmap_reset(nmap *m, size_t expect, const uint32_t *used,
                  size_t nused)
{
    size_t cap = 64;
    while (cap < expect * 2) cap <<= 1;
    if (cap > m->cap) {
        free(m->slots);
        m->slots = malloc(cap * sizeof *m->slots);
        if (!m->slots) { m->cap = 0; return -1; }
        m->cap = cap;
        memset(m->slots, 0xff, m->cap * sizeof *m->slots);
    } else if (used && m->n == nused && nused * 8 < m->cap) {
        /* every listed node is present, so walking to it terminates even
        ** when slots cleared earlier opened gaps in its probe run */
        for (size_t i = 0; i < nused; i++) {
            size_t h = gnn_hash_slot(used[i], m->cap);
            while (m->slots[h] == UINT32_MAX || used[m->slots[h]] != used[i])
                h = (h + 1) & (m->cap - 1);
            m->slots[h] = UINT32_MAX;
        }
    } else {
        memset(m->slots, 0xff, m->cap * sizeof *m->slots);
    }
    m->n = 0;
    return 0;
}

/* The map's table as scratch for the nn + 1 64-bit sort keys of a finished
** mini-batch, so that spilling a sub-round allocates no keys of its own
** (grown when the table is smaller); the map is cleared whole at its next
** reset. NULL when out of memory. */
uint64_t *hb_map_scratch(hb_batch *b)
{
    size_t need = (b->nn + 1) * sizeof(uint64_t) / sizeof *b->map.slots;
    if (b->map.cap < need) {
        size_t cap = GNN_MAX(b->map.cap, 64);
        while (cap < need) cap <<= 1;
        uint32_t *t = realloc(b->map.slots, cap * sizeof *t);
        if (!t) return NULL;
        b->map.slots = t;
        b->map.cap = cap;
    }
    b->map.n = SIZE_MAX;  /* no list of used nodes matches: memset on reset */
    return (uint64_t *)b->map.slots;
}

/* Double the table and place nodes[0..n) again. */
static int nmap_rehash(nmap *m, const uint32_t *nodes)
{
    size_t cap = m->cap * 2;
    uint32_t *t = malloc(cap * sizeof *t);
    if (!t) return -1;
    memset(t, 0xff, cap * sizeof *t);
    for (size_t i = 0; i < m->n; i++) {
        size_t h = gnn_hash_slot(nodes[i], cap);
        while (t[h] != UINT32_MAX) h = (h + 1) & (cap - 1);
        t[h] = (uint32_t)i;
    }
    free(m->slots);
    m->slots = t;
    m->cap = cap;
    return 0;
}

/* The local index of `node` in mini-batch b, appending it to b->nodes when
** new. Out of memory: -1, the batch unchanged. */
int hb_add_node(hb_batch *b, uint32_t node, uint32_t *local)
{
    nmap *m = &b->map;
    size_t h = gnn_hash_slot(node, m->cap);
    while (m->slots[h] != UINT32_MAX) {
        if (b->nodes[m->slots[h]] == node) { *local = m->slots[h]; return 0; }
        h = (h + 1) & (m->cap - 1);
    }
    if (gnn_grow((void **)&b->nodes, &b->capn, b->nn + 1, sizeof *b->nodes))
        return -1;
    if ((m->n + 1) * 2 > m->cap) {
        if (nmap_rehash(m, b->nodes)) return -1;
        h = gnn_hash_slot(node, m->cap);
        while (m->slots[h] != UINT32_MAX) h = (h + 1) & (m->cap - 1);
    }
    m->slots[h] = (uint32_t)b->nn;
    b->nodes[b->nn] = node;
    *local = (uint32_t)b->nn++;
    m->n++;
    return 0;
}

void hb_fill_view(const plan *p, hb_batch *b, int64_t *n_id,
                  int64_t *edge_index, float *xrows, int64_t *y)
{
    gnndb_batch_view *v = &b->view;
    memset(v, 0, sizeof *v);
    v->epoch = b->epoch;
    v->batch = b->batch;
    v->num_seeds = b->nseeds;
    v->num_nodes = (int64_t)b->nn;
    v->num_edges = (int64_t)b->ne;
    v->num_hops = p->nhops;
    v->device = GNNDB_DEVICE_HOST;
    v->n_id = n_id;
    v->num_sampled_nodes = b->nsn;
    v->num_sampled_edges = b->nse;
    v->edge_index = edge_index;
    v->x = p->has_feat ? xrows : NULL;
    v->x_dim = p->has_feat ? plan_x_dim(p) : 0; /* typed: x per type */
    v->y = p->has_labels ? y : NULL;
}


void hb_batch_free(hb_batch *b)
{
    free(b->nodes);
    free(b->map.slots);
    free(b->esrc);
    free(b->edst);
    free(b->n_id);
    free(b->edge_index);
    free(b->x);
    free(b->y);
    free(b->eid);
    free(b->e_id);
    free(b->troot);
    free(b->etime);
    free(b->o_root);
    free(b->o_time);
    free(b->o_etime);
    free(b->edge_attr);
    lk_batch_free(&b->lk);
    /* a typed batch's */
    free(b->etype);
    free(b->trank);
    free(b->t_out);
    free(b->t_x);
    free(b->t_eattr);
    free(b->tviews);
    free(b->rviews);
}

size_t hb_batch_bytes(const hb_batch *b)
{
    size_t typed = b->capetype * 2 + b->captrank * 4 + b->cap_t_out * 8 +
                   b->cap_t_x * 4 + b->cap_t_eattr * 4;
    return b->capn * 4 + b->map.cap * 4 + b->cape * 4 + b->capdst * 4 +
           b->cap_out_nodes * 8 + b->cap_out_edges * 8 + b->cap_out_x * 4 +
           b->cap_out_y * 8 + b->capeid * 4 + b->cap_out_eid * 8 +
           b->cap_out_eattr * 4 + b->lk.cap_pos * 12 + b->lk.cap_neg * 9 +
           b->lk.cap_ends * 4 + b->lk.cap_out * 8 + typed +
           b->captroot * 4 + b->capetime * 8 + b->cap_o_root * 8 +
           b->cap_o_time * 8 + b->cap_o_etime * 8;
}

int hb_reserve_edges(hb_batch *b, size_t more)
{
    if (gnn_grow((void **)&b->esrc, &b->cape, b->ne + more + 1,
                 sizeof *b->esrc))
        return -1;
    if (b->cape > b->capdst) {
        uint32_t *d = realloc(b->edst, b->cape * sizeof *d);
        if (!d) return -1;
        b->edst = d;
        b->capdst = b->cape;
    }
    return 0;
}
