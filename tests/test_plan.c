/* test_plan.c — the planner's contract (engine/plan.c): a SAMPLE is parsed
** and planned on cora with plan_build, and what it decides is checked
** against docs/architecture.md and against the public API:
**   - memory: memory_limit less what lies outside the data (the process's
**     resident bytes at prepare above its baseline, the threads, the
**     kernel's share, the host's copies of batches) is the data's; each
**     buffer pool has at least 4 frames and, beyond 4, never more frames
**     than its file has blocks; a pool that holds its whole file keeps all
**     of it between rounds; the row cache takes at most half of what the
**     pools leave, and pools + cache + staged mini-batches stay within the
**     data's share; when the database fits beside the staged mini-batches
**     the pools hold all of it;
**   - HYPERBATCH: what was asked, capped at one epoch (1024 by default),
**     shrunk to the most staged mini-batches that fit (halved for belady),
**     or spilled, as PRAGMA spill says; the executor runs at most the
**     plan's H; a spilled round's read-back (the round's records, one
**     batch's topology and the run handed out, in its buffer) fits what
**     the plan stages;
**   - a memory_limit too small for one mini-batch fails with GNNDB_NOMEM
**     and words naming memory_limit and BATCH, before any batch; one that
**     leaves less than a third of a mini-batch's estimate, at prepare;
**   - batches per epoch and in all, with EPOCHS, LIMIT and PARTITION,
**     against the arithmetic done here and the batches the run returns;
**   - the per-hop estimates of new nodes and sampled edges per mini-batch
**     within 25% (first hop) and a factor of 3 (later hops) of the means
**     measured by sampling cora through the public API (shuffled seeds of
**     the whole graph, as the estimate assumes uniform seeds); WITH
**     REPLACEMENT only never below the truth (see that test); and the
**     per-batch bounds never exceeded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gnndb.h"
#include "util.h"
#include "../engine/plan.h"
#include "../exec/fcache.h"
#include "../parser/parse.h"

#define MIB (1ll << 20)

static void exec_ok(gnndb *h, const char *sql)
{
    if (gnndb_exec(h, sql, NULL, NULL))
        fail_msg("%s\n-> %s", sql, gnndb_errmsg(h));
}

/* Parse and plan one SAMPLE; the plan's code, its words in *e. */
static int plan_sql(gnndb *h, const char *sql, plan *p, gnn_err *e)
{
    ast_stmt *s = NULL;
    size_t used;
    memset(e, 0, sizeof *e);
    int rc = parse_statement(sql, strlen(sql), 1, &s, &used, e);
    if (rc) fail_msg("%s\n-> %s", sql, e->msg);
    assert_non_null(s);
    rc = plan_build(h, s, p, e);
    ast_free(s);
    return rc;
}

static void plan_ok(gnndb *h, const char *sql, plan *p)
{
    gnn_err e;
    if (plan_sql(h, sql, p, &e)) fail_msg("%s\n-> %s", sql, e.msg);
}

/* The settings every test starts from, whatever the last one left. */
static void defaults(gnndb *h)
{
    exec_ok(h, "PRAGMA memory_limit = '1GB'; PRAGMA spill = 'auto';"
               "PRAGMA cache_policy = 'none'; PRAGMA feature_cache = 'auto';");
}

static int setup(void **state)
{
    tu_db *d = calloc(1, sizeof *d);
    if (tu_db_open(d, "plan") || tu_import_cora(d->h)) return -1;
    *state = d;
    return 0;
}

static int teardown(void **state)
{
    tu_db_close(*state);
    free(*state);
    return 0;
}

/* ---------- memory ---------- */

