/* test_graph_delta.c — gd_rewrite (storage/graph_delta.c) against a
** brute-force reference: an old graph file of 4 KiB blocks (plain, with
** edge ids, with times) packed from random lists held here, with hubs
** spanning several blocks, nodes of degree 0 and a long last list; changed
** nodes picked where ranges begin and end (a block's middle, first, last,
** a list crossing blocks, the hubs and their neighbours, node 0, the last
** node, runs, every node) with new lists appended to, shortened, emptied
** or made long, and new nodes added; every node of the result read back
** as readers do (index, first object, continuation blocks) and compared,
** with the checksums, the size of the delta, chains of deltas, and an
** index that points a node elsewhere refused as corrupt. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "block.h"
#include "blockfile.h"
#include "graph_delta.h"
#include "index.h"
#include "segmap.h"
#include "util.h"

#define BS        4096u
#define NODES     8000u
#define HUB       1234u       /* 3000 entries */
#define HUB2      5000u       /* 5000 entries, then HUB2 + 1 with 1500 */
#define EXTRA     37u         /* new nodes some rewrites add */
#define TOKEN     0x6d00000000000001ull
#define SEG_TOKEN 0x6d10000000000000ull
#define MAP_TOKEN 0x6d20000000000000ull

/* One list of the reference; nb, ei and tm always held, compared as the
** file's flags say. */
typedef struct list {
    uint32_t n;
    uint32_t *nb, *ei;
    int64_t *tm;
} list;

/* A reference graph; own[v]: l[v]'s arrays are this graph's to free. */
typedef struct graph {
    uint64_t nodes;
    list *l;
    uint8_t *own;
} graph;

typedef struct fx {
    char *dir;
    uint32_t flags, cap;
    graph g;                          /* the old file's lists */
    blk_file *f;                      /* the old file, g.blk */
    blk_writer *w;
    uint64_t *idx_first, *idx_block;
    size_t nidx;
    uint32_t *sums;
    size_t nsums;
    uint64_t *sb, *eb;                /* block where each list starts, ends */
    uint64_t *bfirst;                 /* each block's first node, count */
    uint32_t *bcount, *bflags;
    uint64_t seq;                     /* names and tokens of each rewrite */
} fx;

static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static list list_alloc(uint32_t n)
{
    size_t m = n ? n : 1;
    list l = {n, malloc(m * 4), malloc(m * 4), malloc(m * 8)};
    assert_true(l.nb && l.ei && l.tm);
    return l;
}

/* Entries [from, to) of l at random, times going on ascending. */
static void fill(list *l, uint32_t from, uint32_t to, uint64_t *s)
{
    int64_t t = from ? l->tm[from - 1] : -(INT64_C(1) << 40);
    for (uint32_t j = from; j < to; j++) {
        uint64_t r = rnd(s);
        l->nb[j] = (uint32_t)(r % NODES);
        l->ei[j] = (uint32_t)(r >> 32);
        l->tm[j] = (t += (int64_t)(r >> 60));
    }
}

static void graph_init(graph *g, uint64_t nodes)
{
    g->nodes = nodes;
    g->l = calloc(nodes, sizeof *g->l);
    g->own = calloc(nodes, 1);
    assert_true(g->l && g->own);
}

static void graph_free(graph *g)
{
    for (uint64_t v = 0; g->l && v < g->nodes; v++)
        if (g->own[v]) {
            free(g->l[v].nb);
            free(g->l[v].ei);
            free(g->l[v].tm);
        }
    free(g->l);
    free(g->own);
    memset(g, 0, sizeof *g);
}

static uint32_t old_degree(uint64_t v, uint64_t r)
{
    if (v == HUB) return 3000;
    if (v == HUB2) return 5000;
    if (v == HUB2 + 1) return 1500;
    if (v == NODES - 1) return 2500;
    if ((v >= 6000 && v < 6030) || r % 10 == 0) return 0;
    return (uint32_t)(r % 50);
}

/* ---- the old file -------------------------------------------------------- */

static int on_block(void *arg, const void *block, uint64_t no, uint32_t sum,
                    gnn_err *e)
{
    fx *x = arg;
    x->sums = realloc(x->sums, (no + 1) * sizeof *x->sums);
    assert_non_null(x->sums);
    x->sums[no] = sum;
    x->nsums = no + 1;
    return blkw_append(x->w, block, e);
}

