/* ddl_ctl.c — an import's controls: progress, interruption, scratch files,
** and its memory, PRAGMA import_memory within what memory_limit leaves for
** data (memory.c) beside the importer's own buffers; and the check at
** prepare that the limit leaves an import room at all. */
#include "ddl.h"
#include "memory.h"

#include <stdio.h>
#include <string.h>

int ddl_ctl_init(gnndb *db, const char *what, uint32_t block_size,
                 int64_t least, ddl_ctl *c, gnn_err *e)
{
    memset(c, 0, sizeof *c);
    snprintf(c->what, sizeof c->what, "%s", what);
    imp_ctl *k = &c->c;
    k->progress = db->progress ? db_import_progress : NULL;
    k->progress_arg = db;
    k->interrupt = (volatile int *)&db->interrupt;
    k->tmpdir = db->dir;
    k->what = c->what;
    k->budget_words = c->words;
    int64_t buffers = imp_buffer_bytes(block_size);
    mem_reserve r;
    int rc = db_memory_reserve(db, 0, buffers + least + ((int64_t)1 << 20),
                               c->what, &r, e);
    if (rc) return rc;
    /* what the caller holds through the import (a row map, an append's
    ** old keys and times) comes out of the import's own share */
    int64_t left = r.data - buffers - least;
    k->mem_budget = (size_t)GNN_MIN(db->pragma.import_memory, left);
    char b1[32], b2[32], b3[32];
    snprintf(c->words, sizeof c->words, "PRAGMA import_memory %s within "
             "memory_limit %s, less the importer's buffers (%s); raise "
             "PRAGMA %s", db_fmt_size(db->pragma.import_memory, b1, sizeof b1),
             db_fmt_size(r.limit, b2, sizeof b2),
             db_fmt_size(buffers, b3, sizeof b3),
             db->pragma.import_memory < left ? "import_memory" : "memory_limit");
    return GNNDB_OK;
}

/* The words of a statement that imports, for messages. */
static const char *import_words(const ast_stmt *s, char *buf, size_t cap)
{
    const char *g = s->graph ? s->graph : "";
    switch (s->kind) {
    case AST_CREATE_GRAPH: snprintf(buf, cap, "CREATE GRAPH %s", s->name); break;
    case AST_CREATE_RELATION:
        snprintf(buf, cap, "CREATE RELATION %s IN %s", s->name, g); break;
    case AST_IMPORT_LABELS: snprintf(buf, cap, "IMPORT LABELS INTO %s", g); break;
    case AST_IMPORT_FEATURES:
        snprintf(buf, cap, "IMPORT FEATURES %s INTO %s", s->name, g); break;
    case AST_IMPORT_EDGE_FEATURES:
        snprintf(buf, cap, "IMPORT EDGE FEATURES %s INTO %s", s->name, g);
        break;
    case AST_IMPORT_TIMES:
        snprintf(buf, cap, "IMPORT %s TIMES INTO %s",
                 s->time_nodes ? "NODE" : "EDGE", g);
        break;
    case AST_INSERT_EDGES: snprintf(buf, cap, "INSERT EDGES INTO %s", g); break;
    case AST_INSERT_NODES: snprintf(buf, cap, "INSERT NODES INTO %s", g); break;
    case AST_INSERT_ROWS:
        snprintf(buf, cap, "INSERT ROWS INTO %s ON %s",
                 s->name ? s->name : "LABELS", g);
        break;
    case AST_COMPACT: snprintf(buf, cap, "COMPACT %s", g); break;
    default: snprintf(buf, cap, "IMPORT OGB AS %s", s->name); break;
    }
    return buf;
}

int ddl_import_prepare(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    if (s->kind == AST_CREATE_GRAPH && !s->path) return GNNDB_OK; /* typed */
    char what[2 * CAT_NAME_MAX + 32];
    imp_graph_opts o = {.map_ids = s->map_ids, .reorder = s->reorder != 0};
    int64_t least = s->kind == AST_CREATE_GRAPH && s->nodes > 0
                        ? s->nodes * imp_graph_node_bytes(&o) : 0;
    mem_reserve r;
    return db_memory_reserve(db, 0, imp_buffer_bytes((uint32_t)s->block_size) +
                                        least + ((int64_t)1 << 20),
                             import_words(s, what, sizeof what), &r, e);
}
