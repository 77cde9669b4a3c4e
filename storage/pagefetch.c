/* pagefetch.c — partial block reads: the runs of pages a caller needs of
** each block, many blocks' runs in flight at once through the I/O backend,
** each block verified page by page when its last run lands. */
#include "pagefetch.h"
#include "block.h"

#include <stdlib.h>
#include <string.h>

size_t pf_runs(const uint32_t *pages, size_t n, unsigned gap, pf_run *out)
{
    size_t k = 0;
    out[k].first = 0;
    out[k].n = 1;
    for (size_t i = 0; i < n; i++) {
        pf_run *r = &out[k];
        uint32_t end = r->first + r->n;  /* one past the run */
        if (pages[i] < end) continue;    /* page 0 listed again */
        if (pages[i] - end <= gap) {
            r->n = pages[i] + 1 - r->first;
        } else {
            out[++k].first = pages[i];
            out[k].n = 1;
        }
    }
    return k + 1;
}

/* One block being read: its frame, the runs of its current stage (the
** caller's, then those of pf_more_fn) and the pages read so far. */
typedef struct pf_slot {
    uint8_t *data;
    uint64_t no;
    const pf_run *runs;
    size_t nruns, next_run;
    unsigned pending;             /* runs in flight */
    int stage;                    /* 0: the caller's runs; 1: more's */
    struct pf_slot *next;         /* free list, or the queue to issue */
    pf_run more[BLK_MAX_PAGES];   /* stage 1's runs */
    uint8_t have[BLK_MAX_PAGES];  /* pages read */
} pf_slot;

typedef struct pf_req {
    io_req req;
    pf_slot *slot;
    const pf_run *run;
    struct pf_req *next_free;
} pf_req;

typedef struct pf_job {
    bp_pool *bp;
    blk_file *f;
    const uint64_t *blocks;
    size_t n, next_block;
    const pf_run *runs;
    const size_t *rstart;
    const pf_visit *v;
    pf_stats *st;
    pf_slot *slots, *free_slots;
    pf_slot *queue, *tail;             /* slots with runs to issue */
    pf_req *reqs, *free_reqs;
    unsigned nslots;
    unsigned active;                   /* requests in flight */
} pf_job;

static int job_alloc(pf_job *j, unsigned depth, gnn_err *e)
{
    j->nslots = depth + 1;
    j->slots = calloc(j->nslots, sizeof *j->slots);
    j->reqs = calloc(depth, sizeof *j->reqs);
    if (!j->slots || !j->reqs)
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory reading pages");
    for (unsigned i = 0; i < j->nslots; i++) {
        j->slots[i].next = j->free_slots;
        j->free_slots = &j->slots[i];
    }
    for (unsigned i = 0; i < depth; i++) {
        j->reqs[i].next_free = j->free_reqs;
        j->free_reqs = &j->reqs[i];
    }
    return GNNDB_OK;
}

static void enqueue(pf_job *j, pf_slot *s)
{
    s->next = NULL;
    if (j->tail) j->tail->next = s;
    else j->queue = s;
    j->tail = s;
}

/* Start the next block: 0 when no frame is free (or none is left). */
static int start_block(pf_job *j)
{
    if (j->next_block >= j->n || !j->free_slots) return 0;
    uint8_t *data = bp_borrow(j->bp);
    if (!data) return 0;
    pf_slot *s = j->free_slots;
    j->free_slots = s->next;
    size_t i = j->next_block++;
    s->data = data;
    s->no = j->blocks[i];
    s->runs = j->runs + j->rstart[i];
    s->nruns = j->rstart[i + 1] - j->rstart[i];
    s->next_run = 0;
    s->pending = 0;
    s->stage = 0;
    memset(s->have, 0, sizeof s->have);
    enqueue(j, s);
    return 1;
}

