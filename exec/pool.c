/* pool.c — the fork-join worker pool: workers wait on a generation counter,
** claim task indices with an atomic counter, and the caller works too. */
#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct wpool {
    int nthreads;
    pthread_t *th;
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    unsigned long gen;       /* bumped for each run */
    int stop;
    int active;              /* workers still in the current run */
    wpool_fn fn;
    void *arg;
    size_t n;
    atomic_size_t next;
};

typedef struct wstart { wpool *p; int id; } wstart;

static void drain(wpool *p, int worker)
{
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n) break;
        p->fn(p->arg, i, worker);
    }
}

static void *worker_main(void *a)
{
    wstart s = *(wstart *)a;
    free(a);
    wpool *p = s.p;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->gen == seen) pthread_cond_wait(&p->go, &p->mu);
        if (p->stop) break;
        seen = p->gen;
        pthread_mutex_unlock(&p->mu);
        drain(p, s.id);
        pthread_mutex_lock(&p->mu);
        if (--p->active == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

wpool *wpool_new(int threads)
{
    wpool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->nthreads = threads < 1 ? 1 : threads;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    if (p->nthreads > 1) {
        p->th = calloc((size_t)p->nthreads - 1, sizeof *p->th);
        if (!p->th) { wpool_free(p); return NULL; }
        for (int i = 1; i < p->nthreads; i++) {
            wstart *s = malloc(sizeof *s);
            if (!s || (s->p = p, s->id = i,
                       pthread_create(&p->th[i - 1], NULL, worker_main, s))) {
                free(s);
                p->nthreads = i; /* the ones started are joined by free */
                wpool_free(p);
                return NULL;
            }
        }
    }
    return p;
}

void wpool_free(wpool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i < p->nthreads; i++)
        if (p->th) pthread_join(p->th[i - 1], NULL);
    free(p->th);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
    free(p);
}

int wpool_threads(const wpool *p) { return p ? p->nthreads : 1; }

void wpool_run(wpool *p, size_t n, wpool_fn fn, void *arg)
{
    if (n == 0) return;
    if (!p || p->nthreads == 1 || n == 1) {
        for (size_t i = 0; i < n; i++) fn(arg, i, 0);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->arg = arg;
    p->n = n;
    atomic_store(&p->next, 0);
    p->active = p->nthreads - 1;
    p->gen++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    drain(p, 0);
    pthread_mutex_lock(&p->mu);
    while (p->active > 0) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}
