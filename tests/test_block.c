/* test_block.c — CRC32C, block sealing and verification, and access to
** the objects and rows of graph and feature blocks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "block.h"
#include "util.h"

/* block.c exposes both CRC32C implementations for this comparison. */
uint32_t blk_crc32c_sw(uint32_t crc, const void *data, size_t len);
uint32_t blk_crc32c_hw(uint32_t crc, const void *data, size_t len);
int blk_crc32c_hw_available(void);

#define PATH  "/data/x.gnndb/g-ab.blk"
#define TOKEN 0x1234abcd5678ef00ull

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void fill_random(void *p, size_t n, uint64_t seed)
{
    uint8_t *b = p;
    for (size_t i = 0; i < n; i++) b[i] = (uint8_t)(rng_next(&seed) >> 24);
}

/* ---- CRC32C ------------------------------------------------------------ */

static void test_crc32c_known_vectors(void **state)
{
    uint8_t buf[32];
    assert_int_equal(blk_crc32c(0, "123456789", 9), 0xE3069283u);
    assert_int_equal(blk_crc32c(0, "", 0), 0);
    /* the test vectors of RFC 3720, appendix B.4 */
    memset(buf, 0, sizeof buf);
    assert_int_equal(blk_crc32c(0, buf, 32), 0x8A9136AAu);
    memset(buf, 0xff, sizeof buf);
    assert_int_equal(blk_crc32c(0, buf, 32), 0x62A8AB43u);
    for (int i = 0; i < 32; i++) buf[i] = (uint8_t)i;
    assert_int_equal(blk_crc32c(0, buf, 32), 0x46DD794Eu);
    for (int i = 0; i < 32; i++) buf[i] = (uint8_t)(31 - i);
    assert_int_equal(blk_crc32c(0, buf, 32), 0x113FDB5Cu);
    assert_int_equal(blk_crc32c_sw(0, "123456789", 9), 0xE3069283u);
}

static void test_crc32c_continues_across_calls(void **state)
{
    uint32_t c = blk_crc32c(0, "1234", 4);
    assert_int_equal(blk_crc32c(c, "56789", 5), 0xE3069283u);
    c = blk_crc32c_sw(0, "12345678", 8);
    assert_int_equal(blk_crc32c_sw(c, "9", 1), 0xE3069283u);
}

static void test_crc32c_hw_matches_table(void **state)
{
    if (!blk_crc32c_hw_available()) skip();
    size_t cap = 3u << 20;   /* past the three-stream threshold */
    uint8_t *buf = malloc(cap + 16);
    assert_non_null(buf);
    fill_random(buf, cap + 16, 99);
    uint64_t s = 7;
    for (int i = 0; i < 2000; i++) {
        size_t off = rng_next(&s) % 16;
        size_t len = i < 64 ? (size_t)i
                     : i < 128 ? (64u << 10) - 64 + (size_t)(i - 64) * 2
                     : i < 160 ? (1u << 20) - 16 + (size_t)(i - 128)
                     : rng_next(&s) % (i % 4 ? 70000 : cap);
        uint32_t seed = (uint32_t)rng_next(&s);
        assert_int_equal(blk_crc32c_hw(seed, buf + off, len),
                         blk_crc32c_sw(seed, buf + off, len));
    }
    free(buf);
}

/* ---- sizes ------------------------------------------------------------- */

static void test_block_size_valid_only_powers_of_two_in_range(void **state)
{
    for (uint64_t bs = BLK_MIN_SIZE; bs <= BLK_MAX_SIZE; bs *= 2)
        assert_true(blk_size_valid(bs));
    assert_false(blk_size_valid(0));
    assert_false(blk_size_valid(2048));
    assert_false(blk_size_valid(32u << 20));
    assert_false(blk_size_valid(4096 + 4096 * 2));
    assert_false(blk_size_valid(1000000));
}

static void test_dtype_sizes_and_names(void **state)
{
    assert_int_equal(blk_dtype_size(BLK_DTYPE_F32), 4);
    assert_int_equal(blk_dtype_size(BLK_DTYPE_F16), 2);
    assert_int_equal(blk_dtype_size(BLK_DTYPE_I8), 1);
    assert_int_equal(blk_dtype_size(BLK_DTYPE_I64), 8);
    assert_int_equal(blk_dtype_size(99), 0);
    assert_string_equal(blk_dtype_name(BLK_DTYPE_F32), "float32");
    assert_string_equal(blk_dtype_name(BLK_DTYPE_I64), "int64");
    assert_non_null(blk_dtype_name(0));
}

