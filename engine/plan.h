/* plan.h — a SAMPLE statement compiled against the catalog: the operators
** seeds -> sample (one per hop) -> gather -> transfer, with the memory each
** may use and the estimates EXPLAIN prints. */
#ifndef GNN_PLAN_H
#define GNN_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include "db.h"
#include "memory.h"
#include "block.h"
#include "blockfile.h"
#include "../parser/ast.h"

/* A typed SAMPLE's node types and relations (plan_typed): the global id
** range of each type, the tables it gathers from, and each relation's
** topology and fanout per hop (0: not sampled at that hop). */
typedef struct plan_type {
    char name[CAT_NAME_MAX];
    int64_t first, count;      /* global ids [first, first + count) */
    int has_feat, has_labels;
    cat_table feat, labels;    /* rows are ids local to the type */
} plan_type;

typedef struct plan_rel {
    char name[CAT_NAME_MAX];
    int src, dst;              /* type indices: sources, targets */
    cat_graph topo;            /* its topology, over the global ids */
    int fanout[AST_MAX_HOPS];  /* 1..1000, -1 all, 0 not sampled */
    int has_efeat;             /* EDGE FEATURES w: the relation has w */
    cat_table efeat;
} plan_rel;

/* The transfer operator's part of a plan (plan_device.c): whether the
** batches' arrays are gathered into pinned memory (every device-bound
** batch, and host batches under PRAGMA pin_memory), the GPU cache (PRAGMA
** gpu_cache: rows of x kept on the device, chosen by counting the first
** `warm` batches), and the host memory the transfer holds beside the staged
** batches (its pinned staging and the cache's index), which plan.c counts
** inside memory_limit. */
typedef struct plan_transfer {
    int pin;
    int64_t cache_bytes, cache_rows;
    int warm;
    int64_t host_bytes;
    char why_no_cache[160];    /* gpu_cache set but not used: why */
} plan_transfer;

