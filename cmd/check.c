/* check.c — CHECK [graph]: read every block of every file the catalog lists
** (topology, its edge-id twin, tables, packs), verify its checksum against
** the block and the catalog, the graph's object indexes against its blocks
** and the edge-id graph's lists against the graph's; one row per problem,
** or one 'ok' row. */
#include "cmd.h"
#include "block.h"
#include "blockfile.h"
#include "memory.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Problems listed per file; past them a file's rows stop and one row
** counts the rest, so that a file corrupt throughout cannot fill memory
** with a row per block. */
#define CK_ROWS_PER_FILE 100

typedef struct ck {
    gnndb *db;
    rowset *rs;
    int64_t problems;
    int64_t blocks;
    int64_t file_problems;  /* of the file being read */
    /* the walk that only sizes: the most one file's check holds (its
    ** checksums, block index and two blocks) */
    int dry;
    int64_t need;
} ck;

static int problem(ck *c, const char *what, const char *detail)
{
    c->problems++;
    if (++c->file_problems > CK_ROWS_PER_FILE) return GNNDB_OK;
    if (rs_row(c->rs) || rs_text(c->rs, what) || rs_text(c->rs, detail))
        return GNNDB_NOMEM;
    return GNNDB_OK;
}

/* The row that counts a file's problems past those listed. */
static int more_problems(ck *c, const char *file)
{
    int64_t more = c->file_problems - CK_ROWS_PER_FILE;
    c->file_problems = 0;
    if (more <= 0) return GNNDB_OK;
    char d[128];
    snprintf(d, sizeof d, "and %" PRId64 " more problems", more);
    c->problems--;   /* counted already */
    return problem(c, file, d);
}

static int check_file(ck *c, const char *file, uint32_t bs, uint16_t kind,
                      uint64_t token, int64_t nblocks, gnn_err *e)
{
    if (c->dry) {
        c->need = GNN_MAX(c->need, (nblocks + 1) * 4 + 2 * (int64_t)bs);
        return GNNDB_OK;
    }
    c->file_problems = 0;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", c->db->dir, file);
    uint32_t *sums = NULL;
    uint64_t nsums = 0;
    gnn_err pe = {0};
    int rc = cat_checksums_get(c->db->cat, file, &sums, &nsums, e);
    if (rc) return rc;
    if ((int64_t)nsums != nblocks) {
        char d[256];
        snprintf(d, sizeof d, "catalog lists %" PRIu64 " checksums for %"
                 PRId64 " blocks", nsums, nblocks);
        if ((rc = problem(c, file, d))) goto out;
    }
    blk_file *f;
    if (blkf_open(path, bs, kind, token, (uint64_t)nblocks, &f, &pe)) {
        rc = problem(c, file, pe.msg);
        goto out;
    }
    void *buf = gnn_alloc_aligned(bs);
    if (!buf) { blkf_close(f); rc = GNNDB_NOMEM; goto out; }
    for (int64_t b = 0; b < nblocks && !rc; b++) {
        if (c->db->interrupt) {
            rc = gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
            break;
        }
        c->blocks++;
        gnn_clearerr(&pe);
        if (blkf_read(f, (uint64_t)b, buf, &pe)) {
            rc = problem(c, file, pe.msg);
            continue;
        }
        const blk_header *h = buf;
        if ((uint64_t)b < nsums && h->checksum != sums[b]) {
            char d[256];
            snprintf(d, sizeof d, "block %" PRId64 ": checksum %08x differs "
                     "from the catalog's %08x", b, h->checksum, sums[b]);
            rc = problem(c, file, d);
        }
    }
    gnn_free_aligned(buf);
    blkf_close(f);
out:
    free(sums);
    return rc ? rc : more_problems(c, file);
}

/* The block index under `token` of a graph file of nblocks blocks: entries
** ascending and within the file. */
static int check_index(ck *c, const cat_graph *g, uint64_t token,
                       int64_t nblocks, const char *what)
{
    idx_txn *t = NULL;
    uint64_t *first = NULL, *blk = NULL;
    size_t n = 0;
    gnn_err pe = {0};
    int rc = GNNDB_OK;
    if (c->dry) {  /* an entry per block at most */
        c->need = GNN_MAX(c->need, (nblocks + 1) * 16);
        return GNNDB_OK;
    }
    if (idx_begin(c->db->idx, 0, &t, &pe))
        return problem(c, "index.mdb", pe.msg);
    int lrc = idx_load_blocks(t, token, &first, &blk, &n, &pe);
    idx_abort(t);
    if (lrc) return problem(c, "index.mdb", pe.msg);
    if (n == 0 && g->nodes > 0) {
        char d[256];
        snprintf(d, sizeof d, "no block index for the %s", what);
        rc = problem(c, "index.mdb", d);
    }
    c->file_problems = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        if ((int64_t)blk[i] >= nblocks ||
            (i && (first[i] <= first[i - 1] || blk[i] <= blk[i - 1]))) {
            char d[256];
            snprintf(d, sizeof d, "%s %s: index entry %zu (node %" PRIu64
                     " -> block %" PRIu64 ") is out of order or range",
                     what, g->name, i, first[i], blk[i]);
            rc = problem(c, "index.mdb", d);
        }
    }
    free(first);
    free(blk);
    return rc ? rc : more_problems(c, "index.mdb");
}

