/* explain.c — EXPLAIN and EXPLAIN ANALYZE: the plan tree, one text row per
** line, with the planner's estimates and, after a run, the actual figures
** of each operator. */
#include "explain.h"
#include "block.h"
#include "costmodel.h"
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
                o->seconds, o->blocks_read + o->partial_blocks,
                db_fmt_size((int64_t)o->bytes_read, b, sizeof b),
                o->reads_issued, o->hits, o->misses, hr, o->items, o->edges);
}

/* A block size as BLOCK SIZE spells it: 64KB, 1MB. */
static const char *bs_name(int64_t bs, char *b, size_t n)
{
    if (bs >= (1 << 20) && bs % (1 << 20) == 0)
        snprintf(b, n, "%" PRId64 "MB", bs >> 20);
    else
        snprintf(b, n, "%" PRId64 "KB", bs >> 10);
    return b;
}

static int estimate(rowset *rs, int depth, const cm_op *o)
{
    char b[32];
    return line(rs, depth,
                "est.: blocks read %.0f (%s, %.0f requests), io %.3g s, "
                "cpu %.3g s, time %.3g s",
                o->blocks, db_fmt_size((int64_t)o->bytes, b, sizeof b),
                o->requests, o->io_s, o->cpu_s, o->seconds);
}

static const char *const gran_names[] = {"auto", "block", "page"};

/* Whole blocks or pages for the feature table, and why (the model's
** choice under auto, with its estimate for one block). */
static int gran_line(rowset *rs, int depth, const plan *p, const cm_gran *g)
{
    const char *m = gran_names[p->read_granularity];
    uint32_t bs = (uint32_t)p->feat.block_size;
    if (p->spill)
        return line(rs, depth, "read granularity: whole blocks (a spilled "
                    "round reads its blocks whole)");
    if (p->read_granularity == GNN_GRAN_BLOCK || blk_npages(bs) < 2)
        return line(rs, depth, "read granularity: whole blocks (%s)",
                    blk_npages(bs) < 2 ? "blocks of one page" : m);
    if (g->pages <= 0)
        return line(rs, depth, "read granularity: whole blocks (%s: the "
                    "feature pool holds the whole table)", m);
    return line(rs, depth, "read granularity: %s (%s): est. %.1f of %u "
                "pages in %.1f reads per block (%.1f rows), %.3g ms against "
                "%.3g ms for the whole block", g->page ? "pages" : "whole "
                "blocks", m, g->pages, blk_npages(bs), g->runs, g->rows,
                g->t_pages * 1e3, g->t_whole * 1e3);
}

/* Whole graph blocks or pages for a hop, with the model's estimate. */
static int hop_gran_line(rowset *rs, int depth, const plan *p,
                         const cm_gran *g)
{
    const char *m = gran_names[p->read_granularity];
    uint32_t bs = (uint32_t)p->graph.block_size;
    if (p->read_granularity == GNN_GRAN_BLOCK || blk_npages(bs) < 2)
        return line(rs, depth, "read granularity: whole blocks (%s)",
                    blk_npages(bs) < 2 ? "blocks of one page" : m);
    if (p->read_granularity == GNN_GRAN_AUTO &&
        (int64_t)p->graph_frames >= p->topo.graph_blocks)
        return line(rs, depth, "read granularity: whole blocks (auto: the "
                    "graph pool holds the whole graph)");
    return line(rs, depth, "read granularity: %s (%s): page 0 and the "
                "nodes' offset entries, then their objects: est. %.1f of %u "
                "pages in %.1f reads per block (%.1f nodes), %.3g ms against "
                "%.3g ms for the whole block", g->page ? "pages" : "whole "
                "blocks", m, g->pages, blk_npages(bs), g->runs, g->rows,
                g->t_pages * 1e3, g->t_whole * 1e3);
}

