/* block.c — one block of a block file: CRC32C, sealing, verification, and
** access to the objects and rows of a verified block. */
#include "block.h"

#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define BLK_HAVE_SSE42 1
#endif

_Static_assert(sizeof(blk_header) == 64, "block header must be 64 bytes");
_Static_assert(sizeof(blk_node) == 16, "node object header must be 16 bytes");

/* Exposed (without a header prototype) so that tests can compare the two
** implementations; everyone else calls blk_crc32c(). */
uint32_t blk_crc32c_sw(uint32_t crc, const void *data, size_t len);
uint32_t blk_crc32c_hw(uint32_t crc, const void *data, size_t len);
int blk_crc32c_hw_available(void);

/* ---- CRC32C ------------------------------------------------------------ */

/* CRC32C (reflected polynomial 0x82F63B78) of every byte value. */
static const uint32_t crc32c_table[256] = {
    0x00000000u, 0xf26b8303u, 0xe13b70f7u, 0x1350f3f4u, 0xc79a971fu,
    0x35f1141cu, 0x26a1e7e8u, 0xd4ca64ebu, 0x8ad958cfu, 0x78b2dbccu,
    0x6be22838u, 0x9989ab3bu, 0x4d43cfd0u, 0xbf284cd3u, 0xac78bf27u,
    0x5e133c24u, 0x105ec76fu, 0xe235446cu, 0xf165b798u, 0x030e349bu,
    0xd7c45070u, 0x25afd373u, 0x36ff2087u, 0xc494a384u, 0x9a879fa0u,
    0x68ec1ca3u, 0x7bbcef57u, 0x89d76c54u, 0x5d1d08bfu, 0xaf768bbcu,
    0xbc267848u, 0x4e4dfb4bu, 0x20bd8edeu, 0xd2d60dddu, 0xc186fe29u,
    0x33ed7d2au, 0xe72719c1u, 0x154c9ac2u, 0x061c6936u, 0xf477ea35u,
    0xaa64d611u, 0x580f5512u, 0x4b5fa6e6u, 0xb93425e5u, 0x6dfe410eu,
    0x9f95c20du, 0x8cc531f9u, 0x7eaeb2fau, 0x30e349b1u, 0xc288cab2u,
    0xd1d83946u, 0x23b3ba45u, 0xf779deaeu, 0x05125dadu, 0x1642ae59u,
    0xe4292d5au, 0xba3a117eu, 0x4851927du, 0x5b016189u, 0xa96ae28au,
    0x7da08661u, 0x8fcb0562u, 0x9c9bf696u, 0x6ef07595u, 0x417b1dbcu,
    0xb3109ebfu, 0xa0406d4bu, 0x522bee48u, 0x86e18aa3u, 0x748a09a0u,
    0x67dafa54u, 0x95b17957u, 0xcba24573u, 0x39c9c670u, 0x2a993584u,
    0xd8f2b687u, 0x0c38d26cu, 0xfe53516fu, 0xed03a29bu, 0x1f682198u,
    0x5125dad3u, 0xa34e59d0u, 0xb01eaa24u, 0x42752927u, 0x96bf4dccu,
    0x64d4cecfu, 0x77843d3bu, 0x85efbe38u, 0xdbfc821cu, 0x2997011fu,
    0x3ac7f2ebu, 0xc8ac71e8u, 0x1c661503u, 0xee0d9600u, 0xfd5d65f4u,
    0x0f36e6f7u, 0x61c69362u, 0x93ad1061u, 0x80fde395u, 0x72966096u,
    0xa65c047du, 0x5437877eu, 0x4767748au, 0xb50cf789u, 0xeb1fcbadu,
    0x197448aeu, 0x0a24bb5au, 0xf84f3859u, 0x2c855cb2u, 0xdeeedfb1u,
    0xcdbe2c45u, 0x3fd5af46u, 0x7198540du, 0x83f3d70eu, 0x90a324fau,
    0x62c8a7f9u, 0xb602c312u, 0x44694011u, 0x5739b3e5u, 0xa55230e6u,
    0xfb410cc2u, 0x092a8fc1u, 0x1a7a7c35u, 0xe811ff36u, 0x3cdb9bddu,
    0xceb018deu, 0xdde0eb2au, 0x2f8b6829u, 0x82f63b78u, 0x709db87bu,
    0x63cd4b8fu, 0x91a6c88cu, 0x456cac67u, 0xb7072f64u, 0xa457dc90u,
    0x563c5f93u, 0x082f63b7u, 0xfa44e0b4u, 0xe9141340u, 0x1b7f9043u,
    0xcfb5f4a8u, 0x3dde77abu, 0x2e8e845fu, 0xdce5075cu, 0x92a8fc17u,
    0x60c37f14u, 0x73938ce0u, 0x81f80fe3u, 0x55326b08u, 0xa759e80bu,
    0xb4091bffu, 0x466298fcu, 0x1871a4d8u, 0xea1a27dbu, 0xf94ad42fu,
    0x0b21572cu, 0xdfeb33c7u, 0x2d80b0c4u, 0x3ed04330u, 0xccbbc033u,
    0xa24bb5a6u, 0x502036a5u, 0x4370c551u, 0xb11b4652u, 0x65d122b9u,
    0x97baa1bau, 0x84ea524eu, 0x7681d14du, 0x2892ed69u, 0xdaf96e6au,
    0xc9a99d9eu, 0x3bc21e9du, 0xef087a76u, 0x1d63f975u, 0x0e330a81u,
    0xfc588982u, 0xb21572c9u, 0x407ef1cau, 0x532e023eu, 0xa145813du,
    0x758fe5d6u, 0x87e466d5u, 0x94b49521u, 0x66df1622u, 0x38cc2a06u,
    0xcaa7a905u, 0xd9f75af1u, 0x2b9cd9f2u, 0xff56bd19u, 0x0d3d3e1au,
    0x1e6dcdeeu, 0xec064eedu, 0xc38d26c4u, 0x31e6a5c7u, 0x22b65633u,
    0xd0ddd530u, 0x0417b1dbu, 0xf67c32d8u, 0xe52cc12cu, 0x1747422fu,
    0x49547e0bu, 0xbb3ffd08u, 0xa86f0efcu, 0x5a048dffu, 0x8ecee914u,
    0x7ca56a17u, 0x6ff599e3u, 0x9d9e1ae0u, 0xd3d3e1abu, 0x21b862a8u,
    0x32e8915cu, 0xc083125fu, 0x144976b4u, 0xe622f5b7u, 0xf5720643u,
    0x07198540u, 0x590ab964u, 0xab613a67u, 0xb831c993u, 0x4a5a4a90u,
    0x9e902e7bu, 0x6cfbad78u, 0x7fab5e8cu, 0x8dc0dd8fu, 0xe330a81au,
    0x115b2b19u, 0x020bd8edu, 0xf0605beeu, 0x24aa3f05u, 0xd6c1bc06u,
    0xc5914ff2u, 0x37faccf1u, 0x69e9f0d5u, 0x9b8273d6u, 0x88d28022u,
    0x7ab90321u, 0xae7367cau, 0x5c18e4c9u, 0x4f48173du, 0xbd23943eu,
    0xf36e6f75u, 0x0105ec76u, 0x12551f82u, 0xe03e9c81u, 0x34f4f86au,
    0xc69f7b69u, 0xd5cf889du, 0x27a40b9eu, 0x79b737bau, 0x8bdcb4b9u,
    0x988c474du, 0x6ae7c44eu, 0xbe2da0a5u, 0x4c4623a6u, 0x5f16d052u,
    0xad7d5351u,
};

