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
    AST_IMPORT_EDGE_FEATURES, /* IMPORT EDGE FEATURES w INTO g FROM 'f' */
    AST_CREATE_NODES,    /* CREATE NODES t IN g COUNT n */
    AST_CREATE_RELATION, /* CREATE RELATION r IN g FROM s TO d FROM 'f' */
    AST_DROP_RELATION,   /* DROP RELATION r ON g */
    AST_GATHER,          /* GATHER t [ON g[.x]] ROWS (ids) | ROWS 'f' */
    AST_IMPORT_TIMES,    /* IMPORT EDGE | NODE TIMES INTO g FROM 'f' */
    AST_INSERT_EDGES,    /* INSERT EDGES INTO g FROM 'f' */
    AST_INSERT_NODES,    /* INSERT NODES INTO g COUNT n */
    AST_INSERT_ROWS,     /* INSERT ROWS INTO t | LABELS ON g FROM 'f' */
    AST_SHOW_VERSIONS,   /* SHOW VERSIONS g */
    AST_DROP_VERSIONS,   /* DROP VERSIONS BEFORE n ON g */
    AST_COMPACT          /* COMPACT g: graph = g */
} ast_kind;

#define AST_LAST_KIND AST_COMPACT

#define AST_MAX_HOPS 8

#define AST_SEEDS_DEFAULT 0  /* no SEEDS clause: every node */
#define AST_SEEDS_SPLIT   1
#define AST_SEEDS_LIST    2
#define AST_SEEDS_ALL     3
#define AST_SEEDS_ORDERED 4  /* SEEDS (1,2,3) IN ORDER: batches cut from the
                                list as written, no id repeated */

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

/* A time-respecting SAMPLE: where each seed's time comes from, how the
** eligible neighbours are taken, and how an edge's time compares. */
#define AST_TIME_NONE    0
#define AST_TIME_FILE    1  /* AT TIMES 'f.npy' */
#define AST_TIME_NODE    2  /* AT NODE TIME */
#define AST_TIME_EDGE    3  /* AT EDGE TIME: each seed edge's own time */
#define AST_TEMPORAL_UNIFORM 0
#define AST_TEMPORAL_LAST    1
#define AST_MAX_EDGE_SPLITS 16 /* names in CREATE EDGE SPLITS, EXCLUDE SPLIT */

/* Heterogeneous graphs. A typed graph has one global node id space; each
** node type owns a contiguous range [offset, offset + count) of it, in the
** order of its CREATE NODES; a homogeneous graph is the case of one type
** and one relation. */
#define AST_MAX_RELS 32       /* relations in one hop of a typed SAMPLE */

/* One relation's fanout in one hop of a typed SAMPLE. */
typedef struct ast_rel_fanout {
    char *rel;                /* the relation's name, as written */
    int fanout;               /* 1..1000, or -1: every neighbour */
} ast_rel_fanout;

