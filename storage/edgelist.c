/* edgelist.c — streaming edge list readers: text lines (TSV, CSV or
** whitespace, comments, blank lines, an ignored weight column) and binary
** int64 pairs, both read in large buffered chunks, never whole. */
#include "edgelist.h"
#include "import.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads of this size keep system calls rare; a text line longer than the
** buffer is refused (no edge list has one). */
#define EDGE_BUF_BYTES (4u << 20)

struct edge_reader {
    int fd;
    int format;            /* TSV, CSV or BIN after AUTO is resolved */
    char *path;
    const char *name;      /* the file name part of path, for messages */
    char *buf;
    size_t len, pos;       /* valid bytes in buf, next unread byte */
    int eof;
    uint64_t lineno;       /* text: line of the last edge; bin: edge number */
    uint64_t next_line;    /* text: number of the next line to parse */
    uint64_t base;         /* file offset of buf[0] */
    uint64_t total;
    uint32_t col[2];       /* column of src and dst of the last edge */
};

/* ---- one text line ----------------------------------------------------- */

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Parse an int64 token; 0 on success. */
static int parse_i64(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    if (i == n) return -1;
    uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (lim - d) / 10) return -2;
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

/* The message quotes at most this much of a bad token. */
#define TOKEN_QUOTE 40

static int token_error(const char *path, uint64_t lineno, size_t col,
                       const char *what, const char *tok, size_t n,
                       int overflow, gnn_err *e)
{
    int q = (int)GNN_MIN(n, (size_t)TOKEN_QUOTE);
    if (overflow)
        return -!!gnn_seterr(e, GNNDB_FORMAT, "%s:%llu:%zu: node id '%.*s%s' "
                          "does not fit in 64 bits", path,
                          (unsigned long long)lineno, col, q, tok,
                          n > TOKEN_QUOTE ? "..." : "");
    return -!!gnn_seterr(e, GNNDB_FORMAT, "%s:%llu:%zu: expected %s, found "
                      "'%.*s%s'", path, (unsigned long long)lineno, col, what,
                      q, tok, n > TOKEN_QUOTE ? "..." : "");
}

/* Splits a line into tokens. Text formats: a separator is a run of blanks
** (TSV, whitespace) or a comma with optional blanks around it (CSV). */
static int parse_line_cols(const char *line, size_t len, int format,
                           int64_t *src, int64_t *dst, const char *path,
                           uint64_t lineno, uint32_t *cols, gnn_err *e)
{
    size_t i = 0;
    while (i < len && is_space(line[i])) i++;
    if (i == len || line[i] == '#' || line[i] == '%') return 0;
    int csv = format == EDGE_FMT_CSV;
    int64_t v[2];
    for (int k = 0; k < 2; k++) {
        if (k == 1) {
            /* the separator between the two ids */
            size_t s0 = i;
            while (i < len && is_space(line[i])) i++;
            if (csv) {
                if (i < len && line[i] == ',') {
                    i++;
                    while (i < len && is_space(line[i])) i++;
                } else if (i < len) {
                    return token_error(path, lineno, i + 1, "',' between the "
                                       "node ids", line + i, 1, 0, e);
                }
            }
            if (i == len || (i == s0 && !csv)) {
                return -!!gnn_seterr(e, GNNDB_FORMAT, "%s:%llu:%zu: expected a "
                                  "second node id (the target), found the end "
                                  "of the line", path,
                                  (unsigned long long)lineno, i + 1);
            }
        }
        size_t t0 = i;
        while (i < len && !is_space(line[i]) && !(csv && line[i] == ','))
            i++;
        int r = parse_i64(line + t0, i - t0, &v[k]);
        if (r != 0)
            return token_error(path, lineno, t0 + 1, "an integer node id",
                               line + t0, i - t0, r == -2, e);
        if (cols) cols[k] = (uint32_t)GNN_MIN(t0 + 1, (size_t)UINT32_MAX);
    }
    /* Whatever follows (a weight, a timestamp) must be separated from the
    ** target id; its content is ignored. */
    *src = v[0];
    *dst = v[1];
    return 1;
}

int edge_parse_line(const char *line, size_t len, int format,
                    int64_t *src, int64_t *dst, const char *path,
                    uint64_t lineno, gnn_err *e)
{
    if (!path) path = "?";
    int rc = parse_line_cols(line, len, format, src, dst, path, lineno, NULL,
                             e);
    return rc < 0 ? -1 : rc;
}

/* ---- the reader -------------------------------------------------------- */

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcasecmp(s + n - m, suf) == 0;
}

void edge_close(edge_reader *r)
{
    if (!r) return;
    if (r->fd >= 0) close(r->fd);
    free(r->buf);
    free(r->path);
    free(r);
}

