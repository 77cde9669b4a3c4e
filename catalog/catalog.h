/* catalog.h — the SQLite catalog (catalog.db, WAL mode): what exists in a
** database. Graphs, tables (features and labels), splits, per-block
** checksums, degree statistics and the log of statements run. The schema
** carries its version in meta('format_version'). */
#ifndef GNN_CATALOG_H
#define GNN_CATALOG_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"

typedef struct cat_db cat_db;

#define CAT_NAME_MAX 128
#define CAT_PATH_MAX 512

typedef struct cat_graph {
    int64_t id;
    char name[CAT_NAME_MAX];
    uint64_t token;          /* keys in the LMDB index */
    char file[CAT_NAME_MAX]; /* block file name inside the database dir */
    int64_t nodes;
    int64_t edges;
    int directed;
    uint32_t block_size;
    char node_order[16];     /* none | degree | bfs */
    int64_t graph_blocks;
    int has_map;             /* 'I'/'R'/'E' index arrays exist */
    int64_t max_degree;
    int64_t min_degree;
    int64_t median_degree;
    double mean_degree;
    char source[CAT_PATH_MAX];
    /* Edge ids (format 3): the edge-id graph (BLK_FLAG_EIDS blocks beside
    ** the plain ones, index entries under eid_token) and the edge table
    ** (table CAT_EDGES_TABLE). A graph made WITHOUT EDGE IDS, or by a
    ** format-2 gnndb, has none: has_eids 0, the rest zero. */
    int has_eids;
    char eid_file[CAT_NAME_MAX];
    uint64_t eid_token;
    int64_t eid_blocks;
    int64_t input_edges;     /* edges of the input file: ids [0, this) */
    /* Typed graphs (catalog/hetero.c): CAT_GRAPH_TYPED for a graph of node
    ** types and relations (no topology file of its own: file ""; nodes the
    ** sum of its types', edges of its relations'), CAT_GRAPH_RELATION for
    ** one relation's topology (named "<graph>.<relation>", parent_id the
    ** typed graph's id), CAT_GRAPH_PLAIN (0) for every other graph. */
    int kind;
    int64_t parent_id;       /* a relation's typed graph; 0 otherwise */
    /* Versions (catalog/versions.c): INSERT EDGES makes a graph's next
    ** version, and the fields above (its file, token, counts, edge-id
    ** files) describe version `version` of it. What hangs off one
    ** version's topology (its edge table, time graph, degree histogram,
    ** edge time range) belongs to the graphs row `topo_id`: the graph's
    ** own for version 1, a version row (CAT_GRAPH_VERSION) for the later
    ** ones. oldest_version: versions before it were dropped. build_flags:
    ** CAT_BUILD_* as CREATE GRAPH recorded them, -1 when it did not (a
    ** graph made before versions existed). */
    int64_t version;
    int64_t topo_id;
    int64_t oldest_version;
    int build_flags;
} cat_graph;

#define CAT_BUILD_DROP_DUPLICATES 1
#define CAT_BUILD_DROP_SELF_LOOPS 2

#define CAT_GRAPH_PLAIN    0
#define CAT_GRAPH_TYPED    1
#define CAT_GRAPH_RELATION 2
/* A graph's time graph (IMPORT EDGE TIMES): the temporal CSR, a graphs
** row named "<graph>.__time" whose parent is the graph, read as an
** edge-id topology (its eid_file is its file) whose blocks also carry
** each entry's time (BLK_FLAG_TIMES). Listed with no graph; dropped with
** its graph. */
#define CAT_GRAPH_TIME     3
#define CAT_TIME_SUFFIX    ".__time"
/* Version n >= 2 of graph g: a graphs row named "<g>.__v<n>" whose parent
** is g, holding that version's topology columns (version 1's stay in g's
** own row). Listed with no graph; dropped with its graph or by DROP
** VERSIONS. */
#define CAT_GRAPH_VERSION  4
#define CAT_VERSION_INFIX  ".__v"
/* The table of a graph's node times (IMPORT NODE TIMES): int64, dim 1,
** a row per node, kind CAT_TABLE_NODE_TIMES. */
#define CAT_NODE_TIME_TABLE "__node_time"

