/* stmt.c — a statement's life: prepare (parse, and plan a SAMPLE against the
** catalog), step (run; rows or mini-batches), finalize; the column
** accessors and gnndb_exec on top of them. */
#include "stmt.h"
#include "pack.h"
#include "../parser/parse.h"

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

    if (ast->kind == AST_SAMPLE) {
        rc = plan_build(db, ast, &st->plan, &e);
        st->has_plan = 1;
        if (rc) {
            gnndb_finalize(st);
            return db_take(db, &e);
        }
        st->status[GNNDB_STATUS_SEED] = (int64_t)st->plan.seed;
        st->status[GNNDB_STATUS_SEED_DRAWN] = st->plan.seed_drawn;
        st->status[GNNDB_STATUS_TOTAL_BATCHES] = st->plan.total_batches;
        st->status[GNNDB_STATUS_HYPERBATCH] = st->plan.hyperbatch;
    } else if (ast->kind == AST_SCAN_PACK) {
        if ((rc = pk_scan_open(db, ast, &st->pk, &e))) {
            gnndb_finalize(st);
            return db_take(db, &e);
        }
        st->status[GNNDB_STATUS_TOTAL_BATCHES] = pk_scan_total(st->pk);
    }
    if (ast->kind == AST_SCAN) {
        if ((rc = scan_open(db, ast, &st->scan, &e))) {
            gnndb_finalize(st);
            return db_take(db, &e);
        }
        scan_status(st->scan, st->status);
    }
    *pstmt = st;
    db->err.rc = GNNDB_OK;
    return GNNDB_OK;
}

static void copy_exec_status(gnndb_stmt *st)
{
    if (!st->x) return;
    const hb_stats *s = hb_get_stats(st->x);
    uint64_t br = s->gather.blocks_read, by = s->gather.bytes_read;
    uint64_t hi = s->gather.hits, mi = s->gather.misses;
    for (int h = 0; h < AST_MAX_HOPS; h++) {
        br += s->hop[h].blocks_read;
        by += s->hop[h].bytes_read;
        hi += s->hop[h].hits;
        mi += s->hop[h].misses;
    }
    st->status[GNNDB_STATUS_BATCHES] = (int64_t)s->batches;
    st->status[GNNDB_STATUS_BLOCKS_READ] = (int64_t)br;
    st->status[GNNDB_STATUS_BYTES_READ] = (int64_t)by;
    st->status[GNNDB_STATUS_CACHE_HITS] = (int64_t)hi;
    st->status[GNNDB_STATUS_CACHE_MISSES] = (int64_t)mi;
    st->status[GNNDB_STATUS_EDGES] = (int64_t)s->edges;
    if (s->max_hyperbatch)
        st->status[GNNDB_STATUS_HYPERBATCH] = (int64_t)s->max_hyperbatch;
    double scpu = 0, swall = s->gather.seconds - s->gather.cpu_seconds;
    uint64_t work = 0;
    for (int h = 0; h < AST_MAX_HOPS; h++) {
        work += s->hop[h].edges;
        scpu += s->hop[h].cpu_seconds;
        swall += s->hop[h].seconds - s->hop[h].cpu_seconds;
    }
    st->status[GNNDB_STATUS_SAMPLE_CPU_NS] = (int64_t)(scpu * 1e9);
    st->status[GNNDB_STATUS_GATHER_CPU_NS] =
        (int64_t)(s->gather.cpu_seconds * 1e9);
    st->status[GNNDB_STATUS_GATHER_BYTES] = (int64_t)s->gather.bytes_out;
    st->status[GNNDB_STATUS_IO_WAIT_NS] = (int64_t)(swall * 1e9);
    st->status[GNNDB_STATUS_SAMPLED_WORK] = (int64_t)work;
    st->status[GNNDB_STATUS_ROW_CACHE_HITS] = (int64_t)s->cache_hits;
    st->status[GNNDB_STATUS_ROW_CACHE_MISSES] = (int64_t)s->cache_misses;
    st->status[GNNDB_STATUS_ROW_CACHE_SAVED] = (int64_t)s->cache_blocks_saved;
    st->status[GNNDB_STATUS_SPILL_WRITTEN] = (int64_t)s->spill_written;
    st->status[GNNDB_STATUS_SPILL_READ] = (int64_t)s->spill_read;
    uint64_t pages = s->gather.pages_read, part = s->gather.partial_blocks;
    for (int h = 0; h < AST_MAX_HOPS; h++) {
        pages += s->hop[h].pages_read;
        part += s->hop[h].partial_blocks;
    }
    st->status[GNNDB_STATUS_PAGES_READ] = (int64_t)pages;
    st->status[GNNDB_STATUS_PARTIAL_BLOCKS] = (int64_t)part;
    memcpy(st->db->last_status, st->status, sizeof st->status);
}

