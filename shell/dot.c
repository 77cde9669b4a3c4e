/* dot.c — the shell's own commands, the lines that start with '.': settings
** (.mode, .headers, .timer, .bail, .output), files (.open, .read) and
** shortcuts to statements (.tables, .schema, .import, .describe, .pragma,
** .summary, .stats). */
#include "shell.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ARGS 16

typedef struct dot_ctx {
    shell *sh;
    const char *src; /* script name, or NULL */
    int line;
} dot_ctx;

typedef struct dot_cmd {
    const char *name;
    const char *args;
    const char *help;
    int min, max; /* arguments after the name */
    int (*fn)(dot_ctx *c, int argc, char **argv);
} dot_cmd;

/* Split a command line into words; '...' and "..." group (\" and \\ inside
** double quotes). Works in place on `s`. */
static int split_args(char *s, char **argv, int max)
{
    int n = 0;
    while (*s) {
        while (isspace((unsigned char)*s)) s++;
        if (!*s) break;
        if (n == max) return -1;
        char *w = s, *o = s;
        argv[n++] = w;
        while (*s && !isspace((unsigned char)*s)) {
            if (*s == '\'' || *s == '"') {
                char q = *s++;
                while (*s && *s != q) {
                    if (q == '"' && *s == '\\' && (s[1] == '"' || s[1] == '\\'))
                        s++;
                    *o++ = *s++;
                }
                if (*s) s++;
            } else {
                *o++ = *s++;
            }
        }
        if (*s) s++;
        *o = 0;
    }
    return n;
}

/* on|off|yes|no|1|0 -> 1/0, -1 when none of these. */
static int parse_bool(const char *s)
{
    if (!strcasecmp(s, "on") || !strcasecmp(s, "yes") || !strcmp(s, "1") ||
        !strcasecmp(s, "true"))
        return 1;
    if (!strcasecmp(s, "off") || !strcasecmp(s, "no") || !strcmp(s, "0") ||
        !strcasecmp(s, "false"))
        return 0;
    return -1;
}

static int set_bool(dot_ctx *c, const char *cmd, const char *v, int *out)
{
    int b = parse_bool(v);
    if (b < 0) {
        shell_error(c->sh, c->src, c->line, ".%s: expected on or off, got '%s'",
                    cmd, v);
        return SHELL_ERR;
    }
    *out = b;
    return SHELL_OK;
}

/* 1 when `s` is a name of the language ([A-Za-z_][A-Za-z0-9_]*): what a dot
** command pastes into a statement must not change its meaning. */
static int is_name(dot_ctx *c, const char *s)
{
    int ok = isalpha((unsigned char)*s) || *s == '_';
    for (const char *p = s; ok && *p; p++)
        ok = isalnum((unsigned char)*p) || *p == '_';
    if (!ok) shell_error(c->sh, c->src, c->line, "not a name: '%s'", s);
    return ok;
}

/* Run a statement that a dot command stands for. */
static int run_sql(dot_ctx *c, const char *sql)
{
    return shell_exec(c->sh, sql, c->src, c->line, 1);
}

static int cmd_bail(dot_ctx *c, int argc, char **argv)
{
    (void)argc;
    return set_bool(c, "bail", argv[1], &c->sh->bail);
}

static int cmd_headers(dot_ctx *c, int argc, char **argv)
{
    (void)argc;
    return set_bool(c, "headers", argv[1], &c->sh->headers);
}

static int cmd_timer(dot_ctx *c, int argc, char **argv)
{
    (void)argc;
    return set_bool(c, "timer", argv[1], &c->sh->timer);
}

static int cmd_mode(dot_ctx *c, int argc, char **argv)
{
    if (argc == 1) {
        fprintf(c->sh->out, "current output mode: %s\n",
                shell_mode_name(c->sh->mode));
        return SHELL_OK;
    }
    int m = shell_mode_parse(argv[1]);
    if (m < 0) {
        shell_error(c->sh, c->src, c->line,
                    ".mode %s: use table, list, csv, json or line", argv[1]);
        return SHELL_ERR;
    }
    c->sh->mode = m;
    return SHELL_OK;
}

