/* spill.c — the spill area (spill.h): unlinked run files written
** sequentially in aligned chunks through an I/O backend of their own, each
** chunk checksummed, read back once and freed. */
#include "spill.h"
#include "block.h"
#include "io.h"
#include "clock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define SPILL_PREFIX     "gnndb-spill-"
/* A run is read back in at most SPILL_READ_DEPTH requests in flight, each
** of whole chunks and at least SPILL_READ_CHUNK bytes: a run of up to
** DEPTH x CHUNK is asked for whole when its read starts, so that it streams
** in while the caller still works on the mini-batch before it. */
#define SPILL_READ_CHUNK ((size_t)8 << 20)
#define SPILL_READ_DEPTH 8

/* A chunk being written: its buffer goes back to the area's free list when
** the write completes. */
typedef struct spill_write {
    io_req q;
    unsigned char *buf;
    int busy;
} spill_write;

/* One thread may write runs while another reads sealed runs back: each
** side has its own I/O backend, and `mu` guards what both touch (the
** bytes in use and the counters). */
struct spill_area {
    char dir[1024];
    int64_t limit;
    io_backend *io;          /* writes */
    io_backend *rio;         /* reads back */
    pthread_mutex_t mu;
    uint64_t in_use;
    uint64_t seq;
    spill_run *reading[SPILL_READ_RUNS]; /* runs being read back */
    int nreading;
    spill_stats st;
    /* writes in flight, and the write buffers no run holds (all of
    ** `bufsize` bytes, the size of the area's first run's) */
    spill_write w[SPILL_WRITE_DEPTH];
    int nwrites;
    size_t bufsize;
    unsigned char *free_bufs[SPILL_WRITE_DEPTH + 1];
    int nfree;
    gnn_err werr;            /* the first failed write, reported next */
};

struct spill_run {
    spill_area *a;
    int fd;
    unsigned char *buf;      /* write buffer, SPILL_ALIGN-aligned */
    size_t bufsize, used;
    uint64_t bytes;          /* appended */
    uint64_t flushed;        /* written to the file (padded) */
    uint32_t *crc;           /* one per chunk written */
    size_t *chunk_len;
    uint64_t *chunk_off;
    size_t nchunks, capchunks;
    int sealed;
    /* reading back */
    unsigned char *dst;
    size_t rd_next_chunk;    /* next chunk to ask for */
    size_t rd_done;          /* chunks verified */
    size_t rd_span;          /* bytes a read request covers at most */
    io_req req[SPILL_READ_DEPTH];
    int req_busy[SPILL_READ_DEPTH];
    size_t req_chunk[SPILL_READ_DEPTH];   /* its first chunk */
    size_t req_nchunks[SPILL_READ_DEPTH];
    int rd_rc;               /* the first failure reading it back, told */
    gnn_err rd_err;          /* ... when it is waited for */
};

int spill_open(const char *dir, int64_t limit, int io_kind, spill_area **out,
               gnn_err *e)
{
    *out = NULL;
    spill_area *a = calloc(1, sizeof *a);
    if (!a) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    snprintf(a->dir, sizeof a->dir, "%s", dir);
    a->limit = limit;
    int rc = gnn_mkdirs(dir, "spill area: ", e);
    if (!rc) rc = io_open(io_kind, SPILL_WRITE_DEPTH + 1, &a->io, e);
    if (!rc) rc = io_open(io_kind, SPILL_READ_DEPTH * SPILL_READ_RUNS + 1,
                          &a->rio, e);
    if (rc) {
        if (a->io) io_close(a->io);
        free(a);
        return rc;
    }
    pthread_mutex_init(&a->mu, NULL);
    spill_remove_stale(dir);
    *out = a;
    return GNNDB_OK;
}

static int drain_writes(spill_area *a, gnn_err *e);

void spill_close(spill_area *a)
{
    if (!a) return;
    drain_writes(a, NULL);
    for (int i = 0; i < a->nfree; i++) gnn_free_aligned(a->free_bufs[i]);
    io_close(a->io);
    io_close(a->rio);
    pthread_mutex_destroy(&a->mu);
    free(a);
}

void spill_get_stats(spill_area *a, spill_stats *out)
{
    pthread_mutex_lock(&a->mu);
    *out = a->st;
    pthread_mutex_unlock(&a->mu);
}

const char *spill_dir(const spill_area *a) { return a->dir; }

