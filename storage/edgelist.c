/* edgelist.c — streaming edge list readers: text lines (TSV, CSV or
** whitespace, comments, blank lines, an ignored weight column) and binary
** int64 pairs, both read in large buffered chunks, never whole. */
#include "edgelist.h"
#include "import.h"
#include "gz.h"
#include "array.h"

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

/* An edge array of a .npy or .npz (internal: never asked for by callers) */
#define EDGE_FMT_ARR 4

struct edge_reader {
    gz_stream *gz;         /* the file, inflated when gzip */
    int format;            /* TSV, CSV or BIN after AUTO is resolved */
    edge_opts opts;
    int sel[3];            /* the fields of source, target (and time) */
    int nsel;              /* 2, or 3 with a time field */
    int64_t tval;          /* the time of the last edge */
    int started;           /* the first non-comment line has been seen */
    int header;            /* ... and it was a header */
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
    arr_src arr;           /* ARR: the array */
    int has_arr;
    int by_row;            /* ARR: shape (E, 2), else (2, E) */
    uint64_t nedges, next; /* ARR: edges, and the next one to read */
    uint64_t chunk0, chunk_n; /* ARR: the edges in buf */
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
        return -!!gnn_seterr(e, GNNDB_FORMAT, "%s:%llu:%zu: %s '%.*s%s' "
                          "does not fit in 64 bits", path,
                          (unsigned long long)lineno, col,
                          strstr(what, "time") ? "time" : "node id", q, tok,
                          n > TOKEN_QUOTE ? "..." : "");
    return -!!gnn_seterr(e, GNNDB_FORMAT, "%s:%llu:%zu: expected %s, found "
                      "'%.*s%s'", path, (unsigned long long)lineno, col, what,
                      q, tok, n > TOKEN_QUOTE ? "..." : "");
}

/* The bounds [*t0, *t1) of the field that starts at *i (blanks before it
** skipped); *i is left after the field and its separator. Returns 0, or -1
** when the line has no more fields. A field of TSV is a run of non-blanks;
** of CSV, what lies between commas, blanks trimmed (*comma: a comma was
** the last separator, so a field follows even at the end; start with 0). */
static int next_field(const char *line, size_t len, int csv, size_t *i,
                      int *comma, size_t *t0, size_t *t1)
{
    size_t k = *i;
    while (k < len && is_space(line[k])) k++;
    if (k == len && !*comma) return -1;
    *t0 = k;
    while (k < len && !is_space(line[k]) && !(csv && line[k] == ',')) k++;
    *t1 = k;
    while (k < len && is_space(line[k])) k++;
    *comma = csv && k < len && line[k] == ',';
    if (*comma) k++;
    *i = k;
    return 0;
}

static int is_name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           c == '"' || c == '\'';
}

int edge_is_header_line(const char *line, size_t len, int format,
                        const int col[2])
{
    int csv = format == EDGE_FMT_CSV;
    int need = GNN_MAX(col[0], col[1]), named = 0, comma = 0;
    size_t i = 0, t0, t1;
    while (i < len && is_space(line[i])) i++;
    if (i == len || line[i] == '#' || line[i] == '%') return 0;
    for (int k = 0; k <= need; k++) {
        if (next_field(line, len, csv, &i, &comma, &t0, &t1) != 0) return 0;
        if ((k == col[0] || k == col[1]) && t1 > t0 &&
            is_name_start(line[t0]))
            named++;
    }
    return named == (col[0] == col[1] ? 1 : 2);
}

/* "expected N fields" for a line that ends at field k, naming what the
** chosen fields hold. */
static int too_few_fields(const char *path, uint64_t lineno, size_t col,
                          const int *sel, int nsel, int need, int k,
                          gnn_err *e)
{
    if (need == 1)
        return -!!gnn_seterr(e, GNNDB_FORMAT, "%s:%llu:%zu: expected a second "
                          "node id (the target), found the end of the line",
                          path, (unsigned long long)lineno, col);
    char tf[48] = "";
    if (nsel == 3) snprintf(tf, sizeof tf, ", the time field %d", sel[2]);
    return -!!gnn_seterr(e, GNNDB_FORMAT, "%s:%llu:%zu: expected %d fields "
                      "(the node ids are fields %d and %d%s, from 0), found "
                      "%d", path, (unsigned long long)lineno, col, need + 1,
                      sel[0], sel[1], tf, k);
}

