/* stmt.h — the prepared statement (struct gnndb_stmt) and the operations
** each statement kind supplies (stmt_ops, the table in dispatch.c). The top
** of the library: the commands it runs are cmd/cmd.h's. */
#ifndef GNN_STMT_H
#define GNN_STMT_H

#include "db.h"
#include "exec.h"
#include "plan.h"
#include "rowset.h"
#include "scan.h"
#include "../parser/ast.h"

#define ST_NEW     0
#define ST_RUNNING 1
#define ST_DONE    2
#define ST_ERROR   3

typedef struct stmt_ops stmt_ops;

struct gnndb_stmt {
    gnndb *db;
    char *sql;
    ast_stmt *ast;
    const stmt_ops *ops; /* what its kind does at each stage */
    int state;
    int last_rc;
    rowset *rs;          /* result rows; for SAMPLE the current batch's row */
    size_t row;          /* 1-based index of the current row, 0 before */
    plan plan;
    hb_exec *x;
    struct pk_scan *pk;  /* SCAN PACK's reader */
    const gnndb_batch_view *view;
    int64_t status[GNN_NSTATUS];
    scan_exec *scan;     /* SCAN's executor */
    struct gr_exec *gr;  /* GATHER's executor */
    int digested;        /* the current batch's digest is in its view */
    int digest_col;      /* the summary row's digest column (empty until
                         ** read), or -1 */
};

/* What a statement kind does at each stage of its life, as io.c's table
** says what an I/O backend does. A NULL stage is one the kind skips. Each
** stage reports failure as a code with the words in `e`. */
struct stmt_ops {
    /* gnndb_prepare, once parsed: plan, or open a reader. When it fails,
    ** gnndb_finalize still runs `finalize`, which frees what it began. */
    int (*prepare)(gnndb_stmt *st, gnn_err *e);
    /* the first gnndb_step: the statement's whole work (a write, a report),
    ** its rows, if any, left in st->rs */
    int (*run)(gnndb_stmt *st, gnn_err *e);
    /* every gnndb_step, the first after `run`: GNNDB_BATCH, GNNDB_ROW,
    ** GNNDB_DONE or an error; NULL hands out the rows in st->rs */
    int (*step)(gnndb_stmt *st, gnn_err *e);
    /* gnndb_finalize: release what prepare and step opened */
    void (*finalize)(gnndb_stmt *st);
    /* gnndb_batch_digest: compute the current batch's digest into its
    ** view; NULL where the step already set it */
    void (*digest)(gnndb_stmt *st);
    /* whether a successful run changed the database and goes in the
    ** catalog's log of statements; NULL: never */
    int (*writes)(const ast_stmt *s);
};

/* The operations of statement s (dispatch.c); never NULL. */
const stmt_ops *stmt_ops_of(const ast_stmt *s);

#endif
