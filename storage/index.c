/* index.c — the LMDB index (index.mdb): block ranges, id arrays, key maps
** and split members, every key prefixed by a tag byte and its owner's token. */
#include "index.h"
#include "sort.h"

#include <errno.h>
#include <inttypes.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

/* Virtual size of the map. LMDB maps it sparsely and the file grows only as
** pages are used, so a large value costs address space, not disk. */
#define IDX_MAPSIZE ((size_t)1 << 40)
/* Read transactions hold a reader slot each; loaders run several threads. */
#define IDX_MAXREADERS 1024

#define KEY_LEN 17 /* tag, 8-byte token, 8-byte number */

/* One LMDB environment open in this process, shared by every handle on the
** same index.mdb. */
typedef struct idx_shared {
    dev_t dev;                /* (dev, ino) of index.mdb: the registry key */
    ino_t ino;
    MDB_env *env;
    MDB_dbi dbi;
    int rdonly;               /* the environment itself is MDB_RDONLY */
    int refs;                 /* idx_env handles using it */
    struct idx_shared *next;
} idx_shared;

/* A connection's view of the index: the shared environment, and whether
** this connection may write (read-only is enforced here, per handle). */
struct idx_env {
    idx_shared *sh;
    MDB_env *env;             /* sh->env and sh->dbi, copied for brevity */
    MDB_dbi dbi;
    int readonly;
    char path[1024];
};

/* ---- the registry of open environments ------------------------------------
**
** The one piece of process-wide mutable state in gnndb, and why it exists:
** LMDB forbids opening the same environment twice in one process. Its reader
** table and writer lock live in index.mdb-lock and are tied to the process,
** and its locks on the files are POSIX fcntl locks, which belong to the
** process rather than to the descriptor, so closing a second MDB_env on the
** same file silently drops the locks the first one holds (the same trap
** SQLite works around in os_unix.c with its inode table). Yet "one handle
** per thread" means several gnndb handles on one database in one process.
** So every handle on a given index.mdb, identified by (st_dev, st_ino), shares
** one MDB_env, reference-counted and closed with the last handle. MDB_NOTLS
** lets any thread run read transactions on it; LMDB's own writer mutex
** serializes write transactions (and gnndb's flock on `lock` already allows
** one writing handle per database).
**
** The environment is opened read-write whenever the file is writable, even
** for a read-only handle, so that a writer opening later in the same process
** can share it; GNNDB_OPEN_READONLY is enforced per handle in idx_begin().
** Only when the file cannot be written is the environment MDB_RDONLY, and
** then no handle of this process can write to it anyway.
**
** After fork() the child must not use environments its parent opened (an
** LMDB rule): open databases after forking, as data-parallel trainers do. */
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static idx_shared *reg_head;

struct idx_txn {
    idx_env *env;
    MDB_txn *txn;
    int write;
    /* the chunk idx_map_array used last: lookups of nearby ids reuse it.
    ** The pointer is into the map: valid until the transaction ends or, in
    ** a write transaction, until its next change (which clears it). */
    int cache_ok;
    char cache_tag;
    uint64_t cache_token;
    uint64_t cache_chunk;
    const unsigned char *cache_data;
    size_t cache_n;
    /* idx_begin_fresh: commit every IDX_TXN_BYTES put */
    int fresh;
    size_t put_bytes;
};

/* ---- keys --------------------------------------------------------------- */

static void put_be64(unsigned char *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--) { p[i] = (unsigned char)v; v >>= 8; }
}

static uint64_t get_be64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
    return v;
}

static MDB_val make_key(unsigned char *buf, char tag, uint64_t token,
                        uint64_t num)
{
    buf[0] = (unsigned char)tag;
    put_be64(buf + 1, token);
    put_be64(buf + 9, num);
    MDB_val k = { KEY_LEN, buf };
    return k;
}

/* Signed keys sort numerically once the sign bit is flipped. */
static uint64_t signed_ord(int64_t v) { return (uint64_t)v ^ (1ull << 63); }

