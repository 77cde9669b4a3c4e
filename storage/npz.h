/* npz.h — the zip container of numpy's .npz files (np.savez: stored
** members; np.savez_compressed: deflated ones; zip64 records as numpy
** writes them): finding a member by its key. Inflating it is gz.c's job,
** parsing the .npy inside npy.c's. */
#ifndef GNN_NPZ_H
#define GNN_NPZ_H

#include <stdint.h>
#include "err.h"

#define NPZ_STORED   0
#define NPZ_DEFLATED 8

typedef struct npz_member {
    char key[256];        /* the member's name less ".npy" */
    int method;           /* NPZ_STORED or NPZ_DEFLATED */
    uint64_t data_off;    /* where its (compressed) bytes begin in the file */
    uint64_t csize;       /* compressed size */
    uint64_t usize;       /* size of the .npy it holds */
    uint32_t crc;         /* CRC-32 of those bytes */
} npz_member;

/* Find member `key` ("edge_index" names edge_index.npy) of the zip file open
** as `fd`, `size` bytes long; `file` is what messages call it. With key
** NULL, the file's only member. Errors (GNNDB_FORMAT, GNNDB_NOTFOUND) name
** the file and the member, and list the keys the file has. */
int npz_find(int fd, uint64_t size, const char *file, const char *key,
             npz_member *m, gnn_err *e);

/* The same over a zip held in memory (for the fuzzer and the tests):
** data_off of the result is an offset into buf. */
int npz_find_mem(const void *buf, uint64_t size, const char *file,
                 const char *key, npz_member *m, gnn_err *e);

#endif
