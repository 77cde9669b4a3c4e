/* packs.c — the packs of the catalog: mini-batches of a SAMPLE stored by
** SAMPLE ... INTO PACK, one row per pack in `packs` and one per stored
** mini-batch in `pack_batches` (where its record lies in the pack file).
** The two tables are schema version 3 (catalog.c's migrations): a writable
** open adds them to a catalog that lacks them, and a read-only handle on
** such a catalog sees no packs. */
#include "cat_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OOM(e) gnn_seterr(e, GNNDB_NOMEM, "out of memory")

const char catx_schema_packs[] =
    "CREATE TABLE IF NOT EXISTS packs("
    "  id INTEGER PRIMARY KEY,"
    "  graph_id INTEGER NOT NULL REFERENCES graphs(id) ON DELETE CASCADE,"
    "  name TEXT NOT NULL UNIQUE,"
    "  token INTEGER NOT NULL,"
    "  file TEXT NOT NULL,"
    "  sql TEXT NOT NULL,"
    "  epochs INTEGER NOT NULL,"
    "  batches_per_epoch INTEGER NOT NULL,"
    "  batches INTEGER NOT NULL,"
    "  block_size INTEGER NOT NULL,"
    "  nblocks INTEGER NOT NULL,"
    "  bytes INTEGER NOT NULL,"
    "  nhops INTEGER NOT NULL,"
    "  x_dim INTEGER NOT NULL,"
    "  has_y INTEGER NOT NULL,"
    "  seed INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS pack_batches("
    "  pack_id INTEGER NOT NULL REFERENCES packs(id) ON DELETE CASCADE,"
    "  seq INTEGER NOT NULL,"
    "  epoch INTEGER NOT NULL,"
    "  batch INTEGER NOT NULL,"
    "  offset INTEGER NOT NULL,"
    "  length INTEGER NOT NULL,"
    "  PRIMARY KEY(pack_id, seq)) WITHOUT ROWID;";

int catx_packs_schema(cat_db *c, gnn_err *e)
{
    sqlite3_stmt *st;
    int rc = catx_prepare(c, "SELECT count(*) FROM sqlite_master WHERE "
                             "type = 'table' AND name = 'pack_batches'",
                          &st, e);
    if (rc) return rc;
    int s = sqlite3_step(st);
    c->has_packs = s == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
    sqlite3_finalize(st);
    if (s != SQLITE_ROW) return catx_err(c, s, "reading the schema", e);
    return GNNDB_OK;
}

#define PACK_COLS                                                            \
    "id, graph_id, name, token, file, sql, epochs, batches_per_epoch, "      \
    "batches, block_size, nblocks, bytes, nhops, x_dim, has_y, seed"

static void pack_row(sqlite3_stmt *st, void *dst)
{
    cat_pack *p = dst;
    p->id = sqlite3_column_int64(st, 0);
    p->graph_id = sqlite3_column_int64(st, 1);
    catx_text(p->name, sizeof p->name, st, 2);
    p->token = (uint64_t)sqlite3_column_int64(st, 3);
    catx_text(p->file, sizeof p->file, st, 4);
    catx_text(p->sql, sizeof p->sql, st, 5);
    p->epochs = sqlite3_column_int64(st, 6);
    p->batches_per_epoch = sqlite3_column_int64(st, 7);
    p->batches = sqlite3_column_int64(st, 8);
    p->block_size = (uint32_t)sqlite3_column_int64(st, 9);
    p->nblocks = sqlite3_column_int64(st, 10);
    p->bytes = sqlite3_column_int64(st, 11);
    p->nhops = sqlite3_column_int(st, 12);
    p->x_dim = sqlite3_column_int64(st, 13);
    p->has_y = sqlite3_column_int(st, 14);
    p->seed = (uint64_t)sqlite3_column_int64(st, 15);
}

/* Rows of `sql` bound to ?1 = i1 (when it has a parameter), ?2 = s2. */
static int pack_query(cat_db *c, const char *sql, int64_t i1, const char *s2,
                      cat_pack **out, size_t *n, gnn_err *e)
{
    return catx_query_rows(c, sql, i1, s2, pack_row, sizeof **out,
                           (void **)out, n, "reading packs", e);
}

