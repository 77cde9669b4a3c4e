/* gather_rows.c — GATHER t [ON g | ON g.x] ROWS (ids) | ROWS 'ids.npy'
** [BATCH n] [TO DEVICE d]: the rows of one table by index, for inference,
** embedding lookup and PyG's FeatureStore.
**
** Every id is checked before anything is read, so an id out of range
** reads nothing. The ids are then cut into chunks of as many rows as
** memory_limit holds (or BATCH n); a chunk's (row, place) pairs are
** sorted by row, each block that holds one of its rows is read once,
** whole or in pages as PRAGMA read_granularity and the cost model say
** (granularity.c, the gather's machinery), verified by its checksums,
** and every row is copied to its place: the rows come back in the order
** asked, repeats included. When every row fits (the usual case) there is
** one chunk, and each block is read at most once per statement. */
#include "gather_rows.h"
#include "block.h"
#include "blockfile.h"
#include "bufpool.h"
#include "exec_int.h"
#include "gather.h"
#include "granularity.h"
#include "idlist.h"
#include "io.h"
#include "memory.h"
#include "plan.h"
#include "sort.h"
#include "../gpu/xfer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gr_exec {
    gnndb *db;
    cat_graph g;
    cat_table t;
    char what[2 * CAT_NAME_MAX + 16];  /* "GATHER feat", for messages */
    int labels;              /* int64 rows into y, else float32 into x */
    size_t rowbytes;         /* a row as stored */
    int64_t *ids;            /* the ids as asked (the file's, or a copy) */
    uint32_t *rows;          /* their rows in the table */
    size_t n, chunk, next;
    int64_t total;

    io_backend *io;
    bp_pool *pool;
    blk_file *f;
    gran gran;
    cat_profile profile;
    hb_opstats st;

    uint64_t *keys;          /* the chunk's row << 32 | place, sorted */
    size_t nkeys;
    uint64_t *blocks;        /* its blocks, ascending */
    size_t *bstart;          /* keys of blocks[i]: [bstart[i], bstart[i+1]) */
    size_t nblocks;
    int64_t *n_id;
    float *x;
    int64_t *y;
    int64_t nsn[1], empty[2];
    plan dev;
    xfer *xf;
    gnndb_batch_view view, devview;
};

/* ---- which table ---------------------------------------------------------- */

/* Table `name` of graph g, or of its node type or relation `sub`. */
static int table_of(gr_exec *x, const char *name, const char *sub,
                    gnn_err *e)
{
    cat_db *c = x->db->cat;
    if (!sub) return cat_table_get(c, x->g.id, name, &x->t, e);
    gnn_err e2 = {0};
    cat_node_type ty;
    if (cat_type_get(c, x->g.id, sub, &ty, &e2) == GNNDB_OK) {
        char stored[CAT_NAME_MAX];
        if (cat_type_object_name(sub, name, stored, e)) return e->rc;
        return cat_table_get(c, x->g.id, stored, &x->t, e);
    }
    return cat_relation_edge_table(c, x->g.id, sub, name, &x->t, e);
}

/* Without ON: the only graph that has a table of that name. */
static int find_graph(gr_exec *x, const char *name, gnn_err *e)
{
    cat_graph *gs = NULL;
    size_t ng = 0, found = 0;
    if (cat_graph_list(x->db->cat, &gs, &ng, e)) return e->rc;
    for (size_t i = 0; i < ng; i++) {
        gnn_err e2 = {0};
        cat_table t;
        if (cat_table_get(x->db->cat, gs[i].id, name, &t, &e2) == GNNDB_OK &&
            found++ == 0) {
            x->g = gs[i];
            x->t = t;
        }
    }
    free(gs);
    if (found == 1) return GNNDB_OK;
    if (found == 0)
        return gnn_seterr(e, GNNDB_NOTFOUND, "%s: no graph has a table %s",
                          x->what, name);
    return gnn_seterr(e, GNNDB_RANGE, "%s: %zu graphs have a table %s; say "
                      "which with ON graph", x->what, found, name);
}

static int resolve(gr_exec *x, const ast_stmt *s, gnn_err *e)
{
    int rc;
    if (!s->graph) rc = find_graph(x, s->name, e);
    else if ((rc = cat_graph_get(x->db->cat, s->graph, &x->g, e)) == GNNDB_OK)
        rc = table_of(x, s->name, s->node_type, e);
    if (rc) return rc;
    if (x->t.kind == CAT_TABLE_EDGES)
        return gnn_seterr(e, GNNDB_MISUSE, "%s: %s is the edge table of the "
                          "graph, not a table of rows", x->what, x->t.name);
    x->labels = x->t.kind == CAT_TABLE_LABELS;
    if (!x->labels && x->t.dtype != BLK_DTYPE_F32 &&
        x->t.dtype != BLK_DTYPE_F16)
        return gnn_seterr(e, GNNDB_RANGE, "%s: table %s is stored as %s; "
                          "GATHER reads float32, float16 and label tables",
                          x->what, x->t.name, blk_dtype_name(x->t.dtype));
    x->rowbytes = (size_t)x->t.dim * blk_dtype_size(x->t.dtype);
    return GNNDB_OK;
}

