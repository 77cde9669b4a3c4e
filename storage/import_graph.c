/* import_graph.c — CREATE GRAPH's importer: edge list -> graph block file
** in bounded memory (parse and spill, map keys, reorder, then the build of
** graph_build.c: bucket by target, each bucket's CSR, pack node objects). */
#include "import_graph_int.h"
#include "block.h"
#include "edgelist.h"
#include "index.h"
#include "sort.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_BUDGET ((size_t)256 << 20)
/* The least the edges' buffers may have: below it the buckets would cut
** the edges into more runs than is sane. */
#define MIN_EDGE_BUDGET ((size_t)256 << 10)

int64_t imp_graph_node_bytes(const imp_graph_opts *o)
{
    /* raw degrees with their growth slack, final degrees, and the sorted
    ** copy (with the radix sort's scratch) that gives the median */
    int64_t b = 8 + 4 + 8;
    if (o->map_ids) b += 16;                /* keys, with growth slack */
    if (o->reorder) b += 16;                /* order, seen, perm, raw by id */
    if (o->map_ids || o->reorder) b += 16;  /* i2e and i2r */
    return b;
}

int64_t imp_buffer_bytes(uint32_t block_size)
{
    int64_t bs = block_size ? block_size : BLK_DEFAULT_SIZE;
    /* the input's reader, inflater, transposition band or copy buffer (8
    ** MiB at most at once), the scratch files' readers and writers (1 MiB
    ** each, three at once), two block writers and two packers (a block
    ** and its objects and offsets each) */
    return ((int64_t)11 << 20) + 2 * GNN_MAX((int64_t)BLKW_BUF_BYTES, bs) +
           5 * bs;
}

/* The arrays of n nodes must leave the edges MIN_EDGE_BUDGET of the
** import's memory; `exact` when n is the count, not a lower bound seen
** while parsing. The edges get the rest. */
static int fit_nodes(graph_ctx *g, uint64_t n, int exact)
{
    int64_t per = imp_graph_node_bytes(g->o);
    uint64_t need = n * (uint64_t)per;
    if (need + MIN_EDGE_BUDGET <= g->total) {
        if (exact) g->budget = g->total - (size_t)need;
        return GNNDB_OK;
    }
    const imp_ctl *c = g->ctl;
    char b1[32], b2[32], b3[32];
    return gnn_seterr(g->e, GNNDB_NOMEM, "%s%s%s %llu nodes need %s of the "
                      "import's memory (%lld bytes a node) and its edges at "
                      "least %s more, but it has %s%s%s",
                      c && c->what ? c->what : "", c && c->what ? ": " : "",
                      exact ? "its" : "more than", (unsigned long long)n,
                      gnn_fmt_size((int64_t)need, b1, sizeof b1),
                      (long long)per,
                      gnn_fmt_size(MIN_EDGE_BUDGET, b2, sizeof b2),
                      gnn_fmt_size((int64_t)g->total, b3, sizeof b3),
                      c && c->budget_words ? ": " : "",
                      c && c->budget_words ? c->budget_words : "");
}

static int raw_grow(graph_ctx *g, uint64_t need)
{
    if (need <= g->raw_cap) return GNNDB_OK;
    int rc = fit_nodes(g, need, 0);
    if (rc) return rc;
    uint64_t nc = g->raw_cap ? g->raw_cap : 1024;
    while (nc < need) nc *= 2;
    uint32_t *p = realloc(g->raw, nc * sizeof *p);
    if (!p) return nomem(g);
    memset(p + g->raw_cap, 0, (nc - g->raw_cap) * sizeof *p);
    g->raw = p;
    g->raw_cap = nc;
    return GNNDB_OK;
}

static int raw_inc(graph_ctx *g, uint64_t v)
{
    if (g->raw[v] == UINT32_MAX)
        return gnn_seterr(g->e, GNNDB_RANGE, "%s: node %llu has more than "
                          "2^32-1 in-edges", g->src, (unsigned long long)v);
    g->raw[v]++;
    return GNNDB_OK;
}