static int cmd_separator(dot_ctx *c, int argc, char **argv)
{
    (void)argc;
    snprintf(c->sh->sep, sizeof c->sh->sep, "%s", argv[1]);
    return SHELL_OK;
}

static int cmd_open(dot_ctx *c, int argc, char **argv)
{
    int ro = 0;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-readonly")) ro = 1;
        else if (!path) path = argv[i];
        else path = NULL, i = argc;
    }
    if (!path) {
        shell_error(c->sh, c->src, c->line, "usage: .open ?-readonly? PATH");
        return SHELL_ERR;
    }
    if (c->sh->open(c->sh, path, ro) != 0) return SHELL_ERR;
    return SHELL_OK;
}

static int cmd_output(dot_ctx *c, int argc, char **argv)
{
    shell *sh = c->sh;
    FILE *f = stdout;
    if (argc == 2 && strcmp(argv[1], "stdout") && strcmp(argv[1], "-")) {
        f = fopen(argv[1], "w");
        if (!f) {
            shell_error(sh, c->src, c->line, ".output: cannot open %s: %s",
                        argv[1], strerror(errno));
            return SHELL_ERR;
        }
    }
    if (sh->out != stdout) fclose(sh->out);
    else fflush(stdout);
    free(sh->out_path);
    sh->out = f;
    sh->out_path = f == stdout ? NULL : shell_xstrdup(argv[1]);
    sh->out_tty = isatty(fileno(f));
    return SHELL_OK;
}

static int cmd_read(dot_ctx *c, int argc, char **argv)
{
    (void)argc;
    return c->sh->run_file(c->sh, argv[1]);
}

static int cmd_tables(dot_ctx *c, int argc, char **argv)
{
    return shell_tables(c->sh, argc == 2 ? argv[1] : NULL, c->src, c->line);
}

static int cmd_schema(dot_ctx *c, int argc, char **argv)
{
    return shell_schema(c->sh, argc == 2 ? argv[1] : NULL, c->src, c->line);
}

static int cmd_import(dot_ctx *c, int argc, char **argv)
{
    return shell_import(c->sh, argc, argv, c->src, c->line);
}

static int cmd_echo(dot_ctx *c, int argc, char **argv)
{
    (void)argc;
    return set_bool(c, "echo", argv[1], &c->sh->echo);
}

static int cmd_describe(dot_ctx *c, int argc, char **argv)
{
    (void)argc;
    char sql[512];
    if (!is_name(c, argv[1])) return SHELL_ERR;
    snprintf(sql, sizeof sql, "DESCRIBE %s;", argv[1]);
    return run_sql(c, sql);
}

static int cmd_summary(dot_ctx *c, int argc, char **argv)
{
    (void)argc;
    if (!is_name(c, argv[1])) return SHELL_ERR;
    return shell_summary(c->sh, argv[1], c->src, c->line) == 0 ? SHELL_OK : SHELL_ERR;
}

/* 1 when `s` reads as a number (a value PRAGMA takes unquoted). */
static int is_number(const char *s)
{
    if (*s == '-' || *s == '+') s++;
    if (!*s) return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s) && *s != '.') return 0;
    return 1;
}

static int cmd_pragma(dot_ctx *c, int argc, char **argv)
{
    if (argc == 1) return run_sql(c, "PRAGMA;");
    if (!is_name(c, argv[1])) return SHELL_ERR;
    size_t n = strlen(argv[1]) + (argc > 2 ? 2 * strlen(argv[2]) : 0) + 32;
    char *sql = shell_xmalloc(n);
    if (argc == 2) {
        snprintf(sql, n, "PRAGMA %s;", argv[1]);
    } else if (is_number(argv[2])) {
        snprintf(sql, n, "PRAGMA %s = %s;", argv[1], argv[2]);
    } else {
        size_t k = (size_t)snprintf(sql, n, "PRAGMA %s = '", argv[1]);
        for (const char *s = argv[2]; *s; s++) {
            if (*s == '\'') sql[k++] = '\'';
            sql[k++] = *s;
        }
        snprintf(sql + k, n - k, "';");
    }
    int rc = run_sql(c, sql);
    free(sql);
    return rc;
}

