/* test_segfile.c — a segmented block file read as one: two ordinary block
** files written with blkw_*, a map interleaving their blocks, and every
** logical block read back through blkf_read, the buffer pool (whose
** coalesced reads must stop at the end of each run) and pagefetch; a block
** out of place, a truncated or missing segment, and a map that is not the
** catalog's file all refused in words naming the file at fault. */
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
#include "pagefetch.h"
#include "segmap.h"
#include "util.h"

#define BS     16384u      /* 4 pages: pagefetch reads some of them */
#define DIM    8u
#define TOKEN  0x5e9f11e000000001ull   /* the segmented file's */
#define NLOG   14u                     /* its logical blocks */

/* Segment 0 "a.blk" (12 blocks) and segment 1 "b.blk" (6), runs of 4, 2,
** 4, 1, 2, 1 blocks alternating between them; the blocks no run names hold
** other data, as an old version's rewritten blocks would. */
static const struct { uint32_t seg; uint64_t pstart, count; } RUNS[] = {
    {0, 0, 4}, {1, 0, 2}, {0, 6, 4}, {1, 3, 1}, {0, 10, 2}, {1, 5, 1},
};
#define NRUNS 6
static const char *const SEG_NAME[2] = {"a.blk", "b.blk"};
static const uint64_t SEG_TOKEN[2] = {0xa0a0000000000001ull,
                                      0xb0b0000000000002ull};
static const uint64_t SEG_BLOCKS[2] = {12, 6};

typedef struct fx {
    char *dir;
    char map[1024], seg[2][1024];
    uint8_t *want[NLOG];   /* each logical block as it must read */
    io_backend *io;
    blk_file *f;
} fx;

static uint32_t rows(void)
{
    return blk_feature_rows_per_block(BS, DIM, BLK_DTYPE_F32);
}

/* A feature block holding logical block `lno`'s rows (lno past NLOG: other
** data), sealed as block `pno` of a file of `token`. */
static void make_block(uint8_t *b, uint64_t lno, uint64_t pno, uint64_t token)
{
    memset(b, 0, BS);
    float *v = (float *)(b + blk_data_offset(BS));
    for (uint32_t r = 0; r < rows(); r++)
        for (uint32_t d = 0; d < DIM; d++)
            v[r * DIM + d] = (float)((lno * rows() + r) * 16 + d);
    blk_seal(b, BS, BLK_KIND_FEATURE, pno, lno * rows(), token, rows(),
             (uint32_t)(blk_data_offset(BS) + rows() * DIM * 4), 0,
             BLK_DTYPE_F32, DIM);
}

/* The logical block segment s's block p holds, or NLOG + 100 + p. */
static uint64_t logical_of(uint32_t s, uint64_t p)
{
    uint64_t l = 0;
    for (int i = 0; i < NRUNS; l += RUNS[i].count, i++)
        if (RUNS[i].seg == s && p >= RUNS[i].pstart &&
            p < RUNS[i].pstart + RUNS[i].count)
            return l + (p - RUNS[i].pstart);
    return NLOG + 100 + p;
}

static void write_segment(fx *x, uint32_t s)
{
    gnn_err e;
    blk_writer *w;
    uint8_t *b = malloc(BS);
    assert_int_equal(blkw_create(x->dir, SEG_NAME[s], BS, &w, &e), GNNDB_OK);
    for (uint64_t p = 0; p < SEG_BLOCKS[s]; p++) {
        uint64_t l = logical_of(s, p);
        make_block(b, l, p, SEG_TOKEN[s]);
        if (l < NLOG) memcpy(x->want[l], b, BS);
        assert_int_equal(blkw_append(w, b, &e), GNNDB_OK);
    }
    assert_int_equal(blkw_finish(w, &e), GNNDB_OK);
    free(b);
}