static void check_memory(const plan *p, const char *what)
{
    const mem_reserve *r = &p->mem;
    assert_int_equal(r->limit, p->memory_limit);
    assert_int_equal(r->data, r->limit - r->process - r->threads - r->kernel);
    assert_true(r->process >= 0 && r->threads > 0 && r->kernel > 0);
    assert_int_equal(p->data_bytes, r->data - p->copies_bytes);
    int64_t gbs = p->graph.block_size, fbs = p->feat.block_size;
    /* at least 4 frames each, never, beyond 4, more than the file's blocks */
    assert_true(p->graph_frames >= 4);
    assert_true((int64_t)p->graph_frames <= (p->graph.graph_blocks > 4 ? p->graph.graph_blocks : 4));
    assert_int_equal(p->graph_pool_bytes, (int64_t)p->graph_frames * gbs);
    int64_t fblocks = p->feat.nblocks + p->labels.nblocks;
    assert_true(p->feat_frames >= 4);
    assert_true((int64_t)p->feat_frames <= (fblocks > 4 ? fblocks : 4));
    assert_int_equal(p->feat_pool_bytes, (int64_t)p->feat_frames * fbs);
    /* a pool that holds its whole file keeps all of it */
    if ((int64_t)p->graph_frames >= p->graph.graph_blocks)
        assert_true(p->graph_resident == 1.0);
    if ((int64_t)p->feat_frames >= fblocks) assert_true(p->feat_resident == 1.0);
    assert_true(p->graph_resident >= 0 && p->graph_resident <= 1);
    assert_true(p->feat_resident >= 0 && p->feat_resident <= 1);
    /* the cache takes at most half of what the pools leave */
    int64_t left = p->data_bytes - p->graph_pool_bytes - p->feat_pool_bytes;
    assert_true(p->cache_bytes <= left / 2);
    assert_true(p->cache_bytes >= 0 && p->staged_bytes > 0);
    /* everything within the data's share of the limit */
    int64_t sum = p->graph_pool_bytes + p->feat_pool_bytes + p->cache_bytes +
                  p->staged_bytes;
    if (sum > p->data_bytes)
        fail_msg("%s: pools %" PRId64 " + %" PRId64 ", cache %" PRId64
                 ", staged %" PRId64 " exceed the data's %" PRId64 " of "
                 "memory_limit %" PRId64, what, p->graph_pool_bytes,
                 p->feat_pool_bytes, p->cache_bytes, p->staged_bytes,
                 p->data_bytes, p->memory_limit);
    /* H within its cap; in memory, H staged mini-batches (2H for belady,
    ** which samples one hyperbatch ahead) fit, and one more would not
    ** unless H reached its cap */
    assert_true(p->hyperbatch >= 1 && p->hyperbatch <= p->hyperbatch_cap);
    if (!p->spill) {
        int64_t k = p->cache_policy == GNN_CACHE_BELADY ? 2 : 1;
        assert_true(p->hyperbatch == 1 ||
                    k * p->hyperbatch * p->per_batch_bytes <= p->staged_bytes);
        if (p->hyperbatch < p->hyperbatch_cap)
            assert_true(k * (p->hyperbatch + 1) * p->per_batch_bytes >
                        p->staged_bytes);
    }
}

static void pools_cache_and_staged_fit_memory_limit(void **state)
{
    tu_db *d = *state;
    defaults(d->h);
    static const char *const limits[] = {"16MB", "40MB", "128MB", "1GB", "4GB"};
    static const char *const pols[] = {"none", "lru", "belady"};
    static const char *const qs[] = {
        "SAMPLE 10,10 FROM cora BATCH 64 SEED 1;",
        "SAMPLE 25,10 FROM cora SEEDS train BATCH 32 SEED 1;",
        "SAMPLE 5,5,5 FROM cora BATCH 16 HYPERBATCH 4 SEED 1;",
        "SAMPLE -1 FROM cora BATCH 8 HYPERBATCH 5000 SEED 1;",
    };
    for (int l = 0; l < 5; l++)
        for (int c = 0; c < 3; c++)
            for (int q = 0; q < 4; q++) {
                char sql[256], what[256];
                snprintf(sql, sizeof sql, "PRAGMA memory_limit = '%s'; PRAGMA "
                         "cache_policy = '%s'; PRAGMA spill = 'off';",
                         limits[l], pols[c]);
                exec_ok(d->h, sql);
                snprintf(what, sizeof what, "%s %s %s", limits[l], pols[c], qs[q]);
                plan p;
                plan_ok(d->h, qs[q], &p);
                check_memory(&p, what);
                plan_free(&p);
            }
    /* a cache asked for beyond half of what the pools leave (32 MiB less
    ** 8 MiB of pools: 12 MiB) is refused, one below it granted in whole
    ** rows */
    exec_ok(d->h, "PRAGMA memory_limit = '32MB'; PRAGMA cache_policy = 'lru';"
                  "PRAGMA feature_cache = '10MB';");
    plan p;
    plan_ok(d->h, qs[0], &p);
    assert_int_equal(p.graph_pool_bytes + p.feat_pool_bytes, 8 * MIB);
    assert_int_equal(p.cache_rows, 10 * MIB / (1433 * 4 + GNN_CACHE_ROW_OVERHEAD));
    check_memory(&p, "32MB lru 10MB");
    plan_free(&p);
    exec_ok(d->h, "PRAGMA feature_cache = '14MB';");
    gnn_err e;
    assert_int_equal(plan_sql(d->h, qs[0], &p, &e), GNNDB_NOMEM);
    assert_non_null(strstr(e.msg, "feature_cache"));
    plan_free(&p);
    exec_ok(d->h, "PRAGMA memory_limit = '1GB'; PRAGMA cache_policy = 'none'; "
                  "PRAGMA feature_cache = 'auto'; PRAGMA spill = 'auto';");
}

