/* api.c — opening and closing a database, the error words, the write lock,
** and the clean-up of what a crash left behind. */
#include "db.h"
#include "segmap.h"
#include "block.h"
#include "io.h"
#include "rss.h"
#include "memory.h"
#include "pragmas.h"
#include "segmap.h"
#include "../parser/parse.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *gnndb_libversion(void) { return GNNDB_VERSION; }

const char *gnndb_keyword(int i, int *reserved)
{
    return parse_keyword(i, reserved);
}

const char *gnndb_errstr(int rc)
{
    switch (rc) {
    case GNNDB_OK: return "not an error";
    case GNNDB_ERROR: return "error";
    case GNNDB_INTERNAL: return "internal error";
    case GNNDB_NOMEM: return "out of memory";
    case GNNDB_IOERR: return "I/O error";
    case GNNDB_CORRUPT: return "database is corrupt";
    case GNNDB_NOTFOUND: return "not found";
    case GNNDB_EXISTS: return "already exists";
    case GNNDB_BUSY: return "database is busy";
    case GNNDB_SYNTAX: return "syntax error";
    case GNNDB_MISUSE: return "API misuse";
    case GNNDB_RANGE: return "value out of range";
    case GNNDB_FORMAT: return "malformed input file";
    case GNNDB_INTERRUPT: return "interrupted";
    case GNNDB_FULL: return "disk is full";
    case GNNDB_NODEVICE: return "no usable device";
    case GNNDB_CANTOPEN: return "unable to open database";
    case GNNDB_READONLY: return "database is read-only";
    case GNNDB_VERSION_MISMATCH: return "database format is too new";
    case GNNDB_ROW: return "another row available";
    case GNNDB_BATCH: return "another mini-batch available";
    case GNNDB_DONE: return "no more rows or batches";
    default: return "unknown result code";
    }
}

int db_error(gnndb *db, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(db->err.msg, sizeof db->err.msg, fmt, ap);
    va_end(ap);
    db->err.rc = rc;
    return rc;
}

int db_take(gnndb *db, gnn_err *e)
{
    if (e->rc == GNNDB_OK) return GNNDB_OK;
    if (&db->err != e) db->err = *e;
    if (!db->err.msg[0])
        snprintf(db->err.msg, sizeof db->err.msg, "%s", gnndb_errstr(e->rc));
    return e->rc;
}

/* Misuse detection. A thread is identified by the address of a thread-local
** byte; a thread turned away by db_enter() remembers the handle in a
** thread-local, so that its gnndb_errmsg/errcode can explain without
** touching the handle's error record, which the owning thread is using. */
static _Thread_local char tls_self;
static _Thread_local const gnndb *tls_misused;

#define MSG_TWO_THREADS \
    "gnndb handle used by two threads at once; use one handle per thread"

int db_enter(gnndb *db)
{
    uintptr_t me = (uintptr_t)&tls_self, cur = 0;
    if (atomic_compare_exchange_strong(&db->owner, &cur, me)) {
        db->depth = 1;
    } else if (cur == me) {
        db->depth++;
    } else {
        tls_misused = db;
        return GNNDB_MISUSE;
    }
    tls_misused = NULL;
    return GNNDB_OK;
}

void db_leave(gnndb *db)
{
    if (--db->depth == 0) atomic_store(&db->owner, (uintptr_t)0);
}

const char *gnndb_errmsg(gnndb *db)
{
    if (!db) return "out of memory";
    if (tls_misused == db) return MSG_TWO_THREADS;
    if (db->err.rc == GNNDB_OK) return "not an error";
    return db->err.msg;
}

int gnndb_errcode(gnndb *db)
{
    if (db && tls_misused == db) return GNNDB_MISUSE;
    return db ? db->err.rc : GNNDB_NOMEM;
}

