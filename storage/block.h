/* block.h — the layout of one block of a block file, and its encode/verify.
**
** Every block file holds fixed-size blocks (a power of two from 4 KiB to
** 16 MiB, default 1 MiB), each opening with a 64-byte header and a table of
** page checksums, its payload after them (blk_data_offset). A block is
** checked in pages (4 KiB; the 512th part of blocks over 2 MiB) so that a
** read of only some of its pages can be verified: entry i of the table is
** the CRC32C of page i (i >= 1), and the header's checksum is the CRC32C of
** page 0 (the checksum field taken as zero), which holds the header and the
** table, so it vouches for the whole block.
**
** Graph blocks (BLK_KIND_GRAPH) hold node objects in ascending internal node
** id, one per node, none skipped (nodes of degree 0 have an object too). The
** payload is an offset table, then the objects:
**
**   header | uint32 off[count] | obj | obj | ...
**   obj = { uint32 node, degree, start, n } then n uint32 neighbour ids
**
** where `degree` is the node's whole in-degree, and the object holds the
** neighbours [start, start+n) of its adjacency list. A list too long for the
** rest of a block continues in the next blocks: each continuation block opens
** with an object of the same node (flag BLK_FLAG_CONT_FIRST), full blocks
** holding blk_graph_cont_capacity() neighbours each. So neighbour i >= n0
** (n0 = entries in the node's first block b) lies in block
** b + 1 + (i - n0) / cap at position (i - n0) % cap of that block's first
** object. Object k of a block is node first_node + k.
**
** An edge-id graph (a file of its own beside the plain one) has the same
** blocks with BLK_FLAG_EIDS set in every header, and objects that carry
** each neighbour's edge id after the neighbours:
**
**   obj = { uint32 node, degree, start, n } then n uint32 neighbour ids
**         then n uint32 edge ids (eid[j]: the input edge nbr[j] -> node)
**
** so a continuation block holds half as many entries
** (blk_graph_cont_capacity_flags). The offset table, the index and the
** order of the lists are those of the plain graph.
**
** A time graph (IMPORT EDGE TIMES: the temporal CSR, a file of its own)
** has BLK_FLAG_EIDS | BLK_FLAG_TIMES in every header, and objects that
** carry each entry's time (int64, the user's unit) after the edge ids:
**
**   obj = { uint32 node, degree, start, n } then n uint32 neighbour ids
**         then n uint32 edge ids then n int64 times (little-endian)
**
** each list sorted by (time, neighbour, edge id), so that the entries at
** or before a time are a prefix found by binary search. An entry takes
** 16 bytes; a time may lie at a 4-byte boundary (read with memcpy).
**
** Feature blocks (BLK_KIND_FEATURE) hold `count` whole rows starting at row
** first_node, each of dim elements of the stored dtype, packed after the
** header. A label table is a feature table of dtype int64 and dim 1. */
#ifndef GNN_BLOCK_H
#define GNN_BLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "err.h"

#define BLK_MAGIC        0x4b4c424eu /* "NBLK" little-endian */
#define BLK_VERSION      2          /* 2: page checksums */
#define BLK_KIND_GRAPH   1
#define BLK_KIND_FEATURE 2
#define BLK_KIND_PACK    3
#define BLK_FLAG_CONT_FIRST 0x1      /* first object continues a node */
#define BLK_FLAG_EIDS    0x2         /* objects carry edge ids (above) */
#define BLK_FLAG_TIMES   0x4         /* with EIDS: and each edge's time (below) */
#define BLK_MIN_SIZE     4096u
#define BLK_MAX_SIZE     (16u << 20)
#define BLK_DEFAULT_SIZE (1u << 20)
#define BLK_PAGE_SIZE    4096u       /* the unit of checksums and of reads */
#define BLK_MAX_PAGES    512u        /* entries of a block's page table */

/* Stored element types of feature blocks. */
#define BLK_DTYPE_F32 1
#define BLK_DTYPE_F16 2
#define BLK_DTYPE_I8  3
#define BLK_DTYPE_I64 4
#define BLK_DTYPE_U32 5   /* the edge table: (src, dst) per input edge */

typedef struct blk_header {
    uint32_t magic;
    uint16_t kind;
    uint16_t version;
    uint32_t block_size;
    uint32_t count;      /* node objects or rows */
    uint64_t block_no;
    uint64_t first_node; /* node of the first object, or first row */
    uint64_t file_token; /* the owning file's token: catches a misplaced block */
    uint32_t used;       /* bytes of the block in use, header included */
    uint32_t flags;
    uint32_t checksum;   /* CRC32C of page 0 with this field zero */
    uint32_t dtype;      /* feature blocks: BLK_DTYPE_*; graph blocks: 0 */
    uint32_t dim;        /* feature blocks: elements per row */
    uint32_t reserved;
} blk_header;            /* 64 bytes */

