/* scan.c — SCAN t [ON g] SEEDS ... BATCH n [SHUFFLE] [CHUNK c]: the rows of
** a feature table as mini-batches without neighbours, the input of an MLP
** trained on pre-propagated features (PP-GNN, SGC).
**
** The seeds, sorted by internal id (the row order on disk), are cut into
** chunks of c consecutive seeds; with SHUFFLE the order of the chunks is a
** Fisher-Yates shuffle per epoch drawn from the counter-based generator,
** and batches are cut from that order. Contiguous chunks keep the rows of
** a batch in few blocks (the chunk reshuffling of the PP-GNN paper); c = 1
** is a plain shuffle of the seeds. Rows are read through the buffer pool
** and the I/O backend, each block of a batch once, as gather does. */
#include "scan.h"
#include "block.h"
#include "blockfile.h"
#include "bufpool.h"
#include "exec.h"
#include "io.h"
#include "seeds.h"
#include "plan.h"
#include "memory.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct scan_item {   /* one row of the batch */
    uint32_t row;
    uint32_t pos;            /* its place in the batch */
} scan_item;

struct scan_exec {
    gnndb *db;
    cat_graph g;
    cat_table t, labels;
    int has_labels;
    int64_t batch, chunk, epochs, limit;
    int shuffle;
    uint64_t seed;
    int seed_drawn;

    seed_set seeds;          /* and each epoch's order of chunks */
    int64_t bpe, total, next;

    size_t frames;           /* the pool's, of `frame` bytes */
    uint32_t frame;
    int64_t rows;            /* the most rows a batch holds */
    io_backend *io;
    bp_pool *pool;
    blk_file *ff, *lf;

    scan_item *items;        /* the batch's rows, sorted by row */
    size_t nitems;
    uint64_t *blocks;
    int64_t *n_id;
    uint64_t *ids;
    float *x;
    int64_t *y;
    int64_t nsn[1];
    int64_t empty[2];
    int labels_pass;         /* the visit copies labels, not rows */
    uint64_t bytes_out;
    gnndb_batch_view view;
};

static int cmp_item(const void *a, const void *b)
{
    const scan_item *x = a, *y = b;
    return (x->row > y->row) - (x->row < y->row);
}

/* The table: on the graph named, else on the only graph that has one of
** that name. */
static int find_table(scan_exec *x, const ast_stmt *s, gnn_err *e)
{
    cat_db *c = x->db->cat;
    gnn_err e2 = {0};
    if (s->graph) {
        if (cat_graph_get(c, s->graph, &x->g, e)) return e->rc;
        if (cat_table_get(c, x->g.id, s->name, &x->t, &e2) ||
            x->t.kind != CAT_TABLE_FEATURES) {
            if (e2.rc && e2.rc != GNNDB_NOTFOUND)
                return gnn_seterr(e, e2.rc, "%s", e2.msg);
            return gnn_seterr(e, GNNDB_NOTFOUND, "SCAN: no such feature "
                              "table: %s in graph %s", s->name, s->graph);
        }
        return GNNDB_OK;
    }
    cat_graph *gs = NULL;
    size_t ng = 0, found = 0;
    if (cat_graph_list(c, &gs, &ng, e)) return e->rc;
    for (size_t i = 0; i < ng; i++) {
        cat_table t;
        memset(&e2, 0, sizeof e2);
        if (cat_table_get(c, gs[i].id, s->name, &t, &e2) == GNNDB_OK &&
            t.kind == CAT_TABLE_FEATURES) {
            if (found++ == 0) {
                x->g = gs[i];
                x->t = t;
            }
        } else if (e2.rc != GNNDB_NOTFOUND) {
            free(gs);
            return gnn_seterr(e, e2.rc, "%s", e2.msg);
        }
    }
    free(gs);
    if (found == 0)
        return gnn_seterr(e, GNNDB_NOTFOUND, "SCAN: no such feature table: "
                          "%s", s->name);
    if (found > 1)
        return gnn_seterr(e, GNNDB_RANGE, "SCAN: feature table %s exists in "
                          "%zu graphs; say which with ON graph", s->name,
                          found);
    return GNNDB_OK;
}

