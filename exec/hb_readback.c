/* hb_readback.c — phase 3 of a spilled round (hb_spill.c): its runs read
** back in batch order, each one's rows put from the order the feature
** blocks arrived in into local order, and handed out. While the caller works
** on one batch the next runs are read (up to the plan's spill_ahead, at most
** SPILL_READ_RUNS), each into a buffer of its own, when they fit: beside the
** round's records in the staged budget, or in x->bg->reserve while the next
** round is built on another thread (hb_pipeline.c), whose worker pool this
** side then leaves alone. Short of memory, one buffer does: the run is read
** into it and put in order in place, and nothing is read ahead. */
#include "clock.h"
#include "grow.h"
#include "hbs_int.h"
#include "batch.h"
#include "hb_round.h"
#include "transfer.h"
#include "pool.h"
#include "spill.h"
#include "hotrows.h"

#include <stdlib.h>
#include <string.h>

/* Buffer *b with room for `need` bytes. Runs of a round differ a little
** in size, so a new buffer gets a sixteenth to spare: later runs reuse it
** instead of faulting in fresh pages for every mini-batch. The transfer
** operator's memory (hb_read_buffer: pinned for a device-bound batch). */
static int buf_ready(hb_ctx *x, unsigned char **b, size_t *cap, size_t need,
                     gnn_err *e)
{
    if (*cap >= need) return GNNDB_OK;
    hb_read_buffer_free(x, *b);
    need += need / 16;
    *b = hb_read_buffer(x, need);
    *cap = *b ? need : 0;
    if (!*b)
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory reading back a "
                          "spilled mini-batch");
    return GNNDB_OK;
}

static void buf_drop(hb_ctx *x, unsigned char **b, size_t *cap)
{
    hb_read_buffer_free(x, *b);
    *b = NULL;
    *cap = 0;
}

/* What buffer cap must grow by to hold `need` bytes. */
static size_t growth(size_t cap, size_t need)
{
    return need > cap ? need + need / 16 - cap : 0;
}

/* Whether the read-back's buffers, grown by `more` bytes, keep the round's
** records, and whatever the process holds beyond every count, within the
** budget: the staged one, or x->bg->reserve while the next round is built
** (whose own bytes are its budget's). Runs differ in size from the plan's
** estimate, so it is checked on theirs. */
static int fits(hb_ctx *x, size_t more)
{
    const hb_readback *rb = x->rb;
    size_t held = rb->capout + hbs_records_bytes(x->p, x->sp->emit);
    for (int k = 0; k < SPILL_READ_RUNS; k++) held += rb->capraw[k];
    size_t budget = x->bg->running ? x->bg->reserve : (size_t)x->p->staged_bytes;
    size_t slack = x->bg->running ? 0 : hb_uncounted(x, held);
    return held + more + slack <= budget;
}

/* The raw buffer record i is read into, or -1. */
static int slot_of(const hb_readback *rb, int i)
{
    for (int k = 0; k < SPILL_READ_RUNS; k++)
        if (rb->raw_rec[k] == i) return k;
    return -1;
}

/* Give back the buffers no run is read into and no batch handed out lives
** in, but raw buffer `keep` (-1: none), about to be read into again: the
** next run needs the memory. */
static void drop_idle(hb_ctx *x, int keep)
{
    hb_readback *rb = x->rb;
    buf_drop(x, &rb->out, &rb->capout);
    for (int k = 0; k < SPILL_READ_RUNS; k++)
        if (rb->raw_rec[k] < 0 && k != rb->in_raw && k != keep)
            buf_drop(x, &rb->raw[k], &rb->capraw[k]);
}

size_t hbs_record_size(const hb_ctx *x, const hb_sbatch *s)
{
    size_t rb = x->sp->hot ? hr_rowbytes(x->sp->hot) : 0;
    return spill_run_read_size(s->run) + s->nhot * rb;
}