int64_t spill_dir_free(const char *dir)
{
    struct statvfs v;
    if (statvfs(dir, &v) != 0) return -1;
    return (int64_t)v.f_bavail * (int64_t)v.f_frsize;
}

uint64_t spill_in_use(spill_area *a)
{
    pthread_mutex_lock(&a->mu);
    uint64_t n = a->in_use;
    pthread_mutex_unlock(&a->mu);
    return n;
}

/* Add `delta` to the bytes in use, and the counters' increments. */
static void account(spill_area *a, int64_t delta, uint64_t written,
                    uint64_t read, double wsec, double rsec)
{
    pthread_mutex_lock(&a->mu);
    a->in_use = (uint64_t)((int64_t)a->in_use + delta);
    if (a->in_use > a->st.peak_bytes) a->st.peak_bytes = a->in_use;
    a->st.bytes_written += written;
    a->st.bytes_read += read;
    a->st.write_seconds += wsec;
    a->st.read_wait_seconds += rsec;
    pthread_mutex_unlock(&a->mu);
}

int spill_remove_stale(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -errno;
    struct dirent *de;
    int removed = 0;
    size_t np = strlen(SPILL_PREFIX);
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, SPILL_PREFIX, np) != 0) continue;
        long pid = strtol(de->d_name + np, NULL, 10);
        /* a live process's run is its own business */
        if (pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM)) continue;
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (unlink(path) == 0) removed++;
    }
    closedir(d);
    return removed;
}

/* An unlinked file in the area: O_TMPFILE where the file system has it,
** else a name unlinked at once. O_DIRECT where it is accepted. */
static int open_run_file(spill_area *a, gnn_err *e)
{
    int fd = open(a->dir, O_TMPFILE | O_RDWR | O_DIRECT | O_CLOEXEC, 0600);
    if (fd < 0) fd = open(a->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    char path[1200];
    snprintf(path, sizeof path, "%s/" SPILL_PREFIX "%ld-%" PRIu64, a->dir,
             (long)getpid(), a->seq++);
    fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_DIRECT | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EINVAL)
        fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0)
        return -gnn_seterr_errno(e, GNNDB_IOERR, errno,
                                 "spill area %s: cannot create a run", a->dir);
    unlink(path);
    return fd;
}

/* A write buffer: a free one, else a new one. */
static unsigned char *take_buf(spill_area *a, size_t size)
{
    if (size == a->bufsize && a->nfree > 0) return a->free_bufs[--a->nfree];
    return gnn_alloc_aligned(size);
}

int spill_run_new(spill_area *a, size_t bufsize, spill_run **out, gnn_err *e)
{
    *out = NULL;
    spill_run *r = calloc(1, sizeof *r);
    if (!r) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    r->a = a;
    r->bufsize = (GNN_MAX(bufsize, 1) + SPILL_ALIGN - 1) &
                 ~(size_t)(SPILL_ALIGN - 1);
    if (!a->bufsize) a->bufsize = r->bufsize;
    r->buf = take_buf(a, r->bufsize);
    if (!r->buf) {
        free(r);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory for a spill buffer");
    }
    int fd = open_run_file(a, e);
    if (fd < 0) {
        gnn_free_aligned(r->buf);
        free(r);
        return -fd;
    }
    r->fd = fd;
    pthread_mutex_lock(&a->mu);
    a->st.runs++;
    pthread_mutex_unlock(&a->mu);
    *out = r;
    return GNNDB_OK;
}

/* Account a completed write: its buffer back to the free list, its
** failure kept for the next call that can report it. */
static void write_done(spill_area *a, spill_write *w)
{
    io_req *q = &w->q;
    if ((q->result < 0 || (uint64_t)q->result != q->len) && !a->werr.rc) {
        int err = q->result < 0 ? (int)-q->result : ENOSPC;
        gnn_seterr_errno(&a->werr, GNNDB_IOERR, err,
                         "spill area %s: writing %u bytes at offset %" PRIu64
                         " of a run (%" PRIu64 " bytes in use)", a->dir,
                         q->len, q->offset, spill_in_use(a));
    }
    if (a->nfree <= SPILL_WRITE_DEPTH) a->free_bufs[a->nfree++] = w->buf;
    else gnn_free_aligned(w->buf);
    w->busy = 0;
    w->buf = NULL;
    a->nwrites--;
}

