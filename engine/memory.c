/* memory.c — what of memory_limit a statement may spend on data. The limit
** bounds the whole process (less a baseline the host declared), so the
** engine's own fixed costs come out of it first: the resident bytes the
** process holds when the statement is prepared (code, libraries, the
** catalog's page cache, whatever the host keeps), a stack and an allocator
** arena per thread the statement starts, and what the kernel charges the
** process for the memory it maps (page tables: 8 bytes a 4 KiB page) and
** for its I/O rings. Measured, not assumed: the resident bytes are read
** from /proc at every prepare. */
#include "memory.h"
#include "rss.h"
#include "blockfile.h"
#include "pagecache.h"

#include <stdio.h>

/* The kernel's share: page tables over everything the limit may map (one
** 8-byte entry a 4 KiB page, with their upper levels: 1/400), plus a
** mebibyte for io_uring rings, file tables and the like. */
static int64_t kernel_share(int64_t limit)
{
    return limit / 400 + ((int64_t)1 << 20);
}

int db_memory_reserve(gnndb *db, int threads, int64_t min_data,
                      const char *what, mem_reserve *r, gnn_err *e)
{
    r->limit = db->pragma.memory_limit;
    int64_t rss = gnn_rss_now();
    if (db->mem_base_at_prepare) db->mem_base = rss;
    r->rss = rss > 0 ? rss : 0;
    r->base = db->mem_base;
    /* half a mebibyte more, in whole mebibytes, so that the pages a run
    ** holds more or less than the last (the shell's vary by a few hundred
    ** KiB) seldom change the plan of the same statement */
    int64_t mib = (int64_t)1 << 20;
    r->process = rss > db->mem_base
                     ? (rss - db->mem_base + mib / 2 + mib - 1) / mib * mib
                     : 0;
    r->threads = (int64_t)(threads > 0 ? threads : 0) * MEM_THREAD_BYTES;
    r->kernel = kernel_share(r->limit);
    r->data = r->limit - r->process - r->threads - r->kernel;
    if (r->data >= min_data) return GNNDB_OK;
    char b1[32], b2[32], b3[32], words[160];
    return gnn_seterr(e, GNNDB_NOMEM,
                      "%s: memory_limit %s is too small: outside the data "
                      "(%s) it leaves %s, and the data need at least %s; "
                      "raise PRAGMA memory_limit",
                      what, gnn_fmt_size(r->limit, b1, sizeof b1),
                      db_memory_words(r, words, sizeof words),
                      gnn_fmt_size(r->data > 0 ? r->data : 0, b2, sizeof b2),
                      gnn_fmt_size(min_data, b3, sizeof b3));
}

const char *db_memory_words(const mem_reserve *r, char *buf, size_t len)
{
    char b1[32], b2[32], b3[32];
    snprintf(buf, len, "process %s, %lld threads %s, kernel %s",
             gnn_fmt_size(r->process, b1, sizeof b1),
             (long long)(r->threads / MEM_THREAD_BYTES),
             gnn_fmt_size(r->threads, b2, sizeof b2),
             gnn_fmt_size(r->kernel, b3, sizeof b3));
    return buf;
}

/* Memory the page cache may use beside memory_limit: what the system has
** available, and in a memory cgroup no more than its limit leaves. */
static int64_t cache_room(const gnndb *db)
{
    int64_t avail = gnn_mem_available(), cg = gnn_cgroup_limit();
    if (avail < 0) return -1;
    int64_t room = avail - db->pragma.memory_limit;
    if (cg > 0) room = GNN_MIN(room, cg - db->pragma.memory_limit);
    return GNN_MAX(room, 0);
}

void db_read_choice(gnndb *db, const char *path, read_choice *c)
{
    c->cached = 0;
    c->room = cache_room(db);
    if (blkf_cached(path, &c->in_cache, &c->size) != 0 || c->size <= 0)
        return;
    c->cached = (double)c->in_cache >= GNN_CACHED_ENOUGH * (double)c->size ||
                (c->room >= 0 && 2 * c->size <= c->room);
}

const char *db_read_words(const read_choice *c, char *buf, size_t len)
{
    char b1[32];
    double pct = c->size > 0 ? 100.0 * (double)c->in_cache / (double)c->size
                             : 0;
    if (c->cached && pct >= GNN_CACHED_ENOUGH * 100)
        snprintf(buf, len, "buffered (%.0f%% in the page cache)", pct);
    else if (c->cached)
        snprintf(buf, len, "buffered (%.0f%% in the page cache; the %s "
                 "beside memory_limit hold it for the next run)", pct,
                 gnn_fmt_size(c->room, b1, sizeof b1));
    else
        snprintf(buf, len, "direct (%.0f%% in the page cache)", pct);
    return buf;
}
