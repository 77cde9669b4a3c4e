/* test_bufpool.c — the buffer pool: fetches that visit every block once
** whatever the pool size, eviction that keeps what was hit (hot blocks
** survive sweeps larger than the pool) and pins, coalesced reads, and
** corrupt blocks reported by file and number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "block.h"
#include "blockfile.h"
#include "bufpool.h"
#include "io.h"
#include "util.h"

#define BS     4096u
#define NBLK   200u
#define DIM    8u
#define TOKEN  0x0badc0ffee000001ull

typedef struct fx {
    char *dir;
    char path[1024];
    int kind;          /* I/O backend */
    io_backend *io;
    blk_file *f;
} fx;

static uint32_t rows_per_block(void)
{
    return blk_feature_rows_per_block(BS, DIM, BLK_DTYPE_F32);
}

static float value(uint64_t row, uint32_t d) { return (float)(row * 16 + d); }

static void write_table(fx *x)
{
    gnn_err e;
    blk_writer *w;
    uint8_t *blk = gnn_alloc_aligned(BS);
    uint32_t rows = rows_per_block();
    assert_int_equal(blkw_create(x->dir, "t.blk", BS, &w, &e), GNNDB_OK);
    for (uint64_t no = 0; no < NBLK; no++) {
        float *v = (float *)(blk + blk_data_offset(BS));
        for (uint32_t r = 0; r < rows; r++)
            for (uint32_t d = 0; d < DIM; d++)
                v[r * DIM + d] = value(no * rows + r, d);
        blk_seal(blk, BS, BLK_KIND_FEATURE, no, no * rows, TOKEN, rows,
                 (uint32_t)(blk_data_offset(BS) + rows * DIM * 4), 0,
                 BLK_DTYPE_F32, DIM);
        assert_int_equal(blkw_append(w, blk, &e), GNNDB_OK);
    }
    assert_int_equal(blkw_finish(w, &e), GNNDB_OK);
    gnn_free_aligned(blk);
}

static int setup_kind(void **state, int kind)
{
    fx *x = calloc(1, sizeof *x);
    x->dir = tu_tmpdir("test_bufpool");
    if (!x->dir) return -1;
    snprintf(x->path, sizeof x->path, "%s/t.blk", x->dir);
    x->kind = kind;
    *state = x;
    write_table(x);
    gnn_err e;
    if (io_open(kind, 16, &x->io, &e) != GNNDB_OK) {
        if (kind != IO_URING) return -1;
        print_message("io_uring refused (%s): using pread\n", e.msg);
        if (io_open(IO_PREAD, 16, &x->io, &e) != GNNDB_OK) return -1;
    }
    if (blkf_open(x->path, BS, BLK_KIND_FEATURE, TOKEN, NBLK, &x->f, &e))
        return -1;
    x->f->id = 1;
    return 0;
}

static int setup_uring(void **state) { return setup_kind(state, IO_URING); }
static int setup_pread(void **state) { return setup_kind(state, IO_PREAD); }

static int teardown(void **state)
{
    fx *x = *state;
    blkf_close(x->f);
    io_close(x->io);
    tu_rmrf(x->dir);
    free(x->dir);
    free(x);
    return 0;
}

/* What a visit callback records. */
typedef struct seen {
    unsigned count[NBLK];
    uint64_t order[4 * NBLK];
    size_t n;
    uint64_t fail_at;    /* return GNNDB_INTERRUPT at this block */
    const blk_file *f;
} seen;

static void check_block(const void *data, uint64_t no)
{
    const blk_header *h = data;
    assert_int_equal(h->block_no, no);
    uint32_t rows = rows_per_block();
    assert_int_equal(h->first_node, no * rows);
    for (uint32_t r = 0; r < rows; r += 7) {
        const float *row = blk_feature_row(data, r);
        for (uint32_t d = 0; d < DIM; d++)
            assert_true(row[d] == value(no * rows + r, d));
    }
}