/* What the distribution will emit for the pair u -> v (ranks), counted in
** the targets' raw degrees; the two must agree edge for edge. */
static int count_pair(graph_ctx *g, uint64_t u, uint64_t v)
{
    if (u == v && g->o->drop_self_loops) return GNNDB_OK;
    int rc = raw_inc(g, v);
    if (!rc && g->o->undirected && u != v) rc = raw_inc(g, u);
    return rc;
}

/* ---- pass 1: parse, validate, spill ------------------------------------ */

/* An unmapped id (the edge's source when which is 0, its target when 1)
** must be a dense id below 2^32-1 and below the nodes declared; the
** largest one seen gives the node count when none is declared. */
static int check_id(graph_ctx *g, edge_reader *r, int which, int64_t id,
                    int64_t *maxid)
{
    char at[600];
    if (id < 0) {
        edge_where(r, which, at, sizeof at);
        return gnn_seterr(g->e, GNNDB_RANGE, "%s: negative node id %lld "
                          "(arbitrary keys need mapped ids)", at,
                          (long long)id);
    }
    if (g->o->nodes >= 0 && id >= g->o->nodes) {
        edge_where(r, which, at, sizeof at);
        if (g->o->prior)
            return gnn_seterr(g->e, GNNDB_RANGE, "%s: node id %lld is not a "
                              "node of graph %s (its %lld nodes are ids 0 to "
                              "%lld)", at, (long long)id, g->o->prior->graph,
                              (long long)g->o->nodes,
                              (long long)g->o->nodes - 1);
        return gnn_seterr(g->e, GNNDB_RANGE, "%s: node id %lld is beyond the "
                          "%lld nodes declared", at, (long long)id,
                          (long long)g->o->nodes);
    }
    if (id >= (int64_t)UINT32_MAX) {
        edge_where(r, which, at, sizeof at);
        return gnn_seterr(g->e, GNNDB_RANGE, "%s: node id %lld is too large "
                          "(ids must be below 2^32-1; use mapped ids for "
                          "sparse keys)", at, (long long)id);
    }
    if (id > *maxid) *maxid = id;
    return GNNDB_OK;
}

/* A relation's edge (o->rel): each end checked against its node type's
** count, then moved to the global ids (and turned round for a reverse). */
static int rel_ids(graph_ctx *g, edge_reader *r, int64_t *s, int64_t *d)
{
    const imp_rel *t = g->o->rel;
    for (int w = 0; w < 2; w++) {
        int64_t id = w ? *d : *s, n = w ? t->dst_count : t->src_count;
        if (id >= 0 && id < n) continue;
        char at[600];
        edge_where(r, w, at, sizeof at);
        return gnn_seterr(g->e, GNNDB_RANGE, "%s: relation %s: node id %lld "
                          "is not a node of type %s (%lld nodes: ids 0 to "
                          "%lld)", at, t->name, (long long)id,
                          w ? t->dst : t->src, (long long)n, (long long)n - 1);
    }
    int64_t u = *s + t->src_first, v = *d + t->dst_first;
    *s = t->reverse ? v : u;
    *d = t->reverse ? u : v;
    return GNNDB_OK;
}

