/* hb_spill.c — the spilled hyperbatch: H mini-batches whose gathered rows do
** not fit in memory_limit go through the spill area (storage/spill.c)
** instead of shrinking H.
**
** One round of G mini-batches runs in three phases, each within the limit:
** 1. sample: sub-rounds of as many mini-batches as the sampling state
**    allows (hb_fit), each finished and its topology (n_id, edge_index, the
**    order of its nodes by row) appended to a run of its own; only the
**    sorted rows and the seeds' labels stay in memory;
** 2. gather (hbs_gather.c): table by table (the node features or each
**    type's, then the edge features or each relation's: hbs_sections),
**    every block any of the G needs is read once; as each block arrives, each mini-batch's rows
**    in it are appended to its run, so a run holds its rows by block in the
**    order blocks arrived (recorded);
** 3. emit (hb_readback.c): runs are read back in order, the next one read
**    ahead when memory allows, the rows put into local order, handed out.
** Phases 1 and 2 of the next round may run on a thread of their own while
** this one is handed out (hb_pipeline.c); they then keep out of what the
** round handed out holds (x->bg->reserve). Every choice is the sampler's, so
** batches are bit-identical to the in-memory path; only where the bytes
** wait differs. */
#include "clock.h"
#include "grow.h"
#include "hbs_int.h"
#include "batch.h"
#include "hb_round.h"
#include "hb_spill.h"
#include "pool.h"
#include "spill.h"
#include "sort.h"

#include <stdlib.h>
#include <string.h>

int hbs_open(hb_ctx *x, gnn_err *e)
{
    gnndb *db = x->db;
    const char *dir = db_temp_dir(db);
    /* the tables are open by now (hb_gather_open, the typed variant's
    ** open) and stay so for the run */
    x->sp->tables = (hbs_tables){x->ff, x->ef, x->tf, x->rt};
    x->sp->s_next = (int64_t)GNN_MAX(1, x->p->spill_subround);
    int rc = spill_open(dir, db->pragma.spill_limit, x->p->io, &x->sp->area,
                        e);
    return rc ? rc : hbs_hot_open(x, e);
}

void hbs_free_rounds(hb_ctx *x)
{
    for (int k = 0; k < 2; k++) {
        hb_round *r = &x->sp->rounds[k];
        for (size_t i = 0; i < r->capsb; i++) hbs_sbatch_release(&r->sb[i]);
        free(r->sb);
        free(r->arrival);
    }
}

void hbs_close(hb_ctx *x)
{
    hbs_hot_close(x);
    spill_close(x->sp->area);
    x->sp->area = NULL;
}

/* What the build may still hold beside its own records: the staged budget
** less what the round handed out meanwhile holds. */
static double build_room(const hb_ctx *x)
{
    return (double)x->p->staged_bytes - (double)x->bg->reserve -
           (double)hbs_records_bytes(x->p, x->sp->build);
}

typedef struct sort_job {
    hb_ctx *x;
    uint64_t **keys;         /* per batch: (node << 32 | local), sorted */
    int oom;
} sort_job;

static void sort_task(void *arg, size_t i, int w)
{
    sort_job *j = arg;
    hb_batch *b = &j->x->hb[i];
    uint64_t *k = hb_map_scratch(b);
    j->keys[i] = k;
    if (!k) { j->oom = 1; return; }
    for (size_t q = 0; q < b->nn; q++)
        k[q] = ((uint64_t)b->nodes[q] << 32) | q;
    gnn_sort_u64(k, b->nn);
}

