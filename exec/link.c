/* link.c — the link operator (link.h): seed edges, negatives, endpoints,
** labels and the EXCLUDE rule of an edge-seeded SAMPLE. */
#include "link.h"
#include "block.h"
#include "index.h"
#include "rng.h"
#include "sort.h"
#include "grow.h"
#include "../parser/ast.h"

#include <stdlib.h>
#include <string.h>

/* The hop number under which negatives are drawn: apart from every real
** hop's key (hops are < AST_MAX_HOPS). */
#define LK_NEG_HOP 0x4e45ull

/* Grow each of the n arrays ps[i] to hold `need` elements of elem[i]
** bytes; *cap is their shared capacity. */
static int grow_all(void **ps[], const size_t *elem, int n, size_t *cap,
                    size_t need)
{
    if (need <= *cap) return 0;
    size_t c = gnn_grow_cap(*cap, need);
    for (int i = 0; i < n; i++) {
        void *q = realloc(*ps[i], c * elem[i]);
        if (!q) return -1;
        *ps[i] = q;
    }
    *cap = c;
    return 0;
}

/* Size b's per-seed and per-negative arrays for npos, nneg. */
static int batch_reserve(lk_batch *b, size_t npos, size_t nneg)
{
    void **pos[] = {(void **)&b->psrc, (void **)&b->pdst,
                    (void **)&b->sorted_eid, (void **)&b->peid};
    void **neg[] = {(void **)&b->nsrc, (void **)&b->ndst, (void **)&b->ntry};
    const size_t ep[] = {4, 4, 4, 4}, en[] = {4, 4, 1};
    return grow_all(pos, ep, 4, &b->cap_pos, npos) ||
           grow_all(neg, en, 3, &b->cap_neg, nneg);
}

/* Index of `id` in ascending a[0..n), or n. */
static size_t find_u32(const uint32_t *a, size_t n, uint32_t id)
{
    size_t at = gnn_lower_u32(a, n, id);
    return at < n && a[at] == id ? at : n;
}

/* Negative i of b under `key` as its attempt: its destination (and its
** source with PAIRS, else its positive's) drawn among the first c nodes of
** `order` (NULL: the nodes 0 .. c-1). */
static void draw_negative(const lk_spec *sp, uint64_t key, unsigned attempt,
                          const uint32_t *order, size_t c, lk_batch *b,
                          size_t i)
{
    uint64_t d = rng_below(rng_draw(key, 2 * (uint64_t)i + 1), c);
    b->ntry[i] = (uint8_t)attempt;
    b->ndst[i] = order ? order[d] : (uint32_t)d;
    if (sp->mode == AST_NEG_PAIRS) {
        uint64_t s = rng_below(rng_draw(key, 2 * (uint64_t)i), c);
        b->nsrc[i] = order ? order[s] : (uint32_t)s;
    } else {
        b->nsrc[i] = b->psrc[i / (size_t)sp->k];
    }
}

void lk_redraw(const lk_spec *sp, int64_t epoch, int64_t batch, lk_batch *b,
               size_t i, unsigned attempt)
{
    uint64_t key = rng_key(sp->seed, (uint64_t)epoch, (uint64_t)batch,
                           LK_NEG_HOP, attempt);
    draw_negative(sp, key, attempt, NULL, sp->nodes, b, i);
}

int lk_batch_fill(const lk_spec *sp, const lk_seeds *sd, const uint32_t *order,
                  int64_t lo, int64_t hi, int64_t epoch, int64_t batch,
                  lk_batch *b, gnn_err *e)
{
    size_t npos = (size_t)(hi - lo), nneg = npos * (size_t)sp->k;
    if (batch_reserve(b, npos, nneg))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory drawing negatives");
    b->npos = npos;
    b->nneg = nneg;
    b->spec = sp;
    for (size_t i = 0; i < npos; i++) {
        uint32_t id = order[lo + (int64_t)i];
        size_t at = find_u32(sd->eid, sd->n, id);
        if (at == sd->n)
            return gnn_seterr(e, GNNDB_CORRUPT, "seed edge %u is not among "
                              "the split's edges", id);
        b->psrc[i] = sd->src[at];
        b->pdst[i] = sd->dst[at];
        b->sorted_eid[i] = id;
        b->peid[i] = id;
    }
    gnn_sort_u32(b->sorted_eid, npos);
    for (size_t i = 0; i < nneg; i++) lk_redraw(sp, epoch, batch, b, i, 0);
    return GNNDB_OK;
}

