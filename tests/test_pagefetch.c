/* test_pagefetch.c — reads of some pages of blocks: runs formed from the
** wanted pages, the bytes that land equal to the file's at their places
** whatever the pool size and backend, a second stage of pages asked for
** after the first, and a damaged page reported by file, block and page
** while reads that skip it succeed. */
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
#include "pagefetch.h"
#include "io.h"
#include "util.h"

#define BS     65536u   /* 16 pages */
#define NBLK   40u
#define DIM    8u
#define TOKEN  0x0badc0ffee000002ull

typedef struct fx {
    char *dir;
    char path[1024];
    io_backend *io;
    blk_file *f;
    uint8_t *file;     /* the whole file, as written */
} fx;

static void write_table(fx *x)
{
    gnn_err e;
    blk_writer *w;
    uint8_t *blk = gnn_alloc_aligned(BS);
    uint32_t rows = blk_feature_rows_per_block(BS, DIM, BLK_DTYPE_F32);
    assert_int_equal(blkw_create(x->dir, "t.blk", BS, &w, &e), GNNDB_OK);
    x->file = malloc((size_t)NBLK * BS);
    for (uint64_t no = 0; no < NBLK; no++) {
        float *v = (float *)(blk + blk_data_offset(BS));
        for (uint32_t i = 0; i < rows * DIM; i++)
            v[i] = (float)(no * 100000 + i);
        blk_seal(blk, BS, BLK_KIND_FEATURE, no, no * rows, TOKEN, rows,
                 (uint32_t)(blk_data_offset(BS) + rows * DIM * 4), 0,
                 BLK_DTYPE_F32, DIM);
        memcpy(x->file + no * BS, blk, BS);
        assert_int_equal(blkw_append(w, blk, &e), GNNDB_OK);
    }
    assert_int_equal(blkw_finish(w, &e), GNNDB_OK);
    gnn_free_aligned(blk);
}

static int setup_kind(void **state, int kind)
{
    fx *x = calloc(1, sizeof *x);
    x->dir = tu_tmpdir("test_pagefetch");
    if (!x->dir) return -1;
    snprintf(x->path, sizeof x->path, "%s/t.blk", x->dir);
    *state = x;
    write_table(x);
    gnn_err e;
    if (io_open(kind, 8, &x->io, &e) != GNNDB_OK) {
        if (kind != IO_URING) return -1;
        print_message("io_uring refused (%s): using pread\n", e.msg);
        if (io_open(IO_PREAD, 8, &x->io, &e) != GNNDB_OK) return -1;
    }
    return blkf_open(x->path, BS, BLK_KIND_FEATURE, TOKEN, NBLK, &x->f, &e);
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
    free(x->file);
    free(x);
    return 0;
}

static void test_runs_merge_close_pages(void **state)
{
    (void)state;
    pf_run r[8];
    const uint32_t p[] = {1, 2, 5, 9, 10};
    size_t n = pf_runs(p, 5, 0, r);
    assert_int_equal(n, 3);
    assert_int_equal(r[0].first, 0);
    assert_int_equal(r[0].n, 3);
    assert_int_equal(r[1].first, 5);
    assert_int_equal(r[1].n, 1);
    assert_int_equal(r[2].first, 9);
    assert_int_equal(r[2].n, 2);
    n = pf_runs(p, 5, 2, r);   /* 3 and 4 are read; 6..8 are not */
    assert_int_equal(n, 2);
    assert_int_equal(r[0].n, 6);
    assert_int_equal(r[1].first, 9);
    assert_int_equal(pf_runs(NULL, 0, 4, r), 1);  /* page 0 alone */
    const uint32_t q[] = {0, 3};
    n = pf_runs(q, 2, 0, r);   /* page 0 listed: not twice */
    assert_int_equal(n, 2);
}

/* What the visits saw. */
typedef struct seen {
    fx *x;
    unsigned count[NBLK];
    const uint32_t *pages;    /* each block's wanted pages ... */
    size_t npages;
    uint32_t more_page;       /* ... and the one stage two asks for (0: none) */
} seen;

static void same_page(const fx *x, uint64_t no, const void *data, uint32_t pg)
{
    const uint8_t *d = data;
    assert_memory_equal(d + (size_t)pg * 4096, x->file + no * BS + pg * 4096,
                        4096);
}

static int visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    seen *s = arg;
    s->count[no]++;
    same_page(s->x, no, data, 0);
    for (size_t i = 0; i < s->npages; i++) same_page(s->x, no, data, s->pages[i]);
    if (s->more_page) same_page(s->x, no, data, s->more_page);
    return GNNDB_OK;
}

static int more(void *arg, uint64_t no, const void *data, uint8_t *map,
                gnn_err *e)
{
    seen *s = arg;
    map[s->more_page] = 1;
    map[s->pages[0]] = 1;      /* already read: not read again */
    return GNNDB_OK;
}

/* Runs of `pages` for every block in blocks[0..n). */
static void plan_runs(const uint32_t *pages, size_t np, size_t n,
                      pf_run *runs, size_t *rstart)
{
    rstart[0] = 0;
    for (size_t i = 0; i < n; i++)
        rstart[i + 1] = rstart[i] + pf_runs(pages, np, 0, runs + rstart[i]);
}

