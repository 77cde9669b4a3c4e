/* graph_build.c — one build of CREATE GRAPH's block file from the parsed
** pairs: targets cut into buckets whose CSR fits half the import's memory
** budget, the pairs distributed to the buckets' regions of a scratch file
** (when there are two or more), then each bucket's lists filled, sorted
** and packed into node objects in node order. */
#include "import_graph_int.h"
#include "block.h"
#include "sort.h"

#include <stdlib.h>
#include <string.h>

static int on_block(void *arg, const void *block, uint64_t block_no,
                    uint32_t checksum, gnn_err *e)
{
    graph_ctx *g = arg;
    if (g->nsums == g->sums_cap) {
        uint64_t nc = g->sums_cap ? 2 * g->sums_cap : 64;
        uint32_t *p = realloc(g->sums, nc * sizeof *p);
        if (!p) return nomem(g);
        g->sums = p;
        g->sums_cap = nc;
    }
    g->sums[g->nsums++] = checksum;
    if (g->w) return blkw_append(g->w, block, e);
    if (g->scratch_fd >= 0)
        return xs_pwrite(g->scratch_fd, block, g->bs, block_no * g->bs, e);
    return GNNDB_OK;
}

static int on_index(void *arg, uint64_t first_node, uint64_t block_no,
                    gnn_err *e)
{
    graph_ctx *g = arg;
    if (g->n_idx == g->idx_cap) {
        size_t nc = g->idx_cap ? 2 * g->idx_cap : 64;
        uint64_t *a = realloc(g->idx_first, nc * sizeof *a);
        if (!a) return nomem(g);
        g->idx_first = a;
        uint64_t *b = realloc(g->idx_block, nc * sizeof *b);
        if (!b) return nomem(g);
        g->idx_block = b;
        g->idx_cap = nc;
    }
    g->idx_first[g->n_idx] = first_node;
    g->idx_block[g->n_idx++] = block_no;
    return GNNDB_OK;
}

typedef struct bucket {
    uint32_t lo, hi;      /* targets [lo, hi) */
    uint64_t edges;
    uint64_t off;         /* byte offset of the region in the scratch file */
    uint64_t filled;      /* records written */
    uint32_t *buf;        /* (target, source) pairs waiting */
    size_t nbuf;
} bucket;

static int bucket_flush(int fd, bucket *b, gnn_err *e)
{
    if (b->nbuf == 0) return GNNDB_OK;
    int rc = xs_pwrite(fd, b->buf, b->nbuf * 2 * sizeof(uint32_t),
                       b->off + b->filled * 8, e);
    b->filled += b->nbuf;
    b->nbuf = 0;
    return rc;
}

/* What one build holds while it runs; build_free releases it. */
typedef struct build_state {
    uint32_t *rd;         /* raw degrees by internal id (g->raw itself when
                          ** there is no permutation) */
    bucket *bk;           /* consecutive target ranges, ascending */
    size_t nb;
    xs_file scratch;      /* the buckets' regions, when there are two or more */
    uint64_t *pos;        /* per node of a bucket: where its next source goes */
    uint32_t *srcs;       /* one bucket's sources, list after list */
    blk_graph_packer *pk;
} build_state;

static void build_free(graph_ctx *g, build_state *st)
{
    blk_graph_packer_free(st->pk);
    free(st->pos);
    free(st->srcs);
    for (size_t b = 0; b < st->nb; b++) free(st->bk[b].buf);
    free(st->bk);
    xs_file_close(&st->scratch);
    if (st->rd != g->raw) free(st->rd);
}

/* The outputs of the last build cleared, and the raw degrees taken in the
** current node order. */
static int build_begin(graph_ctx *g, build_state *st)
{
    uint64_t n = g->n;
    g->edges = 0;
    g->nsums = 0;
    g->n_idx = 0;
    free(g->deg);
    if (!(g->deg = calloc(n ? n : 1, sizeof *g->deg))) return nomem(g);
    if (!g->perm) {
        st->rd = g->raw;
        return GNNDB_OK;
    }
    if (!(st->rd = malloc((n ? n : 1) * sizeof *st->rd))) return nomem(g);
    for (uint64_t i = 0; i < n; i++) st->rd[g->perm[i]] = g->raw[i];
    return GNNDB_OK;
}

