/* profile.c — the disk profile in the catalog (table disk_profile, added by
** schema migration 2): one (key, value) row per field, so that a field
** added later needs no migration and a profile can be edited by hand. */
#include "cat_int.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define F(x) {#x, offsetof(cat_profile, x)}
const cat_profile_field cat_profile_fields[] = {
    F(seq_read_1m_bps), F(seq_read_4m_bps), F(rand_4k_iops),
    F(rand_4k_lat_us),  F(rand_bs_iops),    F(rand_bs_lat_us),
    F(rand_bs),         F(sample_edges_per_s), F(gather_bps),
    F(direct),
};
#undef F
const int cat_profile_nfields =
    (int)(sizeof cat_profile_fields / sizeof cat_profile_fields[0]);

static double *field(cat_profile *p, int i)
{
    return (double *)((char *)p + cat_profile_fields[i].off);
}

static double field_value(const cat_profile *p, int i)
{
    return *(const double *)((const char *)p + cat_profile_fields[i].off);
}

/* A modest NVMe drive and one core of a current server: round numbers, so
** that an uncalibrated EXPLAIN is stable and easy to check by hand. */
void cat_profile_defaults(cat_profile *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->source, sizeof p->source, "default");
    snprintf(p->io, sizeof p->io, "auto");
    p->direct = 1;
    p->seq_read_1m_bps = 2e9;
    p->seq_read_4m_bps = 2e9;
    p->rand_4k_iops = 100000;
    p->rand_4k_lat_us = 100;
    p->rand_bs_iops = 1500;
    p->rand_bs_lat_us = 1000;
    p->rand_bs = 1 << 20;
    p->sample_edges_per_s = 20e6;
    p->gather_bps = 4e9;
}

int cat_profile_get(cat_db *c, cat_profile *p, gnn_err *e)
{
    cat_profile_defaults(p);
    sqlite3_stmt *st;
    /* a catalog opened read-only may predate migration 2 */
    int rc = sqlite3_prepare_v2(c->db, "SELECT key, value FROM disk_profile",
                                -1, &st, NULL);
    if (rc) {
        if (strstr(sqlite3_errmsg(c->db), "no such table"))
            return gnn_seterr(e, GNNDB_NOTFOUND,
                              "%s holds no disk profile (run PRAGMA "
                              "calibrate)", c->path);
        return catx_err(c, rc, "reading the disk profile", e);
    }
    int n = 0, s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        const char *k = (const char *)sqlite3_column_text(st, 0);
        if (!k) continue;
        n++;
        if (!strcmp(k, "source")) catx_text(p->source, sizeof p->source, st, 1);
        else if (!strcmp(k, "measured_at"))
            catx_text(p->measured_at, sizeof p->measured_at, st, 1);
        else if (!strcmp(k, "io")) catx_text(p->io, sizeof p->io, st, 1);
        for (int i = 0; i < cat_profile_nfields; i++)
            if (!strcmp(k, cat_profile_fields[i].name))
                *field(p, i) = sqlite3_column_double(st, 1);
    }
    rc = s == SQLITE_DONE ? GNNDB_OK
                          : catx_err(c, s, "reading the disk profile", e);
    sqlite3_finalize(st);
    if (rc) return rc;
    if (!n) {
        cat_profile_defaults(p);
        return gnn_seterr(e, GNNDB_NOTFOUND,
                          "%s holds no disk profile (run PRAGMA calibrate)",
                          c->path);
    }
    return GNNDB_OK;
}

static int put_row(cat_db *c, sqlite3_stmt *st, const char *k, const char *t,
                   double v, gnn_err *e)
{
    sqlite3_bind_text(st, 1, k, -1, SQLITE_STATIC);
    if (t) sqlite3_bind_text(st, 2, t, -1, SQLITE_STATIC);
    else sqlite3_bind_double(st, 2, v);
    int s = sqlite3_step(st);
    sqlite3_reset(st);
    return s == SQLITE_DONE ? GNNDB_OK
                            : catx_err(c, s, "writing the disk profile", e);
}

int cat_profile_put(cat_db *c, const cat_profile *p, gnn_err *e)
{
    int rc = catx_writable(c, e);
    if (rc || (rc = catx_sp_begin(c, e))) return rc;
    sqlite3_stmt *st = NULL;
    if (!(rc = catx_exec(c, "DELETE FROM disk_profile", e)) &&
        !(rc = catx_prepare(c, "INSERT INTO disk_profile(key, value) "
                               "VALUES(?1, ?2)", &st, e))) {
        rc = put_row(c, st, "source", p->source, 0, e);
        if (!rc) rc = put_row(c, st, "measured_at", p->measured_at, 0, e);
        if (!rc) rc = put_row(c, st, "io", p->io, 0, e);
        for (int i = 0; i < cat_profile_nfields && !rc; i++)
            rc = put_row(c, st, cat_profile_fields[i].name, NULL,
                         field_value(p, i), e);
        sqlite3_finalize(st);
    }
    return catx_sp_end(c, rc, e);
}

int cat_profile_clear(cat_db *c, gnn_err *e)
{
    int rc = catx_writable(c, e);
    return rc ? rc : catx_exec(c, "DELETE FROM disk_profile", e);
}
