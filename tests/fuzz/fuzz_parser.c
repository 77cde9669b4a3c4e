/* fuzz_parser.c — libFuzzer target: parse_statement over any bytes, one
** statement after another to the end of the input, as gnndb_exec and the
** shell do. Each result is a statement (freed with ast_free), the end, or an
** error with a code of the parser and non-empty words; every call makes
** progress, so a caller that skips failed statements never loops. */
#include "parse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c) do { if (!(c)) abort(); } while (0)

/* Heterogeneous graphs: each hop of typed fanouts names 1..AST_MAX_RELS
** live relations once each, with fanouts in range, and no hop past nhops
** holds any; the statements of types carry what their kind needs. */
static void check_typed(const ast_stmt *s, volatile size_t *sum)
{
    CHECK(s->typed == 0 || (s->typed == 1 && s->kind == AST_SAMPLE));
    for (int h = 0; h < AST_MAX_HOPS; h++) {
        int n = s->n_rels[h];
        CHECK(n >= 0 && n <= AST_MAX_RELS);
        CHECK(s->typed && h < s->nhops ? n >= 1 : n == 0);
        for (int i = 0; i < n; i++) {
            const ast_rel_fanout *r = &s->rels[h][i];
            CHECK(r->rel && (r->fanout == -1 ||
                             (r->fanout >= 1 && r->fanout <= 1000)));
            *sum += strlen(r->rel);
            for (int j = 0; j < i; j++) CHECK(strcmp(r->rel, s->rels[h][j].rel));
        }
        for (int i = n; i < AST_MAX_RELS; i++) CHECK(!s->rels[h][i].rel);
    }
    if (s->seeds_type)
        CHECK(s->kind == AST_SAMPLE && (s->seeds_kind == AST_SEEDS_ALL ||
                                        (s->seeds_kind == AST_SEEDS_SPLIT &&
                                         s->seeds_split)));
    if (s->kind == AST_CREATE_NODES)
        CHECK(s->name && s->graph && s->count >= 1 && !s->node_type);
    else
        CHECK(s->count == 0);
    if (s->kind == AST_CREATE_RELATION) {
        CHECK(s->name && s->graph && s->src_type && s->dst_type && s->path);
        CHECK(!(s->undirected && s->with_reverse));
        CHECK(!s->undirected || !strcmp(s->src_type, s->dst_type));
        CHECK(!s->reverse_name ||
              (s->with_reverse && strcmp(s->reverse_name, s->name)));
    } else {
        CHECK(!s->src_type && !s->dst_type && !s->reverse_name &&
              !s->with_reverse);
    }
    if (s->kind == AST_DROP_RELATION) CHECK(s->name && s->graph);
    if (s->kind == AST_CREATE_GRAPH) CHECK(s->name);
    if (s->node_type)
        CHECK(s->kind == AST_IMPORT_FEATURES || s->kind == AST_IMPORT_LABELS ||
              s->kind == AST_CREATE_SPLIT || s->kind == AST_DROP_FEATURES ||
              s->kind == AST_DROP_SPLIT || s->kind == AST_DESCRIBE);
}

static void check_ast(const ast_stmt *s)
{
    CHECK(s->kind >= AST_CREATE_GRAPH && s->kind <= AST_LAST_KIND);
    CHECK(s->explain >= 0 && s->explain <= 2);
    CHECK(s->nhops >= 0 && s->nhops <= AST_MAX_HOPS);
    CHECK(s->n_seed_ids == 0 || s->seed_ids != NULL);
    volatile size_t sum = 0;
    const char *strs[] = {s->name, s->graph, s->path, s->dtype, s->store,
                          s->value, s->seeds_split, s->features, s->into,
                          s->device, s->target, s->pack, s->key, s->split,
                          s->col_name[0], s->col_name[1], s->edge_seeds,
                          s->edge_features, s->node_type, s->src_type,
                          s->dst_type, s->reverse_name, s->seeds_type};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        if (strs[i]) sum += strlen(strs[i]);   /* ASan: each a live string */
    for (size_t i = 0; i < s->n_seed_ids; i++) sum += (size_t)s->seed_ids[i];
    CHECK(s->n_split_names <= AST_MAX_EDGE_SPLITS &&
          s->n_exclude_splits <= AST_MAX_EDGE_SPLITS);
    for (size_t i = 0; i < s->n_split_names; i++)
        sum += strlen(s->split_names[i]);
    for (size_t i = 0; i < s->n_exclude_splits; i++)
        sum += strlen(s->exclude_splits[i]);
    if (s->kind == AST_CREATE_EDGE_SPLITS) {
        double f = 0.0;
        CHECK(s->n_split_names == s->n_split_fractions &&
              s->n_split_names >= 1);
        for (size_t i = 0; i < s->n_split_fractions; i++) {
            CHECK(s->split_fractions[i] > 0.0 && s->split_fractions[i] <= 1.0);
            f += s->split_fractions[i];
        }
        CHECK(f <= 1.0 + 1e-9);
    }
    if (s->negative) CHECK(s->negative >= 1 && s->negative <= AST_MAX_NEGATIVE);
    if (s->neg_strict || s->exclude_seeds || s->negative)
        CHECK(s->kind == AST_SAMPLE && s->edge_seeds);
    check_typed(s, &sum);
    for (int h = 0; !s->typed && h < s->nhops; h++)
        CHECK(s->fanouts[h] == -1 || (s->fanouts[h] >= 1 &&
                                      s->fanouts[h] <= 1000));
    if (s->kind == AST_SAMPLE) CHECK(s->nhops >= 1);
    if (s->kind == AST_PROPAGATE)
        CHECK(s->hops >= 1 && s->hops <= AST_MAX_PROP_HOPS && s->target &&
              (s->normalize == AST_NORM_SYM || s->normalize == AST_NORM_ROW));
    if (s->kind == AST_SCAN) CHECK(s->batch >= 1 && s->chunk >= 0 && s->name);
    if (s->kind == AST_IMPORT_OGB) CHECK(s->path && s->name);
    if (s->columns == AST_COLS_NAME) CHECK(s->col_name[0] && s->col_name[1]);
    (void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* an exact-size copy: reading past the text is a bug ASan reports */
    char *sql = malloc(size ? size : 1);
    CHECK(sql);
    memcpy(sql, data, size);
    size_t pos = 0;
    int line = 1;
    while (pos < size) {
        ast_stmt *s = (ast_stmt *)1;
        size_t used = (size_t)-1;
        gnn_err e = {0};
        int rc = parse_statement(sql + pos, size - pos, line, &s, &used, &e);
        CHECK(used <= size - pos);
        if (rc == GNNDB_OK) {
            if (!s) {             /* only blanks and comments remain */
                CHECK(used == size - pos);
                break;
            }
            CHECK(used > 0);
            check_ast(s);
            ast_free(s);
        } else {
            CHECK(rc == GNNDB_SYNTAX || rc == GNNDB_RANGE ||
                  rc == GNNDB_NOMEM);
            CHECK(e.rc == rc && e.msg[0] != 0);
            CHECK(memchr(e.msg, 0, sizeof e.msg) != NULL);
            CHECK(s == NULL);
            CHECK(used > 0);      /* a caller can go on after the error */
        }
        for (size_t k = pos; k < pos + used; k++) line += sql[k] == '\n';
        pos += used;
    }
    free(sql);
    return 0;
}
