/* test_gpu_transfer.c — the transfer operator (gpu/xfer.h) alone: fake
** batches with known arrays (node, link and typed, with and without pinned
** arrays) are transferred, copied back with cudaMemcpy and compared byte
** for byte; double buffering, prefetch, buffer growth, the GPU cache (its
** rows chosen by frequency, served on the device, equal bytes, fewer bytes
** over the bus) and the host reference of its gather are checked.
**
** Built twice by make test-gpu: against the CUDA runtime (on a machine
** without a device it checks the no-device path and prints "SKIP: ...")
** and against tests/gpu/cudart_mock.c (GNNDB_MOCK), where it also makes
** allocations, copies and the device fail on demand and checks that no
** batch is half handed out and that nothing leaks.
**
** Prints one line per check, then "PASS: test_gpu_transfer" (exit 0) or
** "FAIL: ..." (exit 1). */
#include "xfer.h"
#include "xfer_layout.h"
#include "gcache.h"
#include "gcache_kernel.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GNNDB_CUDA
#include <cuda_runtime_api.h>
#endif
#ifdef GNNDB_MOCK
void mock_fail(const char *call, long nth, cudaError_t err, int mode);
int mock_live(int kind);
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

/* ---- the host reference of the cache's gather: no device needed ---- */

static void test_gather_reference(void)
{
    gnn_err e = {0};
    gcache g;
    enum { DIM = 3, N = 6 };
    CHECK(gc_init(&g, 2, DIM, 2, &e) == GNNDB_OK, "%s", e.msg);
    /* ids 7 and 9 are in both counted batches, 4 in one: 7 and 9 win */
    int64_t b1[N] = {7, 9, 4, 1, 2, 3}, b2[N] = {9, 7, 5, 6, 8, 10};
    CHECK(gc_observe(&g, b1, N, &e) == GNNDB_OK && !gc_ready(&g), "count 1");
    CHECK(gc_observe(&g, b2, N, &e) == GNNDB_OK && gc_ready(&g), "count 2");
    CHECK(g.chosen == 2, "chosen %" PRId64, g.chosen);
    float x[N * DIM], out[N * DIM], cache[2 * DIM], miss[N * DIM];
    int32_t src[N], missi[N], admit[N];
    int64_t ids[N] = {4, 9, 11, 7, 12, 13};
    for (int i = 0; i < N * DIM; i++)
        x[i] = (float)(ids[i / DIM] * 10 + i % DIM);
    memset(cache, 0, sizeof cache);
    for (int round = 0; round < 2; round++) {
        int64_t m = gc_plan(&g, ids, N, src, missi, admit);
        /* the first time 9 and 7 cross and are admitted; then they hit */
        CHECK(m == (round ? 4 : 6), "round %d: %" PRId64 " missing", round, m);
        for (int64_t k = 0; k < m; k++)
            memcpy(miss + k * DIM, x + missi[k] * DIM, DIM * sizeof *x);
        gc_args a = {out, cache, miss, src, admit, N, DIM};
        memset(out, 0, sizeof out);
        gc_gather_host(&a, 0, N * DIM);
        CHECK(!memcmp(out, x, sizeof x), "round %d: gathered rows differ",
              round);
        gc_commit(&g, admit, m);
    }
    CHECK(g.filled == 2, "filled %" PRId64, g.filled);
    gc_free(&g);
    printf("ok: the gpu cache's gather, run on the host, gives x exactly\n");
}

#ifdef GNNDB_CUDA
/* ---- fake batches ---- */

/* A fake mini-batch whose arrays are a function of `salt`; `link` adds
** the link arrays, `typed` two types and two relations. */
typedef struct fake {
    gnndb_batch_view v;
    gnndb_type_view tv[2];
    gnndb_rel_view rv[2];
    void *arr[32];
    int narr, pinned;
    int64_t nsn[3], nse[2];
} fake;

