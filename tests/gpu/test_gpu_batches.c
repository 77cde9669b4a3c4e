/* test_gpu_batches.c — TO DEVICE 'cuda:0' through the public C API gives the
** same batches as TO DEVICE 'host': for every mini-batch of a few SAMPLE
** queries on cora, the device arrays (copied back with cudaMemcpy) are byte
** for byte the host arrays, and the digests agree.
**
**   test_gpu_batches [DB_DIR [DATA_DIR]]
**
** DB_DIR (default build/gpu_test.gnndb) is created from DATA_DIR/cora
** (default $GNNDB_DATA, else ../shared/data) when it has no graph cora.
** Without a usable device it checks that the device query fails with
** GNNDB_NODEVICE and a clear message, that the host query is unaffected, and
** prints "SKIP: no CUDA device (<reason>)", exit 0. Otherwise it prints
** "PASS: test_gpu_batches" (exit 0) or "FAIL: ..." lines (exit 1). */
#include "gnndb.h"

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

/* A deep copy of one host batch. */
typedef struct hbatch {
    gnndb_batch_view v;
    int64_t *n_id, *edge_index, *y, *nsn, *nse;
    float *x;
} hbatch;

static void *dup(const void *p, size_t bytes)
{
    if (!p) return NULL;
    void *q = malloc(bytes ? bytes : 1);
    if (!q) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    memcpy(q, p, bytes);
    return q;
}

static void hbatch_copy(hbatch *h, const gnndb_batch_view *v)
{
    size_t nn = (size_t)v->num_nodes, ne = (size_t)v->num_edges;
    h->v = *v;
    h->n_id = dup(v->n_id, nn * 8);
    h->edge_index = dup(v->edge_index, ne * 16);
    h->x = dup(v->x, nn * (size_t)v->x_dim * 4);
    h->y = dup(v->y, (size_t)v->num_seeds * 8);
    h->nsn = dup(v->num_sampled_nodes, (size_t)(v->num_hops + 1) * 8);
    h->nse = dup(v->num_sampled_edges, (size_t)v->num_hops * 8);
}

static void hbatch_free(hbatch *h)
{
    free(h->n_id);
    free(h->edge_index);
    free(h->x);
    free(h->y);
    free(h->nsn);
    free(h->nse);
}

/* Run `sql` on the host; *out gets a deep copy of every batch. */
static int run_host(gnndb *db, const char *sql, hbatch **out, int *n)
{
    gnndb_stmt *st = NULL;
    int rc = gnndb_prepare(db, sql, -1, &st, NULL);
    *out = NULL;
    *n = 0;
    if (rc) {
        printf("FAIL: prepare %s: %s\n", sql, gnndb_errmsg(db));
        return rc;
    }
    int cap = 0;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
        gnndb_batch_digest(st);  /* into the view: the batches' digests agree */
        const gnndb_batch_view *v = gnndb_batch(st);
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            *out = realloc(*out, (size_t)cap * sizeof **out);
            if (!*out) exit(1);
        }
        CHECK(v->device == GNNDB_DEVICE_HOST, "host batch on device %d",
              v->device);
        hbatch_copy(&(*out)[(*n)++], v);
    }
    if (rc != GNNDB_DONE) printf("FAIL: %s: %s\n", sql, gnndb_errmsg(db));
    gnndb_finalize(st);
    return rc == GNNDB_DONE ? GNNDB_OK : rc;
}

static void free_batches(hbatch *b, int n)
{
    for (int i = 0; i < n; i++) hbatch_free(&b[i]);
    free(b);
}

