/* catalog.c — the catalog connection's helpers (errors, statements,
** savepoints, queries of rows), transactions, and the per-file and
** per-graph facts (checksums, degree histograms, file and token lists,
** statement log). Opening it is open.c's. */
#include "cat_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers every file of the catalog shares ---------------------------- */

#define OOM(e) gnn_seterr(e, GNNDB_NOMEM, "out of memory")

int catx_err(cat_db *c, int rc, const char *what, gnn_err *e)
{
    const char *why = c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(rc);
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return gnn_seterr(e, GNNDB_BUSY,
                          "database is busy: another connection is writing "
                          "(%s, %s)", c->path, what);
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return gnn_seterr(e, GNNDB_CORRUPT, "%s is damaged: %s (%s)", c->path,
                          why, what);
    case SQLITE_FULL:
        return gnn_seterr(e, GNNDB_FULL, "%s: %s: %s", c->path, what, why);
    case SQLITE_NOMEM:
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory (%s, %s)", c->path,
                          what);
    case SQLITE_READONLY:
        return gnn_seterr(e, GNNDB_READONLY, "%s is read-only: cannot %s",
                          c->path, what);
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_AUTH:
        return gnn_seterr(e, GNNDB_CANTOPEN, "unable to open catalog %s: %s",
                          c->path, why);
    case SQLITE_IOERR:
        /* SQLite reports a full disk while growing its WAL index as an
        ** I/O error; the system errno tells the two apart */
        if (c->db && (sqlite3_system_errno(c->db) == ENOSPC ||
                      sqlite3_system_errno(c->db) == EDQUOT))
            return gnn_seterr(e, GNNDB_FULL, "disk is full: %s: %s: %s",
                              c->path, what, why);
        return gnn_seterr(e, GNNDB_IOERR, "%s: %s: %s", c->path, what, why);
    default:
        return gnn_seterr(e, GNNDB_ERROR, "%s: %s: %s", c->path, what, why);
    }
}

int catx_prepare(cat_db *c, const char *sql, sqlite3_stmt **st, gnn_err *e)
{
    int rc = sqlite3_prepare_v2(c->db, sql, -1, st, NULL);
    if (rc) {
        *st = NULL;
        return catx_err(c, rc, "preparing a query", e);
    }
    return GNNDB_OK;
}

int catx_exec(cat_db *c, const char *sql, gnn_err *e)
{
    int rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);
    return rc ? catx_err(c, rc, sql, e) : GNNDB_OK;
}

int catx_count_nonzero(cat_db *c, const char *sql, int *yes, gnn_err *e)
{
    sqlite3_stmt *st;
    int rc = catx_prepare(c, sql, &st, e);
    if (rc) return rc;
    int s = sqlite3_step(st);
    *yes = s == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
    sqlite3_finalize(st);
    if (s != SQLITE_ROW) return catx_err(c, s, "reading the schema", e);
    return GNNDB_OK;
}

int catx_run(cat_db *c, sqlite3_stmt *st, const char *what, gnn_err *e)
{
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {}
    int out = rc == SQLITE_DONE ? GNNDB_OK : catx_err(c, rc, what, e);
    sqlite3_finalize(st);
    return out;
}

int catx_sp_begin(cat_db *c, gnn_err *e)
{
    return catx_exec(c, "SAVEPOINT cat_change", e);
}

int catx_sp_end(cat_db *c, int rc, gnn_err *e)
{
    if (rc == GNNDB_OK) {
        rc = catx_exec(c, "RELEASE cat_change", e);
        if (rc == GNNDB_OK) return rc;
    }
    sqlite3_exec(c->db, "ROLLBACK TO cat_change; RELEASE cat_change", NULL,
                 NULL, NULL);
    return rc;
}

void catx_text(char *dst, size_t cap, sqlite3_stmt *st, int col)
{
    const unsigned char *s = sqlite3_column_text(st, col);
    snprintf(dst, cap, "%s", s ? (const char *)s : "");
}

int catx_writable(cat_db *c, gnn_err *e)
{
    if (!c->readonly) return GNNDB_OK;
    return gnn_seterr(e, GNNDB_READONLY,
                      "%s is opened read-only", c->path);
}

