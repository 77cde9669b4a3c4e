/* array.c — .npy files and .npz members as C-order arrays on a file
** descriptor: finding the member (npz.c), inflating it (gz.c), parsing its
** header (npy.c) and transposing a Fortran-order array, in bounded memory. */
#include "array.h"
#include "gz.h"
#include "npz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes of rows a transposition gathers at a time. */
#define TRANSPOSE_BYTES ((size_t)8 << 20)
#define COPY_BUF ((size_t)1 << 20)

static int ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcasecmp(s + n - m, suf) == 0;
}

int arr_is_array_path(const char *path)
{
    return ends_with(path, ".npy") || ends_with(path, ".npz");
}

static const char *last_part(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Inflate a deflated member into a scratch file; the .npy is then read
** from there. */
static int inflate_member(arr_src *a, const npz_member *m, const char *tmpdir,
                          gnn_err *e)
{
    gz_stream *z = NULL;
    unsigned char *buf = malloc(COPY_BUF);
    int rc = buf ? xs_file_open(&a->scratch, tmpdir, COPY_BUF, e)
                 : gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    if (!rc)
        rc = gz_open_range(a->fd, m->data_off, m->csize, GZ_RAW, m->usize,
                           m->crc, 1, a->name, &z, e);
    for (ssize_t n = 1; !rc && n > 0;) {
        n = gz_read(z, buf, COPY_BUF, e);
        if (n < 0) rc = e && e->rc ? e->rc : GNNDB_FORMAT;
        else if (n > 0) rc = xs_file_write(&a->scratch, buf, (size_t)n, e);
    }
    if (!rc) rc = xs_file_flush(&a->scratch, e);
    gz_close(z);
    free(buf);
    if (rc) return rc;
    close(a->fd);
    a->own_fd = 0;
    a->fd = a->scratch.fd;
    return npy_open_at(a->fd, 0, m->usize, a->name, &a->info, e);
}

static int open_member(arr_src *a, const char *path, const char *key,
                       const char *tmpdir, uint64_t size, gnn_err *e)
{
    npz_member m;
    int rc = npz_find(a->fd, size, last_part(path), key, &m, e);
    if (rc) return rc;
    snprintf(a->name, sizeof a->name, "%s:%s", last_part(path), m.key);
    if (m.method == NPZ_STORED)
        return npy_open_at(a->fd, m.data_off, m.usize, a->name, &a->info, e);
    return inflate_member(a, &m, tmpdir, e);
}

/* Column-major to row-major: for each band of rows, one read per column. */
static int to_c_order(arr_src *a, const char *tmpdir, gnn_err *e)
{
    npy_info *in = &a->info;
    uint64_t rows = (uint64_t)in->shape[0], cols = (uint64_t)in->shape[1];
    size_t es = in->elem_size, rowb = (size_t)cols * es;
    uint64_t band = GNN_MAX((uint64_t)1, (uint64_t)(TRANSPOSE_BYTES / rowb));
    band = GNN_MIN(band, rows);
    xs_file out;
    unsigned char *rb = malloc(band * rowb), *cb = malloc(band * es);
    int rc = rb && cb ? xs_file_open(&out, tmpdir, COPY_BUF, e)
                      : gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    if (rc) {
        free(rb);
        free(cb);
        return rc;
    }
    for (uint64_t r0 = 0; !rc && r0 < rows; r0 += band) {
        uint64_t k = GNN_MIN(band, rows - r0);
        for (uint64_t j = 0; !rc && j < cols; j++) {
            rc = arr_pread(a->fd, cb, (size_t)k * es,
                           in->data_offset + (j * rows + r0) * es, a->name, e);
            for (uint64_t i = 0; !rc && i < k; i++)
                memcpy(rb + i * rowb + j * es, cb + i * es, es);
        }
        if (!rc) rc = xs_file_write(&out, rb, (size_t)k * rowb, e);
    }
    if (!rc) rc = xs_file_flush(&out, e);
    free(rb);
    free(cb);
    if (rc) {
        xs_file_close(&out);
        return rc;
    }
    if (a->own_fd) close(a->fd);
    xs_file_close(&a->scratch);
    a->own_fd = 0;
    a->scratch = out;
    a->fd = out.fd;
    in->data_offset = 0;
    in->fortran = 0;
    return GNNDB_OK;
}

static int open_src(const char *path, const char *key, const char *tmpdir,
                    arr_src *a, gnn_err *e)
{
    memset(a, 0, sizeof *a);
    a->scratch.fd = -1;
    snprintf(a->name, sizeof a->name, "%s", last_part(path));
    int npz = ends_with(path, ".npz");
    if (key && !npz)
        return gnn_seterr(e, GNNDB_MISUSE, "%s: KEY names a member of an "
                          ".npz file; this is not one", a->name);
    if (!tmpdir) tmpdir = "/tmp";
    int rc = gnn_open_input(path, &a->fd, e);
    if (rc) return rc;
    a->own_fd = 1;
    struct stat st;
    if (fstat(a->fd, &st) != 0)
        return gnn_seterr_errno(e, GNNDB_IOERR, errno, "cannot stat %s", path);
    rc = npz ? open_member(a, path, key, tmpdir, (uint64_t)st.st_size, e)
                 : npy_open_at(a->fd, 0, (uint64_t)st.st_size, a->name,
                               &a->info, e);
    if (rc) return rc;
    if (a->info.fortran && a->info.shape[0] > 1 && a->info.shape[1] > 1)
        return to_c_order(a, tmpdir, e);
    a->info.fortran = 0;  /* a vector reads the same in either order */
    return GNNDB_OK;
}

int arr_open(const char *path, const char *key, const char *tmpdir,
             arr_src *a, gnn_err *e)
{
    int rc = open_src(path, key, tmpdir, a, e);
    /* a refused file leaves nothing open: callers return at once (the
    ** idlist fuzz target ran out of descriptors on bad headers) */
    if (rc) arr_close(a);
    return rc;
}

int arr_pread(int fd, void *p, size_t n, uint64_t off, const char *name,
              gnn_err *e)
{
    unsigned char *c = p;
    while (n > 0) {
        ssize_t r = pread(fd, c, n, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0)
            return gnn_seterr_errno(e, GNNDB_IOERR, errno, "read of %s", name);
        if (r == 0)
            return gnn_seterr(e, GNNDB_FORMAT, "%s: file shrank while being "
                              "imported", name);
        c += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return GNNDB_OK;
}

int arr_read_rows(const arr_src *a, int64_t first, int64_t count, void *out,
                  gnn_err *e)
{
    size_t rowb = (size_t)a->info.shape[1] * a->info.elem_size;
    return arr_pread(a->fd, out, (size_t)count * rowb,
                     a->info.data_offset + (uint64_t)first * rowb, a->name, e);
}

void arr_close(arr_src *a)
{
    if (a->own_fd && a->fd >= 0) close(a->fd);
    xs_file_close(&a->scratch);
    a->fd = -1;
    a->own_fd = 0;
}
