/* clock.h — the one clock the engine times its work with. */
#ifndef GNN_CLOCK_H
#define GNN_CLOCK_H

/* Seconds on the monotonic clock: differences time work; the origin is
** arbitrary (never a date). */
double gnn_now(void);

#endif
