/* hb_spill.c — the spilled hyperbatch: H mini-batches whose gathered rows do
** not fit in memory_limit go through the spill area (storage/spill.c)
** instead of shrinking H.
**
** One round of G mini-batches runs in three phases, each within the limit:
** 1. sample: sub-rounds of as many mini-batches as the sampling state
**    allows (hb_fit), each finished and its topology (n_id, edge_index, the
**    order of its nodes by row) appended to a run of its own; only the
**    sorted rows and the seeds' labels stay in memory;
** 2. gather: every feature block any of the G needs is read once; as each
**    block arrives, each mini-batch's rows in it are appended to its run, so
**    a run holds its rows by block in the order blocks arrived (recorded);
** 3. emit: runs are read back in order (the next one read ahead when memory
**    allows), the rows put into local order in place, and handed out.
** Every choice is the sampler's, so batches are bit-identical to the
** in-memory path; only where the bytes wait differs. */
#include "exec_int.h"
#include "pool.h"
#include "spill.h"
#include "sort.h"
#include "copy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a run's sections start, for a mini-batch of nn nodes, ne edges. */
static size_t off_perm(size_t nn, size_t ne) { return nn * 8 + ne * 16; }
static size_t off_rows(size_t nn, size_t ne) { return nn * 16 + ne * 16; }

int hbs_open(hb_exec *x, gnn_err *e)
{
    gnndb *db = x->db;
    const char *dir = db->pragma.temp_dir[0] ? db->pragma.temp_dir : db->dir;
    return spill_open(dir, db->pragma.spill_limit, x->p->io, &x->spill, e);
}

static void sbatch_release(hb_sbatch *s)
{
    free(s->srows);
    free(s->yrows);
    free(s->y);
    spill_run_free(s->run);
    memset(s, 0, sizeof *s);
}

void hbs_close(hb_exec *x)
{
    for (size_t i = 0; i < x->capsb; i++) sbatch_release(&x->sb[i]);
    free(x->sb);
    gnn_free_aligned(x->rbuf[0]);
    gnn_free_aligned(x->rbuf[1]);
    free(x->arrival);
    free(x->ord);
    free(x->rowtmp);
    free(x->ordseen);
    spill_close(x->spill);
}

void hbs_sync_stats(hb_exec *x)
{
    if (!x->spill) return;
    const spill_stats *s = spill_get_stats(x->spill);
    x->st.spill_written = s->bytes_written;
    x->st.spill_read = s->bytes_read;
    x->st.spill_peak = s->peak_bytes;
    x->st.spill_read_wait = s->read_wait_seconds;
    x->st.spill_write_seconds = s->write_seconds;
}

/* Bytes the records of the round hold in memory: their sorted rows and
** labels, each run's write buffer and the writes in flight, and the outputs
** of the one batch being spilled (held only while sampling; counted in
** every phase, which keeps the read-ahead check on the safe side). */
static size_t records_bytes(const hb_exec *x)
{
    size_t sum = 0;
    for (int i = 0; i < x->nsb; i++)
        sum += x->sb[i].nn * 4 + (size_t)x->sb[i].nseeds * 16 + sizeof(hb_sbatch);
    sum += (size_t)(x->nsb + SPILL_WRITE_DEPTH) * x->p->spill_wbuf;
    return sum + (size_t)x->p->spill_topo_est;
}