static int on_index(void *arg, uint64_t first, uint64_t no, gnn_err *e)
{
    fx *x = arg;
    x->idx_first = realloc(x->idx_first, (x->nidx + 1) * 8);
    x->idx_block = realloc(x->idx_block, (x->nidx + 1) * 8);
    assert_true(x->idx_first && x->idx_block);
    x->idx_first[x->nidx] = first;
    x->idx_block[x->nidx++] = no;
    return GNNDB_OK;
}

static int pack_add(blk_graph_packer *pk, uint32_t flags, uint64_t v,
                    const list *l, gnn_err *e)
{
    if (flags & BLK_FLAG_TIMES)
        return blk_graph_packer_add_times(pk, v, l->nb, l->ei, l->tm, l->n, e);
    if (flags & BLK_FLAG_EIDS)
        return blk_graph_packer_add_eids(pk, v, l->nb, l->ei, l->n, e);
    return blk_graph_packer_add(pk, v, l->nb, l->n, e);
}

static void write_old(fx *x)
{
    gnn_err e;
    blk_graph_packer *pk;
    int rc = x->flags & BLK_FLAG_TIMES
        ? blk_graph_packer_new_times(BS, TOKEN, on_block, on_index, x, &pk, &e)
        : x->flags & BLK_FLAG_EIDS
        ? blk_graph_packer_new_eids(BS, TOKEN, on_block, on_index, x, &pk, &e)
        : blk_graph_packer_new(BS, TOKEN, on_block, on_index, x, &pk, &e);
    assert_int_equal(rc, GNNDB_OK);
    assert_int_equal(blkw_create(x->dir, "g.blk", BS, &x->w, &e), GNNDB_OK);
    for (uint64_t v = 0; v < NODES; v++)
        assert_int_equal(pack_add(pk, x->flags, v, &x->g.l[v], &e), 0);
    assert_int_equal(blk_graph_packer_finish(pk, NULL, &e), GNNDB_OK);
    blk_graph_packer_free(pk);
    assert_int_equal(blkw_finish(x->w, &e), GNNDB_OK);
    char path[1024];
    snprintf(path, sizeof path, "%s/g.blk", x->dir);
    assert_int_equal(blkf_open(path, BS, BLK_KIND_GRAPH, TOKEN, x->nsums,
                               &x->f, &e), GNNDB_OK);
}

/* Where each list of the old file starts and ends, and each block's
** first node, count and flags: to pick the changed nodes. */
static void scan_old(fx *x)
{
    gnn_err e;
    uint64_t nb = x->nsums;
    uint8_t *buf = gnn_alloc_aligned(BS);
    x->sb = calloc(NODES, 8);
    x->eb = calloc(NODES, 8);
    x->bfirst = calloc(nb, 8);
    x->bcount = calloc(nb, 4);
    x->bflags = calloc(nb, 4);
    for (uint64_t b = 0; b < nb; b++) {
        assert_int_equal(blkf_read(x->f, b, buf, &e), GNNDB_OK);
        const blk_header *h = (const blk_header *)buf;
        x->bfirst[b] = h->first_node;
        x->bcount[b] = h->count;
        x->bflags[b] = h->flags;
        for (uint32_t k = 0; k < h->count; k++) {
            const blk_node *o = blk_graph_object(buf, k);
            if (o->start == 0) x->sb[o->node] = b;
            if (o->start + o->n == o->degree) x->eb[o->node] = b;
        }
    }
    gnn_free_aligned(buf);
}

static int setup_flags(void **state, uint32_t flags)
{
    fx *x = calloc(1, sizeof *x);
    x->dir = tu_tmpdir("test_graph_delta");
    if (!x->dir) return -1;
    x->flags = flags;
    x->cap = blk_graph_cont_capacity_flags(BS, flags);
    graph_init(&x->g, NODES);
    uint64_t s = 42 + flags;
    for (uint64_t v = 0; v < NODES; v++) {
        x->g.l[v] = list_alloc(old_degree(v, rnd(&s)));
        x->g.own[v] = 1;
        fill(&x->g.l[v], 0, x->g.l[v].n, &s);
    }
    write_old(x);
    scan_old(x);
    *state = x;
    return 0;
}

