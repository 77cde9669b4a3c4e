/* pragma.c — PRAGMA name [= value]: the settings of a connection, and a few
** read-only facts (format_version, stats of the last statement). */
#include "cmd.h"
#include "calibrate.h"
#include "io.h"
#include "fcache.h"

#include <math.h>
#include <stddef.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *io_names[] = {"auto", "uring", "pread"};
/* indexed by GNN_SPILL_* */
static const char *const spill_names[] = {"auto", "on", "off", NULL};
/* indexed by GNN_GRAN_* */
static const char *const gran_names[] = {"auto", "block", "page", NULL};
/* indexed by the setting: 0 off, 1 on */
static const char *const onoff_names[] = {"off", "on", NULL};

/* The index of v in a NULL-terminated list of names, or -1. Either case
** matches: ON, a keyword, comes as it was typed. */
static int name_index(const char *const *names, const char *v)
{
    for (int i = 0; v && names[i]; i++)
        if (!strcasecmp(v, names[i])) return i;
    return -1;
}

/* The settings whose value is one of a few names, kept as its index: one
** row each, read and written alike. */
typedef struct choice {
    const char *name;
    const char *const *values;  /* by index, NULL-terminated */
    size_t off;                 /* the int in gnn_pragmas */
    const char *use;            /* what a refusal suggests */
} choice;

static const choice choices[] = {
    {"spill", spill_names, offsetof(gnn_pragmas, spill),
     "'auto', 'on' or 'off'"},
    {"read_granularity", gran_names, offsetof(gnn_pragmas, read_granularity),
     "'auto', 'block' or 'page'"},
    {"strict", onoff_names, offsetof(gnn_pragmas, strict),
     "'on' (a plan's warnings refuse the statement) or 'off'"},
    {"pin_memory", onoff_names, offsetof(gnn_pragmas, pin_memory),
     "'on' (host batches in page-locked memory) or 'off'"},
};

static const choice *choice_of(const char *name)
{
    for (size_t i = 0; i < sizeof choices / sizeof choices[0]; i++)
        if (!strcmp(name, choices[i].name)) return &choices[i];
    return NULL;
}

static int *choice_field(gnn_pragmas *p, const choice *c)
{
    return (int *)((char *)p + c->off);
}