typedef struct blk_node {
    uint32_t node;
    uint32_t degree;
    uint32_t start;
    uint32_t n;
    /* uint32_t nbr[n] follows */
} blk_node;

/* The page of a block of `bs` bytes: 4 KiB, or bs / BLK_MAX_PAGES for
** blocks over 2 MiB, so that the page table fits page 0. */
static inline uint32_t blk_page_size(uint32_t bs)
{
    uint32_t u = bs / BLK_MAX_PAGES;
    return u > BLK_PAGE_SIZE ? u : BLK_PAGE_SIZE;
}

static inline uint32_t blk_npages(uint32_t bs) { return bs / blk_page_size(bs); }

/* Where the payload starts: after the header and the page table, 8-byte
** aligned. */
static inline uint32_t blk_data_offset(uint32_t bs)
{
    return ((uint32_t)sizeof(blk_header) + 4u * blk_npages(bs) + 7u) & ~7u;
}

/* The page table of a block: entry i is the CRC32C of page i (entry 0 is
** 0; page 0 is covered by the header's checksum). */
static inline const uint32_t *blk_page_crcs(const void *block)
{
    return (const uint32_t *)((const uint8_t *)block + sizeof(blk_header));
}

/* CRC32C (Castagnoli), hardware-accelerated where the CPU has SSE4.2. */
uint32_t blk_crc32c(uint32_t crc, const void *data, size_t len);

/* 1 when `bs` is a power of two within [BLK_MIN_SIZE, BLK_MAX_SIZE]. */
int blk_size_valid(uint64_t bs);

/* Bytes per element of a stored dtype (0 for an unknown one). */
size_t blk_dtype_size(uint32_t dtype);
const char *blk_dtype_name(uint32_t dtype);

/* Neighbours a continuation block holds when the node fills it. */
uint32_t blk_graph_cont_capacity(uint32_t block_size);
/* The same for blocks of header flags `flags`: half as many with
** BLK_FLAG_EIDS (each entry is a neighbour and an edge id). */
uint32_t blk_graph_cont_capacity_flags(uint32_t block_size, uint32_t flags);
/* Bytes of one list entry in blocks of header flags `flags`: 4, 8 with
** BLK_FLAG_EIDS, 16 with BLK_FLAG_TIMES as well. */
static inline uint32_t blk_graph_entry_size(uint32_t flags)
{
    if (flags & BLK_FLAG_TIMES) return 16u;
    return flags & BLK_FLAG_EIDS ? 8u : 4u;
}

/* Rows of `dim` elements of `dtype` a feature block holds (0: a row does not
** fit in one block). */
uint32_t blk_feature_rows_per_block(uint32_t block_size, uint32_t dim,
                                    uint32_t dtype);

/* Fill the header fields and the checksum of a block whose payload is already
** in place. */
void blk_seal(void *block, uint32_t block_size, uint16_t kind,
              uint64_t block_no, uint64_t first_node, uint64_t token,
              uint32_t count, uint32_t used, uint32_t flags, uint32_t dtype,
              uint32_t dim);

/* Check a block read from `path` as block `block_no` of a file of `token`:
** magic, version, kind, size, number, token, checksum and the offsets of its
** objects. Returns GNNDB_OK or GNNDB_CORRUPT with words naming the file and
** the block, and the page for a checksum ("corrupt block 12 of g-...blk:
** page 3: checksum mismatch ..."). */
int blk_verify(const void *block, uint32_t block_size, uint16_t kind,
               uint64_t block_no, uint64_t token, const char *path,
               gnn_err *e);

/* Check what a read of some pages of block `block_no` brought: page 0
** (header and page table) and the pages in pages[0..n) (ascending; 0 may be
** listed), each against its checksum, then the header's fields as
** blk_verify does. Pages not listed are neither read nor trusted. A damaged
** page is reported with file, block and page ("corrupt block 3 of
** f-...blk: page 17: checksum mismatch ..."). */
int blk_verify_pages(const void *block, uint32_t block_size, uint16_t kind,
                     uint64_t block_no, uint64_t token, const char *path,
                     const uint32_t *pages, size_t n, gnn_err *e);

/* Object k of a verified graph block (k < count). */
const blk_node *blk_graph_object(const void *block, uint32_t k);

/* Where object k of a graph block may lie, from the offset table alone:
** [*start, *end) up to the next object (or the used bytes); 0 when the
** entries are out of bounds. Reads only the header and entries k, k+1. */
int blk_graph_object_span(const void *block, uint32_t k, uint64_t *start,
                          uint64_t *end);
