/* test_segmap.c — the map of a segmented block file: built, written and
** read back whole; blocks located over runs of several segments; adjacent
** runs merged; and every kind of damage refused as GNNDB_CORRUPT naming the
** map. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "block.h"
#include "segmap.h"
#include "util.h"

#define BS    4096u
#define TOKEN 0x5e6000000000001ull
#define PATH  "g-7.seg"

/* Two segments: old (10 blocks) and new (4), interleaved in 5 runs:
** logical 0..2 = old 0..2, 3..4 = new 0..1, 5..8 = old 5..8,
** 9 = new 3, 10 = old 9. */
static void build(seg_map *m)
{
    gnn_err e;
    uint32_t a, b;
    seg_map_init(m, BLK_KIND_GRAPH, BS, TOKEN);
    assert_int_equal(seg_map_add_seg(m, "g-5.blk", 111, 10, &a, &e), 0);
    assert_int_equal(seg_map_add_seg(m, "g-7-d1.blk", 222, 4, &b, &e), 0);
    assert_int_equal(a, 0);
    assert_int_equal(b, 1);
    assert_int_equal(seg_map_add_run(m, a, 0, 3, &e), 0);
    assert_int_equal(seg_map_add_run(m, b, 0, 2, &e), 0);
    assert_int_equal(seg_map_add_run(m, a, 5, 4, &e), 0);
    assert_int_equal(seg_map_add_run(m, b, 3, 1, &e), 0);
    assert_int_equal(seg_map_add_run(m, a, 9, 1, &e), 0);
    assert_int_equal(m->nblocks, 11);
    assert_int_equal(m->nruns, 5);
}

static const struct { uint32_t seg; uint64_t phys, left; } want[11] = {
    {0, 0, 3}, {0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 1, 1}, {0, 5, 4},
    {0, 6, 3}, {0, 7, 2}, {0, 8, 1}, {1, 3, 1}, {0, 9, 1},
};

static void check_locate(const seg_map *m)
{
    for (uint64_t no = 0; no < 11; no++) {
        uint32_t seg;
        uint64_t phys, left;
        seg_map_locate(m, no, &seg, &phys, &left);
        assert_int_equal(seg, want[no].seg);
        assert_int_equal(phys, want[no].phys);
        assert_int_equal(left, want[no].left);
    }
}

static void test_locate_over_runs_of_two_segments(void **state)
{
    seg_map m;
    build(&m);
    check_locate(&m);
    seg_map_free(&m);
}

static void test_write_read_round_trip(void **state)
{
    char *dir = tu_tmpdir("test_segmap");
    seg_map m, r;
    gnn_err e;
    build(&m);
    assert_int_equal(seg_map_write(dir, PATH, &m, &e), GNNDB_OK);
    char path[1024], tmp[1100];
    snprintf(path, sizeof path, "%s/%s", dir, PATH);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    assert_null(tu_read_file(tmp, NULL));      /* renamed into place */
    assert_int_equal(seg_map_read(path, &r, &e), GNNDB_OK);
    assert_int_equal(r.kind, BLK_KIND_GRAPH);
    assert_int_equal(r.block_size, BS);
    assert_int_equal(r.token, TOKEN);
    assert_int_equal(r.nblocks, 11);
    assert_int_equal(r.nsegs, 2);
    assert_string_equal(r.segs[1].name, "g-7-d1.blk");
    assert_int_equal(r.segs[1].token, 222);
    assert_int_equal(r.segs[0].nblocks, 10);
    assert_int_equal(r.nruns, 5);
    assert_memory_equal(r.runs, m.runs, 5 * sizeof *r.runs);
    check_locate(&r);
    seg_map_free(&r);
    seg_map_free(&m);
    snprintf(path, sizeof path, "%s/none.seg", dir);
    assert_int_equal(seg_map_read(path, &r, &e), GNNDB_NOTFOUND);
    assert_non_null(strstr(e.msg, "none.seg"));
    tu_rmrf(dir);
    free(dir);
}

static void test_empty_map_round_trip(void **state)
{
    seg_map m, r;
    gnn_err e;
    uint32_t a;
    void *buf;
    size_t len;
    seg_map_init(&m, BLK_KIND_FEATURE, BS, TOKEN);
    assert_int_equal(seg_map_add_seg(&m, "f-1.blk", 1, 0, &a, &e), 0);
    assert_int_equal(seg_map_encode(&m, &buf, &len, &e), 0);
    assert_int_equal(len, SEG_HEADER_SIZE + SEG_ENTRY_SIZE);
    assert_int_equal(seg_map_parse(buf, len, PATH, &r, &e), GNNDB_OK);
    assert_int_equal(r.nblocks, 0);
    assert_int_equal(r.nruns, 0);
    seg_map_free(&r);
    free(buf);
    /* a map without a segment is never written */
    seg_map_init(&m, BLK_KIND_FEATURE, BS, TOKEN);
    assert_int_equal(seg_map_encode(&m, &buf, &len, &e), GNNDB_RANGE);
}