static void *fake_arr(fake *f, size_t bytes, uint64_t salt)
{
    void *p = f->pinned ? xfer_pinned_alloc(bytes) : NULL;
    if (!p) p = malloc(bytes ? bytes : 1);
    unsigned char *c = p;
    for (size_t i = 0; i < bytes; i++) c[i] = (unsigned char)(i * 131 + salt);
    f->arr[f->narr++] = p;
    return p;
}

static void fake_ids(int64_t *n_id, int64_t nn, uint64_t salt, int64_t span)
{
    /* distinct ids, from a range of `span` so that batches share some */
    for (int64_t i = 0; i < nn; i++)
        n_id[i] = (int64_t)(((uint64_t)i * 7919u + salt * 31u) %
                            (uint64_t)span);
}

static void fake_make(fake *f, int pinned, int64_t nn, int64_t ne, int64_t ns,
                      int64_t dim, uint64_t salt, int link, int typed)
{
    memset(f, 0, sizeof *f);
    f->pinned = pinned;
    gnndb_batch_view *v = &f->v;
    v->batch = (int64_t)salt;
    v->num_seeds = ns;
    v->num_nodes = nn;
    v->num_edges = ne;
    v->num_hops = 2;
    int64_t *n_id = fake_arr(f, (size_t)nn * 8, salt);
    fake_ids(n_id, nn, salt, nn * 2 + 7);
    v->n_id = n_id;
    v->edge_index = fake_arr(f, (size_t)ne * 16, salt + 1);
    if (dim) v->x = fake_arr(f, (size_t)(nn * dim) * 4, salt + 2);
    v->x_dim = dim;
    v->y = fake_arr(f, (size_t)ns * 8, salt + 3);
    f->nsn[0] = ns;
    f->nsn[1] = (nn - ns) / 2;
    f->nsn[2] = nn - ns - f->nsn[1];
    f->nse[0] = ne / 3;
    f->nse[1] = ne - f->nse[0];
    v->num_sampled_nodes = f->nsn;
    v->num_sampled_edges = f->nse;
    v->digest = 0x1234567890abcdefull ^ salt;
    if (link) {
        v->e_id = fake_arr(f, (size_t)ne * 8, salt + 4);
        v->edge_attr_dim = 5;
        v->edge_attr = fake_arr(f, (size_t)ne * 5 * 4, salt + 5);
        v->num_label_edges = ns * 2;
        v->edge_label_index = fake_arr(f, (size_t)ns * 2 * 16, salt + 6);
        v->edge_label = fake_arr(f, (size_t)ns * 2 * 4, salt + 7);
    }
    if (!typed) return;
    v->num_node_types = 2;
    v->num_relations = 2;
    v->types = f->tv;
    v->rels = f->rv;
    for (int t = 0; t < 2; t++) {
        gnndb_type_view *tv = &f->tv[t];
        tv->name = t ? "author" : "paper";
        tv->num_nodes = nn / 2 + t;
        tv->n_id = fake_arr(f, (size_t)tv->num_nodes * 8, salt + 10 + t);
        tv->num_sampled_nodes = f->nsn;
        tv->x_dim = t ? 0 : 4;
        tv->x = t ? NULL : fake_arr(f, (size_t)tv->num_nodes * 16, salt + 12);
        tv->num_seeds = t ? 0 : ns;
        tv->y = t ? NULL : fake_arr(f, (size_t)ns * 8, salt + 13);
        gnndb_rel_view *rv = &f->rv[t];
        rv->name = t ? "writes" : "cites";
        rv->num_edges = ne / 2 + t;
        rv->edge_index = fake_arr(f, (size_t)rv->num_edges * 16, salt + 14 + t);
        rv->num_sampled_edges = f->nse;
        rv->e_id = fake_arr(f, (size_t)rv->num_edges * 8, salt + 16 + t);
        rv->edge_attr_dim = t ? 0 : 3;
        rv->edge_attr = t ? NULL : fake_arr(f, (size_t)rv->num_edges * 12,
                                            salt + 18);
    }
}