/* Bytes a SAMPLE reads from the database in all (blocks and pages). */
static int64_t bytes_read(gnndb *h, const char *sql)
{
    gnndb_stmt *st;
    if (gnndb_prepare(h, sql, -1, &st, NULL)) fail_msg("%s", gnndb_errmsg(h));
    int rc;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) {}
    assert_int_equal(rc, GNNDB_DONE);
    int64_t b = gnndb_stmt_status(st, GNNDB_STATUS_BYTES_READ);
    gnndb_finalize(st);
    return b;
}

/* When the database fits beside the staged mini-batches the pools hold all
** of it: each block is read once, and a second epoch reads nothing. */
static void database_that_fits_is_read_once(void **state)
{
    tu_db *d = *state;
    defaults(d->h);
    plan p;
    plan_ok(d->h, "SAMPLE 10,10 FROM cora BATCH 64 SHUFFLE SEED 3 EPOCHS 2;",
            &p);
    assert_true(p.graph_resident == 1.0 && p.feat_resident == 1.0);
    assert_true((int64_t)p.graph_frames >= p.graph.graph_blocks);
    assert_true((int64_t)p.feat_frames >= p.feat.nblocks + p.labels.nblocks);
    check_memory(&p, "1GB, the database fits");
    plan_free(&p);
    /* HYPERBATCH 8: several rounds an epoch, each reading again what the
    ** pools would not keep */
    int64_t one = bytes_read(d->h, "SAMPLE 10,10 FROM cora FEATURES feat "
                             "BATCH 64 HYPERBATCH 8 SHUFFLE SEED 3 EPOCHS 2 "
                             "LIMIT 43;");
    int64_t two = bytes_read(d->h, "SAMPLE 10,10 FROM cora FEATURES feat "
                             "BATCH 64 HYPERBATCH 8 SHUFFLE SEED 3 EPOCHS 2;");
    print_message("first epoch read %" PRId64 " B, both %" PRId64 " B\n", one,
                  two);
    assert_true(one > 0);
    assert_true((two - one) * 100 < one);
}

/* ---------- HYPERBATCH ---------- */

/* The HYPERBATCH the executor reports after its first batch. */
static int64_t run_hyperbatch(gnndb *h, const char *sql)
{
    gnndb_stmt *st;
    if (gnndb_prepare(h, sql, -1, &st, NULL)) fail_msg("%s", gnndb_errmsg(h));
    assert_int_equal(gnndb_step(st), GNNDB_BATCH);
    int64_t hb = gnndb_stmt_status(st, GNNDB_STATUS_HYPERBATCH);
    gnndb_finalize(st);
    return hb;
}