typedef struct plan {
    cat_graph graph;
    int64_t graph_latest;    /* the graph's current version (AS OF VERSION
                             ** reads graph.version, maybe older) */
    /* a typed graph: types and relations (malloc'd), the seeds' type */
    int typed;
    int ntypes, nrels;
    plan_type *types;
    plan_rel *rels;
    int seed_type;
    int64_t typed_xdim;        /* the widest of the types' feature rows */
    /* the topology the hops read: the graph's blocks, or, when the batches
    ** carry edge ids (eids), its edge-id graph (file, token, blocks) */
    cat_graph topo;
    int eids;
    /* an edge-seeded SAMPLE (EDGES split): link prediction */
    int link;
    cat_split edge_split;
    int neg_mode;              /* AST_NEG_* */
    int64_t negative;          /* k; 0: positives only */
    int neg_strict;
    int exclude_seeds;
    cat_split exclude[AST_MAX_EDGE_SPLITS]; /* EXCLUDE SPLIT a, b */
    size_t nexclude;
    int has_efeat;             /* EDGE FEATURES w */
    /* a time-respecting SAMPLE (plan_time.c): AT TIMES 'f' (the seeds'
    ** times, malloc'd, in the order of the seed set as loaded: a node
    ** split's ascending ids, an edge split's ascending edge ids), AT NODE
    ** TIME (the node times table) or AT EDGE TIME; the hops read the time
    ** graph (topo), or the graph's own lists BY NODE TIME, and carry edge
    ** ids (eids) */
    int temporal;
    int time_source;           /* AST_TIME_* */
    int time_strategy;         /* AST_TEMPORAL_* */
    int time_strict;           /* BEFORE */
    int time_by_node;          /* BY NODE TIME: an edge's time is its
                               ** source node's; the hops read the graph's
                               ** own lists and every node's time */
    int64_t time_window;       /* WINDOW w; 0: none */
    int64_t *seed_times;
    size_t n_seed_times;
    cat_table node_times;
    int neg_by_time;           /* seed edges on a graph with node times:
                               ** a negative is drawn among the nodes whose
                               ** time is at or before its root's */
    int seed_edge_times;       /* AT EDGE TIME BY NODE TIME: the seed edges'
                               ** times read once from time_graph as the
                               ** run starts, since topo holds none */
    cat_graph time_graph;      /* its edge-id view */
#define PLAN_SEED_TIME_FRAMES 4    /* the blocks of time_graph read for it
                                   ** at once (a list an entry at a time) */
    int typed_efeat;           /* EDGE FEATURES w of a typed graph's
                               ** relations (plan_rel), not p->efeat */
    cat_table efeat;
    int has_feat, has_labels;
    cat_table feat, labels;
    int seeds_kind;            /* AST_SEEDS_* */
    cat_split split;
    int64_t *seed_list;        /* SEEDS (...): external ids, malloc'd */
    size_t n_seed_list;

    int nhops;
    int fanouts[AST_MAX_HOPS];
    int replace;
    int64_t batch;
    int64_t hyperbatch_asked;  /* 0: default */
    /* without spill_limit, the bytes free where the spill area goes when
    ** planned (-1: unknown) and the round they allow (0: no bound) */
    int64_t spill_free, spill_free_cap;
    int64_t hyperbatch;        /* what the plan expects to fit */
    int64_t hyperbatch_cap;    /* at most this many (asked, and one epoch) */
    int64_t deg_hist[64];      /* the graph's degree histogram */
    int nbuckets;
    int shuffle;
    uint64_t seed;
    int seed_drawn;
    int64_t epochs;
    int64_t limit;             /* -1: none */
    char *into;                /* malloc'd or NULL */
    int device;                /* GNNDB_DEVICE_* */
    int device_index;
    plan_transfer tr;

    int64_t part_rank, part_count; /* PARTITION k OF n; count 0: none */
    int64_t nseeds_all;        /* seeds per epoch over all partitions */
    int64_t nseeds;            /* seeds per epoch of this partition */
    int64_t seed_lo;           /* its share's first position in each
                               ** epoch's order (plan_set_seed_count) */
    int64_t batches_per_epoch;
    int64_t total_batches;

    /* memory: memory_limit less what the process holds (memory.c), less
    ** the host's copies of batches (PRAGMA batch_copies), is `data`; the
    ** pools take their share of it, the staged mini-batches the rest. The
    ** pools keep graph_resident and feat_resident of their files' blocks
    ** between rounds (1: the whole file, read once). */
    mem_reserve mem;
    int64_t memory_limit;
    int64_t copies_bytes;      /* with INTO PACK's writer (pack) */
    int pack;
    int64_t data_bytes;
    double graph_resident, feat_resident;
    /* how the graph's blocks and the feature table's are read (memory.c;
    ** db_open_* chooses again when the executor opens them) */
    read_choice graph_read, feat_read;
    int64_t graph_pool_bytes, feat_pool_bytes, staged_bytes;
    int64_t per_batch_bytes;   /* expected bytes of one staged mini-batch */
    size_t graph_frames, feat_frames;
    int cache_policy;          /* GNN_CACHE_* (db.h); NONE without features */
    int64_t cache_bytes;       /* the row cache, data and bookkeeping */
    int64_t cache_rows;        /* rows it holds */
    int64_t cache_blocks;      /* hot_blocks: feature blocks it pins */
    char note[384];            /* e.g. why HYPERBATCH was reduced */
    /* spilling (hb_spill.c): whether each round of `hyperbatch` mini-batches
    ** goes through the spill area, its runs' write buffers, whether the next
    ** run is read ahead, and the costs the choice was made on (bytes of I/O
    ** per mini-batch, with and without) */
    int spill;
    size_t spill_wbuf;
    int spill_ahead;           /* runs read ahead of the one handed out */
    double run_bytes_est;
    double spill_topo_est;     /* n_id and edge_index of one batch */
    double spill_rec_est;      /* what one batch's record and run buffer hold */
    double spill_subround;     /* mini-batches expected per sampling round */
    double cost_inmem, cost_spill;
    int64_t hyperbatch_inmem;  /* the H that fits without spilling */
    /* hot rows (exec/hotrows.h): the rows of the nodes with the most stored
    ** neighbours kept in memory for the run, so that no run holds them:
    ** room for how many, and their bytes (taken from staged_bytes) */
    int64_t spill_hot_rows, spill_hot_bytes;
    double spill_hot_share;    /* of a mini-batch's rows, expected */
    double spill_hot_spare;    /* bytes a run is expected to leave out */

    /* upper bounds per mini-batch */
    int64_t nodes_bound, edges_bound;
    double nodes_est[AST_MAX_HOPS + 1]; /* expected new nodes per hop */
    double edges_est[AST_MAX_HOPS];
    double blocks_est_hb[AST_MAX_HOPS]; /* graph blocks read per hop, per HB */
    double feat_blocks_est_hb;

    /* EXPLAIN's cost model: the disk profile (the defaults when the
    ** database was never calibrated) */
    cat_profile profile;
    int calibrated;

    int read_granularity;      /* GNN_GRAN_*: whole blocks or their pages */
    int io;
    int threads;
    int io_depth;
    int coalesce;
} plan;

/* What SAMPLE ... INTO PACK's writer holds beside the executor
** (cmd/pack_build.c): the block it fills, the block writer's buffer, and
** per batch its place in the pack (32 bytes) and, with room to grow, its
** blocks' checksums. */
#define PLAN_PACK_WRITER_BYTES(batches) \
    ((int64_t)BLK_DEFAULT_SIZE + BLKW_BUF_BYTES + (batches) * 48)

/* Bytes a staged mini-batch holds per node (internal id, map slots at up
** to four per node, output id, the feature row with a quarter of growth
** slack, and the gather's per-row scratch: item, block and order) and per
** edge (sampled ids and the output, with slack, and the sampling arena). */
#define HB_NODE_BYTES(dim) (5 + 24 + 10 + (dim) * 5 + 24)
#define HB_EDGE_BYTES (10 + 20 + 4)

/* Bytes a mini-batch being sampled in a spilled round holds per node
** (internal id with slack, two to four 4-byte map slots, its share of the
** hop scratch) and per edge (both local ends with slack, the arena). */
#define HB_SAMPLE_NODE_BYTES (5 + 12 + 13)
#define HB_SAMPLE_EDGE_BYTES (10 + 4)

