/* bufpool.c — the buffer pool: block-sized frames found through a hash of
** (file id, block number), unpinned frames kept in LRU order, and batched
** fetches that coalesce adjacent reads and keep many in flight.
**
** Eviction resists sweeps (a segmented LRU). In a round a hyperbatch
** reads a few blocks again and again (the seeds' neighbourhoods and the
** hubs, hop after hop) and sweeps, at its last hop and in the gather, over
** more blocks than a pool smaller than the database holds; under plain LRU
** the sweep, and the reads it keeps in flight, flush the blocks that were
** hit, which then miss in the next round. So:
** - a block read goes on probation; a hit, which shows it saves reads,
**   moves it to the protected segment (all frames but bp_read_frames'
**   worth, which reads in flight need; past that the protected block
**   used longest ago goes back on probation);
** - reads and eviction take free frames first, then probation's, and a
**   fetch waits for its reads in flight to give frames back rather than
**   evict a protected block;
** - a fetch visits the blocks it finds before reading the others, so a
**   sweep still hits on what the pool kept from the sweep before;
** - while frames are free nothing is evicted: a pool that holds the whole
**   file reads each block once. */
#include "bufpool.h"
#include "block.h"

#include <errno.h>
#include <stdint.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define BP_HUGE_MIN ((size_t)64 << 20)

#define BP_DEFAULT_COALESCE 8
/* One read never asks for more than this, whatever max_coalesce says. */
#define BP_MAX_READ_BYTES (1u << 30)

typedef struct bp_frame {
    uint8_t *data;
    int file_id;
    uint64_t no;
    unsigned pin;
    int cached;                    /* in the hash table */
    int dropped;                   /* forgotten by bp_drop_file while pinned */
    int prot;                      /* in the protected segment */
    int used;                      /* ever read into: its pages are resident */
    struct bp_frame *hnext;        /* hash chain */
    struct bp_frame *prev, *next;  /* on a list, while unpinned */
} bp_frame;

/* One read in flight during bp_fetch: a run of adjacent blocks. */
typedef struct bp_read {
    io_req req;
    uint64_t first;
    unsigned n;
    bp_frame **frames;  /* max_coalesce of them */
    struct iovec *iov;  /* max_coalesce of them */
    struct bp_read *next_free;
} bp_read;

struct bp_pool {
    size_t nframes;
    uint32_t frame_size;
    size_t stride;              /* frame_size rounded up for O_DIRECT */
    io_backend *io;
    uint8_t *mem;
    bp_frame *frames;
    bp_frame **buckets;
    size_t mask;                /* buckets - 1, a power of two minus one */
    bp_frame lru;               /* sentinel: unpinned blocks on probation,
                                ** oldest first */
    bp_frame prot;              /* sentinel: unpinned protected blocks */
    bp_frame free;              /* sentinel: unpinned frames holding nothing */
    size_t unpinned;            /* frames on the three lists */
    size_t nspare;              /* of them on the free list or probation */
    size_t nprot;               /* protected blocks, pinned or not */
    size_t prot_max;
    int huge;                   /* mem asked for huge pages */
    atomic_size_t touched;      /* frames ever read into (read by another
                                ** thread, for the memory check) */
    unsigned max_coalesce;
    bp_stats stats;
    int fetching;               /* a bp_fetch is running (not reentrant) */
    /* scratch of bp_fetch, kept between calls */
    uint64_t *miss;
    size_t capmiss;
    bp_read *reads;
    unsigned nreads;            /* slots allocated */
    unsigned reads_coalesce;    /* max_coalesce they were sized for */
};

/* ---- lists and hash ---------------------------------------------------- */

static void list_init(bp_frame *s) { s->prev = s->next = s; }
static int list_empty(const bp_frame *s) { return s->next == s; }

static void list_remove(bp_frame *f)
{
    f->prev->next = f->next;
    f->next->prev = f->prev;
    f->prev = f->next = NULL;
}

static void list_append(bp_frame *s, bp_frame *f)
{
    f->prev = s->prev;
    f->next = s;
    s->prev->next = f;
    s->prev = f;
}

