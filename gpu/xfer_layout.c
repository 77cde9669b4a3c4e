/* xfer_layout.c — the arrays of a batch view that go to the device, laid
** out in one allocation (xfer_layout.h). One walk over the view names them
** in a fixed order, so that planning a layout and binding a device view to
** it can never disagree on which array is where. */
#include "xfer_layout.h"
#include "batch_fields.h"
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Called once per array: the address of the view's pointer field (a
** `const T *` of some T, read and written with memcpy, never through a
** pointer of another type), its size (-1: a count was negative or the
** size overflows), its kind and its name for the words of an error. */
typedef int (*xl_fn)(void *ctx, void *field, int64_t bytes, int kind,
                     const char *name);

#define VISIT(field, bytes, kind, name)                                      \
    do {                                                                     \
        int rc_ = fn(ctx, (void *)&(field), (bytes), (kind), (name));        \
        if (rc_) return rc_;                                                 \
    } while (0)

static int walk_types(int32_t nt, gnndb_type_view *tv, xl_fn fn, void *ctx)
{
    for (int32_t t = 0; t < nt; t++) {
        gnndb_type_view *v = &tv[t];
        VISIT(v->n_id, bf_array_bytes(v->num_nodes, 1, 8), XL_ARRAY, "type n_id");
        VISIT(v->x, v->x ? bf_array_bytes(v->num_nodes, v->x_dim, 4) : 0, XL_ARRAY,
              "type x");
        VISIT(v->y, v->y ? bf_array_bytes(v->num_seeds, 1, 8) : 0, XL_ARRAY,
              "type y");
    }
    return 0;
}

static int walk_rels(int32_t nr, gnndb_rel_view *rv, xl_fn fn, void *ctx)
{
    for (int32_t r = 0; r < nr; r++) {
        gnndb_rel_view *v = &rv[r];
        VISIT(v->edge_index, bf_array_bytes(v->num_edges, 2, 8), XL_ARRAY,
              "relation edge_index");
        VISIT(v->e_id, v->e_id ? bf_array_bytes(v->num_edges, 1, 8) : 0, XL_ARRAY,
              "relation e_id");
        VISIT(v->edge_attr,
              v->edge_attr ? bf_array_bytes(v->num_edges, v->edge_attr_dim, 4) : 0,
              XL_ARRAY, "relation edge_attr");
    }
    return 0;
}

/* Every array of v in the one order: the batch's own (common/
** batch_fields.h's list), then each type's and each relation's (in tv
** and rv, v's types and relations or copies of them). */
static int walk(gnndb_batch_view *v, gnndb_type_view *tv, gnndb_rel_view *rv,
                xl_fn fn, void *ctx)
{
    for (int i = 0; i < BF_NFIELDS; i++) {
        const bf_field *f = &bf_fields[i];
        int rc = fn(ctx, (char *)v + f->off, bf_bytes(v, f),
                    f->is_x ? XL_X : XL_ARRAY, f->name);
        if (rc) return rc;
    }
    int rc = walk_types(v->num_node_types, tv, fn, ctx);
    return rc ? rc : walk_rels(v->num_relations, rv, fn, ctx);
}

#undef VISIT

static size_t align_up(size_t v)
{
    return (v + XL_ALIGN - 1) / XL_ALIGN * XL_ALIGN;
}

/* Room for one more item. */
static int grow(xl *l)
{
    size_t need = (size_t)l->n + 1;
    return need <= l->cap ? 0
         : gnn_grow((void **)&l->it, &l->cap, need, sizeof *l->it);
}

typedef struct plan_ctx {
    xl *l;
    gnn_err *e;
} plan_ctx;

static int plan_item(void *ctx, void *field, int64_t bytes, int kind,
                     const char *name)
{
    plan_ctx *c = ctx;
    const void *src;
    memcpy(&src, field, sizeof src);
    if (bytes < 0 || (bytes > 0 && !src))
        return gnn_seterr(c->e, GNNDB_INTERNAL, "malformed batch view: %s "
                          "has %s", name,
                          bytes < 0 ? "a negative or overflowing size"
                                    : "a size but no array");
    if (grow(c->l)) return gnn_seterr(c->e, GNNDB_NOMEM, "out of memory");
    xl_item *it = &c->l->it[c->l->n++];
    it->src = src;
    it->bytes = (size_t)bytes;
    it->off = c->l->total;
    it->kind = kind;
    it->present = src != NULL;
    if (c->l->total + (size_t)bytes < c->l->total)
        return gnn_seterr(c->e, GNNDB_NOMEM, "batch too large");
    c->l->total = align_up(c->l->total + (size_t)bytes);
    return 0;
}

int xl_plan(xl *l, const gnndb_batch_view *h, gnn_err *e)
{
    l->n = 0;
    l->total = 0;
    if (h->num_node_types < 0 || h->num_relations < 0 ||
        (h->num_node_types && !h->types) || (h->num_relations && !h->rels))
        return gnn_seterr(e, GNNDB_INTERNAL, "malformed batch view: types "
                          "or relations");
    gnndb_batch_view v = *h;
    plan_ctx c = {l, e};
    /* read only: the walk reads the fields of h's types and relations */
    return walk(&v, (gnndb_type_view *)h->types, (gnndb_rel_view *)h->rels,
                plan_item, &c);
}

int xl_add(xl *l, size_t bytes)
{
    if (grow(l)) return -1;
    xl_item *it = &l->it[l->n];
    memset(it, 0, sizeof *it);
    it->bytes = bytes;
    it->off = l->total;
    it->kind = XL_EXTRA;
    l->total = align_up(l->total + bytes);
    return l->n++;
}

typedef struct bind_ctx {
    const xl *l;
    char *base;
    int i;
} bind_ctx;

static int bind_item(void *ctx, void *field, int64_t bytes, int kind,
                     const char *name)
{
    (void)bytes;
    (void)kind;
    (void)name;
    bind_ctx *c = ctx;
    const xl_item *it = &c->l->it[c->i++];
    /* an empty array keeps a pointer, so that present stays present */
    const void *dev = it->present ? c->base + it->off : NULL;
    memcpy(field, &dev, sizeof dev);
    return 0;
}

void xl_bind(const xl *l, const gnndb_batch_view *h, char *base,
             gnndb_batch_view *d, gnndb_type_view *tv, gnndb_rel_view *rv)
{
    *d = *h;
    if (h->num_node_types)
        memcpy(tv, h->types, (size_t)h->num_node_types * sizeof *tv);
    if (h->num_relations)
        memcpy(rv, h->rels, (size_t)h->num_relations * sizeof *rv);
    d->types = h->num_node_types ? tv : NULL;
    d->rels = h->num_relations ? rv : NULL;
    bind_ctx c = {l, base, 0};
    walk(d, tv, rv, bind_item, &c);
}

void xl_free(xl *l)
{
    free(l->it);
    memset(l, 0, sizeof *l);
}