static void hyperbatch_asked_capped_shrunk_or_spilled(void **state)
{
    tu_db *d = *state;
    plan p;
    defaults(d->h);
    /* 2708 seeds in batches of 64: 43 a epoch */
    plan_ok(d->h, "SAMPLE 10,10 FROM cora BATCH 64 SEED 1;", &p);
    assert_int_equal(p.batches_per_epoch, 43);
    /* the pools hold the whole database: rounds of 4 mini-batches a
    ** thread, however many memory holds (up to 1024 otherwise) */
    assert_true(plan_resident(&p));
    assert_int_equal(p.hyperbatch, 4 * p.threads < 43 ? 4 * p.threads : 43);
    assert_int_equal(p.spill, 0);
    assert_non_null(strstr(p.note, "a thread"));
    plan_free(&p);
    exec_ok(d->h, "PRAGMA cache_policy = 'lru';");
    plan_ok(d->h, "SAMPLE 10,10 FROM cora BATCH 64 SEED 1;", &p);
    assert_false(plan_resident(&p));
    assert_int_equal(p.hyperbatch, 43);       /* the default: up to 1024 */
    assert_string_equal(p.note, "");
    plan_free(&p);
    plan_ok(d->h, "SAMPLE 10,10 FROM cora BATCH 64 HYPERBATCH 900 SEED 1;", &p);
    assert_int_equal(p.hyperbatch, 43);       /* never beyond one epoch */
    plan_free(&p);
    /* nor beyond the statement: a round costed over more mini-batches
    ** than LIMIT runs looked cheaper than it was */
    plan_ok(d->h, "SAMPLE 10,10 FROM cora BATCH 64 HYPERBATCH 900 SEED 1 "
                  "LIMIT 10;", &p);
    assert_int_equal(p.hyperbatch, 10);
    assert_string_equal(p.note, "");
    plan_free(&p);
    exec_ok(d->h, "PRAGMA cache_policy = 'none';");
    plan_ok(d->h, "SAMPLE 10,10 FROM cora BATCH 64 HYPERBATCH 4 SEED 1;", &p);
    assert_int_equal(p.hyperbatch, 4);
    plan_free(&p);
    /* asked for more, a resident plan still takes 4 a thread, in memory */
    plan_ok(d->h, "SAMPLE 10,10 FROM cora BATCH 64 HYPERBATCH 900 SEED 1;", &p);
    assert_int_equal(p.hyperbatch, 4 * p.threads < 43 ? 4 * p.threads : 43);
    assert_int_equal(p.spill, 0);
    plan_free(&p);
    assert_int_equal(run_hyperbatch(d->h, "SAMPLE 10,10 FROM cora BATCH 64 "
                                    "HYPERBATCH 4 SEED 1 LIMIT 8;"), 4);

    /* 64MB: the pools take 12 MiB, a mini-batch of 1433 float features
    ** about 9 MiB of staging: a few fit */
    exec_ok(d->h, "PRAGMA memory_limit = '64MB'; PRAGMA spill = 'off';");
    const char *q = "SAMPLE 10,10 FROM cora BATCH 64 SEED 1 HYPERBATCH 43;";
    plan_ok(d->h, q, &p);
    int64_t shrunk = p.hyperbatch;
    print_message("64MB: H %" PRId64 " of %" PRId64 " (%" PRId64 " B a "
                  "mini-batch, %" PRId64 " B staged): %s\n", p.hyperbatch,
                  p.hyperbatch_cap, p.per_batch_bytes, p.staged_bytes, p.note);
    assert_true(shrunk > 1 && shrunk < 43);
    assert_int_equal(shrunk, p.staged_bytes / p.per_batch_bytes);
    assert_non_null(strstr(p.note, "reduced from 43"));
    assert_int_equal(p.spill, 0);
    plan_free(&p);
    assert_true(run_hyperbatch(d->h, q) <= shrunk);
    /* belady stages the next hyperbatch too: half as many */
    exec_ok(d->h, "PRAGMA cache_policy = 'belady'; PRAGMA feature_cache = 0;");
    plan_ok(d->h, q, &p);
    assert_int_equal(p.hyperbatch, shrunk / 2 > 1 ? shrunk / 2 : 1);
    plan_free(&p);
    exec_ok(d->h, "PRAGMA cache_policy = 'none'; PRAGMA feature_cache = 'auto';");
    /* spill 'auto': HYPERBATCH 43 asks for more than memory holds. The
    ** pools keep every block here, so a round reads nothing again and stays
    ** in memory, shrunk; read in pages, blocks stay out of the pools, and
    ** the round goes through the spill area; 'on' always spills */
    exec_ok(d->h, "PRAGMA spill = 'auto';");
    plan_ok(d->h, q, &p);
    assert_true(plan_resident(&p));
    assert_int_equal(p.spill, 0);
    assert_int_equal(p.hyperbatch, p.staged_bytes / p.per_batch_bytes);
    plan_free(&p);
    static const char *const modes[] = {
        "PRAGMA spill = 'auto'; PRAGMA read_granularity = 'page';",
        "PRAGMA spill = 'on'; PRAGMA read_granularity = 'auto';"};
    for (int i = 0; i < 2; i++) {
        exec_ok(d->h, modes[i]);
        plan_ok(d->h, q, &p);
        assert_int_equal(p.spill, 1);
        assert_true(p.hyperbatch > p.hyperbatch_inmem && p.hyperbatch <= 43);
        assert_true(p.hyperbatch_inmem >= 1 && p.hyperbatch_inmem <= shrunk + 1);
        assert_non_null(strstr(p.note, "spill"));
        plan_free(&p);
    }
    exec_ok(d->h, "PRAGMA memory_limit = '1GB'; PRAGMA spill = 'auto';");
}

