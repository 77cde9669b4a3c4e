/* ddl.h — the DDL toolkit (ddl.c): the steps of the statements that write
** (create.c, drop.c, ddl_hetero.c, ddl_edges.c, ddl_ogb.c ...), also for
** those that write several objects in one transaction (IMPORT OGB). Each
** object is first built: its block file published under a fresh name and its
** index keys put under a fresh token, both unseen until the catalog names
** them. The caller then inserts all of them in one catalog transaction, or
** undoes each (a crash in between leaves orphans that the next writable
** open removes). */
#ifndef GNN_DDL_H
#define GNN_DDL_H

#include "cmd.h"
#include "edgelist.h"
#include "import.h"
#include "timecol.h"

typedef struct ddl_graph {
    imp_graph_opts o;     /* set by the caller (token and block size too) */
    int no_edge_ids;      /* set by the caller: WITHOUT EDGE IDS */
    const char *what;     /* the caller's statement for messages (NULL:
                             CREATE GRAPH / CREATE RELATION name) */
    int64_t least;        /* bytes the caller holds beside the import's */
    char file[64];
    char eid_file[64];    /* with edge ids: the edge-id graph ... */
    char edges_file[64];  /* ... and the edge table */
    imp_graph_result r;
    cat_graph g;          /* filled by the build; id by the insert */
    cat_table edges;      /* the edge table's row (CAT_EDGES_TABLE) */
    int built;
} ddl_graph;

/* A time graph (ddl_times.c) being built: its file, token and blocks. */
typedef struct ddl_time_graph {
    uint64_t token;
    char file[64];
    tc_graph_result r;
    int built;
    int64_t tmin, tmax;      /* the range of the times, for DESCRIBE
                             ** (tmin > tmax: there were none) */
} ddl_time_graph;

typedef struct ddl_table {
    imp_feat_opts o;      /* set by the caller (labels, key, dtypes) */
    char file[64];
    imp_feat_result r;
    cat_table t;
    int built;
    int64_t old_id;       /* REPLACE: the table it replaces (0: none), ... */
    char old_file[CAT_NAME_MAX];  /* ... whose file goes after the commit */
} ddl_table;

typedef struct ddl_split {
    cat_split sp;
    uint32_t *m;          /* the members, sorted, owned */
    int built;            /* its index keys exist */
} ddl_split;

/* GNNDB_EXISTS unless graph `name` is new (and short enough). */
int ddl_check_new_graph(gnndb *db, const char *name, gnn_err *e);
int ddl_check_block_size(int64_t bs, uint32_t *out, gnn_err *e);
/* An importer's controls, and the words they point to. */
typedef struct ddl_ctl {
    imp_ctl c;
    char what[2 * CAT_NAME_MAX + 32];
    char words[160];
} ddl_ctl;
/* The controls of an import for statement words `what` ("CREATE GRAPH
** g"): progress, interruption, scratch files, and its memory: PRAGMA
** import_memory, at most what memory_limit leaves for data (memory.c)
** beside the importer's own buffers (imp_buffer_bytes of blocks of
** `block_size`). GNNDB_NOMEM, in words, when that leaves less than `least`
** bytes beside a mebibyte for the import. */
int ddl_ctl_init(gnndb *db, const char *what, uint32_t block_size,
                 int64_t least, ddl_ctl *c, gnn_err *e);
/* "disk is full in DIR: ..." first, whatever write it was. */
int ddl_disk_full_words(gnndb *db, int rc, gnn_err *e);
/* Drop the index keys of a token in a transaction of their own; used to
** undo a failed publication and after a drop (best effort: the next
** writable open removes what is left). */
void ddl_drop_token(gnndb *db, uint64_t token);
/* How the edge reader reads the file of statement s: FORMAT, HEADER,
** COLUMNS and KEY as CREATE GRAPH takes them (inflated .npz members go
** under the database directory). */
void ddl_edge_opts(gnndb *db, const ast_stmt *s, edge_opts *o);
/* The edge reader's EDGE_FMT_* of a statement's FORMAT (AST_FMT_*), and its
** HEADER and COLUMNS as the edge reader takes them (the rest zeroed). */
int ddl_edge_format(int ast_format);
void ddl_edge_text_opts(const ast_stmt *s, edge_opts *t);
/* The stored name of the table or split `name` of statement s:
** "type.name" on a node type (g.t), else name itself. */
int ddl_object_name(const ast_stmt *s, const char *name,
                    char out[CAT_NAME_MAX], gnn_err *e);

