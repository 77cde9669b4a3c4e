/* sample.h — which neighbours of one node a hop keeps. */
#ifndef GNN_SAMPLE_H
#define GNN_SAMPLE_H

#include <stdint.h>

#define SAMPLE_SCRATCH 4096 /* uint32 slots the caller provides */

/* Choose positions in a node's adjacency list of length `degree` under
** `key` (rng_key). fanout -1 keeps all; without replacement a node with
** degree <= fanout keeps all, otherwise `fanout` distinct positions chosen
** uniformly (Floyd's algorithm), returned in ascending order; with
** replacement `fanout` independent uniform draws in draw order (none when the
** degree is 0). `out` holds max(fanout, degree) when fanout is -1, else
** fanout; `scratch` SAMPLE_SCRATCH slots. Returns the number chosen. */
uint32_t sample_choose(uint64_t key, uint32_t degree, int fanout, int replace,
                       uint32_t *out, uint32_t *scratch);

/* The most neighbours one node can yield. */
static inline uint32_t sample_max(uint32_t degree, int fanout, int replace)
{
    if (fanout < 0) return degree;
    if (replace) return degree ? (uint32_t)fanout : 0;
    return degree < (uint32_t)fanout ? degree : (uint32_t)fanout;
}

#endif
