/* err.h — the error record every internal layer fills, and small helpers
** shared by all layers (aligned memory, checked arithmetic). Lower layers
** never print: they write the words into a gnn_err that the handle owns. */
#ifndef GNN_ERR_H
#define GNN_ERR_H

#include <stddef.h>
#include <stdint.h>
#include "gnndb.h"

#define GNN_ERRMSG_MAX 1024

typedef struct gnn_err {
    int rc;                    /* a GNNDB_* code; GNNDB_OK when clear */
    char msg[GNN_ERRMSG_MAX];  /* the words, one line, no trailing newline */
} gnn_err;

/* Record an error (printf-style words) and return rc, so callers can write
** `return gnn_seterr(e, GNNDB_FORMAT, "%s:%d: ...", path, line);`.
** A NULL `e` is allowed and records nothing. */
int gnn_seterr(gnn_err *e, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Like gnn_seterr, appending ": strerror(errno_value)". Maps ENOSPC/EDQUOT to
** GNNDB_FULL, ENOMEM to GNNDB_NOMEM, everything else to `rc`. */
int gnn_seterr_errno(gnn_err *e, int rc, int errno_value, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

void gnn_clearerr(gnn_err *e);

/* Open an input file for reading into *fd: GNNDB_NOTFOUND when it does not
** exist, GNNDB_IOERR otherwise, with words "cannot open PATH: why". */
int gnn_open_input(const char *path, int *fd, gnn_err *e);

/* Create `dir` and whichever of its parents are missing (mkdir -p). The
** words of a failure start with `what` ("" or "spill area: "). */
int gnn_mkdirs(const char *dir, const char *what, gnn_err *e);

/* Bytes in words for messages: "1.5 GiB", "512 B", into buf. */
const char *gnn_fmt_size(int64_t bytes, char *buf, size_t len);

/* Memory aligned for O_DIRECT (4096 bytes). Free with gnn_free_aligned. */
void *gnn_alloc_aligned(size_t size);
void gnn_free_aligned(void *p);
/* The same for a large array read at random (the buffer pool's frames): the
** kernel is asked to back it with huge pages where it allows them
** (MADV_HUGEPAGE), so that random reads over GBs do not each miss the TLB
** and walk the page tables. Free with gnn_free_aligned. */
void *gnn_alloc_huge(size_t size);

#define GNN_ALIGN 4096
#define GNN_MIN(a, b) ((a) < (b) ? (a) : (b))
#define GNN_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