/* Parse fields sel[0] (source), sel[1] (target) and, with nsel 3, sel[2]
** (a time) of a line. Text formats: a separator is a run of blanks (TSV,
** whitespace) or a comma with optional blanks around it (CSV). */
static int parse_line_cols(const char *line, size_t len, int format,
                           const int *sel, int nsel, int64_t *v,
                           const char *path, uint64_t lineno, uint32_t *cols,
                           gnn_err *e)
{
    size_t i = 0;
    while (i < len && is_space(line[i])) i++;
    if (i == len || line[i] == '#' || line[i] == '%') return 0;
    int csv = format == EDGE_FMT_CSV;
    int need = 0;
    for (int w = 0; w < nsel; w++) {
        need = GNN_MAX(need, sel[w]);
        v[w] = 0;
    }
    for (int k = 0; k <= need; k++) {
        if (k > 0) {
            /* the separator before field k */
            size_t s0 = i;
            while (i < len && is_space(line[i])) i++;
            if (csv) {
                if (i < len && line[i] == ',') {
                    i++;
                    while (i < len && is_space(line[i])) i++;
                } else if (i < len) {
                    return token_error(path, lineno, i + 1, "',' between the "
                                       "fields", line + i, 1, 0, e);
                }
            }
            if (i == len || (i == s0 && !csv))
                return too_few_fields(path, lineno, i + 1, sel, nsel, need,
                                      k, e);
        }
        size_t t0 = i;
        while (i < len && !is_space(line[i]) && !(csv && line[i] == ','))
            i++;
        for (int w = 0; w < nsel; w++) {
            if (sel[w] != k) continue;
            int r = parse_i64(line + t0, i - t0, &v[w]);
            if (r != 0)
                return token_error(path, lineno, t0 + 1,
                                   w == 2 ? "an integer time"
                                          : "an integer node id",
                                   line + t0, i - t0, r == -2, e);
            if (cols && w < 2)
                cols[w] = (uint32_t)GNN_MIN(t0 + 1, (size_t)UINT32_MAX);
        }
    }
    /* Whatever follows (a weight, a timestamp) must be separated from the
    ** last field used; its content is ignored. */
    return 1;
}

static const int first_two[2] = {0, 1};

int edge_parse_fields(const char *line, size_t len, int format,
                      const int *sel, int nsel, int64_t *v, const char *path,
                      uint64_t lineno, gnn_err *e)
{
    if (!path) path = "?";
    if (nsel != 2 && nsel != 3)
        return -!!gnn_seterr(e, GNNDB_MISUSE, "%d fields asked of an edge "
                             "line (2 or 3)", nsel);
    int rc = parse_line_cols(line, len, format, sel, nsel, v, path, lineno,
                             NULL, e);
    return rc < 0 ? -1 : rc;
}

int edge_parse_line(const char *line, size_t len, int format,
                    int64_t *src, int64_t *dst, const char *path,
                    uint64_t lineno, gnn_err *e)
{
    int64_t v[2];
    int rc = edge_parse_fields(line, len, format, first_two, 2, v, path,
                               lineno, e);
    if (rc == 1) {
        *src = v[0];
        *dst = v[1];
    }
    return rc;
}

/* ---- the reader -------------------------------------------------------- */

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcasecmp(s + n - m, suf) == 0;
}

/* The format a name implies, .gz ignored: .bin binary, .csv CSV, else TSV. */
static int format_of(const char *path)
{
    size_t n = strlen(path);
    if (has_suffix(path, ".gz")) n -= 3;
    if (n >= 4 && strncasecmp(path + n - 4, ".bin", 4) == 0)
        return EDGE_FMT_BIN;
    if (n >= 4 && strncasecmp(path + n - 4, ".csv", 4) == 0)
        return EDGE_FMT_CSV;
    return EDGE_FMT_TSV;
}