int cat_pack_insert(cat_db *c, cat_pack *p, const cat_pack_batch *b,
                    size_t n, gnn_err *e)
{
    int rc = catx_writable(c, e);
    if (rc) return rc;
    if (!c->has_packs)
        return gnn_seterr(e, GNNDB_INTERNAL, "%s has no packs table", c->path);
    cat_pack old;
    gnn_err e2 = {0};
    if (cat_pack_get(c, p->name, &old, &e2) == GNNDB_OK)
        return gnn_seterr(e, GNNDB_EXISTS, "pack '%s' already exists",
                          p->name);
    if (e2.rc != GNNDB_NOTFOUND) return gnn_seterr(e, e2.rc, "%s", e2.msg);
    if ((rc = catx_sp_begin(c, e))) return rc;
    sqlite3_stmt *st;
    if (!(rc = catx_prepare(c, "INSERT INTO packs(graph_id, name, token, "
                               "file, sql, epochs, batches_per_epoch, "
                               "batches, block_size, nblocks, bytes, nhops, "
                               "x_dim, has_y, seed) VALUES(?1, ?2, ?3, ?4, "
                               "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
                               "?15)",
                            &st, e))) {
        sqlite3_bind_int64(st, 1, p->graph_id);
        sqlite3_bind_text(st, 2, p->name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)p->token);
        sqlite3_bind_text(st, 4, p->file, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, p->sql, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 6, p->epochs);
        sqlite3_bind_int64(st, 7, p->batches_per_epoch);
        sqlite3_bind_int64(st, 8, p->batches);
        sqlite3_bind_int64(st, 9, p->block_size);
        sqlite3_bind_int64(st, 10, p->nblocks);
        sqlite3_bind_int64(st, 11, p->bytes);
        sqlite3_bind_int(st, 12, p->nhops);
        sqlite3_bind_int64(st, 13, p->x_dim);
        sqlite3_bind_int(st, 14, p->has_y);
        sqlite3_bind_int64(st, 15, (sqlite3_int64)p->seed);
        rc = catx_run(c, st, "adding a pack", e);
        if (!rc) p->id = sqlite3_last_insert_rowid(c->db);
    }
    if (!rc && !(rc = catx_prepare(c, "INSERT INTO pack_batches(pack_id, "
                                      "seq, epoch, batch, offset, length) "
                                      "VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
                                   &st, e))) {
        sqlite3_bind_int64(st, 1, p->id);
        for (size_t i = 0; i < n && !rc; i++) {
            sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
            sqlite3_bind_int64(st, 3, b[i].epoch);
            sqlite3_bind_int64(st, 4, b[i].batch);
            sqlite3_bind_int64(st, 5, b[i].offset);
            sqlite3_bind_int64(st, 6, b[i].length);
            int s = sqlite3_step(st);
            if (s != SQLITE_DONE)
                rc = catx_err(c, s, "writing the batches of a pack", e);
            sqlite3_reset(st);
        }
        sqlite3_finalize(st);
    }
    return catx_sp_end(c, rc, e);
}

int cat_pack_get(cat_db *c, const char *name, cat_pack *p, gnn_err *e)
{
    if (!c->has_packs)
        return gnn_seterr(e, GNNDB_NOTFOUND, "no such pack: %s", name);
    cat_pack *a;
    size_t n;
    int rc = pack_query(c, "SELECT " PACK_COLS " FROM packs WHERE name = ?2",
                        0, name, &a, &n, e);
    if (rc) return rc;
    if (n) *p = a[0];
    free(a);
    if (!n) return gnn_seterr(e, GNNDB_NOTFOUND, "no such pack: %s", name);
    return GNNDB_OK;
}

