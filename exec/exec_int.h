/* exec_int.h — the executor's state, shared by hyperbatch.c (seeds and
** rounds), hop.c (sampling one hop; the node maps), gather.c (gather),
** batch.c (finishing and handing out batches), hb_resident.c (a round
** built from resident blocks) and the spilled hyperbatch:
** hb_spill.c (building a round), hb_readback.c (handing it out) and
** hb_pipeline.c (building the next round while one is handed out). Each
** operator's own state is a struct of its own (hb_hop_state, hb_gather_state,
** hb_spill_state, hb_readback, hb_bg, hb_transfer), a member of hb_exec
** beside the handles they share; counts and sizes come from the plan.
** Not part of any public interface. */
#ifndef GNN_EXEC_INT_H
#define GNN_EXEC_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "exec.h"
#include "hash.h"
#include "grow.h"
#include "clock.h"
#include "block.h"
#include "blockfile.h"
#include "bufpool.h"
#include "io.h"
#include "sample.h"
#include "granularity.h"
#include "seeds.h"
#include "link.h"
#include "spill.h"
#include "hb_topo.h"
#include "hb_batch.h"
#include "hb_blocks.h"
#include "hbs_format.h"
#include "hb_variant.h"
#include "hop.h"
#include "gather.h"
#include "hb_spill.h"
#include "../gpu/xfer.h"

/* The executor: shared handles, the hyperbatch the operators pass along,
** and each operator's own state. */
struct hb_exec {
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
    int nrsw;

    /* x->st: what building counts (the build thread's while one runs);
    ** x->est: what handing out counts (the caller's thread); hb_get_stats
    ** adds them into x->view, from x->snap while a build runs */
    hb_stats st, est, snap, view;
    /* the most resident bytes the memory checks saw (either thread) */
    atomic_int_least64_t rss_peak;
};

/* Bytes the process holds beyond what the plan knows of (the process at
** prepare, the pools' frames read into, the row cache, the host's copies)
** and `counted`, what the caller counts of the staged data: allocator slack
** and anything a count misses. Measured (the process's resident bytes
** now), so that budgets hold whatever the counts miss; keeps the peak. */
size_t hb_uncounted(hb_exec *x, size_t counted);

/* n_id in the user's ids, edge_index laid out 2 x E, views filled: of
** one mini-batch (t: a read transaction of the index where the graph maps
** keys; *tmp scratch the caller frees), or of every one of x->hb. */
int hb_finish_batch(hb_exec *x, hb_batch *b, idx_txn *t, uint64_t **tmp,
                    size_t *captmp, gnn_err *e);
int hb_finish_batches(hb_exec *x, gnn_err *e);
/* Hand out one finished mini-batch: INTO files, transfer (its digest is
** computed when asked: hb_digest). */
int hb_emit(hb_exec *x, hb_batch *b, const gnndb_batch_view **view,
            gnn_err *e);

/* The transfer operator (transfer.c): open it (the device and its GPU
** cache, for TO DEVICE 'cuda:N') and close it; hand b out, to the device
** or as it is (*view: what the caller gets). */
int hb_transfer_open(hb_exec *x, gnn_err *e);
void hb_transfer_close(hb_exec *x);
void hb_transfer_free(hb_exec *x);
/* Start copying b, the next to be handed out, while the caller works. */
void hb_transfer_prefetch(hb_exec *x, const hb_batch *b);
int hb_transfer_batch(hb_exec *x, hb_batch *b, const gnndb_batch_view **view,
                      gnn_err *e);