void edge_close(edge_reader *r)
{
    if (!r) return;
    if (r->has_arr) arr_close(&r->arr);
    gz_close(r->gz);
    free(r->buf);
    free(r->path);
    free(r);
}

static int check_bin_size(edge_reader *r, gnn_err *e)
{
    if (r->format != EDGE_FMT_BIN || gz_is_compressed(r->gz) ||
        r->total % 16 == 0)
        return GNNDB_OK;
    return gnn_seterr(e, GNNDB_FORMAT, "%s: binary edge list of %llu bytes "
                      "is not a whole number of int64 pairs (16 bytes each): "
                      "%llu stray bytes at byte offset %llu", r->name,
                      (unsigned long long)r->total,
                      (unsigned long long)(r->total % 16),
                      (unsigned long long)(r->total - r->total % 16));
}

/* An integer array of shape (2, E) or (E, 2) as an edge list. */
static int open_array(edge_reader *r, const char *path, const edge_opts *o,
                      gnn_err *e)
{
    r->has_arr = 1;
    r->format = EDGE_FMT_ARR;
    int rc = arr_open(path, o->key, o->tmpdir, &r->arr, e);
    if (rc) return rc;
    r->name = r->arr.name;
    const npy_info *in = &r->arr.info;
    if (!npy_is_integer(in->dtype))
        return gnn_seterr(e, GNNDB_FORMAT, "%s: edges must be integers, found "
                          "%s", r->name, npy_dtype_name(in->dtype));
    if (in->ndim != 2 || (in->shape[0] != 2 && in->shape[1] != 2))
        return gnn_seterr(e, GNNDB_FORMAT, "%s: edges must have shape (2, E) "
                          "or (E, 2), found (%lld%s%lld)", r->name,
                          (long long)in->shape[0], in->ndim == 2 ? ", " : ",",
                          in->ndim == 2 ? (long long)in->shape[1] : 0LL);
    r->by_row = in->shape[0] != 2;
    r->nedges = (uint64_t)(r->by_row ? in->shape[0] : in->shape[1]);
    r->total = r->nedges * 16;
    return GNNDB_OK;
}

static int next_arr(edge_reader *r, int64_t *src, int64_t *dst, gnn_err *e)
{
    if (r->next == r->nedges) return 0;
    const npy_info *in = &r->arr.info;
    size_t es = in->elem_size;
    if (r->next == r->chunk0 + r->chunk_n) {
        uint64_t k = GNN_MIN(r->nedges - r->next, EDGE_BUF_BYTES / (2 * es));
        int rc = r->by_row
                 ? arr_read_rows(&r->arr, (int64_t)r->next, (int64_t)k,
                                 r->buf, e)
                 : arr_pread(r->arr.fd, r->buf, k * es,
                             in->data_offset + r->next * es, r->name, e);
        if (!rc && !r->by_row)
            rc = arr_pread(r->arr.fd, r->buf + k * es, k * es,
                           in->data_offset + (r->nedges + r->next) * es,
                           r->name, e);
        if (rc) return -1;
        r->chunk0 = r->next;
        r->chunk_n = k;
    }
    int64_t j = (int64_t)(r->next - r->chunk0);
    if (r->by_row) {
        *src = npy_get_i(in, r->buf, 2 * j);
        *dst = npy_get_i(in, r->buf, 2 * j + 1);
    } else {
        *src = npy_get_i(in, r->buf, j);
        *dst = npy_get_i(in, r->buf + r->chunk_n * es, j);
    }
    r->lineno = ++r->next;
    return 1;
}