/* What reads of part of a block brought, after a run. */
static int pages_actual(rowset *rs, int depth, const hb_opstats *o)
{
    char b[32];
    return line(rs, depth, "actual reads in part: %" PRIu64 " of the blocks "
                "read, %" PRIu64 " pages (%s)",
                o->partial_blocks, o->pages_read,
                db_fmt_size((int64_t)o->pages_read * BLK_PAGE_SIZE, b,
                            sizeof b));
}

/* The profile the model uses, the whole statement's estimate and the
** suggestions. */
static int cost_lines(const plan *p, const cm_est *est, rowset *rs)
{
    const cat_profile *pr = &p->profile;
    char b1[32], b2[32], b3[32], b4[32], b5[32];
    int err = 0;
    char what[96];
    if (!p->calibrated)
        snprintf(what, sizeof what, "uncalibrated, documented defaults");
    else if (!strcmp(pr->source, "measured"))
        snprintf(what, sizeof what, "disk profile measured %s (%s%s)",
                 pr->measured_at, pr->io, pr->direct > 0 ? ", O_DIRECT" : "");
    else
        snprintf(what, sizeof what, "disk profile set by hand");
    err |= line(rs, 0, "cost model: %s: sequential reads %s/s, random 4 KiB "
                "reads %.0f/s, random %s reads %.0f/s; per thread %.1f M "
                "sampled edges/s and %s/s gathered; %d threads",
                what, db_fmt_size((int64_t)cm_seq_bps(pr), b1, sizeof b1),
                pr->rand_4k_iops, db_fmt_size((int64_t)pr->rand_bs, b2, sizeof b2),
                pr->rand_bs_iops, pr->sample_edges_per_s / 1e6,
                db_fmt_size((int64_t)pr->gather_bps, b3, sizeof b3),
                p->threads);
    err |= line(rs, 0, "estimate: %.3g s, %.1f batches/s; blocks read %.0f (%s "
                "in %.0f requests), io %.3g s, cpu %.3g s",
                est->total.seconds, est->batches_per_s, est->total.blocks,
                db_fmt_size((int64_t)est->total.bytes, b1, sizeof b1),
                est->total.requests, est->total.io_s, est->total.cpu_s);
    cm_est he;
    int64_t h = cm_suggest_hyperbatch(p, pr, &he);
    int64_t fit = GNN_MAX(1, GNN_MIN(cm_hyperbatch_fit(p),
                                     GNN_MAX(1, p->batches_per_epoch)));
    err |= line(rs, 0, "suggested HYPERBATCH %" PRId64 "%s: est. %.1f batches/s "
                "(memory_limit %s fits %" PRId64 " of about %s)",
                h, p->spill ? " in memory, not spilled" : "", he.batches_per_s,
                db_fmt_size(p->memory_limit, b1, sizeof b1), fit,
                db_fmt_size(p->per_batch_bytes, b2, sizeof b2));
    cm_layout bl;
    cm_est be;
    int64_t bs = cm_suggest_block_size(p, pr, &bl, &be);
    if (bs)
        err |= line(rs, 0, "suggested BLOCK SIZE %s: est. %.1f batches/s, %s "
                    "read in %.0f requests (now %s: %s in %.0f requests); "
                    "assumes graph and features stored at that size, the "
                    "same HYPERBATCH (%" PRId64 "), nodes spread evenly over "
                    "blocks",
                    bs_name(bs, b1, sizeof b1), be.batches_per_s,
                    db_fmt_size((int64_t)be.total.bytes, b2, sizeof b2),
                    be.total.requests,
                    bs_name(p->graph.block_size, b3, sizeof b3),
                    db_fmt_size((int64_t)est->total.bytes, b4, sizeof b4),
                    est->total.requests, bl.hyperbatch);
    else
        err |= line(rs, 0, "suggested BLOCK SIZE: none (at every size from "
                    "4KB to 16MB a row does not fit a block or the pools "
                    "leave memory_limit %s no room for a mini-batch)",
                    db_fmt_size(p->memory_limit, b5, sizeof b5));
    return err;
}