static int setup_plain(void **state) { return setup_flags(state, 0); }
static int setup_eids(void **state)
{
    return setup_flags(state, BLK_FLAG_EIDS);
}
static int setup_times(void **state)
{
    return setup_flags(state, BLK_FLAG_EIDS | BLK_FLAG_TIMES);
}

static int teardown(void **state)
{
    fx *x = *state;
    blkf_close(x->f);
    graph_free(&x->g);
    free(x->idx_first);
    free(x->idx_block);
    free(x->sums);
    free(x->sb);
    free(x->eb);
    free(x->bfirst);
    free(x->bcount);
    free(x->bflags);
    tu_rmrf(x->dir);
    free(x->dir);
    free(x);
    return 0;
}

/* ---- a rewrite ----------------------------------------------------------- */

enum { M_APPEND, M_SHORTEN, M_EMPTY, M_LONG, M_RANDOM };

typedef struct run {
    fx *x;
    const graph *base;                /* the old version's lists */
    graph want;                       /* the new version's */
    const uint32_t *ch;
    size_t nch, calls;
    char seg[32], map[32];
    uint64_t seg_token, map_token;
    gd_result res;
} run;

/* The new list of a changed node whose old one is o. */
static list new_list(const list *o, int mode, uint32_t cap, uint64_t *s)
{
    if (mode == M_RANDOM) {
        uint64_t r = rnd(s);
        mode = r % 97 == 0 ? M_LONG : (int)(r % 3);
    }
    uint32_t keep = mode == M_SHORTEN ? o->n / 2 : mode == M_EMPTY ? 0 : o->n;
    uint32_t n = mode == M_APPEND ? o->n + 1 + (uint32_t)(rnd(s) % 7)
               : mode == M_LONG ? o->n + 2 * cap + 17 : keep;
    list l = list_alloc(n);
    if (keep) {   /* an added node's old list has no arrays */
        memcpy(l.nb, o->nb, (size_t)keep * 4);
        memcpy(l.ei, o->ei, (size_t)keep * 4);
        memcpy(l.tm, o->tm, (size_t)keep * 8);
    }
    fill(&l, keep, n, s);
    return l;
}

/* r->want from r->base: ch's lists changed by `mode`, `extra` empty new
** nodes. With `take` the unchanged lists become want's to free. */
static void make_want(run *r, const uint32_t *ch, size_t nch, int mode,
                      uint64_t extra, int take, uint64_t seed)
{
    graph *b = (graph *)r->base;
    graph_init(&r->want, b->nodes + extra);
    memcpy(r->want.l, b->l, b->nodes * sizeof *b->l);
    if (take) {
        memcpy(r->want.own, b->own, b->nodes);
        memset(b->own, 0, b->nodes);
    }
    for (size_t i = 0; i < nch; i++) {
        if (take) b->own[ch[i]] = r->want.own[ch[i]];   /* base's to free */
        r->want.l[ch[i]] = new_list(&b->l[ch[i]], mode, r->x->cap, &seed);
        r->want.own[ch[i]] = 1;
    }
    r->ch = ch;
    r->nch = nch;
}

static int same_list(const fx *x, const list *a, const gd_list *b)
{
    if (a->n != b->n) return 0;
    if (a->n == 0) return 1;
    if (memcmp(a->nb, b->nbrs, (size_t)a->n * 4)) return 0;
    if ((x->flags & BLK_FLAG_EIDS) &&
        (!b->eids || memcmp(a->ei, b->eids, (size_t)a->n * 4)))
        return 0;
    if ((x->flags & BLK_FLAG_TIMES) &&
        (!b->times || memcmp(a->tm, b->times, (size_t)a->n * 8)))
        return 0;
    return 1;
}

/* gd_rewrite's callback: called once per changed node, in order, with
** its old list whole; gives the reference's new one. */
static int on_list(void *arg, uint32_t v, const gd_list *old, gd_list *out,
                   gnn_err *e)
{
    run *r = arg;
    if (r->calls >= r->nch || r->ch[r->calls] != v)
        fail_msg("callback for node %u, call %zu", v, r->calls);
    if (!same_list(r->x, &r->base->l[v], old))
        fail_msg("node %u: the old list handed over is not the old one", v);
    r->calls++;
    const list *w = &r->want.l[v];
    *out = (gd_list){w->nb, w->ei, w->tm, w->n};
    return GNNDB_OK;
}