int edge_open(const char *path, int format, edge_reader **out, gnn_err *e)
{
    *out = NULL;
    if (format == EDGE_FMT_AUTO)
        format = has_suffix(path, ".bin") ? EDGE_FMT_BIN
                 : has_suffix(path, ".csv") ? EDGE_FMT_CSV : EDGE_FMT_TSV;
    if (format != EDGE_FMT_TSV && format != EDGE_FMT_CSV &&
        format != EDGE_FMT_BIN)
        return gnn_seterr(e, GNNDB_MISUSE, "unknown edge list format %d",
                          format);
    edge_reader *r = calloc(1, sizeof *r);
    if (!r) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    r->fd = -1;
    r->format = format;
    r->next_line = 1;
    r->path = strdup(path);
    r->buf = malloc(EDGE_BUF_BYTES);
    if (!r->path || !r->buf) {
        edge_close(r);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    }
    const char *slash = strrchr(r->path, '/');
    r->name = slash ? slash + 1 : r->path;
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0) {
        int rc = gnn_seterr_errno(e, errno == ENOENT ? GNNDB_NOTFOUND
                                                     : GNNDB_IOERR,
                                  errno, "cannot open %s", path);
        edge_close(r);
        return rc;
    }
    struct stat st;
    if (fstat(r->fd, &st) != 0) {
        int rc = gnn_seterr_errno(e, GNNDB_IOERR, errno, "cannot stat %s",
                                  path);
        edge_close(r);
        return rc;
    }
    r->total = (uint64_t)st.st_size;
    if (format == EDGE_FMT_BIN && r->total % 16 != 0) {
        int rc = gnn_seterr(e, GNNDB_FORMAT, "%s: binary edge list of %llu "
                            "bytes is not a whole number of int64 pairs (16 "
                            "bytes each): %llu stray bytes at byte offset "
                            "%llu", r->name, (unsigned long long)r->total,
                            (unsigned long long)(r->total % 16),
                            (unsigned long long)(r->total - r->total % 16));
        edge_close(r);
        return rc;
    }
    (void)posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    *out = r;
    return GNNDB_OK;
}

/* Move the unread tail to the front and fill the rest of the buffer.
** Returns bytes added (0 at end of file) or -1. */
static ssize_t refill(edge_reader *r, gnn_err *e)
{
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->base += r->pos;
        r->len -= r->pos;
        r->pos = 0;
    }
    for (;;) {
        ssize_t n = read(r->fd, r->buf + r->len, EDGE_BUF_BYTES - r->len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0)
            return gnn_seterr_errno(e, GNNDB_IOERR, errno, "read of %s",
                                    r->path), -1;
        if (n == 0) r->eof = 1;
        r->len += (size_t)n;
        return n;
    }
}

static int next_bin(edge_reader *r, int64_t *src, int64_t *dst, gnn_err *e)
{
    if (r->len - r->pos < 16) {
        if (r->eof && r->len == r->pos) return 0;
        ssize_t n = refill(r, e);
        if (n < 0) return -1;
        if (r->len - r->pos < 16) {
            if (r->len == r->pos) return 0;
            /* The file shrank after open, or a short read at the end. */
            gnn_seterr(e, GNNDB_FORMAT, "%s: truncated binary edge list: %zu "
                       "stray bytes at byte offset %llu", r->name,
                       r->len - r->pos,
                       (unsigned long long)(r->base + r->pos));
            return -1;
        }
    }
    const unsigned char *p = (const unsigned char *)r->buf + r->pos;
    uint64_t a = 0, b = 0;
    for (int i = 7; i >= 0; i--) {
        a = a << 8 | p[i];
        b = b << 8 | p[8 + i];
    }
    *src = (int64_t)a;
    *dst = (int64_t)b;
    r->pos += 16;
    r->lineno++;
    return 1;
}

int edge_next(edge_reader *r, int64_t *src, int64_t *dst, gnn_err *e)
{
    if (r->format == EDGE_FMT_BIN) return next_bin(r, src, dst, e);
    for (;;) {
        char *nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
        size_t ll;
        if (!nl) {
            if (!r->eof) {
                if (r->pos == 0 && r->len == EDGE_BUF_BYTES) {
                    gnn_seterr(e, GNNDB_FORMAT, "%s:%llu: line longer than "
                               "%u bytes", r->name,
                               (unsigned long long)r->next_line,
                               EDGE_BUF_BYTES);
                    return -1;
                }
                if (refill(r, e) < 0) return -1;
                continue;
            }
            if (r->pos == r->len) return 0;
            ll = r->len - r->pos; /* the last line lacks a newline */
        } else {
            ll = (size_t)(nl - (r->buf + r->pos));
        }
        const char *line = r->buf + r->pos;
        uint64_t lineno = r->next_line++;
        r->pos += ll + (nl != NULL);
        int rc = parse_line_cols(line, ll, r->format, src, dst, r->name,
                                 lineno, r->col, e);
        if (rc < 0) return -1;
        if (rc > 0) {
            r->lineno = lineno;
            return 1;
        }
    }
}

uint64_t edge_lineno(const edge_reader *r) { return r->lineno; }

uint64_t edge_bytes_done(const edge_reader *r) { return r->base + r->pos; }

uint64_t edge_bytes_total(const edge_reader *r) { return r->total; }

/* Declared in import.h: where the importer's range errors point. */
uint32_t edge_column(const edge_reader *r, int which)
{
    if (r->format == EDGE_FMT_BIN) return 0;
    return r->col[which ? 1 : 0];
}

const char *edge_name(const edge_reader *r) { return r->name; }

int edge_is_binary(const edge_reader *r) { return r->format == EDGE_FMT_BIN; }