/* Queue the next run of the slot at the head of the queue. */
static int issue_run(pf_job *j, gnn_err *e)
{
    pf_slot *s = j->queue;
    const pf_run *run = &s->runs[s->next_run];
    uint32_t bs = j->f->block_size, ps = blk_page_size(bs);
    pf_req *q = j->free_reqs;
    memset(&q->req, 0, sizeof q->req);
    int fd;
    uint64_t offset, left;
    blkf_locate(j->f, s->no, &fd, &offset, &left);
    q->req.fd = fd;
    q->req.offset = offset + (uint64_t)run->first * ps;
    q->req.len = run->n * ps;
    q->req.buf = s->data + (size_t)run->first * ps;
    q->req.user = q;
    q->slot = s;
    q->run = run;
    int rc = io_submit(bp_io(j->bp), &q->req, e);
    if (rc) return rc;
    j->free_reqs = q->next_free;
    j->active++;
    s->pending++;
    j->st->reads++;
    if (++s->next_run == s->nruns) {
        j->queue = s->next;
        if (!j->queue) j->tail = NULL;
    }
    return GNNDB_OK;
}

static void slot_free(pf_job *j, pf_slot *s)
{
    bp_return(j->bp, s->data);
    s->data = NULL;
    s->next = j->free_slots;
    j->free_slots = s;
}

/* Verify the pages of the slot's current runs (and page 0). */
static int verify_stage(pf_job *j, pf_slot *s, gnn_err *e)
{
    uint32_t pages[BLK_MAX_PAGES];
    size_t np = 0;
    for (size_t r = 0; r < s->nruns; r++)
        for (uint32_t k = 0; k < s->runs[r].n; k++) {
            uint32_t pg = s->runs[r].first + k;
            pages[np++] = pg;
            s->have[pg] = 1;
        }
    blk_file *f = j->f;
    j->st->pages += np;
    j->st->bytes += (uint64_t)np * blk_page_size(f->block_size);
    uint64_t hno, token;
    const char *path;
    blkf_expect(f, s->no, &hno, &token, &path);
    return blk_verify_pages(s->data, f->block_size, f->kind, hno, token,
                            path, pages, np, e);
}

/* After stage 0: the runs of the pages `more` asks for that were not read
** yet; 0 when there are none. */
static size_t more_runs(pf_job *j, pf_slot *s, gnn_err *e, int *rc)
{
    uint8_t map[BLK_MAX_PAGES];
    uint32_t np = blk_npages(j->f->block_size), want[BLK_MAX_PAGES];
    memset(map, 0, np);
    if ((*rc = j->v->more(j->v->arg, s->no, s->data, map, e))) return 0;
    size_t n = 0;
    for (uint32_t k = 1; k < np; k++)
        if (map[k] && !s->have[k]) want[n++] = k;
    if (n == 0) return 0;
    /* pf_runs starts with page 0, which was read: drop that run unless
    ** it grew to take wanted pages */
    size_t nr = pf_runs(want, n, j->v->gap, s->more);
    if (s->more[0].n == 1) {
        memmove(s->more, s->more + 1, (nr - 1) * sizeof *s->more);
        nr--;
    } else {
        s->more[0].first = 1;
        s->more[0].n--;
    }
    return nr;
}

/* Every run of slot s has landed: verify them; then ask for more pages
** or visit the block. */
static int finish_stage(pf_job *j, pf_slot *s, gnn_err *e)
{
    int rc = verify_stage(j, s, e);
    if (!rc && s->stage == 0 && j->v->more) {
        size_t nr = more_runs(j, s, e, &rc);
        if (!rc && nr > 0) {
            s->stage = 1;
            s->runs = s->more;
            s->nruns = nr;
            s->next_run = 0;
            enqueue(j, s);
            return GNNDB_OK;
        }
    }
    j->st->blocks++;
    if (!rc) rc = j->v->visit(j->v->arg, s->no, s->data, e);
    slot_free(j, s);
    return rc;
}

