/* dispatch.c — the table of statement kinds: what each one does when it is
** prepared, stepped and finalized (stmt.c calls through it, as io.c calls
** an I/O backend through its ops). SAMPLE and the two SCANs hand out
** batches; every other statement does its work on the first step and
** leaves rows, if any, for the steps that follow. */
#include "stmt.h"
#include "cmd.h"
#include "ddl.h"
#include "explain.h"
#include "pack.h"
#include "gather_rows.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- statements that run at once ---------------------------------------- */

static int run_create_graph(gnndb_stmt *st, gnn_err *e)
{
    return ddl_create_graph(st->db, st->ast, e);
}

static int run_create_nodes(gnndb_stmt *st, gnn_err *e)
{
    return ddl_create_nodes_stmt(st->db, st->ast, e);
}

static int run_create_relation(gnndb_stmt *st, gnn_err *e)
{
    return ddl_create_relation_stmt(st->db, st->ast, e);
}

static int run_drop_relation(gnndb_stmt *st, gnn_err *e)
{
    return ddl_drop_relation_stmt(st->db, st->ast, e);
}

static int run_import_features(gnndb_stmt *st, gnn_err *e)
{
    return ddl_import(st->db, st->ast, 0, e);
}

static int run_import_labels(gnndb_stmt *st, gnn_err *e)
{
    return ddl_import(st->db, st->ast, 1, e);
}

static int run_create_split(gnndb_stmt *st, gnn_err *e)
{
    return ddl_create_split(st->db, st->ast, e);
}

static int run_create_edge_split(gnndb_stmt *st, gnn_err *e)
{
    return ddl_create_edge_split(st->db, st->ast, e);
}

static int run_create_edge_splits(gnndb_stmt *st, gnn_err *e)
{
    return ddl_create_edge_splits(st->db, st->ast, e);
}

static int run_import_edge_features(gnndb_stmt *st, gnn_err *e)
{
    return ddl_import_edge_features(st->db, st->ast, e);
}

static int run_import_times(gnndb_stmt *st, gnn_err *e)
{
    return ddl_import_times(st->db, st->ast, e);
}

static int run_insert_edges(gnndb_stmt *st, gnn_err *e)
{
    return ddl_insert_edges(st->db, st->ast, e);
}

static int run_insert_nodes(gnndb_stmt *st, gnn_err *e)
{
    return ddl_insert_nodes(st->db, st->ast, e);
}

static int run_insert_rows(gnndb_stmt *st, gnn_err *e)
{
    return ddl_insert_rows(st->db, st->ast, e);
}

static int run_drop_versions(gnndb_stmt *st, gnn_err *e)
{
    return ddl_drop_versions(st->db, st->ast, e);
}

static int run_compact(gnndb_stmt *st, gnn_err *e)
{
    return ddl_compact(st->db, st->ast, e);
}

static int run_show_versions(gnndb_stmt *st, gnn_err *e)
{
    return show_versions(st->db, st->ast->graph, &st->rs, e);
}

static int run_import_ogb(gnndb_stmt *st, gnn_err *e)
{
    return ddl_import_ogb(st->db, st->ast, e);
}

static int run_propagate(gnndb_stmt *st, gnn_err *e)
{
    return propagate_run(st->db, st->ast, e);
}

/* DROP GRAPH, FEATURES and SPLIT */
static int run_drop(gnndb_stmt *st, gnn_err *e)
{
    return ddl_drop(st->db, st->ast, e);
}

static int run_drop_pack(gnndb_stmt *st, gnn_err *e)
{
    return pack_drop(st->db, st->ast, e);
}

static int run_show_graphs(gnndb_stmt *st, gnn_err *e)
{
    return show_graphs(st->db, &st->rs, e);
}

static int run_describe(gnndb_stmt *st, gnn_err *e)
{
    return show_describe(st->db, st->ast->name, st->ast->node_type, &st->rs,
                         e);
}

static int run_pragma(gnndb_stmt *st, gnn_err *e)
{
    return pragma_run(st->db, st->ast, &st->rs, e);
}

static int run_check(gnndb_stmt *st, gnn_err *e)
{
    return check_run(st->db, st->ast, &st->rs, e);
}

/* ---- what is checked at prepare ----------------------------------------- */