typedef struct ast_stmt {
    ast_kind kind;
    int explain;            /* 0, 1 = EXPLAIN, 2 = EXPLAIN ANALYZE */
    int line, col;          /* where the statement starts (1-based) */

    char *name;             /* graph (CREATE GRAPH/DESCRIBE/DROP), table,
                               split, or pragma name (lower case; NULL
                               for a bare PRAGMA: every setting) */
    char *graph;            /* INTO g / ON g / FROM g (SAMPLE) / CHECK g;
                               DESCRIBE g puts g in name */
    char *path;             /* FROM 'path'; NULL for CREATE GRAPH g with no
                               FROM: an empty typed graph, filled by CREATE
                               NODES and CREATE RELATION */
    /* The node type of a qualified name g.t: INTO g.t (IMPORT FEATURES,
    ** IMPORT LABELS), ON g.t (CREATE SPLIT, DROP FEATURES, DROP SPLIT),
    ** DESCRIBE g.t. graph (name for DESCRIBE) holds g; NULL when the name
    ** is not qualified (the whole graph, as before types). The part after
    ** the dot may name a relation instead: always for IMPORT EDGE
    ** FEATURES w INTO g.r, and for DESCRIBE g.r and DROP FEATURES w ON g.r
    ** when g has a relation of that name (the statement finds out). */
    char *node_type;

    /* CREATE NODES t IN g COUNT n: name = t, graph = g; DROP VERSIONS
    ** BEFORE n ON g: graph = g */
    int64_t count;          /* n, at least 1; 0 for other statements */
    /* SAMPLE ... AS OF VERSION n: the graph's version n (0: current) */
    int64_t as_of;

    /* CREATE RELATION r IN g FROM s TO d FROM 'edges' [WITH REVERSE [AS v]]
    ** and the options of CREATE GRAPH below that apply to one edge file
    ** (FORMAT, UNDIRECTED, HEADER, COLUMNS, KEY, DROP DUPLICATES, DROP
    ** SELF LOOPS, BLOCK SIZE): name = r, graph = g, path = 'edges'. The
    ** file's ids are local to each type (0..count-1 of s and of d). */
    char *src_type;         /* s: the type of each edge's source */
    char *dst_type;         /* d: the type of its destination */
    int with_reverse;       /* WITH REVERSE: also the relation d -> s */
    char *reverse_name;     /* AS v; NULL when not given: the reverse is
                               then named rev_r (rev_ and r's name) */

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
    int64_t col_pos[3];     /* COLUMNS (0, 1): fields, from 0 */
    char *col_name[3];      /* COLUMNS (src, dst): names in the header */
    int col_time;           /* CREATE GRAPH ... COLUMNS (src, dst, t) */
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
    int fanouts[AST_MAX_HOPS];  /* 1..1000 or -1 (all); 0 when typed */
    /* Typed fanouts: SAMPLE {r: f, ...} [* k] or SAMPLE [{...}, {...}].
    ** typed = 1; hop h < nhops samples rels[h][0 .. n_rels[h]) (each
    ** relation once in a hop, n_rels[h] in 1..AST_MAX_RELS) and no other
    ** relation; fanouts[] is unused. "* k" repeats the map k times (each
    ** hop owns its own copies of the names). */
    int typed;
    ast_rel_fanout rels[AST_MAX_HOPS][AST_MAX_RELS];
    int n_rels[AST_MAX_HOPS];
    int seeds_kind;             /* AST_SEEDS_* */
    char *seeds_split;          /* SEEDS s, SEEDS t.s: the split s */
    char *seeds_type;           /* SEEDS t.s, SEEDS t.ALL: the node type t
                                   (seeds_kind SPLIT or ALL); else NULL */
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
    int replace_table;          /* IMPORT [EDGE] FEATURES, LABELS ... REPLACE */
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
    /* time: AT TIMES 'f' | AT NODE TIME [TEMPORAL UNIFORM | LAST]
    ** [BEFORE | AT OR BEFORE] [WINDOW w]; IMPORT EDGE | NODE TIMES */
    int time_source;            /* AST_TIME_* */
    char *time_path;            /* AT TIMES 'f' */
    int temporal;               /* AST_TEMPORAL_* */
    int time_strict;            /* BEFORE: edge time < seed time */
    int64_t time_window;        /* WINDOW w (> 0); 0 when absent */
    int time_by_node;           /* BY NODE TIME: an edge is judged by its
                                ** source node's time, not its own */
    int time_nodes;             /* IMPORT NODE TIMES (else EDGE TIMES) */

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

    /* GATHER t [ON g | ON g.x] ROWS (ids) | ROWS 'ids.npy' [BATCH n]
    ** [TO DEVICE d]: name = t ("__labels" for LABELS), graph = g,
    ** node_type = x (a node type or a relation), the ids in seed_ids, or
    ** the file in path; batch 0 when absent */
} ast_stmt;

ast_stmt *ast_new(ast_kind kind);
void ast_free(ast_stmt *s);

/* 1 when the statement uses a form of heterogeneous graphs: CREATE NODES,
** CREATE RELATION, DROP RELATION, CREATE GRAPH with no FROM, a qualified
** name g.t, typed fanouts or SEEDS t.s. The engine runs none of them yet
** and refuses them all through this one test. */
int ast_is_typed(const ast_stmt *s);

#endif
