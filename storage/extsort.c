/* extsort.c — importer scratch files and the external sort of node keys. */
#include "extsort.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- scratch files ----------------------------------------------------- */

int xs_file_open(xs_file *f, const char *dir, size_t bufsize, gnn_err *e)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    char path[4096];
    snprintf(path, sizeof path, "%s/.gnndb-import-XXXXXX", dir);
    int fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0)
        return gnn_seterr_errno(e, GNNDB_IOERR, errno, "cannot create a "
                                "scratch file in %s", dir);
    /* Unlinked at once: the file lives as long as the descriptor, and no
    ** failure path or crash can leave it behind. */
    unlink(path);
    f->fd = fd;
    f->cap = bufsize;
    if (bufsize && !(f->buf = malloc(bufsize))) {
        xs_file_close(f);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    }
    return GNNDB_OK;
}

int xs_pwrite(int fd, const void *p, size_t n, uint64_t off, gnn_err *e)
{
    const unsigned char *c = p;
    while (n > 0) {
        ssize_t w = pwrite(fd, c, n, (off_t)off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0)
            return gnn_seterr_errno(e, GNNDB_IOERR, w < 0 ? errno : ENOSPC,
                                    "write to a scratch file");
        c += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
    return GNNDB_OK;
}

int xs_pread(int fd, void *p, size_t n, uint64_t off, gnn_err *e)
{
    unsigned char *c = p;
    while (n > 0) {
        ssize_t r = pread(fd, c, n, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0)
            return gnn_seterr_errno(e, GNNDB_IOERR, errno, "read of a "
                                    "scratch file");
        if (r == 0)
            return gnn_seterr(e, GNNDB_IOERR, "scratch file shorter than "
                              "expected");
        c += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return GNNDB_OK;
}

int xs_file_flush(xs_file *f, gnn_err *e)
{
    if (f->len == 0) return GNNDB_OK;
    int rc = xs_pwrite(f->fd, f->buf, f->len, f->size - f->len, e);
    f->len = 0;
    return rc;
}

int xs_file_write(xs_file *f, const void *p, size_t n, gnn_err *e)
{
    const unsigned char *c = p;
    while (n > 0) {
        if (f->len == f->cap) {
            int rc = xs_file_flush(f, e);
            if (rc) return rc;
        }
        size_t k = GNN_MIN(n, f->cap - f->len);
        memcpy(f->buf + f->len, c, k);
        f->len += k;
        f->size += k;
        c += k;
        n -= k;
    }
    return GNNDB_OK;
}

void xs_file_close(xs_file *f)
{
    if (f->fd >= 0) close(f->fd);
    free(f->buf);
    memset(f, 0, sizeof *f);
    f->fd = -1;
}

int xs_reader_init(xs_reader *r, int fd, uint64_t off, uint64_t end,
                   size_t bufsize, gnn_err *e)
{
    memset(r, 0, sizeof *r);
    r->fd = fd;
    r->off = off;
    r->end = end;
    r->cap = bufsize;
    if (!(r->buf = malloc(bufsize)))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    return GNNDB_OK;
}

int xs_read(xs_reader *r, void *p, size_t n, gnn_err *e)
{
    unsigned char *c = p;
    size_t got = 0;
    while (got < n) {
        if (r->pos == r->len) {
            if (r->off >= r->end) {
                if (got == 0) return 0;
                gnn_seterr(e, GNNDB_INTERNAL, "scratch file ends inside a "
                           "record");
                return -1;
            }
            size_t k = (size_t)GNN_MIN((uint64_t)r->cap, r->end - r->off);
            if (xs_pread(r->fd, r->buf, k, r->off, e)) return -1;
            r->off += k;
            r->len = k;
            r->pos = 0;
        }
        size_t k = GNN_MIN(n - got, r->len - r->pos);
        memcpy(c + got, r->buf + r->pos, k);
        r->pos += k;
        got += k;
    }
    return 1;
}

void xs_reader_free(xs_reader *r)
{
    free(r->buf);
    r->buf = NULL;
}

/* ---- the key sorter ---------------------------------------------------- */

struct xs_sorter {
    char *dir;
    int64_t *run;
    size_t cap, n;
    xs_file file;          /* every spilled run, one after another */
    uint64_t *run_end;     /* byte offset of the end of each run */
    size_t nruns, runs_cap;
    size_t mem;
};

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static size_t sort_unique(int64_t *v, size_t n)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cmp_i64);
    size_t k = 1;
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[k - 1]) v[k++] = v[i];
    return k;
}

int xs_sorter_new(const char *dir, size_t mem_bytes, xs_sorter **out,
                  gnn_err *e)
{
    *out = NULL;
    xs_sorter *s = calloc(1, sizeof *s);
    if (!s) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    s->file.fd = -1;
    s->mem = GNN_MAX(mem_bytes, (size_t)1 << 16);
    s->cap = s->mem / sizeof(int64_t);
    s->dir = strdup(dir);
    s->run = malloc(s->cap * sizeof(int64_t));
    if (!s->dir || !s->run) {
        xs_sorter_free(s);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    }
    *out = s;
    return GNNDB_OK;
}

static int spill(xs_sorter *s, gnn_err *e)
{
    size_t k = sort_unique(s->run, s->n);
    /* Duplicates are common (a node appears in many edges): when sorting
    ** freed most of the buffer, keep filling it instead of spilling. */
    if (k <= s->cap / 2) {
        s->n = k;
        return GNNDB_OK;
    }
    int rc;
    if (s->file.fd < 0 && (rc = xs_file_open(&s->file, s->dir, 1 << 20, e)))
        return rc;
    if (s->nruns == s->runs_cap) {
        size_t nc = s->runs_cap ? 2 * s->runs_cap : 16;
        uint64_t *p = realloc(s->run_end, nc * sizeof *p);
        if (!p) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        s->run_end = p;
        s->runs_cap = nc;
    }
    if ((rc = xs_file_write(&s->file, s->run, k * sizeof(int64_t), e)))
        return rc;
    s->run_end[s->nruns++] = s->file.size;
    s->n = 0;
    return GNNDB_OK;
}