static void write_map(fx *x)
{
    seg_map m;
    gnn_err e;
    uint32_t idx[2];
    seg_map_init(&m, BLK_KIND_FEATURE, BS, TOKEN);
    for (uint32_t s = 0; s < 2; s++)
        assert_int_equal(seg_map_add_seg(&m, SEG_NAME[s], SEG_TOKEN[s],
                                         SEG_BLOCKS[s], &idx[s], &e), 0);
    for (int i = 0; i < NRUNS; i++)
        assert_int_equal(seg_map_add_run(&m, idx[RUNS[i].seg], RUNS[i].pstart,
                                         RUNS[i].count, &e), 0);
    assert_int_equal(m.nruns, NRUNS);
    assert_int_equal(m.nblocks, NLOG);
    assert_int_equal(seg_map_write(x->dir, "g.seg", &m, &e), GNNDB_OK);
    seg_map_free(&m);
}

static int setup(void **state)
{
    fx *x = calloc(1, sizeof *x);
    x->dir = tu_tmpdir("test_segfile");
    if (!x->dir) return -1;
    snprintf(x->map, sizeof x->map, "%s/g.seg", x->dir);
    for (int s = 0; s < 2; s++)
        snprintf(x->seg[s], sizeof x->seg[s], "%s/%s", x->dir, SEG_NAME[s]);
    for (unsigned l = 0; l < NLOG; l++) x->want[l] = malloc(BS);
    write_segment(x, 0);
    write_segment(x, 1);
    write_map(x);
    gnn_err e;
    if (io_open(IO_PREAD, 16, &x->io, &e)) return -1;
    *state = x;
    return 0;
}

static int teardown(void **state)
{
    fx *x = *state;
    blkf_close(x->f);
    io_close(x->io);
    for (unsigned l = 0; l < NLOG; l++) free(x->want[l]);
    tu_rmrf(x->dir);
    free(x->dir);
    free(x);
    return 0;
}

static int open_map(fx *x, gnn_err *e)
{
    return blkf_open(x->map, BS, BLK_KIND_FEATURE, TOKEN, NLOG, &x->f, e);
}

static void test_every_block_reads_through_blkf_read(void **state)
{
    fx *x = *state;
    gnn_err e;
    assert_int_equal(open_map(x, &e), GNNDB_OK);
    assert_int_equal(x->f->fd, -1);    /* no single descriptor to misuse */
    uint8_t *buf = gnn_alloc_aligned(BS);
    for (int pass = 0; pass < 2; pass++) {
        for (uint64_t l = 0; l < NLOG; l++) {
            assert_int_equal(blkf_read(x->f, l, buf, &e), GNNDB_OK);
            assert_memory_equal(buf, x->want[l], BS);
        }
        assert_int_equal(blkf_read(x->f, NLOG, buf, &e), GNNDB_CORRUPT);
        /* and the same through the page cache */
        assert_int_equal(blkf_through_cache(x->f, &e), GNNDB_OK);
        assert_int_equal(x->f->direct, 0);
    }
    gnn_free_aligned(buf);
}

static void test_locate_and_expect_name_the_segment(void **state)
{
    fx *x = *state;
    gnn_err e;
    assert_int_equal(open_map(x, &e), GNNDB_OK);
    int fd4, fd5, fd6;
    uint64_t off, run, hno, token;
    const char *path;
    blkf_locate(x->f, 4, &fd4, &off, &run);   /* b.blk 0, run of 2 */
    assert_int_equal(off, 0);
    assert_int_equal(run, 2);
    blkf_locate(x->f, 5, &fd5, &off, &run);
    assert_int_equal(fd5, fd4);
    assert_int_equal(off, BS);
    assert_int_equal(run, 1);
    blkf_locate(x->f, 7, &fd6, &off, &run);   /* a.blk 7 */
    assert_true(fd6 != fd4);
    assert_int_equal(off, 7ull * BS);
    assert_int_equal(run, 3);
    blkf_expect(x->f, 10, &hno, &token, &path);  /* b.blk 3 */
    assert_int_equal(hno, 3);
    assert_int_equal(token, SEG_TOKEN[1]);
    assert_string_equal(path, x->seg[1]);
    int64_t cached, size;
    assert_int_equal(blkf_cached(x->map, &cached, &size), 0);
    assert_int_equal(size, (int64_t)(12 + 6) * BS);
}