/* INSERT EDGES with mapped ids: each key of the file must be one of the
** graph's (prior->keys, ascending: ranks are the keys' order). */
static int check_prior_key(graph_ctx *g, edge_reader *r, int which,
                           int64_t key)
{
    const imp_prior *p = g->o->prior;
    size_t lo = 0, hi = p->nkeys;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (p->keys[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    if (lo < p->nkeys && p->keys[lo] == key) return GNNDB_OK;
    char at[600];
    edge_where(r, which, at, sizeof at);
    return gnn_seterr(g->e, GNNDB_RANGE, "%s: node key %lld is not a node "
                      "of graph %s (INSERT EDGES adds edges between its "
                      "nodes)", at, (long long)key, p->graph);
}

/* One parsed edge: its ids checked and counted in the raw degrees, or,
** with mapped ids, its keys handed to the sorter that will rank them; then
** the pair spilled as parsed. */
static int take_edge(graph_ctx *g, edge_reader *r, xs_sorter *ks, int64_t s,
                     int64_t d, int64_t *maxid)
{
    gnn_err *e = g->e;
    int rc;
    if (g->o->rel && (rc = rel_ids(g, r, &s, &d))) return rc;
    if (!g->o->map_ids) {
        if ((rc = check_id(g, r, 0, s, maxid)) ||
            (rc = check_id(g, r, 1, d, maxid)) ||
            (rc = raw_grow(g, (uint64_t)*maxid + 1)) ||
            (rc = count_pair(g, (uint64_t)s, (uint64_t)d)))
            return rc;
    } else if ((r && g->o->prior &&
                ((rc = check_prior_key(g, r, 0, s)) ||
                 (rc = check_prior_key(g, r, 1, d)))) ||
               (rc = xs_sorter_add(ks, s, e)) ||
               (rc = xs_sorter_add(ks, d, e))) {
        return rc;
    }
    int64_t pr[2] = {s, d};
    return xs_file_write(&g->pairs, pr, sizeof pr, e);
}

/* The node count once every edge is parsed: the distinct keys when ids are
** mapped (which must match the nodes declared), else the nodes declared or
** one more than the largest id. */
static int count_nodes(graph_ctx *g, edge_reader *r, xs_sorter *ks,
                       int64_t maxid)
{
    gnn_err *e = g->e;
    const imp_graph_opts *o = g->o;
    if (!o->map_ids) {
        g->n = o->nodes >= 0 ? (uint64_t)o->nodes : (uint64_t)(maxid + 1);
        if (g->n > UINT32_MAX)
            return gnn_seterr(e, GNNDB_RANGE, "%lld nodes declared; at most "
                              "2^32-1 are supported", (long long)o->nodes);
        return raw_grow(g, g->n ? g->n : 1);
    }
    size_t nk;
    int rc = xs_sorter_finish(ks, &g->keys, &nk, e);
    if (rc) return rc;
    g->n = nk;
    if (o->prior && o->nodes >= 0 && (uint64_t)o->nodes != nk)
        return gnn_seterr(e, GNNDB_RANGE, "%s: %llu node keys are not nodes "
                          "of graph %s (INSERT EDGES adds edges between the "
                          "graph's %lld nodes)", edge_name(r),
                          (unsigned long long)(nk - (uint64_t)o->nodes),
                          o->prior->graph, (long long)o->nodes);
    if (o->nodes >= 0 && (uint64_t)o->nodes != nk)
        return gnn_seterr(e, GNNDB_RANGE, "%s: %zu distinct node keys but "
                          "%lld nodes declared (with mapped ids every node "
                          "must appear in an edge)", edge_name(r), nk,
                          (long long)o->nodes);
    if (nk > UINT32_MAX)
        return gnn_seterr(e, GNNDB_RANGE, "%s: %zu distinct node keys; at "
                          "most 2^32-1 nodes are supported", edge_name(r), nk);
    return GNNDB_OK;
}

/* What imp_prior_add needs: the parse under way. */
struct imp_prior_sink {
    graph_ctx *g;
    edge_reader *r;
    xs_sorter *ks;
    int64_t *maxid;
    int with_time;
};

int imp_prior_add(imp_prior_sink *sk, int64_t src, int64_t dst, int64_t t)
{
    graph_ctx *g = sk->g;
    int rc;
    if (g->npairs >= g->o->prior->rows)
        return gnn_seterr(g->e, GNNDB_INTERNAL, "graph %s: more prior edges "
                          "than its %llu input edges", g->o->prior->graph,
                          (unsigned long long)g->o->prior->rows);
    if (pair_skipped(g, g->npairs)) {   /* kept in step, counted nowhere */
        int64_t pr[2] = {src, dst};
        rc = xs_file_write(&g->pairs, pr, sizeof pr, g->e);
    } else {
        rc = take_edge(g, sk->r, sk->ks, src, dst, sk->maxid);
    }
    if (!rc && sk->with_time) rc = xs_file_write(&g->times, &t, 8, g->e);
    if (!rc && ++g->npairs % CHECK_EVERY == 0) rc = interrupted(g);
    return rc;
}

/* INSERT EDGES: the old version's node keys and edges, before the file's. */
static int parse_prior(graph_ctx *g, imp_prior_sink *sk)
{
    const imp_prior *p = g->o->prior;
    int rc = GNNDB_OK;
    for (size_t i = 0; !rc && sk->ks && i < p->nkeys; i++)
        rc = xs_sorter_add(sk->ks, p->keys[i], g->e);
    if (!rc) rc = p->emit(p->arg, sk, g->e);
    if (!rc && g->npairs != p->rows)
        rc = gnn_seterr(g->e, GNNDB_INTERNAL, "graph %s: %llu prior edges "
                        "fed of its %llu input edges", p->graph,
                        (unsigned long long)g->npairs,
                        (unsigned long long)p->rows);
    return rc;
}

static int parse_edges(graph_ctx *g)
{
    gnn_err *e = g->e;
    const imp_graph_opts *o = g->o;
    edge_reader *r = NULL;
    xs_sorter *ks = NULL;
    edge_opts eo = o->text;
    eo.format = o->format;
    eo.key = o->key;
    eo.tmpdir = g->tmpdir;
    /* INSERT NODES: the prior version's edges alone, no file */
    int rc = g->src ? edge_open_opts(g->src, &eo, &r, e) : GNNDB_OK;
    if (rc) return rc;
    if ((rc = xs_file_open(&g->pairs, g->tmpdir, IO_BUF, e)) ||
        (eo.with_time &&
         (rc = xs_file_open(&g->times, g->tmpdir, IO_BUF, e))))
        goto out;
    /* an eighth: the keys' own array (16 bytes a node of the budget) is
    ** made from it while its runs are merged */
    if (o->map_ids &&
        (rc = xs_sorter_new(g->tmpdir, g->budget / 8, &ks, e)))
        goto out;
    int64_t maxid = -1;
    int64_t s, d;
    int k = 0;
    imp_prior_sink sink = {g, r, ks, &maxid, eo.with_time};
    if (o->prior && (rc = parse_prior(g, &sink))) goto out;
    while (r && (k = edge_next(r, &s, &d, e)) > 0) {
        int64_t t = edge_last_time(r);
        if ((rc = take_edge(g, r, ks, s, d, &maxid)) ||
            (eo.with_time && (rc = xs_file_write(&g->times, &t, 8, e))))
            goto out;
        if (++g->npairs % CHECK_EVERY == 0 &&
            ((rc = interrupted(g)) ||
             (rc = progress(g, edge_bytes_done(r), edge_bytes_total(r)))))
            goto out;
    }
    if (k < 0) {
        rc = e && e->rc ? e->rc : GNNDB_FORMAT;
        goto out;
    }
    if ((rc = xs_file_flush(&g->pairs, e)) ||
        (eo.with_time && (rc = xs_file_flush(&g->times, e))) ||
        (r && (rc = progress(g, edge_bytes_total(r), edge_bytes_total(r)))))
        goto out;
    rc = count_nodes(g, r, ks, maxid);
out:
    xs_sorter_free(ks);
    if (r) edge_close(r);
    return rc;
}

/* One end of an appended edge as an internal id: a key's rank among the
** graph's keys (no reorder: ranks are internal ids), or the id itself. */
static int append_end(graph_ctx *g, edge_reader *r, int which, int64_t id,
                      uint32_t *out)
{
    int64_t maxid = -1;
    int rc = g->o->map_ids ? check_prior_key(g, r, which, id)
                           : check_id(g, r, which, id, &maxid);
    if (rc) return rc;
    if (!g->o->map_ids) {
        *out = (uint32_t)id;
        return GNNDB_OK;
    }
    const int64_t *k = g->o->prior->keys;
    size_t lo = 0, hi = g->o->prior->nkeys;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k[mid] < id) lo = mid + 1;
        else hi = mid;
    }
    *out = (uint32_t)lo;
    return GNNDB_OK;
}

