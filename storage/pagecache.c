/* pagecache.c — the page cache's share of a file, from cachestat(2) or,
** on kernels before 6.5, mincore(2). Both only ask; neither reads a page. */
#include "pagecache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_cachestat
#if defined(__x86_64__) || defined(__aarch64__)
#define __NR_cachestat 451
#endif
#endif

/* The kernel's structures (linux/mman.h), spelled here for libc headers
** older than the call. */
struct gnn_cachestat_range {
    uint64_t off, len;
};
struct gnn_cachestat {
    uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted,
             nr_recently_evicted;
};

/* Pages of fd in the cache by cachestat; -1 when the kernel lacks it. */
static int64_t by_cachestat(int fd)
{
#ifdef __NR_cachestat
    struct gnn_cachestat_range r = {0, 0};   /* len 0: to the end */
    struct gnn_cachestat cs;
    if (syscall(__NR_cachestat, fd, &r, &cs, 0) == 0)
        return (int64_t)cs.nr_cache;
#endif
    return -1;
}

/* Pages of fd's `size` bytes in the cache by mincore over a mapping no
** one touches; -errno on failure. */
static int64_t by_mincore(int fd, int64_t size, long page)
{
    size_t pages = (size_t)((size + page - 1) / page);
    void *m = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) return -errno;
    unsigned char *vec = malloc(pages);
    int64_t n = -ENOMEM;
    if (vec && mincore(m, (size_t)size, vec) == 0) {
        n = 0;
        for (size_t i = 0; i < pages; i++) n += vec[i] & 1;
    } else if (vec) {
        n = -errno;
    }
    free(vec);
    munmap(m, (size_t)size);
    return n;
}

int gnn_file_cached(const char *path, int64_t *cached, int64_t *size)
{
    *cached = *size = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    struct stat st;
    long page = sysconf(_SC_PAGE_SIZE);
    int rc = 0;
    if (fstat(fd, &st) != 0 || page <= 0) {
        rc = -errno;
    } else if (st.st_size > 0) {
        int64_t n = by_cachestat(fd);
        if (n < 0) n = by_mincore(fd, st.st_size, page);
        if (n < 0) {
            rc = (int)n;
        } else {
            *size = st.st_size;
            *cached = n * page < st.st_size ? n * page : st.st_size;
        }
    }
    close(fd);
    return rc;
}
