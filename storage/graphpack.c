/* graphpack.c — packing node objects into graph blocks: offsets, objects,
** lists continued across blocks, index entries, sealing; for the plain
** graph, for the edge-id graph (BLK_FLAG_EIDS: each object's edge ids
** after its neighbours) and for the time graph (BLK_FLAG_TIMES as well:
** each entry's time after the edge ids). */
#include "block.h"

#include <stdlib.h>
#include <string.h>

/* Room for an offset entry and an empty object: below this a block takes
** no further object and the next node opens a new block (a node with
** neighbours needs 4 bytes more, for its first one). */
#define OBJ_MIN (sizeof(uint32_t) + sizeof(blk_node))

struct blk_graph_packer {
    uint32_t bs;
    uint64_t token;
    blk_emit_fn emit;
    blk_index_fn index_entry;
    void *arg;
    uint8_t *block;       /* the block being assembled */
    uint8_t *objs;        /* objects of the current block, before layout */
    uint32_t *offs;       /* their offsets within objs */
    uint32_t count;       /* objects in the current block */
    size_t objbytes;
    uint64_t first_node;  /* node of the first object */
    uint32_t flags;
    int has_start;        /* some node starts in the current block */
    uint64_t first_start; /* ... the first one */
    uint64_t block_no;    /* number of the current block */
    uint64_t next_node;   /* the node the next add must give */
    uint32_t base_flags;  /* BLK_FLAG_EIDS for an edge-id graph (and
                          ** BLK_FLAG_TIMES for a time graph), else 0 */
    uint32_t es;          /* bytes of one list entry: 4, 8 or 16 */
};

static int packer_new(uint32_t block_size, uint32_t base_flags,
                      uint64_t token, blk_emit_fn emit,
                      blk_index_fn index_entry, void *arg,
                      blk_graph_packer **out, gnn_err *e)
{
    *out = NULL;
    if (!blk_size_valid(block_size))
        return gnn_seterr(e, GNNDB_RANGE, "invalid block size %u (a power of "
                          "two from 4 KiB to 16 MiB)", block_size);
    blk_graph_packer *p = calloc(1, sizeof *p);
    if (!p) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    p->bs = block_size;
    p->token = token;
    p->emit = emit;
    p->index_entry = index_entry;
    p->arg = arg;
    p->base_flags = base_flags;
    p->flags = base_flags;
    p->es = blk_graph_entry_size(base_flags);
    p->block = gnn_alloc_aligned(block_size);
    p->objs = malloc(block_size);
    p->offs = malloc(block_size / OBJ_MIN * sizeof(uint32_t) + 4);
    if (!p->block || !p->objs || !p->offs) {
        blk_graph_packer_free(p);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    }
    *out = p;
    return GNNDB_OK;
}

int blk_graph_packer_new(uint32_t block_size, uint64_t token, blk_emit_fn emit,
                         blk_index_fn index_entry, void *arg,
                         blk_graph_packer **out, gnn_err *e)
{
    return packer_new(block_size, 0, token, emit, index_entry, arg, out, e);
}

int blk_graph_packer_new_eids(uint32_t block_size, uint64_t token,
                              blk_emit_fn emit, blk_index_fn index_entry,
                              void *arg, blk_graph_packer **out, gnn_err *e)
{
    return packer_new(block_size, BLK_FLAG_EIDS, token, emit, index_entry,
                      arg, out, e);
}

int blk_graph_packer_new_times(uint32_t block_size, uint64_t token,
                               blk_emit_fn emit, blk_index_fn index_entry,
                               void *arg, blk_graph_packer **out, gnn_err *e)
{
    return packer_new(block_size, BLK_FLAG_EIDS | BLK_FLAG_TIMES, token, emit,
                      index_entry, arg, out, e);
}

static size_t space_left(const blk_graph_packer *p)
{
    return p->bs - blk_data_offset(p->bs) - p->count * sizeof(uint32_t) -
           p->objbytes;
}