/* Does `k` belong to (tag, token)? */
static int key_is(const MDB_val *k, char tag, uint64_t token)
{
    const unsigned char *p = k->mv_data;
    return k->mv_size == KEY_LEN && p[0] == (unsigned char)tag &&
           get_be64(p + 1) == token;
}

static uint64_t key_num(const MDB_val *k)
{
    return get_be64((const unsigned char *)k->mv_data + 9);
}

/* ---- errors ------------------------------------------------------------- */

/* Map an LMDB or errno code to a GNNDB code, with words naming the file. */
static int lmdb_err(const char *path, int rc, const char *what, gnn_err *e)
{
    const char *why = mdb_strerror(rc);
    switch (rc) {
    case MDB_MAP_FULL:
    case MDB_TXN_FULL:
    case MDB_CURSOR_FULL:
    case ENOSPC:
    case EDQUOT:
        return gnn_seterr(e, GNNDB_FULL, "%s is full (%s): %s", path, what,
                          why);
    case MDB_CORRUPTED:
    case MDB_INVALID:
    case MDB_VERSION_MISMATCH:
    case MDB_PAGE_NOTFOUND:
        return gnn_seterr(e, GNNDB_CORRUPT, "%s is damaged: %s (%s)", path,
                          why, what);
    case MDB_READERS_FULL:
        return gnn_seterr(e, GNNDB_BUSY, "%s: %s: %s", path, what, why);
    case ENOMEM:
        return gnn_seterr(e, GNNDB_NOMEM, "%s: %s: %s", path, what, why);
    case EACCES:
    case EPERM:
    case EROFS:
    case ENOENT:
    case ENOTDIR:
    case EISDIR:
    case EAGAIN:
        return gnn_seterr(e, GNNDB_CANTOPEN, "unable to open index %s: %s",
                          path, why);
    case EIO:
        return gnn_seterr(e, GNNDB_IOERR, "%s: %s: %s", path, what, why);
    default:
        return gnn_seterr(e, rc > 0 ? GNNDB_IOERR : GNNDB_ERROR,
                          "%s: %s: %s", path, what, why);
    }
}

#define TERR(t, rc, what, e) lmdb_err((t)->env->path, (rc), (what), (e))

static int corrupt(idx_txn *t, gnn_err *e, const char *fmt_what, char tag,
                   uint64_t token, uint64_t num)
{
    char what[256];
    snprintf(what, sizeof what, fmt_what, num);
    return gnn_seterr(e, GNNDB_CORRUPT,
                      "%s is damaged: %s of '%c' token %016" PRIx64,
                      t->env->path, what, tag, token);
}

static int oom(gnn_err *e) { return gnn_seterr(e, GNNDB_NOMEM, "out of memory"); }

/* ---- environment and transactions ---------------------------------------- */

/* Open a new MDB_env on `path` and its unnamed database. `rdonly`: open it
** MDB_RDONLY (falling back to MDB_NOLOCK where the lock file cannot be made:
** a read-only directory, which nobody can be writing to). */
static int env_open(const char *path, int rdonly, MDB_env **penv,
                    MDB_dbi *pdbi, gnn_err *e)
{
    MDB_env *env = NULL;
    /* NOTLS: a read transaction belongs to its idx_txn, not to the thread,
    ** so one thread may hold several and pass them around, and handles of
    ** different threads share the environment. */
    unsigned flags = MDB_NOSUBDIR | MDB_NOTLS | (rdonly ? MDB_RDONLY : 0);
    size_t mapsize = IDX_MAPSIZE;
    int rc = 0;
    for (int attempt = 0; attempt < 8; attempt++) {
        if ((rc = mdb_env_create(&env)))
            return lmdb_err(path, rc, "creating environment", e);
        if ((rc = mdb_env_set_mapsize(env, mapsize)) ||
            (rc = mdb_env_set_maxreaders(env, IDX_MAXREADERS))) {
            mdb_env_close(env);
            return lmdb_err(path, rc, "configuring environment", e);
        }
        rc = mdb_env_open(env, path, flags, 0666);
        if (!rc) break;
        mdb_env_close(env);
        env = NULL;
        /* No address space for the map (`ulimit -v`, valgrind): a smaller
        ** one still holds any index gnndb writes, down to 1 GiB. */
        if ((rc == ENOMEM || rc == EINVAL) && mapsize > ((size_t)1 << 30)) {
            mapsize >>= 2;
            continue;
        }
        if (!(rdonly && (rc == EACCES || rc == EROFS)) || (flags & MDB_NOLOCK))
            break;
        flags |= MDB_NOLOCK;
    }
    if (rc) return lmdb_err(path, rc, "opening", e);

    /* The unnamed database always exists; open its handle once. */
    MDB_txn *t;
    rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &t);
    if (!rc) {
        rc = mdb_dbi_open(t, NULL, 0, pdbi);
        if (rc) mdb_txn_abort(t);
        else rc = mdb_txn_commit(t);
    }
    if (rc) {
        mdb_env_close(env);
        return lmdb_err(path, rc, "opening the database", e);
    }
    *penv = env;
    return GNNDB_OK;
}