static void rewrite(run *r, const gd_old *o)
{
    fx *x = r->x;
    gnn_err e;
    x->seq++;
    snprintf(r->seg, sizeof r->seg, "d%llu.blk", (unsigned long long)x->seq);
    snprintf(r->map, sizeof r->map, "r%llu.seg", (unsigned long long)x->seq);
    r->seg_token = SEG_TOKEN + x->seq;
    r->map_token = MAP_TOKEN + x->seq;
    int rc = gd_rewrite(o, r->want.nodes, r->ch, r->nch, on_list, r, x->dir,
                        r->seg, r->seg_token, r->map_token, &r->res, &e);
    if (rc) fail_msg("gd_rewrite: %d %s", rc, e.msg);
    assert_int_equal(r->calls, r->nch);
    assert_int_equal(seg_map_write(x->dir, r->map, &r->res.map, &e), 0);
}

/* ---- reading the result back as readers do ------------------------------- */

typedef struct reader {
    blk_file *f;
    uint8_t *buf;
    uint64_t cur;
} reader;

static const blk_header *rd_block(reader *rd, uint64_t no)
{
    gnn_err e;
    if (rd->cur != no) {
        rd->cur = UINT64_MAX;
        if (blkf_read(rd->f, no, rd->buf, &e))
            fail_msg("block %llu: %s", (unsigned long long)no, e.msg);
        rd->cur = no;
    }
    return (const blk_header *)rd->buf;
}

static void check_part(const fx *x, uint64_t v, const blk_node *o,
                       const list *w)
{
    if (o->node != v || o->degree != w->n || o->n == 0 ||
        o->start + o->n > w->n)
        fail_msg("node %llu: object of node %u, entries [%u, %u) of %u, "
                 "where %u are due", (unsigned long long)v, o->node,
                 o->start, o->start + o->n, o->degree, w->n);
    int bad = memcmp(blk_node_nbrs(o), w->nb + o->start, (size_t)o->n * 4);
    if (x->flags & BLK_FLAG_EIDS)
        bad |= memcmp(blk_node_eids(o), w->ei + o->start, (size_t)o->n * 4);
    for (uint32_t j = 0; (x->flags & BLK_FLAG_TIMES) && j < o->n; j++)
        bad |= blk_node_time(o, j) != w->tm[o->start + j];
    if (bad)
        fail_msg("node %llu: entries [%u, %u) differ", (unsigned long long)v,
                 o->start, o->start + o->n);
}

/* Node v's list: its first object where the index says, then entry i
** (i >= n0) at block b + 1 + (i - n0) / cap, first object. */
static void check_node(const fx *x, reader *rd, const gd_result *res,
                       uint64_t v, const list *w)
{
    uint64_t b = idx_block_of(res->idx_first, res->idx_block, res->nidx, v);
    const blk_node *o = blk_graph_find(rd_block(rd, b), v);
    if (!o || o->start != 0 || o->degree != w->n)
        fail_msg("node %llu: not starting in block %llu where the index "
                 "says (degree %u of %u)", (unsigned long long)v,
                 (unsigned long long)b, o ? o->degree : 0, w->n);
    if (w->n == 0) return;
    check_part(x, v, o, w);
    uint32_t n0 = o->n;
    for (uint32_t i = n0; i < w->n; i += o->n) {
        const blk_header *h = rd_block(rd, b + 1 + (i - n0) / x->cap);
        if (!(h->flags & BLK_FLAG_CONT_FIRST) || h->first_node != v)
            fail_msg("node %llu: entry %u is not in block %llu",
                     (unsigned long long)v, i,
                     (unsigned long long)(b + 1 + (i - n0) / x->cap));
        o = blk_graph_object(h, 0);
        assert_int_equal(o->start, i);
        check_part(x, v, o, w);
    }
}

