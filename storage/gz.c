/* gz.c — plain, gzip and raw-deflate byte streams over a file descriptor,
** read sequentially in large chunks (with read, so that a pipe works, for
** a file of its own; with pread for a range of a shared descriptor); the
** one file that calls zlib. Concatenated gzip members (pigz, bgzip) read as
** one stream. */
#include "gz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define GZ_IN_BUF ((size_t)256 << 10)
#define GZ_NAME_MAX 512

enum { K_PLAIN, K_GZIP, K_RAW };

struct gz_stream {
    int fd, own_fd;         /* own_fd: read(2) from the current offset */
    int kind;               /* K_* */
    uint64_t off, end;      /* the input: bytes [off, end) of fd */
    uint64_t pos;           /* next input byte to read */
    uint64_t out;           /* bytes returned */
    uint64_t out_len;       /* promised inflated size, or UINT64_MAX */
    uint32_t crc, want_crc;
    int check_crc;
    int done;               /* the compressed stream ended */
    z_stream z;
    int zinit;
    unsigned char *in;
    char name[GZ_NAME_MAX];
};

static const char *last_part(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int ends_gz(const char *p)
{
    size_t n = strlen(p);
    return n >= 3 && strcasecmp(p + n - 3, ".gz") == 0;
}

static int make(int fd, int own, uint64_t off, uint64_t end,
                const char *name, gz_stream **out, gnn_err *e)
{
    gz_stream *s = calloc(1, sizeof *s);
    if (!s || !(s->in = malloc(GZ_IN_BUF))) {
        free(s);
        if (own) close(fd);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    }
    s->fd = fd;
    s->own_fd = own;
    s->off = s->pos = off;
    s->end = end;
    s->out_len = UINT64_MAX;
    snprintf(s->name, sizeof s->name, "%s", name);
    *out = s;
    return GNNDB_OK;
}

/* The kind is known: a gzip or raw stream gets its inflater. */
static int set_kind(gz_stream *s, int kind, gnn_err *e)
{
    s->kind = kind;
    if (kind == K_PLAIN) return GNNDB_OK;
    /* 15 + 16: a gzip wrapper; -15: raw deflate (zip members) */
    int bits = kind == K_GZIP ? 15 + 16 : -15;
    if (inflateInit2(&s->z, bits) != Z_OK)
        return gnn_seterr(e, GNNDB_NOMEM, "%s: zlib: out of memory", s->name);
    s->zinit = 1;
    return GNNDB_OK;
}

static int feed(gz_stream *s, gnn_err *e);

int gz_open(const char *path, gz_stream **out, gnn_err *e)
{
    *out = NULL;
    int fd, rc = gnn_open_input(path, &fd, e);
    if (rc) return rc;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        rc = gnn_seterr_errno(e, GNNDB_IOERR, errno, "cannot stat %s", path);
        close(fd);
        return rc;
    }
    /* a pipe has no size: read until its end */
    uint64_t size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : UINT64_MAX;
    if ((rc = make(fd, 1, 0, size, last_part(path), out, e))) return rc;
    gz_stream *s = *out;
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    /* the first bytes say gzip or not; they stay in the input buffer */
    while (s->z.avail_in < 2 && s->pos < s->end && !rc)
        rc = feed(s, e) < 0 ? GNNDB_IOERR : GNNDB_OK;
    int gz = s->z.avail_in >= 2 && s->in[0] == 0x1f && s->in[1] == 0x8b;
    if (!rc && !gz && ends_gz(path))
        rc = gnn_seterr(e, GNNDB_FORMAT, "%s: not gzip data (the file does "
                        "not start with the gzip magic bytes)", s->name);
    if (!rc) rc = set_kind(s, gz ? K_GZIP : K_PLAIN, e);
    if (rc) {
        gz_close(s);
        *out = NULL;
    }
    return rc;
}

