/* test_threads.c — the threading rules of include/gnndb.h: one handle per
** thread on the same database gives the same batches as one thread; one
** handle used by two threads at once is GNNDB_MISUSE, not corruption;
** gnndb_interrupt works from another thread; the progress handler is called
** and can interrupt. Worker threads only record what they saw: the checks
** (cmocka's asserts are not thread-safe) run on the main thread. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gnndb.h"
#include "util.h"

#define SAMPLE_SQL \
    "SAMPLE 10,5 FROM cora SEEDS train FEATURES feat BATCH 16 SEED 42 EPOCHS 3;"
#define LONG_SQL "SAMPLE -1,-1,-1 FROM cora BATCH 1 EPOCHS 100000;"
#define MAX_BATCHES 64
#define NTHREADS 4

typedef struct fx {
    char *dir;
    char db[1024];
} fx;

static void exec_ok(gnndb *db, const char *sql)
{
    int rc = gnndb_exec(db, sql, NULL, NULL);
    if (rc) fail_msg("%s\n-> %s", sql, gnndb_errmsg(db));
}

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    f->dir = tu_tmpdir("threads");
    snprintf(f->db, sizeof f->db, "%s/cora.gnndb", f->dir);
    gnndb *h;
    assert_int_equal(gnndb_open(f->db, &h,
                                GNNDB_OPEN_READWRITE | GNNDB_OPEN_CREATE),
                     GNNDB_OK);
    char sql[4096];
    snprintf(sql, sizeof sql,
             "CREATE GRAPH cora FROM '%s';"
             "IMPORT FEATURES feat INTO cora FROM '%s';"
             "IMPORT LABELS INTO cora FROM '%s';"
             "CREATE SPLIT train ON cora FROM '%s';",
             tu_data(0, "cora/edges.tsv"), tu_data(1, "cora/features.npy"),
             tu_data(2, "cora/labels.npy"), tu_data(3, "cora/train_idx.npy"));
    exec_ok(h, sql);
    gnndb_close(h);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    tu_rmrf(f->dir);
    free(f->dir);
    free(f);
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- one handle per thread ---------------------------------------------- */

typedef struct run {
    const char *path;
    int flags;
    int rc;                  /* the first failure, or GNNDB_DONE */
    char msg[256];
    int n;
    uint64_t digest[MAX_BATCHES];
} run;

/* Open a handle of its own, sample SAMPLE_SQL, record the digests. */
static void *sample_thread(void *arg)
{
    run *r = arg;
    gnndb *db;
    gnndb_stmt *st = NULL;
    r->rc = gnndb_open(r->path, &db, r->flags);
    if (r->rc == GNNDB_OK)
        r->rc = gnndb_prepare(db, SAMPLE_SQL, -1, &st, NULL);
    if (r->rc == GNNDB_OK) {
        while ((r->rc = gnndb_step(st)) == GNNDB_BATCH && r->n < MAX_BATCHES)
            r->digest[r->n++] = gnndb_batch_digest(st);
    }
    if (r->rc != GNNDB_DONE)
        snprintf(r->msg, sizeof r->msg, "%s", gnndb_errmsg(db));
    gnndb_finalize(st);
    gnndb_close(db);
    return NULL;
}

static void handles_per_thread_on_one_database_agree(void **state)
{
    fx *f = *state;
    run ref = {.path = f->db, .flags = GNNDB_OPEN_READONLY};
    sample_thread(&ref);
    if (ref.rc != GNNDB_DONE) fail_msg("reference run: %s", ref.msg);
    assert_true(ref.n > 3 && ref.n < MAX_BATCHES);

    /* two rounds: all read-only, then readers beside read-write handles
    ** (they share one LMDB environment, closed in whatever order the
    ** threads finish) */
    for (int round = 0; round < 2; round++) {
        run r[NTHREADS];
        pthread_t th[NTHREADS];
        for (int i = 0; i < NTHREADS; i++) {
            memset(&r[i], 0, sizeof r[i]);
            r[i].path = f->db;
            r[i].flags = (round == 1 && i % 2) ? GNNDB_OPEN_READWRITE
                                               : GNNDB_OPEN_READONLY;
            assert_int_equal(pthread_create(&th[i], NULL, sample_thread, &r[i]),
                             0);
        }
        for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);
        for (int i = 0; i < NTHREADS; i++) {
            if (r[i].rc != GNNDB_DONE)
                fail_msg("round %d thread %d: rc %d: %s", round, i, r[i].rc,
                         r[i].msg);
            assert_int_equal(r[i].n, ref.n);
            for (int b = 0; b < ref.n; b++)
                if (r[i].digest[b] != ref.digest[b])
                    fail_msg("round %d thread %d batch %d: %016" PRIx64
                             " != %016" PRIx64, round, i, b, r[i].digest[b],
                             ref.digest[b]);
        }
    }
}

