/* graph_times.c — the time graph (temporal CSR) of IMPORT EDGE TIMES, built
** from the graph's edge-id graph read block by block in order: each node's
** list gathered whole (across its continuation blocks), each entry given
** its edge's time, the list sorted by (time, neighbour, edge id), and
** packed as the edge-id graph was, with the times after the ids. One list
** is held at a time, beside the times themselves. */
#include "timecol.h"
#include "block.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tg_build {
    blk_writer *w;
    tc_graph_result *r;
    size_t sums_cap, idx_cap;
    /* the list being gathered */
    uint32_t node, degree, have;
    int open;
    uint64_t packed;         /* lists packed: nodes 0 .. packed - 1 */
    uint32_t *nbr, *eid, *ord;
    int64_t *tm;
    uint32_t *snbr, *seid;
    int64_t *stm;
    size_t cap;
} tg_build;

static int tg_emit(void *arg, const void *block, uint64_t no,
                   uint32_t checksum, gnn_err *e)
{
    tg_build *b = arg;
    tc_graph_result *r = b->r;
    (void)no;
    if (r->nblocks == b->sums_cap) {
        size_t nc = b->sums_cap ? 2 * b->sums_cap : 64;
        uint32_t *p = realloc(r->checksums, nc * sizeof *p);
        if (!p) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        r->checksums = p;
        b->sums_cap = nc;
    }
    r->checksums[r->nblocks++] = checksum;
    return blkw_append(b->w, block, e);
}

static int tg_index(void *arg, uint64_t first, uint64_t no, gnn_err *e)
{
    tg_build *b = arg;
    tc_graph_result *r = b->r;
    if (r->n_idx == b->idx_cap) {
        size_t nc = b->idx_cap ? 2 * b->idx_cap : 64;
        uint64_t *f = realloc(r->idx_first, nc * sizeof *f);
        if (!f) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        r->idx_first = f;
        uint64_t *k = realloc(r->idx_block, nc * sizeof *k);
        if (!k) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        r->idx_block = k;
        b->idx_cap = nc;
    }
    r->idx_first[r->n_idx] = first;
    r->idx_block[r->n_idx++] = no;
    return GNNDB_OK;
}

static int tg_room(tg_build *b, size_t n)
{
    if (n <= b->cap) return 0;
    size_t c = b->cap ? b->cap : 64;
    while (c < n) c *= 2;
    uint32_t **u[] = {&b->nbr, &b->eid, &b->ord, &b->snbr, &b->seid};
    for (size_t i = 0; i < sizeof u / sizeof *u; i++) {
        uint32_t *p = realloc(*u[i], c * sizeof *p);
        if (!p) return -1;
        *u[i] = p;
    }
    int64_t **t[] = {&b->tm, &b->stm};
    for (size_t i = 0; i < 2; i++) {
        int64_t *p = realloc(*t[i], c * sizeof *p);
        if (!p) return -1;
        *t[i] = p;
    }
    b->cap = c;
    return 0;
}

static void tg_free(tg_build *b)
{
    free(b->nbr); free(b->eid); free(b->ord);
    free(b->tm); free(b->snbr); free(b->seid); free(b->stm);
}

/* The gathered list's order, by (time, neighbour, edge id): a merge
** sort of positions, stable and with no comparator state. */
static void tg_sort(tg_build *b, uint32_t *a, uint32_t *tmp, size_t n)
{
    if (n < 2) return;
    size_t h = n / 2;
    tg_sort(b, a, tmp, h);
    tg_sort(b, a + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        uint32_t x = a[i], y = a[j];
        int c = b->tm[x] != b->tm[y] ? (b->tm[x] < b->tm[y] ? -1 : 1)
              : b->nbr[x] != b->nbr[y] ? (b->nbr[x] < b->nbr[y] ? -1 : 1)
              : (b->eid[x] > b->eid[y]) - (b->eid[x] < b->eid[y]);
        tmp[k++] = c <= 0 ? a[i++] : a[j++];
    }
    while (i < h) tmp[k++] = a[i++];
    while (j < n) tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

static int tg_pack(tg_build *b, blk_graph_packer *pk, gnn_err *e)
{
    uint32_t n = b->degree;
    for (uint32_t j = 0; j < n; j++) b->ord[j] = j;
    tg_sort(b, b->ord, b->snbr, n);
    for (uint32_t j = 0; j < n; j++) {
        uint32_t q = b->ord[j];
        b->snbr[j] = b->nbr[q];
        b->seid[j] = b->eid[q];
        b->stm[j] = b->tm[q];
    }
    b->r->edges += n;
    b->open = 0;
    b->packed++;
    return blk_graph_packer_add_times(pk, b->node, b->snbr, b->seid, b->stm,
                                      n, e);
}

static int tg_corrupt(const blk_file *f, uint64_t no, const char *why,
                      uint32_t node, gnn_err *e)
{
    return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %llu of %s: node %u: "
                      "%s", (unsigned long long)no, f->path, node, why);
}

