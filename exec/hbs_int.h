/* hbs_int.h — the spilled hyperbatch's own state, shared by its three
** files: hb_spill.c (building a round), hb_readback.c (handing it out) and
** hb_pipeline.c (the two overlapped). No other file includes it. */
#ifndef GNN_HBS_INT_H
#define GNN_HBS_INT_H

#include "exec_int.h"
#include "spill.h"

#include <pthread.h>

/* The spilled hyperbatch (hb_spill.c): the spill area, the round being
** handed out (hb_readback.c) and the one being built, perhaps at the same
** time on a thread of its own (hb_pipeline.c). */
struct hb_spill_state {
    struct spill_area *area;
    hb_round rounds[2];
    hb_round *emit, *build;
    int64_t s_next;          /* the plan's sampling sub-round */
    double sample_per;       /* bytes a sampled mini-batch held (measured) */
    hbs_tables tables;       /* what a round gathers from (hbs_open) */
    struct hot_rows *hot;    /* rows no run holds (hbs_hot.c), or NULL */
};
typedef struct hb_spill_state hb_spill_state;

/* Handing a spilled round out (hb_readback.c): the buffers its runs are
** read into (raw, up to SPILL_READ_RUNS at once, each with the record being
** read into it, -1: none), the one the batch handed out is put in order in
** (out), or the raw one it was ordered in place in (in_raw, -1: none), and
** the batch handed out. */
struct hb_readback {
    int scur;                /* next record of `emit` to hand out */
    unsigned char *raw[SPILL_READ_RUNS];
    size_t capraw[SPILL_READ_RUNS];
    int raw_rec[SPILL_READ_RUNS];
    unsigned char *out;
    size_t capout;
    int in_raw;
    uint32_t *ord;
    size_t capord;
    uint64_t *ordseen;       /* a bit per local index, checking `ord` */
    size_t *hslot;           /* the hot rows' slots, after the cold in `ord` */
    size_t caphslot;
    size_t capordseen;
    unsigned char *rowtmp;
    size_t caprowtmp;
    hb_batch sview;
};
typedef struct hb_readback hb_readback;

/* The background build (hb_pipeline.c): while `running` (written by the
** caller's thread only) the build thread alone touches the building state,
** x->st, the pools and the worker pool; `reserve` is what the round handed
** out may hold meanwhile, kept out of the build's budget. */
struct hb_bg {
    pthread_t thread;
    int running;
    int rc;
    gnn_err err;
    size_t reserve;
};
typedef struct hb_bg hb_bg;

/* Open the spill area for a run and close it; free both rounds' records
** (their runs too) first (hb_spill.c). */
int hbs_open(hb_ctx *x, gnn_err *e);
void hbs_free_rounds(hb_ctx *x);
void hbs_close(hb_ctx *x);
/* Sample and gather the next round of p->hyperbatch mini-batches into
** the spill area, as x->sp->build, within staged_bytes less
** x->bg->reserve. */
int hbs_build(hb_ctx *x, gnn_err *e);
/* Phase 2 of building a round (hbs_gather.c): the rows of x->sp->build's
** records into their runs, their labels into the records; runs sealed. */
int hbs_gather(hb_ctx *x, gnn_err *e);
/* The plan's hot rows (hbs_hot.c): chosen when the run opens, the graph
** read twice (x->sp->hot; none without p->spill_hot_rows); freed. */
int hbs_hot_open(hb_ctx *x, gnn_err *e);
void hbs_hot_close(hb_ctx *x);
/* The hot rows of section sec's block `no` (header h) into their slots,
** the first time a round reads it. */
int hbs_hot_fill(hb_ctx *x, const hbs_section *sec, uint64_t no,
                 const blk_header *h, gnn_err *e);
/* The bytes record s takes read back in local order: its run and its hot
** rows, which the run leaves out (a buffer it is read into and put in
** order in place has room for them); what the read-back's buffers hold. */
size_t hbs_record_size(const hb_ctx *x, const hb_sbatch *s);
/* Handing a round out (hb_readback.c): the next mini-batch of
** x->sp->emit; whether one is left. */
int hbs_next(hb_ctx *x, const gnndb_batch_view **view, gnn_err *e);
int hbs_pending(const hb_ctx *x);
/* Give back the read buffers (the batch handed out is dead). */
void hbs_readback_trim(hb_ctx *x);
/* No run read into any buffer yet (hbs_open); freeing the buffers. */
void hbs_readback_init(hb_ctx *x);
void hbs_readback_close(hb_ctx *x);

#endif