/* A batch with edge rows: its edges by id, relation by relation in a
** typed batch (esec[r] where relation r's start; one span otherwise), each
** with its place (its local index, or its rank among its relation's edges,
** as edge_attr lays them out); the ids kept in the record for the gather,
** places and ids appended to the run for the read back. */
static int spill_edge_order(hb_ctx *x, const hb_batch *b, hb_sbatch *s,
                            gnn_err *e)
{
    const plan *p = x->p;
    size_t ne = b->ne, R = p->typed ? (size_t)p->nrels : 1;
    uint64_t *k = malloc((ne + 1) * sizeof *k);
    size_t *fill = calloc(R + 1, sizeof *fill);
    s->seids = malloc((ne + 1) * sizeof *s->seids);
    s->esec = calloc(R + 1, sizeof *s->esec);
    int rc = GNNDB_OK;
    if (!k || !fill || !s->seids || !s->esec)
        rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory spilling");
    for (size_t q = 0; !rc && q < ne; q++)
        s->esec[(p->typed ? b->etype[q] : 0) + 1]++;
    for (size_t r = 0; !rc && r < R; r++) s->esec[r + 1] += s->esec[r];
    for (size_t q = 0; !rc && q < ne; q++) {
        size_t r = p->typed ? b->etype[q] : 0, rank = fill[r]++;
        k[s->esec[r] + rank] = ((uint64_t)b->eid[q] << 32) |
                               (p->typed ? rank : q);
    }
    for (size_t r = 0; !rc && r < R; r++)
        gnn_sort_u64(k + s->esec[r], s->esec[r + 1] - s->esec[r]);
    /* places written over the keys' front, never ahead of reading */
    uint32_t *place = (uint32_t *)k;
    for (size_t q = 0; !rc && q < ne; q++) {
        uint64_t key = k[q];
        s->seids[q] = (uint32_t)(key >> 32);
        place[q] = (uint32_t)(key & UINT32_MAX);
    }
    if (!rc) rc = spill_run_append(s->run, place, ne * 4, e);
    if (!rc) rc = spill_run_append(s->run, s->seids, ne * 4, e);
    free(k);
    free(fill);
    return rc;
}

/* A time-respecting batch's node_seed, each node's root time and
** edge_time, after its e_id (hbs_off_time). */
static int spill_times(const hb_batch *b, hb_sbatch *s, gnn_err *e)
{
    int64_t *rt = malloc((b->nn + 1) * sizeof *rt);
    if (!rt) return gnn_seterr(e, GNNDB_NOMEM, "out of memory spilling");
    for (size_t q = 0; q < b->nn; q++) rt[q] = b->o_time[b->troot[q]];
    int rc = spill_run_append(s->run, b->o_root, b->nn * 8, e);
    if (!rc) rc = spill_run_append(s->run, rt, b->nn * 8, e);
    if (!rc) rc = spill_run_append(s->run, b->o_etime, b->ne * 8, e);
    free(rt);
    return rc;
}

/* The record and run of finished batch b (keys: its nodes sorted). */
static int spill_topology(hb_ctx *x, hb_batch *b, uint64_t *k,
                          hb_sbatch *s, gnn_err *e)
{
    memset(s, 0, sizeof *s);
    s->epoch = b->epoch;
    s->batch = b->batch;
    s->nseeds = b->nseeds;
    s->nn = b->nn;
    s->ne = b->ne;
    memcpy(s->nsn, b->nsn, sizeof s->nsn);
    memcpy(s->nse, b->nse, sizeof s->nse);
    s->srows = malloc((b->nn + 1) * sizeof *s->srows);
    s->yrows = malloc(((size_t)b->nseeds + 1) * sizeof *s->yrows);
    s->y = malloc(((size_t)b->nseeds + 1) * sizeof *s->y);
    if (!s->srows || !s->yrows || !s->y)
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory spilling");
    const plan *p = x->p;
    size_t ny = 0;
    /* the seeds' label rows: a typed batch's are local to the seeds' type */
    uint64_t ybase = p->typed ? (uint64_t)p->types[p->seed_type].first : 0;
    /* the keys become the order: perm[q] is the local index of the q-th
    ** node by row, or its rank in its type in a typed batch, whose rows go
    ** to its type's x (written over the keys' front, never ahead of
    ** reading) */
    uint32_t *perm = (uint32_t *)k;
    for (size_t q = 0; q < b->nn; q++) {
        uint64_t key = k[q], local = key & UINT32_MAX;
        s->srows[q] = (uint32_t)(key >> 32);
        if (local < (uint64_t)b->nseeds)
            s->yrows[ny++] = key - (ybase << 32);
        perm[q] = p->typed ? b->trank[local] : (uint32_t)local;
    }
    int rc = spill_run_new(x->sp->area, p->spill_wbuf, &s->run, e);
    if (!rc) rc = spill_run_append(s->run, b->n_id, b->nn * 8, e);
    if (!rc) rc = spill_run_append(s->run, b->edge_index, b->ne * 16, e);
    if (!rc && p->eids)
        rc = spill_run_append(s->run, b->e_id, b->ne * 8, e);
    if (!rc && p->temporal) rc = spill_times(b, s, e);
    if (!rc && x->var->spill) rc = x->var->spill(p, b, s, e);
    if (!rc) rc = spill_run_append(s->run, perm, b->nn * 4, e);
    if (!rc) rc = spill_run_append(s->run, s->srows, b->nn * 4, e);
    if (!rc && (p->has_efeat || p->typed_efeat))
        rc = spill_edge_order(x, b, s, e);
    return rc;
}

