/* build_versions.c — the builders of appends and versions: INSERT EDGES,
** INSERT NODES, INSERT ROWS, DROP VERSIONS BEFORE n ON g, COMPACT g, and
** SAMPLE's AS OF VERSION n (SHOW VERSIONS is build_simple's). */
#include "build_int.h"

#include <inttypes.h>

void build_insert_edges(parse_ctx *p, const gtok *kw, const gtok *graph,
                        const gtok *path)
{
    (void)kw;
    if (p->rc) return;
    p->s->kind = AST_INSERT_EDGES;
    bld_set_str(p, &p->s->graph, graph);
    bld_set_str(p, &p->s->path, path);
}

void build_insert_nodes(parse_ctx *p, const gtok *kw, const gtok *graph,
                        const gtok *n)
{
    int64_t v;
    if (p->rc || !bld_int64(p, n, &v)) return;
    if (v < 1) {
        char q[64];
        bld_fail(p, GNNDB_RANGE, n, "%.*s NODES: COUNT %s is out of range "
                 "(at least 1)", (int)kw->n, kw->z, tok_quote(n, q, sizeof q));
        return;
    }
    p->s->kind = AST_INSERT_NODES;
    p->s->count = v;
    bld_set_str(p, &p->s->graph, graph);
}

void build_insert_rows(parse_ctx *p, const gtok *kw, const gtok *table,
                       const gtok *graph, const gtok *path)
{
    (void)kw;
    if (p->rc) return;
    p->s->kind = AST_INSERT_ROWS;
    if (table) bld_set_str(p, &p->s->name, table);
    bld_set_str(p, &p->s->graph, graph);
    bld_set_str(p, &p->s->path, path);
}

/* A version number: at least 1; `clause` names it in the error. */
static int version_number(parse_ctx *p, const char *clause, const gtok *n,
                          int64_t *v)
{
    if (!bld_int64(p, n, v)) return 0;
    if (*v >= 1) return 1;
    char q[64];
    bld_fail(p, GNNDB_RANGE, n, "%s %s is out of range (versions count "
             "from 1)", clause, tok_quote(n, q, sizeof q));
    return 0;
}

void build_drop_versions(parse_ctx *p, const gtok *kw, const gtok *n,
                         const gtok *graph)
{
    int64_t v;
    (void)kw;
    if (p->rc || !version_number(p, "DROP VERSIONS BEFORE", n, &v)) return;
    p->s->kind = AST_DROP_VERSIONS;
    p->s->count = v;
    bld_set_str(p, &p->s->graph, graph);
}

void build_compact(parse_ctx *p, const gtok *kw, const gtok *graph)
{
    (void)kw;
    if (p->rc) return;
    p->s->kind = AST_COMPACT;
    bld_set_str(p, &p->s->graph, graph);
}

void build_as_of(parse_ctx *p, const gtok *kw, const gtok *n)
{
    int64_t v;
    if (!bld_once(p, kw, CL_AS_OF) ||
        !version_number(p, "AS OF VERSION", n, &v))
        return;
    p->s->as_of = v;
}
