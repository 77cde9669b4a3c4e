/* hb_readback.c — phase 3 of a spilled round (hb_spill.c): its runs read
** back in batch order, each one's rows put from the order the feature
** blocks arrived in into local order, and handed out. The next run is read
** ahead while the caller works on this one, when both fit: beside the
** round's records in the staged budget, or in x->bg.reserve while the next
** round is built on another thread (hb_pipeline.c), whose worker pool this
** side then leaves alone. */
#include "exec_int.h"
#include "pool.h"
#include "spill.h"

#include <stdlib.h>
#include <string.h>

/* Free read-back buffer k. */
static void drop_rbuf(hb_exec *x, int k)
{
    hb_readback *rb = &x->rb;
    hb_read_buffer_free(x, rb->rbuf[k]);
    rb->rbuf[k] = NULL;
    rb->caprbuf[k] = 0;
}

/* Buffer k with room for `need` bytes. Runs of a round differ a little in
** size, so a new buffer gets a sixteenth to spare: later runs reuse it
** instead of faulting in fresh pages for every mini-batch. The transfer
** operator's memory (pinned for a device-bound batch). */
static int rbuf_ready(hb_exec *x, int k, size_t need, gnn_err *e)
{
    hb_readback *rb = &x->rb;
    if (rb->caprbuf[k] >= need) return GNNDB_OK;
    hb_read_buffer_free(x, rb->rbuf[k]);
    need += need / 16;
    rb->rbuf[k] = hb_read_buffer(x, need);
    rb->caprbuf[k] = rb->rbuf[k] ? need : 0;
    if (!rb->rbuf[k])
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory reading back a "
                          "spilled mini-batch");
    return GNNDB_OK;
}

/* With two buffers, a run is read into rbuf[0] in the order its rows
** arrived and put in local order into rbuf[1], the buffer handed out, so
** that rbuf[0] can take the next run at once (read ahead); with one, it is
** read into rbuf[0] and ordered in place, and nothing is read ahead.
**
** Whether rbuf[0] holding `in` bytes and rbuf[1] holding `out` keep the
** round's records within the budget (the staged one, or x->bg.reserve while
** the next round is built): runs differ in size from the plan's estimate,
** so it is checked on theirs. */
static int pair_fits(const hb_exec *x, size_t in, size_t out)
{
    const size_t *cap = x->rb.caprbuf;
    size_t both = GNN_MAX(in, cap[0]) + GNN_MAX(out, cap[1]);
    size_t budget = x->bg.running ? x->bg.reserve : (size_t)x->p->staged_bytes;
    return both + hbs_records_bytes(x, x->sp.emit) <= budget;
}

static int start_read(hb_exec *x, int i, gnn_err *e)
{
    hb_sbatch *s = &x->sp.emit->sb[i];
    int rc = rbuf_ready(x, 0, spill_run_read_size(s->run), e);
    if (!rc) rc = spill_run_read_start(s->run, x->rb.rbuf[0], e);
    return rc;
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
} rb_part;

/* The parts of record s read into buf, one per section; their count. */
static int record_parts(hb_exec *x, const hb_sbatch *s,
                        const unsigned char *buf, rb_part *out)
{
    const plan *p = x->p;
    hbs_section sec[PLAN_SPILL_SECTIONS];
    int n = hbs_sections(x, sec);
    const hb_round *r = x->sp.emit;
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
                           sec[k].edges};
        off += m * sec[k].rowbytes;
    }
    return n;
}

static int bad_order(hb_exec *x, size_t k, size_t nn, gnn_err *e)
{
    return gnn_seterr(e, GNNDB_CORRUPT, "spill area %s: a spilled mini-batch "
                      "lists %zu of its %zu rows, or a row twice",
                      spill_dir(x->sp.area), k, nn);
}

