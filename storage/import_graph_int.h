/* import_graph_int.h — the state of one CREATE GRAPH import, shared by
** import_graph.c (parse, map keys, reorder, results) and graph_build.c
** (buckets, CSR, packing). Not part of any interface. */
#ifndef GNN_IMPORT_GRAPH_INT_H
#define GNN_IMPORT_GRAPH_INT_H

#include "import.h"
#include "blockfile.h"
#include "extsort.h"

#include <stdint.h>

#define IO_BUF ((size_t)1 << 20)
/* Parsing checks interruption and reports progress this often (edges). */
#define CHECK_EVERY 65536

/* Where the blocks of one graph file go (graph_build.c's callbacks): the
** file, or a scratch file; their checksums and index entries kept. */
typedef struct graph_out {
    blk_writer *w;        /* the published file, or NULL */
    int scratch_fd;       /* or a scratch file (the BFS pre-build), or -1 */
    uint32_t bs;
    gnn_err *e;
    uint32_t *sums;
    uint64_t nsums, sums_cap;
    uint64_t *idx_first, *idx_block;
    size_t n_idx, idx_cap;
} graph_out;

typedef struct graph_ctx {
    const char *src;
    const imp_graph_opts *o;
    const imp_ctl *ctl;
    const char *tmpdir;
    size_t total;         /* ctl->mem_budget: the nodes' arrays, then ... */
    size_t budget;        /* ... what they leave for the edges' buffers */
    uint32_t bs;
    gnn_err *e;

    xs_file pairs;        /* raw (src, dst) int64 pairs as parsed */
    xs_file times;        /* with a time column: each pair's int64 time */
    uint64_t npairs;
    int64_t *keys;        /* map_ids: distinct keys, ascending (rank order) */
    uint64_t n;           /* nodes */
    uint32_t *raw;        /* per rank: edges the distribution gives it */
    uint64_t raw_cap;
    uint32_t *perm;       /* rank -> internal id (NULL: identity) */

    /* outputs of one build */
    uint32_t *deg;        /* per internal id: final in-degree */
    uint64_t edges;
    graph_out out;        /* the plain graph */
    /* edge ids: set for the last build only (not for a reorder's) */
    int eids;
    graph_out eout;       /* the edge-id graph */
    xs_file dropped;      /* u32 ids of edges dropped as duplicates */
} graph_ctx;

static inline int interrupted(graph_ctx *g)
{
    if (g->ctl && g->ctl->interrupt && *g->ctl->interrupt)
        return gnn_seterr(g->e, GNNDB_INTERRUPT, "interrupted");
    return GNNDB_OK;
}

/* Reports done out of total to the progress callback, whose nonzero answer
** stops the import. Parsing counts bytes of input; building counts nodes
** written, a phase of its own: without it a large import looks finished
** while it sorts and writes for as long again. */
static inline int progress(graph_ctx *g, uint64_t done, uint64_t total)
{
    if (g->ctl && g->ctl->progress &&
        g->ctl->progress(g->ctl->progress_arg, (int64_t)done, (int64_t)total))
        return gnn_seterr(g->e, GNNDB_INTERRUPT, "interrupted");
    return GNNDB_OK;
}

static inline int nomem(graph_ctx *g)
{
    return gnn_seterr(g->e, GNNDB_NOMEM, "out of memory");
}

/* The rank of a key among the distinct keys (map_ids), or the id itself. */
static inline uint32_t rank_of(const graph_ctx *g, int64_t key)
{
    if (!g->keys) return (uint32_t)key;
    size_t lo = 0, hi = g->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->keys[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return (uint32_t)lo;
}

/* One build of the graph with the current permutation (graph_build.c):
** every node 0..n-1 gets its object, in order. Fills g->deg, g->edges, the
** checksums and the index entries; blocks go to g->out.w or
** g->out.scratch_fd when set. With g->eids the edge-id graph too, into
** g->eout, and the ids of duplicates dropped into g->dropped. */
int graph_build(graph_ctx *g);
void graph_out_free(graph_out *o);   /* the arrays; not the writer */

/* The internal ids (current order) of a parsed pair of keys. */
static inline void pair_ids(const graph_ctx *g, const int64_t pr[2],
                            uint32_t *u, uint32_t *v)
{
    *u = rank_of(g, pr[0]);
    *v = rank_of(g, pr[1]);
    if (g->perm) {
        *u = g->perm[*u];
        *v = g->perm[*v];
    }
}

/* Whether input edge `id` is a prior version's dropped row (INSERT
** EDGES): parsed to keep the ids in step, then dropped as before. */
static inline int pair_skipped(const graph_ctx *g, uint64_t id)
{
    const imp_prior *p = g->o->prior;
    if (!p || !p->nskip || id >= p->rows) return 0;
    size_t lo = 0, hi = p->nskip;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (p->skip[mid] < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < p->nskip && p->skip[lo] == id;
}

/* The edge table from the parsed pairs and g->dropped (import_edges.c),
** published as `dir`/g->o->edges_name; its checksums into *sums (nblocks,
** malloc'd). */
int edge_table_build(graph_ctx *g, const char *dir, uint32_t **sums,
                     uint64_t *nblocks, uint32_t *rows_per_block);

#endif
