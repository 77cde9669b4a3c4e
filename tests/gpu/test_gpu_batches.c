/* test_gpu_batches.c — TO DEVICE 'cuda:0' through the public C API gives the
** same batches as TO DEVICE 'host', array for array: node batches (with
** labels), link batches (EDGE FEATURES, binary and TRIPLET labels) and
** typed batches (per type and per relation, EDGE FEATURES), each kept in
** memory and spilled (PRAGMA spill = on), and with the GPU cache. Every
** device array is copied back, checked to be device memory, compared with
** the host batch's, and the digest is recomputed over the copies.
**
**   test_gpu_batches DB_DIR [DATA_DIR]
**
** DB_DIR (created) gets cora from DATA_DIR/cora (default $GNNDB_DATA, else
** ../shared/data) and a small typed graph generated here. Without a usable
** device it checks that the device query fails with GNNDB_NODEVICE and a
** clear message and that the host query is unaffected, then prints "SKIP:
** no CUDA device (...)", exit 0. Built against the stand-in runtime
** (GNNDB_MOCK) it also fails allocations, copies and the device mid-epoch
** and checks that no batch is half handed out, that the words name the
** device and the statement, and that host batches (and device batches, once
** the fault is gone) are unchanged afterwards; and that a GPU cache larger
** than the device's free memory is refused at prepare. Prints "PASS:
** test_gpu_batches" (exit 0) or "FAIL: ..." lines (exit 1). */
#include "gnndb.h"
#include "exec.h"
#include "xfer_layout.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GNNDB_CUDA
#include <cuda_runtime_api.h>
#endif
#ifdef GNNDB_MOCK
void mock_fail(const char *call, long nth, cudaError_t err, int mode);
extern int64_t mock_free_mem;
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

/* ---- a batch copied into one host buffer, through its layout ---- */

typedef struct hbatch {
    gnndb_batch_view v;        /* points into buf, tv, rv, nsn, nse */
    char *buf;
    int64_t nsn[16], nse[16];  /* the per-hop counts, host memory always */
    gnndb_type_view tv[8];
    gnndb_rel_view rv[8];
    uint64_t digest;           /* the engine's */
} hbatch;

/* Copy every array of view v (host or device memory) into h. */
static int hbatch_copy(hbatch *h, const gnndb_batch_view *v)
{
    xl l = {0};
    gnn_err e = {0};
    memset(h, 0, sizeof *h);
    if (xl_plan(&l, v, &e) || v->num_node_types > 8 || v->num_relations > 8) {
        printf("FAIL: laying out a batch: %s\n", e.msg);
        xl_free(&l);
        return -1;
    }
    h->buf = calloc(1, l.total + 1); /* padding compares equal */
    int rc = 0;
    for (int i = 0; i < l.n && !rc; i++) {
        const xl_item *it = &l.it[i];
        if (!it->bytes) continue;
        if (v->device == GNNDB_DEVICE_HOST) {
            memcpy(h->buf + it->off, it->src, it->bytes);
            continue;
        }
#ifdef GNNDB_CUDA
        rc = cudaMemcpy(h->buf + it->off, it->src, it->bytes,
                        cudaMemcpyDeviceToHost) != cudaSuccess;
#endif
    }
    xl_bind(&l, v, h->buf, &h->v, h->tv, h->rv);
    h->digest = v->digest;
    if (v->num_hops < 0 || v->num_hops > 15) return -1;
    memcpy(h->nsn, v->num_sampled_nodes, (size_t)(v->num_hops + 1) * 8);
    memcpy(h->nse, v->num_sampled_edges, (size_t)v->num_hops * 8);
    h->v.num_sampled_nodes = h->nsn;
    h->v.num_sampled_edges = h->nse;
    xl_free(&l);
    return rc;
}

static void hbatch_free(hbatch *h) { free(h->buf); }

/* ---- the database ---- */

static int write_npy(const char *path, const char *descr, int64_t rows,
                     int64_t cols, const void *data, size_t elem)
{
    char hdr[128];
    int n = cols ? snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order'"
                            ": False, 'shape': (%" PRId64 ", %" PRId64 "), }",
                            descr, rows, cols)
                 : snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order'"
                            ": False, 'shape': (%" PRId64 ",), }", descr, rows);
    while ((10 + n + 1) % 64) hdr[n++] = ' ';
    hdr[n++] = '\n';
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                             (unsigned char)(n & 0xff),
                             (unsigned char)(n >> 8)};
    size_t cnt = (size_t)rows * (size_t)(cols ? cols : 1);
    int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(hdr, 1, (size_t)n, f) ==
             (size_t)n && fwrite(data, elem, cnt, f) == cnt;
    return fclose(f) || !ok ? -1 : 0;
}