static int visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    seen *s = arg;
    if (no == s->fail_at)
        return gnn_seterr(e, GNNDB_INTERRUPT, "stop at %llu",
                          (unsigned long long)no);
    check_block(data, no);
    s->count[no]++;
    s->order[s->n++] = no;
    return GNNDB_OK;
}

static seen *new_seen(void)
{
    seen *s = calloc(1, sizeof *s);
    s->fail_at = UINT64_MAX;
    return s;
}

static void test_tiny_pools_visit_every_block_once(void **state)
{
    fx *x = *state;
    size_t sizes[] = { 1, 2, 3, 5, 17, 64, 256 };
    uint64_t *all = malloc(NBLK * sizeof *all), *some = malloc(NBLK * 8);
    size_t nsome = 0;
    for (uint64_t i = 0; i < NBLK; i++) {
        all[i] = i;
        if (i % 3 != 1 && i % 11 != 4) some[nsome++] = i; /* runs and gaps */
    }
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        bp_pool *bp;
        gnn_err e;
        assert_int_equal(bp_open(sizes[k], BS, x->io, &bp, &e), GNNDB_OK);
        assert_int_equal(bp_nframes(bp), sizes[k]);
        for (int round = 0; round < 3; round++) {
            const uint64_t *list = round == 1 ? some : all;
            size_t n = round == 1 ? nsome : NBLK;
            seen *s = new_seen();
            assert_int_equal(bp_fetch(bp, x->f, list, n, visit, s, &e),
                             GNNDB_OK);
            assert_int_equal(s->n, n);
            for (size_t i = 0; i < n; i++)
                assert_int_equal(s->count[list[i]], 1);
            free(s);
        }
        const bp_stats *st = bp_get_stats(bp);
        assert_int_equal(st->hits + st->misses, 2 * NBLK + nsome);
        assert_int_equal(st->blocks_read, st->misses);
        assert_int_equal(st->bytes_read, st->blocks_read * BS);
        if (sizes[k] >= NBLK) assert_int_equal(st->misses, NBLK);
        /* every frame unpinned again: all can be pinned at once */
        const void *d;
        for (size_t i = 0; i < sizes[k] && i < NBLK; i++)
            assert_int_equal(bp_get(bp, x->f, i, &d, &e), GNNDB_OK);
        for (size_t i = 0; i < sizes[k] && i < NBLK; i++)
            bp_unpin(bp, x->f, i);
        bp_close(bp);
    }
    free(all);
    free(some);
}

static void test_cached_blocks_are_visited_first(void **state)
{
    fx *x = *state;
    bp_pool *bp;
    gnn_err e;
    assert_int_equal(bp_open(32, BS, x->io, &bp, &e), GNNDB_OK);
    uint64_t warm[3] = { 5, 9, 20 }, list[10];
    seen *s = new_seen();
    assert_int_equal(bp_fetch(bp, x->f, warm, 3, visit, s, &e), GNNDB_OK);
    free(s);
    for (int i = 0; i < 10; i++) list[i] = (uint64_t)i * 3 + 2; /* 2..29 */
    bp_reset_stats(bp);
    s = new_seen();
    assert_int_equal(bp_fetch(bp, x->f, list, 10, visit, s, &e), GNNDB_OK);
    assert_int_equal(s->n, 10);
    assert_int_equal(s->order[0], 5);
    assert_int_equal(s->order[1], 20);
    for (size_t i = 2; i < s->n; i++)
        assert_true(s->order[i] != 5 && s->order[i] != 20);
    assert_int_equal(bp_get_stats(bp)->hits, 2);
    assert_int_equal(bp_get_stats(bp)->misses, 8);
    free(s);
    bp_close(bp);
}

