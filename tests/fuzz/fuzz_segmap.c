/* fuzz_segmap.c — libFuzzer target: seg_map_parse over any bytes.
**
** A segment map tells every reader of a segmented file where each logical
** block lies, and nothing after it checks the placement but a block's own
** header: so a map the parser accepts must place every logical block
** inside a listed segment, consistently (seg_map_locate's run of blocks
** back to back agrees with the locations of the blocks in it, and the runs
** tile [0, nblocks)), and encode again to the same bytes. A refused map is
** GNNDB_CORRUPT with words naming it.
**
** Each input is parsed as it is and again with its checksum recomputed, as
** a buggy writer would seal a bad map, so that the checks behind the
** checksum are reached too. */
#include "segmap.h"
#include "block.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c) do { if (!(c)) abort(); } while (0)

#define PATH "fuzz.seg"

/* Block `no` and the blocks its run says follow it in its segment. */
static void check_block(const seg_map *m, uint64_t no)
{
    uint32_t seg, seg2;
    uint64_t phys, left, phys2, left2;
    seg_map_locate(m, no, &seg, &phys, &left);
    CHECK(seg < m->nsegs);
    CHECK(left >= 1 && left <= m->nblocks - no);
    CHECK(phys < m->segs[seg].nblocks);
    CHECK(left <= m->segs[seg].nblocks - phys);
    uint64_t last = no + left - 1;
    seg_map_locate(m, last, &seg2, &phys2, &left2);
    CHECK(seg2 == seg && phys2 == phys + left - 1 && left2 == 1);
}

/* Every block of a small map, the ends and middle of each run of a big one
** (nblocks may be 2^60 with a handful of runs). */
static void check_all(const seg_map *m)
{
    uint64_t covered = 0;
    for (size_t i = 0; i < m->nruns; i++) {
        const seg_run *r = &m->runs[i];
        CHECK(r->lstart == covered && r->count >= 1);
        check_block(m, r->lstart);
        check_block(m, r->lstart + r->count / 2);
        check_block(m, r->lstart + r->count - 1);
        covered += r->count;
    }
    CHECK(covered == m->nblocks);
    if (m->nblocks <= 4096)
        for (uint64_t no = 0; no < m->nblocks; no++) check_block(m, no);
    for (uint32_t i = 0; i < m->nsegs; i++) {
        size_t n = strnlen(m->segs[i].name, SEG_NAME_MAX);
        CHECK(n > 0 && n < SEG_NAME_MAX && !strchr(m->segs[i].name, '/'));
        for (uint32_t j = 0; j < i; j++)
            CHECK(strcmp(m->segs[i].name, m->segs[j].name) != 0);
    }
}

static void parse_one(const uint8_t *b, size_t size)
{
    seg_map m;
    gnn_err e = {0};
    int rc = seg_map_parse(b, size, PATH, &m, &e);
    if (rc == GNNDB_OK) {
        CHECK(e.rc == GNNDB_OK);
        check_all(&m);
        void *out;
        size_t len;
        CHECK(seg_map_encode(&m, &out, &len, &e) == GNNDB_OK);
        CHECK(len == size && memcmp(out, b, size) == 0);
        free(out);
        seg_map_free(&m);
    } else {
        static const char want[] = "corrupt segment map " PATH ": ";
        CHECK(rc == GNNDB_CORRUPT && e.rc == rc);
        CHECK(strncmp(e.msg, want, strlen(want)) == 0);
        CHECK(m.runs == NULL);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a copy of exactly the input, so that ASan guards its ends */
    uint8_t *b = malloc(size ? size : 1);
    CHECK(b);
    memcpy(b, data, size);
    parse_one(b, size);
    if (size >= SEG_HEADER_SIZE) {
        memset(b + 40, 0, 4);
        uint32_t crc = blk_crc32c(0, b, size);
        for (int i = 0; i < 4; i++) b[40 + i] = (uint8_t)(crc >> (8 * i));
        parse_one(b, size);
    }
    free(b);
    return 0;
}