/* x->rb.ord[j] = where the j-th row of part pt goes: the rows came block
** by block in its arrival order, each block's in row order. Every place
** must appear once. */
static int arrival_order(hb_exec *x, const rb_part *pt, gnn_err *e)
{
    hb_readback *rb = &x->rb;
    size_t nn = pt->n;
    size_t words = nn / 64 + 1;
    if (hb_grow((void **)&rb->ord, &rb->capord, nn + 1, sizeof *rb->ord) ||
        hb_grow((void **)&rb->ordseen, &rb->capordseen, words,
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
            uint32_t t = pt->perm[q];
            if (t >= nn || (rb->ordseen[t / 64] >> (t % 64) & 1))
                return bad_order(x, k, nn, e);
            rb->ordseen[t / 64] |= (uint64_t)1 << (t % 64);
            rb->ord[k++] = t;
        }
    }
    return k == nn ? GNNDB_OK : bad_order(x, k, nn, e);
}

/* Put part pt's rows in buf into order in place: each cycle of the
** permutation x->rb.ord is walked once with one row held aside. */
static int order_in_place(hb_exec *x, const rb_part *pt, unsigned char *buf,
                          gnn_err *e)
{
    hb_readback *rb = &x->rb;
    size_t nn = pt->n, rowbytes = pt->rowbytes;
    unsigned char *rows = buf + pt->rows_off;
    if (hb_grow((void **)&rb->rowtmp, &rb->caprowtmp, 2 * rowbytes + 1, 1))
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
    const hb_exec *x;
    const unsigned char *src;
    unsigned char *dst;
    size_t nn, rowbytes;
} order_job;

#define ORDER_TASK_ROWS 4096

static void order_task(void *arg, size_t t, int w)
{
    order_job *j = arg;
    size_t lo = t * ORDER_TASK_ROWS, hi = GNN_MIN(lo + ORDER_TASK_ROWS, j->nn);
    for (size_t q = lo; q < hi; q++)
        memcpy(j->dst + (size_t)j->x->rb.ord[q] * j->rowbytes,
               j->src + q * j->rowbytes, j->rowbytes);
}

/* Copy part pt's rows from src (in arrival order) to dst in order, on the
** pool's threads. */
static void order_into(hb_exec *x, const rb_part *pt, const unsigned char *src,
                       unsigned char *dst)
{
    order_job j = {x, src + pt->rows_off, dst + pt->rows_off, pt->n,
                   pt->rowbytes};
    size_t tasks = (pt->n + ORDER_TASK_ROWS - 1) / ORDER_TASK_ROWS;
    /* the worker pool is the build thread's while one runs */
    if (x->bg.running)
        for (size_t t = 0; t < tasks; t++) order_task(&j, t, 0);
    else
        wpool_run(x->pool, tasks, order_task, &j);
}

/* Record s (`size` bytes), read into rbuf[0], in local order: in rbuf[1]
** with two buffers, else in place. Its buffer through *out, and where its
** edge rows start in it through *eoff (0: it has none). */
static int put_in_order(hb_exec *x, hb_sbatch *s, int two, size_t size,
                        unsigned char **out, size_t *eoff, gnn_err *e)
{
    hb_readback *rb = &x->rb;
    unsigned char *buf = rb->rbuf[0];
    rb_part part[PLAN_SPILL_SECTIONS];
    int nparts = record_parts(x, s, buf, part), rc = GNNDB_OK;
    *out = buf;
    *eoff = 0;
    for (int k = nparts; k-- > 0;)
        if (part[k].edges) *eoff = part[k].rows_off;
    if (!nparts) {
        /* nothing to order: with two buffers the one read becomes the one
        ** handed out, so that the next run can be read ahead into the
        ** other */
        if (two) {
            size_t c = rb->caprbuf[0];
            rb->rbuf[0] = rb->rbuf[1];
            rb->caprbuf[0] = rb->caprbuf[1];
            rb->rbuf[1] = buf;
            rb->caprbuf[1] = c;
        }
        return GNNDB_OK;
    }
    if (two) {
        if ((rc = rbuf_ready(x, 1, size, e))) return rc;
        *out = x->rb.rbuf[1];
        memcpy(*out, buf, hbs_off_rows(x->p, s->nn, s->ne));
    }
    for (int k = 0; k < nparts && !rc; k++) {
        if (!(rc = arrival_order(x, &part[k], e))) {
            if (two) order_into(x, &part[k], buf, *out);
            else rc = order_in_place(x, &part[k], buf, e);
        }
    }
    return rc;
}