/* A typed graph: 300 papers citing papers, 120 authors writing papers
** (WITH REVERSE), paper features and labels, edge features on writes. */
static int typed_files(const char *dir)
{
    char p[1200];
    uint64_t s = 7;
    snprintf(p, sizeof p, "%s/cites.csv", dir);
    FILE *c = fopen(p, "w");
    snprintf(p, sizeof p, "%s/writes.csv", dir);
    FILE *w = fopen(p, "w");
    if (!c || !w) return -1;
    for (int i = 0; i < 900; i++, s = s * 6364136223846793005ull + 1)
        fprintf(c, "%d,%d\n", (int)((s >> 33) % 300), (int)((s >> 13) % 300));
    for (int i = 0; i < 500; i++, s = s * 6364136223846793005ull + 1)
        fprintf(w, "%d,%d\n", (int)((s >> 33) % 120), (int)((s >> 13) % 300));
    fclose(c);
    fclose(w);
    float *px = malloc(300 * 6 * sizeof *px);
    float *ew = malloc(500 * 3 * sizeof *ew);
    int64_t *y = malloc(300 * sizeof *y);
    for (int i = 0; i < 300 * 6; i++) px[i] = (float)i * 0.25f;
    for (int i = 0; i < 500 * 3; i++) ew[i] = (float)i - 7.0f;
    for (int i = 0; i < 300; i++) y[i] = i % 5;
    int rc = 0;
    snprintf(p, sizeof p, "%s/px.npy", dir);
    rc |= write_npy(p, "<f4", 300, 6, px, 4);
    snprintf(p, sizeof p, "%s/py.npy", dir);
    rc |= write_npy(p, "<i8", 300, 0, y, 8);
    snprintf(p, sizeof p, "%s/ew.npy", dir);
    rc |= write_npy(p, "<f4", 500, 3, ew, 4);
    free(px);
    free(ew);
    free(y);
    return rc;
}

/* cora's edge features: a row of 2 per input edge. */
static int cora_edge_features(const char *dir, const char *data)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/cora/edges.tsv", data);
    FILE *f = fopen(p, "r");
    if (!f) return -1;
    int64_t n = 0;
    for (int ch; (ch = fgetc(f)) != EOF;) n += ch == '\n';
    fclose(f);
    float *w = malloc((size_t)n * 2 * sizeof *w);
    for (int64_t i = 0; i < 2 * n; i++) w[i] = (float)(i % 200) - 100.0f;
    snprintf(p, sizeof p, "%s/ecora.npy", dir);
    int rc = write_npy(p, "<f4", n, 2, w, 4);
    free(w);
    return rc;
}

static int build_db(const char *dir, const char *data, gnndb **db)
{
    if (typed_files(dir) || cora_edge_features(dir, data)) {
        printf("FAIL: writing the input files into %s\n", dir);
        return -1;
    }
    int rc = gnndb_open(dir, db, GNNDB_OPEN_READWRITE | GNNDB_OPEN_CREATE);
    if (rc) return rc;
    char *sql = malloc(8192);
    snprintf(sql, 8192,
             "CREATE GRAPH cora FROM '%s/cora/edges.tsv' UNDIRECTED;"
             "IMPORT FEATURES feat INTO cora FROM '%s/cora/features.npy';"
             "IMPORT LABELS INTO cora FROM '%s/cora/labels.npy';"
             "CREATE EDGE SPLITS tr, va ON cora RANDOM 0.9, 0.1 SEED 7;"
             "IMPORT EDGE FEATURES w INTO cora FROM '%s/ecora.npy';"
             "CREATE GRAPH mag; CREATE NODES paper IN mag COUNT 300;"
             "CREATE NODES author IN mag COUNT 120;"
             "CREATE RELATION cites IN mag FROM paper TO paper FROM "
             "'%s/cites.csv' BLOCK SIZE 4096;"
             "CREATE RELATION writes IN mag FROM author TO paper FROM "
             "'%s/writes.csv' BLOCK SIZE 4096 WITH REVERSE AS written_by;"
             "IMPORT FEATURES feat INTO mag.paper FROM '%s/px.npy';"
             "IMPORT LABELS INTO mag.paper FROM '%s/py.npy';"
             "IMPORT EDGE FEATURES w INTO mag.writes FROM '%s/ew.npy';",
             data, data, data, dir, dir, dir, dir, dir, dir);
    rc = gnndb_exec(*db, sql, NULL, NULL);
    free(sql);
    if (rc) printf("FAIL: building %s: %s\n", dir, gnndb_errmsg(*db));
    return rc;
}

