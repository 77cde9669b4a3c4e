/* grow.c — growing arrays by one policy (grow.h). */
#include "grow.h"

#include <stdlib.h>

size_t gnn_grow_cap(size_t cap, size_t need)
{
    size_t c = cap + cap / 4;
    if (c < need) c = need;
    return c < 64 ? 64 : c;
}

int gnn_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t c = gnn_grow_cap(*cap, need);
    void *q = realloc(*p, c * elem);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}