/* A spilled round's read-back holds, at once, the records of its H
** mini-batches, the topology of the one being finished and the run handed
** out, in a buffer a sixteenth larger than the run (hb_readback.c): all of
** it must fit what the plan stages, hot rows or not. The planner once
** weighed the run alone: at 128 MiB on R-MAT scale 21 the read-back took
** the process past memory_limit. Swept over limits a megabyte apart, with
** the spill forced and BATCH sizes whose runs reach the staged bytes. */
static void spilled_read_back_fits_what_is_staged(void **state)
{
    tu_db *d = *state;
    defaults(d->h);
    int spilled = 0, hot = 0;
    exec_ok(d->h, "PRAGMA spill = 'on'; PRAGMA read_granularity = 'page';");
    for (int batch = 64; batch <= 256; batch *= 2)
        for (int mib = 20; mib <= 96; mib++) {
            char sql[160];
            snprintf(sql, sizeof sql, "PRAGMA memory_limit = '%dMB';", mib);
            exec_ok(d->h, sql);
            snprintf(sql, sizeof sql, "SAMPLE 10,10 FROM cora BATCH %d SEED 1 "
                                      "HYPERBATCH 43;", batch);
            plan p;
            gnn_err e;
            if (plan_sql(d->h, sql, &p, &e)) continue;   /* too small: refused */
            if (p.spill) {
                double rec = p.spill_rec_est - (double)p.spill_wbuf;
                double held = (double)p.hyperbatch * rec + p.spill_topo_est +
                              p.run_bytes_est * 17.0 / 16.0;
                if (held > (double)p.staged_bytes)
                    fail_msg("%dMB, BATCH %d: H %" PRId64 " reads back %.0f B "
                             "(run %.0f B) beside %" PRId64 " B staged", mib,
                             batch, p.hyperbatch, held, p.run_bytes_est,
                             p.staged_bytes);
                spilled++;
                hot += p.spill_hot_rows > 0;
            }
            plan_free(&p);
        }
    print_message("%d spilled plans, %d with hot rows\n", spilled, hot);
    assert_true(spilled > 20 && hot > 0);
    defaults(d->h);
}

/* ---------- too little memory ---------- */

