/* insert.c — INSERT EDGES INTO g FROM 'f' and INSERT NODES INTO g COUNT k:
** the graph's next version. Most appends are written as deltas
** (insert_delta.c: the changed node ranges in a new segment, the other
** blocks kept where they lie), then compacted when the deltas pass PRAGMA
** compact_fraction (compact.c). The others (a list too long for the
** statement's memory, a file with SEG_MAX_SEGS - 1 segments) are built
** here, as CREATE GRAPH would build them from the current version's input
** edges followed by the file's (every old edge keeps its id, the new ones
** take the next ids), or with k more nodes, with the options the graph was
** created with, beside the current one. Either way the version is
** published by one catalog transaction as version n + 1. Statements
** prepared on version n keep reading it (its files stay until DROP
** VERSIONS), so a reader never sees half an append; a crash before the
** commit leaves orphans that the next writable open removes. */
#include "ddl.h"
#include "edge_table.h"
#include "grow.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The current version's input edges, as the importer takes them again. */
typedef struct prior_src {
    gnndb *db;
    const cat_graph *g;
    const int64_t *i2e;      /* internal id -> key (NULL: identity) */
    const int64_t *times;    /* per input edge (NULL: no time graph) */
    uint32_t *skip;          /* ids of dropped rows, ascending */
    size_t nskip, capskip;
    uint64_t next;           /* the next id to feed */
    imp_prior_sink *sink;
    int64_t filler[2];       /* a dropped row's stand-in */
} prior_src;

static int64_t key_of(const prior_src *p, uint32_t v)
{
    return p->i2e ? p->i2e[v] : (int64_t)v;
}

/* First pass: the ids the edge table marks dropped (its gaps). */
static int note_skips(prior_src *p, uint64_t upto)
{
    for (; p->next < upto; p->next++) {
        if (gnn_grow((void **)&p->skip, &p->capskip, p->nskip + 1,
                     sizeof *p->skip))
            return GNNDB_NOMEM;
        p->skip[p->nskip++] = (uint32_t)p->next;
    }
    return GNNDB_OK;
}

static int note_kept(void *arg, uint64_t eid, uint32_t src, uint32_t dst)
{
    prior_src *p = arg;
    (void)src;
    (void)dst;
    int rc = note_skips(p, eid);
    p->next = eid + 1;
    return rc;
}

static int64_t time_of(const prior_src *p, uint64_t eid)
{
    return p->times ? p->times[eid] : 0;
}

/* Second pass: every row in id order, a dropped one as the stand-in. */
static int feed_kept(void *arg, uint64_t eid, uint32_t src, uint32_t dst)
{
    prior_src *p = arg;
    int rc;
    for (; p->next < eid; p->next++)
        if ((rc = imp_prior_add(p->sink, p->filler[0], p->filler[1], 0)))
            return rc;
    p->next = eid + 1;
    return imp_prior_add(p->sink, key_of(p, src), key_of(p, dst),
                         time_of(p, eid));
}

static int emit_prior(void *arg, imp_prior_sink *sink, gnn_err *e)
{
    prior_src *p = arg;
    p->sink = sink;
    p->next = 0;
    int rc = edt_scan(p->db, p->g, feed_kept, p, e);
    for (; !rc && p->next < (uint64_t)p->g->input_edges; p->next++)
        rc = imp_prior_add(sink, p->filler[0], p->filler[1], 0);
    return rc;
}

/* The dropped rows, and their stand-in: any node's self loop (the rows
** are skipped wherever the importer reads them; only the key must be one
** of the graph's). */
static int find_skips(prior_src *p, gnn_err *e)
{
    p->next = 0;
    p->filler[0] = p->filler[1] = p->i2e && p->g->nodes ? p->i2e[0] : 0;
    int rc = edt_scan(p->db, p->g, note_kept, p, e);
    if (!rc) rc = note_skips(p, (uint64_t)p->g->input_edges);
    if (rc == GNNDB_NOMEM) return gnn_seterr(e, rc, "out of memory");
    return rc;
}

