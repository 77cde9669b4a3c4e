/* build.h — the builders the grammar's actions call, and the parse context
** they fill: one statement at a time, the first error wins. */
#ifndef GNN_BUILD_H
#define GNN_BUILD_H

#include "ast.h"
#include "tokenize.h"

/* Clauses that may be given at most once (bits of parse_ctx.seen). */
enum {
    CL_FORMAT, CL_UNDIRECTED, CL_DROP_DUPLICATES, CL_DROP_SELF_LOOPS,
    CL_MAP_IDS, CL_NODES, CL_REORDER, CL_BLOCK_SIZE, CL_DIM, CL_TYPE,
    CL_STORE, CL_SEEDS, CL_FEATURES, CL_BATCH, CL_HYPERBATCH, CL_SHUFFLE,
    CL_SEED, CL_EPOCHS, CL_REPLACEMENT, CL_LIMIT, CL_INTO, CL_DEVICE,
    CL_PARTITION,
    CL_CHUNK,
    CL_PACK, CL_EPOCH,
    CL_HEADER, CL_COLUMNS, CL_KEY, CL_SPLIT,
    CL_NO_EDGE_IDS, CL_EDGES, CL_NEGATIVE, CL_STRICT, CL_EXCLUDE_SEEDS,
    CL_EXCLUDE_SPLIT, CL_EDGE_FEATURES,
    CL_NODE_COUNT, CL_REVERSE,
    CL_ROWS, CL_IN_ORDER,
    CL_REPLACE,
    CL_AT, CL_TEMPORAL, CL_TIME_CMP, CL_WINDOW, CL_TIME_BY,
    CL_AS_OF,
    CL_COUNT
};

typedef struct parse_ctx {
    ast_stmt *s;          /* the statement being built (kind set last) */
    gnn_err *e;
    int rc;               /* first error; every builder is a no-op after it */
    int accepted;         /* the grammar accepted the statement */
    int at_eof;           /* the end token fed is the end of the input */
    uint64_t seen;        /* 1 << CL_* for each clause given */
    size_t seed_cap;      /* capacity of s->seed_ids */
    gtok sample_kw;       /* where SAMPLE is, for "needs a BATCH clause" */
    gtok clause_at[CL_COUNT]; /* each given clause's first keyword */
} parse_ctx;

void build_create_graph(parse_ctx *p, const gtok *name, const gtok *path);
/* IMPORT FEATURES (name given) or IMPORT LABELS (name NULL). */
void build_import(parse_ctx *p, const gtok *name, const gtok *graph,
                  const gtok *path);
/* CREATE SPLIT: FROM path, or RANDOM fraction. */
void build_split(parse_ctx *p, const gtok *name, const gtok *graph,
                 const gtok *path, const gtok *fraction);
/* SHOW GRAPHS, DESCRIBE, DROP ..., CHECK: name and graph as the kind uses. */
void build_simple(parse_ctx *p, ast_kind kind, const gtok *name,
                  const gtok *graph);
void build_pragma(parse_ctx *p, const gtok *name);
void build_pragma_value(parse_ctx *p, const gtok *v, const gtok *unit);
void build_explain(parse_ctx *p, int mode);
void build_sample(parse_ctx *p, const gtok *kw, const gtok *graph);
void build_fanout(parse_ctx *p, const gtok *f);
void build_seeds(parse_ctx *p, const gtok *kw, int kind, const gtok *split);
void build_seed_id(parse_ctx *p, const gtok *x);

/* PROPAGATE feat OVER g HOPS k [NORMALIZE w] INTO out; SCAN t [ON g]. */
void build_propagate(parse_ctx *p, const gtok *kw, const gtok *feat,
                     const gtok *graph, const gtok *hops, const gtok *out);
void build_normalize(parse_ctx *p, const gtok *kw, const gtok *v);
void build_scan(parse_ctx *p, const gtok *kw, const gtok *table);
void build_scan_graph(parse_ctx *p, const gtok *graph);

/* GATHER t | GATHER LABELS (table NULL) [ON g | ON g.x]; ROWS (ids) (file
** NULL: the ids follow through build_seed_id) or ROWS 'file'; SEEDS (ids)
** IN ORDER (build_gather.c). */
void build_gather(parse_ctx *p, const gtok *kw, const gtok *table);
void build_gather_on(parse_ctx *p, const gtok *graph, const gtok *sub);
void build_rows(parse_ctx *p, const gtok *kw, const gtok *file);
void build_in_order(parse_ctx *p, const gtok *kw);
/* SEEDS t (ids): seeds of node type t, ids local to it. */
void build_typed_seed_list(parse_ctx *p, const gtok *kw, const gtok *type);
/* The checks of a whole GATHER, and of IN ORDER in a SAMPLE. */
void build_gather_finish(parse_ctx *p);

/* Options and clauses; `kw` is the clause's first keyword (for "given twice"
** and range messages). */
void build_flag(parse_ctx *p, const gtok *kw, int clause);
void build_int(parse_ctx *p, const gtok *kw, int clause, const gtok *n);
void build_seed(parse_ctx *p, const gtok *kw, const gtok *n);
/* PARTITION k OF n: rank k (0-based) of n. */
void build_partition(parse_ctx *p, const gtok *kw, const gtok *rank,
                     const gtok *count);
void build_name(parse_ctx *p, const gtok *kw, int clause, const gtok *v);
void build_format(parse_ctx *p, const gtok *kw, const gtok *v, int features);
void build_reorder(parse_ctx *p, const gtok *kw, const gtok *v);
void build_dtype(parse_ctx *p, const gtok *kw, int clause, const gtok *v);
/* BLOCK SIZE n [unit], or BLOCK SIZE 'n unit' (n is then a string). */
void build_block_size(parse_ctx *p, const gtok *kw, const gtok *n,
                      const gtok *unit);

