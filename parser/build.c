/* build.c — the grammar's actions: fill the statement of the parse context,
** checking ranges, duplicate clauses and option words as they come, so that
** an error names the line and column of the word at fault. */
#include "build_int.h"
#include "grammar.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* How "given twice" names each clause. */
static const char *const clause_names[CL_COUNT] = {
    [CL_FORMAT] = "FORMAT", [CL_UNDIRECTED] = "UNDIRECTED",
    [CL_DROP_DUPLICATES] = "DROP DUPLICATES",
    [CL_DROP_SELF_LOOPS] = "DROP SELF LOOPS", [CL_MAP_IDS] = "MAP IDS",
    [CL_NODES] = "NODES", [CL_REORDER] = "REORDER",
    [CL_BLOCK_SIZE] = "BLOCK SIZE", [CL_DIM] = "DIM", [CL_TYPE] = "TYPE",
    [CL_STORE] = "STORE", [CL_SEEDS] = "SEEDS", [CL_FEATURES] = "FEATURES",
    [CL_BATCH] = "BATCH", [CL_HYPERBATCH] = "HYPERBATCH",
    [CL_SHUFFLE] = "SHUFFLE", [CL_SEED] = "SEED", [CL_EPOCHS] = "EPOCHS",
    [CL_REPLACEMENT] = "WITH REPLACEMENT", [CL_LIMIT] = "LIMIT",
    [CL_INTO] = "INTO", [CL_DEVICE] = "TO DEVICE",
    [CL_PARTITION] = "PARTITION", [CL_CHUNK] = "CHUNK",
    [CL_PACK] = "INTO PACK", [CL_EPOCH] = "EPOCH",
    [CL_HEADER] = "HEADER", [CL_COLUMNS] = "COLUMNS", [CL_KEY] = "KEY",
    [CL_SPLIT] = "SPLIT", [CL_ROWS] = "ROWS", [CL_IN_ORDER] = "IN ORDER",
    [CL_REPLACE] = "REPLACE", [CL_NO_EDGE_IDS] = "WITHOUT EDGE IDS",
    [CL_EDGES] = "EDGES", [CL_NEGATIVE] = "NEGATIVE", [CL_STRICT] = "STRICT",
    [CL_EXCLUDE_SEEDS] = "EXCLUDE SEEDS", [CL_EXCLUDE_SPLIT] = "EXCLUDE SPLIT",
    [CL_EDGE_FEATURES] = "EDGE FEATURES", [CL_NODE_COUNT] = "COUNT",
    [CL_REVERSE] = "WITH REVERSE", [CL_TEMPORAL] = "TEMPORAL",
    [CL_AT] = "AT TIMES / AT NODE TIME / AT EDGE TIME",
    [CL_TIME_CMP] = "BEFORE / AT OR BEFORE", [CL_WINDOW] = "WINDOW",
    [CL_TIME_BY] = "BY NODE TIME / BY EDGE TIME", [CL_AS_OF] = "AS OF VERSION",
};

/* Record the first error, prefixed with the place of token `at`. */
void bld_fail(parse_ctx *p, int rc, const gtok *at, const char *fmt, ...)
{
    char words[GNN_ERRMSG_MAX];
    va_list ap;
    if (p->rc) return;
    va_start(ap, fmt);
    vsnprintf(words, sizeof words, fmt, ap);
    va_end(ap);
    p->rc = gnn_seterr(p->e, rc, "line %d, column %d: %s", at->line, at->col,
                       words);
}

void bld_nomem(parse_ctx *p)
{
    if (!p->rc) p->rc = gnn_seterr(p->e, GNNDB_NOMEM, "out of memory");
}

/* A malloc'd copy of a token's value: a string without its quotes and with
** '' made one quote; any other token as written. NULL when out of memory. */
static char *tok_dup(parse_ctx *p, const gtok *t)
{
    const char *z = t->z;
    size_t n = t->n;
    if (t->type == TK_STRING) {
        z++;
        n = n >= 2 ? n - 2 : 0;
    }
    char *s = malloc(n + 1), *o = s;
    if (!s) {
        bld_nomem(p);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        *o++ = z[i];
        if (t->type == TK_STRING && z[i] == '\'' && i + 1 < n) i++;
    }
    *o = 0;
    return s;
}