/* The split named, when the seeds are one: its catalog row, whose count
** sizes the memory before the members are loaded. */
static int find_split(scan_exec *x, const ast_stmt *s, cat_split *sp,
                      int64_t *nseeds, gnn_err *e)
{
    memset(sp, 0, sizeof *sp);
    if (s->seeds_kind == AST_SEEDS_SPLIT) {
        if (cat_node_split_get(x->db->cat, &x->g, s->seeds_split, "SCAN: ",
                               sp, e))
            return e->rc;
        *nseeds = sp->count;
    } else {
        *nseeds = s->seeds_kind == AST_SEEDS_LIST ? (int64_t)s->n_seed_ids
                                                  : x->g.nodes;
    }
    return GNNDB_OK;
}

/* The seeds (seeds.c) and their epoch order. */
static int load_seeds(scan_exec *x, const ast_stmt *s, const cat_split *sp,
                      gnn_err *e)
{
    int rc = seeds_load(x->db, &x->g, s->seeds_kind, sp->token, s->seed_ids,
                        s->n_seed_ids, "SCAN: ", &x->seeds, e);
    if (rc) return rc;
    return seeds_order_init(&x->seeds, x->chunk, x->shuffle, x->seed, 0xc4a2c,
                            0, x->seeds.n, e);
}

/* What memory_limit leaves for data (memory.c) holds the seeds and their
** order, one batch's rows and at least four frames; the buffer pool grows
** into the rest, up to the whole table (then read once). Sized before the
** seeds are loaded, so that none of it is counted twice. */
static int scan_memory(scan_exec *x, int64_t nseeds, gnn_err *e)
{
    gnndb *db = x->db;
    x->frame = x->t.block_size;
    int64_t nblocks = x->t.nblocks;
    if (x->has_labels) {
        x->frame = GNN_MAX(x->frame, x->labels.block_size);
        nblocks += x->labels.nblocks;
    }
    /* no batch holds more rows than there are seeds */
    x->rows = GNN_MIN(x->batch, GNN_MAX(nseeds, 1));
    int64_t batch_bytes = (x->rows + 1) * ((int64_t)x->t.dim * 4 + 8 * 5);
    int64_t seeds_bytes = (nseeds + 1) * 8 + (nseeds / x->chunk + 1) * 4;
    int64_t fixed = batch_bytes + seeds_bytes;
    char what[CAT_NAME_MAX + 8];
    snprintf(what, sizeof what, "SCAN %s", x->t.name);
    mem_reserve r;
    int threads = db->pragma.io == IO_PREAD ? 4 : 0;
    int rc = db_memory_reserve(db, threads, fixed + 4 * (int64_t)x->frame,
                               what, &r, e);
    if (rc) return rc;
    x->frames = (size_t)GNN_MIN((r.data - fixed) / x->frame,
                                GNN_MAX(4, nblocks));
    return GNNDB_OK;
}

/* The I/O backend, the files and the pool, and one batch's buffers. */
static int open_io(scan_exec *x, gnn_err *e)
{
    gnndb *db = x->db;
    int rc;
    if ((rc = io_open(db->pragma.io, (unsigned)db->pragma.io_depth, &x->io,
                      e)) ||
        (rc = db_open_table(x->db, &x->t, 2, &x->ff, e)) ||
        (x->has_labels && (rc = db_open_table(x->db, &x->labels, 3, &x->lf, e))) ||
        (rc = bp_open(x->frames, x->frame, x->io, &x->pool, e)))
        return rc;
    bp_set_max_coalesce(x->pool, (unsigned)db->pragma.coalesce);
    size_t b = (size_t)x->rows + 1;
    x->items = malloc(b * sizeof *x->items);
    x->blocks = malloc(b * sizeof *x->blocks);
    x->n_id = malloc(b * sizeof *x->n_id);
    x->ids = malloc(b * sizeof *x->ids);
    x->x = malloc(b * x->t.dim * sizeof *x->x);
    x->y = malloc(b * sizeof *x->y);
    if (!x->items || !x->blocks || !x->n_id || !x->ids || !x->x || !x->y)
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    return GNNDB_OK;
}