/* Wait for one write to complete. */
static int wait_write(spill_area *a, gnn_err *e)
{
    io_req *done;
    double t0 = gnn_now();
    int rc = io_wait(a->io, &done, e);
    account(a, 0, 0, 0, gnn_now() - t0, 0);
    if (rc) return rc;
    write_done(a, (spill_write *)done->user);
    return GNNDB_OK;
}

/* Wait for every write in flight; the first failure among them, if any. */
static int drain_writes(spill_area *a, gnn_err *e)
{
    while (a->nwrites > 0) {
        int rc = wait_write(a, e);
        if (rc) return rc;
    }
    if (a->werr.rc) return gnn_seterr(e, a->werr.rc, "%s", a->werr.msg);
    return GNNDB_OK;
}

/* Write buf[0..len) (len a multiple of SPILL_ALIGN) at the end of the run,
** in the background: the run takes another buffer and goes on. */
static int write_chunk(spill_run *r, size_t len, gnn_err *e)
{
    spill_area *a = r->a;
    if (a->werr.rc) return gnn_seterr(e, a->werr.rc, "%s", a->werr.msg);
    uint64_t in_use = spill_in_use(a);
    if (a->limit > 0 && in_use + len > (uint64_t)a->limit)
        return gnn_seterr(e, GNNDB_FULL,
                          "spill area %s is full: PRAGMA spill_limit of %"
                          PRId64 " bytes reached (%" PRIu64 " in use, %zu "
                          "more needed); raise spill_limit or lower "
                          "HYPERBATCH", a->dir, a->limit, in_use, len);
    if (r->nchunks == r->capchunks) {
        size_t c = r->capchunks ? r->capchunks * 2 : 16;
        uint32_t *cr = realloc(r->crc, c * sizeof *cr);
        if (cr) r->crc = cr;
        size_t *cl = realloc(r->chunk_len, c * sizeof *cl);
        if (cl) r->chunk_len = cl;
        uint64_t *co = realloc(r->chunk_off, c * sizeof *co);
        if (co) r->chunk_off = co;
        if (!cr || !cl || !co) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        r->capchunks = c;
    }
    while (a->nwrites >= SPILL_WRITE_DEPTH) {
        int rc = wait_write(a, e);
        if (rc) return rc;
    }
    unsigned char *next = take_buf(a, r->bufsize);
    if (!next) return gnn_seterr(e, GNNDB_NOMEM, "out of memory for a spill buffer");
    spill_write *w = NULL;
    for (int i = 0; i < SPILL_WRITE_DEPTH && !w; i++)
        if (!a->w[i].busy) w = &a->w[i];
    r->crc[r->nchunks] = blk_crc32c(0, r->buf, len);
    r->chunk_off[r->nchunks] = r->flushed;
    r->chunk_len[r->nchunks++] = len;
    memset(&w->q, 0, sizeof w->q);
    w->q.fd = r->fd;
    w->q.offset = r->flushed;
    w->q.len = (uint32_t)len;
    w->q.buf = r->buf;
    w->q.write = 1;
    w->q.user = w;
    w->buf = r->buf;
    int rc = io_submit(a->io, &w->q, e);
    if (!rc) rc = io_flush(a->io, e);
    if (rc) {
        gnn_free_aligned(next);
        r->nchunks--;
        return rc;
    }
    w->busy = 1;
    a->nwrites++;
    /* what stays in the old buffer past len moves to the new one */
    r->buf = next;
    r->flushed += len;
    account(a, (int64_t)len, len, 0, 0, 0);
    return GNNDB_OK;
}

/* Write the whole buffer when it is full. */
static int flush_full(spill_run *r, gnn_err *e)
{
    if (r->used < r->bufsize) return GNNDB_OK;
    int rc = write_chunk(r, r->bufsize, e);
    if (!rc) r->used = 0;
    return rc;
}

int spill_run_append(spill_run *r, const void *data, size_t len, gnn_err *e)
{
    const unsigned char *p = data;
    if (r->sealed) return gnn_seterr(e, GNNDB_MISUSE, "spill run is sealed");
    while (len > 0) {
        size_t k = GNN_MIN(len, r->bufsize - r->used);
        memcpy(r->buf + r->used, p, k);
        r->used += k;
        r->bytes += k;
        p += k;
        len -= k;
        int rc = flush_full(r, e);
        if (rc) return rc;
    }
    return GNNDB_OK;
}

size_t spill_run_room(const spill_run *r) { return r->bufsize - r->used; }

