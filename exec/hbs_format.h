/* hbs_format.h — the layout of a spilled round (hb_spill.c writes it,
** hb_readback.c reads it back): a record per mini-batch kept in memory, a
** run per mini-batch on disk laid out as engine/plan_run.h says (the
** planner estimates by the same functions), and the sections of rows a
** round gathers into its runs. */
#ifndef GNN_HBS_FORMAT_H
#define GNN_HBS_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include "plan.h"
#include "plan_run.h"
#include "hb_topo.h"

struct spill_run;

typedef struct hb_sbatch {   /* a spilled mini-batch's record */
    int64_t epoch, batch, nseeds;
    size_t nn, ne;
    int64_t nsn[AST_MAX_HOPS + 1];
    int64_t nse[AST_MAX_HOPS];
    uint32_t *srows;         /* its nodes by row, ascending (until gathered) */
    uint32_t *seids;         /* with edge rows: its edges' ids, ascending
                             ** (a typed batch's relation by relation) */
    size_t *esec;            /* typed: relation r's are seids[esec[r] ..
                             ** esec[r + 1]) (p->nrels + 1 of them) */
    uint64_t *yrows;         /* its seeds: (row << 32 | local), ascending */
    int64_t *y;              /* their labels, local order */
    int64_t *lk_words;       /* a link batch's label arrays (lk_finish) */
    size_t npos, nneg;
    size_t nhot;             /* its hot rows, which its run does not hold */
    struct spill_run *run;   /* topology, then rows as blocks arrived */
} hb_sbatch;

/* One table whose rows a spilled round gathers into its runs: the node
** features or one node type's, whose rows are the nodes with ids in
** [base, end), row = id - base; or EDGE FEATURES' table or one relation's
** (`edges`), whose rows are its edges' ids. Each run holds the rows of its
** sections one after another, in section order. */
typedef struct hbs_section {
    const cat_table *t;
    blk_file *f;
    uint64_t base, end;
    size_t rowbytes;         /* an output row: float32 */
    int pinned;              /* the hot-block cache may hold its blocks */
    int edges;               /* rows of edges: all of them, or relation rel's */
    int rel;                 /* typed: the relation; -1 otherwise */
} hbs_section;

typedef struct hb_round {    /* a spilled round of mini-batches */
    hb_sbatch *sb;           /* a record per mini-batch, in batch order */
    int nsb;
    size_t capsb;
    uint32_t *arrival;       /* feature blocks in the order they arrived */
    size_t narrival, caparrival;
    /* section k's blocks are arrival[sec_arrival[k] .. sec_arrival[k+1]) */
    size_t sec_arrival[PLAN_SPILL_SECTIONS + 1];
} hb_round;

/* The tables a round gathers from, as the executor opened them: the node
** features and EDGE FEATURES, each type's features (p->ntypes, NULL where
** none) and each relation's topology with its edge features (p->nrels). */
typedef struct hbs_tables {
    blk_file *feat, *efeat;
    blk_file *const *type_feat;
    const hb_rel_topo *rels;
} hbs_tables;

/* Where a run's parts start, for a mini-batch of nn nodes, ne edges: after
** the topology, the local index of each node by row (for a typed batch its
** rank in its type) and the rows themselves (4 bytes each); with EDGE
** FEATURES each edge's place (its local index, or in a typed batch its
** rank in its relation) by id, then the ids ascending (4 each); then the
** rows of each section. */
static inline size_t hbs_off_perm(const plan *p, size_t nn, size_t ne)
{
    return plan_run_topo_bytes(p, nn, ne);
}
static inline size_t hbs_off_eperm(const plan *p, size_t nn, size_t ne)
{
    return hbs_off_perm(p, nn, ne) + nn * PLAN_RUN_ORDER_NODE_BYTES;
}
static inline size_t hbs_off_rows(const plan *p, size_t nn, size_t ne)
{
    return hbs_off_eperm(p, nn, ne) + ne * plan_run_order_edge_bytes(p);
}

/* Where a run's e_id and a typed batch's outputs start: after n_id
** (8 bytes a node) and edge_index (16 an edge), and e_id. */
static inline size_t hbs_off_eid(const plan *p, size_t nn, size_t ne)
{
    return nn * 8 + ne * 16;
}
static inline size_t hbs_off_typed(const plan *p, size_t nn, size_t ne)
{
    return hbs_off_eid(p, nn, ne) + (p->eids ? ne * 8 : 0);
}
/* A time-respecting run's node_seed (8 a node), each node's root time (8
** a node: the seeds' first, which is the batch's time) and edge_time (8
** an edge), where a typed run's outputs would be. */
static inline size_t hbs_off_time(const plan *p, size_t nn, size_t ne)
{
    return hbs_off_typed(p, nn, ne);
}

/* The sections of plan p's spilled rows (at most PLAN_SPILL_SECTIONS),
** from tables t: their count. */
int hbs_sections(const plan *p, const hbs_tables *t, hbs_section *out);
/* Record s's ids of section sec, ascending (its nodes in [base, end) of
** srows, or its edges, or one relation's, of seids), *n of them, from
** index *lo of the array they are in. */
const uint32_t *hbs_section_ids(const hbs_section *sec, const hb_sbatch *s,
                                const uint32_t *srows, const uint32_t *seids,
                                size_t *lo, size_t *n);
/* The first i with a[i] >= key in ascending a[0..n) (keys beyond 32 bits
** included: a section's end may be UINT64_MAX). */
size_t hbs_lower_u32(const uint32_t *a, size_t n, uint64_t key);
/* Free record s (its run too) and zero it; every record of round r. */
void hbs_sbatch_release(hb_sbatch *s);
void hbs_round_release(hb_round *r);
/* Bytes round r's records hold in memory under plan p. */
size_t hbs_records_bytes(const plan *p, const hb_round *r);

#endif
