/* explain.h — EXPLAIN [ANALYZE]: a plan, and after a run its counters, as
** rows of one column, `plan`. */
#ifndef GNN_EXPLAIN_H
#define GNN_EXPLAIN_H

#include "exec.h"

/* EXPLAIN [ANALYZE] rows. `st` is NULL for EXPLAIN. */
int explain_rows(const plan *p, const hb_stats *st, rowset *rs);
/* Its transfer operator's rows (explain_transfer.c). */
int explain_transfer(const plan *p, const hb_stats *st, rowset *rs);

#endif
