/* graph_delta_rows.c — the rest of an append's delta (graph_delta.h): the
** rows appended to a table (the edge table), and a graph's degrees read
** back for its statistics. */
#include "graph_delta.h"
#include "block.h"
#include "grow.h"
#include "sort.h"

#include <stdlib.h>
#include <string.h>

/* The segments and runs of the old table's first `keep` blocks, then the
** new segment's `nseg` blocks. */
static int table_map(const gd_table *o, uint64_t keep, const char *seg_name,
                     uint64_t seg_token, uint64_t nseg, seg_map *m,
                     gnn_err *e)
{
    uint32_t ns = 0;
    int rc = seg_map_add_file(m, o->map, o->name, o->token, o->f->nblocks, e);
    if (!rc && nseg) rc = seg_map_add_seg(m, seg_name, seg_token, nseg, &ns, e);
    if (!rc) rc = seg_map_add_old(m, o->map, 0, keep, e);
    if (!rc && nseg) rc = seg_map_add_run(m, ns, 0, nseg, e);
    return rc ? rc : seg_map_prune(m, e);
}

typedef struct rows_out {
    blk_writer *w;
    uint8_t *block, *tail;
    uint32_t *sums;
    size_t cap;
    uint64_t phys;
} rows_out;

/* Seal and write the block of rows [r0, r0 + n). */
static int put_rows_block(const gd_table *o, rows_out *x, uint64_t r0,
                          uint32_t n, uint64_t token, gnn_err *e)
{
    uint32_t bs = o->f->block_size;
    size_t rb = (size_t)o->dim * blk_dtype_size(o->dtype);
    blk_seal(x->block, bs, BLK_KIND_FEATURE, x->phys, r0, token, n,
             (uint32_t)(blk_data_offset(bs) + n * rb), 0, o->dtype, o->dim);
    if (gnn_grow((void **)&x->sums, &x->cap, (size_t)x->phys + 1,
                 sizeof *x->sums))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    x->sums[x->phys++] = ((const blk_header *)x->block)->checksum;
    return blkw_append(x->w, x->block, e);
}

/* Rows [first, total): the old ones of the part-full block (x->tail),
** then the new ones, into whole blocks of the new segment. */
static int write_rows(const gd_table *o, rows_out *x, uint64_t first,
                      const uint8_t *rows, uint64_t total, uint64_t token,
                      gnn_err *e)
{
    uint32_t bs = o->f->block_size, rpb = o->rows_per_block;
    size_t rb = (size_t)o->dim * blk_dtype_size(o->dtype);
    for (uint64_t r0 = first; r0 < total; r0 += rpb) {
        uint32_t n = (uint32_t)GNN_MIN((uint64_t)rpb, total - r0);
        memset(x->block, 0, bs);
        uint8_t *dst = x->block + blk_data_offset(bs);
        for (uint32_t i = 0; i < n; i++) {
            uint64_t row = r0 + i;
            const void *src = row < o->rows
                ? blk_feature_row(x->tail, (uint32_t)(row - first))
                : rows + (row - o->rows) * rb;
            memcpy(dst + i * rb, src, rb);
        }
        int rc = put_rows_block(o, x, r0, n, token, e);
        if (rc) return rc;
    }
    return GNNDB_OK;
}

int gd_append_rows(const gd_table *old, const void *rows, uint64_t nrows,
                   const char *dir, const char *seg_name, uint64_t seg_token,
                   uint64_t map_token, gd_result *out, gnn_err *e)
{
    memset(out, 0, sizeof *out);
    uint32_t bs = old->f->block_size, rpb = old->rows_per_block;
    uint64_t keep = old->rows / rpb, first = keep * rpb;
    rows_out x = {0};
    int rc = GNNDB_OK;
    if (!(x.block = gnn_alloc_aligned(bs)) ||
        !(x.tail = gnn_alloc_aligned(bs)))
        rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    if (!rc && old->rows > first) {
        rc = blkf_read(old->f, keep, x.tail, e);
        if (!rc && ((const blk_header *)x.tail)->count != old->rows - first)
            rc = gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %llu of %s: it "
                            "holds %u rows, not %llu",
                            (unsigned long long)keep, old->f->path,
                            ((const blk_header *)x.tail)->count,
                            (unsigned long long)(old->rows - first));
    }
    if (!rc) rc = blkw_create(dir, seg_name, bs, &x.w, e);
    if (!rc) rc = write_rows(old, &x, first, rows, old->rows + nrows,
                             seg_token, e);
    seg_map_init(&out->map, BLK_KIND_FEATURE, bs, map_token);
    if (!rc) rc = table_map(old, keep, seg_name, seg_token, x.phys, &out->map,
                            e);
    if (!rc && !(out->sums = malloc((size_t)(keep + x.phys + 1) * 4)))
        rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    if (!rc) {
        memcpy(out->sums, old->sums, (size_t)keep * 4);
        memcpy(out->sums + keep, x.sums, (size_t)x.phys * 4);
        out->seg_blocks = x.phys;
    }
    if (x.w) {
        if (rc || x.phys == 0) blkw_abort(x.w);
        else rc = blkw_finish(x.w, e);
    }
    gnn_free_aligned(x.block);
    gnn_free_aligned(x.tail);
    free(x.sums);
    if (rc) gd_result_free(out);
    return rc;
}

