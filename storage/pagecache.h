/* pagecache.h — what the operating system's page cache holds of a file:
** the planner reads a file through the cache when the cache already holds
** most of it (just imported, or read by the run before), and directly
** (O_DIRECT) otherwise, so that a cached database is never read from the
** disk again and an uncached one does not fill the cache twice. */
#ifndef GNN_PAGECACHE_H
#define GNN_PAGECACHE_H

#include <stdint.h>

/* Bytes of file `path` in the page cache through *cached, and its size
** through *size; 0, or -errno when it cannot be told (then both are 0).
** cachestat(2) where the kernel has it (6.5), else mincore(2) over a
** read-only mapping that is never touched. */
int gnn_file_cached(const char *path, int64_t *cached, int64_t *size);

/* A file at least this much in the cache is read through it. */
#define GNN_CACHED_ENOUGH 0.5

#endif