int scan_open(gnndb *db, const ast_stmt *s, scan_exec **out, gnn_err *e)
{
    *out = NULL;
    scan_exec *x = calloc(1, sizeof *x);
    if (!x) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    x->db = db;
    x->batch = s->batch;
    x->chunk = s->chunk > 0 ? s->chunk : 1;
    x->epochs = s->epochs > 0 ? s->epochs : 1;
    x->limit = s->limit;
    x->shuffle = s->shuffle;
    x->seed = s->has_seed ? s->seed : db_new_token() & 0x7fffffffffffffffull;
    x->seed_drawn = !s->has_seed && s->shuffle; /* reported only when used */
    int rc = find_table(x, s, e);
    if (!rc && x->t.dtype != BLK_DTYPE_F32)
        rc = gnn_seterr(e, GNNDB_RANGE, "SCAN: feature table %s is stored as "
                        "%s; SCAN reads float32 tables only", x->t.name,
                        blk_dtype_name(x->t.dtype));
    if (!rc) {
        gnn_err e2 = {0};
        if (cat_table_get(db->cat, x->g.id, "__labels", &x->labels, &e2) ==
            GNNDB_OK)
            x->has_labels = 1;
        else if (e2.rc != GNNDB_NOTFOUND)
            rc = gnn_seterr(e, e2.rc, "%s", e2.msg);
    }
    cat_split sp;
    int64_t nseeds = 0;
    if (!rc) rc = find_split(x, s, &sp, &nseeds, e);
    if (!rc) rc = scan_memory(x, nseeds, e);
    if (!rc) rc = load_seeds(x, s, &sp, e);
    if (!rc) {
        plan_batch_counts(x->seeds.n, x->batch, x->epochs, x->limit, &x->bpe,
                          &x->total);
        rc = open_io(x, e);
    }
    if (rc) {
        scan_close(x);
        return rc;
    }
    *out = x;
    return GNNDB_OK;
}

static int row_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    scan_exec *x = arg;
    const blk_header *h = data;
    const cat_table *t = x->labels_pass ? &x->labels : &x->t;
    if (x->db->interrupt)
        return gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
    /* the items of this block: a run of the sorted items */
    size_t lo = 0, hi = x->nitems;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (x->items[mid].row < h->first_node) lo = mid + 1; else hi = mid;
    }
    size_t rb = (size_t)t->dim * blk_dtype_size(t->dtype);
    for (size_t k = lo; k < x->nitems; k++) {
        const scan_item *it = &x->items[k];
        if (it->row >= h->first_node + h->count) break;
        const void *src = blk_feature_row(h, (uint32_t)(it->row - h->first_node));
        if (x->labels_pass) memcpy(&x->y[it->pos], src, sizeof(int64_t));
        else memcpy(x->x + (size_t)it->pos * t->dim, src, rb);
        x->bytes_out += rb;
    }
    if (lo == x->nitems || x->items[lo].row >= h->first_node + h->count)
        return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %" PRIu64 " of "
                          "table %s: expected rows missing", no, t->name);
    return GNNDB_OK;
}

/* Read the rows of the batch's items from table t: each block once. */
static int read_table(scan_exec *x, const cat_table *t, blk_file *f,
                      int labels, gnn_err *e)
{
    size_t nb = 0;
    for (size_t k = 0; k < x->nitems; k++) {
        uint64_t b = x->items[k].row / t->rows_per_block;
        if (nb == 0 || x->blocks[nb - 1] != b) x->blocks[nb++] = b;
    }
    x->labels_pass = labels;
    return bp_fetch(x->pool, f, x->blocks, nb, row_visit, x, e);
}