/* Handles on one database in one process share the LMDB environment:
** closing one must leave the others working, and a write through one is
** seen by the next statement of another. */
static void handles_in_one_process_close_in_any_order(void **state)
{
    fx *f = *state;
    gnndb *a, *b, *c;
    assert_int_equal(gnndb_open(f->db, &a, GNNDB_OPEN_READONLY), GNNDB_OK);
    assert_int_equal(gnndb_open(f->db, &b, GNNDB_OPEN_READWRITE), GNNDB_OK);
    assert_int_equal(gnndb_open(f->db, &c, GNNDB_OPEN_READONLY), GNNDB_OK);
    gnndb_close(a);
    exec_ok(b, "CREATE SPLIT few ON cora RANDOM 0.01 SEED 3;");
    gnndb_close(b);
    exec_ok(c, "SAMPLE 5 FROM cora SEEDS few BATCH 2 SEED 1;");
    /* a read-only handle refuses writes even though the environment it
    ** shares was opened read-write */
    assert_int_equal(gnndb_exec(c, "DROP SPLIT few ON cora;", NULL, NULL),
                     GNNDB_READONLY);
    assert_int_equal(gnndb_open(f->db, &b, GNNDB_OPEN_READWRITE), GNNDB_OK);
    exec_ok(b, "DROP SPLIT few ON cora;");
    gnndb_close(b);
    gnndb_close(c);
}

/* ---- one handle shared by two threads ----------------------------------- */

typedef struct shared {
    gnndb *db;
    gnndb_stmt *other;           /* a second statement on the same handle */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int inside;                  /* the stepping thread is in its callback */
    int tried;                   /* the intruder has made its calls */
    int rc_step, rc_prepare, rc_exec, rc_close, errcode;
    char msg[256];
} shared;

/* Called inside gnndb_step on the stepping thread: hold the handle busy
** until the other thread has tried to use it. */
static int hold_handle(void *arg, int64_t done, int64_t total)
{
    shared *s = arg;
    pthread_mutex_lock(&s->mu);
    if (!s->inside) {
        s->inside = 1;
        pthread_cond_broadcast(&s->cv);
        struct timespec dl;
        clock_gettime(CLOCK_REALTIME, &dl);
        dl.tv_sec += 30;   /* never hang the suite */
        while (!s->tried && pthread_cond_timedwait(&s->cv, &s->mu, &dl) == 0) {}
    }
    pthread_mutex_unlock(&s->mu);
    return 0;
}

static void *intruder(void *arg)
{
    shared *s = arg;
    pthread_mutex_lock(&s->mu);
    while (!s->inside) pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    gnndb_stmt *st = (gnndb_stmt *)1;
    s->rc_step = gnndb_step(s->other);
    s->rc_prepare = gnndb_prepare(s->db, "SHOW GRAPHS;", -1, &st, NULL);
    if (st) s->rc_prepare = -1;   /* *pstmt must be NULL on failure */
    s->rc_exec = gnndb_exec(s->db, "SHOW GRAPHS;", NULL, NULL);
    s->rc_close = gnndb_close(s->db);
    s->errcode = gnndb_errcode(s->db);
    snprintf(s->msg, sizeof s->msg, "%s", gnndb_errmsg(s->db));
    pthread_mutex_lock(&s->mu);
    s->tried = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static void one_handle_used_by_two_threads_is_misuse(void **state)
{
    fx *f = *state;
    shared s = {0};
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.cv, NULL);
    assert_int_equal(gnndb_open(f->db, &s.db, GNNDB_OPEN_READONLY), GNNDB_OK);
    gnndb_stmt *st;
    assert_int_equal(gnndb_prepare(s.db, SAMPLE_SQL, -1, &st, NULL), GNNDB_OK);
    assert_int_equal(gnndb_prepare(s.db, "SHOW GRAPHS;", -1, &s.other, NULL),
                     GNNDB_OK);
    gnndb_progress_handler(s.db, 1, hold_handle, &s);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, intruder, &s), 0);
    int rc, n = 0;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) n++;
    pthread_join(th, NULL);

    /* the intruder was turned away, and told why */
    assert_int_equal(s.rc_step, GNNDB_MISUSE);
    assert_int_equal(s.rc_prepare, GNNDB_MISUSE);
    assert_int_equal(s.rc_exec, GNNDB_MISUSE);
    assert_int_equal(s.rc_close, GNNDB_MISUSE);
    assert_int_equal(s.errcode, GNNDB_MISUSE);
    assert_non_null(strstr(s.msg, "two threads at once"));
    /* the owner was not disturbed */
    assert_int_equal(rc, GNNDB_DONE);
    assert_true(n > 3);
    assert_int_equal(gnndb_errcode(s.db), GNNDB_OK);
    /* the intruder's statement is intact and usable by the owner now */
    assert_int_equal(gnndb_step(s.other), GNNDB_ROW);
    assert_string_equal(gnndb_column_text(s.other, 0), "cora");
    gnndb_progress_handler(s.db, 0, NULL, NULL);
    gnndb_finalize(s.other);
    gnndb_finalize(st);
    assert_int_equal(gnndb_close(s.db), GNNDB_OK);
    pthread_mutex_destroy(&s.mu);
    pthread_cond_destroy(&s.cv);
}