#define CAT_TABLE_FEATURES      1
#define CAT_TABLE_LABELS        2
#define CAT_TABLE_EDGES         3  /* the edge table: input edge -> (src, dst) */
#define CAT_TABLE_EDGE_FEATURES 4  /* a row per input edge */
#define CAT_TABLE_NODE_TIMES    5  /* int64, a row per node (IMPORT NODE TIMES) */

/* The name of a graph's edge table (kind CAT_TABLE_EDGES). */
#define CAT_EDGES_TABLE "__edges"

typedef struct cat_table {
    int64_t id;
    int64_t graph_id;
    char name[CAT_NAME_MAX];  /* "__labels" for the label table */
    int kind;                 /* CAT_TABLE_* */
    uint64_t token;
    char file[CAT_NAME_MAX];
    int64_t rows;
    uint32_t dim;
    uint32_t dtype;           /* BLK_DTYPE_* */
    uint32_t block_size;
    uint32_t rows_per_block;
    int64_t nblocks;
    int64_t nclasses;         /* labels: max label + 1 */
    char source[CAT_PATH_MAX];
    int has_type;             /* 0: a homogeneous graph's (zeroed rows) */
    int node_type;            /* else its node type's type_no */
} cat_table;

/* A split is a set of nodes (seeds of a node-level SAMPLE) or of input edge
** ids (seeds of a link-prediction SAMPLE); both kinds share a graph's split
** names. Node members are under the token's 'S' keys, edge ids under 'T'. */
#define CAT_SPLIT_NODE 0
#define CAT_SPLIT_EDGE 1

typedef struct cat_split {
    int64_t id;
    int64_t graph_id;
    char name[CAT_NAME_MAX];
    uint64_t token;
    int64_t count;
    int kind;                 /* CAT_SPLIT_* */
    int has_seed;             /* drawn by CREATE EDGE SPLITS ... RANDOM */
    uint64_t seed;            /* the SEED it drew with (given or drawn) */
    int has_type;             /* 0: a homogeneous graph's (zeroed rows) */
    int node_type;            /* else its node type's type_no (members are
                                 ids local to the type) */
} cat_split;

/* Open `path` (created with the schema when !readonly and missing). Fails
** with GNNDB_VERSION_MISMATCH when its format_version is newer than
** GNNDB_FORMAT_VERSION, GNNDB_CORRUPT when it is not a gnndb catalog. */
int cat_open(const char *path, int readonly, cat_db **out, gnn_err *e);
void cat_close(cat_db *c);
int cat_format_version(cat_db *c, int64_t *v, gnn_err *e);

/* One write transaction (BEGIN IMMEDIATE: GNNDB_BUSY if another writer). */
int cat_begin(cat_db *c, gnn_err *e);
int cat_commit(cat_db *c, gnn_err *e);
void cat_rollback(cat_db *c);

/* Graphs. Insert sets g->id; GNNDB_EXISTS when the name is taken.
** Get returns GNNDB_NOTFOUND (with words naming the graph) when absent.
** Delete removes the graph and its tables, splits, checksums, statistics. */
int cat_graph_insert(cat_db *c, cat_graph *g, gnn_err *e);
int cat_graph_get(cat_db *c, const char *name, cat_graph *g, gnn_err *e);
int cat_graph_list(cat_db *c, cat_graph **out, size_t *n, gnn_err *e);
int cat_graph_delete(cat_db *c, int64_t graph_id, gnn_err *e);
/* The graph of row `id` (a relation's too: cat_graph_get finds it by its
** name "<graph>.<relation>" as well). */
int cat_graph_get_id(cat_db *c, int64_t id, cat_graph *g, gnn_err *e);
/* The graphs rows whose parent is graph `parent_id` (a typed graph's
** relations), by id. cat_graph_list lists only top-level graphs. */
int cat_graph_children(cat_db *c, int64_t parent_id, cat_graph **out,
                       size_t *n, gnn_err *e);

