/* timecol.c — reading a time column: a .npy of int64, checked whole before
** any of it is used, so that a bad file changes nothing. Pure over a
** buffer (tc_parse, the fuzz target's entry), and over a file. */
#include "timecol.h"
#include "npy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tc_parse(const void *buf, size_t len, const char *path, const char *what,
             int64_t expect, int64_t **out, size_t *n, gnn_err *e)
{
    *out = NULL;
    *n = 0;
    npy_info in;
    int rc = npy_parse_header(buf, len, &in, path, e);
    if (rc) return rc;
    if (in.dtype != NPY_I64)
        return gnn_seterr(e, GNNDB_FORMAT, "%s: %s must be int64, and the "
                          "file holds %s (convert with astype('int64'))",
                          path, what, npy_dtype_name(in.dtype));
    if (in.ndim == 2 && in.shape[1] != 1)
        return gnn_seterr(e, GNNDB_FORMAT, "%s: %s are one column, and the "
                          "file has shape (%lld, %lld)", path, what,
                          (long long)in.shape[0], (long long)in.shape[1]);
    uint64_t count = (uint64_t)in.shape[0];
    if (in.data_offset > len || count > (len - in.data_offset) / 8 ||
        len - in.data_offset != count * 8)
        return gnn_seterr(e, GNNDB_FORMAT, "%s: the header promises %llu "
                          "int64 values and the file holds %llu bytes of "
                          "data", path, (unsigned long long)count,
                          (unsigned long long)(len > in.data_offset
                                               ? len - in.data_offset : 0));
    if (expect >= 0 && count != (uint64_t)expect)
        return gnn_seterr(e, GNNDB_RANGE, "%s: %llu %s, and %lld are "
                          "needed (one per %s)", path,
                          (unsigned long long)count, what, (long long)expect,
                          strstr(what, "edge") ? "input edge"
                          : strstr(what, "seed") ? "seed" : "node");
    int64_t *t = malloc(count ? count * 8 : 8);
    if (!t) return gnn_seterr(e, GNNDB_NOMEM, "out of memory reading %s",
                              path);
    if (count) memcpy(t, (const char *)buf + in.data_offset, count * 8);
    *out = t;
    *n = (size_t)count;
    return GNNDB_OK;
}

int tc_read_file(const char *path, const char *what, int64_t expect,
                 int64_t **out, size_t *n, gnn_err *e)
{
    *out = NULL;
    *n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return gnn_seterr(e, errno == ENOENT ? GNNDB_NOTFOUND : GNNDB_IOERR,
                          "%s: cannot open the %s file: %s", path, what,
                          strerror(errno));
    struct stat sb;
    char *buf = NULL;
    int rc = GNNDB_OK;
    if (fstat(fd, &sb) != 0)
        rc = gnn_seterr(e, GNNDB_IOERR, "%s: %s", path, strerror(errno));
    else if (!(buf = malloc((size_t)sb.st_size + 1)))
        rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory reading %s", path);
    size_t got = 0;
    while (!rc && got < (size_t)sb.st_size) {
        ssize_t k = read(fd, buf + got, (size_t)sb.st_size - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0)
            rc = gnn_seterr(e, GNNDB_IOERR, "%s: read failed: %s", path,
                            k < 0 ? strerror(errno) : "short read");
        else got += (size_t)k;
    }
    close(fd);
    if (!rc) rc = tc_parse(buf, got, path, what, expect, out, n, e);
    free(buf);
    return rc;
}
