/* exec_int.h — the context the executor's operators share (hb_ctx): the
** handles (database, plan, pools, open tables, topologies, worker pool),
** the seeds, the hyperbatch being built and handed out, the buckets, the
** counters, and a slot for each operator's own state and for the variant.
** Each operator's state is defined in its own files (hop_int.h, gather.c,
** hbs_int.h, transfer.c, hb_link.c, hb_resident.c, hop_temporal.c) and is
** an incomplete type everywhere else, so no operator reaches into
** another's; its functions are declared in its own header. The executor
** itself (hb_exec: the context plus what only handing out keeps) is
** private to hyperbatch.c. Counts and sizes come from the plan. Not part
** of any public interface. */
#ifndef GNN_EXEC_INT_H
#define GNN_EXEC_INT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "exec.h"
#include "block.h"
#include "blockfile.h"
#include "bufpool.h"
#include "io.h"
#include "seeds.h"
#include "link.h"
#include "hb_topo.h"
#include "hb_batch.h"
#include "hb_blocks.h"
#include "hbs_format.h"
#include "hb_variant.h"

/* What the operators share: handles, the hyperbatch they pass along, the
** counters, and each operator's own state behind an opaque pointer. */
struct hb_ctx {
    gnndb *db;
    plan *p;                 /* the one source of counts and sizes */
    io_backend *io;
    bp_pool *gpool;          /* graph blocks */
    bp_pool *fpool;          /* feature and label blocks */
    blk_file *ff, *lf, *ef;  /* features, labels, edge features */
    hb_rel_topo topo;        /* the graph's topology (not a typed graph's) */
    const hb_rel_topo *gtopo; /* what the hop reads: &topo, or a relation's */
    hb_rel_topo *rt;         /* a typed graph's relations, p->nrels */
    blk_file **tf;           /* its types' feature files, p->ntypes */
    struct wpool *pool;

    seed_set seeds;          /* and each epoch's order (this partition's
                             ** share of it: p->nseeds) */
    int64_t next_global;     /* next mini-batch to build, over all epochs */
    int64_t h_next;          /* mini-batches in the next hyperbatch */

    hb_batch *hb;            /* the hyperbatch being handed out */
    int nb, cur, capb;
    /* belady: the next hyperbatch, sampled but not yet gathered, whose rows
    ** are the future the cache evicts by; swapped with hb to build it */
    hb_batch *hb2;
    int nb2, capb2;
    size_t staged_other;     /* bytes the other hyperbatch holds (hb_fit) */
    int ahead;               /* sampling the lookahead: a cut to nothing is
                             ** no error, it only shortens the future */
    int round_may_end;       /* a spilled round holding mini-batches: a cut
                             ** to nothing is no error, it ends the round */

    const hb_variant *var;   /* node, link or typed: chosen by hb_open */
    struct hb_link *link;    /* edge seeds: the link variant's (hb_link.c) */
    hb_blocks bk;            /* items by block: a hop's, then gather's */
    struct hb_hop_state *hop; /* the hop operator's (hop.c) */
    struct hb_gather_state *gat; /* the gather operator's (gather.c) */
    /* the spilled hyperbatch's (hb_spill.c, hb_readback.c, hb_pipeline.c:
    ** hbs_int.h), for a spilled plan only */
    struct hb_spill_state *sp;
    struct hb_readback *rb;
    struct hb_bg *bg;
    int building;            /* a spilled round is built on a thread of its
                             ** own (hb_pipeline.c): x->st, the pools and the
                             ** worker pool are its until it is joined */
    atomic_int stop;         /* hb_close: give up the build */
    struct hb_transfer *tr;  /* the transfer operator (transfer.c) */
    struct hb_rs_worker **rsw; /* a resident round's workers (hb_resident.c) */
    struct hb_tm_times *tm;  /* a time-respecting SAMPLE: the seeds'
                             ** times (hop_temporal.c) */
    int nrsw;

    /* x->st: what building counts (the build thread's while one runs);
    ** x->est: what handing out counts (the caller's thread); hb_get_stats
    ** (hyperbatch.c) adds them up */
    hb_stats st, est;
    /* the most resident bytes the memory checks saw (either thread) */
    atomic_int_least64_t rss_peak;
    /* the builder's last hb_fit: what the sampled mini-batches and the
    ** hops' scratch counted (fit_counted at its latest check, fit_held at
    ** its first, before any cut) and how many it found */
    size_t fit_counted, fit_held;
    int fit_sampled;
};

/* Whether the build should give up: an interrupt, or hb_close. */
static inline int hb_halted(const hb_ctx *x)
{
    return x->db->interrupt || atomic_load(&x->stop);
}

#endif
