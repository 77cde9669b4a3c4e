/* graph_delta.c — an append's new version of a graph file as a delta
** (graph_delta.h): ranges found and read, their lists changed and packed
** into the new segment, then the map, index and checksums of the new
** version laid out in logical order. */
#include "graph_delta.h"
#include "block.h"
#include "grow.h"
#include "index.h"
#include "sort.h"

#include <stdlib.h>
#include <string.h>

/* One rewritten range: old logical blocks [b0, b1) holding nodes
** [lo, hi), packed into blocks [p0, p0 + np) of the new segment, whose
** index entries are pidx[i0, i0 + ni). */
typedef struct gd_range {
    uint64_t b0, b1, lo, hi, p0, np;
    size_t i0, ni;
} gd_range;

typedef struct gd_ctx {
    const gd_old *old;
    gnn_err *e;
    blk_writer *w;
    blk_graph_packer *pk;
    int grows;                      /* nodes are added after the old ones */
    uint64_t nseg;                  /* blocks written to the new segment */
    uint32_t *psums;                /* their checksums */
    size_t cap_psums;
    uint64_t *pfirst, *pblock;      /* their index entries */
    size_t npidx, cap_pidx, cap_pidx2;
    gd_range *rg;
    size_t nrg, cap_rg;
    uint8_t *buf;                   /* the block being read */
    uint32_t *nb, *ei;              /* the list being put together */
    int64_t *tm;
    size_t cap_list, cap_list2, cap_list3;
} gd_ctx;

static int nomem(gnn_err *e)
{
    return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
}

static int corrupt(const gd_old *o, uint64_t no, const char *what,
                   gnn_err *e)
{
    return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %llu of %s: %s",
                      (unsigned long long)no, o->f->path, what);
}

static int on_block(void *arg, const void *block, uint64_t no, uint32_t sum,
                    gnn_err *e)
{
    gd_ctx *c = arg;
    if (gnn_grow((void **)&c->psums, &c->cap_psums, (size_t)no + 1,
                 sizeof *c->psums))
        return nomem(e);
    c->psums[no] = sum;
    c->nseg = no + 1;
    return blkw_append(c->w, block, e);
}

static int on_index(void *arg, uint64_t first, uint64_t no, gnn_err *e)
{
    gd_ctx *c = arg;
    if (gnn_grow((void **)&c->pfirst, &c->cap_pidx, c->npidx + 1,
                 sizeof *c->pfirst) ||
        gnn_grow((void **)&c->pblock, &c->cap_pidx2, c->npidx + 1,
                 sizeof *c->pblock))
        return nomem(e);
    c->pfirst[c->npidx] = first;
    c->pblock[c->npidx++] = no;
    return GNNDB_OK;
}

/* Read and verify old logical block `no` into the one block buffer. */
static int read_block(gd_ctx *c, uint64_t no, const blk_header **h)
{
    if (!c->buf && !(c->buf = gnn_alloc_aligned(c->old->f->block_size)))
        return nomem(c->e);
    *h = (const blk_header *)c->buf;
    return blkf_read(c->old->f, no, c->buf, c->e);
}

static int is_changed(const uint32_t *ch, size_t nch, uint32_t v)
{
    size_t at = gnn_lower_u32(ch, nch, v);
    return at < nch && ch[at] == v;
}

/* Extend r->b1 past the blocks that continue the last list of block
** r->b1 - 1, unless that list is unchanged and only starts there: then
** it stays as it is. Sets r->hi. */
static int range_end(gd_ctx *c, gd_range *r, const uint32_t *ch, size_t nch)
{
    const gd_old *o = c->old;
    const blk_header *h;
    for (;; r->b1++) {
        int rc = read_block(c, r->b1 - 1, &h);
        if (rc) return rc;
        if (h->count == 0)
            return corrupt(o, r->b1 - 1, "it holds no object", c->e);
        const blk_node *last = blk_graph_object(h, h->count - 1);
        r->hi = h->first_node + h->count;
        if (last->start + last->n >= last->degree) return GNNDB_OK;
        if (r->b1 == o->f->nblocks)
            return corrupt(o, r->b1 - 1, "its last list goes on past the "
                           "end of the file", c->e);
        /* the start of an unchanged list stays where it is, but for the
        ** last node's when nodes are added: their range would start in
        ** this one's last block again, so this one goes on to the end */
        if (last->start == 0 && !is_changed(ch, nch, last->node) &&
            !(c->grows && last->node + 1 == o->nodes))
            return GNNDB_OK;
    }
}