int gz_open_range(int fd, uint64_t off, uint64_t len, int mode,
                  uint64_t out_len, uint32_t crc, int check_crc,
                  const char *name, gz_stream **out, gnn_err *e)
{
    *out = NULL;
    if (mode != GZ_RAW && mode != GZ_COPY && mode != GZ_AUTO)
        return gnn_seterr(e, GNNDB_MISUSE, "gz_open_range: mode %d", mode);
    int kind = mode == GZ_RAW ? K_RAW : K_PLAIN;
    if (mode == GZ_AUTO) {
        unsigned char m[2] = {0, 0};
        if (len >= 2 && pread(fd, m, 2, (off_t)off) == 2 && m[0] == 0x1f &&
            m[1] == 0x8b)
            kind = K_GZIP;
    }
    int rc = make(fd, 0, off, off + len, name, out, e);
    if (!rc && (rc = set_kind(*out, kind, e))) {
        gz_close(*out);
        *out = NULL;
    }
    if (rc) return rc;
    (*out)->out_len = out_len;
    (*out)->want_crc = crc;
    (*out)->check_crc = check_crc;
    return GNNDB_OK;
}

/* Fill the input buffer when zlib has consumed it (or add to the bytes
** still in it). -1 after an error. */
static int feed(gz_stream *s, gnn_err *e)
{
    if (s->z.avail_in > 0 && s->zinit) return 0;
    if (s->pos >= s->end) return 0;
    if (s->z.avail_in > 0 && s->z.next_in != s->in)
        memmove(s->in, s->z.next_in, s->z.avail_in);
    size_t have = s->z.avail_in;
    size_t want = (size_t)GNN_MIN((uint64_t)(GZ_IN_BUF - have),
                                  s->end - s->pos);
    ssize_t n;
    do n = s->own_fd ? read(s->fd, s->in + have, want)
                     : pread(s->fd, s->in + have, want, (off_t)s->pos);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return gnn_seterr_errno(e, GNNDB_IOERR, errno, "read of %s", s->name),
               -1;
    if (n == 0) { /* the end of a pipe, or a file that shrank under us */
        s->end = s->pos;
        return 0;
    }
    s->z.next_in = s->in;
    s->z.avail_in = (uInt)(have + (size_t)n);
    s->pos += (uint64_t)n;
    return 0;
}

static uint64_t consumed(const gz_stream *s)
{
    return s->pos - s->z.avail_in - s->off;
}

/* After one gzip member: another may follow (concatenated members). */
static int next_member(gz_stream *s, gnn_err *e)
{
    if (s->kind != K_GZIP) return 1;
    if (feed(s, e) < 0) return -1;
    if (s->z.avail_in == 0) return 1;
    if (s->z.avail_in >= 2 && s->z.next_in[0] == 0x1f &&
        s->z.next_in[1] == 0x8b) {
        inflateReset(&s->z);
        return 0;
    }
    return gnn_seterr(e, GNNDB_FORMAT, "%s: trailing bytes after the gzip "
                      "data at byte offset %llu", s->name,
                      (unsigned long long)consumed(s)), -1;
}

static ssize_t read_z(gz_stream *s, void *buf, size_t n, gnn_err *e)
{
    s->z.next_out = buf;
    s->z.avail_out = (uInt)GNN_MIN(n, (size_t)1 << 30);
    uInt want = s->z.avail_out;
    while (s->z.avail_out > 0 && !s->done) {
        if (feed(s, e) < 0) return -1;
        if (s->z.avail_in == 0 && s->pos >= s->end)
            return gnn_seterr(e, GNNDB_FORMAT, "%s: truncated %s stream: the "
                              "compressed data ends after %llu bytes "
                              "(%llu bytes inflated)", s->name,
                              s->kind == K_GZIP ? "gzip" : "deflate",
                              (unsigned long long)(s->end - s->off),
                              (unsigned long long)(s->out + want -
                                                   s->z.avail_out)), -1;
        int zr = inflate(&s->z, Z_NO_FLUSH);
        if (zr == Z_STREAM_END) {
            int k = next_member(s, e);
            if (k < 0) return -1;
            s->done = k;
        } else if (zr == Z_MEM_ERROR) {
            return gnn_seterr(e, GNNDB_NOMEM, "%s: zlib: out of memory",
                              s->name), -1;
        } else if (zr != Z_OK && zr != Z_BUF_ERROR) {
            return gnn_seterr(e, GNNDB_FORMAT, "%s: corrupt %s data near "
                              "byte offset %llu: %s", s->name,
                              s->kind == K_GZIP ? "gzip" : "deflate",
                              (unsigned long long)consumed(s),
                              s->z.msg ? s->z.msg : "inflate failed"), -1;
        }
    }
    return (ssize_t)(want - s->z.avail_out);
}