int catx_query_rows(cat_db *c, const char *sql, int64_t i1, const char *s2,
                    catx_row_fn row, size_t size, void **out, size_t *n,
                    const char *what, gnn_err *e)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = catx_prepare(c, sql, &st, e);
    if (rc) return rc;
    if (sqlite3_bind_parameter_count(st) >= 1) sqlite3_bind_int64(st, 1, i1);
    if (sqlite3_bind_parameter_count(st) >= 2)
        sqlite3_bind_text(st, 2, s2, -1, SQLITE_STATIC);
    char *a = NULL;
    size_t cnt = 0, cap = 0;
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (cnt == cap) {
            cap = cap ? cap * 2 : 8;
            char *na = realloc(a, cap * size);
            if (!na) { rc = OOM(e); break; }
            a = na;
        }
        memset(a + cnt * size, 0, size);
        row(st, a + cnt * size);
        cnt++;
    }
    if (!rc && s != SQLITE_DONE) rc = catx_err(c, s, what, e);
    sqlite3_finalize(st);
    /* an empty list is still a pointer the caller may free */
    if (!rc && !a && !(a = calloc(1, size))) rc = OOM(e);
    if (rc) { free(a); return rc; }
    *out = a;
    *n = cnt;
    return GNNDB_OK;
}

/* Run each statement of `sqls` (NULL-terminated) bound to ?1 = id inside one
** savepoint; *changed gets the rows the last one changed. */
int catx_delete_all(cat_db *c, const char *const *sqls, int64_t id,
                    int *changed, gnn_err *e)
{
    int rc = catx_writable(c, e);
    if (rc || (rc = catx_sp_begin(c, e))) return rc;
    for (int i = 0; sqls[i] && !rc; i++) {
        sqlite3_stmt *st;
        if ((rc = catx_prepare(c, sqls[i], &st, e))) break;
        sqlite3_bind_int64(st, 1, id);
        rc = catx_run(c, st, "deleting", e);
        *changed = sqlite3_changes(c->db);
    }
    return catx_sp_end(c, rc, e);
}


/* ---- transactions -------------------------------------------------------- */

