/* test_gpu_transfer.c — the transfer operator (gpu/xfer.h) on a real device:
** fake batches with known arrays are transferred, copied back with
** cudaMemcpy and compared byte for byte; double buffering, prefetch, buffer
** growth and pinned host arrays are checked across several batches.
**
** Prints "SKIP: no CUDA device (<reason>)" and exits 0 when there is no
** usable device (or gnndb was built without CUDA); otherwise one line per
** check, then "PASS: test_gpu_transfer" (exit 0) or "FAIL: ..." (exit 1). */
#include "xfer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GNNDB_CUDA
#include <cuda_runtime_api.h>
#endif

static int failures;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            failures++;                                                      \
            printf("FAIL: %s:%d: %s: ", __FILE__, __LINE__, #cond);          \
            printf(__VA_ARGS__);                                             \
            printf("\n");                                                    \
        }                                                                    \
    } while (0)

#ifdef GNNDB_CUDA
/* A fake mini-batch whose arrays are a function of `salt`. */
typedef struct fake {
    gnndb_batch_view v;
    int64_t *n_id, *edge_index, *y, nsn[3], nse[2];
    float *x;
    int pinned; /* arrays from xfer_host_alloc */
    xfer *owner;
} fake;

static void *fake_alloc(fake *f, size_t bytes)
{
    return f->pinned ? xfer_host_alloc(f->owner, bytes) : malloc(bytes ? bytes : 1);
}

static void fake_free_arr(fake *f, void *p)
{
    if (f->pinned) xfer_host_free(f->owner, p);
    else free(p);
}

static void fake_make(fake *f, xfer *owner, int pinned, int64_t nn, int64_t ne,
                      int64_t ns, int64_t dim, int with_y, uint64_t salt)
{
    memset(f, 0, sizeof *f);
    f->pinned = pinned;
    f->owner = owner;
    f->n_id = fake_alloc(f, (size_t)nn * 8);
    f->edge_index = fake_alloc(f, (size_t)ne * 16);
    f->x = dim ? fake_alloc(f, (size_t)(nn * dim) * 4) : NULL;
    f->y = with_y ? fake_alloc(f, (size_t)ns * 8) : NULL;
    for (int64_t i = 0; i < nn; i++) f->n_id[i] = (int64_t)(salt * 1000003u) + i;
    for (int64_t i = 0; i < 2 * ne; i++)
        f->edge_index[i] = (int64_t)((i * 2654435761u + salt) % (uint64_t)nn);
    for (int64_t i = 0; f->x && i < nn * dim; i++)
        f->x[i] = (float)(i % 9973) * 0.5f + (float)salt;
    for (int64_t i = 0; f->y && i < ns; i++) f->y[i] = (int64_t)((i + salt) % 7);
    f->nsn[0] = ns;
    f->nsn[1] = (nn - ns) / 2;
    f->nsn[2] = nn - ns - f->nsn[1];
    f->nse[0] = ne / 3;
    f->nse[1] = ne - f->nse[0];
    gnndb_batch_view *v = &f->v;
    v->epoch = 0;
    v->batch = (int64_t)salt;
    v->num_seeds = ns;
    v->num_nodes = nn;
    v->num_edges = ne;
    v->num_hops = 2;
    v->device = GNNDB_DEVICE_HOST;
    v->n_id = f->n_id;
    v->num_sampled_nodes = f->nsn;
    v->num_sampled_edges = f->nse;
    v->edge_index = f->edge_index;
    v->x = f->x;
    v->x_dim = dim;
    v->y = f->y;
    v->digest = 0x1234567890abcdefull ^ salt;
}

static void fake_free(fake *f)
{
    fake_free_arr(f, f->n_id);
    fake_free_arr(f, f->edge_index);
    if (f->x) fake_free_arr(f, f->x);
    if (f->y) fake_free_arr(f, f->y);
}

/* Copy a device array back and compare it with the host one. */
static int same_bytes(const void *dev, const void *host, size_t bytes)
{
    if (!bytes) return 1;
    void *back = malloc(bytes);
    if (!back) return 0;
    cudaError_t err = cudaMemcpy(back, dev, bytes, cudaMemcpyDeviceToHost);
    int ok = err == cudaSuccess && memcmp(back, host, bytes) == 0;
    if (err != cudaSuccess)
        printf("  cudaMemcpy D2H: %s\n", cudaGetErrorString(err));
    free(back);
    return ok;
}

static int is_device_ptr(const void *p)
{
    struct cudaPointerAttributes at;
    if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return at.type == cudaMemoryTypeDevice;
}