/* One mini-batch as handed out: n_id, edge_index, x and y. */
static double batch_out_bytes(const plan *p, double nodes, double edges)
{
    double row = p->has_feat ? (double)p->feat.dim * 4 : 0;
    return nodes * (8 + row) + edges * 16 +
           (p->has_labels ? (double)p->batch * 8 : 0);
}

/* The mini-batch the plan expected beside the average one handed out. */
static int batch_line(const plan *p, const hb_stats *st, rowset *rs)
{
    double en = 0, ee = 0;
    for (int h = 0; h <= p->nhops; h++) en += p->nodes_est[h];
    for (int h = 0; h < p->nhops; h++) ee += p->edges_est[h];
    double nb = st->batches ? (double)st->batches : 1;
    double an = (double)st->nodes / nb, ae = (double)st->edges / nb;
    char b1[32], b2[32];
    return line(rs, 0, "per mini-batch, estimated vs actual: nodes %.0f vs "
                "%.0f, edges %.0f vs %.0f, bytes %s vs %s",
                en, an, ee, ae,
                db_fmt_size((int64_t)batch_out_bytes(p, en, ee), b1, sizeof b1),
                db_fmt_size((int64_t)batch_out_bytes(p, an, ae), b2, sizeof b2));
}

/* The spill area's line: what the plan chose and, after a run, what went
** through it. */
static int spill_line(const plan *p, const hb_stats *st, rowset *rs)
{
    char b1[32], b2[32], b3[32], b4[32];
    int err = 0;
    if (p->spill)
        err |= line(rs, 0, "spill: rounds of %" PRId64 " mini-batches through "
                    "the spill area (about %s each%s); est. %s of I/O per "
                    "mini-batch, against %s in memory at HYPERBATCH %" PRId64,
                    p->hyperbatch,
                    db_fmt_size((int64_t)(p->run_bytes_est - p->spill_hot_spare),
                                b1, sizeof b1),
                    p->spill_ahead == 1   ? ", the next read ahead"
                    : p->spill_ahead > 1 ? ", the next two read ahead"
                                         : "",
                    db_fmt_size((int64_t)p->cost_spill, b2, sizeof b2),
                    db_fmt_size((int64_t)p->cost_inmem, b3, sizeof b3),
                    p->hyperbatch_inmem);
    if (p->spill && p->hyperbatch == p->spill_free_cap)
        err |= line(rs, 0, "spill: the %s free on the spill area's disk "
                    "bound a round to %" PRId64 " mini-batches (it and the "
                    "next on disk at once; PRAGMA spill_limit sets the bound)",
                    db_fmt_size(p->spill_free, b4, sizeof b4),
                    p->spill_free_cap);
    else if (!p->spill && p->hyperbatch_inmem < p->hyperbatch_cap)
        err |= line(rs, 0, "spill: no; est. %s of I/O per mini-batch in "
                    "memory at HYPERBATCH %" PRId64 ", against %s spilled",
                    db_fmt_size((int64_t)p->cost_inmem, b1, sizeof b1),
                    p->hyperbatch,
                    db_fmt_size((int64_t)p->cost_spill, b2, sizeof b2));
    if (p->spill_hot_rows > 0)
        err |= line(rs, 0, "spill: hot rows: the %" PRId64 " rows of the nodes "
                    "with the most stored neighbours (%s) stay in memory, and "
                    "no run holds them: est. %.0f%% of a mini-batch's rows "
                    "(PRAGMA feature_cache sizes them)",
                    p->spill_hot_rows,
                    db_fmt_size(p->spill_hot_bytes, b4, sizeof b4),
                    100.0 * p->spill_hot_share);
    if (st && p->spill_hot_rows > 0)
        err |= line(rs, 1, "hot rows: %" PRIu64 " of %" PRIu64 " rows "
                    "gathered (%.1f%%) served from memory, not the spill area",
                    st->spill_hot_rows, st->gather.items,
                    st->gather.items ? 100.0 * (double)st->spill_hot_rows /
                                           (double)st->gather.items
                                     : 0.0);
    if (st && p->spill)
        err |= line(rs, 1, "spilled: %" PRIu64 " mini-batches, %s "
                    "written, %s read back (at most %s on disk at once), "
                    "%.3f s writing, %.3f s waiting for reads, %.3f s "
                    "ordering rows; %" PRIu64 " of %" PRIu64 " rounds built "
                    "while the one before was handed out",
                    st->spill_batches,
                    db_fmt_size((int64_t)st->spill_written, b1, sizeof b1),
                    db_fmt_size((int64_t)st->spill_read, b2, sizeof b2),
                    db_fmt_size((int64_t)st->spill_peak, b4, sizeof b4),
                    st->spill_write_seconds, st->spill_read_wait,
                    st->spill.cpu_seconds, st->overlapped,
                    st->hyperbatches);
    (void)b3;
    return err;
}

