/* graph_build.c — one build of CREATE GRAPH's block file from the parsed
** pairs: targets cut into buckets whose CSR fits half the import's memory
** budget, the pairs distributed to the buckets' regions of a scratch file
** (when there are two or more), then each bucket's lists filled, sorted
** and packed into node objects in node order. With edge ids each entry
** carries its input edge's id (the pair's position in the parsed file),
** lists are sorted by (source, id), and the same lists go to the edge-id
** graph with their ids. */
#include "import_graph_int.h"
#include "block.h"
#include "sort.h"

#include <stdlib.h>
#include <string.h>

static int out_nomem(graph_out *o)
{
    return gnn_seterr(o->e, GNNDB_NOMEM, "out of memory");
}

static int on_block(void *arg, const void *block, uint64_t block_no,
                    uint32_t checksum, gnn_err *e)
{
    graph_out *o = arg;
    if (o->nsums == o->sums_cap) {
        uint64_t nc = o->sums_cap ? 2 * o->sums_cap : 64;
        uint32_t *p = realloc(o->sums, nc * sizeof *p);
        if (!p) return out_nomem(o);
        o->sums = p;
        o->sums_cap = nc;
    }
    o->sums[o->nsums++] = checksum;
    if (o->w) return blkw_append(o->w, block, e);
    if (o->scratch_fd >= 0)
        return xs_pwrite(o->scratch_fd, block, o->bs, block_no * o->bs, e);
    return GNNDB_OK;
}

static int on_index(void *arg, uint64_t first_node, uint64_t block_no,
                    gnn_err *e)
{
    graph_out *o = arg;
    if (o->n_idx == o->idx_cap) {
        size_t nc = o->idx_cap ? 2 * o->idx_cap : 64;
        uint64_t *a = realloc(o->idx_first, nc * sizeof *a);
        if (!a) return out_nomem(o);
        o->idx_first = a;
        uint64_t *b = realloc(o->idx_block, nc * sizeof *b);
        if (!b) return out_nomem(o);
        o->idx_block = b;
        o->idx_cap = nc;
    }
    o->idx_first[o->n_idx] = first_node;
    o->idx_block[o->n_idx++] = block_no;
    return GNNDB_OK;
}

void graph_out_free(graph_out *o)
{
    free(o->sums);
    free(o->idx_first);
    free(o->idx_block);
    o->sums = NULL;
    o->idx_first = o->idx_block = NULL;
    o->nsums = o->sums_cap = 0;
    o->n_idx = o->idx_cap = 0;
}

typedef struct bucket {
    uint32_t lo, hi;      /* targets [lo, hi) */
    uint64_t edges;
    uint64_t off;         /* byte offset of the region in the scratch file */
    uint64_t filled;      /* records written */
    uint32_t *buf;        /* (target, source[, id]) records waiting */
    size_t nbuf;
} bucket;

/* Words of a record of the distribution: (target, source), and the edge's
** id with edge ids. */
static uint32_t rec_words(const graph_ctx *g) { return g->eids ? 3 : 2; }

static int bucket_flush(int fd, bucket *b, uint32_t words, gnn_err *e)
{
    if (b->nbuf == 0) return GNNDB_OK;
    size_t rb = words * sizeof(uint32_t);
    int rc = xs_pwrite(fd, b->buf, b->nbuf * rb, b->off + b->filled * rb, e);
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
    uint64_t *keys;       /* edge ids: (source << 32 | id), list after list */
    uint32_t *ids;        /* edge ids: a list's ids, beside its sources */
    blk_graph_packer *pk;
    blk_graph_packer *epk; /* the edge-id graph's */
} build_state;

