/* complete.c — Tab completion with readline: the language's keywords (the
** parser's own list, gnndb_keyword), the
** dot commands and their arguments, the names of graphs, feature tables and
** splits of the open database, and file names inside quotes. */
#include "shell.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <readline/readline.h>

static const char *const modes[] = {"table", "list", "csv", "json", "line",
                                    NULL};
static const char *const onoff[] = {"on", "off", NULL};
static const char *const into[] = {"INTO", NULL};

typedef struct words {
    char **w;
    int n, cap;
} words;

static void add_n(words *ws, const char *s, size_t len)
{
    if (!len) return;
    for (int i = 0; i < ws->n; i++)
        if (strlen(ws->w[i]) == len && !strncmp(ws->w[i], s, len)) return;
    if (ws->n + 1 >= ws->cap) {
        ws->cap = ws->cap ? 2 * ws->cap : 32;
        ws->w = shell_xrealloc(ws->w, sizeof *ws->w * (size_t)ws->cap);
    }
    char *c = shell_xmalloc(len + 1);
    memcpy(c, s, len);
    c[len] = 0;
    ws->w[ws->n++] = c;
}

static void add(words *ws, const char *s) { add_n(ws, s, strlen(s)); }

/* "a,b,c" -> a, b, c */
static void add_list(words *ws, const char *s)
{
    while (s && *s) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        while (len && isspace((unsigned char)*s)) s++, len--;
        add_n(ws, s, len);
        s = e ? e + 1 : NULL;
    }
}

static void free_words(words *ws)
{
    for (int i = 0; i < ws->n; i++) free(ws->w[i]);
    free(ws->w);
}

typedef struct names {
    words graphs; /* graph names */
    words tables; /* feature tables and splits */
    int listed;   /* SHOW GRAPHS named the feature tables itself */
} names;

static void graphs_cb(void *arg, gnndb_stmt *st)
{
    names *nm = arg;
    for (int i = 0; i < gnndb_column_count(st); i++) {
        const char *c = gnndb_column_name(st, i), *v = gnndb_column_text(st, i);
        if (!c || !v) continue;
        if (!strcmp(c, "name")) add(&nm->graphs, v);
        if (!strcmp(c, "features")) nm->listed = 1, add_list(&nm->tables, v);
        if (!strcmp(c, "splits")) add_list(&nm->tables, v);
    }
}

static void describe_cb(void *arg, gnndb_stmt *st)
{
    names *nm = arg;
    const char *k = gnndb_column_text(st, 0);
    if (k && !strncmp(k, "features.", 9)) add(&nm->tables, k + 9);
    if (k && !strncmp(k, "split.", 6)) add(&nm->tables, k + 6);
    if (k && !strncmp(k, "edge_split.", 11) && !strchr(k + 11, '.'))
        add(&nm->tables, k + 11);
}

/* The names in the open database. SHOW GRAPHS names each graph's feature
** tables and splits; DESCRIBE (slower: it counts label classes) is asked
** only when it does not. */
static void db_names(names *nm, int tables)
{
    gnndb *db = shell_sigdb;
    if (!db) return;
    shell_query(db, "SHOW GRAPHS;", graphs_cb, nm);
    if (!tables || nm->listed) return;
    for (int i = 0; i < nm->graphs.n; i++) {
        char sql[512];
        snprintf(sql, sizeof sql, "DESCRIBE %s;", nm->graphs.w[i]);
        shell_query(db, sql, describe_cb, nm);
    }
}

/* Candidates that start with `text` (ignoring case), as readline wants
** them: [common prefix, match..., NULL], or NULL for none. Keywords follow
** the case the user started typing in. */
static char **build(const char *text, words *cands, int nkw)
{
    size_t tl = strlen(text);
    int lower = tl && islower((unsigned char)text[0]);
    words m = {0};
    for (int i = 0; i < cands->n; i++) {
        if (strncasecmp(cands->w[i], text, tl)) continue;
        char *c = shell_xstrdup(cands->w[i]);
        if (i < nkw && lower)
            for (char *p = c; *p; p++) *p = (char)tolower((unsigned char)*p);
        add(&m, c);
        free(c);
    }
    if (!m.n) {
        free_words(&m);
        return NULL;
    }
    char **r = shell_xmalloc(sizeof *r * (size_t)(m.n + 2));
    if (m.n == 1) {
        r[0] = m.w[0];
        r[1] = NULL;
    } else {
        size_t k = strlen(m.w[0]);
        for (int i = 1; i < m.n; i++) {
            size_t j = 0;
            while (j < k && m.w[i][j] == m.w[0][j]) j++;
            k = j;
        }
        /* matches that differ in case only: keep what was typed */
        r[0] = k >= tl ? strndup(m.w[0], k) : shell_xstrdup(text);
        if (!r[0]) r[0] = shell_xstrdup(text);
        for (int i = 0; i < m.n; i++) r[i + 1] = m.w[i];
        r[m.n + 1] = NULL;
    }
    free(m.w);
    return r;
}

