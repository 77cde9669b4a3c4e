/* ddl_edge_split.c — CREATE EDGE SPLIT ... FROM 'pairs' and CREATE EDGE
** SPLITS ... RANDOM: splits whose members are input edge ids (row i of the
** graph's input file is edge i; both directions of an undirected edge share
** it).
** They are published as node splits are (ddl.c): the sorted ids under a
** fresh token's index keys, then one catalog transaction naming every
** split of the statement, so that all of them exist or none, and a failure
** at any step leaves the database as it was. */
#include "ddl.h"
#include "edge_table.h"
#include "rng.h"
#include "sort.h"
#include "array.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Pairs checked against the edge table per call (and ids mapped per index
** transaction): bounded memory whatever the file's length. */
#define PAIR_CHUNK 65536

/* The draw of CREATE EDGE SPLITS: edge `eid` falls in the first split whose
** cumulative fraction exceeds u = rng_unit(rng_draw(key, eid)), with key =
** rng_key(seed, 0, 0, EDGE_SPLIT_HOP, 0). CREATE SPLIT ... RANDOM draws
** nodes under hop UINT64_MAX - 1; this one keeps edges apart from it. */
#define EDGE_SPLIT_HOP (UINT64_MAX - 2)

#define OOM(e) gnn_seterr(e, GNNDB_NOMEM, "out of memory")

/* One split of the statement while it is built. */
typedef struct esplit {
    cat_split sp;
    uint64_t *m;          /* edge ids; sorted and distinct once finished */
    size_t n, cap;
    int built;            /* its index keys exist */
    const char *what;     /* the statement, for a refusal */
    int64_t room;         /* bytes its members may take ... */
    int sorts;            /* ... with, when they come unordered, a sort's */
} esplit;

/* What a statement holds beside its members: the pairs of a chunk and the
** file's reader (FROM), and an index transaction's pages. */
#define ESPLIT_FIXED ((int64_t)(8 << 20) + (int64_t)IDX_TXN_BYTES)

/* ---- one split: members, publication, undo ------------------------------- */

static void esplit_init(esplit *d, const char *name)
{
    memset(d, 0, sizeof *d);
    snprintf(d->sp.name, sizeof d->sp.name, "%s", name);
    d->sp.kind = CAT_SPLIT_EDGE;
    d->sp.token = db_new_token();
}

/* Room for cap members: GNNDB_NOMEM, in words, past d->room (8 bytes a
** member, and as much again for the scratch of sorting them). */
static int esplit_grow(esplit *d, size_t cap, gnn_err *e)
{
    int64_t need = (int64_t)cap * (d->sorts ? 16 : 8);
    if (need > d->room) {
        char b1[32], b2[32];
        return gnn_seterr(e, GNNDB_NOMEM, "%s: split %s: %zu members and "
                          "more need %s, and memory_limit leaves them %s; "
                          "raise PRAGMA memory_limit", d->what, d->sp.name,
                          d->n, db_fmt_size(need, b1, sizeof b1),
                          db_fmt_size(d->room, b2, sizeof b2));
    }
    uint64_t *m = realloc(d->m, (cap ? cap : 1) * sizeof *m);
    if (!m) return OOM(e);
    d->m = m;
    d->cap = cap;
    return GNNDB_OK;
}

static int esplit_push(esplit *d, uint64_t eid, gnn_err *e)
{
    if (d->n == d->cap) {
        int rc = esplit_grow(d, d->cap ? d->cap * 2 : 1024, e);
        if (rc) return rc;
    }
    d->m[d->n++] = eid;
    return GNNDB_OK;
}

/* Sort and drop repeats: a pair given twice (or in both orientations of an
** undirected edge) is one member. Members drawn in edge order are sorted
** already, and need no sort's scratch. */
static void esplit_finish(esplit *d)
{
    size_t k = 1;
    while (k < d->n && d->m[k - 1] <= d->m[k]) k++;
    if (k < d->n) gnn_sort_u64(d->m, d->n);
    size_t w = 0;
    for (size_t i = 0; i < d->n; i++)
        if (i == 0 || d->m[i] != d->m[i - 1]) d->m[w++] = d->m[i];
    d->n = w;
    d->sp.count = (int64_t)w;
}