typedef struct sort_job {
    hb_exec *x;
    int first;               /* record of hb[0] */
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

/* The record and run of finished batch b (keys: its nodes sorted). */
static int spill_topology(hb_exec *x, hb_batch *b, uint64_t *k,
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
    size_t ny = 0;
    /* the keys become the order: perm[q] is the local index of the q-th
    ** node by row (written over the keys' front, never ahead of reading) */
    uint32_t *perm = (uint32_t *)k;
    for (size_t q = 0; q < b->nn; q++) {
        uint64_t key = k[q];
        s->srows[q] = (uint32_t)(key >> 32);
        if ((key & UINT32_MAX) < (uint64_t)b->nseeds) s->yrows[ny++] = key;
        perm[q] = (uint32_t)(key & UINT32_MAX);
    }
    int rc = spill_run_new(x->spill, x->p->spill_wbuf, &s->run, e);
    if (!rc) rc = spill_run_append(s->run, b->n_id, b->nn * 8, e);
    if (!rc) rc = spill_run_append(s->run, b->edge_index, b->ne * 16, e);
    if (!rc) rc = spill_run_append(s->run, perm, b->nn * 4, e);
    if (!rc) rc = spill_run_append(s->run, s->srows, b->nn * 4, e);
    return rc;
}

/* Finish the sampled sub-round in x->hb one batch at a time and spill each
** one's topology; the outputs go as soon as they are in its run, so the
** next sub-round's sampling has their memory. */
static int spill_subround(hb_exec *x, gnn_err *e)
{
    size_t had = x->capsb;
    if (hb_grow((void **)&x->sb, &x->capsb, (size_t)(x->nsb + x->nb),
                sizeof *x->sb))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory spilling");
    memset(x->sb + had, 0, (x->capsb - had) * sizeof *x->sb);
    sort_job j = {x, x->nsb, calloc((size_t)x->nb + 1, sizeof(uint64_t *)), 0};
    if (!j.keys) return gnn_seterr(e, GNNDB_NOMEM, "out of memory spilling");
    wpool_run(x->pool, (size_t)x->nb, sort_task, &j);
    int rc = j.oom ? gnn_seterr(e, GNNDB_NOMEM, "out of memory spilling") : 0;
    idx_txn *t = NULL;
    uint64_t *tmp = NULL;
    size_t captmp = 0;
    if (!rc && x->p->graph.has_map) rc = idx_begin(x->db->idx, 0, &t, e);
    double t0 = hb_now();
    for (int i = 0; i < x->nb && !rc; i++) {
        hb_batch *b = &x->hb[i];
        rc = hb_finish_batch(x, b, t, &tmp, &captmp, e);
        if (!rc) rc = spill_topology(x, b, j.keys[i], &x->sb[x->nsb], e);
        x->nsb++;
        free(b->n_id);
        free(b->edge_index);
        b->n_id = NULL;
        b->edge_index = NULL;
        b->cap_out_nodes = b->cap_out_edges = 0;
    }
    x->st.spill.seconds += hb_now() - t0;
    free(tmp);
    idx_abort(t);
    hb_trim();  /* the outputs just freed, before the next sub-round grows */
    free(j.keys);  /* each batch's keys live in its map (hb_map_scratch) */
    return rc;
}

/* How many of the `left` mini-batches still to sample go in the next
** sub-round: as many as the room beside the records holds, at the bytes a
** sampled mini-batch measured (the plan's estimate before any was), spread
** evenly over the sub-rounds that takes, each of which reads the graph. */
static int64_t subround_size(const hb_exec *x, int64_t left)
{
    int64_t cap = x->s_next;
    if (x->sample_per > 0) {
        double room = (double)x->p->staged_bytes - (double)records_bytes(x);
        cap = (int64_t)(room / (x->sample_per * 1.1));
    }
    cap = GNN_MAX(1, cap);
    int64_t k = (left + cap - 1) / cap;
    return (left + k - 1) / k;
}

/* Phase 1: sample G mini-batches from next_global in sub-rounds. */
static int spill_sample(hb_exec *x, int64_t g, int64_t G, gnn_err *e)
{
    int64_t done = 0;
    while (done < G) {
        x->h_next = subround_size(x, G - done);
        /* the records this sub-round will add are held beside its slots */
        x->staged_other = records_bytes(x) +
                          (size_t)((double)x->h_next * x->p->spill_rec_est);
        int rc = hb_sample_round(x, g + done, e);
        if (!rc) rc = spill_subround(x, e);
        if (rc) return rc;
        done += x->nb;
        /* what a sampled mini-batch held, with its record to come */
        size_t sum = hb_work_bytes(x);
        for (int i = 0; i < x->nb; i++) sum += hb_batch_bytes(&x->hb[i]);
        x->sample_per = (double)sum / (double)GNN_MAX(x->nb, 1) +
                        x->p->spill_rec_est;
    }
    x->staged_other = 0;
    hb_release_sampling(x);
    return GNNDB_OK;
}

/* ---- phase 2: gather into the runs ---- */

static size_t lower_u32(const uint32_t *a, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo;
}

static size_t lower_u64(const uint64_t *a, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo;
}

typedef struct sg_job {
    hb_exec *x;
    const blk_header *h;
    size_t rowbytes;
    size_t *lo, *hi;         /* per record: its rows in the block */
    unsigned char **dst;     /* per record: where they go */
} sg_job;

static void sg_copy_task(void *arg, size_t i, int w)
{
    sg_job *j = arg;
    const hb_sbatch *s = &j->x->sb[i];
    unsigned char *d = j->dst[i];
    if (!d) return;  /* none in this block, or appended serially */
    /* bound for the disk, not for this CPU's cache */
    for (size_t q = j->lo[i]; q < j->hi[i]; q++, d += j->rowbytes)
        gnn_copy_stream(d, blk_feature_row(j->h, s->srows[q] - j->h->first_node),
                        j->rowbytes);
    gnn_copy_stream_done();
}

static int sg_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    sg_job *j = arg;
    hb_exec *x = j->x;
    if (x->db->interrupt) return gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
    const blk_header *h = data;
    uint64_t r0 = no * (uint64_t)x->p->feat.rows_per_block;
    x->arrival[x->narrival++] = (uint32_t)no;
    for (int i = 0; i < x->nsb; i++) {
        hb_sbatch *s = &x->sb[i];
        size_t lo = lower_u32(s->srows, s->nn, r0);
        size_t hi = lower_u32(s->srows, s->nn, r0 + x->p->feat.rows_per_block);
        j->lo[i] = lo;
        j->hi[i] = hi;
        j->dst[i] = NULL;
        if (lo == hi) continue;
        if (s->srows[lo] < h->first_node ||
            s->srows[hi - 1] - h->first_node >= h->count)
            return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %llu of table "
                              "%s: row %u missing", (unsigned long long)no,
                              x->p->feat.name, s->srows[lo]);
        size_t len = (hi - lo) * j->rowbytes;
        if (len > x->p->spill_wbuf / 2) {
            /* more of one block than half its buffer: appended here,
            ** serially, in pieces the buffer takes */
            for (size_t q = lo; q < hi; q++) {
                const void *src = blk_feature_row(h, s->srows[q] - h->first_node);
                int rc = spill_run_append(s->run, src, j->rowbytes, e);
                if (rc) return rc;
            }
            x->st.gather.bytes_out += len;
            continue;
        }
        j->dst[i] = spill_run_reserve(s->run, len, e);
        if (!j->dst[i]) return e->rc;
    }
    j->h = h;
    double t0 = hb_now();
    wpool_run(x->pool, (size_t)x->nsb, sg_copy_task, j);
    x->st.gather.cpu_seconds += hb_now() - t0;
    for (int i = 0; i < x->nsb; i++) {
        if (!j->dst[i]) continue;
        spill_run_commit(x->sb[i].run, (j->hi[i] - j->lo[i]) * j->rowbytes);
        x->st.gather.bytes_out += (j->hi[i] - j->lo[i]) * j->rowbytes;
    }
    return GNNDB_OK;
}