/* GNNDB_OK when graph g has edge ids; otherwise GNNDB_NOTFOUND with words
** naming the graph and `what` needs them (a statement, "IMPORT EDGE
** FEATURES"), and saying to CREATE the graph again (a relation's
** topology: to DROP RELATION and CREATE it again). The one check every
** statement that needs edge ids makes. */
int cat_graph_need_eids(const cat_graph *g, const char *what, gnn_err *e);
/* Graph g as its edge-id graph, into *out (which may be g): the same graph
** read through the file, token and blocks of its edge-id topology, so that
** whatever opens or indexes a topology reads each neighbour's edge id. Fails
** as cat_graph_need_eids(g, what) does when g has none, *out untouched. */
int cat_graph_eid_view(const cat_graph *g, const char *what, cat_graph *out,
                       gnn_err *e);

/* The time graph of graph g (of the version g describes) into *t;
** GNNDB_NOTFOUND, with words saying to IMPORT EDGE TIMES, when g has
** none. Its row's name, into name (cap bytes, truncated). */
void cat_time_graph_name(const cat_graph *g, char *name, size_t cap);
int cat_time_graph_get(cat_db *c, const cat_graph *g, cat_graph *t,
                       gnn_err *e);

/* Versions of a graph (catalog/versions.c). cat_graph_get and its
** siblings hand out a graph's current version; cat_graph_as_of the one
** numbered n, into *out (g's identity, n's topology), or GNNDB_NOTFOUND
** in words when g never had it or it was dropped. */
int cat_graph_as_of(cat_db *c, const cat_graph *g, int64_t n, cat_graph *out,
                    gnn_err *e);
/* Each kept version of g, oldest first, into a malloc'd array: version,
** edges, input edges and files as cat_graph rows (name, id and topo_id
** those of the row that holds it); `made` gets the UTC time each was
** made ("" when not recorded), made[i] CAT_MADE_MAX bytes, malloc'd. */
#define CAT_MADE_MAX 32
int cat_version_list(cat_db *c, const cat_graph *g, cat_graph **out,
                     char (**made)[CAT_MADE_MAX], size_t *n, gnn_err *e);
/* In the caller's transaction: v (filled as a graph row of the next
** version's topology: file, token, counts, edge-id files) becomes version
** g->version + 1 of g, its row inserted (v->id, v->topo_id set) and g's
** current version moved to it. */
int cat_version_add(cat_db *c, const cat_graph *g, cat_graph *v, gnn_err *e);
/* In the caller's transaction: the rows of every version of g before
** `before` (never the current one) deleted with what hangs off them, and
** g's oldest version set to `before`. */
int cat_versions_drop(cat_db *c, const cat_graph *g, int64_t before,
                      gnn_err *e);
/* The row that holds version n (n >= g->oldest_version) of g. */
int cat_version_row(cat_db *c, const cat_graph *g, int64_t n, cat_graph *out,
                    gnn_err *e);

/* Tables of a graph (features and the label table). */
int cat_table_insert(cat_db *c, cat_table *t, gnn_err *e);
int cat_table_get(cat_db *c, int64_t graph_id, const char *name,
                  cat_table *t, gnn_err *e);
int cat_table_list(cat_db *c, int64_t graph_id, cat_table **out, size_t *n,
                   gnn_err *e);
int cat_table_delete(cat_db *c, int64_t table_id, gnn_err *e);

/* Splits of a graph, of either kind (a catalog older than the kind column,
** opened read-only, has node splits only). Insert: GNNDB_EXISTS when the
** graph has a split of that name, of either kind. */
int cat_split_insert(cat_db *c, cat_split *s, gnn_err *e);
int cat_split_get(cat_db *c, int64_t graph_id, const char *name,
                  cat_split *s, gnn_err *e);
int cat_split_list(cat_db *c, int64_t graph_id, cat_split **out, size_t *n,
                   gnn_err *e);
