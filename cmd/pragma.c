/* pragma.c — PRAGMA name [= value]: the settings of a connection, and a few
** read-only facts (format_version, stats of the last statement), each a
** row of engine/pragmas.c's table; and PRAGMA calibrate, the disk profile
** of EXPLAIN's cost model. */
#include "cmd.h"
#include "calibrate.h"
#include "fcache.h"
#include "pragmas.h"

#include <math.h>
#include <stddef.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The index of v in a NULL-terminated list of names, or -1. Either case
** matches: ON, a keyword, comes as it was typed. */
static int name_index(const char *const *names, const char *v)
{
    for (int i = 0; v && names[i]; i++)
        if (!strcasecmp(v, names[i])) return i;
    return -1;
}

static int parse_int(const char *v, int64_t lo, int64_t hi, int64_t *out)
{
    if (!v) return -1;
    char *end;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end || x < lo || x > hi) return -1;
    *out = x;
    return 0;
}

/* A fraction in (0, 1]: a plain number, no NaN, no infinity. */
static int parse_fraction(const char *v, double *out)
{
    if (!v) return -1;
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || !(x > 0.0 && x <= 1.0)) return -1;
    *out = x;
    return 0;
}

static void *field(gnn_pragmas *p, const gnn_pragma *pr)
{
    return (char *)p + pr->off;
}

static int set_size(gnn_pragmas *p, const gnn_pragma *pr, const char *v,
                    gnn_err *e)
{
    int isauto = pr->autov && v && !strcmp(v, "auto");
    int64_t x = isauto ? -1 : db_parse_size(v);
    if (!isauto && x < pr->lo && !(pr->zero && x == 0))
        return gnn_seterr(e, GNNDB_RANGE, "PRAGMA %s = '%s': %s", pr->name,
                          v ? v : "", pr->use);
    memcpy(field(p, pr), &x, sizeof x);
    return GNNDB_OK;
}

/* PRAGMA name = v: the row's kind says how v is read, its range and words
** what is refused. */
static int set_pragma(gnndb *db, const char *name, const char *v, gnn_err *e)
{
    gnn_pragmas *p = &db->pragma;
    const gnn_pragma *pr = db_pragma_find(name);
    int64_t x;
    double f;
    int k;
    switch (pr ? pr->kind : -1) {
    case GNN_PK_SIZE: return set_size(p, pr, v, e);
    case GNN_PK_FRACTION:
        if (parse_fraction(v, &f))
            return gnn_seterr(e, GNNDB_RANGE, "PRAGMA %s = %s: use a "
                              "fraction in (0, 1], such as 0.25", name,
                              v ? v : "''");
        memcpy(field(p, pr), &f, sizeof f);
        return GNNDB_OK;
    case GNN_PK_INT:
        if (parse_int(v, pr->lo, pr->hi, &x))
            return gnn_seterr(e, GNNDB_RANGE, "PRAGMA %s = %s: use %" PRId64
                              " to %" PRId64, name, v, pr->lo, pr->hi);
        k = (int)x;
        break;
    case GNN_PK_CHOICE:
    case GNN_PK_POLICY:
        k = pr->kind == GNN_PK_CHOICE ? name_index(pr->names, v)
                                      : fc_policy_parse(v);
        if (k < 0)
            return gnn_seterr(e, GNNDB_RANGE, "PRAGMA %s = '%s': use %s",
                              name, v ? v : "", pr->use);
        break;
    case GNN_PK_PATH:
        if (!v || strlen(v) >= sizeof p->temp_dir)
            return gnn_seterr(e, GNNDB_RANGE, "PRAGMA %s: give a directory "
                              "path shorter than %zu bytes ('' for the "
                              "database directory)", name, sizeof p->temp_dir);
        snprintf(field(p, pr), sizeof p->temp_dir, "%s", v);
        return GNNDB_OK;
    case GNN_PK_FORMAT:
    case GNN_PK_STATS:
        return gnn_seterr(e, GNNDB_READONLY, "PRAGMA %s is read-only", name);
    default:
        return gnn_seterr(e, GNNDB_NOTFOUND, "unknown pragma: %s", name);
    }
    memcpy(field(p, pr), &k, sizeof k);
    return GNNDB_OK;
}

