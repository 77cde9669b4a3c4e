/* test_costmodel.c — EXPLAIN's cost model against independent references:
** the blocks it expects to read against a brute-force simulation of the
** buffer pool (random nodes, LRU frames, hits visited first); its times
** against the profile (half the bandwidth, twice the I/O time; twice the
** threads, half the CPU time); its suggested HYPERBATCH against what
** memory_limit holds; and the disk profile in the catalog (stored, read
** back after reopening, absent from a catalog of schema version 1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "../catalog/catalog.h"
#include "../engine/costmodel.h"
#include "util.h"

/* A plan as plan.c would build it, by hand: a graph of `nodes` nodes in
** gblocks blocks, a feature table in fblocks blocks, two hops. */
static void make_plan(plan *p, int64_t nodes, double gblocks, double fblocks,
                      int64_t frames, int64_t batch, int64_t H,
                      int64_t batches)
{
    memset(p, 0, sizeof *p);
    p->graph.nodes = nodes;
    p->graph.graph_blocks = (int64_t)gblocks;
    p->graph.block_size = 65536;
    p->has_feat = 1;
    p->feat.nblocks = (int64_t)fblocks;
    p->feat.block_size = 65536;
    p->feat.dim = 64;
    p->feat.rows = nodes;
    p->nhops = 2;
    p->fanouts[0] = 5;
    p->fanouts[1] = 5;
    p->batch = batch;
    p->nseeds = batch * batches;
    p->batches_per_epoch = batches;
    p->total_batches = batches;
    p->epochs = 1;
    p->hyperbatch = H;
    p->nodes_est[0] = (double)batch;
    p->nodes_est[1] = 4.0 * (double)batch;
    p->nodes_est[2] = 12.0 * (double)batch;
    p->edges_est[0] = 5.0 * (double)batch;
    p->edges_est[1] = 20.0 * (double)batch;
    p->graph_frames = (size_t)frames;
    p->feat_frames = (size_t)frames;
    p->coalesce = 8;
    /* the block model is what these tests check; pages have their own */
    p->read_granularity = GNN_GRAN_BLOCK;
    p->threads = 2;
    cat_profile_defaults(&p->profile);
    p->topo = p->graph;  /* the hops read the graph itself (plan_link) */
}

/* ---- the reference: a pool simulated block by block ---------------------- */

typedef struct lru {
    int64_t *stamp;   /* per block: last use, 0 = not resident */
    int64_t nb, frames, resident, clock;
} lru;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* One fetch of the blocks holding `touches` random nodes and the seeds
** [s0, s1) of a sorted seed list of nseeds spread over the ids (shuffled:
** drawn at random instead); returns misses. */
static int64_t sim_fetch(lru *l, int64_t nodes, int64_t touches, uint64_t *rng,
                         char *need, int64_t s0, int64_t s1, int64_t nseeds,
                         int shuffle)
{
    memset(need, 0, (size_t)l->nb);
    for (int64_t i = s0; i < s1; i++) {
        int64_t v = shuffle ? (int64_t)(splitmix(rng) % (uint64_t)nodes)
                            : i * nodes / nseeds;
        need[v * l->nb / nodes] = 1;
    }
    for (int64_t i = 0; i < touches; i++) {
        int64_t v = (int64_t)(splitmix(rng) % (uint64_t)nodes);
        need[v * l->nb / nodes] = 1;
    }
    /* hits first, then the reads in ascending order, evicting the least
    ** recently used frame */
    for (int64_t b = 0; b < l->nb; b++)
        if (need[b] && l->stamp[b]) l->stamp[b] = ++l->clock;
    int64_t misses = 0;
    for (int64_t b = 0; b < l->nb; b++) {
        if (!need[b] || l->stamp[b]) continue;
        if (l->resident == l->frames) {
            int64_t victim = -1;
            for (int64_t k = 0; k < l->nb; k++)
                if (l->stamp[k] && (victim < 0 || l->stamp[k] < l->stamp[victim]))
                    victim = k;
            l->stamp[victim] = 0;
            l->resident--;
        }
        l->stamp[b] = ++l->clock;
        l->resident++;
        misses++;
    }
    return misses;
}