void *spill_run_reserve(spill_run *r, size_t len, gnn_err *e)
{
    if (r->sealed || len > r->bufsize) {
        gnn_seterr(e, GNNDB_MISUSE, "spill run: cannot reserve %zu bytes", len);
        return NULL;
    }
    if (r->bufsize - r->used < len) {
        /* write the whole chunks; the tail moves to the front */
        size_t whole = r->used & ~(size_t)(SPILL_ALIGN - 1);
        if (whole) {
            unsigned char *old = r->buf;
            if (write_chunk(r, whole, e)) return NULL;
            /* the old buffer is being written: only the tail is read */
            memcpy(r->buf, old + whole, r->used - whole);
            r->used -= whole;
        }
        if (r->bufsize - r->used < len) {
            gnn_seterr(e, GNNDB_MISUSE, "spill run: cannot reserve %zu bytes",
                       len);
            return NULL;
        }
    }
    return r->buf + r->used;
}

void spill_run_commit(spill_run *r, size_t len)
{
    r->used += len;
    r->bytes += len;
}

int spill_run_seal(spill_run *r, gnn_err *e)
{
    if (r->sealed) return GNNDB_OK;
    if (r->used) {
        size_t len = (r->used + SPILL_ALIGN - 1) & ~(size_t)(SPILL_ALIGN - 1);
        memset(r->buf + r->used, 0, len - r->used);
        int rc = write_chunk(r, len, e);
        if (rc) return rc;
        r->used = 0;
    }
    /* complete once its chunks are on disk: readers and tests see them */
    int rc = drain_writes(r->a, e);
    if (rc) return rc;
    spill_area *a = r->a;
    if (r->bufsize == a->bufsize && a->nfree <= SPILL_WRITE_DEPTH)
        a->free_bufs[a->nfree++] = r->buf;
    else
        gnn_free_aligned(r->buf);
    r->buf = NULL;
    r->sealed = 1;
    return GNNDB_OK;
}

uint64_t spill_run_bytes(const spill_run *r) { return r->bytes; }
size_t spill_run_read_size(const spill_run *r)
{
    return (size_t)GNN_MAX(r->flushed, SPILL_ALIGN);
}
int spill_run_fd(const spill_run *r) { return r->fd; }

/* ---- reading back ---- */

static int submit_reads(spill_run *r, gnn_err *e)
{
    spill_area *a = r->a;
    int any = 0;
    for (int s = 0; s < SPILL_READ_DEPTH && r->rd_next_chunk < r->nchunks;
         s++) {
        if (r->req_busy[s]) continue;
        /* consecutive chunks lie back to back in the run's file */
        size_t c0 = r->rd_next_chunk, c1 = c0 + 1;
        size_t len = r->chunk_len[c0];
        while (c1 < r->nchunks && len + r->chunk_len[c1] <= r->rd_span)
            len += r->chunk_len[c1++];
        r->rd_next_chunk = c1;
        io_req *q = &r->req[s];
        memset(q, 0, sizeof *q);
        q->fd = r->fd;
        q->offset = r->chunk_off[c0];
        q->len = (uint32_t)len;
        q->buf = r->dst + q->offset;
        q->user = r;
        int rc = io_submit(a->rio, q, e);
        if (rc) return rc;
        r->req_busy[s] = 1;
        r->req_chunk[s] = c0;
        r->req_nchunks[s] = c1 - c0;
        any = 1;
    }
    return any ? io_flush(a->rio, e) : GNNDB_OK;
}

static int reading_slot(const spill_area *a, const spill_run *r)
{
    for (int i = 0; i < a->nreading; i++)
        if (a->reading[i] == r) return i;
    return -1;
}

static void stop_reading(spill_area *a, const spill_run *r)
{
    int i = reading_slot(a, r);
    if (i < 0) return;
    a->reading[i] = a->reading[--a->nreading];
}

int spill_run_read_start(spill_run *r, void *dst, gnn_err *e)
{
    spill_area *a = r->a;
    if (!r->sealed)
        return gnn_seterr(e, GNNDB_MISUSE, "spill run read before sealed");
    if (reading_slot(a, r) >= 0)
        return gnn_seterr(e, GNNDB_MISUSE, "spill run read twice");
    if (a->nreading == SPILL_READ_RUNS)
        return gnn_seterr(e, GNNDB_MISUSE, "spill area: at most %d runs read "
                          "ahead at a time", SPILL_READ_RUNS);
    /* sealing waited for its writes: nothing of it is in flight, and the
    ** writes of other runs (perhaps another thread's) are not waited for */
    r->dst = dst;
    r->rd_next_chunk = r->rd_done = 0;
    r->rd_rc = GNNDB_OK;
    r->rd_span = GNN_MAX(SPILL_READ_CHUNK,
                         (size_t)(r->flushed / SPILL_READ_DEPTH) + 1);
    a->reading[a->nreading++] = r;
    return submit_reads(r, e);
}