/* Every logical block verifies and has the result's checksum and the
** file's flags; the index ascends in both columns from node 0. */
static void check_blocks(const fx *x, reader *rd, const gd_result *res)
{
    for (uint64_t b = 0; b < res->map.nblocks; b++) {
        const blk_header *h = rd_block(rd, b);
        assert_int_equal(h->checksum, res->sums[b]);
        assert_int_equal(h->flags & ~BLK_FLAG_CONT_FIRST, x->flags);
    }
    assert_true(res->nidx > 0);
    assert_int_equal(res->idx_first[0], 0);
    for (size_t i = 1; i < res->nidx; i++) {
        assert_true(res->idx_first[i] > res->idx_first[i - 1]);
        assert_true(res->idx_block[i] > res->idx_block[i - 1]);
    }
    assert_true(res->idx_block[res->nidx - 1] < res->map.nblocks);
}

/* Open r's result through its map and compare it with r->want whole. */
static blk_file *verify(run *r)
{
    fx *x = r->x;
    gnn_err e;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", x->dir, r->map);
    reader rd = {NULL, gnn_alloc_aligned(BS), UINT64_MAX};
    if (blkf_open(path, BS, BLK_KIND_GRAPH, r->map_token, r->res.map.nblocks,
                  &rd.f, &e))
        fail_msg("blkf_open %s: %s", path, e.msg);
    check_blocks(x, &rd, &r->res);
    for (uint64_t v = 0; v < r->want.nodes; v++)
        check_node(x, &rd, &r->res, v, &r->want.l[v]);
    gnn_free_aligned(rd.buf);
    return rd.f;
}

static gd_old old_of(const fx *x)
{
    return (gd_old){x->f, NULL, "g.blk", TOKEN, x->idx_first, x->idx_block,
                    x->nidx, x->sums, NODES, x->flags, 0};
}

/* Remove r's files and free it. */
static void run_done(run *r)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", r->x->dir, r->map);
    unlink(path);
    snprintf(path, sizeof path, "%s/%s", r->x->dir, r->seg);
    unlink(path);
    gd_result_free(&r->res);
    graph_free(&r->want);
}

/* One rewrite of the old file: ch changed by mode, extra nodes added. */
static void one_rewrite(fx *x, const uint32_t *ch, size_t nch, int mode,
                        uint64_t extra, uint64_t seed)
{
    run r = {.x = x, .base = &x->g};
    make_want(&r, ch, nch, mode, extra, 0, seed);
    gd_old o = old_of(x);
    rewrite(&r, &o);
    blkf_close(verify(&r));
    run_done(&r);
}

/* ---- picking the changed nodes ------------------------------------------- */

/* A node alone in the middle of a block, past the first third. */
static uint32_t pick_mid(const fx *x)
{
    for (uint64_t b = x->nsums / 3; b < x->nsums; b++) {
        uint64_t v = x->bfirst[b] + x->bcount[b] / 2;
        if (x->bcount[b] >= 5 && x->sb[v] == b && x->eb[v] == b)
            return (uint32_t)v;
    }
    fail_msg("no block with a node in its middle");
    return 0;
}

/* The first node of a block that does not continue a list. */
static uint32_t pick_block_first(const fx *x)
{
    for (uint64_t b = x->nsums / 3; b < x->nsums; b++)
        if (!(x->bflags[b] & BLK_FLAG_CONT_FIRST) && x->bcount[b] > 1 &&
            x->eb[x->bfirst[b]] == b)
            return (uint32_t)x->bfirst[b];
    fail_msg("no block opening with a node of its own");
    return 0;
}

/* The last node of a block, its list whole there (want_cross 0), or
** starting there and ending in the next block (want_cross 1). */
static uint32_t pick_block_last(const fx *x, int want_cross)
{
    for (uint64_t b = x->nsums / 3; b + 1 < x->nsums; b++) {
        uint64_t v = x->bfirst[b] + x->bcount[b] - 1;
        if (x->bcount[b] > 1 && x->sb[v] == b && x->g.l[v].n < x->cap &&
            x->eb[v] == b + (uint64_t)want_cross)
            return (uint32_t)v;
    }
    fail_msg("no block ending as wanted (%d)", want_cross);
    return 0;
}

enum { P_MID, P_BFIRST, P_BLAST, P_CROSS, P_HUB, P_AFTER_HUB, P_BEFORE_HUB,
       P_HUB2, P_AFTER_HUB2, P_ZERO, P_LAST, P_BEFORE_LAST, P_DEG0, NSINGLE };

