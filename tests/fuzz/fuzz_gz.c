/* fuzz_gz.c — libFuzzer target for gz.c, the gzip and raw-deflate streams.
**
** 1. The bytes as a file: gz_open/gz_read in chunks of data-chosen sizes
**    either reach the end or fail with words naming the file; a file that
**    is not gzip reads back as itself.
** 2. The bytes gzip-compressed by zlib (one or two members): gz_read gives
**    them back exactly; cut short, the stream says "truncated".
** 3. The bytes as a raw deflate member of known size and CRC (as a zip
**    holds one): accepted only when the sizes and CRC agree. */
#include "gz.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static int put(int fd, const void *p, size_t n)
{
    if (ftruncate(fd, 0) != 0) return -1;
    return pwrite(fd, p, n, 0) == (ssize_t)n ? 0 : -1;
}

/* Read the stream whole in chunks of 1..64 bytes chosen by `seed`; the
** bytes into out (cap), their count into *n. The gz_read result. */
static int drain(gz_stream *s, unsigned seed, unsigned char *out, size_t cap,
                 size_t *n, gnn_err *e)
{
    *n = 0;
    for (;;) {
        unsigned char buf[64];
        size_t want = 1 + (seed = seed * 1103515245u + 12345u) % 64;
        ssize_t r = gz_read(s, buf, want, e);
        if (r < 0) return -1;
        CHECK((size_t)r <= want);
        if (r == 0) return 0;
        if (*n + (size_t)r <= cap) memcpy(out + *n, buf, (size_t)r);
        *n += (size_t)r;
    }
}

static void check_error(const gnn_err *e, const char *name)
{
    CHECK(e->rc != GNNDB_OK && e->msg[0]);
    CHECK(strstr(e->msg, name) != NULL);
}

/* gzip-compress data (split into two members at `cut` when cut < size). */
static size_t gzip(const uint8_t *data, size_t size, size_t cut,
                   unsigned char *out, size_t cap)
{
    size_t o = 0;
    size_t parts[2][2] = {{0, cut < size ? cut : size}, {cut, size}};
    for (int k = 0; k < (cut < size ? 2 : 1); k++) {
        z_stream z;
        memset(&z, 0, sizeof z);
        CHECK(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8,
                           Z_DEFAULT_STRATEGY) == Z_OK);
        z.next_in = (unsigned char *)data + parts[k][0];
        z.avail_in = (uInt)(parts[k][1] - parts[k][0]);
        z.next_out = out + o;
        z.avail_out = (uInt)(cap - o);
        CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
        o = cap - z.avail_out;
        deflateEnd(&z);
    }
    return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    if (fd < 0 && (fd = memfd_create("fuzz-gz", MFD_CLOEXEC)) < 0) return 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    unsigned seed = size ? data[0] : 7;
    size_t cap = 2 * size + 256, n;
    unsigned char *out = malloc(cap), *z = malloc(cap);
    CHECK(out && z);
    gz_stream *s;
    gnn_err e = {0};

    /* 1. any bytes */
    if (put(fd, data, size) == 0 && gz_open(path, &s, &e) == GNNDB_OK) {
        int rc = drain(s, seed, out, cap, &n, &e);
        if (rc < 0) check_error(&e, gz_name(s));
        if (!gz_is_compressed(s)) {
            CHECK(rc == 0 && n == size && !memcmp(out, data, size));
        }
        gz_close(s);
    }
    /* 2. the bytes compressed: back exactly; cut short: truncated */
    size_t zn = gzip(data, size, size ? data[size - 1] % (size + 1) : 0, z,
                     cap);
    memset(&e, 0, sizeof e);
    if (put(fd, z, zn) == 0 && gz_open(path, &s, &e) == GNNDB_OK) {
        CHECK(gz_is_compressed(s));
        CHECK(drain(s, seed, out, cap, &n, &e) == 0);
        CHECK(n == size && !memcmp(out, data, size));
        gz_close(s);
    }
    /* one member only: a cut between two members leaves a whole gzip file */
    zn = gzip(data, size, size, z, cap);
    size_t cut = zn > 18 ? 10 + seed % (zn - 18) : 0;
    memset(&e, 0, sizeof e);
    if (cut && put(fd, z, cut) == 0 && gz_open(path, &s, &e) == GNNDB_OK) {
        CHECK(drain(s, seed, out, cap, &n, &e) < 0);
        check_error(&e, gz_name(s));
        gz_close(s);
    }
    /* 3. the bytes as a raw deflate member claiming a size and CRC */
    if (size >= 8 && put(fd, data + 8, size - 8) == 0) {
        uint32_t crc, len;
        memcpy(&crc, data, 4);
        memcpy(&len, data + 4, 4);
        memset(&e, 0, sizeof e);
        CHECK(gz_open_range(fd, 0, size - 8, GZ_RAW, len % 4096, crc, 1,
                            "fuzz.npz:x", &s, &e) == GNNDB_OK);
        int rc = drain(s, seed, out, cap, &n, &e);
        if (rc == 0) {
            CHECK(n == len % 4096 && n <= cap);
            CHECK((uint32_t)crc32(0, out, (uInt)n) == crc);
        } else {
            check_error(&e, "fuzz.npz:x");
        }
        gz_close(s);
    }
    free(out);
    free(z);
    return 0;
}
