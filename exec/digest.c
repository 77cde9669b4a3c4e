/* digest.c — a batch's digest (docs/format.md): a checksum of every array
** of its view, in one vectorisable pass that numpy can recompute. */
#include "batch_fields.h"
#include "exec.h"
#include "pool.h"

#include <stdint.h>
#include <string.h>

/* For each section s of the batch in the order n_id, edge_index, x, y (an
** absent x or y is an empty section), its bytes are read as little-endian
** 64-bit words w_0..w_{m-1}, the last one zero-padded, and summed modulo
** 2^64 as S_s = sum_i fmix(w_i ^ ((i + 1) * K1)). The digest is
** h = fmix(h ^ S_s ^ (len_s * K2)) over the sections, from h = K0, where
** fmix is MurmurHash3's 64-bit finaliser and len_s the section's bytes.
** A sum over words keeps it a single vectorisable pass (numpy can recompute
** it), and the index inside each term keeps it order sensitive. */
#define DG_K0 0x6a09e667f3bcc908ull
#define DG_K1 0x9e3779b97f4a7c15ull
#define DG_K2 0xc2b2ae3d27d4eb4full

static inline uint64_t fmix(uint64_t z)
{
    z ^= z >> 33;
    z *= 0xff51afd7ed558ccdull;
    z ^= z >> 33;
    z *= 0xc4ceb9fe1a85ec53ull;
    z ^= z >> 33;
    return z;
}

#if defined(__x86_64__)
#include <immintrin.h>

/* The terms of whole words [i, n) eight at a time (AVX-512: 64-bit lanes
** multiply in one instruction), the same sum as the scalar loop since
** addition mod 2^64 does not care about order. Returns where it stopped. */
__attribute__((target("avx512f,avx512dq")))
static size_t sum_words_avx512(const unsigned char *p, size_t i, size_t n,
                               uint64_t *s)
{
    const __m512i c1 = _mm512_set1_epi64((long long)0xff51afd7ed558ccdull);
    const __m512i c2 = _mm512_set1_epi64((long long)0xc4ceb9fe1a85ec53ull);
    const __m512i k1 = _mm512_set1_epi64((long long)DG_K1);
    const __m512i step = _mm512_set1_epi64((long long)(8 * DG_K1));
    /* (j + 1) * K1 for the lanes' word indices j = i .. i + 7 */
    __m512i idx = _mm512_mullo_epi64(
        _mm512_add_epi64(_mm512_set1_epi64((long long)(i + 1)),
                         _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0)), k1);
    __m512i acc = _mm512_setzero_si512();
    for (; i + 8 <= n; i += 8) {
        __m512i z = _mm512_xor_si512(_mm512_loadu_si512(p + 8 * i), idx);
        z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 33));
        z = _mm512_mullo_epi64(z, c1);
        z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 33));
        z = _mm512_mullo_epi64(z, c2);
        z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 33));
        acc = _mm512_add_epi64(acc, z);
        idx = _mm512_add_epi64(idx, step);
    }
    /* the lanes added as unsigned: the intrinsic's signed sum may wrap */
    uint64_t lane[8];
    _mm512_storeu_si512(lane, acc);
    for (int k = 0; k < 8; k++) *s += lane[k];
    return i;
}
#endif

/* The sum over words [w0, w1) of a section of len bytes. */
static uint64_t section_sum(const void *data, size_t len, size_t w0, size_t w1)
{
    const unsigned char *p = data;
    uint64_t s = 0;
    size_t m = len / 8, i = w0;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx512dq"))
        i = sum_words_avx512(p, i, GNN_MIN(w1, m), &s);
#endif
    for (; i < w1 && i < m; i++) {
        uint64_t w;
        memcpy(&w, p + 8 * i, 8);
        s += fmix(w ^ ((i + 1) * DG_K1));
    }
    if (len % 8 && w1 > m && w0 <= m) {
        uint64_t w = 0;
        memcpy(&w, p + 8 * m, len % 8);
        s += fmix(w ^ ((m + 1) * DG_K1));
    }
    return s;
}

#define DG_CHUNK ((size_t)1 << 18) /* words per parallel task */