/* The range of changed node v: from the block where v's list starts to
** the block where it ends, and on while the last list of the range goes
** on into the next block and is itself changed, or the next changed list
** starts within a block of the end (so that runs of changed blocks are
** packed again as one, with no part-full block between them). A list
** crossing either end unchanged stays as it is: its part inside the
** range is copied (blk_graph_packer_add_part), so that the blocks before
** and after the range keep holding its other parts. */
static int find_range(gd_ctx *c, uint32_t v, const uint32_t *ch, size_t nch,
                      gd_range *r)
{
    const gd_old *o = c->old;
    const blk_header *h;
    int rc;
    r->b0 = idx_block_of(o->idx_first, o->idx_block, o->nidx, v);
    if ((rc = read_block(c, r->b0, &h))) return rc;
    r->lo = h->first_node + ((h->flags & BLK_FLAG_CONT_FIRST) ? 1 : 0);
    if (r->lo > v || v >= h->first_node + h->count)
        return corrupt(o, r->b0, "node is not where the index says", c->e);
    r->b1 = r->b0 + 1;
    for (;;) {
        if ((rc = range_end(c, r, ch, nch))) return rc;
        size_t j = r->hi > UINT32_MAX ? nch
                   : gnn_lower_u32(ch, nch, (uint32_t)r->hi);
        if (j == nch) return GNNDB_OK;
        uint64_t b = idx_block_of(o->idx_first, o->idx_block, o->nidx,
                                  ch[j]);
        if (b > r->b1 + 1) return GNNDB_OK;
        r->b1 = b + 1;
    }
}

static int list_room(gd_ctx *c, size_t n)
{
    if (gnn_grow((void **)&c->nb, &c->cap_list, n, sizeof *c->nb) ||
        gnn_grow((void **)&c->ei, &c->cap_list2, n, sizeof *c->ei) ||
        gnn_grow((void **)&c->tm, &c->cap_list3, n, sizeof *c->tm))
        return nomem(c->e);
    return GNNDB_OK;
}

/* Pack node v's list, the caller's when v is changed. */
static int put_node(gd_ctx *c, uint32_t v, uint32_t n, int changed,
                    gd_list_fn fn, void *arg)
{
    gd_list l = {c->nb, c->ei, c->tm, n}, nl = l;
    uint32_t fl = c->old->flags;
    int rc;
    if (changed && (rc = fn(arg, v, &l, &nl, c->e))) return rc;
    if (fl & BLK_FLAG_TIMES)
        return blk_graph_packer_add_times(c->pk, v, nl.nbrs, nl.eids,
                                          nl.times, nl.n, c->e);
    if (fl & BLK_FLAG_EIDS)
        return blk_graph_packer_add_eids(c->pk, v, nl.nbrs, nl.eids, nl.n,
                                         c->e);
    return blk_graph_packer_add(c->pk, v, nl.nbrs, nl.n, c->e);
}

/* Take object o (of block `no`) into the list being put together. */
static int take_object(gd_ctx *c, const blk_node *o, uint64_t no,
                       uint32_t have)
{
    if (o->start != have || o->n > o->degree - o->start)
        return corrupt(c->old, no, "a list is out of order", c->e);
    int rc = list_room(c, (size_t)have + o->n + 1);
    if (rc) return rc;
    memcpy(c->nb + have, blk_node_nbrs(o), (size_t)o->n * 4);
    if (c->old->flags & BLK_FLAG_EIDS)
        memcpy(c->ei + have, blk_node_eids(o), (size_t)o->n * 4);
    if (c->old->flags & BLK_FLAG_TIMES)
        for (uint32_t j = 0; j < o->n; j++)
            c->tm[have + j] = blk_node_time(o, j);
    return GNNDB_OK;
}

/* One object of range r, in block `no`: a part kept as it is (the tail
** of a list that starts before the range, or the start of an unchanged
** one that goes on after it), or a part of a list that is packed whole
** once its last part is in. */
static int take_part(gd_ctx *c, const gd_range *r, uint64_t no, uint32_t k,
                     const blk_header *h, const uint32_t *ch, size_t nch,
                     size_t *ci, gd_list_fn fn, void *arg, uint32_t *have)
{
    const blk_node *ob = blk_graph_object(h, k);
    uint64_t v = ob->node;
    int first = no == r->b0 && k == 0, last = no == r->b1 - 1 &&
        k + 1 == h->count;
    if (v != h->first_node + k)
        return corrupt(c->old, no, "a node is out of place", c->e);
    if ((first && ob->start > 0) ||
        (last && ob->start == 0 && ob->n < ob->degree))
        return blk_graph_packer_add_part(c->pk, v, ob, c->e);
    if (ob->start == 0 && c->old->max_entries &&
        ob->degree > c->old->max_entries)
        return gnn_seterr(c->e, GNNDB_NOMEM, "the list of node %u (%u "
                          "entries) is too long for the memory given",
                          ob->node, ob->degree);
    int rc = take_object(c, ob, no, *have);
    if (rc) return rc;
    if ((*have += ob->n) < ob->degree) return GNNDB_OK;
    int changed = *ci < nch && ch[*ci] == v;
    if ((rc = put_node(c, (uint32_t)v, *have, changed, fn, arg))) return rc;
    *ci += (size_t)changed;
    *have = 0;
    return GNNDB_OK;
}