/* The distinct blocks (of `rpb` rows) the records' sorted keys touch. */
static int round_blocks(hb_exec *x, int labels, uint64_t rpb, uint64_t nblocks,
                        gnn_err *e)
{
    if (hb_grow((void **)&x->blockof, &x->capblockof, nblocks + 1,
                sizeof *x->blockof))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory gathering");
    unsigned char *need = calloc(nblocks + 1, 1);
    if (!need) return gnn_seterr(e, GNNDB_NOMEM, "out of memory gathering");
    for (int i = 0; i < x->nsb; i++) {
        const hb_sbatch *s = &x->sb[i];
        if (labels)
            for (int64_t q = 0; q < s->nseeds; q++) need[(s->yrows[q] >> 32) / rpb] = 1;
        else
            for (size_t q = 0; q < s->nn; q++) need[s->srows[q] / rpb] = 1;
    }
    size_t n = 0;
    for (uint64_t b = 0; b < nblocks; b++)
        if (need[b]) x->blockof[n++] = b;
    free(need);
    return (int)n;
}

static int sg_label_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    hb_exec *x = arg;
    const blk_header *h = data;
    uint64_t rpb = x->p->labels.rows_per_block;
    for (int i = 0; i < x->nsb; i++) {
        hb_sbatch *s = &x->sb[i];
        size_t n = (size_t)s->nseeds;
        size_t q = lower_u64(s->yrows, n, (no * rpb) << 32);
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

static int fetch_counted(hb_exec *x, blk_file *f, size_t n, bp_visit_fn fn,
                         void *arg, gnn_err *e)
{
    double t0 = hb_now();
    bp_stats before = *bp_get_stats(x->fpool);
    int rc = bp_fetch(x->fpool, f, x->blockof, n, fn, arg, e);
    const bp_stats *after = bp_get_stats(x->fpool);
    hb_opstats *o = &x->st.gather;
    o->blocks_read += after->blocks_read - before.blocks_read;
    o->bytes_read += after->bytes_read - before.bytes_read;
    o->hits += after->hits - before.hits;
    o->misses += after->misses - before.misses;
    o->reads_issued += after->reads_issued - before.reads_issued;
    o->seconds += hb_now() - t0;
    return rc;
}

/* Phase 2: features into the runs, labels into the records; runs sealed. */
static int spill_gather(hb_exec *x, gnn_err *e)
{
    plan *p = x->p;
    int rc = GNNDB_OK;
    if (p->has_feat) {
        int n = round_blocks(x, 0, p->feat.rows_per_block,
                             (uint64_t)p->feat.nblocks, e);
        if (n < 0) return e->rc;
        if (hb_grow((void **)&x->arrival, &x->caparrival, (size_t)n + 1,
                    sizeof *x->arrival))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory gathering");
        x->narrival = 0;
        size_t ns = (size_t)x->nsb + 1;
        sg_job j = {x, NULL, (size_t)p->feat.dim * 4, calloc(ns, sizeof(size_t)),
                    calloc(ns, sizeof(size_t)), calloc(ns, sizeof(void *))};
        if (!j.lo || !j.hi || !j.dst)
            rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory gathering");
        size_t left = (size_t)n;
        if (!rc) rc = hb_visit_pinned(x, x->blockof, &left, sg_visit, &j, e);
        if (!rc) rc = fetch_counted(x, x->ff, left, sg_visit, &j, e);
        free(j.lo);
        free(j.hi);
        free(j.dst);
        for (int i = 0; i < x->nsb; i++) x->st.gather.items += x->sb[i].nn;
        if (rc) return rc;
    }
    if (p->has_labels) {
        int n = round_blocks(x, 1, p->labels.rows_per_block,
                             (uint64_t)p->labels.nblocks, e);
        if (n < 0) return e->rc;
        if ((rc = fetch_counted(x, x->lf, (size_t)n, sg_label_visit, x, e)))
            return rc;
    }
    double t0 = hb_now();
    for (int i = 0; i < x->nsb && !rc; i++) {
        rc = spill_run_seal(x->sb[i].run, e);
        free(x->sb[i].srows);   /* the run holds them for phase 3 */
        x->sb[i].srows = NULL;
    }
    x->st.spill.seconds += hb_now() - t0;
    return rc;
}

/* Free read-back buffer k. */
static void drop_rbuf(hb_exec *x, int k)
{
    gnn_free_aligned(x->rbuf[k]);
    x->rbuf[k] = NULL;
    x->caprbuf[k] = 0;
}

/* Build the next round: phases 1 and 2 for G mini-batches. */
int hbs_build(hb_exec *x, gnn_err *e)
{
    plan *p = x->p;
    for (int i = 0; i < x->nsb; i++) sbatch_release(&x->sb[i]);
    x->nsb = 0;
    x->scur = 0;
    /* the buffers of the last round's emits are dead: give them back */
    for (int k = 0; k < 2; k++) drop_rbuf(x, k);
    int64_t g = x->next_global;
    int64_t first = g % p->batches_per_epoch;
    int64_t G = GNN_MIN(p->hyperbatch, p->batches_per_epoch - first);
    G = GNN_MIN(G, p->total_batches - g);
    int rc = spill_sample(x, g, G, e);
    if (!rc) rc = spill_gather(x, e);
    if (rc) return rc;
    x->next_global += x->nsb;
    if ((uint64_t)x->nsb > x->st.max_hyperbatch)
        x->st.max_hyperbatch = (uint64_t)x->nsb;
    x->st.hyperbatches++;
    x->st.spill_batches += (uint64_t)x->nsb;
    hbs_sync_stats(x);
    return GNNDB_OK;
}

/* ---- phase 3: read back, in order ---- */

/* Buffer k with room for `need` bytes. Runs of a round differ a little in
** size, so a new buffer gets a sixteenth to spare: later runs reuse it
** instead of faulting in fresh pages for every mini-batch. */
static int rbuf_ready(hb_exec *x, int k, size_t need, gnn_err *e)
{
    if (x->caprbuf[k] >= need) return GNNDB_OK;
    gnn_free_aligned(x->rbuf[k]);
    need += need / 16;
    x->rbuf[k] = gnn_alloc_aligned(need);
    x->caprbuf[k] = x->rbuf[k] ? need : 0;

    if (!x->rbuf[k])
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory reading back a "
                          "spilled mini-batch");
    return GNNDB_OK;
}