static void test_eviction_keeps_blocks_that_were_hit(void **state)
{
    fx *x = *state;
    bp_pool *bp;
    gnn_err e;
    const void *d[8];
    assert_int_equal(bp_open(3, BS, x->io, &bp, &e), GNNDB_OK);
    for (uint64_t i = 0; i < 3; i++) {
        assert_int_equal(bp_get(bp, x->f, i, &d[i], &e), GNNDB_OK);
        check_block(d[i], i);
    }
    /* all pinned: nothing to evict */
    assert_int_equal(bp_get(bp, x->f, 3, &d[3], &e), GNNDB_NOMEM);
    assert_non_null(strstr(e.msg, "pinned"));
    uint64_t one = 50;
    seen *s = new_seen();
    assert_int_equal(bp_fetch(bp, x->f, &one, 1, visit, s, &e), GNNDB_NOMEM);
    free(s);
    bp_unpin(bp, x->f, 0);
    bp_unpin(bp, x->f, 1);
    bp_unpin(bp, x->f, 2);
    /* blocks never hit go first, oldest first (1, then 2); a hit protects
    ** 0 */
    assert_int_equal(bp_get(bp, x->f, 0, &d[0], &e), GNNDB_OK);
    bp_unpin(bp, x->f, 0);
    bp_reset_stats(bp);
    assert_int_equal(bp_get(bp, x->f, 3, &d[3], &e), GNNDB_OK); /* evicts 1 */
    check_block(d[3], 3);
    assert_int_equal(bp_get(bp, x->f, 0, &d[0], &e), GNNDB_OK);
    assert_int_equal(bp_get(bp, x->f, 2, &d[2], &e), GNNDB_OK);
    const bp_stats *st = bp_get_stats(bp);
    assert_int_equal(st->misses, 1);
    assert_int_equal(st->hits, 2);
    /* 0, 2, 3 pinned: 1 cannot come back */
    assert_int_equal(bp_get(bp, x->f, 1, &d[1], &e), GNNDB_NOMEM);
    /* a block pinned twice stays until unpinned twice */
    assert_int_equal(bp_get(bp, x->f, 3, &d[3], &e), GNNDB_OK);
    bp_unpin(bp, x->f, 3);
    assert_int_equal(bp_get(bp, x->f, 1, &d[1], &e), GNNDB_NOMEM);
    bp_unpin(bp, x->f, 3);
    assert_int_equal(bp_get(bp, x->f, 1, &d[1], &e), GNNDB_OK); /* evicts 3 */
    check_block(d[1], 1);
    assert_int_equal(st->misses, 4); /* refused requests were misses too */
    /* 0 and 2 still cached and pinned */
    bp_reset_stats(bp);
    assert_int_equal(bp_get(bp, x->f, 0, &d[0], &e), GNNDB_OK);
    assert_int_equal(st->hits, 1);
    bp_unpin(bp, x->f, 0);
    bp_unpin(bp, x->f, 0);
    bp_unpin(bp, x->f, 1);
    bp_unpin(bp, x->f, 2);
    bp_close(bp);
}