int cat_pack_list(cat_db *c, int64_t graph_id, cat_pack **out, size_t *n,
                  gnn_err *e)
{
    if (!c->has_packs) {
        *n = 0;
        *out = calloc(1, sizeof **out);
        return *out ? GNNDB_OK : OOM(e);
    }
    return pack_query(c, "SELECT " PACK_COLS " FROM packs WHERE graph_id = ?1"
                         " ORDER BY name", graph_id, NULL, out, n, e);
}

int cat_pack_batches(cat_db *c, int64_t pack_id, int64_t epoch,
                     cat_pack_batch **out, size_t *n, gnn_err *e)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = catx_prepare(c, epoch < 0
                                 ? "SELECT epoch, batch, offset, length FROM "
                                   "pack_batches WHERE pack_id = ?1 ORDER BY "
                                   "seq"
                                 : "SELECT epoch, batch, offset, length FROM "
                                   "pack_batches WHERE pack_id = ?1 AND "
                                   "epoch = ?2 ORDER BY seq",
                          &st, e);
    if (rc) return rc;
    sqlite3_bind_int64(st, 1, pack_id);
    if (epoch >= 0) sqlite3_bind_int64(st, 2, epoch);
    cat_pack_batch *a = NULL;
    size_t cnt = 0, cap = 0;
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (cnt == cap) {
            cap = cap ? cap * 2 : 64;
            cat_pack_batch *na = realloc(a, cap * sizeof *a);
            if (!na) { rc = OOM(e); break; }
            a = na;
        }
        a[cnt].epoch = sqlite3_column_int64(st, 0);
        a[cnt].batch = sqlite3_column_int64(st, 1);
        a[cnt].offset = sqlite3_column_int64(st, 2);
        a[cnt].length = sqlite3_column_int64(st, 3);
        cnt++;
    }
    if (!rc && s != SQLITE_DONE)
        rc = catx_err(c, s, "reading the batches of a pack", e);
    sqlite3_finalize(st);
    if (!rc && !a && !(a = calloc(1, sizeof *a))) rc = OOM(e);
    if (rc) { free(a); return rc; }
    *out = a;
    *n = cnt;
    return GNNDB_OK;
}

int cat_pack_delete(cat_db *c, int64_t pack_id, gnn_err *e)
{
    static const char *const sqls[] = {
        "DELETE FROM checksums WHERE file IN ("
        "  SELECT file FROM packs WHERE id = ?1)",
        "DELETE FROM pack_batches WHERE pack_id = ?1",
        "DELETE FROM packs WHERE id = ?1",
        NULL,
    };
    int rc = catx_writable(c, e);
    if (rc || (rc = catx_sp_begin(c, e))) return rc;
    int changed = 0;
    for (int i = 0; sqls[i] && !rc; i++) {
        sqlite3_stmt *st;
        if ((rc = catx_prepare(c, sqls[i], &st, e))) break;
        sqlite3_bind_int64(st, 1, pack_id);
        rc = catx_run(c, st, "deleting a pack", e);
        changed = sqlite3_changes(c->db);
    }
    if (!rc && !changed)
        rc = gnn_seterr(e, GNNDB_NOTFOUND, "no such pack: id %" PRId64,
                        pack_id);
    return catx_sp_end(c, rc, e);
}

int catx_packs_drop_graph(cat_db *c, int64_t graph_id, gnn_err *e)
{
    static const char *const sqls[] = {
        "DELETE FROM checksums WHERE file IN ("
        "  SELECT file FROM packs WHERE graph_id = ?1)",
        "DELETE FROM pack_batches WHERE pack_id IN ("
        "  SELECT id FROM packs WHERE graph_id = ?1)",
        "DELETE FROM packs WHERE graph_id = ?1",
        NULL,
    };
    if (!c->has_packs) return GNNDB_OK;
    int rc = GNNDB_OK;
    for (int i = 0; sqls[i] && !rc; i++) {
        sqlite3_stmt *st;
        if ((rc = catx_prepare(c, sqls[i], &st, e))) break;
        sqlite3_bind_int64(st, 1, graph_id);
        rc = catx_run(c, st, "deleting the packs of a graph", e);
    }
    return rc;
}
