/* xfer_layout.h — which arrays of a batch view go to the device, and where
** each lies in one device allocation. Plain C, no CUDA: the transfer
** operator (xfer_cuda.cu) lays a batch out with it, and the tests check the
** layout and the device view it binds without a device.
**
** Every array of a node, link or typed batch goes: n_id, edge_index, x, y,
** the link arrays (e_id, edge_attr, edge_label_index, edge_label,
** src_index, dst_pos_index, dst_neg_index), each type's n_id, x and y, and
** each relation's edge_index, e_id and edge_attr. The per-hop counts
** (num_sampled_nodes, num_sampled_edges, a type's and a relation's) stay in
** host memory: a few words each, read on the host (PyG keeps them as
** lists), as do the names. */
#ifndef GNN_XFER_LAYOUT_H
#define GNN_XFER_LAYOUT_H

#include <stddef.h>
#include "gnndb.h"
#include "err.h"

/* Arrays start on this boundary in the device allocation and in staging. */
#define XL_ALIGN ((size_t)256)

/* What an item of the layout is: an array of the view (XL_ARRAY; XL_X for
** the batch's own x, which the device cache may fill instead of a copy),
** or one of the device cache's per-batch arrays (xfer_cuda.cu adds them). */
#define XL_ARRAY 0
#define XL_X     1
#define XL_EXTRA 2

typedef struct xl_item {
    const void *src;           /* host memory (NULL for XL_EXTRA) */
    size_t bytes;              /* 0: an empty array, or an absent one */
    size_t off;                /* in the device allocation */
    int kind;                  /* XL_* */
    int present;               /* the view's pointer was not NULL */
    /* the copy's way (xfer_copy.cu): read in place from pinned memory, or
    ** through staging at soff */
    int direct;
    size_t soff;
} xl_item;

typedef struct xl {
    xl_item *it;
    int n;
    size_t cap;                /* items it has room for (gnn_grow) */
    size_t total;              /* bytes of the device allocation */
} xl;

/* Lay out the arrays of host view h (counts checked: a negative count or a
** size that overflows is GNNDB_INTERNAL, naming the field). Reuses l's
** memory; free it with xl_free. */
int xl_plan(xl *l, const gnndb_batch_view *h, gnn_err *e);
/* Append an item of `bytes` after the others (XL_EXTRA); its index, or -1
** when out of memory. */
int xl_add(xl *l, size_t bytes);
/* The device view of h: *d = *h with every array that xl_plan listed at
** base + its offset (NULL where h's is NULL), and its types and relations
** copied into tv and rv (h->num_node_types and h->num_relations entries)
** with their arrays likewise; the per-hop counts and names stay h's. */
void xl_bind(const xl *l, const gnndb_batch_view *h, char *base,
             gnndb_batch_view *d, gnndb_type_view *tv, gnndb_rel_view *rv);
void xl_free(xl *l);

#endif