/* The guard is per thread, not per call: exec's own prepare/step and a
** callback calling back in on the same thread are fine. */
static int reenter(void *arg, int ncol, char **vals, char **names)
{
    gnndb *db = arg;
    gnndb_stmt *st;
    int rc = gnndb_prepare(db, "PRAGMA threads;", -1, &st, NULL);
    if (rc == GNNDB_OK) rc = gnndb_step(st) == GNNDB_ROW ? 0 : 1;
    gnndb_finalize(st);
    return rc;
}

static void same_thread_may_reenter(void **state)
{
    fx *f = *state;
    gnndb *db;
    assert_int_equal(gnndb_open(f->db, &db, GNNDB_OPEN_READONLY), GNNDB_OK);
    assert_int_equal(gnndb_exec(db, "SHOW GRAPHS; SHOW GRAPHS;", reenter, db),
                     GNNDB_OK);
    gnndb_close(db);
}

/* ---- interrupt and progress --------------------------------------------- */

typedef struct intr {
    gnndb *db;
    atomic_int batches;
} intr;

static void *interrupter(void *arg)
{
    intr *x = arg;
    while (atomic_load(&x->batches) < 3) usleep(1000);
    usleep(50000);
    gnndb_interrupt(x->db);
    return NULL;
}

static void interrupt_from_another_thread_stops_sample(void **state)
{
    fx *f = *state;
    intr x = {0};
    assert_int_equal(gnndb_open(f->db, &x.db, GNNDB_OPEN_READONLY), GNNDB_OK);
    gnndb_stmt *st;
    assert_int_equal(gnndb_prepare(x.db, LONG_SQL, -1, &st, NULL), GNNDB_OK);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, interrupter, &x), 0);
    double t0 = now_s();
    int rc;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) atomic_fetch_add(&x.batches, 1);
    double took = now_s() - t0;
    pthread_join(th, NULL);
    assert_int_equal(rc, GNNDB_INTERRUPT);
    assert_int_equal(gnndb_errcode(x.db), GNNDB_INTERRUPT);
    assert_int_equal(gnndb_step(st), GNNDB_INTERRUPT);   /* sticky */
    assert_true(took < 60);
    gnndb_finalize(st);
    /* the next statement runs: a request is not carried over */
    exec_ok(x.db, "SAMPLE 5 FROM cora BATCH 512 SEED 1;");
    gnndb_close(x.db);
}

typedef struct prog {
    int calls;
    int stop_after;             /* interrupt on this call (0: never) */
    int64_t last_done, total;
    int monotonic;
} prog;

static int count_progress(void *arg, int64_t done, int64_t total)
{
    prog *p = arg;
    p->calls++;
    if (done < p->last_done) p->monotonic = 0;
    p->last_done = done;
    p->total = total;
    return p->stop_after && p->calls >= p->stop_after;
}

static void progress_handler_is_called_and_can_interrupt(void **state)
{
    fx *f = *state;
    gnndb *db;
    assert_int_equal(gnndb_open(f->db, &db, GNNDB_OPEN_READONLY), GNNDB_OK);

    prog p = {.monotonic = 1};
    gnndb_progress_handler(db, 1, count_progress, &p);
    exec_ok(db, SAMPLE_SQL);
    assert_true(p.calls > 3);
    assert_true(p.monotonic);
    assert_true(p.total > 0 && p.last_done == p.total);

    prog q = {.monotonic = 1, .stop_after = 5};
    gnndb_progress_handler(db, 2, count_progress, &q);
    gnndb_stmt *st;
    assert_int_equal(gnndb_prepare(db, LONG_SQL, -1, &st, NULL), GNNDB_OK);
    int rc, n = 0;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) n++;
    assert_int_equal(rc, GNNDB_INTERRUPT);
    assert_int_equal(q.calls, 5);
    assert_true(q.last_done % 2 == 0);   /* called every 2 batches */
    assert_true(n < 20);
    gnndb_finalize(st);

    gnndb_progress_handler(db, 1, NULL, NULL);   /* removed */
    int before = q.calls;
    exec_ok(db, "SAMPLE 5 FROM cora BATCH 512 SEED 1;");
    assert_int_equal(q.calls, before);
    gnndb_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handles_per_thread_on_one_database_agree),
        cmocka_unit_test(handles_in_one_process_close_in_any_order),
        cmocka_unit_test(one_handle_used_by_two_threads_is_misuse),
        cmocka_unit_test(same_thread_may_reenter),
        cmocka_unit_test(interrupt_from_another_thread_stops_sample),
        cmocka_unit_test(progress_handler_is_called_and_can_interrupt),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