/* Replace *slot with the token's value. */
void bld_set_str(parse_ctx *p, char **slot, const gtok *t)
{
    char *s = tok_dup(p, t);
    if (!s) return;
    free(*slot);
    *slot = s;
}

static void lower(char *s)
{
    for (; s && *s; s++) *s = (char)tolower((unsigned char)*s);
}

/* The first time clause c comes: 1; the second: an error and 0. */
int bld_once(parse_ctx *p, const gtok *kw, int c)
{
    if (p->rc) return 0;
    if (p->seen & (1ull << c)) {
        bld_fail(p, GNNDB_SYNTAX, kw, "%s given twice", clause_names[c]);
        return 0;
    }
    p->seen |= 1ull << c;
    p->clause_at[c] = *kw;
    return 1;
}

/* An integer token's magnitude and sign; 0 and an error when it does not fit
** in 64 bits. */
static int tok_magnitude(parse_ctx *p, const gtok *t, uint64_t *mag, int *neg)
{
    size_t i = 0;
    uint64_t v = 0;
    *neg = 0;
    if (i < t->n && (t->z[i] == '+' || t->z[i] == '-')) *neg = t->z[i++] == '-';
    for (; i < t->n; i++) {
        unsigned d = (unsigned)(t->z[i] - '0');
        if (v > (UINT64_MAX - d) / 10) {
            char q[64];
            bld_fail(p, GNNDB_RANGE, t, "number too large: %s",
                 tok_quote(t, q, sizeof q));
            return 0;
        }
        v = v * 10 + d;
    }
    *mag = v;
    return 1;
}

/* An integer token as int64_t, or an error "number too large". */
int bld_int64(parse_ctx *p, const gtok *t, int64_t *out)
{
    uint64_t m;
    int neg;
    if (!tok_magnitude(p, t, &m, &neg)) return 0;
    if (m > (uint64_t)INT64_MAX + (neg ? 1u : 0u)) {
        char q[64];
        bld_fail(p, GNNDB_RANGE, t, "number too large: %s",
             tok_quote(t, q, sizeof q));
        return 0;
    }
    *out = neg ? (int64_t)(0 - m) : (int64_t)m;
    return 1;
}

/* ---- statements ------------------------------------------------------ */

void build_create_graph(parse_ctx *p, const gtok *name, const gtok *path)
{
    if (p->rc) return;
    p->s->kind = AST_CREATE_GRAPH;
    bld_set_str(p, &p->s->name, name);
    if (path) bld_set_str(p, &p->s->path, path);  /* none: an empty typed graph */
}

void build_import(parse_ctx *p, const gtok *name, const gtok *graph,
                  const gtok *path)
{
    if (p->rc) return;
    p->s->kind = name ? AST_IMPORT_FEATURES : AST_IMPORT_LABELS;
    if (name) bld_set_str(p, &p->s->name, name);
    bld_set_str(p, &p->s->graph, graph);
    bld_set_str(p, &p->s->path, path);
}

/* A RANDOM fraction: greater than 0, at most 1; 0 after an error. */
static double tok_fraction(parse_ctx *p, const gtok *t)
{
    char *text = tok_dup(p, t);
    if (!text) return 0.0;
    double f = strtod(text, NULL);
    free(text);
    if (f > 0.0 && f <= 1.0) return f;
    char q[64];
    bld_fail(p, GNNDB_RANGE, t,
         "RANDOM fraction %s is out of range (greater than 0, at most 1)",
         tok_quote(t, q, sizeof q));
    return 0.0;
}

void build_split(parse_ctx *p, const gtok *name, const gtok *graph,
                 const gtok *path, const gtok *fraction)
{
    if (p->rc) return;
    p->s->kind = AST_CREATE_SPLIT;
    bld_set_str(p, &p->s->name, name);
    bld_set_str(p, &p->s->graph, graph);
    if (path) {
        bld_set_str(p, &p->s->path, path);
        return;
    }
    p->s->split_random = 1;
    p->s->fraction = tok_fraction(p, fraction);
}

/* ---- link prediction ------------------------------------------------- */

