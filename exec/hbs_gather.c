/* hbs_gather.c — phase 2 of a spilled round (hb_spill.c): table by table
** (hbs_sections), every block any of the round's mini-batches needs is
** read once, and as it arrives each mini-batch's rows in it are appended
** to its run, the order blocks arrived in recorded for the read-back; the
** seeds' labels go into the records; the runs are sealed. */
#include "clock.h"
#include "grow.h"
#include "hbs_int.h"
#include "gather.h"
#include "pool.h"
#include "spill.h"
#include "sort.h"
#include "copy.h"
#include "hotrows.h"

#include <stdlib.h>
#include <string.h>

typedef struct sg_job {
    hb_ctx *x;
    const hbs_section *sec;  /* the table being gathered */
    const blk_header *h;
    float *row;              /* one output row, for the serial path */
    const uint32_t **ids;    /* per record: its ids of the section */
    size_t *nids;
    size_t *lo, *hi;         /* per record: its rows in the block */
    size_t *ncold;           /* per record: those its run holds */
    unsigned char **dst;     /* per record: where they go */
    const hot_rows *hot;     /* rows left out of every run, or NULL */
} sg_job;

/* How many of ids[0..n) (rows of the node features) are not hot. */
static size_t cold_rows(const hot_rows *hot, const uint32_t *ids, size_t n)
{
    if (!hot) return n;
    size_t c = 0;
    for (size_t q = 0; q < n; q++) c += !hr_is_hot(hot, ids[q]);
    return c;
}

static void sg_copy_task(void *arg, size_t i, int w)
{
    sg_job *j = arg;
    const uint32_t *ids = j->ids[i];
    unsigned char *d = j->dst[i];
    if (!d) return;  /* none in this block, or appended serially */
    /* bound for the disk, not for this CPU's cache */
    const hbs_section *sec = j->sec;
    for (size_t q = j->lo[i]; q < j->hi[i]; q++) {
        if (j->hot && hr_is_hot(j->hot, ids[q])) continue;
        hb_put_row(sec->t, (float *)d,
                   blk_feature_row(j->h, ids[q] - sec->base -
                                             j->h->first_node), 1);
        d += sec->rowbytes;
    }
    gnn_copy_stream_done();
}

static int sg_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    sg_job *j = arg;
    hb_ctx *x = j->x;
    hb_round *r = x->sp->build;
    const hbs_section *sec = j->sec;
    if (hb_halted(x)) return gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
    const blk_header *h = data;
    uint64_t rpb = (uint64_t)sec->t->rows_per_block;
    uint64_t r0 = sec->base + no * rpb;   /* as an id */
    r->arrival[r->narrival++] = (uint32_t)no;
    if (j->hot) {
        int rc = hbs_hot_fill(x, sec, no, h, e);
        if (rc) return rc;
    }
    for (int i = 0; i < r->nsb; i++) {
        hb_sbatch *s = &r->sb[i];
        const uint32_t *ids = j->ids[i];
        size_t lo = hbs_lower_u32(ids, j->nids[i], r0);
        size_t hi = hbs_lower_u32(ids, j->nids[i], GNN_MIN(r0 + rpb, sec->end));
        j->lo[i] = lo;
        j->hi[i] = hi;
        j->dst[i] = NULL;
        if (lo == hi) continue;
        if (ids[lo] - sec->base < h->first_node ||
            ids[hi - 1] - sec->base - h->first_node >= h->count)
            return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %llu of table "
                              "%s: row %llu missing", (unsigned long long)no,
                              sec->t->name,
                              (unsigned long long)(ids[lo] - sec->base));
        j->ncold[i] = cold_rows(j->hot, ids + lo, hi - lo);
        s->nhot += (hi - lo) - j->ncold[i];
        size_t len = j->ncold[i] * sec->rowbytes;
        if (!len) continue;
        if (len > x->p->spill_wbuf / 2) {
            /* more of one block than half its buffer: appended here,
            ** serially, in pieces the buffer takes */
            for (size_t q = lo; q < hi; q++) {
                if (j->hot && hr_is_hot(j->hot, ids[q])) continue;
                hb_put_row(sec->t, j->row, blk_feature_row(
                               h, ids[q] - sec->base - h->first_node), 0);
                int rc = spill_run_append(s->run, j->row, sec->rowbytes, e);
                if (rc) return rc;
            }
            x->st.gather.bytes_out += len;
            continue;
        }
        j->dst[i] = spill_run_reserve(s->run, len, e);
        if (!j->dst[i]) return e->rc;
    }
    j->h = h;
    double t0 = gnn_now();
    wpool_run(x->pool, (size_t)r->nsb, sg_copy_task, j);
    x->st.gather.cpu_seconds += gnn_now() - t0;
    for (int i = 0; i < r->nsb; i++) {
        if (!j->dst[i]) continue;
        spill_run_commit(r->sb[i].run, j->ncold[i] * sec->rowbytes);
        x->st.gather.bytes_out += j->ncold[i] * sec->rowbytes;
    }
    return GNNDB_OK;
}