static int cmd_stats(dot_ctx *c, int argc, char **argv)
{
    if (argc == 2) return set_bool(c, "stats", argv[1], &c->sh->stats_auto);
    shell_print_stats(c->sh, c->sh->out);
    return SHELL_OK;
}

static int cmd_show(dot_ctx *c, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    shell *sh = c->sh;
    FILE *f = sh->out;
    fprintf(f, "%10s: %s\n", "database", sh->db_path ? sh->db_path : "(none)");
    fprintf(f, "%10s: %s\n", "readonly", sh->readonly ? "on" : "off");
    fprintf(f, "%10s: %s\n", "mode", shell_mode_name(sh->mode));
    fprintf(f, "%10s: %s\n", "headers", shell_headers_on(sh) ? "on" : "off");
    fprintf(f, "%10s: \"%s\"\n", "separator", sh->sep);
    fprintf(f, "%10s: %s\n", "output", sh->out_path ? sh->out_path : "stdout");
    fprintf(f, "%10s: %s\n", "bail", sh->bail ? "on" : "off");
    fprintf(f, "%10s: %s\n", "echo", sh->echo ? "on" : "off");
    fprintf(f, "%10s: %s\n", "timer", sh->timer ? "on" : "off");
    fprintf(f, "%10s: %s\n", "stats", sh->stats_auto ? "on" : "off");
    fprintf(f, "%10s: %s\n", "history",
            sh->history_path ? sh->history_path : "(off)");
    return SHELL_OK;
}

static int cmd_quit(dot_ctx *c, int argc, char **argv)
{
    if (argc == 2) c->sh->exit_code = atoi(argv[1]);
    c->sh->quit = 1;
    return SHELL_STOP;
}

static int cmd_help(dot_ctx *c, int argc, char **argv);

static const dot_cmd commands[] = {
    {"bail", "on|off", "stop at the first error (as -bail)", 1, 1, cmd_bail},
    {"describe", "GRAPH", "the properties of GRAPH (runs DESCRIBE GRAPH)", 1,
     1, cmd_describe},
    {"echo", "on|off", "print each statement and command before running it "
     "(also those that .import builds)", 1, 1, cmd_echo},
    {"exit", "?CODE?", "leave the shell, with exit status CODE", 0, 1, cmd_quit},
    {"graphs", "?PATTERN?", "the same as .tables", 0, 1, cmd_tables},
    {"headers", "on|off", "show column names in list, csv and table mode", 1,
     1, cmd_headers},
    {"help", "?COMMAND?", "this help, or that of one command", 0, 1, cmd_help},
    {"import", "FILE ?NAME? ?INTO GRAPH?", "import FILE by its extension: "
     "an edge list (.tsv .csv .txt .bin, also .gz) by CREATE GRAPH NAME; a "
     ".npy into GRAPH by IMPORT FEATURES NAME (floats, 2-D integers), CREATE "
     "SPLIT NAME (1-D integers) or IMPORT LABELS (NAME labels); a .npz by "
     "IMPORT FEATURES or LABELS; a directory (an OGB dataset) by IMPORT "
     "OGB. NAME: "
     "FILE's base name; GRAPH: the only graph. .echo on shows the statement",
     1, 4, cmd_import},
    {"mode", "MODE", "output mode: table, list, csv, json or line", 0, 1,
     cmd_mode},
    {"open", "?-readonly? PATH", "close this database and open PATH (created "
     "when missing, unless -readonly)", 1, 2, cmd_open},
    {"output", "?FILE?", "send results to FILE; alone, back to stdout", 0, 1,
     cmd_output},
    {"pragma", "?NAME? ?VALUE?", "list the settings, show one, or set one "
     "(runs PRAGMA)", 0, 2, cmd_pragma},
    {"quit", "", "leave the shell", 0, 0, cmd_quit},
    {"read", "FILE", "run the statements and commands of FILE", 1, 1, cmd_read},
    {"schema", "?PATTERN?", "the statements that would build the graphs and "
     "objects matching PATTERN again (all without one)", 0, 1, cmd_schema},
    {"separator", "SEP", "the column separator of list mode (default |)", 1, 1,
     cmd_separator},
    {"show", "", "the current settings", 0, 0, cmd_show},
    {"stats", "?on|off?", "I/O counters of the last statement; on: after "
     "every statement", 0, 1, cmd_stats},
    {"summary", "GRAPH", "a report on GRAPH: counts, degrees, features, "
     "labels, splits, size on disk", 1, 1, cmd_summary},
    {"tables", "?PATTERN?", "the graphs and, under each, its feature tables, "
     "labels, splits and packs; PATTERN as LIKE (% any, _ one)", 0, 1,
     cmd_tables},
    {"timer", "on|off", "print the run time of every statement", 1, 1,
     cmd_timer},
};
#define NCOMMANDS (int)(sizeof commands / sizeof commands[0])