/* The width of a mini-batch's x: the feature table's dim, 0 without one;
** and the bytes of one row of it as handed out (float32, whatever the
** table stores). */
static inline int64_t plan_x_dim(const plan *p)
{
    if (p->typed) return p->typed_xdim;
    return p->has_feat ? p->feat.dim : 0;
}
static inline size_t plan_x_row_bytes(const plan *p)
{
    return (size_t)plan_x_dim(p) * sizeof(float);
}
/* The tables whose rows a spilled round gathers into its runs (hb_spill.c's
** sections): the node features or each type's, then EDGE FEATURES' table or
** each relation's. A round spills at most PLAN_SPILL_SECTIONS of them. */
#define PLAN_SPILL_SECTIONS 128
static inline int plan_spill_sections(const plan *p)
{
    int n = p->has_feat + p->has_efeat;
    for (int t = 0; p->typed && t < p->ntypes; t++) n += p->types[t].has_feat;
    for (int r = 0; p->typed_efeat && r < p->nrels; r++)
        n += p->rels[r].has_efeat;
    return n;
}
/* What the runs of g spilled mini-batches take in the spill area: the
** plan's estimate of a run with a twentieth to spare. */
static inline double plan_spill_bytes(const plan *p, double g)
{
    return g * p->run_bytes_est * 1.05;
}

/* The nodes a mini-batch starts from: BATCH seeds, or for a link batch
** the endpoints of its seed edges and negatives (at most, before repeats
** are merged; a time-respecting one keeps a root per endpoint slot, a
** negative's source among them unless TRIPLET). */
static inline int64_t plan_seed_nodes(const plan *p)
{
    if (!p->link) return p->batch;
    int64_t ends = p->neg_mode == AST_NEG_PAIRS ? 2 * (1 + p->negative)
                                                : 2 + p->negative;
    if (p->temporal && p->neg_mode != AST_NEG_TRIPLET)
        ends = 2 * (1 + p->negative);
    return p->batch * ends;
}

/* A SAMPLE of a typed graph (plan_typed.c): its types, relations, fanout
** maps and seeds' type; and the expected mini-batch, hop by hop. */
int plan_typed(gnndb *db, const ast_stmt *s, plan *p, gnn_err *e);
void plan_typed_estimate(plan *p);

/* The time clauses of a SAMPLE (plan_time.c): the time graph as the
** topology, the seeds' times. */
int plan_time(gnndb *db, const ast_stmt *s, plan *p, gnn_err *e);

/* Resolve names and memory for a SAMPLE. On failure the words are in *e. */
int plan_build(gnndb *db, const ast_stmt *s, plan *p, gnn_err *e);
/* The share of partition k of n over `total` seeds: positions [*lo, *hi) of
** each epoch's seed order. Shares differ in size by at most one. */
void plan_partition_range(int64_t total, int64_t k, int64_t n, int64_t *lo,
                          int64_t *hi);
/* Mini-batches per epoch of `nseeds` seeds cut `batch` at a time, and in
** all over `epochs` epochs, cut to `limit` (-1: none). SAMPLE's plan and
** SCAN count their batches with this one rule. */
void plan_batch_counts(int64_t nseeds, int64_t batch, int64_t epochs,
                       int64_t limit, int64_t *per_epoch, int64_t *total);
/* The seeds per epoch are `loaded` (the catalog's count when planning, what
** the executor loaded when it runs): this partition's share of them
** (nseeds, from seed_lo), batches_per_epoch and total_batches. The one
** place these counts are derived; needs batch, epochs, limit and the
** partition set. */
void plan_set_seed_count(plan *p, int64_t loaded);
/* The round of at most `want` mini-batches that starts at mini-batch g (over
** all epochs): its epoch, its first batch in that epoch, and how many it
** holds (a round stays within one epoch and within total_batches). */
int64_t plan_round(const plan *p, int64_t g, int64_t want, int64_t *epoch,
                   int64_t *first);
/* How many mini-batches of `per_batch` bytes each a hyperbatch stages within
** staged_bytes: halved under belady, which holds the next hyperbatch
** beside this one; at least 1, at most hyperbatch_cap. */
int64_t plan_hyperbatch_fit(const plan *p, double per_batch);
/* 1 when the pools keep every block of the graph and of the tables gather
** reads between rounds, and the batches are of a kind the executor then
** builds straight from the pools' frames (exec/hb_resident.c): untyped
** node batches without edge ids, row or block cache, or reads of pages,
** not spilled. */
int plan_resident(const plan *p);
void plan_free(plan *p);
/* TO DEVICE 'host' | 'cuda[:N]' (NULL: host) into p->device and
** p->device_index. */
int plan_parse_device(const char *d, plan *p, gnn_err *e);
/* The transfer operator's part of the plan (p->tr), once the pools and
** per_batch_bytes are known: a GPU cache that the device's free memory
** cannot hold is refused here, in words. */
int plan_transfer_of(gnndb *db, plan *p, gnn_err *e);

#endif