static void test_feature_rows_per_block(void **state)
{
    assert_int_equal(blk_feature_rows_per_block(1u << 20, 128, BLK_DTYPE_F32),
                     ((1u << 20) - blk_data_offset(1u << 20)) / 512);
    assert_int_equal(blk_feature_rows_per_block(4096, 1, BLK_DTYPE_I64),
                     (4096 - blk_data_offset(4096)) / 8);
    assert_int_equal(blk_feature_rows_per_block(4096, 1006, BLK_DTYPE_F32), 1);
    assert_int_equal(blk_feature_rows_per_block(4096, 1007, BLK_DTYPE_F32), 0);
    assert_int_equal(blk_feature_rows_per_block(4096, 0, BLK_DTYPE_F32), 0);
    assert_int_equal(blk_feature_rows_per_block(4096, 4, 99), 0);
}

static void test_cont_capacity_fills_a_block_exactly(void **state)
{
    for (uint32_t bs = BLK_MIN_SIZE; bs <= BLK_MAX_SIZE; bs *= 2) {
        uint32_t cap = blk_graph_cont_capacity(bs);
        size_t need = blk_data_offset(bs) + 4 + sizeof(blk_node) + 4ull * cap;
        assert_true(need <= bs);
        assert_true(need + 4 > bs);
    }
}

/* ---- building blocks by hand ------------------------------------------- */

static uint32_t nbr_of(uint64_t node, uint32_t j)
{
    return (uint32_t)((node * 2654435761u + j * 40503u) % 1000003u);
}

/* A graph block of `count` nodes from `first`, node first+k with
** deg[k] neighbours, all of them in this block. Returns bytes used. */
static uint32_t build_graph(uint8_t *blk, uint32_t bs, uint64_t block_no,
                            uint64_t first, uint32_t count,
                            const uint32_t *deg)
{
    memset(blk, 0, bs);
    uint32_t *off = (uint32_t *)(blk + blk_data_offset(bs));
    uint32_t at = (uint32_t)(blk_data_offset(bs) + 4 * count);
    for (uint32_t k = 0; k < count; k++) {
        blk_node nd = { (uint32_t)(first + k), deg[k], 0, deg[k] };
        assert_true(at + sizeof nd + 4ull * deg[k] <= bs);
        off[k] = at;
        memcpy(blk + at, &nd, sizeof nd);
        uint32_t *nb = (uint32_t *)(blk + at + sizeof nd);
        for (uint32_t j = 0; j < deg[k]; j++) nb[j] = nbr_of(first + k, j);
        at += (uint32_t)(sizeof nd + 4 * deg[k]);
    }
    blk_seal(blk, bs, BLK_KIND_GRAPH, block_no, first, TOKEN, count, at, 0, 0,
             0);
    return at;
}

/* A feature block of as many float32 rows of `dim` as fit, from `first`. */
static uint32_t build_feature(uint8_t *blk, uint32_t bs, uint64_t block_no,
                              uint64_t first, uint32_t dim)
{
    uint32_t rows = blk_feature_rows_per_block(bs, dim, BLK_DTYPE_F32);
    float *x = (float *)(blk + blk_data_offset(bs));
    for (uint64_t r = 0; r < rows; r++)
        for (uint32_t d = 0; d < dim; d++)
            x[r * dim + d] = (float)((first + r) * 10 + d);
    uint32_t used = (uint32_t)(blk_data_offset(bs) + 4ull * rows * dim);
    fill_random(blk + used, bs - used, 3); /* seal must clear the tail */
    blk_seal(blk, bs, BLK_KIND_FEATURE, block_no, first, TOKEN, rows, used, 0,
             BLK_DTYPE_F32, dim);
    return rows;
}

static int verify(const uint8_t *blk, uint32_t bs, uint16_t kind,
                  uint64_t no, gnn_err *e)
{
    gnn_clearerr(e);
    return blk_verify(blk, bs, kind, no, TOKEN, PATH, e);
}

/* ---- seal / verify ----------------------------------------------------- */

