/* fcache.c — the row-level feature cache: which feature rows are kept
** between hyperbatches, and where.
**
** The cache decides every gather before any block is read (fc_plan): the
** accesses are replayed one by one in gather order, as a sequential cache
** would see them, so hits and misses depend only on the sequence of rows and
** never on the order in which blocks arrive. Data moves afterwards: rows
** that were resident when the gather began are copied from their slots
** first, then the blocks of the rest are read, and the rows that ended up
** admitted are copied into their slots from those blocks. A row admitted
** during a gather was missed in it, so its block is read in that gather.
**
** Policies: lru evicts the least recently used row; static_degree pins a set
** chosen once and never admits; belady evicts the resident row whose next
** use, within the accesses the executor knows (this gather and the next
** hyperbatch's), is farthest, ties going to the least recently used, and
** does not admit a row whose own next use is farther than every resident's
** (bypass). */
#include "fcache.h"
#include "hash.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define NEVER UINT64_MAX

/* Open addressing with linear probing, as hyperbatch.c's node map, but
** storing keys: `where` deletes (eviction, by backward shift), and
** `first` is keyed by a window that spans two arrays (this gather's rows
** and the next hyperbatch's), where the node map's keys all lie in the
** mini-batch's node list it indexes. Both are sized once, not grown. */
typedef struct u32map {
    uint32_t *keys;          /* NONE: empty */
    uint32_t *vals;
    size_t cap, n;
} u32map;

struct fcache {
    int policy;
    size_t cap, used, rowbytes;
    unsigned char *data;
    uint32_t *row;           /* slot -> row */
    uint64_t *stamp;         /* the gather that admitted the slot's row */
    uint32_t *prev, *next;   /* lru: recency list, head most recent */
    uint32_t head, tail;
    uint64_t *nextuse;       /* belady: next access, NEVER when unknown */
    uint64_t *last;          /* belady: clock of the last access */
    uint32_t *heap, *hpos;   /* belady: slots, farthest next use on top */
    u32map where;            /* row -> slot */
    uint64_t pass, clock;
    uint64_t hits, misses;
    uint64_t *nxt;           /* per gather: next access of each access */
    size_t capnxt;
    u32map first;            /* per gather: row -> its first access */
    uint32_t *frows, *fslots;
    size_t nfill;
};

static const char *const names[] = {"none", "lru", "static_degree", "belady",
                                    "hot_blocks"};

int fc_policy_parse(const char *w)
{
    for (int i = 0; i < 5; i++)
        if (w && !strcmp(w, names[i])) return i;
    return -1;
}

const char *fc_policy_name(int p)
{
    return p >= 0 && p < 5 ? names[p] : "?";
}

/* ---- row -> slot ---- */

static int map_init(u32map *m, size_t entries)
{
    size_t cap = 16;
    while (cap < entries * 2) cap <<= 1;
    if (cap != m->cap) {
        free(m->keys);
        free(m->vals);
        m->keys = malloc(cap * sizeof *m->keys);
        m->vals = malloc(cap * sizeof *m->vals);
        m->cap = m->keys && m->vals ? cap : 0;
        if (!m->cap) return -1;
    }
    memset(m->keys, 0xff, cap * sizeof *m->keys);
    m->n = 0;
    return 0;
}

static void map_free(u32map *m)
{
    free(m->keys);
    free(m->vals);
}

static uint32_t map_get(const u32map *m, uint32_t key)
{
    size_t h = gnn_hash_slot(key, m->cap);
    while (m->keys[h] != NONE) {
        if (m->keys[h] == key) return m->vals[h];
        h = (h + 1) & (m->cap - 1);
    }
    return NONE;
}

/* The table never holds more than half its capacity: sized at map_init. */
static void map_put(u32map *m, uint32_t key, uint32_t val)
{
    size_t h = gnn_hash_slot(key, m->cap);
    while (m->keys[h] != NONE && m->keys[h] != key) h = (h + 1) & (m->cap - 1);
    if (m->keys[h] == NONE) m->n++;
    m->keys[h] = key;
    m->vals[h] = val;
}

/* Remove with backward shift, so that probe runs stay unbroken. */
static void map_del(u32map *m, uint32_t key)
{
    size_t mask = m->cap - 1, h = gnn_hash_slot(key, m->cap);
    while (m->keys[h] != key) {
        if (m->keys[h] == NONE) return;
        h = (h + 1) & mask;
    }
    size_t hole = h;
    for (size_t j = (hole + 1) & mask; m->keys[j] != NONE; j = (j + 1) & mask) {
        size_t home = gnn_hash_slot(m->keys[j], m->cap);
        /* move j into the hole unless its home lies in (hole, j] */
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            m->keys[hole] = m->keys[j];
            m->vals[hole] = m->vals[j];
            hole = j;
        }
    }
    m->keys[hole] = NONE;
    m->n--;
}

