/* stmt.h — the prepared statement (struct gnndb_stmt) and the entry points
** of the statements that are not SAMPLE. */
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

struct gnndb_stmt {
    gnndb *db;
    char *sql;
    ast_stmt *ast;
    int state;
    int last_rc;
    rowset *rs;          /* result rows; for SAMPLE the current batch's row */
    size_t row;          /* 1-based index of the current row, 0 before */
    plan plan;
    int has_plan;
    hb_exec *x;
    struct pk_scan *pk;  /* SCAN PACK's reader */
    const gnndb_batch_view *view;
    int64_t status[GNN_NSTATUS];
    scan_exec *scan;     /* SCAN's executor */
};

/* Run a statement other than SAMPLE, leaving its rows (if any) in st->rs. */
int stmt_run(gnndb_stmt *st, gnn_err *e);

/* The statements, one file each. */
int ddl_create_graph(gnndb *db, const ast_stmt *s, gnn_err *e);
int ddl_import(gnndb *db, const ast_stmt *s, int labels, gnn_err *e);
int ddl_create_split(gnndb *db, const ast_stmt *s, gnn_err *e);
int ddl_drop(gnndb *db, const ast_stmt *s, gnn_err *e);
int show_graphs(gnndb *db, rowset **out, gnn_err *e);
int show_describe(gnndb *db, const char *graph, rowset **out, gnn_err *e);
int pragma_run(gnndb *db, const ast_stmt *s, rowset **out, gnn_err *e);
int check_run(gnndb *db, const ast_stmt *s, rowset **out, gnn_err *e);
int propagate_run(gnndb *db, const ast_stmt *s, gnn_err *e);

#endif
