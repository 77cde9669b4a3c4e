/* ast.h — the syntax tree of one statement, as the grammar builds it and the
** planner reads it. Strings are malloc'd and owned by the node. */
#ifndef GNN_AST_H
#define GNN_AST_H

#include <stddef.h>
#include <stdint.h>

typedef enum ast_kind {
    AST_CREATE_GRAPH = 1,
    AST_IMPORT_FEATURES,
    AST_IMPORT_LABELS,
    AST_CREATE_SPLIT,
    AST_SHOW_GRAPHS,
    AST_DESCRIBE,
    AST_DROP_GRAPH,
    AST_DROP_FEATURES,   /* DROP FEATURES t ON g */
    AST_DROP_SPLIT,      /* DROP SPLIT s ON g */
    AST_PRAGMA,
    AST_SAMPLE,
    AST_CHECK,           /* CHECK [g] */
    AST_PROPAGATE,       /* PROPAGATE t OVER g HOPS k ... INTO out */
    AST_SCAN,            /* SCAN t [ON g] ... */
    AST_SCAN_PACK,       /* SCAN PACK p [EPOCH e] */
    AST_DROP_PACK,       /* DROP PACK p */
    AST_IMPORT_OGB,      /* IMPORT OGB 'dir' AS g */
    AST_CREATE_EDGE_SPLIT,   /* CREATE EDGE SPLIT s ON g FROM 'pairs' */
    AST_CREATE_EDGE_SPLITS,  /* CREATE EDGE SPLITS a, b ON g RANDOM f, f */
    AST_IMPORT_EDGE_FEATURES /* IMPORT EDGE FEATURES w INTO g FROM 'f' */
} ast_kind;

#define AST_LAST_KIND AST_IMPORT_EDGE_FEATURES

#define AST_MAX_HOPS 8

#define AST_SEEDS_DEFAULT 0  /* no SEEDS clause: every node */
#define AST_SEEDS_SPLIT   1
#define AST_SEEDS_LIST    2
#define AST_SEEDS_ALL     3

#define AST_FMT_DEFAULT 0
#define AST_FMT_TSV 1
#define AST_FMT_CSV 2
#define AST_FMT_BIN 3
#define AST_FMT_NPY 4

#define AST_COLS_FIRST 0  /* the first two fields */
#define AST_COLS_POS   1
#define AST_COLS_NAME  2

#define AST_REORDER_NONE   0
#define AST_REORDER_DEGREE 1
#define AST_REORDER_BFS    2

#define AST_NORM_SYM 0    /* D^-1/2 (A+I) D^-1/2 */
#define AST_NORM_ROW 1    /* D^-1 (A+I) */

#define AST_MAX_PROP_HOPS 8

/* NEGATIVE k [PAIRS | TRIPLET] of an edge-seeded SAMPLE */
#define AST_NEG_SOURCE  0 /* keep the seed edge's source, draw the destination */
#define AST_NEG_PAIRS   1 /* draw both endpoints */
#define AST_NEG_TRIPLET 2 /* k destinations per positive, as B x k */

#define AST_MAX_NEGATIVE 1000
#define AST_MAX_EDGE_SPLITS 16 /* names in CREATE EDGE SPLITS, EXCLUDE SPLIT */

