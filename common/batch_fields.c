/* batch_fields.c — the list of a batch view's arrays (batch_fields.h),
** and gnndb_batch_field, which hands it to the bindings. */
#include "batch_fields.h"

/* a member's name and where it lies, written once */
#define P(field) #field, offsetof(gnndb_batch_view, field)

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

/* The names gnndb_batch_field gives the counts: the view's members, so
** that a binding reads a shape off the view by name. */
static const char *const count_names[] = {
    [BF_ONE] = "1", [BF_TWO] = "2", [BF_NODES] = "num_nodes",
    [BF_EDGES] = "num_edges", [BF_SEEDS] = "num_seeds",
    [BF_LABEL_EDGES] = "num_label_edges", [BF_POS] = "num_pos",
    [BF_NEG] = "num_neg", [BF_X_DIM] = "x_dim",
    [BF_EATTR_DIM] = "edge_attr_dim",
};
_Static_assert(sizeof count_names / sizeof count_names[0] ==
               BF_EATTR_DIM + 1, "a name for every count");

/* Public (gnndb.h): static strings, nothing to free. */
int gnndb_batch_field(int i, const char **name, const char **member,
                      int *is_float, int *optional, const char **dim0,
                      const char **dim1)
{
    if (i < 0 || i >= BF_NFIELDS) return GNNDB_RANGE;
    const bf_field *f = &list[i];
    if (name) *name = f->name;
    if (member) *member = f->member;
    if (is_float) *is_float = f->is_float;
    if (optional) *optional = !f->always;
    if (dim0) *dim0 = count_names[f->d0];
    if (dim1) *dim1 = f->ndim == 2 ? count_names[f->d1] : NULL;
    return GNNDB_OK;
}
