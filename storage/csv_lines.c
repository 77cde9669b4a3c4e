/* csv_lines.c — text input a line at a time, plain or gzip: the lines of
** data of a CSV (blank and comment lines skipped, one header allowed on
** top) and its number tokens, with the file and line for every error. */
#include "csv_lines.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LINE_BUF ((size_t)4 << 20)

int lr_open(line_reader *r, const char *path, gnn_err *e)
{
    memset(r, 0, sizeof *r);
    int rc = gz_open(path, &r->gz, e);
    if (rc) return rc;
    if (!(r->buf = malloc(LINE_BUF))) {
        gz_close(r->gz);
        r->gz = NULL;
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    }
    return GNNDB_OK;
}

void lr_close(line_reader *r)
{
    gz_close(r->gz);
    free(r->buf);
    r->buf = NULL;
    r->gz = NULL;
}

/* The next line (without its newline, '\r' stripped): 1, 0 at the end, or
** -1 after an error. */
int lr_next(line_reader *r, const char *name, char **line, size_t *len,
            gnn_err *e)
{
    for (;;) {
        char *nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
        if (!nl && !r->eof) {
            if (r->pos == 0 && r->len == LINE_BUF) {
                gnn_seterr(e, GNNDB_FORMAT, "%s:%llu: line longer than %zu "
                           "bytes", name, (unsigned long long)r->lineno + 1,
                           LINE_BUF);
                return -1;
            }
            memmove(r->buf, r->buf + r->pos, r->len - r->pos);
            r->len -= r->pos;
            r->pos = 0;
            ssize_t n = gz_read(r->gz, r->buf + r->len, LINE_BUF - r->len, e);
            if (n < 0) return -1;
            if (n == 0) r->eof = 1;
            r->len += (size_t)n;
            continue;
        }
        if (!nl && r->pos == r->len) return 0;
        size_t ll = nl ? (size_t)(nl - (r->buf + r->pos)) : r->len - r->pos;
        *line = r->buf + r->pos;
        r->pos += ll + (nl != NULL);
        if (ll > 0 && (*line)[ll - 1] == '\r') ll--;
        *len = ll;
        r->lineno++;
        return 1;
    }
}

static int blank_or_comment(const char *l, size_t n)
{
    size_t i = 0;
    while (i < n && (l[i] == ' ' || l[i] == '\t')) i++;
    return i == n || l[i] == '#' || l[i] == '%';
}

/* Parse a number token; `integer` asks for an int64. 0 on success. */
int csv_parse_num(const char *t, size_t n, int integer, double *d,
                  int64_t *i)
{
    char tmp[80];
    if (n == 0 || n >= sizeof tmp) return -1;
    memcpy(tmp, t, n);
    tmp[n] = 0;
    char *end;
    errno = 0;
    if (integer) {
        long long v = strtoll(tmp, &end, 10);
        if (errno || end != tmp + n) return -1;
        *i = v;
    } else {
        double v = strtod(tmp, &end);
        if (end != tmp + n || (errno == ERANGE && isinf(v))) return -1;
        *d = v;
    }
    return 0;
}

/* A line of names where numbers were expected: its first field is not a
** number (nan and inf are) and starts like a name. */
static int names_line(const char *l, size_t n)
{
    size_t i = 0;
    while (i < n && (l[i] == ' ' || l[i] == '\t')) i++;
    size_t t = i;
    while (t < n && l[t] != ',' && l[t] != ' ' && l[t] != '\t') t++;
    double d;
    int64_t v;
    if (i == n || csv_parse_num(l + i, t - i, 0, &d, &v) == 0) return 0;
    char c = l[i];
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           c == '"' || c == '\'';
}

/* The next line of data: blank and comment lines skipped, and a header
** (a line of names) skipped when it is the first line; another one later
** is an error naming the file and line. 1, 0 at the end or -1 (words in
** *e). */
int lr_data(line_reader *r, const char *name, char **line,
            size_t *len, gnn_err *e)
{
    int k;
    while ((k = lr_next(r, name, line, len, e)) > 0) {
        if (blank_or_comment(*line, *len)) continue;
        int first = !r->started;
        r->started = 1;
        if (!names_line(*line, *len)) return 1;
        if (first) {
            r->header = 1;
            continue;
        }
        /* without a header on top, a word here is just a bad value */
        if (!r->header) return 1;
        gnn_seterr(e, GNNDB_FORMAT, "%s:%llu: a header line in the middle of "
                   "the file (only the first line may be a header)", name,
                   (unsigned long long)r->lineno);
        return -1;
    }
    return k;
}