static char **from_list(const char *text, const char *const *list)
{
    words ws = {0};
    for (int i = 0; list[i]; i++) add(&ws, list[i]);
    char **r = build(text, &ws, 0);
    free_words(&ws);
    return r;
}

/* .import FILE ?NAME? ?INTO GRAPH?: the words from `p` (past the command)
** to `end` (where the word being completed starts) tell what it is: 0 the
** file, 2 a graph (after INTO), 1 anything else (INTO is offered). */
static int import_arg(const char *p, const char *end)
{
    int nw = 0;
    const char *prev = NULL;
    while (p < end) {
        while (isspace((unsigned char)*p)) p++;
        if (p >= end) break;
        prev = p;
        nw++;
        while (*p && !isspace((unsigned char)*p)) p++;
    }
    if (nw == 0) return 0;
    return !strncasecmp(prev, "into", 4) && isspace((unsigned char)prev[4])
               ? 2 : 1;
}

static char **complete_dot(const char *text, int start, const char *line)
{
    const char *cmd = line + 1, *e = cmd;
    while (*e && !isspace((unsigned char)*e)) e++;
    if (start <= (int)(cmd - 1 - rl_line_buffer))
        return from_list(text, shell_dot_commands);
    size_t n = (size_t)(e - cmd);
    if (n == 0) return NULL;
#define IS(name) (n <= strlen(name) && !strncmp(cmd, name, n))
    if (IS("mode")) return from_list(text, modes);
    if (IS("headers") || IS("timer") || IS("bail") || IS("stats") ||
        IS("echo"))
        return from_list(text, onoff);
    if (IS("import")) {
        int arg = import_arg(e, rl_line_buffer + start);
        if (arg == 0) {
            rl_attempted_completion_over = 0; /* FILE: readline's names */
            return NULL;
        }
        if (arg == 1) return from_list(text, into);
    }
    if (IS("describe") || IS("summary") || IS("import") || IS("tables") ||
        IS("graphs") || IS("schema")) {
        names nm = {0};
        db_names(&nm, 0);
        char **r = build(text, &nm.graphs, 0);
        free_words(&nm.graphs);
        free_words(&nm.tables);
        return r;
    }
    if (IS("open") || IS("read") || IS("output")) {
        rl_attempted_completion_over = 0; /* readline's file names */
        return NULL;
    }
    if (IS("help")) return from_list(text, shell_dot_commands);
#undef IS
    return NULL;
}

static char **complete(const char *text, int start, int end)
{
    (void)end;
    rl_attempted_completion_over = 1;
    if (rl_completion_quote_character == '\'') {
        rl_attempted_completion_over = 0; /* a path: file names */
        return NULL;
    }
    const char *line = rl_line_buffer;
    while (isspace((unsigned char)*line)) line++;
    if (*line == '.') return complete_dot(text, start, line);

    words ws = {0};
    int nkw = 0;
    for (const char *k; (k = gnndb_keyword(nkw, NULL)); nkw++) add(&ws, k);
    names nm = {0};
    db_names(&nm, 1);
    for (int i = 0; i < nm.graphs.n; i++) add(&ws, nm.graphs.w[i]);
    for (int i = 0; i < nm.tables.n; i++) add(&ws, nm.tables.w[i]);
    free_words(&nm.graphs);
    free_words(&nm.tables);
    char **r = build(text, &ws, nkw);
    free_words(&ws);
    return r;
}

void shell_completion_init(void)
{
    rl_readline_name = "gnndb";
    rl_attempted_completion_function = complete;
    rl_completer_quote_characters = "'\"";
    rl_basic_word_break_characters = " \t\n\"'`@$><=;|&{(,)";
}