/* The crc argument and result follow the usual convention (start from 0,
** feed the previous result to continue), so the pre- and post-inversion
** live here and not in the callers. */
uint32_t blk_crc32c_sw(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;
    crc = ~crc;
    while (len--) crc = crc32c_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

#ifdef BLK_HAVE_SSE42
/* a(x)·b(x) mod the CRC32C polynomial, both in the CRC's reflected bit order
** (bit 31 is x^0): b is multiplied by x once per bit of a. */
static uint32_t crc32c_mulmod(uint32_t a, uint32_t b)
{
    uint32_t p = 0;
    for (uint32_t m = 0x80000000u; m; m >>= 1) {
        if (a & m) p ^= b;
        b = (b & 1) ? (b >> 1) ^ 0x82F63B78u : b >> 1;
    }
    return p;
}

/* x^(8n) mod P: multiplying a CRC state by it runs the state past n zero
** bytes, which is what appending n bytes does to the CRC of what precedes. */
static uint32_t crc32c_x8n(size_t n)
{
    uint32_t r = 0x80000000u, base = 0x00800000u; /* x^0, x^8 */
    for (; n; n >>= 1) {
        if (n & 1) r = crc32c_mulmod(r, base);
        base = crc32c_mulmod(base, base);
    }
    return r;
}

/* Below this, the three-stream loop's combining costs more than it saves. */
#define CRC32C_3WAY_MIN (64 * 1024)

__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const uint8_t *p, size_t len)
{
    uint32_t c = ~crc;
    while (len && ((uintptr_t)p & 7)) {
        c = _mm_crc32_u8(c, *p++);
        len--;
    }
#if defined(__x86_64__)
    /* One crc32 instruction depends on the previous one's result (a latency
    ** of three cycles), so one stream runs at a third of the instruction's
    ** throughput: checksums of every block read were most of the CPU time
    ** of an in-memory run. Three independent streams over the thirds of a
    ** large buffer keep the unit busy; the CRC is linear, so the three are
    ** joined by shifting each state past the bytes that follow it. */
    if (len >= CRC32C_3WAY_MIN) {
        size_t l = (len / 3) & ~(size_t)7;
        const uint8_t *pb = p + l, *pc = p + 2 * l;
        uint64_t ca = c, cb = 0, cc = 0;
        for (size_t i = 0; i < l; i += 8) {
            uint64_t wa, wb, wc;
            memcpy(&wa, p + i, sizeof wa);
            memcpy(&wb, pb + i, sizeof wb);
            memcpy(&wc, pc + i, sizeof wc);
            ca = _mm_crc32_u64(ca, wa);
            cb = _mm_crc32_u64(cb, wb);
            cc = _mm_crc32_u64(cc, wc);
        }
        uint32_t k = crc32c_x8n(l);
        c = crc32c_mulmod((uint32_t)ca, k) ^ (uint32_t)cb;
        c = crc32c_mulmod(c, k) ^ (uint32_t)cc;
        p += 3 * l;
        len -= 3 * l;
    }
    uint64_t c64 = c;
    for (; len >= 8; len -= 8, p += 8) {
        uint64_t w;
        memcpy(&w, p, sizeof w);
        c64 = _mm_crc32_u64(c64, w);
    }
    c = (uint32_t)c64;
#endif
    for (; len >= 4; len -= 4, p += 4) {
        uint32_t w;
        memcpy(&w, p, sizeof w);
        c = _mm_crc32_u32(c, w);
    }
    while (len--) c = _mm_crc32_u8(c, *p++);
    return ~c;
}
#endif

