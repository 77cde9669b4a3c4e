/* fuzz_pack_record.c — libFuzzer target: pk_record_parse (SCAN PACK's
** reader of one stored mini-batch, exec/pack_record.c) over any bytes. A
** record is either refused with words and an empty view, or every array
** it claims lies inside it: its sizes, padded, add up to its length, and
** reading each array whole stays inside the buffer (ASan). A record that
** parses is written again from its view, no longer than it was, and that
** record parses to the same counts and arrays. */
#include "pack_record.h"
#include "batch_fields.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c) do { if (!(c)) abort(); } while (0)

typedef struct out {
    uint8_t *b;
    size_t n, cap;
} out;

static int put(void *ctx, const void *data, size_t len, gnn_err *e)
{
    (void)e;
    out *o = ctx;
    if (o->n + len > o->cap) return GNNDB_RANGE;
    if (data) memcpy(o->b + o->n, data, len);
    else memset(o->b + o->n, 0, len);
    o->n += len;
    return GNNDB_OK;
}

/* Touch every byte of every array v claims. */
static uint64_t touch(const gnndb_batch_view *v)
{
    uint64_t s = 0;
    size_t hops = (size_t)v->num_hops;
    for (size_t i = 0; i <= hops; i++) s += (uint64_t)v->num_sampled_nodes[i];
    for (size_t i = 0; i < hops; i++) s += (uint64_t)v->num_sampled_edges[i];
    for (int i = 0; i < BF_NFIELDS; i++) {
        const unsigned char *p = bf_ptr(v, &bf_fields[i]);
        int64_t n = bf_bytes(v, &bf_fields[i]);
        CHECK(n >= 0);
        CHECK(p != NULL || n == 0 || !bf_fields[i].always);
        for (int64_t k = 0; p && k < n; k++) s += p[k];
    }
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size + 8);   /* 8-byte aligned, as SCAN PACK's */
    if (!buf) return 0;
    memcpy(buf, data, size);
    gnndb_batch_view v;
    const char *why = pk_record_parse(buf, size, &v);
    if (why) {
        CHECK(why[0] != 0);
        CHECK(v.n_id == NULL && v.num_nodes == 0);
        free(buf);
        return 0;
    }
    uint64_t sum = touch(&v);
    out o = {malloc(size + 8), 0, size};
    gnn_err e = {0};
    gnndb_batch_view w;
    if (o.b) {
        CHECK(pk_record_write(&v, put, &o, &e) == GNNDB_OK);
        CHECK(pk_record_parse(o.b, o.n, &w) == NULL);
        CHECK(w.num_nodes == v.num_nodes && w.num_edges == v.num_edges &&
              w.num_seeds == v.num_seeds && w.num_hops == v.num_hops &&
              w.x_dim == v.x_dim && w.edge_attr_dim == v.edge_attr_dim);
        CHECK(touch(&w) == sum);
        for (int i = 0; i < BF_NFIELDS; i++) {
            const bf_field *f = &bf_fields[i];
            int64_t n = bf_bytes(&v, f);
            CHECK(bf_bytes(&w, f) == n);
            CHECK(n == 0 || !memcmp(bf_ptr(&w, f), bf_ptr(&v, f), (size_t)n));
        }
    }
    free(o.b);
    free(buf);
    return 0;
}