static size_t hash_of(const bp_pool *bp, int id, uint64_t no)
{
    uint64_t h = (no ^ ((uint64_t)(unsigned)id << 48)) * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 32) & bp->mask;
}

static bp_frame *lookup(const bp_pool *bp, int id, uint64_t no)
{
    for (bp_frame *f = bp->buckets[hash_of(bp, id, no)]; f; f = f->hnext)
        if (f->no == no && f->file_id == id) return f;
    return NULL;
}

static void hash_insert(bp_pool *bp, bp_frame *f, int id, uint64_t no)
{
    size_t b = hash_of(bp, id, no);
    f->file_id = id;
    f->no = no;
    f->cached = 1;
    f->prot = 0;
    f->hnext = bp->buckets[b];
    bp->buckets[b] = f;
}

static void hash_remove(bp_pool *bp, bp_frame *f)
{
    bp_frame **pp = &bp->buckets[hash_of(bp, f->file_id, f->no)];
    while (*pp != f) pp = &(*pp)->hnext;
    *pp = f->hnext;
    f->hnext = NULL;
    f->cached = 0;
    if (f->prot) bp->nprot--;
    f->prot = 0;
}

/* ---- pins -------------------------------------------------------------- */

/* The list an unpinned frame is on. */
static bp_frame *home(bp_pool *bp, const bp_frame *f)
{
    return !f->cached ? &bp->free : f->prot ? &bp->prot : &bp->lru;
}

static void pin(bp_pool *bp, bp_frame *f)
{
    if (f->pin++ == 0) {
        list_remove(f);
        bp->unpinned--;
        if (!f->prot) bp->nspare--;
    }
}

static void unpin(bp_pool *bp, bp_frame *f)
{
    if (--f->pin > 0) return;
    bp->unpinned++;
    if (!f->prot) bp->nspare++;
    list_append(home(bp, f), f);
}

/* A hit: the block saved a read, so it joins the protected segment; the
** protected block used longest ago goes back on probation when the
** segment is full. Pinned now. */
static void pin_hit(bp_pool *bp, bp_frame *f)
{
    pin(bp, f);
    if (f->prot) return;
    f->prot = 1;
    bp->nprot++;
    if (bp->nprot > bp->prot_max && !list_empty(&bp->prot)) {
        bp_frame *old = bp->prot.next;
        list_remove(old);
        old->prot = 0;
        bp->nprot--;
        list_append(&bp->lru, old);
        bp->nspare++;
    }
}

/* A pinned frame to read into: an empty one if any, else the block on
** probation used longest ago, else the protected one, forgotten. NULL when
** every frame is pinned. */
static bp_frame *grab(bp_pool *bp)
{
    bp_frame *f;
    if (!list_empty(&bp->free)) f = bp->free.next;
    else if (!list_empty(&bp->lru)) f = bp->lru.next;
    else if (!list_empty(&bp->prot)) f = bp->prot.next;
    else return NULL;
    pin(bp, f);
    if (f->cached) hash_remove(bp, f);
    if (!f->used) {
        f->used = 1;
        atomic_fetch_add_explicit(&bp->touched, 1, memory_order_relaxed);
    }
    return f;
}

/* Give back a grabbed frame whose read failed. */
static void release(bp_pool *bp, bp_frame *f)
{
    if (f->cached) hash_remove(bp, f);
    unpin(bp, f);
}

/* ---- pool -------------------------------------------------------------- */

size_t bp_read_frames(size_t nframes, unsigned depth)
{
    return GNN_MAX(nframes / 4, GNN_MAX((size_t)depth, (size_t)1));
}

