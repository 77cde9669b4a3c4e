/* import.c — .import FILE ?NAME? ?INTO GRAPH?: the statement that imports
** FILE, chosen by its extension (and, for .npy, by its header's dtype and
** shape), then run as if typed. The rules are a table, edge lists first:
**
**   .tsv .csv .txt .bin (each also .gz)  CREATE GRAPH NAME FROM 'FILE'
**   .npy named labels                     IMPORT LABELS INTO GRAPH FROM 'FILE'
**   .npy of floats, or 2-D integers       IMPORT FEATURES NAME INTO GRAPH ...
**   .npy of 1-D integers                  CREATE SPLIT NAME ON GRAPH ...
**   .npz named labels                     IMPORT LABELS INTO GRAPH FROM 'FILE'
**   .npz                                  IMPORT FEATURES NAME INTO GRAPH ...
**   a directory (an OGB dataset)          IMPORT OGB 'DIR' AS NAME
**
** NAME defaults to FILE's base name without its extensions; GRAPH to the
** database's only graph. The library checks everything else (the .npy's
** length against the graph's nodes, the edge list's lines). */
#include "shell.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "npy.h" /* the library's own header parser: one reader of .npy */

enum { IMP_GRAPH, IMP_NPY, IMP_NPZ, IMP_OGB };

/* Longer names the catalog refuses anyway; this bound keeps the statement
** whole. */
#define NAME_MAX_LEN 255

static const struct {
    const char *ext;
    int what;
} exts[] = {
    {".tsv", IMP_GRAPH}, {".csv", IMP_GRAPH}, {".txt", IMP_GRAPH},
    {".bin", IMP_GRAPH}, {".npy", IMP_NPY}, {".npz", IMP_NPZ},
};

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && !strncasecmp(s + n - k, suffix, k);
}

/* IMP_* for `path`, or -1 for an extension .import does not know. */
static int by_extension(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return IMP_OGB;
    size_t n = strlen(path);
    int gz = ends_with(path, n, ".gz");
    if (gz) n -= 3;
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
        if (ends_with(path, n, exts[i].ext))
            return gz && exts[i].what != IMP_GRAPH ? -1 : exts[i].what;
    return -1;
}

/* Why `s` cannot name an object, or NULL when it can. */
static const char *not_a_name(const char *s)
{
    int ok = isalpha((unsigned char)*s) || *s == '_';
    for (const char *p = s; ok && *p; p++)
        ok = isalnum((unsigned char)*p) || *p == '_';
    if (!ok) return "is not a name";
    if (strlen(s) > NAME_MAX_LEN) return "is too long for a name";
    if (shell_is_keyword(s)) return "is a keyword of the language, not a name";
    return NULL;
}

/* FILE's base name up to its first '.', or a directory's last name with
** '-' read as '_' (ogbn-arxiv: ogbn_arxiv); checked as a name by the
** caller. */
static char *default_name(const char *path)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') len--;
    const char *b = path + len;
    while (b > path && b[-1] != '/') b--;
    size_t n = strcspn(b, ".");
    if (n > (size_t)(path + len - b)) n = (size_t)(path + len - b);
    char *s = shell_xmalloc(n + 1);
    for (size_t i = 0; i < n; i++) s[i] = b[i] == '-' ? '_' : b[i];
    s[n] = 0;
    return s;
}

/* The .npy header of `path` through the library's parser. */
static int read_npy(shell *sh, const char *path, npy_info *info,
                    const char *src, int line)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        shell_error(sh, src, line, ".import: cannot open %s: %s", path,
                    strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16; /* headers are far shorter in practice */
    char *buf = shell_xmalloc(cap);
    size_t len = fread(buf, 1, cap, f);
    fclose(f);
    gnn_err e = {0};
    int rc = npy_parse_header(buf, len, info, path, &e);
    free(buf);
    if (rc != GNNDB_OK) {
        shell_error(sh, src, line, ".import: %s", e.msg);
        return -1;
    }
    return 0;
}

static int is_integer(int dtype)
{
    return dtype == NPY_I64 || dtype == NPY_I32 || dtype == NPY_I8 ||
           dtype == NPY_U8;
}

/* The graph a .npy goes into: the one named, or the only one. */
static char *target_graph(shell *sh, const char *into, const char *src,
                          int line)
{
    shell_names nm;
    char *g = NULL;
    if (shell_graph_names(sh->db, &nm) != GNNDB_DONE)
        shell_error(sh, src, line, "%s", gnndb_errmsg(sh->db));
    else if (into && !shell_names_has(&nm, into))
        shell_error(sh, src, line, ".import: no such graph: %s", into);
    else if (into)
        g = shell_xstrdup(into);
    else if (nm.n == 1)
        g = shell_xstrdup(nm.name[0]);
    else
        shell_error(sh, src, line, ".import: %s; name one: .import FILE NAME "
                    "INTO GRAPH", nm.n ? "which graph?" :
                    "there is no graph yet (import an edge list first)");
    shell_names_free(&nm);
    return g;
}