static int set_choice(gnn_pragmas *p, const choice *c, const char *v,
                      gnn_err *e)
{
    int k = name_index(c->values, v);
    if (k < 0)
        return gnn_seterr(e, GNNDB_RANGE, "PRAGMA %s = '%s': use %s",
                          c->name, v ? v : "", c->use);
    *choice_field(p, c) = k;
    return GNNDB_OK;
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

static int set_pragma(gnndb *db, const char *name, const char *v, gnn_err *e)
{
    gnn_pragmas *p = &db->pragma;
    int64_t x;
    const choice *c = choice_of(name);
    if (c) return set_choice(p, c, v, e);
    if (!strcmp(name, "memory_limit") || !strcmp(name, "import_memory")) {
        x = db_parse_size(v);
        if (x < (1 << 20))
            return gnn_seterr(e, GNNDB_RANGE,
                              "PRAGMA %s = '%s': give a size of at least 1MB "
                              "such as '512MB' or '2GB'", name, v);
        if (!strcmp(name, "memory_limit")) p->memory_limit = x;
        else p->import_memory = x;
    } else if (!strcmp(name, "io")) {
        if (!strcmp(v, "auto")) p->io = IO_AUTO;
        else if (!strcmp(v, "uring")) p->io = IO_URING;
        else if (!strcmp(v, "pread")) p->io = IO_PREAD;
        else return gnn_seterr(e, GNNDB_RANGE,
                               "PRAGMA io = '%s': use 'uring', 'pread' or "
                               "'auto'", v);
    } else if (!strcmp(name, "threads")) {
        if (parse_int(v, 1, 256, &x))
            return gnn_seterr(e, GNNDB_RANGE,
                              "PRAGMA threads = %s: use 1 to 256", v);
        p->threads = (int)x;
    } else if (!strcmp(name, "io_depth")) {
        if (parse_int(v, 1, 4096, &x))
            return gnn_seterr(e, GNNDB_RANGE,
                              "PRAGMA io_depth = %s: use 1 to 4096", v);
        p->io_depth = (int)x;
    } else if (!strcmp(name, "batch_copies")) {
        if (parse_int(v, 0, 64, &x))
            return gnn_seterr(e, GNNDB_RANGE,
                              "PRAGMA batch_copies = %s: use 0 to 64", v);
        p->batch_copies = (int)x;
    } else if (!strcmp(name, "coalesce")) {
        if (parse_int(v, 1, 256, &x))
            return gnn_seterr(e, GNNDB_RANGE,
                              "PRAGMA coalesce = %s: use 1 to 256", v);
        p->coalesce = (int)x;
    } else if (!strcmp(name, "feature_cache")) {
        x = v && !strcmp(v, "auto") ? -1 : db_parse_size(v);
        if (x < 0 && !(v && !strcmp(v, "auto")))
            return gnn_seterr(e, GNNDB_RANGE,
                              "PRAGMA feature_cache = '%s': give a size such "
                              "as '64MB' (0 for none) or 'auto'", v ? v : "");
        p->feature_cache = x;
    } else if (!strcmp(name, "cache_policy")) {
        int pol = fc_policy_parse(v);
        if (pol < 0)
            return gnn_seterr(e, GNNDB_RANGE,
                              "PRAGMA cache_policy = '%s': use 'belady', "
                              "'lru', 'static_degree', 'hot_blocks' or "
                              "'none'", v ? v : "");
        p->cache_policy = pol;
    } else if (!strcmp(name, "temp_dir")) {
        if (!v || strlen(v) >= sizeof p->temp_dir)
            return gnn_seterr(e, GNNDB_RANGE, "PRAGMA temp_dir: give a "
                              "directory path shorter than %zu bytes ('' for "
                              "the database directory)", sizeof p->temp_dir);
        snprintf(p->temp_dir, sizeof p->temp_dir, "%s", v);
    } else if (!strcmp(name, "spill_limit")) {
        x = db_parse_size(v);
        if (x < 0 || (x > 0 && x < (1 << 20)))
            return gnn_seterr(e, GNNDB_RANGE,
                              "PRAGMA spill_limit = '%s': give a size of at "
                              "least 1MB such as '8GB', or 0 for no limit but "
                              "the disk", v ? v : "");
        p->spill_limit = x;
    } else if (!strcmp(name, "gpu_cache")) {
        x = db_parse_size(v);
        if (x < 0)
            return gnn_seterr(e, GNNDB_RANGE, "PRAGMA gpu_cache = '%s': give "
                              "a size such as '8GB', or 0 for none",
                              v ? v : "");
        p->gpu_cache = x;
    } else if (!strcmp(name, "format_version") || !strcmp(name, "stats")) {
        return gnn_seterr(e, GNNDB_READONLY, "PRAGMA %s is read-only", name);
    } else {
        return gnn_seterr(e, GNNDB_NOTFOUND, "unknown pragma: %s", name);
    }
    return GNNDB_OK;
}

static int add_setting(gnndb *db, rowset *rs, const char *name)
{
    gnn_pragmas *p = &db->pragma;
    char b[64];
    if (rs_row(rs) || rs_text(rs, name)) return -1;
    if (!strcmp(name, "memory_limit"))
        return rs_text(rs, db_fmt_size(p->memory_limit, b, sizeof b));
    if (!strcmp(name, "import_memory"))
        return rs_text(rs, db_fmt_size(p->import_memory, b, sizeof b));
    if (!strcmp(name, "io")) return rs_text(rs, io_names[p->io]);
    if (!strcmp(name, "threads")) return rs_int(rs, p->threads);
    if (!strcmp(name, "io_depth")) return rs_int(rs, p->io_depth);
    if (!strcmp(name, "coalesce")) return rs_int(rs, p->coalesce);
    if (!strcmp(name, "batch_copies")) return rs_int(rs, p->batch_copies);
    if (!strcmp(name, "feature_cache"))
        return rs_text(rs, p->feature_cache < 0
                               ? "auto"
                               : db_fmt_size(p->feature_cache, b, sizeof b));
    if (!strcmp(name, "cache_policy"))
        return rs_text(rs, fc_policy_name(p->cache_policy));
    if (!strcmp(name, "temp_dir"))
        return rs_text(rs, p->temp_dir[0] ? p->temp_dir : db->dir);
    if (!strcmp(name, "gpu_cache"))
        return rs_text(rs, db_fmt_size(p->gpu_cache, b, sizeof b));
    if (!strcmp(name, "spill_limit"))
        return p->spill_limit ? rs_text(rs, db_fmt_size(p->spill_limit, b,
                                                        sizeof b))
                              : rs_text(rs, "0");
    const choice *c = choice_of(name);
    if (c) return rs_text(rs, c->values[*choice_field(p, c)]);
    if (!strcmp(name, "format_version")) return rs_int(rs, GNNDB_FORMAT_VERSION);
    return rs_null(rs);
}

static const char *const settings[] = {"memory_limit", "io", "threads",
                                       "io_depth", "coalesce", "import_memory",
                                       "feature_cache", "cache_policy",
                                       "temp_dir", "spill_limit", "spill",
                                       "read_granularity", "strict",
                                       "batch_copies", "pin_memory", "gpu_cache",
                                       "format_version", NULL};

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
    int rc;
    if (name && !strcmp(name, "calibrate")) {
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
        for (int i = 0; settings[i]; i++) oom |= add_setting(db, rs, settings[i]);
    } else if (!strcmp(name, "stats")) {
        for (int i = 1; i < GNN_NSTATUS; i++)
            oom |= rs_prop_int(rs, stat_names[i], db->last_status[i]);
    } else if (!strcmp(name, "format_version")) {
        int64_t v = 0;
        if ((rc = cat_format_version(db->cat, &v, e))) { rs_free(rs); return rc; }
        oom |= rs_prop_int(rs, "format_version", v);
    } else {
        int known = 0;
        for (int i = 0; settings[i]; i++) known |= !strcmp(settings[i], name);
        if (!known) {
            rs_free(rs);
            return gnn_seterr(e, GNNDB_NOTFOUND, "unknown pragma: %s", name);
        }
        oom |= add_setting(db, rs, name);
    }
    if (oom) { rs_free(rs); return gnn_seterr(e, GNNDB_NOMEM, "out of memory"); }
    *out = rs;
    return GNNDB_OK;
}
