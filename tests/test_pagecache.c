/* test_pagecache.c — the page cache's share of a file (storage/pagecache.c)
** and reading a block file through the cache (blkf_through_cache): a file
** just written is in the cache, the same file dropped from it
** (POSIX_FADV_DONTNEED after fsync) is not, and a file missing is an error;
** a block file read through the cache returns the same verified blocks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "block.h"
#include "blockfile.h"
#include "pagecache.h"
#include "util.h"

#define BS   4096u
#define NBLK 64u

static void write_bytes(const char *path, size_t n)
{
    unsigned char *buf = malloc(n);
    for (size_t i = 0; i < n; i++) buf[i] = (unsigned char)(i * 7);
    assert_int_equal(tu_write_file(path, buf, n), 0);
    free(buf);
}

static void cached_share_follows_the_cache(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("pagecache");
    char path[1024];
    snprintf(path, sizeof path, "%s/f.bin", dir);
    write_bytes(path, 1 << 20);
    int64_t cached, size;
    assert_int_equal(gnn_file_cached(path, &cached, &size), 0);
    assert_int_equal(size, 1 << 20);
    /* just written: in the cache (dirty pages count) */
    assert_true(cached > size / 2);
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(fdatasync(fd), 0);
    assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
    close(fd);
    assert_int_equal(gnn_file_cached(path, &cached, &size), 0);
    print_message("after POSIX_FADV_DONTNEED: %lld of %lld bytes cached\n",
                  (long long)cached, (long long)size);
    assert_true(cached < size / 2);
    /* an empty file: nothing, no error */
    snprintf(path, sizeof path, "%s/empty", dir);
    write_bytes(path, 0);
    assert_int_equal(gnn_file_cached(path, &cached, &size), 0);
    assert_int_equal(size, 0);
    snprintf(path, sizeof path, "%s/missing", dir);
    assert_int_equal(gnn_file_cached(path, &cached, &size), -ENOENT);
    assert_int_equal(cached + size, 0);
    tu_rmrf(dir);
    free(dir);
}

static void block_file_reads_the_same_through_the_cache(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("pagecache");
    gnn_err e;
    blk_writer *w;
    uint8_t *blk = gnn_alloc_aligned(BS);
    uint32_t rows = blk_feature_rows_per_block(BS, 4, BLK_DTYPE_F32);
    assert_int_equal(blkw_create(dir, "t.blk", BS, &w, &e), GNNDB_OK);
    for (uint64_t no = 0; no < NBLK; no++) {
        float *v = (float *)(blk + blk_data_offset(BS));
        for (uint32_t r = 0; r < rows * 4; r++) v[r] = (float)(no * 1000 + r);
        blk_seal(blk, BS, BLK_KIND_FEATURE, no, no * rows, 7, rows,
                 (uint32_t)(blk_data_offset(BS) + rows * 16), 0,
                 BLK_DTYPE_F32, 4);
        assert_int_equal(blkw_append(w, blk, &e), GNNDB_OK);
    }
    assert_int_equal(blkw_finish(w, &e), GNNDB_OK);
    char path[1024];
    snprintf(path, sizeof path, "%s/t.blk", dir);
    blk_file *f;
    assert_int_equal(blkf_open(path, BS, BLK_KIND_FEATURE, 7, NBLK, &f, &e),
                     GNNDB_OK);
    uint8_t *a = gnn_alloc_aligned(BS), *b = gnn_alloc_aligned(BS);
    assert_int_equal(blkf_read(f, 9, a, &e), GNNDB_OK);
    assert_int_equal(blkf_through_cache(f, &e), GNNDB_OK);
    assert_int_equal(f->direct, 0);
    assert_int_equal(blkf_through_cache(f, &e), GNNDB_OK);   /* again: no-op */
    assert_int_equal(blkf_read(f, 9, b, &e), GNNDB_OK);
    assert_memory_equal(a, b, BS);
    blkf_close(f);
    gnn_free_aligned(a);
    gnn_free_aligned(b);
    gnn_free_aligned(blk);
    tu_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cached_share_follows_the_cache),
        cmocka_unit_test(block_file_reads_the_same_through_the_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