/* What an append (`what`: "INSERT EDGES", "INSERT NODES") cannot do to
** g, in words; GNNDB_OK when it can. */
static int check_appendable(gnndb *db, const char *what, const cat_graph *g,
                            int *timed, gnn_err *e)
{
    const char *n = g->name;
    if (g->kind != CAT_GRAPH_PLAIN)
        return gnn_seterr(e, GNNDB_MISUSE, "%s INTO %s: %s is a graph of "
                          "node types and relations; appends to a relation "
                          "are not supported yet", what, n, n);
    int rc = cat_graph_need_eids(g, what, e);
    if (rc) return rc;
    if (g->build_flags < 0)
        return gnn_seterr(e, GNNDB_MISUSE, "%s INTO %s: %s was created by a "
                          "gnndb that did not record its import options "
                          "(DROP DUPLICATES, DROP SELF LOOPS); CREATE GRAPH "
                          "it again to append to it", what, n, n);
    if (strcmp(g->node_order, "none"))
        return gnn_seterr(e, GNNDB_MISUSE, "%s INTO %s: %s was created with "
                          "REORDER %s, whose node ids depend on every edge: "
                          "an append would renumber the nodes its tables and "
                          "splits refer to", what, n, n, g->node_order);
    cat_graph tg;
    gnn_err e2 = {0};
    *timed = cat_time_graph_get(db->cat, g, &tg, &e2) == GNNDB_OK;
    return GNNDB_OK;
}

/* INSERT EDGES: and a time column exactly when g has edge times. */
static int check_target(gnndb *db, const ast_stmt *s, const cat_graph *g,
                        int *timed, gnn_err *e)
{
    const char *n = g->name;
    int rc = check_appendable(db, "INSERT EDGES", g, timed, e);
    if (rc) return rc;
    if (*timed && !s->col_time)
        return gnn_seterr(e, GNNDB_MISUSE, "INSERT EDGES INTO %s: %s has "
                          "edge times; give the new edges theirs with "
                          "COLUMNS (src, dst, t)", n, n);
    if (!*timed && s->col_time)
        return gnn_seterr(e, GNNDB_MISUSE, "INSERT EDGES INTO %s: %s has no "
                          "edge times for the time column to join (IMPORT "
                          "EDGE TIMES first)", n, n);
    return GNNDB_OK;
}

/* The current version's node keys and edge times, read into p. */
static int load_prior(gnndb *db, const cat_graph *g, int timed,
                      prior_src *p, int64_t **i2e, int64_t **times,
                      gnn_err *e)
{
    int rc = GNNDB_OK;
    if (g->has_map) {
        idx_txn *it;
        if ((rc = idx_begin(db->idx, 0, &it, e))) return rc;
        rc = idx_load_array(it, 'I', g->token, (uint64_t)g->nodes, i2e, e);
        idx_abort(it);
        if (rc) return rc;
        p->i2e = *i2e;
    }
    if (timed) {
        cat_graph tg;
        blk_file *f = NULL;
        size_t n = (size_t)g->input_edges;
        if (!(*times = calloc(n ? n : 1, sizeof **times)))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory for the times "
                              "of %zu edges", n);
        if ((rc = cat_time_graph_get(db->cat, g, &tg, e)) ||
            (rc = db_open_eid_graph(db, &tg, 0, &f, e)))
            return rc;
        rc = tc_read_times(f, *times, n, e);
        blkf_close(f);
        p->times = *times;
    }
    return rc ? rc : find_skips(p, e);
}

/* INSERT NODES: nodes without keys, and no table of a row per node that
** the new ones would lack a row of. */
static int check_nodes(gnndb *db, const cat_graph *g, int *timed, gnn_err *e)
{
    int rc = check_appendable(db, "INSERT NODES", g, timed, e);
    if (rc) return rc;
    if (g->has_map)
        return gnn_seterr(e, GNNDB_MISUSE, "INSERT NODES INTO %s: %s maps "
                          "its node ids from keys (MAP IDS), and new nodes "
                          "would have none", g->name, g->name);
    cat_table t;
    gnn_err e2 = {0};
    if (cat_table_get(db->cat, g->id, CAT_NODE_TIME_TABLE, &t, &e2) ==
        GNNDB_OK)
        return gnn_seterr(e, GNNDB_MISUSE, "INSERT NODES INTO %s: %s has "
                          "node times, a row per node, which the new nodes "
                          "would lack", g->name, g->name);
    return GNNDB_OK;
}

