/* test_spill.c — the spill area: runs read back byte for byte under both
** I/O backends and any mix of appends and in-place reservations, a damaged
** run reported by area and offset, spill_limit and a full disk refused
** with nothing kept (a full disk: tests/e2e/resource_faults.sh), and the
** files a crash left removed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <cmocka.h>

#include "io.h"
#include "spill.h"
#include "util.h"

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) n++;
    closedir(d);
    return n;
}

/* Deterministic bytes: byte i of run r. */
static unsigned char byte_of(int r, size_t i)
{
    uint64_t z = (uint64_t)r * 0x9e3779b97f4a7c15ull + i * 0xbf58476d1ce4e5b9ull;
    return (unsigned char)(z >> 56);
}

/* Fill run r with `len` bytes in pieces of varied size, some appended, some
** written through reserve/commit. */
static void fill(spill_run *run, int r, size_t len, size_t bufsize)
{
    gnn_err e = {0};
    size_t at = 0, step = 1;
    while (at < len) {
        size_t n = GNN_MIN(len - at, step);
        if ((step & 1) && n <= bufsize / 2) {
            unsigned char *p = spill_run_reserve(run, n, &e);
            assert_non_null(p);
            for (size_t i = 0; i < n; i++) p[i] = byte_of(r, at + i);
            spill_run_commit(run, n);
        } else {
            unsigned char *tmp = malloc(n);
            for (size_t i = 0; i < n; i++) tmp[i] = byte_of(r, at + i);
            assert_int_equal(spill_run_append(run, tmp, n, &e), GNNDB_OK);
            free(tmp);
        }
        at += n;
        step = step * 3 + 7;
        if (step > 3 * bufsize) step = 5;
    }
}

static void runs_read_back_exactly(void **state)
{
    char *dir = tu_tmpdir("spill");
    const int kinds[] = {IO_AUTO, IO_PREAD};
    const size_t lens[] = {0, 1, 4095, 4096, 4097, 70000, 1 << 20};
    for (int k = 0; k < 2; k++) {
        spill_area *a;
        gnn_err e = {0};
        assert_int_equal(spill_open(dir, 0, kinds[k], &a, &e), GNNDB_OK);
        spill_run *runs[7];
        for (int r = 0; r < 7; r++) {
            assert_int_equal(spill_run_new(a, 16384, &runs[r], &e), GNNDB_OK);
            fill(runs[r], r, lens[r], 16384);
        }
        for (int r = 0; r < 7; r++) {
            assert_int_equal(spill_run_seal(runs[r], &e), GNNDB_OK);
            assert_int_equal(spill_run_bytes(runs[r]), lens[r]);
        }
        /* runs have no names: the directory stays empty */
        assert_int_equal(count_files(dir), 0);
        uint64_t in_use = spill_in_use(a);
        assert_true(in_use >= 70000 + (1 << 20));
        for (int r = 0; r < 7; r++) {
            size_t n = spill_run_read_size(runs[r]);
            unsigned char *buf = gnn_alloc_aligned(n);
            /* odd runs read ahead, even ones at once */
            if (r & 1) {
                assert_int_equal(spill_run_read_start(runs[r], buf, &e), GNNDB_OK);
                assert_int_equal(spill_run_read_wait(runs[r], &e), GNNDB_OK);
            } else {
                assert_int_equal(spill_run_read(runs[r], buf, &e), GNNDB_OK);
            }
            for (size_t i = 0; i < lens[r]; i++)
                if (buf[i] != byte_of(r, i))
                    fail_msg("run %d byte %zu differs", r, i);
            gnn_free_aligned(buf);
            spill_run_free(runs[r]);
        }
        assert_int_equal(spill_in_use(a), 0);
        spill_stats sts;
        spill_get_stats(a, &sts);
        const spill_stats *st = &sts;
        assert_int_equal(st->bytes_read, st->bytes_written);
        assert_int_equal(st->peak_bytes, in_use);
        spill_close(a);
    }
    tu_rmrf(dir);
    free(dir);
}

/* Two runs read back at once, waited for in either order (the reads of
** one land while the other is waited for); a third start beyond
** SPILL_READ_RUNS is refused, and freeing a run being read waits for it. */
static void two_runs_read_ahead_at_once(void **state)
{
    char *dir = tu_tmpdir("spill");
    const int kinds[] = {IO_AUTO, IO_PREAD};
    const size_t len = (3 << 20) + 123;
    for (int k = 0; k < 2; k++) {
        spill_area *a;
        gnn_err e = {0};
        assert_int_equal(spill_open(dir, 0, kinds[k], &a, &e), GNNDB_OK);
        spill_run *runs[4];
        unsigned char *buf[4];
        for (int r = 0; r < 4; r++) {
            assert_int_equal(spill_run_new(a, 65536, &runs[r], &e), GNNDB_OK);
            fill(runs[r], r, len, 65536);
            assert_int_equal(spill_run_seal(runs[r], &e), GNNDB_OK);
            buf[r] = gnn_alloc_aligned(spill_run_read_size(runs[r]));
        }
        assert_int_equal(spill_run_read_start(runs[0], buf[0], &e), GNNDB_OK);
        assert_int_equal(spill_run_read_start(runs[1], buf[1], &e), GNNDB_OK);
        assert_int_equal(SPILL_READ_RUNS, 2);
        assert_int_equal(spill_run_read_start(runs[2], buf[2], &e),
                         GNNDB_MISUSE);
        /* the later one first, then the earlier */
        assert_int_equal(spill_run_read_wait(runs[1], &e), GNNDB_OK);
        assert_int_equal(spill_run_read_start(runs[2], buf[2], &e), GNNDB_OK);
        assert_int_equal(spill_run_read_wait(runs[0], &e), GNNDB_OK);
        assert_int_equal(spill_run_read_start(runs[3], buf[3], &e), GNNDB_OK);
        assert_int_equal(spill_run_read_wait(runs[2], &e), GNNDB_OK);
        spill_run_free(runs[3]);    /* waits for its reads first */
        for (int r = 0; r < 3; r++) {
            for (size_t i = 0; i < len; i++)
                if (buf[r][i] != byte_of(r, i))
                    fail_msg("run %d byte %zu differs", r, i);
            spill_run_free(runs[r]);
        }
        for (int r = 0; r < 4; r++) gnn_free_aligned(buf[r]);
        assert_int_equal(spill_in_use(a), 0);
        spill_close(a);
    }
    tu_rmrf(dir);
    free(dir);
}

