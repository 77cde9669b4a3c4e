/* append_common.c — what both ways of appending (insert.c's rebuild and
** insert_delta.c's delta) share: an append's importer options, and the
** one catalog transaction that publishes a new version. */
#include "ddl.h"
#include "segmap.h"

#include <string.h>

/* The importer's options: the statement's file (none for INSERT NODES),
** the graph's own, its node count and more. */
void ddl_insert_opts(const ast_stmt *s, const cat_graph *g, int timed,
                     imp_graph_opts *o)
{
    if (s->path) {
        o->format = ddl_edge_format(s->format);
        ddl_edge_text_opts(s, &o->text);
        o->key = s->key;
    }
    o->text.with_time = timed;
    o->undirected = !g->directed;
    o->drop_duplicates = (g->build_flags & CAT_BUILD_DROP_DUPLICATES) != 0;
    o->drop_self_loops = (g->build_flags & CAT_BUILD_DROP_SELF_LOOPS) != 0;
    o->map_ids = g->has_map;
    o->nodes = g->nodes + (s->kind == AST_INSERT_NODES ? s->count : 0);
    o->reorder = IMP_REORDER_NONE;
    o->block_size = g->block_size;
}

/* The new version's rows, in one transaction: its graphs row, checksums,
** histogram, edge table and time graph. */
int ddl_version_publish(gnndb *db, const cat_graph *g, const char *source,
                        ddl_graph *d, ddl_time_graph *tg, int timed,
                        gnn_err *e)
{
    int rc = cat_begin(db->cat, e);
    if (rc) return rc;
    /* the time graph hangs off the version's row: "<g>.__v<n>.__time" */
    if (!(rc = cat_version_add(db->cat, g, &d->g, e)) &&
        !(rc = ddl_graph_insert_rest(db, d, e)) && timed)
        rc = ddl_time_graph_insert(db, &d->g, source, tg, e);
    /* a format-4 library would find a map where it reads blocks */
    if (!rc && seg_map_is_name(d->g.file))
        rc = cat_format_raise(db->cat, 5, e);
    if (!rc) rc = cat_commit(db->cat, e);
    if (rc) cat_rollback(db->cat);
    return rc;
}
