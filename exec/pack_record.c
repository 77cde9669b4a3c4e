/* pack_record.c — a mini-batch's record in a pack file, written and
** checked (pack_record.h gives the layout). Both walk the batch-field list
** (common/batch_fields.h), so an array added to a batch view is stored in
** packs as it is digested, written INTO 'dir' and sent TO DEVICE. */
#include "pack_record.h"
#include "batch_fields.h"
#include "../parser/ast.h"

#include <string.h>

#define BIT(i) (1u << (i))
/* what every record holds, and what a version 1 record can */
#define ALWAYS (BIT(BF_N_ID) | BIT(BF_EDGE_INDEX))
#define V1_MASK (ALWAYS | BIT(BF_X) | BIT(BF_Y))
/* the largest count and row width a record may claim: far beyond any
** batch, and small enough that sizes computed from them cannot wrap */
#define MAX_COUNT ((int64_t)1 << 40)
#define MAX_DIM ((int64_t)1 << 24)

/* The arrays v holds, as a mask over the batch-field list. */
static uint32_t present(const gnndb_batch_view *v)
{
    uint32_t m = 0;
    for (int i = 0; i < BF_NFIELDS; i++)
        if (bf_fields[i].always || bf_ptr(v, &bf_fields[i])) m |= BIT(i);
    return m;
}

/* Field f's bytes in v, before padding: -1 when a count is negative or
** the size overflows. */
static int64_t field_bytes(const gnndb_batch_view *v, const bf_field *f)
{
    return bf_array_bytes(bf_count_of(v, f->d0), bf_count_of(v, f->d1),
                          f->is_float ? 4 : 8);
}

/* The header of v's record into h (PK_REC_HEADER + PK_REC_EXT bytes);
** returns its length. */
static size_t put_header(const gnndb_batch_view *v, uint32_t mask,
                         uint8_t *h)
{
    int v2 = (mask & ~V1_MASK) != 0;
    uint32_t magic = PK_REC_MAGIC, version = v2 ? 2 : 1;
    int32_t hops = v->num_hops;
    int32_t flags = v2 ? (int32_t)mask
                       : (v->x ? PK_FLAG_X : 0) | (v->y ? PK_FLAG_Y : 0);
    int64_t dim = v->x ? v->x_dim : 0;
    memset(h, 0, PK_REC_HEADER + PK_REC_EXT);
    memcpy(h + 0, &magic, 4);
    memcpy(h + 4, &version, 4);
    memcpy(h + 8, &v->epoch, 8);
    memcpy(h + 16, &v->batch, 8);
    memcpy(h + 24, &v->num_seeds, 8);
    memcpy(h + 32, &v->num_nodes, 8);
    memcpy(h + 40, &v->num_edges, 8);
    memcpy(h + 48, &hops, 4);
    memcpy(h + 52, &flags, 4);
    memcpy(h + 56, &dim, 8);
    memcpy(h + 64, &v->digest, 8);
    if (!v2) return PK_REC_HEADER;
    int64_t ext[4] = {v->num_label_edges, v->num_pos, v->num_neg,
                      v->edge_attr ? v->edge_attr_dim : 0};
    memcpy(h + PK_REC_HEADER, ext, sizeof ext);
    return PK_REC_HEADER + PK_REC_EXT;
}

int pk_record_write(const gnndb_batch_view *v, pk_put_fn put, void *ctx,
                    gnn_err *e)
{
    uint32_t mask = present(v);
    uint8_t h[PK_REC_HEADER + PK_REC_EXT];
    size_t hops = (size_t)v->num_hops;
    int rc = put(ctx, h, put_header(v, mask, h), e);
    if (!rc) rc = put(ctx, v->num_sampled_nodes, (hops + 1) * 8, e);
    if (!rc) rc = put(ctx, v->num_sampled_edges, hops * 8, e);
    for (int i = 0; !rc && i < BF_NFIELDS; i++) {
        const bf_field *f = &bf_fields[i];
        if (!(mask & BIT(i))) continue;
        int64_t n = field_bytes(v, f);
        if (n < 0)
            return gnn_seterr(e, GNNDB_RANGE, "batch %lld of epoch %lld: "
                              "its %s has an impossible size",
                              (long long)v->batch, (long long)v->epoch,
                              f->name);
        rc = put(ctx, bf_ptr(v, f), (size_t)n, e);
        if (!rc && n % 8) rc = put(ctx, NULL, (size_t)(8 - n % 8), e);
    }
    return rc;
}