static int prepare_check(gnndb_stmt *st, gnn_err *e)
{
    return check_prepare(st->db, st->ast, e);
}

static int prepare_propagate(gnndb_stmt *st, gnn_err *e)
{
    return propagate_prepare(st->db, st->ast, e);
}

static int prepare_import(gnndb_stmt *st, gnn_err *e)
{
    return ddl_import_prepare(st->db, st->ast, e);
}

static int prepare_edge_split(gnndb_stmt *st, gnn_err *e)
{
    return ddl_edge_split_prepare(st->db, st->ast, e);
}

/* SAMPLE ... INTO PACK: samples every batch into a new pack file, a write */
static int run_pack_build(gnndb_stmt *st, gnn_err *e)
{
    return pack_build(st->db, st->ast, &st->plan, st->sql, &st->rs, e);
}

/* A statement kind not in the table; the parser makes none. */
static int run_unknown(gnndb_stmt *st, gnn_err *e)
{
    return gnn_seterr(e, GNNDB_INTERNAL, "statement kind %d not runnable",
                      (int)st->ast->kind);
}

/* Which statements the catalog's log records: those that change the
** database. Of the pragmas only calibrate's changing forms do. */
static int always(const ast_stmt *s) { return 1; }

static int pragma_writes(const ast_stmt *s)
{
    return s->name && s->value && !strcmp(s->name, "calibrate");
}

/* ---- what the batch statements share ------------------------------------- */

/* gnndb_interrupt, or a progress handler's answer, stops a statement before
** the batch it would hand out next. */
static int interrupted(gnndb_stmt *st, gnn_err *e)
{
    return st->db->interrupt ? gnn_seterr(e, GNNDB_INTERRUPT, "interrupted")
                             : GNNDB_OK;
}

/* The progress handler (db_progress's rule) for one more batch handed out,
** with the batches expected in all; a nonzero answer interrupts. */
static void report_progress(gnndb_stmt *st, int64_t total)
{
    db_progress(st->db, st->status[GNNDB_STATUS_BATCHES], 1, total);
}

static const char *const sample_cols[] = {
    "epoch", "batch", "seeds", "nodes", "edges", "feature_bytes", "digest",
    NULL};
/* A link batch's row adds its labelled pairs: seed edges and negatives. */
static const char *const link_cols[] = {
    "epoch", "batch", "seeds", "nodes", "edges", "feature_bytes",
    "positives", "negatives", "digest", NULL};

/* A typed batch's row adds its nodes per type and edges per relation. */
static const char *const typed_cols[] = {
    "epoch", "batch", "seeds", "nodes", "edges", "feature_bytes", "types",
    "relations", "digest", NULL};

/* The types and relations columns: "paper=249 author=63 field=20", each
** type's nodes, and "cites=310 writes=120 ...", each relation's edges, in
** catalog order. */
static int typed_summary(const gnndb_batch_view *v, rowset *rs)
{
    size_t cap = 64;
    for (int32_t t = 0; t < v->num_node_types; t++)
        cap += strlen(v->types[t].name) + 24;
    for (int32_t r = 0; r < v->num_relations; r++)
        cap += strlen(v->rels[r].name) + 24;
    char *b = malloc(cap);
    if (!b) return -1;
    size_t o = 0;
    b[0] = 0;
    for (int32_t t = 0; t < v->num_node_types; t++)
        o += (size_t)snprintf(b + o, cap - o, "%s%s=%" PRId64, t ? " " : "",
                              v->types[t].name, v->types[t].num_nodes);
    int rc = rs_text(rs, b);
    o = 0;
    b[0] = 0;
    for (int32_t r = 0; r < v->num_relations; r++)
        o += (size_t)snprintf(b + o, cap - o, "%s%s=%" PRId64, r ? " " : "",
                              v->rels[r].name, v->rels[r].num_edges);
    rc |= rs_text(rs, b);
    free(b);
    return rc;
}