/* Find or open the shared environment of `path`; called under reg_mu. */
static int reg_acquire(const char *path, int readonly, idx_shared **out,
                       gnn_err *e)
{
    struct stat sb;
    int exists = stat(path, &sb) == 0;
    if (!exists && (readonly || errno != ENOENT))
        return gnn_seterr(e, GNNDB_CANTOPEN, "unable to open index %s: %s",
                          path, strerror(errno));
    if (exists) {
        for (idx_shared *s = reg_head; s; s = s->next)
            if (s->dev == sb.st_dev && s->ino == sb.st_ino) {
                s->refs++;
                *out = s;
                return GNNDB_OK;
            }
    }
    idx_shared *s = calloc(1, sizeof *s);
    if (!s) return oom(e);
    /* read-write whenever this process may write the file (see above) */
    s->rdonly = exists && access(path, W_OK) != 0;
    int rc = env_open(path, s->rdonly, &s->env, &s->dbi, e);
    if (rc == GNNDB_CANTOPEN && readonly && !s->rdonly) {
        /* a writable file in a directory where the lock file cannot be
        ** made: a reader still reads */
        s->rdonly = 1;
        rc = env_open(path, 1, &s->env, &s->dbi, e);
    }
    if (rc) { free(s); return rc; }
    if (stat(path, &sb) != 0) {   /* created just now: key it */
        int err = errno;
        mdb_env_close(s->env);
        free(s);
        return gnn_seterr(e, GNNDB_CANTOPEN, "unable to open index %s: %s",
                          path, strerror(err));
    }
    s->dev = sb.st_dev;
    s->ino = sb.st_ino;
    s->refs = 1;
    s->next = reg_head;
    reg_head = s;
    *out = s;
    return GNNDB_OK;
}

int idx_open(const char *path, int readonly, idx_env **out, gnn_err *e)
{
    *out = NULL;
    if (strlen(path) >= sizeof((idx_env *)0)->path)
        return gnn_seterr(e, GNNDB_CANTOPEN, "index path too long: %s", path);
    idx_env *x = calloc(1, sizeof *x);
    if (!x) return oom(e);
    snprintf(x->path, sizeof x->path, "%s", path);
    pthread_mutex_lock(&reg_mu);
    int rc = reg_acquire(path, readonly, &x->sh, e);
    pthread_mutex_unlock(&reg_mu);
    if (rc) { free(x); return rc; }
    x->env = x->sh->env;
    x->dbi = x->sh->dbi;
    x->readonly = readonly || x->sh->rdonly;
    *out = x;
    return GNNDB_OK;
}