/* One (name, value) row of a listed PRAGMA, its value as it is set. */
static int add_setting(gnndb *db, rowset *rs, const gnn_pragma *pr)
{
    gnn_pragmas *p = &db->pragma;
    char b[64];
    int64_t x;
    int k;
    if (rs_row(rs) || rs_text(rs, pr->name)) return -1;
    switch (pr->kind) {
    case GNN_PK_SIZE:
        memcpy(&x, field(p, pr), sizeof x);
        if (pr->autov && x < 0) return rs_text(rs, "auto");
        if (pr->zero && x == 0) return rs_text(rs, "0");
        return rs_text(rs, db_fmt_size(x, b, sizeof b));
    case GNN_PK_INT:
    case GNN_PK_CHOICE:
    case GNN_PK_POLICY:
        memcpy(&k, field(p, pr), sizeof k);
        if (pr->kind == GNN_PK_INT) return rs_int(rs, k);
        return rs_text(rs, pr->kind == GNN_PK_CHOICE ? pr->names[k]
                                                     : fc_policy_name(k));
    case GNN_PK_PATH:
        return rs_text(rs, p->temp_dir[0] ? p->temp_dir : db->dir);
    case GNN_PK_FRACTION: {
        double f;
        memcpy(&f, field(p, pr), sizeof f);
        return rs_float(rs, f);
    }
    case GNN_PK_FORMAT: {   /* the database's: 3, or 4 once appended to */
        int64_t v = GNNDB_FORMAT_VERSION;
        gnn_err e2 = {0};
        cat_format_version(db->cat, &v, &e2);
        return rs_int(rs, v);
    }
    default: return rs_null(rs);
    }
}

static const char *const stat_names[GNN_NSTATUS] = {
    NULL, "seed", "seed_drawn", "batches", "total_batches", "blocks_read",
    "bytes_read", "cache_hits", "cache_misses", "edges", "hyperbatch",
    "sample_cpu_ns", "gather_cpu_ns", "gather_bytes", "io_wait_ns",
    "sampled_work", "row_cache_hits", "row_cache_misses",
    "row_cache_blocks_saved", "spill_written", "spill_read", "pages_read",
    "partial_blocks", "rss_peak", "bus_bytes", "device_cache_hits"};

/* ---- calibrate: the disk profile of EXPLAIN's cost model ---------------- */

static int profile_rows(const cat_profile *pr, int stored, rowset *rs)
{
    int oom = rs_prop_text(rs, "status", stored ? "calibrated" : "uncalibrated");
    oom |= rs_prop_text(rs, "source", pr->source);
    oom |= rs_prop_text(rs, "measured_at", pr->measured_at);
    oom |= rs_prop_text(rs, "io", pr->io);
    for (int i = 0; i < cat_profile_nfields; i++) {
        const double *v = (const double *)((const char *)pr +
                                           cat_profile_fields[i].off);
        oom |= rs_prop_int(rs, cat_profile_fields[i].name, llround(*v));
    }
    return oom;
}

