/* hb_blocks.c — bucketing items by block and visiting a block's items in
** parallel (hb_blocks.h). */
#include "hb_blocks.h"
#include "clock.h"
#include "grow.h"
#include "pool.h"
#include "gnndb.h"

#include <stdlib.h>
#include <string.h>

int hb_bucket(hb_blocks *bk, size_t n, uint64_t nblocks, gnn_err *e)
{
    if (gnn_grow((void **)&bk->bstart, &bk->capbstart, nblocks + 1,
                sizeof *bk->bstart) ||
        gnn_grow((void **)&bk->sorted, &bk->capsorted, n + 1,
                sizeof *bk->sorted) ||
        gnn_grow((void **)&bk->ublocks, &bk->capublocks,
                GNN_MIN(n, nblocks) + 1, sizeof *bk->ublocks))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory bucketing blocks");
    const uint64_t *blockof = bk->blockof;
    size_t *bstart = bk->bstart;
    memset(bstart, 0, (nblocks + 1) * sizeof *bstart);
    for (size_t i = 0; i < n; i++) bstart[blockof[i] + 1]++;
    bk->nub = 0;
    for (uint64_t b = 0; b < nblocks; b++) {
        if (bstart[b + 1]) bk->ublocks[bk->nub++] = b;
        bstart[b + 1] += bstart[b];
    }
    /* place items; bstart[b] walks forward, then is restored */
    for (size_t i = 0; i < n; i++)
        bk->sorted[bstart[blockof[i]]++] = (uint32_t)i;
    for (uint64_t b = nblocks; b > 0; b--) bstart[b] = bstart[b - 1];
    bstart[0] = 0;
    return GNNDB_OK;
}

size_t hb_blocks_bytes(const hb_blocks *bk)
{
    return bk->capblockof * 8 + bk->capsorted * 4 +
           bk->capbstart * sizeof(size_t);
}

void hb_blocks_release(hb_blocks *bk)
{
    free(bk->blockof); bk->blockof = NULL; bk->capblockof = 0;
    free(bk->sorted); bk->sorted = NULL; bk->capsorted = 0;
}

void hb_blocks_free(hb_blocks *bk)
{
    hb_blocks_release(bk);
    free(bk->bstart);
    free(bk->ublocks);
    bk->bstart = NULL;
    bk->ublocks = NULL;
    bk->capbstart = bk->capublocks = bk->nub = 0;
}

void hb_run_block(hb_blocks *bk, struct wpool *pool, uint64_t no,
                  const void *data, size_t lo, size_t hi,
                  void (*fn)(void *, size_t, int), void *arg,
                  double *cpu_seconds)
{
    bk->vis_no = no;
    bk->vis_data = data;
    bk->vis_lo = lo;
    bk->vis_hi = hi;
    size_t tasks = (hi - lo + HB_CHUNK - 1) / HB_CHUNK;
    double t0 = gnn_now();
    /* small blocks of work are not worth waking the workers for */
    wpool_run(tasks > 1 ? pool : NULL, tasks, fn, arg);
    *cpu_seconds += gnn_now() - t0;
}