int imp_edges_each(const char *src, const imp_graph_opts *o,
                   const imp_ctl *ctl, imp_edge_fn each, void *arg,
                   gnn_err *e)
{
    graph_ctx g = {.src = src, .o = o, .ctl = ctl, .e = e};
    edge_opts eo = o->text;
    eo.format = o->format;
    eo.key = o->key;
    eo.tmpdir = ctl ? ctl->tmpdir : NULL;
    edge_reader *r = NULL;
    int rc = edge_open_opts(src, &eo, &r, e);
    if (rc) return rc;
    int64_t s, d;
    uint64_t n = 0;
    int k;
    while ((k = edge_next(r, &s, &d, e)) > 0) {
        uint32_t u, v;
        if ((rc = append_end(&g, r, 0, s, &u)) ||
            (rc = append_end(&g, r, 1, d, &v)) ||
            (rc = each(arg, u, v, eo.with_time ? edge_last_time(r) : 0, e)))
            break;
        if (++n % CHECK_EVERY == 0 &&
            ((rc = interrupted(&g)) ||
             (rc = progress(&g, edge_bytes_done(r), edge_bytes_total(r)))))
            break;
    }
    if (!rc && k < 0) rc = e && e->rc ? e->rc : GNNDB_FORMAT;
    edge_close(r);
    return rc;
}

