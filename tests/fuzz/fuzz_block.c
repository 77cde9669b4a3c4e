/* fuzz_block.c — libFuzzer target: blk_verify over damaged blocks.
**
** A valid sealed block is the base (byte 0 picks one: a graph block of small
** nodes, a graph block whose last node continues, a continuation block, a
** float32 feature block, an int64 label block). The rest of the input is a
** list of patches { u16 offset, u8 length, bytes } laid over the base. With
** bit 7 of byte 0 set the checksum is then recomputed, as a buggy writer
** would seal a bad block, so that the structural checks behind the checksum
** are reached too.
**
** blk_verify must return GNNDB_OK or GNNDB_CORRUPT (with words naming the
** file and block), never crash; and when it accepts a block, every object
** and row the accessors hand out lies inside the block's used bytes. */
#include "block.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c) do { if (!(c)) abort(); } while (0)

#define BS      4096u
#define TOKEN   0x1234abcd5678ef01ull
#define NBASES  5

typedef struct base {
    uint8_t *block;
    uint16_t kind;
    uint64_t block_no;
} base;

static base bases[NBASES];

typedef struct grab {
    uint64_t want[2];   /* block numbers to keep */
    uint8_t *out[2];
} grab;

static int grab_block(void *arg, const void *block, uint64_t block_no,
                      uint32_t checksum, gnn_err *e)
{
    (void)checksum; (void)e;
    grab *g = arg;
    for (int i = 0; i < 2; i++)
        if (block_no == g->want[i] && !g->out[i]) {
            g->out[i] = malloc(BS);
            CHECK(g->out[i]);
            memcpy(g->out[i], block, BS);
        }
    return GNNDB_OK;
}

/* Two graph blocks from a small graph: block 0 ends with a node whose list
** continues, block 1 is that node's continuation followed by more nodes. */
static void make_graph_bases(void)
{
    blk_graph_packer *p;
    gnn_err e = {0};
    grab g = {{0, 1}, {NULL, NULL}};
    CHECK(blk_graph_packer_new(BS, TOKEN, grab_block, NULL, &g, &p, &e) == 0);
    uint32_t nbrs[1500];
    for (uint32_t i = 0; i < 1500; i++) nbrs[i] = i * 7 % 100;
    uint64_t v = 0;
    for (; v < 40; v++)    /* small lists, one of degree 0 */
        CHECK(blk_graph_packer_add(p, v, nbrs, (uint32_t)(v % 9), &e) == 0);
    CHECK(blk_graph_packer_add(p, v++, nbrs, 1500, &e) == 0);
    for (; v < 60; v++)
        CHECK(blk_graph_packer_add(p, v, nbrs, 3, &e) == 0);
    uint64_t nb;
    CHECK(blk_graph_packer_finish(p, &nb, &e) == 0);
    blk_graph_packer_free(p);
    CHECK(g.out[0] && g.out[1]);
    bases[0] = (base){g.out[0], BLK_KIND_GRAPH, 0};
    bases[1] = (base){g.out[1], BLK_KIND_GRAPH, 1};
}

static uint8_t *make_feature(uint32_t dtype, uint32_t dim, uint32_t rows,
                             uint64_t first)
{
    uint8_t *b = calloc(1, BS);
    CHECK(b);
    size_t es = blk_dtype_size(dtype);
    size_t at = blk_data_offset(BS);
    for (size_t i = at; i < at + (size_t)rows * dim * es; i++)
        b[i] = (uint8_t)(i * 31);
    blk_seal(b, BS, BLK_KIND_FEATURE, 3, first, TOKEN, rows,
             (uint32_t)(at + (size_t)rows * dim * es), 0, dtype, dim);
    return b;
}

static void init(void)
{
    make_graph_bases();
    /* a graph block of one node only: a lone empty object */
    uint8_t *b = calloc(1, BS);
    CHECK(b);
    uint32_t off = blk_data_offset(BS) + 4;
    memcpy(b + blk_data_offset(BS), &off, 4);
    blk_node o = {5, 0, 0, 0};
    memcpy(b + off, &o, sizeof o);
    blk_seal(b, BS, BLK_KIND_GRAPH, 2, 5, TOKEN, 1, off + sizeof o, 0, 0, 0);
    bases[2] = (base){b, BLK_KIND_GRAPH, 2};
    bases[3] = (base){make_feature(BLK_DTYPE_F32, 7, 100, 300),
                      BLK_KIND_FEATURE, 3};
    bases[4] = (base){make_feature(BLK_DTYPE_I64, 1, 500, 0),
                      BLK_KIND_FEATURE, 3};
    gnn_err e = {0};
    for (int i = 0; i < NBASES; i++)
        CHECK(blk_verify(bases[i].block, BS, bases[i].kind,
                         bases[i].block_no, TOKEN, "base.blk", &e) == 0);
}