/* Start reading record i into a free raw buffer. `now`: it is the record to
** hand out, read at once whatever else must be given back; else only when
** a buffer is free and it fits (*started says whether it was). */
static int start_read(hb_ctx *x, int i, int now, int *started, gnn_err *e)
{
    hb_readback *rb = x->rb;
    spill_run *run = x->sp->emit->sb[i].run;
    size_t need = hbs_record_size(x, &x->sp->emit->sb[i]);
    /* the free buffer with the most room: reused, not allocated again */
    int k = -1;
    for (int j = 0; j < SPILL_READ_RUNS; j++)
        if (rb->raw_rec[j] < 0 && j != rb->in_raw &&
            (k < 0 || rb->capraw[j] > rb->capraw[k]))
            k = j;
    *started = 0;
    if (k < 0) {
        if (!now) return GNNDB_OK;
        return gnn_seterr(e, GNNDB_INTERNAL, "spill read-back: no buffer free");
    }
    if (!fits(x, growth(rb->capraw[k], need))) {
        if (!now) return GNNDB_OK;
        drop_idle(x, k);
    }
    int rc = buf_ready(x, &rb->raw[k], &rb->capraw[k], need, e);
    if (!rc) rc = spill_run_read_start(run, rb->raw[k], e);
    if (rc) return rc;
    rb->raw_rec[k] = i;
    *started = 1;
    return GNNDB_OK;
}

/* One section's part of a record read back (hbs_section): its n nodes'
** ids ascending with, for each, where its row goes (perm), its blocks in
** the order they arrived, and where its rows start in the run. */
typedef struct rb_part {
    const uint32_t *perm, *srows;
    size_t n, rowbytes, rows_off;
    uint64_t base, rpb;
    const uint32_t *arrival;
    size_t narrival;
    int edges;               /* rows of edges (after every node row) */
    const hot_rows *hot;     /* rows the run left out, or NULL */
    size_t ncold;            /* rows the run holds (arrival_order) */
} rb_part;

/* The parts of record s read into buf, one per section; their count. */
static int record_parts(hb_ctx *x, const hb_sbatch *s,
                        const unsigned char *buf, rb_part *out)
{
    const plan *p = x->p;
    hbs_section sec[PLAN_SPILL_SECTIONS];
    int n = hbs_sections(p, &x->sp->tables, sec);
    const hb_round *r = x->sp->emit;
    const uint32_t *perm =
        (const uint32_t *)(buf + hbs_off_perm(p, s->nn, s->ne));
    const uint32_t *eperm =
        (const uint32_t *)(buf + hbs_off_eperm(p, s->nn, s->ne));
    size_t off = hbs_off_rows(p, s->nn, s->ne);
    for (int k = 0; k < n; k++) {
        size_t lo, m;
        const uint32_t *pl = sec[k].edges ? eperm : perm;
        const uint32_t *ids = hbs_section_ids(&sec[k], s, perm + s->nn,
                                              eperm + s->ne, &lo, &m);
        out[k] = (rb_part){pl + lo, ids, m, sec[k].rowbytes, off,
                           sec[k].base, sec[k].t->rows_per_block,
                           r->arrival + r->sec_arrival[k],
                           r->sec_arrival[k + 1] - r->sec_arrival[k],
                           sec[k].edges,
                           !sec[k].edges && sec[k].t == &p->feat ? x->sp->hot
                                                                 : NULL,
                           m};
        off += m * sec[k].rowbytes;
    }
    return n;
}

static int bad_order(hb_ctx *x, size_t k, size_t nn, gnn_err *e)
{
    return gnn_seterr(e, GNNDB_CORRUPT, "spill area %s: a spilled mini-batch "
                      "lists %zu of its %zu rows, or a row twice",
                      spill_dir(x->sp->area), k, nn);
}

/* Place t of a part's row, once: into ord[*k] (and *k on). */
static int place_once(hb_ctx *x, uint32_t t, size_t nn, size_t *k,
                      gnn_err *e)
{
    hb_readback *rb = x->rb;
    if (t >= nn || (rb->ordseen[t / 64] >> (t % 64) & 1))
        return bad_order(x, *k, nn, e);
    rb->ordseen[t / 64] |= (uint64_t)1 << (t % 64);
    rb->ord[(*k)++] = t;
    return GNNDB_OK;
}