/* Read the header at p into v and *mask; NULL, or what is wrong. */
static const char *get_header(const uint8_t *p, uint64_t len,
                              gnndb_batch_view *v, uint32_t *mask,
                              size_t *hlen)
{
    uint32_t magic, version;
    int32_t hops, flags;
    if (len < PK_REC_HEADER) return "short record";
    memcpy(&magic, p, 4);
    memcpy(&version, p + 4, 4);
    memcpy(&v->epoch, p + 8, 8);
    memcpy(&v->batch, p + 16, 8);
    memcpy(&v->num_seeds, p + 24, 8);
    memcpy(&v->num_nodes, p + 32, 8);
    memcpy(&v->num_edges, p + 40, 8);
    memcpy(&hops, p + 48, 4);
    memcpy(&flags, p + 52, 4);
    memcpy(&v->x_dim, p + 56, 8);
    memcpy(&v->digest, p + 64, 8);
    if (magic != PK_REC_MAGIC || (version != 1 && version != 2))
        return "not a batch record";
    if (hops < 0 || hops > AST_MAX_HOPS) return "impossible sizes";
    v->num_hops = hops;
    *hlen = PK_REC_HEADER;
    if (version == 1) {
        if (flags & ~(PK_FLAG_X | PK_FLAG_Y)) return "unknown arrays";
        *mask = ALWAYS | ((flags & PK_FLAG_X) ? BIT(BF_X) : 0) |
                ((flags & PK_FLAG_Y) ? BIT(BF_Y) : 0);
        return NULL;
    }
    if (len < PK_REC_HEADER + PK_REC_EXT) return "short record";
    *mask = (uint32_t)flags;
    if ((*mask >> BF_NFIELDS) || (*mask & ALWAYS) != ALWAYS)
        return "unknown arrays";
    memcpy(&v->num_label_edges, p + 80, 8);
    memcpy(&v->num_pos, p + 88, 8);
    memcpy(&v->num_neg, p + 96, 8);
    memcpy(&v->edge_attr_dim, p + 104, 8);
    *hlen += PK_REC_EXT;
    return NULL;
}

/* Whether v's counts are ones a batch can have. */
static int sizes_possible(const gnndb_batch_view *v)
{
    const int64_t c[] = {v->num_seeds, v->num_nodes, v->num_edges,
                         v->num_label_edges, v->num_pos, v->num_neg};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        if (c[i] < 0 || c[i] > MAX_COUNT) return 0;
    return v->num_nodes >= v->num_seeds && v->x_dim >= 0 &&
           v->x_dim <= MAX_DIM && v->edge_attr_dim >= 0 &&
           v->edge_attr_dim <= MAX_DIM;
}

/* Point v's arrays in mask into the record's body at p + o; NULL, or
** what is wrong. */
static const char *bind(const uint8_t *p, uint64_t len, size_t o,
                        uint32_t mask, gnndb_batch_view *v)
{
    uint64_t hops = (uint64_t)v->num_hops, need = o + (2 * hops + 1) * 8;
    for (int i = 0; i < BF_NFIELDS; i++) {
        if (!(mask & BIT(i))) continue;
        int64_t n = field_bytes(v, &bf_fields[i]);
        if (n < 0) return "impossible sizes";
        need += ((uint64_t)n + 7) / 8 * 8;
    }
    if (need != len) return "its length does not match its sizes";
    v->num_sampled_nodes = (const int64_t *)(p + o);
    o += (hops + 1) * 8;
    v->num_sampled_edges = (const int64_t *)(p + o);
    o += hops * 8;
    for (int i = 0; i < BF_NFIELDS; i++) {
        if (!(mask & BIT(i))) continue;
        bf_set(v, &bf_fields[i], p + o);
        o += ((size_t)field_bytes(v, &bf_fields[i]) + 7) / 8 * 8;
    }
    return NULL;
}

/* An absent array's row width is none (x_dim, edge_attr_dim). */
static void clear_absent_widths(uint32_t mask, gnndb_batch_view *v)
{
    for (int i = 0; i < BF_NFIELDS; i++) {
        if (mask & BIT(i)) continue;
        if (bf_fields[i].d1 == BF_X_DIM) v->x_dim = 0;
        if (bf_fields[i].d1 == BF_EATTR_DIM) v->edge_attr_dim = 0;
    }
}

const char *pk_record_parse(const uint8_t *p, uint64_t len,
                            gnndb_batch_view *v)
{
    uint32_t mask = 0;
    size_t o = 0;
    memset(v, 0, sizeof *v);
    const char *why = get_header(p, len, v, &mask, &o);
    if (!why && !sizes_possible(v)) why = "impossible sizes";
    if (!why) {
        clear_absent_widths(mask, v);
        v->device = GNNDB_DEVICE_HOST;
        why = bind(p, len, o, mask, v);
    }
    if (why) memset(v, 0, sizeof *v);
    return why;
}