int blk_crc32c_hw_available(void)
{
#ifdef BLK_HAVE_SSE42
    return __builtin_cpu_supports("sse4.2") != 0;
#else
    return 0;
#endif
}

/* Falls back to the table when the CPU lacks SSE4.2. */
uint32_t blk_crc32c_hw(uint32_t crc, const void *data, size_t len)
{
#ifdef BLK_HAVE_SSE42
    if (blk_crc32c_hw_available()) return crc32c_sse42(crc, data, len);
#endif
    return blk_crc32c_sw(crc, data, len);
}

uint32_t blk_crc32c(uint32_t crc, const void *data, size_t len)
{
    return blk_crc32c_hw(crc, data, len);
}

/* ---- sizes ------------------------------------------------------------- */

int blk_size_valid(uint64_t bs)
{
    return bs >= BLK_MIN_SIZE && bs <= BLK_MAX_SIZE && (bs & (bs - 1)) == 0;
}

size_t blk_dtype_size(uint32_t dtype)
{
    switch (dtype) {
    case BLK_DTYPE_F32: return 4;
    case BLK_DTYPE_F16: return 2;
    case BLK_DTYPE_I8:  return 1;
    case BLK_DTYPE_I64: return 8;
    case BLK_DTYPE_U32: return 4;
    default:            return 0;
    }
}