void build_import_edge_features(parse_ctx *p, const gtok *name,
                                const gtok *graph, const gtok *path)
{
    if (p->rc) return;
    p->s->kind = AST_IMPORT_EDGE_FEATURES;
    bld_set_str(p, &p->s->name, name);
    bld_set_str(p, &p->s->graph, graph);
    bld_set_str(p, &p->s->path, path);
}

void build_edge_split(parse_ctx *p, const gtok *name, const gtok *graph,
                      const gtok *path)
{
    if (p->rc) return;
    p->s->kind = AST_CREATE_EDGE_SPLIT;
    bld_set_str(p, &p->s->name, name);
    bld_set_str(p, &p->s->graph, graph);
    bld_set_str(p, &p->s->path, path);
}

/* Names and fractions pair up, and the fractions leave no edge in two
** splits (a sum of at most 1, with room for rounding of decimals). */
void build_edge_splits(parse_ctx *p, const gtok *graph)
{
    if (p->rc) return;
    ast_stmt *s = p->s;
    s->kind = AST_CREATE_EDGE_SPLITS;
    bld_set_str(p, &s->graph, graph);
    if (s->n_split_names != s->n_split_fractions) {
        bld_fail(p, GNNDB_SYNTAX, graph, "CREATE EDGE SPLITS names %zu split%s "
             "but gives %zu fraction%s; give one fraction per split",
             s->n_split_names, s->n_split_names == 1 ? "" : "s",
             s->n_split_fractions, s->n_split_fractions == 1 ? "" : "s");
        return;
    }
    double sum = 0.0;
    for (size_t i = 0; i < s->n_split_fractions; i++)
        sum += s->split_fractions[i];
    if (sum > 1.0 + 1e-9)
        bld_fail(p, GNNDB_RANGE, graph, "CREATE EDGE SPLITS: the fractions sum "
             "to %g; they must sum to at most 1 (an edge is in one split)",
             sum);
}

void build_split_name(parse_ctx *p, const gtok *name)
{
    if (p->rc) return;
    ast_stmt *s = p->s;
    if (s->n_split_names == AST_MAX_EDGE_SPLITS) {
        bld_fail(p, GNNDB_RANGE, name, "CREATE EDGE SPLITS takes at most %d "
             "names", AST_MAX_EDGE_SPLITS);
        return;
    }
    for (size_t i = 0; i < s->n_split_names; i++)
        if (strlen(s->split_names[i]) == name->n &&
            strncmp(s->split_names[i], name->z, name->n) == 0) {
            char q[64];
            bld_fail(p, GNNDB_SYNTAX, name, "split %s is named twice",
                 tok_quote(name, q, sizeof q));
            return;
        }
    bld_set_str(p, &s->split_names[s->n_split_names], name);
    if (!p->rc) s->n_split_names++;
}

void build_split_fraction(parse_ctx *p, const gtok *f)
{
    if (p->rc) return;
    ast_stmt *s = p->s;
    if (s->n_split_fractions == AST_MAX_EDGE_SPLITS) {
        bld_fail(p, GNNDB_RANGE, f, "CREATE EDGE SPLITS takes at most %d "
             "fractions", AST_MAX_EDGE_SPLITS);
        return;
    }
    double v = tok_fraction(p, f);
    if (!p->rc) s->split_fractions[s->n_split_fractions++] = v;
}

void build_negative(parse_ctx *p, const gtok *kw, const gtok *k, int mode)
{
    int64_t v;
    if (!bld_once(p, kw, CL_NEGATIVE) || !bld_int64(p, k, &v)) return;
    if (v < 1 || v > AST_MAX_NEGATIVE) {
        bld_fail(p, GNNDB_RANGE, k, "NEGATIVE %" PRId64 " is out of range "
             "(1..%d negatives per seed edge)", v, AST_MAX_NEGATIVE);
        return;
    }
    p->s->negative = v;
    p->s->neg_mode = mode;
}

void build_exclude_split(parse_ctx *p, const gtok *name)
{
    if (p->rc) return;
    ast_stmt *s = p->s;
    if (s->n_exclude_splits == AST_MAX_EDGE_SPLITS) {
        bld_fail(p, GNNDB_RANGE, name, "EXCLUDE SPLIT takes at most %d names",
             AST_MAX_EDGE_SPLITS);
        return;
    }
    bld_set_str(p, &s->exclude_splits[s->n_exclude_splits], name);
    if (!p->rc) s->n_exclude_splits++;
}