static const char *const sample_cols[] = {
    "epoch", "batch", "seeds", "nodes", "edges", "feature_bytes", "digest",
    NULL};

static int batch_row(gnndb_stmt *st, const gnndb_batch_view *v)
{
    rs_free(st->rs);
    st->rs = rs_new(7, sample_cols);
    if (!st->rs || rs_row(st->rs)) return GNNDB_NOMEM;
    rs_int(st->rs, v->epoch);
    rs_int(st->rs, v->batch);
    rs_int(st->rs, v->num_seeds);
    rs_int(st->rs, v->num_nodes);
    rs_int(st->rs, v->num_edges);
    rs_int(st->rs, v->num_nodes * v->x_dim * 4);
    if (rs_textf(st->rs, "%016" PRIx64, v->digest)) return GNNDB_NOMEM;
    st->row = 1;
    return GNNDB_OK;
}

static int progress(gnndb_stmt *st)
{
    db_progress(st->db, st->status[GNNDB_STATUS_BATCHES], 1,
                st->plan.total_batches);
    return GNNDB_OK;
}

/* The next batch of the run. A hyperbatch stages many batches at once: an
** interrupt (gnndb_interrupt, the progress handler) stops before the next
** one handed out, not only before the next hyperbatch is built. */
static int next_batch(gnndb_stmt *st, const gnndb_batch_view **v, gnn_err *e)
{
    if (st->db->interrupt) {
        *v = NULL;
        return gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
    }
    return hb_next(st->x, v, e);
}

static int step_sample(gnndb_stmt *st, gnn_err *e)
{
    gnndb *db = st->db;
    int rc;
    if (!st->x && (rc = hb_open(db, &st->plan, &st->x, e))) return rc;
    if (st->ast->explain == 2) {
        /* EXPLAIN ANALYZE: run every batch, then report */
        const gnndb_batch_view *v;
        while ((rc = next_batch(st, &v, e)) == GNNDB_BATCH) {
            copy_exec_status(st);
            progress(st);
        }
        if (rc != GNNDB_DONE) return rc;
        copy_exec_status(st);
        st->rs = rs_new(1, (const char *const[]){"plan", NULL});
        if (!st->rs ||
            explain_rows(&st->plan, hb_get_stats(st->x), st->rs))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        st->row = 0;
        return st->rs->nrows ? (st->row++, GNNDB_ROW) : GNNDB_DONE;
    }
    const gnndb_batch_view *v;
    rc = next_batch(st, &v, e);
    copy_exec_status(st);
    if (rc != GNNDB_BATCH) return rc;
    st->view = v;
    progress(st);
    if (batch_row(st, v)) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    return GNNDB_BATCH;
}

/* The next batch of a SCAN, with its summary row. */
static int step_scan(gnndb_stmt *st, gnn_err *e)
{
    gnndb *db = st->db;
    const gnndb_batch_view *v = NULL;
    int rc = db->interrupt ? gnn_seterr(e, GNNDB_INTERRUPT, "interrupted")
                           : scan_next(st->scan, &v, e);
    scan_status(st->scan, st->status);
    memcpy(db->last_status, st->status, sizeof st->status);
    if (rc != GNNDB_BATCH) return rc;
    st->view = v;
    db_progress(db, st->status[GNNDB_STATUS_BATCHES], 1,
                st->status[GNNDB_STATUS_TOTAL_BATCHES]);
    if (batch_row(st, v)) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    return GNNDB_BATCH;
}

