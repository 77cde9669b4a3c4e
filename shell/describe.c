/* describe.c — what the dot commands that report on the catalog (.summary,
** .tables, .schema, .import) learn through the public API: the graph names
** of SHOW GRAPHS and the (property, value) rows of DESCRIBE, collected into
** arrays; and the LIKE patterns of .tables and .schema. */
#include "shell.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static void collect(void *arg, gnndb_stmt *st)
{
    shell_props *ps = arg;
    const char *k = gnndb_column_text(st, 0), *v = gnndb_column_text(st, 1);
    if (!k) return;
    if (ps->n == ps->cap) {
        ps->cap = ps->cap ? 2 * ps->cap : 64;
        ps->p = shell_xrealloc(ps->p, sizeof *ps->p * (size_t)ps->cap);
    }
    shell_prop *p = &ps->p[ps->n++];
    p->key = shell_xstrdup(k);
    p->value = shell_xstrdup(v ? v : "");
    p->num = strtoll(p->value, NULL, 10);
    p->used = 0;
}

int shell_describe(gnndb *db, const char *graph, shell_props *ps)
{
    char sql[512];
    snprintf(sql, sizeof sql, "DESCRIBE %s;", graph);
    memset(ps, 0, sizeof *ps);
    return shell_query(db, sql, collect, ps);
}

shell_prop *shell_prop_find(shell_props *ps, const char *key)
{
    for (int i = 0; i < ps->n; i++)
        if (!strcmp(ps->p[i].key, key)) {
            ps->p[i].used = 1;
            return &ps->p[i];
        }
    return NULL;
}

void shell_props_free(shell_props *ps)
{
    for (int i = 0; i < ps->n; i++) {
        free(ps->p[i].key);
        free(ps->p[i].value);
    }
    free(ps->p);
    memset(ps, 0, sizeof *ps);
}

static void name_cb(void *arg, gnndb_stmt *st)
{
    shell_names *nm = arg;
    for (int i = 0; i < gnndb_column_count(st); i++) {
        const char *c = gnndb_column_name(st, i), *v = gnndb_column_text(st, i);
        if (!c || !v || strcmp(c, "name")) continue;
        nm->name = shell_xrealloc(nm->name,
                                  sizeof *nm->name * (size_t)(nm->n + 1));
        nm->name[nm->n++] = shell_xstrdup(v);
    }
}

int shell_graph_names(gnndb *db, shell_names *nm)
{
    memset(nm, 0, sizeof *nm);
    return shell_query(db, "SHOW GRAPHS;", name_cb, nm);
}

int shell_names_has(const shell_names *nm, const char *name)
{
    for (int i = 0; i < nm->n; i++)
        if (!strcmp(nm->name[i], name)) return 1;
    return 0;
}

void shell_names_free(shell_names *nm)
{
    for (int i = 0; i < nm->n; i++) free(nm->name[i]);
    free(nm->name);
    memset(nm, 0, sizeof *nm);
}

int shell_like(const char *pat, const char *s)
{
    for (; *pat; pat++, s++) {
        if (*pat == '%') {
            while (pat[1] == '%') pat++;
            for (;; s++) {
                if (shell_like(pat + 1, s)) return 1;
                if (!*s) return 0;
            }
        }
        if (!*s) return 0;
        if (*pat != '_' &&
            tolower((unsigned char)*pat) != tolower((unsigned char)*s))
            return 0;
    }
    return !*s;
}
