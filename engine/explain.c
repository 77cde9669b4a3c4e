/* explain.c — EXPLAIN and EXPLAIN ANALYZE: the plan tree, one text row per
** line, with the planner's estimates and, after a run, the actual figures
** of each operator. */
#include "exec.h"
#include "block.h"
#include "fcache.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int line(rowset *rs, int depth, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#include <stdarg.h>
static int line(rowset *rs, int depth, const char *fmt, ...)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "%*s", depth * 3, "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    return rs_row(rs) || rs_text(rs, buf);
}

static int actual(rowset *rs, int depth, const hb_opstats *o)
{
    char b[32];
    double hr = o->hits + o->misses
                    ? 100.0 * (double)o->hits / (double)(o->hits + o->misses)
                    : 0;
    return line(rs, depth,
                "actual: %.3f s, blocks read %" PRIu64 " (%s, %" PRIu64
                " reads), hits %" PRIu64 ", misses %" PRIu64 " (%.1f%% hit)"
                ", items %" PRIu64 ", edges %" PRIu64,
                o->seconds, o->blocks_read,
                db_fmt_size((int64_t)o->bytes_read, b, sizeof b),
                o->reads_issued, o->hits, o->misses, hr, o->items, o->edges);
}

int explain_rows(const plan *p, const hb_stats *st, rowset *rs)
{
    char b1[32], b2[32], b3[32], b4[32], b5[32];
    int err = 0;
    int64_t hbs = (p->total_batches + p->hyperbatch - 1) / p->hyperbatch;
    err |= line(rs, 0, "SAMPLE FROM %s: %" PRId64 " mini-batches (%" PRId64
                " epochs x %" PRId64 "), seed %" PRIu64 "%s",
                p->graph.name, p->total_batches, p->epochs,
                p->batches_per_epoch, p->seed,
                p->seed_drawn ? " (drawn)" : "");
    err |= line(rs, 0, "memory_limit %s: graph pool %s (%zu frames), "
                "feature pool %s (%zu frames), staged %s (about %s per mini-batch)",
                db_fmt_size(p->memory_limit, b1, sizeof b1),
                db_fmt_size(p->graph_pool_bytes, b2, sizeof b2), p->graph_frames,
                db_fmt_size(p->feat_pool_bytes, b3, sizeof b3), p->feat_frames,
                db_fmt_size(p->staged_bytes, b4, sizeof b4),
                db_fmt_size(p->per_batch_bytes, b5, sizeof b5));
    if (p->cache_policy != FC_NONE)
        err |= line(rs, 0, "feature cache %s: %" PRId64 " rows, policy %s%s",
                    db_fmt_size(p->cache_bytes, b1, sizeof b1), p->cache_rows,
                    fc_policy_name(p->cache_policy),
                    p->cache_policy == FC_BELADY
                        ? " (the next hyperbatch is sampled ahead)" : "");
    err |= line(rs, 0, "HYPERBATCH %" PRId64 "%s%s%s (%" PRId64
                " hyperbatches)", p->hyperbatch,
                p->note[0] ? " (" : "", p->note, p->note[0] ? ")" : "", hbs);
    int d = 0;
    err |= line(rs, d, "-> transfer to %s",
                p->device == GNNDB_DEVICE_CUDA ? "cuda" : "host");
    if (st && p->device == GNNDB_DEVICE_CUDA)
        err |= actual(rs, d + 1, &st->transfer);
    d++;
    if (p->has_feat)
        err |= line(rs, d, "-> gather %s (%u x %s, %" PRId64 " blocks of %s, "
                    "%u rows each)%s: est. %.0f blocks per hyperbatch",
                    p->feat.name, p->feat.dim, blk_dtype_name(p->feat.dtype),
                    p->feat.nblocks,
                    db_fmt_size(p->feat.block_size, b1, sizeof b1),
                    p->feat.rows_per_block, p->has_labels ? " + labels" : "",
                    p->feat_blocks_est_hb);
    else
        err |= line(rs, d, "-> gather%s", p->has_labels ? " labels" : " (no features)");
    if (st) err |= actual(rs, d + 1, &st->gather);
    if (st && p->cache_policy != FC_NONE) {
        uint64_t n = st->cache_hits + st->cache_misses;
        err |= line(rs, d + 1, "feature cache: hits %" PRIu64 ", misses %"
                    PRIu64 " rows (%.1f%% hit), %" PRIu64 " blocks saved, %"
                    PRIu64 " blocks read to fill it",
                    st->cache_hits, st->cache_misses,
                    n ? 100.0 * (double)st->cache_hits / (double)n : 0.0,
                    st->cache_blocks_saved, st->cache_fill_blocks);
    }
    for (int h = p->nhops - 1; h >= 0; h--) {
        d++;
        err |= line(rs, d, "-> sample hop %d fanout %d%s: est. %.0f edges, "
                    "%.0f new nodes per mini-batch; %.0f of %" PRId64
                    " graph blocks per hyperbatch",
                    h + 1, p->fanouts[h], p->replace ? " with replacement" : "",
                    p->edges_est[h], p->nodes_est[h + 1], p->blocks_est_hb[h],
                    p->graph.graph_blocks);
        if (st) err |= actual(rs, d + 1, &st->hop[h]);
    }
    d++;
    const char *src = p->seeds_kind == AST_SEEDS_SPLIT ? "split"
                      : p->seeds_kind == AST_SEEDS_LIST ? "list" : "all nodes";
    err |= line(rs, d, "-> scan %s%s%s: %" PRId64 " seeds, BATCH %" PRId64
                ", %s order",
                src, p->seeds_kind == AST_SEEDS_SPLIT ? " " : "",
                p->seeds_kind == AST_SEEDS_SPLIT ? p->split.name : "",
                p->nseeds, p->batch, p->shuffle ? "shuffled" : "ascending");
    if (st) {
        err |= line(rs, 0, "total: %" PRIu64 " mini-batches in %" PRIu64
                    " hyperbatches, %.3f s, %" PRIu64 " sampled edges, %" PRIu64
                    " nodes%s",
                    st->batches, st->hyperbatches, st->seconds, st->edges,
                    st->nodes, st->shrunk ? "; some hyperbatches were cut "
                                            "short to stay within memory_limit"
                                          : "");
    }
    return err ? -1 : 0;
}