/* Build graph `name` from the edges at `path` (d->o as the caller set it;
** a fresh token is drawn), then put its index keys. Every file is read
** before the first index write: a bad input leaves even the index file as
** it was. Unless d->no_edge_ids, the edge-id graph and the edge table are
** built beside it (fresh tokens too) and published with it. */
int ddl_graph_build(gnndb *db, const char *name, const char *path,
                    ddl_graph *d, gnn_err *e);
int ddl_graph_index(gnndb *db, ddl_graph *d, gnn_err *e);
int ddl_graph_insert(gnndb *db, ddl_graph *d, gnn_err *e);
/* An append's importer options (cmd/insert.c): the statement's file and
** the options g was created with; timed: with a time column. */
void ddl_insert_opts(const ast_stmt *s, const cat_graph *g, int timed,
                     imp_graph_opts *o);
/* Publish d (and, when timed, time graph tg) as g's next version in one
** catalog transaction; source: what .schema prints for it. */
int ddl_version_publish(gnndb *db, const cat_graph *g, const char *source,
                        ddl_graph *d, ddl_time_graph *tg, int timed,
                        gnn_err *e);
/* INSERT EDGES / INSERT NODES s on g as a delta (cmd/insert_delta.c):
** *taken 0 (and GNNDB_OK) when this append is one for the rebuild. */
int ddl_insert_delta(gnndb *db, const ast_stmt *s, const cat_graph *g,
                     int timed, const char *what, const char *source,
                     int *taken, gnn_err *e);
/* COMPACT graph `name` when more than PRAGMA compact_fraction of its
** current version's blocks lie in delta segments (cmd/compact.c). */
int ddl_compact_due(gnndb *db, const char *name, gnn_err *e);

/* What ddl_graph_insert adds beside the graphs row d->g (inserted, its id
** set): checksums, degree histogram, the edge table's row. */
int ddl_graph_insert_rest(gnndb *db, ddl_graph *d, gnn_err *e);
void ddl_graph_undo(gnndb *db, ddl_graph *d);
void ddl_graph_free(ddl_graph *d);

/* The time graph of graph g (IMPORT EDGE TIMES, CREATE GRAPH ... COLUMNS
** (src, dst, t)) from times[0..n), one per input edge: its block file
** and index entries, read from g's edge-id graph (published). `what`
** starts the words of a refusal. */
int ddl_time_graph_build(gnndb *db, const cat_graph *g, const char *what,
                         const int64_t *t, size_t n, ddl_time_graph *tg,
                         gnn_err *e);
/* Its catalog rows, in the caller's transaction (g has its id); `source`
** is what DESCRIBE names as the times' origin. */
int ddl_time_graph_insert(gnndb *db, const cat_graph *g, const char *source,
                          ddl_time_graph *tg, gnn_err *e);
/* Remove what the build left (nothing once committed: use _free). */
void ddl_time_graph_undo(gnndb *db, ddl_time_graph *tg);
/* Write tg's index entries (tg->r) under tg->token. */
int ddl_time_graph_index(gnndb *db, ddl_time_graph *tg, gnn_err *e);
void ddl_time_graph_free(ddl_time_graph *tg);

/* GNNDB_EXISTS when graph g already has table `name` (labels: its label
** table). */
int ddl_check_new_table(gnndb *db, const cat_graph *g, const char *name,
                        int labels, gnn_err *e);
/* IMPORT ... REPLACE: table t, which the statement's table of kind `kind`
** replaces, into d (its row goes in the transaction that inserts d, its
** file after the commit); a table of another kind is refused, naming
** both kinds. */
int ddl_replace_table(const cat_table *t, int kind, ddl_table *d,
                      gnn_err *e);
/* Table `name` of g, for an IMPORT of a table of kind `kind`: without
** `replace`, GNNDB_EXISTS when g has it; with it, the table replaced
** into d (ddl_replace_table); a new name is fine either way. */
int ddl_check_table(gnndb *db, const cat_graph *g, const char *name,
                    int kind, int replace, ddl_table *d, gnn_err *e);
