/* progress.c — the one-line progress bar drawn on stderr (a terminal only)
** for statements that run longer than a second, fed by
** gnndb_progress_handler; and the second way Ctrl-C stops a statement (the
** callback's non-zero return). */
#include "shell.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define PROGRESS_DELAY 1.0  /* seconds before the bar appears */
#define PROGRESS_EVERY 0.1  /* seconds between redraws */

void shell_progress_start(shell *sh)
{
    sh->progress.t0 = shell_now();
    sh->progress.last_draw = 0;
    sh->progress.shown = 0;
    sh->progress.done = sh->progress.total = 0;
    sh->progress.phase_t0 = sh->progress.t0;
    sh->progress.phase_done0 = 0;
}

void shell_progress_clear(shell *sh)
{
    if (!sh->progress.shown) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    sh->progress.shown = 0;
}

/* 1234, 56.7k, 8.90M, ... so that the line stays short. */
static void fmt_count(char *b, size_t n, double v)
{
    if (v < 100000) snprintf(b, n, "%.0f", v);
    else if (v < 1e6) snprintf(b, n, "%.1fk", v / 1e3);
    else if (v < 1e9) snprintf(b, n, "%.2fM", v / 1e6);
    else snprintf(b, n, "%.2fG", v / 1e9);
}

static void fmt_time(char *b, size_t n, double s)
{
    if (s < 0 || s > 360000) s = 0;
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(b, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else snprintf(b, n, "%ld:%02ld", t / 60, t % 60);
}

static int term_width(void)
{
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}

/* A phase's rate is known once it has run this long. */
#define PHASE_SETTLE 0.25

static void draw(shell *sh, int64_t done, int64_t total, double now)
{
    double el = now - sh->progress.t0, pel = now - sh->progress.phase_t0;
    double rate = pel >= PHASE_SETTLE
                      ? (double)(done - sh->progress.phase_done0) / pel : 0;
    char d[32], t[32], r[32], eta[32], tail[160];
    fmt_count(d, sizeof d, (double)done);
    fmt_count(r, sizeof r, rate);
    if (total > 0) {
        fmt_count(t, sizeof t, (double)total);
        if (rate > 0) /* else: too early in this phase to tell */
            fmt_time(eta, sizeof eta, (double)(total - done) / rate);
        else
            snprintf(eta, sizeof eta, "-:--");
        snprintf(tail, sizeof tail, " %3d%% %s/%s  %s/s  ETA %s",
                 (int)(100.0 * (double)done / (double)total), d, t, r, eta);
    } else {
        fmt_time(eta, sizeof eta, el);
        snprintf(tail, sizeof tail, " %s  %s/s  %s", d, r, eta);
    }
    int cols = term_width() - 1;
    int bar = cols - (int)strlen(tail) - 2;
    if (bar > 40) bar = 40;
    char line[256];
    size_t k = 0;
    if (bar >= 10) {
        int fill = total > 0 ? (int)((double)bar * (double)done / (double)total)
                             : (int)(el * 4) % bar;
        if (fill > bar) fill = bar;
        line[k++] = '[';
        for (int i = 0; i < bar; i++)
            line[k++] = total > 0 ? (i < fill ? '#' : '.')
                                  : (i == fill ? '#' : '.');
        line[k++] = ']';
    }
    line[k] = 0;
    fprintf(stderr, "\r%s%.*s\033[K", line, cols > 0 ? cols : 0, tail);
    fflush(stderr);
    sh->progress.shown = 1;
}

void shell_progress_redraw(shell *sh)
{
    draw(sh, sh->progress.done, sh->progress.total, shell_now());
}

int shell_progress_cb(void *arg, int64_t done, int64_t total)
{
    shell *sh = arg;
    if (shell_sigint) return 1; /* Ctrl-C: stop the statement */
    if (!sh->progress.tty || !shell_running) return 0;
    if (total > 0 && done > total) done = total;
    double now = shell_now();
    int before = sh->progress.total || sh->progress.done; /* a report came */
    if (before && (total != sh->progress.total || done < sh->progress.done)) {
        sh->progress.phase_t0 = now;
        sh->progress.phase_done0 = done;
    }
    sh->progress.done = done; /* a redraw after a row shows these */
    sh->progress.total = total;
    if (now - sh->progress.t0 < PROGRESS_DELAY ||
        now - sh->progress.last_draw < PROGRESS_EVERY)
        return 0;
    sh->progress.last_draw = now;
    fflush(sh->out); /* rows first, then the bar below them */
    draw(sh, done, total, now);
    return 0;
}