/* Reading ahead, a run is read into rbuf[0] in the order its rows
** arrived and put in local order into rbuf[1], the buffer handed out, so
** that rbuf[0] takes the next run at once; otherwise rbuf[0] alone is read
** into and ordered in place. */

/* Whether reading record i + 1 ahead, while record i is handed out, keeps
** the two buffers and the round's records within the staged budget: runs
** differ in size from the plan's estimate, so it is checked on theirs. */
static int ahead_fits(const hb_exec *x, int i)
{
    size_t need = spill_run_read_size(x->sb[i + 1].run);
    size_t both = x->caprbuf[1] + GNN_MAX(need, x->caprbuf[0]);
    return both + records_bytes(x) <= (size_t)x->p->staged_bytes;
}

static int start_read(hb_exec *x, int i, gnn_err *e)
{
    hb_sbatch *s = &x->sb[i];
    int rc = rbuf_ready(x, 0, spill_run_read_size(s->run), e);
    if (!rc) rc = spill_run_read_start(s->run, x->rbuf[0], e);
    return rc;
}

static int bad_order(hb_exec *x, size_t k, size_t nn, gnn_err *e)
{
    return gnn_seterr(e, GNNDB_CORRUPT, "spill area %s: a spilled mini-batch "
                      "lists %zu of its %zu rows, or a row twice",
                      spill_dir(x->spill), k, nn);
}