static void fake_free(fake *f)
{
    for (int i = 0; i < f->narr; i++) {
        if (xfer_is_pinned(f->arr[i])) xfer_pinned_free(f->arr[i]);
        else free(f->arr[i]);
    }
}

static int on_device(const void *p)
{
    struct cudaPointerAttributes at;
    if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return at.type == cudaMemoryTypeDevice;
}

/* The device array d holds the host array h's bytes. */
static int same(const void *d, const void *h, size_t bytes, const char *what,
                const char *name)
{
    if ((d == NULL) != (h == NULL)) {
        printf("  %s: %s present on one side only\n", what, name);
        return 0;
    }
    if (!h || !bytes) return 1;
    if (!on_device(d)) {
        printf("  %s: %s is not device memory\n", what, name);
        return 0;
    }
    void *back = malloc(bytes);
    cudaError_t err = cudaMemcpy(back, d, bytes, cudaMemcpyDeviceToHost);
    int ok = err == cudaSuccess && memcmp(back, h, bytes) == 0;
    if (!ok) printf("  %s: %s bytes differ\n", what, name);
    free(back);
    return ok;
}

/* Every array of the device view d, named here field by field (not
** through xfer_layout, whose walk is what is tested), against h's. */
static void check_view(const char *what, const gnndb_batch_view *h,
                       const gnndb_batch_view *d)
{
    size_t nn = (size_t)h->num_nodes, ne = (size_t)h->num_edges;
    size_t L = (size_t)h->num_label_edges;
    CHECK(d->device == GNNDB_DEVICE_CUDA && d->cuda_stream != NULL,
          "%s: device %d stream %p", what, d->device, d->cuda_stream);
    CHECK(d->batch == h->batch && d->num_nodes == h->num_nodes &&
              d->num_edges == h->num_edges && d->digest == h->digest,
          "%s: scalars differ", what);
    CHECK(d->num_sampled_nodes == h->num_sampled_nodes &&
              d->num_sampled_edges == h->num_sampled_edges,
          "%s: per-hop counts must stay host pointers", what);
    int ok = same(d->n_id, h->n_id, nn * 8, what, "n_id") &
             same(d->edge_index, h->edge_index, ne * 16, what, "edge_index") &
             same(d->x, h->x, nn * (size_t)h->x_dim * 4, what, "x") &
             same(d->y, h->y, (size_t)h->num_seeds * 8, what, "y") &
             same(d->e_id, h->e_id, ne * 8, what, "e_id") &
             same(d->edge_attr, h->edge_attr, ne * (size_t)h->edge_attr_dim * 4,
                  what, "edge_attr") &
             same(d->edge_label_index, h->edge_label_index, L * 16, what,
                  "edge_label_index") &
             same(d->edge_label, h->edge_label, L * 4, what, "edge_label");
    CHECK(d->num_node_types == h->num_node_types &&
              d->num_relations == h->num_relations,
          "%s: types and relations", what);
    for (int t = 0; t < h->num_node_types; t++) {
        const gnndb_type_view *a = &h->types[t], *b = &d->types[t];
        ok &= same(b->n_id, a->n_id, (size_t)a->num_nodes * 8, what,
                   "type n_id") &
              same(b->x, a->x, (size_t)(a->num_nodes * a->x_dim) * 4, what,
                   "type x") &
              same(b->y, a->y, (size_t)a->num_seeds * 8, what, "type y");
        CHECK(b->num_sampled_nodes == a->num_sampled_nodes &&
                  b->name == a->name,
              "%s: a type's counts and name stay on the host", what);
    }
    for (int r = 0; r < h->num_relations; r++) {
        const gnndb_rel_view *a = &h->rels[r], *b = &d->rels[r];
        size_t n = (size_t)a->num_edges;
        ok &= same(b->edge_index, a->edge_index, n * 16, what,
                   "relation edge_index") &
              same(b->e_id, a->e_id, n * 8, what, "relation e_id") &
              same(b->edge_attr, a->edge_attr, n * (size_t)a->edge_attr_dim * 4,
                   what, "relation edge_attr");
    }
    CHECK(ok, "%s: arrays differ", what);
}

