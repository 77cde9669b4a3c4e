/* npy.h — the numpy .npy format (versions 1.0, 2.0, 3.0): parsing headers
** strictly, reading the data of a file whose size matches its header, and
** writing arrays that numpy.load reads. */
#ifndef GNN_NPY_H
#define GNN_NPY_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"

#define NPY_F32 1
#define NPY_F64 2
#define NPY_I64 3
#define NPY_I32 4
#define NPY_F16 5
#define NPY_I8  6
#define NPY_U8  7
#define NPY_I16 8
#define NPY_U16 9
#define NPY_U32 10
#define NPY_U64 11
#define NPY_BOOL 12

typedef struct npy_info {
    int dtype;            /* NPY_* */
    size_t elem_size;
    int ndim;             /* 1 or 2 */
    int64_t shape[2];     /* shape[1] = 1 when ndim == 1 */
    int fortran;          /* column-major data (fortran_order True) */
    size_t data_offset;   /* where the data begins (npy_open_at: in the
                             file, the member's offset included) */
} npy_info;

/* Parse the header in buf[0..len) (the magic, version, length, dict). Pure,
** no I/O. Accepts C and Fortran order and the little-endian numbers and
** bool numpy writes (float16/32/64, int8-64, uint8-64, bool); rejects
** big-endian or other dtypes, ndim > 2, negative shapes and malformed
** dicts with GNNDB_FORMAT and words naming `path`. */
int npy_parse_header(const void *buf, size_t len, npy_info *info,
                     const char *path, gnn_err *e);

/* Open `path`, parse its header and check that the file holds exactly the
** data its header promises (truncated or overlong -> GNNDB_FORMAT). Returns
** the open fd through *fd (the caller closes it). */
int npy_open(const char *path, npy_info *info, int *fd, gnn_err *e);

/* The same for a .npy held in bytes [base, base + size) of an open file
** (a stored .npz member, an inflated copy); `name` is what messages call
** it. info->data_offset is then an offset in the file. */
int npy_open_at(int fd, uint64_t base, uint64_t size, const char *name,
                npy_info *info, gnn_err *e);

/* The numpy name of a dtype ("float32", "uint16", "bool", ...). */
const char *npy_dtype_name(int dtype);
int npy_is_integer(int dtype);   /* the int, uint and bool dtypes */

/* Read element j of row i (ndim 1: i is the element, j = 0), converted to
** double / int64. Small helpers for the importers; `row` points at a row in
** memory. */
double npy_get_f(const npy_info *info, const void *row, int64_t j);
int64_t npy_get_i(const npy_info *info, const void *row, int64_t j);

/* Write a C-order array of `ndim` (1 or 2) dims to `path`. */
int npy_write(const char *path, int dtype, int ndim, const int64_t *shape,
              const void *data, gnn_err *e);

#endif