static uint32_t pick_single(const fx *x, int p)
{
    switch (p) {
    case P_MID: return pick_mid(x);
    case P_BFIRST: return pick_block_first(x);
    case P_BLAST: return pick_block_last(x, 0);
    case P_CROSS: return pick_block_last(x, 1);
    case P_HUB: return HUB;
    case P_AFTER_HUB: return HUB + 1;
    case P_BEFORE_HUB: return HUB - 1;
    case P_HUB2: return HUB2;
    case P_AFTER_HUB2: return HUB2 + 2;
    case P_ZERO: return 0;
    case P_LAST: return NODES - 1;
    case P_BEFORE_LAST: return NODES - 2;
    default: return 6010;
    }
}

/* Changed sets of many nodes: runs, random nodes, every node, none. */
static size_t pick_many(const fx *x, int p, uint32_t *ch, uint64_t *s)
{
    size_t n = 0;
    switch (p) {
    case 0: for (uint32_t v = 3000; v < 3064; v++) ch[n++] = v; break;
    case 1: for (uint32_t v = HUB - 3; v <= HUB + 3; v++) ch[n++] = v; break;
    case 2: for (uint32_t v = HUB2 - 1; v <= HUB2 + 2; v++) ch[n++] = v; break;
    case 3: for (uint32_t v = NODES - 40; v < NODES; v++) ch[n++] = v; break;
    case 4:
        for (uint32_t v = 0; v < NODES; v++)
            if (rnd(s) % 300 == 0) ch[n++] = v;
        break;
    case 5: for (uint32_t v = 0; v < NODES; v++) ch[n++] = v; break;
    case 6:     /* either side of a hub and of a list crossing a block */
        ch[n++] = HUB - 1;
        ch[n++] = HUB + 1;
        ch[n++] = pick_block_last(x, 1) - 1;
        ch[n++] = pick_block_last(x, 1) + 1;
        break;
    case 7: {   /* the nodes of one block, each from the block before */
        uint64_t b = x->sb[pick_mid(x)];
        for (uint64_t v = x->bfirst[b] - 1; v < x->bfirst[b] + x->bcount[b];
             v++)
            ch[n++] = (uint32_t)v;
        break;
    }
    default: break;   /* none */
    }
    return n;
}
#define NMANY 9

/* ---- the tests ----------------------------------------------------------- */

static void test_single_nodes_in_every_position(void **state)
{
    fx *x = *state;
    for (int p = 0; p < NSINGLE; p++) {
        uint32_t v = pick_single(x, p);
        for (int mode = M_APPEND; mode <= M_LONG; mode++)
            for (uint64_t extra = mode == M_EMPTY ? EXTRA : 0;
                 extra <= (mode == M_SHORTEN ? 0 : EXTRA); extra += EXTRA) {
                print_message("# flags %u: node %u, mode %d, %llu new\n",
                              x->flags, v, mode, (unsigned long long)extra);
                one_rewrite(x, &v, 1, mode, extra, 1000 * p + mode);
            }
    }
}

static void test_many_nodes_and_new_ones(void **state)
{
    fx *x = *state;
    uint32_t *ch = malloc(NODES * sizeof *ch);
    uint64_t s = 7;
    for (int p = 0; p < NMANY; p++)
        for (uint64_t extra = 0; extra <= EXTRA; extra += EXTRA) {
            size_t n = pick_many(x, p, ch, &s);
            print_message("# flags %u: set %d (%zu nodes), %llu new\n",
                          x->flags, p, n, (unsigned long long)extra);
            one_rewrite(x, ch, n, M_RANDOM, extra, 77 + p);
        }
    free(ch);
}

/* One node of a 200-block file changed: a few blocks written, the map
** the old file's runs either side of them. */
static void test_one_node_rewrites_few_blocks(void **state)
{
    fx *x = *state;
    assert_true(x->nsums >= 200);
    uint32_t v = pick_mid(x);
    run r = {.x = x, .base = &x->g};
    make_want(&r, &v, 1, M_APPEND, 0, 0, 5);
    gd_old o = old_of(x);
    rewrite(&r, &o);
    assert_true(r.res.seg_blocks >= 1 && r.res.seg_blocks <= 3);
    assert_int_equal(r.res.map.nsegs, 2);
    assert_int_equal(r.res.map.nruns, 3);
    assert_true(r.res.map.nblocks - x->nsums <= 1);
    blkf_close(verify(&r));
    run_done(&r);
}

