/* segmap.c — the map of a segmented block file: its parsing (every field
** checked, since a reader trusts the map to put logical blocks in their
** place), its building, its atomic writing and the lookup of a block. The
** format is in segmap.h. */
#include "segmap.h"
#include "sync_dir.h"
#include "block.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OFF_CHECKSUM 40   /* of the checksum field in the header */

/* ---- little-endian fields ------------------------------------------------ */

static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

/* CRC32C of the whole map with the checksum field taken as zero. */
static uint32_t map_crc(const uint8_t *buf, size_t len)
{
    static const uint8_t zero[4];
    uint32_t c = blk_crc32c(0, buf, OFF_CHECKSUM);
    c = blk_crc32c(c, zero, sizeof zero);
    return blk_crc32c(c, buf + OFF_CHECKSUM + 4, len - OFF_CHECKSUM - 4);
}

/* ---- the map in memory --------------------------------------------------- */

void seg_map_init(seg_map *m, uint16_t kind, uint32_t block_size,
                  uint64_t token)
{
    memset(m, 0, sizeof *m);
    m->kind = kind;
    m->block_size = block_size;
    m->token = token;
}

void seg_map_free(seg_map *m)
{
    if (!m) return;
    free(m->runs);
    m->runs = NULL;
    m->nruns = m->capruns = 0;
}

int seg_map_is_name(const char *name)
{
    size_t n = strlen(name);
    return n >= 4 && strcmp(name + n - 4, ".seg") == 0;
}

/* Why `name` cannot name a segment (a plain file of the map's directory),
** or NULL when it can. */
static const char *name_problem(const char *name)
{
    size_t n = strnlen(name, SEG_NAME_MAX);
    if (n == 0) return "an empty name";
    if (n >= SEG_NAME_MAX) return "a name of 48 bytes or more";
    if (strchr(name, '/')) return "a name with '/'";
    if (!strcmp(name, ".") || !strcmp(name, "..")) return "a name of . or ..";
    return NULL;
}

static int reserve_runs(seg_map *m, size_t n, gnn_err *e)
{
    if (n <= m->capruns) return GNNDB_OK;
    size_t cap = GNN_MAX(n, m->capruns ? 2 * m->capruns : 16);
    seg_run *r = realloc(m->runs, cap * sizeof *r);
    if (!r) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    m->runs = r;
    m->capruns = cap;
    return GNNDB_OK;
}

/* ---- parsing ------------------------------------------------------------- */

__attribute__((format(printf, 3, 4)))
static int corrupt(gnn_err *e, const char *path, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return gnn_seterr(e, GNNDB_CORRUPT, "corrupt segment map %s: %s", path,
                      why);
}

/* The fixed header: everything but the entries. */
static int parse_header(const uint8_t *b, size_t len, const char *path,
                        seg_map *m, uint32_t *nruns, gnn_err *e)
{
    if (len < SEG_HEADER_SIZE)
        return corrupt(e, path, "truncated (%zu bytes, the header alone is "
                       "%d)", len, SEG_HEADER_SIZE);
    if (get32(b) != SEG_MAGIC)
        return corrupt(e, path, "bad magic %08x", get32(b));
    if (get16(b + 4) != SEG_VERSION)
        return corrupt(e, path, "unknown version %u", get16(b + 4));
    uint16_t kind = get16(b + 6);
    if (kind != BLK_KIND_GRAPH && kind != BLK_KIND_FEATURE)
        return corrupt(e, path, "unknown kind %u", kind);
    if (!blk_size_valid(get32(b + 8)))
        return corrupt(e, path, "invalid block size %u", get32(b + 8));
    uint32_t nsegs = get32(b + 12);
    *nruns = get32(b + 16);
    if (nsegs < 1 || nsegs > SEG_MAX_SEGS)
        return corrupt(e, path, "%u segments (1 to %d allowed)", nsegs,
                       SEG_MAX_SEGS);
    uint64_t want = SEG_HEADER_SIZE + (uint64_t)SEG_ENTRY_SIZE * nsegs +
                    (uint64_t)SEG_RUN_SIZE * *nruns;
    if ((uint64_t)len != want)
        return corrupt(e, path, "%zu bytes, expected %llu for %u segments "
                       "and %u runs: %s", len, (unsigned long long)want,
                       nsegs, *nruns, len < want ? "truncated"
                                                 : "trailing bytes");
    if (map_crc(b, len) != get32(b + OFF_CHECKSUM))
        return corrupt(e, path, "checksum mismatch (stored %08x, computed "
                       "%08x)", get32(b + OFF_CHECKSUM), map_crc(b, len));
    int dirty = get32(b + 20) != 0;
    for (size_t i = OFF_CHECKSUM + 4; i < SEG_HEADER_SIZE; i++)
        dirty |= b[i] != 0;
    if (dirty) return corrupt(e, path, "reserved header bytes not zero");
    seg_map_init(m, kind, get32(b + 8), get64(b + 24));
    m->nblocks = get64(b + 32);
    m->nsegs = nsegs;
    if (*nruns > m->nblocks)
        return corrupt(e, path, "%u runs for %llu blocks", *nruns,
                       (unsigned long long)m->nblocks);
    return GNNDB_OK;
}

