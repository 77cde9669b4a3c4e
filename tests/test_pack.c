/* test_pack.c — packs (engine/pack_build.c, pack_scan.c): SAMPLE ... INTO
** PACK then SCAN PACK, through the public API on cora, against the online
** SAMPLE of the same text as the reference: every batch (epoch and batch
** numbers, n_id, both hop counts, edge_index, x, y, digest) byte for byte,
** in the same order, EPOCH e giving that epoch's alone, also on a read-only
** handle. A byte flipped in one pack block makes SCAN PACK fail with
** GNNDB_CORRUPT naming the file and the block, and no batch whose record
** lies in that block (located with the record layout of pack.h) is ever
** returned; the batches returned before the error equal the online ones.
** DROP PACK removes the pack's file and its name. The record itself
** (pack_record.c): a batch holding every array of the batch-field list
** comes back from its record array for array and count for count; a node
** batch's record is version 1, of exactly the length version 1 always
** had; every shorter record, an unknown array, a missing n_id and counts
** no batch can have are refused with words and leave the view empty. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gnndb.h"
#include "util.h"
#include "block.h"      /* blk_data_offset: where a block's payload starts */
#include "batch_fields.h"
#include "pack_record.h"

#define PACK_BS (1u << 20)   /* pack blocks are 1 MiB (docs/format.md) */
#define MAXB 16

/* A deep copy of one batch view. */
typedef struct stored_batch {
    gnndb_batch_view v;
    void *mem;
    size_t rec;          /* the bytes of its record in the pack stream */
} stored_batch;

static void copy_batch(stored_batch *c, const gnndb_batch_view *v)
{
    size_t h = (size_t)v->num_hops, nn = (size_t)v->num_nodes;
    size_t ne = (size_t)v->num_edges, ns = (size_t)v->num_seeds;
    size_t xb = v->x ? nn * (size_t)v->x_dim * 4 : 0;
    size_t sz = (2 * h + 1 + nn + 2 * ne + (v->y ? ns : 0)) * 8 + xb;
    char *m = malloc(sz + 8), *p = m;
    c->v = *v;
#define TAKE(field, bytes) do { memcpy(p, v->field, bytes); \
        c->v.field = (void *)p; p += (bytes); } while (0)
    TAKE(num_sampled_nodes, (h + 1) * 8);
    TAKE(num_sampled_edges, h * 8);
    TAKE(n_id, nn * 8);
    TAKE(edge_index, ne * 16);
    if (v->x) TAKE(x, xb);
    if (v->y) TAKE(y, ns * 8);
#undef TAKE
    c->mem = m;
    /* pack.h: an 80-byte header, the hop counts, n_id, edge_index, x padded
    ** to 8 bytes, y */
    c->rec = 80 + (2 * h + 1) * 8 + nn * 8 + ne * 16 + ((xb + 7) & ~(size_t)7) +
             (v->y ? ns * 8 : 0);
}

static void assert_same_batch(const gnndb_batch_view *a, const gnndb_batch_view *b)
{
    assert_int_equal(a->epoch, b->epoch);
    assert_int_equal(a->batch, b->batch);
    assert_int_equal(a->num_seeds, b->num_seeds);
    assert_int_equal(a->num_nodes, b->num_nodes);
    assert_int_equal(a->num_edges, b->num_edges);
    assert_int_equal(a->num_hops, b->num_hops);
    assert_int_equal(a->x_dim, b->x_dim);
    assert_int_equal(a->digest, b->digest);
    assert_memory_equal(a->num_sampled_nodes, b->num_sampled_nodes,
                        (size_t)(a->num_hops + 1) * 8);
    assert_memory_equal(a->num_sampled_edges, b->num_sampled_edges,
                        (size_t)a->num_hops * 8);
    assert_memory_equal(a->n_id, b->n_id, (size_t)a->num_nodes * 8);
    if (a->num_edges)
        assert_memory_equal(a->edge_index, b->edge_index,
                            (size_t)a->num_edges * 16);
    assert_true((a->x == NULL) == (b->x == NULL));
    if (a->x)
        assert_memory_equal(a->x, b->x, (size_t)(a->num_nodes * a->x_dim) * 4);
    assert_true((a->y == NULL) == (b->y == NULL));
    if (a->y) assert_memory_equal(a->y, b->y, (size_t)a->num_seeds * 8);
}