void build_simple(parse_ctx *p, ast_kind kind, const gtok *name,
                  const gtok *graph)
{
    if (p->rc) return;
    p->s->kind = kind;
    if (name) bld_set_str(p, &p->s->name, name);
    if (graph) bld_set_str(p, &p->s->graph, graph);
}

void build_pragma(parse_ctx *p, const gtok *name)
{
    if (p->rc) return;
    p->s->kind = AST_PRAGMA;
    if (name) {
        bld_set_str(p, &p->s->name, name);
        lower(p->s->name);  /* pragma names are case-insensitive */
    }
}

void build_pragma_value(parse_ctx *p, const gtok *v, const gtok *unit)
{
    if (p->rc) return;
    char *s = tok_dup(p, v);
    if (!s || !unit) {
        if (s) { free(p->s->value); p->s->value = s; }
        return;
    }
    /* 2GB: the number and its unit as one word, as a quoted '2GB' reads */
    size_t n = strlen(s);
    char *t = realloc(s, n + unit->n + 1);
    if (!t) {
        free(s);
        bld_nomem(p);
        return;
    }
    memcpy(t + n, unit->z, unit->n);
    t[n + unit->n] = 0;
    free(p->s->value);
    p->s->value = t;
}

void build_explain(parse_ctx *p, int mode)
{
    if (!p->rc) p->s->explain = mode;
}

void build_sample(parse_ctx *p, const gtok *kw, const gtok *graph)
{
    if (p->rc) return;
    p->s->kind = AST_SAMPLE;
    bld_set_str(p, &p->s->graph, graph);
    p->sample_kw = *kw;
}

/* The clauses of an edge-seeded SAMPLE need its EDGES clause, and it
** excludes node seeds. */
static void finish_link_clauses(parse_ctx *p)
{
    static const int need_edges[] = {CL_NEGATIVE, CL_STRICT,
                                     CL_EXCLUDE_SEEDS};
    if (p->seen & (1ull << CL_EDGES)) {
        if (p->seen & (1ull << CL_SEEDS))
            bld_fail(p, GNNDB_SYNTAX, &p->sample_kw, "SAMPLE takes SEEDS (nodes) "
                 "or EDGES (edges) as its seeds, not both");
        else if ((p->seen & (1ull << CL_STRICT)) && !p->s->negative)
            bld_fail(p, GNNDB_SYNTAX, &p->sample_kw, "STRICT applies to "
                 "negatives: give NEGATIVE k with it");
        return;
    }
    for (size_t i = 0; i < sizeof need_edges / sizeof need_edges[0]; i++)
        if (p->seen & (1ull << need_edges[i])) {
            bld_fail(p, GNNDB_SYNTAX, &p->sample_kw, "%s needs edge seeds "
                 "(EDGES split); this SAMPLE is seeded by nodes",
                 clause_names[need_edges[i]]);
            return;
        }
}

/* Checks of the whole statement, once the grammar accepted it: the parser
** reduces before it sees a bad token, so a reduction is too early for them. */
void build_finish(parse_ctx *p)
{
    if (p->rc) return;
    if (p->s->kind == AST_SAMPLE && !(p->seen & (1ull << CL_BATCH)))
        bld_fail(p, GNNDB_SYNTAX, &p->sample_kw, "SAMPLE needs a BATCH clause");
    else if (p->s->kind == AST_SCAN && !(p->seen & (1ull << CL_BATCH)))
        bld_fail(p, GNNDB_SYNTAX, &p->sample_kw, "SCAN needs a BATCH clause");
    else if (p->s->kind == AST_SAMPLE && p->s->pack && p->s->into)
        bld_fail(p, GNNDB_SYNTAX, &p->sample_kw,
             "INTO PACK and INTO 'dir' cannot be given together");
    else if (p->s->kind == AST_SAMPLE && p->s->pack && p->s->device)
        bld_fail(p, GNNDB_SYNTAX, &p->sample_kw,
             "INTO PACK stores batches in the database; TO DEVICE belongs "
             "to SCAN PACK");
    else if (p->s->kind == AST_SAMPLE)
        finish_link_clauses(p);
}

/* ---- importers' options ----------------------------------------------- */