int cat_begin(cat_db *c, gnn_err *e)
{
    int rc = catx_writable(c, e);
    if (rc) return rc;
    if (!sqlite3_get_autocommit(c->db))
        return gnn_seterr(e, GNNDB_MISUSE,
                          "%s: a catalog transaction is already open", c->path);
    /* IMMEDIATE takes the write lock now, so a second writer is told at
    ** once (after the busy timeout) rather than at its first write */
    rc = sqlite3_exec(c->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
        return gnn_seterr(e, GNNDB_BUSY,
                          "database is busy: another connection is writing "
                          "(%s)", c->path);
    return rc ? catx_err(c, rc, "beginning a transaction", e) : GNNDB_OK;
}

int cat_commit(cat_db *c, gnn_err *e)
{
    if (sqlite3_get_autocommit(c->db))
        return gnn_seterr(e, GNNDB_MISUSE,
                          "%s: no catalog transaction to commit", c->path);
    return catx_exec(c, "COMMIT", e);
}

void cat_rollback(cat_db *c)
{
    if (c && c->db && !sqlite3_get_autocommit(c->db))
        sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
}

/* ---- checksums ----------------------------------------------------------- */

int cat_checksums_put(cat_db *c, const char *file, const uint32_t *sums,
                      uint64_t n, gnn_err *e)
{
    int rc = catx_writable(c, e);
    if (rc || (rc = catx_sp_begin(c, e))) return rc;
    sqlite3_stmt *st;
    if (!(rc = catx_prepare(c, "DELETE FROM checksums WHERE file = ?1", &st, e))) {
        sqlite3_bind_text(st, 1, file, -1, SQLITE_STATIC);
        rc = catx_run(c, st, "deleting checksums", e);
    }
    if (!rc && !(rc = catx_prepare(c, "INSERT INTO checksums(file, block_no, "
                                      "crc) VALUES(?1, ?2, ?3)", &st, e))) {
        sqlite3_bind_text(st, 1, file, -1, SQLITE_STATIC);
        for (uint64_t i = 0; i < n && !rc; i++) {
            sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
            sqlite3_bind_int64(st, 3, sums[i]);
            int s = sqlite3_step(st);
            if (s != SQLITE_DONE) rc = catx_err(c, s, "writing checksums", e);
            sqlite3_reset(st);
        }
        sqlite3_finalize(st);
    }
    return catx_sp_end(c, rc, e);
}

int cat_checksums_get(cat_db *c, const char *file, uint32_t **sums,
                      uint64_t *n, gnn_err *e)
{
    *sums = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = catx_prepare(c, "SELECT block_no, crc FROM checksums "
                             "WHERE file = ?1 ORDER BY block_no", &st, e);
    if (rc) return rc;
    sqlite3_bind_text(st, 1, file, -1, SQLITE_STATIC);
    uint32_t *a = NULL;
    uint64_t cnt = 0, cap = 0;
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t b = sqlite3_column_int64(st, 0);
        if (b != (int64_t)cnt) {
            rc = gnn_seterr(e, GNNDB_CORRUPT,
                            "%s is damaged: the checksums of %s skip from "
                            "block %" PRIu64 " to %" PRId64, c->path, file,
                            cnt, b);
            break;
        }
        if (cnt == cap) {
            cap = cap ? cap * 2 : 1024;
            uint32_t *na = realloc(a, (size_t)cap * sizeof *a);
            if (!na) { rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory"); break; }
            a = na;
        }
        a[cnt++] = (uint32_t)sqlite3_column_int64(st, 1);
    }
    if (!rc && s != SQLITE_DONE) rc = catx_err(c, s, "reading checksums", e);
    sqlite3_finalize(st);
    if (!rc && !a && !(a = malloc(sizeof *a)))
        rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    if (rc) { free(a); return rc; }
    *sums = a;
    *n = cnt;
    return GNNDB_OK;
}

/* ---- degree histogram ---------------------------------------------------- */

int cat_degree_hist_put(cat_db *c, int64_t graph_id, const int64_t *counts,
                        int nbuckets, gnn_err *e)
{
    if (nbuckets < 0)
        return gnn_seterr(e, GNNDB_MISUSE, "negative bucket count %d",
                          nbuckets);
    int rc = catx_writable(c, e);
    if (rc || (rc = catx_sp_begin(c, e))) return rc;
    sqlite3_stmt *st;
    if (!(rc = catx_prepare(c, "DELETE FROM degree_hist WHERE graph_id = ?1",
                            &st, e))) {
        sqlite3_bind_int64(st, 1, graph_id);
        rc = catx_run(c, st, "deleting the degree histogram", e);
    }
    if (!rc && !(rc = catx_prepare(c, "INSERT INTO degree_hist(graph_id, "
                                      "bucket, count) VALUES(?1, ?2, ?3)",
                                   &st, e))) {
        sqlite3_bind_int64(st, 1, graph_id);
        for (int k = 0; k < nbuckets && !rc; k++) {
            sqlite3_bind_int(st, 2, k);
            sqlite3_bind_int64(st, 3, counts[k]);
            int s = sqlite3_step(st);
            if (s != SQLITE_DONE)
                rc = catx_err(c, s, "writing the degree histogram", e);
            sqlite3_reset(st);
        }
        sqlite3_finalize(st);
    }
    return catx_sp_end(c, rc, e);
}

int cat_degree_hist_get(cat_db *c, int64_t graph_id, int64_t *counts,
                        int maxbuckets, int *nbuckets, gnn_err *e)
{
    *nbuckets = 0;
    for (int k = 0; k < maxbuckets; k++) counts[k] = 0;
    sqlite3_stmt *st;
    int rc = catx_prepare(c, "SELECT bucket, count FROM degree_hist "
                             "WHERE graph_id = ?1 ORDER BY bucket", &st, e);
    if (rc) return rc;
    sqlite3_bind_int64(st, 1, graph_id);
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t b = sqlite3_column_int64(st, 0);
        if (b < 0 || b >= maxbuckets) continue;
        counts[b] = sqlite3_column_int64(st, 1);
        if (b + 1 > *nbuckets) *nbuckets = (int)b + 1;
    }
    if (s != SQLITE_DONE) rc = catx_err(c, s, "reading the degree histogram", e);
    sqlite3_finalize(st);
    return rc;
}