/* Whether object k lies within its span (blk_graph_object_span): what a
** read of some pages of a block must show before the object is used. */
int blk_graph_object_fits(const void *block, uint32_t k);

/* The object of `node` in a verified graph block, or NULL when the block
** does not hold it. */
const blk_node *blk_graph_find(const void *block, uint64_t node);

static inline const uint32_t *blk_node_nbrs(const blk_node *o)
{
    return (const uint32_t *)(o + 1);
}

/* The edge ids of an object of a block flagged BLK_FLAG_EIDS: eid[j] is
** the input edge of neighbour j (nbrs[j] -> node). */
static inline const uint32_t *blk_node_eids(const blk_node *o)
{
    return (const uint32_t *)(o + 1) + o->n;
}

/* The time of entry j of an object of a block flagged BLK_FLAG_TIMES. */
static inline int64_t blk_node_time(const blk_node *o, uint32_t j)
{
    int64_t t;
    memcpy(&t, (const uint8_t *)(blk_node_eids(o) + o->n) + 8 * (size_t)j,
           sizeof t);
    return t;
}

/* Row i (0-based within the block) of a verified feature block. */
const void *blk_feature_row(const void *block, uint32_t i);

/* Packs node objects into graph blocks. The caller adds nodes in ascending
** order starting at 0 with no gaps; full blocks are handed to `emit` (sealed,
** checksummed), which writes them and returns a GNNDB_* code. Each block
** that starts at least one node also yields an index entry (the first node
** starting in it -> block number) through `index_entry`. */
typedef struct blk_graph_packer blk_graph_packer;
typedef int (*blk_emit_fn)(void *arg, const void *block, uint64_t block_no,
                           uint32_t checksum, gnn_err *e);
typedef int (*blk_index_fn)(void *arg, uint64_t first_node, uint64_t block_no,
                            gnn_err *e);
int blk_graph_packer_new(uint32_t block_size, uint64_t token, blk_emit_fn emit,
                         blk_index_fn index_entry, void *arg,
                         blk_graph_packer **out, gnn_err *e);
int blk_graph_packer_add(blk_graph_packer *p, uint64_t node,
                         const uint32_t *nbrs, uint32_t degree, gnn_err *e);
/* Flush the last block. Returns the number of blocks through *nblocks. */
int blk_graph_packer_finish(blk_graph_packer *p, uint64_t *nblocks,
                            gnn_err *e);
void blk_graph_packer_free(blk_graph_packer *p);
/* Put one part of a list as it is (an object of another graph file of
** the same flags): the tail of a list whose start stays in an earlier
** block (start > 0: it must open a block), or the start of one that goes
** on in the next block (start 0, n < degree: the caller finishes the
** packer after it). An append packs a run of blocks again this way
** without touching the lists that cross its ends. */
int blk_graph_packer_add_part(blk_graph_packer *p, uint64_t node,
                              const blk_node *o, gnn_err *e);
/* Start a fresh packer at `node` (the first node it will be given) and its
** first block at number `block_no`: an append packs again a run of nodes
** in the middle of a graph, into blocks at the end of another file. */
void blk_graph_packer_start(blk_graph_packer *p, uint64_t node,
                            uint64_t block_no);

/* A packer of an edge-id graph: every block flagged BLK_FLAG_EIDS, nodes
** added with blk_graph_packer_add_eids (eids[j] the edge id of nbrs[j]);
** finish and free as above. */
int blk_graph_packer_new_eids(uint32_t block_size, uint64_t token,
                              blk_emit_fn emit, blk_index_fn index_entry,
                              void *arg, blk_graph_packer **out, gnn_err *e);
int blk_graph_packer_add_eids(blk_graph_packer *p, uint64_t node,
                              const uint32_t *nbrs, const uint32_t *eids,
                              uint32_t degree, gnn_err *e);
/* A packer of a time graph: every block flagged BLK_FLAG_EIDS |
** BLK_FLAG_TIMES, nodes added with blk_graph_packer_add_times (times[j]
** the time of edge eids[j]); finish and free as above. */
int blk_graph_packer_new_times(uint32_t block_size, uint64_t token,
                               blk_emit_fn emit, blk_index_fn index_entry,
                               void *arg, blk_graph_packer **out, gnn_err *e);
int blk_graph_packer_add_times(blk_graph_packer *p, uint64_t node,
                               const uint32_t *nbrs, const uint32_t *eids,
                               const int64_t *times, uint32_t degree,
                               gnn_err *e);

#endif
