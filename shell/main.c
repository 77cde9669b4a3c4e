/* main.c — the `gnndb` shell: options, the database it opens, and where
** statements come from (command-line arguments, scripts, a pipe on stdin, or
** the terminal with readline, history and Ctrl-C handling). */
#include "shell.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#define HISTORY_MAX 1000
#define READ_DEPTH  16

/* .open and -db: close the database open (if any), open `path`. */
static int shell_open(shell *sh, const char *path, int readonly)
{
    if (sh->db) {
        shell_sigdb = NULL;
        gnndb_close(sh->db);
        sh->db = NULL;
        free(sh->db_path);
        sh->db_path = NULL;
    }
    gnndb *db = NULL;
    int flags = readonly ? GNNDB_OPEN_READONLY
                         : GNNDB_OPEN_READWRITE | GNNDB_OPEN_CREATE;
    int rc = gnndb_open(path, &db, flags);
    if (rc != GNNDB_OK) {
        shell_error(sh, NULL, 0, "%s",
                    db ? gnndb_errmsg(db) : gnndb_errstr(rc));
        gnndb_close(db);
        return -1;
    }
    gnndb_progress_handler(db, 1, shell_progress_cb, sh);
    sh->db = db;
    sh->db_path = shell_xstrdup(path);
    sh->readonly = readonly;
    shell_sigdb = db;
    return 0;
}

/* ---- input: lines into statements and dot commands ------------------- */

typedef struct shell_input {
    char *buf; /* the statement being collected */
    size_t len, cap;
    int start; /* line number of its first line */
} shell_input;

static void history_add(shell *sh, const char *s)
{
    if (!sh->interactive || !*s) return;
    HIST_ENTRY *last = history_length > 0
                           ? history_get(history_base + history_length - 1)
                           : NULL;
    if (last && !strcmp(last->line, s)) return;
    add_history(s);
    if (sh->history_path) append_history(1, sh->history_path);
}

/* One line of input (no newline). Returns SHELL_OK, SHELL_ERR or SHELL_STOP. */
static int feed_line(shell *sh, shell_input *in, const char *line,
                     const char *src, int lineno)
{
    if (in->len == 0) {
        const char *q = line;
        while (isspace((unsigned char)*q)) q++;
        if (!*q) return SHELL_OK;
        if (*q == '.') {
            history_add(sh, q);
            return shell_dot(sh, q, src, lineno);
        }
        in->start = lineno;
    }
    size_t n = strlen(line);
    if (in->len + n + 2 > in->cap) {
        in->cap = (in->len + n + 2) * 2;
        in->buf = shell_xrealloc(in->buf, in->cap);
    }
    memcpy(in->buf + in->len, line, n);
    in->len += n;
    in->buf[in->len++] = '\n';
    in->buf[in->len] = 0;
    int done = shell_sql_complete(in->buf);
    if (done != 1) {
        if (done == 2) in->len = 0; /* comments only: nothing pending */
        return SHELL_OK;
    }
    in->buf[in->len - 1] = 0;
    history_add(sh, in->buf);
    in->buf[in->len - 1] = '\n';
    in->len = 0;
    return shell_exec(sh, in->buf, src, in->start, 0);
}

/* What remains at the end of input: the last statement may lack its ';'. */
static int feed_end(shell *sh, shell_input *in, const char *src)
{
    if (in->len == 0 || !*shell_skip_space(in->buf, NULL)) return SHELL_OK;
    in->len = 0;
    return shell_exec(sh, in->buf, src, in->start, 0);
}

