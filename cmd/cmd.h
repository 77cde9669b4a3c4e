/* cmd.h — the commands: every statement that is not a SAMPLE or a SCAN,
** one entry point each, called by stmt/dispatch.c's table. Each takes the
** handle and the parsed statement, does the statement's whole work, and
** reports failure as a code with the words in `e`; those that answer with
** rows return them in a new rowset in *out (the caller frees it). */
#ifndef GNN_CMD_H
#define GNN_CMD_H

#include "db.h"
#include "plan.h"
#include "rowset.h"
#include "../parser/ast.h"

/* CREATE GRAPH, IMPORT FEATURES / LABELS (labels: 1), CREATE SPLIT and
** DROP GRAPH / FEATURES / SPLIT (cmd/create.c, cmd/drop.c). */
int ddl_create_graph(gnndb *db, const ast_stmt *s, gnn_err *e);
int ddl_import(gnndb *db, const ast_stmt *s, int labels, gnn_err *e);
int ddl_create_split(gnndb *db, const ast_stmt *s, gnn_err *e);
int ddl_drop(gnndb *db, const ast_stmt *s, gnn_err *e);
/* Typed graphs (cmd/ddl_hetero.c): CREATE NODES, CREATE RELATION, DROP
** RELATION. */
int ddl_create_nodes_stmt(gnndb *db, const ast_stmt *s, gnn_err *e);
int ddl_create_relation_stmt(gnndb *db, const ast_stmt *s, gnn_err *e);
int ddl_drop_relation_stmt(gnndb *db, const ast_stmt *s, gnn_err *e);
/* IMPORT EDGE FEATURES w INTO g FROM 'f', and INTO g.r for relation r of
** a typed graph (cmd/ddl_edges.c). */
int ddl_import_edge_features(gnndb *db, const ast_stmt *s, gnn_err *e);
/* IMPORT EDGE TIMES / IMPORT NODE TIMES INTO g FROM 'f' (ddl_times.c). */
int ddl_import_times(gnndb *db, const ast_stmt *s, gnn_err *e);
/* INSERT EDGES INTO g FROM 'f' and INSERT NODES INTO g COUNT n
** (insert.c): g's next version. DROP
** VERSIONS BEFORE n ON g and SHOW VERSIONS g (versions.c). */
int ddl_insert_edges(gnndb *db, const ast_stmt *s, gnn_err *e);
int ddl_insert_nodes(gnndb *db, const ast_stmt *s, gnn_err *e);
/* INSERT ROWS INTO t | LABELS ON g FROM 'f' (insert_rows.c) */
int ddl_insert_rows(gnndb *db, const ast_stmt *s, gnn_err *e);
int ddl_drop_versions(gnndb *db, const ast_stmt *s, gnn_err *e);
int show_versions(gnndb *db, const char *graph, rowset **out, gnn_err *e);
/* IMPORT OGB 'dir' AS name (cmd/ddl_ogb.c). */
int ddl_import_ogb(gnndb *db, const ast_stmt *s, gnn_err *e);
/* CREATE EDGE SPLIT s ON g FROM 'pairs' and CREATE EDGE SPLITS a, b ON g
** RANDOM fa, fb [SEED s] (cmd/ddl_edge_split.c). */
int ddl_create_edge_split(gnndb *db, const ast_stmt *s, gnn_err *e);
int ddl_create_edge_splits(gnndb *db, const ast_stmt *s, gnn_err *e);

/* SHOW GRAPHS and DESCRIBE graph [.part]: part a node type or relation of
** a typed graph (NULL: the whole graph) (cmd/show.c). */
int show_graphs(gnndb *db, rowset **out, gnn_err *e);
int show_describe(gnndb *db, const char *graph, const char *part,
                  rowset **out, gnn_err *e);
/* PRAGMA name [= value] (cmd/pragma.c). */
int pragma_run(gnndb *db, const ast_stmt *s, rowset **out, gnn_err *e);
/* CHECK (cmd/check.c) and PROPAGATE (cmd/propagate.c). */
int check_run(gnndb *db, const ast_stmt *s, rowset **out, gnn_err *e);
int propagate_run(gnndb *db, const ast_stmt *s, gnn_err *e);

/* SAMPLE ... INTO PACK: run the planned SAMPLE and store its batches as a
** new pack, published atomically; one result row (pack, epochs, batches,
** bytes of the file). Takes the write lock. DROP PACK name. (cmd/pack_build.c;
** the record layout is exec/pack.h's.) */
int pack_build(gnndb *db, const ast_stmt *s, plan *p, const char *sql,
               rowset **out, gnn_err *e);
int pack_drop(gnndb *db, const ast_stmt *s, gnn_err *e);

/* At prepare, what can be known without writing: the names the statement
** uses, and that memory_limit leaves room for what it cannot run without
** (GNNDB_NOMEM, in words, when it does not), so that a statement that
** cannot run within the limit fails before it changes anything. IMPORT and
** CREATE GRAPH / RELATION: their buffers, a mebibyte, and the nodes they
** declare; edge splits: their members (for RANDOM, those the fractions
** expect of the graph's edges). */
int check_prepare(gnndb *db, const ast_stmt *s, gnn_err *e);
int propagate_prepare(gnndb *db, const ast_stmt *s, gnn_err *e);
int ddl_import_prepare(gnndb *db, const ast_stmt *s, gnn_err *e);
int ddl_edge_split_prepare(gnndb *db, const ast_stmt *s, gnn_err *e);

#endif