void idx_close(idx_env *env)
{
    if (!env) return;
    idx_shared *s = env->sh, *gone = NULL;
    pthread_mutex_lock(&reg_mu);
    if (--s->refs == 0) {
        for (idx_shared **pp = &reg_head; *pp; pp = &(*pp)->next)
            if (*pp == s) { *pp = s->next; break; }
        gone = s;
    }
    pthread_mutex_unlock(&reg_mu);
    if (gone) {
        /* the last handle: every transaction of every handle has ended */
        mdb_env_close(gone->env);
        free(gone);
    }
    free(env);
}

int idx_begin(idx_env *env, int write, idx_txn **out, gnn_err *e)
{
    *out = NULL;
    if (write && env->readonly)
        return gnn_seterr(e, GNNDB_READONLY,
                          "index %s is opened read-only", env->path);
    idx_txn *t = calloc(1, sizeof *t);
    if (!t) return oom(e);
    t->env = env;
    t->write = write;
    int rc = mdb_txn_begin(env->env, NULL, write ? 0 : MDB_RDONLY, &t->txn);
    if (rc) {
        free(t);
        return lmdb_err(env->path, rc, "beginning a transaction", e);
    }
    *out = t;
    return GNNDB_OK;
}

int idx_begin_fresh(idx_env *env, idx_txn **out, gnn_err *e)
{
    int rc = idx_begin(env, 1, out, e);
    if (!rc) (*out)->fresh = 1;
    return rc;
}

/* A fresh-token transaction that has put IDX_TXN_BYTES commits them and
** goes on in a new one. */
static int fresh_turn(idx_txn *t, gnn_err *e)
{
    if (!t->fresh || t->put_bytes < IDX_TXN_BYTES) return GNNDB_OK;
    t->put_bytes = 0;
    t->cache_ok = 0;
    int rc = mdb_txn_commit(t->txn);
    t->txn = NULL;   /* ended, committed or not */
    if (!rc) rc = mdb_txn_begin(t->env->env, NULL, 0, &t->txn);
    return rc ? lmdb_err(t->env->path, rc, "committing a part", e) : GNNDB_OK;
}

int idx_commit(idx_txn *t, gnn_err *e)
{
    int rc = mdb_txn_commit(t->txn);
    idx_env *env = t->env;
    free(t);
    if (rc) return lmdb_err(env->path, rc, "committing", e);
    return GNNDB_OK;
}

void idx_abort(idx_txn *t)
{
    if (!t) return;
    if (t->txn) mdb_txn_abort(t->txn);
    free(t);
}

/* ---- small helpers ------------------------------------------------------- */

static int not_write(idx_txn *t, gnn_err *e)
{
    return gnn_seterr(e, GNNDB_MISUSE,
                      "%s: a change in a read transaction", t->env->path);
}

static int put(idx_txn *t, MDB_val *k, void *data, size_t len,
               const char *what, gnn_err *e)
{
    if (!t->write) return not_write(t, e);
    t->cache_ok = 0;
    MDB_val v = { len, data };
    int rc = mdb_put(t->txn, t->env->dbi, k, &v, 0);
    if (rc) return TERR(t, rc, what, e);
    if (t->fresh) t->put_bytes += len + k->mv_size + 16;
    return fresh_turn(t, e);
}

/* Get (tag, token, num): GNNDB_NOTFOUND without a message when absent. */
static int get(idx_txn *t, char tag, uint64_t token, uint64_t num,
               MDB_val *v, gnn_err *e)
{
    unsigned char kb[KEY_LEN];
    MDB_val k = make_key(kb, tag, token, num);
    int rc = mdb_get(t->txn, t->env->dbi, &k, v);
    if (rc == MDB_NOTFOUND) return GNNDB_NOTFOUND;
    return rc ? TERR(t, rc, "reading", e) : GNNDB_OK;
}

