/* bench_cache.c — the row-level feature cache under each policy, at one
** cache size, on one SAMPLE: hit ratio and throughput per policy, next to
** the offline optimum (Belady's MIN knowing the whole sequence of accesses,
** replayed from the batches' n_id).
**
**   bench_cache DB SIZE 'PRAGMA ...; SAMPLE ...;'
**
** Statements before the last are run first (pragmas); the last one is the
** SAMPLE measured once per policy (none, lru, static_degree, belady) with
** PRAGMA feature_cache = SIZE. Prints one line per policy
**   CACHE policy=P hit_ratio=R batches_per_s=B blocks_read=N blocks_saved=S
** and then
**   CACHE policy=optimum hit_ratio=R rows=C accesses=A
** It fails when two policies give different batches (digests). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gnndb.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct run {
    int64_t *row;            /* every n_id, in order (kept for one policy) */
    size_t n, cap;
    uint64_t *digest;
    size_t nb, capb;
    int64_t dim, hits, misses, blocks, saved;
    double seconds;
} run;

static int push(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 1024;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* Run the pragmas, set the policy and size, and consume the SAMPLE. */
static int measure(gnndb *db, const char *pre, const char *sample,
                   const char *policy, const char *size, int keep, run *r)
{
    char set[256];
    snprintf(set, sizeof set, "PRAGMA cache_policy = '%s'; "
             "PRAGMA feature_cache = '%s';", policy, size);
    if (gnndb_exec(db, pre, NULL, NULL) || gnndb_exec(db, set, NULL, NULL))
        return -1;
    gnndb_stmt *st;
    if (gnndb_prepare(db, sample, -1, &st, NULL)) return -1;
    int rc;
    double t0 = now();
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
        const gnndb_batch_view *v = gnndb_batch(st);
        if (push((void **)&r->digest, &r->capb, r->nb + 1, sizeof *r->digest))
            rc = GNNDB_NOMEM;
        else
            r->digest[r->nb++] = gnndb_batch_digest(st);
        r->dim = v->x_dim;
        if (keep && !push((void **)&r->row, &r->cap, r->n + (size_t)v->num_nodes,
                          sizeof *r->row)) {
            memcpy(r->row + r->n, v->n_id, (size_t)v->num_nodes * 8);
            r->n += (size_t)v->num_nodes;
        }
        if (rc == GNNDB_NOMEM) break;
    }
    r->seconds = now() - t0;
    r->hits = gnndb_stmt_status(st, GNNDB_STATUS_ROW_CACHE_HITS);
    r->misses = gnndb_stmt_status(st, GNNDB_STATUS_ROW_CACHE_MISSES);
    r->saved = gnndb_stmt_status(st, GNNDB_STATUS_ROW_CACHE_SAVED);
    r->blocks = gnndb_stmt_status(st, GNNDB_STATUS_BLOCKS_READ);
    gnndb_finalize(st);
    return rc == GNNDB_DONE ? 0 : -1;
}

/* ---- the offline optimum: evict the row used farthest ahead, admit only
** a row used sooner than that; a max-heap of (next use, row) with stale
** entries skipped ---- */

typedef struct hent { uint64_t next; int64_t row; } hent;

static void heap_push(hent *h, size_t *n, hent v)
{
    size_t i = (*n)++;
    while (i > 0 && h[(i - 1) / 2].next < v.next) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = v;
}

static hent heap_pop(hent *h, size_t *n)
{
    hent top = h[0], v = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, b = i;
        uint64_t bn = v.next;
        if (l < *n && h[l].next > bn) { b = l; bn = h[l].next; }
        if (l + 1 < *n && h[l + 1].next > bn) b = l + 1;
        if (b == i) break;
        h[i] = h[b];
        i = b;
    }
    h[i] = v;
    return top;
}

/* Open addressing map row -> index, for ids of any range. */
typedef struct rmap { int64_t *k; uint64_t *v; size_t cap; } rmap;

static uint64_t *rmap_at(rmap *m, int64_t key)
{
    size_t h = (size_t)(((uint64_t)key * 0x9e3779b97f4a7c15ull) >> 20) & (m->cap - 1);
    while (m->k[h] != -1 && m->k[h] != key) h = (h + 1) & (m->cap - 1);
    m->k[h] = key;
    return &m->v[h];
}