/* ---- the ids -------------------------------------------------------------- */

/* A plain graph's node table is indexed by internal id: its user's ids go
** through the key index when it has one (MAP IDS, REORDER). */
static int map_ids(gr_exec *x, gnn_err *e)
{
    idx_txn *t;
    int rc = idx_begin(x->db->idx, 0, &t, e);
    for (size_t i = 0; !rc && i < x->n; i++) {
        uint64_t in;
        rc = idx_get_key(t, x->g.token, x->ids[i], &in, e);
        if (rc == GNNDB_NOTFOUND)
            rc = gnn_seterr(e, GNNDB_RANGE, "%s: node %" PRId64 " is not in "
                            "graph %s; nothing was read", x->what, x->ids[i],
                            x->g.name);
        x->rows[i] = (uint32_t)in;
    }
    idx_abort(t);
    return rc;
}

static int check_ids(gr_exec *x, gnn_err *e)
{
    if (!(x->rows = malloc((x->n + 1) * sizeof *x->rows)))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    int mapped = x->g.has_map && !x->t.has_type &&
                 x->t.kind != CAT_TABLE_EDGE_FEATURES;
    if (mapped) return map_ids(x, e);
    for (size_t i = 0; i < x->n; i++) {
        if (x->ids[i] < 0 || x->ids[i] >= x->t.rows)
            return gnn_seterr(e, GNNDB_RANGE, "%s: row %" PRId64 " (at %zu) "
                              "is out of range: table %s has %" PRId64
                              " rows (0..%" PRId64 "); nothing was read",
                              x->what, x->ids[i], i, x->t.name, x->t.rows,
                              x->t.rows - 1);
        x->rows[i] = (uint32_t)x->ids[i];
    }
    return GNNDB_OK;
}

static int load_ids(gr_exec *x, const ast_stmt *s, gnn_err *e)
{
    if (s->path) {
        const char *tmp = x->db->pragma.temp_dir[0] ? x->db->pragma.temp_dir
                                                    : x->db->dir;
        size_t max = (size_t)(x->db->pragma.memory_limit / 12);
        int rc = idl_read(s->path, tmp, max, &x->ids, &x->n, e);
        if (rc) return gnn_seterr(e, rc, "%s: %s", x->what, e->msg);
    } else {
        x->n = s->n_seed_ids;
        if (!(x->ids = malloc((x->n + 1) * sizeof *x->ids)))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        memcpy(x->ids, s->seed_ids, x->n * sizeof *x->ids);
    }
    if (x->t.rows > UINT32_MAX)
        return gnn_seterr(e, GNNDB_RANGE, "%s: table %s has more rows than "
                          "GATHER addresses (2^32)", x->what, x->t.name);
    return check_ids(x, e);
}

/* ---- memory and reads ----------------------------------------------------- */

/* Bytes a row of a chunk holds: its key, block bookkeeping, n_id, row. */
static size_t per_row(const gr_exec *x)
{
    return 8 + 16 + 8 + (x->labels ? 8 : (size_t)x->t.dim * 4);
}

/* A pool of an eighth of what memory_limit leaves for data (at least 4
** frames, at most the table), chunks of as many rows as the rest holds,
** or BATCH n when it fits; refused in words, with the bytes, when not. */
static int size_buffers(gr_exec *x, const ast_stmt *s, size_t *frames,
                        gnn_err *e)
{
    mem_reserve r;
    uint32_t fs = x->t.block_size;
    int64_t held = (int64_t)x->n * 12;    /* the ids and their rows */
    int64_t min = 4 * (int64_t)fs + held + (int64_t)per_row(x);
    int rc = db_memory_reserve(x->db, 0, min, x->what, &r, e);
    if (rc) return rc;
    *frames = (size_t)GNN_MIN(GNN_MAX(4, r.data / 8 / fs),
                              GNN_MAX(4, x->t.nblocks));
    int64_t room = r.data - (int64_t)*frames * fs - held;
    int64_t fit = room > 0 ? room / (int64_t)per_row(x) : 0;
    /* no chunk holds more rows than there are ids */
    int64_t want = GNN_MAX((int64_t)x->n, 1);
    if (s->batch > 0) want = GNN_MIN(want, s->batch);
    else want = GNN_MIN(want, fit);
    if (want >= 1 && want <= fit) {
        x->chunk = (size_t)want;
        return GNNDB_OK;
    }
    char b1[32], b2[32], b3[32];
    int64_t need = (int64_t)*frames * fs + held +
                   GNN_MAX(want, 1) * (int64_t)per_row(x);
    return gnn_seterr(e, GNNDB_NOMEM, "%s: memory_limit leaves %s for data, "
                      "too little for %s%" PRId64 " rows at a time (it needs "
                      "%s: a pool of %zu blocks, %s of ids, %zu bytes a "
                      "row); raise PRAGMA memory_limit or lower BATCH",
                      x->what, db_fmt_size(r.data, b1, sizeof b1),
                      s->batch > 0 ? "BATCH " : "", GNN_MAX(want, 1),
                      db_fmt_size(need, b2, sizeof b2), *frames,
                      db_fmt_size(held, b3, sizeof b3), per_row(x));
}