/* One request has landed. */
static int complete(pf_job *j, pf_req *q, gnn_err *e)
{
    pf_slot *s = q->slot;
    const pf_run *run = q->run;
    int64_t got = q->req.result;
    q->next_free = j->free_reqs;
    j->free_reqs = q;
    j->active--;
    s->pending--;
    if (got < 0)
        return gnn_seterr_errno(e, GNNDB_IOERR, (int)-got, "read of pages "
                                "%u..%u of block %llu of %s", run->first,
                                run->first + run->n - 1,
                                (unsigned long long)s->no, j->f->path);
    if ((uint64_t)got < q->req.len)
        return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %llu of %s: "
                          "truncated (short read of page %u)",
                          (unsigned long long)s->no, j->f->path,
                          run->first + (uint32_t)((uint64_t)got /
                                                  blk_page_size(j->f->block_size)));
    if (s->pending == 0 && s->next_run == s->nruns) return finish_stage(j, s, e);
    return GNNDB_OK;
}

static int run_job(pf_job *j, gnn_err *e)
{
    io_backend *io = bp_io(j->bp);
    int rc = GNNDB_OK;
    while (!rc && (j->next_block < j->n || j->queue || j->active)) {
        /* queue as many runs as the backend takes (blocks already begun
        ** first, so their frames come back sooner), then start them all */
        while (!rc && j->free_reqs && io_inflight(io) < io_depth(io) &&
               (j->queue || start_block(j)))
            rc = issue_run(j, e);
        if (rc) break;
        if (j->active == 0)
            return gnn_seterr(e, GNNDB_NOMEM, "all %zu frames of the buffer "
                              "pool are pinned", bp_nframes(j->bp));
        io_req *done;
        if ((rc = io_flush(io, e)) || (rc = io_wait(io, &done, e))) break;
        rc = complete(j, done->user, e);
    }
    return rc;
}

/* After a failure: let every read land before its frame is reused. */
static void drain(pf_job *j)
{
    io_backend *io = bp_io(j->bp);
    gnn_err scratch;
    while (j->active > 0) {
        io_req *done;
        if (io_wait(io, &done, &scratch)) break;
        pf_req *q = done->user;
        j->active--;
        q->slot->pending--;
    }
    for (unsigned i = 0; j->slots && i < j->nslots; i++) {
        pf_slot *s = &j->slots[i];
        if (s->data && s->pending == 0) {
            bp_return(j->bp, s->data);
            s->data = NULL;
        }
    }
}

/* Blocks within the file, and each block's runs ascending, apart, within
** the block and starting with page 0. */
static int check_args(const blk_file *f, const uint64_t *blocks, size_t n,
                      const pf_run *runs, const size_t *rstart, gnn_err *e)
{
    uint32_t np = blk_npages(f->block_size);
    for (size_t i = 0; i < n; i++) {
        int rc = blkf_check_no(f, blocks[i], e);
        if (rc) return rc;
        int ok = rstart[i + 1] > rstart[i] && runs[rstart[i]].first == 0;
        uint32_t end = 0;
        for (size_t r = rstart[i]; ok && r < rstart[i + 1]; r++) {
            ok = runs[r].n > 0 && runs[r].first >= end &&
                 runs[r].first + runs[r].n <= np;
            end = runs[r].first + runs[r].n;
        }
        if (!ok || (i > 0 && blocks[i] <= blocks[i - 1]))
            return gnn_seterr(e, GNNDB_MISUSE, "pf_fetch: bad runs or order "
                              "for block %llu of %s",
                              (unsigned long long)blocks[i], f->path);
    }
    return GNNDB_OK;
}

int pf_fetch(bp_pool *bp, blk_file *f, const uint64_t *blocks, size_t n,
             const pf_run *runs, const size_t *rstart, const pf_visit *v,
             pf_stats *st, gnn_err *e)
{
    if (n == 0) return GNNDB_OK;
    int rc = check_args(f, blocks, n, runs, rstart, e);
    if (rc) return rc;
    pf_job j;
    memset(&j, 0, sizeof j);
    j.bp = bp;
    j.f = f;
    j.blocks = blocks;
    j.n = n;
    j.runs = runs;
    j.rstart = rstart;
    j.v = v;
    j.st = st;
    unsigned depth = io_depth(bp_io(bp));
    rc = job_alloc(&j, depth, e);
    if (!rc) {
        rc = run_job(&j, e);
        if (rc) drain(&j);
    }
    free(j.slots);
    free(j.reqs);
    return rc;
}