/* The batch just handed out (v) as the statement's one row, for gnndb_exec
** and the shell; host: the same batch in host memory (v itself but under
** TO DEVICE), read for the counts a device batch keeps where the host
** cannot read them. */
static int batch_row(gnndb_stmt *st, const gnndb_batch_view *v,
                     const gnndb_batch_view *host, gnn_err *e)
{
    int link = v->edge_label_index || v->src_index;
    int typed = v->num_node_types > 0;
    rs_free(st->rs);
    st->rs = link    ? rs_new(9, link_cols)
             : typed ? rs_new(9, typed_cols)
                     : rs_new(7, sample_cols);
    if (!st->rs || rs_row(st->rs)) goto nomem;
    /* a cell whose words could not be made fails the row: a row is never
    ** handed out with a value missing */
    int bad = rs_int(st->rs, v->epoch) | rs_int(st->rs, v->batch) |
              rs_int(st->rs, v->num_seeds) | rs_int(st->rs, v->num_nodes) |
              rs_int(st->rs, v->num_edges);
    if (typed) {
        /* x per type: the nodes of each type with its own width */
        int64_t xbytes = 0;
        for (int32_t t = 0; t < v->num_node_types; t++)
            if (v->types[t].x)
                xbytes += v->types[t].num_nodes * v->types[t].x_dim * 4;
        bad |= rs_int(st->rs, xbytes) | typed_summary(v, st->rs);
    } else {
        bad |= rs_int(st->rs, v->num_nodes * v->x_dim * 4);
    }
    if (link && v->src_index) {
        bad |= rs_int(st->rs, v->num_pos) |
               rs_int(st->rs, v->num_pos * v->num_neg);
    } else if (link) {
        /* counted from the host batch: a device batch's labels are in
        ** memory the host cannot read */
        int64_t pos = 0;
        for (int64_t i = 0; host && i < host->num_label_edges; i++)
            pos += host->edge_label[i] > 0.5f;
        bad |= rs_int(st->rs, pos) | rs_int(st->rs, v->num_label_edges - pos);
    }
    /* the digest, filled in when read (stmt.c) */
    st->digest_col = st->rs->ncol - 1;
    if (bad || rs_null(st->rs)) goto nomem;
    st->row = 1;
    return GNNDB_BATCH;
nomem:
    return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
}

/* ---- SAMPLE -------------------------------------------------------------- */

/* Every form of SAMPLE is planned at prepare, so that gnndb_stmt_status
** tells the seed and the batches to come before the first step. */
static int prepare_plan(gnndb_stmt *st, gnn_err *e)
{
    int rc = plan_build(st->db, st->ast, &st->plan, e);
    if (rc) return rc;
    st->status[GNNDB_STATUS_SEED] = (int64_t)st->plan.seed;
    st->status[GNNDB_STATUS_SEED_DRAWN] = st->plan.seed_drawn;
    st->status[GNNDB_STATUS_TOTAL_BATCHES] = st->plan.total_batches;
    st->status[GNNDB_STATUS_HYPERBATCH] = st->plan.hyperbatch;
    return GNNDB_OK;
}

