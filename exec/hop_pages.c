/* hop_pages.c — which pages of a graph block a hop reads when it reads
** only some: first page 0 and the offset-table entries of its nodes (where
** an entry lies follows from the node's place in the block), then, once
** those are verified, the pages of the nodes' objects (where they lie, the
** entries tell). The estimate of the second read, for the choice under
** PRAGMA read_granularity = 'auto', takes the graph's mean object. */
#include "hop_int.h"
#include "costmodel.h"

/* The first node whose object starts in block `no` (the index's entry;
** every block a hop buckets items into has one). */
static uint64_t first_start(const hb_ctx *x, uint64_t no)
{
    const hb_rel_topo *t = x->gtopo;
    return idx_first_in(t->idx_first, t->idx_block, t->nidx, no);
}

/* The entries off[k] and off[k+1] of each item's node: k is its distance
** from the block's first starting node, one more when the block opens with
** the tail of a longer list (object 0 then holds the previous node). */
static void hop_mark(void *arg, size_t i, uint64_t no, uint8_t *map)
{
    hb_ctx *x = arg;
    uint32_t bs = x->gtopo->f->block_size, ps = blk_page_size(bs);
    uint32_t np = blk_npages(bs);
    uint64_t first = first_start(x, no), at = blk_data_offset(bs);
    for (size_t k = x->bk.bstart[no]; k < x->bk.bstart[no + 1]; k++) {
        uint64_t node = x->hop->items[x->bk.sorted[k]].node;
        if (node < first) continue;  /* reported by hop_more */
        uint64_t lo = at + 4 * (node - first), hi = lo + 4 * 3 - 1;
        for (uint64_t pg = lo / ps; pg <= hi / ps && pg < np; pg++)
            map[pg] = 1;
    }
}

static int misplaced(const hb_ctx *x, uint64_t no, uint64_t node, gnn_err *e)
{
    return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %llu of %s: node "
                      "%llu is not where the index says",
                      (unsigned long long)no, x->gtopo->f->path,
                      (unsigned long long)node);
}

/* Stage two: the pages of each item's object, from its verified entries;
** an entry outside the block, or a node not where the index put it, is
** corruption (and its entry may not have been read). */
static int hop_more(void *arg, uint64_t no, const void *data, uint8_t *map,
                    gnn_err *e)
{
    hb_ctx *x = arg;
    const blk_header *h = data;
    uint32_t ps = blk_page_size(h->block_size), np = blk_npages(h->block_size);
    uint64_t first = first_start(x, no);
    for (size_t k = x->bk.bstart[no]; k < x->bk.bstart[no + 1]; k++) {
        uint64_t node = x->hop->items[x->bk.sorted[k]].node;
        uint64_t j = node - h->first_node, start, end;
        if (node < h->first_node || j >= h->count || node < first ||
            (j != node - first && j != node - first + 1) ||
            !blk_graph_object_span(data, (uint32_t)j, &start, &end))
            return misplaced(x, no, node, e);
        for (uint64_t pg = start / ps; pg <= (end - 1) / ps && pg < np; pg++)
            map[pg] = 1;
    }
    return GNNDB_OK;
}

/* Stage two's time: a read of the mean object (and a page boundary) per
** item. */
static double hop_later(void *arg, size_t i, uint64_t no)
{
    hb_ctx *x = arg;
    const cat_graph *g = &x->p->graph;
    double obj = 20.0 + 4.0 * (double)g->edges / (double)GNN_MAX(1, g->nodes);
    double items = (double)(x->bk.bstart[no + 1] - x->bk.bstart[no]);
    uint32_t ps = blk_page_size(x->gtopo->f->block_size);
    return items * cm_request_seconds(&x->p->profile, obj + ps);
}

void hb_hop_ops(hb_ctx *x, bp_visit_fn visit, gran_ops *ops)
{
    ops->mark = hop_mark;
    ops->more = hop_more;
    ops->later = hop_later;
    ops->visit = visit;
    ops->arg = x;
}
