/* open.c — opening the catalog (catalog.db): the schema, created in one
** transaction or brought up to date by the migrations, and the checks that
** a file is ours and of a format this library reads. */
#include "cat_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The format a database is created at, and migrated up to: an older
** library reads it. The first append (INSERT EDGES) moves it to 4
** (versions.c), which only this one reads. */
#define FORMAT_CREATED 3

/* How long a statement waits for another connection's write lock. */
#define CAT_BUSY_MS 2000

/* Version 1 of the schema. Tokens are INTEGER: uint64 stored as int64. */
static const char schema_v1[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value);"
    "CREATE TABLE graphs("
    "  id INTEGER PRIMARY KEY,"
    "  name TEXT NOT NULL UNIQUE,"
    "  token INTEGER NOT NULL,"
    "  file TEXT NOT NULL,"
    "  nodes INTEGER NOT NULL,"
    "  edges INTEGER NOT NULL,"
    "  directed INTEGER NOT NULL,"
    "  block_size INTEGER NOT NULL,"
    "  node_order TEXT NOT NULL,"
    "  graph_blocks INTEGER NOT NULL,"
    "  has_map INTEGER NOT NULL,"
    "  max_degree INTEGER, min_degree INTEGER, median_degree INTEGER,"
    "  mean_degree REAL,"
    "  source TEXT);"
    "CREATE TABLE tables("
    "  id INTEGER PRIMARY KEY,"
    "  graph_id INTEGER NOT NULL REFERENCES graphs(id) ON DELETE CASCADE,"
    "  name TEXT NOT NULL,"
    "  kind INTEGER NOT NULL,"
    "  token INTEGER NOT NULL,"
    "  file TEXT NOT NULL,"
    "  rows INTEGER NOT NULL,"
    "  dim INTEGER NOT NULL,"
    "  dtype INTEGER NOT NULL,"
    "  block_size INTEGER NOT NULL,"
    "  rows_per_block INTEGER NOT NULL,"
    "  nblocks INTEGER NOT NULL,"
    "  nclasses INTEGER,"
    "  source TEXT,"
    "  UNIQUE(graph_id, name));"
    "CREATE TABLE splits("
    "  id INTEGER PRIMARY KEY,"
    "  graph_id INTEGER NOT NULL REFERENCES graphs(id) ON DELETE CASCADE,"
    "  name TEXT NOT NULL,"
    "  token INTEGER NOT NULL,"
    "  count INTEGER NOT NULL,"
    "  UNIQUE(graph_id, name));"
    "CREATE TABLE checksums("
    "  file TEXT NOT NULL,"
    "  block_no INTEGER NOT NULL,"
    "  crc INTEGER NOT NULL,"
    "  PRIMARY KEY(file, block_no)) WITHOUT ROWID;"
    "CREATE TABLE degree_hist("
    "  graph_id INTEGER NOT NULL REFERENCES graphs(id) ON DELETE CASCADE,"
    "  bucket INTEGER NOT NULL,"
    "  count INTEGER NOT NULL,"
    "  PRIMARY KEY(graph_id, bucket)) WITHOUT ROWID;"
    "CREATE TABLE stmt_log("
    "  id INTEGER PRIMARY KEY,"
    "  ts TEXT NOT NULL,"
    "  sql TEXT,"
    "  rc INTEGER NOT NULL,"
    "  ms REAL NOT NULL);";

/* Additive changes to the schema after version 1, applied in order. Each
** adds what an older library can ignore (so format_version stays 1, and an
** older gnndb still opens the database); meta('schema_version') records the
** last one applied. A writable open applies the missing ones in one
** transaction; a read-only open of an older schema works without them (the
** readers of a newer table treat its absence as "nothing stored"). */
static const char *const migrations[] = {
    /* 2: the disk profile measured by PRAGMA calibrate (catalog/profile.c) */
    "CREATE TABLE IF NOT EXISTS disk_profile("
    "  key TEXT PRIMARY KEY,"
    "  value) WITHOUT ROWID;",
    /* 3: packs, SAMPLE ... INTO PACK (catalog/packs.c) */
    catx_schema_packs,
    /* 4: edge ids and edge splits (catalog/objects.c); sets format_version
    ** 3, since a format-2 gnndb would misread what hangs off them (an edge
    ** split would read as an empty node split) */
    catx_schema_eids,
    /* 5: typed graphs: node types, relations, the node type of a table or
    ** split (catalog/hetero.c). format_version stays 3: no released
    ** reader of format 3 predates it */
    catx_schema_types,
    /* 6: the range of a graph's edge and node times, for DESCRIBE
    ** (catalog/time_ranges.c) */
    catx_schema_time_ranges,
    /* 7: versions of a graph (INSERT EDGES) and the import options
    ** CREATE GRAPH used (catalog/versions.c) */
    catx_schema_versions,
};
#define SCHEMA_VERSION (1 + (int)(sizeof migrations / sizeof migrations[0]))