static int parse_segs(const uint8_t *b, const char *path, seg_map *m,
                      gnn_err *e)
{
    for (uint32_t i = 0; i < m->nsegs; i++) {
        const uint8_t *p = b + SEG_HEADER_SIZE + (size_t)SEG_ENTRY_SIZE * i;
        seg_file *s = &m->segs[i];
        memcpy(s->name, p, SEG_NAME_MAX);
        size_t n = strnlen(s->name, SEG_NAME_MAX);
        const char *why = name_problem(s->name);
        for (size_t k = n; !why && k < SEG_NAME_MAX; k++)
            if (s->name[k]) why = "bytes after the name's end";
        if (why) {
            s->name[SEG_NAME_MAX - 1] = 0;
            return corrupt(e, path, "segment %u: %s", i, why);
        }
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(m->segs[j].name, s->name))
                return corrupt(e, path, "segments %u and %u are both %s", j,
                               i, s->name);
        s->token = get64(p + SEG_NAME_MAX);
        s->nblocks = get64(p + SEG_NAME_MAX + 8);
    }
    return GNNDB_OK;
}

/* The runs: contiguous from logical block 0 to nblocks, each within its
** segment, so that seg_map_locate never sends a read elsewhere. */
static int parse_runs(const uint8_t *b, const char *path, seg_map *m,
                      uint32_t nruns, gnn_err *e)
{
    const uint8_t *p = b + SEG_HEADER_SIZE + (size_t)SEG_ENTRY_SIZE * m->nsegs;
    uint64_t next = 0;
    for (uint32_t i = 0; i < nruns; i++, p += SEG_RUN_SIZE) {
        seg_run r = {get64(p), get64(p + 8), get32(p + 16), get32(p + 20)};
        if (r.lstart != next)
            return corrupt(e, path, "run %u starts at block %llu, not %llu "
                           "(a %s)", i, (unsigned long long)r.lstart,
                           (unsigned long long)next,
                           r.lstart > next ? "gap" : "overlap");
        if (r.count == 0) return corrupt(e, path, "run %u is empty", i);
        if (r.count > m->nblocks - next)
            return corrupt(e, path, "run %u passes the file's %llu blocks",
                           i, (unsigned long long)m->nblocks);
        if (r.seg >= m->nsegs)
            return corrupt(e, path, "run %u names segment %u of %u", i,
                           r.seg, m->nsegs);
        uint64_t sn = m->segs[r.seg].nblocks;
        if (r.pstart > sn || r.count > sn - r.pstart)
            return corrupt(e, path, "run %u (blocks %llu..+%u of %s) passes "
                           "the segment's %llu blocks", i,
                           (unsigned long long)r.pstart, r.count,
                           m->segs[r.seg].name, (unsigned long long)sn);
        m->runs[i] = r;
        next += r.count;
    }
    m->nruns = nruns;
    if (next != m->nblocks)
        return corrupt(e, path, "runs cover %llu of %llu blocks",
                       (unsigned long long)next,
                       (unsigned long long)m->nblocks);
    return GNNDB_OK;
}

int seg_map_parse(const void *buf, size_t len, const char *path,
                  seg_map *out, gnn_err *e)
{
    const uint8_t *b = buf;
    uint32_t nruns = 0;
    seg_map_init(out, 0, 0, 0);
    int rc = parse_header(b, len, path, out, &nruns, e);
    if (!rc) rc = parse_segs(b, path, out, e);
    if (!rc) rc = reserve_runs(out, nruns, e);
    if (!rc) rc = parse_runs(b, path, out, nruns, e);
    if (rc) seg_map_free(out);
    return rc;
}

int seg_map_read(const char *path, seg_map *out, gnn_err *e)
{
    seg_map_init(out, 0, 0, 0);
    int fd, rc = gnn_open_input(path, &fd, e);
    if (rc) return rc;
    struct stat st;
    uint8_t *buf = NULL;
    if (fstat(fd, &st) != 0) {
        rc = gnn_seterr_errno(e, GNNDB_IOERR, errno, "stat of %s", path);
        goto out;
    }
    size_t len = (size_t)st.st_size, got = 0;
    if (!(buf = malloc(len ? len : 1))) {
        rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        goto out;
    }
    while (got < len) {
        ssize_t n = pread(fd, buf + got, len - got, (off_t)got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            rc = gnn_seterr_errno(e, GNNDB_IOERR, errno, "read of %s", path);
            goto out;
        }
        if (n == 0) break;   /* shrank under us: the parse says truncated */
        got += (size_t)n;
    }
    rc = seg_map_parse(buf, got, path, out, e);
out:
    free(buf);
    close(fd);
    return rc;
}