int scan_next(scan_exec *x, const gnndb_batch_view **view, gnn_err *e)
{
    *view = NULL;
    if (x->next >= x->total) return GNNDB_DONE;
    if (x->db->interrupt) return gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
    int64_t epoch = x->next / x->bpe, b = x->next % x->bpe;
    const uint32_t *order = seeds_order(&x->seeds, epoch);
    int64_t lo = b * x->batch, hi = GNN_MIN(lo + x->batch, x->seeds.n);
    size_t n = (size_t)(hi - lo);
    for (size_t q = 0; q < n; q++) {
        x->items[q].row = order[lo + (int64_t)q];
        x->items[q].pos = (uint32_t)q;
        x->ids[q] = order[lo + (int64_t)q];
    }
    x->nitems = n;
    qsort(x->items, n, sizeof *x->items, cmp_item);
    int rc = read_table(x, &x->t, x->ff, 0, e);
    if (!rc && x->has_labels) rc = read_table(x, &x->labels, x->lf, 1, e);
    if (rc) return rc;
    if (x->g.has_map) {
        idx_txn *t;
        if ((rc = idx_begin(x->db->idx, 0, &t, e))) return rc;
        rc = idx_map_array(t, 'I', x->g.token, x->ids, n, x->n_id, e);
        idx_abort(t);
        if (rc) return rc;
    } else {
        for (size_t q = 0; q < n; q++) x->n_id[q] = (int64_t)x->ids[q];
    }
    gnndb_batch_view *v = &x->view;
    memset(v, 0, sizeof *v);
    x->nsn[0] = (int64_t)n;
    v->epoch = epoch;
    v->batch = b;
    v->num_seeds = v->num_nodes = (int64_t)n;
    v->num_edges = 0;
    v->num_hops = 0;
    v->device = GNNDB_DEVICE_HOST;
    v->n_id = x->n_id;
    v->num_sampled_nodes = x->nsn;
    v->num_sampled_edges = x->empty;
    v->edge_index = x->empty;
    v->x = x->x;
    v->x_dim = x->t.dim;
    v->y = x->has_labels ? x->y : NULL;
    x->next++;
    *view = v;
    return GNNDB_BATCH;
}

void scan_digest(scan_exec *x)
{
    x->view.digest = batch_digest(&x->view);
}

void scan_status(const scan_exec *x, int64_t *status)
{
    status[GNNDB_STATUS_SEED] = (int64_t)x->seed;
    status[GNNDB_STATUS_SEED_DRAWN] = x->seed_drawn;
    status[GNNDB_STATUS_BATCHES] = x->next;
    status[GNNDB_STATUS_TOTAL_BATCHES] = x->total;
    if (!x->pool) return;
    const bp_stats *s = bp_get_stats(x->pool);
    status[GNNDB_STATUS_BLOCKS_READ] = (int64_t)s->blocks_read;
    status[GNNDB_STATUS_BYTES_READ] = (int64_t)s->bytes_read;
    status[GNNDB_STATUS_CACHE_HITS] = (int64_t)s->hits;
    status[GNNDB_STATUS_CACHE_MISSES] = (int64_t)s->misses;
    status[GNNDB_STATUS_GATHER_BYTES] = (int64_t)x->bytes_out;
}

void scan_close(scan_exec *x)
{
    if (!x) return;
    if (x->pool) bp_close(x->pool);
    if (x->ff) blkf_close(x->ff);
    if (x->lf) blkf_close(x->lf);
    if (x->io) io_close(x->io);
    seeds_free(&x->seeds);
    free(x->items);
    free(x->blocks);
    free(x->n_id);
    free(x->ids);
    free(x->x);
    free(x->y);
    free(x);
}