/* One integer from a query with no parameters; *found says whether a row
** came back. */
static int query_int(cat_db *c, const char *sql, int64_t *v, int *found,
                     gnn_err *e)
{
    sqlite3_stmt *st;
    int rc = catx_prepare(c, sql, &st, e);
    if (rc) return rc;
    *found = 0;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *found = sqlite3_column_type(st, 0) != SQLITE_NULL;
        *v = sqlite3_column_int64(st, 0);
        rc = SQLITE_DONE;
    }
    int out = rc == SQLITE_DONE ? GNNDB_OK : catx_err(c, rc, "reading", e);
    sqlite3_finalize(st);
    return out;
}

/* ---- opening ------------------------------------------------------------- */

static int not_ours(cat_db *c, const char *why, gnn_err *e)
{
    return gnn_seterr(e, GNNDB_CORRUPT, "%s is not a gnndb catalog: %s",
                      c->path, why);
}

static int has_meta(cat_db *c, int *yes, int64_t *ntables, gnn_err *e)
{
    int found;
    int64_t v = 0;
    int rc = query_int(c, "SELECT count(*) FROM sqlite_master "
                          "WHERE type = 'table' AND name = 'meta'",
                       &v, &found, e);
    if (rc) return rc;
    *yes = v > 0;
    return query_int(c, "SELECT count(*) FROM sqlite_master", ntables, &found,
                     e);
}

static int check_version(cat_db *c, gnn_err *e)
{
    int64_t v = 0;
    int rc = cat_format_version(c, &v, e);
    if (rc) return rc;
    if (v > GNNDB_FORMAT_VERSION)
        return gnn_seterr(e, GNNDB_VERSION_MISMATCH,
                          "%s has format version %" PRId64 "; this gnndb "
                          "reads up to %d", c->path, v, GNNDB_FORMAT_VERSION);
    if (v < 1)
        return gnn_seterr(e, GNNDB_CORRUPT,
                          "%s is damaged: format version %" PRId64, c->path, v);
    /* Format 1 blocks carry one checksum each, so a read of some of their
    ** pages could not be verified: rather than trust them, ask for the
    ** database to be built again (its block files are rewritten anyway).
    ** Format 2 lacks only edge ids: a writable open migrates it (its
    ** graphs have none), a read-only one reads it as it is. */
    if (v < 2)
        return gnn_seterr(e, GNNDB_VERSION_MISMATCH,
                          "%s has format version %" PRId64 "; this gnndb "
                          "reads formats 2 to %d only (blocks with page "
                          "checksums): rebuild it into a new database with "
                          "CREATE GRAPH, IMPORT FEATURES, IMPORT LABELS, "
                          "CREATE SPLIT and PROPAGATE from the sources that "
                          "DESCRIBE lists under an older gnndb", c->path, v,
                          GNNDB_FORMAT_VERSION);
    return GNNDB_OK;
}

/* meta('schema_version'); 1 when absent (a catalog made before it). */
static int schema_version(cat_db *c, int64_t *v, gnn_err *e)
{
    int found = 0;
    int rc = query_int(c, "SELECT value FROM meta WHERE key = 'schema_version'",
                       v, &found, e);
    if (!rc && !found) *v = 1;
    return rc;
}

/* Bring a schema of version 1 or later up to SCHEMA_VERSION; the caller
** holds a write transaction. */
static int apply_migrations(cat_db *c, gnn_err *e)
{
    int64_t v;
    int rc = schema_version(c, &v, e);
    if (rc) return rc;
    if (v >= SCHEMA_VERSION) return GNNDB_OK;
    for (int64_t k = v + 1; k <= SCHEMA_VERSION; k++)
        if ((rc = catx_exec(c, migrations[k - 2], e))) return rc;
    char ins[128];
    snprintf(ins, sizeof ins,
             "INSERT OR REPLACE INTO meta(key, value) "
             "VALUES('schema_version', %d)", SCHEMA_VERSION);
    return catx_exec(c, ins, e);
}

/* Apply missing migrations in one transaction (a concurrent opener may have
** applied them first: they are checked again under the lock). */
static int migrate(cat_db *c, gnn_err *e)
{
    int64_t v, f;
    int rc = schema_version(c, &v, e);
    if (!rc) rc = cat_format_version(c, &f, e);
    if (rc) return rc;
    if (v >= SCHEMA_VERSION && f >= FORMAT_CREATED) return GNNDB_OK;
    if ((rc = catx_exec(c, "BEGIN IMMEDIATE", e))) return rc;
    /* format 2 with every migration applied cannot come of an older
    ** library, but is set to 3 all the same */
    if ((rc = apply_migrations(c, e)) ||
        (rc = catx_exec(c, "UPDATE meta SET value = 3 WHERE key = "
                           "'format_version' AND value < 3", e)) ||
        (rc = catx_exec(c, "COMMIT", e))) {
        sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
        return rc;
    }
    return GNNDB_OK;
}