/* "all", "none" or "40%" of a file's blocks. */
static const char *kept_words(double f, char *b, size_t n)
{
    if (f >= 1) return "all";
    if (f <= 0) return "none";
    snprintf(b, n, "%.0f%%", f * 100);
    return b;
}

/* What memory_limit holds besides the data (memory.c) and the host's
** copies of batches (PRAGMA batch_copies). */
static int reserve_line(const plan *p, rowset *rs)
{
    char w[160], b1[32], b2[32];
    db_memory_words(&p->mem, w, sizeof w);
    if (p->copies_bytes > 0) {
        size_t n = strlen(w);
        snprintf(w + n, sizeof w - n, ", %s for the host's copies of batches",
                 db_fmt_size(p->copies_bytes, b2, sizeof b2));
    }
    return line(rs, 0, "outside the data: %s (data %s)", w,
                db_fmt_size(p->data_bytes, b1, sizeof b1));
}

/* How the graph's blocks and the feature table's are read. */
static int reads_line(const plan *p, rowset *rs)
{
    char g[160], f[160];
    db_read_words(&p->graph_read, g, sizeof g);
    if (!p->has_feat) return line(rs, 0, "reads: graph %s", g);
    db_read_words(&p->feat_read, f, sizeof f);
    return line(rs, 0, "reads: graph %s, feature table %s %s", g,
                p->feat.name, f);
}