/* Rounds as a hyperbatch makes them: a hot set read by two hops (hit the
** second time), then a sweep over more blocks than the pool holds. Plain
** LRU lets the sweep and its reads in flight flush the hot blocks, which
** miss again every round; the pool keeps the blocks that were hit. */
static void test_sweeps_larger_than_the_pool_keep_hot_blocks(void **state)
{
    fx *x = *state;
    bp_pool *bp;
    gnn_err e;
    /* frames beyond what reads in flight keep (io_depth) for 16 hot ones */
    const size_t frames = io_depth(x->io) + 32, nhot = 16, rounds = 6;
    const size_t nsweep = NBLK - 40;
    assert_int_equal(bp_open(frames, BS, x->io, &bp, &e), GNNDB_OK);
    assert_true(frames - bp_read_frames(frames, io_depth(x->io)) >= nhot);
    uint64_t hot[16], sweep[NBLK];
    assert_true(nsweep > frames);
    for (size_t i = 0; i < nhot; i++) hot[i] = i;
    for (size_t i = 0; i < nsweep; i++) sweep[i] = 40 + i;
    uint64_t hot_hits = 0, sweep_hits = 0;
    for (size_t k = 0; k < rounds; k++) {
        seen *s = new_seen();
        for (int hop = 0; hop < 2; hop++) {
            uint64_t before = bp_get_stats(bp)->hits;
            assert_int_equal(bp_fetch(bp, x->f, hot, nhot, visit, s, &e),
                             GNNDB_OK);
            if (k > 0 && hop == 0) hot_hits += bp_get_stats(bp)->hits - before;
        }
        uint64_t before = bp_get_stats(bp)->hits;
        assert_int_equal(bp_fetch(bp, x->f, sweep, nsweep, visit, s, &e),
                         GNNDB_OK);
        if (k > 0) sweep_hits += bp_get_stats(bp)->hits - before;
        assert_int_equal(s->n, 2 * nhot + nsweep);
        free(s);
    }
    size_t spare = bp_read_frames(frames, io_depth(x->io));
    print_message("%zu rounds of %zu hot blocks read twice and a sweep of "
                  "%zu, %zu frames (%zu for reads): %llu hot hits at a "
                  "round's start, %llu in sweeps\n", rounds, nhot, nsweep,
                  frames, spare, (unsigned long long)hot_hits,
                  (unsigned long long)sweep_hits);
    /* plain LRU keeps none of the hot blocks (1 hit in 5 rounds) and a
    ** sweep hits only on what the last one read; here the hot blocks come
    ** through sweeps, and a sweep hits on what the pool kept beside them
    ** (they compete: both were hit, so both are protected) */
    assert_true(hot_hits >= nhot);
    assert_true(hot_hits + sweep_hits >= (rounds - 1) * (frames - spare));
    bp_close(bp);
}

static void test_pinned_block_survives_a_fetch(void **state)
{
    fx *x = *state;
    bp_pool *bp;
    gnn_err e;
    const void *d;
    assert_int_equal(bp_open(2, BS, x->io, &bp, &e), GNNDB_OK);
    assert_int_equal(bp_get(bp, x->f, 100, &d, &e), GNNDB_OK);
    uint64_t *all = malloc(NBLK * sizeof *all);
    for (uint64_t i = 0; i < NBLK; i++) all[i] = i;
    seen *s = new_seen();
    /* one frame left for the whole fetch */
    assert_int_equal(bp_fetch(bp, x->f, all, NBLK, visit, s, &e), GNNDB_OK);
    assert_int_equal(s->n, NBLK);
    assert_int_equal(s->order[0], 100);
    check_block(d, 100);
    bp_unpin(bp, x->f, 100);
    free(s);
    free(all);
    bp_close(bp);
}

static void test_coalescing_reduces_reads_issued(void **state)
{
    fx *x = *state;
    uint64_t list[64];
    for (int i = 0; i < 64; i++) list[i] = 10 + (uint64_t)i;
    unsigned coalesce[] = { 1, 8, 16 };
    uint64_t want[] = { 64, 8, 4 };
    for (int k = 0; k < 3; k++) {
        bp_pool *bp;
        gnn_err e;
        assert_int_equal(bp_open(128, BS, x->io, &bp, &e), GNNDB_OK);
        bp_set_max_coalesce(bp, coalesce[k]);
        seen *s = new_seen();
        assert_int_equal(bp_fetch(bp, x->f, list, 64, visit, s, &e),
                         GNNDB_OK);
        assert_int_equal(s->n, 64);
        const bp_stats *st = bp_get_stats(bp);
        assert_int_equal(st->blocks_read, 64);
        assert_int_equal(st->reads_issued, want[k]);
        free(s);
        bp_close(bp);
    }
    /* gaps break runs: 0,1,2 | 4,5 | 9 */
    uint64_t gappy[6] = { 0, 1, 2, 4, 5, 9 };
    bp_pool *bp;
    gnn_err e;
    assert_int_equal(bp_open(16, BS, x->io, &bp, &e), GNNDB_OK);
    seen *s = new_seen();
    assert_int_equal(bp_fetch(bp, x->f, gappy, 6, visit, s, &e), GNNDB_OK);
    assert_int_equal(bp_get_stats(bp)->reads_issued, 3);
    assert_int_equal(s->n, 6);
    for (int i = 0; i < 6; i++) assert_int_equal(s->count[gappy[i]], 1);
    free(s);
    bp_close(bp);
}