typedef struct fx {
    tu_db d;
    stored_batch online[MAXB];
    int n;
} fx;

#define QUERY "SAMPLE 10,10 FROM cora SEEDS train FEATURES feat BATCH 64 " \
              "SHUFFLE SEED 42 EPOCHS 2"

static void exec_ok(gnndb *h, const char *sql)
{
    if (gnndb_exec(h, sql, NULL, NULL))
        fail_msg("%s\n-> %s", sql, gnndb_errmsg(h));
}

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    if (tu_db_open(&f->d, "pack") || tu_import_cora(f->d.h)) return -1;
    gnndb_stmt *st;
    if (gnndb_prepare(f->d.h, QUERY ";", -1, &st, NULL)) return -1;
    while (gnndb_step(st) == GNNDB_BATCH && f->n < MAXB)
        copy_batch(&f->online[f->n++], tu_batch(st));
    gnndb_finalize(st);
    *state = f;
    return f->n == 6 ? 0 : -1;   /* 140 seeds: 3 batches an epoch */
}

static int teardown(void **state)
{
    fx *f = *state;
    for (int i = 0; i < f->n; i++) free(f->online[i].mem);
    tu_db_close(&f->d);
    free(f);
    return 0;
}

/* SCAN PACK `sql` on handle h: the batches returned are the online ones
** from index `first` on; returns how many and the step's final code. */
static int scan_and_compare(fx *f, gnndb *h, const char *sql, int first,
                            int *rc_out)
{
    gnndb_stmt *st;
    if (gnndb_prepare(h, sql, -1, &st, NULL)) fail_msg("%s", gnndb_errmsg(h));
    int n = 0, rc;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
        assert_true(first + n < f->n);
        assert_same_batch(tu_batch(st), &f->online[first + n].v);
        n++;
    }
    if (rc != GNNDB_DONE) assert_null(tu_batch(st));
    gnndb_finalize(st);
    *rc_out = rc;
    return n;
}

/* The pack files p-*.blk in the database directory; the last one's name
** into `name` when not NULL. */
static int pack_files(const char *dir, char *name, size_t len)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (!strncmp(de->d_name, "p-", 2) && strstr(de->d_name, ".blk")) {
            n++;
            if (name) snprintf(name, len, "%s", de->d_name);
        }
    closedir(d);
    return n;
}

static void scan_pack_equals_online_sample(void **state)
{
    fx *f = *state;
    exec_ok(f->d.h, QUERY " INTO PACK p1;");
    int rc;
    assert_int_equal(scan_and_compare(f, f->d.h, "SCAN PACK p1;", 0, &rc), 6);
    assert_int_equal(rc, GNNDB_DONE);
    assert_int_equal(scan_and_compare(f, f->d.h, "SCAN PACK p1 EPOCH 1;", 3,
                                      &rc), 3);
    assert_int_equal(rc, GNNDB_DONE);
    /* an epoch the pack does not hold is an error, not an empty scan */
    gnndb_stmt *st = NULL;
    rc = gnndb_prepare(f->d.h, "SCAN PACK p1 EPOCH 2;", -1, &st, NULL);
    if (rc == GNNDB_OK) rc = gnndb_step(st);
    assert_int_equal(rc, GNNDB_RANGE);
    gnndb_finalize(st);
    /* LIMIT keeps the first batches only */
    exec_ok(f->d.h, QUERY " LIMIT 4 INTO PACK p2;");
    assert_int_equal(scan_and_compare(f, f->d.h, "SCAN PACK p2;", 0, &rc), 4);
    assert_int_equal(rc, GNNDB_DONE);
    /* a read-only handle reads packs too */
    gnndb *ro;
    assert_int_equal(gnndb_open(f->d.path, &ro, GNNDB_OPEN_READONLY), GNNDB_OK);
    assert_int_equal(scan_and_compare(f, ro, "SCAN PACK p1;", 0, &rc), 6);
    assert_int_equal(rc, GNNDB_DONE);
    gnndb_close(ro);
    exec_ok(f->d.h, "DROP PACK p1; DROP PACK p2;");
}