/* A block file of this database, checked against what the catalog says of
** it, with buffer-pool file id `id`. */
static int open_file(gnndb *db, const char *file, uint32_t block_size,
                     uint16_t kind, uint64_t token, int64_t nblocks, int id,
                     blk_file **f, gnn_err *e)
{
    char path[1024], now[CAT_NAME_MAX];
    snprintf(path, sizeof path, "%s/%s", db->dir, file);
    int rc = blkf_open(path, block_size, kind, token, (uint64_t)nblocks, f, e);
    /* a statement prepared before a COMPACT of its version: the same
    ** blocks, with the same numbers and token, are in the plain file now */
    if (rc == GNNDB_NOTFOUND && seg_map_is_name(file) &&
        cat_file_of_token(db->cat, token, now, NULL) == GNNDB_OK &&
        strcmp(now, file) != 0) {
        gnn_clearerr(e);
        snprintf(path, sizeof path, "%s/%s", db->dir, now);
        rc = blkf_open(path, block_size, kind, token, (uint64_t)nblocks, f, e);
    }
    if (rc) return rc;
    (*f)->id = id;
    read_choice c;
    db_read_choice(db, path, &c);
    if (c.cached && (rc = blkf_through_cache(*f, e))) {
        blkf_close(*f);
        *f = NULL;
    }
    return rc;
}

int db_open_table(gnndb *db, const cat_table *t, int id, blk_file **f,
                  gnn_err *e)
{
    return open_file(db, t->file, t->block_size, BLK_KIND_FEATURE, t->token,
                     t->nblocks, id, f, e);
}

int db_open_graph(gnndb *db, const cat_graph *g, int id, blk_file **f,
                  gnn_err *e)
{
    return open_file(db, g->file, g->block_size, BLK_KIND_GRAPH, g->token,
                     g->graph_blocks, id, f, e);
}

int db_open_eid_graph(gnndb *db, const cat_graph *g, int id, blk_file **f,
                      gnn_err *e)
{
    int rc = cat_graph_need_eids(g, "reading edge ids", e);
    if (rc) return rc;
    return open_file(db, g->eid_file, g->block_size, BLK_KIND_GRAPH,
                     g->eid_token, g->eid_blocks, id, f, e);
}

/* The block index under `token` of a topology of graph g; `whose` starts
** the words naming it ("graph ", "the edge-id graph of "). */
static int load_index(gnndb *db, const cat_graph *g, uint64_t token,
                      const char *whose, uint64_t **first_nodes,
                      uint64_t **block_nos, size_t *n, gnn_err *e)
{
    idx_txn *t;
    int rc = idx_begin(db->idx, 0, &t, e);
    if (rc) return rc;
    rc = idx_load_blocks(t, token, first_nodes, block_nos, n, e);
    idx_abort(t);
    if (!rc && *n == 0 && g->nodes > 0)
        rc = gnn_seterr(e, GNNDB_CORRUPT, "index.mdb has no block index for "
                        "%s%s", whose, g->name);
    return rc;
}

int db_load_eid_index(gnndb *db, const cat_graph *g, uint64_t **first_nodes,
                      uint64_t **block_nos, size_t *n, gnn_err *e)
{
    int rc = cat_graph_need_eids(g, "reading edge ids", e);
    return rc ? rc : load_index(db, g, g->eid_token, "the edge-id graph of ",
                                first_nodes, block_nos, n, e);
}

int db_load_graph_index(gnndb *db, const cat_graph *g, uint64_t **first_nodes,
                        uint64_t **block_nos, size_t *n, gnn_err *e)
{
    return load_index(db, g, g->token, "graph ", first_nodes, block_nos, n, e);
}

uint64_t db_new_token(void)
{
    uint64_t t = 0;
    while (t == 0) {
        if (getrandom(&t, sizeof t, 0) != (ssize_t)sizeof t) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            t = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
                ((uint64_t)getpid() << 40) ^ (uint64_t)(uintptr_t)&ts;
        }
    }
    return t;
}

const char *db_temp_dir(const gnndb *db)
{
    return db->pragma.temp_dir[0] ? db->pragma.temp_dir : db->dir;
}

