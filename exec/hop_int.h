/* hop_int.h — the hop operator's own state, shared by its two files:
** hop.c (sampling one hop over whole blocks) and hop_pages.c (reading
** graph blocks in pages). No other file includes it. */
#ifndef GNN_HOP_INT_H
#define GNN_HOP_INT_H

#include "exec_int.h"
#include "granularity.h"
#include "sample.h"

typedef struct hb_item {     /* one frontier node of one mini-batch */
    uint32_t node;
    uint32_t bi;             /* mini-batch within the hyperbatch */
    uint32_t pos;            /* its local index */
    uint32_t res_n;          /* neighbours chosen */
    uint64_t res_off;        /* where they are in the arena */
} hb_item;

typedef struct hb_pend {     /* a neighbour in a continuation block */
    uint64_t block;
    uint64_t slot;           /* arena slot to fill */
    uint32_t pos;            /* position in the block's first object */
    uint32_t node;
} hb_pend;

typedef struct hb_worker {  /* one worker's scratch */
    uint32_t *pos;
    size_t cappos;
    uint32_t scratch[SAMPLE_SCRATCH];
    hb_pend *pend;
    size_t npend, cappend;
    int oom;
} hb_worker;

/* One hop's work (hop.c): the frontier items of every mini-batch, the
** arena their chosen neighbours land in, and the requests for neighbours
** in continuation blocks. What a hop keeps per sampled neighbour sits
** beside the arena, indexed by the same slots (hb_item.res_off). */
typedef struct hb_hop_state {
    int index;               /* the hop being sampled */
    int rel;                 /* a typed hop: the relation being sampled;
                             ** -1: the graph's own edges */
    const lk_spec *exclude;  /* a link's EXCLUDE (NULL: none), set by its
                             ** variant: edges it drops are not added */
    hb_item *items;
    size_t nitems, capitems;
    uint32_t *arena;         /* chosen neighbours, per item from res_off */
    size_t narena, caparena;
    uint32_t *earena;        /* their edge ids, when the plan reads them */
    size_t capearena;
    hb_pend *pend;
    size_t npend, cappend;
    size_t *bitem;           /* first item of each mini-batch */
    size_t capbitem;
    volatile int asm_fail;
    const blk_node **objs;   /* objects of the items of the visited block */
    size_t capobjs;
    gran ggran;              /* graph blocks: whole or pages */
    hb_worker *workers;      /* one per thread of x->pool */
} hb_hop_state;

/* How a hop reads graph blocks in pages (hop_pages.c): their offset-table
** entries first, then their objects; `visit` samples a block. */
void hb_hop_ops(hb_ctx *x, bp_visit_fn visit, gran_ops *ops);

#endif
