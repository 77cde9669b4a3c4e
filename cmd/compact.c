/* compact.c — COMPACT g: folds the current version's delta segments into
** plain block files. A placeholder until the command is written: it
** refuses in words, so that the statement parses, dispatches and links. */
#include "ddl.h"

int ddl_compact(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    (void)db;
    return gnn_seterr(e, GNNDB_MISUSE, "COMPACT %s: not built yet", s->graph);
}
