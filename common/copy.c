/* copy.c — streaming copies (copy.h). */
#include "copy.h"

#include <stdint.h>
#include <string.h>
#if defined(__x86_64__)
#include <emmintrin.h>
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