/* The head of the plan: the statement, how memory_limit is divided, the row
** cache, and H. */
static int head_lines(const plan *p, rowset *rs)
{
    char b1[32], b2[32], b3[32], b4[32], b5[32];
    int err = 0;
    int64_t hbs = (p->total_batches + p->hyperbatch - 1) / p->hyperbatch;
    char ver[48] = "";   /* a graph appended to: the version read */
    if (p->graph_latest > 1)
        snprintf(ver, sizeof ver, " (version %" PRId64 " of %" PRId64 ")",
                 p->graph.version, p->graph_latest);
    err |= line(rs, 0, "SAMPLE FROM %s%s: %" PRId64 " mini-batches (%" PRId64
                " epochs x %" PRId64 "), seed %" PRIu64 "%s",
                p->graph.name, ver, p->total_batches, p->epochs,
                p->batches_per_epoch, p->seed,
                p->seed_drawn ? " (drawn)" : "");
    err |= line(rs, 0, "memory_limit %s: graph pool %s (%zu frames), "
                "feature pool %s (%zu frames), staged %s (about %s per mini-batch)",
                db_fmt_size(p->memory_limit, b1, sizeof b1),
                db_fmt_size(p->graph_pool_bytes, b2, sizeof b2), p->graph_frames,
                db_fmt_size(p->feat_pool_bytes, b3, sizeof b3), p->feat_frames,
                db_fmt_size(p->staged_bytes, b4, sizeof b4),
                db_fmt_size(p->per_batch_bytes, b5, sizeof b5));
    err |= reserve_line(p, rs);
    err |= reads_line(p, rs);
    err |= line(rs, 0, "pools keep %s of the graph's blocks and %s of the "
                "feature blocks between rounds%s",
                kept_words(p->graph_resident, b1, sizeof b1),
                kept_words(p->feat_resident, b2, sizeof b2),
                p->graph_resident >= 1 && (p->feat_resident >= 1 ||
                                           !p->feat_frames)
                    ? ": the database is read once" : "");
    if (p->cache_policy == GNN_CACHE_HOT_BLOCKS)
        err |= line(rs, 0, "feature cache %s: %" PRId64 " blocks pinned, "
                    "policy hot_blocks (the blocks of the nodes with the "
                    "most stored neighbours)",
                    db_fmt_size(p->cache_bytes, b1, sizeof b1),
                    p->cache_blocks);
    else if (p->cache_policy != GNN_CACHE_NONE)
        err |= line(rs, 0, "feature cache %s: %" PRId64 " rows, policy %s%s",
                    db_fmt_size(p->cache_bytes, b1, sizeof b1), p->cache_rows,
                    fc_policy_name(p->cache_policy),
                    p->cache_policy == GNN_CACHE_BELADY
                        ? " (the next hyperbatch is sampled ahead)" : "");
    err |= line(rs, 0, "HYPERBATCH %" PRId64 "%s%s%s (%" PRId64
                " hyperbatches)", p->hyperbatch,
                p->note[0] ? " (" : "", p->note, p->note[0] ? ")" : "", hbs);
    return err;
}

/* A typed plan's feature tables, "paper.feat (8 x float32), ...", then
** its relations' edge feature tables, "edges of writes: w (4 x float32)";
** 0 when it has none. */
static int typed_tables(const plan *p, char *b, size_t n)
{
    size_t o = 0;
    b[0] = 0;
    for (int t = 0; t < p->ntypes; t++) {
        const cat_table *f = &p->types[t].feat;
        if (!p->types[t].has_feat || o >= n) continue;
        o += (size_t)snprintf(b + o, n - o, "%s%s (%u x %s)", o ? ", " : "",
                              f->name, f->dim, blk_dtype_name(f->dtype));
    }
    for (int r = 0; p->typed_efeat && r < p->nrels; r++) {
        const cat_table *f = &p->rels[r].efeat;
        if (!p->rels[r].has_efeat || o >= n) continue;
        o += (size_t)snprintf(b + o, n - o, "%sedges of %s: %s (%u x %s)",
                              o ? ", " : "", p->rels[r].name, f->name, f->dim,
                              blk_dtype_name(f->dtype));
    }
    return o > 0;
}

/* The gather operator at depth d: its table, the estimate, whole blocks or
** pages, and after a run what it read and what the row cache spared. */
static int gather_lines(const plan *p, const hb_stats *st, const cm_est *est,
                        int d, rowset *rs)
{
    char b1[32], tabs[2048];
    int err = 0;
    if (p->has_feat)
        err |= line(rs, d, "-> gather %s (%u x %s, %" PRId64 " blocks of %s, "
                    "%u rows each)%s: est. %.0f blocks per hyperbatch",
                    p->feat.name, p->feat.dim, blk_dtype_name(p->feat.dtype),
                    p->feat.nblocks,
                    db_fmt_size(p->feat.block_size, b1, sizeof b1),
                    p->feat.rows_per_block, p->has_labels ? " + labels" : "",
                    p->feat_blocks_est_hb);
    else if (p->typed && typed_tables(p, tabs, sizeof tabs))
        err |= line(rs, d, "-> gather %s%s", tabs,
                    p->has_labels ? " + labels" : "");
    else
        err |= line(rs, d, "-> gather%s", p->has_labels ? " labels" : " (no features)");
    if (p->has_feat || p->has_labels) err |= estimate(rs, d + 1, &est->gather);
    if (p->has_feat) err |= gran_line(rs, d + 1, p, &est->gather_gran);
    if (st) err |= actual(rs, d + 1, &st->gather);
    if (st && st->gather.partial_blocks)
        err |= pages_actual(rs, d + 1, &st->gather);
    if (st && p->cache_policy != GNN_CACHE_NONE) {
        uint64_t n = st->cache_hits + st->cache_misses;
        err |= line(rs, d + 1, "feature cache: hits %" PRIu64 ", misses %"
                    PRIu64 " rows (%.1f%% hit), %" PRIu64 " blocks saved, %"
                    PRIu64 " blocks read to fill it",
                    st->cache_hits, st->cache_misses,
                    n ? 100.0 * (double)st->cache_hits / (double)n : 0.0,
                    st->cache_blocks_saved, st->cache_fill_blocks);
    }
    return err;
}

