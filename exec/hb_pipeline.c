/* hb_pipeline.c — spilled rounds back to back. While one round is handed
** out (hb_readback.c), the next is sampled and gathered (hb_spill.c) on a
** thread of its own, so that the caller's work on a round's mini-batches
** and their read-back overlap the building of the next, instead of the
** caller waiting for a whole round every H mini-batches.
**
** The build thread has the building state, x->st, the buffer pools and the
** worker pool to itself until it is joined; the caller's thread keeps the
** round handed out, the read-back buffers and x->est. The build's budget
** is the staged budget less x->bg->reserve, what the round handed out may hold
** meanwhile (its records and two read buffers). A round is built here, on
** the caller's thread, when there is one thread, when the round handed out
** would leave the build less than half the budget (it would read the graph
** in more sub-rounds than it saves), or when the spill area's limit cannot
** hold two rounds. The batches are the same either way: every choice is
** the sampler's, keyed by the batch. */
#include "clock.h"
#include "hbs_int.h"
#include "hb_spill.h"
#include "spill.h"

#include <stdlib.h>
#include <string.h>

static void *bg_main(void *arg)
{
    hb_ctx *x = arg;
    gnn_clearerr(&x->bg->err);
    x->bg->rc = hbs_build(x, &x->bg->err);
    return NULL;
}

/* What the round handed out may hold while the next is built: its records
** and the read buffers of its largest run, hot rows included (`ahead` more
** for the runs read ahead), with the sixteenth to spare that the read-back
** gives a buffer. */
static size_t emit_reserve(const hb_ctx *x, int ahead)
{
    size_t big = 0;
    for (int i = 0; i < x->sp->emit->nsb; i++)
        if (x->sp->emit->sb[i].run)
            big = GNN_MAX(big, hbs_record_size(x, &x->sp->emit->sb[i]));
    big += big / 16;
    return hbs_records_bytes(x->p, x->sp->emit) + (size_t)(1 + ahead) * big;
}

/* Whether the next round may be built beside the one handed out, which
** holds `reserve` bytes of memory. */
static int may_overlap(hb_ctx *x, size_t reserve)
{
    const plan *p = x->p;
    if (p->threads < 2 || x->next_global >= p->total_batches) return 0;
    if (reserve > (size_t)p->staged_bytes / 2) return 0;
    int64_t limit = x->db->pragma.spill_limit;
    double next = plan_spill_bytes(p, (double)p->hyperbatch);
    return limit <= 0 ||
           (double)spill_in_use(x->sp->area) + next <= (double)limit;
}

/* Start building the next round on its own thread; where no thread can be
** started it is built when it is needed instead. */
static void start_build(hb_ctx *x, size_t reserve)
{
    x->bg->reserve = reserve;
    x->bg->running = 1;
    x->building = 1;
    if (pthread_create(&x->bg->thread, NULL, bg_main, x) != 0) {
        x->bg->running = 0;
        x->building = 0;
        x->bg->reserve = 0;
    }
}

static int join_build(hb_ctx *x, gnn_err *e)
{
    pthread_join(x->bg->thread, NULL);
    x->bg->running = 0;
    x->building = 0;
    x->bg->reserve = 0;
    if (x->bg->rc) return gnn_seterr(e, x->bg->rc, "%s", x->bg->err.msg);
    return GNNDB_OK;
}

/* Make the next round the one handed out (joined, or built here), and
** start the build of the one after it when it may overlap. */
static int next_round(hb_ctx *x, gnn_err *e)
{
    double t0 = gnn_now();
    /* built here, the round has the whole budget: the read buffers and
    ** records of the round handed out are dead (its last batch with them),
    ** and its build counts neither */
    if (!x->bg->running) {
        hbs_readback_trim(x);
        hbs_round_release(x->sp->emit);
    }
    int joined = x->bg->running;
    int rc = joined ? join_build(x, e) : hbs_build(x, e);
    x->est.seconds += gnn_now() - t0;
    x->est.overlapped += (uint64_t)(joined && !rc);
    if (rc) return rc;
    hb_round *r = x->sp->emit;
    x->sp->emit = x->sp->build;
    x->sp->build = r;
    /* the last batch handed out of the old round is dead by now */
    hbs_round_release(x->sp->build);
    x->rb->scur = 0;
    /* the read-back keeps within the reserve (hb_readback.c): where the
    ** plan's runs read ahead leave the build too little, each run is read
    ** when it is handed out and put in order in place, so that the build
    ** overlaps the hand-out, which saves more than reading ahead does */
    size_t reserve = emit_reserve(x, x->p->spill_ahead);
    if (!may_overlap(x, reserve)) reserve = emit_reserve(x, 0);
    if (may_overlap(x, reserve)) start_build(x, reserve);
    return GNNDB_OK;
}

int hbp_next(hb_ctx *x, const gnndb_batch_view **view, gnn_err *e)
{
    if (!hbs_pending(x)) {
        if (!x->bg->running && x->next_global >= x->p->total_batches)
            return GNNDB_DONE;
        if (x->db->interrupt)
            return gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
        int rc = next_round(x, e);
        if (rc) return rc;
    }
    if (x->db->interrupt) return gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
    int rc = hbs_next(x, view, e);
    if (rc) return rc;
    x->est.batches++;
    return GNNDB_BATCH;
}

int hbp_open(hb_ctx *x, gnn_err *e)
{
    x->sp = calloc(1, sizeof *x->sp);
    x->rb = calloc(1, sizeof *x->rb);
    x->bg = calloc(1, sizeof *x->bg);
    if (!x->sp || !x->rb || !x->bg)
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    x->sp->emit = &x->sp->rounds[0];
    x->sp->build = &x->sp->rounds[1];
    hbs_readback_init(x);
    return hbs_open(x, e);
}

/* The runs go before the buffers they may be read into, and both before
** the area that holds them. */
void hbp_close(hb_ctx *x)
{
    hbp_stop(x);
    if (x->sp) hbs_free_rounds(x);
    if (x->rb) hbs_readback_close(x);
    if (x->sp) hbs_close(x);
    free(x->sp);
    free(x->rb);
    free(x->bg);
    x->sp = NULL;
    x->rb = NULL;
    x->bg = NULL;
}

void hbp_stats(const hb_ctx *x, hb_stats *v)
{
    if (!x->sp || !x->sp->area) return;
    spill_stats s;
    spill_get_stats(x->sp->area, &s);
    v->spill_written = s.bytes_written;
    v->spill_read = s.bytes_read;
    v->spill_peak = s.peak_bytes;
    v->spill_read_wait = s.read_wait_seconds;
    v->spill_write_seconds = s.write_seconds;
}

void hbp_stop(hb_ctx *x)
{
    if (!x->bg || !x->bg->running) return;
    atomic_store(&x->stop, 1);
    pthread_join(x->bg->thread, NULL);
    x->bg->running = 0;
    x->building = 0;
    x->bg->reserve = 0;
}
