/* crc_bw.c — single-thread CRC32C bandwidth over one block: the checksum
** that every block read is verified with (blk_crc32c), next to a plain
** single-stream crc32-instruction loop and the byte table, as references.
**
**   crc_bw [KiB per block (default 1024)] [repetitions (default 500)]
**
** The figure is bytes checksummed per second, best of five runs of the
** repetitions. Last line: CRC32C_GBPS=<blk_crc32c> ONE_STREAM_GBPS=<loop>
** TABLE_GBPS=<table>; the three must agree on the checksum, or it exits 1. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

/* storage/block.c's, exported to the tests and benchmarks only */
uint32_t blk_crc32c(uint32_t crc, const void *data, size_t len);
uint32_t blk_crc32c_sw(uint32_t crc, const void *data, size_t len);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#if defined(__x86_64__)
/* One dependent chain of crc32 instructions over 8-byte words. */
__attribute__((target("sse4.2")))
static uint32_t one_stream(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;
    uint64_t c = ~crc;
    for (; len >= 8; len -= 8, p += 8) {
        uint64_t w;
        memcpy(&w, p, sizeof w);
        c = _mm_crc32_u64(c, w);
    }
    uint32_t c32 = (uint32_t)c;
    while (len--) c32 = _mm_crc32_u8(c32, *p++);
    return ~c32;
}
#endif

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

static double rate(crc_fn f, const void *b, size_t n, long reps, uint32_t *out)
{
    double best = 0;
    for (int run = 0; run < 5; run++) {
        uint32_t c = 0;
        double t = now();
        for (long r = 0; r < reps; r++) c = f(0, b, n) ^ (c & 1);
        t = now() - t;
        *out = f(0, b, n);
        if (t > 0 && (double)n * (double)reps / t > best)
            best = (double)n * (double)reps / t;
        (void)c;
    }
    return best / 1e9;
}

int main(int argc, char **argv)
{
    long kib = argc > 1 ? atol(argv[1]) : 1024, reps = argc > 2 ? atol(argv[2]) : 500;
    if (kib < 1 || reps < 1 || (argc > 1 && !strcmp(argv[1], "--help"))) {
        fprintf(stderr, "usage: crc_bw [KiB per block] [repetitions]\n");
        return 2;
    }
    size_t n = (size_t)kib << 10;
    uint8_t *b = aligned_alloc(4096, n);
    if (!b) return 1;
    for (size_t i = 0; i < n; i++) b[i] = (uint8_t)(i * 2654435761u >> 13);
    uint32_t c1, c2 = 0, c3;
    double g1 = rate(blk_crc32c, b, n, reps, &c1);
    double g2 = 0;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("sse4.2")) g2 = rate(one_stream, b, n, reps, &c2);
    else c2 = c1;
#else
    c2 = c1;
#endif
    double g3 = rate(blk_crc32c_sw, b, n, reps / 20 + 1, &c3);
    free(b);
    printf("crc_bw: %ld KiB blocks, checksum %08x\n", kib, c1);
    printf("CRC32C_GBPS=%.2f ONE_STREAM_GBPS=%.2f TABLE_GBPS=%.2f\n", g1, g2, g3);
    return (c1 == c2 && c1 == c3) ? 0 : 1;
}