/* map_ids: the raw degrees need ranks, known only now. */
static int count_mapped(graph_ctx *g)
{
    int rc = raw_grow(g, g->n ? g->n : 1);
    if (rc) return rc;
    xs_reader rd;
    if ((rc = xs_reader_init(&rd, g->pairs.fd, 0, g->pairs.size, IO_BUF,
                             g->e)))
        return rc;
    int64_t pr[2];
    int k;
    uint64_t i = 0;
    while ((k = xs_read(&rd, pr, sizeof pr, g->e)) > 0) {
        if (!pair_skipped(g, i) &&
            (rc = count_pair(g, rank_of(g, pr[0]), rank_of(g, pr[1]))))
            break;
        if (++i % (CHECK_EVERY * 16) == 0 && (rc = interrupted(g))) break;
    }
    if (!rc && k < 0) rc = g->e ? g->e->rc : GNNDB_IOERR;
    xs_reader_free(&rd);
    return rc;
}

/* ---- reordering -------------------------------------------------------- */

/* qsort has no context argument; qsort_r does (glibc). */
static int by_degree(const void *a, const void *b, void *arg)
{
    const uint32_t *deg = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (deg[x] != deg[y]) return deg[x] > deg[y] ? -1 : 1;
    return (x > y) - (x < y);
}

static int order_degree(graph_ctx *g, uint32_t *order)
{
    for (uint64_t i = 0; i < g->n; i++) order[i] = (uint32_t)i;
    qsort_r(order, g->n, sizeof *order, by_degree, g->deg);
    return GNNDB_OK;
}

/* The BFS walks the identity-order pre-build in a scratch file through a
** small direct-mapped block cache. */
typedef struct bfs_cache {
    int fd;
    uint32_t bs;
    size_t slots;
    uint8_t *mem;
    uint64_t *tag;        /* block held by each slot, UINT64_MAX: none */
} bfs_cache;

static const uint8_t *cache_get(bfs_cache *c, uint64_t no, gnn_err *e)
{
    size_t s = (size_t)(no % c->slots);
    uint8_t *b = c->mem + s * (size_t)c->bs;
    if (c->tag[s] != no) {
        if (xs_pread(c->fd, b, c->bs, no * c->bs, e)) return NULL;
        c->tag[s] = no;
    }
    return b;
}