void build_ogb(parse_ctx *p, const gtok *dir, const gtok *name)
{
    if (p->rc) return;
    p->s->kind = AST_IMPORT_OGB;
    bld_set_str(p, &p->s->path, dir);
    bld_set_str(p, &p->s->name, name);
}

/* COLUMNS (a, b[, t]): all positions or all names (build.h). */
void build_columns(parse_ctx *p, const gtok *kw, const gtok *a,
                   const gtok *b, const gtok *t)
{
    if (!bld_once(p, kw, CL_COLUMNS)) return;
    const gtok *c[3] = {a, b, t};
    int n = t ? 3 : 2;
    ast_stmt *s = p->s;
    for (int w = 1; w < n; w++)
        if ((a->type == TK_INTEGER) != (c[w]->type == TK_INTEGER)) {
            bld_fail(p, GNNDB_SYNTAX, c[w], "COLUMNS takes %s positions or "
                     "%s names, not %s of each", t ? "three" : "two",
                     t ? "three" : "two", t ? "some" : "one");
            return;
        }
    for (int w = 0; w < n && !p->rc; w++) {
        if (a->type != TK_INTEGER) {
            bld_set_str(p, &s->col_name[w], c[w]);
            if (s->col_name[w] && (!s->col_name[w][0] ||
                                   strlen(s->col_name[w]) >= 64))
                bld_fail(p, GNNDB_RANGE, c[w], "a column name must have 1 to 63 "
                     "characters");
        } else if (bld_int64(p, c[w], &s->col_pos[w]) &&
                   (s->col_pos[w] < 0 || s->col_pos[w] > 1000)) {
            bld_fail(p, GNNDB_RANGE, c[w], "column %" PRId64 " is out of range "
                 "(0..1000, counted from 0)", s->col_pos[w]);
        }
    }
    s->columns = a->type == TK_INTEGER ? AST_COLS_POS : AST_COLS_NAME;
    s->col_time = t != NULL;
}

/* ---- packs ----------------------------------------------------------- */

void build_scan_pack(parse_ctx *p, const gtok *kw, const gtok *name)
{
    if (p->rc) return;
    p->s->kind = AST_SCAN_PACK;
    bld_set_str(p, &p->s->name, name);
    p->sample_kw = *kw;
}

/* A fanout token: 1..1000, or -1 for every neighbour; 0 after an error. */
int bld_fanout(parse_ctx *p, const gtok *f)
{
    int64_t v;
    if (!bld_int64(p, f, &v)) return 0;
    if (v == -1 || (v >= 1 && v <= 1000)) return (int)v;
    bld_fail(p, GNNDB_RANGE, f, "fanout %" PRId64 " is out of range "
         "(1..1000, or -1 for all neighbours)", v);
    return 0;
}

void build_fanout(parse_ctx *p, const gtok *f)
{
    if (p->rc) return;
    if (p->s->nhops >= AST_MAX_HOPS) {
        int64_t v;  /* a number too large is named first, as before */
        if (bld_int64(p, f, &v))
            bld_fail(p, GNNDB_RANGE, f, "too many hops: at most %d fanouts",
                 AST_MAX_HOPS);
        return;
    }
    int v = bld_fanout(p, f);
    if (!p->rc) p->s->fanouts[p->s->nhops++] = v;
}

void build_seeds(parse_ctx *p, const gtok *kw, int kind, const gtok *split)
{
    if (!bld_once(p, kw, CL_SEEDS)) return;
    p->s->seeds_kind = kind;
    if (split) bld_set_str(p, &p->s->seeds_split, split);
}

void build_seed_id(parse_ctx *p, const gtok *x)
{
    int64_t v;
    if (p->rc || !bld_int64(p, x, &v)) return;
    ast_stmt *s = p->s;
    if (s->n_seed_ids == p->seed_cap) {
        size_t cap = p->seed_cap ? p->seed_cap * 2 : 16;
        int64_t *ids = realloc(s->seed_ids, cap * sizeof *ids);
        if (!ids) {
            bld_nomem(p);
            return;
        }
        s->seed_ids = ids;
        p->seed_cap = cap;
    }
    s->seed_ids[s->n_seed_ids++] = v;
}

/* ---- options and clauses --------------------------------------------- */

