/* import.h — building block files from user files with bounded memory.
** Edges are parsed, spilled to temporary run files and bucketed by target
** node, so memory is O(nodes) plus a fixed budget, never O(edges). */
#ifndef GNN_IMPORT_H
#define GNN_IMPORT_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"
#include "edgelist.h"

#define IMP_REORDER_NONE   0
#define IMP_REORDER_DEGREE 1  /* descending in-degree, ties by id */
#define IMP_REORDER_BFS    2  /* breadth-first from the highest in-degree */

/* Progress and interruption, shared by every importer. */
typedef struct imp_ctl {
    int (*progress)(void *arg, int64_t done, int64_t total); /* may be NULL */
    void *progress_arg;
    volatile int *interrupt;  /* non-zero: stop with GNNDB_INTERRUPT */
    /* Bytes the import's data may take: its arrays of nodes (degrees, key
    ** maps, permutations) and, in what they leave, the edges' buffers
    ** (default 256 MiB). Its own I/O buffers, imp_buffer_bytes, are
    ** apart. */
    size_t mem_budget;
    /* For the words of a refusal: the statement ("CREATE GRAPH g") and
    ** where mem_budget came from ("PRAGMA import_memory 256.0 MiB within
    ** memory_limit 1.0 GiB"); NULL: not said. */
    const char *what;
    const char *budget_words;
    const char *tmpdir;       /* where run files go (the database dir) */
} imp_ctl;

/* Bytes an import's own buffers hold beside ctl->mem_budget, whatever the
** input: reading and inflating it, its scratch files' buffers, and packing
** and writing up to two block files of `block_size` blocks. */
int64_t imp_buffer_bytes(uint32_t block_size);

typedef struct imp_graph_opts {
    int format;          /* EDGE_FMT_* */
    edge_opts text;      /* header and columns of a text file (its format
                            field is ignored: `format` says) */
    const char *key;     /* the .npz member of the edges, or NULL */
    int undirected;      /* add the reverse of every edge */
    int drop_duplicates; /* keep one copy of repeated edges */
    int drop_self_loops;
    int map_ids;         /* node ids are arbitrary int64 keys */
    int64_t nodes;       /* declared node count, -1 = max id + 1 */
    int reorder;         /* IMP_REORDER_* */
    uint32_t block_size;
    uint64_t token;
    /* Edge ids (all or none of these): the edge-id graph, published as
    ** eid_name under eid_token, and the edge table, edges_name under
    ** edges_token. eid_name NULL: neither is built. */
    const char *eid_name;
    uint64_t eid_token;
    const char *edges_name;
    uint64_t edges_token;
    /* A relation of a typed graph (rel set): the file's sources are ids
    ** local to node type rel->src (ids [0, src_count)), its targets local
    ** to rel->dst; each is checked against its type's count and moved to
    ** the graph's global ids by adding the type's first id. With reverse
    ** each edge is stored as target -> source (WITH REVERSE's twin). nodes
    ** is the typed graph's total; map_ids and reorder must be off. */
    const struct imp_rel *rel;
    /* INSERT EDGES: the edges of the graph's current version come first,
    ** as input edges [0, prior->rows), so that every old edge keeps its id
    ** and the file's edges follow (NULL: none). */
    const struct imp_prior *prior;
} imp_graph_opts;

/* Where a prior version's edges are fed from (cmd/insert.c). `emit` calls
** imp_prior_add once for each row in id order, the dropped rows (`skip`,
** ascending) included as any pair of known nodes: they keep their ids and
** are dropped again. With mapped ids, `keys` lists every node key of the
** old version, so that a node whose only edges were dropped stays. The
** graph keeps the old node count: an id or key of the file beyond it is
** refused, naming `graph`, the file and line. With a time column, each
** row carries its time. */
typedef struct imp_prior_sink imp_prior_sink;
typedef struct imp_prior {
    const char *graph;
    uint64_t rows;
    const uint32_t *skip;
    size_t nskip;
    const int64_t *keys;
    size_t nkeys;
    int (*emit)(void *arg, imp_prior_sink *sink, gnn_err *e);
    void *arg;
} imp_prior;