static void test_seal_verify_round_trip_every_block_size(void **state)
{
    uint8_t *blk = gnn_alloc_aligned(BLK_MAX_SIZE);
    assert_non_null(blk);
    gnn_err e;
    for (uint32_t bs = BLK_MIN_SIZE; bs <= BLK_MAX_SIZE; bs *= 2) {
        uint32_t dim = 13;
        uint32_t rows = build_feature(blk, bs, 12, 5000, dim);
        const blk_header *h = (const blk_header *)blk;
        assert_int_equal(verify(blk, bs, BLK_KIND_FEATURE, 12, &e), GNNDB_OK);
        assert_int_equal(h->magic, BLK_MAGIC);
        assert_int_equal(h->block_size, bs);
        assert_int_equal(h->count, rows);
        assert_int_equal(h->first_node, 5000);
        for (size_t i = h->used; i < bs; i++) assert_int_equal(blk[i], 0);
        const float *last = blk_feature_row(blk, rows - 1);
        assert_true(last[dim - 1] ==
                    (float)((5000 + rows - 1) * 10 + dim - 1));

        uint32_t deg[64];
        for (int k = 0; k < 64; k++) deg[k] = (uint32_t)(k % 7) * 3;
        uint32_t count = bs == 4096 ? 20 : 64;
        build_graph(blk, bs, 3, 777, count, deg);
        assert_int_equal(verify(blk, bs, BLK_KIND_GRAPH, 3, &e), GNNDB_OK);
    }
    gnn_free_aligned(blk);
}

static void test_graph_objects_found_by_node(void **state)
{
    uint32_t bs = 8192;
    uint8_t *blk = gnn_alloc_aligned(bs);
    uint32_t deg[10] = { 3, 0, 5, 1, 0, 0, 9, 2, 4, 1 };
    build_graph(blk, bs, 4, 100, 10, deg);
    gnn_err e;
    assert_int_equal(verify(blk, bs, BLK_KIND_GRAPH, 4, &e), GNNDB_OK);
    for (uint32_t k = 0; k < 10; k++) {
        const blk_node *o = blk_graph_find(blk, 100 + k);
        assert_non_null(o);
        assert_ptr_equal(o, blk_graph_object(blk, k));
        assert_int_equal(o->node, 100 + k);
        assert_int_equal(o->degree, deg[k]);
        assert_int_equal(o->n, deg[k]);
        assert_int_equal((uintptr_t)o % 4, 0);
        for (uint32_t j = 0; j < o->n; j++)
            assert_int_equal(blk_node_nbrs(o)[j], nbr_of(100 + k, j));
    }
    assert_null(blk_graph_find(blk, 99));
    assert_null(blk_graph_find(blk, 110));
    assert_null(blk_graph_find(blk, 0));
    gnn_free_aligned(blk);
}

/* A full continuation block: one object of the node holding cap neighbours,
** then a second block starting with the tail of the list and two more
** nodes, as the packer lays out a node too long for one block. */
static void test_continuation_blocks_verify(void **state)
{
    uint32_t bs = 4096, cap = blk_graph_cont_capacity(bs);
    uint8_t *blk = gnn_alloc_aligned(bs);
    memset(blk, 0, bs);
    uint32_t d = blk_data_offset(bs);
    uint32_t *off = (uint32_t *)(blk + d);
    off[0] = d + 4;
    blk_node nd = { 42, 5000, 100, cap };
    memcpy(blk + d + 4, &nd, sizeof nd);
    uint32_t used = d + 4 + 16 + 4 * cap;
    assert_int_equal(used, bs);
    blk_seal(blk, bs, BLK_KIND_GRAPH, 8, 42, TOKEN, 1, used,
             BLK_FLAG_CONT_FIRST, 0, 0);
    gnn_err e;
    assert_int_equal(verify(blk, bs, BLK_KIND_GRAPH, 8, &e), GNNDB_OK);
    assert_ptr_equal(blk_graph_find(blk, 42), blk + d + 4);

    /* the end of node 42's list, then nodes 43 and 44 */
    memset(blk, 0, bs);
    off[0] = d + 12;
    off[1] = off[0] + 16 + 4 * 10;
    off[2] = off[1] + 16 + 4 * 2;
    blk_node a = { 42, 5000, 4990, 10 }, b = { 43, 2, 0, 2 },
             c = { 44, 7, 0, 3 };
    memcpy(blk + off[0], &a, sizeof a);
    memcpy(blk + off[1], &b, sizeof b);
    memcpy(blk + off[2], &c, sizeof c);
    blk_seal(blk, bs, BLK_KIND_GRAPH, 9, 42, TOKEN, 3, off[2] + 16 + 12,
             BLK_FLAG_CONT_FIRST, 0, 0);
    assert_int_equal(verify(blk, bs, BLK_KIND_GRAPH, 9, &e), GNNDB_OK);
    gnn_free_aligned(blk);
}

