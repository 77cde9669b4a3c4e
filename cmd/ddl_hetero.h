/* ddl_hetero.h — typed graphs (ddl_hetero.c): the statements, with plain
** arguments, and the steps IMPORT OGB of a heterogeneous dataset takes
** to build every relation before one catalog transaction publishes all. */
#ifndef GNN_DDL_HETERO_H
#define GNN_DDL_HETERO_H

#include "ddl.h"

/* CREATE GRAPH name without FROM: a typed graph of no types yet
** (block_size 0: the default; its relations' blocks take it). */
int ddl_create_typed_graph(gnndb *db, const char *name, int64_t block_size,
                           gnn_err *e);
/* The graphs row of a new typed graph (a fresh token, no file). */
void ddl_typed_graph_row(const char *name, uint32_t block_size, cat_graph *g);
/* Graph `name` into g; GNNDB_MISUSE, `what` naming the statement, unless
** it is typed. */
int ddl_typed_graph(gnndb *db, const char *name, const char *what,
                    cat_graph *g, gnn_err *e);

/* CREATE NODES type ON graph COUNT n. */
int ddl_create_nodes(gnndb *db, const char *graph, const char *type,
                     int64_t count, gnn_err *e);

/* The statement's target as a graph of its own: with `type`, node type
** `type` of typed graph `graph` (t filled; view a copy of g named
** "graph.type" with nodes = the type's count, for ddl_table_build and
** ddl_split_members, whose ids are then local to the type); without, the
** graph itself, which must not be typed. */
int ddl_type_view(gnndb *db, const char *graph, const char *type,
                  cat_graph *g, cat_node_type *t, cat_graph *view,
                  gnn_err *e);

/* CREATE RELATION name ON graph FROM src TO dst 'path' ... */
typedef struct ddl_rel_spec {
    const char *graph, *name, *src_type, *dst_type, *path;
    int with_reverse;
    const char *rev;          /* the reverse's name; NULL: rev_<name> */
    int undirected;           /* reverses into the relation (src == dst) */
    int no_edge_ids;          /* WITHOUT EDGE IDS */
    imp_graph_opts o;         /* how the file reads: format, text, key,
                                 DROP DUPLICATES / SELF LOOPS */
} ddl_rel_spec;
int ddl_create_relation(gnndb *db, const ddl_rel_spec *r, gnn_err *e);
/* DROP RELATION name ON graph (its reverse, a relation of its own, stays). */
int ddl_drop_relation(gnndb *db, const char *graph, const char *name,
                      gnn_err *e);

/* One relation being built: its topology (x->d.o set by the caller, as
** for ddl_graph_build) over the global ids of typed graph g. reverse: the
** edges turned round (dst -> src), as relation (dst, name, src). Then
** ddl_graph_index(&x->d), ddl_rel_insert in the caller's transaction, and
** ddl_graph_undo / ddl_graph_free of x->d. */
typedef struct ddl_rel {
    ddl_graph d;
    imp_rel t;
    cat_relation r;
} ddl_rel;
int ddl_rel_build(gnndb *db, const cat_graph *g, const cat_node_type *src,
                  const cat_node_type *dst, const char *name,
                  const char *path, int reverse, ddl_rel *x, gnn_err *e);
int ddl_rel_insert(gnndb *db, int64_t parent_id, ddl_rel *x, gnn_err *e);

#endif
