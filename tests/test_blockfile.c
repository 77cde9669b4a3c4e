/* test_blockfile.c — block files: atomic writing under a temporary name,
** O_DIRECT reading with verification, truncation and damage detection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "block.h"
#include "blockfile.h"
#include "util.h"

#define TOKEN 0xfeedfacecafe0001ull
#define DIM   7

typedef struct fx {
    char *dir;
    char path[1024];
} fx;

static int setup(void **state)
{
    fx *x = calloc(1, sizeof *x);
    x->dir = tu_tmpdir("test_blockfile");
    if (!x->dir) return -1;
    snprintf(x->path, sizeof x->path, "%s/f-01.blk", x->dir);
    *state = x;
    return 0;
}

static int teardown(void **state)
{
    fx *x = *state;
    tu_rmrf(x->dir);
    free(x->dir);
    free(x);
    return 0;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Feature block `no`: rows of DIM float32 whose values name block and row. */
static void make_block(uint8_t *blk, uint32_t bs, uint64_t no)
{
    uint32_t rows = blk_feature_rows_per_block(bs, DIM, BLK_DTYPE_F32);
    float *v = (float *)(blk + blk_data_offset(bs));
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t d = 0; d < DIM; d++)
            v[r * DIM + d] = (float)(no * 1000 + r) + (float)d / 8;
    blk_seal(blk, bs, BLK_KIND_FEATURE, no, no * rows, TOKEN, rows,
             (uint32_t)(blk_data_offset(bs) + 4ull * rows * DIM), 0,
             BLK_DTYPE_F32, DIM);
}

static void write_file(fx *x, uint32_t bs, uint64_t n)
{
    gnn_err e;
    blk_writer *w;
    uint8_t *blk = malloc(bs); /* the writer takes any alignment */
    assert_int_equal(blkw_create(x->dir, "f-01.blk", bs, &w, &e), GNNDB_OK);
    for (uint64_t i = 0; i < n; i++) {
        make_block(blk, bs, i);
        assert_int_equal(blkw_append(w, blk, &e), GNNDB_OK);
    }
    assert_int_equal(blkw_nblocks(w), n);
    assert_int_equal(blkw_finish(w, &e), GNNDB_OK);
    free(blk);
}

static void test_write_finish_read_back(void **state)
{
    fx *x = *state;
    uint32_t sizes[] = { 4096, 65536, 1u << 20 };
    uint64_t counts[] = { 1500, 70, 9 }; /* several buffer flushes each */
    for (int s = 0; s < 3; s++) {
        uint32_t bs = sizes[s];
        uint64_t n = counts[s];
        gnn_err e;
        blk_writer *w;
        char tmp[1100];
        snprintf(tmp, sizeof tmp, "%s.tmp", x->path);
        uint8_t *blk = gnn_alloc_aligned(bs), *want = gnn_alloc_aligned(bs);
        unlink(x->path); /* the last round's file */
        assert_int_equal(blkw_create(x->dir, "f-01.blk", bs, &w, &e),
                         GNNDB_OK);
        for (uint64_t i = 0; i < n; i++) {
            make_block(blk, bs, i);
            assert_int_equal(blkw_append(w, blk, &e), GNNDB_OK);
        }
        /* not published until finished */
        assert_true(exists(tmp));
        assert_false(exists(x->path));
        assert_int_equal(blkw_finish(w, &e), GNNDB_OK);
        assert_false(exists(tmp));
        assert_true(exists(x->path));

        blk_file *f;
        assert_int_equal(blkf_open(x->path, bs, BLK_KIND_FEATURE, TOKEN, n,
                                   &f, &e), GNNDB_OK);
        assert_int_equal(f->nblocks, n);
        assert_string_equal(f->path, x->path);
        for (uint64_t i = 0; i < n; i++) {
            memset(blk, 0xAA, bs);
            assert_int_equal(blkf_read(f, i, blk, &e), GNNDB_OK);
            make_block(want, bs, i);
            assert_memory_equal(blk, want, bs);
        }
        blkf_close(f);
        gnn_free_aligned(blk);
        gnn_free_aligned(want);
    }
}

static void test_reader_uses_direct_io_on_this_file_system(void **state)
{
    fx *x = *state;
    write_file(x, 4096, 4);
    gnn_err e;
    blk_file *f;
    assert_int_equal(blkf_open(x->path, 4096, BLK_KIND_FEATURE, TOKEN, 4, &f,
                               &e), GNNDB_OK);
    /* tmpfs before Linux 6.6 refuses O_DIRECT: then the fallback is used */
    if (!f->direct) print_message("note: O_DIRECT refused, buffered reads\n");
    uint8_t *buf = gnn_alloc_aligned(4096);
    assert_int_equal(blkf_read(f, 3, buf, &e), GNNDB_OK);
    gnn_free_aligned(buf);
    blkf_close(f);
}

static void test_abort_leaves_no_file(void **state)
{
    fx *x = *state;
    gnn_err e;
    blk_writer *w;
    uint8_t *blk = gnn_alloc_aligned(4096);
    assert_int_equal(blkw_create(x->dir, "f-01.blk", 4096, &w, &e), GNNDB_OK);
    for (int i = 0; i < 2000; i++) {
        make_block(blk, 4096, (uint64_t)i);
        assert_int_equal(blkw_append(w, blk, &e), GNNDB_OK);
    }
    blkw_abort(w);
    blkw_abort(NULL);
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", x->path);
    assert_false(exists(tmp));
    assert_false(exists(x->path));
    gnn_free_aligned(blk);
}