static void test_corrupt_block_in_the_middle_is_named(void **state)
{
    fx *x = *state;
    int fd = open(x->path, O_WRONLY);
    assert_true(fd >= 0);
    uint8_t b = 0x77;
    assert_int_equal(pwrite(fd, &b, 1, 37 * (off_t)BS + 999), 1);
    close(fd);
    uint64_t *all = malloc(NBLK * sizeof *all);
    for (uint64_t i = 0; i < NBLK; i++) all[i] = i;
    size_t sizes[] = { 2, 7, 300 };
    for (int k = 0; k < 3; k++) {
        bp_pool *bp;
        gnn_err e;
        assert_int_equal(bp_open(sizes[k], BS, x->io, &bp, &e), GNNDB_OK);
        seen *s = new_seen();
        assert_int_equal(bp_fetch(bp, x->f, all, NBLK, visit, s, &e),
                         GNNDB_CORRUPT);
        char want[1200];
        snprintf(want, sizeof want, "corrupt block 37 of %s: page 0: "
                 "checksum mismatch", x->path);
        if (!strstr(e.msg, want)) fail_msg("message: %s", e.msg);
        assert_int_equal(s->count[37], 0);
        for (uint64_t i = 0; i < NBLK; i++) assert_true(s->count[i] <= 1);
        free(s);
        /* the pool is whole: its frames are free and it still serves */
        s = new_seen();
        uint64_t around[4] = { 35, 36, 38, 39 };
        assert_int_equal(bp_fetch(bp, x->f, around, 4, visit, s, &e),
                         GNNDB_OK);
        assert_int_equal(s->n, 4);
        free(s);
        const void *d;
        assert_int_equal(bp_get(bp, x->f, 37, &d, &e), GNNDB_CORRUPT);
        for (size_t i = 0; i < sizes[k] && i < 30; i++)
            assert_int_equal(bp_get(bp, x->f, 100 + i, &d, &e), GNNDB_OK);
        bp_close(bp);
    }
    free(all);
}

static void test_visit_error_stops_the_fetch(void **state)
{
    fx *x = *state;
    uint64_t *all = malloc(NBLK * sizeof *all);
    for (uint64_t i = 0; i < NBLK; i++) all[i] = i;
    bp_pool *bp;
    gnn_err e;
    assert_int_equal(bp_open(24, BS, x->io, &bp, &e), GNNDB_OK);
    seen *s = new_seen();
    s->fail_at = 50;
    assert_int_equal(bp_fetch(bp, x->f, all, NBLK, visit, s, &e),
                     GNNDB_INTERRUPT);
    assert_string_equal(e.msg, "stop at 50");
    /* reads complete in any order: some blocks past 50 may have come first,
    ** but none is visited twice and the fetch stopped early */
    assert_true(s->n < NBLK - 1);
    for (uint64_t i = 0; i < NBLK; i++) assert_true(s->count[i] <= 1);
    free(s);
    s = new_seen();
    assert_int_equal(bp_fetch(bp, x->f, all, NBLK, visit, s, &e), GNNDB_OK);
    assert_int_equal(s->n, NBLK);
    free(s);
    free(all);
    bp_close(bp);
}