/* The files of the graph's tables and packs. */
/* The tables of the graphs row `id`: a graph's, or a later version's
** (its edge table). */
static int check_table_files(ck *c, int64_t id, gnn_err *e)
{
    cat_table *ts = NULL;
    size_t nt = 0;
    int rc = cat_table_list(c->db->cat, id, &ts, &nt, e);
    for (size_t i = 0; i < nt && !rc; i++)
        rc = check_file(c, ts[i].file, ts[i].block_size, BLK_KIND_FEATURE,
                        ts[i].token, ts[i].nblocks, e);
    free(ts);
    return rc;
}

static int check_tables(ck *c, const cat_graph *g, gnn_err *e)
{
    int rc = check_table_files(c, g->id, e);
    cat_pack *ps = NULL;
    size_t np = 0;
    if (!rc) rc = cat_pack_list(c->db->cat, g->id, &ps, &np, e);
    for (size_t i = 0; i < np && !rc; i++)
        rc = check_file(c, ps[i].file, ps[i].block_size, BLK_KIND_PACK,
                        ps[i].token, ps[i].nblocks, e);
    free(ps);
    return rc;
}

/* The entries of a graph file in file order, one block in memory. */
typedef struct walk {
    blk_file *f;
    uint8_t *buf;
    uint64_t no;          /* the block in buf (when loaded) */
    uint32_t k, j;        /* its object, and the entry in it */
    int loaded;
} walk;

/* The next entry (node, neighbour, and its edge id in an edge-id graph):
** 1, 0 at the end, or -1 when a block does not read (words in e). */
static int walk_next(walk *w, uint32_t *node, uint32_t *nbr, uint32_t *eid,
                     gnn_err *e)
{
    for (;;) {
        if (!w->loaded) {
            if (w->no >= w->f->nblocks) return 0;
            if (blkf_read(w->f, w->no, w->buf, e)) return -1;
            w->loaded = 1;
            w->k = w->j = 0;
        }
        const blk_header *h = (const blk_header *)w->buf;
        if (w->k >= h->count) { w->loaded = 0; w->no++; continue; }
        const blk_node *o = blk_graph_object(w->buf, w->k);
        if (w->j >= o->n) { w->k++; w->j = 0; continue; }
        *node = o->node;
        *nbr = blk_node_nbrs(o)[w->j];
        *eid = h->flags & BLK_FLAG_EIDS ? blk_node_eids(o)[w->j] : 0;
        w->j++;
        return 1;
    }
}

/* The edge-id graph holds the plain graph's lists, entry for entry, each
** with an id below input_edges. */
static int check_eid_lists(ck *c, const cat_graph *g, gnn_err *e)
{
    walk a = {0}, b = {0};
    gnn_err pe = {0};
    int rc = GNNDB_OK, ka, kb;
    char d[256] = "";
    if (c->dry) {
        c->need = GNN_MAX(c->need, 2 * (int64_t)g->block_size);
        return GNNDB_OK;
    }
    a.buf = gnn_alloc_aligned(g->block_size);
    b.buf = gnn_alloc_aligned(g->block_size);
    if (!a.buf || !b.buf) { rc = GNNDB_NOMEM; goto out; }
    if (db_open_graph(c->db, g, 0, &a.f, &pe) ||
        db_open_eid_graph(c->db, g, 1, &b.f, &pe)) {
        rc = problem(c, g->eid_file, pe.msg);
        goto out;
    }
    uint32_t n0, u0, x, n1, u1, id;
    for (uint64_t i = 0;; i++) {
        if (c->db->interrupt) {
            rc = gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
            break;
        }
        ka = walk_next(&a, &n0, &u0, &x, &pe);
        kb = ka < 0 ? 0 : walk_next(&b, &n1, &u1, &id, &pe);
        if (ka < 0 || kb < 0) { rc = problem(c, g->eid_file, pe.msg); break; }
        if (ka != kb || (ka && (n0 != n1 || u0 != u1)))
            snprintf(d, sizeof d, "entry %" PRIu64 " differs from the graph's "
                     "(%s)", i, ka != kb ? "a list ends early"
                                         : "another node or neighbour");
        else if (ka && id >= (uint64_t)g->input_edges)
            snprintf(d, sizeof d, "node %u: edge id %u is beyond the %" PRId64
                     " input edges", n1, id, g->input_edges);
        if (d[0]) { rc = problem(c, g->eid_file, d); break; }
        if (!ka) break;
    }
out:
    blkf_close(a.f);
    blkf_close(b.f);
    gnn_free_aligned(a.buf);
    gnn_free_aligned(b.buf);
    return rc;
}

static int check_graph(ck *c, const cat_graph *g, gnn_err *e);