static void simulate(const plan *p, double *gmiss, double *fmiss)
{
    lru g = {calloc((size_t)p->graph.graph_blocks, 8), p->graph.graph_blocks,
             (int64_t)p->graph_frames, 0, 0};
    lru f = {calloc((size_t)p->feat.nblocks, 8), p->feat.nblocks,
             (int64_t)p->feat_frames, 0, 0};
    char *need = malloc((size_t)(g.nb > f.nb ? g.nb : f.nb));
    uint64_t rng = 42;
    int64_t gm = 0, fm = 0;
    for (int64_t done = 0; done < p->total_batches; done += p->hyperbatch) {
        int64_t m = p->total_batches - done < p->hyperbatch
                        ? p->total_batches - done : p->hyperbatch;
        int64_t s0 = (done * p->batch) % p->nseeds;
        int64_t s1 = s0 + m * p->batch;
        gm += sim_fetch(&g, p->graph.nodes, 0, &rng, need, s0, s1, p->nseeds,
                        p->shuffle);
        for (int h = 1; h < p->nhops; h++)
            gm += sim_fetch(&g, p->graph.nodes,
                            (int64_t)(p->nodes_est[h] * (double)m), &rng, need,
                            0, 0, 1, 0);
        double rows = 0;
        for (int h = 1; h <= p->nhops; h++) rows += p->nodes_est[h];
        fm += sim_fetch(&f, p->graph.nodes, (int64_t)(rows * (double)m), &rng,
                        need, s0, s1, p->nseeds, p->shuffle);
    }
    free(g.stamp); free(f.stamp); free(need);
    *gmiss = (double)gm;
    *fmiss = (double)fm;
}

static void check_blocks(const plan *p)
{
    cm_layout l;
    cm_est est;
    cm_layout_of(p, &l);
    cm_estimate(p, &p->profile, &l, &est);
    double gm, fm;
    simulate(p, &gm, &fm);
    double eg = 0;
    for (int h = 0; h < p->nhops; h++) eg += est.hop[h].blocks;
    fprintf(stderr, "graph blocks: model %.0f, simulated %.0f; feature "
            "blocks: model %.0f, simulated %.0f\n", eg, gm, est.gather.blocks, fm);
    assert_true(fabs(eg - gm) <= 0.2 * gm + 2);
    assert_true(fabs(est.gather.blocks - fm) <= 0.2 * fm + 2);
    assert_true(fabs(est.total.bytes - (eg + est.gather.blocks) * 65536) <
                65536);
}

static void test_blocks_pool_holds_all(void **state)
{
    (void)state;
    plan p;
    /* 40 + 60 blocks, 100 frames each: every block is read once at most */
    make_plan(&p, 100000, 40, 60, 100, 32, 4, 50);
    check_blocks(&p);
}

static void test_blocks_pool_too_small(void **state)
{
    (void)state;
    plan p;
    /* 400 graph and 900 feature blocks through 32 frames each */
    make_plan(&p, 200000, 400, 900, 32, 64, 2, 40);
    check_blocks(&p);
    make_plan(&p, 200000, 400, 900, 32, 16, 1, 60);
    check_blocks(&p);
    make_plan(&p, 200000, 400, 900, 32, 64, 16, 64);
    check_blocks(&p);
    /* the same with the seeds shuffled: spread over the whole file */
    make_plan(&p, 200000, 400, 900, 32, 64, 2, 40);
    p.shuffle = 1;
    check_blocks(&p);
    make_plan(&p, 200000, 400, 900, 32, 16, 1, 60);
    p.shuffle = 1;
    check_blocks(&p);
}

/* Past the hyperbatches simulated one by one, the rest are extrapolated:
** in a steady state twice the mini-batches cost twice as much, and a pool
** holding every block reads each once however long the run. */
static void test_long_runs(void **state)
{
    (void)state;
    plan p;
    cm_layout l;
    cm_est a, b;
    make_plan(&p, 200000, 400, 900, 32, 16, 1, 5000);
    cm_layout_of(&p, &l);
    cm_estimate(&p, &p.profile, &l, &a);
    make_plan(&p, 200000, 400, 900, 32, 16, 1, 10000);
    cm_estimate(&p, &p.profile, &l, &b);
    fprintf(stderr, "5000 batches: %.0f blocks; 10000: %.0f\n", a.total.blocks,
            b.total.blocks);
    assert_true(fabs(b.total.blocks / a.total.blocks - 2) < 0.02);
    assert_true(fabs(b.total.seconds / a.total.seconds - 2) < 0.02);
    assert_true(fabs(b.hyperbatches - 10000) < 1e-6);
    make_plan(&p, 100000, 40, 60, 100, 32, 1, 20000);
    cm_layout_of(&p, &l);
    cm_estimate(&p, &p.profile, &l, &a);
    assert_true(a.total.blocks <= 100.5 && a.total.blocks > 99);
}

static double io_of(const plan *p, const cat_profile *pr)
{
    cm_layout l;
    cm_est est;
    cm_layout_of(p, &l);
    cm_estimate(p, pr, &l, &est);
    return est.total.io_s;
}