const char *blk_dtype_name(uint32_t dtype)
{
    switch (dtype) {
    case BLK_DTYPE_F32: return "float32";
    case BLK_DTYPE_F16: return "float16";
    case BLK_DTYPE_I8:  return "int8";
    case BLK_DTYPE_I64: return "int64";
    case BLK_DTYPE_U32: return "uint32";
    default:            return "unknown";
    }
}

/* A full continuation block: the header, one offset, one object header and
** then nothing but neighbours. */
uint32_t blk_graph_cont_capacity(uint32_t block_size)
{
    return blk_graph_cont_capacity_flags(block_size, 0);
}

uint32_t blk_graph_cont_capacity_flags(uint32_t block_size, uint32_t flags)
{
    size_t fixed = blk_data_offset(block_size) + sizeof(uint32_t) +
                   sizeof(blk_node);
    if (block_size <= fixed) return 0;
    return (uint32_t)((block_size - fixed) / blk_graph_entry_size(flags));
}

uint32_t blk_feature_rows_per_block(uint32_t block_size, uint32_t dim,
                                    uint32_t dtype)
{
    uint64_t row = (uint64_t)dim * blk_dtype_size(dtype);
    uint32_t at = blk_data_offset(block_size);
    if (row == 0 || block_size <= at) return 0;
    uint64_t rows = (block_size - at) / row;
    return rows > UINT32_MAX ? UINT32_MAX : (uint32_t)rows;
}

/* ---- seal and verify --------------------------------------------------- */

/* CRC32C of page 0 with the header's checksum field taken as zero,
** computed without writing to the block (verify sees it read-only). */
static uint32_t page0_crc(const void *block, uint32_t ps)
{
    static const uint8_t zero[4] = {0};
    const uint8_t *p = block;
    size_t at = offsetof(blk_header, checksum);
    uint32_t crc = blk_crc32c(0, p, at);
    crc = blk_crc32c(crc, zero, sizeof zero);
    return blk_crc32c(crc, p + at + 4, ps - at - 4);
}

#ifdef BLK_HAVE_SSE42
/* Three pages at once: one crc32 instruction waits three cycles for the
** previous one's result, so three independent streams keep the unit busy
** (pages are multiples of 8 bytes, and aligned). */
__attribute__((target("sse4.2")))
static void crc3_sse42(const uint8_t *a, const uint8_t *b, const uint8_t *c,
                       size_t len, uint32_t out[3])
{
    uint64_t ca = 0xffffffffu, cb = 0xffffffffu, cc = 0xffffffffu;
    for (size_t i = 0; i < len; i += 8) {
        uint64_t wa, wb, wc;
        memcpy(&wa, a + i, 8);
        memcpy(&wb, b + i, 8);
        memcpy(&wc, c + i, 8);
        ca = _mm_crc32_u64(ca, wa);
        cb = _mm_crc32_u64(cb, wb);
        cc = _mm_crc32_u64(cc, wc);
    }
    out[0] = ~(uint32_t)ca;
    out[1] = ~(uint32_t)cb;
    out[2] = ~(uint32_t)cc;
}
#endif