/* ---- what the catalog refers to ------------------------------------------ */

int cat_files(cat_db *c, char ***names, size_t *n, gnn_err *e)
{
    *names = NULL;
    *n = 0;
    char sql[768];
    /* a graph's own row keeps version 1's files after DROP VERSIONS: no
    ** longer the graph's (a later version's map may still read them) */
    const char *kept = c->has_versions ? "(kind != 0 OR oldest_version <= 1)"
                                       : "1";
    snprintf(sql, sizeof sql, "SELECT file FROM graphs WHERE %s UNION "
             "SELECT file FROM tables UNION %s%s%s%s"
             "SELECT file FROM checksums", kept,
             c->has_packs ? "SELECT file FROM packs UNION " : "",
             c->has_eids ? "SELECT eid_file FROM graphs WHERE has_eids AND "
                         : "",
             c->has_eids ? kept : "", c->has_eids ? " UNION " : "");
    sqlite3_stmt *st;
    int rc = catx_prepare(c, sql, &st, e);
    if (rc) return rc;
    /* gather the strings into one block, remembering where each starts */
    char *blk = NULL;
    size_t len = 0, cap = 0, cnt = 0, ocap = 0, *offs = NULL;
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        const char *f = (const char *)sqlite3_column_text(st, 0);
        size_t l = f ? strlen(f) + 1 : 1;
        if (len + l > cap) {
            cap = GNN_MAX(cap * 2, len + l + 256);
            char *nb = realloc(blk, cap);
            if (!nb) { rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory"); break; }
            blk = nb;
        }
        if (cnt == ocap) {
            ocap = ocap ? ocap * 2 : 16;
            size_t *no = realloc(offs, ocap * sizeof *offs);
            if (!no) { rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory"); break; }
            offs = no;
        }
        memcpy(blk + len, f ? f : "", l);
        offs[cnt++] = len;
        len += l;
    }
    if (!rc && s != SQLITE_DONE) rc = catx_err(c, s, "listing files", e);
    sqlite3_finalize(st);
    char **a = NULL;
    if (!rc && !(a = malloc((cnt + 1) * sizeof *a)))
        rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    if (rc) { free(blk); free(offs); return rc; }
    for (size_t i = 0; i < cnt; i++) a[i] = blk + offs[i];
    if (!cnt) { free(blk); a[0] = NULL; }
    free(offs);
    *names = a;
    *n = cnt;
    return GNNDB_OK;
}

static void token_row(sqlite3_stmt *st, void *dst)
{
    *(uint64_t *)dst = (uint64_t)sqlite3_column_int64(st, 0);
}

int cat_tokens(cat_db *c, uint64_t **tokens, size_t *n, gnn_err *e)
{
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT token FROM graphs UNION "
             "SELECT token FROM tables UNION %s%s"
             "SELECT token FROM splits",
             c->has_packs ? "SELECT token FROM packs UNION " : "",
             c->has_eids ? "SELECT eid_token FROM graphs WHERE has_eids "
                           "UNION " : "");
    void *a;
    int rc = catx_query_rows(c, sql, 0, NULL, token_row, sizeof **tokens, &a,
                             n, "listing tokens", e);
    *tokens = rc ? NULL : a;
    return rc;
}

/* ---- statement log ------------------------------------------------------- */

int cat_log(cat_db *c, const char *sql, int rc, double ms, gnn_err *e)
{
    int r = catx_writable(c, e);
    if (r) return r;
    sqlite3_stmt *st;
    if ((r = catx_prepare(c, "INSERT INTO stmt_log(ts, sql, rc, ms) VALUES("
                             "strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?1, ?2, "
                             "?3)", &st, e)))
        return r;
    if (sql) sqlite3_bind_text(st, 1, sql, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, rc);
    sqlite3_bind_double(st, 3, ms);
    return catx_run(c, st, "logging a statement", e);
}
