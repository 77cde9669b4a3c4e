/* summary.c — .summary GRAPH: a report for a person, built from the
** (property, value) rows of DESCRIBE: counts, the degree distribution drawn
** as a text histogram, feature tables, label classes, splits and the size of
** every file on disk. Properties it does not know are listed at the end. */
#include "shell.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define BAR_WIDTH 40

static const char *val(shell_props *ps, const char *key)
{
    shell_prop *p = shell_prop_find(ps, key);
    return p ? p->value : "?";
}

/* 1234567 -> "1,234,567" */
static const char *commas(int64_t v, char *b, size_t n)
{
    char d[32];
    snprintf(d, sizeof d, "%" PRId64, v < 0 ? -v : v);
    size_t len = strlen(d), k = 0;
    if (v < 0 && k + 1 < n) b[k++] = '-';
    for (size_t i = 0; i < len && k + 2 < n; i++) {
        if (i && (len - i) % 3 == 0) b[k++] = ',';
        b[k++] = d[i];
    }
    b[k] = 0;
    return b;
}

static const char *human(int64_t v, char *b, size_t n)
{
    if (v < 0) return snprintf(b, n, "missing"), b;
    if (v < 1024) return snprintf(b, n, "%" PRId64 " B", v), b;
    const char *u[] = {"KiB", "MiB", "GiB", "TiB"};
    double x = (double)v / 1024;
    int i = 0;
    while (x >= 1024 && i < 3) x /= 1024, i++;
    snprintf(b, n, "%.1f %s", x, u[i]);
    return b;
}

static void bar(FILE *f, int64_t v, int64_t max)
{
    int w = max > 0 ? (int)((double)BAR_WIDTH * (double)v / (double)max + 0.5)
                    : 0;
    if (v > 0 && w == 0) w = 1;
    for (int i = 0; i < BAR_WIDTH; i++) fputc(i < w ? '#' : ' ', f);
}

/* Rows whose key starts with `prefix`, in DESCRIBE's order, as a bar chart
** labelled with what follows the prefix. */
static void chart(FILE *f, shell_props *ps, const char *prefix,
                  const char *label)
{
    size_t pl = strlen(prefix);
    int64_t max = 0;
    int lw = 0;
    for (int i = 0; i < ps->n; i++) {
        if (strncmp(ps->p[i].key, prefix, pl)) continue;
        if (ps->p[i].num > max) max = ps->p[i].num;
        int w = (int)strlen(ps->p[i].key + pl) + (int)strlen(label);
        if (w > lw) lw = w;
    }
    for (int i = 0; i < ps->n; i++) {
        shell_prop *p = &ps->p[i];
        if (strncmp(p->key, prefix, pl)) continue;
        char name[160], b[32];
        const char *k = p->key + pl, *dash = strchr(k, '-');
        if (dash && strlen(dash + 1) == (size_t)(dash - k) &&
            !strncmp(k, dash + 1, (size_t)(dash - k)))
            snprintf(name, sizeof name, "%s%.*s", label, (int)(dash - k), k);
        else /* "2-3"; "1-1" is shown as "1" */
            snprintf(name, sizeof name, "%s%s", label, k);
        fprintf(f, "  %*s |", lw, name);
        bar(f, p->num, max);
        fprintf(f, " %s\n", commas(p->num, b, sizeof b));
        p->used = 1;
    }
}

static int has_prefix(shell_props *ps, const char *prefix)
{
    for (int i = 0; i < ps->n; i++)
        if (!strncmp(ps->p[i].key, prefix, strlen(prefix))) return 1;
    return 0;
}