/* After the cold rows in x->rb->ord, the places of the hot rows, and their
** slots in x->rb->hslot. */
static int hot_order(hb_ctx *x, const rb_part *pt, size_t *k, gnn_err *e)
{
    hb_readback *rb = x->rb;
    if (gnn_grow((void **)&rb->hslot, &rb->caphslot, pt->n - *k + 1,
                 sizeof *rb->hslot))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory reading back");
    for (size_t q = 0; q < pt->n && *k < pt->n; q++)
        if (hr_is_hot(pt->hot, pt->srows[q])) {
            rb->hslot[*k - pt->ncold] = hr_slot(pt->hot, pt->srows[q]);
            int rc = place_once(x, pt->perm[q], pt->n, k, e);
            if (rc) return rc;
        }
    return GNNDB_OK;
}

/* x->rb->ord[j] = where the j-th row of part pt goes: the rows came block
** by block in its arrival order, each block's in row order, hot rows left
** out (pt->ncold of them); then the hot rows' places in row order. Every
** place must appear once. */
static int arrival_order(hb_ctx *x, rb_part *pt, gnn_err *e)
{
    hb_readback *rb = x->rb;
    size_t nn = pt->n;
    size_t words = nn / 64 + 1;
    if (gnn_grow((void **)&rb->ord, &rb->capord, nn + 1, sizeof *rb->ord) ||
        gnn_grow((void **)&rb->ordseen, &rb->capordseen, words,
                sizeof *rb->ordseen))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory reading back");
    memset(rb->ordseen, 0, words * sizeof *rb->ordseen);
    size_t k = 0;
    for (size_t a = 0; a < pt->narrival; a++) {
        uint64_t r0 = pt->base + (uint64_t)pt->arrival[a] * pt->rpb;
        size_t lo = hbs_lower_u32(pt->srows, nn, r0);
        size_t hi = hbs_lower_u32(pt->srows, nn, r0 + pt->rpb);
        if (k + (hi - lo) > nn) return bad_order(x, k + (hi - lo), nn, e);
        for (size_t q = lo; q < hi; q++) {
            if (pt->hot && hr_is_hot(pt->hot, pt->srows[q])) continue;
            int rc = place_once(x, pt->perm[q], nn, &k, e);
            if (rc) return rc;
        }
    }
    pt->ncold = k;
    if (pt->hot) {
        int rc = hot_order(x, pt, &k, e);
        if (rc) return rc;
    }
    return k == nn ? GNNDB_OK : bad_order(x, k, nn, e);
}

/* The hot rows of part pt into their places in buf (its rows in order;
** order_in_place has marked the entries of ord done). */
static void hot_rows_into(hb_ctx *x, const rb_part *pt, unsigned char *buf)
{
    const hb_readback *rb = x->rb;
    unsigned char *rows = buf + pt->rows_off;
    for (size_t q = pt->ncold; q < pt->n; q++)
        memcpy(rows + (size_t)(rb->ord[q] & 0x7fffffffu) * pt->rowbytes,
               hr_row_const(pt->hot, rb->hslot[q - pt->ncold]), pt->rowbytes);
}

/* Put part pt's rows in buf into order in place: each cycle of the
** permutation x->rb->ord is walked once with one row held aside. The hot
** rows' entries move what lies past the run's rows (the buffer has room
** for them all); hot_rows_into then writes over it. */
static int order_in_place(hb_ctx *x, const rb_part *pt, unsigned char *buf,
                          gnn_err *e)
{
    hb_readback *rb = x->rb;
    size_t nn = pt->n, rowbytes = pt->rowbytes;
    unsigned char *rows = buf + pt->rows_off;
    if (gnn_grow((void **)&rb->rowtmp, &rb->caprowtmp, 2 * rowbytes + 1, 1))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory reading back");
    unsigned char *held = rb->rowtmp, *swap = rb->rowtmp + rowbytes;
    const uint32_t done = 0x80000000u;
    for (size_t s0 = 0; s0 < nn; s0++) {
        if (rb->ord[s0] & done) continue;
        memcpy(held, rows + s0 * rowbytes, rowbytes);
        size_t pos = s0;
        for (;;) {
            size_t t = rb->ord[pos] & ~done;
            rb->ord[pos] |= done;
            memcpy(swap, rows + t * rowbytes, rowbytes);
            memcpy(rows + t * rowbytes, held, rowbytes);
            unsigned char *tmp = held; held = swap; swap = tmp;
            if (t == s0) break;
            pos = t;
        }
    }
    return GNNDB_OK;
}

