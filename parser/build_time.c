/* build_time.c — the builders of time: IMPORT EDGE | NODE TIMES, and the
** clauses of a time-respecting SAMPLE (AT TIMES 'f' | AT NODE TIME | AT
** EDGE TIME, TEMPORAL UNIFORM | LAST, BEFORE | AT OR BEFORE, WINDOW w),
** with the checks that need the whole statement. */
#include "build_int.h"

#include <inttypes.h>

void build_import_times(parse_ctx *p, const gtok *graph, const gtok *path,
                        int nodes)
{
    if (p->rc) return;
    p->s->kind = AST_IMPORT_TIMES;
    p->s->time_nodes = nodes;
    bld_set_str(p, &p->s->graph, graph);
    bld_set_str(p, &p->s->path, path);
}

void build_at_times(parse_ctx *p, const gtok *kw, const gtok *file)
{
    if (!bld_once(p, kw, CL_AT)) return;
    p->s->time_source = file ? AST_TIME_FILE : AST_TIME_NODE;
    if (file) bld_set_str(p, &p->s->time_path, file);
}

void build_at_edge_time(parse_ctx *p, const gtok *kw)
{
    if (bld_once(p, kw, CL_AT)) p->s->time_source = AST_TIME_EDGE;
}

void build_temporal(parse_ctx *p, const gtok *kw, int strategy)
{
    if (bld_once(p, kw, CL_TEMPORAL)) p->s->temporal = strategy;
}

void build_time_cmp(parse_ctx *p, const gtok *kw, int strict)
{
    if (bld_once(p, kw, CL_TIME_CMP)) p->s->time_strict = strict;
}

void build_window(parse_ctx *p, const gtok *kw, const gtok *w)
{
    int64_t v;
    if (!bld_once(p, kw, CL_WINDOW) || !bld_int64(p, w, &v)) return;
    if (v < 1) {
        bld_fail(p, GNNDB_RANGE, w, "WINDOW %" PRId64 " is out of range (at "
                 "least 1, in the unit of the graph's times)", v);
        return;
    }
    p->s->time_window = v;
}

void build_time_by(parse_ctx *p, const gtok *kw, int node)
{
    if (bld_once(p, kw, CL_TIME_BY)) p->s->time_by_node = node;
}

/* TEMPORAL, BEFORE, WINDOW and BY need a time to compare with. Seed edges
** take their own (AT EDGE TIME) or a file's, one per seed edge (AT TIMES):
** a seed edge has no node time of its own to take; nodes a file's or
** their node times. A temporal SAMPLE is of a plain graph for now. */
void build_time_finish(parse_ctx *p)
{
    static const int needs_at[] = {CL_TEMPORAL, CL_TIME_CMP, CL_WINDOW,
                                   CL_TIME_BY};
    ast_stmt *s = p->s;
    if (p->rc || s->kind != AST_SAMPLE) return;
    if (!s->time_source) {
        for (size_t i = 0; i < sizeof needs_at / sizeof *needs_at; i++) {
            int c = needs_at[i];
            if (p->seen & (1ull << c)) {
                bld_fail(p, GNNDB_SYNTAX, &p->clause_at[c], "this clause "
                         "compares edge times with each seed's time: give "
                         "AT TIMES 'file', AT NODE TIME or AT EDGE TIME "
                         "too");
                return;
            }
        }
        return;
    }
    const gtok *at = &p->clause_at[CL_AT];
    if (s->edge_seeds && s->time_source == AST_TIME_NODE)
        bld_fail(p, GNNDB_SYNTAX, at, "with EDGES seeds the time of each "
                 "tree is its seed edge's: write AT EDGE TIME (each seed "
                 "edge's own) or AT TIMES 'file' (one per seed edge)");
    else if (!s->edge_seeds && s->time_source == AST_TIME_EDGE)
        bld_fail(p, GNNDB_SYNTAX, at, "AT EDGE TIME takes each seed edge's "
                 "time: it needs EDGES split (seed by nodes with AT TIMES "
                 "'file' or AT NODE TIME)");
    else if (s->typed || s->seeds_type)
        bld_fail(p, GNNDB_SYNTAX, at, "a time-respecting SAMPLE of a typed "
                 "graph is not available yet");
}
