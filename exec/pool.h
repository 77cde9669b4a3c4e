/* pool.h — a fork-join pool of worker threads owned by one executor: run n
** tasks of one function, return when all are done. Determinism is the
** caller's: tasks write disjoint outputs. */
#ifndef GNN_POOL_H
#define GNN_POOL_H

#include <stddef.h>

typedef struct wpool wpool;
typedef void (*wpool_fn)(void *arg, size_t task, int worker);

/* A pool of `threads` workers (the caller counts as one: threads-1 are
** started). NULL on failure; threads <= 1 gives a pool that runs inline. */
wpool *wpool_new(int threads);
void wpool_free(wpool *p);
int wpool_threads(const wpool *p);
/* Run fn(arg, i, worker) for i in [0, n), spread over the workers. */
void wpool_run(wpool *p, size_t n, wpool_fn fn, void *arg);

#endif