/* ---- running queries ---- */

typedef struct run {
    hbatch *b;
    int n;
    int rc;                    /* the step that ended it */
    char msg[1100];
    int64_t bus, hits;         /* GNNDB_STATUS_BUS_BYTES, _DEVICE_CACHE_HITS */
} run;

/* Run `sql` (preceded by `pragmas`, "" for none), copying every batch. */
static void run_query(gnndb *db, const char *pragmas, const char *sql,
                      run *r)
{
    memset(r, 0, sizeof *r);
    if (pragmas[0] && gnndb_exec(db, pragmas, NULL, NULL)) {
        snprintf(r->msg, sizeof r->msg, "%s", gnndb_errmsg(db));
        r->rc = gnndb_errcode(db);
        return;
    }
    gnndb_stmt *st = NULL;
    if ((r->rc = gnndb_prepare(db, sql, -1, &st, NULL))) {
        snprintf(r->msg, sizeof r->msg, "%s", gnndb_errmsg(db));
        return;
    }
    int cap = 0;
    while ((r->rc = gnndb_step(st)) == GNNDB_BATCH) {
        if (r->n == cap) r->b = realloc(r->b, (size_t)(cap = cap * 2 + 8) *
                                                  sizeof *r->b);
        gnndb_batch_digest(st);  /* into the view: the batches' digests agree */
        if (hbatch_copy(&r->b[r->n], gnndb_batch(st))) failures++;
        r->n++;
    }
    if (r->rc != GNNDB_DONE) {
        snprintf(r->msg, sizeof r->msg, "%s", gnndb_errmsg(db));
        CHECK(gnndb_batch(st) == NULL, "a batch after an error");
        CHECK(gnndb_step(st) == r->rc, "a step after an error");
    }
    r->bus = gnndb_stmt_status(st, GNNDB_STATUS_BUS_BYTES);
    r->hits = gnndb_stmt_status(st, GNNDB_STATUS_DEVICE_CACHE_HITS);
    gnndb_finalize(st);
}

static void run_free(run *r)
{
    for (int i = 0; i < r->n; i++) hbatch_free(&r->b[i]);
    free(r->b);
}

/* Device batch d (copied back) is host batch h: every array's bytes, and
** the digest recomputed over the copies. */
static int same_batch(const hbatch *h, const hbatch *d)
{
    xl lh = {0}, ld = {0};
    gnn_err e = {0};
    int ok = !xl_plan(&lh, &h->v, &e) && !xl_plan(&ld, &d->v, &e) &&
             lh.n == ld.n && lh.total == ld.total &&
             !memcmp(h->buf, d->buf, lh.total) &&
             !memcmp(h->nsn, d->nsn, sizeof h->nsn) &&
             !memcmp(h->nse, d->nse, sizeof h->nse) &&
             batch_digest(&d->v) == h->digest && d->digest == h->digest;
    xl_free(&lh);
    xl_free(&ld);
    return ok;
}

static void compare_runs(const char *what, const run *h, const run *d)
{
    CHECK(h->rc == GNNDB_DONE && d->rc == GNNDB_DONE, "%s: %s / %s", what,
          h->msg, d->msg);
    CHECK(h->n == d->n && h->n > 0, "%s: %d host batches, %d device", what,
          h->n, d->n);
    for (int i = 0; i < h->n && i < d->n; i++)
        CHECK(same_batch(&h->b[i], &d->b[i]), "%s: batch %d differs", what, i);
}

/* The queries: node, link and typed batches, every array kind. */
static const char *const queries[] = {
    "SAMPLE 10,10 FROM cora FEATURES feat BATCH 64 SEED 1 LIMIT 5",
    "SAMPLE 5,5,5 FROM cora FEATURES feat BATCH 128 HYPERBATCH 3 SHUFFLE "
    "SEED 7 LIMIT 10",
    "SAMPLE 10,5 FROM cora EDGES tr FEATURES feat EDGE FEATURES w BATCH 64 "
    "NEGATIVE 2 SHUFFLE SEED 3 LIMIT 6",
    "SAMPLE 5 FROM cora EDGES va BATCH 50 NEGATIVE 3 TRIPLET SEED 4 LIMIT 3",
    "SAMPLE {cites: 4, writes: 3, written_by: 2} * 2 FROM mag SEEDS "
    "paper.ALL BATCH 32 SHUFFLE SEED 5 EDGE FEATURES w LIMIT 6",
    NULL};