typedef struct order_job {
    const hb_ctx *x;
    const unsigned char *src;
    unsigned char *dst;
    size_t nn, rowbytes;
    const rb_part *pt;
} order_job;

#define ORDER_TASK_ROWS 4096

static void order_task(void *arg, size_t t, int w)
{
    order_job *j = arg;
    size_t lo = t * ORDER_TASK_ROWS, hi = GNN_MIN(lo + ORDER_TASK_ROWS, j->nn);
    const rb_part *pt = j->pt;
    for (size_t q = lo; q < hi; q++)
        memcpy(j->dst + (size_t)j->x->rb->ord[q] * j->rowbytes,
               q < pt->ncold ? j->src + q * j->rowbytes
                             : hr_row_const(pt->hot,
                                            j->x->rb->hslot[q - pt->ncold]),
               j->rowbytes);
}

/* Copy part pt's rows from src (in arrival order) to dst in order, on the
** pool's threads. */
static void order_into(hb_ctx *x, const rb_part *pt, const unsigned char *src,
                       unsigned char *dst)
{
    order_job j = {x, src + pt->rows_off, dst + pt->rows_off, pt->n,
                   pt->rowbytes, pt};
    size_t tasks = (pt->n + ORDER_TASK_ROWS - 1) / ORDER_TASK_ROWS;
    /* the worker pool is the build thread's while one runs */
    if (x->bg->running)
        for (size_t t = 0; t < tasks; t++) order_task(&j, t, 0);
    else
        wpool_run(x->pool, tasks, order_task, &j);
}

/* Record s (`size` bytes), read into raw buffer k, in local order: into
** the out buffer with `two`, which frees raw buffer k to read ahead into,
** else in place, where the batch then lives until the next call. Its
** buffer through *buf, and where its edge rows start in it through *eoff
** (0: it has none). */
static int put_in_order(hb_ctx *x, hb_sbatch *s, int k, int two,
                        size_t size, unsigned char **buf, size_t *eoff,
                        gnn_err *e)
{
    hb_readback *rb = x->rb;
    unsigned char *raw = rb->raw[k];
    rb_part part[PLAN_SPILL_SECTIONS];
    int nparts = record_parts(x, s, raw, part), rc = GNNDB_OK;
    *buf = raw;
    *eoff = 0;
    for (int j = nparts; j-- > 0;)
        if (part[j].edges) *eoff = part[j].rows_off;
    rb->raw_rec[k] = -1;
    if (!two) {
        rb->in_raw = k;
        for (int j = 0; j < nparts && !rc; j++)
            if (!(rc = arrival_order(x, &part[j], e)) &&
                !(rc = order_in_place(x, &part[j], raw, e)) && part[j].hot)
                hot_rows_into(x, &part[j], raw);
        return rc;
    }
    if (!nparts) {
        /* nothing to order: the buffer read becomes the one handed out */
        unsigned char *o = rb->out;
        size_t c = rb->capout;
        rb->out = raw;
        rb->capout = rb->capraw[k];
        rb->raw[k] = o;
        rb->capraw[k] = c;
        *buf = rb->out;
        return GNNDB_OK;
    }
    if ((rc = buf_ready(x, &rb->out, &rb->capout, size, e))) return rc;
    *buf = rb->out;
    memcpy(*buf, raw, hbs_off_rows(x->p, s->nn, s->ne));
    for (int j = 0; j < nparts && !rc; j++)
        if (!(rc = arrival_order(x, &part[j], e)))
            order_into(x, &part[j], raw, *buf);
    return rc;
}