static void esplit_free(esplit *d, size_t k)
{
    for (size_t i = 0; i < k; i++) {
        free(d[i].m);
        d[i].m = NULL;
    }
}

static void esplit_undo(gnndb *db, esplit *d, size_t k)
{
    for (size_t i = 0; i < k; i++)
        if (d[i].built) ddl_drop_token(db, d[i].sp.token);
    esplit_free(d, k);
}

/* What memory_limit leaves for data (memory.c) beside ESPLIT_FIXED: the
** members' room, which must hold `least` bytes. */
static int esplit_room(gnndb *db, const char *what, int64_t least,
                       int64_t *room, gnn_err *e)
{
    mem_reserve r;
    int rc = db_memory_reserve(db, 0, ESPLIT_FIXED + least, what, &r, e);
    *room = rc ? 0 : r.data - ESPLIT_FIXED;
    return rc;
}

/* Members a RANDOM split of fraction f of n edges may draw: the expected
** count and six standard deviations, so that growing is all but never
** needed. */
static size_t expected_members(double f, int64_t n)
{
    double m = f * (double)n;
    return (size_t)(m + 6.0 * sqrt(m * (1.0 - f) + 1.0) + 1024.0);
}

/* The ids of the k splits under their tokens (one index transaction), then
** one catalog transaction inserting them all. */
static int esplit_publish(gnndb *db, int64_t graph_id, esplit *d, size_t k,
                          gnn_err *e)
{
    idx_txn *t;
    int rc = idx_begin_fresh(db->idx, &t, e);
    if (rc) return rc;
    for (size_t i = 0; i < k && !rc; i++) {
        d[i].built = 1;  /* from here an undo drops the token */
        rc = idx_put_edge_split(t, d[i].sp.token, d[i].m, d[i].n, e);
    }
    if (rc) { idx_abort(t); return rc; }
    if ((rc = idx_commit(t, e)) || (rc = cat_begin(db->cat, e))) return rc;
    for (size_t i = 0; i < k && !rc; i++) {
        d[i].sp.graph_id = graph_id;
        rc = cat_split_insert(db->cat, &d[i].sp, e);
    }
    if (!rc) rc = cat_commit(db->cat, e);
    if (rc) cat_rollback(db->cat);
    return rc;
}

/* Every name must be new to the graph: node and edge splits share names. */
static int check_new_split(gnndb *db, const cat_graph *g, const char *name,
                           gnn_err *e)
{
    cat_split sp;
    gnn_err e2 = {0};
    if (strlen(name) >= CAT_NAME_MAX)
        return gnn_seterr(e, GNNDB_RANGE, "split name too long: %s", name);
    if (cat_split_get(db->cat, g->id, name, &sp, &e2) == GNNDB_OK)
        return gnn_seterr(e, GNNDB_EXISTS, "split '%s' already exists in "
                          "graph '%s' (%s split)", name, g->name,
                          sp.kind == CAT_SPLIT_EDGE ? "an edge" : "a node");
    if (e2.rc != GNNDB_NOTFOUND) return gnn_seterr(e, e2.rc, "%s", e2.msg);
    return GNNDB_OK;
}

/* The graph named, which must have edge ids. */
static int edge_graph(gnndb *db, const char *name, const char *what,
                      cat_graph *g, gnn_err *e)
{
    int rc = cat_graph_get(db->cat, name, g, e);
    if (rc) return rc;
    return cat_graph_need_eids(g, what, e);
}

/* ---- CREATE EDGE SPLIT s ON g FROM 'pairs' ------------------------------- */

/* The pairs of a file, read a chunk at a time: mapped to internal ids,
** then looked up in the edge table. */
typedef struct pairs {
    gnndb *db;
    const cat_graph *g;
    const char *path;
    int by_row;                      /* an array: rows, not text lines */
    size_t k;                        /* pairs in the chunk */
    int64_t ext[2][PAIR_CHUNK];      /* the ids as the file gives them */
    uint64_t line[PAIR_CHUNK];       /* edge_lineno of each */
    uint32_t in[2][PAIR_CHUNK];      /* internal ids */
    uint64_t eid[PAIR_CHUNK];
} pairs;