/* Lay out, seal and hand over the current block, then start an empty one. */
static int flush(blk_graph_packer *p, gnn_err *e)
{
    if (p->count == 0) return GNNDB_OK;
    uint8_t *b = p->block;
    size_t table = blk_data_offset(p->bs) + p->count * sizeof(uint32_t);
    uint32_t *off = (uint32_t *)(b + blk_data_offset(p->bs));
    for (uint32_t k = 0; k < p->count; k++)
        off[k] = (uint32_t)(table + p->offs[k]);
    memcpy(b + table, p->objs, p->objbytes);
    uint32_t used = (uint32_t)(table + p->objbytes);
    blk_seal(b, p->bs, BLK_KIND_GRAPH, p->block_no, p->first_node, p->token,
             p->count, used, p->flags, 0, 0);
    int rc;
    if (p->has_start && p->index_entry) {
        rc = p->index_entry(p->arg, p->first_start, p->block_no, e);
        if (rc) return rc;
    }
    if (p->emit) {
        rc = p->emit(p->arg, b, p->block_no, ((blk_header *)b)->checksum, e);
        if (rc) return rc;
    }
    p->block_no++;
    p->count = 0;
    p->objbytes = 0;
    p->flags = p->base_flags;
    p->has_start = 0;
    return GNNDB_OK;
}

/* Append an object of `node` holding entries [start, start+n) of its
** list, given from nbrs[0] (and eids[0], times[0]) on, to the current
** block, which has room for it. */
static void put_at(blk_graph_packer *p, uint64_t node, const uint32_t *nbrs,
                   const uint32_t *eids, const int64_t *times,
                   uint32_t degree, uint32_t start, uint32_t n)
{
    if (p->count == 0) {
        p->first_node = node;
        if (start != 0) p->flags |= BLK_FLAG_CONT_FIRST;
    }
    if (start == 0 && !p->has_start) {
        p->has_start = 1;
        p->first_start = node;
    }
    blk_node o = {(uint32_t)node, degree, start, n};
    p->offs[p->count++] = (uint32_t)p->objbytes;
    memcpy(p->objs + p->objbytes, &o, sizeof o);
    uint8_t *at = p->objs + p->objbytes + sizeof o;
    if (n) memcpy(at, nbrs, (size_t)n * sizeof(uint32_t));
    if (n && eids)
        memcpy(at + (size_t)n * sizeof(uint32_t), eids,
               (size_t)n * sizeof(uint32_t));
    if (n && times)
        memcpy(at + (size_t)n * 2 * sizeof(uint32_t), times,
               (size_t)n * sizeof(int64_t));
    p->objbytes += sizeof o + (size_t)n * p->es;
}

/* put_at for entries [start, start+n) of whole arrays. */
static void put(blk_graph_packer *p, uint64_t node, const uint32_t *nbrs,
                const uint32_t *eids, const int64_t *times, uint32_t degree,
                uint32_t start, uint32_t n)
{
    put_at(p, node, nbrs + start, eids ? eids + start : NULL,
           times ? times + start : NULL, degree, start, n);
}

static int add(blk_graph_packer *p, uint64_t node, const uint32_t *nbrs,
               const uint32_t *eids, const int64_t *times, uint32_t degree,
               gnn_err *e)
{
    if (node != p->next_node)
        return gnn_seterr(e, GNNDB_INTERNAL, "graph packer: node %llu added "
                          "where node %llu was due",
                          (unsigned long long)node,
                          (unsigned long long)p->next_node);
    if (node > UINT32_MAX)
        return gnn_seterr(e, GNNDB_RANGE, "node id %llu does not fit in 32 "
                          "bits", (unsigned long long)node);
    int rc;
    /* A node with neighbours needs room for at least one of them where it
    ** starts: an empty first part would give its continuation start 0 too. */
    size_t need = OBJ_MIN + (degree ? p->es : 0);
    if (space_left(p) < need && (rc = flush(p, e)) != 0) return rc;
    /* The first part goes where the block has room; the rest fills whole
    ** continuation blocks, the last of which takes the following nodes. */
    uint32_t n0 = (uint32_t)GNN_MIN((uint64_t)degree,
                                    (space_left(p) - OBJ_MIN) / p->es);
    put(p, node, nbrs, eids, times, degree, 0, n0);
    uint32_t at = n0;
    uint32_t cap = blk_graph_cont_capacity_flags(p->bs, p->base_flags);
    while (at < degree) {
        if ((rc = flush(p, e)) != 0) return rc;
        uint32_t n = GNN_MIN(degree - at, cap);
        put(p, node, nbrs, eids, times, degree, at, n);
        at += n;
    }
    p->next_node = node + 1;
    return GNNDB_OK;
}

