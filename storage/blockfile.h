/* blockfile.h — block files on disk: written under a temporary name and
** published by rename after fsync; read with O_DIRECT where the file system
** allows it.
**
** A file opened for reading is either a plain block file (`*.blk`) or a
** segmented one (`*.seg`, segmap.h): a map whose logical blocks lie in
** runs of several plain block files, the segments. Both read the same way,
** but a block of a segment lies at its own offset in its own descriptor
** and carries its segment's number and token, so every reader asks
** blkf_locate where to read and blkf_expect what the header must hold,
** never f->fd and no * block_size. */
#ifndef GNN_BLOCKFILE_H
#define GNN_BLOCKFILE_H

#include <stdint.h>
#include "err.h"

/* A block file being written: `dir`/`name`.tmp until blkw_finish() renames it
** to `dir`/`name`. Blocks are appended in order. */
typedef struct blk_writer blk_writer;

/* Blocks are gathered into writes of about this many bytes (at least one
** block): few enough system calls for small blocks, little memory for
** large ones. A writer holds that much memory. */
#define BLKW_BUF_BYTES (4u << 20)

int blkw_create(const char *dir, const char *name, uint32_t block_size,
                blk_writer **out, gnn_err *e);
/* Append one sealed block (block_size bytes, any alignment). */
int blkw_append(blk_writer *w, const void *block, gnn_err *e);
uint64_t blkw_nblocks(const blk_writer *w);
/* Write any buffered blocks, fsync the file, rename it to its final name and
** fsync the directory. The writer is freed whether or not it succeeds; on
** failure the temporary file is removed. */
int blkw_finish(blk_writer *w, gnn_err *e);
/* Close and remove the temporary file. Accepts NULL. */
void blkw_abort(blk_writer *w);

/* The segments of an open segmented file (blockfile.c). */
typedef struct blk_segs blk_segs;

/* An open block file for reading. */
typedef struct blk_file {
    int fd;              /* a plain file's descriptor; -1 when segmented */
    int direct;          /* opened with O_DIRECT (any segment of it) */
    uint32_t block_size;
    uint16_t kind;
    uint64_t token;
    uint64_t nblocks;
    char path[512];      /* for error messages */
    int id;              /* set by the buffer pool user, distinguishes files */
    blk_segs *segs;      /* NULL for a plain file */
} blk_file;

/* Open `path` read-only, checked against what the catalog says of it
** (block_size, kind, token, nblocks). A plain file fails with
** GNNDB_CORRUPT when its size is not nblocks * block_size (a truncated
** file). A `.seg` path is read as a segment map whose kind, block size,
** token and block count must be the arguments, and each of its segments
** (in the map's directory) is opened and must hold exactly the blocks the
** map says: GNNDB_CORRUPT naming the map or the segment, GNNDB_NOTFOUND
** naming a missing segment. */
int blkf_open(const char *path, uint32_t block_size, uint16_t kind,
              uint64_t token, uint64_t nblocks, blk_file **out, gnn_err *e);
/* Close f and every segment of it. Accepts NULL. */
void blkf_close(blk_file *f);
/* Read f (every segment of it) through the page cache from now on
** (reopened without O_DIRECT): for a file the cache holds already, or will
** hold for the next run. */
int blkf_through_cache(blk_file *f, gnn_err *e);
/* Where block `no` (< f->nblocks) lies: the descriptor to read it from,
** its byte offset there, and how many blocks from `no` on lie back to back
** in that descriptor (>= 1): a read of several blocks never passes them. */
void blkf_locate(const blk_file *f, uint64_t no, int *fd, uint64_t *offset,
                 uint64_t *run);
/* What the header of block `no` (< f->nblocks) must hold, for blk_verify:
** its number within the file holding it, that file's token, and that
** file's path (for messages: a damaged block of a segment is named by the
** segment and its physical number). */
void blkf_expect(const blk_file *f, uint64_t no, uint64_t *hdr_no,
                 uint64_t *token, const char **path);
/* What the page cache holds of the files holding the blocks of `path`
** (gnn_file_cached): the file itself, or for a `.seg` the sum over its
** segments. 0, or -errno when it cannot be told (then both are 0). */
int blkf_cached(const char *path, int64_t *cached, int64_t *size);
/* GNNDB_OK when block `no` is within f, else GNNDB_CORRUPT ("corrupt
** reference: block 9 of ... is past its end"). */
int blkf_check_no(const blk_file *f, uint64_t no, gnn_err *e);
/* Read and verify block `no` into `buf` (aligned, block_size bytes),
** synchronously. */
int blkf_read(blk_file *f, uint64_t no, void *buf, gnn_err *e);

#endif