/* One prior row (src, dst as the old version's input wrote them, keys when
** ids are mapped; t its time, 0 without a time column). */
int imp_prior_add(imp_prior_sink *sink, int64_t src, int64_t dst, int64_t t);

typedef struct imp_rel {
    const char *name;          /* the relation's, for messages */
    const char *src, *dst;     /* the node types' names, for messages */
    int64_t src_first, src_count;
    int64_t dst_first, dst_count;
    int reverse;
} imp_rel;

typedef struct imp_graph_result {
    int64_t nodes;
    int64_t edges;            /* after dedup, loop removal, reverse edges */
    uint64_t nblocks;
    uint32_t *checksums;      /* nblocks, malloc'd */
    uint64_t *idx_first;      /* index entries: first starting node ... */
    uint64_t *idx_block;      /* ... -> block number; n_idx of each */
    size_t n_idx;
    int64_t *i2e;             /* internal -> external key (NULL: identity) */
    int64_t *i2r;             /* internal -> row of feature files (NULL: id.) */
    int64_t min_degree, max_degree, median_degree;
    double mean_degree;
    /* In-degree histogram: deg_hist[0] counts nodes of degree 0 and
    ** deg_hist[k] (k >= 1) those of degree in [2^(k-1), 2^k), so degree 1
    ** is bucket 1, 2-3 bucket 2, 4-7 bucket 3, ... nbuckets is one past the
    ** last non-empty bucket (at least 1). */
    int64_t deg_hist[64];
    int nbuckets;
    /* With edge ids (opts.eid_name set): */
    int64_t input_edges;      /* edges of the input file: the id range */
    uint64_t eid_nblocks;     /* the edge-id graph: blocks, checksums ... */
    uint32_t *eid_checksums;
    uint64_t *eid_idx_first;  /* ... and index entries */
    uint64_t *eid_idx_block;
    size_t eid_n_idx;
    uint64_t edges_nblocks;   /* the edge table: input_edges rows of dim 2 */
    uint32_t edges_rows_per_block;
    uint32_t *edges_checksums;
    /* With a time column (opts.text.with_time): each input edge's time,
    ** input_edges of them, malloc'd; read back from a scratch file once
    ** the graph is built, so that the build's memory never holds them. */
    int64_t *times;
} imp_graph_result;

/* Build `dir`/`name` (a graph block file, published by rename) from the
** edge file `src`. On failure nothing is left behind.
**
** The adjacency list of node v holds the sources u of the edges u -> v (its
** in-neighbours, as PyG samples them), ascending by internal id. With
** `undirected` every edge u -> v also gives v -> u (a self-loop gives one
** edge, not two). Without map_ids node ids must be in [0, nodes); with it
** any int64 keys are allowed, internal ids follow the ascending key order
** (before reordering) and `nodes`, when given, must equal the number of
** distinct keys. Memory: ctl->mem_budget, its arrays of nodes first
** (imp_graph_node_bytes a node); an import whose nodes alone leave the
** edges less than 256 KiB of it is refused with GNNDB_NOMEM, in words
** giving the bytes needed, as soon as the node count is known (before any
** file is written; with ids not declared, as the largest id grows past
** it). One node's list must fit in memory (4 bytes per neighbour). Scratch
** files go
** to ctl->tmpdir (default `dir`), are unlinked when created and so never
** outlive the call.
**
** With o->eid_name, edge ids too: input edge i is row i of the file
** (0-based, before anything is dropped); both stored directions of an
** undirected edge carry its id; of duplicates (DROP DUPLICATES) the one
** kept carries the lowest id. The edge-id graph (BLK_FLAG_EIDS blocks, the
** same lists in the same order, each neighbour with its edge id) goes to
** `dir`/eid_name, and the edge table (feature blocks of BLK_DTYPE_U32, dim
** 2: row i the internal (src, dst) of input edge i as written, or
** (UINT32_MAX, UINT32_MAX) when it was dropped) to `dir`/edges_name. An
** input of more than UINT32_MAX - 1 edges is refused. Memory stays as
** above: the lists' buckets take 16 bytes per edge instead of 4, and the
** dropped ids are marked in windows of a bitmap within the budget. With
** o->prior, src may be NULL: the prior edges alone (INSERT NODES). */
int imp_graph(const char *src, const char *dir, const char *name,
              const imp_graph_opts *o, const imp_ctl *ctl,
              imp_graph_result *res, gnn_err *e);