/* 'name=value, name=value': fields of *pr set by hand. */
static int profile_edit(cat_profile *pr, const char *v, gnn_err *e)
{
    char buf[1024];
    if (strlen(v) >= sizeof buf)
        return gnn_seterr(e, GNNDB_RANGE, "PRAGMA calibrate: value too long");
    snprintf(buf, sizeof buf, "%s", v);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ", ", &save); tok;
         tok = strtok_r(NULL, ", ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return gnn_seterr(e, GNNDB_RANGE, "PRAGMA calibrate = '%s': "
                              "expected name=value, got '%s'", v, tok);
        *eq = 0;
        int f = -1;
        for (int i = 0; i < cat_profile_nfields; i++)
            if (!strcmp(tok, cat_profile_fields[i].name)) f = i;
        if (f < 0)
            return gnn_seterr(e, GNNDB_NOTFOUND, "PRAGMA calibrate: unknown "
                              "profile field '%s'", tok);
        char *end;
        double x = strtod(eq + 1, &end);
        int is_direct = !strcmp(tok, "direct");
        if (end == eq + 1 || *end || !isfinite(x) ||
            (is_direct ? (x != 0 && x != 1) : !(x > 0)))
            return gnn_seterr(e, GNNDB_RANGE, "PRAGMA calibrate: %s = '%s': "
                              "give %s", tok, eq + 1,
                              is_direct ? "0 or 1" : "a positive number");
        *(double *)((char *)pr + cat_profile_fields[f].off) = x;
        n++;
    }
    if (!n)
        return gnn_seterr(e, GNNDB_RANGE, "PRAGMA calibrate = '%s': give "
                          "measure, default, or name=value pairs", v);
    /* measured_at stays: it dates the fields that were measured */
    snprintf(pr->source, sizeof pr->source, "manual");
    return GNNDB_OK;
}

/* PRAGMA calibrate: the stored profile. = measure: measure and store it;
** = default: forget it; = 'name=value, ...': change fields by hand. The
** changing forms take the write lock. */
static int calibrate(gnndb *db, const char *v, rowset *rs, gnn_err *e)
{
    cat_profile pr;
    gnn_err e2 = {0};
    int rc = cat_profile_get(db->cat, &pr, &e2);
    if (rc && rc != GNNDB_NOTFOUND) return gnn_seterr(e, rc, "%s", e2.msg);
    int stored = rc == GNNDB_OK;
    if (v) {
        if ((rc = db_write_lock(db))) return gnn_seterr(e, rc, "%s", db->err.msg);
        if (!strcmp(v, "default")) {
            rc = cat_profile_clear(db->cat, e);
            cat_profile_defaults(&pr);
            stored = 0;
        } else {
            rc = !strcmp(v, "measure") ? calibrate_measure(db, &pr, e)
                                       : profile_edit(&pr, v, e);
            if (!rc) rc = cat_profile_put(db->cat, &pr, e);
            stored = 1;
        }
        db_write_unlock(db);
        if (rc) return rc;
    }
    return profile_rows(&pr, stored, rs)
               ? gnn_seterr(e, GNNDB_NOMEM, "out of memory") : GNNDB_OK;
}

int pragma_run(gnndb *db, const ast_stmt *s, rowset **out, gnn_err *e)
{
    static const char *const cols[] = {"name", "value", NULL};
    const char *name = s->name;
    const gnn_pragma *pr = db_pragma_find(name);
    int rc;
    if (pr && pr->kind == GNN_PK_CALIBRATE) {
        rowset *rs = rs_new(2, cols);
        if (!rs) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        if ((rc = calibrate(db, s->value, rs, e))) { rs_free(rs); return rc; }
        *out = rs;
        return GNNDB_OK;
    }
    if (name && s->value && (rc = set_pragma(db, name, s->value, e))) return rc;
    rowset *rs = rs_new(2, cols);
    if (!rs) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    int oom = 0;
    if (!name) {
        for (pr = gnn_pragma_table; pr->name; pr++)
            if (db_pragma_listed(pr)) oom |= add_setting(db, rs, pr);
    } else if (pr && pr->kind == GNN_PK_STATS) {
        for (int i = 1; i < GNN_NSTATUS; i++)
            oom |= rs_prop_int(rs, stat_names[i], db->last_status[i]);
    } else if (pr && pr->kind == GNN_PK_FORMAT) {
        int64_t v = 0;
        if ((rc = cat_format_version(db->cat, &v, e))) { rs_free(rs); return rc; }
        oom |= rs_prop_int(rs, "format_version", v);
    } else if (!pr) {
        rs_free(rs);
        return gnn_seterr(e, GNNDB_NOTFOUND, "unknown pragma: %s", name);
    } else {
        oom |= add_setting(db, rs, pr);
    }
    if (oom) { rs_free(rs); return gnn_seterr(e, GNNDB_NOMEM, "out of memory"); }
    *out = rs;
    return GNNDB_OK;
}
