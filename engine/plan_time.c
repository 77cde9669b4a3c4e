/* plan_time.c — the time clauses of a SAMPLE: AT TIMES 'f' | AT NODE TIME |
** AT EDGE TIME, TEMPORAL UNIFORM | LAST, BEFORE | AT OR BEFORE, WINDOW w,
** BY EDGE | NODE TIME. The hops read the graph's time graph (IMPORT EDGE
** TIMES), or BY NODE TIME its own lists, and carry edge ids; the seeds'
** times are read here, so that a wrong count is refused at prepare.
** Under PRAGMA read_granularity = 'page' the hops read the time graph's
** blocks whole (through the pool), the gather its rows in pages. */
#include "plan.h"
#include "timecol.h"

#include <stdlib.h>
#include <string.h>

static int cmp_pair(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* SEEDS (...) AT TIMES: the executor loads the listed ids sorted (IN
** ORDER: as listed); the times follow their ids there. A repeated id
** would have two times. */
static int list_times(const ast_stmt *s, plan *p, gnn_err *e)
{
    if (s->seeds_kind == AST_SEEDS_ORDERED) return GNNDB_OK;
    size_t n = p->n_seed_times;
    int64_t *pr = malloc((2 * n + 1) * sizeof *pr);
    if (!pr) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        pr[2 * i] = s->seed_ids[i];
        pr[2 * i + 1] = p->seed_times[i];
    }
    qsort(pr, n, 2 * sizeof *pr, cmp_pair);
    int rc = GNNDB_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        if (i && pr[2 * i] == pr[2 * i - 2])
            rc = gnn_seterr(e, GNNDB_RANGE, "AT TIMES: node %lld is listed "
                            "twice in SEEDS (...), and each seed has one "
                            "time", (long long)pr[2 * i]);
        p->seed_times[i] = pr[2 * i + 1];
    }
    free(pr);
    return rc;
}

/* The words for a count of AT TIMES that is not one per seed. */
static int wrong_count(const ast_stmt *s, const plan *p, size_t n,
                       gnn_err *e)
{
    if (p->link)
        return gnn_seterr(e, GNNDB_RANGE, "AT TIMES '%s': %zu times for "
                          "%lld seed edges of edge split %s; give one time "
                          "per seed edge, in the order of its edge ids "
                          "(ascending)", s->time_path, n,
                          (long long)p->nseeds, p->edge_split.name);
    return gnn_seterr(e, GNNDB_RANGE, "AT TIMES '%s': %zu times for %lld "
                      "seeds; give one time per seed, in the order of "
                      "the seeds (a split's ascending, SEEDS (...) as "
                      "written)", s->time_path, n, (long long)p->nseeds);
}

/* AT TIMES: the file read now, so that a wrong count is refused at
** prepare. Seed edges are input edge ids whatever MAP IDS or REORDER did
** to the nodes, so only node seeds need the graph's own order. */
static int seed_times(const ast_stmt *s, plan *p, gnn_err *e)
{
    const cat_graph *g = &p->graph;
    if (!p->link && (g->has_map || strcmp(g->node_order, "none") != 0))
        return gnn_seterr(e, GNNDB_MISUSE, "AT TIMES on graph %s, created "
                          "with MAP IDS or REORDER, is not available yet: "
                          "its seeds are not in the order of their ids; use "
                          "AT NODE TIME", g->name);
    size_t n = 0;
    int rc = tc_read_file(s->time_path, "seed times", -1, &p->seed_times, &n,
                          e);
    if (rc) return rc;
    p->n_seed_times = n;
    if ((int64_t)n != p->nseeds) return wrong_count(s, p, n, e);
    return s->seeds_kind == AST_SEEDS_LIST ||
           s->seeds_kind == AST_SEEDS_ORDERED ? list_times(s, p, e)
                                              : GNNDB_OK;
}

/* The graph's node times table into p->node_times: *found 1, else 0. */
static int find_node_times(gnndb *db, plan *p, int *found, gnn_err *e)
{
    cat_table *ts = NULL;
    size_t nt = 0;
    *found = 0;
    if (cat_table_list(db->cat, p->graph.id, &ts, &nt, e)) return e->rc;
    for (size_t i = 0; i < nt; i++)
        if (ts[i].kind == CAT_TABLE_NODE_TIMES) {
            p->node_times = ts[i];
            *found = 1;
        }
    free(ts);
    return GNNDB_OK;
}

/* The words for `clause` on a graph without node times. */
static int no_node_times(const plan *p, const char *clause, gnn_err *e)
{
    return gnn_seterr(e, GNNDB_NOTFOUND, "%s: graph %s has no node times: "
                      "IMPORT NODE TIMES INTO %s FROM 'f' first", clause,
                      p->graph.name, p->graph.name);
}

/* The topology the hops read: the time graph, or BY NODE TIME the graph's
** own lists (its sources' node times judge them), with the time graph
** beside it for AT EDGE TIME's seed edges, whose times only it holds. */
static int time_topology(gnndb *db, const ast_stmt *s, plan *p, int has_nt,
                         gnn_err *e)
{
    const char *what = "a time-respecting SAMPLE";
    cat_graph tg;
    int rc;
    if (!s->time_by_node)
        return (rc = cat_time_graph_get(db->cat, &p->graph, &tg, e)) ? rc
               : cat_graph_eid_view(&tg, what, &p->topo, e);
    if (!has_nt) return no_node_times(p, "BY NODE TIME", e);
    if ((rc = cat_graph_eid_view(&p->graph, what, &p->topo, e))) return rc;
    if (s->time_source != AST_TIME_EDGE) return GNNDB_OK;
    p->seed_edge_times = 1;
    return (rc = cat_time_graph_get(db->cat, &p->graph, &tg, e)) ? rc
           : cat_graph_eid_view(&tg, what, &p->time_graph, e);
}

int plan_time(gnndb *db, const ast_stmt *s, plan *p, gnn_err *e)
{
    if (!s->time_source) return GNNDB_OK;
    int rc;
    /* STRICT looks pairs up in lists ascending by neighbour, which the
    ** time graph's are not, and the draws among the nodes already there
    ** would undo its redraws */
    if (p->link && p->neg_strict)
        return gnn_seterr(e, GNNDB_MISUSE, "NEGATIVE ... STRICT with %s is "
                          "not available yet: drop STRICT (negatives are "
                          "then drawn uniformly, an edge now and then)",
                          s->time_source == AST_TIME_EDGE ? "AT EDGE TIME"
                                                          : "AT TIMES");
    /* node times serve BY NODE TIME, AT NODE TIME and the negatives of
    ** seed edges */
    int has_nt = 0;
    if ((s->time_by_node || s->time_source != AST_TIME_FILE || p->link) &&
        (rc = find_node_times(db, p, &has_nt, e)))
        return rc;
    if ((rc = time_topology(db, s, p, has_nt, e))) return rc;
    p->temporal = 1;
    p->eids = 1;
    p->time_source = s->time_source;
    p->time_strategy = s->temporal;
    p->time_strict = s->time_strict;
    p->time_window = s->time_window;
    p->time_by_node = s->time_by_node;
    /* seed edges: each round's are timed as it starts (hb_link.c); node
    ** times, where the graph has them, say which nodes a negative may be
    ** (those already there) */
    if (p->link) p->neg_by_time = has_nt && p->negative > 0;
    if (s->time_source == AST_TIME_FILE) return seed_times(s, p, e);
    if (s->time_source == AST_TIME_EDGE || has_nt) return GNNDB_OK;
    return no_node_times(p, "AT NODE TIME", e);
}
