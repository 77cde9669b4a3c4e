/* test_copy.c — common/copy.c: streaming copies equal memcpy at every
** alignment and length, and float16 widening of all 65,536 halves equals a
** reference built from ldexp, the same bits whether a value goes through
** the vector path (runs of eight) or the scalar one (the tail). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "copy.h"

static void test_stream_equals_memcpy(void **state)
{
    (void)state;
    unsigned char src[600], dst[640], ref[640];
    for (size_t i = 0; i < sizeof src; i++) src[i] = (unsigned char)(i * 7 + 3);
    for (size_t off = 0; off < 32; off += 4)
        for (size_t len = 0; len <= 560; len += 16) {
            memset(dst, 0xee, sizeof dst);
            memset(ref, 0xee, sizeof ref);
            gnn_copy_stream(dst + off, src + 3, len);
            gnn_copy_stream_done();
            memcpy(ref + off, src + 3, len);
            assert_memory_equal(dst, ref, sizeof dst);
        }
}

/* The value of half h, from its fields: the reference. */
static float half_ref(uint16_t h)
{
    int exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    float sign = (h & 0x8000) ? -1.0f : 1.0f;
    if (exp == 0x1f) return man ? NAN : sign * INFINITY;
    if (exp == 0) return sign * ldexpf((float)man, -24);
    return sign * ldexpf((float)(man | 0x400), exp - 25);
}

static void test_widen_all_halves(void **state)
{
    (void)state;
    uint16_t *h = malloc(65536 * sizeof *h);
    float *vec = malloc(65536 * sizeof *vec);
    assert_non_null(h);
    assert_non_null(vec);
    for (uint32_t i = 0; i < 65536; i++) h[i] = (uint16_t)i;
    gnn_widen_f16(vec, h, 65536, 0);
    for (uint32_t i = 0; i < 65536; i++) {
        float one, want = half_ref(h[i]);
        gnn_widen_f16(&one, &h[i], 1, 0);   /* the scalar path */
        uint32_t a, b;
        memcpy(&a, &vec[i], 4);
        memcpy(&b, &one, 4);
        assert_int_equal(a, b);
        if (isnan(want)) {
            assert_true(isnan(one));
            assert_true(a & 0x00400000u);   /* quiet */
        } else {
            memcpy(&b, &want, 4);
            assert_int_equal(a, b);         /* -0 and subnormals exact */
        }
    }
    /* streamed into an aligned destination, the same bits */
    float *st = aligned_alloc(64, 65536 * sizeof *st);
    assert_non_null(st);
    gnn_widen_f16(st, h, 65536, 1);
    gnn_copy_stream_done();
    assert_memory_equal(st, vec, 65536 * sizeof *st);
    free(st);
    free(vec);
    free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_equals_memcpy),
        cmocka_unit_test(test_widen_all_halves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