static int open_reads(gr_exec *x, size_t frames, gnn_err *e)
{
    gnndb *db = x->db;
    gnn_err e2 = {0};
    int rc;
    cat_profile_get(db->cat, &x->profile, &e2);   /* defaults when none */
    x->gran.mode = db->pragma.read_granularity;
    x->gran.pr = &x->profile;
    if ((rc = io_open(db->pragma.io, (unsigned)db->pragma.io_depth, &x->io,
                      e)) ||
        (rc = db_open_table(db, &x->t, 2, &x->f, e)) ||
        (rc = bp_open(frames, x->t.block_size, x->io, &x->pool, e)))
        return rc;
    bp_set_max_coalesce(x->pool, (unsigned)db->pragma.coalesce);
    size_t c = x->chunk + 1;
    x->keys = malloc(c * sizeof *x->keys);
    x->blocks = malloc(c * sizeof *x->blocks);
    x->bstart = malloc((c + 1) * sizeof *x->bstart);
    x->n_id = malloc(c * sizeof *x->n_id);
    if (x->labels) x->y = malloc(c * sizeof *x->y);
    else x->x = malloc(c * (size_t)x->t.dim * sizeof *x->x);
    if (!x->keys || !x->blocks || !x->bstart || !x->n_id ||
        !(x->labels ? (void *)x->y : (void *)x->x))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    return GNNDB_OK;
}

static int open_device(gr_exec *x, const ast_stmt *s, gnn_err *e)
{
    memset(&x->dev, 0, sizeof x->dev);
    int rc = plan_parse_device(s->device, &x->dev, e);
    if (!rc && x->dev.device == GNNDB_DEVICE_CUDA)
        rc = xfer_open(x->dev.device_index, &x->xf, e);
    return rc;
}

int gr_open(gnndb *db, const ast_stmt *s, gr_exec **out, gnn_err *e)
{
    *out = NULL;
    gr_exec *x = calloc(1, sizeof *x);
    if (!x) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    x->db = db;
    snprintf(x->what, sizeof x->what, "GATHER %s",
             strcmp(s->name, "__labels") ? s->name : "LABELS");
    size_t frames = 0;
    int rc = resolve(x, s, e);
    if (!rc) rc = load_ids(x, s, e);
    if (!rc) rc = size_buffers(x, s, &frames, e);
    if (!rc) rc = open_reads(x, frames, e);
    if (!rc) rc = open_device(x, s, e);
    if (rc) {
        gr_close(x);
        return rc;
    }
    x->total = x->n ? (int64_t)((x->n + x->chunk - 1) / x->chunk) : 0;
    *out = x;
    return GNNDB_OK;
}

/* ---- a chunk ---------------------------------------------------------------- */

/* Block `no`'s place in the chunk's block list (visits come in any order). */
static size_t block_index(const gr_exec *x, uint64_t no)
{
    size_t lo = 0, hi = x->nblocks;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (x->blocks[mid] < no) lo = mid + 1; else hi = mid;
    }
    return lo;
}

static int rows_visit(void *arg, uint64_t no, const void *data, gnn_err *e)
{
    gr_exec *x = arg;
    const blk_header *h = data;
    if (x->db->interrupt) return gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
    size_t i = block_index(x, no);
    for (size_t k = x->bstart[i]; k < x->bstart[i + 1]; k++) {
        uint64_t row = x->keys[k] >> 32, pos = x->keys[k] & 0xffffffffu;
        if (row < h->first_node || row - h->first_node >= h->count)
            return gnn_seterr(e, GNNDB_CORRUPT, "corrupt block %" PRIu64
                              " of table %s: row %" PRIu64 " missing", no,
                              x->t.name, row);
        const void *src = blk_feature_row(h, (uint32_t)(row - h->first_node));
        if (x->labels) memcpy(&x->y[pos], src, sizeof(int64_t));
        else hb_put_row(&x->t, x->x + pos * x->t.dim, src, 0);
    }
    x->st.bytes_out += (x->bstart[i + 1] - x->bstart[i]) * x->rowbytes;
    return GNNDB_OK;
}