/* SCAN PACK: the next stored batch, with the row SAMPLE gives. */
static int step_scan_pack(gnndb_stmt *st, gnn_err *e)
{
    const gnndb_batch_view *v;
    int rc = st->db->interrupt ? gnn_seterr(e, GNNDB_INTERRUPT, "interrupted")
                               : pk_scan_next(st->pk, &v, e);
    st->status[GNNDB_STATUS_BYTES_READ] = (int64_t)pk_scan_bytes_read(st->pk);
    st->status[GNNDB_STATUS_BLOCKS_READ] = pk_scan_blocks_read(st->pk);
    if (rc != GNNDB_BATCH) return rc;
    st->view = v;
    st->status[GNNDB_STATUS_BATCHES]++;
    st->status[GNNDB_STATUS_EDGES] += v->num_edges;
    memcpy(st->db->last_status, st->status, sizeof st->status);
    db_progress(st->db, st->status[GNNDB_STATUS_BATCHES], 1,
                st->status[GNNDB_STATUS_TOTAL_BATCHES]);
    if (batch_row(st, v)) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    return GNNDB_BATCH;
}

/* A SAMPLE that this file steps (plain, EXPLAIN, EXPLAIN ANALYZE), not a
** SAMPLE ... INTO PACK, which dispatch.c runs as a write statement. */
static int is_sampling(const ast_stmt *s)
{
    return s->kind == AST_SAMPLE && !(s->pack && s->explain == 0);
}

static int step(gnndb_stmt *st)
{
    gnndb *db = st->db;
    if (st->state == ST_DONE) return GNNDB_DONE;
    if (st->state == ST_ERROR) return st->last_rc;
    gnn_err e = {0};
    int rc;
    st->view = NULL;
    if (st->state == ST_NEW) {
        db->interrupt = 0;
        st->state = ST_RUNNING;
        if (st->ast->kind == AST_SAMPLE && st->ast->explain == 1) {
            st->rs = rs_new(1, (const char *const[]){"plan", NULL});
            rc = (!st->rs || explain_rows(&st->plan, NULL, st->rs))
                     ? gnn_seterr(&e, GNNDB_NOMEM, "out of memory")
                     : GNNDB_OK;
        } else if (is_sampling(st->ast) || st->ast->kind == AST_SCAN_PACK ||
                   st->ast->kind == AST_SCAN) {
            rc = GNNDB_OK;
        } else {
            rc = stmt_run(st, &e);
        }
        if (rc) goto fail;
    }
    if ((is_sampling(st->ast) && st->ast->explain != 1 &&
         (st->ast->explain == 0 || !st->rs)) ||
        st->ast->kind == AST_SCAN_PACK) {
        rc = st->ast->kind == AST_SCAN_PACK ? step_scan_pack(st, &e)
                                            : step_sample(st, &e);
        if (rc == GNNDB_BATCH || rc == GNNDB_ROW) return rc;
        if (rc == GNNDB_DONE) {
            st->state = ST_DONE;
            return rc;
        }
        goto fail;
    }
    if (st->ast->kind == AST_SCAN) {
        rc = step_scan(st, &e);
        if (rc == GNNDB_BATCH) return rc;
        if (rc == GNNDB_DONE) {
            st->state = ST_DONE;
            return rc;
        }
        goto fail;
    }
    if (st->rs && st->row < st->rs->nrows) {
        st->row++;
        return GNNDB_ROW;
    }
    st->state = ST_DONE;
    return GNNDB_DONE;
fail:
    st->state = ST_ERROR;
    st->last_rc = db_take(db, &e);
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
    copy_exec_status(st);
    hb_close(st->x);
    scan_close(st->scan);
    pk_scan_close(st->pk);
    if (st->has_plan) plan_free(&st->plan);
    rs_free(st->rs);
    ast_free(st->ast);
    free(st->sql);
    free(st);
    return GNNDB_OK;
}

const char *gnndb_sql(gnndb_stmt *st) { return st ? st->sql : NULL; }

const gnndb_batch_view *gnndb_batch(gnndb_stmt *st)
{
    return st ? st->view : NULL;
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
    return rs_cell(st->rs, st->row - 1, i);
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