int64_t db_parse_size(const char *s)
{
    if (!s) return -1;
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0) return -1;
    while (*end == ' ') end++;
    double mul = 1;
    switch (toupper((unsigned char)*end)) {
    case 'K': mul = 1024.0; end++; break;
    case 'M': mul = 1024.0 * 1024; end++; break;
    case 'G': mul = 1024.0 * 1024 * 1024; end++; break;
    case 'T': mul = 1024.0 * 1024 * 1024 * 1024; end++; break;
    case 0: break;
    case 'B': break;
    default: return -1;
    }
    if (toupper((unsigned char)*end) == 'I') end++;
    if (toupper((unsigned char)*end) == 'B') end++;
    if (*end) return -1;
    double b = v * mul;
    return b > 9e18 ? -1 : (int64_t)b;
}

const char *db_fmt_size(int64_t bytes, char *buf, size_t len)
{
    return gnn_fmt_size(bytes, buf, len);
}

int db_write_lock(gnndb *db)
{
    if (db->flags & GNNDB_OPEN_READONLY)
        return db_error(db, GNNDB_READONLY,
                        "database %s is open read-only", db->dir);
    if (flock(db->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK)
            return db_error(db, GNNDB_BUSY,
                            "database is busy: another process is writing "
                            "to %s", db->dir);
        return db_error(db, GNNDB_IOERR, "cannot lock %s: %s", db->dir,
                        strerror(errno));
    }
    return GNNDB_OK;
}

void db_write_unlock(gnndb *db)
{
    if (db->lock_fd >= 0) flock(db->lock_fd, LOCK_UN);
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

int db_cleanup_orphans(gnndb *db, gnn_err *e)
{
    db_files live;
    uint64_t *toks = NULL, *itoks = NULL;
    size_t nt = 0, ni = 0;
    int rc = db_files_live(db, &live, e);
    if (rc) return rc;
    if ((rc = cat_tokens(db->cat, &toks, &nt, e))) goto out;
    DIR *d = opendir(db->dir);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d))) {
            const char *n = de->d_name;
            if (!ends_with(n, ".blk") && !ends_with(n, ".seg") &&
                !ends_with(n, ".tmp") && strncmp(n, "tmp-", 4) != 0)
                continue;
            /* a map that cannot be read may name any block file */
            if (!db_files_has(&live, n) &&
                !(live.partial && !ends_with(n, ".tmp") &&
                  strncmp(n, "tmp-", 4) != 0)) {
                char path[1024];
                snprintf(path, sizeof path, "%s/%s", db->dir, n);
                unlink(path);
            }
        }
        closedir(d);
    }
    idx_txn *t;
    if ((rc = idx_begin_fresh(db->idx, &t, e))) goto out;
    rc = idx_tokens(t, &itoks, &ni, e);
    for (size_t i = 0; !rc && i < ni; i++) {
        int known = 0;
        for (size_t j = 0; j < nt && !known; j++) known = toks[j] == itoks[i];
        if (!known) rc = idx_drop(t, itoks[i], e);
    }
    if (rc) idx_abort(t);
    else rc = idx_commit(t, e);
out:
    db_files_free(&live);
    free(toks);
    free(itoks);
    return rc;
}

/* The first file of a database besides the catalog that `dir` holds (the
** index or a block file), or NULL. */
static const char *holds_data(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return NULL;
    const char *what = NULL;
    struct dirent *de;
    while (!what && (de = readdir(d))) {
        if (!strcmp(de->d_name, "index.mdb")) what = "index.mdb";
        else if (ends_with(de->d_name, ".blk")) what = "a block file";
    }
    closedir(d);
    return what;
}