int lk_endpoints(lk_batch *b, gnn_err *e)
{
    size_t n = 2 * b->npos + 2 * b->nneg;
    if (gnn_grow((void **)&b->ends, &b->cap_ends, n + 1, 4))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    uint32_t *a = b->ends;
    /* without negatives their arrays may never have been allocated */
    if (b->npos) {
        memcpy(a, b->psrc, b->npos * 4);
        memcpy(a + b->npos, b->pdst, b->npos * 4);
    }
    if (b->nneg) {
        memcpy(a + 2 * b->npos, b->nsrc, b->nneg * 4);
        memcpy(a + 2 * b->npos + b->nneg, b->ndst, b->nneg * 4);
    }
    gnn_sort_u32(a, n);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || a[i] != a[m - 1]) a[m++] = a[i];
    b->nends = m;
    return GNNDB_OK;
}

static int by_time_cmp(const void *a, const void *b, void *arg)
{
    const int64_t *t = arg;
    uint32_t u = *(const uint32_t *)a, v = *(const uint32_t *)b;
    if (t[u] != t[v]) return t[u] < t[v] ? -1 : 1;
    return (u > v) - (u < v);
}

int lk_by_time(int64_t *t, size_t n, uint32_t **nodes, gnn_err *e)
{
    uint32_t *id = malloc((n + 1) * sizeof *id);
    int64_t *sorted = malloc((n + 1) * sizeof *sorted);
    if (!id || !sorted) {
        free(id);
        free(sorted);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory sorting %zu nodes "
                          "by time", n);
    }
    for (size_t i = 0; i < n; i++) id[i] = (uint32_t)i;
    qsort_r(id, n, sizeof *id, by_time_cmp, t);
    for (size_t i = 0; i < n; i++) sorted[i] = t[id[i]];
    memcpy(t, sorted, n * sizeof *t);
    free(sorted);
    *nodes = id;
    return GNNDB_OK;
}

/* How many nodes are there at time T: those with a time <= T. */
static size_t there_at(const lk_spec *sp, int64_t T)
{
    size_t lo = 0, hi = sp->nodes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sp->times[mid] <= T) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int lk_time_negatives(const lk_spec *sp, int64_t epoch, int64_t batch,
                      lk_batch *b, const int64_t *tpos, gnn_err *e)
{
    size_t k = sp->k > 0 ? (size_t)sp->k : 1;
    uint64_t key = rng_key(sp->seed, (uint64_t)epoch, (uint64_t)batch,
                           LK_NEG_HOP, 0);
    for (size_t i = 0; i < b->nneg; i++) {
        int64_t T = tpos[i / k];
        size_t c = there_at(sp, T);
        if (c == 0)
            return gnn_seterr(e, GNNDB_RANGE, "seed edge %u has time %lld, "
                              "and no node has a time at or before it: no "
                              "negative can be drawn for it",
                              b->peid[i / k], (long long)T);
        draw_negative(sp, key, 0, sp->by_time, c, b, i);
    }
    return GNNDB_OK;
}

size_t lk_nroots(const lk_spec *sp, const lk_batch *b)
{
    return sp->mode == AST_NEG_TRIPLET ? 2 * b->npos + b->nneg
                                       : 2 * (b->npos + b->nneg);
}

void lk_roots(const lk_spec *sp, const lk_batch *b, const int64_t *tpos,
              uint32_t *root, int64_t *rtime)
{
    size_t k = sp->k > 0 ? (size_t)sp->k : 1, r = 0;
    int triplet = sp->mode == AST_NEG_TRIPLET;
    for (int half = 0; half < 2; half++) {
        const uint32_t *pos = half ? b->pdst : b->psrc;
        for (size_t i = 0; i < b->npos; i++, r++) {
            root[r] = pos[i];
            rtime[r] = tpos[i];
        }
        if (triplet && !half) continue;   /* its sources are the positives' */
        const uint32_t *neg = half ? b->ndst : b->nsrc;
        for (size_t j = 0; j < b->nneg; j++, r++) {
            root[r] = neg[j];
            rtime[r] = tpos[j / k];
        }
    }
}

