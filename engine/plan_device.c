/* plan_device.c — the transfer operator's part of a SAMPLE plan: pinned
** gathers, the GPU cache (PRAGMA gpu_cache) checked against the device's
** free memory at prepare, and the host memory the transfer holds, which
** the planner counts inside memory_limit. */
#include "plan.h"
#include "../gpu/xfer.h"
#include "../gpu/gcache.h"

#include <stdio.h>
#include <string.h>

/* Why a gpu_cache that is set does not apply to this plan, or NULL. */
static const char *cache_unused(const plan *p)
{
    if (p->device != GNNDB_DEVICE_CUDA) return "the batches stay on the host";
    if (p->typed) return "typed batches are not cached on the device";
    if (!p->has_feat) return "the statement reads no FEATURES";
    return NULL;
}

/* The device must hold the cache and both buffer sets of batches beside
** it; without a device to ask, the first step says there is none. */
static int cache_fits(const plan *p, int64_t asked, int64_t bytes,
                      gnn_err *e)
{
    int64_t free_b = 0, total_b = 0;
    gnn_err ignore = {0};
    if (xfer_mem_info(p->device_index, &free_b, &total_b, &ignore))
        return GNNDB_OK;
    int64_t batches = 2 * p->per_batch_bytes;
    if (bytes + batches <= free_b) return GNNDB_OK;
    char b0[32], b1[32], b2[32], b3[32], b4[32];
    return gnn_seterr(e, GNNDB_NOMEM,
                      "PRAGMA gpu_cache = '%s' (%s of %s's rows) does not "
                      "fit on cuda:%d: it has %s free of %s, and two "
                      "batches of up to %s each need room beside the cache; "
                      "lower gpu_cache",
                      db_fmt_size(asked, b0, sizeof b0),
                      db_fmt_size(bytes, b1, sizeof b1), p->feat.name,
                      p->device_index, db_fmt_size(free_b, b2, sizeof b2),
                      db_fmt_size(total_b, b3, sizeof b3),
                      db_fmt_size(p->per_batch_bytes, b4, sizeof b4));
}

static int plan_gpu_cache(gnndb *db, plan *p, gnn_err *e)
{
    plan_transfer *t = &p->tr;
    const char *why = cache_unused(p);
    if (why) {
        snprintf(t->why_no_cache, sizeof t->why_no_cache, "%s", why);
        return GNNDB_OK;
    }
    int64_t row = plan_x_dim(p) * (int64_t)sizeof(float);
    int64_t rows = db->pragma.gpu_cache / row;
    if (rows > p->feat.rows) rows = p->feat.rows;
    if (rows > INT32_MAX) rows = INT32_MAX;
    if (rows < 1) {
        char b1[32];
        return gnn_seterr(e, GNNDB_RANGE, "PRAGMA gpu_cache = '%s' holds no "
                          "row of %s (%lld bytes a row); give more or 0",
                          db_fmt_size(db->pragma.gpu_cache, b1, sizeof b1),
                          p->feat.name, (long long)row);
    }
    int rc = cache_fits(p, db->pragma.gpu_cache, rows * row, e);
    if (rc) return rc;
    t->cache_rows = rows;
    t->cache_bytes = rows * row;
    return GNNDB_OK;
}

int plan_transfer_of(gnndb *db, plan *p, gnn_err *e)
{
    plan_transfer *t = &p->tr;
    memset(t, 0, sizeof *t);
    int cuda = p->device == GNNDB_DEVICE_CUDA;
    t->pin = cuda || db->pragma.pin_memory;
    if (db->pragma.gpu_cache > 0) {
        int rc = plan_gpu_cache(db, p, e);
        if (rc) return rc;
    }
    t->host_bytes = (cuda ? xfer_staging_bytes(p->per_batch_bytes) : 0) +
                    (int64_t)gc_host_bytes(t->cache_rows);
    return GNNDB_OK;
}