/* Finish the sampled sub-round in x->hb one batch at a time and spill each
** one's topology; the outputs go as soon as they are in its run, so the
** next sub-round's sampling has their memory. */
static int spill_subround(hb_ctx *x, gnn_err *e)
{
    hb_round *r = x->sp->build;
    size_t had = r->capsb;
    if (gnn_grow((void **)&r->sb, &r->capsb, (size_t)(r->nsb + x->nb),
                sizeof *r->sb))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory spilling");
    memset(r->sb + had, 0, (r->capsb - had) * sizeof *r->sb);
    sort_job j = {x, calloc((size_t)x->nb + 1, sizeof(uint64_t *)), 0};
    if (!j.keys) return gnn_seterr(e, GNNDB_NOMEM, "out of memory spilling");
    wpool_run(x->pool, (size_t)x->nb, sort_task, &j);
    int rc = j.oom ? gnn_seterr(e, GNNDB_NOMEM, "out of memory spilling") : 0;
    idx_txn *t = NULL;
    uint64_t *tmp = NULL;
    size_t captmp = 0;
    if (!rc && x->p->graph.has_map) rc = idx_begin(x->db->idx, 0, &t, e);
    double t0 = gnn_now();
    for (int i = 0; i < x->nb && !rc; i++) {
        hb_batch *b = &x->hb[i];
        /* a typed batch's ranks, which an in-memory round's gather lays
        ** out, before it is finished: nothing is gathered yet */
        if (x->var->layout) rc = x->var->layout(x->p, b, e);
        if (!rc) rc = hb_finish_batch(x, b, t, &tmp, &captmp, e);
        if (!rc) rc = spill_topology(x, b, j.keys[i], &r->sb[r->nsb], e);
        r->nsb++;
        free(b->n_id);
        free(b->edge_index);
        free(b->e_id);
        free(b->t_out);
        b->n_id = NULL;
        b->edge_index = NULL;
        b->e_id = NULL;
        b->t_out = NULL;
        b->cap_out_nodes = b->cap_out_edges = b->cap_out_eid = 0;
        b->cap_t_out = 0;
    }
    x->st.spill.seconds += gnn_now() - t0;
    free(tmp);
    idx_abort(t);
    hb_trim();  /* the outputs just freed, before the next sub-round grows */
    free(j.keys);  /* each batch's keys live in its map (hb_map_scratch) */
    return rc;
}

