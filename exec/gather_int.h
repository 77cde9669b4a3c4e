/* gather_int.h — the gather operator's own state, shared by its two
** files: gather_open.c (its tables, pool and caches, filled at open) and
** gather.c (each round's rows). No other file includes it. */
#ifndef GNN_GATHER_INT_H
#define GNN_GATHER_INT_H

#include "exec_int.h"
#include "granularity.h"

/* A gather item bound for the row cache's slot `local`, not a batch. */
#define HB_GI_CACHE UINT32_MAX

typedef struct hb_gitem {    /* one feature row to copy */
    uint32_t bi;             /* HB_GI_CACHE: into the cache's slot `local` */
    uint32_t local;
    uint32_t row;
} hb_gitem;

/* Gather's work (gather.c): the rows to copy, the table they come from,
** and the caches it consults: the row cache (fcache.c) with one gather's
** decisions, and the hot-block cache (bcache.c). */
struct hb_gather_state {
    hb_gitem *gitems;
    size_t ngitems, capgitems;
    const void *table;       /* cat_table being gathered */
    int dest;                /* HB_TO_*: where its rows go */
    int type;                /* HB_TO_TYPE_X: the node type;
                             ** HB_TO_REL_EATTR: the relation */
    gran fgran;              /* feature and label blocks: whole or pages */
    struct fcache *fc;
    struct bcache *bc;
    uint32_t *crows, *cfut;
    int64_t *csrc;
    size_t capcrows, capcfut, capcsrc;
};
typedef struct hb_gather_state hb_gather_state;

/* Visit feature block `no` (data in memory) for the items listed in
** x->gat: copy each one's row where it goes (gather.c). The static
** caches are filled through it too. */
int hb_gather_visit(void *arg, uint64_t no, const void *data, gnn_err *e);

#endif
