/* plan_time.c — the time clauses of a SAMPLE: AT TIMES 'f' | AT NODE TIME,
** TEMPORAL UNIFORM | LAST, BEFORE | AT OR BEFORE, WINDOW w. The hops read
** the graph's time graph (IMPORT EDGE TIMES) and carry edge ids; the
** seeds' times are read here, so that a wrong count is refused at prepare.
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

static int seed_times(const ast_stmt *s, plan *p, gnn_err *e)
{
    const cat_graph *g = &p->graph;
    if (g->has_map || strcmp(g->node_order, "none") != 0)
        return gnn_seterr(e, GNNDB_MISUSE, "AT TIMES on graph %s, created "
                          "with MAP IDS or REORDER, is not available yet: "
                          "its seeds are not in the order of their ids; use "
                          "AT NODE TIME", g->name);
    size_t n = 0;
    int rc = tc_read_file(s->time_path, "seed times", -1, &p->seed_times, &n,
                          e);
    if (rc) return rc;
    p->n_seed_times = n;
    if ((int64_t)n != p->nseeds)
        return gnn_seterr(e, GNNDB_RANGE, "AT TIMES '%s': %zu times for %lld "
                          "seeds; give one time per seed, in the order of "
                          "the seeds (a split's ascending, SEEDS (...) as "
                          "written)", s->time_path, n, (long long)p->nseeds);
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

int plan_time(gnndb *db, const ast_stmt *s, plan *p, gnn_err *e)
{
    if (!s->time_source) return GNNDB_OK;
    cat_graph tg;
    int rc;
    /* STRICT looks pairs up in lists ascending by neighbour; the time
    ** graph's are ascending by time */
    if (s->time_source == AST_TIME_EDGE && p->neg_strict)
        return gnn_seterr(e, GNNDB_MISUSE, "NEGATIVE ... STRICT with AT EDGE "
                          "TIME is not available yet: drop STRICT (negatives "
                          "are then drawn uniformly, an edge now and then)");
    /* node times serve BY NODE TIME, AT NODE TIME and AT EDGE TIME's
    ** negatives */
    int has_nt = 0;
    if ((s->time_by_node || s->time_source != AST_TIME_FILE) &&
        (rc = find_node_times(db, p, &has_nt, e)))
        return rc;
    if (s->time_by_node) {
        /* the graph's own lists, judged by their sources' node times */
        if (!has_nt) return no_node_times(p, "BY NODE TIME", e);
        if ((rc = cat_graph_eid_view(&p->graph, "a time-respecting SAMPLE",
                                     &p->topo, e)))
            return rc;
    } else if ((rc = cat_time_graph_get(db->cat, &p->graph, &tg, e)) ||
               (rc = cat_graph_eid_view(&tg, "a time-respecting SAMPLE",
                                        &p->topo, e))) {
        return rc;
    }
    p->temporal = 1;
    p->eids = 1;
    p->time_source = s->time_source;
    p->time_strategy = s->temporal;
    p->time_strict = s->time_strict;
    p->time_window = s->time_window;
    p->time_by_node = s->time_by_node;
    /* AT EDGE TIME: the executor reads each seed edge's time from the
    ** time graph as its round starts; node times, where the graph has
    ** them, say which nodes a negative may be (those already there) */
    if (s->time_source == AST_TIME_EDGE) {
        p->neg_by_time = has_nt && p->negative > 0;
        return GNNDB_OK;
    }
    if (s->time_source == AST_TIME_FILE) return seed_times(s, p, e);
    return has_nt ? GNNDB_OK : no_node_times(p, "AT NODE TIME", e);
}
