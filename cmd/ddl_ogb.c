/* ddl_ogb.c — IMPORT OGB 'dir' AS name: an OGB node-property dataset as
** graph `name` with feature table feat, its labels, its node times (the
** dataset's node_year, as IMPORT NODE TIMES gives them, where it has one:
** arxiv, papers100M) and the splits train, valid and test, all published
** by one catalog transaction: a failure at any step leaves the database as
** it was (the steps are ddl.c's). */
#include "ddl.h"
#include "block.h"
#include "edgelist.h"
#include "npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const split_names[3] = {"train", "valid", "test"};

typedef struct ogb_job {
    ogb_dataset ds;
    ddl_graph g;
    ddl_table feat, labels, year;
    ddl_split split[3];
} ogb_job;

/* Every object's block file and index keys, before the catalog knows. */
static int build_all(gnndb *db, const ast_stmt *s, ogb_job *j, gnn_err *e)
{
    imp_graph_opts *o = &j->g.o;
    o->format = j->ds.binary ? EDGE_FMT_AUTO : EDGE_FMT_CSV;
    o->text.header = EDGE_HEADER_NO;
    o->key = j->ds.edges.key;
    o->nodes = j->ds.nodes;
    o->undirected = s->undirected || j->ds.inverse_edges;
    int rc = ddl_graph_build(db, s->name, j->ds.edges.path, &j->g, e);
    if (rc) return rc;
    snprintf(j->g.g.source, sizeof j->g.g.source, "%s", s->path);
    j->feat.o.key = j->ds.feat.key;
    j->feat.o.store_dtype = BLK_DTYPE_F32;
    j->feat.o.block_size = o->block_size;
    if (j->ds.feat.path[0] &&
        (rc = ddl_table_build(db, &j->g.g, NULL, "feat", j->ds.feat.path,
                              &j->feat, e)))
        return rc;
    j->labels.o.labels = 1;
    j->labels.o.key = j->ds.labels.key;
    j->labels.o.block_size = o->block_size;
    if ((rc = ddl_table_build(db, &j->g.g, NULL, "__labels",
                              j->ds.labels.path, &j->labels, e)))
        return rc;
    j->year.o.times = 1;
    j->year.o.key = j->ds.year.key;
    j->year.o.block_size = o->block_size;
    if (j->ds.year.path[0] &&
        (rc = ddl_table_build(db, &j->g.g, NULL, CAT_NODE_TIME_TABLE,
                              j->ds.year.path, &j->year, e)))
        return rc;
    for (int k = 0; k < 3; k++) {
        uint32_t *m = NULL;
        size_t n = 0;
        rc = ddl_split_members(db, &j->g.g, j->ds.split[k], NULL, &m, &n, e);
        if (rc) return rc;
        ddl_split_build(split_names[k], m, n, &j->split[k]);
    }
    /* every input read: now the index */
    rc = ddl_graph_index(db, &j->g, e);
    for (int k = 0; !rc && k < 3; k++)
        rc = ddl_split_index(db, &j->split[k], e);
    return rc;
}

static int insert_all(gnndb *db, ogb_job *j, gnn_err *e)
{
    int rc = cat_begin(db->cat, e);
    if (rc) return rc;
    rc = ddl_graph_insert(db, &j->g, e);
    int64_t id = j->g.g.id;
    if (!rc && j->feat.built) rc = ddl_table_insert(db, id, &j->feat, e);
    if (!rc) rc = ddl_table_insert(db, id, &j->labels, e);
    if (!rc && j->year.built) rc = ddl_table_insert(db, id, &j->year, e);
    for (int k = 0; !rc && k < 3; k++)
        rc = ddl_split_insert(db, id, &j->split[k], e);
    if (!rc) rc = cat_commit(db->cat, e);
    if (rc) cat_rollback(db->cat);
    return rc;
}

int ddl_import_ogb(gnndb *db, const ast_stmt *s, gnn_err *e)
{
    int rc = db_write_lock(db);
    if (rc) return gnn_seterr(e, rc, "%s", db->err.msg);
    if (ogb_is_hetero(s->path)) {
        rc = ddl_import_ogb_hetero(db, s, e);
        db_write_unlock(db);
        return ddl_disk_full_words(db, rc, e);
    }
    ogb_job *j = calloc(1, sizeof *j);
    if (!j) {
        db_write_unlock(db);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    }
    if (!(rc = ddl_check_new_graph(db, s->name, e)) &&
        !(rc = ddl_check_block_size(s->block_size, &j->g.o.block_size, e)) &&
        !(rc = ogb_open(s->path, s->split, db->dir, &j->ds, e)) &&
        !(rc = build_all(db, s, j, e)))
        rc = insert_all(db, j, e);
    if (rc) {
        for (int k = 0; k < 3; k++) ddl_split_undo(db, &j->split[k]);
        ddl_table_undo(db, &j->year);
        ddl_table_undo(db, &j->labels);
        ddl_table_undo(db, &j->feat);
        ddl_graph_undo(db, &j->g);
    } else {
        for (int k = 0; k < 3; k++) ddl_split_free(&j->split[k]);
        imp_feat_result_free(&j->year.r);
        imp_feat_result_free(&j->labels.r);
        imp_feat_result_free(&j->feat.r);
        ddl_graph_free(&j->g);
    }
    free(j);
    db_write_unlock(db);
    return ddl_disk_full_words(db, rc, e);
}
