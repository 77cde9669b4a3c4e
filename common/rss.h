/* rss.h — what the operating system says of this process's memory: the
** bytes it holds resident now and at their peak, and the limit of the memory
** cgroup it runs in. memory_limit is a promise about the first two; the
** third is where a container states its size. Also handing freed heap
** back, so that the first comes down when a statement is done. Linux only
** (/proc, /sys); elsewhere every answer is -1, "unknown". */
#ifndef GNN_RSS_H
#define GNN_RSS_H

#include <stdint.h>

/* Resident bytes of this process now (anonymous and file-backed pages). */
int64_t gnn_rss_now(void);
/* Whether the resident bytes measure this process's own allocations: not
** under AddressSanitizer (its shadow memory and quarantine of freed blocks
** are resident bytes no allocation holds) nor under valgrind (which runs
** the program inside its own). A check against them is then skipped. */
int gnn_rss_meaningful(void);
/* The most resident bytes this process has held (VmHWM). */
int64_t gnn_rss_peak(void);
/* The smallest memory limit of this process's cgroup and its ancestors,
** cgroup v2 (memory.max) or v1 (memory.limit_in_bytes), in bytes; -1 when
** there is none or it cannot be read. */
int64_t gnn_cgroup_limit(void);
/* Memory the system could give without swapping (MemAvailable of
** /proc/meminfo, page cache that can be dropped included), bytes; -1 when
** unknown. */
int64_t gnn_mem_available(void);

/* Hand the heap's free pages back to the system. glibc keeps large freed
** chunks in its arenas (its mmap threshold rises with every large free),
** and what it keeps stays resident: a statement that freed its buffers
** calls this so that the process's resident bytes come back down. */
void gnn_heap_trim(void);

#endif