static void test_bad_block_lists_are_refused(void **state)
{
    fx *x = *state;
    bp_pool *bp;
    gnn_err e;
    assert_int_equal(bp_open(4, BS, x->io, &bp, &e), GNNDB_OK);
    seen *s = new_seen();
    uint64_t past[2] = { 3, NBLK };
    assert_int_equal(bp_fetch(bp, x->f, past, 2, visit, s, &e),
                     GNNDB_CORRUPT);
    uint64_t unsorted[3] = { 3, 2, 9 };
    assert_int_equal(bp_fetch(bp, x->f, unsorted, 3, visit, s, &e),
                     GNNDB_MISUSE);
    assert_int_equal(bp_fetch(bp, x->f, NULL, 0, visit, s, &e), GNNDB_OK);
    assert_int_equal(s->n, 0);
    free(s);
    bp_close(bp);
    assert_int_equal(bp_open(0, BS, x->io, &bp, &e), GNNDB_RANGE);
    /* frames smaller than the file's blocks */
    assert_int_equal(bp_open(4, BS, x->io, &bp, &e), GNNDB_OK);
    x->f->block_size = 2 * BS;
    const void *d;
    assert_int_equal(bp_get(bp, x->f, 0, &d, &e), GNNDB_MISUSE);
    x->f->block_size = BS;
    bp_close(bp);
}

static void test_drop_file_forgets_its_frames(void **state)
{
    fx *x = *state;
    bp_pool *bp;
    gnn_err e;
    assert_int_equal(bp_open(8, BS, x->io, &bp, &e), GNNDB_OK);
    uint64_t list[4] = { 1, 2, 3, 4 };
    seen *s = new_seen();
    assert_int_equal(bp_fetch(bp, x->f, list, 4, visit, s, &e), GNNDB_OK);
    const void *d;
    assert_int_equal(bp_get(bp, x->f, 2, &d, &e), GNNDB_OK); /* held */
    bp_drop_file(bp, x->f);
    bp_reset_stats(bp);
    assert_int_equal(bp_fetch(bp, x->f, list, 4, visit, s, &e), GNNDB_OK);
    assert_int_equal(bp_get_stats(bp)->misses, 4);
    assert_int_equal(bp_get_stats(bp)->hits, 0);
    /* the held frame is still the caller's until unpinned, then reusable:
    ** after it, all 8 frames can be pinned at once */
    check_block(d, 2);
    bp_unpin(bp, x->f, 2);
    for (uint64_t i = 0; i < 8; i++)
        assert_int_equal(bp_get(bp, x->f, 20 + i, &d, &e), GNNDB_OK);
    for (uint64_t i = 0; i < 8; i++) bp_unpin(bp, x->f, 20 + i);
    /* a second file with another id shares the pool without aliasing */
    blk_file *g;
    assert_int_equal(blkf_open(x->path, BS, BLK_KIND_FEATURE, TOKEN, NBLK, &g,
                               &e), GNNDB_OK);
    g->id = 2;
    bp_reset_stats(bp);
    assert_int_equal(bp_fetch(bp, g, list, 4, visit, s, &e), GNNDB_OK);
    assert_int_equal(bp_get_stats(bp)->misses, 4);
    bp_drop_file(bp, g);
    blkf_close(g);
    free(s);
    bp_close(bp);
}

/* A visit that pins a block of the same pool through bp_get (one the
** caller holds: the fetch may have every other frame reading), and tries a
** nested fetch, which is refused. */
typedef struct nest {
    bp_pool *bp;
    blk_file *f;
    unsigned visited;
    int nested_rc;
} nest;

static int nest_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    nest *n = arg;
    check_block(data, no);
    const void *d;
    uint64_t other = 150;
    int rc = bp_get(n->bp, n->f, other, &d, e);
    if (rc) return rc;
    check_block(d, other);
    bp_unpin(n->bp, n->f, other);
    uint64_t one = 0;
    n->nested_rc = bp_fetch(n->bp, n->f, &one, 1, nest_visit, n, e);
    n->visited++;
    return GNNDB_OK;
}