int blk_graph_packer_add(blk_graph_packer *p, uint64_t node,
                         const uint32_t *nbrs, uint32_t degree, gnn_err *e)
{
    if (p->base_flags & BLK_FLAG_EIDS)
        return gnn_seterr(e, GNNDB_INTERNAL, "graph packer: node %llu added "
                          "without edge ids to an edge-id graph",
                          (unsigned long long)node);
    return add(p, node, nbrs, NULL, NULL, degree, e);
}

int blk_graph_packer_add_eids(blk_graph_packer *p, uint64_t node,
                              const uint32_t *nbrs, const uint32_t *eids,
                              uint32_t degree, gnn_err *e)
{
    if (p->base_flags != BLK_FLAG_EIDS)
        return gnn_seterr(e, GNNDB_INTERNAL, "graph packer: edge ids alone "
                          "added to a graph of flags %u (node %llu)",
                          p->base_flags, (unsigned long long)node);
    return add(p, node, nbrs, eids, NULL, degree, e);
}

int blk_graph_packer_add_times(blk_graph_packer *p, uint64_t node,
                               const uint32_t *nbrs, const uint32_t *eids,
                               const int64_t *times, uint32_t degree,
                               gnn_err *e)
{
    if (!(p->base_flags & BLK_FLAG_TIMES))
        return gnn_seterr(e, GNNDB_INTERNAL, "graph packer: times added to "
                          "a graph without them (node %llu)",
                          (unsigned long long)node);
    return add(p, node, nbrs, eids, times, degree, e);
}

int blk_graph_packer_add_part(blk_graph_packer *p, uint64_t node,
                              const blk_node *o, gnn_err *e)
{
    uint32_t fl = p->base_flags;
    if (node != p->next_node || o->n == 0 || o->start + o->n > o->degree ||
        (o->start == 0 && o->n == o->degree) ||
        (o->start != 0 && p->count != 0))
        return gnn_seterr(e, GNNDB_INTERNAL, "graph packer: part [%u, %u) "
                          "of node %llu's %u entries where node %llu was due",
                          o->start, o->start + o->n, (unsigned long long)node,
                          o->degree, (unsigned long long)p->next_node);
    int rc;
    if (space_left(p) < OBJ_MIN + (size_t)o->n * p->es &&
        (rc = flush(p, e)) != 0)
        return rc;
    const int64_t *t = NULL;
    int64_t *tb = NULL;
    if (fl & BLK_FLAG_TIMES) {
        /* a time may lie at a 4-byte boundary: copied out aligned */
        if (!(tb = malloc((size_t)o->n * sizeof *tb)))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        for (uint32_t j = 0; j < o->n; j++) tb[j] = blk_node_time(o, j);
        t = tb;
    }
    put_at(p, node, blk_node_nbrs(o), fl & BLK_FLAG_EIDS ? blk_node_eids(o)
           : NULL, t, o->degree, o->start, o->n);
    free(tb);
    p->next_node = node + 1;
    return GNNDB_OK;
}

int blk_graph_packer_finish(blk_graph_packer *p, uint64_t *nblocks,
                            gnn_err *e)
{
    int rc = flush(p, e);
    if (rc) return rc;
    if (nblocks) *nblocks = p->block_no;
    return GNNDB_OK;
}

void blk_graph_packer_start(blk_graph_packer *p, uint64_t node,
                            uint64_t block_no)
{
    p->next_node = node;
    p->block_no = block_no;
}

void blk_graph_packer_free(blk_graph_packer *p)
{
    if (!p) return;
    gnn_free_aligned(p->block);
    free(p->objs);
    free(p->offs);
    free(p);
}