/* FORMAT, DIM, KEY, TYPE, STORE and BLOCK SIZE of an IMPORT [EDGE]
** FEATURES or LABELS statement into o (the other fields untouched). */
int ddl_table_opts(const ast_stmt *s, imp_feat_opts *o, gnn_err *e);

/* The row map of graph g (internal id -> file row) when its ids were
** mapped, else NULL (the identity). */
int ddl_load_i2r(gnndb *db, const cat_graph *g, int64_t **i2r, gnn_err *e);
/* Build table `name` of graph g (rows permuted by i2r, NULL: identity);
** with d->o.edges an edge feature table of g->input_edges rows. */
int ddl_table_build(gnndb *db, const cat_graph *g, const int64_t *i2r,
                    const char *name, const char *path, ddl_table *d,
                    gnn_err *e);
int ddl_table_insert(gnndb *db, int64_t graph_id, ddl_table *d, gnn_err *e);
void ddl_table_undo(gnndb *db, ddl_table *d);
/* After building table d for graph graph_id (rc: how that went): insert
** it in one transaction (deleting the table it replaces, d->old_id, in
** the same one, and that table's file after the commit), or undo it;
** release the write lock; the words of a full disk. Returns the
** statement's code. */
int ddl_table_publish(gnndb *db, int64_t graph_id, ddl_table *d, int rc,
                      gnn_err *e);

/* The members of a split from a file of node ids (key: an .npz member),
** checked against g and mapped to internal ids. */
int ddl_split_members(gnndb *db, const cat_graph *g, const char *path,
                      const char *key, uint32_t **out, size_t *n,
                      gnn_err *e);
/* Sort and deduplicate m[0..n) as split `name` (d takes m), then put it
** in the index; the undo frees m. */
void ddl_split_build(const char *name, uint32_t *m, size_t n, ddl_split *d);
int ddl_split_index(gnndb *db, ddl_split *d, gnn_err *e);
int ddl_split_insert(gnndb *db, int64_t graph_id, ddl_split *d, gnn_err *e);
void ddl_split_undo(gnndb *db, ddl_split *d);
void ddl_split_free(ddl_split *d);   /* after the commit */

/* The files and index tokens a drop frees once its catalog rows are
** gone: gathered before the commit, removed after it (best effort: the
** next writable open removes what a crash leaves). */
typedef struct ddl_doomed {
    char (*files)[CAT_NAME_MAX];
    size_t nf, capf;
    uint64_t *tokens;
    size_t nt, capt;
} ddl_doomed;
/* Graph g's: its topology, edge-id graph, tables, splits, packs, and its
** relations' (a typed graph's) with theirs. */
int ddl_doomed_graph(gnndb *db, const cat_graph *g, ddl_doomed *d,
                     gnn_err *e);
/* One file (none when empty: a typed graph has no file) or token more. */
int ddl_doom_file(ddl_doomed *d, const char *file, gnn_err *e);
int ddl_doom_token(ddl_doomed *d, uint64_t token, gnn_err *e);
void ddl_doomed_remove(gnndb *db, ddl_doomed *d);  /* then frees d */
void ddl_doomed_free(ddl_doomed *d);

/* Remove file `file` of the database directory (best effort). */
void ddl_unlink(gnndb *db, const char *file);

/* DROP FEATURES w ON g.r when r is a relation of typed graph g (not a
** node type): *found, and the edge table w found from r (stored on r or
** on the reverse that shares it) into *t; GNNDB_NOTFOUND with words when
** neither has it. *found 0 (GNNDB_OK) for every other DROP. */
int ddl_drop_edge_table(gnndb *db, const ast_stmt *s, const cat_graph *g,
                        cat_table *t, int *found, gnn_err *e);

/* IMPORT OGB of a heterogeneous dataset (ddl_ogb_hetero.c, under the
** caller's write lock) as a typed graph. */
int ddl_import_ogb_hetero(gnndb *db, const ast_stmt *s, gnn_err *e);

/* COMPACT g (compact.c): folds the current version's delta segments into
** plain block files. */
int ddl_compact(gnndb *db, const ast_stmt *s, gnn_err *e);

#endif