void imp_graph_result_free(imp_graph_result *res);

/* An append's edges read without building anything (INSERT EDGES by
** delta, cmd/insert_delta.c): each edge of `src` checked as imp_graph
** checks an append's (ids below o->nodes, or with o->map_ids keys among
** o->prior->keys, words naming the file and line) and handed to `each` as
** internal ids in file order, with its time (0 without o->text.with_time);
** `each` stops the read by returning nonzero. */
typedef int (*imp_edge_fn)(void *arg, uint32_t src, uint32_t dst, int64_t t,
                           gnn_err *e);
int imp_edges_each(const char *src, const imp_graph_opts *o,
                   const imp_ctl *ctl, imp_edge_fn each, void *arg,
                   gnn_err *e);

/* Bytes a node costs an import of options o at its peak, inside
** ctl->mem_budget: its raw and final degrees, and with mapped ids its key,
** with a reorder its place in the permutations, with either its entries
** in the maps handed back (i2e, i2r). */
int64_t imp_graph_node_bytes(const imp_graph_opts *o);

#define IMP_FEAT_NPY 1
#define IMP_FEAT_CSV 2
#define IMP_FEAT_BIN 3

typedef struct imp_feat_opts {
    int format;            /* IMP_FEAT_* (0: by extension) */
    int labels;            /* a label vector: 1-D int, stored int64 dim 1 */
    int times;             /* a time column: int64 (checked by the caller,
                              timecol.h), stored as it is, int64 dim 1 */
    int64_t dim;           /* BIN: elements per row (required) */
    const char *key;       /* .npz: the member (NULL: the only one) */
    int bin_dtype;         /* BIN: NPY_F32 / NPY_F64 / NPY_I64 */
    uint32_t store_dtype;  /* BLK_DTYPE_F32 (default) / F16 / I8 */
    uint32_t block_size;
    uint64_t token;
    int64_t nodes;         /* rows the file must have */
    int edges;             /* the rows are input edges (edge features):
                              messages say so */
    int relation;          /* graph names a relation's topology (g.r) */
    const int64_t *i2r;    /* internal id -> file row; NULL = identity */
    const char *graph;     /* the graph's name, for messages (may be NULL) */
    /* INSERT ROWS: the table's rows so far come first, read (and
    ** verified) from its file `prior` (blocks of this block size, dtype
    ** and rows per block), prior_rows of prior_dim each; the source's rows
    ** follow, as many as it has, the total at most `nodes` (when >= 0).
    ** i2r must be NULL. */
    struct blk_file *prior;
    int64_t prior_rows;
    uint32_t prior_dim;
} imp_feat_opts;

typedef struct imp_feat_result {
    int64_t rows;
    uint32_t dim;
    uint32_t dtype;
    uint32_t rows_per_block;
    uint64_t nblocks;
    uint32_t *checksums;   /* malloc'd */
    int64_t nclasses;      /* labels: max label + 1 */
    int64_t *class_counts; /* labels: nclasses counts, malloc'd */
    int64_t tmin, tmax;    /* times: the smallest and largest value */
} imp_feat_result;

/* Build `dir`/`name` (a feature block file, published by rename) from
** `src`: row i of the table is row i2r[i] of the file. .npy (float32,
** float64, int64, int32, float16, int8, uint8), CSV (one row per line,
** comma separated numbers, the first row fixes dim) or raw little-endian
** BIN (dim and bin_dtype given). Labels: a 1-D (or N x 1) integer array;
** values < 0 mean unlabeled and are not counted in class_counts. Storing
** int8 requires integer values in [-128, 127]. On failure nothing is left
** behind. */
int imp_features(const char *src, const char *dir, const char *name,
                 const imp_feat_opts *o, const imp_ctl *ctl,
                 imp_feat_result *res, gnn_err *e);
void imp_feat_result_free(imp_feat_result *res);