static void report(FILE *f, shell_props *ps, const char *graph)
{
    char a[32], b[32];
    shell_prop *nodes = shell_prop_find(ps, "nodes");
    shell_prop *edges = shell_prop_find(ps, "edges");
    shell_prop *dir = shell_prop_find(ps, "directed");
    shell_prop_find(ps, "name");
    fprintf(f, "graph %s: %s nodes, %s edges, %s\n", graph,
            nodes ? commas(nodes->num, a, sizeof a) : "?",
            edges ? commas(edges->num, b, sizeof b) : "?",
            dir ? (dir->num ? "directed" : "undirected") : "");
    shell_prop *bs = shell_prop_find(ps, "block_size");
    fprintf(f, "  node order   %s\n", val(ps, "node_order"));
    if (bs) {
        shell_prop *gb = shell_prop_find(ps, "graph_blocks");
        fprintf(f, "  block size   %s, %s graph blocks\n",
                human(bs->num, a, sizeof a), gb ? gb->value : "?");
    }
    fprintf(f, "  source       %s\n", val(ps, "source"));

    fprintf(f, "\ndegree: min %s, median %s, mean %s, max %s\n",
            val(ps, "degree.min"), val(ps, "degree.median"),
            val(ps, "degree.mean"), val(ps, "degree.max"));
    if (has_prefix(ps, "degree.hist.")) chart(f, ps, "degree.hist.", "");

    fputs("\nfeatures:", f);
    if (!has_prefix(ps, "features.")) fputs(" none", f);
    fputc('\n', f);
    for (int i = 0; i < ps->n; i++)
        if (!strncmp(ps->p[i].key, "features.", 9)) {
            fprintf(f, "  %-12s %s\n", ps->p[i].key + 9, ps->p[i].value);
            ps->p[i].used = 1;
        }

    shell_prop *labels = shell_prop_find(ps, "labels");
    fprintf(f, "\nlabels: %s\n", labels ? labels->value : "none");
    if (has_prefix(ps, "label.class.")) chart(f, ps, "label.class.", "class ");

    fputs("\nsplits:", f);
    if (!has_prefix(ps, "split.") && !has_prefix(ps, "edge_split."))
        fputs(" none", f);
    fputc('\n', f);
    for (int i = 0; i < ps->n; i++)
        if (!strncmp(ps->p[i].key, "split.", 6)) {
            fprintf(f, "  %-12s %s seeds\n", ps->p[i].key + 6,
                    commas(ps->p[i].num, a, sizeof a));
            ps->p[i].used = 1;
        }
    for (int i = 0; i < ps->n; i++)
        if (!strncmp(ps->p[i].key, "edge_split.", 11)) {
            if (!strchr(ps->p[i].key + 11, '.'))
                fprintf(f, "  %-12s %s edges\n", ps->p[i].key + 11,
                        commas(ps->p[i].num, a, sizeof a));
            ps->p[i].used = 1;
        }

    int64_t total = 0;
    for (int i = 0; i < ps->n; i++)
        if (!strncmp(ps->p[i].key, "file.", 5) && ps->p[i].num > 0)
            total += ps->p[i].num;
    fprintf(f, "\non disk: %s\n", human(total, a, sizeof a));
    for (int i = 0; i < ps->n; i++)
        if (!strncmp(ps->p[i].key, "file.", 5)) {
            fprintf(f, "  %-24s %10s\n", ps->p[i].key + 5,
                    human(ps->p[i].num, a, sizeof a));
            ps->p[i].used = 1;
        }

    int other = 0;
    for (int i = 0; i < ps->n; i++) {
        if (ps->p[i].used) continue;
        if (!other++) fputs("\nother:\n", f);
        fprintf(f, "  %-24s %s\n", ps->p[i].key, ps->p[i].value);
    }
}

int shell_summary(shell *sh, const char *graph, const char *src, int line)
{
    if (!sh->db) {
        shell_error(sh, src, line, "no database is open; use .open NAME.gnndb");
        return -1;
    }
    shell_props ps;
    int rc = shell_describe(sh->db, graph, &ps);
    if (rc == GNNDB_DONE) {
        report(sh->out, &ps, graph);
        fflush(sh->out);
    } else {
        shell_error(sh, src, line, "%s", gnndb_errmsg(sh->db));
    }
    shell_props_free(&ps);
    return rc == GNNDB_DONE ? 0 : -1;
}
