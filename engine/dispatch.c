/* dispatch.c — runs a statement other than SAMPLE (but for SAMPLE ... INTO
** PACK, a write) and logs the ones that change the database. */
#include "stmt.h"
#include "ddl.h"
#include "pack.h"

#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int stmt_run(gnndb_stmt *st, gnn_err *e)
{
    gnndb *db = st->db;
    const ast_stmt *s = st->ast;
    double t0 = now();
    int rc, writes = 1;
    switch (s->kind) {
    case AST_CREATE_GRAPH: rc = ddl_create_graph(db, s, e); break;
    case AST_IMPORT_FEATURES: rc = ddl_import(db, s, 0, e); break;
    case AST_IMPORT_LABELS: rc = ddl_import(db, s, 1, e); break;
    case AST_CREATE_SPLIT: rc = ddl_create_split(db, s, e); break;
    case AST_IMPORT_OGB: rc = ddl_import_ogb(db, s, e); break;
    case AST_PROPAGATE: rc = propagate_run(db, s, e); break;
    case AST_DROP_GRAPH:
    case AST_DROP_FEATURES:
    case AST_DROP_SPLIT: rc = ddl_drop(db, s, e); break;
    case AST_SHOW_GRAPHS: writes = 0; rc = show_graphs(db, &st->rs, e); break;
    case AST_DESCRIBE:
        writes = 0;
        rc = show_describe(db, s->name, &st->rs, e);
        break;
    case AST_PRAGMA:
        /* of the pragmas only calibrate's changing forms touch the database */
        writes = s->name && s->value && !strcmp(s->name, "calibrate");
        rc = pragma_run(db, s, &st->rs, e);
        break;
    case AST_CHECK: writes = 0; rc = check_run(db, s, &st->rs, e); break;
    case AST_SAMPLE: /* SAMPLE ... INTO PACK */
        rc = pack_build(db, s, &st->plan, st->sql, &st->rs, e);
        break;
    case AST_DROP_PACK: rc = pack_drop(db, s, e); break;
    default:
        return gnn_seterr(e, GNNDB_INTERNAL, "statement kind %d not runnable",
                          (int)s->kind);
    }
    /* the log of statements that changed something; a failure to log is
    ** not the statement's failure */
    if (writes && rc == GNNDB_OK && !(db->flags & GNNDB_OPEN_READONLY)) {
        gnn_err le = {0};
        cat_log(db->cat, st->sql, rc, (now() - t0) * 1000.0, &le);
    }
    return rc;
}
