/* edge_table.c — edge ids read back: the edge table (id -> endpoints) a
** block at a time, and the edge-id graph (pair -> id) through its block
** index. The contract is edge_table.h's. */
#include "edge_table.h"
#include "block.h"
#include "blockfile.h"
#include "index.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define OOM(e) gnn_seterr(e, GNNDB_NOMEM, "out of memory")

/* One block file read a block at a time, the last block kept. */
typedef struct one_block {
    blk_file *f;
    uint8_t *buf;
    uint64_t cur;         /* the block in buf, UINT64_MAX: none */
} one_block;

static int ob_init(one_block *b, uint32_t bs, gnn_err *e)
{
    b->cur = UINT64_MAX;
    if (!(b->buf = gnn_alloc_aligned(bs))) return OOM(e);
    return GNNDB_OK;
}

static void ob_free(one_block *b)
{
    blkf_close(b->f);
    gnn_free_aligned(b->buf);
}

static int ob_read(gnndb *db, one_block *b, uint64_t no, gnn_err *e)
{
    if (b->cur == no) return GNNDB_OK;
    if (db->interrupt) return gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
    b->cur = UINT64_MAX;
    int rc = blkf_check_no(b->f, no, e);
    if (!rc) rc = blkf_read(b->f, no, b->buf, e);
    if (!rc) b->cur = no;
    return rc;
}

/* ---- the edge table ---------------------------------------------------- */

typedef struct edges_rd {
    cat_table t;
    one_block b;
} edges_rd;

static int edges_open(gnndb *db, const cat_graph *g, edges_rd *r,
                      gnn_err *e)
{
    memset(r, 0, sizeof *r);
    int rc = cat_graph_need_eids(g, "reading edge ids", e);
    /* the edge table of the version g describes (catalog/versions.c) */
    if (rc || (rc = cat_table_get(db->cat, g->topo_id, CAT_EDGES_TABLE,
                                  &r->t, e)))
        return rc;
    const cat_table *t = &r->t;
    if (t->kind != CAT_TABLE_EDGES || t->dim != 2 ||
        t->dtype != BLK_DTYPE_U32 || t->rows != g->input_edges ||
        t->rows_per_block == 0)
        return gnn_seterr(e, GNNDB_CORRUPT, "catalog.db is damaged: the edge "
                          "table %s of graph %s is not %" PRId64 " rows of "
                          "2 uint32", t->file, g->name, g->input_edges);
    if ((rc = ob_init(&r->b, t->block_size, e))) return rc;
    return db_open_table(db, t, 0, &r->b.f, e);
}

/* The block of row `row`, checked to hold the rows the table's geometry
** puts there. */
static int edges_block(gnndb *db, edges_rd *r, uint64_t row,
                       const uint32_t **rows, gnn_err *e)
{
    uint64_t no = row / r->t.rows_per_block;
    int fresh = r->b.cur != no;
    int rc = ob_read(db, &r->b, no, e);
    if (rc) return rc;
    const blk_header *h = (const blk_header *)r->b.buf;
    uint64_t first = no * r->t.rows_per_block;
    uint64_t want = GNN_MIN((uint64_t)r->t.rows_per_block,
                            (uint64_t)r->t.rows - first);
    if (fresh && (h->first_node != first || h->count != want ||
                  h->dtype != BLK_DTYPE_U32 || h->dim != 2))
        return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %" PRIu64 " of %s: "
                          "holds %u rows from %" PRIu64 ", expected %" PRIu64
                          " from %" PRIu64, no, r->b.f->path, h->count,
                          (uint64_t)h->first_node, want, first);
    *rows = (const uint32_t *)blk_feature_row(r->b.buf, 0);
    return GNNDB_OK;
}

int edt_endpoints(gnndb *db, const cat_graph *g, const uint64_t *eids,
                  size_t n, uint32_t *src, uint32_t *dst, gnn_err *e)
{
    edges_rd r;
    int rc = edges_open(db, g, &r, e);
    for (size_t i = 0; !rc && i < n; i++) {
        if (eids[i] >= (uint64_t)g->input_edges) {
            rc = gnn_seterr(e, GNNDB_RANGE, "edge id %" PRIu64 " is beyond "
                            "the %" PRId64 " input edges of graph %s",
                            eids[i], g->input_edges, g->name);
            break;
        }
        const uint32_t *rows;
        if ((rc = edges_block(db, &r, eids[i], &rows, e))) break;
        uint64_t k = eids[i] % r.t.rows_per_block;
        src[i] = rows[2 * k];
        dst[i] = rows[2 * k + 1];
    }
    ob_free(&r.b);
    return rc;
}

