/* shell.h — the state of the `gnndb` shell shared by its files: the input
** loop (main.c), tab completion (complete.c), dot commands (dot.c) and
** what they run (import.c, summary.c, tables.c, describe.c), statement
** execution (exec.c), result formatting and errors (output.c), the progress
** bar (progress.c) and the helpers of them all (util.c). Each calls only
** the files after it in that list; main.c hands dot.c what .open and .read
** need as hooks. The shell uses only the public API, include/gnndb.h. */
#ifndef GNNDB_SHELL_H
#define GNNDB_SHELL_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "gnndb.h"

/* Output modes (.mode). */
enum { SHELL_TABLE, SHELL_LIST, SHELL_CSV, SHELL_JSON, SHELL_LINE };

/* Results of the input loop and of dot commands. */
#define SHELL_OK   0 /* go on */
#define SHELL_ERR  1 /* something failed; go on unless bailing */
#define SHELL_STOP 2 /* stop reading input (.quit, -bail, Ctrl-C in a script) */

/* Table mode shows at most this many rows before it fixes the column widths
** and streams the rest, so that a long SAMPLE starts printing and memory stays
** bounded. */
#define SHELL_TABLE_BUFFER 500

/* The state a SIGINT handler needs — the only globals of the shell (util.c).
** shell_sigint counts Ctrl-C presses since it was last cleared;
** shell_running is 1 while a statement steps; shell_sigdb is the open database
** (for gnndb_interrupt; tab completion reads it too). */
extern volatile sig_atomic_t shell_sigint;
extern volatile sig_atomic_t shell_running;
extern gnndb *volatile shell_sigdb;

/* One cell of a buffered table row. */
typedef struct shell_cell {
    char *text; /* NULL for NULL */
    int type;   /* GNNDB_INTEGER, ... */
} shell_cell;

/* The formatter of one statement's result. */
typedef struct shell_result {
    int ncol;
    char **names;      /* column names, owned */
    int64_t nrows;     /* rows printed or buffered so far */
    int header_done;   /* table: widths fixed and header printed */
    int *width;        /* table: column display widths */
    int *numeric;      /* table: column right-aligned (all numbers so far) */
    shell_cell *buf;   /* table: buffered rows, nbuf * ncol cells */
    int nbuf;
} shell_result;

/* The progress bar of the running statement (drawn on stderr). */
typedef struct shell_progress {
    int tty;          /* stderr is a terminal: draw */
    double t0;        /* statement start (monotonic seconds) */
    double last_draw; /* when it was last drawn */
    int shown;        /* a bar is on the screen now */
    int64_t done, total; /* what it shows */
    /* A statement may report in phases (CREATE GRAPH: bytes parsed, then
    ** nodes written): a new total, or done going back, starts a phase, and
    ** the rate and ETA count from its start. */
    double phase_t0;
    int64_t phase_done0;
} shell_progress;

typedef struct shell {
    gnndb *db;           /* NULL when no database is open */
    char *db_path;
    int readonly;        /* open read-only (-readonly, .open -readonly) */
    int mode;            /* SHELL_TABLE, ... */
    int headers;         /* -1: the mode's default, 0 off, 1 on */
    char sep[16];        /* list mode separator */
    FILE *out;           /* results go here (.output) */
    char *out_path;      /* NULL: stdout */
    int out_tty;         /* out is a terminal */
    int bail;            /* stop at the first error */
    int echo;            /* .echo on: print each statement and command first */
    int timer;           /* .timer on */
    int stats_auto;      /* .stats on: counters after each statement */
    int interactive;     /* reading from the terminal with readline */
    int nerrors;         /* statements or commands that failed */
    int quit;            /* .quit/.exit: leave the shell */
    int exit_code;       /* .exit N; -1 when not given */
    int depth;           /* .read nesting */
    int has_status;      /* last_status holds a statement's counters */
    int64_t last_status[11];
    char *history_path;  /* NULL: no history */
    shell_progress progress;
    shell_result res;
    /* main.c's, for .open and .read: open the database at `path` (closing
    ** the one open), and run the statements and commands of a file ("-":
    ** stdin); each returns SHELL_OK, SHELL_ERR or SHELL_STOP */
    int (*open)(struct shell *sh, const char *path, int readonly);
    int (*run_file)(struct shell *sh, const char *path);
} shell;