int bp_open(size_t nframes, uint32_t frame_size, io_backend *io,
            bp_pool **out, gnn_err *e)
{
    *out = NULL;
    if (nframes == 0 || frame_size < BLK_MIN_SIZE || frame_size > BLK_MAX_SIZE)
        return gnn_seterr(e, GNNDB_RANGE, "buffer pool of %zu frames of %u "
                          "bytes", nframes, frame_size);
    size_t stride = ((size_t)frame_size + GNN_ALIGN - 1) &
                    ~(size_t)(GNN_ALIGN - 1);
    if (nframes > SIZE_MAX / stride)
        return gnn_seterr(e, GNNDB_NOMEM, "buffer pool of %zu frames is too "
                          "large", nframes);
    size_t nb = 16;
    while (nb < 2 * nframes) nb *= 2;
    bp_pool *bp = calloc(1, sizeof *bp);
    if (!bp) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    bp->nframes = nframes;
    bp->frame_size = frame_size;
    bp->stride = stride;
    bp->io = io;
    bp->mask = nb - 1;
    bp->max_coalesce = BP_DEFAULT_COALESCE;
    /* huge pages where random reads span more than the TLB reaches; below
    ** 64 MiB their 2 MiB granules would only blur what the pool holds */
    bp->huge = nframes * stride >= BP_HUGE_MIN;
    bp->mem = bp->huge ? gnn_alloc_huge(nframes * stride)
                       : gnn_alloc_aligned(nframes * stride);
    bp->frames = calloc(nframes, sizeof *bp->frames);
    bp->buckets = calloc(nb, sizeof *bp->buckets);
    if (!bp->mem || !bp->frames || !bp->buckets) {
        bp_close(bp);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory for a buffer pool "
                          "of %zu frames of %u bytes", nframes, frame_size);
    }
    list_init(&bp->lru);
    list_init(&bp->prot);
    list_init(&bp->free);
    for (size_t i = 0; i < nframes; i++) {
        bp->frames[i].data = bp->mem + i * stride;
        list_append(&bp->free, &bp->frames[i]);
    }
    bp->unpinned = bp->nspare = nframes;
    size_t spare = bp_read_frames(nframes, io_depth(io));
    bp->prot_max = nframes > spare ? nframes - spare : 0;
    *out = bp;
    return GNNDB_OK;
}

static void free_reads(bp_pool *bp)
{
    for (unsigned i = 0; i < bp->nreads; i++) {
        free(bp->reads[i].frames);
        free(bp->reads[i].iov);
    }
    free(bp->reads);
    bp->reads = NULL;
    bp->nreads = 0;
}

void bp_close(bp_pool *bp)
{
    if (!bp) return;
    free_reads(bp);
    free(bp->miss);
    free(bp->buckets);
    free(bp->frames);
    gnn_free_aligned(bp->mem);
    free(bp);
}

int bp_has(const bp_pool *bp, const blk_file *f, uint64_t no)
{
    return lookup(bp, f->id, no) != NULL;
}

uint8_t *bp_borrow(bp_pool *bp)
{
    bp_frame *f = grab(bp);
    return f ? f->data : NULL;
}

void bp_return(bp_pool *bp, uint8_t *data)
{
    release(bp, &bp->frames[(size_t)(data - bp->mem) / bp->stride]);
}

io_backend *bp_io(const bp_pool *bp) { return bp->io; }

void bp_set_max_coalesce(bp_pool *bp, unsigned blocks)
{
    if (blocks < 1) blocks = 1;
    if (blocks > IOV_MAX) blocks = IOV_MAX;
    bp->max_coalesce = blocks;
}

const bp_stats *bp_get_stats(const bp_pool *bp) { return &bp->stats; }
void bp_reset_stats(bp_pool *bp) { memset(&bp->stats, 0, sizeof bp->stats); }
size_t bp_nframes(const bp_pool *bp) { return bp->nframes; }
size_t bp_touched_bytes(const bp_pool *bp)
{
    if (!bp) return 0;
    size_t pool = bp->nframes * bp->stride;
    size_t bytes = atomic_load_explicit(&bp->touched, memory_order_relaxed) *
                   bp->stride;
    /* frames are grabbed in order, and within the 2 MiB pages that
    ** gnn_alloc_huge asked huge pages for, the kernel backs the page the
    ** last touched frame lies in whole */
    uintptr_t huge = (uintptr_t)2 << 20, base = (uintptr_t)bp->mem;
    uintptr_t lo = (base + huge - 1) & ~(huge - 1);
    uintptr_t hi = (base + pool) & ~(huge - 1);
    uintptr_t end = base + bytes;
    if (bp->huge && hi > lo && end > lo && end < hi) end = (end + huge - 1) & ~(huge - 1);
    return (size_t)(end - base);
}