/* Flip one byte at `off` of file `path`. */
static void flip_byte(const char *path, long off)
{
    FILE *fp = fopen(path, "r+b");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, off, SEEK_SET), 0);
    int c = fgetc(fp);
    assert_int_not_equal(c, EOF);
    assert_int_equal(fseek(fp, off, SEEK_SET), 0);
    fputc(c ^ 0x5a, fp);
    assert_int_equal(fclose(fp), 0);
}

static void corrupt_block_is_reported_never_returned(void **state)
{
    fx *f = *state;
    assert_int_equal(pack_files(f->d.path, NULL, 0), 0);
    exec_ok(f->d.h, QUERY " INTO PACK pc;");
    char name[256], path[2048];
    assert_int_equal(pack_files(f->d.path, name, sizeof name), 1);
    snprintf(path, sizeof path, "%s/%s", f->d.path, name);
    /* where each record lies: back to back in the stream of payloads */
    uint64_t payload = PACK_BS - blk_data_offset(PACK_BS), off = 0;
    uint64_t first_blk[MAXB], last_blk[MAXB];
    for (int i = 0; i < f->n; i++) {
        first_blk[i] = off / payload;
        last_blk[i] = (off + f->online[i].rec - 1) / payload;
        off += f->online[i].rec;
    }
    /* check that layout on the file itself: each record starts with its
    ** magic, version, epoch and batch */
    size_t flen;
    unsigned char *raw = (unsigned char *)tu_read_file(path, &flen);
    assert_non_null(raw);
    assert_int_equal(flen, (last_blk[f->n - 1] + 1) * PACK_BS);
    off = 0;
    for (int i = 0; i < f->n; i++) {
        unsigned char h[24];
        for (int k = 0; k < 24; k++) {
            uint64_t s = off + (uint64_t)k;
            h[k] = raw[(s / payload) * PACK_BS + blk_data_offset(PACK_BS) +
                       s % payload];
        }
        uint32_t magic, version;
        int64_t ep, bn;
        memcpy(&magic, h, 4);
        memcpy(&version, h + 4, 4);
        memcpy(&ep, h + 8, 8);
        memcpy(&bn, h + 16, 8);
        assert_int_equal(magic, 0x43524b50u);   /* "PKRC" */
        assert_int_equal(version, 1);
        assert_int_equal(ep, f->online[i].v.epoch);
        assert_int_equal(bn, f->online[i].v.batch);
        off += f->online[i].rec;
    }
    free(raw);
    /* the first block, a block in the middle of the stream, the last one */
    uint64_t targets[3] = {0, last_blk[f->n - 1] / 2, last_blk[f->n - 1]};
    for (int t = 0; t < 3; t++) {
        uint64_t b = targets[t];
        long at = (long)(b * PACK_BS + blk_data_offset(PACK_BS) + 100);
        flip_byte(path, at);
        int rc, got = scan_and_compare(f, f->d.h, "SCAN PACK pc;", 0, &rc);
        assert_int_equal(rc, GNNDB_CORRUPT);
        const char *msg = gnndb_errmsg(f->d.h);
        char want[64];
        snprintf(want, sizeof want, "block %" PRIu64 " ", b);
        print_message("block %" PRIu64 ": %d batches before: %s\n", b, got, msg);
        if (!strstr(msg, name) || !strstr(msg, want))
            fail_msg("the message should name %s and %s: %s", name, want, msg);
        /* no batch stored in the damaged block came out */
        for (int i = 0; i < got; i++)
            assert_true(b < first_blk[i] || b > last_blk[i]);
        flip_byte(path, at);   /* repaired: the pack reads whole again */
        assert_int_equal(scan_and_compare(f, f->d.h, "SCAN PACK pc;", 0, &rc), 6);
        assert_int_equal(rc, GNNDB_DONE);
    }
    exec_ok(f->d.h, "DROP PACK pc;");
}