/* The device view d holds exactly the arrays of the host view h. */
static void check_view(const char *what, const gnndb_batch_view *h,
                       const gnndb_batch_view *d)
{
    size_t nn = (size_t)h->num_nodes, ne = (size_t)h->num_edges;
    CHECK(d->device == GNNDB_DEVICE_CUDA, "%s: device %d", what, d->device);
    CHECK(d->epoch == h->epoch && d->batch == h->batch &&
              d->num_nodes == h->num_nodes && d->num_edges == h->num_edges &&
              d->num_seeds == h->num_seeds && d->num_hops == h->num_hops &&
              d->x_dim == h->x_dim && d->digest == h->digest,
          "%s: scalars differ", what);
    CHECK(d->num_sampled_nodes == h->num_sampled_nodes &&
              d->num_sampled_edges == h->num_sampled_edges,
          "%s: num_sampled_* must stay host pointers", what);
    CHECK(nn == 0 || is_device_ptr(d->n_id), "%s: n_id not on device", what);
    CHECK(ne == 0 || is_device_ptr(d->edge_index),
          "%s: edge_index not on device", what);
    CHECK(same_bytes(d->n_id, h->n_id, nn * 8), "%s: n_id bytes", what);
    CHECK(same_bytes(d->edge_index, h->edge_index, ne * 16),
          "%s: edge_index bytes", what);
    CHECK((d->x == NULL) == (h->x == NULL), "%s: x presence", what);
    if (h->x)
        CHECK(same_bytes(d->x, h->x, nn * (size_t)h->x_dim * 4),
              "%s: x bytes", what);
    CHECK((d->y == NULL) == (h->y == NULL), "%s: y presence", what);
    if (h->y)
        CHECK(same_bytes(d->y, h->y, (size_t)h->num_seeds * 8),
              "%s: y bytes", what);
}

static void test_one_batch(xfer *x)
{
    gnn_err e = {0};
    fake f;
    gnndb_batch_view d;
    fake_make(&f, x, 0, 1000, 3000, 64, 16, 1, 1);
    int rc = xfer_batch(x, &f.v, &d, &e);
    CHECK(rc == GNNDB_OK, "xfer_batch: %s", e.msg);
    if (!rc) check_view("one batch", &f.v, &d);
    CHECK(d.device_index == 0, "device_index %d", d.device_index);
    fake_free(&f);
    printf("ok: one batch is byte-identical on the device\n");
}

static void test_double_buffering(xfer *x)
{
    gnn_err e = {0};
    fake a, b, c;
    gnndb_batch_view da, db, dc;
    fake_make(&a, x, 0, 5000, 20000, 256, 32, 1, 11);
    fake_make(&b, x, 0, 4000, 15000, 256, 32, 1, 12);
    fake_make(&c, x, 0, 4500, 18000, 256, 32, 1, 13);
    CHECK(xfer_batch(x, &a.v, &da, &e) == GNNDB_OK, "%s", e.msg);
    CHECK(xfer_batch(x, &b.v, &db, &e) == GNNDB_OK, "%s", e.msg);
    CHECK(da.n_id != db.n_id && da.x != db.x, "batches k and k+1 share a buffer");
    /* batch k is still intact while k+1 sits in the other set */
    check_view("batch k after k+1", &a.v, &da);
    check_view("batch k+1", &b.v, &db);
    CHECK(xfer_batch(x, &c.v, &dc, &e) == GNNDB_OK, "%s", e.msg);
    check_view("batch k+2", &c.v, &dc);
    check_view("batch k+1 after k+2", &b.v, &db);
    CHECK(dc.n_id != db.n_id, "batches k+1 and k+2 share a buffer");
    fake_free(&a);
    fake_free(&b);
    fake_free(&c);
    printf("ok: double buffering keeps batch k intact while k+1 is copied\n");
}

static void test_many(xfer *x)
{
    gnn_err e = {0};
    const void *prev_nid[2] = {NULL, NULL};
    for (int k = 0; k < 12; k++) {
        fake f;
        gnndb_batch_view d;
        /* sizes that grow, shrink and grow again; x and y sometimes absent */
        int64_t nn = 100 + (k % 5) * 7919 + k * 1000;
        fake_make(&f, x, 0, nn, nn * 3, 32, k % 4 ? 24 : 0, k % 3 != 0,
                  100 + (uint64_t)k);
        int rc = xfer_batch(x, &f.v, &d, &e);
        CHECK(rc == GNNDB_OK, "batch %d: %s", k, e.msg);
        char what[32];
        snprintf(what, sizeof what, "batch %d", k);
        if (!rc) check_view(what, &f.v, &d);
        CHECK(k == 0 || d.n_id != prev_nid[(k + 1) % 2],
              "batch %d reused the set of batch %d", k, k - 1);
        prev_nid[k % 2] = d.n_id;
        fake_free(&f);
    }
    printf("ok: 12 batches of varying size alternate sets and stay exact\n");
}

