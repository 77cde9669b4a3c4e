/* explain_transfer.c — EXPLAIN's lines for the transfer operator: where the
** batches go, in what memory they are gathered, the GPU cache and its
** policy, and after a run (EXPLAIN ANALYZE) the bytes that crossed the bus
** and the rows the device cache served, per batch. */
#include "explain.h"
#include "../gpu/gcache.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

static int tline(rowset *rs, int depth, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int tline(rowset *rs, int depth, const char *fmt, ...)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "%*s", depth * 3, "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    return rs_row(rs) || rs_text(rs, buf);
}

static int cache_line(const plan *p, rowset *rs)
{
    const plan_transfer *t = &p->tr;
    char b1[32];
    if (t->why_no_cache[0])
        return tline(rs, 1, "gpu cache: not used (%s)", t->why_no_cache);
    if (!t->cache_rows) return 0;
    int64_t warm = GNN_MIN(p->hyperbatch, GC_WARM_MAX);
    return tline(rs, 1,
                 "gpu cache: %s, %" PRId64 " of %" PRId64 " rows (%.1f%%); "
                 "policy frequency: the rows the first %" PRId64
                 " mini-batches touch most, kept for the run; only the "
                 "others cross the bus",
                 db_fmt_size(t->cache_bytes, b1, sizeof b1), t->cache_rows,
                 p->feat.rows,
                 100.0 * (double)t->cache_rows /
                     (double)GNN_MAX(1, p->feat.rows),
                 warm);
}

/* After a run: the bus bytes and the device cache's rows, per batch. */
static int actual_lines(const hb_opstats *o, rowset *rs)
{
    char b1[32], b2[32];
    double n = (double)GNN_MAX(1, o->items);
    uint64_t rows = o->hits + o->misses;
    int err = tline(rs, 1,
                    "actual: %" PRIu64 " batches, %.3f s handing out "
                    "(%.3f s waiting for copies), bus %s a batch (%s of it "
                    "through staging)",
                    o->items, o->seconds, o->cpu_seconds,
                    db_fmt_size((int64_t)((double)o->bytes_out / n), b1,
                                sizeof b1),
                    db_fmt_size((int64_t)((double)o->bytes_read / n), b2,
                                sizeof b2));
    if (rows)
        err |= tline(rs, 1,
                     "device cache: %" PRIu64 " hits of %" PRIu64
                     " rows (%.1f%%), %.0f rows a batch served on the device",
                     o->hits, rows, 100.0 * (double)o->hits / (double)rows,
                     (double)o->hits / n);
    return err;
}

int explain_transfer(const plan *p, const hb_stats *st, rowset *rs)
{
    char b1[32];
    if (p->device != GNNDB_DEVICE_CUDA)
        return tline(rs, 0, "-> transfer to host%s",
                     p->tr.pin ? " (pinned: PRAGMA pin_memory = on)" : "");
    int err = tline(rs, 0,
                    "-> transfer to cuda:%d: gathered into pinned memory, "
                    "each batch on its own stream while the next is "
                    "prepared (%s of pinned staging)",
                    p->device_index,
                    db_fmt_size(p->tr.host_bytes - (int64_t)gc_host_bytes(
                                                       p->tr.cache_rows),
                                b1, sizeof b1));
    err |= cache_line(p, rs);
    if (st) err |= actual_lines(&st->transfer, rs);
    return err;
}