/* Delete every key (tag, token, n) with n >= from. */
static int del_from(idx_txn *t, char tag, uint64_t token, uint64_t from,
                    gnn_err *e)
{
    if (!t->write) return not_write(t, e);
    t->cache_ok = 0;
    unsigned char kb[KEY_LEN];
    for (int more = 1; more;) {
        /* a cursor per part: a fresh-token transaction may turn between */
        MDB_cursor *c;
        int rc = mdb_cursor_open(t->txn, t->env->dbi, &c);
        if (rc) return TERR(t, rc, "opening a cursor", e);
        for (more = 0; !rc && (!t->fresh || t->put_bytes < IDX_TXN_BYTES);) {
            /* position afresh after each delete: simple and immune to the
            ** cursor-after-delete corner cases of older LMDB releases */
            MDB_val k = make_key(kb, tag, token, from), v;
            rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
            if (rc == MDB_NOTFOUND || (!rc && !key_is(&k, tag, token))) {
                rc = 0;
                break;
            }
            if (!rc && !(rc = mdb_cursor_del(c, 0)) && t->fresh) {
                t->put_bytes += v.mv_size + k.mv_size + 16;
                more = 1;
            }
        }
        mdb_cursor_close(c);
        if (rc) return TERR(t, rc, "deleting", e);
        if ((rc = fresh_turn(t, e))) return rc;
    }
    return GNNDB_OK;
}

/* ---- graph object index ------------------------------------------------- */

int idx_put_block(idx_txn *t, uint64_t token, uint64_t first_node,
                  uint64_t block_no, gnn_err *e)
{
    unsigned char kb[KEY_LEN];
    MDB_val k = make_key(kb, 'B', token, first_node);
    return put(t, &k, &block_no, sizeof block_no, "writing a block entry", e);
}

static int read_u64(idx_txn *t, const MDB_val *v, uint64_t *out, gnn_err *e)
{
    if (v->mv_size != sizeof *out)
        return gnn_seterr(e, GNNDB_CORRUPT,
                          "%s is damaged: a value of %zu bytes where 8 are "
                          "expected", t->env->path, v->mv_size);
    memcpy(out, v->mv_data, sizeof *out);
    return GNNDB_OK;
}

int idx_find_block(idx_txn *t, uint64_t token, uint64_t node,
                   uint64_t *block_no, gnn_err *e)
{
    MDB_cursor *c;
    int rc = mdb_cursor_open(t->txn, t->env->dbi, &c);
    if (rc) return TERR(t, rc, "opening a cursor", e);
    unsigned char kb[KEY_LEN];
    MDB_val k = make_key(kb, 'B', token, node), v;
    /* the first key >= (token, node); unless it is exactly node, the entry
    ** wanted is the one before it */
    rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
    if (rc == MDB_NOTFOUND)
        rc = mdb_cursor_get(c, &k, &v, MDB_LAST);
    else if (!rc && !(key_is(&k, 'B', token) && key_num(&k) == node))
        rc = mdb_cursor_get(c, &k, &v, MDB_PREV);
    int out;
    if (rc == MDB_NOTFOUND || (!rc && !key_is(&k, 'B', token)))
        out = gnn_seterr(e, GNNDB_NOTFOUND,
                         "%s: no block of token %016" PRIx64 " holds node %"
                         PRIu64, t->env->path, token, node);
    else if (rc)
        out = TERR(t, rc, "finding a block", e);
    else
        out = read_u64(t, &v, block_no, e);
    mdb_cursor_close(c);
    return out;
}

int idx_load_blocks(idx_txn *t, uint64_t token, uint64_t **first_nodes,
                    uint64_t **block_nos, size_t *n, gnn_err *e)
{
    *first_nodes = NULL;
    *block_nos = NULL;
    *n = 0;
    MDB_cursor *c;
    int rc = mdb_cursor_open(t->txn, t->env->dbi, &c);
    if (rc) return TERR(t, rc, "opening a cursor", e);
    uint64_t *f = NULL, *b = NULL;
    size_t cnt = 0, cap = 0;
    unsigned char kb[KEY_LEN];
    MDB_val k = make_key(kb, 'B', token, 0), v;
    int out = GNNDB_OK;
    for (rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
         !rc && key_is(&k, 'B', token);
         rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
        if (cnt == cap) {
            cap = cap ? cap * 2 : 64;
            uint64_t *nf = realloc(f, cap * sizeof *f);
            if (nf) f = nf;
            uint64_t *nb = nf ? realloc(b, cap * sizeof *b) : NULL;
            if (nb) b = nb;
            if (!nf || !nb) { out = oom(e); break; }
        }
        f[cnt] = key_num(&k);
        if ((out = read_u64(t, &v, &b[cnt], e))) break;
        cnt++;
    }
    if (!out && rc && rc != MDB_NOTFOUND) out = TERR(t, rc, "reading blocks", e);
    mdb_cursor_close(c);
    if (out) { free(f); free(b); return out; }
    *first_nodes = f;
    *block_nos = b;
    *n = cnt;
    return GNNDB_OK;
}

