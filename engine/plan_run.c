/* plan_run.c — the bytes of a spilled run (plan_run.h). */
#include "plan_run.h"

size_t plan_typed_words(const plan *p, size_t nn, size_t ne)
{
    return nn + (size_t)p->ntypes * ((size_t)p->nhops + 1) + 2 * ne +
           (size_t)p->nrels * (size_t)p->nhops + (p->eids ? ne : 0);
}

size_t plan_run_node_bytes(const plan *p)
{
    /* n_id, and a typed batch's n_id of its type; a time-respecting
    ** batch's seed index and root time */
    return p->typed ? 16 : p->temporal ? 24 : 8;
}

size_t plan_run_edge_bytes(const plan *p)
{
    /* edge_index and e_id, twice in a typed batch: its relations' too;
    ** a time-respecting batch's edge_time */
    size_t one = p->eids ? 24 : 16;
    return p->typed ? 2 * one : p->temporal ? one + 8 : one;
}

size_t plan_run_topo_bytes(const plan *p, size_t nn, size_t ne)
{
    size_t typed = p->typed ? plan_typed_words(p, nn, ne) * 8 : 0;
    size_t timed = p->temporal ? nn * 16 + ne * 8 : 0;
    return nn * 8 + ne * (p->eids ? 24 : 16) + typed + timed;
}

size_t plan_run_order_edge_bytes(const plan *p)
{
    return p->has_efeat || p->typed_efeat ? 8 : 0;
}

int64_t plan_hot_bytes(const plan *p, int64_t cap)
{
    int64_t words = p->feat.rows / 64 + 1;
    return cap * (int64_t)plan_x_row_bytes(p) + words * 12 + p->feat.nblocks +
           65536 * 4 + 4096;
}