/* What the buffer pool's visits saw. */
typedef struct seen {
    fx *x;
    unsigned count[NLOG];
    const uint32_t *pages;   /* pagefetch: the pages read besides page 0 */
    size_t npages;
} seen;

static int visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    seen *s = arg;
    assert_true(no < NLOG);
    s->count[no]++;
    if (!s->pages) {
        assert_memory_equal(data, s->x->want[no], BS);
        return GNNDB_OK;
    }
    const uint8_t *d = data;
    assert_memory_equal(d, s->x->want[no], 4096);
    for (size_t i = 0; i < s->npages; i++)
        assert_memory_equal(d + s->pages[i] * 4096,
                            s->x->want[no] + s->pages[i] * 4096, 4096);
    return GNNDB_OK;
}

static void test_pool_reads_stop_at_run_ends(void **state)
{
    fx *x = *state;
    gnn_err e;
    assert_int_equal(open_map(x, &e), GNNDB_OK);
    x->f->id = 1;
    bp_pool *bp;
    assert_int_equal(bp_open(64, BS, x->io, &bp, &e), GNNDB_OK);
    bp_set_max_coalesce(bp, 16);   /* would read all 14 blocks at once */
    uint64_t blocks[NLOG];
    for (uint64_t l = 0; l < NLOG; l++) blocks[l] = l;
    seen s = {.x = x};
    assert_int_equal(bp_fetch(bp, x->f, blocks, NLOG, visit, &s, &e),
                     GNNDB_OK);
    for (unsigned l = 0; l < NLOG; l++) assert_int_equal(s.count[l], 1);
    assert_int_equal(bp_get_stats(bp)->blocks_read, NLOG);
    assert_int_equal(bp_get_stats(bp)->reads_issued, NRUNS); /* one a run */
    const void *data;
    assert_int_equal(bp_get(bp, x->f, 9, &data, &e), GNNDB_OK);   /* a hit */
    assert_memory_equal(data, x->want[9], BS);
    bp_unpin(bp, x->f, 9);
    bp_drop_file(bp, x->f);
    bp_close(bp);
}

static void test_pagefetch_reads_pages_in_their_segment(void **state)
{
    fx *x = *state;
    gnn_err e;
    assert_int_equal(open_map(x, &e), GNNDB_OK);
    x->f->id = 1;
    bp_pool *bp;
    assert_int_equal(bp_open(4, BS, x->io, &bp, &e), GNNDB_OK);
    static const uint32_t pages[] = {2};
    uint64_t blocks[NLOG];
    pf_run runs[2 * NLOG];
    size_t rstart[NLOG + 1];
    rstart[0] = 0;
    for (uint64_t l = 0; l < NLOG; l++) {
        blocks[l] = l;
        rstart[l + 1] = rstart[l] + pf_runs(pages, 1, 0, runs + rstart[l]);
    }
    seen s = {.x = x, .pages = pages, .npages = 1};
    pf_visit v = {visit, NULL, &s, 0};
    pf_stats st = {0, 0, 0, 0};
    assert_int_equal(pf_fetch(bp, x->f, blocks, NLOG, runs, rstart, &v, &st,
                              &e), GNNDB_OK);
    for (unsigned l = 0; l < NLOG; l++) assert_int_equal(s.count[l], 1);
    assert_int_equal(st.pages, 2 * NLOG);
    bp_close(bp);
}

/* Overwrite block p of segment s with `b`. */
static void put_block(fx *x, uint32_t s, uint64_t p, const uint8_t *b)
{
    int fd = open(x->seg[s], O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, b, BS, (off_t)(p * BS)), (ssize_t)BS);
    close(fd);
}

