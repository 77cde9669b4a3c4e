/* rng.h — the counter-based generator behind every random choice. A draw is
** a pure function of (query seed, epoch, mini-batch, hop, node, counter), so
** results do not depend on the order in which work is done. */
#ifndef GNN_RNG_H
#define GNN_RNG_H

#include <stdint.h>

/* The splitmix64 finaliser: a bijective mix of 64 bits. */
static inline uint64_t rng_mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* rng_key (below) in two steps: the part shared by every node of one hop
** of one mini-batch, then one node's key from it. */
static inline uint64_t rng_key_hop(uint64_t seed, uint64_t epoch,
                                   uint64_t batch, uint64_t hop)
{
    uint64_t k = rng_mix(seed ^ 0x6a09e667f3bcc909ull);
    k = rng_mix(k ^ epoch);
    k = rng_mix(k ^ batch);
    return rng_mix(k ^ (hop + 0x100));
}

static inline uint64_t rng_key_node(uint64_t khop, uint64_t node)
{
    return rng_mix(khop ^ node);
}

/* The key of one node's choices at one hop of one mini-batch. */
static inline uint64_t rng_key(uint64_t seed, uint64_t epoch, uint64_t batch,
                               uint64_t hop, uint64_t node)
{
    return rng_key_node(rng_key_hop(seed, epoch, batch, hop), node);
}

/* Draw number `i` under key `k`. */
static inline uint64_t rng_draw(uint64_t k, uint64_t i)
{
    return rng_mix(k + (i + 1) * 0xd1b54a32d192ed03ull);
}

/* A uniform integer in [0, m) from 64 random bits (multiply-shift; the bias
** is below m / 2^64). */
static inline uint64_t rng_below(uint64_t r, uint64_t m)
{
    return (uint64_t)(((unsigned __int128)r * m) >> 64);
}

/* A uniform double in [0, 1). */
static inline double rng_unit(uint64_t r)
{
    return (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

#endif