int cat_split_delete(cat_db *c, int64_t split_id, gnn_err *e);
/* The split `name` of graph g, asked for as seeds of a kind: its row in
** *sp. GNNDB_NOTFOUND when g has no split of that name; GNNDB_ERROR when
** it is of the other kind. A node split (SEEDS name): an edge split's
** members are edges, not nodes ("'train' is an edge split; use EDGES
** train"), with `who` (the statement, "SCAN: ", or "") before the words.
** An edge split (EDGES name, EXCLUDE): "'train' is a node split of graph
** 'g', not an edge split; use SEEDS train". */
int cat_node_split_get(cat_db *c, const cat_graph *g, const char *name,
                       const char *who, cat_split *sp, gnn_err *e);
int cat_edge_split_get(cat_db *c, const cat_graph *g, const char *name,
                       cat_split *sp, gnn_err *e);

/* ---- typed graphs (catalog/hetero.c) ------------------------------------
** A typed graph has ONE global node id space: node type t owns the ids
** [first, first + count), types laid out in creation order (type_no 0, 1,
** ...). Each relation (src_type, name, dst_type) has its own topology over
** the global ids: a graphs row of kind CAT_GRAPH_RELATION named
** "<graph>.<name>", opened with db_open_graph like any graph. Node type and
** relation names share one namespace per graph. The tables and splits of
** a node type hang off the typed graph with node_type set, under the
** stored name "<type>.<name>" (cat_type_object_name): a name the grammar's
** identifiers cannot take, so each type has its own feature, label
** ("<type>.__labels") and split names. A relation's edge feature tables
** hang off its own graphs row instead (cat_relation_edge_table). */
typedef struct cat_node_type {
    int64_t graph_id;
    int type_no;
    char name[CAT_NAME_MAX];
    int64_t first;            /* global id of its first node */
    int64_t count;
} cat_node_type;

typedef struct cat_relation {
    int64_t graph_id;         /* the relation's own graphs row (topology) */
    int64_t parent_id;        /* the typed graph */
    char name[CAT_NAME_MAX];
    int src_type, dst_type;   /* type_no of its sources and targets */
    char reverse_of[CAT_NAME_MAX]; /* "" unless WITH REVERSE built it */
} cat_relation;

/* Add node type t->name of count t->count to typed graph t->graph_id: sets
** t->type_no and t->first (after the last type) and adds the count to the
** graph's nodes. GNNDB_EXISTS when the name is a type or relation of the
** graph; GNNDB_MISUSE when the graph is not typed or already has a
** relation (whose files cover the node count they were built with). */
int cat_type_insert(cat_db *c, cat_node_type *t, gnn_err *e);
int cat_type_get(cat_db *c, int64_t graph_id, const char *name,
                 cat_node_type *t, gnn_err *e);
/* The types of a graph by type_no (empty for a graph that is not typed). */
int cat_type_list(cat_db *c, int64_t graph_id, cat_node_type **out,
                  size_t *n, gnn_err *e);
/* Record relation r (its graphs row, r->graph_id, already inserted with
** kind CAT_GRAPH_RELATION), adding `edges` to the typed graph's edges.
** GNNDB_EXISTS when the name is a type or relation of the graph. */
int cat_relation_insert(cat_db *c, const cat_relation *r, int64_t edges,
                        gnn_err *e);
int cat_relation_get(cat_db *c, int64_t parent_id, const char *name,
                     cat_relation *r, gnn_err *e);
/* The relations of typed graph parent_id, in creation order. */
int cat_relation_list(cat_db *c, int64_t parent_id, cat_relation **out,
                      size_t *n, gnn_err *e);
/* The relation made from the same edge file as r, turned round: the one r
** reverses (r->reverse_of) or the one WITH REVERSE built as r's reverse.
** Their input edge i is one edge, so edge tables are shared between them.
** GNNDB_NOTFOUND when r has none (an UNDIRECTED relation, one without
** edge ids, or one whose partner was dropped and whose reverse_of now
** names a relation made from another file). */
int cat_relation_partner(cat_db *c, const cat_relation *r, cat_relation *p,
                         gnn_err *e);