/* Everything an accepted block hands out lies within [payload, used). */
static void walk(const uint8_t *b)
{
    const blk_header *h = (const blk_header *)b;
    CHECK(h->used >= blk_data_offset(BS) && h->used <= BS);
    const uint8_t *lo = b + blk_data_offset(BS), *hi = b + h->used;
    volatile uint64_t sum = 0;
    if (h->kind == BLK_KIND_GRAPH) {
        for (uint32_t k = 0; k < h->count; k++) {
            const blk_node *o = blk_graph_object(b, k);
            CHECK((const uint8_t *)o >= lo);
            CHECK((const uint8_t *)(o + 1) <= hi);
            CHECK(o->node == h->first_node + k);
            CHECK((uint64_t)o->start + o->n <= o->degree);
            const uint32_t *nb = blk_node_nbrs(o);
            CHECK((const uint8_t *)(nb + o->n) <= hi);
            for (uint32_t i = 0; i < o->n; i++) sum += nb[i];
            CHECK(blk_graph_find(b, h->first_node + k) == o);
        }
        CHECK(blk_graph_find(b, h->first_node + h->count) == NULL);
        if (h->first_node > 0)
            CHECK(blk_graph_find(b, h->first_node - 1) == NULL);
    } else {
        CHECK(h->kind == BLK_KIND_FEATURE);
        size_t row = (size_t)h->dim * blk_dtype_size(h->dtype);
        CHECK(row > 0);
        for (uint32_t i = 0; i < h->count; i++) {
            const uint8_t *r = blk_feature_row(b, i);
            CHECK(r >= lo && r + row <= hi);
            sum += r[0] + r[row - 1];
        }
    }
    (void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) { init(); ready = 1; }
    if (size < 1) return 0;
    const base *bs = &bases[(data[0] & 0x7f) % NBASES];
    int reseal = (data[0] & 0x80) != 0;
    uint8_t *b = malloc(BS);   /* exactly one block: ASan guards its ends */
    CHECK(b);
    memcpy(b, bs->block, BS);
    size_t i = 1;
    while (i + 3 <= size) {
        size_t off = ((size_t)data[i] | (size_t)data[i + 1] << 8) % BS;
        size_t n = data[i + 2];
        i += 3;
        if (n > size - i) n = size - i;
        if (n > BS - off) n = BS - off;
        memcpy(b + off, data + i, n);
        i += n;
    }
    if (reseal) {
        blk_header *h = (blk_header *)b;
        h->checksum = 0;
        h->checksum = blk_crc32c(0, b, BS);
    }
    gnn_err e = {0};
    int rc = blk_verify(b, BS, bs->kind, bs->block_no, TOKEN, "fuzz.blk", &e);
    if (rc == GNNDB_OK) {
        CHECK(e.rc == GNNDB_OK);
        walk(b);
    } else {
        char want[64];
        snprintf(want, sizeof want, "corrupt block %llu of fuzz.blk: ",
                 (unsigned long long)bs->block_no);
        CHECK(rc == GNNDB_CORRUPT && e.rc == rc);
        CHECK(strncmp(e.msg, want, strlen(want)) == 0);
    }
    /* a read of page 0 alone: the objects a hop would use after it are
    ** used only when they fit their spans, and then lie in the block */
    rc = blk_verify_pages(b, BS, bs->kind, bs->block_no, TOKEN, "fuzz.blk",
                          NULL, 0, &e);
    if (rc == GNNDB_OK && bs->kind == BLK_KIND_GRAPH) {
        const blk_header *h = (const blk_header *)b;
        for (uint32_t k = 0; k < h->count && k < BS / 4; k++) {
            if (!blk_graph_object_fits(b, k)) continue;
            const blk_node *o = blk_graph_object(b, k);
            CHECK((const uint8_t *)o >= b + blk_data_offset(BS));
            CHECK((const uint8_t *)(blk_node_nbrs(o) + o->n) <= b + h->used);
        }
    }
    /* the damaged block must never verify as a different, healthy block */
    free(b);
    return 0;
}
