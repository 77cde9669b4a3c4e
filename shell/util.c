/* util.c — what every file of the shell uses: allocation that cannot
** fail, the monotonic clock, skipping blanks and comments, the language's
** reserved words, and the state a SIGINT handler needs (the only globals
** of the shell) with the handler itself. */
#include "shell.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t shell_sigint;
volatile sig_atomic_t shell_running;
gnndb *volatile shell_sigdb;

void shell_on_sigint(int sig)
{
    (void)sig;
    shell_sigint++;
    gnndb *db = shell_sigdb;
    if (db && shell_running) gnndb_interrupt(db);
    if (shell_sigint >= 3 && shell_running) {
        /* a statement that ignores three requests: give up on it */
        static const char msg[] = "\ngnndb: interrupted three times; exiting\n";
        ssize_t r = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)r;
        _exit(130);
    }
}

void *shell_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fputs("gnndb: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

void *shell_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fputs("gnndb: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

char *shell_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(shell_xmalloc(n), s, n);
}

double shell_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *shell_skip_space(const char *p, int *line)
{
    for (;;) {
        if (*p == '\n') {
            if (line) (*line)++;
            p++;
        } else if (isspace((unsigned char)*p)) {
            p++;
        } else if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n') p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *q = p + 2;
            while (*q && !(q[0] == '*' && q[1] == '/')) {
                if (*q == '\n' && line) (*line)++;
                q++;
            }
            p = *q ? q + 2 : q;
        } else {
            return p;
        }
    }
}

int shell_is_keyword(const char *s)
{
    const char *k;
    int reserved;
    for (int i = 0; (k = gnndb_keyword(i, &reserved)); i++)
        if (reserved && !strcasecmp(k, s)) return 1;
    return 0;
}
