/* bcache.c — the hot-block cache (bcache.h): a slot per pinned block and a
** block -> slot table over the whole feature table. */
#include "bcache.h"
#include "sort.h"

#include <stdlib.h>
#include <string.h>

struct bcache {
    size_t cap, n;
    uint32_t block_size;
    uint64_t nblocks;
    unsigned char *data;     /* cap blocks */
    int32_t *slot;           /* per block of the table: its slot, or -1 */
    uint64_t *pinned;        /* the pinned blocks, ascending */
};

int bc_open(size_t cap, uint32_t block_size, uint64_t nblocks, bcache **out,
            gnn_err *e)
{
    *out = NULL;
    bcache *c = calloc(1, sizeof *c);
    if (!c) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    c->cap = cap < nblocks ? cap : (size_t)nblocks;
    c->block_size = block_size;
    c->nblocks = nblocks;
    c->data = malloc(c->cap * (size_t)block_size + 1);
    c->slot = malloc((size_t)nblocks * sizeof *c->slot + 1);
    c->pinned = malloc(c->cap * sizeof *c->pinned + 1);
    if (!c->data || !c->slot || !c->pinned) {
        bc_close(c);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory for the hot-block "
                          "cache (%zu blocks)", cap);
    }
    memset(c->slot, 0xff, (size_t)nblocks * sizeof *c->slot);
    *out = c;
    return GNNDB_OK;
}

void bc_close(bcache *c)
{
    if (!c) return;
    free(c->data);
    free(c->slot);
    free(c->pinned);
    free(c);
}

size_t bc_capacity(const bcache *c) { return c->cap; }

static int cmp_weight(const void *a, const void *b)
{
    /* (weight, block) pairs: heavier first, then the lower block */
    const uint64_t *p = a, *q = b;
    if (p[0] != q[0]) return p[0] < q[0] ? 1 : -1;
    return (p[1] > q[1]) - (p[1] < q[1]);
}

int bc_choose(bcache *c, const uint64_t *weight, gnn_err *e)
{
    uint64_t *pairs = malloc(((size_t)c->nblocks + 1) * 2 * sizeof *pairs);
    if (!pairs) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    for (uint64_t b = 0; b < c->nblocks; b++) {
        pairs[2 * b] = weight[b];
        pairs[2 * b + 1] = b;
    }
    qsort(pairs, (size_t)c->nblocks, 2 * sizeof *pairs, cmp_weight);
    c->n = 0;
    for (size_t i = 0; i < c->cap; i++) c->pinned[c->n++] = pairs[2 * i + 1];
    free(pairs);
    gnn_sort_u64(c->pinned, c->n);
    for (size_t i = 0; i < c->n; i++) c->slot[c->pinned[i]] = (int32_t)i;
    return GNNDB_OK;
}

const uint64_t *bc_pinned(const bcache *c, size_t *n)
{
    *n = c->n;
    return c->pinned;
}

void bc_store(bcache *c, uint64_t no, const void *data)
{
    if (no >= c->nblocks || c->slot[no] < 0) return;
    memcpy(c->data + (size_t)c->slot[no] * c->block_size, data, c->block_size);
}

const void *bc_get(const bcache *c, uint64_t no)
{
    if (!c || no >= c->nblocks || c->slot[no] < 0) return NULL;
    return c->data + (size_t)c->slot[no] * c->block_size;
}
