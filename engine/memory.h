/* memory.h — memory_limit as a promise about the process (gnndb.h,
** "Memory"): how much of it a statement may spend on data once what the
** process already holds, its threads and the kernel's share are taken out.
** Every statement that sizes buffers by memory_limit asks here first. */
#ifndef GNN_MEMORY_H
#define GNN_MEMORY_H

#include <stdint.h>
#include "db.h"

/* Resident bytes one thread of a statement may add: its stack as touched
** and the first pages of the allocator arena glibc gives a thread that
** allocates (measured: 64 worker threads added 1.6 MiB, 25 KiB each; ten
** times that). What an arena keeps of freed memory the executor trims. */
#define MEM_THREAD_BYTES ((int64_t)256 << 10)

typedef struct mem_reserve {
    int64_t limit;      /* PRAGMA memory_limit */
    int64_t rss;        /* the process's resident bytes at prepare */
    int64_t base;       /* ... that are the host's (gnndb_memory_baseline) */
    int64_t process;    /* resident bytes of the process at prepare, less
                        ** the host's baseline (gnndb_memory_baseline) */
    int64_t threads;    /* the statement's threads (MEM_THREAD_BYTES each) */
    int64_t kernel;     /* page tables over the data, I/O rings, slack */
    int64_t data;       /* the rest: pools, staged batches, buffers */
} mem_reserve;

/* Divide memory_limit for a statement that runs `threads` threads of its
** own. GNNDB_NOMEM, with the words "<what>: memory_limit ... leaves no
** room", when what is left for data is below `min_data` bytes. */
int db_memory_reserve(gnndb *db, int threads, int64_t min_data,
                      const char *what, mem_reserve *r, gnn_err *e);

/* How a block file is read: through the page cache when the cache holds
** most of it already (GNN_CACHED_ENOUGH), or when the memory the system
** has beside memory_limit (less the cgroup's limit, which charges the
** cache too) holds it twice over, so that the next run finds it there;
** directly (O_DIRECT) otherwise, where the buffer pools are the cache. */
typedef struct read_choice {
    int cached;         /* 1: through the page cache */
    int64_t size;       /* the file's bytes */
    int64_t in_cache;   /* of them in the page cache now */
    int64_t room;       /* memory beside memory_limit for the cache; -1:
                        ** unknown */
} read_choice;

void db_read_choice(gnndb *db, const char *path, read_choice *c);
/* "buffered (97% in the page cache)" and the like. */
const char *db_read_words(const read_choice *c, char *buf, size_t len);

/* The reserve's parts in words ("process 5.1 MiB, 4 threads 2.0 MiB,
** kernel 1.3 MiB"), for EXPLAIN. */
const char *db_memory_words(const mem_reserve *r, char *buf, size_t len);

#endif