/* Every reader refuses logical block `l` as corrupt, in words holding
** `words`. */
static void all_refuse(fx *x, uint64_t l, const char *words)
{
    gnn_err e;
    uint8_t *buf = gnn_alloc_aligned(BS);
    assert_int_equal(blkf_read(x->f, l, buf, &e), GNNDB_CORRUPT);
    if (!strstr(e.msg, words)) print_error("%s\n", e.msg);
    assert_non_null(strstr(e.msg, words));
    gnn_free_aligned(buf);
    bp_pool *bp;
    assert_int_equal(bp_open(64, BS, x->io, &bp, &e), GNNDB_OK);
    seen s = {.x = x};
    uint64_t blocks[NLOG];
    for (uint64_t k = 0; k < NLOG; k++) blocks[k] = k;
    assert_int_equal(bp_fetch(bp, x->f, blocks, NLOG, visit, &s, &e),
                     GNNDB_CORRUPT);
    assert_non_null(strstr(e.msg, words));
    assert_int_equal(s.count[l], 0);
    bp_close(bp);
}

static void test_block_out_of_place_is_corrupt(void **state)
{
    fx *x = *state;
    gnn_err e;
    uint8_t *b = malloc(BS);
    char words[1100];
    /* a.blk's block 7 holds logical block 7 but says it is block 8 */
    make_block(b, 7, 8, SEG_TOKEN[0]);
    put_block(x, 0, 7, b);
    assert_int_equal(open_map(x, &e), GNNDB_OK);
    snprintf(words, sizeof words, "corrupt block 7 of %s: ", x->seg[0]);
    all_refuse(x, 7, words);
    /* b.blk's block 5 (logical 13) sealed with a.blk's token */
    make_block(b, 13, 5, SEG_TOKEN[0]);
    put_block(x, 1, 5, b);
    make_block(b, 7, 7, SEG_TOKEN[0]);
    put_block(x, 0, 7, b);
    snprintf(words, sizeof words, "corrupt block 5 of %s: ", x->seg[1]);
    all_refuse(x, 13, words);
    free(b);
}

static void test_truncated_or_missing_segment_fails_at_open(void **state)
{
    fx *x = *state;
    gnn_err e;
    assert_int_equal(truncate(x->seg[1], 5 * BS), 0);
    assert_int_equal(open_map(x, &e), GNNDB_CORRUPT);
    assert_null(x->f);
    assert_non_null(strstr(e.msg, x->seg[1]));
    assert_non_null(strstr(e.msg, "truncated"));
    assert_int_equal(unlink(x->seg[1]), 0);
    assert_int_equal(open_map(x, &e), GNNDB_NOTFOUND);
    assert_non_null(strstr(e.msg, x->seg[1]));
    assert_non_null(strstr(e.msg, x->map));
}

static void test_map_of_another_file_is_corrupt(void **state)
{
    fx *x = *state;
    gnn_err e;
    assert_int_equal(blkf_open(x->map, BS, BLK_KIND_FEATURE, TOKEN + 1, NLOG,
                               &x->f, &e), GNNDB_CORRUPT);
    assert_non_null(strstr(e.msg, "corrupt segment map"));
    assert_non_null(strstr(e.msg, x->map));
    assert_int_equal(blkf_open(x->map, BS, BLK_KIND_FEATURE, TOKEN, NLOG - 1,
                               &x->f, &e), GNNDB_CORRUPT);
    assert_int_equal(blkf_open(x->map, BS, BLK_KIND_GRAPH, TOKEN, NLOG,
                               &x->f, &e), GNNDB_CORRUPT);
    assert_int_equal(blkf_open(x->map, 2 * BS, BLK_KIND_FEATURE, TOKEN, NLOG,
                               &x->f, &e), GNNDB_CORRUPT);
    /* a damaged map is refused before any segment is opened */
    size_t len;
    char *raw = tu_read_file(x->map, &len);
    raw[len - 1] ^= 1;
    assert_int_equal(tu_write_file(x->map, raw, len), 0);
    free(raw);
    assert_int_equal(open_map(x, &e), GNNDB_CORRUPT);
    assert_non_null(strstr(e.msg, "checksum mismatch"));
    assert_null(x->f);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_every_block_reads_through_blkf_read),
        T(test_locate_and_expect_name_the_segment),
        T(test_pool_reads_stop_at_run_ends),
        T(test_pagefetch_reads_pages_in_their_segment),
        T(test_block_out_of_place_is_corrupt),
        T(test_truncated_or_missing_segment_fails_at_open),
        T(test_map_of_another_file_is_corrupt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