int edge_open_opts(const char *path, const edge_opts *o, edge_reader **out,
                   gnn_err *e)
{
    *out = NULL;
    int format = o->format == EDGE_FMT_AUTO ? format_of(path) : o->format;
    if (format != EDGE_FMT_TSV && format != EDGE_FMT_CSV &&
        format != EDGE_FMT_BIN)
        return gnn_seterr(e, GNNDB_MISUSE, "unknown edge list format %d",
                          format);
    edge_reader *r = calloc(1, sizeof *r);
    if (!r) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    r->format = format;
    r->opts = *o;
    r->next_line = 1;
    r->sel[0] = o->columns == EDGE_COLS_POS ? o->col[0] : 0;
    r->sel[1] = o->columns == EDGE_COLS_POS ? o->col[1] : 1;
    r->sel[2] = o->columns == EDGE_COLS_POS ? o->col[2] : 2;
    r->nsel = o->with_time ? 3 : 2;
    r->path = strdup(path);
    r->buf = malloc(EDGE_BUF_BYTES);
    if (!r->path || !r->buf) {
        edge_close(r);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    }
    const char *slash = strrchr(r->path, '/');
    r->name = slash ? slash + 1 : r->path;
    int rc;
    if (o->with_time && (o->key || arr_is_array_path(path) ||
                         format == EDGE_FMT_BIN))
        rc = gnn_seterr(e, GNNDB_MISUSE, "%s: a time column is read from a "
                        "text edge list (TSV or CSV); give the times of a "
                        "binary or array edge list with IMPORT EDGE TIMES",
                        r->name);
    else if (o->key || arr_is_array_path(path))
        rc = open_array(r, path, o, e);
    else if (!(rc = gz_open(path, &r->gz, e))) {
        r->total = gz_bytes_total(r->gz);
        rc = check_bin_size(r, e);
    }
    if (rc) {
        edge_close(r);
        return rc;
    }
    *out = r;
    return GNNDB_OK;
}

int edge_open(const char *path, int format, edge_reader **out, gnn_err *e)
{
    edge_opts o;
    memset(&o, 0, sizeof o);
    o.format = format;
    o.header = EDGE_HEADER_NO;
    return edge_open_opts(path, &o, out, e);
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
    ssize_t n = gz_read(r->gz, r->buf + r->len, EDGE_BUF_BYTES - r->len, e);
    if (n < 0) return -1;
    if (n == 0) r->eof = 1;
    r->len += (size_t)n;
    return n;
}