static void test_pages_land_at_their_places(void **state)
{
    fx *x = *state;
    static const uint32_t pages[] = {3, 5, 6, 15};
    uint64_t blocks[NBLK];
    pf_run runs[NBLK * 5];
    size_t rstart[NBLK + 1];
    for (uint64_t i = 0; i < NBLK; i++) blocks[i] = i;
    plan_runs(pages, 4, NBLK, runs, rstart);
    const size_t frames[] = {1, 3, 64};
    for (int k = 0; k < 3; k++)
        for (int stage2 = 0; stage2 <= 1; stage2++) {
            bp_pool *bp;
            gnn_err e;
            assert_int_equal(bp_open(frames[k], BS, x->io, &bp, &e), GNNDB_OK);
            seen s = {.x = x, .pages = pages, .npages = 4,
                      .more_page = stage2 ? 11 : 0};
            pf_visit v = {visit, stage2 ? more : NULL, &s, 0};
            pf_stats st = {0, 0, 0, 0};
            assert_int_equal(pf_fetch(bp, x->f, blocks, NBLK, runs, rstart,
                                      &v, &st, &e), GNNDB_OK);
            for (uint64_t i = 0; i < NBLK; i++)
                assert_int_equal(s.count[i], 1);
            assert_int_equal(st.blocks, NBLK);
            assert_int_equal(st.pages, NBLK * (5 + stage2));
            assert_int_equal(st.reads, NBLK * (4 + stage2));
            assert_int_equal(st.bytes, st.pages * 4096);
            /* every frame came back: a whole-block fetch still runs */
            assert_int_equal(bp_fetch(bp, x->f, blocks, 1,
                                      (bp_visit_fn)visit, &s, &e), GNNDB_OK);
            bp_close(bp);
        }
}

static void test_damaged_page_named_other_pages_read(void **state)
{
    fx *x = *state;
    int fd = open(x->path, O_WRONLY);
    assert_true(fd >= 0);
    uint8_t b = 0x42;
    assert_int_equal(pwrite(fd, &b, 1, 7 * (off_t)BS + 6 * 4096 + 9), 1);
    close(fd);
    x->file[7 * BS + 6 * 4096 + 9] = b;
    bp_pool *bp;
    gnn_err e;
    assert_int_equal(bp_open(2, BS, x->io, &bp, &e), GNNDB_OK);
    uint64_t blocks[] = {6, 7, 8};
    pf_run runs[16];
    size_t rstart[4];
    static const uint32_t ok_pages[] = {3, 15}, bad_pages[] = {5, 6};
    plan_runs(ok_pages, 2, 3, runs, rstart);
    seen s = {.x = x, .pages = ok_pages, .npages = 2};
    pf_visit v = {visit, NULL, &s, 0};
    pf_stats st = {0, 0, 0, 0};
    assert_int_equal(pf_fetch(bp, x->f, blocks, 3, runs, rstart, &v, &st, &e),
                     GNNDB_OK);
    plan_runs(bad_pages, 2, 3, runs, rstart);
    memset(s.count, 0, sizeof s.count);
    s.pages = bad_pages;
    assert_int_equal(pf_fetch(bp, x->f, blocks, 3, runs, rstart, &v, &st, &e),
                     GNNDB_CORRUPT);
    char want[1200];
    snprintf(want, sizeof want, "corrupt block 7 of %s: page 6: checksum "
             "mismatch", x->path);
    if (!strstr(e.msg, want)) fail_msg("message: %s", e.msg);
    assert_int_equal(s.count[7], 0);
    /* the frames came back after the failure */
    assert_int_equal(bp_fetch(bp, x->f, blocks, 1, (bp_visit_fn)visit, &s, &e),
                     GNNDB_OK);
    bp_close(bp);
}

static void test_bad_runs_are_refused(void **state)
{
    fx *x = *state;
    bp_pool *bp;
    gnn_err e;
    assert_int_equal(bp_open(2, BS, x->io, &bp, &e), GNNDB_OK);
    seen s = {.x = x};
    pf_visit v = {visit, NULL, &s, 0};
    pf_stats st = {0, 0, 0, 0};
    uint64_t past[] = {NBLK};
    pf_run r[] = {{0, 1}, {17, 1}};
    size_t rs[] = {0, 1};
    assert_int_equal(pf_fetch(bp, x->f, past, 1, r, rs, &v, &st, &e),
                     GNNDB_CORRUPT);
    assert_non_null(strstr(e.msg, "past its end"));
    uint64_t one[] = {3};
    size_t rs2[] = {0, 2};   /* page 17 of a 16-page block */
    assert_int_equal(pf_fetch(bp, x->f, one, 1, r, rs2, &v, &st, &e),
                     GNNDB_MISUSE);
    assert_int_equal(s.count[3], 0);
    bp_close(bp);
}

#define BOTH(t) \
    cmocka_unit_test_setup_teardown(t, setup_uring, teardown), \
    cmocka_unit_test_setup_teardown(t, setup_pread, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_merge_close_pages),
        BOTH(test_pages_land_at_their_places),
        BOTH(test_damaged_page_named_other_pages_read),
        cmocka_unit_test_setup_teardown(test_bad_runs_are_refused,
                                        setup_pread, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