int gnndb_open(const char *path, gnndb **pdb, int flags)
{
    if (!pdb) return GNNDB_MISUSE;
    gnndb *db = calloc(1, sizeof *db);
    *pdb = db;
    if (!db) return GNNDB_NOMEM;
    db->lock_fd = -1;
    db->flags = flags;
    db_pragma_defaults(&db->pragma);   /* pragmas.c's table */
    db->progress_n = 1;
    if (!path || !*path)
        return db_error(db, GNNDB_MISUSE, "no database path given");
    if (strlen(path) >= sizeof db->dir - 32)
        return db_error(db, GNNDB_CANTOPEN, "path too long: %s", path);
    snprintf(db->dir, sizeof db->dir, "%s", path);
    int readonly = (flags & GNNDB_OPEN_READONLY) != 0;

    struct stat sb;
    if (stat(path, &sb) != 0) {
        if (readonly || !(flags & GNNDB_OPEN_CREATE))
            return db_error(db, GNNDB_CANTOPEN,
                            "unable to open database %s: no such directory",
                            path);
        if (mkdir(path, 0777) != 0)
            return db_error(db, GNNDB_CANTOPEN,
                            "unable to create database %s: %s", path,
                            strerror(errno));
    } else if (!S_ISDIR(sb.st_mode)) {
        return db_error(db, GNNDB_CANTOPEN,
                        "unable to open database %s: not a directory", path);
    }
    char p[1024];
    snprintf(p, sizeof p, "%s/lock", path);
    db->lock_fd = open(p, readonly ? O_RDONLY | O_CLOEXEC
                                   : O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (db->lock_fd < 0 && !readonly)
        return db_error(db, GNNDB_CANTOPEN, "unable to open database %s: %s",
                        path, strerror(errno));

    gnn_err e = {0};
    snprintf(p, sizeof p, "%s/catalog.db", path);
    if (readonly && access(p, F_OK) != 0)
        return db_error(db, GNNDB_CANTOPEN,
                        "unable to open database %s: catalog.db is missing",
                        path);
    /* A fresh catalog over the files of a database that lost its own would
    ** be an empty database, and the clean-up below would then delete every
    ** block file and index key as orphans. */
    const char *data = NULL;
    if (!readonly && access(p, F_OK) != 0 && (data = holds_data(path)))
        return db_error(db, GNNDB_CORRUPT,
                        "unable to open database %s: catalog.db is missing "
                        "but %s is there; not creating an empty catalog over "
                        "it", path, data);
    if (cat_open(p, readonly, &db->cat, &e)) return db_take(db, &e);
    snprintf(p, sizeof p, "%s/index.mdb", path);
    if (idx_open(p, readonly, &db->idx, &e)) return db_take(db, &e);

    /* a writer finishes what a crash left: files and keys no catalog row
    ** names; skipped while another process holds the write lock */
    if (!readonly && flock(db->lock_fd, LOCK_EX | LOCK_NB) == 0) {
        int rc = db_cleanup_orphans(db, &e);
        flock(db->lock_fd, LOCK_UN);
        if (rc) return db_take(db, &e);
    }
    return GNNDB_OK;
}

int gnndb_close(gnndb *db)
{
    if (!db) return GNNDB_OK;
    uintptr_t cur = atomic_load(&db->owner);
    if (cur && cur != (uintptr_t)&tls_self) {
        tls_misused = db;   /* closing under another thread's statement */
        return GNNDB_MISUSE;
    }
    if (db->idx) idx_close(db->idx);
    if (db->cat) cat_close(db->cat);
    if (db->lock_fd >= 0) close(db->lock_fd);
    free(db);
    return GNNDB_OK;
}

int gnndb_memory_baseline(gnndb *db, int64_t bytes)
{
    if (!db || bytes < GNNDB_BASELINE_PREPARE) return GNNDB_MISUSE;
    db->mem_base_at_prepare = bytes == GNNDB_BASELINE_PREPARE;
    db->mem_base = bytes >= 0 ? bytes : GNN_MAX(gnn_rss_now(), 0);
    return GNNDB_OK;
}

void gnndb_interrupt(gnndb *db)
{
    if (db) db->interrupt = 1;
}

void gnndb_progress_handler(gnndb *db, int n,
                            int (*cb)(void *, int64_t, int64_t), void *arg)
{
    if (!db) return;
    db->progress = cb;
    db->progress_arg = arg;
    db->progress_n = n > 0 ? n : 1;
}

int db_progress(gnndb *db, int64_t done, int64_t step, int64_t total)
{
    int64_t n = db->progress_n;
    if (db->progress && (step <= 0 || (done - step) / n != done / n) &&
        db->progress(db->progress_arg, done, total))
        db->interrupt = 1;
    return db->interrupt ? GNNDB_INTERRUPT : GNNDB_OK;
}

int db_import_progress(void *db, int64_t done, int64_t total)
{
    return db_progress(db, done, 0, total) != GNNDB_OK;
}