static void drop_pack_removes_its_file(void **state)
{
    fx *f = *state;
    exec_ok(f->d.h, QUERY " LIMIT 2 INTO PACK pd;");
    assert_int_equal(pack_files(f->d.path, NULL, 0), 1);
    /* the name is taken while it exists */
    assert_int_equal(gnndb_exec(f->d.h, QUERY " LIMIT 1 INTO PACK pd;", NULL,
                                NULL), GNNDB_EXISTS);
    assert_int_equal(pack_files(f->d.path, NULL, 0), 1);
    exec_ok(f->d.h, "DROP PACK pd;");
    assert_int_equal(pack_files(f->d.path, NULL, 0), 0);
    gnndb_stmt *st = NULL;
    int rc = gnndb_prepare(f->d.h, "SCAN PACK pd;", -1, &st, NULL);
    if (rc == GNNDB_OK) rc = gnndb_step(st);
    assert_int_equal(rc, GNNDB_NOTFOUND);
    gnndb_finalize(st);
    assert_int_equal(gnndb_exec(f->d.h, "DROP PACK pd;", NULL, NULL),
                     GNNDB_NOTFOUND);
    /* and the name is free again */
    exec_ok(f->d.h, QUERY " LIMIT 1 INTO PACK pd;");
    assert_int_equal(scan_and_compare(f, f->d.h, "SCAN PACK pd;", 0, &rc), 1);
    exec_ok(f->d.h, "DROP PACK pd;");
    assert_int_equal(pack_files(f->d.path, NULL, 0), 0);
}


/* ---- one record, written and parsed (pack_record.c) ---- */

typedef struct rec_buf {
    uint8_t *b;
    size_t n, cap;
} rec_buf;

static int rec_put(void *ctx, const void *data, size_t len, gnn_err *e)
{
    (void)e;
    rec_buf *r = ctx;
    if (r->n + len > r->cap) {
        r->cap = (r->n + len) * 2 + 64;
        r->b = realloc(r->b, r->cap);
        assert_non_null(r->b);
    }
    if (data) memcpy(r->b + r->n, data, len);
    else memset(r->b + r->n, 0, len);
    r->n += len;
    return 0;
}

/* A batch of 3 seeds, 7 nodes, 5 edges, 2 hops, x of 3 (an odd size, so
** that it is padded), edge_attr of 1, 4 label edges, 2 positives and 3
** negatives each: every array of the list set, filled with its index. */
static int64_t i64s[14][64];
static float f32s[14][64];
static void full_view(gnndb_batch_view *v, int only_v1)
{
    static const int64_t nsn[3] = {3, 2, 2}, nse[2] = {3, 2};
    memset(v, 0, sizeof *v);
    v->epoch = 1;
    v->batch = 2;
    v->num_seeds = 3;
    v->num_nodes = 7;
    v->num_edges = 5;
    v->num_hops = 2;
    v->x_dim = 3;
    v->edge_attr_dim = 1;
    v->num_label_edges = 4;
    v->num_pos = 2;
    v->num_neg = 3;
    v->digest = 0x1234;
    v->num_sampled_nodes = nsn;
    v->num_sampled_edges = nse;
    for (int i = 0; i < BF_NFIELDS; i++) {
        const bf_field *f = &bf_fields[i];
        for (int k = 0; k < 64; k++) {
            i64s[i][k] = 100 * i + k;
            f32s[i][k] = (float)(100 * i + k) + 0.5f;
        }
        if (only_v1 && i > BF_Y) continue;
        bf_set(v, f, f->is_float ? (const void *)f32s[i] : i64s[i]);
    }
}

static void write_record(const gnndb_batch_view *v, rec_buf *r)
{
    gnn_err e = {0};
    memset(r, 0, sizeof *r);
    assert_int_equal(pk_record_write(v, rec_put, r, &e), GNNDB_OK);
}