/* ---- degrees ----------------------------------------------------------- */

#define SMALL_DEG 65536u

typedef struct deg_count {
    uint64_t *small;          /* nodes of each degree below SMALL_DEG */
    uint32_t *big;            /* the degrees of the others */
    size_t nbig, capbig;
} deg_count;

static int count_block(deg_count *d, const blk_header *h, uint64_t *seen,
                       gd_degrees *out, gnn_err *e)
{
    for (uint32_t k = 0; k < h->count; k++) {
        const blk_node *o = blk_graph_object(h, k);
        if (o->start != 0) continue;
        (*seen)++;
        out->edges += o->degree;
        if (o->degree < SMALL_DEG) {
            d->small[o->degree]++;
            continue;
        }
        if (gnn_grow((void **)&d->big, &d->capbig, d->nbig + 1,
                     sizeof *d->big))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        d->big[d->nbig++] = o->degree;
    }
    return GNNDB_OK;
}

static void bucket(gd_degrees *out, uint32_t deg, uint64_t count)
{
    int k = deg ? 32 - __builtin_clz(deg) : 0;
    out->hist[k] += (int64_t)count;
    if (k + 1 > out->nbuckets) out->nbuckets = k + 1;
}

/* min, median (rank (nodes - 1) / 2), max and histogram of the counts. */
static void summarize(deg_count *d, uint64_t nodes, gd_degrees *out)
{
    uint64_t rank = (nodes - 1) / 2, at = 0;
    int have_min = 0, have_med = 0;
    out->nbuckets = 1;
    gnn_sort_u32(d->big, d->nbig);
    for (uint32_t g = 0; g < SMALL_DEG; g++) {
        if (!d->small[g]) continue;
        if (!have_min) { out->min = g; have_min = 1; }
        if (!have_med && at + d->small[g] > rank) { out->median = g; have_med = 1; }
        at += d->small[g];
        out->max = g;
        bucket(out, g, d->small[g]);
    }
    for (size_t i = 0; i < d->nbig; i++) {
        uint32_t g = d->big[i];
        if (!have_min) { out->min = g; have_min = 1; }
        if (!have_med && at + 1 > rank) { out->median = g; have_med = 1; }
        at++;
        out->max = g;
        bucket(out, g, 1);
    }
}

int gd_degree_stats(blk_file *f, uint64_t nodes, gd_degrees *out, gnn_err *e)
{
    memset(out, 0, sizeof *out);
    out->nbuckets = 1;
    if (nodes == 0) return GNNDB_OK;
    deg_count d = {0};
    uint8_t *buf = gnn_alloc_aligned(f->block_size);
    int rc = GNNDB_OK;
    if (!buf || !(d.small = calloc(SMALL_DEG, sizeof *d.small)))
        rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    uint64_t seen = 0;
    for (uint64_t b = 0; !rc && b < f->nblocks; b++)
        if (!(rc = blkf_read(f, b, buf, e)))
            rc = count_block(&d, (const blk_header *)buf, &seen, out, e);
    if (!rc && seen != nodes)
        rc = gnn_seterr(e, GNNDB_CORRUPT, "corrupt graph file %s: %llu "
                        "nodes, not %llu", f->path,
                        (unsigned long long)seen, (unsigned long long)nodes);
    if (!rc) summarize(&d, nodes, out);
    gnn_free_aligned(buf);
    free(d.small);
    free(d.big);
    return rc;
}