size_t bp_frames_touched(const bp_pool *bp)
{
    return atomic_load_explicit(&bp->touched, memory_order_relaxed);
}

void bp_prefault(bp_pool *bp, size_t from, size_t to)
{
    size_t k = 0;
    if (to > bp->nframes) to = bp->nframes;
    for (size_t i = from; i < to; i++) {
        bp_frame *f = &bp->frames[i];
        if (f->used) continue;
        for (size_t o = 0; o < bp->stride; o += 4096)
            ((volatile uint8_t *)f->data)[o] = 0;
        f->used = 1;
        k++;
    }
    atomic_fetch_add_explicit(&bp->touched, k, memory_order_relaxed);
}

void bp_drop_file(bp_pool *bp, const blk_file *f)
{
    for (size_t i = 0; i < bp->nframes; i++) {
        bp_frame *fr = &bp->frames[i];
        if (!fr->cached || fr->file_id != f->id) continue;
        int was_prot = fr->prot;
        hash_remove(bp, fr);
        if (fr->pin == 0) {
            list_remove(fr);
            list_append(&bp->free, fr);
            bp->nspare += (size_t)was_prot;
        } else {
            fr->dropped = 1; /* found by bp_unpin, then freed */
        }
    }
}

static int check_file(const bp_pool *bp, const blk_file *f, gnn_err *e)
{
    if (f->block_size > bp->frame_size)
        return gnn_seterr(e, GNNDB_MISUSE, "%s: blocks of %u bytes do not "
                          "fit frames of %u", f->path, f->block_size,
                          bp->frame_size);
    return GNNDB_OK;
}

static int no_frame(const bp_pool *bp, gnn_err *e)
{
    return gnn_seterr(e, GNNDB_NOMEM, "all %zu frames of the buffer pool are "
                      "pinned", bp->nframes);
}

int bp_get(bp_pool *bp, blk_file *f, uint64_t no, const void **data,
           gnn_err *e)
{
    *data = NULL;
    int rc = check_file(bp, f, e);
    if (rc) return rc;
    bp_frame *fr = lookup(bp, f->id, no);
    if (fr) {
        pin_hit(bp, fr);
        bp->stats.hits++;
        *data = fr->data;
        return GNNDB_OK;
    }
    bp->stats.misses++;
    if (!(fr = grab(bp))) return no_frame(bp, e);
    /* Synchronous and outside the backend, so that a visit callback of a
    ** running bp_fetch may call bp_get without stealing its completions. */
    rc = blkf_read(f, no, fr->data, e);
    if (rc != GNNDB_IOERR && rc != GNNDB_NOMEM) {
        bp->stats.reads_issued++;
        bp->stats.blocks_read++;
        bp->stats.bytes_read += f->block_size;
    }
    if (rc) {
        release(bp, fr);
        return rc;
    }
    hash_insert(bp, fr, f->id, no);
    *data = fr->data;
    return GNNDB_OK;
}

void bp_unpin(bp_pool *bp, blk_file *f, uint64_t no)
{
    bp_frame *fr = lookup(bp, f->id, no);
    if (fr && fr->pin == 0) fr = NULL; /* maybe a dropped copy is pinned */
    for (size_t i = 0; !fr && i < bp->nframes; i++) {
        bp_frame *d = &bp->frames[i];
        if (d->dropped && d->file_id == f->id && d->no == no) fr = d;
    }
    if (!fr || fr->pin == 0) return;
    unpin(bp, fr);
    if (fr->pin == 0) fr->dropped = 0;
}

/* ---- batched fetch ----------------------------------------------------- */