void build_flag(parse_ctx *p, const gtok *kw, int clause)
{
    if (!bld_once(p, kw, clause)) return;
    ast_stmt *s = p->s;
    switch (clause) {
    case CL_UNDIRECTED: s->undirected = 1; break;
    case CL_DROP_DUPLICATES: s->drop_duplicates = 1; break;
    case CL_DROP_SELF_LOOPS: s->drop_self_loops = 1; break;
    case CL_MAP_IDS: s->map_ids = 1; break;
    case CL_SHUFFLE: s->shuffle = 1; break;
    case CL_REPLACEMENT: s->replace = 1; break;
    case CL_REPLACE: s->replace_table = 1; break;
    case CL_HEADER: s->header = 1; break;
    case CL_NO_EDGE_IDS: s->no_edge_ids = 1; break;
    case CL_STRICT: s->neg_strict = 1; break;
    case CL_EXCLUDE_SEEDS: s->exclude_seeds = 1; break;
    default: break;
    }
}

void build_int(parse_ctx *p, const gtok *kw, int clause, const gtok *n)
{
    int64_t v;
    if (!bld_once(p, kw, clause) || !bld_int64(p, n, &v)) return;
    int64_t min = clause == CL_LIMIT || clause == CL_EPOCH ? 0 : 1;
    if (v < min) {
        bld_fail(p, GNNDB_RANGE, n, "%s %" PRId64 " is out of range (at least %"
             PRId64 ")", clause_names[clause], v, min);
        return;
    }
    ast_stmt *s = p->s;
    switch (clause) {
    case CL_NODES: s->nodes = v; break;
    case CL_DIM: s->dim = v; break;
    case CL_BATCH: s->batch = v; break;
    case CL_HYPERBATCH: s->hyperbatch = v; break;
    case CL_EPOCHS: s->epochs = v; break;
    case CL_LIMIT: s->limit = v; break;
    case CL_CHUNK: s->chunk = v; break;
    case CL_EPOCH: s->epoch = v; break;
    default: break;
    }
}

void build_partition(parse_ctx *p, const gtok *kw, const gtok *rank,
                     const gtok *count)
{
    int64_t k, n;
    if (!bld_once(p, kw, CL_PARTITION) || !bld_int64(p, rank, &k) ||
        !bld_int64(p, count, &n))
        return;
    if (n < 1 || n > 1000000) {
        bld_fail(p, GNNDB_RANGE, count, "PARTITION count %" PRId64 " is out of "
             "range (1..1000000)", n);
        return;
    }
    if (k < 0 || k >= n) {
        bld_fail(p, GNNDB_RANGE, rank, "PARTITION %" PRId64 " OF %" PRId64
             ": the rank must be 0..%" PRId64, k, n, n - 1);
        return;
    }
    p->s->part_rank = k;
    p->s->part_count = n;
}

/* SEED takes any 64-bit value: 0..2^64-1, or a negative number read as its
** two's complement (so that a seed printed as int64 can be given back). */
void build_seed(parse_ctx *p, const gtok *kw, const gtok *n)
{
    uint64_t m;
    int neg;
    if (!bld_once(p, kw, CL_SEED) || !tok_magnitude(p, n, &m, &neg)) return;
    if (neg && m > (uint64_t)INT64_MAX + 1u) {
        char q[64];
        bld_fail(p, GNNDB_RANGE, n, "number too large: %s",
             tok_quote(n, q, sizeof q));
        return;
    }
    p->s->has_seed = 1;
    p->s->seed = neg ? 0 - m : m;
}

void build_name(parse_ctx *p, const gtok *kw, int clause, const gtok *v)
{
    if (!bld_once(p, kw, clause)) return;
    char **slot = clause == CL_FEATURES ? &p->s->features
                : clause == CL_INTO     ? &p->s->into
                : clause == CL_PACK     ? &p->s->pack
                : clause == CL_KEY      ? &p->s->key
                : clause == CL_SPLIT    ? &p->s->split
                : clause == CL_EDGES    ? &p->s->edge_seeds
                : clause == CL_EDGE_FEATURES ? &p->s->edge_features
                                        : &p->s->device;
    bld_set_str(p, slot, v);
}