/* The view of record s read into buf, its edge rows at eoff (0: none). */
static int fill_view(hb_exec *x, hb_sbatch *s, unsigned char *buf,
                     size_t eoff, gnn_err *e)
{
    plan *p = x->p;
    hb_batch *b = &x->rb.sview;
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
    if (p->eids) b->view.e_id = (const int64_t *)(buf + s->nn * 8 + s->ne * 16);
    if (p->has_efeat) {
        b->view.edge_attr = erows;
        b->view.edge_attr_dim = p->efeat.dim;
    }
    if (p->link) hb_link_view(p, &b->view, s->lk_words, s->npos, s->nneg);
    if (!p->typed) return GNNDB_OK;
    int64_t *out = (int64_t *)(buf + s->nn * 8 + s->ne * (p->eids ? 24 : 16));
    /* the read buffer's, not the slot's own (sview owns no arrays) */
    b->t_eattr = erows;
    return hb_typed_bind(p, b, out, rows, e);
}

int hbs_next(hb_exec *x, const gnndb_batch_view **view, gnn_err *e)
{
    hb_readback *rb = &x->rb;
    int i = rb->scur;
    hb_sbatch *s = &x->sp.emit->sb[i];
    int rc = GNNDB_OK;
    size_t size = spill_run_read_size(s->run);
    /* a run read ahead was found to fit beside the buffer handed out */
    int two = rb->ahead_started ||
              (x->p->spill_ahead && pair_fits(x, size, size));
    if (!rb->ahead_started) {
        /* the batch handed out before is dead */
        if (!two) drop_rbuf(x, 1);
        rc = start_read(x, i, e);
    }
    rb->ahead_started = 0;
    if (!rc) rc = spill_run_read_wait(s->run, e);
    double t0 = hb_now();
    unsigned char *buf = NULL;
    size_t eoff = 0;
    if (!rc) rc = put_in_order(x, s, two, size, &buf, &eoff, e);
    x->est.spill.cpu_seconds += hb_now() - t0;
    if (!rc && !(rc = fill_view(x, s, buf, eoff, e))) rb->scur++;
    /* read the next run while the caller trains on this one, when both
    ** buffers fit beside what the round still holds */
    if (!rc && two && rb->scur < x->sp.emit->nsb &&
        pair_fits(x, spill_run_read_size(x->sp.emit->sb[rb->scur].run), 0)) {
        rc = start_read(x, rb->scur, e);
        rb->ahead_started = !rc;
    }
    /* read back once: its space goes back to the spill area now, while
    ** the next run streams in (closing a large file takes a while) */
    spill_run_free(s->run);
    s->run = NULL;
    if (rc) return rc;
    return hb_emit(x, &rb->sview, view, e);
}

int hbs_pending(const hb_exec *x) { return x->rb.scur < x->sp.emit->nsb; }

void hbs_readback_trim(hb_exec *x)
{
    for (int k = 0; k < 2; k++) drop_rbuf(x, k);
}

void hbs_readback_close(hb_exec *x)
{
    hb_readback *rb = &x->rb;
    hbs_readback_trim(x);
    free(rb->ord);
    free(rb->rowtmp);
    free(rb->ordseen);
    free(rb->sview.tviews);   /* a typed batch's views, bound per run */
    free(rb->sview.rviews);
}