/* Deltas on deltas: each version the old one of the next, its map, index
** and checksums those the last rewrite gave. */
static void test_chain_of_deltas(void **state)
{
    fx *x = *state;
    run r[5] = {{0}};
    blk_file *f[5] = {0};
    uint32_t ch[5][NODES / 100 + 4];
    uint64_t s = 99;
    for (int k = 0; k < 5; k++) {
        const graph *base = k ? &r[k - 1].want : &x->g;
        size_t n = 0;
        for (uint32_t v = 0; v < base->nodes; v++)
            if (rnd(&s) % 200 == 0 || (k == 2 && v == HUB) ||
                (k == 3 && v + 1 == base->nodes))
                if (n < NODES / 100 + 4) ch[k][n++] = v;
        r[k] = (run){.x = x, .base = base};
        make_want(&r[k], ch[k], n, M_RANDOM, k % 2 ? 0 : 5, k > 0, 300 + k);
        gd_old o = old_of(x);
        if (k)
            o = (gd_old){f[k - 1], &r[k - 1].res.map, NULL, r[k - 1].map_token,
                         r[k - 1].res.idx_first, r[k - 1].res.idx_block,
                         r[k - 1].res.nidx, r[k - 1].res.sums, base->nodes,
                         x->flags, 0};
        rewrite(&r[k], &o);
        f[k] = verify(&r[k]);
    }
    for (int k = 0; k < 5; k++) {
        blkf_close(f[k]);
        gd_result_free(&r[k].res);
        graph_free(&r[k].want);
    }
}

/* An index sending a changed node to the wrong block: GNNDB_CORRUPT, and
** no segment left behind. */
static void expect_corrupt(fx *x, uint32_t v, uint64_t wrong)
{
    uint64_t *blocks = malloc(x->nidx * 8);
    memcpy(blocks, x->idx_block, x->nidx * 8);
    blocks[idx_last_le(x->idx_first, x->nidx, v)] = wrong;
    run r = {.x = x, .base = &x->g};
    make_want(&r, &v, 1, M_APPEND, 0, 0, 3);
    gd_old o = old_of(x);
    o.idx_block = blocks;
    gnn_err e;
    int rc = gd_rewrite(&o, NODES, &v, 1, on_list, &r, x->dir, "bad.blk",
                        SEG_TOKEN, MAP_TOKEN, &r.res, &e);
    print_message("# node %u at block %llu: %s\n", v,
                  (unsigned long long)wrong, e.msg);
    assert_int_equal(rc, GNNDB_CORRUPT);
    char path[1024];
    snprintf(path, sizeof path, "%s/bad.blk", x->dir);
    assert_int_equal(access(path, F_OK), -1);
    graph_free(&r.want);
    free(blocks);
}

static void test_index_pointing_elsewhere_is_corrupt(void **state)
{
    fx *x = *state;
    uint32_t v = pick_mid(x);
    expect_corrupt(x, v, x->sb[v] - 1);
    expect_corrupt(x, v, x->sb[v] + 1);
    expect_corrupt(x, v, x->nsums + 5);
    expect_corrupt(x, HUB, x->sb[HUB] + 1);   /* its own continuation */
    expect_corrupt(x, NODES - 1, x->sb[NODES - 1] + 1);
}

int main(void)
{
#define T(fn, s) cmocka_unit_test_setup_teardown(fn, setup_##s, teardown)
    const struct CMUnitTest tests[] = {
        T(test_single_nodes_in_every_position, plain),
        T(test_single_nodes_in_every_position, eids),
        T(test_single_nodes_in_every_position, times),
        T(test_many_nodes_and_new_ones, plain),
        T(test_many_nodes_and_new_ones, eids),
        T(test_many_nodes_and_new_ones, times),
        T(test_one_node_rewrites_few_blocks, plain),
        T(test_chain_of_deltas, plain),
        T(test_chain_of_deltas, times),
        T(test_index_pointing_elsewhere_is_corrupt, plain),
        T(test_index_pointing_elsewhere_is_corrupt, eids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