/* What hop h of a typed plan samples, by target type: "cites 10, writes 5
** (paper <- paper, author); written_by all (author <- paper)", each
** target's relations in catalog order and their source types once each. */
static void typed_hop(const plan *p, int h, char *b, size_t n)
{
    size_t o = 0;
    b[0] = 0;
#define PUT(...) \
    (o += (size_t)snprintf(b + o, o < n ? n - o : 0, __VA_ARGS__))
    for (int t = 0; t < p->ntypes; t++) {
        uint64_t srcs = 0;
        int k = 0;
        for (int r = 0; r < p->nrels; r++) {
            const plan_rel *rl = &p->rels[r];
            int f = rl->fanout[h];
            if (rl->dst != t || !f) continue;
            PUT("%s%s ", k++ ? ", " : o ? "; " : "", rl->name);
            if (f < 0) PUT("all");
            else PUT("%d", f);
            srcs |= 1ull << rl->src;
        }
        if (!k) continue;
        PUT(" (%s <-", p->types[t].name);
        for (int u = 0, j = 0; u < p->ntypes && u < 64; u++)
            if (srcs >> u & 1) PUT("%s %s", j++ ? "," : "", p->types[u].name);
        PUT(")");
    }
    if (!o) PUT("nothing");
#undef PUT
}

/* The sample operators, the last hop at depth d and each earlier one a
** level deeper, as each samples from the nodes the one before reached. */
static int hop_lines(const plan *p, const hb_stats *st, const cm_est *est,
                     int d, rowset *rs)
{
    int err = 0;
    for (int h = p->nhops - 1; h >= 0; h--, d++) {
        char what[700];
        if (p->typed) typed_hop(p, h, what, sizeof what);
        else snprintf(what, sizeof what, " fanout %d", p->fanouts[h]);
        err |= line(rs, d, "-> sample hop %d%s%s%s: est. %.0f edges, "
                    "%.0f new nodes per mini-batch; %.0f of %" PRId64
                    " graph blocks per hyperbatch",
                    h + 1, p->typed ? ": " : "", what,
                    p->replace ? " with replacement" : "",
                    p->edges_est[h], p->nodes_est[h + 1], p->blocks_est_hb[h],
                    p->topo.graph_blocks);
        err |= estimate(rs, d + 1, &est->hop[h]);
        err |= hop_gran_line(rs, d + 1, p, &est->hop_gran[h]);
        if (st) err |= actual(rs, d + 1, &st->hop[h]);
        if (st && st->hop[h].partial_blocks)
            err |= pages_actual(rs, d + 1, &st->hop[h]);
    }
    return err;
}