/* Each query in memory and spilled: device batches = host batches. */
static void test_queries(gnndb *db)
{
    static const char *const modes[] = {"PRAGMA spill = off;",
                                        "PRAGMA spill = on;"};
    for (int m = 0; m < 2; m++)
        for (int q = 0; queries[q]; q++) {
            char sql[1024], what[64];
            run h, d;
            snprintf(sql, sizeof sql, "%s TO DEVICE 'cuda:0';", queries[q]);
            run_query(db, modes[m], queries[q], &h);
            run_query(db, modes[m], sql, &d);
            snprintf(what, sizeof what, "query %d %s", q,
                     m ? "spilled" : "in memory");
            compare_runs(what, &h, &d);
            CHECK(d.bus > 0, "%s: no bytes crossed the bus", what);
            if (!failures)
                printf("ok: %s: %d batches identical on cuda:0 (%.0f bytes "
                       "a batch over the bus)\n", what, d.n,
                       (double)d.bus / (d.n ? d.n : 1));
            run_free(&h);
            run_free(&d);
        }
    gnndb_exec(db, "PRAGMA spill = auto;", NULL, NULL);
}

/* The GPU cache: the same batches over three epochs, rows served on the
** device, fewer bytes over the bus. */
static void test_cache(gnndb *db)
{
    const char *q = "SAMPLE 10,10 FROM cora FEATURES feat BATCH 64 EPOCHS 3 "
                    "SHUFFLE SEED 9";
    char sql[512];
    run h, plain, cached;
    snprintf(sql, sizeof sql, "%s TO DEVICE 'cuda:0';", q);
    run_query(db, "", q, &h);
    run_query(db, "PRAGMA gpu_cache = 0;", sql, &plain);
    run_query(db, "PRAGMA gpu_cache = '2MB';", sql, &cached);
    gnndb_exec(db, "PRAGMA gpu_cache = 0;", NULL, NULL);
    compare_runs("gpu cache", &h, &cached);
    CHECK(cached.hits > 0 && cached.bus < plain.bus,
          "gpu cache: %" PRId64 " hits, bus %" PRId64 " vs %" PRId64,
          cached.hits, cached.bus, plain.bus);
    printf("ok: gpu cache '2MB': same batches, %" PRId64 " rows served on "
           "the device, bus %" PRId64 " -> %" PRId64 " bytes\n", cached.hits,
           plain.bus, cached.bus);
    run_free(&h);
    run_free(&plain);
    run_free(&cached);
}