/* The CRC32C of pages idx[0..n) of a block (pages of ps bytes) into out. */
static void page_crcs(const uint8_t *block, uint32_t ps, const uint32_t *idx,
                      size_t n, uint32_t *out)
{
    size_t i = 0;
#if defined(BLK_HAVE_SSE42) && defined(__x86_64__)
    if (blk_crc32c_hw_available())
        for (; i + 3 <= n; i += 3)
            crc3_sse42(block + (size_t)idx[i] * ps,
                       block + (size_t)idx[i + 1] * ps,
                       block + (size_t)idx[i + 2] * ps, ps, out + i);
#endif
    for (; i < n; i++) out[i] = blk_crc32c(0, block + (size_t)idx[i] * ps, ps);
}

/* Pages 1 .. npages-1, the ones the page table covers. */
static size_t all_pages(uint32_t bs, uint32_t *idx)
{
    uint32_t np = blk_npages(bs);
    for (uint32_t i = 1; i < np; i++) idx[i - 1] = i;
    return np - 1;
}

void blk_seal(void *block, uint32_t block_size, uint16_t kind,
              uint64_t block_no, uint64_t first_node, uint64_t token,
              uint32_t count, uint32_t used, uint32_t flags, uint32_t dtype,
              uint32_t dim)
{
    blk_header *h = block;
    if (used < blk_data_offset(block_size)) used = blk_data_offset(block_size);
    if (used > block_size) used = block_size;
    h->magic = BLK_MAGIC;
    h->kind = kind;
    h->version = BLK_VERSION;
    h->block_size = block_size;
    h->count = count;
    h->block_no = block_no;
    h->first_node = first_node;
    h->file_token = token;
    h->used = used;
    h->flags = flags;
    h->checksum = 0;
    h->dtype = dtype;
    h->dim = dim;
    h->reserved = 0;
    /* Bytes past `used` carry nothing; zero them so that the same data
    ** always gives the same block (and the same checksum). */
    memset((uint8_t *)block + used, 0, block_size - used);
    uint32_t idx[BLK_MAX_PAGES], ps = blk_page_size(block_size);
    uint32_t *table = (uint32_t *)(h + 1);
    memset(table, 0, blk_data_offset(block_size) - sizeof *h);
    size_t n = all_pages(block_size, idx);
    page_crcs(block, ps, idx, n, table + 1);
    h->checksum = page0_crc(block, ps);
}

#define CORRUPT(...) corrupt(e, path, block_no, __VA_ARGS__)

__attribute__((format(printf, 4, 5)))
static int corrupt(gnn_err *e, const char *path, uint64_t block_no,
                   const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %llu of %s: %s",
                      (unsigned long long)block_no, path ? path : "?", what);
}

/* The offset table and objects of a graph block: every object inside
** `used`, in order, not overlapping, and object k holding node
** first_node + k. Only the first object may continue a node and only the
** last may stop before the end of its node's list. */
static int verify_graph(const blk_header *h, const char *path,
                        uint64_t block_no, gnn_err *e)
{
    const uint8_t *base = (const uint8_t *)h;
    uint32_t at = blk_data_offset(h->block_size);
    const uint32_t *off = (const uint32_t *)(base + at);
    uint64_t table_end = at + (uint64_t)h->count * sizeof(uint32_t);
    if (table_end > h->used)
        return CORRUPT("offset table of %u objects overruns %u used bytes",
                       h->count, h->used);
    uint64_t prev_end = table_end, es = blk_graph_entry_size(h->flags);
    for (uint32_t k = 0; k < h->count; k++) {
        uint64_t o = off[k];
        if (o % 4 != 0 || o < prev_end || o + sizeof(blk_node) > h->used)
            return CORRUPT("object %u at bad offset %llu", k,
                           (unsigned long long)o);
        blk_node nd;
        memcpy(&nd, base + o, sizeof nd);
        uint64_t end = o + sizeof nd + (uint64_t)nd.n * es;
        if (end > h->used)
            return CORRUPT("object %u (%u neighbours) overruns %u used bytes",
                           k, nd.n, h->used);
        if ((uint64_t)nd.node != h->first_node + k)
            return CORRUPT("object %u holds node %u, expected %llu", k,
                           nd.node, (unsigned long long)(h->first_node + k));
        if ((uint64_t)nd.start + nd.n > nd.degree)
            return CORRUPT("node %u: neighbours [%u, %u) beyond degree %u",
                           nd.node, nd.start, nd.start + nd.n, nd.degree);
        if (k > 0 && nd.start != 0)
            return CORRUPT("node %u continues a list but is not the first "
                           "object", nd.node);
        if (k + 1 < h->count && (uint64_t)nd.start + nd.n != nd.degree)
            return CORRUPT("node %u: list cut short but is not the last "
                           "object", nd.node);
        prev_end = end;
    }
    return GNNDB_OK;
}