/* Read range r, hand its lists over in node order, pack them (and, at the
** end of the file, the new nodes' empty lists up to `nodes`). */
static int pack_range(gd_ctx *c, gd_range *r, uint64_t nodes,
                      const uint32_t *ch, size_t nch, size_t *ci,
                      gd_list_fn fn, void *arg)
{
    const gd_old *o = c->old;
    const blk_header *h;
    int rc;
    r->p0 = c->nseg;
    r->i0 = c->npidx;
    uint32_t have = 0;
    for (uint64_t b = r->b0; b < r->b1; b++) {
        if ((rc = read_block(c, b, &h))) return rc;
        if (b == r->b0)
            blk_graph_packer_start(c->pk, h->first_node, c->nseg);
        for (uint32_t k = 0; k < h->count; k++)
            if ((rc = take_part(c, r, b, k, h, ch, nch, ci, fn, arg, &have)))
                return rc;
    }
    if (have)
        return corrupt(o, r->b1 - 1, "a range ends inside a list", c->e);
    for (uint64_t v = r->hi; r->b1 == o->f->nblocks && v < nodes; v++)
        if ((rc = put_node(c, (uint32_t)v, 0, 0, fn, arg))) return rc;
    if ((rc = blk_graph_packer_finish(c->pk, NULL, c->e))) return rc;
    r->np = c->nseg - r->p0;
    r->ni = c->npidx - r->i0;
    return GNNDB_OK;
}

/* Every range, in order: those of the changed nodes, and the last one
** when nodes are added. */
static int pack_ranges(gd_ctx *c, uint64_t nodes, const uint32_t *ch,
                       size_t nch, gd_list_fn fn, void *arg)
{
    const gd_old *o = c->old;
    size_t ci = 0;
    int tail = c->grows = nodes > o->nodes;
    while (ci < nch || tail) {
        uint32_t v = ci < nch ? ch[ci] : (uint32_t)(o->nodes - 1);
        if (gnn_grow((void **)&c->rg, &c->cap_rg, c->nrg + 1, sizeof *c->rg))
            return nomem(c->e);
        gd_range *r = &c->rg[c->nrg];
        int rc = find_range(c, v, ch, nch, r);
        if (!rc) rc = pack_range(c, r, nodes, ch, nch, &ci, fn, arg);
        if (rc) return rc;
        c->nrg++;
        if (r->b1 == o->f->nblocks) tail = 0;
        if (ci < nch && ch[ci] < r->hi)
            return gnn_seterr(c->e, GNNDB_INTERNAL, "graph delta: node %u "
                              "changed twice or out of order", ch[ci]);
    }
    return GNNDB_OK;
}

/* ---- the new version's map, index and checksums ------------------------ */

typedef struct gd_lay {
    gd_result *out;
    uint64_t nlog;                  /* logical blocks laid so far */
    size_t cap_sums, cap_i1, cap_i2;
    uint32_t newseg;
    gnn_err *e;
} gd_lay;

static int lay_index(gd_lay *l, uint64_t first, uint64_t logical)
{
    gd_result *r = l->out;
    if (gnn_grow((void **)&r->idx_first, &l->cap_i1, r->nidx + 1,
                 sizeof *r->idx_first) ||
        gnn_grow((void **)&r->idx_block, &l->cap_i2, r->nidx + 1,
                 sizeof *r->idx_block))
        return nomem(l->e);
    r->idx_first[r->nidx] = first;
    r->idx_block[r->nidx++] = logical;
    return GNNDB_OK;
}

/* n checksums, next in logical order. */
static int lay_sums(gd_lay *l, const uint32_t *sums, uint64_t n)
{
    gd_result *r = l->out;
    if (n == 0) return GNNDB_OK;   /* a range at the first block */
    if (gnn_grow((void **)&r->sums, &l->cap_sums, (size_t)(l->nlog + n),
                 sizeof *r->sums))
        return nomem(l->e);
    memcpy(r->sums + l->nlog, sums, (size_t)n * sizeof *sums);
    l->nlog += n;
    return GNNDB_OK;
}

