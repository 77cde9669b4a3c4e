/* hotrows.h — the hot rows of a spilled plan: the feature rows of the nodes
** with the most stored neighbours, held in memory for the whole run so that
** no spilled mini-batch writes them to its run and reads them back. On a
** skewed graph a few percent of the rows are most of every mini-batch's
** (R-MAT scale 21, SAMPLE 10,10,10 BATCH 1024: the top 3 % of nodes by
** degree are 46 % of a mini-batch's rows, the top 6 % 65 %).
**
** The set is chosen in two passes over the degrees, with memory that does
** not grow with the graph: hr_count each node's degree into a histogram,
** hr_threshold, then hr_offer each node again; those above the threshold
** are hot, and those at it while room is left. hr_seal then numbers them:
** a bitmap over the table's rows says which rows are hot and a count per
** 64 rows turns a hot row into its slot. A slot is filled by the caller the
** first time the feature block holding its row is read (hr_block_take).
**
** Not thread-safe while choosing; once sealed, hr_is_hot, hr_slot and
** hr_row may be called from any thread, and a filled slot read while other
** slots are filled. */
#ifndef GNN_HOTROWS_H
#define GNN_HOTROWS_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"

typedef struct hot_rows hot_rows;

/* What they hold, the planner counts: engine/plan_run.h, plan_hot_bytes. */

/* Room for `cap` hot rows of `rowbytes` bytes out of rows [0, nrows) (at
** most 2^32) stored in `nblocks` blocks. The caller owns *out and frees it
** with hr_close. */
int hr_open(uint64_t nrows, size_t rowbytes, uint64_t nblocks, size_t cap,
            hot_rows **out, gnn_err *e);
void hr_close(hot_rows *h);

/* Pass 1: count one node's degree (each node once). */
void hr_count(hot_rows *h, uint32_t degree);
/* Between the passes: the lowest degree that can be hot, and how many at
** exactly that degree may be. */
void hr_threshold(hot_rows *h);
/* Pass 2: offer row `row` with the degree counted for it; it becomes hot
** when its degree is above the threshold, or at it while room is left.
** Rows beyond nrows and degree 0 are never hot. */
void hr_offer(hot_rows *h, uint64_t row, uint32_t degree);
/* Number the hot rows and allocate their slots. */
int hr_seal(hot_rows *h, gnn_err *e);

size_t hr_count_hot(const hot_rows *h);
size_t hr_rowbytes(const hot_rows *h);
int hr_is_hot(const hot_rows *h, uint64_t row);
/* The slot of hot row `row` (hr_is_hot must say so), and its bytes. */
size_t hr_slot(const hot_rows *h, uint64_t row);
void *hr_row(hot_rows *h, size_t slot);
const void *hr_row_const(const hot_rows *h, size_t slot);

/* 1 the first time block `no` is taken (the caller then fills the slots
** of the hot rows it holds), 0 after. */
int hr_block_take(hot_rows *h, uint64_t no);

#endif
