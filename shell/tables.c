/* tables.c — .tables and .schema: the objects of the database, graph by
** graph (feature tables, labels, splits, packs, edge splits, edge feature
** tables, a typed graph's by relation), as a list and as the
** statements that would build them again. Both read SHOW GRAPHS and
** DESCRIBE only; what DESCRIBE does not tell (the source of a feature
** table, labels or a split, a pack's SAMPLE) is written as a comment.
** A graph's edge and node times, whose files DESCRIBE names, follow its
** CREATE GRAPH as the IMPORT ... TIMES that would give them again. */
#include "shell.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The kinds of object under a graph, by their DESCRIBE prefix. */
typedef struct kind {
    const char *prefix; /* "features." ...; "labels" is a key of its own */
    const char *title;  /* .tables */
} kind;

static const kind kinds[] = {
    {"features.", "features"},
    {"labels", "labels"},
    {"split.", "splits"},
    {"pack.", "packs"},
    {"edge_split.", "edge splits"},
    {"edge_features.", "edge features"},
    {"relation.", "edge features"},  /* relation.R.edge_features.W */
};
#define NKINDS (int)(sizeof kinds / sizeof kinds[0])
#define KIND_REL_EDGE 6

/* A relation's edge table, relation.R.edge_features.W, as "R.W" in buf;
** NULL for its other rows, and for the tables it reads from the reverse
** that shares its input edges (listed under that relation). */
static const char *rel_edge_table(const shell_prop *p, char *buf, size_t cap)
{
    const char *r = p->key + strlen("relation."), *mid = strchr(r, '.');
    const char *tail = ".edge_features.";
    if (!mid || strncmp(mid, tail, strlen(tail)) ||
        strchr(mid + strlen(tail), '.') || strstr(p->value, "imported into"))
        return NULL;
    snprintf(buf, cap, "%.*s.%s", (int)(mid - r), r, mid + strlen(tail));
    return buf;
}

/* The object's name when `p` is one of kind k, else NULL (buf: room for
** a name made of two parts). */
static const char *object_name(const kind *k, const shell_prop *p, char *buf,
                               size_t cap)
{
    size_t n = strlen(k->prefix);
    if (k->prefix[n - 1] != '.')
        return strcmp(p->key, k->prefix) ? NULL : "labels";
    if (strncmp(p->key, k->prefix, n)) return NULL;
    if (k == &kinds[KIND_REL_EDGE]) return rel_edge_table(p, buf, cap);
    /* edge_split.NAME.seed is a property of split NAME, not an object */
    return strchr(p->key + n, '.') ? NULL : p->key + n;
}

/* Whether an object is shown: every object of a graph whose name matches
** the pattern, else those whose own name matches. */
static int shown(const char *pat, int graph_matches, const char *name)
{
    return !pat || graph_matches || shell_like(pat, name);
}

static int any_shown(shell_props *ps, const char *pat, int graph_matches)
{
    for (int i = 0; i < ps->n; i++)
        for (int k = 0; k < NKINDS; k++) {
            char buf[300];
            const char *o = object_name(&kinds[k], &ps->p[i], buf,
                                        sizeof buf);
            if (o && shown(pat, graph_matches, o)) return 1;
        }
    return graph_matches;
}

/* Each graph's DESCRIBE rows go to `fn` when the graph or one of its objects
** matches `pat` (NULL: all). Returns the number of graphs handed over, or
** -1 after an error (reported). */
static int each_graph(shell *sh, const char *pat, const char *src, int line,
                      void (*fn)(shell *sh, const char *graph, shell_props *ps,
                                 const char *pat, int graph_matches))
{
    if (!sh->db) {
        shell_error(sh, src, line, "no database is open; use .open NAME.gnndb");
        return -1;
    }
    shell_names nm;
    int rc = shell_graph_names(sh->db, &nm), found = 0;
    for (int i = 0; rc == GNNDB_DONE && i < nm.n; i++) {
        shell_props ps;
        rc = shell_describe(sh->db, nm.name[i], &ps);
        int gm = !pat || shell_like(pat, nm.name[i]);
        if (rc == GNNDB_DONE && any_shown(&ps, pat, gm)) {
            fn(sh, nm.name[i], &ps, pat, gm);
            found++;
        }
        shell_props_free(&ps);
    }
    shell_names_free(&nm);
    fflush(sh->out);
    if (rc != GNNDB_DONE) {
        shell_error(sh, src, line, "%s", gnndb_errmsg(sh->db));
        return -1;
    }
    return found;
}