static int run_stream(shell *sh, FILE *f, const char *src)
{
    shell_input in = {0};
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int lineno = 0, result = SHELL_OK, rc;
    while ((n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = 0;
        rc = feed_line(sh, &in, line, src, lineno);
        if (rc == SHELL_ERR) {
            result = SHELL_ERR;
            if (sh->bail) rc = SHELL_STOP;
        }
        if (rc == SHELL_STOP || shell_sigint) {
            result = SHELL_STOP;
            break;
        }
    }
    if (result != SHELL_STOP) {
        rc = feed_end(sh, &in, src);
        if (rc != SHELL_OK) result = rc == SHELL_ERR && sh->bail ? SHELL_STOP : rc;
    }
    free(line);
    free(in.buf);
    return result;
}

/* .read and -f: run the statements and commands of a file ("-": stdin). */
static int shell_run_file(shell *sh, const char *path)
{
    if (sh->depth >= READ_DEPTH) {
        shell_error(sh, NULL, 0, "%s: .read nested more than %d deep", path,
                    READ_DEPTH);
        return SHELL_ERR;
    }
    int is_stdin = !strcmp(path, "-");
    FILE *f = is_stdin ? stdin : fopen(path, "r");
    if (!f) {
        shell_error(sh, NULL, 0, "cannot open %s: %s", path, strerror(errno));
        return SHELL_ERR;
    }
    int interactive = sh->interactive;
    sh->interactive = 0; /* a script reports FILE:LINE and bails as one */
    sh->depth++;
    int rc = run_stream(sh, f, is_stdin ? "<stdin>" : path);
    sh->depth--;
    sh->interactive = interactive;
    if (!is_stdin) fclose(f);
    return rc;
}

/* ---- the terminal ------------------------------------------------------ */

/* readline's byte reader. A Ctrl-C at the prompt interrupts read(): the line
** is dropped and ended, and the caller sees shell_sigint. */
static int shell_getc(FILE *f)
{
    for (;;) {
        if (shell_sigint) {
            rl_point = rl_end;
            rl_redisplay();
            fputs("^C", rl_outstream);
            rl_replace_line("", 0);
            return '\n';
        }
        unsigned char c;
        ssize_t n = read(fileno(f), &c, 1);
        if (n == 1) return c;
        if (n == 0 || errno != EINTR) return EOF;
    }
}

static void history_open(shell *sh)
{
    if (!sh->history_path) return;
    stifle_history(HISTORY_MAX);
    int fd = open(sh->history_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd < 0) { /* an unwritable home: go on without history */
        free(sh->history_path);
        sh->history_path = NULL;
        return;
    }
    close(fd);
    read_history(sh->history_path);
}

static void interactive_loop(shell *sh)
{
    shell_input in = {0};
    rl_catch_signals = 0; /* SIGINT is ours (shell_on_sigint, shell_getc) */
    rl_getc_function = shell_getc;
    rl_instream = stdin;
    shell_completion_init();
    history_open(sh);
    printf("gnndb %s\nEnter \".help\" for usage hints.\n", gnndb_libversion());
    if (!sh->db) printf("No database is open; use \".open NAME.gnndb\".\n");
    for (;;) {
        shell_sigint = 0;
        char *line = readline(in.len ? "   ...> " : "gnndb> ");
        if (shell_sigint) { /* Ctrl-C at the prompt: start afresh */
            free(line);
            in.len = 0;
            continue;
        }
        if (!line) { /* Ctrl-D */
            putchar('\n');
            break;
        }
        feed_line(sh, &in, line, NULL, 0);
        free(line);
        if (sh->quit) break;
    }
    free(in.buf);
    if (sh->history_path) history_truncate_file(sh->history_path, HISTORY_MAX);
}

/* ---- options ------------------------------------------------------------ */

static void usage(FILE *f)
{
    fputs(
"Usage: gnndb [OPTIONS] [DB] [SQL...]\n"
"\n"
"Open the gnndb database DB (a directory, NAME.gnndb; created when missing)\n"
"and run each SQL argument (statements or one dot command), or the script\n"
"given with -f, then exit. Without them, statements are read from stdin: with\n"
"a prompt, line editing and history when stdin is a terminal.\n"
"\n"
"Options:\n"
"  -bail             stop at the first error\n"
"  -cmd COMMAND      run COMMAND (a statement or dot command) before the rest\n"
"  -csv              output mode csv (RFC 4180)\n"
"  -echo             print each statement and dot command before running it\n"
"  -f FILE           run the statements and dot commands of FILE ('-': stdin)\n"
"  -header           show column names (list, csv, table)\n"
"  -help, --help     this help\n"
"  -json             output mode json: one array of objects per statement\n"
"  -line             output mode line: one 'name = value' per column\n"
"  -list             output mode list: values separated by '|' (the default\n"
"                    when stdout is not a terminal)\n"
"  -noheader         hide column names\n"
"  -nohistory        do not read or write the history file\n"
"  -readonly         open DB read-only\n"
"  -separator SEP    the separator of list mode\n"
"  -table            output mode table: aligned columns (the default when\n"
"                    stdout is a terminal)\n"
"  -version, --version  the library version\n"
"\n"
"Options may also be written with two dashes. Exit status: 0, or 1 when a\n"
"statement or command failed. History: $GNNDB_HISTORY, else\n"
"$HOME/.gnndb_history. Inside the shell, enter .help for its commands.\n",
          f);
}

typedef struct options {
    const char *db;
    char **sql;
    int nsql;
    const char **files;
    int nfiles;
    const char **cmds;
    int ncmds;
    int nohistory;
} options;

/* 0: go on; 1: exit 0 (--help, --version); -1: exit 1 */
static int parse_options(shell *sh, options *o, int argc, char **argv)
{
    o->sql = shell_xmalloc(sizeof *o->sql * (size_t)argc);
    o->files = shell_xmalloc(sizeof *o->files * (size_t)argc);
    o->cmds = shell_xmalloc(sizeof *o->cmds * (size_t)argc);
    int opts_done = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done || a[0] != '-' || !a[1] || !strcmp(a, "-")) {
            if (!o->db) o->db = a;
            else o->sql[o->nsql++] = argv[i];
            continue;
        }
        if (!strcmp(a, "--")) {
            opts_done = 1;
            continue;
        }
        const char *z = a[1] == '-' ? a + 2 : a + 1;
        const char *val = NULL;
        int needs = !strcmp(z, "f") || !strcmp(z, "file") || !strcmp(z, "cmd") ||
                    !strcmp(z, "separator");
        if (needs) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gnndb: option %s needs an argument\n", a);
                return -1;
            }
            val = argv[++i];
        }
        if (!strcmp(z, "help") || !strcmp(z, "h")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(z, "version")) {
            printf("%s\n", gnndb_libversion());
            return 1;
        } else if (!strcmp(z, "bail")) {
            sh->bail = 1;
        } else if (!strcmp(z, "echo")) {
            sh->echo = 1;
        } else if (!strcmp(z, "readonly")) {
            sh->readonly = 1;
        } else if (!strcmp(z, "nohistory")) {
            o->nohistory = 1;
        } else if (!strcmp(z, "header") || !strcmp(z, "headers")) {
            sh->headers = 1;
        } else if (!strcmp(z, "noheader") || !strcmp(z, "noheaders")) {
            sh->headers = 0;
        } else if (shell_mode_parse(z) >= 0) {
            sh->mode = shell_mode_parse(z);
        } else if (!strcmp(z, "f") || !strcmp(z, "file")) {
            o->files[o->nfiles++] = val;
        } else if (!strcmp(z, "cmd")) {
            o->cmds[o->ncmds++] = val;
        } else if (!strcmp(z, "separator")) {
            snprintf(sh->sep, sizeof sh->sep, "%s", val);
        } else if (o->db) {
            /* after DB, an unknown word with a dash is SQL ("-- ...") */
            o->sql[o->nsql++] = argv[i];
        } else {
            fprintf(stderr, "gnndb: unknown option: %s (see gnndb --help)\n", a);
            return -1;
        }
    }
    return 0;
}