static void assert_corrupt(const uint8_t *blk, uint32_t bs, uint16_t kind,
                           uint64_t no, const char *words);

/* The packer of an edge-id graph: every block flagged, each object's ids
** after its neighbours, a long list continued in blocks of half the
** capacity, objects that verify and fit; the plain packer fed the same
** lists lays out the same nodes with twice the room. */
typedef struct packed {
    uint8_t *blocks;      /* every block emitted, back to back */
    uint64_t n;
    uint32_t bs;
} packed;

static int keep_block(void *arg, const void *block, uint64_t no,
                      uint32_t crc, gnn_err *e)
{
    packed *p = arg;
    p->blocks = realloc(p->blocks, (size_t)(p->n + 1) * p->bs);
    memcpy(p->blocks + (size_t)p->n * p->bs, block, p->bs);
    p->n++;
    return GNNDB_OK;
}

static void test_eid_packer_layout(void **state)
{
    uint32_t bs = 4096, deg[4] = {3, 1500, 0, 7};
    uint32_t nb[1500], id[1500];
    packed p = {NULL, 0, bs};
    blk_graph_packer *pk;
    gnn_err e = {0};
    assert_int_equal(blk_graph_packer_new_eids(bs, TOKEN, keep_block, NULL, &p,
                                               &pk, &e), GNNDB_OK);
    assert_int_equal(blk_graph_packer_add(pk, 0, nb, 1, &e), GNNDB_INTERNAL);
    for (uint32_t v = 0; v < 4; v++) {
        for (uint32_t j = 0; j < deg[v]; j++) {
            nb[j] = nbr_of(v, j);
            id[j] = v * 10000 + j;
        }
        assert_int_equal(blk_graph_packer_add_eids(pk, v, nb, id, deg[v], &e),
                         GNNDB_OK);
    }
    assert_int_equal(blk_graph_packer_finish(pk, NULL, &e), GNNDB_OK);
    blk_graph_packer_free(pk);
    uint32_t cap = blk_graph_cont_capacity_flags(bs, BLK_FLAG_EIDS);
    assert_int_equal(cap, blk_graph_cont_capacity(bs) / 2);
    assert_true(p.n >= 1500 / cap);   /* more blocks than a plain list needs */
    uint32_t seen[4] = {0};
    for (uint64_t b = 0; b < p.n; b++) {
        uint8_t *blk = p.blocks + b * bs;
        const blk_header *h = (const blk_header *)blk;
        assert_int_equal(verify(blk, bs, BLK_KIND_GRAPH, b, &e), GNNDB_OK);
        assert_true(h->flags & BLK_FLAG_EIDS);
        for (uint32_t k = 0; k < h->count; k++) {
            const blk_node *o = blk_graph_object(blk, k);
            assert_true(blk_graph_object_fits(blk, k));
            for (uint32_t j = 0; j < o->n; j++) {
                assert_int_equal(blk_node_nbrs(o)[j], nbr_of(o->node,
                                                             o->start + j));
                assert_int_equal(blk_node_eids(o)[j],
                                 o->node * 10000 + o->start + j);
            }
            seen[o->node] += o->n;
        }
    }
    for (uint32_t v = 0; v < 4; v++) assert_int_equal(seen[v], deg[v]);
    /* an object whose ids would run past the used bytes is caught */
    uint8_t *blk = p.blocks + (p.n - 1) * bs;
    blk_header *h = (blk_header *)blk;
    blk_seal(blk, bs, BLK_KIND_GRAPH, p.n - 1, h->first_node, TOKEN, h->count,
             h->used - 4, h->flags, 0, 0);
    assert_corrupt(blk, bs, BLK_KIND_GRAPH, p.n - 1, "overruns");
    free(p.blocks);
}