/* Create the schema in one transaction, unless a concurrent opener did. */
static int create_schema(cat_db *c, gnn_err *e)
{
    int rc = catx_exec(c, "BEGIN IMMEDIATE", e);
    if (rc) return rc;
    int meta;
    int64_t ntables;
    if ((rc = has_meta(c, &meta, &ntables, e))) goto fail;
    if (meta) return catx_exec(c, "COMMIT", e);
    if (ntables) { rc = not_ours(c, "it has tables but no meta table", e); goto fail; }
    char ins[128];
    snprintf(ins, sizeof ins,
             "INSERT INTO meta(key, value) VALUES('format_version', %d)",
             FORMAT_CREATED);
    if ((rc = catx_exec(c, schema_v1, e)) || (rc = catx_exec(c, ins, e)) ||
        (rc = apply_migrations(c, e)) || (rc = catx_exec(c, "COMMIT", e)))
        goto fail;
    return GNNDB_OK;
fail:
    sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

static int open_conn(cat_db *c, gnn_err *e)
{
    int flags = c->readonly ? SQLITE_OPEN_READONLY
                            : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    int rc = sqlite3_open_v2(c->path, &c->db, flags, NULL);
    if (rc) {
        const char *why = c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(rc);
        return gnn_seterr(e, (rc & 0xff) == SQLITE_NOMEM ? GNNDB_NOMEM
                                                         : GNNDB_CANTOPEN,
                          "unable to open catalog %s: %s", c->path, why);
    }
    sqlite3_busy_timeout(c->db, CAT_BUSY_MS);

    /* SQLite reads the file lazily: this first query is where a file that
    ** is not a database shows. */
    int meta;
    int64_t ntables;
    if ((rc = has_meta(c, &meta, &ntables, e))) {
        if (rc == GNNDB_CORRUPT)
            return gnn_seterr(e, GNNDB_CORRUPT,
                              "%s is not a gnndb catalog: %s", c->path,
                              sqlite3_errmsg(c->db));
        return rc;
    }
    if (!meta && (c->readonly || ntables))
        return not_ours(c, "it has no meta table", e);
    /* refuse a newer format before changing anything in it */
    if (meta && (rc = check_version(c, e))) return rc;
    if (!c->readonly) {
        /* WAL: readers never block the writer, nor the writer readers */
        sqlite3_stmt *st;
        if ((rc = catx_prepare(c, "PRAGMA journal_mode=WAL", &st, e)))
            return rc;
        if ((rc = catx_run(c, st, "setting WAL mode", e))) return rc;
    }
    if ((rc = catx_exec(c, "PRAGMA foreign_keys=ON", e))) return rc;
    if (!meta) {
        if ((rc = create_schema(c, e))) return rc;
        if ((rc = check_version(c, e))) return rc;
    } else if (!c->readonly && (rc = migrate(c, e))) {
        return rc;
    }
    if ((rc = catx_eids_schema(c, e)) || (rc = catx_types_schema(c, e)) ||
        (rc = catx_versions_schema(c, e)))
        return rc;
    return catx_packs_schema(c, e);
}

int cat_open(const char *path, int readonly, cat_db **out, gnn_err *e)
{
    *out = NULL;
    cat_db *c = calloc(1, sizeof *c);
    if (!c) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    if (strlen(path) >= sizeof c->path) {
        free(c);
        return gnn_seterr(e, GNNDB_CANTOPEN, "catalog path too long: %s",
                          path);
    }
    snprintf(c->path, sizeof c->path, "%s", path);
    c->readonly = readonly;
    int rc = open_conn(c, e);
    if (rc) {
        cat_close(c);
        return rc;
    }
    *out = c;
    return GNNDB_OK;
}

void cat_close(cat_db *c)
{
    if (!c) return;
    if (c->db) {
        if (!sqlite3_get_autocommit(c->db))
            sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
        sqlite3_close_v2(c->db);
    }
    free(c);
}

int cat_format_version(cat_db *c, int64_t *v, gnn_err *e)
{
    int found = 0;
    int rc = query_int(c, "SELECT value FROM meta WHERE key = 'format_version'",
                       v, &found, e);
    if (rc) return rc;
    if (!found)
        return gnn_seterr(e, GNNDB_CORRUPT,
                          "%s is damaged: meta has no format_version", c->path);
    return GNNDB_OK;
}
