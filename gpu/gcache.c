/* gcache.c — the GPU feature cache's host side: counting the first
** batches' rows, choosing the most frequent, and planning each batch's
** gather (gcache.h). The device side is gcache_cuda.cu. */
#include "gcache.h"
#include "gcache_kernel.h"

#include <stdlib.h>
#include <string.h>

/* A 64-bit mix (MurmurHash3's finaliser): ids of any spread, even ones
** that step by a power of two, fill a power-of-two table evenly. */
static size_t slot_of(int64_t id, size_t cap)
{
    uint64_t z = (uint64_t)id;
    z ^= z >> 33;
    z *= 0xff51afd7ed558ccdull;
    z ^= z >> 33;
    z *= 0xc4ceb9fe1a85ec53ull;
    z ^= z >> 33;
    return (size_t)(z & (cap - 1));
}

/* The power of two that keeps n entries at most three quarters full. */
static size_t table_cap(size_t n)
{
    size_t cap = 16;
    while (cap / 4 * 3 < n) cap *= 2;
    return cap;
}

static size_t count_limit(int64_t rows) { return (size_t)rows * 2 + 1024; }

size_t gc_host_bytes(int64_t rows)
{
    if (rows <= 0) return 0;
    size_t entry = sizeof(int64_t) + sizeof(uint32_t);
    return table_cap(count_limit(rows)) * entry +
           table_cap((size_t)rows) * (sizeof(int64_t) + sizeof(int32_t)) +
           (size_t)rows;
}

int gc_init(gcache *g, int64_t rows, int64_t dim, int warm, gnn_err *e)
{
    memset(g, 0, sizeof *g);
    if (rows <= 0 || dim <= 0 || rows > INT32_MAX)
        return gnn_seterr(e, GNNDB_RANGE, "gpu cache of %lld rows of %lld "
                          "floats: use 1 to 2^31 - 1 rows", (long long)rows,
                          (long long)dim);
    g->rows = rows;
    g->dim = dim;
    g->warm_left = warm < 1 ? 1 : warm > GC_WARM_MAX ? GC_WARM_MAX : warm;
    g->climit = count_limit(rows);
    g->ccap = table_cap(g->climit);
    g->ckey = malloc(g->ccap * sizeof *g->ckey);
    g->ccount = calloc(g->ccap, sizeof *g->ccount);
    if (!g->ckey || !g->ccount) {
        gc_free(g);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory for the gpu "
                          "cache's counts (%zu entries)", g->climit);
    }
    return GNNDB_OK;
}

void gc_free(gcache *g)
{
    free(g->ckey);
    free(g->ccount);
    free(g->skey);
    free(g->sslot);
    free(g->valid);
    memset(g, 0, sizeof *g);
}

static void count_one(gcache *g, int64_t id)
{
    size_t s = slot_of(id, g->ccap);
    while (g->ccount[s] && g->ckey[s] != id) s = (s + 1) & (g->ccap - 1);
    if (g->ccount[s]) {
        g->ccount[s]++;
    } else if (g->cn < g->climit) {
        g->ckey[s] = id;
        g->ccount[s] = 1;
        g->cn++;
    }
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void give_slot(gcache *g, int64_t id)
{
    size_t s = slot_of(id, g->scap);
    while (g->sslot[s] >= 0) s = (s + 1) & (g->scap - 1);
    g->skey[s] = id;
    g->sslot[s] = (int32_t)g->chosen++;
}

/* The ids counted more than `above` times get slots; then, of those
** counted exactly `above` times, the lowest ids while slots remain. */
static int choose(gcache *g, gnn_err *e)
{
    uint32_t maxc = 0;
    for (size_t s = 0; s < g->ccap; s++)
        if (g->ccount[s] > maxc) maxc = g->ccount[s];
    /* the count `above` at which the slots run out */
    size_t n = 0;
    uint32_t above = maxc;
    for (; above >= 1; above--) {
        size_t k = 0;
        for (size_t s = 0; s < g->ccap; s++) k += g->ccount[s] == above;
        if (n + k >= (size_t)g->rows) break;
        n += k;
    }
    g->scap = table_cap((size_t)g->rows);
    g->skey = malloc(g->scap * sizeof *g->skey);
    g->sslot = malloc(g->scap * sizeof *g->sslot);
    g->valid = calloc((size_t)g->rows, 1);
    int64_t *ties = malloc((g->cn + 1) * sizeof *ties);
    if (!g->skey || !g->sslot || !g->valid || !ties) {
        free(ties);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory choosing the gpu "
                          "cache's rows");
    }
    memset(g->sslot, 0xff, g->scap * sizeof *g->sslot);
    size_t nt = 0;
    for (size_t s = 0; s < g->ccap; s++) {
        if (g->ccount[s] > above && g->ccount[s]) give_slot(g, g->ckey[s]);
        else if (above && g->ccount[s] == above) ties[nt++] = g->ckey[s];
    }
    qsort(ties, nt, sizeof *ties, cmp_id);
    for (size_t i = 0; i < nt && g->chosen < g->rows; i++)
        give_slot(g, ties[i]);
    free(ties);
    return GNNDB_OK;
}

int gc_observe(gcache *g, const int64_t *ids, int64_t n, gnn_err *e)
{
    if (gc_ready(g)) return GNNDB_OK;
    for (int64_t i = 0; i < n; i++) count_one(g, ids[i]);
    if (--g->warm_left > 0) return GNNDB_OK;
    int rc = choose(g, e);
    free(g->ckey);
    free(g->ccount);
    g->ckey = NULL;
    g->ccount = NULL;
    g->ccap = g->cn = 0;
    return rc;
}

static int32_t lookup(const gcache *g, int64_t id)
{
    size_t s = slot_of(id, g->scap);
    while (g->sslot[s] >= 0) {
        if (g->skey[s] == id) return g->sslot[s];
        s = (s + 1) & (g->scap - 1);
    }
    return -1;
}

int64_t gc_plan(const gcache *g, const int64_t *ids, int64_t n, int32_t *src,
                int32_t *miss, int32_t *admit)
{
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t slot = gc_ready(g) ? lookup(g, ids[i]) : -1;
        if (slot >= 0 && g->valid[slot]) {
            src[i] = slot;
            continue;
        }
        src[i] = (int32_t)(-(m + 1));
        miss[m] = (int32_t)i;
        admit[m++] = slot;
    }
    return m;
}

void gc_commit(gcache *g, const int32_t *admit, int64_t nmiss)
{
    for (int64_t m = 0; m < nmiss; m++) {
        int32_t s = admit[m];
        if (s >= 0 && !g->valid[s]) {
            g->valid[s] = 1;
            g->filled++;
        }
    }
}

void gc_gather_host(const gc_args *a, int64_t lo, int64_t hi)
{
    for (int64_t e = lo; e < hi; e++) gc_elem(a, e);
}
