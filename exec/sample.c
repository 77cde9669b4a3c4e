/* sample.c — neighbour choice for one node: Floyd's algorithm without
** replacement, independent draws with it. Pure functions of the key. */
#include "sample.h"
#include "rng.h"
#include "sort.h"

#include <stdlib.h>

/* Open-addressing set of positions; 0xffffffff marks an empty slot. */
static int set_insert(uint32_t *set, uint32_t mask, uint32_t v)
{
    uint32_t h = (uint32_t)(rng_mix(v) & mask);
    for (;;) {
        if (set[h] == 0xffffffffu) { set[h] = v; return 1; }
        if (set[h] == v) return 0;
        h = (h + 1) & mask;
    }
}

/* Insertion sort of a few positions. */
static void sort_few(uint32_t *out, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        uint32_t v = out[i], j = i;
        while (j > 0 && out[j - 1] > v) { out[j] = out[j - 1]; j--; }
        out[j] = v;
    }
}

/* Fanouts up to this many look for a taken position in what was chosen
** so far, which for a few beats hashing every position into a table. */
#define SAMPLE_SCAN_MAX 16

/* Floyd's algorithm, as below, for k <= SAMPLE_SCAN_MAX: the same draws,
** so the same positions. j itself is never taken before its turn (every
** earlier choice is at most an earlier j), so only t needs looking up. */
static uint32_t floyd_scan(uint64_t key, uint32_t degree, uint32_t k,
                           uint32_t *out)
{
    uint32_t n = 0;
    for (uint32_t j = degree - k, i = 0; j < degree; j++, i++) {
        uint32_t t = (uint32_t)rng_below(rng_draw(key, i), (uint64_t)j + 1);
        int taken = 0;
        for (uint32_t q = 0; q < n; q++) taken |= out[q] == t;
        out[n++] = taken ? j : t;
    }
    sort_few(out, n);
    return n;
}

uint32_t sample_choose(uint64_t key, uint32_t degree, int fanout, int replace,
                       uint32_t *out, uint32_t *scratch)
{
    if (fanout < 0 || (!replace && degree <= (uint32_t)fanout)) {
        for (uint32_t i = 0; i < degree; i++) out[i] = i;
        return degree;
    }
    uint32_t k = (uint32_t)fanout;
    if (replace) {
        if (degree == 0) return 0;
        for (uint32_t i = 0; i < k; i++)
            out[i] = (uint32_t)rng_below(rng_draw(key, i), degree);
        return k;
    }
    /* Floyd: for j = d-k .. d-1 pick t in [0, j]; keep t unless already
    ** taken, in which case keep j. Every k-subset is equally likely. */
    if (k <= SAMPLE_SCAN_MAX) return floyd_scan(key, degree, k, out);
    uint32_t cap = 16;
    while (cap < 2 * k) cap <<= 1;
    uint32_t mask = cap - 1;
    for (uint32_t i = 0; i < cap; i++) scratch[i] = 0xffffffffu;
    uint32_t n = 0;
    for (uint32_t j = degree - k, i = 0; j < degree; j++, i++) {
        uint32_t t = (uint32_t)rng_below(rng_draw(key, i), (uint64_t)j + 1);
        if (set_insert(scratch, mask, t)) out[n++] = t;
        else { set_insert(scratch, mask, j); out[n++] = j; }
    }
    if (n <= 32) sort_few(out, n);
    else gnn_sort_u32(out, n);
    return n;
}
