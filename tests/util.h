/* util.h — helpers shared by the cmocka test programs. */
#ifndef GNN_TEST_UTIL_H
#define GNN_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "gnndb.h"

/* Directory of the shipped data ($GNNDB_DATA or ../shared/data). */
const char *tu_data_dir(void);
/* A path under the data dir, in a static buffer per call slot (0..7). */
const char *tu_data(int slot, const char *rel);
/* A fresh scratch directory under $GNNDB_TMP (or /tmp), created. The
** returned string is malloc'd. */
char *tu_tmpdir(const char *tag);
/* rm -rf */
void tu_rmrf(const char *path);
/* Write `len` bytes to `path`; 0 on success. */
int tu_write_file(const char *path, const void *data, size_t len);
/* Read a whole file (malloc'd, NUL-terminated); NULL on failure. */
char *tu_read_file(const char *path, size_t *len);

/* A fresh database in its own scratch directory. */
typedef struct tu_db {
    char *dir;          /* the scratch directory (malloc'd) */
    char path[1024];    /* dir/test.gnndb */
    gnndb *h;
} tu_db;
/* Create and open one (read-write); 0, or the gnndb code with its words
** printed. */
int tu_db_open(tu_db *d, const char *tag);
/* Close the handle and remove the scratch directory. */
void tu_db_close(tu_db *d);
/* Import the shipped cora as graph `cora`: its edges, FEATURES feat,
** labels and SPLIT train. 0 or the gnndb code. */
int tu_import_cora(gnndb *h);
/* The data of a version-1 C-order .npy file, without its header
** (malloc'd, *bytes its size); NULL on failure. */
void *tu_load_npy(const char *path, size_t *bytes);
/* Write a 2-D C-order .npy of rows x cols elements of `elem` bytes typed
** `descr` ("<f4", "<i8"); 0 on success. */
int tu_write_npy(const char *path, const char *descr, const void *data,
                 size_t rows, size_t cols, size_t elem);

/* The current batch of st with its digest computed into the view
** (gnndb_batch_digest; a step leaves it 0), for tests that compare
** digests. */
const gnndb_batch_view *tu_batch(gnndb_stmt *st);

/* The batch digest as docs/format.md defines it, computed here apart from
** the engine's (exec/batch.c) for the reference tests: start from
** TU_DIGEST_START and fold each section's `len` bytes in turn (an absent
** section: data NULL, len 0). */
#define TU_DIGEST_START 0x6a09e667f3bcc908ull
uint64_t tu_digest_fold(uint64_t h, const void *data, size_t len);

/* The reference samplers' choice among a list of d neighbours under `key`
** (the engine's rule, written apart from exec/sample.c): every position
** when d <= fanout or fanout is -1, else fanout of them by Floyd's
** algorithm, ascending; with replacement, fanout independent draws. The
** positions go to out; their count. */
int64_t tu_ref_choose(uint64_t key, int64_t d, int fanout, int replace,
                      int64_t *out);

#endif