int edt_scan(gnndb *db, const cat_graph *g,
             int (*fn)(void *arg, uint64_t eid, uint32_t src, uint32_t dst),
             void *arg, gnn_err *e)
{
    edges_rd r;
    int rc = edges_open(db, g, &r, e);
    uint64_t rows = (uint64_t)g->input_edges;
    for (uint64_t b0 = 0; !rc && b0 < rows; b0 += r.t.rows_per_block) {
        const uint32_t *rw;
        if ((rc = edges_block(db, &r, b0, &rw, e))) break;
        uint64_t m = GNN_MIN((uint64_t)r.t.rows_per_block, rows - b0);
        for (uint64_t k = 0; !rc && k < m; k++)
            if (rw[2 * k] != UINT32_MAX)
                rc = fn(arg, b0 + k, rw[2 * k], rw[2 * k + 1]);
    }
    ob_free(&r.b);
    return rc;
}

/* ---- the edge-id graph ------------------------------------------------- */

typedef struct eid_rd {
    const cat_graph *g;
    one_block b;
    uint64_t *first, *blk;  /* its block index */
    size_t n_idx;
} eid_rd;

/* The object of `node` in block `no` of the edge-id graph, checked to be
** one (an object of another node, or a block without BLK_FLAG_EIDS, is
** corruption). */
static int eid_object(gnndb *db, eid_rd *r, uint64_t no, uint32_t node,
                      int cont, const blk_node **out, gnn_err *e)
{
    int rc = ob_read(db, &r->b, no, e);
    if (rc) return rc;
    const blk_header *h = (const blk_header *)r->b.buf;
    const blk_node *o = cont ? (h->count ? blk_graph_object(r->b.buf, 0)
                                         : NULL)
                             : blk_graph_find(r->b.buf, node);
    if (!(h->flags & BLK_FLAG_EIDS) || !o || o->node != node)
        return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %" PRIu64 " of %s: "
                          "%s the list of node %u", no, r->b.f->path,
                          h->flags & BLK_FLAG_EIDS ? "does not hold"
                                                   : "is not an edge-id "
                                                     "block; expected",
                          node);
    *out = o;
    return GNNDB_OK;
}

/* The lowest id of s -> d, or UINT64_MAX: d's list sorted by (source,
** id), walked block after block while it may still hold s. */
static int eid_lookup(gnndb *db, eid_rd *r, uint32_t s, uint32_t d,
                      uint64_t *out, gnn_err *e)
{
    *out = UINT64_MAX;
    if ((int64_t)s >= r->g->nodes || (int64_t)d >= r->g->nodes)
        return GNNDB_OK;
    uint64_t no = idx_block_of(r->first, r->blk, r->n_idx, d);
    const blk_node *o = NULL;
    int rc = eid_object(db, r, no, d, 0, &o, e);
    while (!rc) {
        const uint32_t *nb = blk_node_nbrs(o);
        size_t lo = 0, hi = o->n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (nb[mid] < s) lo = mid + 1;
            else hi = mid;
        }
        if (lo < o->n) {
            if (nb[lo] == s) *out = blk_node_eids(o)[lo];
            break;
        }
        if ((uint64_t)o->start + o->n >= o->degree) break;
        rc = eid_object(db, r, ++no, d, 1, &o, e);
    }
    return rc;
}

typedef struct pair_q {
    uint64_t key;         /* dst << 32 | src */
    size_t i;             /* the query's position */
} pair_q;

static int by_key(const void *a, const void *b)
{
    const pair_q *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

int edt_find_pairs(gnndb *db, const cat_graph *g, const uint32_t *src,
                   const uint32_t *dst, size_t n, uint64_t *eids,
                   gnn_err *e)
{
    eid_rd r = {.g = g};
    pair_q *q = NULL;
    int rc = db_load_eid_index(db, g, &r.first, &r.blk, &r.n_idx, e);
    if (!rc) rc = ob_init(&r.b, g->block_size, e);
    if (!rc) rc = db_open_eid_graph(db, g, 0, &r.b.f, e);
    if (!rc && !(q = malloc((n ? n : 1) * sizeof *q))) rc = OOM(e);
    for (size_t i = 0; !rc && i < n; i++)
        q[i] = (pair_q){(uint64_t)dst[i] << 32 | src[i], i};
    if (!rc) qsort(q, n, sizeof *q, by_key);
    for (size_t k = 0; !rc && k < n; k++) {
        if (k && q[k].key == q[k - 1].key) {
            eids[q[k].i] = eids[q[k - 1].i];
            continue;
        }
        rc = eid_lookup(db, &r, (uint32_t)q[k].key, (uint32_t)(q[k].key >> 32),
                        &eids[q[k].i], e);
    }
    free(q);
    free(r.first);
    free(r.blk);
    ob_free(&r.b);
    return rc;
}