static void test_kinds(xfer *x)
{
    gnn_err e = {0};
    const char *names[] = {"node", "link", "typed", "pinned link+typed"};
    for (int k = 0; k < 4; k++) {
        fake f;
        gnndb_batch_view d;
        fake_make(&f, k == 3, 1000 + k, 3000, 64, 16, 1 + (uint64_t)k,
                  k == 1 || k == 3, k >= 2);
        int rc = xfer_batch(x, &f.v, &d, &e);
        CHECK(rc == GNNDB_OK, "%s: %s", names[k], e.msg);
        if (!rc) check_view(names[k], &f.v, &d);
        fake_free(&f);
    }
    printf("ok: node, link and typed batches move whole, pinned or not\n");
}

static void test_double_buffering(xfer *x)
{
    gnn_err e = {0};
    fake a, b, c;
    gnndb_batch_view da, db, dc;
    fake_make(&a, 0, 5000, 20000, 256, 32, 11, 1, 1);
    fake_make(&b, 0, 4000, 15000, 256, 32, 12, 1, 1);
    fake_make(&c, 0, 4500, 18000, 256, 32, 13, 1, 1);
    CHECK(xfer_batch(x, &a.v, &da, &e) == GNNDB_OK, "%s", e.msg);
    CHECK(xfer_batch(x, &b.v, &db, &e) == GNNDB_OK, "%s", e.msg);
    CHECK(da.n_id != db.n_id && da.cuda_stream != db.cuda_stream,
          "batches k and k+1 share a buffer or a stream");
    check_view("batch k after k+1", &a.v, &da);
    check_view("batch k+1", &b.v, &db);
    CHECK(xfer_batch(x, &c.v, &dc, &e) == GNNDB_OK, "%s", e.msg);
    check_view("batch k+2", &c.v, &dc);
    check_view("batch k+1 after k+2", &b.v, &db);
    fake_free(&a);
    fake_free(&b);
    fake_free(&c);
    printf("ok: each batch on its own set and stream; k stays while k+1 "
           "is copied\n");
}

static void test_growth_and_prefetch(xfer *x)
{
    gnn_err e = {0};
    fake f[8];
    gnndb_batch_view d;
    for (int k = 0; k < 8; k++)
        fake_make(&f[k], k % 2, 16 << (2 * (k % 4)), 40 << (2 * (k % 4)), 8,
                  k % 3 ? 24 : 0, 100 + (uint64_t)k, k % 2, k == 5);
    for (int k = 0; k < 8; k++) {
        int rc = xfer_batch(x, &f[k].v, &d, &e);
        CHECK(rc == GNNDB_OK, "batch %d: %s", k, e.msg);
        /* the executor prefetches the next one right after */
        if (k + 1 < 8) xfer_prefetch(x, &f[k + 1].v, NULL);
        char what[32];
        snprintf(what, sizeof what, "batch %d", k);
        if (!rc) check_view(what, &f[k].v, &d);
    }
    /* a prefetch of one batch followed by another: copied afresh */
    CHECK(xfer_prefetch(x, &f[0].v, &e) == GNNDB_OK, "%s", e.msg);
    CHECK(xfer_batch(x, &f[3].v, &d, &e) == GNNDB_OK, "%s", e.msg);
    check_view("after a mismatched prefetch", &f[3].v, &d);
    for (int k = 0; k < 8; k++) fake_free(&f[k]);
    printf("ok: buffers grow and shrink, prefetched batches are exact\n");
}