static void test_adjacent_runs_merge(void **state)
{
    seg_map m;
    gnn_err e;
    uint32_t a, b, again;
    seg_map_init(&m, BLK_KIND_FEATURE, BS, TOKEN);
    assert_int_equal(seg_map_add_seg(&m, "a.blk", 1, 100, &a, &e), 0);
    assert_int_equal(seg_map_add_seg(&m, "b.blk", 2, 100, &b, &e), 0);
    assert_int_equal(seg_map_add_seg(&m, "a.blk", 1, 100, &again, &e), 0);
    assert_int_equal(again, a);
    assert_int_equal(m.nsegs, 2);
    assert_int_equal(seg_map_add_seg(&m, "a.blk", 9, 100, &again, &e),
                     GNNDB_RANGE);
    for (uint64_t p = 0; p < 10; p++)              /* block by block */
        assert_int_equal(seg_map_add_run(&m, a, p, 1, &e), 0);
    assert_int_equal(m.nruns, 1);
    assert_int_equal(m.runs[0].count, 10);
    assert_int_equal(seg_map_add_run(&m, b, 10, 5, &e), 0);   /* other seg */
    assert_int_equal(seg_map_add_run(&m, a, 20, 5, &e), 0);   /* a jump */
    assert_int_equal(seg_map_add_run(&m, a, 25, 0, &e), 0);   /* nothing */
    assert_int_equal(seg_map_add_run(&m, a, 25, 5, &e), 0);   /* continues */
    assert_int_equal(m.nruns, 3);
    assert_int_equal(m.runs[2].lstart, 15);
    assert_int_equal(m.runs[2].count, 10);
    assert_int_equal(m.nblocks, 25);
    assert_int_equal(seg_map_add_run(&m, b, 96, 5, &e), GNNDB_RANGE);
    assert_int_equal(seg_map_add_run(&m, 2, 0, 1, &e), GNNDB_RANGE);
    assert_int_equal(m.nblocks, 25);
    seg_map_free(&m);
}

static void test_runs_longer_than_a_count_are_split(void **state)
{
    seg_map m;
    gnn_err e;
    uint32_t a;
    uint64_t big = (1ull << 33) + 5, phys, left;
    seg_map_init(&m, BLK_KIND_FEATURE, BS, TOKEN);
    assert_int_equal(seg_map_add_seg(&m, "a.blk", 1, big, &a, &e), 0);
    assert_int_equal(seg_map_add_run(&m, a, 0, big, &e), 0);
    assert_int_equal(m.nruns, 3);
    assert_int_equal(m.nblocks, big);
    seg_map_locate(&m, big - 1, &a, &phys, &left);
    assert_int_equal(phys, big - 1);
    assert_int_equal(left, 1);
    seg_map_locate(&m, 1, &a, &phys, &left);
    assert_int_equal(left, UINT32_MAX - 1);
    seg_map_free(&m);
}