/* Helpers of edgelist.c for the graph importer: where the last edge's
** source (which = 0) or target (which = 1) is, for messages ("edges.tsv:88:3",
** "edges.bin: edge 88 (byte offset 1392)", "data.npz:edge_index: edge 88"),
** and the name messages give the input. */
struct edge_reader;
void edge_where(const struct edge_reader *r, int which, char *out,
                size_t cap);
const char *edge_name(const struct edge_reader *r);

/* Read a list of node ids (a 1-D integer .npy or .npz member `key`, or a
** text file of one id per line, maybe gzip, maybe under a header line) into
** a malloc'd array. Scratch copies go to `tmpdir`. */
int imp_id_list(const char *src, const char *key, const char *tmpdir,
                int64_t **ids, size_t *n, gnn_err *e);

/* ---- OGB node-property datasets (import_ogb.c) ------------------------- */

#define OGB_PATH_MAX 4096

/* One input of a dataset: a file, and its .npz member (NULL for CSV). */
typedef struct ogb_src {
    char path[OGB_PATH_MAX];   /* "" when the dataset lacks it */
    const char *key;
} ogb_src;

typedef struct ogb_dataset {
    int binary;                /* raw/data.npz, else the CSV files */
    ogb_src edges;             /* 2 x E (binary) or headerless src,dst */
    ogb_src feat;              /* node features (may be absent) */
    ogb_src labels;            /* node labels, NaN for none */
    ogb_src year;              /* node_year, where the dataset has it */
    char split_name[256];
    char split[3][OGB_PATH_MAX];  /* train, valid, test: one id per line */
    int64_t nodes;
    int inverse_edges;         /* a published dataset OGB makes undirected */
} ogb_dataset;

/* Find the files of the OGB dataset unpacked in `dir` (as a download of
** ogbn-* unpacks: raw/ and split/<name>/), read its node count, and pick
** split `split` (NULL: the only one there). Errors name the file that is
** missing or wrong; `tmpdir` takes scratch copies. */
int ogb_open(const char *dir, const char *split, const char *tmpdir,
             ogb_dataset *d, gnn_err *e);
/* split/<name> of dataset `dir`: `split` when given, else the only one
** there (GNNDB_MISUSE naming them when there are several). */
int ogb_pick_split(const char *dir, const char *split, char *name,
                   size_t cap, gnn_err *e);

/* ---- OGB heterogeneous node-property datasets (import_ogb_hetero.c) ---- */

#define OGB_MAX_TYPES 64
#define OGB_MAX_RELS  64

typedef struct ogb_hetero_type {
    char name[100];
    int64_t count;
    char feat[OGB_PATH_MAX];      /* node-feat.csv.gz, or "" */
    char year[OGB_PATH_MAX];      /* node_year.csv.gz, or "" */
    char label[OGB_PATH_MAX];     /* node-label.csv.gz, or "" */
    int has_split;
    char split[3][OGB_PATH_MAX];  /* train, valid, test when has_split */
} ogb_hetero_type;

typedef struct ogb_hetero_rel {
    char name[100];
    int src, dst;                 /* indexes into types */
    char edges[OGB_PATH_MAX];     /* headerless src,dst of local ids */
    char num_edges[OGB_PATH_MAX]; /* its edge count, or "" */
    char edge_feat[OGB_PATH_MAX]; /* edge-feat.csv.gz: a row per edge, or "" */
    char reltype[OGB_PATH_MAX];   /* edge_reltype.csv.gz: an integer per
                                     edge, or "" */
} ogb_hetero_rel;

typedef struct ogb_hetero {
    ogb_hetero_type *types;       /* in the order of num-node-dict */
    int ntypes;
    ogb_hetero_rel *rels;         /* in the order of the triplet list */
    int nrels;
    char split_name[256];
} ogb_hetero;

/* 1 when `dir` holds a heterogeneous dataset (raw/num-node-dict.csv.gz). */
int ogb_is_hetero(const char *dir);
/* Read the dictionaries of the heterogeneous dataset in `dir` (node types
** and counts, relations, which types have labels and split `split`; NULL:
** the only one) and find every file the import reads; errors name the
** file, row and column. ogb_hetero_free after success. */
int ogb_hetero_open(const char *dir, const char *split, ogb_hetero *h,
                    gnn_err *e);
void ogb_hetero_free(ogb_hetero *h);

#endif
