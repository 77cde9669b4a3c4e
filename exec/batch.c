/* batch.c — finishing mini-batches and handing them out: ids back in the
** user's id space, edge_index laid out 2 x E, the INTO files; then the
** transfer operator (transfer.c). */
#include "batch_fields.h"
#include "grow.h"
#include "exec_int.h"
#include "batch.h"
#include "transfer.h"
#include "npy.h"
#include "pool.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A time-respecting batch's root of each node and each edge's time, with
** its seeds' times (hop_temporal.c put them in o_time), into its view. */
static int finish_times(hb_batch *b, gnn_err *e)
{
    gnndb_batch_view *v = &b->view;
    if (gnn_grow((void **)&b->o_root, &b->cap_o_root, b->nn + 1,
                 sizeof *b->o_root) ||
        gnn_grow((void **)&b->o_etime, &b->cap_o_etime, b->ne + 1,
                 sizeof *b->o_etime))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory finishing batches");
    for (size_t q = 0; q < b->nn; q++) b->o_root[q] = b->troot[q];
    for (size_t k = 0; k < b->ne; k++) b->o_etime[k] = b->etime[k];
    v->node_seed = b->o_root;
    v->time = b->o_time;
    v->edge_time = b->o_etime;
    return GNNDB_OK;
}

/* b's e_id, where the plan carries edge ids, and its edge_attr into its
** view, whatever its variant. */
static int finish_edges(const plan *p, hb_batch *b, gnn_err *e)
{
    gnndb_batch_view *v = &b->view;
    if (p->eids) {
        if (gnn_grow((void **)&b->e_id, &b->cap_out_eid, b->ne + 1,
                     sizeof *b->e_id))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory finishing "
                              "batches");
        for (size_t k = 0; k < b->ne; k++) b->e_id[k] = b->eid[k];
        v->e_id = b->e_id;
    }
    if (p->has_efeat) {
        v->edge_attr = b->edge_attr;
        v->edge_attr_dim = p->efeat.dim;
    }
    return GNNDB_OK;
}

/* Finish mini-batch b: n_id (mapped through t when the graph has a key
** map; *tmp is scratch the caller frees), edge_index 2 x E, the view. */
int hb_finish_batch(hb_ctx *x, hb_batch *b, idx_txn *t, uint64_t **tmp,
                    size_t *captmp, gnn_err *e)
{
    plan *p = x->p;
    if (hb_out_grow(x, (void **)&b->n_id, &b->cap_out_nodes, b->nn + 1,
                    sizeof *b->n_id) ||
        hb_out_grow(x, (void **)&b->edge_index, &b->cap_out_edges,
                    2 * b->ne + 1, sizeof *b->edge_index))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory finishing batches");
    if (t) {
        if (gnn_grow((void **)tmp, captmp, b->nn + 1, sizeof **tmp))
            return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        for (size_t q = 0; q < b->nn; q++) (*tmp)[q] = b->nodes[q];
        int rc = idx_map_array(t, 'I', p->graph.token, *tmp, b->nn, b->n_id, e);
        if (rc) return rc;
    } else {
        for (size_t q = 0; q < b->nn; q++) b->n_id[q] = b->nodes[q];
    }
    for (size_t k = 0; k < b->ne; k++) {
        b->edge_index[k] = b->esrc[k];
        b->edge_index[b->ne + k] = b->edst[k];
    }
    hb_fill_view(p, b, b->n_id, b->edge_index, b->x, b->y);
    int rc = finish_edges(p, b, e);
    if (!rc && p->temporal) rc = finish_times(b, e);
    return rc || !x->var->finish ? rc : x->var->finish(x, b, e);
}

int hb_finish_batches(hb_ctx *x, gnn_err *e)
{
    idx_txn *t = NULL;
    uint64_t *tmp = NULL;
    size_t captmp = 0;
    int rc = GNNDB_OK;
    if (x->p->graph.has_map && (rc = idx_begin(x->db->idx, 0, &t, e)))
        return rc;
    for (int i = 0; i < x->nb && !rc; i++)
        rc = hb_finish_batch(x, &x->hb[i], t, &tmp, &captmp, e);
    free(tmp);
    idx_abort(t);
    return rc;
}

/* ---- INTO 'dir' ---- */

int hb_dir_empty(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -errno;
    struct dirent *de;
    int empty = 1;
    while ((de = readdir(d))) {
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
            empty = 0;
            break;
        }
    }
    closedir(d);
    return empty;
}

