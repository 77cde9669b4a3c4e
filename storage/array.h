/* array.h — a numeric array from a .npy file or from a member of an .npz
** file, as random-access rows in C order: `fd`, where the data starts,
** rows x cols of `info.dtype`. A deflated member (inflated by gz.c), or an
** array in Fortran order (transposed), is first copied into an unlinked
** scratch file; a .npy in C order, or a stored member, is read in place. */
#ifndef GNN_ARRAY_H
#define GNN_ARRAY_H

#include <stdint.h>
#include "err.h"
#include "extsort.h"
#include "npy.h"

typedef struct arr_src {
    int fd;               /* the data: the file itself or a scratch copy */
    npy_info info;        /* shape, dtype; fortran 0; data_offset in fd */
    char name[600];       /* "x.npy" or "data.npz:edge_index", for messages */
    xs_file scratch;      /* the copy, when one was made */
    int own_fd;           /* fd is the input file (closed by arr_close) */
} arr_src;

/* Does the name end in .npy or .npz (the inputs arr_open reads)? */
int arr_is_array_path(const char *path);

/* Open `path`: a .npy, or member `key` of an .npz (NULL: its only one).
** Scratch copies go to `tmpdir`. Errors name the file and the member. */
int arr_open(const char *path, const char *key, const char *tmpdir,
             arr_src *a, gnn_err *e);

/* Read rows [first, first + count) (each info.shape[1] elements) into out. */
int arr_read_rows(const arr_src *a, int64_t first, int64_t count, void *out,
                  gnn_err *e);

void arr_close(arr_src *a);

/* Read n bytes at off of an input file that must hold them ("x.npy: file
** shrank while being imported" when it does not). */
int arr_pread(int fd, void *p, size_t n, uint64_t off, const char *name,
              gnn_err *e);   /* accepts one arr_open failed on */

#endif