/* Build and publish g's next version: the current one's edges, then the
** file's (INSERT EDGES) or none, with more nodes (INSERT NODES). */
static int append(gnndb *db, const ast_stmt *s, cat_graph *g, int timed,
                  const char *what, const char *source, gnn_err *e)
{
    ddl_graph d;
    ddl_time_graph tg;
    prior_src p = {.db = db, .g = g};
    int64_t *i2e = NULL, *times = NULL;
    int taken = 0;
    /* a delta where it can be one (insert_delta.c), compacted when the
    ** deltas pass PRAGMA compact_fraction */
    int rc = ddl_insert_delta(db, s, g, timed, what, source, &taken, e);
    if (rc || taken) return rc ? rc : ddl_compact_due(db, g->name, e);
    memset(&d, 0, sizeof d);
    memset(&tg, 0, sizeof tg);
    rc = load_prior(db, g, timed, &p, &i2e, &times, e);
    if (rc) goto out;
    imp_prior prior = {.graph = g->name, .rows = (uint64_t)g->input_edges,
                       .skip = p.skip, .nskip = p.nskip, .keys = i2e,
                       .nkeys = i2e ? (size_t)g->nodes : 0,
                       .emit = emit_prior, .arg = &p};
    ddl_insert_opts(s, g, timed, &d.o);
    d.o.prior = &prior;
    d.what = what;
    /* what this statement holds beside the import: keys, times, skips */
    d.least = (i2e ? 8 * g->nodes : 0) + (times ? 8 * g->input_edges : 0) +
              4 * (int64_t)p.nskip;
    if ((rc = ddl_graph_build(db, g->name, s->path, &d, e)) ||
        (rc = ddl_graph_index(db, &d, e)) ||
        (timed && (rc = ddl_time_graph_build(db, &d.g, what, d.r.times,
                                             (size_t)d.r.input_edges, &tg,
                                             e)))) {
        ddl_time_graph_undo(db, &tg);
        ddl_graph_undo(db, &d);
        goto out;
    }
    snprintf(d.g.source, sizeof d.g.source, "%s", source);
    /* the times: the file's column and the old ones, or (INSERT NODES)
    ** the old ones alone, from where the current version's came */
    cat_graph otg;
    const char *tsource = source;
    if (timed && !s->path && !cat_time_graph_get(db->cat, g, &otg, e))
        tsource = otg.source;
    if ((rc = ddl_version_publish(db, g, tsource, &d, &tg, timed, e))) {
        ddl_time_graph_undo(db, &tg);
        ddl_graph_undo(db, &d);
        goto out;
    }
    ddl_time_graph_free(&tg);
    ddl_graph_free(&d);
out:
    free(p.skip);
    free(i2e);
    free(times);
    return rc;
}

int ddl_insert_edges(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    cat_graph g;
    int timed = 0;
    char what[CAT_NAME_MAX + 32];
    snprintf(what, sizeof what, "INSERT EDGES INTO %s", s->graph);
    if (!(rc = cat_graph_get(db->cat, s->graph, &g, e)) &&
        !(rc = check_target(db, s, &g, &timed, e)))
        rc = append(db, s, &g, timed, what, s->path, e);
    db_write_unlock(db);
    return ddl_disk_full_words(db, rc, e);
}

int ddl_insert_nodes(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    cat_graph g;
    int timed = 0;
    char what[CAT_NAME_MAX + 32], source[64];
    snprintf(what, sizeof what, "INSERT NODES INTO %s", s->graph);
    /* what .schema prints again for this version */
    snprintf(source, sizeof source, "INSERT NODES COUNT %lld",
             (long long)s->count);
    if (!(rc = cat_graph_get(db->cat, s->graph, &g, e)) &&
        !(rc = check_nodes(db, &g, &timed, e))) {
        if (g.nodes + s->count > (int64_t)UINT32_MAX - 1)
            rc = gnn_seterr(e, GNNDB_RANGE, "%s: %lld nodes and %lld more "
                            "pass the most a graph holds (2^32-2)", what,
                            (long long)g.nodes, (long long)s->count);
        else rc = append(db, s, &g, timed, what, source, e);
    }
    db_write_unlock(db);
    return ddl_disk_full_words(db, rc, e);
}