/* The packer of a time graph: every block flagged with edge ids and
** times, 16 bytes an entry (a quarter of a plain block's entries in a
** continuation block), each entry's time read back where its id is, and
** the times inside the checksummed payload: a changed time is caught. */
static void test_time_packer_layout(void **state)
{
    uint32_t bs = 4096, deg[3] = {2, 1000, 5};
    uint32_t nb[1000], id[1000];
    int64_t tm[1000];
    packed p = {NULL, 0, bs};
    blk_graph_packer *pk;
    gnn_err e = {0};
    assert_int_equal(blk_graph_packer_new_times(bs, TOKEN, keep_block, NULL,
                                                &p, &pk, &e), GNNDB_OK);
    assert_int_equal(blk_graph_packer_add_eids(pk, 0, nb, id, 1, &e),
                     GNNDB_INTERNAL);
    for (uint32_t v = 0; v < 3; v++) {
        for (uint32_t j = 0; j < deg[v]; j++) {
            nb[j] = nbr_of(v, j);
            id[j] = v * 10000 + j;
            tm[j] = (int64_t)j * 3 - 1000000000000ll * v;
        }
        assert_int_equal(blk_graph_packer_add_times(pk, v, nb, id, tm, deg[v],
                                                    &e), GNNDB_OK);
    }
    assert_int_equal(blk_graph_packer_finish(pk, NULL, &e), GNNDB_OK);
    blk_graph_packer_free(pk);
    uint32_t cap = blk_graph_cont_capacity_flags(bs, BLK_FLAG_EIDS |
                                                 BLK_FLAG_TIMES);
    assert_int_equal(cap, blk_graph_cont_capacity(bs) / 4);
    uint32_t seen[3] = {0};
    for (uint64_t b = 0; b < p.n; b++) {
        uint8_t *blk = p.blocks + b * bs;
        const blk_header *h = (const blk_header *)blk;
        assert_int_equal(verify(blk, bs, BLK_KIND_GRAPH, b, &e), GNNDB_OK);
        assert_true((h->flags & BLK_FLAG_EIDS) && (h->flags & BLK_FLAG_TIMES));
        for (uint32_t k = 0; k < h->count; k++) {
            const blk_node *o = blk_graph_object(blk, k);
            assert_true(blk_graph_object_fits(blk, k));
            for (uint32_t j = 0; j < o->n; j++) {
                uint32_t q = o->start + j;
                assert_int_equal(blk_node_nbrs(o)[j], nbr_of(o->node, q));
                assert_int_equal(blk_node_eids(o)[j], o->node * 10000 + q);
                assert_true(blk_node_time(o, j) ==
                            (int64_t)q * 3 - 1000000000000ll * o->node);
            }
            seen[o->node] += o->n;
        }
    }
    for (uint32_t v = 0; v < 3; v++) assert_int_equal(seen[v], deg[v]);
    /* a time changed in place no longer matches its page's checksum */
    uint8_t *blk = p.blocks + bs;
    const blk_node *o = blk_graph_object(blk, 0);
    uint8_t *t0 = (uint8_t *)(blk_node_eids(o) + o->n);
    t0[8 * (o->n - 1)] ^= 1;
    assert_corrupt(blk, bs, BLK_KIND_GRAPH, 1, "checksum mismatch");
    free(p.blocks);
}

static void assert_corrupt(const uint8_t *blk, uint32_t bs, uint16_t kind,
                           uint64_t no, const char *words)
{
    gnn_err e;
    assert_int_equal(verify(blk, bs, kind, no, &e), GNNDB_CORRUPT);
    assert_int_equal(e.rc, GNNDB_CORRUPT);
    char want[128];
    snprintf(want, sizeof want, "corrupt block %llu of " PATH ": ",
             (unsigned long long)no);
    if (!strstr(e.msg, want) || !strstr(e.msg, words))
        fail_msg("message \"%s\" lacks \"%s\" or \"%s\"", e.msg, want, words);
}

static void test_flipped_byte_is_corrupt_naming_file_and_block(void **state)
{
    uint32_t bs = 65536;
    uint8_t *blk = gnn_alloc_aligned(bs);
    build_feature(blk, bs, 12, 0, 100);
    size_t where[] = { 5, 16, 40, 63, 64, 1000, bs / 2, bs - 1 };
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
        blk[where[i]] ^= 0x20;
        assert_corrupt(blk, bs, BLK_KIND_FEATURE, 12, "checksum mismatch");
        blk[where[i]] ^= 0x20;
    }
    gnn_err e;
    assert_int_equal(verify(blk, bs, BLK_KIND_FEATURE, 12, &e), GNNDB_OK);
    /* the checksum field itself */
    blk[offsetof(blk_header, checksum)] ^= 1;
    assert_corrupt(blk, bs, BLK_KIND_FEATURE, 12, "checksum mismatch");
    gnn_free_aligned(blk);
}