static void test_finish_replaces_a_stale_temporary(void **state)
{
    fx *x = *state;
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", x->path);
    assert_int_equal(tu_write_file(tmp, "leftover of a crash", 19), 0);
    write_file(x, 4096, 3);
    struct stat st;
    assert_int_equal(stat(x->path, &st), 0);
    assert_int_equal(st.st_size, 3 * 4096);
    assert_false(exists(tmp));
}

static void test_truncated_file_is_corrupt(void **state)
{
    fx *x = *state;
    write_file(x, 4096, 10);
    assert_int_equal(truncate(x->path, 9 * 4096 + 100), 0);
    gnn_err e;
    blk_file *f = (blk_file *)0x1;
    assert_int_equal(blkf_open(x->path, 4096, BLK_KIND_FEATURE, TOKEN, 10, &f,
                               &e), GNNDB_CORRUPT);
    assert_null(f);
    assert_non_null(strstr(e.msg, "truncated"));
    assert_non_null(strstr(e.msg, x->path));
    /* and a file longer than the catalog says */
    assert_int_equal(blkf_open(x->path, 4096, BLK_KIND_FEATURE, TOKEN, 9, &f,
                               &e), GNNDB_CORRUPT);
    assert_non_null(strstr(e.msg, x->path));
}

static void test_damaged_block_is_corrupt_on_read(void **state)
{
    fx *x = *state;
    write_file(x, 4096, 10);
    int fd = open(x->path, O_WRONLY);
    assert_true(fd >= 0);
    uint8_t b = 0x5a;
    assert_int_equal(pwrite(fd, &b, 1, 5 * 4096 + 2000), 1);
    close(fd);
    gnn_err e;
    blk_file *f;
    assert_int_equal(blkf_open(x->path, 4096, BLK_KIND_FEATURE, TOKEN, 10, &f,
                               &e), GNNDB_OK);
    uint8_t *buf = gnn_alloc_aligned(4096);
    assert_int_equal(blkf_read(f, 4, buf, &e), GNNDB_OK);
    assert_int_equal(blkf_read(f, 5, buf, &e), GNNDB_CORRUPT);
    char want[1200];
    snprintf(want, sizeof want, "corrupt block 5 of %s: page 0: checksum mismatch",
             x->path);
    assert_non_null(strstr(e.msg, want));
    assert_int_equal(blkf_read(f, 10, buf, &e), GNNDB_CORRUPT);
    gnn_free_aligned(buf);
    blkf_close(f);
}

static void test_wrong_token_or_kind_is_corrupt_on_read(void **state)
{
    fx *x = *state;
    write_file(x, 4096, 2);
    gnn_err e;
    blk_file *f;
    uint8_t *buf = gnn_alloc_aligned(4096);
    assert_int_equal(blkf_open(x->path, 4096, BLK_KIND_FEATURE, TOKEN + 1, 2,
                               &f, &e), GNNDB_OK);
    assert_int_equal(blkf_read(f, 1, buf, &e), GNNDB_CORRUPT);
    assert_non_null(strstr(e.msg, "token"));
    blkf_close(f);
    assert_int_equal(blkf_open(x->path, 4096, BLK_KIND_GRAPH, TOKEN, 2, &f,
                               &e), GNNDB_OK);
    assert_int_equal(blkf_read(f, 0, buf, &e), GNNDB_CORRUPT);
    blkf_close(f);
    gnn_free_aligned(buf);
}

static void test_missing_file_or_directory_fails(void **state)
{
    fx *x = *state;
    gnn_err e;
    blk_file *f;
    assert_int_equal(blkf_open(x->path, 4096, BLK_KIND_FEATURE, TOKEN, 1, &f,
                               &e), GNNDB_NOTFOUND);
    assert_non_null(strstr(e.msg, x->path));
    blk_writer *w;
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/nope", x->dir);
    assert_int_not_equal(blkw_create(dir, "a.blk", 4096, &w, &e), GNNDB_OK);
    assert_null(w);
    assert_int_equal(blkw_create(x->dir, "a.blk", 5000, &w, &e), GNNDB_RANGE);
}

static void test_empty_file_round_trip(void **state)
{
    fx *x = *state;
    write_file(x, 4096, 0);
    gnn_err e;
    blk_file *f;
    assert_int_equal(blkf_open(x->path, 4096, BLK_KIND_FEATURE, TOKEN, 0, &f,
                               &e), GNNDB_OK);
    blkf_close(f);
    blkf_close(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_write_finish_read_back, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_reader_uses_direct_io_on_this_file_system, setup, teardown),
        cmocka_unit_test_setup_teardown(test_abort_leaves_no_file, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_finish_replaces_a_stale_temporary,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncated_file_is_corrupt, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_damaged_block_is_corrupt_on_read,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_wrong_token_or_kind_is_corrupt_on_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_file_or_directory_fails,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_file_round_trip, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