/* x->ord[j] = the local index of the j-th row of record s read into buf:
** the rows came block by block in x->arrival's order, each block's in
** row order. Every local index must appear once. */
static int arrival_order(hb_exec *x, hb_sbatch *s, const unsigned char *buf,
                         gnn_err *e)
{
    size_t nn = s->nn;
    const uint32_t *perm = (const uint32_t *)(buf + off_perm(nn, s->ne));
    const uint32_t *srows = perm + nn;
    size_t words = nn / 64 + 1;
    if (hb_grow((void **)&x->ord, &x->capord, nn + 1, sizeof *x->ord) ||
        hb_grow((void **)&x->ordseen, &x->capordseen, words, sizeof *x->ordseen))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory reading back");
    memset(x->ordseen, 0, words * sizeof *x->ordseen);
    size_t k = 0;
    uint64_t rpb = x->p->feat.rows_per_block;
    for (size_t a = 0; a < x->narrival; a++) {
        uint64_t r0 = (uint64_t)x->arrival[a] * rpb;
        size_t lo = lower_u32(srows, nn, r0), hi = lower_u32(srows, nn, r0 + rpb);
        if (k + (hi - lo) > nn) return bad_order(x, k + (hi - lo), nn, e);
        for (size_t q = lo; q < hi; q++) {
            uint32_t t = perm[q];
            if (t >= nn || (x->ordseen[t / 64] >> (t % 64) & 1))
                return bad_order(x, k, nn, e);
            x->ordseen[t / 64] |= (uint64_t)1 << (t % 64);
            x->ord[k++] = t;
        }
    }
    return k == nn ? GNNDB_OK : bad_order(x, k, nn, e);
}