static int verify_feature(const blk_header *h, const char *path,
                          uint64_t block_no, gnn_err *e)
{
    size_t es = blk_dtype_size(h->dtype);
    if (es == 0) return CORRUPT("unknown dtype %u", h->dtype);
    if (h->dim == 0) return CORRUPT("rows of dimension 0");
    /* count * dim * es can pass 2^64 (2^31 rows of 2^31 floats): compare
    ** the row count with what the used bytes hold instead */
    uint64_t row = (uint64_t)h->dim * es;
    if (h->count > (h->used - blk_data_offset(h->block_size)) / row)
        return CORRUPT("%u rows of %u %s overrun %u used bytes", h->count,
                       h->dim, blk_dtype_name(h->dtype), h->used);
    return GNNDB_OK;
}

/* Page 0, then pages[0..n), each against its checksum. */
static int check_pages(const void *block, uint32_t bs, const uint32_t *pages,
                       size_t n, const char *path, uint64_t block_no,
                       gnn_err *e)
{
    const blk_header *h = block;
    uint32_t ps = blk_page_size(bs), np = blk_npages(bs);
    /* Page 0 first: it holds the table the other pages are checked by. */
    uint32_t crc = page0_crc(block, ps);
    if (crc != h->checksum)
        return CORRUPT("page 0: checksum mismatch (stored 0x%08x, computed "
                       "0x%08x)", h->checksum, crc);
    const uint32_t *table = blk_page_crcs(block);
    uint32_t got[48];
    for (size_t i = 0; i < n; i += 48) {
        size_t k = GNN_MIN((size_t)48, n - i);
        for (size_t j = 0; j < k; j++)
            if (pages[i + j] >= np)
                return CORRUPT("page %u of %u pages", pages[i + j], np);
        page_crcs(block, ps, pages + i, k, got);
        for (size_t j = 0; j < k; j++) {
            uint32_t pg = pages[i + j];
            if (pg != 0 && got[j] != table[pg])
                return CORRUPT("page %u: checksum mismatch (stored 0x%08x, "
                               "computed 0x%08x)", pg, table[pg], got[j]);
        }
    }
    return GNNDB_OK;
}

/* The header's fields, once its page is known good. */
static int check_header(const blk_header *h, uint32_t block_size,
                        uint16_t kind, uint64_t block_no, uint64_t token,
                        const char *path, gnn_err *e)
{
    if (h->kind != kind)
        return CORRUPT("kind %u, expected %u", h->kind, kind);
    if (h->block_no != block_no)
        return CORRUPT("holds block %llu (misplaced block)",
                       (unsigned long long)h->block_no);
    if (h->file_token != token)
        return CORRUPT("file token %016llx, expected %016llx (block of "
                       "another file)", (unsigned long long)h->file_token,
                       (unsigned long long)token);
    if (h->used < blk_data_offset(block_size) || h->used > block_size)
        return CORRUPT("%u bytes used of %u", h->used, block_size);
    return GNNDB_OK;
}

/* What any read must show before a page is checked. */
static int check_frame(const blk_header *h, uint32_t block_size,
                       const char *path, uint64_t block_no, gnn_err *e)
{
    if (!blk_size_valid(block_size))
        return CORRUPT("invalid block size %u", block_size);
    if (h->magic != BLK_MAGIC) return CORRUPT("bad magic 0x%08x", h->magic);
    if (h->version != BLK_VERSION)
        return CORRUPT("format version %u, expected %u", h->version,
                       BLK_VERSION);
    if (h->block_size != block_size)
        return CORRUPT("block size %u, expected %u", h->block_size,
                       block_size);
    return GNNDB_OK;
}