/* "pairs.npy row 12" (0-based, as numpy counts) or "pairs.tsv line 13". */
static const char *where(const pairs *p, size_t i, char *buf, size_t cap)
{
    if (p->by_row)
        snprintf(buf, cap, "%s row %" PRIu64, p->path, p->line[i] - 1);
    else
        snprintf(buf, cap, "%s line %" PRIu64, p->path, p->line[i]);
    return buf;
}

/* Internal ids of the chunk: through the key index when the graph maps its
** ids, else checked against the node count. */
static int map_chunk(pairs *p, gnn_err *e)
{
    idx_txn *t = NULL;
    int rc = p->g->has_map ? idx_begin(p->db->idx, 0, &t, e) : GNNDB_OK;
    for (size_t i = 0; !rc && i < p->k; i++)
        for (int w = 0; !rc && w < 2; w++) {
            int64_t id = p->ext[w][i];
            uint64_t in = (uint64_t)id;
            if (t) rc = idx_get_key(t, p->g->token, id, &in, e);
            else if (id < 0 || id >= p->g->nodes) rc = GNNDB_NOTFOUND;
            char at[CAT_PATH_MAX + 32];
            if (rc == GNNDB_NOTFOUND)
                rc = gnn_seterr(e, GNNDB_NOTFOUND, "%s: node %" PRId64
                                " is not in graph '%s' (%" PRId64 " nodes)",
                                where(p, i, at, sizeof at), id, p->g->name,
                                p->g->nodes);
            p->in[w][i] = (uint32_t)in;
        }
    idx_abort(t);
    return rc;
}

/* The chunk's edge ids into d; the first pair that is no edge fails. */
static int flush_chunk(pairs *p, esplit *d, gnn_err *e)
{
    if (!p->k) return GNNDB_OK;
    int rc = map_chunk(p, e);
    if (!rc) rc = edt_find_pairs(p->db, p->g, p->in[0], p->in[1], p->k,
                                 p->eid, e);
    for (size_t i = 0; !rc && i < p->k; i++) {
        char at[CAT_PATH_MAX + 32];
        if (p->eid[i] == UINT64_MAX)
            rc = gnn_seterr(e, GNNDB_NOTFOUND, "%s: (%" PRId64 ", %" PRId64
                            ") is not an edge of graph '%s'",
                            where(p, i, at, sizeof at), p->ext[0][i],
                            p->ext[1][i], p->g->name);
        else
            rc = esplit_push(d, p->eid[i], e);
    }
    p->k = 0;
    return rc;
}

/* Read every pair of the statement's file into d. */
static int read_pairs(gnndb *db, const ast_stmt *s, pairs *p, esplit *d,
                      gnn_err *e)
{
    edge_opts o;
    edge_reader *r;
    ddl_edge_opts(db, s, &o);
    int rc = edge_open_opts(s->path, &o, &r, e);
    if (rc) return rc;
    p->by_row = s->key || arr_is_array_path(s->path);
    int k = 0;
    int64_t a, b;
    while (!rc && (k = edge_next(r, &a, &b, e)) > 0) {
        p->ext[0][p->k] = a;
        p->ext[1][p->k] = b;
        p->line[p->k++] = edge_lineno(r);
        if (p->k == PAIR_CHUNK) rc = flush_chunk(p, d, e);
        if (!rc && db->interrupt)
            rc = gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
    }
    if (!rc && k < 0) rc = e->rc ? e->rc : GNNDB_FORMAT;
    if (!rc) rc = flush_chunk(p, d, e);
    edge_close(r);
    return rc;
}

static int edge_split_from(gnndb *db, const ast_stmt *s, esplit *d,
                           gnn_err *e)
{
    cat_graph g;
    int rc = edge_graph(db, s->graph, "CREATE EDGE SPLIT", &g, e);
    if (rc || (rc = check_new_split(db, &g, s->name, e))) return rc;
    char what[2 * CAT_NAME_MAX + 32];
    snprintf(what, sizeof what, "CREATE EDGE SPLIT %s ON %s", s->name,
             s->graph);
    esplit_init(d, s->name);
    d->what = what;
    d->sorts = 1;
    if ((rc = esplit_room(db, what, 0, &d->room, e))) return rc;
    pairs *p = calloc(1, sizeof *p);
    if (!p) return OOM(e);
    p->db = db;
    p->g = &g;
    p->path = s->path;
    rc = read_pairs(db, s, p, d, e);
    free(p);
    if (rc) return rc;
    esplit_finish(d);
    return esplit_publish(db, g.id, d, 1, e);
}