/* ---- chunked arrays ----------------------------------------------------- */

static int bad_tag(char tag, gnn_err *e)
{
    return gnn_seterr(e, GNNDB_MISUSE, "index array tag '%c' is not I or R",
                      tag);
}

/* Write n values of `size` bytes in chunks of IDX_CHUNK, then remove any
** chunk of an older, longer version. */
static int put_chunks(idx_txn *t, char tag, uint64_t token, const void *v,
                      uint64_t n, size_t size, gnn_err *e)
{
    const unsigned char *p = v;
    uint64_t nchunks = (n + IDX_CHUNK - 1) / IDX_CHUNK;
    for (uint64_t ch = 0; ch < nchunks; ch++) {
        uint64_t first = ch * IDX_CHUNK;
        uint64_t cnt = GNN_MIN((uint64_t)IDX_CHUNK, n - first);
        unsigned char kb[KEY_LEN];
        MDB_val k = make_key(kb, tag, token, ch);
        int rc = put(t, &k, (void *)(p + first * size), (size_t)cnt * size,
                     "writing an array chunk", e);
        if (rc) return rc;
    }
    return del_from(t, tag, token, nchunks, e);
}

int idx_put_array(idx_txn *t, char tag, uint64_t token, const int64_t *v,
                  uint64_t n, gnn_err *e)
{
    if (tag != 'I' && tag != 'R') return bad_tag(tag, e);
    return put_chunks(t, tag, token, v, n, sizeof *v, e);
}

int idx_map_array(idx_txn *t, char tag, uint64_t token, const uint64_t *ids,
                  size_t n, int64_t *out, gnn_err *e)
{
    if (tag != 'I' && tag != 'R') return bad_tag(tag, e);
    for (size_t i = 0; i < n; i++) {
        uint64_t ch = ids[i] / IDX_CHUNK, off = ids[i] % IDX_CHUNK;
        if (!t->cache_ok || t->cache_tag != tag || t->cache_token != token ||
            t->cache_chunk != ch) {
            MDB_val v;
            int rc = get(t, tag, token, ch, &v, e);
            if (rc == GNNDB_NOTFOUND)
                return corrupt(t, e, "chunk %" PRIu64 " is missing", tag,
                               token, ch);
            if (rc) return rc;
            if (v.mv_size % sizeof(int64_t) ||
                v.mv_size > IDX_CHUNK * sizeof(int64_t))
                return corrupt(t, e, "chunk %" PRIu64 " has a bad size", tag,
                               token, ch);
            t->cache_ok = 1;
            t->cache_tag = tag;
            t->cache_token = token;
            t->cache_chunk = ch;
            t->cache_data = v.mv_data;
            t->cache_n = v.mv_size / sizeof(int64_t);
        }
        if (off >= t->cache_n)
            return corrupt(t, e, "id %" PRIu64 " is past the end", tag, token,
                           ids[i]);
        /* LMDB aligns small values to 2 bytes only */
        memcpy(&out[i], t->cache_data + off * sizeof(int64_t),
               sizeof(int64_t));
    }
    return GNNDB_OK;
}