/* "HEAD'path';" with the path's quotes doubled, allocated. */
static char *with_path(const char *head, const char *path)
{
    size_t k = strlen(head);
    char *sql = shell_xmalloc(k + 2 * strlen(path) + 4);
    memcpy(sql, head, k);
    sql[k++] = '\'';
    for (; *path; path++) {
        if (*path == '\'') sql[k++] = '\'';
        sql[k++] = *path;
    }
    memcpy(sql + k, "';", 3);
    return sql;
}

/* The statement for FILE (`what`) as NAME into GRAPH, allocated; NULL after
** an error (reported). */
static char *build_sql(shell *sh, const char *file, int what,
                       const char *name, const char *into, const char *src,
                       int line)
{
    char head[600]; /* names are short (not_a_name) */
    if (what == IMP_OGB) {
        if (into) {
            shell_error(sh, src, line, ".import: %s is a dataset directory, "
                        "which makes a graph of its own; INTO is for .npy "
                        "and .npz", file);
            return NULL;
        }
        char *sql = with_path("IMPORT OGB ", file);
        size_t k = strlen(sql) - 1;   /* without its ';' */
        sql = shell_xrealloc(sql, k + strlen(name) + 6);
        snprintf(sql + k, strlen(name) + 6, " AS %s;", name);
        return sql;
    }
    if (what == IMP_GRAPH) {
        if (into) {
            shell_error(sh, src, line, ".import: %s is an edge list, which "
                        "makes a graph of its own; INTO is for .npy and .npz",
                        file);
            return NULL;
        }
        snprintf(head, sizeof head, "CREATE GRAPH %s FROM ", name);
    } else {
        /* a .npz is a zip: its members are the library's to read */
        npy_info info = {.dtype = NPY_F32, .ndim = 2};
        if (what == IMP_NPY && read_npy(sh, file, &info, src, line))
            return NULL;
        char *g = target_graph(sh, into, src, line);
        if (!g) return NULL;
        if (!strcmp(name, "labels"))
            snprintf(head, sizeof head, "IMPORT LABELS INTO %s FROM ", g);
        else if (is_integer(info.dtype) && info.ndim == 1)
            snprintf(head, sizeof head, "CREATE SPLIT %s ON %s FROM ", name, g);
        else
            snprintf(head, sizeof head, "IMPORT FEATURES %s INTO %s FROM ",
                     name, g);
        free(g);
    }
    return with_path(head, file);
}

int shell_import(shell *sh, int argc, char **argv, const char *src, int line)
{
    const char *file = argv[1], *name = NULL, *into = NULL;
    int i = 2;
    if (i < argc && strcasecmp(argv[i], "into")) name = argv[i++];
    if (i < argc && !strcasecmp(argv[i], "into") && i + 1 < argc)
        into = argv[i + 1], i += 2;
    if (i != argc) {
        shell_error(sh, src, line, "usage: .import FILE ?NAME? ?INTO GRAPH?");
        return SHELL_ERR;
    }
    if (!sh->db) {
        shell_error(sh, src, line, "no database is open; use .open NAME.gnndb");
        return SHELL_ERR;
    }
    int what = by_extension(file);
    if (what < 0) {
        shell_error(sh, src, line, ".import: %s: unknown extension; .import "
                    "knows .tsv .csv .txt .bin (also .gz) edge lists, .npy "
                    "and .npz arrays and OGB dataset directories; otherwise "
                    "write the statement (docs/language.md)",
                    file);
        return SHELL_ERR;
    }
    char *dflt = name ? NULL : default_name(file);
    if (!name) name = dflt;
    const char *why = NULL;
    int labels = (what == IMP_NPY || what == IMP_NPZ) &&
                 !strcmp(name, "labels");
    if (!labels && (why = not_a_name(name)))
        shell_error(sh, src, line, ".import: '%s' %s; give another: .import "
                    "FILE NAME", name, why);
    else if (into && (why = not_a_name(into)))
        shell_error(sh, src, line, ".import: INTO '%s': %s", into, why);
    if (why) {
        free(dflt);
        return SHELL_ERR;
    }
    char *sql = build_sql(sh, file, what, name, into, src, line);
    int rc = sql ? shell_exec(sh, sql, src, line, 1) : SHELL_ERR;
    free(sql);
    free(dflt);
    return rc;
}