/* The executor's counters, summed over its operators, as the statement's
** status and the handle's last status. */
static void copy_exec_status(gnndb_stmt *st)
{
    if (!st->x) return;
    const hb_stats *s = hb_get_stats(st->x);
    uint64_t br = s->gather.blocks_read, by = s->gather.bytes_read;
    uint64_t hi = s->gather.hits, mi = s->gather.misses;
    for (int h = 0; h < AST_MAX_HOPS; h++) {
        br += s->hop[h].blocks_read;
        by += s->hop[h].bytes_read;
        hi += s->hop[h].hits;
        mi += s->hop[h].misses;
    }
    st->status[GNNDB_STATUS_BATCHES] = (int64_t)s->batches;
    st->status[GNNDB_STATUS_BLOCKS_READ] = (int64_t)br;
    st->status[GNNDB_STATUS_BYTES_READ] = (int64_t)by;
    st->status[GNNDB_STATUS_CACHE_HITS] = (int64_t)hi;
    st->status[GNNDB_STATUS_CACHE_MISSES] = (int64_t)mi;
    st->status[GNNDB_STATUS_EDGES] = (int64_t)s->edges;
    if (s->max_hyperbatch)
        st->status[GNNDB_STATUS_HYPERBATCH] = (int64_t)s->max_hyperbatch;
    double scpu = 0, swall = s->gather.seconds - s->gather.cpu_seconds;
    uint64_t work = 0;
    for (int h = 0; h < AST_MAX_HOPS; h++) {
        work += s->hop[h].edges;
        scpu += s->hop[h].cpu_seconds;
        swall += s->hop[h].seconds - s->hop[h].cpu_seconds;
    }
    st->status[GNNDB_STATUS_SAMPLE_CPU_NS] = (int64_t)(scpu * 1e9);
    st->status[GNNDB_STATUS_GATHER_CPU_NS] =
        (int64_t)(s->gather.cpu_seconds * 1e9);
    st->status[GNNDB_STATUS_GATHER_BYTES] = (int64_t)s->gather.bytes_out;
    st->status[GNNDB_STATUS_IO_WAIT_NS] = (int64_t)(swall * 1e9);
    st->status[GNNDB_STATUS_SAMPLED_WORK] = (int64_t)work;
    st->status[GNNDB_STATUS_ROW_CACHE_HITS] = (int64_t)s->cache_hits;
    st->status[GNNDB_STATUS_ROW_CACHE_MISSES] = (int64_t)s->cache_misses;
    st->status[GNNDB_STATUS_ROW_CACHE_SAVED] = (int64_t)s->cache_blocks_saved;
    st->status[GNNDB_STATUS_SPILL_WRITTEN] = (int64_t)s->spill_written;
    st->status[GNNDB_STATUS_SPILL_READ] = (int64_t)s->spill_read;
    uint64_t pages = s->gather.pages_read, part = s->gather.partial_blocks;
    for (int h = 0; h < AST_MAX_HOPS; h++) {
        pages += s->hop[h].pages_read;
        part += s->hop[h].partial_blocks;
    }
    st->status[GNNDB_STATUS_PAGES_READ] = (int64_t)pages;
    st->status[GNNDB_STATUS_PARTIAL_BLOCKS] = (int64_t)part;
    st->status[GNNDB_STATUS_RSS_PEAK] =
        GNN_MAX(0, s->rss_peak - st->plan.mem.base);
    st->status[GNNDB_STATUS_BUS_BYTES] = (int64_t)s->transfer.bytes_out;
    st->status[GNNDB_STATUS_DEVICE_CACHE_HITS] = (int64_t)s->transfer.hits;
    memcpy(st->db->last_status, st->status, sizeof st->status);
}

/* The next batch of the run, the executor opened on the first step. A
** hyperbatch stages many batches at once: an interrupt stops before the
** next one handed out, not only before the next hyperbatch is built. */
static int next_batch(gnndb_stmt *st, const gnndb_batch_view **v, gnn_err *e)
{
    int rc;
    if (!st->x && (rc = hb_open(st->db, &st->plan, &st->x, e))) return rc;
    if ((rc = interrupted(st, e))) return rc;
    return hb_next(st->x, v, e);
}

static int step_sample(gnndb_stmt *st, gnn_err *e)
{
    const gnndb_batch_view *v;
    int rc = next_batch(st, &v, e);
    copy_exec_status(st);
    if (rc != GNNDB_BATCH) return rc;
    st->view = v;
    report_progress(st, st->plan.total_batches);
    return batch_row(st, v, hb_host_view(st->x), e);
}

/* The plan as rows of text, with the run's figures when there was one. */
static int explain_into(gnndb_stmt *st, const hb_stats *stats, gnn_err *e)
{
    st->rs = rs_new(1, (const char *const[]){"plan", NULL});
    if (!st->rs || explain_rows(&st->plan, stats, st->rs))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    return GNNDB_OK;
}

/* EXPLAIN */
static int run_explain(gnndb_stmt *st, gnn_err *e)
{
    return explain_into(st, NULL, e);
}

/* EXPLAIN ANALYZE: the first step runs every batch, then reports; the
** steps after it hand out the report's rows. */
static int step_analyze(gnndb_stmt *st, gnn_err *e)
{
    if (st->rs) return rs_step(st->rs, &st->row);
    const gnndb_batch_view *v;
    int rc;
    while ((rc = next_batch(st, &v, e)) == GNNDB_BATCH) {
        copy_exec_status(st);
        report_progress(st, st->plan.total_batches);
    }
    if (rc != GNNDB_DONE) return rc;
    copy_exec_status(st);
    if ((rc = explain_into(st, hb_get_stats(st->x), e))) return rc;
    st->row = 0;
    return rs_step(st->rs, &st->row);
}

/* The digest of the batch handed out last, into its view. */
static void digest_sample(gnndb_stmt *st) { hb_digest(st->x); }