int hb_prepare_into(const char *dir, gnn_err *e)
{
    struct stat sb;
    if (stat(dir, &sb) != 0) return gnn_mkdirs(dir, "", e);
    if (!S_ISDIR(sb.st_mode))
        return gnn_seterr(e, GNNDB_EXISTS, "INTO '%s': not a directory", dir);
    int empty = hb_dir_empty(dir);
    if (empty < 0)
        return gnn_seterr_errno(e, GNNDB_IOERR, -empty, "INTO '%s'", dir);
    if (!empty)
        return gnn_seterr(e, GNNDB_EXISTS,
                          "INTO '%s': the directory is not empty; gnndb does "
                          "not overwrite batches", dir);
    return GNNDB_OK;
}

int batch_write_npy(const gnndb_batch_view *v, const char *dir, gnn_err *e)
{
    int rc = gnn_mkdirs(dir, "", e);
    if (rc) return rc;
    char path[1200];
    int64_t shape[2];
#define WRITE(name, dtype, nd, s0, s1, data)                                  \
    do {                                                                      \
        snprintf(path, sizeof path, "%s/%s.npy", dir, name);                 \
        shape[0] = (s0);                                                      \
        shape[1] = (s1);                                                      \
        if ((rc = npy_write(path, dtype, nd, shape, data, e))) return rc;    \
    } while (0)
    for (int i = 0; i < BF_NFIELDS; i++) {
        const bf_field *f = &bf_fields[i];
        const void *data = bf_ptr(v, f);
        if (!data && !f->always) continue;
        WRITE(f->name, f->is_float ? NPY_F32 : NPY_I64, f->ndim,
              bf_count_of(v, f->d0), bf_count_of(v, f->d1), data);
    }
    WRITE("num_sampled_nodes", NPY_I64, 1, v->num_hops + 1, 1,
          v->num_sampled_nodes);
    WRITE("num_sampled_edges", NPY_I64, 1, v->num_hops, 1,
          v->num_sampled_edges);
    for (int32_t t = 0; t < v->num_node_types; t++) {
        const gnndb_type_view *tv = &v->types[t];
        char nm[200];
        snprintf(nm, sizeof nm, "%.120s.n_id", tv->name);
        WRITE(nm, NPY_I64, 1, tv->num_nodes, 1, tv->n_id);
        snprintf(nm, sizeof nm, "%.120s.num_sampled_nodes", tv->name);
        WRITE(nm, NPY_I64, 1, v->num_hops + 1, 1, tv->num_sampled_nodes);
        snprintf(nm, sizeof nm, "%.120s.x", tv->name);
        if (tv->x) WRITE(nm, NPY_F32, 2, tv->num_nodes, tv->x_dim, tv->x);
        snprintf(nm, sizeof nm, "%.120s.y", tv->name);
        if (tv->y) WRITE(nm, NPY_I64, 1, tv->num_seeds, 1, tv->y);
    }
    for (int32_t r = 0; r < v->num_relations; r++) {
        const gnndb_rel_view *rv = &v->rels[r];
        char nm[200];
        snprintf(nm, sizeof nm, "%.120s.edge_index", rv->name);
        WRITE(nm, NPY_I64, 2, 2, rv->num_edges, rv->edge_index);
        snprintf(nm, sizeof nm, "%.120s.num_sampled_edges", rv->name);
        WRITE(nm, NPY_I64, 1, v->num_hops, 1, rv->num_sampled_edges);
        snprintf(nm, sizeof nm, "%.120s.e_id", rv->name);
        if (rv->e_id) WRITE(nm, NPY_I64, 1, rv->num_edges, 1, rv->e_id);
        snprintf(nm, sizeof nm, "%.120s.edge_attr", rv->name);
        if (rv->edge_attr)
            WRITE(nm, NPY_F32, 2, rv->num_edges, rv->edge_attr_dim,
                  rv->edge_attr);
    }
#undef WRITE
    return GNNDB_OK;
}

/* ---- handing out ---- */

int hb_emit(hb_ctx *x, hb_batch *b, const gnndb_batch_view **view,
            gnn_err *e)
{
    b->view.digest = 0;
    if (x->p->into) {
        char dir[1200];
        snprintf(dir, sizeof dir, "%s/epoch-%" PRId64 "/batch-%06" PRId64,
                 x->p->into, b->epoch, b->batch);
        int rc = batch_write_npy(&b->view, dir, e);
        if (rc) return rc;
    }
    /* counted when handed out: a mini-batch cut from a hyperbatch to fit
    ** memory is sampled again later and must not count twice */
    x->est.nodes += (uint64_t)b->nn;
    x->est.edges += (uint64_t)b->ne;
    return hb_transfer_batch(x, b, view, e);
}
