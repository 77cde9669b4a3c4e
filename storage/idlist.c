/* idlist.c — ids from a .npy or .npz (array.c opens, inflates and
** transposes; this file checks the shape and dtype and converts). */
#include "idlist.h"
#include "array.h"
#include "npy.h"

#include <stdlib.h>

/* Rows converted per read: the file is read in slices of this many ids. */
#define IDL_SLICE ((int64_t)1 << 16)

static int check_shape(const arr_src *a, size_t max, gnn_err *e)
{
    const npy_info *in = &a->info;
    if (!npy_is_integer(in->dtype) || in->dtype == NPY_BOOL)
        return gnn_seterr(e, GNNDB_FORMAT, "%s: ids must be integers, not %s",
                          a->name, npy_dtype_name(in->dtype));
    if (in->ndim == 2 && in->shape[1] != 1)
        return gnn_seterr(e, GNNDB_FORMAT, "%s: ids must be one column, not "
                          "%lld x %lld", a->name, (long long)in->shape[0],
                          (long long)in->shape[1]);
    if ((uint64_t)in->shape[0] > max)
        return gnn_seterr(e, GNNDB_NOMEM, "%s: %lld ids do not fit in memory "
                          "(%zu at most)", a->name, (long long)in->shape[0],
                          max);
    return GNNDB_OK;
}

/* Convert a slice of raw elements to int64 in place order. */
static int convert(const arr_src *a, const unsigned char *raw, int64_t k,
                   int64_t *out, int64_t at, gnn_err *e)
{
    for (int64_t i = 0; i < k; i++) {
        const void *el = raw + (size_t)i * a->info.elem_size;
        if (a->info.dtype == NPY_U64 && *(const uint64_t *)el > INT64_MAX)
            return gnn_seterr(e, GNNDB_FORMAT, "%s: id %llu at %lld is out "
                              "of range", a->name,
                              (unsigned long long)*(const uint64_t *)el,
                              (long long)(at + i));
        out[i] = npy_get_i(&a->info, el, 0);
    }
    return GNNDB_OK;
}

int idl_read(const char *path, const char *tmpdir, size_t max, int64_t **ids,
             size_t *n, gnn_err *e)
{
    *ids = NULL;
    *n = 0;
    arr_src a;
    int rc = arr_open(path, NULL, tmpdir, &a, e);
    if (rc) return rc;
    int64_t rows = a.info.shape[0];
    unsigned char *raw = NULL;
    int64_t *out = NULL;
    if ((rc = check_shape(&a, max, e))) goto done;
    raw = malloc((size_t)IDL_SLICE * a.info.elem_size);
    out = malloc(((size_t)rows + 1) * sizeof *out);
    if (!raw || !out) {
        rc = gnn_seterr(e, GNNDB_NOMEM, "%s: out of memory for %lld ids",
                        a.name, (long long)rows);
        goto done;
    }
    for (int64_t at = 0; !rc && at < rows; at += IDL_SLICE) {
        int64_t k = rows - at < IDL_SLICE ? rows - at : IDL_SLICE;
        rc = arr_read_rows(&a, at, k, raw, e);
        if (!rc) rc = convert(&a, raw, k, out + at, at, e);
    }
done:
    free(raw);
    arr_close(&a);
    if (rc) {
        free(out);
        return rc;
    }
    *ids = out;
    *n = (size_t)rows;
    return GNNDB_OK;
}