/* Verify the chunks read back by request s, each against its checksum. */
static int check_read(spill_run *r, int s, gnn_err *e)
{
    io_req *q = &r->req[s];
    r->req_busy[s] = 0;
    if (q->result < 0 || (uint64_t)q->result != q->len)
        return gnn_seterr_errno(e, GNNDB_IOERR,
                                q->result < 0 ? (int)-q->result : EIO,
                                "spill area %s: reading back %u bytes at "
                                "offset %" PRIu64 " of a run", r->a->dir,
                                q->len, q->offset);
    for (size_t c = r->req_chunk[s]; c < r->req_chunk[s] + r->req_nchunks[s];
         c++) {
        if (blk_crc32c(0, r->dst + r->chunk_off[c], r->chunk_len[c]) != r->crc[c])
            return gnn_seterr(e, GNNDB_CORRUPT,
                              "spill area %s: a run is corrupt at offset %"
                              PRIu64 " (%zu bytes fail their checksum); the "
                              "spilled mini-batch is not returned", r->a->dir,
                              r->chunk_off[c], r->chunk_len[c]);
        r->rd_done++;
    }
    account(r->a, 0, 0, q->len, 0, 0);
    return GNNDB_OK;
}

/* Wait for one read back of any run being read and take it in: its chunks
** verified (a failure is that run's, told when it is waited for) and the
** run's next reads submitted. Fails only when the backend does. */
static int take_completion(spill_area *a, gnn_err *e)
{
    io_req *done;
    int rc = io_wait(a->rio, &done, e);
    if (rc) return rc;
    spill_run *q = done->user;
    int s = (int)(done - q->req);
    if (s < 0 || s >= SPILL_READ_DEPTH || reading_slot(a, q) < 0)
        return gnn_seterr(e, GNNDB_INTERNAL, "spill: stray completion");
    if (q->rd_rc) {
        q->req_busy[s] = 0;
        return GNNDB_OK;
    }
    q->rd_rc = check_read(q, s, &q->rd_err);
    if (!q->rd_rc) q->rd_rc = submit_reads(q, &q->rd_err);
    return GNNDB_OK;
}

static int busy(const spill_run *r)
{
    for (int s = 0; s < SPILL_READ_DEPTH; s++)
        if (r->req_busy[s]) return 1;
    return 0;
}

int spill_run_read_wait(spill_run *r, gnn_err *e)
{
    spill_area *a = r->a;
    if (reading_slot(a, r) < 0)
        return gnn_seterr(e, GNNDB_MISUSE, "no read started");
    double t0 = gnn_now();
    int rc = GNNDB_OK;
    while (!rc && !r->rd_rc && r->rd_done < r->nchunks)
        rc = take_completion(a, e);
    if (!rc && r->rd_rc) rc = gnn_seterr(e, r->rd_rc, "%s", r->rd_err.msg);
    /* on failure, collect what of it is still in flight before returning
    ** (the other runs' reads are taken in on the way) */
    while (busy(r) && take_completion(a, NULL) == GNNDB_OK) {}
    stop_reading(a, r);
    account(a, 0, 0, 0, 0, gnn_now() - t0);
    return rc;
}

int spill_run_read(spill_run *r, void *dst, gnn_err *e)
{
    int rc = spill_run_read_start(r, dst, e);
    if (rc) {
        if (reading_slot(r->a, r) >= 0) spill_run_read_wait(r, NULL);
        return rc;
    }
    return spill_run_read_wait(r, e);
}

void spill_run_free(spill_run *r)
{
    if (!r) return;
    if (reading_slot(r->a, r) >= 0) spill_run_read_wait(r, NULL);
    /* a write of an unsealed run may be in flight: it must not outlive its
    ** file (a sealed run's writes are done, and the writes in flight may
    ** be another thread's) */
    if (!r->sealed) drain_writes(r->a, NULL);
    account(r->a, -(int64_t)r->flushed, 0, 0, 0, 0);
    close(r->fd);
    gnn_free_aligned(r->buf);
    free(r->crc);
    free(r->chunk_len);
    free(r->chunk_off);
    free(r);
}