static void test_time_follows_profile(void **state)
{
    (void)state;
    plan p;
    make_plan(&p, 200000, 400, 900, 32, 64, 16, 64);
    p.graph.block_size = p.feat.block_size = 1 << 20;
    cat_profile pr;
    cat_profile_defaults(&pr);
    pr.rand_bs_iops = 1e5;   /* large reads limited by bandwidth alone */
    double io1 = io_of(&p, &pr);
    pr.seq_read_1m_bps /= 2;
    pr.seq_read_4m_bps /= 2;
    double io2 = io_of(&p, &pr);
    fprintf(stderr, "io: %.4f s, half the bandwidth %.4f s\n", io1, io2);
    assert_true(io2 > 1.9 * io1 && io2 < 2.1 * io1);

    /* small blocks, sparse: bound by requests; half the IOPS doubles it */
    make_plan(&p, 2000000, 40000, 90000, 32, 16, 1, 20);
    p.graph.block_size = p.feat.block_size = 4096;
    cat_profile_defaults(&pr);
    double r1 = io_of(&p, &pr);
    pr.rand_4k_iops /= 2;
    pr.rand_bs_iops /= 2;
    double r2 = io_of(&p, &pr);
    fprintf(stderr, "io: %.4f s, half the IOPS %.4f s\n", r1, r2);
    assert_true(r2 > 1.8 * r1 && r2 < 2.2 * r1);

    /* CPU: twice the threads, half the time */
    cm_layout l;
    cm_est a, b;
    cm_layout_of(&p, &l);
    cm_estimate(&p, &p.profile, &l, &a);
    p.threads *= 2;
    cm_estimate(&p, &p.profile, &l, &b);
    assert_true(fabs(b.total.cpu_s * 2 - a.total.cpu_s) <= 1e-9 + 1e-6 * a.total.cpu_s);
    assert_true(a.total.cpu_s > 0);
}

static void test_request_seconds(void **state)
{
    (void)state;
    cat_profile pr;
    cat_profile_defaults(&pr);
    assert_true(fabs(cm_request_seconds(&pr, 4096) - 1 / pr.rand_4k_iops) < 1e-12);
    assert_true(fabs(cm_request_seconds(&pr, pr.rand_bs) - 1 / pr.rand_bs_iops) < 1e-9);
}

static void test_suggested_hyperbatch_fits(void **state)
{
    (void)state;
    plan p;
    for (int64_t staged = 1 << 20; staged <= ((int64_t)1 << 32); staged *= 4) {
        make_plan(&p, 200000, 400, 900, 32, 64, 1, 2000);
        p.per_batch_bytes = 3 << 20;
        p.staged_bytes = staged;
        p.memory_limit = staged + (64 << 20);
        cm_est est;
        int64_t h = cm_suggest_hyperbatch(&p, &p.profile, &est);
        int64_t fits = staged / p.per_batch_bytes;
        fprintf(stderr, "staged %lld: suggested %lld, fits %lld\n",
                (long long)staged, (long long)h, (long long)fits);
        assert_true(h >= 1);
        assert_true(h <= (fits > 1 ? fits : 1));
        assert_true(h <= 1024);
        assert_true(est.batches_per_s > 0);
    }
}

/* ---- the profile in the catalog ------------------------------------------ */

/* Rows spread thin over a large table (HYPERBATCH 1, few seeds): reading
** only their pages wins under auto, costs far fewer bytes than whole blocks,
** and the estimate follows the choice; rows dense enough to need most
** pages of each block keep whole blocks. */
static void test_pages_when_rows_are_sparse(void **state)
{
    plan p;
    make_plan(&p, 1 << 20, 4096, 4096, 16, 64, 1, 100);
    cat_profile pr;
    cat_profile_defaults(&pr);
    cm_layout l;
    cm_est whole, part;
    cm_layout_of(&p, &l);
    cm_estimate(&p, &pr, &l, &whole);
    assert_int_equal(whole.gather_gran.page, 0);
    p.read_granularity = GNN_GRAN_AUTO;
    cm_estimate(&p, &pr, &l, &part);
    assert_int_equal(part.gather_gran.page, 1);
    assert_true(part.gather_gran.t_pages < part.gather_gran.t_whole);
    assert_true(part.gather.bytes < 0.5 * whole.gather.bytes);
    assert_true(part.gather.io_s < whole.gather.io_s);
    assert_true(part.gather.blocks > 0.9 * whole.gather.blocks);
    /* the hops too: a few nodes' entries and objects of each graph block */
    assert_int_equal(whole.hop_gran[1].page, 0);
    assert_int_equal(part.hop_gran[1].page, 1);
    assert_true(part.hop[1].bytes < 0.5 * whole.hop[1].bytes);
    /* the whole table in each hyperbatch: every page is wanted */
    make_plan(&p, 1 << 20, 4096, 4096, 16, 1024, 100, 100);
    p.read_granularity = GNN_GRAN_AUTO;
    cm_layout_of(&p, &l);
    cm_estimate(&p, &pr, &l, &part);
    assert_int_equal(part.gather_gran.page, 0);
}

