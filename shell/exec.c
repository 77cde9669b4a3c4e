/* exec.c — running statements: splitting text into statements (gnndb_prepare's
** tail, with a small lexer for recovery and for knowing when typed input is
** complete), stepping each to the end, the drawn-seed notice, .timer and the
** counters kept for .stats. */
#include "shell.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* The lexical states that matter for splitting: the language has
** '...' strings ('' inside is a quote), "..." names, -- line comments and
** block comments. */
enum { LX_CODE, LX_SQUOTE, LX_DQUOTE, LX_LINE, LX_BLOCK };

/* Advance over one byte (or a two-byte opener/closer) of `p` in state *st;
** returns the number of bytes consumed. */
static int lex_step(const char *p, int *st)
{
    switch (*st) {
    case LX_CODE:
        if (p[0] == '\'') { *st = LX_SQUOTE; return 1; }
        if (p[0] == '"') { *st = LX_DQUOTE; return 1; }
        if (p[0] == '-' && p[1] == '-') { *st = LX_LINE; return 2; }
        if (p[0] == '/' && p[1] == '*') { *st = LX_BLOCK; return 2; }
        return 1;
    case LX_SQUOTE:
    case LX_DQUOTE: {
        char q = *st == LX_SQUOTE ? '\'' : '"';
        if (p[0] == q && p[1] == q) return 2;
        if (p[0] == q) *st = LX_CODE;
        return 1;
    }
    case LX_LINE:
        if (p[0] == '\n') *st = LX_CODE;
        return 1;
    default:
        if (p[0] == '*' && p[1] == '/') { *st = LX_CODE; return 2; }
        return 1;
    }
}

const char *shell_stmt_end(const char *p)
{
    int st = LX_CODE;
    while (*p) {
        if (st == LX_CODE && *p == ';') return p + 1;
        p += lex_step(p, &st);
    }
    return p;
}

int shell_sql_complete(const char *sql)
{
    int st = LX_CODE, ended = 0, blank = 1;
    const char *p = sql;
    while (*p) {
        if (st == LX_CODE && !isspace((unsigned char)*p) &&
            !(p[0] == '-' && p[1] == '-') && !(p[0] == '/' && p[1] == '*')) {
            ended = *p == ';';
            blank = 0;
        }
        p += lex_step(p, &st);
    }
    if (st != LX_CODE && st != LX_LINE) return 0;
    return blank ? 2 : ended;
}

static int count_lines(const char *a, const char *b)
{
    int n = 0;
    for (; a < b; a++) n += *a == '\n';
    return n;
}

/* Tell the drawn seed once, before the statement's first row. */
static void tell_seed(shell *sh, gnndb_stmt *st, int *told)
{
    if (*told || gnndb_stmt_status(st, GNNDB_STATUS_SEED_DRAWN) != 1) return;
    *told = 1;
    shell_progress_clear(sh);
    fflush(sh->out);
    fprintf(stderr, "-- seed: %" PRId64 "\n",
            gnndb_stmt_status(st, GNNDB_STATUS_SEED));
}

static double tv_sec(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

/* Step one prepared statement to its end, printing its rows. */
static int run_stmt(shell *sh, gnndb_stmt *st, const char *src, int line)
{
    struct rusage r0, r1;
    double t0 = shell_now();
    getrusage(RUSAGE_SELF, &r0);
    int told = 0, began = 0, rc, ours = 0;

    tell_seed(sh, st, &told);
    shell_progress_start(sh);
    shell_running = 1;
    while ((rc = gnndb_step(st)) == GNNDB_ROW || rc == GNNDB_BATCH) {
        tell_seed(sh, st, &told);
        if (!began) {
            shell_result_begin(sh, st);
            began = 1;
        }
        shell_result_row(sh, st);
        if (shell_sigint) {
            /* the engine stops at its next check point; the shell stops
            ** asking for rows at once */
            rc = GNNDB_INTERRUPT;
            ours = 1;
            break;
        }
    }
    shell_running = 0;
    shell_progress_clear(sh);
    tell_seed(sh, st, &told);
    if (began) shell_result_end(sh);
    for (int i = 1; i <= 10; i++)
        sh->last_status[i] = gnndb_stmt_status(st, i);
    sh->has_status = 1;
    fflush(sh->out);
    int failed = rc != GNNDB_DONE;
    if (failed)
        shell_error(sh, src, line, "%s",
                    ours ? gnndb_errstr(GNNDB_INTERRUPT)
                         : gnndb_errmsg(sh->db));
    gnndb_finalize(st);

    if (sh->timer) {
        getrusage(RUSAGE_SELF, &r1);
        fprintf(sh->out, "Run Time: real %.3f user %.3f sys %.3f\n",
                shell_now() - t0, tv_sec(r1.ru_utime) - tv_sec(r0.ru_utime),
                tv_sec(r1.ru_stime) - tv_sec(r0.ru_stime));
    }
    if (sh->stats_auto) shell_print_stats(sh, sh->out);
    fflush(sh->out);
    return failed ? SHELL_ERR : SHELL_OK;
}

int shell_exec(shell *sh, const char *sql, const char *src, int line,
               int stop_on_error)
{
    int result = SHELL_OK;
    const char *p = sql;
    for (;;) {
        p = shell_skip_space(p, &line);
        if (!*p) break;
        if (*p == ';') { /* an empty statement */
            p++;
            continue;
        }
        const char *next = NULL;
        int failed = 0;
        if (sh->echo) {
            const char *e = shell_stmt_end(p);
            fprintf(sh->out, "%.*s\n", (int)(e - p), p);
            fflush(sh->out);
        }
        if (!sh->db) {
            shell_error(sh, src, line,
                        "no database is open; use .open NAME.gnndb");
            failed = 1;
        } else {
            gnndb_stmt *st = NULL;
            const char *tail = NULL;
            int rc = gnndb_prepare(sh->db, p, -1, &st, &tail);
            if (rc != GNNDB_OK) {
                shell_error(sh, src, line, "%s", gnndb_errmsg(sh->db));
                gnndb_finalize(st);
                failed = 1;
            } else {
                if (tail && tail > p) next = tail;
                if (st && run_stmt(sh, st, src, line) != SHELL_OK) failed = 1;
            }
        }
        /* after a failure the statement's end comes from the shell's lexer */
        if (!next) next = shell_stmt_end(p);
        line += count_lines(p, next);
        p = next;
        if (shell_sigint) /* Ctrl-C: drop what remains of this input */
            return sh->interactive ? SHELL_ERR : SHELL_STOP;
        if (failed) {
            result = SHELL_ERR;
            if (stop_on_error || sh->bail) break;
        }
    }
    return result;
}

int shell_query(gnndb *db, const char *sql,
                void (*cb)(void *arg, gnndb_stmt *st), void *arg)
{
    int rc = GNNDB_DONE;
    const char *p = sql;
    while (db && rc == GNNDB_DONE) {
        p = shell_skip_space(p, NULL);
        if (!*p) break;
        gnndb_stmt *st = NULL;
        const char *tail = NULL;
        rc = gnndb_prepare(db, p, -1, &st, &tail);
        if (rc != GNNDB_OK) {
            gnndb_finalize(st);
            return rc;
        }
        rc = GNNDB_DONE;
        if (st)
            while ((rc = gnndb_step(st)) == GNNDB_ROW || rc == GNNDB_BATCH)
                cb(arg, st);
        gnndb_finalize(st);
        p = tail && tail > p ? tail : shell_stmt_end(p);
    }
    return db ? rc : GNNDB_MISUSE;
}