/* ---- .tables ------------------------------------------------------------- */

static void list_graph(shell *sh, const char *graph, shell_props *ps,
                       const char *pat, int gm)
{
    FILE *f = sh->out;
    shell_prop *n = shell_prop_find(ps, "nodes");
    shell_prop *e = shell_prop_find(ps, "edges");
    fprintf(f, "%s (%s nodes, %s edges)\n", graph, n ? n->value : "?",
            e ? e->value : "?");
    for (int k = 0; k < NKINDS; k++) {
        int cnt = 0;
        for (int i = 0; i < ps->n; i++) {
            char buf[300];
            const char *o = object_name(&kinds[k], &ps->p[i], buf,
                                        sizeof buf);
            if (!o || !shown(pat, gm, o)) continue;
            if (!cnt++) fprintf(f, "  %-9s ", kinds[k].title);
            else fputs(", ", f);
            /* labels have no name of their own: show their classes */
            fputs(k == 1 ? ps->p[i].value : o, f);
        }
        if (cnt) fputc('\n', f);
    }
}

int shell_tables(shell *sh, const char *pattern, const char *src, int line)
{
    return each_graph(sh, pattern, src, line, list_graph) < 0 ? SHELL_ERR
                                                               : SHELL_OK;
}

/* ---- .schema ------------------------------------------------------------- */