/* A time-respecting SAMPLE's rule, under its scan: where the seeds' times
** come from and which edges each hop keeps. */
static int time_line(const plan *p, int d, rowset *rs)
{
    char win[64] = "";
    if (p->time_window > 0)
        snprintf(win, sizeof win, " and T - %" PRId64 " < t",
                 p->time_window);
    const char *from =
        p->time_source == AST_TIME_EDGE ? "each root's T its seed edge's time"
        : p->time_source == AST_TIME_NODE ? "each seed's T from its node time"
        : p->link ? "each root's T its seed edge's from AT TIMES"
                  : "each seed's T from AT TIMES";
    return line(rs, d, "time: %s; every hop keeps edges with t %s T%s (the "
                "root's T; t %s), %s; a tree per %s", from,
                p->time_strict ? "<" : "<=", win,
                p->time_by_node ? "its source's node time" : "the edge's time",
                p->time_strategy == AST_TEMPORAL_LAST ? "the latest k"
                                                      : "k drawn uniformly",
                p->link ? "endpoint slot" : "seed");
}

/* An edge-seeded SAMPLE's leaf: its seed edges, negatives and what it
** excludes, and the endpoints its hops start from. */
static int link_lines(const plan *p, int d, rowset *rs)
{
    static const char *const modes[] = {"source kept, destination drawn",
                                        "both ends drawn (PAIRS)",
                                        "TRIPLET, destinations drawn"};
    char ex[300] = "";
    size_t o = 0;
    if (p->exclude_seeds)
        o += (size_t)snprintf(ex + o, sizeof ex - o, "; excludes its seeds");
    for (size_t i = 0; i < p->nexclude && o < sizeof ex; i++)
        o += (size_t)snprintf(ex + o, sizeof ex - o, "%s%s",
                              i ? ", " : "; excludes split ",
                              p->exclude[i].name);
    int err = line(rs, d, "-> scan edges %s: %" PRId64 " seed edges, BATCH %"
                   PRId64 ", %s order%s", p->edge_split.name, p->nseeds,
                   p->batch, p->shuffle ? "shuffled" : "ascending", ex);
    if (p->negative)
        err |= line(rs, d + 1, "negatives: %" PRId64 " per seed edge, %s%s",
                    p->negative, modes[p->neg_mode],
                    p->neg_strict ? ", STRICT (none is an edge)" : "");
    err |= line(rs, d + 1, "endpoints: at most %" PRId64 " per mini-batch, "
                "the hops' seeds", plan_seed_nodes(p));
    if (p->part_count > 1)
        err |= line(rs, d + 1, "partition %" PRId64 " of %" PRId64
                    ": this rank's share of %" PRId64 " seed edges per "
                    "epoch", p->part_rank, p->part_count, p->nseeds_all);
    if (p->temporal) err |= time_line(p, d + 1, rs);
    return err;
}

/* The scan of the seeds at depth d, the leaf of the tree. */
static int scan_lines(const plan *p, int d, rowset *rs)
{
    if (p->link) return link_lines(p, d, rs);
    int err = 0;
    char all[CAT_NAME_MAX + 16] = "all nodes";
    if (p->typed)
        snprintf(all, sizeof all, "all %s nodes",
                 p->types[p->seed_type].name);
    const char *src = p->seeds_kind == AST_SEEDS_SPLIT ? "split"
                      : p->seeds_kind == AST_SEEDS_LIST ? "list"
                      : p->seeds_kind == AST_SEEDS_ORDERED ? "list in order"
                                                           : all;
    err |= line(rs, d, "-> scan %s%s%s: %" PRId64 " seeds, BATCH %" PRId64
                ", %s order",
                src, p->seeds_kind == AST_SEEDS_SPLIT ? " " : "",
                p->seeds_kind == AST_SEEDS_SPLIT ? p->split.name : "",
                p->nseeds, p->batch, p->shuffle ? "shuffled"
                : p->seeds_kind == AST_SEEDS_ORDERED ? "listed" : "ascending");
    if (p->part_count > 1)
        err |= line(rs, d + 1, "partition %" PRId64 " of %" PRId64
                    ": this rank's share of %" PRId64 " seeds per epoch",
                    p->part_rank, p->part_count, p->nseeds_all);
    if (p->temporal)
        err |= time_line(p, d + 1, rs);
    return err;
}

