/* live_files.c — the files an open database still reads: every file its
** catalog names, and the segments the segmented ones (an append's deltas,
** storage/segmap.h) name in their maps, which the catalog does not. What
** is not among them is an orphan (db_cleanup_orphans) or may go once its
** rows are dropped (ddl_doomed_remove). */
#include "db.h"
#include "grow.h"
#include "segmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add_name(db_files *f, const char *name)
{
    if (gnn_grow((void **)&f->segs, &f->capsegs, f->nsegs + 1,
                 sizeof *f->segs))
        return GNNDB_NOMEM;
    snprintf(f->segs[f->nsegs++], sizeof f->segs[0], "%s", name);
    return GNNDB_OK;
}

/* The segments of map `name` into f. A map that cannot be read names
** none and makes f partial: any block file may be one of its segments. */
int db_files_add_segments(gnndb *db, db_files *f, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", db->dir, name);
    seg_map m;
    gnn_err e2 = {0};
    if (seg_map_read(path, &m, &e2)) {
        f->partial = 1;
        return GNNDB_OK;
    }
    int rc = GNNDB_OK;
    for (uint32_t s = 0; !rc && s < m.nsegs; s++)
        rc = add_name(f, m.segs[s].name);
    seg_map_free(&m);
    return rc;
}

int db_files_live(gnndb *db, db_files *f, gnn_err *e)
{
    memset(f, 0, sizeof *f);
    int rc = cat_files(db->cat, &f->names, &f->n, e);
    for (size_t i = 0; !rc && i < f->n; i++)
        if (seg_map_is_name(f->names[i]) &&
            db_files_add_segments(db, f, f->names[i]))
            rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    if (rc) db_files_free(f);
    return rc;
}

int db_files_has(const db_files *f, const char *name)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->names[i], name)) return 1;
    for (size_t i = 0; i < f->nsegs; i++)
        if (!strcmp(f->segs[i], name)) return 1;
    return 0;
}

void db_files_free(db_files *f)
{
    if (f->names && f->n) free(f->names[0]);
    free(f->names);
    free(f->segs);
    memset(f, 0, sizeof *f);
}