/* The executor's last counters kept in the handle, then the executor and
** the plan freed. */
static void finalize_sample(gnndb_stmt *st)
{
    copy_exec_status(st);
    hb_close(st->x);
    plan_free(&st->plan);
}

static void finalize_plan(gnndb_stmt *st) { plan_free(&st->plan); }

/* ---- SCAN and SCAN PACK -------------------------------------------------- */

static int prepare_scan(gnndb_stmt *st, gnn_err *e)
{
    int rc = scan_open(st->db, st->ast, &st->scan, e);
    if (rc) return rc;
    scan_status(st->scan, st->status);
    return GNNDB_OK;
}

/* The next batch of a SCAN, with its summary row. */
static int step_scan(gnndb_stmt *st, gnn_err *e)
{
    const gnndb_batch_view *v = NULL;
    int rc = interrupted(st, e);
    if (!rc) rc = scan_next(st->scan, &v, e);
    scan_status(st->scan, st->status);
    memcpy(st->db->last_status, st->status, sizeof st->status);
    if (rc != GNNDB_BATCH) return rc;
    st->view = v;
    report_progress(st, st->status[GNNDB_STATUS_TOTAL_BATCHES]);
    return batch_row(st, v, NULL, e);   /* node rows: no labels to count */
}

static void finalize_scan(gnndb_stmt *st) { scan_close(st->scan); }

static void digest_scan(gnndb_stmt *st) { scan_digest(st->scan); }

static int prepare_scan_pack(gnndb_stmt *st, gnn_err *e)
{
    int rc = pk_scan_open(st->db, st->ast, &st->pk, e);
    if (rc) return rc;
    st->status[GNNDB_STATUS_TOTAL_BATCHES] = pk_scan_total(st->pk);
    return GNNDB_OK;
}

/* SCAN PACK: the next stored batch, with the row SAMPLE gives. */
static int step_scan_pack(gnndb_stmt *st, gnn_err *e)
{
    const gnndb_batch_view *v;
    int rc = interrupted(st, e);
    if (!rc) rc = pk_scan_next(st->pk, &v, e);
    st->status[GNNDB_STATUS_BYTES_READ] = (int64_t)pk_scan_bytes_read(st->pk);
    st->status[GNNDB_STATUS_BLOCKS_READ] = pk_scan_blocks_read(st->pk);
    if (rc != GNNDB_BATCH) return rc;
    st->view = v;
    st->status[GNNDB_STATUS_BATCHES]++;
    st->status[GNNDB_STATUS_EDGES] += v->num_edges;
    memcpy(st->db->last_status, st->status, sizeof st->status);
    report_progress(st, st->status[GNNDB_STATUS_TOTAL_BATCHES]);
    return batch_row(st, v, pk_scan_host_view(st->pk), e);
}

static void finalize_scan_pack(gnndb_stmt *st) { pk_scan_close(st->pk); }

/* ---- GATHER -------------------------------------------------------------- */

static int prepare_gather(gnndb_stmt *st, gnn_err *e)
{
    int rc = gr_open(st->db, st->ast, &st->gr, e);
    if (!rc) gr_status(st->gr, st->status);
    return rc;
}

/* The next chunk of rows, with SAMPLE's summary row. */
static int step_gather(gnndb_stmt *st, gnn_err *e)
{
    const gnndb_batch_view *v = NULL;
    int rc = interrupted(st, e);
    if (!rc) rc = gr_next(st->gr, &v, e);
    gr_status(st->gr, st->status);
    memcpy(st->db->last_status, st->status, sizeof st->status);
    if (rc != GNNDB_BATCH) return rc;
    st->view = v;
    report_progress(st, st->status[GNNDB_STATUS_TOTAL_BATCHES]);
    return batch_row(st, v, NULL, e);   /* node rows: no labels to count */
}

static void finalize_gather(gnndb_stmt *st) { gr_close(st->gr); }

/* ---- the table ----------------------------------------------------------- */