/* A batch's outputs that are handed out (n_id, edge_index, x, y,
** edge_attr, a typed batch's rows) grow with hb_out_grow, as gnn_grow
** does, in pinned memory when the transfer wants it (hb_transfer.pin, a
** round kept in memory), and are freed with hb_out_free; hb_out_release
** frees all of b's before batch_free. A spilled round's read buffers, what
** its batches are handed out from, come from hb_read_buffer (aligned for
** O_DIRECT, pinned when wanted) and go back with hb_read_buffer_free. */
int hb_out_grow(hb_exec *x, void **p, size_t *cap, size_t need, size_t elem);
void hb_out_free(hb_exec *x, void *p);
void hb_out_release(hb_exec *x, hb_batch *b);
void *hb_read_buffer(hb_exec *x, size_t bytes);
void hb_read_buffer_free(hb_exec *x, void *p);
/* Load the seeds (through the variant) and order each epoch's
** (hb_round.c). */
int hb_load_seeds(hb_exec *x, gnn_err *e);
/* Free slot b's arrays; those handed out are the transfer operator's
** memory (perhaps pinned: hb_out_release). */
void hb_slot_free(hb_exec *x, hb_batch *b);
/* Start mini-batches [g, g + h_next) of one epoch in x->hb (x->nb of
** them): their seeds, nothing sampled yet. */
int hb_seed_round(hb_exec *x, int64_t g, gnn_err *e);
/* Sample mini-batches [g, g + h_next) of one epoch into x->hb (cut by
** hb_fit to what memory_limit holds beside x->staged_other). */
int hb_sample_round(hb_exec *x, int64_t g, gnn_err *e);
/* Build mini-batches [g, g + h_next) of one epoch into x->hb, sampled,
** gathered and finished, from the pools' frames when they hold every
** block the round reads (hb_resident.c); *done 0 (and nothing changed)
** when they do not, or the plan's batches are not built that way. */
int hb_resident_round(hb_exec *x, int64_t g, int *done, gnn_err *e);
/* Keep the mini-batches of x->hb that fit the staged budget beside
** x->staged_other (with_features: once their rows are gathered and they
** are finished): the longest prefix, the others freed to be built again
** next round; an error when not even one fits. */
int hb_fit(hb_exec *x, int with_features, gnn_err *e);
/* The resident round's workers (their node maps): freed. */
void hb_resident_close(hb_exec *x);
/* A resident round's graph (hb_resident.c): the topology its hops read
** and its blocks, every one pinned, by number. */
typedef struct hb_rs_graph {
    const hb_rel_topo *t;
    const void **data;
    size_t n;
    /* each block's first node and node count, copied from its header: the
    ** hops look a node's block up for every node, and the headers, a MiB
    ** apart, would each be a cache miss */
    const uint64_t *first;
    const uint32_t *count;
} hb_rs_graph;
/* A worker's scratch for resident hops (hop_resident.c): its node map and
** the frontier nodes in flight; made, freed, its bytes. */
typedef struct hb_rs_worker hb_rs_worker;
hb_rs_worker *hb_rs_worker_new(void);
void hb_rs_worker_free(hb_rs_worker *w);
size_t hb_rs_worker_bytes(const hb_rs_worker *w);
/* Sample every hop of mini-batch b (its seeds in place) from g's pinned
** blocks with w's scratch, as hop.c would over its blocks. */
int hb_rs_sample(const hb_rs_graph *g, const plan *p, hb_batch *b,
                 hb_rs_worker *w, gnn_err *e);
/* Free the scratch of a hop and of gather (sized for a whole hyperbatch). */
void hb_release_work(hb_exec *x);
void hb_release_sampling(hb_exec *x);
void hb_trim(void);
/* Bytes the scratch of a hop and one staged mini-batch hold. */
size_t hb_work_bytes(const hb_exec *x);
/* What b stages once its rows (dim a row) are gathered and it is finished:
** what it holds, and the outputs still to be sized (a slot reused from an
** earlier hyperbatch already holds some of their capacity). */
size_t hb_staged_bytes(const hb_batch *b, int64_t dim);

/* 1 when `dir` is empty, 0 when not, -errno on failure. */
int hb_dir_empty(const char *dir);
/* Ready `dir` for INTO 'dir': create it, or accept it when it is an empty
** directory; a non-empty one is refused (never mix two runs' batches). */
int hb_prepare_into(const char *dir, gnn_err *e);

/* Whether the build should give up: an interrupt, or hb_close. */
static inline int hb_halted(const hb_exec *x)
{
    return x->db->interrupt || atomic_load(&x->stop);
}

#endif