static void build_free(graph_ctx *g, build_state *st)
{
    blk_graph_packer_free(st->pk);
    blk_graph_packer_free(st->epk);
    free(st->keys);
    free(st->ids);
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
    g->out.nsums = g->eout.nsums = 0;
    g->out.n_idx = g->eout.n_idx = 0;
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

/* Buckets: consecutive target ranges whose CSR (4 bytes per edge, 16
** with edge ids, 8 per node) fits half the budget; the other half buffers
** the distribution. */
static int make_buckets(graph_ctx *g, build_state *st)
{
    size_t csr_cap = g->budget / 2, bcap = 0;
    uint64_t n = g->n, total = 0, per = g->eids ? 16 : 4;
    for (uint64_t v = 0; v < n;) {
        uint64_t lo = v, ed = 0;
        while (v < n) {
            uint64_t ne = ed + st->rd[v];
            if (v > lo && ne * per + (v - lo + 2) * 8 > csr_cap) break;
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
                                    .edges = ed,
                                    .off = total * 4 * rec_words(g)};
        total += ed;
    }
    return GNNDB_OK;
}

/* The next spilled pair that becomes an edge, as internal ids in the
** current order (u -> v), and its id (its position among the pairs read,
** counted in *at); a self loop is skipped when they are dropped. 1, or 0
** at the end, or -1 with the error in g->e. */
static int next_pair(graph_ctx *g, xs_reader *rd, uint64_t *at, uint32_t *u,
                     uint32_t *v, uint32_t *id)
{
    int64_t pr[2];
    int k;
    while ((k = xs_read(rd, pr, sizeof pr, g->e)) > 0) {
        *id = (uint32_t)(*at)++;
        if (pair_skipped(g, *id)) continue;
        pair_ids(g, pr, u, v);
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
        int rc = bucket_flush(st->scratch.fd, bk, rec_words(g), g->e);
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

/* Distribute (target, source[, id]) records of internal ids to the
** buckets' regions of one scratch file; only done for two buckets or
** more, since one bucket reads the parsed pairs directly. */
static int distribute(graph_ctx *g, build_state *st)
{
    gnn_err *e = g->e;
    uint32_t w = rec_words(g);
    size_t per = GNN_MAX((size_t)(16 << 10),
                         GNN_MIN((size_t)(1 << 20), g->budget / 4 /
                                 (st->nb ? st->nb : 1)));
    per /= 4 * w;
    int rc = xs_file_open(&st->scratch, g->tmpdir, 0, e);
    if (rc) return rc;
    for (size_t b = 0; b < st->nb; b++)
        if (!(st->bk[b].buf = malloc(per * 4 * w))) return nomem(g);
    xs_reader rr;
    if ((rc = xs_reader_init(&rr, g->pairs.fd, 0, g->pairs.size, IO_BUF, e)))
        return rc;
    uint32_t u, v, id;
    uint64_t i = 0, at = 0;
    int k;
    while ((k = next_pair(g, &rr, &at, &u, &v, &id)) > 0) {
        for (int rev = 0; rev < 1 + (g->o->undirected && u != v); rev++) {
            bucket *b = bucket_of(st, rev ? u : v);
            uint32_t *r = b->buf + (size_t)w * b->nbuf;
            r[0] = rev ? u : v;
            r[1] = rev ? v : u;
            if (w == 3) r[2] = id;
            if (++b->nbuf == per &&
                (rc = bucket_flush(st->scratch.fd, b, w, e)))
                goto out;
        }
        if (++i % (CHECK_EVERY * 16) == 0 && (rc = interrupted(g))) goto out;
    }
    if (k < 0) rc = e ? e->rc : GNNDB_IOERR;
out:
    xs_reader_free(&rr);
    return rc ? rc : buckets_flush(g, st);
}

/* The packers, and room for the CSR of the largest bucket. */
static int csr_alloc(graph_ctx *g, build_state *st)
{
    int rc = blk_graph_packer_new(g->bs, g->o->token, on_block, on_index,
                                  &g->out, &st->pk, g->e);
    if (!rc && g->eids)
        rc = blk_graph_packer_new_eids(g->bs, g->o->eid_token, on_block,
                                       on_index, &g->eout, &st->epk, g->e);
    if (rc) return rc;
    uint64_t maxe = 0, maxn = 0;
    for (size_t b = 0; b < st->nb; b++) {
        maxe = GNN_MAX(maxe, st->bk[b].edges);
        maxn = GNN_MAX(maxn, (uint64_t)(st->bk[b].hi - st->bk[b].lo));
    }
    size_t me = maxe ? maxe : 1;
    if (!(st->pos = malloc((maxn + 1) * sizeof *st->pos)) ||
        !(st->srcs = malloc(me * sizeof *st->srcs)))
        return nomem(g);
    if (g->eids && (!(st->keys = malloc(me * sizeof *st->keys)) ||
                    !(st->ids = malloc(me * sizeof *st->ids))))
        return nomem(g);
    return GNNDB_OK;
}

/* Put source s (of the edge of id `id`) in the list of target t. */
static inline void fill_one(build_state *st, uint32_t lo, uint32_t t,
                            uint32_t s, uint32_t id)
{
    uint64_t at = st->pos[t - lo]++;
    if (st->keys) st->keys[at] = (uint64_t)s << 32 | id;
    else st->srcs[at] = s;
}

/* A bucket's sources (with edge ids: (source, id) keys) grouped by
** target, from its region of the scratch file or, for the only bucket,
** from the parsed pairs. pos[i] = where node lo+i's next source goes; once
** filled it is the end of that list, i.e. the start of the next one. */
static int fill_bucket(graph_ctx *g, build_state *st, const bucket *b)
{
    uint32_t lo = b->lo, nn = b->hi - b->lo, w = rec_words(g);
    uint64_t at = 0;
    for (uint32_t i = 0; i < nn; i++) {
        st->pos[i] = at;
        at += st->rd[lo + i];
    }
    xs_reader rr;
    int k, rc;
    if (st->nb > 1) {
        if ((rc = xs_reader_init(&rr, st->scratch.fd, b->off,
                                 b->off + b->edges * 4 * w, IO_BUF, g->e)))
            return rc;
        uint32_t r[3] = {0, 0, 0};
        while ((k = xs_read(&rr, r, 4 * w, g->e)) > 0)
            fill_one(st, lo, r[0], r[1], r[2]);
    } else {
        if ((rc = xs_reader_init(&rr, g->pairs.fd, 0, g->pairs.size, IO_BUF,
                                 g->e)))
            return rc;
        uint32_t u, v, id;
        uint64_t n = 0;
        while ((k = next_pair(g, &rr, &n, &u, &v, &id)) > 0) {
            fill_one(st, lo, v, u, id);
            if (g->o->undirected && u != v) fill_one(st, lo, u, v, id);
        }
    }
    xs_reader_free(&rr);
    return k < 0 ? (g->e ? g->e->rc : GNNDB_IOERR) : GNNDB_OK;
}

/* One list of (source << 32 | id) keys: sorted, so that sources ascend
** and ties go by id; with DROP DUPLICATES the first of each source (the
** lowest id) kept and the others' ids written to g->dropped; then split
** into sources (srcs) and ids (st->ids). Returns the list's length. */
static int eid_list(graph_ctx *g, build_state *st, uint64_t *kl, uint32_t *l,
                    size_t *m)
{
    size_t q = *m;
    gnn_sort_u64(kl, q);
    if (g->o->drop_duplicates && q > 1) {
        size_t w = 1;
        for (size_t j = 1; j < q; j++) {
            if (kl[j] >> 32 != kl[w - 1] >> 32) { kl[w++] = kl[j]; continue; }
            uint32_t id = (uint32_t)kl[j];
            int rc = xs_file_write(&g->dropped, &id, sizeof id, g->e);
            if (rc) return rc;
        }
        q = w;
    }
    for (size_t j = 0; j < q; j++) {
        l[j] = (uint32_t)(kl[j] >> 32);
        st->ids[j] = (uint32_t)kl[j];
    }
    *m = q;
    return GNNDB_OK;
}

/* Each node of a filled bucket: its list sorted (and made unique when
** asked), its degree counted, its object packed (in both graphs with edge
** ids). */
static int pack_bucket(graph_ctx *g, build_state *st, const bucket *b)
{
    uint32_t lo = b->lo, nn = b->hi - b->lo;
    for (uint32_t i = 0; i < nn; i++) {
        uint64_t s0 = i ? st->pos[i - 1] : 0, s1 = st->pos[i];
        uint32_t *l = st->srcs + s0;
        size_t m = (size_t)(s1 - s0);
        int rc;
        if (st->keys) {
            if ((rc = eid_list(g, st, st->keys + s0, l, &m))) return rc;
        } else {
            gnn_sort_u32(l, m);
            if (g->o->drop_duplicates && m > 1) {
                size_t q = 1;
                for (size_t j = 1; j < m; j++)
                    if (l[j] != l[q - 1]) l[q++] = l[j];
                m = q;
            }
        }
        g->deg[lo + i] = (uint32_t)m;
        g->edges += m;
        if ((lo + i) % CHECK_EVERY == 0 && (rc = progress(g, lo + i, g->n)))
            return rc;
        if ((rc = blk_graph_packer_add(st->pk, lo + i, l, (uint32_t)m, g->e)))
            return rc;
        if (st->epk && (rc = blk_graph_packer_add_eids(st->epk, lo + i, l,
                                                       st->ids, (uint32_t)m,
                                                       g->e)))
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
    if (!rc && st.epk) rc = blk_graph_packer_finish(st.epk, NULL, g->e);
    if (!rc && g->eids) rc = xs_file_flush(&g->dropped, g->e);
    build_free(g, &st);
    return rc;
}
