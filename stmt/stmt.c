/* stmt.c — a statement's life: prepare (parse, then what its kind does:
** plan a SAMPLE against the catalog, open a reader), step (run; rows or
** mini-batches), finalize; the column accessors and gnndb_exec on top of
** them. What each kind does at each stage is the table in dispatch.c. */
#include "stmt.h"
#include "../parser/parse.h"
#include "rss.h"
#include "clock.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int prepare(gnndb *db, const char *sql, int nbyte, gnndb_stmt **pstmt,
                   const char **tail)
{
    if (pstmt) *pstmt = NULL;
    if (!db || !sql || !pstmt) {
        if (db) db_error(db, GNNDB_MISUSE, "gnndb_prepare: NULL argument");
        return GNNDB_MISUSE;
    }
    size_t len = nbyte < 0 ? strlen(sql) : (size_t)nbyte;
    gnn_err e = {0};
    ast_stmt *ast = NULL;
    size_t used = 0;
    int rc = parse_statement(sql, len, 1, &ast, &used, &e);
    if (tail) *tail = sql + used;
    if (rc) return db_take(db, &e);
    if (!ast) return GNNDB_OK;

    gnndb_stmt *st = calloc(1, sizeof *st);
    if (!st || !(st->sql = strndup(sql, used))) {
        free(st);
        ast_free(ast);
        return db_error(db, GNNDB_NOMEM, "out of memory");
    }
    st->db = db;
    st->ast = ast;
    /* trim the text kept for gnndb_sql and the statement log */
    char *s = st->sql;
    while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r') s++;
    memmove(st->sql, s, strlen(s) + 1);

    st->ops = stmt_ops_of(ast);
    if (st->ops->prepare && (rc = st->ops->prepare(st, &e))) {
        gnndb_finalize(st);
        return db_take(db, &e);
    }
    *pstmt = st;
    db->err.rc = GNNDB_OK;
    return GNNDB_OK;
}

/* The first step's work. A statement that changed the database goes in the
** catalog's log, with its time; a failure to log is not the statement's
** failure. */
static int run(gnndb_stmt *st, gnn_err *e)
{
    gnndb *db = st->db;
    double t0 = gnn_now();
    int rc = st->ops->run(st, e);
    if (rc == GNNDB_OK && st->ops->writes && st->ops->writes(st->ast) &&
        !(db->flags & GNNDB_OPEN_READONLY)) {
        gnn_err le = {0};
        cat_log(db->cat, st->sql, rc, (gnn_now() - t0) * 1000.0, &le);
    }
    return rc;
}

static int step(gnndb_stmt *st)
{
    if (st->state == ST_DONE) return GNNDB_DONE;
    if (st->state == ST_ERROR) return st->last_rc;
    gnn_err e = {0};
    int rc;
    st->view = NULL;
    st->digested = 0;
    st->digest_col = -1;
    if (st->state == ST_NEW) {
        st->db->interrupt = 0;
        st->state = ST_RUNNING;
        if (st->ops->run && (rc = run(st, &e))) goto fail;
    }
    rc = st->ops->step ? st->ops->step(st, &e) : rs_step(st->rs, &st->row);
    if (rc == GNNDB_BATCH || rc == GNNDB_ROW) return rc;
    if (rc == GNNDB_DONE) {
        st->state = ST_DONE;
        return rc;
    }
fail:
    st->state = ST_ERROR;
    st->last_rc = db_take(st->db, &e);
    return st->last_rc;
}

/* The entry points that use the handle's state are guarded against use by
** two threads at once (db_enter); the guard is re-entrant, as gnndb_exec and
** callbacks call back in on the same thread. */
int gnndb_prepare(gnndb *db, const char *sql, int nbyte, gnndb_stmt **pstmt,
                  const char **tail)
{
    if (!db) return prepare(db, sql, nbyte, pstmt, tail);
    if (db_enter(db)) {
        if (pstmt) *pstmt = NULL;
        return GNNDB_MISUSE;
    }
    int rc = prepare(db, sql, nbyte, pstmt, tail);
    db_leave(db);
    return rc;
}

int gnndb_step(gnndb_stmt *st)
{
    if (!st) return GNNDB_MISUSE;
    if (db_enter(st->db)) return GNNDB_MISUSE;
    int rc = step(st);
    db_leave(st->db);
    return rc;
}