static int next_bin(edge_reader *r, int64_t *src, int64_t *dst, gnn_err *e)
{
    if (r->len - r->pos < 16) {
        if (r->eof && r->len == r->pos) return 0;
        ssize_t n; /* a gzip stream may return short counts */
        do n = refill(r, e);
        while (n > 0 && r->len - r->pos < 16);
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

/* The field of the header named `want` (case-insensitive, quotes dropped),
** or -1 (the message lists the names the header has). */
static int find_column(edge_reader *r, const char *line, size_t len,
                       const char *want, uint64_t lineno, gnn_err *e)
{
    int csv = r->format == EDGE_FMT_CSV, comma = 0;
    size_t i = 0, t0, t1;
    char names[400];
    size_t nn = 0;
    names[0] = 0;
    for (int k = 0; next_field(line, len, csv, &i, &comma, &t0, &t1) == 0;
         k++) {
        if (t1 - t0 >= 2 && (line[t0] == '"' || line[t0] == '\'') &&
            line[t1 - 1] == line[t0]) {
            t0++;
            t1--;
        }
        if (strlen(want) == t1 - t0 &&
            strncasecmp(want, line + t0, t1 - t0) == 0)
            return k;
        if (nn + 8 < sizeof names) {
            int w = snprintf(names + nn, sizeof names - nn, "%s'%.*s'",
                             k ? ", " : "", (int)GNN_MIN(t1 - t0, (size_t)40),
                             line + t0);
            nn = GNN_MIN(nn + (size_t)(w > 0 ? w : 0), sizeof names - 1);
        }
    }
    gnn_seterr(e, GNNDB_FORMAT, "%s:%llu: the header has no column named "
               "'%s' (it has %s)", r->name, (unsigned long long)lineno, want,
               names);
    return -1;
}

/* The first line that is not blank or a comment: a header, or data (then
** 0: parse it as an edge). 1 when it was a header, -1 after an error. */
static int first_line(edge_reader *r, const char *line, size_t len,
                      uint64_t lineno, gnn_err *e)
{
    const edge_opts *o = &r->opts;
    static const int first[2] = {0, 0};
    /* by name, the fields are not known yet: the first one says */
    int hdr = o->header == EDGE_HEADER_YES ||
              (o->header == EDGE_HEADER_AUTO &&
               edge_is_header_line(line, len, r->format,
                                   o->columns == EDGE_COLS_NAME ? first
                                                                : r->sel));
    r->started = 1;
    if (o->columns == EDGE_COLS_NAME && !hdr) {
        gnn_seterr(e, GNNDB_FORMAT, "%s:%llu: COLUMNS by name needs a header "
                   "line, but the file has none", r->name,
                   (unsigned long long)lineno);
        return -1;
    }
    if (!hdr) return 0;
    r->header = 1;
    if (o->columns == EDGE_COLS_NAME)
        for (int w = 0; w < r->nsel; w++)
            if ((r->sel[w] = find_column(r, line, len, o->col_name[w],
                                         lineno, e)) < 0)
                return -1;
    return 1;
}

static int data_line(edge_reader *r, const char *line, size_t len,
                     uint64_t lineno, int64_t *src, int64_t *dst, gnn_err *e)
{
    if (!r->started) {
        size_t i = 0;
        while (i < len && is_space(line[i])) i++;
        if (i < len && line[i] != '#' && line[i] != '%') {
            int h = first_line(r, line, len, lineno, e);
            if (h != 0) return h < 0 ? -1 : 0;
        }
    }
    int64_t v[3];
    int rc = parse_line_cols(line, len, r->format, r->sel, r->nsel, v,
                             r->name, lineno, r->col, e);
    if (rc == 1) {
        *src = v[0];
        *dst = v[1];
        r->tval = r->nsel == 3 ? v[2] : 0;
    }
    if (rc < 0 && r->opts.header != EDGE_HEADER_NO &&
        edge_is_header_line(line, len, r->format, r->sel))
        gnn_seterr(e, GNNDB_FORMAT, "%s:%llu: a header line in the middle of "
                   "the file (only the first line may be a header)", r->name,
                   (unsigned long long)lineno);
    return rc;
}

int edge_next(edge_reader *r, int64_t *src, int64_t *dst, gnn_err *e)
{
    if (r->format == EDGE_FMT_BIN) return next_bin(r, src, dst, e);
    if (r->format == EDGE_FMT_ARR) return next_arr(r, src, dst, e);
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
        int rc = data_line(r, line, ll, lineno, src, dst, e);
        if (rc < 0) return -1;
        if (rc > 0) {
            r->lineno = lineno;
            return 1;
        }
    }
}

uint64_t edge_lineno(const edge_reader *r) { return r->lineno; }

int64_t edge_last_time(const edge_reader *r) { return r->tval; }

int edge_had_header(const edge_reader *r) { return r->header; }

/* Compressed input: progress in bytes of the file read, not of text. */
uint64_t edge_bytes_done(const edge_reader *r)
{
    if (r->has_arr) return r->next * 16;
    return gz_is_compressed(r->gz) ? gz_bytes_in(r->gz) : r->base + r->pos;
}

uint64_t edge_bytes_total(const edge_reader *r) { return r->total; }

/* Declared in import.h: where the importer's range errors point. */
void edge_where(const edge_reader *r, int which, char *out, size_t cap)
{
    unsigned long long n = (unsigned long long)r->lineno;
    if (r->format == EDGE_FMT_ARR)
        snprintf(out, cap, "%s: edge %llu", r->name, n);
    else if (r->format == EDGE_FMT_BIN)
        snprintf(out, cap, "%s: edge %llu (byte offset %llu)", r->name, n,
                 (n - 1) * 16 + 8 * (unsigned)!!which);
    else
        snprintf(out, cap, "%s:%llu:%u", r->name, n, r->col[which ? 1 : 0]);
}

const char *edge_name(const edge_reader *r) { return r->name; }
