/* hotrows.c — a spilled plan's hot rows (hotrows.h): a degree histogram to
** choose them, a bitmap with a count per word to number them, their bytes
** and a taken flag per feature block. */
#include "hotrows.h"

#include <stdlib.h>
#include <string.h>

/* Degrees above this share the histogram's last bucket: a graph with more
** hot candidates than that many neighbours each is ranked among them by
** the order they are offered in. */
#define HR_BUCKETS 65536u

struct hot_rows {
    uint64_t nrows, nblocks;
    size_t rowbytes, cap, nhot;
    uint32_t *hist;          /* while choosing: nodes per degree bucket */
    uint32_t threshold;      /* bucket at or above which a row may be hot */
    size_t ties;             /* how many more at the threshold may be */
    uint64_t *bits;          /* a bit per row */
    uint32_t *rank;          /* hot rows before each word */
    unsigned char *taken;    /* a flag per block */
    unsigned char *data;     /* nhot rows */
};

static size_t words_of(uint64_t nrows) { return (size_t)(nrows / 64 + 1); }

int hr_open(uint64_t nrows, size_t rowbytes, uint64_t nblocks, size_t cap,
            hot_rows **out, gnn_err *e)
{
    *out = NULL;
    if (nrows > (uint64_t)UINT32_MAX + 1 || !rowbytes)
        return gnn_seterr(e, GNNDB_RANGE, "hot rows: a table of %llu rows "
                          "is beyond their 32-bit row numbers",
                          (unsigned long long)nrows);
    hot_rows *h = calloc(1, sizeof *h);
    if (!h) return gnn_seterr(e, GNNDB_NOMEM, "out of memory for hot rows");
    h->nrows = nrows;
    h->nblocks = nblocks;
    h->rowbytes = rowbytes;
    h->cap = cap < nrows ? cap : (size_t)nrows;
    h->hist = calloc(HR_BUCKETS, sizeof *h->hist);
    h->bits = calloc(words_of(nrows), sizeof *h->bits);
    h->taken = calloc((size_t)nblocks + 1, 1);
    if (!h->hist || !h->bits || !h->taken) {
        hr_close(h);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory for hot rows");
    }
    *out = h;
    return GNNDB_OK;
}

void hr_close(hot_rows *h)
{
    if (!h) return;
    free(h->hist);
    free(h->bits);
    free(h->rank);
    free(h->taken);
    free(h->data);
    free(h);
}

static uint32_t bucket(uint32_t degree)
{
    return degree < HR_BUCKETS ? degree : HR_BUCKETS - 1;
}

void hr_count(hot_rows *h, uint32_t degree)
{
    if (h->hist) h->hist[bucket(degree)]++;
}

void hr_threshold(hot_rows *h)
{
    size_t above = 0;
    uint32_t b = HR_BUCKETS - 1;
    /* down from the top while the whole bucket fits; degree 0 never */
    for (; b >= 1; b--) {
        if (above + h->hist[b] > h->cap) break;
        above += h->hist[b];
    }
    h->threshold = b >= 1 ? b : 1;
    h->ties = b >= 1 ? h->cap - above : 0;
    /* with b < 1 every node of degree >= 1 fits: the bucket at the
    ** threshold (1) is offered in full */
    if (b < 1) h->ties = h->hist[1];
}

void hr_offer(hot_rows *h, uint64_t row, uint32_t degree)
{
    uint32_t b = bucket(degree);
    if (row >= h->nrows || b < h->threshold || h->nhot >= h->cap) return;
    uint64_t bit = (uint64_t)1 << (row % 64);
    if (h->bits[row / 64] & bit) return;   /* offered twice */
    if (b == h->threshold) {
        if (!h->ties) return;
        h->ties--;
    }
    h->bits[row / 64] |= bit;
    h->nhot++;
}

int hr_seal(hot_rows *h, gnn_err *e)
{
    size_t nw = words_of(h->nrows);
    free(h->hist);
    h->hist = NULL;
    h->rank = malloc(nw * sizeof *h->rank);
    h->data = malloc(h->nhot * h->rowbytes + 1);
    if (!h->rank || !h->data)
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory for hot rows");
    /* resident at once: the executor counts them from the start */
    memset(h->data, 0, h->nhot * h->rowbytes);
    uint32_t n = 0;
    for (size_t w = 0; w < nw; w++) {
        h->rank[w] = n;
        n += (uint32_t)__builtin_popcountll(h->bits[w]);
    }
    return GNNDB_OK;
}

size_t hr_count_hot(const hot_rows *h) { return h->nhot; }
size_t hr_rowbytes(const hot_rows *h) { return h->rowbytes; }

int hr_is_hot(const hot_rows *h, uint64_t row)
{
    return row < h->nrows && (h->bits[row / 64] >> (row % 64) & 1);
}

size_t hr_slot(const hot_rows *h, uint64_t row)
{
    uint64_t below = h->bits[row / 64] & (((uint64_t)1 << (row % 64)) - 1);
    return h->rank[row / 64] + (size_t)__builtin_popcountll(below);
}

void *hr_row(hot_rows *h, size_t slot) { return h->data + slot * h->rowbytes; }

const void *hr_row_const(const hot_rows *h, size_t slot)
{
    return h->data + slot * h->rowbytes;
}

int hr_block_take(hot_rows *h, uint64_t no)
{
    if (no >= h->nblocks || h->taken[no]) return 0;
    h->taken[no] = 1;
    return 1;
}