/* A typed graph: its relations' topologies (graphs of their own) and the
** tables of its node types; it has no file of its own. */
static int check_typed(ck *c, const cat_graph *g, gnn_err *e)
{
    cat_graph *kids = NULL;
    size_t n = 0;
    int rc = cat_graph_children(c->db->cat, g->id, &kids, &n, e);
    for (size_t i = 0; !rc && i < n; i++) rc = check_graph(c, &kids[i], e);
    free(kids);
    return rc ? rc : check_tables(c, g, e);
}

/* One version of a graph's topology: its files, their index entries, the
** edge-id lists against the plain ones, its time graph, and (a version
** past the first) its own edge table. */
static int check_topology(ck *c, const cat_graph *g, gnn_err *e)
{
    int64_t before = c->problems;
    int rc = check_file(c, g->file, g->block_size, BLK_KIND_GRAPH, g->token,
                        g->graph_blocks, e);
    if (!rc) rc = check_index(c, g, g->token, g->graph_blocks, "graph");
    if (!rc && g->has_eids) {
        rc = check_file(c, g->eid_file, g->block_size, BLK_KIND_GRAPH,
                        g->eid_token, g->eid_blocks, e);
        if (!rc) rc = check_index(c, g, g->eid_token, g->eid_blocks,
                                  "edge-id graph");
        /* the lists compared only when both files read clean */
        if (!rc && c->problems == before) rc = check_eid_lists(c, g, e);
    }
    /* its time graph (IMPORT EDGE TIMES): every block and its index */
    cat_graph tg;
    gnn_err e2 = {0};
    if (!rc && g->kind == CAT_GRAPH_PLAIN &&
        cat_time_graph_get(c->db->cat, g, &tg, &e2) == GNNDB_OK) {
        rc = check_file(c, tg.file, tg.block_size, BLK_KIND_GRAPH, tg.token,
                        tg.graph_blocks, e);
        if (!rc) rc = check_index(c, &tg, tg.token, tg.graph_blocks,
                                  "time graph");
    }
    if (!rc && g->topo_id != g->id) rc = check_table_files(c, g->topo_id, e);
    return rc;
}

/* Every kept version of a graph (INSERT EDGES), then its tables. */
static int check_graph(ck *c, const cat_graph *g, gnn_err *e)
{
    if (g->kind == CAT_GRAPH_TYPED) return check_typed(c, g, e);
    int rc = GNNDB_OK;
    for (int64_t v = GNN_MIN(g->oldest_version, g->version);
         !rc && v <= g->version; v++) {
        cat_graph gv = *g;
        if (v != g->version) rc = cat_graph_as_of(c->db->cat, g, v, &gv, e);
        if (!rc) rc = check_topology(c, &gv, e);
    }
    return rc ? rc : check_tables(c, g, e);
}

/* The graphs CHECK reads: the one named, or every graph. */
static int check_list(gnndb *db, const ast_stmt *s, cat_graph **gs, size_t *n,
                      gnn_err *e)
{
    if (!s->graph) return cat_graph_list(db->cat, gs, n, e);
    *n = 0;
    if (!(*gs = calloc(1, sizeof **gs)))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    int rc = cat_graph_get(db->cat, s->graph, *gs, e);
    if (!rc) *n = 1;
    return rc;
}

/* A walk that reads nothing sizes the most one file's check holds, which
** must fit in what memory_limit leaves for data (memory.c). */
static int check_memory(ck *c, const cat_graph *gs, size_t n, gnn_err *e)
{
    c->dry = 1;
    int rc = GNNDB_OK;
    for (size_t i = 0; i < n && !rc; i++) rc = check_graph(c, &gs[i], e);
    c->dry = 0;
    mem_reserve r;
    return rc ? rc : db_memory_reserve(c->db, 0, c->need, "CHECK", &r, e);
}

int check_prepare(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    ck c = {.db = db};
    cat_graph *gs = NULL;
    size_t n = 0;
    int rc = check_list(db, s, &gs, &n, e);
    if (!rc) rc = check_memory(&c, gs, n, e);
    free(gs);
    return rc;
}

int check_run(gnndb *db, const ast_stmt *s, rowset **out, gnn_err *e)
{
    static const char *const cols[] = {"object", "problem", NULL};
    ck c = {.db = db, .rs = rs_new(2, cols)};
    if (!c.rs) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    cat_graph *gs = NULL;
    size_t n = 0;
    int rc = check_list(db, s, &gs, &n, e);
    if (!rc) rc = check_memory(&c, gs, n, e);
    for (size_t i = 0; i < n && !rc; i++) rc = check_graph(&c, &gs[i], e);
    free(gs);
    if (!rc && c.problems == 0) {
        char d[128];
        snprintf(d, sizeof d, "%" PRId64 " blocks verified", c.blocks);
        rc = problem(&c, "ok", d);
        c.problems = 0;
    }
    if (rc) {
        rs_free(c.rs);
        return rc == GNNDB_NOMEM && !e->rc
                   ? gnn_seterr(e, GNNDB_NOMEM, "out of memory") : rc;
    }
    *out = c.rs;
    return GNNDB_OK;
}