static void memory_limit_below_one_batch_is_a_clear_error(void **state)
{
    tu_db *d = *state;
    defaults(d->h);
    /* 20MB: the pools take 8 MiB; BATCH 2708's seeds alone need ~19 MiB */
    exec_ok(d->h, "PRAGMA memory_limit = '20MB';");
    static const char *const bad[] = {
        "SAMPLE 10,10 FROM cora BATCH 2708 SEED 1;",
        "SAMPLE 10 FROM cora BATCH 2000 HYPERBATCH 1 SEED 1;",
    };
    for (int i = 0; i < 2; i++) {
        plan p;
        gnn_err e;
        assert_int_equal(plan_sql(d->h, bad[i], &p, &e), GNNDB_NOMEM);
        plan_free(&p);
        assert_non_null(strstr(e.msg, "memory_limit 20.0 MiB"));
        assert_non_null(strstr(e.msg, "BATCH"));
        /* through the API: refused before any batch, and the same words */
        gnndb_stmt *st = NULL;
        int rc = gnndb_prepare(d->h, bad[i], -1, &st, NULL);
        if (rc == GNNDB_OK) {
            rc = gnndb_step(st);
            assert_null(gnndb_batch(st));
        }
        assert_int_equal(rc, GNNDB_NOMEM);
        if (!strstr(gnndb_errmsg(d->h), "memory_limit") ||
            !strstr(gnndb_errmsg(d->h), "BATCH"))
            fail_msg("unclear: %s", gnndb_errmsg(d->h));
        gnndb_finalize(st);
    }
    /* one whose mini-batch stages over three times what the limit leaves
    ** is refused by prepare itself, naming both */
    static const char *const big = "SAMPLE 10,10 FROM cora FEATURES feat "
                                   "BATCH 512 SEED 1;";
    plan q;
    gnn_err e2;
    exec_ok(d->h, "PRAGMA memory_limit = '14MB';");
    int r2 = plan_sql(d->h, big, &q, &e2);
    if (r2 == GNNDB_OK || q.staged_bytes * 3 >= q.per_batch_bytes)
        fail_msg("14MB: rc %d, %lld B staged for %lld B a mini-batch", r2,
                 (long long)q.staged_bytes, (long long)q.per_batch_bytes);
    plan_free(&q);
    gnndb_stmt *st = NULL;
    assert_int_equal(gnndb_prepare(d->h, big, -1, &st, NULL), GNNDB_NOMEM);
    assert_null(st);
    if (!strstr(gnndb_errmsg(d->h), "stages about") ||
        !strstr(gnndb_errmsg(d->h), "for staging"))
        fail_msg("unclear: %s", gnndb_errmsg(d->h));
    exec_ok(d->h, "PRAGMA memory_limit = '20MB';");
    /* a smaller batch fits the same limit */
    plan p;
    plan_ok(d->h, "SAMPLE 10,10 FROM cora BATCH 64 SEED 1;", &p);
    plan_free(&p);
    exec_ok(d->h, "PRAGMA memory_limit = '1GB';");
}

/* ---------- batches ---------- */

static void batches_per_epoch_limit_and_partition(void **state)
{
    tu_db *d = *state;
    defaults(d->h);
    static const struct {
        const char *clauses;
        int64_t seeds, batch, epochs, limit;
    } cases[] = {
        {"SEEDS train BATCH 16", 140, 16, 1, -1},
        {"SEEDS train BATCH 16 EPOCHS 3 LIMIT 20", 140, 16, 3, 20},
        {"SEEDS train BATCH 16 EPOCHS 3 LIMIT 50", 140, 16, 3, 50},
        {"SEEDS train BATCH 140 EPOCHS 2", 140, 140, 2, -1},
        {"SEEDS train BATCH 1000", 140, 1000, 1, -1},
        {"BATCH 1000 EPOCHS 2", 2708, 1000, 2, -1},
        {"SEEDS (5, 9, 1, 2000, 7) BATCH 2", 5, 2, 1, -1},
        /* shares of 140: 46, 47, 47 */
        {"SEEDS train BATCH 16 EPOCHS 2 PARTITION 0 OF 3", 46, 16, 2, -1},
        {"SEEDS train BATCH 16 EPOCHS 2 PARTITION 2 OF 3", 47, 16, 2, -1},
        {"SEEDS train BATCH 16 EPOCHS 2 PARTITION 1 OF 3 LIMIT 5", 47, 16, 2, 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char sql[256];
        snprintf(sql, sizeof sql, "SAMPLE 1 FROM cora %s SEED 3;",
                 cases[i].clauses);
        int64_t bpe = (cases[i].seeds + cases[i].batch - 1) / cases[i].batch;
        int64_t total = bpe * cases[i].epochs;
        if (cases[i].limit >= 0 && cases[i].limit < total) total = cases[i].limit;
        plan p;
        plan_ok(d->h, sql, &p);
        assert_int_equal(p.nseeds, cases[i].seeds);
        assert_int_equal(p.batches_per_epoch, bpe);
        assert_int_equal(p.total_batches, total);
        plan_free(&p);
        /* and the run returns exactly that many */
        gnndb_stmt *st;
        assert_int_equal(gnndb_prepare(d->h, sql, -1, &st, NULL), GNNDB_OK);
        int64_t n = 0, seeds = 0;
        int rc;
        while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
            n++;
            seeds += gnndb_batch(st)->num_seeds;
        }
        assert_int_equal(rc, GNNDB_DONE);
        if (n != total) fail_msg("%s: %" PRId64 " batches, planned %" PRId64,
                                 sql, n, total);
        assert_int_equal(gnndb_stmt_status(st, GNNDB_STATUS_TOTAL_BATCHES), total);
        if (cases[i].limit < 0)
            assert_int_equal(seeds, cases[i].seeds * cases[i].epochs);
        gnndb_finalize(st);
    }
}

