/* fuzz_header.c — libFuzzer target for header lines of edge lists.
**
** 1. edge_is_header_line on every line, for several column pairs: 0 or 1,
**    never a read outside the line.
** 2. The bytes as a file read with the header detected (EDGE_HEADER_AUTO)
**    and read as all data (EDGE_HEADER_NO): when the first line that is not
**    blank or a comment is not a header, the two give the same edges and
**    the same end; when it is one, the detecting reader gives what the
**    other gives for the file without that line. Errors name the file.
** 3. COLUMNS by name: the result is an edge, the end, or an error naming
**    the file (and the line). */
#include "edgelist.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CHECK(c) do { if (!(c)) abort(); } while (0)
#define MAX_EDGES 4096

typedef struct run {
    int rc;                 /* 0 at the end, -1 after an error */
    size_t n;
    int64_t e[MAX_EDGES][2];
} run;

static int put(int fd, const void *p, size_t n)
{
    if (ftruncate(fd, 0) != 0) return -1;
    return n == 0 || pwrite(fd, p, n, 0) == (ssize_t)n ? 0 : -1;
}

static void read_all(int fd, const edge_opts *o, run *out)
{
    char path[64], name[16];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    snprintf(name, sizeof name, "%d", fd);
    edge_reader *r;
    gnn_err e = {0};
    out->n = 0;
    out->rc = -1;
    if (edge_open_opts(path, o, &r, &e) != GNNDB_OK) return;
    int k;
    int64_t s, d;
    while ((k = edge_next(r, &s, &d, &e)) == 1 && out->n < MAX_EDGES) {
        out->e[out->n][0] = s;
        out->e[out->n][1] = d;
        out->n++;
    }
    CHECK(k == 1 || k == 0 || k == -1);
    out->rc = k == 1 ? 0 : k;
    if (k < 0) CHECK(e.rc != GNNDB_OK && !strncmp(e.msg, name, strlen(name)));
    edge_close(r);
}

/* The first line that is not blank or a comment: [*b, *end). 0 if none. */
static int first_line(const uint8_t *p, size_t n, size_t *b, size_t *end)
{
    size_t i = 0;
    while (i < n) {
        const uint8_t *nl = memchr(p + i, '\n', n - i);
        size_t j = nl ? (size_t)(nl - p) : n, k = i;
        while (k < j && (p[k] == ' ' || p[k] == '\t' || p[k] == '\r')) k++;
        if (k < j && p[k] != '#' && p[k] != '%') {
            *b = i;
            *end = nl ? j + 1 : j;
            return 1;
        }
        i = j + 1;
    }
    return 0;
}

const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "quarantine_size_mb=16"; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int pairs[][2] = {{0, 1}, {1, 0}, {2, 0}, {0, 0}};
    if (size == 0) return 0;
    int fmt = data[0] & 1 ? EDGE_FMT_CSV : EDGE_FMT_TSV;
    const char *p = (const char *)data + 1, *end = (const char *)data + size;
    while (p <= end) {   /* 1. every line */
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        char *copy = malloc(len ? len : 1);
        CHECK(copy);
        memcpy(copy, p, len);
        for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
            int h = edge_is_header_line(copy, len, fmt, pairs[k]);
            CHECK(h == 0 || h == 1);
        }
        free(copy);
        if (!nl) break;
        p = nl + 1;
    }
    static int fd = -1, fd2 = -1;
    if (fd < 0 && (fd = memfd_create("fuzz-header", MFD_CLOEXEC)) < 0) return 0;
    if (fd2 < 0 && (fd2 = memfd_create("fuzz-header2", MFD_CLOEXEC)) < 0)
        return 0;
    const uint8_t *text = data + 1;
    size_t n = size - 1;
    static run a, b;
    edge_opts o;
    memset(&o, 0, sizeof o);
    o.format = fmt;
    if (put(fd, text, n) != 0) return 0;
    o.header = EDGE_HEADER_AUTO;                 /* 2. detected */
    read_all(fd, &o, &b);
    size_t l0, l1;
    int hdr = first_line(text, n, &l0, &l1) &&
              edge_is_header_line((const char *)text + l0,
                                  l1 - l0 - (l1 > l0 && text[l1 - 1] == '\n'),
                                  fmt, pairs[0]);
    if (hdr) {   /* the same file without its header line */
        uint8_t *rest = malloc(n ? n : 1);
        CHECK(rest);
        memcpy(rest, text, l0);
        memcpy(rest + l0, text + l1, n - l1);
        int ok = put(fd2, rest, n - (l1 - l0)) == 0;
        free(rest);
        if (!ok) return 0;
    }
    o.header = EDGE_HEADER_NO;
    read_all(hdr ? fd2 : fd, &o, &a);
    CHECK(a.rc == b.rc && a.n == b.n);
    CHECK(memcmp(a.e, b.e, a.n * sizeof a.e[0]) == 0);
    o.header = EDGE_HEADER_AUTO;                 /* 3. by name */
    o.columns = EDGE_COLS_NAME;
    snprintf(o.col_name[0], sizeof o.col_name[0], "src");
    snprintf(o.col_name[1], sizeof o.col_name[1], "dst");
    read_all(fd, &o, &b);
    return 0;
}