/* Mark in need[] the blocks (of rpb rows) holding the rows of a record's
** sorted ids in [base, end). */
static void mark_blocks(const uint32_t *ids, size_t n, uint64_t base,
                        uint64_t end, uint64_t rpb, unsigned char *need)
{
    for (size_t q = hbs_lower_u32(ids, n, base); q < n && ids[q] < end; q++)
        need[(ids[q] - base) / rpb] = 1;
}

/* The distinct blocks of section sec (NULL: the labels) the round's
** records need, listed ascending in x->bk.blockof; their count, or -1 with
** the words in e (a code returned here would read as a count). */
static int round_blocks(hb_ctx *x, const hbs_section *sec, gnn_err *e)
{
    const cat_table *t = sec ? sec->t : &x->p->labels;
    uint64_t rpb = t->rows_per_block, nblocks = (uint64_t)t->nblocks;
    unsigned char *need = NULL;
    if (gnn_grow((void **)&x->bk.blockof, &x->bk.capblockof, nblocks + 1,
                sizeof *x->bk.blockof) ||
        !(need = calloc(nblocks + 1, 1))) {
        gnn_seterr(e, GNNDB_NOMEM, "out of memory gathering");
        return -1;
    }
    const hb_round *r = x->sp->build;
    for (int i = 0; i < r->nsb; i++) {
        const hb_sbatch *s = &r->sb[i];
        if (!sec)
            for (int64_t q = 0; q < s->nseeds; q++)
                need[(s->yrows[q] >> 32) / rpb] = 1;
        else {
            size_t lo, n;
            const uint32_t *ids = hbs_section_ids(sec, s, s->srows, s->seids,
                                                  &lo, &n);
            mark_blocks(ids, n, sec->base, sec->end, rpb, need);
        }
    }
    size_t n = 0;
    for (uint64_t b = 0; b < nblocks; b++)
        if (need[b]) x->bk.blockof[n++] = b;
    free(need);
    return (int)n;
}

static int sg_label_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    hb_ctx *x = arg;
    const blk_header *h = data;
    uint64_t rpb = x->p->labels.rows_per_block;
    hb_round *r = x->sp->build;
    for (int i = 0; i < r->nsb; i++) {
        hb_sbatch *s = &r->sb[i];
        size_t n = (size_t)s->nseeds;
        size_t q = gnn_lower_u64(s->yrows, n, (no * rpb) << 32);
        for (; q < n && (s->yrows[q] >> 32) < (no + 1) * rpb; q++) {
            uint32_t row = (uint32_t)(s->yrows[q] >> 32);
            if (row < h->first_node || row - h->first_node >= h->count)
                return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %llu of the "
                                  "labels: row %u missing",
                                  (unsigned long long)no, row);
            memcpy(&s->y[s->yrows[q] & UINT32_MAX],
                   blk_feature_row(h, row - h->first_node), sizeof(int64_t));
        }
    }
    return GNNDB_OK;
}

