/* fcache.h — the row-level feature cache of a SAMPLE run: feature rows kept
** across hyperbatches under one of three replacement policies, so that hot
** rows are not read again from their blocks. */
#ifndef GNN_FCACHE_H
#define GNN_FCACHE_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"
#include "db.h"

/* Policies are GNN_CACHE_* (engine/db.h: the planner sizes the cache by
** them), a row's bookkeeping GNN_CACHE_ROW_OVERHEAD. */

typedef struct fcache fcache;

/* Policy names as PRAGMA cache_policy spells them; -1 when unknown. */
int fc_policy_parse(const char *word);
const char *fc_policy_name(int policy);

/* A cache of `rows` rows of `rowbytes` bytes each. */
int fc_open(int policy, size_t rows, size_t rowbytes, fcache **out,
            gnn_err *e);
void fc_close(fcache *c);
size_t fc_capacity(const fcache *c);
void *fc_slot(fcache *c, uint32_t slot);

/* static_degree: pin `rows` (at most the capacity, distinct) to slots
** 0..n-1; the caller copies each row's data into fc_slot(c, i). */
int fc_pin(fcache *c, const uint32_t *rows, size_t n, gnn_err *e);

/* Decide one gather: the accesses rows[0..n) in the order they are
** gathered, followed by `future[0..nf)` (what the next hyperbatch will
** gather; belady only). For each access src[k] is the slot to copy it from
** (its row was in the cache when the gather began) or -1 (copy it from its
** block). Afterwards fc_fills lists the rows, and the slots they go to,
** that the gather must copy from their blocks into the cache. */
int fc_plan(fcache *c, const uint32_t *rows, size_t n,
            const uint32_t *future, size_t nf, int64_t *src, gnn_err *e);
size_t fc_fills(const fcache *c, const uint32_t **rows,
                const uint32_t **slots);

/* Bytes of the per-gather scratch belady keeps (next uses of the window):
** staged memory, counted with the executor's other scratch. */
size_t fc_scratch_bytes(const fcache *c);

/* Accesses found in the cache and not, over the cache's life. */
uint64_t fc_hits(const fcache *c);
uint64_t fc_misses(const fcache *c);

#endif