/* Index of word `v` (case-insensitive) in the NULL-terminated `words`, or
** -1 after an error naming them. */
static int pick_word(parse_ctx *p, const gtok *kw, const gtok *v,
                     const char *what, const char *const *words)
{
    for (int i = 0; words[i]; i++)
        if (strlen(words[i]) == v->n && strncasecmp(words[i], v->z, v->n) == 0)
            return i;
    char q[64], list[128] = "";
    size_t o = 0;
    for (int i = 0; words[i]; i++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s%s",
                              i == 0 ? "" : words[i + 1] ? ", " : " or ",
                              words[i]);
    bld_fail(p, GNNDB_SYNTAX, v, "unknown %s %s; expected %s", what,
         tok_quote(v, q, sizeof q), list);
    (void)kw;
    return -1;
}

void build_format(parse_ctx *p, const gtok *kw, const gtok *v, int features)
{
    static const char *const graph_words[] = {"tsv", "csv", "bin", NULL};
    static const int graph_fmts[] = {AST_FMT_TSV, AST_FMT_CSV, AST_FMT_BIN};
    static const char *const feat_words[] = {"npy", "csv", "bin", NULL};
    static const int feat_fmts[] = {AST_FMT_NPY, AST_FMT_CSV, AST_FMT_BIN};
    if (!bld_once(p, kw, CL_FORMAT)) return;
    int i = pick_word(p, kw, v, "FORMAT", features ? feat_words : graph_words);
    if (i >= 0) p->s->format = features ? feat_fmts[i] : graph_fmts[i];
}

void build_reorder(parse_ctx *p, const gtok *kw, const gtok *v)
{
    static const char *const words[] = {"none", "degree", "bfs", NULL};
    static const int orders[] = {AST_REORDER_NONE, AST_REORDER_DEGREE,
                                 AST_REORDER_BFS};
    if (!bld_once(p, kw, CL_REORDER)) return;
    int i = pick_word(p, kw, v, "REORDER", words);
    if (i >= 0) p->s->reorder = orders[i];
}

void build_dtype(parse_ctx *p, const gtok *kw, int clause, const gtok *v)
{
    static const char *const types[] = {"float32", "float64", "int64", NULL};
    static const char *const stores[] = {"float32", "float16", "int8", NULL};
    if (!bld_once(p, kw, clause)) return;
    const char *const *words = clause == CL_TYPE ? types : stores;
    int i = pick_word(p, kw, v, clause_names[clause], words);
    if (i < 0) return;
    char *s = strdup(words[i]);
    if (!s) {
        bld_nomem(p);
        return;
    }
    char **slot = clause == CL_TYPE ? &p->s->dtype : &p->s->store;
    free(*slot);
    *slot = s;
}