/* A node batch has four sections; a batch carrying edge ids seven more;
** a time-respecting batch three more after those (node_seed, time,
** edge_time), so that no other batch's digest changes. */
#define DG_EID_SECTIONS 11
#define DG_MAX_SECTIONS BF_NFIELDS

typedef struct dg_job {
    const void *sec[DG_MAX_SECTIONS];
    size_t len[DG_MAX_SECTIONS];
    size_t first[DG_MAX_SECTIONS + 1]; /* first task of each section */
    uint64_t part[256];   /* partial sums, one per task */
} dg_job;

static void digest_task(void *arg, size_t t, int w)
{
    dg_job *j = arg;
    int s = 0;
    while (t >= j->first[s + 1]) s++;
    size_t w0 = (t - j->first[s]) * DG_CHUNK;
    j->part[t] = section_sum(j->sec[s], j->len[s], w0, w0 + DG_CHUNK);
}

/* The sections of v in digest order (docs/format.md, and the order of
** common/batch_fields.h's list); their number. */
static int dg_sections(const gnndb_batch_view *v, const void **sec,
                       size_t *len)
{
    int n = v->edge_time ? DG_MAX_SECTIONS : v->e_id ? DG_EID_SECTIONS : 4;
    for (int i = 0; i < n; i++) {
        int64_t bytes = bf_bytes(v, &bf_fields[i]);
        sec[i] = bf_ptr(v, &bf_fields[i]);
        len[i] = bytes > 0 ? (size_t)bytes : 0;
    }
    return n;
}

/* The digest so far with one section's sum of `len` bytes folded in. */
static uint64_t dg_fold(uint64_t h, uint64_t sum, size_t len)
{
    return fmix(h ^ sum ^ ((uint64_t)len * DG_K2));
}

static uint64_t dg_section(uint64_t h, const void *data, size_t len)
{
    return dg_fold(h, len ? section_sum(data, len, 0, SIZE_MAX) : 0, len);
}

/* A typed batch goes on, per type, with its n_id, x and y, then per
** relation with its edge_index and, with EDGE FEATURES, its e_id and
** edge_attr (absent: an empty section). */
static uint64_t dg_typed(const gnndb_batch_view *v, uint64_t h)
{
    for (int32_t t = 0; t < v->num_node_types; t++) {
        const gnndb_type_view *tv = &v->types[t];
        size_t n = (size_t)tv->num_nodes;
        h = dg_section(h, tv->n_id, n * 8);
        h = dg_section(h, tv->x, tv->x ? n * (size_t)tv->x_dim * 4 : 0);
        h = dg_section(h, tv->y, tv->y ? (size_t)tv->num_seeds * 8 : 0);
    }
    for (int32_t r = 0; r < v->num_relations; r++) {
        const gnndb_rel_view *rv = &v->rels[r];
        size_t n = (size_t)rv->num_edges;
        h = dg_section(h, rv->edge_index, n * 16);
        if (!rv->e_id) continue;
        h = dg_section(h, rv->e_id, n * 8);
        h = dg_section(h, rv->edge_attr,
                       rv->edge_attr ? n * (size_t)rv->edge_attr_dim * 4 : 0);
    }
    return h;
}

uint64_t batch_digest_pool(const gnndb_batch_view *v, struct wpool *pool)
{
    dg_job j;
    int ns = dg_sections(v, j.sec, j.len);
    size_t tasks = 0;
    for (int s = 0; s < ns; s++) {
        j.first[s] = tasks;
        tasks += (j.len[s] / 8 + 1 + DG_CHUNK - 1) / DG_CHUNK;
    }
    j.first[ns] = tasks;
    uint64_t h = DG_K0;
    if (tasks > 256) pool = NULL; /* huge batches: one pass per section */
    if (pool) wpool_run(pool, tasks, digest_task, &j);
    for (int s = 0; s < ns; s++) {
        if (!pool || !j.len[s]) {
            h = dg_section(h, j.sec[s], j.len[s]);
            continue;
        }
        uint64_t sum = 0;
        for (size_t t = j.first[s]; t < j.first[s + 1]; t++) sum += j.part[t];
        h = dg_fold(h, sum, j.len[s]);
    }
    return dg_typed(v, h);
}

uint64_t batch_digest(const gnndb_batch_view *v)
{
    return batch_digest_pool(v, NULL);
}