/* How many of the `left` mini-batches still to sample go in the next
** sub-round: as many as the room beside the records holds, at the bytes a
** sampled mini-batch measured (the plan's estimate before any was), spread
** evenly over the sub-rounds that takes, each of which reads the graph.
** The room is less what the process holds that no count has (memory the
** allocator keeps after the last sub-round): a sub-round sized from the
** counts alone sampled its last hop past the limit before hb_fit's check
** could cut it (planner's H at 512 MiB: 520 MiB resident in hop 3). The
** slots and the hops' scratch are counted, as the next sub-round reuses
** them and a mini-batch's measured bytes include them. */
static int64_t subround_size(hb_ctx *x, int64_t left)
{
    int64_t cap = x->sp->s_next;
    if (x->sp->sample_per > 0) {
        size_t counted = x->bg->reserve +
                         hbs_records_bytes(x->p, x->sp->build) +
                         hb_work_bytes(x) + hb_slots_bytes(x);
        double room = build_room(x) - (double)hb_uncounted(x, counted);
        cap = (int64_t)(room / (x->sp->sample_per * 1.1));
    }
    cap = GNN_MAX(1, cap);
    int64_t k = (left + cap - 1) / cap;
    return (left + k - 1) / k;
}

/* What a mini-batch of the sub-round just sampled held, with the hops'
** scratch: the larger of what its slots count now and of what they and
** the scratch counted at hb_fit's check, before any cut. Counted after a
** cut, which frees the scratch, it sized every other sub-round too large,
** and that one sampled past the limit before hb_fit cut it (HYPERBATCH
** 1024 at 512 MiB: 541-555 MiB resident at those checks). */
static double sampled_per_batch(const hb_ctx *x)
{
    size_t sum = hb_work_bytes(x);
    for (int i = 0; i < x->nb; i++) sum += hb_batch_bytes(&x->hb[i]);
    double per = (double)sum / (double)GNN_MAX(x->nb, 1);
    if (x->fit_sampled > 0)
        per = GNN_MAX(per, (double)x->fit_held / x->fit_sampled);
    return per;
}

/* Phase 1: sample G mini-batches from next_global in sub-rounds. */
static int spill_sample(hb_ctx *x, int64_t g, int64_t G, gnn_err *e)
{
    int64_t done = 0;
    while (done < G) {
        /* once the round has mini-batches, records that leave no room for
        ** one more end it short (the uncounted bytes the process holds can
        ** grow past the plan's margin) rather than fail the statement */
        x->round_may_end = done > 0;
        x->h_next = subround_size(x, G - done);
        /* the records this sub-round will add are held beside its slots */
        x->staged_other = x->bg->reserve + hbs_records_bytes(x->p, x->sp->build) +
                          (size_t)((double)x->h_next * x->p->spill_rec_est);
        x->fit_sampled = 0;
        int rc = hb_sample_round(x, g + done, e);
        x->round_may_end = 0;
        if (!rc) rc = spill_subround(x, e);
        if (rc) return rc;
        if (x->nb == 0) break;
        done += x->nb;
        x->sp->sample_per = sampled_per_batch(x) + x->p->spill_rec_est;
    }
    x->staged_other = 0;
    hb_release_sampling(x);
    return GNNDB_OK;
}

/* Build the next round: phases 1 and 2 for G mini-batches. */
int hbs_build(hb_ctx *x, gnn_err *e)
{
    plan *p = x->p;
    hbs_round_release(x->sp->build);
    int64_t g = x->next_global;
    int64_t epoch, first;
    int64_t G = plan_round(p, g, p->hyperbatch, &epoch, &first);
    int rc = spill_sample(x, g, G, e);
    if (!rc) rc = hbs_gather(x, e);
    if (rc) return rc;
    hb_trim();  /* the gather's scratch, before the read-back's buffers */
    uint64_t built = (uint64_t)x->sp->build->nsb;
    x->next_global += (int64_t)built;
    x->st.max_hyperbatch = GNN_MAX(x->st.max_hyperbatch, built);
    x->st.hyperbatches++;
    x->st.spill_batches += built;
    return GNNDB_OK;
}
