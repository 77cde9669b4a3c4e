/* blockfile.c — block files on disk: the writer (temporary name, buffered
** appends, fsync, atomic rename) and the reader (O_DIRECT where allowed,
** size check, verified synchronous reads) of plain files and of segmented
** ones, whose blocks lie in the segments their map lists. */
#include "blockfile.h"
#include "block.h"
#include "sync_dir.h"
#include "pagecache.h"
#include "segmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct blk_writer {
    int fd;
    uint32_t block_size;
    uint64_t nblocks;     /* appended, buffered ones included */
    uint8_t *buf;         /* cap blocks waiting to be written */
    size_t cap, nbuf;
    char *dir, *final, *tmp;
};

static char *join(const char *dir, const char *name, const char *suffix)
{
    size_t n = strlen(dir) + strlen(name) + strlen(suffix) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s%s", dir, name, suffix);
    return p;
}

static void writer_free(blk_writer *w)
{
    if (!w) return;
    if (w->fd >= 0) close(w->fd);
    gnn_free_aligned(w->buf);
    free(w->dir);
    free(w->final);
    free(w->tmp);
    free(w);
}

int blkw_create(const char *dir, const char *name, uint32_t block_size,
                blk_writer **out, gnn_err *e)
{
    *out = NULL;
    if (!blk_size_valid(block_size))
        return gnn_seterr(e, GNNDB_RANGE, "invalid block size %u (a power "
                          "of two from 4 KiB to 16 MiB)", block_size);
    blk_writer *w = calloc(1, sizeof *w);
    if (!w) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    w->fd = -1;
    w->block_size = block_size;
    w->cap = GNN_MAX(1u, BLKW_BUF_BYTES / block_size);
    w->buf = gnn_alloc_aligned(w->cap * block_size);
    w->dir = strdup(dir);
    w->final = join(dir, name, "");
    w->tmp = join(dir, name, ".tmp");
    if (!w->buf || !w->dir || !w->final || !w->tmp) {
        writer_free(w);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    }
    /* A leftover .tmp is the remains of a crashed writer: truncate it. */
    w->fd = open(w->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        int rc = gnn_seterr_errno(e, errno == ENOENT ? GNNDB_NOTFOUND
                                                     : GNNDB_IOERR,
                                  errno, "cannot create %s", w->tmp);
        writer_free(w);
        return rc;
    }
    *out = w;
    return GNNDB_OK;
}

static int write_all(int fd, const uint8_t *p, size_t len, const char *path,
                     gnn_err *e)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return gnn_seterr_errno(e, GNNDB_IOERR, errno, "write to %s",
                                    path);
        }
        if (n == 0)
            return gnn_seterr_errno(e, GNNDB_IOERR, ENOSPC, "write to %s",
                                    path);
        p += n;
        len -= (size_t)n;
    }
    return GNNDB_OK;
}

static int writer_flush(blk_writer *w, gnn_err *e)
{
    if (w->nbuf == 0) return GNNDB_OK;
    int rc = write_all(w->fd, w->buf, w->nbuf * w->block_size, w->tmp, e);
    w->nbuf = 0;
    return rc;
}

int blkw_append(blk_writer *w, const void *block, gnn_err *e)
{
    memcpy(w->buf + w->nbuf * w->block_size, block, w->block_size);
    w->nbuf++;
    w->nblocks++;
    return w->nbuf == w->cap ? writer_flush(w, e) : GNNDB_OK;
}

uint64_t blkw_nblocks(const blk_writer *w) { return w->nblocks; }

int blkw_finish(blk_writer *w, gnn_err *e)
{
    int rc = writer_flush(w, e);
    if (!rc && fsync(w->fd) != 0)
        rc = gnn_seterr_errno(e, GNNDB_IOERR, errno, "fsync of %s", w->tmp);
    if (!rc) {
        int fd = w->fd;
        w->fd = -1;
        if (close(fd) != 0)
            rc = gnn_seterr_errno(e, GNNDB_IOERR, errno, "close of %s",
                                  w->tmp);
    }
    if (!rc && rename(w->tmp, w->final) != 0)
        rc = gnn_seterr_errno(e, GNNDB_IOERR, errno, "cannot rename %s to %s",
                              w->tmp, w->final);
    if (rc) {
        blkw_abort(w);
        return rc;
    }
    /* Until the directory is synced the rename may not survive a crash; a
    ** failure here withdraws the file so that failure means "no file". */
    rc = gnn_sync_dir(w->dir, e);
    if (rc) unlink(w->final);
    writer_free(w);
    return rc;
}

void blkw_abort(blk_writer *w)
{
    if (!w) return;
    if (w->fd >= 0) {
        close(w->fd);
        w->fd = -1;
    }
    unlink(w->tmp);
    writer_free(w);
}

/* ---- reading ----------------------------------------------------------- */

/* One segment of a segmented file: an ordinary block file of its own. */
typedef struct blk_seg {
    int fd;
    int direct;
    char path[576];     /* the map's directory, '/', a name under 48 bytes */
} blk_seg;

struct blk_segs {
    seg_map map;        /* its runs place every logical block */
    blk_seg *seg;       /* map.nsegs of them */
};

