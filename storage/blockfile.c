/* blockfile.c — block files on disk: the writer (temporary name, buffered
** appends, fsync, atomic rename) and the reader (O_DIRECT where allowed,
** size check, verified synchronous reads). */
#include "blockfile.h"
#include "block.h"

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

static int fsync_dir(const char *dir, gnn_err *e)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return gnn_seterr_errno(e, GNNDB_IOERR, errno, "cannot open "
                                "directory %s", dir);
    int rc = GNNDB_OK;
    if (fsync(fd) != 0)
        rc = gnn_seterr_errno(e, GNNDB_IOERR, errno, "fsync of directory %s",
                              dir);
    close(fd);
    return rc;
}

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
    rc = fsync_dir(w->dir, e);
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

int blkf_through_cache(blk_file *f, gnn_err *e)
{
    if (!f->direct) return GNNDB_OK;
    int fd = open(f->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return gnn_seterr_errno(e, errno == ENOENT ? GNNDB_NOTFOUND
                                                   : GNNDB_IOERR,
                                errno, "cannot open block file %s", f->path);
    close(f->fd);
    f->fd = fd;
    f->direct = 0;
    return GNNDB_OK;
}

int blkf_open(const char *path, uint32_t block_size, uint16_t kind,
              uint64_t token, uint64_t nblocks, blk_file **out, gnn_err *e)
{
    *out = NULL;
    if (!blk_size_valid(block_size))
        return gnn_seterr(e, GNNDB_CORRUPT, "%s: invalid block size %u",
                          path, block_size);
    int direct = 1;
    int fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
    if (fd < 0 && errno == EINVAL) {
        /* The file system does not do direct I/O: go through the cache. */
        direct = 0;
        fd = open(path, O_RDONLY | O_CLOEXEC);
    }
    if (fd < 0)
        return gnn_seterr_errno(e, errno == ENOENT ? GNNDB_NOTFOUND
                                                   : GNNDB_IOERR,
                                errno, "cannot open block file %s", path);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int rc = gnn_seterr_errno(e, GNNDB_IOERR, errno, "stat of %s", path);
        close(fd);
        return rc;
    }
    uint64_t want = nblocks * block_size;
    if (nblocks > UINT64_MAX / block_size || (uint64_t)st.st_size != want) {
        int small = (uint64_t)st.st_size < want;
        close(fd);
        return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block file %s: %llu "
                          "bytes, expected %llu (%llu blocks of %u): %s",
                          path, (unsigned long long)st.st_size,
                          (unsigned long long)want,
                          (unsigned long long)nblocks, block_size,
                          small ? "truncated" : "trailing bytes");
    }
    blk_file *f = calloc(1, sizeof *f);
    if (!f) {
        close(fd);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    }
    f->fd = fd;
    f->direct = direct;
    f->block_size = block_size;
    f->kind = kind;
    f->token = token;
    f->nblocks = nblocks;
    snprintf(f->path, sizeof f->path, "%s", path);
    *out = f;
    return GNNDB_OK;
}

void blkf_close(blk_file *f)
{
    if (!f) return;
    if (f->fd >= 0) close(f->fd);
    free(f);
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
    uint8_t *p = buf;
    size_t left = f->block_size;
    off_t at = (off_t)(no * f->block_size);
    while (left > 0) {
        ssize_t n = pread(f->fd, p, left, at);
        if (n < 0) {
            if (errno == EINTR) continue;
            return gnn_seterr_errno(e, GNNDB_IOERR, errno, "read of block "
                                    "%llu of %s", (unsigned long long)no,
                                    f->path);
        }
        if (n == 0)
            return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %llu of %s: "
                              "truncated", (unsigned long long)no, f->path);
        p += n;
        left -= (size_t)n;
        at += n;
    }
    return blk_verify(buf, f->block_size, f->kind, no, f->token, f->path, e);
}
