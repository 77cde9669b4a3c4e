/* seeds.c — the seeds operator, shared by SAMPLE (hyperbatch.c) and SCAN
** (scan.c): the seeds are loaded once, as internal ids in ascending order
** (the row order on disk), and each epoch's order is derived from them on
** demand, so that an epoch costs one pass over the seeds and nothing is
** kept per epoch. Every draw is keyed by (seed, epoch, salt), so an epoch's
** order does not depend on which epochs were asked for before it. */
#include "seeds.h"
#include "../parser/ast.h"
#include "rng.h"
#include "sort.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* SEEDS (...) IN ORDER: the list as written, cut into batches in its
** order (a host that batches seeds itself, as PyG's loaders do, plans a
** round of its batches as one statement); a repeated id would be two
** seeds of one node, so it is refused. Sorts a copy to find repeats. */
static int check_distinct(const uint32_t *ids, size_t n, const int64_t *list,
                          const char *who, gnn_err *e)
{
    uint32_t *c = malloc((n + 1) * sizeof *c);
    if (!c) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    memcpy(c, ids, n * sizeof *c);
    gnn_sort_u32(c, n);
    size_t i = 1;
    while (i < n && c[i] != c[i - 1]) i++;
    uint32_t dup = i < n ? c[i] : 0;
    free(c);
    if (i >= n) return GNNDB_OK;
    for (size_t k = 0; k < n; k++)
        if (ids[k] == dup)
            return gnn_seterr(e, GNNDB_RANGE, "%sseed node %" PRId64 " is "
                              "listed twice; SEEDS (...) IN ORDER takes each "
                              "node once", who, list[k]);
    return GNNDB_OK;
}

/* SEEDS (...): map each listed id to its internal id, then sort and drop
** repeats, so that the order of the list and a repeated id change nothing;
** with IN ORDER (`ordered`) keep the list as it is. */
static int load_list(gnndb *db, const cat_graph *g, const int64_t *list,
                     size_t nlist, int ordered, const char *who, seed_set *s,
                     gnn_err *e)
{
    if (!(s->ids = malloc((nlist + 1) * sizeof *s->ids)))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    idx_txn *t = NULL;
    int rc = GNNDB_OK;
    if (g->has_map && (rc = idx_begin(db->idx, 0, &t, e))) return rc;
    for (size_t i = 0; !rc && i < nlist; i++) {
        int64_t id = list[i];
        uint64_t in = (uint64_t)id;
        if (t) rc = idx_get_key(t, g->token, id, &in, e);
        else if (id < 0 || id >= g->nodes) rc = GNNDB_NOTFOUND;
        if (rc == GNNDB_NOTFOUND)
            rc = gnn_seterr(e, GNNDB_NOTFOUND, "%sseed node %" PRId64
                            " is not in graph %s", who, id, g->name);
        s->ids[i] = (uint32_t)in;
    }
    idx_abort(t);
    if (rc) return rc;
    if (ordered) {
        s->n = (int64_t)nlist;
        return check_distinct(s->ids, nlist, list, who, e);
    }
    size_t w = 0;
    gnn_sort_u32(s->ids, nlist);
    for (size_t i = 0; i < nlist; i++)
        if (i == 0 || s->ids[i] != s->ids[i - 1]) s->ids[w++] = s->ids[i];
    s->n = (int64_t)w;
    return GNNDB_OK;
}

int seeds_load(gnndb *db, const cat_graph *g, int kind, uint64_t split,
               const int64_t *list, size_t nlist, const char *who,
               seed_set *s, gnn_err *e)
{
    memset(s, 0, sizeof *s);
    s->order_epoch = -1;
    if (kind == AST_SEEDS_SPLIT) {
        idx_txn *t;
        uint64_t n = 0;
        int rc = idx_begin(db->idx, 0, &t, e);
        if (rc) return rc;
        rc = idx_load_split(t, split, &s->ids, &n, e);
        idx_abort(t);
        s->n = (int64_t)n;
        return rc;
    }
    if (kind == AST_SEEDS_LIST || kind == AST_SEEDS_ORDERED)
        return load_list(db, g, list, nlist, kind == AST_SEEDS_ORDERED, who,
                         s, e);
    s->n = g->nodes;
    if (!(s->ids = malloc(((size_t)s->n + 1) * sizeof *s->ids)))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    for (int64_t i = 0; i < s->n; i++) s->ids[i] = (uint32_t)i;
    return GNNDB_OK;
}

int seeds_order_init(seed_set *s, int64_t chunk, int shuffle, uint64_t seed,
                     uint64_t salt, int64_t lo, int64_t len, gnn_err *e)
{
    s->chunk = chunk > 0 ? chunk : 1;
    s->nchunks = (s->n + s->chunk - 1) / s->chunk;
    s->shuffle = shuffle;
    s->seed = seed;
    s->salt = salt;
    s->lo = lo;
    s->len = len;
    s->order_epoch = -1;
    s->order = malloc(((size_t)s->n + 1) * sizeof *s->order);
    /* single seeds are shuffled in place: no chunk order to keep */
    if (s->chunk > 1)
        s->perm = malloc(((size_t)s->nchunks + 1) * sizeof *s->perm);
    if (!s->order || (s->chunk > 1 && !s->perm))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    return GNNDB_OK;
}

/* Fisher-Yates over a[0..n), draw i choosing among the first i + 1: the
** same swaps whether a holds seeds or chunk numbers, so chunks of one seed
** give the order that shuffling the seeds themselves gives. */
static void shuffle_u32(uint32_t *a, int64_t n, uint64_t key)
{
    for (int64_t i = n - 1; i > 0; i--) {
        uint64_t j = rng_below(rng_draw(key, (uint64_t)i), (uint64_t)i + 1);
        uint32_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

const uint32_t *seeds_order(seed_set *s, int64_t epoch)
{
    if (s->order_epoch == epoch) return s->order;
    uint64_t key = rng_key(s->seed, (uint64_t)epoch, UINT64_MAX, UINT64_MAX,
                           s->salt);
    if (s->chunk == 1) {
        memcpy(s->order, s->ids, (size_t)s->n * sizeof *s->order);
        if (s->shuffle) shuffle_u32(s->order, s->n, key);
    } else {
        for (int64_t i = 0; i < s->nchunks; i++) s->perm[i] = (uint32_t)i;
        if (s->shuffle) shuffle_u32(s->perm, s->nchunks, key);
        int64_t o = 0;
        for (int64_t i = 0; i < s->nchunks; i++) {
            int64_t lo = (int64_t)s->perm[i] * s->chunk;
            int64_t hi = GNN_MIN(lo + s->chunk, s->n);
            memcpy(s->order + o, s->ids + lo,
                   (size_t)(hi - lo) * sizeof *s->order);
            o += hi - lo;
        }
    }
    if (s->lo > 0)
        memmove(s->order, s->order + s->lo, (size_t)s->len * sizeof *s->order);
    s->order_epoch = epoch;
    return s->order;
}

void seeds_free(seed_set *s)
{
    free(s->ids);
    free(s->order);
    free(s->perm);
    memset(s, 0, sizeof *s);
}