static void record_round_trip(void **state)
{
    (void)state;
    gnndb_batch_view v, got;
    rec_buf r;
    full_view(&v, 0);
    write_record(&v, &r);
    uint32_t version;
    memcpy(&version, r.b + 4, 4);
    assert_int_equal(version, 2);
    assert_null(pk_record_parse(r.b, r.n, &got));
    assert_int_equal(got.num_label_edges, 4);
    assert_int_equal(got.num_pos, 2);
    assert_int_equal(got.num_neg, 3);
    assert_int_equal(got.edge_attr_dim, 1);
    assert_int_equal(got.x_dim, 3);
    assert_int_equal(got.digest, 0x1234);
    assert_memory_equal(got.num_sampled_nodes, v.num_sampled_nodes, 24);
    assert_memory_equal(got.num_sampled_edges, v.num_sampled_edges, 16);
    for (int i = 0; i < BF_NFIELDS; i++) {
        const bf_field *f = &bf_fields[i];
        int64_t n = bf_bytes(&v, f);
        assert_true(n > 0);
        assert_int_equal(bf_bytes(&got, f), n);
        assert_memory_equal(bf_ptr(&got, f), bf_ptr(&v, f), (size_t)n);
    }
    free(r.b);

    /* a node batch: version 1, 80 + counts + n_id + edge_index + x padded
    ** + y, as records always were */
    full_view(&v, 1);
    write_record(&v, &r);
    memcpy(&version, r.b + 4, 4);
    assert_int_equal(version, 1);
    assert_int_equal(r.n, 80 + 5 * 8 + 7 * 8 + 5 * 16 + (7 * 3 * 4 + 4) +
                              3 * 8);
    assert_null(pk_record_parse(r.b, r.n, &got));
    assert_null(got.e_id);
    assert_null(got.time);
    assert_int_equal(got.num_label_edges, 0);
    assert_memory_equal(got.x, v.x, 7 * 3 * 4);
    assert_memory_equal(got.y, v.y, 3 * 8);
    free(r.b);
}

static void assert_refused(const uint8_t *b, size_t n, const char *why)
{
    gnndb_batch_view got;
    const char *w = pk_record_parse(b, n, &got);
    assert_non_null(w);
    if (why) assert_string_equal(w, why);
    assert_null(got.n_id);
    assert_int_equal(got.num_nodes, 0);
}

static void bad_records_are_refused(void **state)
{
    (void)state;
    gnndb_batch_view v;
    rec_buf r;
    full_view(&v, 0);
    write_record(&v, &r);
    for (size_t n = 0; n < r.n; n++) assert_refused(r.b, n, NULL);
    uint8_t *b = malloc(r.n + 8);
    memcpy(b, r.b, r.n);
    int32_t flags;
    memcpy(&flags, b + 52, 4);
    int32_t bad = flags | (1 << BF_NFIELDS);            /* an unknown array */
    memcpy(b + 52, &bad, 4);
    assert_refused(b, r.n, "unknown arrays");
    bad = flags & ~1;                                   /* no n_id */
    memcpy(b + 52, &bad, 4);
    assert_refused(b, r.n, "unknown arrays");
    memcpy(b + 52, &flags, 4);
    int64_t huge = (int64_t)1 << 50;                   /* num_neg */
    memcpy(b + 96, &huge, 8);
    assert_refused(b, r.n, "impossible sizes");
    huge = -1;
    memcpy(b + 96, &huge, 8);
    assert_refused(b, r.n, "impossible sizes");
    memcpy(b, r.b, r.n);
    uint32_t version = 3;
    memcpy(b + 4, &version, 4);
    assert_refused(b, r.n, "not a batch record");
    memcpy(b, r.b, r.n);
    assert_refused(b, r.n + 8, "its length does not match its sizes");
    free(b);
    free(r.b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scan_pack_equals_online_sample),
        cmocka_unit_test(corrupt_block_is_reported_never_returned),
        cmocka_unit_test(drop_pack_removes_its_file),
        cmocka_unit_test(record_round_trip),
        cmocka_unit_test(bad_records_are_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