static int order_bfs(graph_ctx *g, int fd, uint32_t *order)
{
    gnn_err *e = g->e;
    uint64_t n = g->n;
    int rc = GNNDB_OK;
    bfs_cache c = {.fd = fd, .bs = g->bs};
    c.slots = GNN_MAX((size_t)1, GNN_MIN((size_t)256, g->budget / 2 / g->bs));
    uint8_t *seen = calloc(n ? n : 1, 1);
    c.mem = malloc(c.slots * (size_t)g->bs);
    c.tag = malloc(c.slots * sizeof *c.tag);
    if (!seen || !c.mem || !c.tag) { rc = nomem(g); goto out; }
    for (size_t s = 0; s < c.slots; s++) c.tag[s] = UINT64_MAX;

    uint64_t head = 0, tail = 0, next_root = 0;
    uint32_t best = 0;
    for (uint64_t v = 1; v < n; v++)
        if (g->deg[v] > g->deg[best]) best = (uint32_t)v;
    while (tail < n) {
        uint32_t root;
        if (tail == 0) {
            root = best;
        } else {
            while (seen[next_root]) next_root++;
            root = (uint32_t)next_root;
        }
        seen[root] = 1;
        order[tail++] = root;
        while (head < tail) {
            uint32_t v = order[head++];
            if (head % CHECK_EVERY == 0 && (rc = interrupted(g))) goto out;
            uint64_t bno = idx_block_of(g->out.idx_first, g->out.idx_block,
                                        g->out.n_idx, v);
            const uint8_t *blk = cache_get(&c, bno, e);
            if (!blk) { rc = e ? e->rc : GNNDB_IOERR; goto out; }
            const blk_node *ob = blk_graph_find(blk, v);
            if (!ob) {
                rc = gnn_seterr(e, GNNDB_INTERNAL, "graph import: node %u "
                                "missing from its block", v);
                goto out;
            }
            uint32_t degree = ob->degree;
            for (;;) {
                const uint32_t *nb = blk_node_nbrs(ob);
                for (uint32_t j = 0; j < ob->n; j++)
                    if (!seen[nb[j]]) {
                        seen[nb[j]] = 1;
                        order[tail++] = nb[j];
                    }
                if (ob->start + ob->n >= degree) break;
                blk = cache_get(&c, ++bno, e);
                if (!blk) { rc = e ? e->rc : GNNDB_IOERR; goto out; }
                ob = blk_graph_object(blk, 0);
            }
        }
    }
out:
    free(seen);
    free(c.mem);
    free(c.tag);
    return rc;
}

static int reorder(graph_ctx *g)
{
    gnn_err *e = g->e;
    int rc;
    xs_file pre = {.fd = -1};
    uint32_t *order = malloc((g->n ? g->n : 1) * sizeof *order);
    if (!order) return nomem(g);
    if (g->o->reorder == IMP_REORDER_BFS) {
        if ((rc = xs_file_open(&pre, g->tmpdir, 0, e))) goto out;
        g->out.scratch_fd = pre.fd;
    }
    rc = graph_build(g);
    g->out.scratch_fd = -1;
    if (rc) goto out;
    rc = g->o->reorder == IMP_REORDER_BFS ? order_bfs(g, pre.fd, order)
                                          : order_degree(g, order);
    if (rc) goto out;
    if (!(g->perm = malloc((g->n ? g->n : 1) * sizeof *g->perm))) {
        rc = nomem(g);
        goto out;
    }
    for (uint64_t k = 0; k < g->n; k++) g->perm[order[k]] = (uint32_t)k;
out:
    xs_file_close(&pre);
    free(order);
    return rc;
}

/* ---- results ----------------------------------------------------------- */