/* COLUMNS (a, b): two field names, or two positions from 0; with t (NULL
** for none), CREATE GRAPH's COLUMNS (src, dst, t), whose third is the
** edges' time column, all three alike. */
void build_columns(parse_ctx *p, const gtok *kw, const gtok *a,
                   const gtok *b, const gtok *t);
/* Appends and versions: INSERT EDGES INTO g FROM 'f' (its options as
** CREATE GRAPH's of the file: FORMAT, HEADER, COLUMNS, KEY); INSERT NODES
** INTO g COUNT n (n at least 1); DROP
** VERSIONS BEFORE n ON g (n at least 1); SAMPLE's AS OF VERSION n. */
void build_insert_edges(parse_ctx *p, const gtok *kw, const gtok *graph,
                        const gtok *path);
void build_insert_nodes(parse_ctx *p, const gtok *kw, const gtok *graph,
                        const gtok *n);
/* INSERT ROWS INTO t ON g FROM 'f' (table NULL: INTO LABELS), with a
** feature file's FORMAT, TYPE, DIM and KEY. */
void build_insert_rows(parse_ctx *p, const gtok *kw, const gtok *table,
                       const gtok *graph, const gtok *path);
void build_drop_versions(parse_ctx *p, const gtok *kw, const gtok *n,
                         const gtok *graph);
/* COMPACT g: the graph's name in graph. */
void build_compact(parse_ctx *p, const gtok *kw, const gtok *graph);
void build_as_of(parse_ctx *p, const gtok *kw, const gtok *n);
/* IMPORT OGB 'dir' AS name. */
void build_ogb(parse_ctx *p, const gtok *dir, const gtok *name);

/* SCAN PACK name [EPOCH e] [INTO 'dir'] [TO DEVICE d] (SAMPLE's INTO PACK
** is build_name with CL_PACK). */
void build_scan_pack(parse_ctx *p, const gtok *kw, const gtok *name);

/* Link prediction: IMPORT EDGE FEATURES; CREATE EDGE SPLIT s ... FROM
** 'pairs'; CREATE EDGE SPLITS names ... RANDOM fractions (each name and
** fraction given by build_split_name / build_split_fraction, in order);
** NEGATIVE k [PAIRS | TRIPLET]; one name of EXCLUDE SPLIT a, b. */
void build_import_edge_features(parse_ctx *p, const gtok *name,
                                const gtok *graph, const gtok *path);
void build_edge_split(parse_ctx *p, const gtok *name, const gtok *graph,
                      const gtok *path);
void build_edge_splits(parse_ctx *p, const gtok *graph);
void build_split_name(parse_ctx *p, const gtok *name);
void build_split_fraction(parse_ctx *p, const gtok *f);
void build_negative(parse_ctx *p, const gtok *kw, const gtok *k, int mode);
void build_exclude_split(parse_ctx *p, const gtok *name);

/* Heterogeneous graphs: the type of a qualified name g.t (its graph is the
** statement's own argument); CREATE NODES t IN g COUNT n; CREATE RELATION
** r IN g FROM s TO d FROM 'path' and its WITH REVERSE [AS v]; in SAMPLE,
** a relation map opened by '{' (one hop), one "rel: fanout" of it, an
** empty map (an error at its '}'), "* k" after the first map, and SEEDS
** t.s (split s of type t) or SEEDS t.ALL (split NULL). */
void build_node_type(parse_ctx *p, const gtok *type);
void build_create_nodes(parse_ctx *p, const gtok *type, const gtok *graph,
                        const gtok *kw, const gtok *count);
void build_relation(parse_ctx *p, const gtok *name, const gtok *graph,
                    const gtok *src, const gtok *dst, const gtok *path);
void build_reverse(parse_ctx *p, const gtok *kw, const gtok *name);
void build_hop(parse_ctx *p, const gtok *lbrace);
void build_rel_fanout(parse_ctx *p, const gtok *rel, const gtok *f);
void build_empty_hop(parse_ctx *p, const gtok *rbrace);
void build_hop_repeat(parse_ctx *p, const gtok *k);
void build_typed_seeds(parse_ctx *p, const gtok *kw, const gtok *type,
                       const gtok *split);

/* Time (build_time.c): IMPORT EDGE TIMES (nodes 0) or NODE TIMES INTO g
** FROM 'f'; in SAMPLE, AT TIMES 'f' (file) or AT NODE TIME (file NULL),
** TEMPORAL UNIFORM | LAST (AST_TEMPORAL_*), BEFORE (strict 1) or AT OR
** BEFORE (strict 0), WINDOW w; and the checks of the whole SAMPLE. */
void build_import_times(parse_ctx *p, const gtok *graph, const gtok *path,
                        int nodes);
void build_at_times(parse_ctx *p, const gtok *kw, const gtok *file);
void build_at_edge_time(parse_ctx *p, const gtok *kw);
void build_temporal(parse_ctx *p, const gtok *kw, int strategy);
void build_time_cmp(parse_ctx *p, const gtok *kw, int strict);
void build_window(parse_ctx *p, const gtok *kw, const gtok *w);
void build_time_by(parse_ctx *p, const gtok *kw, int node);
void build_time_finish(parse_ctx *p);

/* After the grammar accepted: the checks that need the whole statement. */
void build_finish(parse_ctx *p);

/* Called by the grammar's %syntax_error: `ok[t]` says whether terminal t
** (0 = end of statement) would have been accepted. */
void build_syntax_error(parse_ctx *p, int major, const gtok *t,
                        const unsigned char *ok, int ntokens);
void build_too_complex(parse_ctx *p);

#endif