int gnndb_finalize(gnndb_stmt *st)
{
    if (!st) return GNNDB_OK;
    /* the statements that only report (a setting, a description) leave
    ** the heap alone, so that the next statement's reserve sees the same
    ** process from run to run */
    int k = st->ast ? (int)st->ast->kind : AST_PRAGMA;
    int trim = st->state != ST_NEW && k != AST_PRAGMA &&
               k != AST_SHOW_GRAPHS && k != AST_DESCRIBE;
    if (st->ops->finalize) st->ops->finalize(st);
    rs_free(st->rs);
    ast_free(st->ast);
    free(st->sql);
    free(st);
    /* what a statement that ran freed goes back to the system, so that the
    ** process's resident bytes come down for the next one (and the host) */
    if (trim) gnn_heap_trim();
    return GNNDB_OK;
}

const char *gnndb_sql(gnndb_stmt *st) { return st ? st->sql : NULL; }

const gnndb_batch_view *gnndb_batch(gnndb_stmt *st)
{
    return st ? st->view : NULL;
}

static uint64_t batch_digest_of(gnndb_stmt *st)
{
    if (!st->view) return 0;
    if (!st->digested && st->ops->digest) st->ops->digest(st);
    st->digested = 1;
    return st->view->digest;
}

uint64_t gnndb_batch_digest(gnndb_stmt *st)
{
    if (!st || db_enter(st->db)) return 0;
    uint64_t d = batch_digest_of(st);
    db_leave(st->db);
    return d;
}

int64_t gnndb_stmt_status(gnndb_stmt *st, int op)
{
    if (!st || op <= 0 || op >= GNN_NSTATUS) return -1;
    return st->status[op];
}

static rs_value *cell(gnndb_stmt *st, int i)
{
    if (!st || !st->rs || st->row == 0 || st->row > st->rs->nrows || i < 0 ||
        i >= st->rs->ncol)
        return NULL;
    rs_value *c = rs_cell(st->rs, st->row - 1, i);
    /* a batch's digest, a pass over all of it, is computed when read */
    if (i == st->digest_col && c->type == GNNDB_NULL) {
        char hex[24];
        snprintf(hex, sizeof hex, "%016" PRIx64, batch_digest_of(st));
        rs_set_text(st->rs, st->row - 1, i, hex);
    }
    return c;
}

int gnndb_column_count(gnndb_stmt *st)
{
    return st && st->rs ? st->rs->ncol : 0;
}

const char *gnndb_column_name(gnndb_stmt *st, int i)
{
    if (!st || !st->rs || i < 0 || i >= st->rs->ncol) return NULL;
    return st->rs->names[i];
}

int gnndb_column_type(gnndb_stmt *st, int i)
{
    rs_value *c = cell(st, i);
    return c ? c->type : GNNDB_NULL;
}

const char *gnndb_column_text(gnndb_stmt *st, int i)
{
    rs_value *c = cell(st, i);
    return c ? c->text : NULL;
}

int64_t gnndb_column_int64(gnndb_stmt *st, int i)
{
    rs_value *c = cell(st, i);
    return c ? c->i : 0;
}

double gnndb_column_double(gnndb_stmt *st, int i)
{
    rs_value *c = cell(st, i);
    return c ? c->d : 0.0;
}

static int exec(gnndb *db, const char *sql,
                int (*cb)(void *, int, char **, char **), void *arg)
{
    const char *p = sql;
    while (*p) {
        gnndb_stmt *st;
        const char *tail;
        int rc = gnndb_prepare(db, p, -1, &st, &tail);
        if (rc) return rc;
        p = tail;
        if (!st) continue;
        while ((rc = gnndb_step(st)) == GNNDB_ROW || rc == GNNDB_BATCH) {
            if (!cb) continue;
            int n = gnndb_column_count(st);
            char *vals[64], *names[64];
            if (n > 64) n = 64;
            for (int i = 0; i < n; i++) {
                vals[i] = (char *)gnndb_column_text(st, i);
                names[i] = (char *)gnndb_column_name(st, i);
            }
            if (cb(arg, n, vals, names)) {
                gnndb_finalize(st);
                return db_error(db, GNNDB_INTERRUPT,
                                "callback requested stop");
            }
        }
        gnndb_finalize(st);
        if (rc != GNNDB_DONE) return rc;
    }
    db->err.rc = GNNDB_OK;
    return GNNDB_OK;
}

int gnndb_exec(gnndb *db, const char *sql,
               int (*cb)(void *, int, char **, char **), void *arg)
{
    if (!db || !sql) return GNNDB_MISUSE;
    if (db_enter(db)) return GNNDB_MISUSE;
    int rc = exec(db, sql, cb, arg);
    db_leave(db);
    return rc;
}
