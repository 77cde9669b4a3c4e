/* memcpy_bw.c — single-thread memcpy bandwidth of large buffers: the ceiling
** of any gather that copies feature rows out of memory it already holds.
**
**   memcpy_bw [MiB per buffer (default 256)] [repetitions (default 10)]
**
** Both buffers are touched first, so no page faults are timed.  The figure
** is bytes copied per second (each byte is read once and written once),
** best of the repetitions.  Last line: MEMCPY_GBPS=<GB/s, 1e9 bytes>. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    long mib = argc > 1 ? atol(argv[1]) : 256, reps = argc > 2 ? atol(argv[2]) : 10;
    if (mib < 1 || reps < 1 || (argc > 1 && !strcmp(argv[1], "--help"))) {
        fprintf(stderr, "usage: memcpy_bw [MiB per buffer] [repetitions]\n");
        return 2;
    }
    size_t n = (size_t)mib << 20;
    char *a = aligned_alloc(4096, n), *b = aligned_alloc(4096, n);
    if (!a || !b) {
        fprintf(stderr, "memcpy_bw: cannot allocate 2 x %ld MiB\n", mib);
        return 1;
    }
    memset(a, 1, n);
    memset(b, 2, n);
    double best = 0;
    for (long r = 0; r < reps; r++) {
        double t = now();
        memcpy((r & 1) ? a : b, (r & 1) ? b : a, n);
        t = now() - t;
        if (t > 0 && (double)n / t > best) best = (double)n / t;
    }
    /* Read a byte back, so that the copies cannot be optimised away. */
    volatile char sink = a[n / 2] + b[n / 3];
    (void)sink;
    printf("memcpy_bw: %ld MiB buffers, best of %ld copies\n", mib, reps);
    printf("MEMCPY_GBPS=%.2f\n", best / 1e9);
    free(a);
    free(b);
    return 0;
}