/* Read n values of `size` bytes from chunks 0.. into a malloc'd array. */
static int load_chunks(idx_txn *t, char tag, uint64_t token, uint64_t n,
                       size_t size, void **out, gnn_err *e)
{
    *out = NULL;
    if (n > SIZE_MAX / size) return oom(e);
    unsigned char *a = malloc(n ? (size_t)n * size : size);
    if (!a) return oom(e);
    uint64_t nchunks = (n + IDX_CHUNK - 1) / IDX_CHUNK;
    for (uint64_t ch = 0; ch < nchunks; ch++) {
        uint64_t first = ch * IDX_CHUNK;
        uint64_t cnt = GNN_MIN((uint64_t)IDX_CHUNK, n - first);
        MDB_val v;
        int rc = get(t, tag, token, ch, &v, e);
        if (rc == GNNDB_NOTFOUND)
            rc = corrupt(t, e, "chunk %" PRIu64 " is missing", tag, token, ch);
        else if (!rc && v.mv_size < cnt * size)
            rc = corrupt(t, e, "chunk %" PRIu64 " is short", tag, token, ch);
        if (rc) { free(a); return rc; }
        memcpy(a + first * size, v.mv_data, (size_t)cnt * size);
    }
    *out = a;
    return GNNDB_OK;
}

int idx_load_array(idx_txn *t, char tag, uint64_t token, uint64_t n,
                   int64_t **out, gnn_err *e)
{
    *out = NULL;
    if (tag != 'I' && tag != 'R') return bad_tag(tag, e);
    void *a;
    int rc = load_chunks(t, tag, token, n, sizeof(int64_t), &a, e);
    if (!rc) *out = a;
    return rc;
}

/* ---- external keys ------------------------------------------------------ */

int idx_put_key(idx_txn *t, uint64_t token, int64_t key, uint64_t internal,
                gnn_err *e)
{
    unsigned char kb[KEY_LEN];
    MDB_val k = make_key(kb, 'E', token, signed_ord(key));
    return put(t, &k, &internal, sizeof internal, "writing a node key", e);
}

int idx_get_key(idx_txn *t, uint64_t token, int64_t key, uint64_t *internal,
                gnn_err *e)
{
    MDB_val v;
    int rc = get(t, 'E', token, signed_ord(key), &v, e);
    if (rc) return rc;
    return read_u64(t, &v, internal, e);
}

/* ---- split members ------------------------------------------------------ */

int idx_put_split(idx_txn *t, uint64_t token, const uint32_t *members,
                  uint64_t n, gnn_err *e)
{
    return put_chunks(t, 'S', token, members, n, sizeof *members, e);
}

/* The chunks of a split are numbered 0.. with every one but the last full;
** their count is the split's size. */
int idx_load_split(idx_txn *t, uint64_t token, uint32_t **members,
                   uint64_t *n, gnn_err *e)
{
    *members = NULL;
    *n = 0;
    MDB_cursor *c;
    int rc = mdb_cursor_open(t->txn, t->env->dbi, &c);
    if (rc) return TERR(t, rc, "opening a cursor", e);
    uint32_t *a = NULL;
    uint64_t cnt = 0, ch = 0;
    int out = GNNDB_OK, last_short = 0;
    unsigned char kb[KEY_LEN];
    MDB_val k = make_key(kb, 'S', token, 0), v;
    for (rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
         !rc && key_is(&k, 'S', token);
         rc = mdb_cursor_get(c, &k, &v, MDB_NEXT), ch++) {
        size_t m = v.mv_size / sizeof(uint32_t);
        if (key_num(&k) != ch || last_short || v.mv_size % sizeof(uint32_t) ||
            m > IDX_CHUNK || m == 0) {
            out = corrupt(t, e, "split chunk %" PRIu64 " is out of place", 'S',
                          token, key_num(&k));
            break;
        }
        last_short = m < IDX_CHUNK;
        uint32_t *na = realloc(a, (size_t)(cnt + m) * sizeof *a);
        if (!na) { out = oom(e); break; }
        a = na;
        memcpy(a + cnt, v.mv_data, m * sizeof *a);
        cnt += m;
    }
    if (!out && rc && rc != MDB_NOTFOUND) out = TERR(t, rc, "reading a split", e);
    mdb_cursor_close(c);
    if (!out && !a && !(a = malloc(sizeof *a))) out = oom(e);
    if (out) { free(a); return out; }
    *members = a;
    *n = cnt;
    return GNNDB_OK;
}