static void test_profile_stored(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("test_costmodel");
    char path[1024];
    snprintf(path, sizeof path, "%s/catalog.db", dir);
    gnn_err e = {0};
    cat_db *c;
    assert_int_equal(cat_open(path, 0, &c, &e), GNNDB_OK);
    cat_profile pr, back;
    assert_int_equal(cat_profile_get(c, &pr, &e), GNNDB_NOTFOUND);
    assert_string_equal(pr.source, "default");
    pr.seq_read_1m_bps = 123456789;
    pr.rand_4k_iops = 4321.5;
    snprintf(pr.source, sizeof pr.source, "measured");
    snprintf(pr.measured_at, sizeof pr.measured_at, "2026-01-02T03:04:05Z");
    assert_int_equal(cat_profile_put(c, &pr, &e), GNNDB_OK);
    cat_close(c);

    assert_int_equal(cat_open(path, 1, &c, &e), GNNDB_OK);
    assert_int_equal(cat_profile_get(c, &back, &e), GNNDB_OK);
    assert_true(back.seq_read_1m_bps == 123456789);
    assert_true(back.rand_4k_iops == 4321.5);
    assert_string_equal(back.source, "measured");
    assert_string_equal(back.measured_at, "2026-01-02T03:04:05Z");
    assert_int_equal(cat_profile_put(c, &pr, &e), GNNDB_READONLY);
    cat_close(c);

    /* a catalog of schema version 1 (no disk_profile, no schema_version,
    ** no edge-id or split-kind columns: format 2): read-only it has no profile; a
    ** writable open migrates it */
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "DROP TABLE disk_profile; DELETE FROM "
                                  "meta WHERE key = 'schema_version';"
                                  "DROP TABLE node_types;"
                                  "DROP TABLE relations;"
                                  "ALTER TABLE graphs DROP COLUMN version;"
                                  "ALTER TABLE graphs DROP COLUMN "
                                  "oldest_version;"
                                  "ALTER TABLE graphs DROP COLUMN "
                                  "build_flags;"
                                  "ALTER TABLE graphs DROP COLUMN made;"
                                  "ALTER TABLE graphs DROP COLUMN kind;"
                                  "ALTER TABLE graphs DROP COLUMN parent_id;"
                                  "ALTER TABLE tables DROP COLUMN node_type;"
                                  "ALTER TABLE splits DROP COLUMN node_type;"
                                  "ALTER TABLE graphs DROP COLUMN has_eids;"
                                  "ALTER TABLE graphs DROP COLUMN eid_file;"
                                  "ALTER TABLE graphs DROP COLUMN eid_token;"
                                  "ALTER TABLE graphs DROP COLUMN eid_blocks;"
                                  "ALTER TABLE graphs DROP COLUMN "
                                  "input_edges;"
                                  "ALTER TABLE splits DROP COLUMN seed;"
                                  "ALTER TABLE splits DROP COLUMN kind;"
                                  "UPDATE meta SET value = 2 "
                                  "WHERE key = 'format_version'",
                                  NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(cat_open(path, 1, &c, &e), GNNDB_OK);
    assert_int_equal(cat_profile_get(c, &back, &e), GNNDB_NOTFOUND);
    cat_close(c);
    assert_int_equal(cat_open(path, 0, &c, &e), GNNDB_OK);
    assert_int_equal(cat_profile_get(c, &back, &e), GNNDB_NOTFOUND);
    assert_int_equal(cat_profile_put(c, &pr, &e), GNNDB_OK);
    int64_t v = 0;
    assert_int_equal(cat_format_version(c, &v, &e), GNNDB_OK);
    assert_int_equal(v, 3);   /* created at 3; an append moves it to 4 */
    cat_close(c);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key "
                                        "= 'schema_version'", -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 7);
    sqlite3_finalize(st);
    sqlite3_close(db);
    tu_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocks_pool_holds_all),
        cmocka_unit_test(test_blocks_pool_too_small),
        cmocka_unit_test(test_long_runs),
        cmocka_unit_test(test_time_follows_profile),
        cmocka_unit_test(test_request_seconds),
        cmocka_unit_test(test_suggested_hyperbatch_fits),
        cmocka_unit_test(test_pages_when_rows_are_sparse),
        cmocka_unit_test(test_profile_stored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