static int fill_result(graph_ctx *g, imp_graph_result *res)
{
    uint64_t n = g->n;
    res->nodes = (int64_t)n;
    res->edges = (int64_t)g->edges;
    res->nblocks = g->out.nsums;
    res->checksums = g->out.sums;
    res->idx_first = g->out.idx_first;
    res->idx_block = g->out.idx_block;
    res->n_idx = g->out.n_idx;
    g->out.sums = NULL;
    g->out.idx_first = g->out.idx_block = NULL;
    if (g->eids) {
        res->input_edges = (int64_t)g->npairs;
        res->eid_nblocks = g->eout.nsums;
        res->eid_checksums = g->eout.sums;
        res->eid_idx_first = g->eout.idx_first;
        res->eid_idx_block = g->eout.idx_block;
        res->eid_n_idx = g->eout.n_idx;
        g->eout.sums = NULL;
        g->eout.idx_first = g->eout.idx_block = NULL;
    }

    if (g->keys || g->perm) {
        int64_t *i2e = malloc((n ? n : 1) * sizeof *i2e);
        int64_t *i2r = g->perm ? malloc((n ? n : 1) * sizeof *i2r) : NULL;
        if (!i2e || (g->perm && !i2r)) {
            free(i2e);
            free(i2r);
            return nomem(g);
        }
        for (uint64_t r = 0; r < n; r++) {
            uint64_t in = g->perm ? g->perm[r] : r;
            i2e[in] = g->keys ? g->keys[r] : (int64_t)r;
            if (i2r) i2r[in] = (int64_t)r;
        }
        int ident = 1;
        for (uint64_t i = 0; i < n && ident; i++) ident = i2e[i] == (int64_t)i;
        if (ident) { free(i2e); i2e = NULL; }
        ident = 1;
        for (uint64_t i = 0; i2r && i < n && ident; i++)
            ident = i2r[i] == (int64_t)i;
        if (i2r && ident) { free(i2r); i2r = NULL; }
        res->i2e = i2e;
        res->i2r = i2r;
    }

    if (n == 0) {
        res->nbuckets = 1;
        return GNNDB_OK;
    }
    uint32_t *s = malloc(n * sizeof *s);
    if (!s) return nomem(g);
    memcpy(s, g->deg, n * sizeof *s);
    gnn_sort_u32(s, n);
    res->min_degree = s[0];
    res->max_degree = s[n - 1];
    res->median_degree = s[(n - 1) / 2];
    free(s);
    res->mean_degree = (double)g->edges / (double)n;
    int nbk = 1;
    for (uint64_t v = 0; v < n; v++) {
        uint32_t d = g->deg[v];
        int k = d ? 32 - __builtin_clz(d) : 0;
        res->deg_hist[k]++;
        if (k + 1 > nbk) nbk = k + 1;
    }
    res->nbuckets = nbk;
    return GNNDB_OK;
}

static int publish(blk_writer **w, gnn_err *e)
{
    blk_writer *x = *w;
    *w = NULL;
    return blkw_finish(x, e);
}

