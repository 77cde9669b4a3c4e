/* calibrate.c — PRAGMA calibrate = measure: what this database's disk and
** this machine's memory deliver, measured once on a scratch file inside the
** database directory (named *.tmp, so that a crash leaves nothing the next
** writable open does not remove), for EXPLAIN's cost model. Each
** measurement runs for a fixed short time; all of them take a few
** seconds. */
#include "calibrate.h"
#include "io.h"
#include "rng.h"
#include "sample.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SCRATCH_BYTES ((int64_t)64 << 20) /* larger than any block size */
#define MAX_QD 64

typedef struct scratch {
    char path[1024];
    int fd;
    int direct;
    io_backend *io;
    void *buf;               /* MAX_QD slots of `slot` bytes, aligned */
    size_t slot;
    uint64_t rng;
} scratch;

/* Write the scratch file with bytes no file system can compress or dedup,
** fsync it and drop it from the page cache, then open it for O_DIRECT
** reads where the file system allows. */
static int scratch_open(gnndb *db, scratch *s, gnn_err *e)
{
    s->rng = db_new_token();
    snprintf(s->path, sizeof s->path, "%s/calibrate-%016" PRIx64 ".tmp",
             db->dir, s->rng);
    int fd = open(s->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return gnn_seterr_errno(e, GNNDB_IOERR, errno, "PRAGMA calibrate: "
                                "cannot create scratch file %s", s->path);
    size_t chunk = 4 << 20;
    uint64_t *w = malloc(chunk);
    int rc = w ? GNNDB_OK : gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    for (int64_t off = 0; !rc && off < SCRATCH_BYTES; off += (int64_t)chunk) {
        for (size_t i = 0; i < chunk / 8; i++)
            w[i] = rng_mix(s->rng + (uint64_t)off / 8 + i);
        size_t done = 0;
        while (!rc && done < chunk) {
            ssize_t n = pwrite(fd, (char *)w + done, chunk - done,
                               off + (off_t)done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0)
                rc = gnn_seterr_errno(e, GNNDB_IOERR, n < 0 ? errno : EIO,
                                      "PRAGMA calibrate: writing scratch "
                                      "file %s", s->path);
            else done += (size_t)n;
        }
    }
    free(w);
    if (!rc && fsync(fd))
        rc = gnn_seterr_errno(e, GNNDB_IOERR, errno, "PRAGMA calibrate: "
                              "fsync of %s", s->path);
    if (!rc) posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    if (rc) return rc;
    s->fd = open(s->path, O_RDONLY | O_DIRECT | O_CLOEXEC);
    s->direct = s->fd >= 0;
    if (s->fd < 0) s->fd = open(s->path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0)
        return gnn_seterr_errno(e, GNNDB_IOERR, errno, "PRAGMA calibrate: "
                                "cannot open scratch file %s", s->path);
    s->slot = 4 << 20;
    if (posix_memalign(&s->buf, 4096, s->slot * (MAX_QD / 4)))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    return io_open(db->pragma.io, MAX_QD, &s->io, e);
}

static void scratch_close(scratch *s)
{
    if (s->io) io_close(s->io);
    if (s->fd >= 0) close(s->fd);
    free(s->buf);
    if (s->path[0]) unlink(s->path);
}

/* Reads of `size` bytes at queue depth qd for about `secs` seconds (and at
** least one), sequential through the file or at random aligned offsets.
** *rate gets reads per second, *lat the mean seconds per read. */
static int run_reads(scratch *s, uint32_t size, unsigned qd, int seq,
                     double secs, double *rate, double *lat, gnn_err *e)
{
    io_req req[MAX_QD];
    uint64_t slots = (uint64_t)(SCRATCH_BYTES / size), next = 0;
    /* the buffer holds MAX_QD/4 slots of 4 MiB: share it among the reads */
    size_t per = (s->slot * (MAX_QD / 4)) / qd;
    if (per < size) qd = (unsigned)((s->slot * (MAX_QD / 4)) / size);
    if (qd > MAX_QD) qd = MAX_QD;
    memset(req, 0, sizeof req);
    double t0 = gnn_now(), tsum = 0, started[MAX_QD];
    uint64_t done = 0;
    unsigned inflight = 0;
    int rc = GNNDB_OK, stop = 0;
    for (unsigned i = 0; i < qd; i++) {
        uint64_t k = seq ? next++ % slots : rng_mix(s->rng++) % slots;
        req[i].fd = s->fd;
        req[i].offset = k * size;
        req[i].len = size;
        req[i].buf = (char *)s->buf + (size_t)i * size;
        req[i].user = (void *)(uintptr_t)i;
        if ((rc = io_submit(s->io, &req[i], e))) return rc;
        started[i] = gnn_now();
        inflight++;
    }
    if ((rc = io_flush(s->io, e))) goto drain;
    while (inflight) {
        io_req *r;
        if ((rc = io_wait(s->io, &r, e))) return rc;
        inflight--;
        unsigned i = (unsigned)(uintptr_t)r->user;
        double t = gnn_now();
        if (r->result != (int64_t)size) {
            rc = gnn_seterr_errno(e, GNNDB_IOERR,
                                  r->result < 0 ? (int)-r->result : EIO,
                                  "PRAGMA calibrate: reading scratch file %s",
                                  s->path);
            goto drain;
        }
        tsum += t - started[i];
        done++;
        if (t - t0 >= secs && done >= qd) stop = 1;
        if (stop) continue;
        uint64_t k = seq ? next++ % slots : rng_mix(s->rng++) % slots;
        r->offset = k * size;
        if ((rc = io_submit(s->io, r, e)) || (rc = io_flush(s->io, e)))
            goto drain;
        started[i] = gnn_now();
        inflight++;
    }
    double el = gnn_now() - t0;
    *rate = (double)done / (el > 0 ? el : 1e-9);
    *lat = tsum / (double)(done ? done : 1);
    return GNNDB_OK;
drain:
    while (inflight) {
        io_req *r;
        gnn_err e2 = {0};
        if (io_wait(s->io, &r, &e2)) break;
        inflight--;
    }
    return rc;
}

/* Sampled edges per second on one thread: the executor's inner loop (pick
** positions, map each neighbour to a local index through an open-addressed
** table) over a random graph held in memory. */
static double measure_sampling(uint64_t seed, double secs)
{
    enum { N = 1 << 16, DEG = 16, MAPCAP = 1 << 16 };
    uint32_t *adj = malloc((size_t)N * DEG * sizeof *adj);
    uint32_t *keys = malloc(MAPCAP * sizeof *keys);
    uint32_t *out = malloc(64 * sizeof *out), scratch[SAMPLE_SCRATCH];
    if (!adj || !keys || !out) {
        free(adj); free(keys); free(out);
        return 0;
    }
    for (size_t i = 0; i < (size_t)N * DEG; i++)
        adj[i] = (uint32_t)(rng_mix(seed + i) % N);
    double t0 = gnn_now(), el = 0;
    uint64_t edges = 0, sink = 0;
    for (uint64_t round = 0; el < secs; round++) {
        memset(keys, 0xff, MAPCAP * sizeof *keys);
        size_t used = 0;
        for (int i = 0; i < 2048; i++) {
            uint32_t v = (uint32_t)(rng_mix(seed ^ (round << 20) ^ (uint64_t)i) % N);
            uint32_t deg = 1 + (uint32_t)(rng_mix(v) % (DEG * 2 - 1));
            if (deg > DEG) deg = DEG;
            uint32_t n = sample_choose(rng_mix(round * 4096 + (uint64_t)i), deg,
                                       10, 0, out, scratch);
            for (uint32_t j = 0; j < n; j++) {
                uint32_t u = adj[(size_t)v * DEG + out[j]];
                size_t h = (u * 2654435761u) & (MAPCAP - 1);
                while (keys[h] != UINT32_MAX && keys[h] != u)
                    h = (h + 1) & (MAPCAP - 1);
                if (keys[h] == UINT32_MAX && used < MAPCAP / 2) {
                    keys[h] = u;
                    used++;
                }
                sink += h;
            }
            edges += n;
        }
        el = gnn_now() - t0;
    }
    free(adj); free(keys); free(out);
    return sink == 1 ? 0 : (double)edges / el;
}

/* Bytes per second of gathering random rows (512 bytes, a 128-wide float32
** row) from a table larger than the caches into a contiguous matrix. */
static double measure_gather(uint64_t seed, double secs)
{
    const size_t row = 512, nrows = (64 << 20) / 512, outrows = 8192;
    char *src = malloc(nrows * row), *dst = malloc(outrows * row);
    if (!src || !dst) { free(src); free(dst); return 0; }
    memset(src, 1, nrows * row);
    double t0 = gnn_now(), el = 0;
    uint64_t bytes = 0;
    for (uint64_t round = 0; el < secs; round++) {
        for (size_t i = 0; i < outrows; i++) {
            size_t r = (size_t)(rng_mix(seed + round * outrows + i) % nrows);
            memcpy(dst + i * row, src + r * row, row);
        }
        bytes += outrows * row;
        el = gnn_now() - t0;
    }
    volatile char keep = dst[rng_mix(seed) % (outrows * row)];
    (void)keep;
    free(src); free(dst);
    return (double)bytes / el;
}

/* The largest block size of the database's graphs and tables (1 MiB when
** it holds none): the size whose random reads the model needs. */
static uint32_t db_block_size(gnndb *db)
{
    uint32_t bs = 0;
    cat_graph *gs = NULL;
    size_t ng = 0;
    gnn_err e2 = {0};
    if (cat_graph_list(db->cat, &gs, &ng, &e2) == GNNDB_OK) {
        for (size_t i = 0; i < ng; i++) {
            if (gs[i].block_size > bs) bs = gs[i].block_size;
            cat_table *ts = NULL;
            size_t nt = 0;
            if (cat_table_list(db->cat, gs[i].id, &ts, &nt, &e2) == GNNDB_OK)
                for (size_t j = 0; j < nt; j++)
                    if (ts[j].block_size > bs) bs = ts[j].block_size;
            free(ts);
        }
        free(gs);
    }
    if (!bs) bs = 1 << 20;
    if (bs > (16u << 20)) bs = 16u << 20;
    return bs;
}

int calibrate_measure(gnndb *db, cat_profile *pr, gnn_err *e)
{
    scratch s;
    memset(&s, 0, sizeof s);
    s.fd = -1;
    cat_profile_defaults(pr);
    uint32_t bs = db_block_size(db);
    int rc = scratch_open(db, &s, e);
    double rate, lat;
    if (!rc && !(rc = run_reads(&s, 1 << 20, 32, 1, 0.4, &rate, &lat, e)))
        pr->seq_read_1m_bps = rate * (1 << 20);
    if (!rc && !(rc = run_reads(&s, 4 << 20, 16, 1, 0.4, &rate, &lat, e)))
        pr->seq_read_4m_bps = rate * (4 << 20);
    if (!rc && !(rc = run_reads(&s, 4096, 64, 0, 0.3, &rate, &lat, e)))
        pr->rand_4k_iops = rate;
    if (!rc && !(rc = run_reads(&s, 4096, 1, 0, 0.15, &rate, &lat, e)))
        pr->rand_4k_lat_us = lat * 1e6;
    if (!rc && !(rc = run_reads(&s, bs, 16, 0, 0.3, &rate, &lat, e)))
        pr->rand_bs_iops = rate;
    if (!rc && !(rc = run_reads(&s, bs, 1, 0, 0.15, &rate, &lat, e)))
        pr->rand_bs_lat_us = lat * 1e6;
    if (!rc) {
        snprintf(pr->io, sizeof pr->io, "%s", io_name(s.io));
        pr->direct = s.direct;
    }
    scratch_close(&s);
    if (rc) return rc;
    pr->rand_bs = bs;
    pr->sample_edges_per_s = measure_sampling(s.rng, 0.3);
    pr->gather_bps = measure_gather(s.rng, 0.3);
    if (pr->sample_edges_per_s <= 0 || pr->gather_bps <= 0)
        return gnn_seterr(e, GNNDB_NOMEM, "PRAGMA calibrate: out of memory "
                          "for the in-memory measurements");
    snprintf(pr->source, sizeof pr->source, "measured");
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(pr->measured_at, sizeof pr->measured_at, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return GNNDB_OK;
}