/* The miss list, and read slots for as many reads as may be in flight. */
static int ensure_scratch(bp_pool *bp, size_t n, gnn_err *e)
{
    if (n > bp->capmiss) {
        uint64_t *m = realloc(bp->miss, n * sizeof *m);
        if (!m) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        bp->miss = m;
        bp->capmiss = n;
    }
    unsigned want = io_depth(bp->io);
    if (want > bp->nframes) want = (unsigned)bp->nframes;
    if (bp->reads && bp->nreads >= want &&
        bp->reads_coalesce == bp->max_coalesce)
        return GNNDB_OK;
    free_reads(bp);
    bp->reads = calloc(want, sizeof *bp->reads);
    if (!bp->reads) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    bp->nreads = want;
    bp->reads_coalesce = bp->max_coalesce;
    for (unsigned i = 0; i < want; i++) {
        bp_read *r = &bp->reads[i];
        r->frames = calloc(bp->max_coalesce, sizeof *r->frames);
        r->iov = calloc(bp->max_coalesce, sizeof *r->iov);
        if (!r->frames || !r->iov) {
            free_reads(bp);
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        }
    }
    return GNNDB_OK;
}

typedef struct fetch {
    bp_pool *bp;
    blk_file *f;
    bp_visit_fn visit;
    void *arg;
    bp_read *free;       /* read slots not in flight */
    unsigned active;     /* reads in flight */
} fetch;

/* Start one read of the run of adjacent blocks beginning at miss[*next]:
** as long as frames, max_coalesce and the read size allow. */
static int issue(fetch *x, size_t *next, size_t nmiss, gnn_err *e)
{
    bp_pool *bp = x->bp;
    const uint64_t *miss = bp->miss;
    uint32_t bs = x->f->block_size;
    size_t limit = bp->max_coalesce;
    /* free frames and probation's; a protected one only when no read in
    ** flight will give one back (fetch_missing) */
    size_t avail = bp->nspare > 0 ? bp->nspare : bp->unpinned;
    if (limit > avail) limit = avail;
    if (limit > BP_MAX_READ_BYTES / bs) limit = BP_MAX_READ_BYTES / bs;
    size_t i = *next, n = 1;
    int fd;
    uint64_t offset, run;
    /* a segmented file's blocks lie back to back only within a run */
    blkf_locate(x->f, miss[i], &fd, &offset, &run);
    if (limit > run) limit = (size_t)run;
    while (n < limit && i + n < nmiss && miss[i + n] == miss[i] + n) n++;

    bp_read *rd = x->free;
    x->free = rd->next_free;
    rd->first = miss[i];
    rd->n = (unsigned)n;
    for (size_t k = 0; k < n; k++) {
        rd->frames[k] = grab(bp);
        rd->iov[k].iov_base = rd->frames[k]->data;
        rd->iov[k].iov_len = bs;
    }
    memset(&rd->req, 0, sizeof rd->req);
    rd->req.fd = fd;
    rd->req.offset = offset;
    rd->req.len = (uint32_t)(n * bs);
    rd->req.buf = rd->frames[0]->data;
    rd->req.user = rd;
    if (n > 1) {
        rd->req.iov = rd->iov;
        rd->req.iovcnt = (int)n;
    }
    int rc = io_submit(bp->io, &rd->req, e);
    if (rc) {
        for (size_t k = 0; k < n; k++) release(bp, rd->frames[k]);
        rd->next_free = x->free;
        x->free = rd;
        return rc;
    }
    bp->stats.reads_issued++;
    x->active++;
    *next = i + n;
    return GNNDB_OK;
}