int ddl_create_edge_split(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    esplit d;
    memset(&d, 0, sizeof d);
    rc = edge_split_from(db, s, &d, e);
    if (rc) esplit_undo(db, &d, 1);
    else esplit_free(&d, 1);
    db_write_unlock(db);
    return ddl_disk_full_words(db, rc, e);
}

/* ---- CREATE EDGE SPLITS a, b ON g RANDOM fa, fb [SEED s] ----------------- */

typedef struct draw {
    uint64_t key;
    const double *frac;
    esplit *d;
    size_t k;
    gnn_err *e;
} draw;

/* edt_scan's visit of one stored edge: into the split its draw falls in. */
static int draw_edge(void *arg, uint64_t eid, uint32_t src, uint32_t dst)
{
    draw *w = arg;
    double u = rng_unit(rng_draw(w->key, eid)), cum = 0.0;
    for (size_t i = 0; i < w->k; i++) {
        cum += w->frac[i];
        if (u < cum) return esplit_push(&w->d[i], eid, w->e);
    }
    return GNNDB_OK;
}

static int edge_splits_random(gnndb *db, const ast_stmt *s, esplit *d,
                              gnn_err *e)
{
    cat_graph g;
    int rc = edge_graph(db, s->graph, "CREATE EDGE SPLITS", &g, e);
    for (size_t i = 0; !rc && i < s->n_split_names; i++)
        rc = check_new_split(db, &g, s->split_names[i], e);
    if (rc) return rc;
    /* without SEED one is drawn, as CREATE SPLIT ... RANDOM does, and kept
    ** in the catalog (DESCRIBE shows it) so the draw can be repeated */
    uint64_t seed = s->has_seed ? s->seed : db_new_token();
    draw w = {rng_key(seed, 0, 0, EDGE_SPLIT_HOP, 0), s->split_fractions, d,
              s->n_split_names, e};
    char what[CAT_NAME_MAX + 32];
    snprintf(what, sizeof what, "CREATE EDGE SPLITS ON %s", s->graph);
    int64_t least = 0, room = 0;
    for (size_t i = 0; i < w.k; i++)
        least += 8 * (int64_t)expected_members(w.frac[i], g.input_edges);
    if ((rc = esplit_room(db, what, least, &room, e))) return rc;
    /* members are drawn in edge order: sorted, and sized from the start */
    for (size_t i = 0; i < w.k && !rc; i++) {
        esplit_init(&d[i], s->split_names[i]);
        d[i].sp.has_seed = 1;
        d[i].sp.seed = seed;
        d[i].what = what;
        size_t cap = expected_members(w.frac[i], g.input_edges);
        d[i].room = room * (8 * (int64_t)cap) / GNN_MAX(least, 1);
        rc = esplit_grow(&d[i], cap, e);
    }
    if (rc || (rc = edt_scan(db, &g, draw_edge, &w, e))) return rc;
    for (size_t i = 0; i < w.k; i++) esplit_finish(&d[i]);
    return esplit_publish(db, g.id, d, w.k, e);
}

int ddl_edge_split_prepare(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    int64_t least = 0, room;
    char what[CAT_NAME_MAX + 32];
    snprintf(what, sizeof what, "CREATE EDGE SPLIT%s ON %s",
             s->kind == AST_CREATE_EDGE_SPLITS ? "S" : "", s->graph);
    if (s->kind == AST_CREATE_EDGE_SPLITS) {
        cat_graph g;
        int rc = cat_graph_get(db->cat, s->graph, &g, e);
        if (rc) return rc;
        for (size_t i = 0; i < s->n_split_names; i++)
            least += 8 * (int64_t)expected_members(s->split_fractions[i],
                                                   g.input_edges);
    }
    return esplit_room(db, what, least, &room, e);
}

int ddl_create_edge_splits(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    esplit d[AST_MAX_EDGE_SPLITS];
    memset(d, 0, sizeof d);
    rc = edge_splits_random(db, s, d, e);
    if (rc) esplit_undo(db, d, s->n_split_names);
    else esplit_free(d, s->n_split_names);
    db_write_unlock(db);
    return ddl_disk_full_words(db, rc, e);
}