int xs_sorter_add(xs_sorter *s, int64_t key, gnn_err *e)
{
    if (s->n == s->cap) {
        int rc = spill(s, e);
        if (rc) return rc;
    }
    s->run[s->n++] = key;
    return GNNDB_OK;
}

/* A k-way merge through a binary heap of run cursors. */
typedef struct {
    int64_t key;
    size_t run;
} heap_ent;

static void heap_down(heap_ent *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && h[l].key < h[m].key) m = l;
        if (l + 1 < n && h[l + 1].key < h[m].key) m = l + 1;
        if (m == i) return;
        heap_ent t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* The in-memory remainder (its k sorted, distinct keys) written as the
** last run, and the run file flushed for reading back. */
static int spill_last(xs_sorter *s, size_t k, gnn_err *e)
{
    int rc;
    if (k && (rc = xs_file_write(&s->file, s->run, k * sizeof(int64_t), e)))
        return rc;
    if (k) {
        if (s->nruns == s->runs_cap) {
            uint64_t *p = realloc(s->run_end, (s->runs_cap + 1) * sizeof *p);
            if (!p) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
            s->run_end = p;
            s->runs_cap++;
        }
        s->run_end[s->nruns++] = s->file.size;
    }
    if ((rc = xs_file_flush(&s->file, e))) return rc;
    free(s->run);
    s->run = NULL;
    s->n = 0;
    return GNNDB_OK;
}

/* A reader on each run (rd[0..nruns), zeroed) and the heap of their first
** keys, *hn entries. */
static int merge_open(xs_sorter *s, xs_reader *rd, heap_ent *h, size_t *hn,
                      gnn_err *e)
{
    size_t nr = s->nruns;
    size_t bufsz = GNN_MAX((size_t)4096, GNN_MIN((size_t)1 << 20, s->mem / nr));
    bufsz &= ~(size_t)7;
    for (size_t i = 0; i < nr; i++) {
        uint64_t a = i ? s->run_end[i - 1] : 0;
        int rc = xs_reader_init(&rd[i], s->file.fd, a, s->run_end[i], bufsz,
                                e);
        if (rc) return rc;
        int64_t v;
        int r = xs_read(&rd[i], &v, sizeof v, e);
        if (r < 0) return e ? e->rc : GNNDB_IOERR;
        if (r > 0) h[(*hn)++] = (heap_ent){v, i};
    }
    for (size_t i = *hn; i-- > 0;) heap_down(h, *hn, i);
    return GNNDB_OK;
}

/* Append v to (*out)[0..*on) unless it repeats the last key. */
static int append_distinct(int64_t **out, size_t *on, size_t *ocap, int64_t v,
                           gnn_err *e)
{
    if (*on && (*out)[*on - 1] == v) return GNNDB_OK;
    if (*on == *ocap) {
        size_t nc = *ocap ? *ocap * 2 : 1024;
        int64_t *p = realloc(*out, nc * sizeof *p);
        if (!p) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        *out = p;
        *ocap = nc;
    }
    (*out)[(*on)++] = v;
    return GNNDB_OK;
}

/* Merge the runs into their distinct keys, ascending. */
static int merge_runs(xs_sorter *s, int64_t **keys, size_t *n, gnn_err *e)
{
    size_t nr = s->nruns;
    xs_reader *rd = calloc(nr, sizeof *rd);
    heap_ent *h = calloc(nr, sizeof *h);
    int64_t *out = NULL;
    size_t on = 0, ocap = 0, hn = 0;
    int rc = GNNDB_OK;
    if (!rd || !h) rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    if (!rc) rc = merge_open(s, rd, h, &hn, e);
    while (!rc && hn > 0) {
        if ((rc = append_distinct(&out, &on, &ocap, h[0].key, e))) break;
        int64_t nv;
        int r = xs_read(&rd[h[0].run], &nv, sizeof nv, e);
        if (r < 0) { rc = e ? e->rc : GNNDB_IOERR; break; }
        if (r > 0) h[0].key = nv;
        else h[0] = h[--hn];
        heap_down(h, hn, 0);
    }
    if (rd)
        for (size_t i = 0; i < nr; i++) xs_reader_free(&rd[i]);
    free(rd);
    free(h);
    if (rc) {
        free(out);
        return rc;
    }
    if (!out) out = malloc(sizeof *out);
    *keys = out;
    *n = on;
    return out ? GNNDB_OK : gnn_seterr(e, GNNDB_NOMEM, "out of memory");
}

int xs_sorter_finish(xs_sorter *s, int64_t **keys, size_t *n, gnn_err *e)
{
    *keys = NULL;
    *n = 0;
    size_t k = sort_unique(s->run, s->n);
    s->n = k;
    if (s->nruns == 0) { /* everything fitted: the buffer is the answer */
        int64_t *out = realloc(s->run, (k ? k : 1) * sizeof *out);
        if (!out) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        s->run = NULL;
        s->n = 0;
        *keys = out;
        *n = k;
        return GNNDB_OK;
    }
    int rc = spill_last(s, k, e);
    return rc ? rc : merge_runs(s, keys, n, e);
}

void xs_sorter_free(xs_sorter *s)
{
    if (!s) return;
    xs_file_close(&s->file);
    free(s->run);
    free(s->run_end);
    free(s->dir);
    free(s);
}