/* ---------- estimates against sampling ---------- */

/* The estimate models each hop's draws as independent picks in proportion
** to degree; on cora, whose neighbourhoods overlap (triangles), the later
** hops reach fewer new nodes than that: measured x1.1 at hop 1, up to x1.7
** at hop 2 and x2.5 at hop 3, always above the truth. The bound stated
** here: the first hop within 25%, later hops within a factor of 3. */
static void estimates_within_stated_factor_of_sampling(void **state)
{
    tu_db *d = *state;
    defaults(d->h);
    static const struct {
        const char *fan;
        int hops;
        int64_t batch;
        const char *more;
    } cases[] = {
        {"10,10", 2, 64, NULL}, {"5,5,5", 3, 32, NULL},
        {"25,10", 2, 128, NULL}, {"-1", 1, 64, NULL},
        {"15,10,5", 3, 16, NULL}, {"2", 1, 256, NULL},
        {"10,10", 2, 64, "WITH REPLACEMENT"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char sql[256];
        snprintf(sql, sizeof sql, "SAMPLE %s FROM cora BATCH %" PRId64
                 " SHUFFLE SEED 17 EPOCHS 2 %s;", cases[c].fan, cases[c].batch,
                 cases[c].more ? cases[c].more : "");
        plan p;
        plan_ok(d->h, sql, &p);
        /* measured: means over full batches of two epochs */
        double nodes[9] = {0}, edges[8] = {0};
        int64_t full = 0, maxn = 0, maxe = 0;
        gnndb_stmt *st;
        assert_int_equal(gnndb_prepare(d->h, sql, -1, &st, NULL), GNNDB_OK);
        while (gnndb_step(st) == GNNDB_BATCH) {
            const gnndb_batch_view *v = gnndb_batch(st);
            if (v->num_nodes > maxn) maxn = v->num_nodes;
            if (v->num_edges > maxe) maxe = v->num_edges;
            if (v->num_seeds != cases[c].batch) continue;
            full++;
            for (int h = 0; h <= cases[c].hops; h++)
                nodes[h] += (double)v->num_sampled_nodes[h];
            for (int h = 0; h < cases[c].hops; h++)
                edges[h] += (double)v->num_sampled_edges[h];
        }
        gnndb_finalize(st);
        assert_true(full > 0);
        assert_true(maxn <= p.nodes_bound);
        assert_true(maxe <= p.edges_bound);
        for (int h = 0; h < cases[c].hops; h++) {
            double rn = nodes[h + 1] / (double)full, re = edges[h] / (double)full;
            double en = p.nodes_est[h + 1], ee = p.edges_est[h];
            print_message("%-24s hop %d: nodes est %8.1f real %8.1f (x%.2f), "
                          "edges est %8.1f real %8.1f (x%.2f)\n", cases[c].fan,
                          h + 1, en, rn, en / rn, ee, re, ee / re);
            double f = h == 0 ? 1.25 : 3.0;
            int bad = en > f * rn || en < rn / f || ee > f * re || ee < re / f;
            /* WITH REPLACEMENT: the estimate counts every draw as a node
            ** that may be new, though draws repeat on low-degree nodes
            ** (reported: x2.8 at hop 1, x3.6 at hop 2 on cora); only its
            ** direction is checked, and the first hop's edges, f a seed */
            if (cases[c].more)
                bad = en < rn / 1.25 || ee < re / 1.25 ||
                      (h == 0 && ee > 1.25 * re);
            if (bad)
                fail_msg("%s hop %d: estimate off by more than a factor of "
                         "%.2f", sql, h + 1, f);
        }
        assert_true(fabs(p.nodes_est[0] - (double)cases[c].batch) < 1e-9);
        plan_free(&p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pools_cache_and_staged_fit_memory_limit),
        cmocka_unit_test(database_that_fits_is_read_once),
        cmocka_unit_test(hyperbatch_asked_capped_shrunk_or_spilled),
        cmocka_unit_test(spilled_read_back_fits_what_is_staged),
        cmocka_unit_test(memory_limit_below_one_batch_is_a_clear_error),
        cmocka_unit_test(batches_per_epoch_limit_and_partition),
        cmocka_unit_test(estimates_within_stated_factor_of_sampling),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
