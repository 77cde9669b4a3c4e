/* copy.c — streaming copies and float16 rows widened (copy.h). */
#include "copy.h"

#include <stdint.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

void gnn_copy_stream(void *dst, const void *src, size_t len)
{
#if defined(__x86_64__)
    if (((uintptr_t)dst & 15) == 0 && (len & 15) == 0) {
        __m128i *d = dst;
        const __m128i *s = src;
        size_t n = len / 16, i = 0;
        for (; i + 4 <= n; i += 4) {
            __m128i a = _mm_loadu_si128(s + i), b = _mm_loadu_si128(s + i + 1);
            __m128i c = _mm_loadu_si128(s + i + 2), e = _mm_loadu_si128(s + i + 3);
            _mm_stream_si128(d + i, a);
            _mm_stream_si128(d + i + 1, b);
            _mm_stream_si128(d + i + 2, c);
            _mm_stream_si128(d + i + 3, e);
        }
        for (; i < n; i++) _mm_stream_si128(d + i, _mm_loadu_si128(s + i));
        return;
    }
#endif
    memcpy(dst, src, len);
}

void gnn_copy_stream_done(void)
{
#if defined(__x86_64__)
    _mm_sfence();
#endif
}

/* One half to float32 by its bits: the exponent rebased from 15 to 127, a
** subnormal normalised, an all-ones exponent kept as infinity or NaN; a
** NaN comes out quiet, as F16C's conversion makes it, so that the result
** does not depend on which path the CPU takes. */
static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f;
    uint32_t man = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13) | (man ? 0x00400000u : 0);
    } else if (exp) {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    } else if (man) {
        int e = -1;
        do { man <<= 1; e++; } while (!(man & 0x400));
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ff) << 13);
    } else {
        bits = sign;
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

#if defined(__x86_64__)
/* Eight halves at a time with F16C; returns how many it widened. */
__attribute__((target("avx,f16c")))
static size_t widen_f16c(float *dst, const unsigned char *src, size_t n,
                         int stream)
{
    size_t i = 0;
    int aligned = stream && ((uintptr_t)dst & 15) == 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + 2 * i)));
        if (aligned) {
            _mm_stream_ps(dst + i, _mm256_castps256_ps128(v));
            _mm_stream_ps(dst + i + 4, _mm256_extractf128_ps(v, 1));
        } else {
            _mm256_storeu_ps(dst + i, v);
        }
    }
    return i;
}
#endif

void gnn_widen_f16(float *dst, const void *src, size_t n, int stream)
{
    const unsigned char *s = src;
    size_t i = 0;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("f16c")) i = widen_f16c(dst, s, n, stream);
#endif
    for (; i < n; i++) {
        uint16_t h;
        memcpy(&h, s + 2 * i, sizeof h);
        dst[i] = half_to_float(h);
    }
}