int blk_verify(const void *block, uint32_t block_size, uint16_t kind,
               uint64_t block_no, uint64_t token, const char *path,
               gnn_err *e)
{
    const blk_header *h = block;
    int rc = check_frame(h, block_size, path, block_no, e);
    if (rc) return rc;
    /* Checksums before the other fields: a damaged block is reported as
    ** damaged, whichever field the damage hit. */
    uint32_t idx[BLK_MAX_PAGES];
    size_t n = all_pages(block_size, idx);
    if ((rc = check_pages(block, block_size, idx, n, path, block_no, e)) ||
        (rc = check_header(h, block_size, kind, block_no, token, path, e)))
        return rc;
    switch (h->kind) {
    case BLK_KIND_GRAPH:   return verify_graph(h, path, block_no, e);
    case BLK_KIND_FEATURE: return verify_feature(h, path, block_no, e);
    case BLK_KIND_PACK:    return GNNDB_OK;
    default:               return CORRUPT("unknown kind %u", h->kind);
    }
}

int blk_verify_pages(const void *block, uint32_t block_size, uint16_t kind,
                     uint64_t block_no, uint64_t token, const char *path,
                     const uint32_t *pages, size_t n, gnn_err *e)
{
    const blk_header *h = block;
    int rc = check_frame(h, block_size, path, block_no, e);
    if (!rc) rc = check_pages(block, block_size, pages, n, path, block_no, e);
    if (!rc) rc = check_header(h, block_size, kind, block_no, token, path, e);
    if (rc) return rc;
    /* A graph block's objects are checked where they are used: the other
    ** objects' pages were not read. */
    return h->kind == BLK_KIND_FEATURE ? verify_feature(h, path, block_no, e)
                                       : GNNDB_OK;
}

/* ---- access ------------------------------------------------------------ */

const blk_node *blk_graph_object(const void *block, uint32_t k)
{
    const blk_header *h = block;
    const uint32_t *off = (const uint32_t *)((const uint8_t *)block +
                                             blk_data_offset(h->block_size));
    return (const blk_node *)((const uint8_t *)block + off[k]);
}

int blk_graph_object_span(const void *block, uint32_t k, uint64_t *start,
                          uint64_t *end)
{
    const blk_header *h = block;
    uint32_t at = blk_data_offset(h->block_size);
    const uint32_t *off = (const uint32_t *)((const uint8_t *)block + at);
    uint64_t table_end = at + (uint64_t)h->count * sizeof(uint32_t);
    if (k >= h->count || table_end > h->used) return 0;
    *start = off[k];
    *end = k + 1 < h->count ? off[k + 1] : h->used;
    return *start >= table_end && *start % 4 == 0 && *end <= h->used &&
           *start + sizeof(blk_node) <= *end;
}

int blk_graph_object_fits(const void *block, uint32_t k)
{
    uint64_t o, end;
    if (!blk_graph_object_span(block, k, &o, &end)) return 0;
    blk_node nd;
    memcpy(&nd, (const uint8_t *)block + o, sizeof nd);
    uint32_t es = blk_graph_entry_size(((const blk_header *)block)->flags);
    return o + sizeof nd + (uint64_t)nd.n * es <= end;
}

const blk_node *blk_graph_find(const void *block, uint64_t node)
{
    const blk_header *h = block;
    if (node < h->first_node || node - h->first_node >= h->count) return NULL;
    return blk_graph_object(block, (uint32_t)(node - h->first_node));
}

const void *blk_feature_row(const void *block, uint32_t i)
{
    const blk_header *h = block;
    size_t row = (size_t)h->dim * blk_dtype_size(h->dtype);
    return (const uint8_t *)block + blk_data_offset(h->block_size) +
           (size_t)i * row;
}