static void test_wrong_block_no_token_kind_or_size_detected(void **state)
{
    uint32_t bs = 4096;
    uint8_t *blk = gnn_alloc_aligned(2 * bs);
    build_feature(blk, bs, 12, 0, 4);
    assert_corrupt(blk, bs, BLK_KIND_FEATURE, 13, "misplaced");
    assert_corrupt(blk, bs, BLK_KIND_GRAPH, 12, "kind");
    gnn_err e;
    gnn_clearerr(&e);
    assert_int_equal(blk_verify(blk, bs, BLK_KIND_FEATURE, 12, TOKEN + 1, PATH,
                                &e), GNNDB_CORRUPT);
    assert_non_null(strstr(e.msg, "corrupt block 12 of " PATH));
    assert_non_null(strstr(e.msg, "token"));
    assert_corrupt(blk, 2 * bs, BLK_KIND_FEATURE, 12, "block size");
    memset(blk, 0, bs);
    assert_corrupt(blk, bs, BLK_KIND_FEATURE, 12, "magic");
    gnn_free_aligned(blk);
}

/* Reseal a graph block after damaging its layout, so that only the layout
** checks can catch it. */
static void reseal(uint8_t *blk, uint32_t bs, uint32_t used)
{
    blk_header h;
    memcpy(&h, blk, sizeof h);
    blk_seal(blk, bs, h.kind, h.block_no, h.first_node, h.file_token, h.count,
             used ? used : h.used, h.flags, h.dtype, h.dim);
}

static void test_bad_graph_layout_detected(void **state)
{
    uint32_t bs = 4096;
    uint8_t *blk = gnn_alloc_aligned(bs);
    uint32_t deg[4] = { 2, 3, 1, 4 };
    uint32_t used = build_graph(blk, bs, 7, 10, 4, deg);
    uint32_t *off = (uint32_t *)(blk + blk_data_offset(bs));
    blk_node *o;

    off[2] = bs - 8; /* object outside `used` */
    reseal(blk, bs, 0);
    assert_corrupt(blk, bs, BLK_KIND_GRAPH, 7, "object 2");

    build_graph(blk, bs, 7, 10, 4, deg);
    off[1] += 2; /* misaligned */
    reseal(blk, bs, 0);
    assert_corrupt(blk, bs, BLK_KIND_GRAPH, 7, "object 1");

    build_graph(blk, bs, 7, 10, 4, deg);
    off[1] = off[0]; /* overlapping the previous object */
    reseal(blk, bs, 0);
    assert_corrupt(blk, bs, BLK_KIND_GRAPH, 7, "object 1");

    build_graph(blk, bs, 7, 10, 4, deg);
    o = (blk_node *)(blk + off[3]);
    o->n = 1000; /* neighbours past `used` */
    reseal(blk, bs, 0);
    assert_corrupt(blk, bs, BLK_KIND_GRAPH, 7, "overruns");

    build_graph(blk, bs, 7, 10, 4, deg);
    o = (blk_node *)(blk + off[1]);
    o->node = 12; /* not consecutive */
    reseal(blk, bs, 0);
    assert_corrupt(blk, bs, BLK_KIND_GRAPH, 7, "holds node 12");

    build_graph(blk, bs, 7, 10, 4, deg);
    reseal(blk, bs, used - 4); /* the last neighbour past `used` */
    assert_corrupt(blk, bs, BLK_KIND_GRAPH, 7, "object 3");

    build_graph(blk, bs, 7, 10, 4, deg);
    reseal(blk, bs, blk_data_offset(bs) + 8); /* offset table past `used` */
    assert_corrupt(blk, bs, BLK_KIND_GRAPH, 7, "offset table");

    build_graph(blk, bs, 7, 10, 4, deg);
    o = (blk_node *)(blk + off[1]);
    o->degree = 2; /* more neighbours than the degree */
    reseal(blk, bs, 0);
    assert_corrupt(blk, bs, BLK_KIND_GRAPH, 7, "degree");

    build_graph(blk, bs, 7, 10, 4, deg);
    o = (blk_node *)(blk + off[2]);
    o->start = 1; /* only the first object may continue a node */
    o->degree = 2;
    reseal(blk, bs, 0);
    assert_corrupt(blk, bs, BLK_KIND_GRAPH, 7, "node 12");
    gnn_free_aligned(blk);
}

