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
                          s->edge_features};
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
    for (int h = 0; h < s->nhops; h++)
        CHECK(s->fanouts[h] == -1 || s->fanouts[h] >= 1);
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