/* Open `path` read-only, O_DIRECT unless the file system refuses it.
** `what` names it in the words ("block file g-3.blk", "segment g-3.blk
** of g-4.seg"). */
static int open_read(const char *path, const char *what, int *fd, int *direct,
                     gnn_err *e)
{
    *direct = 1;
    *fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
    if (*fd < 0 && errno == EINVAL) {
        /* The file system does not do direct I/O: go through the cache. */
        *direct = 0;
        *fd = open(path, O_RDONLY | O_CLOEXEC);
    }
    if (*fd >= 0) return GNNDB_OK;
    return gnn_seterr_errno(e, errno == ENOENT ? GNNDB_NOTFOUND : GNNDB_IOERR,
                            errno, "cannot open %s", what);
}

/* That the file open as fd holds exactly nblocks blocks (`what` as for
** open_read). */
static int check_size(int fd, const char *path, const char *what,
                      uint64_t nblocks, uint32_t bs, gnn_err *e)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return gnn_seterr_errno(e, GNNDB_IOERR, errno, "stat of %s", path);
    uint64_t want = nblocks * bs;
    if (nblocks <= UINT64_MAX / bs && (uint64_t)st.st_size == want)
        return GNNDB_OK;
    int small = nblocks > UINT64_MAX / bs || (uint64_t)st.st_size < want;
    return gnn_seterr(e, GNNDB_CORRUPT, "corrupt %s: %llu bytes, expected "
                      "%llu (%llu blocks of %u): %s", what,
                      (unsigned long long)st.st_size, (unsigned long long)want,
                      (unsigned long long)nblocks, bs,
                      small ? "truncated" : "trailing bytes");
}

static void segs_free(blk_segs *s)
{
    if (!s) return;
    for (uint32_t i = 0; s->seg && i < s->map.nsegs; i++)
        if (s->seg[i].fd >= 0) close(s->seg[i].fd);
    free(s->seg);
    seg_map_free(&s->map);
    free(s);
}

/* The map must describe the file the catalog knows: a map of another
** file (or a stale one) would hand out the wrong blocks. */
static int check_map(const seg_map *m, const char *path, uint32_t bs,
                     uint16_t kind, uint64_t token, uint64_t nblocks,
                     gnn_err *e)
{
    if (m->kind == kind && m->block_size == bs && m->token == token &&
        m->nblocks == nblocks)
        return GNNDB_OK;
    return gnn_seterr(e, GNNDB_CORRUPT, "corrupt segment map %s: kind %u, "
                      "block size %u, token %016llx, %llu blocks; the "
                      "catalog says kind %u, %u, %016llx, %llu", path,
                      m->kind, m->block_size, (unsigned long long)m->token,
                      (unsigned long long)m->nblocks, kind, bs,
                      (unsigned long long)token, (unsigned long long)nblocks);
}

/* Open every segment the map lists, beside the map. */
static int open_segs(blk_segs *s, const char *path, gnn_err *e)
{
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path) : 1;
    const char *dir = slash ? path : ".";
    for (uint32_t i = 0; i < s->map.nsegs; i++) {
        blk_seg *g = &s->seg[i];
        const seg_file *sf = &s->map.segs[i];
        snprintf(g->path, sizeof g->path, "%.*s/%s", dirlen, dir, sf->name);
        char what[1200];
        snprintf(what, sizeof what, "segment %s of %s", g->path, path);
        int rc = open_read(g->path, what, &g->fd, &g->direct, e);
        if (!rc) rc = check_size(g->fd, g->path, what, sf->nblocks,
                                 s->map.block_size, e);
        if (rc) return rc;
    }
    return GNNDB_OK;
}

static int open_segmented(blk_file *f, const char *path, gnn_err *e)
{
    blk_segs *s = calloc(1, sizeof *s);
    if (!s) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    int rc = seg_map_read(path, &s->map, e);
    if (rc) {
        free(s);
        return rc;
    }
    rc = check_map(&s->map, path, f->block_size, f->kind, f->token,
                   f->nblocks, e);
    if (!rc && !(s->seg = calloc(s->map.nsegs, sizeof *s->seg)))
        rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    for (uint32_t i = 0; s->seg && i < s->map.nsegs; i++) s->seg[i].fd = -1;
    if (!rc) rc = open_segs(s, path, e);
    if (rc) {
        segs_free(s);
        return rc;
    }
    f->segs = s;
    f->fd = -1;   /* nothing reads a segmented file through one descriptor */
    for (uint32_t i = 0; i < s->map.nsegs; i++) f->direct |= s->seg[i].direct;
    return GNNDB_OK;
}

static int open_plain(blk_file *f, const char *path, gnn_err *e)
{
    char what[600];
    snprintf(what, sizeof what, "block file %s", path);
    int rc = open_read(path, what, &f->fd, &f->direct, e);
    if (!rc) rc = check_size(f->fd, path, what, f->nblocks, f->block_size, e);
    return rc;
}