static char *history_path(void)
{
    const char *h = getenv("GNNDB_HISTORY");
    if (h && *h) return shell_xstrdup(h);
    h = getenv("HOME");
    if (!h || !*h) return NULL;
    size_t n = strlen(h) + 32;
    char *p = shell_xmalloc(n);
    snprintf(p, n, "%s/.gnndb_history", h);
    return p;
}

/* A -cmd or SQL argument: one dot command, or statements. */
static int run_arg(shell *sh, const char *a)
{
    const char *q = a;
    while (isspace((unsigned char)*q)) q++;
    int rc = *q == '.' ? shell_dot(sh, q, NULL, 0)
                       : shell_exec(sh, a, NULL, 0, 1);
    if (rc == SHELL_ERR && sh->bail) rc = SHELL_STOP;
    return rc;
}

int main(int argc, char **argv)
{
    shell sh;
    memset(&sh, 0, sizeof sh);
    sh.out = stdout;
    sh.out_tty = isatty(STDOUT_FILENO);
    sh.mode = sh.out_tty ? SHELL_TABLE : SHELL_LIST;
    sh.headers = -1;
    sh.exit_code = -1;
    snprintf(sh.sep, sizeof sh.sep, "|");
    sh.progress.tty = isatty(STDERR_FILENO);
    sh.open = shell_open;
    sh.run_file = shell_run_file;

    options o;
    memset(&o, 0, sizeof o);
    int prc = parse_options(&sh, &o, argc, argv);
    if (prc) {
        free(o.sql);
        free(o.files);
        free(o.cmds);
        return prc > 0 ? 0 : 1;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = shell_on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a read at the prompt must see EINTR */
    sigaction(SIGINT, &sa, NULL);

    int rc = SHELL_OK;
    if (o.db && shell_open(&sh, o.db, sh.readonly) != 0) {
        rc = SHELL_STOP;
        sh.exit_code = 1;
    }
    for (int i = 0; i < o.ncmds && rc != SHELL_STOP && !sh.quit; i++)
        rc = run_arg(&sh, o.cmds[i]);
    for (int i = 0; i < o.nfiles && rc != SHELL_STOP && !sh.quit; i++)
        rc = shell_run_file(&sh, o.files[i]);
    for (int i = 0; i < o.nsql && rc != SHELL_STOP && !sh.quit; i++) {
        shell_sigint = 0;
        rc = run_arg(&sh, o.sql[i]);
        if (shell_sigint) rc = SHELL_STOP;
    }
    if (!o.nfiles && !o.nsql && rc != SHELL_STOP && !sh.quit) {
        if (isatty(STDIN_FILENO)) {
            sh.interactive = 1;
            if (!o.nohistory) sh.history_path = history_path();
            interactive_loop(&sh);
        } else {
            shell_run_file(&sh, "-");
        }
    }

    if (sh.out != stdout) fclose(sh.out);
    fflush(stdout);
    shell_sigdb = NULL;
    gnndb_close(sh.db);
    free(sh.db_path);
    free(sh.out_path);
    free(sh.history_path);
    free(o.sql);
    free(o.files);
    free(o.cmds);
    if (sh.exit_code >= 0) return sh.exit_code;
    return !sh.interactive && sh.nerrors ? 1 : 0;
}
