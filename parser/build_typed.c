/* build_typed.c — the builders of heterogeneous graphs: node types,
** relations, qualified names g.t, typed fanouts {rel: f} and SEEDS t.s.
** The language only; ast.h says what each field means to the engine. */
#include "build_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void build_node_type(parse_ctx *p, const gtok *type)
{
    if (!p->rc) bld_set_str(p, &p->s->node_type, type);
}

void build_create_nodes(parse_ctx *p, const gtok *type, const gtok *graph,
                        const gtok *kw, const gtok *count)
{
    int64_t v;
    if (!bld_once(p, kw, CL_NODE_COUNT) || !bld_int64(p, count, &v)) return;
    if (v < 1) {
        bld_fail(p, GNNDB_RANGE, count, "COUNT %" PRId64 " is out of range (at "
             "least 1 node)", v);
        return;
    }
    p->s->kind = AST_CREATE_NODES;
    p->s->count = v;
    bld_set_str(p, &p->s->name, type);
    bld_set_str(p, &p->s->graph, graph);
}

static int tok_is(const gtok *t, const char *s)
{
    return s && strlen(s) == t->n && strncmp(s, t->z, t->n) == 0;
}

/* UNDIRECTED joins each edge's reverse to the relation itself, which needs
** one type at both ends; WITH REVERSE makes a second relation instead, and
** its name must differ from the relation's. */
void build_relation(parse_ctx *p, const gtok *name, const gtok *graph,
                    const gtok *src, const gtok *dst, const gtok *path)
{
    if (p->rc) return;
    ast_stmt *s = p->s;
    s->kind = AST_CREATE_RELATION;
    bld_set_str(p, &s->name, name);
    bld_set_str(p, &s->graph, graph);
    bld_set_str(p, &s->src_type, src);
    bld_set_str(p, &s->dst_type, dst);
    bld_set_str(p, &s->path, path);
    if (p->rc) return;
    char q[64];
    if (s->undirected && s->with_reverse)
        bld_fail(p, GNNDB_SYNTAX, &p->clause_at[CL_REVERSE], "UNDIRECTED and "
             "WITH REVERSE cannot be given together: UNDIRECTED adds the "
             "reverse edges to the relation itself");
    else if (s->undirected && strcmp(s->src_type, s->dst_type) != 0)
        bld_fail(p, GNNDB_SYNTAX, &p->clause_at[CL_UNDIRECTED], "UNDIRECTED "
             "needs one node type at both ends (FROM %s TO %s); give WITH "
             "REVERSE for a relation back", s->src_type, s->dst_type);
    else if (s->reverse_name && tok_is(name, s->reverse_name))
        bld_fail(p, GNNDB_SYNTAX, &p->clause_at[CL_REVERSE], "WITH REVERSE AS "
             "%s names the relation itself; give the reverse its own name",
             tok_quote(name, q, sizeof q));
}

void build_reverse(parse_ctx *p, const gtok *kw, const gtok *name)
{
    if (!bld_once(p, kw, CL_REVERSE)) return;
    p->s->with_reverse = 1;
    if (name) bld_set_str(p, &p->s->reverse_name, name);
}

/* '{' opens the next hop of a typed SAMPLE. */
void build_hop(parse_ctx *p, const gtok *lbrace)
{
    if (p->rc) return;
    if (p->s->nhops >= AST_MAX_HOPS) {
        bld_fail(p, GNNDB_RANGE, lbrace, "too many hops: at most %d relation "
             "maps", AST_MAX_HOPS);
        return;
    }
    p->s->typed = 1;
    p->s->nhops++;
}

void build_rel_fanout(parse_ctx *p, const gtok *rel, const gtok *f)
{
    if (p->rc) return;
    ast_stmt *s = p->s;
    int h = s->nhops - 1, n = s->n_rels[h];
    char q[64];
    for (int i = 0; i < n; i++)
        if (tok_is(rel, s->rels[h][i].rel)) {
            bld_fail(p, GNNDB_SYNTAX, rel, "relation %s is named twice in hop %d",
                 tok_quote(rel, q, sizeof q), h + 1);
            return;
        }
    if (n == AST_MAX_RELS) {
        bld_fail(p, GNNDB_RANGE, rel, "too many relations in hop %d: at most %d",
             h + 1, AST_MAX_RELS);
        return;
    }
    int v = bld_fanout(p, f);
    if (p->rc) return;
    bld_set_str(p, &s->rels[h][n].rel, rel);
    if (p->rc) return;
    s->rels[h][n].fanout = v;
    s->n_rels[h] = n + 1;
}

void build_empty_hop(parse_ctx *p, const gtok *rbrace)
{
    bld_fail(p, GNNDB_SYNTAX, rbrace, "hop %d samples no relation: an empty map "
         "{} is no hop; name its relations as {rel: fanout, ...}",
         p->s->nhops);
}

/* {map} * k: hops 2..k copy the first (each its own names). */
void build_hop_repeat(parse_ctx *p, const gtok *k)
{
    int64_t v;
    if (p->rc || !bld_int64(p, k, &v)) return;
    if (v < 1 || v > AST_MAX_HOPS) {
        bld_fail(p, GNNDB_RANGE, k, "* %" PRId64 " is out of range (1..%d "
             "hops)", v, AST_MAX_HOPS);
        return;
    }
    ast_stmt *s = p->s;
    for (int h = 1; h < (int)v && !p->rc; h++) {
        for (int i = 0; i < s->n_rels[0] && !p->rc; i++) {
            s->rels[h][i].rel = strdup(s->rels[0][i].rel);
            if (!s->rels[h][i].rel) bld_nomem(p);
            s->rels[h][i].fanout = s->rels[0][i].fanout;
            s->n_rels[h] = i + 1;
        }
        s->nhops = h + 1;
    }
}

void build_typed_seeds(parse_ctx *p, const gtok *kw, const gtok *type,
                       const gtok *split)
{
    if (!bld_once(p, kw, CL_SEEDS)) return;
    p->s->seeds_kind = split ? AST_SEEDS_SPLIT : AST_SEEDS_ALL;
    bld_set_str(p, &p->s->seeds_type, type);
    if (split) bld_set_str(p, &p->s->seeds_split, split);
}
