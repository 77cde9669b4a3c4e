/* build_gather.c — the builders of GATHER (rows of a table by index) and of
** SAMPLE's SEEDS (...) IN ORDER and SEEDS t (...). The language only; ast.h says what each
** field means to the engine. */
#include "build_int.h"

#include <stdlib.h>
#include <string.h>

void build_gather(parse_ctx *p, const gtok *kw, const gtok *table)
{
    if (p->rc) return;
    p->s->kind = AST_GATHER;
    if (table) {
        bld_set_str(p, &p->s->name, table);
    } else if (!(p->s->name = strdup("__labels"))) {
        bld_nomem(p);
        return;
    }
    p->sample_kw = *kw;
}

void build_gather_on(parse_ctx *p, const gtok *graph, const gtok *sub)
{
    if (p->rc) return;
    bld_set_str(p, &p->s->graph, graph);
    if (sub) bld_set_str(p, &p->s->node_type, sub);
}

/* ROWS (list): the ids go where SEEDS (list) puts them, build_seed_id. */
void build_rows(parse_ctx *p, const gtok *kw, const gtok *file)
{
    if (!bld_once(p, kw, CL_ROWS)) return;
    if (file) bld_set_str(p, &p->s->path, file);
}

void build_in_order(parse_ctx *p, const gtok *kw)
{
    if (!bld_once(p, kw, CL_IN_ORDER)) return;
    if (p->s->seeds_kind != AST_SEEDS_LIST) {
        bld_fail(p, GNNDB_SYNTAX, kw, "IN ORDER follows a list of seeds: "
                 "SEEDS (1, 2, 3) IN ORDER");
        return;
    }
    p->s->seeds_kind = AST_SEEDS_ORDERED;
}

void build_typed_seed_list(parse_ctx *p, const gtok *kw, const gtok *type)
{
    if (!bld_once(p, kw, CL_SEEDS)) return;
    p->s->seeds_kind = AST_SEEDS_LIST;
    bld_set_str(p, &p->s->seeds_type, type);
}

/* A GATHER needs its ROWS; IN ORDER keeps the list's order, which SHUFFLE
** would undo and a partition would cut across. */
void build_gather_finish(parse_ctx *p)
{
    if (p->rc) return;
    ast_stmt *s = p->s;
    if (s->kind == AST_GATHER && !(p->seen & (1ull << CL_ROWS)))
        bld_fail(p, GNNDB_SYNTAX, &p->sample_kw, "GATHER needs ROWS (ids) or "
                 "ROWS 'ids.npy'");
    else if (s->seeds_kind == AST_SEEDS_ORDERED && s->shuffle)
        bld_fail(p, GNNDB_SYNTAX, &p->clause_at[CL_IN_ORDER], "IN ORDER keeps "
                 "the seeds as listed; SHUFFLE cannot be given with it");
    else if (s->seeds_kind == AST_SEEDS_ORDERED && s->part_count)
        bld_fail(p, GNNDB_SYNTAX, &p->clause_at[CL_IN_ORDER], "IN ORDER "
                 "cannot be given with PARTITION; list each share's seeds");
}