static void test_stats(xfer *x)
{
    gnn_err e = {0};
    xfer_stats s0, s1;
    xfer_get_stats(x, &s0);
    fake f;
    gnndb_batch_view d;
    fake_make(&f, 0, 500, 900, 32, 8, 77, 0, 0);
    CHECK(xfer_batch(x, &f.v, &d, &e) == GNNDB_OK, "%s", e.msg);
    xfer_get_stats(x, &s1);
    uint64_t want = 500 * 8 + 900 * 16 + 500 * 8 * 4 + 32 * 8;
    CHECK(s1.bus_bytes - s0.bus_bytes == want &&
              s1.staged_bytes - s0.staged_bytes == want &&
              s1.batches == s0.batches + 1,
          "bus %" PRIu64 " staged %" PRIu64 ", want %" PRIu64,
          s1.bus_bytes - s0.bus_bytes, s1.staged_bytes - s0.staged_bytes,
          want);
    fake_free(&f);
    printf("ok: bytes over the bus are counted (%" PRIu64 " a batch)\n", want);
}

/* Batches drawn from one id range: once the first `warm` are counted,
** the most frequent rows are served from the device, the bytes stay
** exact, and fewer cross the bus. x must be a row function of the id. */
static void test_cache(int index)
{
    gnn_err e = {0};
    xfer *x = NULL;
    enum { DIM = 16, NN = 400 };
    CHECK(xfer_open(index, &x, &e) == GNNDB_OK, "%s", e.msg);
    CHECK(xfer_cache(x, 300, DIM, 2, &e) == GNNDB_OK, "%s", e.msg);
    uint64_t bus_first = 0, bus_last = 0;
    for (int k = 0; k < 8; k++) {
        fake f;
        gnndb_batch_view d;
        fake_make(&f, k % 2, NN, 500, 16, DIM, 5 + (uint64_t)k, 0, 0);
        /* 300 hot ids in every batch, the rest of each batch its own;
        ** x a function of the id */
        int64_t *ids = (int64_t *)f.v.n_id;
        for (int64_t i = 0; i < NN; i++)
            ids[i] = i < 300 ? i : 300 + (i * 3 + (int64_t)k * 101) % 700;
        float *xs = (float *)f.v.x;
        for (int64_t i = 0; i < NN * DIM; i++)
            xs[i] = (float)(ids[i / DIM] * 100 + i % DIM);
        xfer_stats s0, s1;
        xfer_get_stats(x, &s0);
        int rc = xfer_batch(x, &f.v, &d, &e);
        CHECK(rc == GNNDB_OK, "cached batch %d: %s", k, e.msg);
        if (!rc) check_view("cached batch", &f.v, &d);
        xfer_get_stats(x, &s1);
        if (k == 0) bus_first = s1.bus_bytes - s0.bus_bytes;
        bus_last = s1.bus_bytes - s0.bus_bytes;
        fake_free(&f);
    }
    xfer_stats s;
    xfer_get_stats(x, &s);
    CHECK(s.cache_chosen == 300 && s.cache_hits > 0,
          "chosen %" PRId64 " hits %" PRIu64, s.cache_chosen, s.cache_hits);
    CHECK(bus_last < bus_first * 3 / 4, "bus %" PRIu64 " then %" PRIu64,
          bus_first, bus_last);
    printf("ok: the gpu cache serves %" PRIu64 " of %" PRIu64 " rows; bus "
           "%" PRIu64 " -> %" PRIu64 " bytes a batch, x exact\n",
           s.cache_hits, s.rows, bus_first, bus_last);
    xfer_close(x);
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

#ifdef GNNDB_MOCK
/* A failure at the n-th call of `call`: xfer_batch reports it in words
** naming the device, leaves the view it was given untouched, and (unless
** the device is lost) the next batch goes through. */
static void one_failure(const char *call, cudaError_t err, int sticky,
                        int want_rc)
{
    gnn_err e = {0};
    xfer *x = NULL;
    CHECK(xfer_open(0, &x, &e) == GNNDB_OK, "%s", e.msg);
    CHECK(xfer_cache(x, 64, 8, 1, &e) == GNNDB_OK, "%s", e.msg);
    fake a, b;
    fake_make(&a, 0, 300, 600, 16, 8, 41, 1, 0);
    fake_make(&b, 1, 350, 700, 16, 8, 42, 1, 0);
    gnndb_batch_view d, untouched;
    memset(&d, 0x5a, sizeof d);
    untouched = d;
    CHECK(xfer_batch(x, &a.v, &d, &e) == GNNDB_OK, "%s", e.msg);
    mock_fail(call, 1, err, sticky);
    d = untouched;
    int rc = xfer_batch(x, &b.v, &d, &e);
    CHECK(rc == want_rc, "%s: rc %d, want %d (%s)", call, rc, want_rc, e.msg);
    CHECK(strstr(e.msg, "cuda:0") != NULL, "%s: words %s", call, e.msg);
    CHECK(!memcmp(&d, &untouched, sizeof d), "%s: a view was half handed "
          "out", call);
    if (!sticky) {
        rc = xfer_batch(x, &b.v, &d, &e);
        CHECK(rc == GNNDB_OK, "%s: after the failure: %s", call, e.msg);
        if (!rc) check_view("after a failure", &b.v, &d);
    }
    xfer_close(x);
    mock_fail(NULL, 0, cudaSuccess, 0);
    fake_free(&a);
    fake_free(&b);
    CHECK(mock_live(cudaMemoryTypeDevice) == 0, "%s: device memory leaked",
          call);
    printf("ok: %s failing: %s\n", call, e.msg);
}

static void test_failures(void)
{
    one_failure("cudaMalloc", cudaErrorMemoryAllocation, 0, GNNDB_NOMEM);
    one_failure("cudaHostAlloc", cudaErrorMemoryAllocation, 0, GNNDB_NOMEM);
    one_failure("cudaMemcpyAsync", cudaErrorUnknown, 0, GNNDB_NODEVICE);
    one_failure("cudaLaunchKernel", cudaErrorLaunchFailure, 0,
                GNNDB_NODEVICE);
    one_failure("cudaEventSynchronize", cudaErrorLaunchFailure, 1,
                GNNDB_NODEVICE);
    /* the gpu cache that does not fit */
    gnn_err e = {0};
    xfer *x = NULL;
    CHECK(xfer_open(0, &x, &e) == GNNDB_OK, "%s", e.msg);
    mock_fail("cudaMalloc", 1, cudaErrorMemoryAllocation, 0);
    CHECK(xfer_cache(x, 1000, 8, 1, &e) == GNNDB_NOMEM &&
              strstr(e.msg, "gpu cache"),
          "cache allocation: %s", e.msg);
    mock_fail(NULL, 0, cudaSuccess, 0);
    xfer_close(x);
}
#endif

int main(void)
{
    test_gather_reference();
    gnn_err e = {0};
    xfer *x = NULL;
    int rc = xfer_open(0, &x, &e);
    if (rc != GNNDB_OK) {
        /* the no-device path: a clear GNNDB_NODEVICE, nothing else */
        CHECK(rc == GNNDB_NODEVICE, "xfer_open gave %d", rc);
        CHECK(x == NULL, "handle set on failure");
        CHECK(strstr(e.msg, "TO DEVICE 'cuda:0'") != NULL, "message: %s",
              e.msg);
        void *p = xfer_pinned_alloc(4096);
        CHECK(p == NULL || xfer_is_pinned(p), "pinned memory without a "
              "device");
        xfer_pinned_free(p);
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
    test_kinds(x);
    test_double_buffering(x);
    test_growth_and_prefetch(x);
    test_stats(x);
    xfer_close(x);
    test_cache(0);
    test_bad_index(count);
#endif
#ifdef GNNDB_MOCK
    test_failures();
    CHECK(mock_live(cudaMemoryTypeDevice) == 0 &&
              mock_live(cudaMemoryTypeHost) == 0,
          "device %d and pinned %d allocations left",
          mock_live(cudaMemoryTypeDevice), mock_live(cudaMemoryTypeHost));
#endif
    if (failures) {
        printf("FAIL: test_gpu_transfer (%d failures)\n", failures);
        return 1;
    }
    printf("PASS: test_gpu_transfer\n");
    return 0;
}