static void unlink_in(const char *dir, const char *name)
{
    if (!name) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

/* Remove the files a build publishes: the graph and, with edge ids, the
** edge-id graph and the edge table. */
static void unlink_published(const imp_graph_opts *o, int eids,
                             const char *dir, const char *name)
{
    unlink_in(dir, name);
    if (eids) {
        unlink_in(dir, o->eid_name);
        unlink_in(dir, o->edges_name);
    }
}

/* The last build into the files it publishes: the graph and, with edge
** ids, the edge-id graph and the edge table. On failure none is left. */
static int build_files(graph_ctx *g, const char *dir, const char *name,
                       imp_graph_result *res)
{
    const imp_graph_opts *o = g->o;
    gnn_err *e = g->e;
    int rc = blkw_create(dir, name, g->bs, &g->out.w, e);
    if (!rc && g->eids &&
        !(rc = blkw_create(dir, o->eid_name, g->bs, &g->eout.w, e)))
        rc = xs_file_open(&g->dropped, g->tmpdir, IO_BUF, e);
    if (!rc) rc = graph_build(g);
    if (!rc) rc = publish(&g->out.w, e);
    if (!rc && g->eids && !(rc = publish(&g->eout.w, e)))
        rc = edge_table_build(g, dir, &res->edges_checksums,
                              &res->edges_nblocks,
                              &res->edges_rows_per_block);
    if (!rc) rc = fill_result(g, res);
    if (rc) {
        blkw_abort(g->out.w);
        blkw_abort(g->eout.w);
        g->out.w = g->eout.w = NULL;
        unlink_published(o, g->eids, dir, name);
    }
    return rc;
}

/* Edge ids are 32-bit, UINT32_MAX marking a dropped edge. */
static int check_input_edges(graph_ctx *g)
{
    if (!g->eids || g->npairs <= (uint64_t)UINT32_MAX - 1) return GNNDB_OK;
    return gnn_seterr(g->e, GNNDB_RANGE, "%s: %llu edges; edge ids are 32-bit, "
                      "so a graph with edge ids has at most %u input edges "
                      "(CREATE GRAPH ... WITHOUT EDGE IDS builds it without "
                      "them)", g->src, (unsigned long long)g->npairs,
                      UINT32_MAX - 1);
}

/* The time column, one int64 per input edge, out of its scratch file. */
static int read_times(graph_ctx *g, imp_graph_result *res)
{
    size_t bytes = (size_t)g->npairs * 8;
    if (!(res->times = malloc(bytes ? bytes : 1)))
        return gnn_seterr(g->e, GNNDB_NOMEM, "%s: out of memory for the "
                          "times of %llu edges", g->src,
                          (unsigned long long)g->npairs);
    return bytes ? xs_pread(g->times.fd, res->times, bytes, 0, g->e)
                 : GNNDB_OK;
}

int imp_graph(const char *src, const char *dir, const char *name,
              const imp_graph_opts *o, const imp_ctl *ctl,
              imp_graph_result *res, gnn_err *e)
{
    memset(res, 0, sizeof *res);
    graph_ctx g = {.src = src, .o = o, .ctl = ctl, .e = e};
    g.pairs.fd = g.dropped.fd = g.times.fd = -1;
    g.tmpdir = ctl && ctl->tmpdir ? ctl->tmpdir : dir;
    g.total = ctl && ctl->mem_budget ? ctl->mem_budget : DEFAULT_BUDGET;
    g.total = GNN_MAX(g.total, (size_t)1 << 20);
    g.budget = g.total;   /* the parse's; fit_nodes gives the build's */
    g.bs = o->block_size ? o->block_size : BLK_DEFAULT_SIZE;
    g.out = (graph_out){.scratch_fd = -1, .bs = g.bs, .e = e};
    g.eout = g.out;
    if (!blk_size_valid(g.bs))
        return gnn_seterr(e, GNNDB_RANGE, "invalid block size %u (a power of "
                          "two from 4 KiB to 16 MiB)", g.bs);
    if (o->reorder < IMP_REORDER_NONE || o->reorder > IMP_REORDER_BFS)
        return gnn_seterr(e, GNNDB_MISUSE, "unknown reorder mode %d",
                          o->reorder);
    if (o->rel && (o->map_ids || o->reorder != IMP_REORDER_NONE))
        return gnn_seterr(e, GNNDB_MISUSE, "%s: a relation's node ids are "
                          "its node types' (no MAP IDS, no REORDER)", src);
    int want_eids = o->eid_name != NULL;
    /* nodes declared are known before anything is read */
    int rc = o->nodes >= 0 ? fit_nodes(&g, (uint64_t)o->nodes, 0) : GNNDB_OK;
    if (!rc) rc = parse_edges(&g);
    if (!rc) rc = fit_nodes(&g, g.n, 1);
    g.eids = want_eids;
    if (!rc) rc = check_input_edges(&g);
    g.eids = 0;   /* a reorder's pre-build has no use for them */
    if (!rc && o->map_ids) rc = count_mapped(&g);
    if (!rc && o->reorder != IMP_REORDER_NONE) rc = reorder(&g);
    g.eids = want_eids;
    if (!rc) rc = build_files(&g, dir, name, res);
    xs_file_close(&g.pairs);
    xs_file_close(&g.dropped);
    free(g.keys);
    free(g.raw);
    free(g.perm);
    free(g.deg);
    graph_out_free(&g.out);
    graph_out_free(&g.eout);
    /* a failure after the build takes what it published too */
    if (!rc && o->text.with_time && (rc = read_times(&g, res)))
        unlink_published(o, want_eids, dir, name);
    xs_file_close(&g.times);
    if (rc) {
        imp_graph_result_free(res);
        memset(res, 0, sizeof *res);
    }
    return rc;
}

void imp_graph_result_free(imp_graph_result *res)
{
    if (!res) return;
    free(res->checksums);
    free(res->idx_first);
    free(res->idx_block);
    free(res->i2e);
    free(res->i2r);
    free(res->eid_checksums);
    free(res->eid_idx_first);
    free(res->eid_idx_block);
    free(res->edges_checksums);
    free(res->times);
    res->times = NULL;
    res->checksums = res->eid_checksums = res->edges_checksums = NULL;
    res->idx_first = res->idx_block = NULL;
    res->eid_idx_first = res->eid_idx_block = NULL;
    res->i2e = res->i2r = NULL;
}
