/* fuzz_edgelist.c — libFuzzer target for the edge list readers.
**
** 1. edge_parse_line over every line of the input, with each format: it
**    returns an edge, a blank/comment line or -1 with GNNDB_FORMAT and words
**    naming path:line:column; never reads outside the line.
** 2. The streaming reader (edge_open/edge_next) over the same bytes as a
**    file (a memfd) must yield exactly the edges the line parser yields, and
**    for the binary format the little-endian int64 pairs of the bytes.
** 3. edge_parse_fields with a time field (fields 1, 2 and 0, as COLUMNS
**    (1, 2, 0) reads them): -1 with words naming the line, 0, or 1 with
**    three values; where it takes the line, fields 1 and 2 alone do too. */
#include "edgelist.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CHECK(c) do { if (!(c)) abort(); } while (0)

/* One line copied into a buffer of its exact size, so ASan sees a read past
** its end (the line parser must not rely on a newline or a NUL). */
static int parse_one(const char *line, size_t len, int fmt, uint64_t lineno,
                     int64_t *s, int64_t *d)
{
    char *copy = malloc(len ? len : 1);
    CHECK(copy);
    memcpy(copy, line, len);
    gnn_err e = {0};
    int rc = edge_parse_line(copy, len, fmt, s, d, "fuzz.tsv", lineno, &e);
    CHECK(rc == -1 || rc == 0 || rc == 1);
    if (rc < 0) {
        CHECK(e.rc == GNNDB_FORMAT && e.msg[0]);
        CHECK(strncmp(e.msg, "fuzz.tsv:", 9) == 0);
    } else {
        CHECK(e.rc == GNNDB_OK);
    }
    free(copy);
    return rc;
}

/* The line with a time field in front of the node ids. */
static void parse_timed(const char *line, size_t len, int fmt,
                        uint64_t lineno)
{
    static const int sel3[3] = {1, 2, 0}, sel2[2] = {1, 2};
    char *copy = malloc(len ? len : 1);
    CHECK(copy);
    memcpy(copy, line, len);
    gnn_err e = {0};
    int64_t v[3], w[2];
    int rc = edge_parse_fields(copy, len, fmt, sel3, 3, v, "fuzz.csv",
                               lineno, &e);
    CHECK(rc == -1 || rc == 0 || rc == 1);
    if (rc < 0) {
        CHECK(e.rc == GNNDB_FORMAT && strncmp(e.msg, "fuzz.csv:", 9) == 0);
    } else {
        gnn_err e2 = {0};
        int r2 = edge_parse_fields(copy, len, fmt, sel2, 2, w, "fuzz.csv",
                                   lineno, &e2);
        CHECK(r2 == rc);
        CHECK(rc == 0 || (w[0] == v[0] && w[1] == v[1]));
    }
    free(copy);
}

/* Run the streaming reader over the memfd `fd` with `fmt`; compare with the
** line parser (text) or with the raw bytes (binary). */
static void check_reader(int fd, const uint8_t *data, size_t size, int fmt)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    edge_reader *r;
    gnn_err e = {0};
    int rc = edge_open(path, fmt, &r, &e);
    if (fmt == EDGE_FMT_BIN && size % 16 != 0) {
        CHECK(rc == GNNDB_FORMAT && e.msg[0]);
        return;
    }
    if (rc != GNNDB_OK) return; /* e.g. no /proc in a sandbox */
    if (fmt == EDGE_FMT_BIN) {
        int64_t s, d;
        size_t k = 0;
        while ((rc = edge_next(r, &s, &d, &e)) == 1) {
            CHECK(k + 16 <= size);
            int64_t es, ed;
            memcpy(&es, data + k, 8);
            memcpy(&ed, data + k + 8, 8);
            CHECK(s == es && d == ed);
            k += 16;
        }
        CHECK(rc == 0 && k == size);
        edge_close(r);
        return;
    }
    const char *p = (const char *)data, *end = p + size;
    uint64_t lineno = 1;
    int64_t s, d, es, ed;
    for (;;) {
        /* the next edge by the line parser */
        int want = 0;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
            int lr = parse_one(p, len, fmt, lineno, &es, &ed);
            p += len + (nl != NULL);
            lineno++;
            if (lr != 0) { want = lr; break; }
        }
        rc = edge_next(r, &s, &d, &e);
        CHECK(rc == want);
        if (rc <= 0) break;
        CHECK(s == es && d == ed);
        CHECK(edge_lineno(r) == lineno - 1);
    }
    if (rc < 0) CHECK(e.rc == GNNDB_FORMAT && e.msg[0]);
    edge_close(r);
}

/* The reader's 4 MiB buffers would fill ASan's default 256 MiB quarantine
** with unmapped-and-remapped memory; a small one keeps the fuzzer fast. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "quarantine_size_mb=16"; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int fmts[] = {EDGE_FMT_TSV, EDGE_FMT_CSV, EDGE_FMT_AUTO,
                               EDGE_FMT_BIN};
    int64_t s, d;
    /* every line with every format */
    const char *p = (const char *)data, *end = p + size;
    uint64_t lineno = 1;
    while (p <= end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++)
            parse_one(p, len, fmts[f], lineno, &s, &d);
        parse_timed(p, len, EDGE_FMT_CSV, lineno);
        parse_timed(p, len, EDGE_FMT_TSV, lineno);
        if (!nl) break;
        p = nl + 1;
        lineno++;
    }
    /* the streaming reader, over the same bytes as a file, for one input in
    ** eight (by a hash of the bytes) and one format each: under ASan a
    ** reader's 4 MiB buffer costs about 1 ms, far more than the lines */
    uint32_t hash = 2166136261u;
    for (size_t k = 0; k < size; k++) hash = (hash ^ data[k]) * 16777619u;
    if (size == 0 || (hash & 7) != 0) return 0;
    /* bytes that start like gzip are inflated by the reader (fuzz_gz) */
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) return 0;
    static int fd = -1;
    if (fd < 0 && (fd = memfd_create("fuzz-edges", MFD_CLOEXEC)) < 0) return 0;
    if (ftruncate(fd, 0) != 0) return 0;
    size_t off = 0;
    while (off < size) {
        ssize_t n = pwrite(fd, data + off, size - off, (off_t)off);
        if (n <= 0) return 0;
        off += (size_t)n;
    }
    static const int rfmts[] = {EDGE_FMT_TSV, EDGE_FMT_CSV, EDGE_FMT_BIN};
    check_reader(fd, data, size, rfmts[(hash >> 3) % 3]);
    return 0;
}