const char *const shell_dot_commands[] = {
    ".bail", ".describe", ".echo", ".exit", ".graphs", ".headers", ".help",
    ".import", ".mode", ".open", ".output", ".pragma", ".quit", ".read",
    ".schema", ".separator", ".show", ".stats", ".summary", ".tables",
    ".timer", NULL};

/* ".name args" and the help text, wrapped at 79 columns under column 30
** (a long head gets a line of its own). */
static void help_line(FILE *f, const dot_cmd *d)
{
    char head[64];
    snprintf(head, sizeof head, ".%s %s", d->name, d->args);
    if (strlen(head) > 28) fprintf(f, "%s\n%-28s", head, "");
    else fprintf(f, "%-28s", head);
    const char *s = d->help;
    while (*s) {
        size_t n = strlen(s);
        if (n > 50) { /* break at the last blank that fits */
            n = 50;
            while (n > 0 && s[n] != ' ') n--;
            if (n == 0) n = strcspn(s, " ");
        }
        fprintf(f, " %.*s\n", (int)n, s);
        s += n;
        while (*s == ' ') s++;
        if (*s) fprintf(f, "%-28s", "");
    }
}

static int cmd_help(dot_ctx *c, int argc, char **argv)
{
    FILE *f = c->sh->out;
    if (argc == 2) {
        const char *want = argv[1][0] == '.' ? argv[1] + 1 : argv[1];
        for (int i = 0; i < NCOMMANDS; i++)
            if (!strcmp(commands[i].name, want)) {
                help_line(f, &commands[i]);
                return SHELL_OK;
            }
        shell_error(c->sh, c->src, c->line, ".help: no command .%s", want);
        return SHELL_ERR;
    }
    for (int i = 0; i < NCOMMANDS; i++) help_line(f, &commands[i]);
    fputs("\nStatements end with ';' and may span lines. Ctrl-C stops a "
          "running statement;\nCtrl-D leaves. See docs/shell.md and "
          "docs/language.md.\n", f);
    return SHELL_OK;
}

int shell_dot(shell *sh, const char *line, const char *src, int lineno)
{
    dot_ctx c = {sh, src, lineno};
    if (sh->echo) {
        fprintf(sh->out, "%s\n", line);
        fflush(sh->out);
    }
    char *copy = shell_xstrdup(line);
    char *argv[MAX_ARGS + 1];
    int argc = split_args(copy + 1, argv, MAX_ARGS);
    int rc = SHELL_ERR;
    if (argc < 0) {
        shell_error(sh, src, lineno, "too many arguments: %s", line);
        goto done;
    }
    if (argc == 0) {
        shell_error(sh, src, lineno, "a '.' alone is no command; try .help");
        goto done;
    }
    /* an exact name, or a prefix that names one command only */
    const dot_cmd *d = NULL;
    size_t n = strlen(argv[0]);
    int nmatch = 0;
    for (int i = 0; i < NCOMMANDS; i++) {
        if (!strcmp(commands[i].name, argv[0])) {
            d = &commands[i];
            nmatch = 1;
            break;
        }
        if (!strncmp(commands[i].name, argv[0], n)) {
            d = &commands[i];
            nmatch++;
        }
    }
    if (nmatch != 1) {
        shell_error(sh, src, lineno, "%s command: .%s; enter .help",
                    nmatch ? "ambiguous" : "unknown", argv[0]);
        goto done;
    }
    if (argc - 1 < d->min || argc - 1 > d->max) {
        shell_error(sh, src, lineno, "usage: .%s %s", d->name, d->args);
        goto done;
    }
    rc = d->fn(&c, argc, argv);
done:
    free(copy);
    return rc;
}