/* A read has landed: verify, cache and visit its blocks in order. */
static int complete(fetch *x, bp_read *rd, gnn_err *e)
{
    bp_pool *bp = x->bp;
    blk_file *f = x->f;
    uint32_t bs = f->block_size;
    int64_t want = (int64_t)rd->n * bs;
    int rc = GNNDB_OK;
    unsigned k = 0;
    /* the words name the file read and its own block numbers: a segment's
    ** for a segmented file (the read lies within one run) */
    uint64_t hno, token;
    const char *path;
    blkf_expect(f, rd->first, &hno, &token, &path);
    if (rd->req.result < 0) {
        rc = gnn_seterr_errno(e, GNNDB_IOERR, (int)-rd->req.result,
                              "read of blocks %llu..%llu of %s",
                              (unsigned long long)hno,
                              (unsigned long long)(hno + rd->n - 1), path);
    } else if (rd->req.result < want) {
        rc = gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %llu of %s: "
                        "truncated (short read)",
                        (unsigned long long)(hno +
                                             (uint64_t)rd->req.result / bs),
                        path);
    } else {
        bp->stats.blocks_read += rd->n;
        bp->stats.bytes_read += (uint64_t)want;
    }
    for (; !rc && k < rd->n; k++) {
        bp_frame *fr = rd->frames[k];
        uint64_t no = rd->first + k;
        blkf_expect(f, no, &hno, &token, &path);
        rc = blk_verify(fr->data, bs, f->kind, hno, token, path, e);
        if (rc) break;
        /* A visit callback may have read this block meanwhile (bp_get):
        ** then this copy is visited but not cached twice. */
        if (!lookup(bp, f->id, no)) hash_insert(bp, fr, f->id, no);
        rc = x->visit(x->arg, no, fr->data, e);
        unpin(bp, fr);
    }
    for (; k < rd->n; k++)
        if (rd->frames[k]->pin) release(bp, rd->frames[k]);
    rd->next_free = x->free;
    x->free = rd;
    return rc;
}

static int fetch_missing(fetch *x, size_t nmiss, gnn_err *e)
{
    bp_pool *bp = x->bp;
    io_backend *io = bp->io;
    size_t next = 0;
    int rc = GNNDB_OK;
    x->free = NULL;
    for (unsigned i = 0; i < bp->nreads; i++) {
        bp->reads[i].next_free = x->free;
        x->free = &bp->reads[i];
    }
    while (!rc && (next < nmiss || x->active > 0)) {
        while (!rc && next < nmiss && x->free && bp->unpinned > 0 &&
               (bp->nspare > 0 || x->active == 0) &&
               io_inflight(io) < io_depth(io))
            rc = issue(x, &next, nmiss, e);
        if (rc) break;
        if (x->active == 0) {
            rc = no_frame(bp, e);
            break;
        }
        io_req *done;
        if ((rc = io_flush(io, e)) || (rc = io_wait(io, &done, e))) break;
        x->active--;
        rc = complete(x, done->user, e);
    }
    /* On failure, reads may still be landing in our frames: wait for them
    ** before the frames are reused. */
    while (x->active > 0) {
        gnn_err scratch;
        io_req *done;
        if (io_wait(io, &done, &scratch)) break;
        x->active--;
        bp_read *rd = done->user;
        for (unsigned k = 0; k < rd->n; k++) release(bp, rd->frames[k]);
    }
    return rc;
}

int bp_fetch(bp_pool *bp, blk_file *f, const uint64_t *blocks, size_t n,
             bp_visit_fn visit, void *arg, gnn_err *e)
{
    if (n == 0) return GNNDB_OK;
    int rc = check_file(bp, f, e);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++) {
        if ((rc = blkf_check_no(f, blocks[i], e))) return rc;
        if (i > 0 && blocks[i] <= blocks[i - 1])
            return gnn_seterr(e, GNNDB_MISUSE, "bp_fetch: blocks not in "
                              "ascending order at %zu", i);
    }
    /* The scratch below is the pool's: a visit callback may call bp_get
    ** on this pool, but not bp_fetch. */
    if (bp->fetching)
        return gnn_seterr(e, GNNDB_MISUSE, "bp_fetch called from a visit "
                          "callback of the same pool");
    if ((rc = ensure_scratch(bp, n, e))) return rc;
    bp->fetching = 1;

    /* Blocks already here first: they cost nothing and free no frame. */
    size_t nmiss = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        bp_frame *fr = lookup(bp, f->id, blocks[i]);
        if (!fr) {
            bp->miss[nmiss++] = blocks[i];
            continue;
        }
        bp->stats.hits++;
        pin_hit(bp, fr);
        rc = visit(arg, blocks[i], fr->data, e);
        unpin(bp, fr);
    }
    if (!rc && nmiss > 0) {
        bp->stats.misses += nmiss;
        fetch x = { bp, f, visit, arg, NULL, 0 };
        rc = fetch_missing(&x, nmiss, e);
    }
    bp->fetching = 0;
    return rc;
}