/* Buckets: consecutive target ranges whose CSR (4 bytes per edge, 8 per
** node) fits half the budget; the other half buffers the distribution. */
static int make_buckets(graph_ctx *g, build_state *st)
{
    size_t csr_cap = g->budget / 2, bcap = 0;
    uint64_t n = g->n, total = 0;
    for (uint64_t v = 0; v < n;) {
        uint64_t lo = v, ed = 0;
        while (v < n) {
            uint64_t ne = ed + st->rd[v];
            if (v > lo && ne * 4 + (v - lo + 2) * 8 > csr_cap) break;
            ed = ne;
            v++;
        }
        if (st->nb == bcap) {
            bcap = bcap ? 2 * bcap : 16;
            bucket *p = realloc(st->bk, bcap * sizeof *p);
            if (!p) return nomem(g);
            st->bk = p;
        }
        st->bk[st->nb++] = (bucket){.lo = (uint32_t)lo, .hi = (uint32_t)v,
                                    .edges = ed, .off = total * 8};
        total += ed;
    }
    return GNNDB_OK;
}

/* The next spilled pair that becomes an edge, as internal ids in the
** current order (u -> v); a self loop is skipped when they are dropped.
** 1, or 0 at the end, or -1 with the error in g->e. */
static int next_pair(graph_ctx *g, xs_reader *rd, uint32_t *u, uint32_t *v)
{
    int64_t pr[2];
    int k;
    while ((k = xs_read(rd, pr, sizeof pr, g->e)) > 0) {
        *u = rank_of(g, pr[0]);
        *v = rank_of(g, pr[1]);
        if (g->perm) {
            *u = g->perm[*u];
            *v = g->perm[*v];
        }
        if (!(*u == *v && g->o->drop_self_loops)) return 1;
    }
    return k;
}

/* The bucket whose target range holds t. */
static bucket *bucket_of(build_state *st, uint32_t t)
{
    size_t lo = 0, hi = st->nb;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (st->bk[mid].lo <= t) lo = mid;
        else hi = mid;
    }
    return &st->bk[lo];
}

/* The buffers' last pairs written, and each bucket's count checked against
** the degrees its region was sized by. */
static int buckets_flush(graph_ctx *g, build_state *st)
{
    for (size_t b = 0; b < st->nb; b++) {
        bucket *bk = &st->bk[b];
        int rc = bucket_flush(st->scratch.fd, bk, g->e);
        if (rc) return rc;
        free(bk->buf);
        bk->buf = NULL;
        if (bk->filled != bk->edges)
            return gnn_seterr(g->e, GNNDB_INTERNAL, "graph import: bucket "
                              "%zu got %llu edges, expected %llu", b,
                              (unsigned long long)bk->filled,
                              (unsigned long long)bk->edges);
    }
    return GNNDB_OK;
}

/* Distribute (target, source) pairs of internal ids to the buckets'
** regions of one scratch file; only done for two buckets or more, since
** one bucket reads the parsed pairs directly. */
static int distribute(graph_ctx *g, build_state *st)
{
    gnn_err *e = g->e;
    size_t per = GNN_MAX((size_t)(16 << 10),
                         GNN_MIN((size_t)(1 << 20), g->budget / 4 /
                                 (st->nb ? st->nb : 1)));
    per /= 8;
    int rc = xs_file_open(&st->scratch, g->tmpdir, 0, e);
    if (rc) return rc;
    for (size_t b = 0; b < st->nb; b++)
        if (!(st->bk[b].buf = malloc(per * 8))) return nomem(g);
    xs_reader rr;
    if ((rc = xs_reader_init(&rr, g->pairs.fd, 0, g->pairs.size, IO_BUF, e)))
        return rc;
    uint32_t u, v;
    uint64_t i = 0;
    int k;
    while ((k = next_pair(g, &rr, &u, &v)) > 0) {
        for (int rev = 0; rev < 1 + (g->o->undirected && u != v); rev++) {
            uint32_t t = rev ? u : v, s = rev ? v : u;
            bucket *b = bucket_of(st, t);
            b->buf[2 * b->nbuf] = t;
            b->buf[2 * b->nbuf + 1] = s;
            if (++b->nbuf == per && (rc = bucket_flush(st->scratch.fd, b, e)))
                goto out;
        }
        if (++i % (CHECK_EVERY * 16) == 0 && (rc = interrupted(g))) goto out;
    }
    if (k < 0) rc = e ? e->rc : GNNDB_IOERR;
out:
    xs_reader_free(&rr);
    return rc ? rc : buckets_flush(g, st);
}

