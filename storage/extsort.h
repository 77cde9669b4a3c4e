/* extsort.h — scratch files for the importers (unlinked at creation, so
** nothing survives a failure or a crash) and an external sort of int64
** keys that removes duplicates, in bounded memory. */
#ifndef GNN_EXTSORT_H
#define GNN_EXTSORT_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"

/* An anonymous scratch file in `dir` with a write buffer. */
typedef struct xs_file {
    int fd;
    unsigned char *buf;
    size_t cap, len;
    uint64_t size;        /* bytes written, buffered ones included */
} xs_file;

int xs_file_open(xs_file *f, const char *dir, size_t bufsize, gnn_err *e);
int xs_file_write(xs_file *f, const void *p, size_t n, gnn_err *e);
int xs_file_flush(xs_file *f, gnn_err *e);
void xs_file_close(xs_file *f);   /* accepts a zeroed or closed one */

/* Sequential reads of bytes [off, end) of a file descriptor. */
typedef struct xs_reader {
    int fd;
    unsigned char *buf;
    size_t cap, len, pos;
    uint64_t off, end;
} xs_reader;

int xs_reader_init(xs_reader *r, int fd, uint64_t off, uint64_t end,
                   size_t bufsize, gnn_err *e);
/* Copy the next n bytes into p: 1, 0 at the end, or -1 (a short record at
** the end is an error). */
int xs_read(xs_reader *r, void *p, size_t n, gnn_err *e);
void xs_reader_free(xs_reader *r);

/* Full pwrite / pread with EINTR and short transfers handled. */
int xs_pwrite(int fd, const void *p, size_t n, uint64_t off, gnn_err *e);
int xs_pread(int fd, void *p, size_t n, uint64_t off, gnn_err *e);

/* Sorting int64 keys: runs of `mem_bytes` are sorted, deduplicated and
** spilled; finishing merges them into one sorted array of distinct keys. */
typedef struct xs_sorter xs_sorter;

int xs_sorter_new(const char *dir, size_t mem_bytes, xs_sorter **out,
                  gnn_err *e);
int xs_sorter_add(xs_sorter *s, int64_t key, gnn_err *e);
/* The distinct keys in ascending order, malloc'd (the caller frees). */
int xs_sorter_finish(xs_sorter *s, int64_t **keys, size_t *n, gnn_err *e);
void xs_sorter_free(xs_sorter *s);

#endif