/* ---- building ------------------------------------------------------------ */

int seg_map_add_seg(seg_map *m, const char *name, uint64_t token,
                    uint64_t nblocks, uint32_t *idx, gnn_err *e)
{
    const char *why = name_problem(name);
    if (why)
        return gnn_seterr(e, GNNDB_RANGE, "segment %.60s: %s", name, why);
    for (uint32_t i = 0; i < m->nsegs; i++) {
        if (strcmp(m->segs[i].name, name)) continue;
        if (m->segs[i].token != token || m->segs[i].nblocks != nblocks)
            return gnn_seterr(e, GNNDB_RANGE, "segment %s listed twice with "
                              "different tokens or sizes", name);
        *idx = i;
        return GNNDB_OK;
    }
    if (m->nsegs == SEG_MAX_SEGS)
        return gnn_seterr(e, GNNDB_RANGE, "segment %s: a map holds at most "
                          "%d segments", name, SEG_MAX_SEGS);
    seg_file *s = &m->segs[m->nsegs];
    memset(s->name, 0, sizeof s->name);
    memcpy(s->name, name, strlen(name));
    s->token = token;
    s->nblocks = nblocks;
    *idx = m->nsegs++;
    return GNNDB_OK;
}

int seg_map_add_run(seg_map *m, uint32_t seg, uint64_t pstart,
                    uint64_t count, gnn_err *e)
{
    if (seg >= m->nsegs)
        return gnn_seterr(e, GNNDB_RANGE, "run names segment %u of %u", seg,
                          m->nsegs);
    uint64_t sn = m->segs[seg].nblocks;
    if (pstart > sn || count > sn - pstart || count > UINT64_MAX - m->nblocks)
        return gnn_seterr(e, GNNDB_RANGE, "run of blocks %llu..+%llu passes "
                          "the %llu blocks of segment %s",
                          (unsigned long long)pstart,
                          (unsigned long long)count, (unsigned long long)sn,
                          m->segs[seg].name);
    while (count > 0) {
        seg_run *last = m->nruns ? &m->runs[m->nruns - 1] : NULL;
        uint64_t k;
        if (last && last->seg == seg && last->pstart + last->count == pstart &&
            last->count < UINT32_MAX) {
            k = GNN_MIN(count, (uint64_t)UINT32_MAX - last->count);
            last->count += (uint32_t)k;
        } else {
            int rc = reserve_runs(m, m->nruns + 1, e);
            if (rc) return rc;
            k = GNN_MIN(count, (uint64_t)UINT32_MAX);
            m->runs[m->nruns++] = (seg_run){m->nblocks, pstart, seg,
                                            (uint32_t)k};
        }
        m->nblocks += k;
        pstart += k;
        count -= k;
    }
    return GNNDB_OK;
}

void seg_map_locate(const seg_map *m, uint64_t no, uint32_t *seg,
                    uint64_t *phys, uint64_t *run_left)
{
    /* the last run starting at or before no */
    size_t lo = 0, hi = m->nruns;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->runs[mid].lstart <= no) lo = mid;
        else hi = mid;
    }
    const seg_run *r = &m->runs[lo];
    *seg = r->seg;
    *phys = r->pstart + (no - r->lstart);
    *run_left = r->count - (no - r->lstart);
}

/* ---- writing ------------------------------------------------------------- */

int seg_map_encode(const seg_map *m, void **buf, size_t *len, gnn_err *e)
{
    *buf = NULL;
    *len = 0;
    if (m->nsegs < 1 || m->nsegs > SEG_MAX_SEGS || m->nruns > UINT32_MAX)
        return gnn_seterr(e, GNNDB_RANGE, "a segment map of %u segments and "
                          "%zu runs cannot be written", m->nsegs, m->nruns);
    for (uint32_t i = 0; i < m->nsegs; i++) {
        const char *why = name_problem(m->segs[i].name);
        if (why)
            return gnn_seterr(e, GNNDB_RANGE, "segment %u: %s", i, why);
    }
    size_t n = SEG_HEADER_SIZE + (size_t)SEG_ENTRY_SIZE * m->nsegs +
               (size_t)SEG_RUN_SIZE * m->nruns;
    uint8_t *b = calloc(1, n);
    if (!b) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    put32(b, SEG_MAGIC);
    put16(b + 4, SEG_VERSION);
    put16(b + 6, m->kind);
    put32(b + 8, m->block_size);
    put32(b + 12, m->nsegs);
    put32(b + 16, (uint32_t)m->nruns);
    put64(b + 24, m->token);
    put64(b + 32, m->nblocks);
    uint8_t *p = b + SEG_HEADER_SIZE;
    for (uint32_t i = 0; i < m->nsegs; i++, p += SEG_ENTRY_SIZE) {
        memcpy(p, m->segs[i].name, strnlen(m->segs[i].name, SEG_NAME_MAX));
        put64(p + SEG_NAME_MAX, m->segs[i].token);
        put64(p + SEG_NAME_MAX + 8, m->segs[i].nblocks);
    }
    for (size_t i = 0; i < m->nruns; i++, p += SEG_RUN_SIZE) {
        put64(p, m->runs[i].lstart);
        put64(p + 8, m->runs[i].pstart);
        put32(p + 16, m->runs[i].seg);
        put32(p + 20, m->runs[i].count);
    }
    put32(b + OFF_CHECKSUM, map_crc(b, n));
    *buf = b;
    *len = n;
    return GNNDB_OK;
}