/* 'path' with quotes doubled, as the language reads strings. */
static void put_string(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

static void put_block_size(FILE *f, int64_t bs)
{
    if (bs <= 0 || bs == 1 << 20) return; /* the default */
    if (bs % (1 << 20) == 0) fprintf(f, " BLOCK SIZE %" PRId64 "MB", bs >> 20);
    else fprintf(f, " BLOCK SIZE %" PRId64 "KB", bs >> 10);
}

/* "key" of DESCRIBE row p when it reads "<pre>NAME<post>", into name. */
static int prop_part(const shell_prop *p, const char *pre, const char *post,
                     char *name, size_t cap)
{
    size_t a = strlen(pre), b = strlen(post), n = strlen(p->key);
    if (n <= a + b || strncmp(p->key, pre, a) || strcmp(p->key + n - b, post))
        return 0;
    snprintf(name, cap, "%.*s", (int)(n - a - b), p->key + a);
    return 1;
}

/* A typed graph: CREATE GRAPH, its types, then its relations (commented:
** DESCRIBE does not give their edge files). */
static void create_typed(FILE *f, const char *graph, shell_props *ps)
{
    shell_prop *n = shell_prop_find(ps, "nodes");
    shell_prop *e = shell_prop_find(ps, "edges");
    fprintf(f, "CREATE GRAPH %s;  -- %s nodes, %s edges\n", graph,
            n ? n->value : "?", e ? e->value : "?");
    char name[256], key[300];
    for (int i = 0; i < ps->n; i++)
        if (prop_part(&ps->p[i], "type.", ".count", name, sizeof name))
            fprintf(f, "CREATE NODES %s IN %s COUNT %s;\n", name, graph,
                    ps->p[i].value);
    for (int i = 0; i < ps->n; i++) {
        if (!prop_part(&ps->p[i], "relation.", ".src", name, sizeof name))
            continue;
        snprintf(key, sizeof key, "relation.%s.dst", name);
        shell_prop *dst = shell_prop_find(ps, key);
        snprintf(key, sizeof key, "relation.%s.edges", name);
        shell_prop *ne = shell_prop_find(ps, key);
        fprintf(f, "-- CREATE RELATION %s IN %s FROM %s TO %s FROM '?';  "
                "-- %s edges; source unknown\n", name, graph, ps->p[i].value,
                dst ? dst->value : "?", ne ? ne->value : "?");
    }
}

/* The INSERT EDGES that made each kept version past the first; a gap
** where versions were dropped is said in words. */
static void insert_edges(FILE *f, const char *graph, shell_props *ps)
{
    char num[32];
    int64_t prev = 1;
    for (int i = 0; i < ps->n; i++) {
        if (!prop_part(&ps->p[i], "version.", ".source", num, sizeof num))
            continue;
        int64_t v = strtoll(num, NULL, 10);
        if (v < 2) continue;
        if (v > prev + 1)
            fprintf(f, "-- versions %" PRId64 " to %" PRId64 " of %s were "
                    "dropped (DROP VERSIONS)\n", prev + 1, v - 1, graph);
        /* INSERT NODES has no file: its source says the statement */
        const char *nodes = "INSERT NODES COUNT ";
        if (!strncmp(ps->p[i].value, nodes, strlen(nodes))) {
            fprintf(f, "INSERT NODES INTO %s COUNT %s", graph,
                    ps->p[i].value + strlen(nodes));
        } else {
            fprintf(f, "INSERT EDGES INTO %s FROM ", graph);
            put_string(f, ps->p[i].value);
        }
        fprintf(f, ";  -- version %" PRId64 "\n", v);
        prev = v;
    }
}

static void create_graph(FILE *f, const char *graph, shell_props *ps)
{
    shell_prop *kind = shell_prop_find(ps, "kind");
    if (kind && !strcmp(kind->value, "typed")) {
        create_typed(f, graph, ps);
        return;
    }
    shell_prop *src = shell_prop_find(ps, "source");
    /* a graph appended to: version 1's file, then each INSERT's */
    shell_prop *kept = shell_prop_find(ps, "versions_kept");
    if (kept) src = shell_prop_find(ps, "version.1.source");
    shell_prop *dir = shell_prop_find(ps, "directed");
    shell_prop *order = shell_prop_find(ps, "node_order");
    shell_prop *bs = shell_prop_find(ps, "block_size");
    shell_prop *n = shell_prop_find(ps, "nodes");
    shell_prop *e = shell_prop_find(ps, "edges");
    int known = src && *src->value;
    fprintf(f, "%sCREATE GRAPH %s FROM ", known ? "" : "-- ", graph);
    put_string(f, known ? src->value : "?");
    if (dir && dir->num == 0) fputs(" UNDIRECTED", f);
    if (order && *order->value && strcmp(order->value, "none"))
        fprintf(f, " REORDER %s", order->value);
    put_block_size(f, bs ? bs->num : 0);
    if (kept) {   /* version 1's counts */
        n = shell_prop_find(ps, "version.1.nodes");
        e = shell_prop_find(ps, "version.1.edges");
    }
    fprintf(f, ";  -- %s nodes, %s edges%s\n", n ? n->value : "?",
            e ? e->value : "?", known ? "" : "; source unknown");
    if (kept) insert_edges(f, graph, ps);
}

/* " STORE t" when a table's "DIM x TYPE" is not of the default store. */
static void put_store(FILE *f, const char *value)
{
    const char *x = strstr(value, " x ");
    if (x && strcmp(x + 3, "float32") && strcmp(x + 3, "int64"))
        fprintf(f, " STORE %s", x + 3);
}

/* The statement that makes object `o` of kind k, commented: DESCRIBE does
** not give its source. */
static void create_object(FILE *f, const char *graph, int k, const char *o,
                          const char *value)
{
    const char *dot = strchr(o, '.');   /* a relation's table: "R.W" */
    switch (k) {
    case 0: fprintf(f, "-- IMPORT FEATURES %s INTO %s FROM '?'", o, graph);
            put_store(f, value); break;
    case 1: fprintf(f, "-- IMPORT LABELS INTO %s FROM '?'", graph); break;
    case 2: fprintf(f, "-- CREATE SPLIT %s ON %s FROM '?'", o, graph); break;
    case 3: fprintf(f, "-- SAMPLE ... FROM %s INTO PACK %s", graph, o); break;
    case 4: fprintf(f, "-- CREATE EDGE SPLIT %s ON %s FROM '?'", o, graph);
            break;
    case 5: fprintf(f, "-- IMPORT EDGE FEATURES %s INTO %s FROM '?'", o,
                    graph);
            put_store(f, value); break;
    default: fprintf(f, "-- IMPORT EDGE FEATURES %s INTO %s.%.*s FROM '?'",
                     dot ? dot + 1 : o, graph, dot ? (int)(dot - o) : 0, o);
             put_store(f, value);
    }
    fprintf(f, ";  -- %s%s; %s unknown\n", value,
            k == 2 ? " seeds" : k == 4 ? " edges" : "",
            k == 3 ? "its SAMPLE" : "source");
}

static void put_import_times(FILE *f, const char *what, const char *graph,
                             const char *path)
{
    fprintf(f, "IMPORT %s TIMES INTO %s FROM ", what, graph);
    put_string(f, path);
    fputs(";\n", f);
}

/* IMPORT EDGE TIMES and IMPORT NODE TIMES of the graph, where it has
** them; edge times read from a column of the graph's own file (CREATE
** GRAPH ... COLUMNS (src, dst, t)) are said in words, since DESCRIBE does
** not tell which column. */
/* Whether `path` is the file of some version of the graph (DESCRIBE's
** version.N.source): edge times that came with an INSERT EDGES. */
static int a_version_source(shell_props *ps, const char *path)
{
    char num[32];
    for (int i = 0; i < ps->n; i++)
        if (prop_part(&ps->p[i], "version.", ".source", num, sizeof num) &&
            !strcmp(ps->p[i].value, path))
            return 1;
    return 0;
}

static void import_times(FILE *f, const char *graph, shell_props *ps)
{
    shell_prop *src = shell_prop_find(ps, "source");
    shell_prop *et = shell_prop_find(ps, "edge_times");
    shell_prop *nt = shell_prop_find(ps, "node_times");
    if (shell_prop_find(ps, "versions_kept")) {
        src = shell_prop_find(ps, "version.1.source");
        if (et && !(src && !strcmp(et->value, src->value)) &&
            a_version_source(ps, et->value)) {
            fprintf(f, "-- the edge times of %s came with its files' time "
                    "columns (COLUMNS (src, dst, t))\n", graph);
            et = NULL;
        }
    }
    if (et && src && !strcmp(et->value, src->value)) {
        fprintf(f, "-- the edge times of %s came from a column of ", graph);
        put_string(f, src->value);
        fputs(" (CREATE GRAPH ... COLUMNS (src, dst, t))\n", f);
    } else if (et) {
        put_import_times(f, "EDGE", graph, et->value);
    }
    if (nt) put_import_times(f, "NODE", graph, nt->value);
}

static void schema_graph(shell *sh, const char *graph, shell_props *ps,
                         const char *pat, int gm)
{
    if (gm) {
        create_graph(sh->out, graph, ps);
        import_times(sh->out, graph, ps);
    }
    for (int k = 0; k < NKINDS; k++)
        for (int i = 0; i < ps->n; i++) {
            char buf[300];
            const char *o = object_name(&kinds[k], &ps->p[i], buf,
                                        sizeof buf);
            if (o && shown(pat, gm, o))
                create_object(sh->out, graph, k, o, ps->p[i].value);
        }
}

int shell_schema(shell *sh, const char *pattern, const char *src, int line)
{
    int n = each_graph(sh, pattern, src, line, schema_graph);
    if (n < 0) return SHELL_ERR;
    if (n == 0 && pattern) {
        shell_error(sh, src, line, ".schema: no graph or object matches '%s'",
                    pattern);
        return SHELL_ERR;
    }
    return SHELL_OK;
}