/* After a run: what it did in all, and the estimate beside it. */
static int total_lines(const plan *p, const hb_stats *st, const cm_est *est,
                       rowset *rs)
{
    int err = 0;
    err |= line(rs, 0, "total: %" PRIu64 " mini-batches in %" PRIu64
                " hyperbatches, %.3f s, %" PRIu64 " sampled edges, %" PRIu64
                " nodes%s",
                st->batches, st->hyperbatches, st->seconds, st->edges,
                st->nodes, st->shrunk ? "; some hyperbatches were cut "
                                        "short to stay within memory_limit"
                                      : "");
    if (st->resident_rounds)
        err |= line(rs, 0, "%" PRIu64 " of the hyperbatches built from "
                    "resident blocks, a mini-batch a task",
                    st->resident_rounds);
    /* blocks read whole or in part, as the estimate counts them */
    uint64_t blocks = st->gather.blocks_read + st->gather.partial_blocks;
    uint64_t bytes = st->gather.bytes_read;
    for (int h = 0; h < p->nhops; h++) {
        blocks += st->hop[h].blocks_read + st->hop[h].partial_blocks;
        bytes += st->hop[h].bytes_read;
    }
    err |= batch_line(p, st, rs);
    char b6[32], b7[32];
    err |= line(rs, 0, "estimated vs actual: blocks read %.0f vs %" PRIu64
                ", bytes %s vs %s, %.3g s vs %.3g s, %.1f vs %.1f "
                "batches/s",
                est->total.blocks, blocks,
                db_fmt_size((int64_t)est->total.bytes, b6, sizeof b6),
                db_fmt_size((int64_t)bytes, b7, sizeof b7),
                est->total.seconds, st->seconds, est->batches_per_s,
                st->seconds > 0 ? (double)st->batches / st->seconds : 0);
    return err;
}

/* After a run: the most resident bytes the executor's checks saw against
** memory_limit, and the bytes read by the first epoch and by each later
** one (a database the pools hold is read once: the later ones read
** nothing). */
static int memory_line(const plan *p, const hb_stats *st, rowset *rs)
{
    char b1[32], b2[32], b3[32], b4[32];
    uint64_t all = hb_bytes_read(st);
    int64_t later = st->epochs_begun - 1;
    uint64_t first = later > 0 ? st->epoch0_read : all;
    int err = line(rs, 0, "memory: peak resident %s of memory_limit %s "
                   "(at the executor's checks, above the host's baseline)",
                   db_fmt_size(GNN_MAX(0, st->rss_peak - p->mem.base), b1,
                               sizeof b1),
                   db_fmt_size(p->memory_limit, b2, sizeof b2));
    if (later > 0)
        err |= line(rs, 0, "read: %s in the first epoch, %s in each later "
                    "one on average (%" PRId64 " more)",
                    db_fmt_size((int64_t)first, b3, sizeof b3),
                    db_fmt_size((int64_t)((all - first) / (uint64_t)later), b4,
                                sizeof b4), later);
    return err;
}

/* The plan, then its operators top down, each with its estimate and, after
** a run (st not NULL), what it did. */
int explain_rows(const plan *p, const hb_stats *st, rowset *rs)
{
    cm_layout lay;
    cm_est est;
    cm_layout_of(p, &lay);
    cm_estimate(p, &p->profile, &lay, &est);
    int err = head_lines(p, rs);
    if (st) err |= memory_line(p, st, rs);
    err |= spill_line(p, st, rs);
    err |= cost_lines(p, &est, rs);
    err |= explain_transfer(p, st, rs);
    err |= gather_lines(p, st, &est, 1, rs);
    err |= hop_lines(p, st, &est, 2, rs);
    err |= scan_lines(p, 2 + p->nhops, rs);
    if (st) err |= total_lines(p, st, &est, rs);
    return err ? -1 : 0;
}