/* Edge feature table `name` of relation `rel` of typed graph parent_id:
** the one lookup of a relation's edge tables (IMPORT EDGE FEATURES' name
** check, DROP FEATURES name ON g.r, and SAMPLE ... EDGE FEATURES on a
** typed graph). IMPORT EDGE FEATURES INTO g.r stores a table on the
** topology graph of r (its tables row's graph_id is r's graphs row); r
** and its partner (cat_relation_partner) share input edges, so the table
** is looked for on r, then on its partner. GNNDB_OK: *t is the table,
** kind CAT_TABLE_EDGE_FEATURES, t->rows the relation's input_edges; row i
** belongs to input edge i, the edge id r's edge-id graph holds beside a
** neighbour (the same id in r and its partner); t->graph_id is the
** relation graph that stores it (r's or its partner's); db_open_table
** opens it from *t alone. GNNDB_NOTFOUND, with words
** naming the table, the relation and the graph, when neither has it or
** the graph has no relation rel; another code on a catalog error. */
int cat_relation_edge_table(cat_db *c, int64_t parent_id, const char *rel,
                            const char *name, cat_table *t, gnn_err *e);
/* "<graph>.<relation>", the name of a relation's graphs row; GNNDB_RANGE
** when it does not fit. */
int cat_relation_graph_name(const char *graph, const char *rel,
                            char out[CAT_NAME_MAX], gnn_err *e);
/* "<type>.<name>", the stored name of a type's table or split (labels:
** name "__labels"); GNNDB_RANGE when it does not fit. */
int cat_type_object_name(const char *type, const char *name,
                         char out[CAT_NAME_MAX], gnn_err *e);

/* Per-block CRC32C of a block file, by file name. */
int cat_checksums_put(cat_db *c, const char *file, const uint32_t *sums,
                      uint64_t n, gnn_err *e);
int cat_checksums_get(cat_db *c, const char *file, uint32_t **sums,
                      uint64_t *n, gnn_err *e);

/* COMPACT: file `old` (a version's graph, edge-id graph or edge table)
** replaced by `file` in every row that names it, with the new file's n
** checksums; the old name's go. In the caller's transaction. */
int cat_file_replace(cat_db *c, const char *old, const char *file,
                     const uint32_t *sums, uint64_t n, gnn_err *e);

/* The file now holding the blocks of `token` (a graph's, edge-id graph's
** or table's): where a COMPACT moved a version's blocks to
** (GNNDB_NOTFOUND when no row has it). */
int cat_file_of_token(cat_db *c, uint64_t token, char out[CAT_NAME_MAX],
                      gnn_err *e);

/* Raise the database's format_version to `version` (a change an older
** library would misread: 5, segmented files); in the caller's
** transaction. */
int cat_format_raise(cat_db *c, int version, gnn_err *e);

/* Degree histogram of a graph: bucket 0 counts nodes of in-degree 0,
** bucket k >= 1 those of in-degree in [2^(k-1), 2^k). */
int cat_degree_hist_put(cat_db *c, int64_t graph_id, const int64_t *counts,
                        int nbuckets, gnn_err *e);
int cat_degree_hist_get(cat_db *c, int64_t graph_id, int64_t *counts,
                        int maxbuckets, int *nbuckets, gnn_err *e);

/* Every file name and every token the catalog refers to (to find orphans
** left by a crash). malloc'd arrays; strings in one block the caller frees
** with free(*names). */
int cat_files(cat_db *c, char ***names, size_t *n, gnn_err *e);
int cat_tokens(cat_db *c, uint64_t **tokens, size_t *n, gnn_err *e);

/* The disk profile of this database (PRAGMA calibrate): what its disk and
** this machine's memory deliver, for EXPLAIN's cost model. Rates are per
** second; the in-memory rates are per thread. */
typedef struct cat_profile {
    char source[16];          /* "measured", "manual" or "default" */
    char measured_at[32];     /* UTC, ISO 8601; "" for the defaults */
    char io[8];               /* backend that measured: "uring", "pread" */
    double direct;            /* 1: O_DIRECT reads; 0: through the page cache */
    double seq_read_1m_bps;   /* sequential reads of 1 MiB, deep queue */
    double seq_read_4m_bps;   /* the same with 4 MiB reads */
    double rand_4k_iops;      /* random 4 KiB reads, deep queue */
    double rand_4k_lat_us;    /* one random 4 KiB read alone */
    double rand_bs_iops;      /* random reads of rand_bs bytes, deep queue */
    double rand_bs_lat_us;
    double rand_bs;           /* the block size measured (bytes) */
    double sample_edges_per_s;/* edges sampled per second, one thread */
    double gather_bps;        /* bytes of rows gathered per second, one thread */
} cat_profile;