static void damaged_run_is_reported_not_returned(void **state)
{
    char *dir = tu_tmpdir("spill");
    spill_area *a;
    gnn_err e = {0};
    assert_int_equal(spill_open(dir, 0, IO_AUTO, &a, &e), GNNDB_OK);
    spill_run *run;
    assert_int_equal(spill_run_new(a, 8192, &run, &e), GNNDB_OK);
    fill(run, 3, 40000, 8192);
    assert_int_equal(spill_run_seal(run, &e), GNNDB_OK);
    /* flip a byte of the third chunk (offset 16384..24575) */
    unsigned char *blk = gnn_alloc_aligned(4096);
    assert_int_equal(pread(spill_run_fd(run), blk, 4096, 20480), 4096);
    blk[17] ^= 0x40;
    assert_int_equal(pwrite(spill_run_fd(run), blk, 4096, 20480), 4096);
    gnn_free_aligned(blk);
    unsigned char *buf = gnn_alloc_aligned(spill_run_read_size(run));
    assert_int_equal(spill_run_read(run, buf, &e), GNNDB_CORRUPT);
    assert_non_null(strstr(e.msg, dir));
    assert_non_null(strstr(e.msg, "offset 16384"));
    gnn_free_aligned(buf);
    spill_run_free(run);
    spill_close(a);
    tu_rmrf(dir);
    free(dir);
}

static void limit_is_refused_and_keeps_nothing(void **state)
{
    char *dir = tu_tmpdir("spill");
    spill_area *a;
    gnn_err e = {0};
    assert_int_equal(spill_open(dir, 1 << 16, IO_AUTO, &a, &e), GNNDB_OK);
    spill_run *run;
    assert_int_equal(spill_run_new(a, 8192, &run, &e), GNNDB_OK);
    unsigned char chunk[4096] = {0};
    int rc = GNNDB_OK;
    for (int i = 0; i < 100 && !rc; i++)
        rc = spill_run_append(run, chunk, sizeof chunk, &e);
    assert_int_equal(rc, GNNDB_FULL);
    assert_non_null(strstr(e.msg, "spill_limit"));
    assert_non_null(strstr(e.msg, dir));
    assert_true(spill_in_use(a) <= 1 << 16);
    spill_run_free(run);
    assert_int_equal(spill_in_use(a), 0);
    assert_int_equal(count_files(dir), 0);
    spill_close(a);
    tu_rmrf(dir);
    free(dir);
}

static void stale_runs_of_dead_processes_are_removed(void **state)
{
    char *dir = tu_tmpdir("spill");
    char p1[1200], p2[1200], p3[1200];
    /* pid 2^22+ is above the default pid_max: never a live process */
    snprintf(p1, sizeof p1, "%s/gnndb-spill-%d-0", dir, 4999999);
    snprintf(p2, sizeof p2, "%s/gnndb-spill-%ld-7", dir, (long)getpid());
    snprintf(p3, sizeof p3, "%s/unrelated.blk", dir);
    assert_int_equal(tu_write_file(p1, "x", 1), 0);
    assert_int_equal(tu_write_file(p2, "x", 1), 0);
    assert_int_equal(tu_write_file(p3, "x", 1), 0);
    assert_int_equal(spill_remove_stale(dir), 1);
    assert_int_equal(access(p1, F_OK), -1);
    assert_int_equal(access(p2, F_OK), 0);
    assert_int_equal(access(p3, F_OK), 0);
    /* opening an area cleans up as well */
    assert_int_equal(tu_write_file(p1, "x", 1), 0);
    spill_area *a;
    gnn_err e = {0};
    assert_int_equal(spill_open(dir, 0, IO_AUTO, &a, &e), GNNDB_OK);
    assert_int_equal(access(p1, F_OK), -1);
    spill_close(a);
    tu_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(runs_read_back_exactly),
        cmocka_unit_test(two_runs_read_ahead_at_once),
        cmocka_unit_test(damaged_run_is_reported_not_returned),
        cmocka_unit_test(limit_is_refused_and_keeps_nothing),
        cmocka_unit_test(stale_runs_of_dead_processes_are_removed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
