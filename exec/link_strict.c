/* link_strict.c — STRICT negatives (link.h): whether pairs are edges, read
** from the graph's adjacency lists, and redrawing the ones that are. */
#include "link.h"
#include "block.h"
#include "index.h"
#include "sort.h"

#include <stdlib.h>
#include <string.h>

typedef struct q_job {       /* one lk_edges_exist call */
    const lk_graph *g;
    const uint32_t *u, *v;
    uint8_t *hit;
    uint64_t *key;           /* (start block << 32 | query), ascending */
    size_t n;                /* queries */
    uint32_t *more;          /* queries whose lists go on past their block */
    size_t nmore;
} q_job;

/* 1 when `u` is in ascending a[0..n). */
static int has_u32(const uint32_t *a, size_t n, uint32_t u)
{
    size_t at = gnn_lower_u32(a, n, u);
    return at < n && a[at] == u;
}

static int corrupt(const lk_graph *g, uint64_t no, uint32_t node, gnn_err *e)
{
    return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %llu of %s: node %u "
                      "is not where the index says", (unsigned long long)no,
                      g->f->path, node);
}

/* The first of j's keys whose block is `no` (or j->n). */
static size_t first_key(const q_job *j, uint64_t no)
{
    size_t lo = 0, hi = j->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (j->key[mid] >> 32 < no) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Look each query of block `no` up in its node's first object; a list
** that goes on past the block, with u beyond what this block holds, is
** finished by finish_long. bp_fetch visits the blocks in the pool first,
** then the others as their reads complete: not in ascending order, so
** each block finds its own keys. */
static int visit_start(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    q_job *j = arg;
    for (size_t k = first_key(j, no); k < j->n && j->key[k] >> 32 == no;
         k++) {
        uint32_t q = (uint32_t)j->key[k];
        const blk_node *o = blk_graph_find(data, j->v[q]);
        if (!o || o->start != 0) return corrupt(j->g, no, j->v[q], e);
        const uint32_t *nb = blk_node_nbrs(o);
        j->hit[q] = (uint8_t)has_u32(nb, o->n, j->u[q]);
        if (!j->hit[q] && o->n < o->degree &&
            (o->n == 0 || j->u[q] > nb[o->n - 1]))
            j->more[j->nmore++] = q;
    }
    return GNNDB_OK;
}

/* The rest of query q's list, block after block, until u is found or
** passed (lists are ascending). */
static int finish_long(q_job *j, uint32_t q, gnn_err *e)
{
    const lk_graph *g = j->g;
    uint64_t no = idx_block_of(g->idx_first, g->idx_block, g->nidx, j->v[q]);
    for (;;) {
        if (++no >= g->nblocks) return corrupt(g, no, j->v[q], e);
        const void *data;
        int rc = bp_get(g->pool, g->f, no, &data, e);
        if (rc) return rc;
        const blk_header *h = data;
        const blk_node *o = h->count ? blk_graph_object(data, 0) : NULL;
        if (!o || o->node != j->v[q] || !(h->flags & BLK_FLAG_CONT_FIRST)) {
            bp_unpin(g->pool, g->f, no);
            return corrupt(g, no, j->v[q], e);
        }
        const uint32_t *nb = blk_node_nbrs(o);
        int found = has_u32(nb, o->n, j->u[q]);
        int done = found || o->n == 0 || j->u[q] <= nb[o->n - 1] ||
                   o->start + o->n >= o->degree;
        bp_unpin(g->pool, g->f, no);
        if (done) {
            j->hit[q] = (uint8_t)found;
            return GNNDB_OK;
        }
    }
}

int lk_edges_exist(const lk_graph *g, const uint32_t *u, const uint32_t *v,
                   size_t n, uint8_t *hit, gnn_err *e)
{
    q_job j = {.g = g, .u = u, .v = v, .hit = hit, .n = n};
    uint64_t *blocks = NULL;
    j.key = malloc((n + 1) * sizeof *j.key);
    j.more = malloc((n + 1) * sizeof *j.more);
    blocks = malloc((n + 1) * sizeof *blocks);
    int rc = GNNDB_OK;
    if (!j.key || !j.more || !blocks) {
        rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory checking negatives");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        j.key[i] = idx_block_of(g->idx_first, g->idx_block, g->nidx, v[i])
                       << 32 | i;
    gnn_sort_u64(j.key, n);
    size_t nb = 0;
    for (size_t i = 0; i < n; i++)
        if (!nb || blocks[nb - 1] != j.key[i] >> 32) blocks[nb++] = j.key[i] >> 32;
    rc = bp_fetch(g->pool, g->f, blocks, nb, visit_start, &j, e);
    for (size_t i = 0; !rc && i < j.nmore; i++) rc = finish_long(&j, j.more[i], e);
out:
    free(j.key);
    free(j.more);
    free(blocks);
    return rc;
}

/* The negatives of b[0..nb) still to be checked: (mini-batch, negative). */
typedef struct pend_neg {
    uint32_t bi;
    uint32_t i;
} pend_neg;

static int strict_round(const lk_graph *g, lk_batch *const *b,
                        const pend_neg *pn, size_t n, uint8_t *hit,
                        gnn_err *e)
{
    uint32_t *u = malloc((n + 1) * 4), *v = malloc((n + 1) * 4);
    int rc;
    if (!u || !v) {
        rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory checking negatives");
    } else {
        for (size_t q = 0; q < n; q++) {
            u[q] = b[pn[q].bi]->nsrc[pn[q].i];
            v[q] = b[pn[q].bi]->ndst[pn[q].i];
        }
        rc = lk_edges_exist(g, u, v, n, hit, e);
    }
    free(u);
    free(v);
    return rc;
}

int lk_strict(const lk_spec *sp, const lk_graph *g, lk_batch *const *b,
              const int64_t *epochs, const int64_t *batches, size_t nb,
              gnn_err *e)
{
    size_t n = 0;
    for (size_t k = 0; k < nb; k++) n += b[k]->nneg;
    pend_neg *pn = malloc((n + 1) * sizeof *pn);
    uint8_t *hit = malloc(n + 1);
    int rc = GNNDB_OK;
    if (!pn || !hit) {
        rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory checking negatives");
        goto out;
    }
    n = 0;
    for (size_t k = 0; k < nb; k++)
        for (size_t i = 0; i < b[k]->nneg; i++)
            pn[n++] = (pend_neg){(uint32_t)k, (uint32_t)i};
    for (unsigned attempt = 1; n && !rc; attempt++) {
        if ((rc = strict_round(g, b, pn, n, hit, e))) break;
        size_t m = 0;
        for (size_t q = 0; q < n; q++) {
            if (!hit[q]) continue;
            lk_batch *bb = b[pn[q].bi];
            if (attempt > LK_MAX_ATTEMPTS) {
                rc = gnn_seterr(e, GNNDB_RANGE, "STRICT: no negative found "
                                "from node %u in %d draws (the first and %d "
                                "redraws); the graph is too dense there for "
                                "STRICT negatives", bb->nsrc[pn[q].i],
                                LK_MAX_ATTEMPTS + 1, LK_MAX_ATTEMPTS);
                break;
            }
            lk_redraw(sp, epochs[pn[q].bi], batches[pn[q].bi], bb, pn[q].i,
                      attempt);
            pn[m++] = pn[q];
        }
        n = m;
    }
out:
    free(pn);
    free(hit);
    return rc;
}