/* ---- the cache ---- */

int fc_open(int policy, size_t rows, size_t rowbytes, fcache **out, gnn_err *e)
{
    *out = NULL;
    /* fc_plan runs these three; any other policy holds no rows */
    if (rows > 0 && policy != GNN_CACHE_LRU && policy != GNN_CACHE_BELADY &&
        policy != GNN_CACHE_STATIC_DEGREE)
        return gnn_seterr(e, GNNDB_MISUSE, "a feature cache of %zu rows "
                          "under a policy that keeps no rows", rows);
    fcache *c = calloc(1, sizeof *c);
    if (!c) return gnn_seterr(e, GNNDB_NOMEM, "out of memory for the feature cache");
    c->policy = policy;
    c->cap = rows;
    c->rowbytes = rowbytes;
    c->head = c->tail = NONE;
    size_t n = rows + 1;
    c->data = malloc(n * rowbytes);
    c->row = malloc(n * sizeof *c->row);
    c->stamp = calloc(n, sizeof *c->stamp);
    c->prev = malloc(n * sizeof *c->prev);
    c->next = malloc(n * sizeof *c->next);
    c->nextuse = malloc(n * sizeof *c->nextuse);
    c->last = malloc(n * sizeof *c->last);
    c->heap = malloc(n * sizeof *c->heap);
    c->hpos = malloc(n * sizeof *c->hpos);
    c->frows = malloc(n * sizeof *c->frows);
    c->fslots = malloc(n * sizeof *c->fslots);
    if (!c->data || !c->row || !c->stamp || !c->prev || !c->next ||
        !c->nextuse || !c->last || !c->heap || !c->hpos || !c->frows ||
        !c->fslots || map_init(&c->where, rows)) {
        fc_close(c);
        return gnn_seterr(e, GNNDB_NOMEM,
                          "out of memory for a feature cache of %zu rows", rows);
    }
    c->pass = 1;  /* stamps start at 0: pinned rows count as resident */
    *out = c;
    return GNNDB_OK;
}

void fc_close(fcache *c)
{
    if (!c) return;
    free(c->data);
    free(c->row);
    free(c->stamp);
    free(c->prev);
    free(c->next);
    free(c->nextuse);
    free(c->last);
    free(c->heap);
    free(c->hpos);
    free(c->frows);
    free(c->fslots);
    free(c->nxt);
    map_free(&c->where);
    map_free(&c->first);
    free(c);
}

size_t fc_capacity(const fcache *c) { return c->cap; }

size_t fc_scratch_bytes(const fcache *c)
{
    return c ? c->capnxt * sizeof *c->nxt +
                   c->first.cap * (sizeof *c->first.keys + sizeof *c->first.vals)
             : 0;
}
uint64_t fc_hits(const fcache *c) { return c->hits; }
uint64_t fc_misses(const fcache *c) { return c->misses; }

void *fc_slot(fcache *c, uint32_t slot)
{
    return c->data + (size_t)slot * c->rowbytes;
}

size_t fc_fills(const fcache *c, const uint32_t **rows, const uint32_t **slots)
{
    *rows = c->frows;
    *slots = c->fslots;
    return c->nfill;
}

int fc_pin(fcache *c, const uint32_t *rows, size_t n, gnn_err *e)
{
    if (n > c->cap)
        return gnn_seterr(e, GNNDB_RANGE, "feature cache: %zu rows do not fit "
                          "in %zu slots", n, c->cap);
    for (size_t i = 0; i < n; i++) {
        c->row[i] = rows[i];
        c->stamp[i] = 0;
        map_put(&c->where, rows[i], (uint32_t)i);
    }
    c->used = n;
    return GNNDB_OK;
}

/* ---- lru: a doubly linked list of slots ---- */

static void lru_unlink(fcache *c, uint32_t s)
{
    if (c->prev[s] != NONE) c->next[c->prev[s]] = c->next[s];
    else c->head = c->next[s];
    if (c->next[s] != NONE) c->prev[c->next[s]] = c->prev[s];
    else c->tail = c->prev[s];
}

static void lru_push(fcache *c, uint32_t s)
{
    c->prev[s] = NONE;
    c->next[s] = c->head;
    if (c->head != NONE) c->prev[c->head] = s;
    c->head = s;
    if (c->tail == NONE) c->tail = s;
}

/* ---- belady: a max-heap of slots on (next use, least recent) ---- */

static inline int farther(const fcache *c, uint32_t a, uint32_t b)
{
    if (c->nextuse[a] != c->nextuse[b]) return c->nextuse[a] > c->nextuse[b];
    return c->last[a] < c->last[b];
}