static int64_t optimum_hits(const int64_t *row, size_t n, size_t cap)
{
    const uint64_t NEVER = UINT64_MAX;
    rmap m = {0};
    m.cap = 1024;
    while (m.cap < n * 2) m.cap <<= 1;
    m.k = malloc(m.cap * sizeof *m.k);
    m.v = malloc(m.cap * sizeof *m.v);
    uint64_t *nxt = malloc((n + 1) * sizeof *nxt);
    hent *h = malloc((n + 1) * sizeof *h);
    if (!m.k || !m.v || !nxt || !h) return -1;
    memset(m.k, 0xff, m.cap * sizeof *m.k);
    /* the map holds, per row, its next use as seen walking backwards ... */
    for (size_t i = 0; i < m.cap; i++) m.v[i] = NEVER;
    for (size_t k = n; k-- > 0;) {
        uint64_t *at = rmap_at(&m, row[k]);
        nxt[k] = *at;
        *at = k;
    }
    /* ... then whether the row is resident, and with which next use */
    for (size_t i = 0; i < m.cap; i++) m.v[i] = 0;
    size_t used = 0, nh = 0;
    int64_t hits = 0;
    for (size_t k = 0; k < n; k++) {
        uint64_t *res = rmap_at(&m, row[k]);  /* 0: out, else next use + 1 */
        if (*res) {
            hits++;
            *res = nxt[k] == NEVER ? NEVER : nxt[k] + 1;
            heap_push(h, &nh, (hent){nxt[k], row[k]});
            continue;
        }
        if (cap == 0) continue;
        if (used == cap) {
            /* the farthest resident, skipping entries made stale by hits */
            hent top;
            for (;;) {
                top = h[0];
                uint64_t *r = rmap_at(&m, top.row);
                uint64_t cur = *r == NEVER ? NEVER : *r - 1;
                if (*r && cur == top.next) break;
                heap_pop(h, &nh);
            }
            if (nxt[k] >= top.next) continue;  /* used later than all: skip */
            heap_pop(h, &nh);
            *rmap_at(&m, top.row) = 0;
            used--;
        }
        *res = nxt[k] == NEVER ? NEVER : nxt[k] + 1;
        heap_push(h, &nh, (hent){nxt[k], row[k]});
        used++;
    }
    free(m.k);
    free(m.v);
    free(nxt);
    free(h);
    return hits;
}

int main(int argc, char **argv)
{
    if (argc != 4 || !strcmp(argv[1], "--help")) {
        fprintf(stderr, "usage: %s DB SIZE 'PRAGMA ...; SAMPLE ...;'\n", argv[0]);
        return argc == 2 ? 0 : 2;
    }
    const char *size = argv[2];
    /* split off the last statement: the SAMPLE */
    char *pre = strdup(argv[3]);
    char *end = pre + strlen(pre);
    while (end > pre && (end[-1] == ' ' || end[-1] == ';' || end[-1] == '\n')) end--;
    *end = 0;
    char *semi = strrchr(pre, ';');
    char sql[4096];
    snprintf(sql, sizeof sql, "%s;", semi ? semi + 1 : pre);
    if (semi) semi[1] = 0; else pre[0] = 0;

    gnndb *db;
    if (gnndb_open(argv[1], &db, GNNDB_OPEN_READONLY) != GNNDB_OK) {
        fprintf(stderr, "bench_cache: %s\n", gnndb_errmsg(db));
        return 1;
    }
    static const char *const pols[] = {"none", "lru", "static_degree", "belady"};
    run r[4];
    memset(r, 0, sizeof r);
    for (int i = 0; i < 4; i++) {
        if (measure(db, pre, sql, pols[i], size, i == 0, &r[i])) {
            fprintf(stderr, "bench_cache: %s: %s\n", pols[i], gnndb_errmsg(db));
            return 1;
        }
        if (r[i].nb != r[0].nb ||
            memcmp(r[i].digest, r[0].digest, r[0].nb * sizeof *r[0].digest)) {
            fprintf(stderr, "bench_cache: policy %s gave different batches\n",
                    pols[i]);
            return 1;
        }
        int64_t n = r[i].hits + r[i].misses;
        if (i && n != (int64_t)r[0].n) {
            fprintf(stderr, "bench_cache: policy %s counted %" PRId64
                    " accesses, the batches hold %zu\n", pols[i], n, r[0].n);
            return 1;
        }
        fprintf(stderr, "== %s: %.3f s\n", pols[i], r[i].seconds);
    }
    int64_t bytes = 0;
    {
        /* the rows a cache of SIZE holds: data plus 64 bytes each, as the
        ** planner counts them (docs/language.md) */
        double v = strtod(size, NULL);
        const char *u = size;
        while (*u && (*u == '.' || (*u >= '0' && *u <= '9'))) u++;
        double mul = *u == 'K' || *u == 'k' ? 1024.0
                     : *u == 'M' || *u == 'm' ? 1048576.0
                     : *u == 'G' || *u == 'g' ? 1073741824.0 : 1.0;
        bytes = (int64_t)(v * mul);
    }
    size_t rows = (size_t)(bytes / (r[0].dim * 4 + 64));
    for (int i = 0; i < 4; i++) {
        int64_t n = r[i].hits + r[i].misses;
        printf("CACHE policy=%s hit_ratio=%.4f batches_per_s=%.3f "
               "blocks_read=%" PRId64 " blocks_saved=%" PRId64 "\n", pols[i],
               n > 0 ? (double)r[i].hits / (double)n : 0.0,
               (double)r[i].nb / r[i].seconds, r[i].blocks, r[i].saved);
    }
    int64_t opt = optimum_hits(r[0].row, r[0].n, rows);
    printf("CACHE policy=optimum hit_ratio=%.4f rows=%zu accesses=%zu\n",
           r[0].n ? (double)opt / (double)r[0].n : 0.0, rows, r[0].n);
    for (int i = 0; i < 4; i++) {
        free(r[i].row);
        free(r[i].digest);
    }
    gnndb_close(db);
    free(pre);
    return 0;
}
