/* cat_int.h — what the files of the catalog share: the connection and the
** helpers that run SQL on it and turn SQLite's errors into GNNDB codes. */
#ifndef GNN_CAT_INT_H
#define GNN_CAT_INT_H

#include <sqlite3.h>

#include "catalog.h"

struct cat_db {
    sqlite3 *db;
    int readonly;
    int has_packs;   /* the packs tables exist (catalog/packs.c) */
    int has_eids;    /* graphs has the edge-id columns (format 3) */
    int has_types;   /* node types and relations exist (migration 5) */
    int has_versions;/* graphs has the version columns (migration 7) */
    char path[1024]; /* named in every message */
};

/* Words for SQLite result `rc` (from the last call on c->db), mapped to a
** GNNDB code; `what` says what was being done. */
int catx_err(cat_db *c, int rc, const char *what, gnn_err *e);
/* Compile one statement. */
int catx_prepare(cat_db *c, const char *sql, sqlite3_stmt **st, gnn_err *e);
/* Run SQL that returns no rows. */
int catx_exec(cat_db *c, const char *sql, gnn_err *e);
/* Step a statement to its end (an INSERT, UPDATE or DELETE); finalizes it. */
int catx_run(cat_db *c, sqlite3_stmt *st, const char *what, gnn_err *e);
/* *yes = the count `sql` selects is above zero (a probe of the schema:
** whether a table or column a migration adds is there). */
int catx_count_nonzero(cat_db *c, const char *sql, int *yes, gnn_err *e);

/* A savepoint around a change made of several statements, so that it is
** all-or-nothing whether or not the caller holds a transaction.
** catx_sp_end releases it when rc is GNNDB_OK, rolls it back otherwise,
** and returns rc (or the error of the release). */
int catx_sp_begin(cat_db *c, gnn_err *e);
int catx_sp_end(cat_db *c, int rc, gnn_err *e);

/* Copy text column `col` into dst (NUL-terminated, truncated to cap). */
void catx_text(char *dst, size_t cap, sqlite3_stmt *st, int col);

/* Run a query bound to (?1 = i1, ?2 = s2, as far as it has parameters) and
** copy each row with `row` into a growing array of `size`-byte elements
** (zeroed first). *out is malloc'd, also when empty; `what` names the
** reading in errors. */
typedef void (*catx_row_fn)(sqlite3_stmt *st, void *dst);
int catx_query_rows(cat_db *c, const char *sql, int64_t i1, const char *s2,
                    catx_row_fn row, size_t size, void **out, size_t *n,
                    const char *what, gnn_err *e);

/* Run each statement of `sqls` (NULL-terminated) bound to ?1 = id inside
** one savepoint; *changed gets the rows the last one changed. */
int catx_delete_all(cat_db *c, const char *const *sqls, int64_t id,
                    int *changed, gnn_err *e);

/* GNNDB_READONLY naming the file when c was opened read-only. */
int catx_writable(cat_db *c, gnn_err *e);

/* Note whether graphs has the edge-id columns (objects.c): a writable
** open has added them (migration 4); a read-only format-2 catalog lacks
** them, and its graphs read as graphs without edge ids. */
int catx_eids_schema(cat_db *c, gnn_err *e);
/* The edge-id columns of graphs, migration 4 of catalog.c. */
extern const char catx_schema_eids[];

/* Note whether the typed-graph schema exists (hetero.c): a writable open
** has added it (migration 5); a read-only catalog without it has no typed
** graphs, and its tables and splits read as homogeneous (node_type -1). */
int catx_types_schema(cat_db *c, gnn_err *e);
/* Node types and relations, migration 5 of catalog.c. */
extern const char catx_schema_types[];
/* Before graph `graph_id` is deleted, once its relations' graphs rows are
** (drop.c): its node types and relation rows; and, when it is a relation
** itself, its relation row, its edges taken off its typed graph's. */
int catx_types_drop_graph(cat_db *c, int64_t graph_id, gnn_err *e);

/* A token column: uint64 in memory, INTEGER (int64) in SQLite. */
static inline uint64_t catx_token(sqlite3_stmt *st, int col)
{
    return (uint64_t)sqlite3_column_int64(st, col);
}

/* Rows of graphs (graph_rows.c): "SELECT <the columns of a graph row>
** FROM graphs WHERE <where>" into sql, and the one graph such a query
** (?1 = i1, ?2 = s2) selects; *found says whether. */
const char *catx_graph_select(cat_db *c, const char *where, char *sql,
                              size_t cap);
int catx_graph_one(cat_db *c, const char *sql, int64_t i1, const char *s2,
                   cat_graph *g, int *found, gnn_err *e);
/* One row of such a query into the cat_graph at dst (catx_row_fn). */
void catx_graph_row(sqlite3_stmt *st, void *dst);

/* The version columns of graphs, migration 7 (versions.c), and the probe
** that notes whether they exist. */
extern const char catx_schema_versions[];
int catx_versions_schema(cat_db *c, gnn_err *e);
/* A graph row just read becomes its current version: a plain graph past
** version 1 takes its version row's topology (graph_rows.c). What
** differs between two versions (their topology columns) copied; the name
** of version n's row ("<g>.__v<n>"), GNNDB_RANGE when too long. */
int catx_version_current(cat_db *c, cat_graph *g, gnn_err *e);
void catx_copy_topology(cat_graph *dst, const cat_graph *src);
int catx_version_name(const cat_graph *g, int64_t n, char *name, size_t cap,
                      gnn_err *e);

/* The time ranges table, migration 6 of catalog.c (time_ranges.c). */
extern const char catx_schema_time_ranges[];

/* Note whether the packs tables exist: a writable open has added them
** (migration 3); a read-only catalog without them has no packs. */
int catx_packs_schema(cat_db *c, gnn_err *e);
/* The pack tables' schema, migration 3 of catalog.c. */
extern const char catx_schema_packs[];
/* Delete the packs of a graph with their batch lists and checksums. */
int catx_packs_drop_graph(cat_db *c, int64_t graph_id, gnn_err *e);

#endif