/* The packer, and room for the CSR of the largest bucket. */
static int csr_alloc(graph_ctx *g, build_state *st)
{
    int rc = blk_graph_packer_new(g->bs, g->o->token, on_block, on_index, g,
                                  &st->pk, g->e);
    if (rc) return rc;
    uint64_t maxe = 0, maxn = 0;
    for (size_t b = 0; b < st->nb; b++) {
        maxe = GNN_MAX(maxe, st->bk[b].edges);
        maxn = GNN_MAX(maxn, (uint64_t)(st->bk[b].hi - st->bk[b].lo));
    }
    if (!(st->pos = malloc((maxn + 1) * sizeof *st->pos)) ||
        !(st->srcs = malloc((maxe ? maxe : 1) * sizeof *st->srcs)))
        return nomem(g);
    return GNNDB_OK;
}

/* A bucket's sources grouped by target, from its region of the scratch
** file or, for the only bucket, from the parsed pairs. pos[i] = where node
** lo+i's next source goes; once filled it is the end of that list, i.e.
** the start of the next one. */
static int fill_bucket(graph_ctx *g, build_state *st, const bucket *b)
{
    uint32_t lo = b->lo, nn = b->hi - b->lo;
    uint64_t at = 0;
    for (uint32_t i = 0; i < nn; i++) {
        st->pos[i] = at;
        at += st->rd[lo + i];
    }
    xs_reader rr;
    int k, rc;
    if (st->nb > 1) {
        if ((rc = xs_reader_init(&rr, st->scratch.fd, b->off,
                                 b->off + b->edges * 8, IO_BUF, g->e)))
            return rc;
        uint32_t pr[2];
        while ((k = xs_read(&rr, pr, sizeof pr, g->e)) > 0)
            st->srcs[st->pos[pr[0] - lo]++] = pr[1];
    } else {
        if ((rc = xs_reader_init(&rr, g->pairs.fd, 0, g->pairs.size, IO_BUF,
                                 g->e)))
            return rc;
        uint32_t u, v;
        while ((k = next_pair(g, &rr, &u, &v)) > 0) {
            st->srcs[st->pos[v - lo]++] = u;
            if (g->o->undirected && u != v) st->srcs[st->pos[u - lo]++] = v;
        }
    }
    xs_reader_free(&rr);
    return k < 0 ? (g->e ? g->e->rc : GNNDB_IOERR) : GNNDB_OK;
}

/* Each node of a filled bucket: its list sorted (and made unique when
** asked), its degree counted, its object packed. */
static int pack_bucket(graph_ctx *g, build_state *st, const bucket *b)
{
    uint32_t lo = b->lo, nn = b->hi - b->lo;
    for (uint32_t i = 0; i < nn; i++) {
        uint64_t s0 = i ? st->pos[i - 1] : 0, s1 = st->pos[i];
        uint32_t *l = st->srcs + s0;
        size_t m = (size_t)(s1 - s0);
        gnn_sort_u32(l, m);
        if (g->o->drop_duplicates && m > 1) {
            size_t q = 1;
            for (size_t j = 1; j < m; j++)
                if (l[j] != l[q - 1]) l[q++] = l[j];
            m = q;
        }
        g->deg[lo + i] = (uint32_t)m;
        g->edges += m;
        int rc;
        if ((lo + i) % CHECK_EVERY == 0 && (rc = progress(g, lo + i, g->n)))
            return rc;
        if ((rc = blk_graph_packer_add(st->pk, lo + i, l, (uint32_t)m, g->e)))
            return rc;
    }
    return GNNDB_OK;
}

int graph_build(graph_ctx *g)
{
    build_state st = {.scratch = {.fd = -1}};
    int rc = build_begin(g, &st);
    if (!rc) rc = make_buckets(g, &st);
    if (!rc && st.nb > 1) rc = distribute(g, &st);
    if (!rc) rc = csr_alloc(g, &st);
    for (size_t b = 0; !rc && b < st.nb; b++) {
        if (!(rc = interrupted(g)) && !(rc = fill_bucket(g, &st, &st.bk[b])))
            rc = pack_bucket(g, &st, &st.bk[b]);
    }
    if (!rc) rc = blk_graph_packer_finish(st.pk, NULL, g->e);
    build_free(g, &st);
    return rc;
}