int blkf_open(const char *path, uint32_t block_size, uint16_t kind,
              uint64_t token, uint64_t nblocks, blk_file **out, gnn_err *e)
{
    *out = NULL;
    if (!blk_size_valid(block_size))
        return gnn_seterr(e, GNNDB_CORRUPT, "%s: invalid block size %u",
                          path, block_size);
    blk_file *f = calloc(1, sizeof *f);
    if (!f) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    f->fd = -1;
    f->block_size = block_size;
    f->kind = kind;
    f->token = token;
    f->nblocks = nblocks;
    snprintf(f->path, sizeof f->path, "%s", path);
    int rc = seg_map_is_name(path) ? open_segmented(f, path, e)
                                   : open_plain(f, path, e);
    if (rc) {
        blkf_close(f);
        return rc;
    }
    *out = f;
    return GNNDB_OK;
}

void blkf_close(blk_file *f)
{
    if (!f) return;
    if (f->fd >= 0) close(f->fd);
    segs_free(f->segs);
    free(f);
}

/* Reopen fd of `path` without O_DIRECT. */
static int reopen_cached(int *fd, int *direct, const char *path, gnn_err *e)
{
    if (!*direct) return GNNDB_OK;
    int nfd = open(path, O_RDONLY | O_CLOEXEC);
    if (nfd < 0)
        return gnn_seterr_errno(e, errno == ENOENT ? GNNDB_NOTFOUND
                                                   : GNNDB_IOERR,
                                errno, "cannot open block file %s", path);
    close(*fd);
    *fd = nfd;
    *direct = 0;
    return GNNDB_OK;
}

int blkf_through_cache(blk_file *f, gnn_err *e)
{
    if (!f->direct) return GNNDB_OK;
    if (!f->segs) return reopen_cached(&f->fd, &f->direct, f->path, e);
    for (uint32_t i = 0; i < f->segs->map.nsegs; i++) {
        blk_seg *g = &f->segs->seg[i];
        int rc = reopen_cached(&g->fd, &g->direct, g->path, e);
        if (rc) return rc;
    }
    f->direct = 0;
    return GNNDB_OK;
}

void blkf_locate(const blk_file *f, uint64_t no, int *fd, uint64_t *offset,
                 uint64_t *run)
{
    if (!f->segs) {
        *fd = f->fd;
        *offset = no * f->block_size;
        *run = f->nblocks - no;
        return;
    }
    uint32_t s;
    uint64_t phys;
    seg_map_locate(&f->segs->map, no, &s, &phys, run);
    *fd = f->segs->seg[s].fd;
    *offset = phys * f->block_size;
}

void blkf_expect(const blk_file *f, uint64_t no, uint64_t *hdr_no,
                 uint64_t *token, const char **path)
{
    if (!f->segs) {
        *hdr_no = no;
        *token = f->token;
        *path = f->path;
        return;
    }
    uint32_t s;
    uint64_t left;
    seg_map_locate(&f->segs->map, no, &s, hdr_no, &left);
    *token = f->segs->map.segs[s].token;
    *path = f->segs->seg[s].path;
}

int blkf_cached(const char *path, int64_t *cached, int64_t *size)
{
    if (!seg_map_is_name(path)) return gnn_file_cached(path, cached, size);
    *cached = *size = 0;
    seg_map m;
    if (seg_map_read(path, &m, NULL)) return -EINVAL;
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path) : 1;
    int rc = 0;
    for (uint32_t i = 0; !rc && i < m.nsegs; i++) {
        char p[1100];
        int64_t c, n;
        snprintf(p, sizeof p, "%.*s/%s", dirlen, slash ? path : ".",
                 m.segs[i].name);
        if ((rc = gnn_file_cached(p, &c, &n)) == 0) {
            *cached += c;
            *size += n;
        }
    }
    seg_map_free(&m);
    if (rc) *cached = *size = 0;
    return rc;
}

int blkf_check_no(const blk_file *f, uint64_t no, gnn_err *e)
{
    if (no < f->nblocks) return GNNDB_OK;
    return gnn_seterr(e, GNNDB_CORRUPT, "corrupt reference: block %llu of %s "
                      "is past its end (%llu blocks)", (unsigned long long)no,
                      f->path, (unsigned long long)f->nblocks);
}

int blkf_read(blk_file *f, uint64_t no, void *buf, gnn_err *e)
{
    int rc = blkf_check_no(f, no, e);
    if (rc) return rc;
    int fd;
    uint64_t off, run, hno, token;
    const char *path;
    blkf_locate(f, no, &fd, &off, &run);
    blkf_expect(f, no, &hno, &token, &path);
    uint8_t *p = buf;
    size_t left = f->block_size;
    off_t at = (off_t)off;
    while (left > 0) {
        ssize_t n = pread(fd, p, left, at);
        if (n < 0) {
            if (errno == EINTR) continue;
            return gnn_seterr_errno(e, GNNDB_IOERR, errno, "read of block "
                                    "%llu of %s", (unsigned long long)hno,
                                    path);
        }
        if (n == 0)
            return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %llu of %s: "
                              "truncated", (unsigned long long)hno, path);
        p += n;
        left -= (size_t)n;
        at += n;
    }
    return blk_verify(buf, f->block_size, f->kind, hno, token, path, e);
}
