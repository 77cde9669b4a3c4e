/* ast.c — making and freeing the syntax tree of one statement. */
#include "ast.h"

#include <stdlib.h>

ast_stmt *ast_new(ast_kind kind)
{
    ast_stmt *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->kind = kind;
    s->nodes = -1;   /* NODES absent: max id + 1 */
    s->epochs = 1;
    s->limit = -1;   /* no LIMIT */
    s->epoch = -1;   /* SCAN PACK: every epoch */
    s->seeds_kind = AST_SEEDS_DEFAULT;
    return s;
}

void ast_free(ast_stmt *s)
{
    if (!s) return;
    free(s->name);
    free(s->graph);
    free(s->path);
    free(s->dtype);
    free(s->store);
    free(s->value);
    free(s->seeds_split);
    free(s->seed_ids);
    free(s->features);
    free(s->into);
    free(s->device);
    free(s->target);
    free(s->pack);
    free(s->col_name[0]);
    free(s->col_name[1]);
    free(s->col_name[2]);
    free(s->key);
    free(s->split);
    for (size_t i = 0; i < s->n_split_names; i++) free(s->split_names[i]);
    free(s->edge_seeds);
    for (size_t i = 0; i < s->n_exclude_splits; i++)
        free(s->exclude_splits[i]);
    free(s->edge_features);
    free(s->time_path);
    free(s->node_type);
    free(s->src_type);
    free(s->dst_type);
    free(s->reverse_name);
    free(s->seeds_type);
    for (int h = 0; h < AST_MAX_HOPS; h++)
        for (int r = 0; r < AST_MAX_RELS; r++) free(s->rels[h][r].rel);
    free(s);
}

int ast_is_typed(const ast_stmt *s)
{
    return s->kind == AST_CREATE_NODES || s->kind == AST_CREATE_RELATION ||
           s->kind == AST_DROP_RELATION ||
           (s->kind == AST_CREATE_GRAPH && !s->path) || s->node_type ||
           s->typed || s->seeds_type;
}