/* The pages of block i of the list that hold the chunk's rows. */
static void rows_mark(void *arg, size_t i, uint64_t no, uint8_t *map)
{
    gr_exec *x = arg;
    uint64_t first = no * x->t.rows_per_block;
    uint32_t ps = blk_page_size(x->t.block_size);
    uint32_t np = blk_npages(x->t.block_size);
    uint64_t at = blk_data_offset(x->t.block_size);
    for (size_t k = x->bstart[i]; k < x->bstart[i + 1]; k++) {
        uint64_t off = at + ((x->keys[k] >> 32) - first) * x->rowbytes;
        uint64_t lo = off / ps, hi = (off + x->rowbytes - 1) / ps;
        for (uint64_t pg = lo; pg <= hi && pg < np; pg++) map[pg] = 1;
    }
}

/* Sort the chunk's rows and list the blocks that hold them. */
static void plan_chunk(gr_exec *x, size_t lo, size_t n)
{
    for (size_t q = 0; q < n; q++)
        x->keys[q] = (uint64_t)x->rows[lo + q] << 32 | q;
    gnn_sort_u64(x->keys, n);
    x->nkeys = n;
    x->nblocks = 0;
    for (size_t k = 0; k < n; k++) {
        uint64_t b = (x->keys[k] >> 32) / x->t.rows_per_block;
        if (x->nblocks == 0 || x->blocks[x->nblocks - 1] != b) {
            x->bstart[x->nblocks] = k;
            x->blocks[x->nblocks++] = b;
        }
    }
    x->bstart[x->nblocks] = n;
}

static void fill_view(gr_exec *x, size_t lo, size_t n)
{
    gnndb_batch_view *v = &x->view;
    memset(v, 0, sizeof *v);
    memcpy(x->n_id, x->ids + lo, n * sizeof *x->n_id);
    x->nsn[0] = (int64_t)n;
    v->batch = x->next;
    v->num_seeds = v->num_nodes = (int64_t)n;
    v->device = GNNDB_DEVICE_HOST;
    v->n_id = x->n_id;
    v->num_sampled_nodes = x->nsn;
    v->num_sampled_edges = x->empty;
    v->edge_index = x->empty;
    v->x = x->labels ? NULL : x->x;
    v->x_dim = x->labels ? 0 : x->t.dim;
    v->y = x->labels ? x->y : NULL;
    v->digest = batch_digest(v);
}

int gr_next(gr_exec *x, const gnndb_batch_view **view, gnn_err *e)
{
    *view = NULL;
    if ((int64_t)x->next >= x->total) return GNNDB_DONE;
    size_t lo = x->next * x->chunk, n = GNN_MIN(x->chunk, x->n - lo);
    plan_chunk(x, lo, n);
    gran_ops ops = {rows_mark, NULL, NULL, rows_visit, x};
    int rc = gran_fetch(&x->gran, x->pool, x->f, x->blocks, x->nblocks, &ops,
                        &x->st, e);
    if (rc) return rc;
    fill_view(x, lo, n);
    x->next++;
    if (x->xf) {
        if ((rc = xfer_batch(x->xf, &x->view, &x->devview, e))) return rc;
        x->devview.digest = x->view.digest;
        *view = &x->devview;
        return GNNDB_BATCH;
    }
    *view = &x->view;
    return GNNDB_BATCH;
}

void gr_status(const gr_exec *x, int64_t *status)
{
    status[GNNDB_STATUS_BATCHES] = (int64_t)x->next;
    status[GNNDB_STATUS_TOTAL_BATCHES] = x->total;
    status[GNNDB_STATUS_BLOCKS_READ] = (int64_t)x->st.blocks_read;
    status[GNNDB_STATUS_BYTES_READ] = (int64_t)x->st.bytes_read;
    status[GNNDB_STATUS_CACHE_HITS] = (int64_t)x->st.hits;
    status[GNNDB_STATUS_CACHE_MISSES] = (int64_t)x->st.misses;
    status[GNNDB_STATUS_GATHER_BYTES] = (int64_t)x->st.bytes_out;
    status[GNNDB_STATUS_PAGES_READ] = (int64_t)x->st.pages_read;
    status[GNNDB_STATUS_PARTIAL_BLOCKS] = (int64_t)x->st.partial_blocks;
}

void gr_close(gr_exec *x)
{
    if (!x) return;
    if (x->xf) xfer_close(x->xf);
    if (x->pool) bp_close(x->pool);
    if (x->f) blkf_close(x->f);
    if (x->io) io_close(x->io);
    gran_free(&x->gran);
    free(x->ids);
    free(x->rows);
    free(x->keys);
    free(x->blocks);
    free(x->bstart);
    free(x->n_id);
    free(x->x);
    free(x->y);
    free(x);
}
