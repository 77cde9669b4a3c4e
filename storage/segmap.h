/* segmap.h — the map of a segmented block file (`*.seg`): which ordinary
** block files ("segments") hold its logical blocks, and where.
**
** An append writes a new version of a graph or table as delta segments:
** the blocks it leaves alone stay in the old version's files, the blocks it
** rewrites go to a new small block file, and a map lists, for each run of
** consecutive logical blocks, the segment and first physical block holding
** it. A reader (blkf_open) then sees logical blocks 0..nblocks-1 as one
** block file. A block keeps the header it was written with: block_no is
** its physical number in its segment and file_token that segment's token,
** so a misplaced block is still caught on every read.
**
** On-disk format, little-endian, written once (atomic rename) and never
** changed in place:
**
**   header, 64 bytes:
**     u32 magic "NSEG" (0x4745534e)   u16 version (1)   u16 kind
**     u32 block_size   u32 nsegs   u32 nruns   u32 pad (0)
**     u64 token        the segmented file's own token (the catalog's; its
**                      LMDB index is keyed by it)
**     u64 nblocks      logical blocks
**     u32 checksum     CRC32C (blk_crc32c) of the whole file, this field
**                      taken as zero
**     20 bytes reserved, zero
**   segs[nsegs], 64 bytes each:
**     char name[48]    a plain file name in the map's directory, NUL-
**                      terminated and NUL-padded: non-empty, no '/', not
**                      "." or "..", distinct
**     u64 token        the segment file's token
**     u64 nblocks      the segment file's block count
**   runs[nruns], 24 bytes each, ascending:
**     u64 lstart       first logical block of the run
**     u64 pstart       first physical block in the segment
**     u32 seg          index into segs
**     u32 count        blocks (>= 1)
**
** The file is exactly 64 + 64 * nsegs + 24 * nruns bytes; 1 <= nsegs <=
** SEG_MAX_SEGS; the runs start at logical block 0 and follow each other
** with neither gap nor overlap up to nblocks (so nruns <= nblocks; an empty
** file has nblocks 0 and no runs); each lies within its segment. */
#ifndef GNN_SEGMAP_H
#define GNN_SEGMAP_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"

#define SEG_MAGIC       0x4745534eu /* "NSEG" little-endian */
#define SEG_VERSION     1
#define SEG_MAX_SEGS    64
#define SEG_NAME_MAX    48          /* the NUL included */
#define SEG_HEADER_SIZE 64
#define SEG_ENTRY_SIZE  64
#define SEG_RUN_SIZE    24

typedef struct seg_file {
    char name[SEG_NAME_MAX];
    uint64_t token;
    uint64_t nblocks;
} seg_file;

typedef struct seg_run {
    uint64_t lstart, pstart;
    uint32_t seg, count;
} seg_run;

/* A map in memory. Zero it with seg_map_init; free it with seg_map_free
** (the runs are malloc'd). */
typedef struct seg_map {
    uint16_t kind;          /* BLK_KIND_GRAPH or BLK_KIND_FEATURE */
    uint32_t block_size;
    uint64_t token;
    uint64_t nblocks;       /* logical blocks: the runs' total */
    uint32_t nsegs;
    seg_file segs[SEG_MAX_SEGS];
    seg_run *runs;
    size_t nruns, capruns;
} seg_map;

/* An empty map (no segments, no runs) of a file of `kind`, `block_size`
** and `token`. */
void seg_map_init(seg_map *m, uint16_t kind, uint32_t block_size,
                  uint64_t token);
void seg_map_free(seg_map *m);

/* 1 when `name` (a file name or path) ends with ".seg". */
int seg_map_is_name(const char *name);

/* Parse and check the bytes of a map read from `path` (named in messages)
** into *out (initialised here; seg_map_free it on success, nothing to free
** on failure). GNNDB_CORRUPT with words naming the path and what is wrong,
** or GNNDB_NOMEM. */
int seg_map_parse(const void *buf, size_t len, const char *path,
                  seg_map *out, gnn_err *e);
/* Read and parse the map at `path`: GNNDB_NOTFOUND when it does not exist,
** GNNDB_IOERR when it cannot be read, else as seg_map_parse. */
int seg_map_read(const char *path, seg_map *out, gnn_err *e);

/* The bytes of a map (malloc'd, *len of them), checksum included;
** GNNDB_NOMEM, or GNNDB_RANGE for a map that seg_map_parse would refuse
** (no segment, a bad name). */
int seg_map_encode(const seg_map *m, void **buf, size_t *len, gnn_err *e);
/* Write `m` as `dir`/`name`: under `name`.tmp, fsync'd, renamed, and the
** directory fsync'd, so that a crash leaves the old file or the new one
** whole. On failure no file `name` is left by this call. */
int seg_map_write(const char *dir, const char *name, const seg_map *m,
                  gnn_err *e);

/* Building a map: segments first or as they come, runs in logical order.
** add_seg lists segment `name` (a plain file name) of `token` and
** `nblocks` blocks and gives its index; a name listed already gives that
** index (GNNDB_RANGE when its token or size differ). GNNDB_RANGE for a bad
** name or past SEG_MAX_SEGS segments. */
int seg_map_add_seg(seg_map *m, const char *name, uint64_t token,
                    uint64_t nblocks, uint32_t *idx, gnn_err *e);
/* Append `count` logical blocks at lstart = m->nblocks, lying at physical
** blocks pstart.. of segment `seg`: merged into the last run when it
** continues it (same segment, next physical block), split where a run
** would pass 2^32 - 1 blocks. GNNDB_RANGE when the segment is unknown or
** the blocks pass its end; a count of 0 adds nothing. */
int seg_map_add_run(seg_map *m, uint32_t seg, uint64_t pstart,
                    uint64_t count, gnn_err *e);

/* A new version of a file, built on the old one: first its segments,
** those of its map `old` or (old NULL: a plain block file) the file itself
** (name, token, nblocks), so that the old file's segment i is m's segment
** i; then, with seg_map_add_old, its logical blocks [from, to) where they
** lie, in logical order among the new ones. */
int seg_map_add_file(seg_map *m, const seg_map *old, const char *name,
                     uint64_t token, uint64_t nblocks, gnn_err *e);
int seg_map_add_old(seg_map *m, const seg_map *old, uint64_t from,
                    uint64_t to, gnn_err *e);
/* Drop the segments no run uses (an append that wrote a segment's every
** block again no longer reads it), the others keeping their order. */
int seg_map_prune(seg_map *m, gnn_err *e);
/* Blocks lying in delta segments: segments an append wrote, named "d-"
** (a created or compacted file, the base, is named otherwise). */
uint64_t seg_map_delta_blocks(const seg_map *m);
/* Where logical block `no` (< m->nblocks) lies: its segment, its physical
** block there, and how many blocks from `no` on follow it back to back in
** that segment (>= 1). A binary search over the runs. */
void seg_map_locate(const seg_map *m, uint64_t no, uint32_t *seg,
                    uint64_t *phys, uint64_t *run_left);

#endif