/* Bytes per unit word (case-insensitive), or 0 when unknown. */
static int64_t unit_bytes(const char *z, size_t n)
{
    static const struct { const char *w; int64_t b; } units[] = {
        {"B", 1}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30},
        {"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i].w) == n && strncasecmp(units[i].w, z, n) == 0)
            return units[i].b;
    return 0;
}

void build_block_size(parse_ctx *p, const gtok *kw, const gtok *n,
                      const gtok *unit)
{
    const int64_t lo = 4 << 10, hi = 16 << 20;
    int64_t v, mult = 1;
    char q[64];
    if (!bld_once(p, kw, CL_BLOCK_SIZE)) return;
    if (n->type == TK_STRING) {
        /* '64KB': digits, optional spaces, optional unit */
        gtok num = *n, u = *n;
        size_t i = 1, end = n->n - 1;
        while (i < end && n->z[i] == ' ') i++;
        num.z = n->z + i;
        while (i < end && isdigit((unsigned char)n->z[i])) i++;
        num.n = (size_t)(n->z + i - num.z);
        num.type = TK_INTEGER;
        while (i < end && n->z[i] == ' ') i++;
        u.z = n->z + i;
        u.n = end - i;
        while (u.n > 0 && u.z[u.n - 1] == ' ') u.n--;
        if (num.n == 0 || (u.n > 0 && !(mult = unit_bytes(u.z, u.n)))) {
            bld_fail(p, GNNDB_SYNTAX, n, "BLOCK SIZE %s is not a size such as "
                 "'64KB' or '1MB'", tok_quote(n, q, sizeof q));
            return;
        }
        if (!bld_int64(p, &num, &v)) return;
    } else {
        if (!bld_int64(p, n, &v)) return;
        if (unit && !(mult = unit_bytes(unit->z, unit->n))) {
            bld_fail(p, GNNDB_SYNTAX, unit, "unknown size unit %s; expected KB "
                 "or MB", tok_quote(unit, q, sizeof q));
            return;
        }
    }
    /* v <= hi keeps v * mult within int64 */
    int64_t bytes = v >= 0 && v <= hi ? v * mult : -1;
    if (bytes < lo || bytes > hi || (bytes & (bytes - 1))) {
        char text[96];
        if (n->type == TK_STRING) tok_quote(n, text, sizeof text);
        else snprintf(text, sizeof text, "%" PRId64 "%.*s", v,
                      unit ? (int)GNN_MIN(unit->n, 8) : 0, unit ? unit->z : "");
        bld_fail(p, GNNDB_RANGE, n, "BLOCK SIZE %s is out of range (a power of "
             "two from 4KB to 16MB)", text);
        return;
    }
    p->s->block_size = bytes;
}

/* ---- PROPAGATE and SCAN ---------------------------------------------- */

void build_propagate(parse_ctx *p, const gtok *kw, const gtok *feat,
                     const gtok *graph, const gtok *hops, const gtok *out)
{
    int64_t k;
    (void)kw;
    if (p->rc || !bld_int64(p, hops, &k)) return;
    if (k < 1 || k > AST_MAX_PROP_HOPS) {
        bld_fail(p, GNNDB_RANGE, hops, "HOPS %" PRId64 " is out of range (1..%d)",
             k, AST_MAX_PROP_HOPS);
        return;
    }
    p->s->kind = AST_PROPAGATE;
    p->s->hops = k;
    bld_set_str(p, &p->s->name, feat);
    bld_set_str(p, &p->s->graph, graph);
    bld_set_str(p, &p->s->target, out);
}

void build_normalize(parse_ctx *p, const gtok *kw, const gtok *v)
{
    static const char *const words[] = {"sym", "row", NULL};
    static const int norms[] = {AST_NORM_SYM, AST_NORM_ROW};
    if (p->rc) return;
    int i = pick_word(p, kw, v, "NORMALIZE", words);
    if (i >= 0) p->s->normalize = norms[i];
}

void build_scan(parse_ctx *p, const gtok *kw, const gtok *table)
{
    if (p->rc) return;
    p->s->kind = AST_SCAN;
    bld_set_str(p, &p->s->name, table);
    p->sample_kw = *kw;
}

void build_scan_graph(parse_ctx *p, const gtok *graph)
{
    if (!p->rc) bld_set_str(p, &p->s->graph, graph);
}

/* ---- errors from the parser ------------------------------------------ */

void build_syntax_error(parse_ctx *p, int major, const gtok *t,
                        const unsigned char *ok, int ntokens)
{
    if (p->rc) return;
    char exp[768] = "", found[64];
    size_t o = 0;
    int count = 0;
    for (int i = 0; i < ntokens; i++) count += ok[i] != 0;
    /* terminals in declaration order, the end of the statement last */
    for (int k = 1, seen = 0; k <= ntokens && o < sizeof exp - 64; k++) {
        int i = k % ntokens;
        if (!ok[i]) continue;
        seen++;
        o += (size_t)snprintf(exp + o, sizeof exp - o, "%s%s",
                              seen == 1 ? (count > 1 ? "; expected one of "
                                                     : "; expected ")
                                        : ", ",
                              tok_expected_name(i));
    }
    if (o >= sizeof exp - 64) snprintf(exp + o, sizeof exp - o, ", ...");
    if (major == 0 && p->at_eof)
        p->rc = gnn_seterr(p->e, GNNDB_SYNTAX,
                           "line %d, column %d: incomplete statement%s",
                           t->line, t->col, exp);
    else
        p->rc = gnn_seterr(p->e, GNNDB_SYNTAX,
                           "near line %d, column %d: syntax error at %s%s",
                           t->line, t->col, tok_quote(t, found, sizeof found),
                           exp);
}

void build_too_complex(parse_ctx *p)
{
    if (!p->rc)
        p->rc = gnn_seterr(p->e, GNNDB_SYNTAX, "statement too complex");
}