#ifdef GNNDB_CUDA
static int dev_equal(const void *dev, const void *host, size_t bytes)
{
    if (!bytes) return 1;
    if (!dev || !host) return 0;
    void *back = malloc(bytes);
    if (!back) return 0;
    cudaError_t err = cudaMemcpy(back, dev, bytes, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess)
        printf("  cudaMemcpy D2H: %s (error %d)\n", cudaGetErrorString(err),
               (int)err);
    int ok = err == cudaSuccess && memcmp(back, host, bytes) == 0;
    free(back);
    return ok;
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

/* The device batch d is batch h of the host run. */
static void compare(const char *q, int k, const hbatch *h,
                    const gnndb_batch_view *d)
{
    const gnndb_batch_view *v = &h->v;
    size_t nn = (size_t)v->num_nodes, ne = (size_t)v->num_edges;
    CHECK(d->device == GNNDB_DEVICE_CUDA && d->device_index == 0,
          "%s batch %d: device %d:%d", q, k, d->device, d->device_index);
    CHECK(d->epoch == v->epoch && d->batch == v->batch &&
              d->num_seeds == v->num_seeds && d->num_nodes == v->num_nodes &&
              d->num_edges == v->num_edges && d->num_hops == v->num_hops &&
              d->x_dim == v->x_dim,
          "%s batch %d: shapes differ", q, k);
    CHECK(d->digest == v->digest,
          "%s batch %d: digest %016" PRIx64 " vs %016" PRIx64, q, k,
          d->digest, v->digest);
    CHECK(nn == 0 || on_device(d->n_id), "%s batch %d: n_id not on device",
          q, k);
    CHECK(dev_equal(d->n_id, h->n_id, nn * 8), "%s batch %d: n_id", q, k);
    CHECK(dev_equal(d->edge_index, h->edge_index, ne * 16),
          "%s batch %d: edge_index", q, k);
    CHECK((d->x == NULL) == (h->x == NULL), "%s batch %d: x presence", q, k);
    if (h->x)
        CHECK(dev_equal(d->x, h->x, nn * (size_t)v->x_dim * 4),
              "%s batch %d: x", q, k);
    CHECK((d->y == NULL) == (h->y == NULL), "%s batch %d: y presence", q, k);
    if (h->y)
        CHECK(dev_equal(d->y, h->y, (size_t)v->num_seeds * 8),
              "%s batch %d: y", q, k);
    /* num_sampled_nodes / num_sampled_edges stay in host memory */
    CHECK(memcmp(d->num_sampled_nodes, h->nsn,
                 (size_t)(v->num_hops + 1) * 8) == 0 &&
              memcmp(d->num_sampled_edges, h->nse,
                     (size_t)v->num_hops * 8) == 0,
          "%s batch %d: num_sampled_*", q, k);
}
#endif

static const char *const queries[] = {
    "SAMPLE 10,10 FROM cora BATCH 64 SEED 1 LIMIT 5",
    "SAMPLE 10,10 FROM cora FEATURES feat BATCH 64 SEED 1 LIMIT 5",
    /* several hyperbatches: the transfer crosses hyperbatch boundaries */
    "SAMPLE 5,5,5 FROM cora FEATURES feat BATCH 128 HYPERBATCH 3 SHUFFLE "
    "SEED 7 LIMIT 10",
    NULL};

static int open_db(const char *path, const char *data, gnndb **db)
{
    int rc = gnndb_open(path, db, GNNDB_OPEN_READWRITE | GNNDB_OPEN_CREATE);
    if (rc) {
        printf("FAIL: open %s: %s\n", path, *db ? gnndb_errmsg(*db) : "");
        return rc;
    }
    gnndb_stmt *st = NULL;
    rc = gnndb_prepare(*db, "DESCRIBE cora;", -1, &st, NULL);
    gnndb_finalize(st);
    if (rc == GNNDB_OK) return GNNDB_OK;
    char sql[4096];
    snprintf(sql, sizeof sql,
             "CREATE GRAPH cora FROM '%s/cora/edges.tsv';"
             "IMPORT FEATURES feat INTO cora FROM '%s/cora/features.npy';"
             "IMPORT LABELS INTO cora FROM '%s/cora/labels.npy';",
             data, data, data);
    rc = gnndb_exec(*db, sql, NULL, NULL);
    if (rc) printf("FAIL: building %s: %s\n", path, gnndb_errmsg(*db));
    return rc;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "build/gpu_test.gnndb";
    const char *data = argc > 2 ? argv[2] : getenv("GNNDB_DATA");
    if (!data) data = "../shared/data";
    char probe[4096];
    snprintf(probe, sizeof probe, "%s/cora/edges.tsv", data);
    FILE *f = fopen(probe, "r");
    if (!f) {
        printf("SKIP: cora not found at %s (set GNNDB_DATA)\n", probe);
        return 0;
    }
    fclose(f);

    gnndb *db = NULL;
    if (open_db(path, data, &db)) {
        gnndb_close(db);
        return 1;
    }
    int skipped = 0;
    char reason[1100] = "";
    for (int qi = 0; queries[qi] && !skipped; qi++) {
        const char *q = queries[qi];
        hbatch *hb;
        int nh;
        if (run_host(db, q, &hb, &nh)) {
            failures++;
            break;
        }
        CHECK(nh > 0, "%s: no batches", q);

        char sql[1024];
        snprintf(sql, sizeof sql, "%s TO DEVICE 'cuda:0';", q);
        gnndb_stmt *st = NULL;
        int rc = gnndb_prepare(db, sql, -1, &st, NULL);
        CHECK(rc == GNNDB_OK, "prepare %s: %s", sql, gnndb_errmsg(db));
        int k = 0;
        while (st && (rc = gnndb_step(st)) == GNNDB_BATCH) {
            gnndb_batch_digest(st);
            const gnndb_batch_view *d = gnndb_batch(st);
            CHECK(k < nh, "%s: more batches on the device", q);
            if (k >= nh) break;
#ifdef GNNDB_CUDA
            compare(q, k, &hb[k], d);
#else
            (void)d;
            CHECK(0, "a build without CUDA returned a device batch");
#endif
            k++;
        }
        if (st && rc == GNNDB_NODEVICE && k == 0) {
            /* the no-device path: clear words, and nothing else changes */
            snprintf(reason, sizeof reason, "%s", gnndb_errmsg(db));
            CHECK(strstr(reason, "cuda:0") != NULL, "message: %s", reason);
            gnndb_finalize(st);
            st = NULL;
            hbatch *again;
            int na;
            if (run_host(db, q, &again, &na) == GNNDB_OK) {
                CHECK(na == nh, "host run after NODEVICE: %d vs %d batches",
                      na, nh);
                for (int i = 0; i < na && i < nh; i++)
                    CHECK(again[i].v.digest == hb[i].v.digest,
                          "host batch %d changed after NODEVICE", i);
                free_batches(again, na);
            } else {
                failures++;
            }
            skipped = 1;
        } else if (st) {
            CHECK(rc == GNNDB_DONE, "%s: %s", sql, gnndb_errmsg(db));
            CHECK(k == nh, "%s: %d device batches, %d host", q, k, nh);
            printf("ok: %s: %d batches identical on cuda:0\n", q, k);
        }
        gnndb_finalize(st);
        free_batches(hb, nh);
    }
    gnndb_close(db);
    if (failures) {
        printf("FAIL: test_gpu_batches (%d failures)\n", failures);
        return 1;
    }
    if (skipped) {
        printf("SKIP: no CUDA device (%s)\n", reason);
        return 0;
    }
    printf("PASS: test_gpu_batches\n");
    return 0;
}