/* One verified block of the edge-id graph: its objects' entries added to
** the lists they belong to, each finished list packed. */
static int tg_block(tg_build *b, blk_graph_packer *pk, const blk_file *f,
                    uint64_t no, const void *blk, const int64_t *times,
                    size_t ntimes, gnn_err *e)
{
    const blk_header *h = blk;
    if (!(h->flags & BLK_FLAG_EIDS) || (h->flags & BLK_FLAG_TIMES))
        return tg_corrupt(f, no, "not an edge-id graph block", 0, e);
    for (uint32_t k = 0; k < h->count; k++) {
        const blk_node *o = blk_graph_object(blk, k);
        if (o->start == 0) {
            if (b->open)
                return tg_corrupt(f, no, "list cut short", b->node, e);
            if (o->node != b->packed)
                return tg_corrupt(f, no, "a node out of order", o->node, e);
            b->open = 1;
            b->node = o->node;
            b->degree = o->degree;
            b->have = 0;
            if (tg_room(b, (size_t)o->degree + 1))
                return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        } else if (!b->open || o->node != b->node || o->start != b->have ||
                   o->degree != b->degree) {
            return tg_corrupt(f, no, "a continuation out of place", o->node,
                              e);
        }
        const uint32_t *nb = blk_node_nbrs(o), *id = blk_node_eids(o);
        for (uint32_t j = 0; j < o->n; j++) {
            if (id[j] >= ntimes)
                return tg_corrupt(f, no, "an edge id past the input edges",
                                  o->node, e);
            b->nbr[b->have] = nb[j];
            b->eid[b->have] = id[j];
            b->tm[b->have++] = times[id[j]];
        }
        if (b->have == b->degree) {
            int rc = tg_pack(b, pk, e);
            if (rc) return rc;
        }
    }
    return GNNDB_OK;
}

int tc_build_graph(blk_file *eg, uint64_t nodes, const int64_t *times,
                   size_t ntimes, const char *dir, const char *name,
                   uint64_t token, tc_graph_result *r, gnn_err *e)
{
    memset(r, 0, sizeof *r);
    tg_build b = {.r = r};
    blk_graph_packer *pk = NULL;
    void *buf = gnn_alloc_aligned(eg->block_size);
    if (!buf) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    int rc = blkw_create(dir, name, eg->block_size, &b.w, e);
    if (!rc) rc = blk_graph_packer_new_times(eg->block_size, token, tg_emit,
                                             tg_index, &b, &pk, e);
    for (uint64_t no = 0; !rc && no < eg->nblocks; no++)
        if (!(rc = blkf_read(eg, no, buf, e)))
            rc = tg_block(&b, pk, eg, no, buf, times, ntimes, e);
    if (!rc && b.open)
        rc = tg_corrupt(eg, eg->nblocks, "its list ends early", b.node, e);
    if (!rc && b.packed != nodes)
        rc = gnn_seterr(e, GNNDB_CORRUPT, "corrupt graph file %s: %llu "
                        "lists, and the graph has %llu nodes", eg->path,
                        (unsigned long long)b.packed,
                        (unsigned long long)nodes);
    if (!rc) rc = blk_graph_packer_finish(pk, NULL, e);
    blk_graph_packer_free(pk);
    gnn_free_aligned(buf);
    tg_free(&b);
    if (!rc) {
        rc = blkw_finish(b.w, e);
        b.w = NULL;
    }
    if (rc) {
        blkw_abort(b.w);
        tc_graph_result_free(r);
    }
    return rc;
}

int tc_read_times(blk_file *tg, int64_t *times, size_t ntimes, gnn_err *e)
{
    void *buf = gnn_alloc_aligned(tg->block_size);
    if (!buf) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    int rc = GNNDB_OK;
    for (uint64_t no = 0; !rc && no < tg->nblocks; no++) {
        if ((rc = blkf_read(tg, no, buf, e))) break;
        const blk_header *h = buf;
        if (!(h->flags & BLK_FLAG_TIMES)) {
            rc = tg_corrupt(tg, no, "not a time graph block", 0, e);
            break;
        }
        for (uint32_t k = 0; !rc && k < h->count; k++) {
            const blk_node *o = blk_graph_object(buf, k);
            const uint32_t *id = blk_node_eids(o);
            for (uint32_t j = 0; j < o->n; j++) {
                if (id[j] >= ntimes) {
                    rc = tg_corrupt(tg, no, "an edge id past the input "
                                    "edges", o->node, e);
                    break;
                }
                times[id[j]] = blk_node_time(o, j);
            }
        }
    }
    gnn_free_aligned(buf);
    return rc;
}

void tc_graph_result_free(tc_graph_result *r)
{
    free(r->checksums);
    free(r->idx_first);
    free(r->idx_block);
    memset(r, 0, sizeof *r);
}