static void test_visit_may_get_but_not_fetch_from_its_pool(void **state)
{
    fx *x = *state;
    bp_pool *bp;
    gnn_err e;
    assert_int_equal(bp_open(12, BS, x->io, &bp, &e), GNNDB_OK);
    uint64_t list[40];
    for (int i = 0; i < 40; i++) list[i] = (uint64_t)i;
    nest n = { bp, x->f, 0, 0 };
    const void *held;
    assert_int_equal(bp_get(bp, x->f, 150, &held, &e), GNNDB_OK);
    assert_int_equal(bp_fetch(bp, x->f, list, 40, nest_visit, &n, &e),
                     GNNDB_OK);
    assert_int_equal(n.visited, 40);
    assert_int_equal(n.nested_rc, GNNDB_MISUSE);
    bp_unpin(bp, x->f, 150);
    seen *s = new_seen();
    assert_int_equal(bp_fetch(bp, x->f, list, 40, visit, s, &e), GNNDB_OK);
    assert_int_equal(s->n, 40);
    free(s);
    bp_close(bp);
}

/* Frames faulted in by parts, as several threads would, count as touched
** once: the reads that follow fill them without counting them again, and
** the blocks come back as written. */
static void test_prefaulted_frames_count_once(void **state)
{
    fx *x = *state;
    bp_pool *bp;
    gnn_err e;
    assert_int_equal(bp_open(64, BS, x->io, &bp, &e), GNNDB_OK);
    assert_int_equal(bp_frames_touched(bp), 0);
    assert_int_equal(bp_touched_bytes(bp), 0);
    bp_prefault(bp, 20, 40);               /* a middle part first */
    bp_prefault(bp, 0, 20);
    bp_prefault(bp, 30, 1000);             /* overlapping, past the end */
    assert_int_equal(bp_frames_touched(bp), 64);
    size_t all = bp_touched_bytes(bp);
    uint64_t list[64];
    for (uint64_t i = 0; i < 64; i++) list[i] = i;
    seen *s = new_seen();
    assert_int_equal(bp_fetch(bp, x->f, list, 64, visit, s, &e), GNNDB_OK);
    assert_int_equal(s->n, 64);
    free(s);
    assert_int_equal(bp_frames_touched(bp), 64);
    assert_int_equal(bp_touched_bytes(bp), all);
    for (uint64_t i = 0; i < 64; i++) {
        const void *d;
        assert_int_equal(bp_get(bp, x->f, i, &d, &e), GNNDB_OK);
        check_block(d, i);
        bp_unpin(bp, x->f, i);
    }
    bp_close(bp);
}

#define BOTH(t)                                                          \
    cmocka_unit_test_setup_teardown(t, setup_uring, teardown),           \
    cmocka_unit_test_setup_teardown(t, setup_pread, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        BOTH(test_tiny_pools_visit_every_block_once),
        BOTH(test_cached_blocks_are_visited_first),
        BOTH(test_eviction_keeps_blocks_that_were_hit),
        BOTH(test_sweeps_larger_than_the_pool_keep_hot_blocks),
        BOTH(test_pinned_block_survives_a_fetch),
        BOTH(test_coalescing_reduces_reads_issued),
        BOTH(test_corrupt_block_in_the_middle_is_named),
        BOTH(test_visit_error_stops_the_fetch),
        BOTH(test_visit_may_get_but_not_fetch_from_its_pool),
        BOTH(test_prefaulted_frames_count_once),
        cmocka_unit_test_setup_teardown(test_bad_block_lists_are_refused,
                                        setup_pread, teardown),
        cmocka_unit_test_setup_teardown(test_drop_file_forgets_its_frames,
                                        setup_uring, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