/* ---- edge split members ------------------------------------------------ */

int idx_put_edge_split(idx_txn *t, uint64_t token, const uint64_t *ids,
                       uint64_t n, gnn_err *e)
{
    return put_chunks(t, 'T', token, ids, n, sizeof *ids, e);
}

int idx_load_edge_split(idx_txn *t, uint64_t token, uint64_t n,
                        uint64_t **ids, gnn_err *e)
{
    void *a;
    int rc = load_chunks(t, 'T', token, n, sizeof **ids, &a, e);
    *ids = rc ? NULL : a;
    return rc;
}

/* ---- whole tokens -------------------------------------------------------- */

int idx_drop(idx_txn *t, uint64_t token, gnn_err *e)
{
    /* Keys are grouped by tag first, so visit each tag present in turn and
    ** delete that tag's run of this token. */
    if (!t->write) return not_write(t, e);
    unsigned tag = 0;
    int out = GNNDB_OK;
    while (tag < 256) {
        /* a cursor per tag: del_from may turn a fresh-token transaction */
        MDB_cursor *c;
        int rc = mdb_cursor_open(t->txn, t->env->dbi, &c);
        if (rc) return TERR(t, rc, "opening a cursor", e);
        unsigned char kb[1] = { (unsigned char)tag };
        MDB_val k = { 1, kb }, v;
        rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
        if (!rc) tag = ((const unsigned char *)k.mv_data)[0];
        mdb_cursor_close(c);
        if (rc == MDB_NOTFOUND) break;
        if (rc) { out = TERR(t, rc, "dropping", e); break; }
        if ((out = del_from(t, (char)tag, token, 0, e))) break;
        tag++;
    }
    return out;
}

int idx_tokens(idx_txn *t, uint64_t **tokens, size_t *n, gnn_err *e)
{
    *tokens = NULL;
    *n = 0;
    MDB_cursor *c;
    int rc = mdb_cursor_open(t->txn, t->env->dbi, &c);
    if (rc) return TERR(t, rc, "opening a cursor", e);
    uint64_t *a = NULL;
    size_t cnt = 0, cap = 0;
    int out = GNNDB_OK;
    MDB_val k, v;
    rc = mdb_cursor_get(c, &k, &v, MDB_FIRST);
    while (!rc) {
        if (k.mv_size != KEY_LEN) { /* not ours: step over it */
            rc = mdb_cursor_get(c, &k, &v, MDB_NEXT);
            continue;
        }
        const unsigned char *p = k.mv_data;
        unsigned tag = p[0];
        uint64_t tok = get_be64(p + 1);
        if (cnt == cap) {
            cap = cap ? cap * 2 : 16;
            uint64_t *na = realloc(a, cap * sizeof *a);
            if (!na) { out = oom(e); break; }
            a = na;
        }
        a[cnt++] = tok;
        /* skip the rest of this token's run under this tag */
        unsigned char kb[KEY_LEN];
        if (tok == UINT64_MAX) {
            if (tag == 255) break;
            kb[0] = (unsigned char)(tag + 1);
            k.mv_size = 1;
        } else {
            make_key(kb, (char)tag, tok + 1, 0);
            k.mv_size = KEY_LEN;
        }
        k.mv_data = kb;
        rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
    }
    if (!out && rc && rc != MDB_NOTFOUND) out = TERR(t, rc, "listing tokens", e);
    mdb_cursor_close(c);
    if (!out && !a && !(a = malloc(sizeof *a))) out = oom(e);
    if (out) { free(a); return out; }
    gnn_sort_u64(a, cnt);
    size_t w = 0;
    for (size_t i = 0; i < cnt; i++)
        if (w == 0 || a[i] != a[w - 1]) a[w++] = a[i];
    *tokens = a;
    *n = w;
    return GNNDB_OK;
}
