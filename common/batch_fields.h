/* batch_fields.h — the one list of a batch view's own arrays (include/
** gnndb.h, gnndb_batch_view): each one's name, element type and shape, in
** the digest's order (docs/format.md). The digest (exec/digest.c), the
** .npy files of SAMPLE ... INTO (exec/batch.c), the device layout of TO
** DEVICE (gpu/xfer_layout.c) and a pack's records (exec/pack_record.c)
** walk it, so that an array added to the view is added here once and
** reaches all four. A typed batch's per-type
** and per-relation arrays, and the per-hop counts, which stay in host
** memory, are walked by each of them apart. gnndb_batch_field (gnndb.h)
** hands the list to the bindings, so Python's Batch is built from it too. */
#ifndef GNN_BATCH_FIELDS_H
#define GNN_BATCH_FIELDS_H

#include <stddef.h>
#include <stdint.h>
#include "gnndb.h"

/* The counts a shape is made of. */
typedef enum bf_count {
    BF_ONE, BF_TWO, BF_NODES, BF_EDGES, BF_SEEDS, BF_LABEL_EDGES, BF_POS,
    BF_NEG, BF_X_DIM, BF_EATTR_DIM
} bf_count;

typedef struct bf_field {
    const char *name;   /* its .npy file's name (PyG's, e.g. "batch") */
    const char *member; /* its member of gnndb_batch_view ("node_seed") */
    size_t off;         /* where that pointer lies in gnndb_batch_view */
    int is_float;       /* float32; else int64 */
    int ndim;           /* of its .npy: 1, or 2 */
    bf_count d0, d1;    /* its shape, d0 x d1 (d1 BF_ONE when 1-D) */
    int always;         /* counted even where its pointer is NULL (empty) */
    int is_x;           /* the feature rows (what a GPU cache serves) */
} bf_field;

/* The arrays in the digest's order, BF_NFIELDS of them. The first four
** are the digest's first sections, always in this order (a version 1
** pack record holds those alone: exec/pack_record.h). */
#define BF_NFIELDS 14
#define BF_N_ID 0
#define BF_EDGE_INDEX 1
#define BF_X 2
#define BF_Y 3
extern const bf_field *const bf_fields;

/* Field f's pointer in v. */
const void *bf_ptr(const gnndb_batch_view *v, const bf_field *f);
/* Set field f's pointer in v to p (owned by whoever owns v's arrays). */
void bf_set(gnndb_batch_view *v, const bf_field *f, const void *p);
/* Count c of v. */
int64_t bf_count_of(const gnndb_batch_view *v, bf_count c);
/* n * k * elem bytes, or -1 when a count is negative or it overflows. */
int64_t bf_array_bytes(int64_t n, int64_t k, int64_t elem);
/* The bytes field f holds in v: 0 where its pointer is NULL (unless
** `always`), -1 when a count is negative or the size overflows. */
int64_t bf_bytes(const gnndb_batch_view *v, const bf_field *f);

#endif