/* The numeric fields by name, in the order PRAGMA calibrate lists them. */
typedef struct cat_profile_field {
    const char *name;
    size_t off;               /* offsetof(cat_profile, ...), a double */
} cat_profile_field;
extern const cat_profile_field cat_profile_fields[];
extern const int cat_profile_nfields;

/* The smallest and largest of graph graph_id's times of `kind` ("edge" or
** "node"): put in the transaction that publishes them (replacing any),
** get where stored, else GNNDB_NOTFOUND (times imported by an older gnndb,
** or a read-only catalog that predates the table). */
int cat_time_range_put(cat_db *c, int64_t graph_id, const char *kind,
                       int64_t tmin, int64_t tmax, gnn_err *e);
int cat_time_range_get(cat_db *c, int64_t graph_id, const char *kind,
                       int64_t *tmin, int64_t *tmax, gnn_err *e);

/* The documented defaults (source "default"), used when none is stored. */
void cat_profile_defaults(cat_profile *p);
/* The stored profile; GNNDB_NOTFOUND (p set to the defaults) when none is,
** or when the catalog predates the disk_profile table. */
int cat_profile_get(cat_db *c, cat_profile *p, gnn_err *e);
/* Replace the stored profile, in one savepoint. */
int cat_profile_put(cat_db *c, const cat_profile *p, gnn_err *e);

/* Remove the stored profile: the database is uncalibrated again. */
int cat_profile_clear(cat_db *c, gnn_err *e);

/* Packs: the mini-batches of a SAMPLE stored by SAMPLE ... INTO PACK
** (catalog/packs.c). Pack names are unique in the database. */
#define CAT_SQL_MAX 4096

typedef struct cat_pack {
    int64_t id;
    int64_t graph_id;
    char name[CAT_NAME_MAX];
    uint64_t token;
    char file[CAT_NAME_MAX];
    char sql[CAT_SQL_MAX];    /* the SAMPLE text (truncated to fit) */
    uint64_t seed;            /* the SAMPLE's effective SEED */
    int64_t epochs;           /* EPOCHS of the SAMPLE */
    int64_t batches_per_epoch;
    int64_t batches;          /* mini-batches stored (LIMIT may cut) */
    uint32_t block_size;
    int64_t nblocks;
    int64_t bytes;            /* bytes of the records, headers excluded */
    int nhops;
    int64_t x_dim;            /* 0: no features */
    int has_y;
} cat_pack;

typedef struct cat_pack_batch {
    int64_t epoch, batch;
    int64_t offset, length;   /* the record, in the pack's byte stream */
} cat_pack_batch;

/* Insert sets p->id; GNNDB_EXISTS when the name is taken. */
int cat_pack_insert(cat_db *c, cat_pack *p, const cat_pack_batch *b,
                    size_t n, gnn_err *e);
int cat_pack_get(cat_db *c, const char *name, cat_pack *p, gnn_err *e);
int cat_pack_list(cat_db *c, int64_t graph_id, cat_pack **out, size_t *n,
                  gnn_err *e);
/* The stored batches of a pack in stream order: all (epoch < 0) or one
** epoch's. */
int cat_pack_batches(cat_db *c, int64_t pack_id, int64_t epoch,
                     cat_pack_batch **out, size_t *n, gnn_err *e);
/* Removes the pack, its batch list and its checksums. */
int cat_pack_delete(cat_db *c, int64_t pack_id, gnn_err *e);

/* Append to the statement log. */
int cat_log(cat_db *c, const char *sql, int rc, double ms, gnn_err *e);

#endif
