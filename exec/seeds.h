/* seeds.h — the seeds operator: which nodes a SAMPLE or a SCAN starts
** from, and in what order each epoch visits them (EXPLAIN's "scan" line). */
#ifndef GNN_SEEDS_H
#define GNN_SEEDS_H

#include <stddef.h>
#include <stdint.h>
#include "db.h"

typedef struct seed_set {
    uint32_t *ids;           /* internal ids, distinct; ascending but for
                                SEEDS (...) IN ORDER, as listed */
    int64_t n;
    /* each epoch's order, kept for the epoch last asked for */
    uint32_t *order;
    uint32_t *perm;          /* chunk order (only when chunk > 1) */
    int64_t order_epoch;
    int64_t chunk, nchunks;
    int shuffle;
    uint64_t seed, salt;
    int64_t lo, len;         /* the share of each order kept (PARTITION) */
} seed_set;

/* Load the seeds of graph g: the members of the split whose index token is
** `split` (kind AST_SEEDS_SPLIT), the external ids list[0..nlist) mapped
** through the graph's key index when it has one (AST_SEEDS_LIST; sorted,
** a repeated id kept once; AST_SEEDS_ORDERED: as listed, a repeated id
** GNNDB_RANGE), or every node. An id not in the graph is
** GNNDB_NOTFOUND with `who` (the statement, "SCAN: ", or "") before the
** words. On failure s->ids may be set: seeds_free releases it. */
int seeds_load(gnndb *db, const cat_graph *g, int kind, uint64_t split,
               const int64_t *list, size_t nlist, const char *who,
               seed_set *s, gnn_err *e);

/* How the epochs order the loaded seeds: cut into chunks of `chunk`
** consecutive seeds, kept ascending or, with `shuffle`, put in a
** Fisher-Yates order drawn from the counter-based generator under
** (seed, epoch, salt); of each order only positions [lo, lo + len) are
** kept. The salt keeps one statement's draws apart from another's. */
int seeds_order_init(seed_set *s, int64_t chunk, int shuffle, uint64_t seed,
                     uint64_t salt, int64_t lo, int64_t len, gnn_err *e);

/* The order of `epoch`: len internal ids, valid until the order of another
** epoch is asked for. */
const uint32_t *seeds_order(seed_set *s, int64_t epoch);

void seeds_free(seed_set *s);

#endif
