/* gz.h — the zlib edge: byte streams read from plain or gzip-compressed
** files (told apart by their first bytes, so 'edges.tsv.gz' and
** 'edges.tsv' read alike), and raw-deflate members of zip files. zlib's
** codes become gnn_err words naming the file here and nowhere else. */
#ifndef GNN_GZ_H
#define GNN_GZ_H

#include <stdint.h>
#include <sys/types.h>
#include "err.h"

#define GZ_AUTO 0   /* gzip if the bytes start with its magic, else plain */
#define GZ_RAW  1   /* a raw deflate stream (a zip member, method 8) */
#define GZ_COPY 2   /* stored bytes (a zip member, method 0) */

typedef struct gz_stream gz_stream;

/* Open `path` for sequential reading. A name ending in .gz must hold gzip
** data. Messages name the file by `path`'s last component. */
int gz_open(const char *path, gz_stream **out, gnn_err *e);

/* Read bytes [off, off + len) of `fd` (not closed by gz_close) as `mode`;
** `out_len` is the inflated size the container promises and `crc` its
** CRC-32 (both checked at the end; ~0ull / 0 with check_crc 0: unknown).
** `name` (copied) is what messages call the stream, e.g. "data.npz:x.npy". */
int gz_open_range(int fd, uint64_t off, uint64_t len, int mode,
                  uint64_t out_len, uint32_t crc, int check_crc,
                  const char *name, gz_stream **out, gnn_err *e);

/* Up to n bytes into buf: the count, 0 at the end of the data, or -1 with
** words in *e (a truncated or corrupt stream names the file and offset). */
ssize_t gz_read(gz_stream *s, void *buf, size_t n, gnn_err *e);

/* Read exactly n bytes; a short stream is "truncated" (GNNDB_FORMAT). */
int gz_read_full(gz_stream *s, void *buf, size_t n, gnn_err *e);

uint64_t gz_bytes_in(const gz_stream *s);   /* compressed bytes consumed */
uint64_t gz_bytes_total(const gz_stream *s); /* size of the input */
uint64_t gz_bytes_out(const gz_stream *s);  /* bytes returned so far */
int gz_is_compressed(const gz_stream *s);
const char *gz_name(const gz_stream *s);
void gz_close(gz_stream *s);                 /* accepts NULL */

#endif