static void test_growth(xfer *x)
{
    gnn_err e = {0};
    for (int64_t nn = 16; nn <= (int64_t)1 << 20; nn *= 8) {
        fake f;
        gnndb_batch_view d;
        fake_make(&f, x, 0, nn, nn * 2, nn < 64 ? nn : 64, 32, 1, (uint64_t)nn);
        int rc = xfer_batch(x, &f.v, &d, &e);
        CHECK(rc == GNNDB_OK, "nn=%" PRId64 ": %s", nn, e.msg);
        if (!rc) check_view("growth", &f.v, &d);
        fake_free(&f);
    }
    printf("ok: buffers grow from 1 KB to 80 MB batches\n");
}

static void test_pinned_direct(xfer *x)
{
    gnn_err e = {0};
    fake f;
    gnndb_batch_view d;
    fake_make(&f, x, 1, 20000, 60000, 512, 64, 1, 7);
    int rc = xfer_batch(x, &f.v, &d, &e);
    CHECK(rc == GNNDB_OK, "%s", e.msg);
    if (!rc) check_view("pinned host arrays", &f.v, &d);
    fake_free(&f);
    printf("ok: arrays in xfer_host_alloc memory are copied in place\n");
}

static void test_prefetch(xfer *x)
{
    gnn_err e = {0};
    fake a, b, c;
    gnndb_batch_view da, db, dc;
    fake_make(&a, x, 0, 3000, 9000, 128, 16, 1, 21);
    fake_make(&b, x, 0, 3500, 9500, 128, 16, 1, 22);
    fake_make(&c, x, 0, 2500, 7000, 128, 16, 1, 23);
    CHECK(xfer_batch(x, &a.v, &da, &e) == GNNDB_OK, "%s", e.msg);
    CHECK(xfer_prefetch(x, &b.v, &e) == GNNDB_OK, "prefetch: %s", e.msg);
    /* the prefetch must not touch batch k's set */
    check_view("batch k after prefetch of k+1", &a.v, &da);
    CHECK(xfer_batch(x, &b.v, &db, &e) == GNNDB_OK, "%s", e.msg);
    check_view("prefetched batch", &b.v, &db);
    /* a prefetch of one batch followed by another batch: copied afresh */
    CHECK(xfer_prefetch(x, &a.v, &e) == GNNDB_OK, "prefetch: %s", e.msg);
    CHECK(xfer_batch(x, &c.v, &dc, &e) == GNNDB_OK, "%s", e.msg);
    check_view("batch after a mismatched prefetch", &c.v, &dc);
    check_view("batch k+1 after k+2", &b.v, &db);
    fake_free(&a);
    fake_free(&b);
    fake_free(&c);
    printf("ok: prefetch overlaps, and a mismatched prefetch is redone\n");
}

static void test_bad_index(int count)
{
    gnn_err e = {0};
    xfer *x = NULL;
    int rc = xfer_open(count, &x, &e);
    CHECK(rc == GNNDB_NODEVICE && !x, "cuda:%d opened", count);
    CHECK(strstr(e.msg, "no such CUDA device") != NULL, "message: %s", e.msg);
    rc = xfer_open(-1, &x, &e);
    CHECK(rc == GNNDB_NODEVICE && !x, "cuda:-1 opened");
    printf("ok: cuda:%d and cuda:-1 give GNNDB_NODEVICE (%s)\n", count, e.msg);
}
#endif

int main(void)
{
    gnn_err e = {0};
    xfer *x = NULL;
    int rc = xfer_open(0, &x, &e);
    if (rc != GNNDB_OK) {
        /* the no-device path: a clear GNNDB_NODEVICE, nothing else */
        CHECK(rc == GNNDB_NODEVICE, "xfer_open gave %d", rc);
        CHECK(x == NULL, "handle set on failure");
        CHECK(strstr(e.msg, "TO DEVICE 'cuda:0'") != NULL, "message: %s",
              e.msg);
        void *p = xfer_host_alloc(NULL, 4096);
        CHECK(p != NULL, "xfer_host_alloc(NULL) fallback");
        if (p) memset(p, 1, 4096);
        xfer_host_free(NULL, p);
        if (failures) {
            printf("FAIL: test_gpu_transfer (%d failures)\n", failures);
            return 1;
        }
        printf("SKIP: no CUDA device (%s)\n", e.msg);
        return 0;
    }
#ifdef GNNDB_CUDA
    CHECK(xfer_compiled() == 1, "xfer_compiled");
    int count = 0;
    cudaGetDeviceCount(&count);
    test_one_batch(x);
    test_double_buffering(x);
    test_many(x);
    test_growth(x);
    test_pinned_direct(x);
    test_prefetch(x);
    test_bad_index(count);
#endif
    xfer_close(x);
    if (failures) {
        printf("FAIL: test_gpu_transfer (%d failures)\n", failures);
        return 1;
    }
    printf("PASS: test_gpu_transfer\n");
    return 0;
}