static int write_sync(const char *path, const uint8_t *p, size_t len,
                      gnn_err *e)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return gnn_seterr_errno(e, errno == ENOENT ? GNNDB_NOTFOUND
                                                   : GNNDB_IOERR,
                                errno, "cannot create %s", path);
    int rc = GNNDB_OK;
    while (!rc && len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            rc = gnn_seterr_errno(e, GNNDB_IOERR, n < 0 ? errno : ENOSPC,
                                  "write to %s", path);
        else {
            p += n;
            len -= (size_t)n;
        }
    }
    if (!rc && fsync(fd) != 0)
        rc = gnn_seterr_errno(e, GNNDB_IOERR, errno, "fsync of %s", path);
    if (close(fd) != 0 && !rc)
        rc = gnn_seterr_errno(e, GNNDB_IOERR, errno, "close of %s", path);
    return rc;
}

int seg_map_write(const char *dir, const char *name, const seg_map *m,
                  gnn_err *e)
{
    char final[1024], tmp[1040];
    if ((size_t)snprintf(final, sizeof final, "%s/%s", dir, name) >=
        sizeof final)
        return gnn_seterr(e, GNNDB_RANGE, "path too long: %s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", final);
    void *buf;
    size_t len;
    int rc = seg_map_encode(m, &buf, &len, e);
    if (rc) return rc;
    rc = write_sync(tmp, buf, len, e);
    free(buf);
    if (!rc && rename(tmp, final) != 0)
        rc = gnn_seterr_errno(e, GNNDB_IOERR, errno, "cannot rename %s to %s",
                              tmp, final);
    if (rc) {
        unlink(tmp);
        return rc;
    }
    /* until the directory is synced the rename may not survive a crash:
    ** a failure withdraws the file, so that failure means "no file" */
    if ((rc = gnn_sync_dir(dir, e))) unlink(final);
    return rc;
}

int seg_map_prune(seg_map *m, gnn_err *e)
{
    (void)e;
    uint32_t to[SEG_MAX_SEGS];
    int used[SEG_MAX_SEGS] = {0};
    for (size_t i = 0; i < m->nruns; i++) used[m->runs[i].seg] = 1;
    uint32_t n = 0;
    for (uint32_t s = 0; s < m->nsegs; s++) {
        to[s] = n;
        if (used[s]) m->segs[n++] = m->segs[s];
    }
    for (size_t i = 0; i < m->nruns; i++) m->runs[i].seg = to[m->runs[i].seg];
    m->nsegs = n;
    return GNNDB_OK;
}

uint64_t seg_map_delta_blocks(const seg_map *m)
{
    uint64_t n = 0;
    for (size_t i = 0; i < m->nruns; i++)
        if (!strncmp(m->segs[m->runs[i].seg].name, "d-", 2))
            n += m->runs[i].count;
    return n;
}

int seg_map_add_file(seg_map *m, const seg_map *old, const char *name,
                     uint64_t token, uint64_t nblocks, gnn_err *e)
{
    uint32_t idx;
    if (!old) return seg_map_add_seg(m, name, token, nblocks, &idx, e);
    int rc = GNNDB_OK;
    for (uint32_t s = 0; !rc && s < old->nsegs; s++)
        rc = seg_map_add_seg(m, old->segs[s].name, old->segs[s].token,
                             old->segs[s].nblocks, &idx, e);
    return rc;
}

int seg_map_add_old(seg_map *m, const seg_map *old, uint64_t from,
                    uint64_t to, gnn_err *e)
{
    while (from < to) {
        uint32_t seg = 0;
        uint64_t phys = from, left = to - from;
        if (old) seg_map_locate(old, from, &seg, &phys, &left);
        uint64_t n = left < to - from ? left : to - from;
        int rc = seg_map_add_run(m, seg, phys, n, e);
        if (rc) return rc;
        from += n;
    }
    return GNNDB_OK;
}
