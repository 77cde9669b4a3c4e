/* build_time.c — the builders of time: IMPORT EDGE | NODE TIMES. */
#include "build_int.h"

void build_import_times(parse_ctx *p, const gtok *graph, const gtok *path,
                        int nodes)
{
    if (p->rc) return;
    p->s->kind = AST_IMPORT_TIMES;
    p->s->time_nodes = nodes;
    bld_set_str(p, &p->s->graph, graph);
    bld_set_str(p, &p->s->path, path);
}