/* The local index of endpoint v: its rank among the endpoints. */
static int64_t local_of(const lk_batch *b, uint32_t v)
{
    return (int64_t)find_u32(b->ends, b->nends, v);
}

/* A disjoint batch's label edges index its roots by place (lk_roots). */
static void finish_disjoint(const lk_spec *sp, lk_batch *b)
{
    size_t B = b->npos, L = B + b->nneg;
    if (sp->mode == AST_NEG_TRIPLET) {
        for (size_t i = 0; i < B; i++) {
            b->src_index[i] = (int64_t)i;
            b->dst_pos_index[i] = (int64_t)(B + i);
        }
        for (size_t j = 0; j < b->nneg; j++)
            b->dst_neg_index[j] = (int64_t)(2 * B + j);
        return;
    }
    for (size_t i = 0; i < L; i++) {
        b->label_index[i] = (int64_t)i;
        b->label_index[L + i] = (int64_t)(L + i);
        b->label[i] = i < B ? 1.0f : 0.0f;
    }
}

static void finish_binary(lk_batch *b)
{
    size_t L = b->npos + b->nneg;
    for (size_t i = 0; i < b->npos; i++) {
        b->label_index[i] = local_of(b, b->psrc[i]);
        b->label_index[L + i] = local_of(b, b->pdst[i]);
        b->label[i] = 1.0f;
    }
    for (size_t i = 0; i < b->nneg; i++) {
        b->label_index[b->npos + i] = local_of(b, b->nsrc[i]);
        b->label_index[L + b->npos + i] = local_of(b, b->ndst[i]);
        b->label[b->npos + i] = 0.0f;
    }
}

static void finish_triplet(lk_batch *b)
{
    for (size_t i = 0; i < b->npos; i++) {
        b->src_index[i] = local_of(b, b->psrc[i]);
        b->dst_pos_index[i] = local_of(b, b->pdst[i]);
    }
    for (size_t i = 0; i < b->nneg; i++)
        b->dst_neg_index[i] = local_of(b, b->ndst[i]);
}

int lk_finish(const lk_spec *sp, lk_batch *b, gnn_err *e)
{
    size_t L = b->npos + b->nneg;
    /* one allocation: 2L indices and L labels (binary), or 2B + kB
    ** indices (TRIPLET) */
    size_t words = 3 * L + 1;
    if (gnn_grow((void **)&b->label_index, &b->cap_out, words, 8))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    if (sp->mode == AST_NEG_TRIPLET) {
        b->src_index = b->label_index;
        b->dst_pos_index = b->src_index + b->npos;
        b->dst_neg_index = b->dst_pos_index + b->npos;
        b->label = NULL;
    } else {
        b->label = (float *)(b->label_index + 2 * L);
        b->src_index = b->dst_pos_index = b->dst_neg_index = NULL;
    }
    if (sp->disjoint) finish_disjoint(sp, b);
    else if (sp->mode == AST_NEG_TRIPLET) finish_triplet(b);
    else finish_binary(b);
    return GNNDB_OK;
}

int lk_excluded(const lk_spec *sp, const lk_batch *b, uint32_t eid)
{
    if (sp->excluded && eid < sp->nexcluded &&
        (sp->excluded[eid >> 6] >> (eid & 63) & 1))
        return 1;
    return sp->exclude_seeds &&
           find_u32(b->sorted_eid, b->npos, eid) < b->npos;
}

void lk_batch_free(lk_batch *b)
{
    free(b->psrc);
    free(b->pdst);
    free(b->nsrc);
    free(b->ndst);
    free(b->ntry);
    free(b->sorted_eid);
    free(b->peid);
    free(b->ends);
    free(b->label_index);
    memset(b, 0, sizeof *b);
}

void lk_seeds_free(lk_seeds *sd)
{
    free(sd->src);
    free(sd->dst);
    memset(sd, 0, sizeof *sd);
}
