/* util.h — helpers shared by the cmocka test programs. */
#ifndef GNN_TEST_UTIL_H
#define GNN_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

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

#endif