typedef struct ast_stmt {
    ast_kind kind;
    int explain;            /* 0, 1 = EXPLAIN, 2 = EXPLAIN ANALYZE */
    int line, col;          /* where the statement starts (1-based) */

    char *name;             /* graph (CREATE GRAPH/DESCRIBE/DROP), table,
                               split, or pragma name (lower case; NULL
                               for a bare PRAGMA: every setting) */
    char *graph;            /* INTO g / ON g / FROM g (SAMPLE) / CHECK g */
    char *path;             /* FROM 'path' */

    /* CREATE GRAPH */
    int format;             /* AST_FMT_* */
    int undirected;
    int drop_duplicates;
    int drop_self_loops;
    int map_ids;            /* MAP IDS */
    int64_t nodes;          /* NODES n, -1 when absent */
    int reorder;            /* AST_REORDER_* */
    int64_t block_size;     /* BLOCK SIZE, bytes; 0 when absent */
    int no_edge_ids;        /* WITHOUT EDGE IDS: no edge-id topology */

    /* text inputs: HEADER, COLUMNS (a, b); .npz inputs: KEY 'member' */
    int header;             /* HEADER given */
    int columns;            /* AST_COLS_* */
    int64_t col_pos[2];     /* COLUMNS (0, 1): fields, from 0 */
    char *col_name[2];      /* COLUMNS (src, dst): names in the header */
    char *key;              /* KEY 'edge_index', or NULL */

    /* IMPORT OGB 'dir' AS name [SPLIT 'which'] (name, path, undirected,
    ** block_size as CREATE GRAPH has them) */
    char *split;

    /* IMPORT FEATURES */
    int64_t dim;            /* DIM n, 0 when absent */
    char *dtype;            /* TYPE float32|float64|int64, NULL when absent */
    char *store;            /* STORE float32|float16|int8, NULL when absent */

    /* CREATE SPLIT ... RANDOM f [SEED s] */
    int split_random;
    double fraction;

    /* CREATE EDGE SPLITS a, b, c ON g RANDOM fa, fb, fc [SEED s]: the
    ** names and fractions in order (CREATE EDGE SPLIT s ... FROM 'pairs'
    ** uses name, graph, path and the text-input options) */
    char *split_names[AST_MAX_EDGE_SPLITS];
    size_t n_split_names;
    double split_fractions[AST_MAX_EDGE_SPLITS];
    size_t n_split_fractions;

    /* PRAGMA name [= value] */
    char *value;            /* text of the value (quotes removed), or NULL */

    /* SAMPLE */
    int nhops;
    int fanouts[AST_MAX_HOPS];  /* 1..1000 or -1 (all) */
    int seeds_kind;             /* AST_SEEDS_* */
    char *seeds_split;
    int64_t *seed_ids;          /* SEEDS (1,2,3) */
    size_t n_seed_ids;
    char *features;             /* FEATURES t, or NULL */
    int64_t batch;              /* BATCH n (required) */
    int64_t hyperbatch;         /* 0 when absent */
    int shuffle;
    int has_seed;               /* SEED s given (also CREATE SPLIT) */
    uint64_t seed;
    int64_t epochs;             /* default 1 */
    int replace;                /* WITH REPLACEMENT */
    int64_t limit;              /* LIMIT k batches, -1 when absent */
    char *into;                 /* INTO 'dir' */
    char *device;               /* TO DEVICE '...' */
    int64_t part_rank;          /* PARTITION k OF n: k (0-based) ... */
    int64_t part_count;         /* ... and n; 0 when absent */
    /* link prediction: EDGES split [NEGATIVE k [PAIRS | TRIPLET]] [STRICT]
    ** [EXCLUDE SEEDS] [EXCLUDE SPLIT a, b] [EDGE FEATURES w] */
    char *edge_seeds;           /* EDGES split: seeded by edges */
    int64_t negative;           /* k; 0 when absent */
    int neg_mode;               /* AST_NEG_* */
    int neg_strict;             /* STRICT: no negative is an edge */
    int exclude_seeds;          /* EXCLUDE SEEDS */
    char *exclude_splits[AST_MAX_EDGE_SPLITS];  /* EXCLUDE SPLIT a, b */
    size_t n_exclude_splits;
    char *edge_features;        /* EDGE FEATURES w */

    /* PROPAGATE name OVER graph HOPS k [NORMALIZE w] INTO target;
    ** SCAN name [ON graph] (seeds, BATCH, SHUFFLE, SEED, EPOCHS, LIMIT as
    ** SAMPLE has them) [CHUNK c] */
    int64_t hops;
    int normalize;              /* AST_NORM_* */
    char *target;
    int64_t chunk;              /* 0 when absent */

    /* packs */
    char *pack;                 /* SAMPLE ... INTO PACK name */
    int64_t epoch;              /* SCAN PACK ... EPOCH e; -1 when absent */
} ast_stmt;

ast_stmt *ast_new(ast_kind kind);
void ast_free(ast_stmt *s);

#endif