/* Old logical blocks [from, to) where they lie, with their index entries
** (the old ones from *ii on) and checksums. */
static int lay_old(gd_lay *l, const gd_old *o, uint64_t from, uint64_t to,
                   size_t *ii)
{
    for (; *ii < o->nidx && o->idx_block[*ii] < to; (*ii)++) {
        int rc = lay_index(l, o->idx_first[*ii],
                           l->nlog + o->idx_block[*ii] - from);
        if (rc) return rc;
    }
    int rc = lay_sums(l, o->sums + from, to - from);
    return rc ? rc : seg_map_add_old(&l->out->map, o->map, from, to, l->e);
}

static int lay_range(gd_lay *l, const gd_ctx *c, const gd_range *r)
{
    for (size_t i = r->i0; i < r->i0 + r->ni; i++) {
        int rc = lay_index(l, c->pfirst[i], l->nlog + c->pblock[i] - r->p0);
        if (rc) return rc;
    }
    int rc = lay_sums(l, c->psums + r->p0, r->np);
    return rc ? rc : seg_map_add_run(&l->out->map, l->newseg, r->p0, r->np,
                                     l->e);
}

/* The segments of the old version's file, then the new one. */
static int lay_segments(gd_lay *l, const gd_old *o, const char *seg_name,
                        uint64_t seg_token, uint64_t nseg)
{
    seg_map *m = &l->out->map;
    int rc = seg_map_add_file(m, o->map, o->name, o->token, o->f->nblocks,
                              l->e);
    if (!rc && nseg)
        rc = seg_map_add_seg(m, seg_name, seg_token, nseg, &l->newseg, l->e);
    return rc;
}

static int lay_out(const gd_ctx *c, const char *seg_name, uint64_t seg_token,
                   uint64_t map_token, gd_result *out, gnn_err *e)
{
    const gd_old *o = c->old;
    gd_lay l = {.out = out, .e = e};
    seg_map_init(&out->map, BLK_KIND_GRAPH, o->f->block_size, map_token);
    int rc = lay_segments(&l, o, seg_name, seg_token, c->nseg);
    uint64_t b = 0;
    size_t ii = 0;
    for (size_t i = 0; !rc && i < c->nrg; i++) {
        const gd_range *r = &c->rg[i];
        if (!(rc = lay_old(&l, o, b, r->b0, &ii)))
            rc = lay_range(&l, c, r);
        while (ii < o->nidx && o->idx_block[ii] < r->b1) ii++;
        b = r->b1;
    }
    if (!rc) rc = lay_old(&l, o, b, o->f->nblocks, &ii);
    if (!rc) rc = seg_map_prune(&out->map, e);
    out->seg_blocks = c->nseg;
    return rc;
}

static void ctx_free(gd_ctx *c)
{
    blk_graph_packer_free(c->pk);
    free(c->psums);
    free(c->pfirst);
    free(c->pblock);
    free(c->rg);
    gnn_free_aligned(c->buf);
    free(c->nb);
    free(c->ei);
    free(c->tm);
}

static int new_packer(gd_ctx *c, uint32_t bs, uint32_t flags,
                      uint64_t token)
{
    if (flags & BLK_FLAG_TIMES)
        return blk_graph_packer_new_times(bs, token, on_block, on_index, c,
                                          &c->pk, c->e);
    if (flags & BLK_FLAG_EIDS)
        return blk_graph_packer_new_eids(bs, token, on_block, on_index, c,
                                         &c->pk, c->e);
    return blk_graph_packer_new(bs, token, on_block, on_index, c, &c->pk,
                                c->e);
}

int gd_rewrite(const gd_old *old, uint64_t nodes, const uint32_t *changed,
               size_t nchanged, gd_list_fn fn, void *arg, const char *dir,
               const char *seg_name, uint64_t seg_token, uint64_t map_token,
               gd_result *out, gnn_err *e)
{
    memset(out, 0, sizeof *out);
    if (old->nodes == 0 || old->f->nblocks == 0)
        return gnn_seterr(e, GNNDB_MISUSE, "graph delta of %s: the graph "
                          "has no nodes to keep", old->f->path);
    gd_ctx c = {.old = old, .e = e};
    int rc = new_packer(&c, old->f->block_size, old->flags, seg_token);
    if (!rc) rc = blkw_create(dir, seg_name, old->f->block_size, &c.w, e);
    if (!rc) rc = pack_ranges(&c, nodes, changed, nchanged, fn, arg);
    if (!rc) rc = lay_out(&c, seg_name, seg_token, map_token, out, e);
    if (c.w) {
        if (rc || c.nseg == 0) blkw_abort(c.w);
        else rc = blkw_finish(c.w, e);
    }
    ctx_free(&c);
    if (rc) gd_result_free(out);
    return rc;
}

void gd_result_free(gd_result *r)
{
    seg_map_free(&r->map);
    free(r->sums);
    free(r->idx_first);
    free(r->idx_block);
    memset(r, 0, sizeof *r);
}