#ifdef GNNDB_CUDA
static int pinned(const void *p)
{
    struct cudaPointerAttributes at;
    if (!p || cudaPointerGetAttributes(&at, p) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return at.type == cudaMemoryTypeHost;
}
#endif

/* PRAGMA pin_memory: host batches in page-locked memory, the same
** batches. */
static void test_pin_memory(gnndb *db)
{
    for (int q = 0; q < 3; q++) {
        run plain, pin;
        run_query(db, "PRAGMA pin_memory = off;", queries[q], &plain);
        run_query(db, "PRAGMA pin_memory = on;", queries[q], &pin);
        compare_runs("pin_memory", &plain, &pin);
        run_free(&plain);
        run_free(&pin);
        gnndb_stmt *st = NULL;
        CHECK(gnndb_prepare(db, queries[q], -1, &st, NULL) == GNNDB_OK &&
                  gnndb_step(st) == GNNDB_BATCH,
              "%s", gnndb_errmsg(db));
#ifdef GNNDB_CUDA
        const gnndb_batch_view *v = st ? gnndb_batch(st) : NULL;
        CHECK(v && pinned(v->n_id) && pinned(v->edge_index) &&
                  pinned(v->x),
              "query %d: pin_memory: arrays not in pinned memory", q);
#endif
        gnndb_finalize(st);
    }
    gnndb_exec(db, "PRAGMA pin_memory = off;", NULL, NULL);
    printf("ok: PRAGMA pin_memory: host batches pinned, the same batches\n");
}

#ifdef GNNDB_MOCK
/* A fault at the n-th call of `call` during a device run (mode as
** mock_fail's): the run stops with an error naming the device and the
** statement, after some batches and with no batch handed out at the failing
** step; then the host run and, once the fault is gone, the device run give
** the same batches as before. */
static void fault(gnndb *db, const char *pragmas, const char *call, long nth,
                  cudaError_t err, int mode, int want)
{
    const char *q = queries[2];
    char sql[1024];
    snprintf(sql, sizeof sql, "%s TO DEVICE 'cuda:0';", q);
    run h, bad, again, dev;
    run_query(db, "", q, &h);
    mock_fail(call, nth, err, mode);
    run_query(db, pragmas, sql, &bad);
    mock_fail(NULL, 0, cudaSuccess, 0);
    CHECK(bad.rc == want, "%s: rc %d (%s)", call, bad.rc, bad.msg);
    CHECK(strstr(bad.msg, "cuda:0") && strstr(bad.msg, "SAMPLE FROM cora"),
          "%s: words: %s", call, bad.msg);
    CHECK(bad.n < h.n, "%s: %d batches of %d", call, bad.n, h.n);
    for (int i = 0; i < bad.n; i++)
        CHECK(same_batch(&h.b[i], &bad.b[i]), "%s: batch %d before the "
              "fault differs", call, i);
    run_query(db, "PRAGMA gpu_cache = 0;", q, &again);
    run_query(db, "", sql, &dev);
    compare_runs("host after a fault", &h, &again);
    compare_runs("device after a fault", &h, &dev);
    printf("ok: %s failing after %d batches: %s\n", call, bad.n, bad.msg);
    run_free(&h);
    run_free(&bad);
    run_free(&again);
    run_free(&dev);
}

static void test_faults(gnndb *db)
{
    /* a copy that fails mid-epoch, for good */
    fault(db, "", "cudaMemcpyAsync", 12, cudaErrorUnknown, 2, GNNDB_NODEVICE);
    /* out of device memory: the second buffer set, beside the gpu cache */
    fault(db, "PRAGMA gpu_cache = '2MB';", "cudaMalloc", 3,
          cudaErrorMemoryAllocation, 2, GNNDB_NOMEM);
    /* the device lost while a batch is copied */
    fault(db, "", "cudaEventSynchronize", 4, cudaErrorLaunchFailure, 1,
          GNNDB_NODEVICE);
    /* a GPU cache larger than the free memory: refused at prepare */
    int64_t was = mock_free_mem;
    mock_free_mem = 1 << 20;
    gnndb_stmt *st = NULL;
    gnndb_exec(db, "PRAGMA gpu_cache = '64MB';", NULL, NULL);
    int rc = gnndb_prepare(db, "SAMPLE 10 FROM cora FEATURES feat BATCH 64 "
                           "TO DEVICE 'cuda:0';", -1, &st, NULL);
    CHECK(rc == GNNDB_NOMEM && !st &&
              strstr(gnndb_errmsg(db), "does not fit on cuda:0"),
          "a cache larger than the device: rc %d: %s", rc,
          gnndb_errmsg(db));
    printf("ok: refused at prepare: %s\n", gnndb_errmsg(db));
    gnndb_finalize(st);
    mock_free_mem = was;
    gnndb_exec(db, "PRAGMA gpu_cache = 0;", NULL, NULL);
}
#endif

/* Without a device: TO DEVICE fails in one clear line, host batches are
** unaffected. */
static int no_device(gnndb *db, char *reason, size_t len)
{
    const char *q = queries[0];
    char sql[512];
    snprintf(sql, sizeof sql, "%s TO DEVICE 'cuda:0';", q);
    run h, d, again;
    run_query(db, "", q, &h);
    run_query(db, "", sql, &d);
    int none = d.rc == GNNDB_NODEVICE && d.n == 0;
    if (none) {
        snprintf(reason, len, "%s", d.msg);
        CHECK(strstr(d.msg, "cuda:0") != NULL, "message: %s", d.msg);
        run_query(db, "", q, &again);
        compare_runs("host after NODEVICE", &h, &again);
        run_free(&again);
    }
    run_free(&h);
    run_free(&d);
    return none;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        printf("usage: test_gpu_batches DB_DIR [DATA_DIR]\n");
        return 2;
    }
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
    if (build_db(argv[1], data, &db)) {
        gnndb_close(db);
        return 1;
    }
    char reason[1100] = "";
    int skipped = no_device(db, reason, sizeof reason);
    if (!skipped) {
        test_queries(db);
        test_cache(db);
        test_pin_memory(db);
#ifdef GNNDB_MOCK
        test_faults(db);
#endif
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
