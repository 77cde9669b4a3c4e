/* blockfile.h — block files on disk: written under a temporary name and
** published by rename after fsync; read with O_DIRECT where the file system
** allows it. */
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

/* An open block file for reading. */
typedef struct blk_file {
    int fd;
    int direct;          /* opened with O_DIRECT */
    uint32_t block_size;
    uint16_t kind;
    uint64_t token;
    uint64_t nblocks;
    char path[512];      /* for error messages */
    int id;              /* set by the buffer pool user, distinguishes files */
} blk_file;

/* Open `path` read-only; fails with GNNDB_CORRUPT when the file size is not
** nblocks * block_size (a truncated file). */
int blkf_open(const char *path, uint32_t block_size, uint16_t kind,
              uint64_t token, uint64_t nblocks, blk_file **out, gnn_err *e);
void blkf_close(blk_file *f);
/* Read f through the page cache from now on (reopened without O_DIRECT):
** for a file the cache holds already, or will hold for the next run. */
int blkf_through_cache(blk_file *f, gnn_err *e);
/* GNNDB_OK when block `no` is within f, else GNNDB_CORRUPT ("corrupt
** reference: block 9 of ... is past its end"). */
int blkf_check_no(const blk_file *f, uint64_t no, gnn_err *e);
/* Read and verify block `no` into `buf` (aligned, block_size bytes),
** synchronously. */
int blkf_read(blk_file *f, uint64_t no, void *buf, gnn_err *e);

#endif