static void test_bad_feature_layout_detected(void **state)
{
    uint32_t bs = 4096;
    uint8_t *blk = gnn_alloc_aligned(bs);
    uint32_t rows = build_feature(blk, bs, 1, 0, 8);
    blk_seal(blk, bs, BLK_KIND_FEATURE, 1, 0, TOKEN, rows + 1,
             blk_data_offset(bs) + rows * 32, 0, BLK_DTYPE_F32, 8);
    assert_corrupt(blk, bs, BLK_KIND_FEATURE, 1, "overrun");
    blk_seal(blk, bs, BLK_KIND_FEATURE, 1, 0, TOKEN, rows,
             blk_data_offset(bs) + rows * 32, 0, 77, 8);
    assert_corrupt(blk, bs, BLK_KIND_FEATURE, 1, "dtype");
    gnn_free_aligned(blk);
}

/* Every page of a block has its own checksum: a flipped byte is reported
** with its page whether the whole block or only some pages were read, and
** a read that skipped the damaged page is not failed by it. */
static void test_damaged_page_is_named_whole_or_partial(void **state)
{
    for (uint32_t bs = 4096; bs <= (8u << 20); bs *= 8) {
        uint8_t *blk = gnn_alloc_aligned(bs);
        build_feature(blk, bs, 3, 0, 8);
        uint32_t ps = blk_page_size(bs), np = blk_npages(bs);
        assert_int_equal(np, bs <= (2u << 20) ? bs / 4096 : 512);
        uint32_t bad = np > 1 ? np - 2 : 0, good = np > 2 ? 1 : 0;
        blk[(size_t)bad * ps + 100] ^= 0x10;
        char words[64];
        snprintf(words, sizeof words, "page %u: checksum mismatch", bad);
        assert_corrupt(blk, bs, BLK_KIND_FEATURE, 3, words);
        gnn_err e;
        uint32_t some[2] = {good, bad};
        if (bad != good) {
            assert_int_equal(blk_verify_pages(blk, bs, BLK_KIND_FEATURE, 3,
                                              TOKEN, PATH, some, 1, &e),
                             GNNDB_OK);
        }
        assert_int_equal(blk_verify_pages(blk, bs, BLK_KIND_FEATURE, 3, TOKEN,
                                          PATH, some, 2, &e), GNNDB_CORRUPT);
        assert_non_null(strstr(e.msg, words));
        assert_non_null(strstr(e.msg, "corrupt block 3 of " PATH));
        /* a misplaced block fails a partial read too */
        blk[(size_t)bad * ps + 100] ^= 0x10;
        assert_int_equal(blk_verify_pages(blk, bs, BLK_KIND_FEATURE, 4, TOKEN,
                                          PATH, some, 1, &e), GNNDB_CORRUPT);
        assert_non_null(strstr(e.msg, "misplaced"));
        gnn_free_aligned(blk);
    }
}

static void test_error_without_record_still_returns_code(void **state)
{
    uint8_t *blk = gnn_alloc_aligned(4096);
    memset(blk, 0, 4096);
    assert_int_equal(blk_verify(blk, 4096, BLK_KIND_GRAPH, 0, 0, PATH, NULL),
                     GNNDB_CORRUPT);
    gnn_free_aligned(blk);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32c_known_vectors),
        cmocka_unit_test(test_crc32c_continues_across_calls),
        cmocka_unit_test(test_crc32c_hw_matches_table),
        cmocka_unit_test(test_block_size_valid_only_powers_of_two_in_range),
        cmocka_unit_test(test_dtype_sizes_and_names),
        cmocka_unit_test(test_feature_rows_per_block),
        cmocka_unit_test(test_cont_capacity_fills_a_block_exactly),
        cmocka_unit_test(test_seal_verify_round_trip_every_block_size),
        cmocka_unit_test(test_graph_objects_found_by_node),
        cmocka_unit_test(test_continuation_blocks_verify),
        cmocka_unit_test(test_eid_packer_layout),
        cmocka_unit_test(test_time_packer_layout),
        cmocka_unit_test(test_flipped_byte_is_corrupt_naming_file_and_block),
        cmocka_unit_test(test_wrong_block_no_token_kind_or_size_detected),
        cmocka_unit_test(test_bad_graph_layout_detected),
        cmocka_unit_test(test_bad_feature_layout_detected),
        cmocka_unit_test(test_damaged_page_is_named_whole_or_partial),
        cmocka_unit_test(test_error_without_record_still_returns_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