static ssize_t read_plain(gz_stream *s, void *buf, size_t n, gnn_err *e)
{
    if (s->z.avail_in > 0) {   /* the bytes read to tell the kind */
        size_t k = GNN_MIN(n, (size_t)s->z.avail_in);
        memcpy(buf, s->z.next_in, k);
        s->z.next_in += k;
        s->z.avail_in -= (uInt)k;
        return (ssize_t)k;
    }
    size_t want = (size_t)GNN_MIN((uint64_t)n, s->end - s->pos);
    if (want == 0) return 0;
    ssize_t r;
    do r = s->own_fd ? read(s->fd, buf, want)
                     : pread(s->fd, buf, want, (off_t)s->pos);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        return gnn_seterr_errno(e, GNNDB_IOERR, errno, "read of %s", s->name),
               -1;
    if (r == 0) s->end = s->pos;
    s->pos += (uint64_t)r;
    return r;
}

/* At the end: the size and CRC the container promised. */
static int check_end(gz_stream *s, gnn_err *e)
{
    if (s->out_len != UINT64_MAX && s->out != s->out_len)
        return gnn_seterr(e, GNNDB_FORMAT, "%s: %llu bytes of data where %llu "
                          "were promised", s->name,
                          (unsigned long long)s->out,
                          (unsigned long long)s->out_len);
    if (s->check_crc && s->crc != s->want_crc)
        return gnn_seterr(e, GNNDB_FORMAT, "%s: CRC-32 mismatch (%08x, "
                          "expected %08x)", s->name, s->crc, s->want_crc);
    return GNNDB_OK;
}

ssize_t gz_read(gz_stream *s, void *buf, size_t n, gnn_err *e)
{
    if (s->out_len != UINT64_MAX) /* never inflate past the promise */
        n = (size_t)GNN_MIN((uint64_t)n, s->out_len - s->out + 1);
    ssize_t r = s->kind == K_PLAIN ? read_plain(s, buf, n, e)
                                   : read_z(s, buf, n, e);
    if (r < 0) return -1;
    if (s->check_crc)
        s->crc = (uint32_t)crc32(s->crc, buf, (uInt)r);
    s->out += (uint64_t)r;
    if (s->out_len != UINT64_MAX && s->out > s->out_len)
        return check_end(s, e), -1;
    if (r == 0 && check_end(s, e)) return -1;
    return r;
}

int gz_read_full(gz_stream *s, void *buf, size_t n, gnn_err *e)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t r = gz_read(s, p, n, e);
        if (r < 0) return e && e->rc ? e->rc : GNNDB_FORMAT;
        if (r == 0)
            return gnn_seterr(e, GNNDB_FORMAT, "%s: truncated: the data ends "
                              "after %llu bytes", s->name,
                              (unsigned long long)s->out);
        p += r;
        n -= (size_t)r;
    }
    return GNNDB_OK;
}

uint64_t gz_bytes_in(const gz_stream *s) { return consumed(s); }

/* 0 for a pipe, whose size is not known */
uint64_t gz_bytes_total(const gz_stream *s)
{
    return s->end == UINT64_MAX ? 0 : s->end - s->off;
}

uint64_t gz_bytes_out(const gz_stream *s) { return s->out; }

int gz_is_compressed(const gz_stream *s) { return s->kind != K_PLAIN; }

const char *gz_name(const gz_stream *s) { return s->name; }

void gz_close(gz_stream *s)
{
    if (!s) return;
    if (s->zinit) inflateEnd(&s->z);
    if (s->own_fd && s->fd >= 0) close(s->fd);
    free(s->in);
    free(s);
}