static int fetch_counted(hb_ctx *x, blk_file *f, size_t n, bp_visit_fn fn,
                         void *arg, gnn_err *e)
{
    double t0 = gnn_now();
    bp_stats before = *bp_get_stats(x->fpool);
    int rc = bp_fetch(x->fpool, f, x->bk.blockof, n, fn, arg, e);
    const bp_stats *after = bp_get_stats(x->fpool);
    hb_opstats *o = &x->st.gather;
    o->blocks_read += after->blocks_read - before.blocks_read;
    o->bytes_read += after->bytes_read - before.bytes_read;
    o->hits += after->hits - before.hits;
    o->misses += after->misses - before.misses;
    o->reads_issued += after->reads_issued - before.reads_issued;
    o->seconds += gnn_now() - t0;
    return rc;
}

/* Section sec's rows into the runs, block by block. */
static int gather_section(hb_ctx *x, const hbs_section *sec, gnn_err *e)
{
    hb_round *r = x->sp->build;
    int n = round_blocks(x, sec, e);
    if (n < 0) return e->rc;
    if (gnn_grow((void **)&r->arrival, &r->caparrival,
                r->narrival + (size_t)n + 1, sizeof *r->arrival))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory gathering");
    size_t ns = (size_t)r->nsb + 1;
    /* the hot rows are the node features' (a plan has them only with no
    ** other section) */
    const hot_rows *hot = !sec->edges && sec->t == &x->p->feat ? x->sp->hot
                                                                : NULL;
    sg_job j = {x, sec, NULL, malloc(sec->rowbytes + 1),
                calloc(ns, sizeof(uint32_t *)), calloc(ns, sizeof(size_t)),
                calloc(ns, sizeof(size_t)), calloc(ns, sizeof(size_t)),
                calloc(ns, sizeof(size_t)), calloc(ns, sizeof(void *)), hot};
    int rc = GNNDB_OK;
    if (!j.row || !j.ids || !j.nids || !j.lo || !j.hi || !j.ncold || !j.dst)
        rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory gathering");
    for (int i = 0; !rc && i < r->nsb; i++) {
        size_t lo;
        const hb_sbatch *s = &r->sb[i];
        j.ids[i] = hbs_section_ids(sec, s, s->srows, s->seids, &lo,
                                   &j.nids[i]);
        r->sb[i].nhot = 0;
        x->st.gather.items += j.nids[i];
    }
    size_t left = (size_t)n;
    if (!rc && sec->pinned)
        rc = hb_visit_pinned(x, x->bk.blockof, &left, sg_visit, &j, e);
    if (!rc) rc = fetch_counted(x, sec->f, left, sg_visit, &j, e);
    free(j.row);
    free(j.ids);
    free(j.nids);
    free(j.lo);
    free(j.hi);
    free(j.ncold);
    free(j.dst);
    return rc;
}

int hbs_gather(hb_ctx *x, gnn_err *e)
{
    plan *p = x->p;
    hb_round *r = x->sp->build;
    hbs_section sec[PLAN_SPILL_SECTIONS];
    int nsec = hbs_sections(p, &x->sp->tables, sec), rc = GNNDB_OK;
    r->narrival = 0;
    r->sec_arrival[0] = 0;
    for (int k = 0; k < nsec && !rc; k++) {
        rc = gather_section(x, &sec[k], e);
        r->sec_arrival[k + 1] = r->narrival;
    }
    if (!rc && p->has_labels) {
        int n = round_blocks(x, NULL, e);
        rc = n < 0 ? e->rc
                   : fetch_counted(x, x->lf, (size_t)n, sg_label_visit, x, e);
    }
    if (rc) return rc;
    double t0 = gnn_now();
    for (int i = 0; i < r->nsb && !rc; i++) {
        x->st.spill_hot_rows += r->sb[i].nhot;
        rc = spill_run_seal(r->sb[i].run, e);
        free(r->sb[i].srows);   /* the run holds them for phase 3 */
        free(r->sb[i].seids);
        r->sb[i].srows = NULL;
        r->sb[i].seids = NULL;
    }
    x->st.spill.seconds += gnn_now() - t0;
    return rc;
}