/* exec.c: run every statement of `sql`. `src`/`line` name where it came from
** (NULL for the command line or the terminal). With `stop_on_error` an error
** skips the rest of `sql`. Returns SHELL_OK, SHELL_ERR or SHELL_STOP. */
int shell_exec(shell *sh, const char *sql, const char *src, int line,
               int stop_on_error);
/* Run the statements of `sql` on `db` and hand each row to `cb` instead of
** printing it; returns the gnndb result code (GNNDB_DONE on success). Used
** by .summary and tab completion; prints nothing. */
int shell_query(gnndb *db, const char *sql,
                void (*cb)(void *arg, gnndb_stmt *st), void *arg);
/* The end of the statement in `p` (past its ';', or the NUL), skipping
** quotes and comments. */
const char *shell_stmt_end(const char *p);
/* 1 when `sql` ends with a ';' outside quotes and comments, 2 when it holds
** only blanks and (closed) comments, 0 when more input is needed. */
int shell_sql_complete(const char *sql);

/* output.c */
void shell_result_begin(shell *sh, gnndb_stmt *st);
void shell_result_row(shell *sh, gnndb_stmt *st);
void shell_result_end(shell *sh);
int shell_mode_parse(const char *name);
const char *shell_mode_name(int mode);
int shell_headers_on(const shell *sh);
void shell_json_string(FILE *f, const char *s);
int shell_utf8_width(const char *s);
/* An error on stderr ("src:line: Error: ..."), counted in sh->nerrors. */
void shell_error(shell *sh, const char *src, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The last statement's counters, as .stats prints them. */
void shell_print_stats(shell *sh, FILE *f);

/* dot.c */
int shell_dot(shell *sh, const char *line, const char *src, int lineno);
extern const char *const shell_dot_commands[];

/* describe.c: DESCRIBE's (property, value) rows and SHOW GRAPHS' names,
** through the public API. */
typedef struct shell_prop {
    char *key, *value;
    int64_t num; /* the value as a number (0 when it is not one) */
    int used;    /* .summary: printed in a section already */
} shell_prop;
typedef struct shell_props {
    shell_prop *p;
    int n, cap;
} shell_props;
typedef struct shell_names {
    char **name;
    int n;
} shell_names;
/* DESCRIBE `graph` into *ps (freed by the caller, also on failure); returns
** the gnndb result code, GNNDB_DONE on success. */
int shell_describe(gnndb *db, const char *graph, shell_props *ps);
shell_prop *shell_prop_find(shell_props *ps, const char *key);
void shell_props_free(shell_props *ps);
/* The graphs' names, in SHOW GRAPHS' order; same return as above. */
int shell_graph_names(gnndb *db, shell_names *nm);
int shell_names_has(const shell_names *nm, const char *name);
void shell_names_free(shell_names *nm);
/* 1 when `s` matches the LIKE pattern `pat` (% any run, _ one character,
** case-insensitive), as sqlite3's .tables PATTERN. */
int shell_like(const char *pat, const char *s);

/* summary.c */
int shell_summary(shell *sh, const char *graph, const char *src, int line);

/* tables.c: .tables ?PATTERN? and .schema ?PATTERN? */
int shell_tables(shell *sh, const char *pattern, const char *src, int line);
int shell_schema(shell *sh, const char *pattern, const char *src, int line);

/* import.c: .import FILE ?NAME? ?INTO GRAPH? (argv as split by dot.c) */
int shell_import(shell *sh, int argc, char **argv, const char *src, int line);

/* progress.c */
int shell_progress_cb(void *arg, int64_t done, int64_t total);
void shell_progress_start(shell *sh);
void shell_progress_clear(shell *sh);
/* Draw the bar again after a row went to the same terminal. */
void shell_progress_redraw(shell *sh);

/* complete.c */
void shell_completion_init(void);

/* util.c */
/* Allocation that cannot fail: the shell exits on out-of-memory. */
void *shell_xmalloc(size_t n);
void *shell_xrealloc(void *p, size_t n);
char *shell_xstrdup(const char *s);
double shell_now(void);
/* The first byte of `p` that is not whitespace or a comment, counting
** newlines into *line when not NULL. */
const char *shell_skip_space(const char *p, int *line);
/* 1 when `s` is a reserved word of the language, which cannot name an
** object (gnndb_keyword). */
int shell_is_keyword(const char *s);
/* The SIGINT handler: counts presses into shell_sigint, interrupts the
** running statement, and gives up on one that ignores three. */
void shell_on_sigint(int sig);

#endif