static void test_bad_segment_names_are_refused_when_built(void **state)
{
    seg_map m;
    gnn_err e;
    uint32_t a;
    seg_map_init(&m, BLK_KIND_FEATURE, BS, TOKEN);
    const char *bad[] = {"", "sub/a.blk", ".", "..",
                         "a-name-of-forty-eight-bytes-is-too-long-for-it.blk"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(seg_map_add_seg(&m, bad[i], 1, 1, &a, &e),
                         GNNDB_RANGE);
    for (int i = 0; i < SEG_MAX_SEGS; i++) {
        char n[24];
        snprintf(n, sizeof n, "s%d.blk", i);
        assert_int_equal(seg_map_add_seg(&m, n, 1, 1, &a, &e), 0);
    }
    assert_int_equal(seg_map_add_seg(&m, "one-more.blk", 1, 1, &a, &e),
                     GNNDB_RANGE);
}

/* ---- damage -------------------------------------------------------------- */

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static void reseal(uint8_t *b, size_t len)
{
    put32(b + 40, 0);
    put32(b + 40, blk_crc32c(0, b, len));
}

static uint8_t *run_at(uint8_t *b, int i)
{
    return b + SEG_HEADER_SIZE + 2 * SEG_ENTRY_SIZE + SEG_RUN_SIZE * i;
}

/* Parse the valid map's bytes after `damage`, resealed unless `keep_crc`:
** it must fail as corrupt, naming the map and containing `words`. */
static void refused(void (*damage)(uint8_t *, size_t *), int keep_crc,
                    const char *words)
{
    seg_map m, r;
    gnn_err e;
    void *buf;
    size_t len;
    build(&m);
    assert_int_equal(seg_map_encode(&m, &buf, &len, &e), 0);
    seg_map_free(&m);
    uint8_t *b = realloc(buf, len + 64);
    memset(b + len, 0, 64);
    damage(b, &len);
    if (!keep_crc) reseal(b, len);
    int rc = seg_map_parse(b, len, PATH, &r, &e);
    if (rc != GNNDB_CORRUPT) print_error("accepted (%d): want %s\n", rc, words);
    assert_int_equal(rc, GNNDB_CORRUPT);
    assert_non_null(strstr(e.msg, "corrupt segment map " PATH ": "));
    if (!strstr(e.msg, words)) print_error("%s\n", e.msg);
    assert_non_null(strstr(e.msg, words));
    free(b);
}

static void bad_magic(uint8_t *b, size_t *len) { b[0] ^= 1; }
static void flip_bit(uint8_t *b, size_t *len) { b[*len - 3] ^= 0x10; }
static void cut(uint8_t *b, size_t *len) { *len -= 24; }
static void trailing(uint8_t *b, size_t *len) { *len += 8; }
static void cut_header(uint8_t *b, size_t *len) { *len = 40; }
static void bad_version(uint8_t *b, size_t *len) { b[4] = 9; }
static void bad_kind(uint8_t *b, size_t *len) { b[6] = 3; }
static void bad_size(uint8_t *b, size_t *len) { put32(b + 8, 5000); }
static void no_segs(uint8_t *b, size_t *len)
{
    put32(b + 12, 0);
    *len -= 2 * SEG_ENTRY_SIZE;
}
static void dirty_reserved(uint8_t *b, size_t *len) { b[60] = 1; }
static void gap(uint8_t *b, size_t *len) { put64(run_at(b, 2), 6); }
static void overlap(uint8_t *b, size_t *len) { put64(run_at(b, 1), 2); }
static void empty_run(uint8_t *b, size_t *len) { put32(run_at(b, 4) + 20, 0); }
static void past_segment(uint8_t *b, size_t *len)
{
    put64(run_at(b, 3) + 8, 4);   /* block 4 of a 4-block segment */
}
static void past_end(uint8_t *b, size_t *len) { put32(run_at(b, 4) + 20, 2); }
static void short_cover(uint8_t *b, size_t *len) { put64(b + 32, 12); }
static void bad_seg_index(uint8_t *b, size_t *len) { put32(run_at(b, 1) + 16, 2); }
static void too_many_runs(uint8_t *b, size_t *len) { put64(b + 32, 4); }
static void slash_name(uint8_t *b, size_t *len) { b[SEG_HEADER_SIZE + 1] = '/'; }
static void empty_name(uint8_t *b, size_t *len) { b[SEG_HEADER_SIZE] = 0; }
static void dotdot_name(uint8_t *b, size_t *len)
{
    memset(b + SEG_HEADER_SIZE, 0, SEG_NAME_MAX);
    memcpy(b + SEG_HEADER_SIZE, "..", 2);
}
static void unterminated(uint8_t *b, size_t *len)
{
    memset(b + SEG_HEADER_SIZE, 'x', SEG_NAME_MAX);
}
static void junk_after_name(uint8_t *b, size_t *len)
{
    b[SEG_HEADER_SIZE + SEG_NAME_MAX - 1] = 'x';
}
static void same_names(uint8_t *b, size_t *len)
{
    memcpy(b + SEG_HEADER_SIZE + SEG_ENTRY_SIZE, b + SEG_HEADER_SIZE,
           SEG_NAME_MAX);
}

static void test_damaged_maps_are_corrupt(void **state)
{
    refused(bad_magic, 0, "bad magic");
    refused(flip_bit, 1, "checksum mismatch");
    refused(cut, 0, "truncated");
    refused(cut, 1, "truncated");
    refused(trailing, 0, "trailing bytes");
    refused(cut_header, 1, "truncated");
    refused(bad_version, 0, "unknown version 9");
    refused(bad_kind, 0, "unknown kind 3");
    refused(bad_size, 0, "invalid block size 5000");
    refused(no_segs, 0, "0 segments");
    refused(dirty_reserved, 0, "reserved");
    refused(gap, 0, "gap");
    refused(overlap, 0, "overlap");
    refused(empty_run, 0, "run 4 is empty");
    refused(past_segment, 0, "passes the segment's 4 blocks");
    refused(past_end, 0, "passes the file's 11 blocks");
    refused(short_cover, 0, "runs cover 11 of 12 blocks");
    refused(bad_seg_index, 0, "names segment 2 of 2");
    refused(too_many_runs, 0, "5 runs for 4 blocks");
    refused(slash_name, 0, "'/'");
    refused(empty_name, 0, "an empty name");
    refused(dotdot_name, 0, ". or ..");
    refused(unterminated, 0, "48 bytes or more");
    refused(junk_after_name, 0, "after the name");
    refused(same_names, 0, "are both g-5.blk");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_locate_over_runs_of_two_segments),
        cmocka_unit_test(test_write_read_round_trip),
        cmocka_unit_test(test_empty_map_round_trip),
        cmocka_unit_test(test_adjacent_runs_merge),
        cmocka_unit_test(test_runs_longer_than_a_count_are_split),
        cmocka_unit_test(test_bad_segment_names_are_refused_when_built),
        cmocka_unit_test(test_damaged_maps_are_corrupt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