static void heap_set(fcache *c, size_t i, uint32_t s)
{
    c->heap[i] = s;
    c->hpos[s] = (uint32_t)i;
}

static void heap_up(fcache *c, size_t i)
{
    uint32_t s = c->heap[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!farther(c, s, c->heap[p])) break;
        heap_set(c, i, c->heap[p]);
        i = p;
    }
    heap_set(c, i, s);
}

static void heap_down(fcache *c, size_t i)
{
    uint32_t s = c->heap[i];
    for (;;) {
        size_t l = 2 * i + 1, best = i;
        uint32_t bs = s;
        if (l < c->used && farther(c, c->heap[l], bs)) { best = l; bs = c->heap[l]; }
        if (l + 1 < c->used && farther(c, c->heap[l + 1], bs)) { best = l + 1; bs = c->heap[l + 1]; }
        if (best == i) break;
        heap_set(c, i, bs);
        i = best;
    }
    heap_set(c, i, s);
}

/* Next use of every access of the window, and of every resident row. */
static int belady_window(fcache *c, const uint32_t *rows, size_t n,
                         const uint32_t *future, size_t nf)
{
    size_t w = n + nf;
    if (w + 1 > c->capnxt) {
        free(c->nxt);
        c->capnxt = w + 1;
        c->nxt = malloc(c->capnxt * sizeof *c->nxt);
        if (!c->nxt) { c->capnxt = 0; return -1; }
    }
    if (map_init(&c->first, w)) return -1;
    for (size_t k = w; k-- > 0;) {
        uint32_t r = k < n ? rows[k] : future[k - n];
        uint32_t at = map_get(&c->first, r);
        c->nxt[k] = at == NONE ? NEVER : at;
        map_put(&c->first, r, (uint32_t)k);
    }
    for (size_t i = 0; i < c->used; i++) {
        uint32_t s = c->heap[i];
        uint32_t at = map_get(&c->first, c->row[s]);
        c->nextuse[s] = at == NONE ? NEVER : at;
    }
    for (size_t i = c->used / 2; i-- > 0;) heap_down(c, i);
    return 0;
}

/* Admit row r at access k (it was missed): into a free slot, else in place
** of the policy's victim, else not at all. */
static void admit(fcache *c, uint32_t r, size_t k)
{
    uint32_t s;
    if (c->used < c->cap) {
        s = (uint32_t)c->used++;
        if (c->policy == GNN_CACHE_BELADY) heap_set(c, c->used - 1, s);
    } else if (c->policy == GNN_CACHE_LRU) {
        s = c->tail;
        lru_unlink(c, s);
        map_del(&c->where, c->row[s]);
    } else {
        s = c->heap[0];
        if (c->nxt[k] > c->nextuse[s]) return;  /* bypass */
        map_del(&c->where, c->row[s]);
    }
    c->row[s] = r;
    c->stamp[s] = c->pass;
    map_put(&c->where, r, s);
    if (c->policy == GNN_CACHE_LRU) {
        lru_push(c, s);
    } else {
        c->nextuse[s] = c->nxt[k];
        c->last[s] = c->clock;
        heap_up(c, c->hpos[s]);
        heap_down(c, c->hpos[s]);
    }
}

int fc_plan(fcache *c, const uint32_t *rows, size_t n, const uint32_t *future,
            size_t nf, int64_t *src, gnn_err *e)
{
    c->pass++;
    c->nfill = 0;
    if (c->policy == GNN_CACHE_BELADY && c->cap && belady_window(c, rows, n, future, nf))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory planning the "
                          "feature cache");
    for (size_t k = 0; k < n; k++, c->clock++) {
        uint32_t r = rows[k];
        uint32_t s = c->cap ? map_get(&c->where, r) : NONE;
        if (s == NONE) {
            c->misses++;
            src[k] = -1;
            if (c->cap && c->policy != GNN_CACHE_STATIC_DEGREE) admit(c, r, k);
            continue;
        }
        c->hits++;
        /* admitted in this gather: its data is still in its block */
        src[k] = c->stamp[s] == c->pass ? -1 : (int64_t)s;
        if (c->policy == GNN_CACHE_LRU) {
            lru_unlink(c, s);
            lru_push(c, s);
        } else if (c->policy == GNN_CACHE_BELADY) {
            c->nextuse[s] = c->nxt[k];
            c->last[s] = c->clock;
            heap_up(c, c->hpos[s]);
            heap_down(c, c->hpos[s]);
        }
    }
    for (size_t s = 0; s < c->used; s++)
        if (c->stamp[s] == c->pass) {
            c->frows[c->nfill] = c->row[s];
            c->fslots[c->nfill++] = (uint32_t)s;
        }
    return GNNDB_OK;
}
