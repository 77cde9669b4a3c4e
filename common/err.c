/* err.c — filling gnn_err records; aligned allocation; sizes in words;
** opening inputs and creating directories. */
#include "err.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

int gnn_seterr(gnn_err *e, int rc, const char *fmt, ...)
{
    if (!e) return rc;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    e->rc = rc;
    return rc;
}

int gnn_seterr_errno(gnn_err *e, int rc, int errno_value, const char *fmt, ...)
{
    if (errno_value == ENOSPC || errno_value == EDQUOT) rc = GNNDB_FULL;
    else if (errno_value == ENOMEM) rc = GNNDB_NOMEM;
    if (!e) return rc;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof e->msg)
        snprintf(e->msg + n, sizeof e->msg - (size_t)n, ": %s",
                 strerror(errno_value));
    e->rc = rc;
    return rc;
}

void gnn_clearerr(gnn_err *e)
{
    if (!e) return;
    e->rc = GNNDB_OK;
    e->msg[0] = 0;
}

int gnn_open_input(const char *path, int *fd, gnn_err *e)
{
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    if (*fd >= 0) return GNNDB_OK;
    return gnn_seterr_errno(e, errno == ENOENT ? GNNDB_NOTFOUND : GNNDB_IOERR,
                            errno, "cannot open %s", path);
}

int gnn_mkdirs(const char *dir, const char *what, gnn_err *e)
{
    char buf[1024];
    size_t n = strlen(dir);
    if (n >= sizeof buf)
        return gnn_seterr(e, GNNDB_RANGE, "%spath too long: %s", what, dir);
    memcpy(buf, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != 0) continue;
        char c = buf[i];
        buf[i] = 0;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return gnn_seterr_errno(e, GNNDB_IOERR, errno,
                                    "%scannot create directory %s", what, buf);
        buf[i] = c;
    }
    return GNNDB_OK;
}

void *gnn_alloc_aligned(size_t size)
{
    void *p = NULL;
    if (size == 0) size = GNN_ALIGN;
    size = (size + GNN_ALIGN - 1) & ~(size_t)(GNN_ALIGN - 1);
    if (posix_memalign(&p, GNN_ALIGN, size) != 0) return NULL;
    return p;
}

void gnn_free_aligned(void *p) { free(p); }

void *gnn_alloc_huge(size_t size)
{
    void *p = gnn_alloc_aligned(size);
#ifdef MADV_HUGEPAGE
    /* the 2 MiB pages wholly inside the allocation */
    uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t hi = ((uintptr_t)p + size) & ~(huge - 1);
    if (p && hi > lo) madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#endif
    return p;
}

const char *gnn_fmt_size(int64_t bytes, char *buf, size_t len)
{
    const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 4) { v /= 1024; u++; }
    if (u == 0) snprintf(buf, len, "%" PRId64 " B", bytes);
    else snprintf(buf, len, "%.1f %s", v, unit[u]);
    return buf;
}