/* By the parser's kind. A kind without a step hands out the rows its run
** left; the slot of SAMPLE is its plain form. */
static const stmt_ops kinds[] = {
    [AST_CREATE_GRAPH] = {.prepare = prepare_import, .run = run_create_graph,
                          .writes = always},
    [AST_CREATE_NODES] = {.run = run_create_nodes, .writes = always},
    [AST_CREATE_RELATION] = {.prepare = prepare_import,
                             .run = run_create_relation, .writes = always},
    [AST_DROP_RELATION] = {.run = run_drop_relation, .writes = always},
    [AST_IMPORT_FEATURES] = {.prepare = prepare_import,
                             .run = run_import_features, .writes = always},
    [AST_IMPORT_LABELS] = {.prepare = prepare_import,
                           .run = run_import_labels, .writes = always},
    [AST_CREATE_SPLIT] = {.run = run_create_split, .writes = always},
    [AST_CREATE_EDGE_SPLIT] = {.prepare = prepare_edge_split,
                               .run = run_create_edge_split, .writes = always},
    [AST_CREATE_EDGE_SPLITS] = {.prepare = prepare_edge_split,
                                .run = run_create_edge_splits,
                                .writes = always},
    [AST_IMPORT_OGB] = {.prepare = prepare_import, .run = run_import_ogb,
                        .writes = always},
    [AST_IMPORT_EDGE_FEATURES] = {.prepare = prepare_import,
                                  .run = run_import_edge_features,
                                  .writes = always},
    [AST_IMPORT_TIMES] = {.prepare = prepare_import, .run = run_import_times,
                          .writes = always},
    [AST_PROPAGATE] = {.prepare = prepare_propagate, .run = run_propagate,
                       .writes = always},
    [AST_DROP_GRAPH] = {.run = run_drop, .writes = always},
    [AST_DROP_FEATURES] = {.run = run_drop, .writes = always},
    [AST_DROP_SPLIT] = {.run = run_drop, .writes = always},
    [AST_DROP_PACK] = {.run = run_drop_pack, .writes = always},
    [AST_INSERT_EDGES] = {.prepare = prepare_import, .run = run_insert_edges,
                          .writes = always},
    [AST_INSERT_NODES] = {.prepare = prepare_import, .run = run_insert_nodes,
                          .writes = always},
    [AST_INSERT_ROWS] = {.prepare = prepare_import, .run = run_insert_rows,
                         .writes = always},
    [AST_DROP_VERSIONS] = {.run = run_drop_versions, .writes = always},
    [AST_COMPACT] = {.run = run_compact, .writes = always},
    [AST_SHOW_VERSIONS] = {.run = run_show_versions},
    [AST_SHOW_GRAPHS] = {.run = run_show_graphs},
    [AST_DESCRIBE] = {.run = run_describe},
    [AST_PRAGMA] = {.run = run_pragma, .writes = pragma_writes},
    [AST_CHECK] = {.prepare = prepare_check, .run = run_check},
    [AST_SAMPLE] = {.prepare = prepare_plan, .step = step_sample,
                    .finalize = finalize_sample, .digest = digest_sample},
    [AST_SCAN] = {.prepare = prepare_scan, .step = step_scan,
                  .finalize = finalize_scan, .digest = digest_scan},
    /* SCAN PACK checks every stored digest as it reads: its view has it */
    [AST_SCAN_PACK] = {.prepare = prepare_scan_pack, .step = step_scan_pack,
                       .finalize = finalize_scan_pack},
    [AST_GATHER] = {.prepare = prepare_gather, .step = step_gather,
                    .finalize = finalize_gather},
};

/* SAMPLE's other forms: planned alike, stepped differently. */
static const stmt_ops explain_ops = {
    .prepare = prepare_plan, .run = run_explain, .finalize = finalize_plan};
static const stmt_ops analyze_ops = {
    .prepare = prepare_plan, .step = step_analyze,
    .finalize = finalize_sample};
static const stmt_ops pack_build_ops = {
    .prepare = prepare_plan, .run = run_pack_build, .finalize = finalize_plan,
    .writes = always};
static const stmt_ops unknown_ops = {.run = run_unknown};

const stmt_ops *stmt_ops_of(const ast_stmt *s)
{
    if (s->kind == AST_SAMPLE && s->explain == 1) return &explain_ops;
    if (s->kind == AST_SAMPLE && s->explain == 2) return &analyze_ops;
    if (s->kind == AST_SAMPLE && s->pack) return &pack_build_ops;
    size_t k = (size_t)s->kind;
    if (k >= sizeof kinds / sizeof kinds[0] ||
        !(kinds[k].run || kinds[k].step))
        return &unknown_ops;
    return &kinds[k];
}