/* The view of record s read into buf, its edge rows at eoff (0: none). */
static int fill_view(hb_ctx *x, hb_sbatch *s, unsigned char *buf,
                     size_t eoff, gnn_err *e)
{
    plan *p = x->p;
    hb_batch *b = &x->rb->sview;
    b->epoch = s->epoch;
    b->batch = s->batch;
    b->nseeds = s->nseeds;
    b->nn = s->nn;
    b->ne = s->ne;
    b->y = s->y;
    memcpy(b->nsn, s->nsn, sizeof b->nsn);
    memcpy(b->nse, s->nse, sizeof b->nse);
    float *rows = (float *)(buf + hbs_off_rows(p, s->nn, s->ne));
    float *erows = eoff ? (float *)(buf + eoff) : NULL;
    hb_fill_view(p, b, (int64_t *)buf, (int64_t *)(buf + s->nn * 8), rows,
                 s->y);
    if (p->eids)
        b->view.e_id = (const int64_t *)(buf + hbs_off_eid(p, s->nn, s->ne));
    if (p->temporal) {
        const int64_t *t = (const int64_t *)(buf + hbs_off_time(p, s->nn,
                                                                s->ne));
        b->view.node_seed = t;
        b->view.time = t + s->nn;
        b->view.edge_time = t + 2 * s->nn;
    }
    if (p->has_efeat) {
        b->view.edge_attr = erows;
        b->view.edge_attr_dim = p->efeat.dim;
    }
    return x->var->bind ? x->var->bind(p, b, s, buf, rows, erows, e)
                        : GNNDB_OK;
}

/* Read the runs after record `from` ahead, as many as the plan reads ahead
** and free buffers and memory allow, while the caller works on this one. */
static int read_ahead(hb_ctx *x, int from, gnn_err *e)
{
    hb_readback *rb = x->rb;
    int last = GNN_MIN(from + x->p->spill_ahead, x->sp->emit->nsb);
    for (int j = from; j < last; j++) {
        if (slot_of(rb, j) >= 0) continue;
        int started, rc = start_read(x, j, 0, &started, e);
        if (rc || !started) return rc;
    }
    return GNNDB_OK;
}

int hbs_next(hb_ctx *x, const gnndb_batch_view **view, gnn_err *e)
{
    hb_readback *rb = x->rb;
    int i = rb->scur, rc = GNNDB_OK, started;
    hb_sbatch *s = &x->sp->emit->sb[i];
    size_t size = hbs_record_size(x, s);
    /* the batch handed out before is dead */
    rb->in_raw = -1;
    int k = slot_of(rb, i);
    if (k < 0 && !(rc = start_read(x, i, 1, &started, e))) k = slot_of(rb, i);
    if (!rc) rc = spill_run_read_wait(s->run, e);
    /* in order into a buffer of its own when it fits, which lets the next
    ** runs be read meanwhile; else in place */
    int two = !rc && x->p->spill_ahead > 0 && fits(x, growth(rb->capout, size));
    double t0 = gnn_now();
    unsigned char *buf = NULL;
    size_t eoff = 0;
    if (!rc) rc = put_in_order(x, s, k, two, size, &buf, &eoff, e);
    x->est.spill.cpu_seconds += gnn_now() - t0;
    if (!rc && !(rc = fill_view(x, s, buf, eoff, e))) rb->scur++;
    if (!rc && two) rc = read_ahead(x, rb->scur, e);
    /* read back once: its space goes back to the spill area now, while
    ** the next runs stream in (closing a large file takes a while) */
    spill_run_free(s->run);
    s->run = NULL;
    if (rc) return rc;
    return hb_emit(x, &rb->sview, view, e);
}

int hbs_pending(const hb_ctx *x) { return x->rb->scur < x->sp->emit->nsb; }

void hbs_readback_trim(hb_ctx *x)
{
    hb_readback *rb = x->rb;
    rb->in_raw = -1;
    drop_idle(x, -1);
}

void hbs_readback_init(hb_ctx *x)
{
    hb_readback *rb = x->rb;
    for (int k = 0; k < SPILL_READ_RUNS; k++) rb->raw_rec[k] = -1;
    rb->in_raw = -1;
}

void hbs_readback_close(hb_ctx *x)
{
    hb_readback *rb = x->rb;
    /* the runs are freed by now (hbs_close), their reads waited for */
    buf_drop(x, &rb->out, &rb->capout);
    for (int k = 0; k < SPILL_READ_RUNS; k++) {
        buf_drop(x, &rb->raw[k], &rb->capraw[k]);
        rb->raw_rec[k] = -1;
    }
    free(rb->ord);
    free(rb->rowtmp);
    free(rb->ordseen);
    free(rb->hslot);
    free(rb->sview.tviews);   /* a typed batch's views, bound per run */
    free(rb->sview.rviews);
}