/* Put the rows in buf into local order in place: each cycle of the
** permutation x->ord is walked once with one row held aside. */
static int order_in_place(hb_exec *x, hb_sbatch *s, unsigned char *buf,
                          gnn_err *e)
{
    size_t nn = s->nn, rowbytes = (size_t)x->p->feat.dim * 4;
    unsigned char *rows = buf + off_rows(nn, s->ne);
    if (hb_grow((void **)&x->rowtmp, &x->caprowtmp, 2 * rowbytes + 1, 1))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory reading back");
    unsigned char *held = x->rowtmp, *swap = x->rowtmp + rowbytes;
    const uint32_t done = 0x80000000u;
    for (size_t s0 = 0; s0 < nn; s0++) {
        if (x->ord[s0] & done) continue;
        memcpy(held, rows + s0 * rowbytes, rowbytes);
        size_t pos = s0;
        for (;;) {
            size_t t = x->ord[pos] & ~done;
            x->ord[pos] |= done;
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
        memcpy(j->dst + (size_t)j->x->ord[q] * j->rowbytes,
               j->src + q * j->rowbytes, j->rowbytes);
}

/* Copy record s from src (rows in arrival order) to dst with its rows in
** local order, on the pool's threads. */
static void order_into(hb_exec *x, hb_sbatch *s, const unsigned char *src,
                       unsigned char *dst)
{
    size_t nn = s->nn, rowbytes = (size_t)x->p->feat.dim * 4;
    memcpy(dst, src, off_rows(nn, s->ne));
    order_job j = {x, src + off_rows(nn, s->ne), dst + off_rows(nn, s->ne),
                   nn, rowbytes};
    wpool_run(x->pool, (nn + ORDER_TASK_ROWS - 1) / ORDER_TASK_ROWS,
              order_task, &j);
}

/* Record s (`size` bytes), read into rbuf[0], in local order: in rbuf[1]
** when reading ahead, else in place. Its buffer through *out. */
static int put_in_order(hb_exec *x, hb_sbatch *s, size_t size,
                        unsigned char **out, gnn_err *e)
{
    unsigned char *buf = x->rbuf[0];
    *out = buf;
    if (!x->p->has_feat) return GNNDB_OK;
    int rc = arrival_order(x, s, buf, e);
    if (rc || !x->p->spill_ahead) return rc ? rc : order_in_place(x, s, buf, e);
    if ((rc = rbuf_ready(x, 1, size, e))) return rc;
    order_into(x, s, buf, x->rbuf[1]);
    *out = x->rbuf[1];
    return GNNDB_OK;
}

/* The view of record s read into buf. */
static void fill_view(hb_exec *x, hb_sbatch *s, unsigned char *buf)
{
    plan *p = x->p;
    hb_batch *b = &x->sview;
    b->epoch = s->epoch;
    b->batch = s->batch;
    b->nseeds = s->nseeds;
    b->nn = s->nn;
    b->ne = s->ne;
    gnndb_batch_view *v = &b->view;
    memset(v, 0, sizeof *v);
    v->epoch = s->epoch;
    v->batch = s->batch;
    v->num_seeds = s->nseeds;
    v->num_nodes = (int64_t)s->nn;
    v->num_edges = (int64_t)s->ne;
    v->num_hops = p->nhops;
    v->device = GNNDB_DEVICE_HOST;
    v->n_id = (int64_t *)buf;
    v->num_sampled_nodes = s->nsn;
    v->num_sampled_edges = s->nse;
    v->edge_index = (int64_t *)(buf + s->nn * 8);
    v->x = p->has_feat ? (float *)(buf + off_rows(s->nn, s->ne)) : NULL;
    v->x_dim = p->has_feat ? p->feat.dim : 0;
    v->y = p->has_labels ? s->y : NULL;
}

int hbs_next(hb_exec *x, const gnndb_batch_view **view, gnn_err *e)
{
    int i = x->scur;
    hb_sbatch *s = &x->sb[i];
    int rc = GNNDB_OK;
    if (!x->ahead_started) {
        /* the batch handed out before is dead: one buffer is enough */
        drop_rbuf(x, 1);
        rc = start_read(x, i, e);
    }
    x->ahead_started = 0;
    if (!rc) rc = spill_run_read_wait(s->run, e);
    double t0 = hb_now();
    unsigned char *buf = NULL;
    if (!rc) rc = put_in_order(x, s, spill_run_read_size(s->run), &buf, e);
    x->st.spill.cpu_seconds += hb_now() - t0;
    if (!rc) {
        fill_view(x, s, buf);
        x->scur++;
    }
    /* read the next run while the caller trains on this one, when both
    ** buffers fit beside what the round still holds */
    if (!rc && x->p->spill_ahead && x->scur < x->nsb && ahead_fits(x, i)) {
        rc = start_read(x, x->scur, e);
        x->ahead_started = !rc;
    }
    /* read back once: its space goes back to the spill area now, while
    ** the next run streams in (closing a large file takes a while) */
    spill_run_free(s->run);
    s->run = NULL;
    hbs_sync_stats(x);
    if (rc) return rc;
    return hb_emit(x, &x->sview, view, e);
}

int hbs_pending(const hb_exec *x) { return x->scur < x->nsb; }
