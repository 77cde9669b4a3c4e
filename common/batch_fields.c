/* batch_fields.c — the list of a batch view's arrays (batch_fields.h). */
#include "batch_fields.h"

#define P(field) offsetof(gnndb_batch_view, field)

static const bf_field list[] = {
    {"n_id", P(n_id), 0, 1, BF_NODES, BF_ONE, 1, 0},
    {"edge_index", P(edge_index), 0, 2, BF_TWO, BF_EDGES, 1, 0},
    {"x", P(x), 1, 2, BF_NODES, BF_X_DIM, 0, 1},
    {"y", P(y), 0, 1, BF_SEEDS, BF_ONE, 0, 0},
    {"e_id", P(e_id), 0, 1, BF_EDGES, BF_ONE, 0, 0},
    {"edge_attr", P(edge_attr), 1, 2, BF_EDGES, BF_EATTR_DIM, 0, 0},
    {"edge_label_index", P(edge_label_index), 0, 2, BF_TWO, BF_LABEL_EDGES,
     0, 0},
    {"edge_label", P(edge_label), 1, 1, BF_LABEL_EDGES, BF_ONE, 0, 0},
    {"src_index", P(src_index), 0, 1, BF_POS, BF_ONE, 0, 0},
    {"dst_pos_index", P(dst_pos_index), 0, 1, BF_POS, BF_ONE, 0, 0},
    {"dst_neg_index", P(dst_neg_index), 0, 2, BF_POS, BF_NEG, 0, 0},
    /* a time-respecting batch's (each node's seed is PyG's `batch`) */
    {"batch", P(node_seed), 0, 1, BF_NODES, BF_ONE, 0, 0},
    {"time", P(time), 0, 1, BF_SEEDS, BF_ONE, 0, 0},
    {"edge_time", P(edge_time), 0, 1, BF_EDGES, BF_ONE, 0, 0},
};
_Static_assert(sizeof list / sizeof list[0] == BF_NFIELDS,
               "BF_NFIELDS counts the list");
const bf_field *const bf_fields = list;

#undef P

const void *bf_ptr(const gnndb_batch_view *v, const bf_field *f)
{
    const void *p;
    __builtin_memcpy(&p, (const char *)v + f->off, sizeof p);
    return p;
}

void bf_set(gnndb_batch_view *v, const bf_field *f, const void *p)
{
    __builtin_memcpy((char *)v + f->off, &p, sizeof p);
}

int64_t bf_count_of(const gnndb_batch_view *v, bf_count c)
{
    switch (c) {
    case BF_ONE: return 1;
    case BF_TWO: return 2;
    case BF_NODES: return v->num_nodes;
    case BF_EDGES: return v->num_edges;
    case BF_SEEDS: return v->num_seeds;
    case BF_LABEL_EDGES: return v->num_label_edges;
    case BF_POS: return v->num_pos;
    case BF_NEG: return v->num_neg;
    case BF_X_DIM: return v->x_dim;
    case BF_EATTR_DIM: return v->edge_attr_dim;
    }
    return -1;
}

int64_t bf_array_bytes(int64_t n, int64_t k, int64_t elem)
{
    int64_t r;
    if (n < 0 || k < 0 || __builtin_mul_overflow(n, k, &r) ||
        __builtin_mul_overflow(r, elem, &r))
        return -1;
    return r;
}

int64_t bf_bytes(const gnndb_batch_view *v, const bf_field *f)
{
    if (!f->always && !bf_ptr(v, f)) return 0;
    return bf_array_bytes(bf_count_of(v, f->d0), bf_count_of(v, f->d1),
                          f->is_float ? 4 : 8);
}
