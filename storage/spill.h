/* spill.h — the spill area: runs of bytes written once, sequentially, and
** read back once, in order, from a directory (PRAGMA temp_dir) under a byte
** limit (PRAGMA spill_limit). The executor spills each mini-batch of a
** hyperbatch that does not fit in memory_limit to a run of its own.
**
** Contract:
** - A run's file has no name: it is created unlinked (O_TMPFILE, else a
**   name removed at once), so a crash leaves nothing behind and closing the
**   run gives its space back. spill_remove_stale() removes the named files
**   a crash between creating and unlinking one could leave.
** - Writes go through the area's own I/O backend, aligned, in multiples of
**   SPILL_ALIGN (O_DIRECT where the file system allows it), in the
**   background: a full buffer joins the write queue and the run takes a
**   free one; a failed write is reported by the next call on the area.
**   Each chunk is checksummed (CRC32C, kept in memory), and a chunk that
**   reads back different is GNNDB_CORRUPT naming the area and offset.
** - Bytes in use never exceed the limit (0: none but the disk): the write
**   that would is refused with GNNDB_FULL, as is one the disk refuses.
** - Up to SPILL_READ_RUNS runs at a time may be read ahead
**   (spill_run_read_start), so that the disk has the next run's reads in
**   flight while one is waited for; the others are read synchronously.
** Not thread-safe: one area belongs to one executor. */
#ifndef GNN_SPILL_H
#define GNN_SPILL_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"

#define SPILL_ALIGN 4096
#define SPILL_WRITE_DEPTH 16   /* writes in flight, each with its buffer */
#define SPILL_READ_RUNS 2      /* runs read back at once */

typedef struct spill_area spill_area;
typedef struct spill_run spill_run;

typedef struct spill_stats {
    uint64_t runs;           /* runs created */
    uint64_t bytes_written;  /* bytes written, padding included */
    uint64_t bytes_read;     /* bytes read back */
    uint64_t peak_bytes;     /* most bytes in use at once */
    double write_seconds, read_wait_seconds;
} spill_stats;

/* One thread may write runs (new, append, seal, free unsealed) while one
** other reads sealed runs back and frees them; the stats and the bytes in
** use may be read from either. */

/* Open a spill area in `dir` (created when missing) holding at most
** `limit` bytes (0: no limit), with an I/O backend of `io_kind` (IO_*).
** The caller closes *out with spill_close(). */
int spill_open(const char *dir, int64_t limit, int io_kind, spill_area **out,
               gnn_err *e);
/* Close the area; every run must have been freed. */
void spill_close(spill_area *a);
/* A copy of the counters, taken under the area's lock. */
void spill_get_stats(spill_area *a, spill_stats *out);
const char *spill_dir(const spill_area *a);
uint64_t spill_in_use(spill_area *a);
/* Bytes free to an unprivileged writer on the file system of `dir`, or -1
** when it cannot be asked: what a spilled round may take when no
** spill_limit is set. */
int64_t spill_dir_free(const char *dir);

/* Remove the named run files a crash left in `dir` (their process gone).
** Returns how many were removed, or -errno. */
int spill_remove_stale(const char *dir);

/* A new, empty run whose writes are buffered `bufsize` bytes at a time
** (rounded up to SPILL_ALIGN). The caller frees it with spill_run_free(). */
int spill_run_new(spill_area *a, size_t bufsize, spill_run **out, gnn_err *e);
/* Append len bytes (copied: data stays the caller's). */
int spill_run_append(spill_run *r, const void *data, size_t len, gnn_err *e);
/* Room for `len` bytes appended in place: a pointer into the write buffer
** (flushing it first when it lacks room), valid until the next call on the
** run; len must be at most the buffer size. spill_run_commit() adds them. */
void *spill_run_reserve(spill_run *r, size_t len, gnn_err *e);
void spill_run_commit(spill_run *r, size_t len);
/* Free room in the write buffer, without flushing. */
size_t spill_run_room(const spill_run *r);
/* Write what is buffered (padded to SPILL_ALIGN), wait for the area's
** writes in flight and give the buffer back: the run is then complete on
** disk and can be read. */
int spill_run_seal(spill_run *r, gnn_err *e);
/* Bytes appended (without padding). */
uint64_t spill_run_bytes(const spill_run *r);
/* Bytes a buffer must hold to read the run back (padding included). */
size_t spill_run_read_size(const spill_run *r);

/* Read a sealed run back into dst (aligned to SPILL_ALIGN, room for
** spill_run_read_size() bytes), verifying every chunk. Start reads ahead
** and wait for them: start may be called once per run, for at most
** SPILL_READ_RUNS runs not yet waited for; wait finishes the run started
** (reads of the others go on meanwhile). */
int spill_run_read_start(spill_run *r, void *dst, gnn_err *e);
int spill_run_read_wait(spill_run *r, gnn_err *e);
int spill_run_read(spill_run *r, void *dst, gnn_err *e);

/* The run's file descriptor, for diagnostics and tests that damage it. */
int spill_run_fd(const spill_run *r);
/* Close the run's file (giving its space back); a run being read ahead is
** waited for first. NULL is a no-op. */
void spill_run_free(spill_run *r);

#endif
