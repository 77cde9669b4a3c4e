/* npz.c — finding .npz members: the end of central directory record (and
** its zip64 form), the central directory's entries, and the local header
** that says where a member's bytes begin. Every offset and length read from
** the file is checked against the file's size before it is used. */
#include "npz.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIG_EOCD    0x06054b50u
#define SIG_EOCD64L 0x07064b50u   /* zip64 end of central directory locator */
#define SIG_EOCD64  0x06064b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_LOCAL   0x04034b50u
#define EOCD_LEN 22
#define CENTRAL_LEN 46
#define LOCAL_LEN 30
#define MAX_COMMENT 65535
/* A central directory larger than this is not numpy's. */
#define MAX_CD ((uint64_t)64 << 20)
#define U32_FULL 0xffffffffu

typedef struct zsrc {
    int fd;                   /* or -1: mem */
    const unsigned char *mem;
    uint64_t size;
    const char *file;
} zsrc;

#define FMT(...) gnn_seterr(e, GNNDB_FORMAT, __VA_ARGS__)

static uint16_t le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}
static uint64_t le64(const unsigned char *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Bytes [off, off + n) of the zip, which must lie inside it. */
static int rd(const zsrc *z, uint64_t off, size_t n, void *out, gnn_err *e)
{
    if (off > z->size || n > z->size - off)
        return FMT("%s: corrupt zip: a record at byte %llu runs past the end "
                   "of the file (%llu bytes)", z->file,
                   (unsigned long long)off, (unsigned long long)z->size);
    if (z->fd < 0) {
        memcpy(out, z->mem + off, n);
        return GNNDB_OK;
    }
    unsigned char *p = out;
    while (n > 0) {
        ssize_t r = pread(z->fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0)
            return gnn_seterr_errno(e, GNNDB_IOERR, errno, "read of %s",
                                    z->file);
        if (r == 0) return FMT("%s: the file shrank while being read", z->file);
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return GNNDB_OK;
}

/* Where the central directory is and how many entries it has. */
static int find_cd(const zsrc *z, uint64_t *cd_off, uint64_t *cd_size,
                   uint64_t *entries, gnn_err *e)
{
    uint64_t tail = GNN_MIN(z->size, (uint64_t)EOCD_LEN + MAX_COMMENT);
    unsigned char *t = malloc(tail ? tail : 1);
    if (!t) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    int rc = rd(z, z->size - tail, (size_t)tail, t, e);
    int64_t at = -1;
    for (int64_t i = (int64_t)tail - EOCD_LEN; !rc && i >= 0; i--)
        if (le32(t + i) == SIG_EOCD) { at = i; break; }
    if (!rc && at < 0)
        rc = FMT("%s: not a zip file, or a truncated one (no end of central "
                 "directory record)", z->file);
    if (rc) { free(t); return rc; }
    const unsigned char *p = t + at;
    *entries = le16(p + 10);
    *cd_size = le32(p + 12);
    *cd_off = le32(p + 16);
    uint64_t eocd = z->size - tail + (uint64_t)at;
    free(t);
    if (*entries != 0xffff && *cd_size != U32_FULL && *cd_off != U32_FULL)
        return GNNDB_OK;
    /* zip64: the locator just before, pointing at the zip64 record */
    unsigned char loc[20], r64[56];
    if (eocd < sizeof loc ||
        (rc = rd(z, eocd - sizeof loc, sizeof loc, loc, e)))
        return rc ? rc : FMT("%s: corrupt zip: no zip64 locator", z->file);
    if (le32(loc) != SIG_EOCD64L)
        return FMT("%s: corrupt zip: no zip64 locator", z->file);
    if ((rc = rd(z, le64(loc + 8), sizeof r64, r64, e))) return rc;
    if (le32(r64) != SIG_EOCD64)
        return FMT("%s: corrupt zip: bad zip64 end record", z->file);
    *entries = le64(r64 + 32);
    *cd_size = le64(r64 + 40);
    *cd_off = le64(r64 + 48);
    return GNNDB_OK;
}

/* The zip64 extra field of a central entry replaces the 32-bit fields that
** are all ones, in the order usize, csize, offset. */
static int zip64_extra(const unsigned char *x, size_t n, uint64_t *usize,
                       uint64_t *csize, uint64_t *off)
{
    while (n >= 4) {
        uint16_t id = le16(x), len = le16(x + 2);
        if ((size_t)len + 4 > n) return -1;
        if (id == 1) {
            const unsigned char *q = x + 4, *end = q + len;
            uint64_t *f[3] = {usize, csize, off};
            for (int k = 0; k < 3; k++) {
                if (*f[k] != U32_FULL) continue;
                if (end - q < 8) return -1;
                *f[k] = le64(q);
                q += 8;
            }
            return 0;
        }
        x += 4 + len;
        n -= 4 + (size_t)len;
    }
    return 0;
}

/* Append a key to the list of keys for "it has ..." */
static void list_key(char *list, size_t cap, const char *key)
{
    size_t n = strlen(list);
    if (n + 8 >= cap) return;
    snprintf(list + n, cap - n, "%s%s", n ? ", " : "", key);
    if (strlen(list) + 5 >= cap) snprintf(list + cap - 5, 5, "...");
}

/* One central entry at cd[*pos]; its key and fields into *m. */
static int central_entry(const zsrc *z, const unsigned char *cd, uint64_t n,
                         uint64_t *pos, npz_member *m, uint32_t *flags,
                         gnn_err *e)
{
    const unsigned char *p = cd + *pos;
    if (n - *pos < CENTRAL_LEN || le32(p) != SIG_CENTRAL)
        return FMT("%s: corrupt zip: bad central directory entry", z->file);
    uint16_t nl = le16(p + 28), xl = le16(p + 30), cl = le16(p + 32);
    if (n - *pos - CENTRAL_LEN < (uint64_t)nl + xl + cl)
        return FMT("%s: corrupt zip: central directory entry runs past its "
                   "end", z->file);
    *flags = le16(p + 8);
    m->method = le16(p + 10);
    m->crc = le32(p + 16);
    m->csize = le32(p + 20);
    m->usize = le32(p + 24);
    m->data_off = le32(p + 42);   /* the local header, for now */
    size_t kl = nl >= 4 && !memcmp(p + CENTRAL_LEN + nl - 4, ".npy", 4)
                    ? nl - 4u : nl;
    kl = GNN_MIN(kl, sizeof m->key - 1);
    memcpy(m->key, p + CENTRAL_LEN, kl);
    m->key[kl] = 0;
    if (zip64_extra(p + CENTRAL_LEN + nl, xl, &m->usize, &m->csize,
                    &m->data_off))
        return FMT("%s: corrupt zip: bad zip64 field of member '%s'", z->file,
                   m->key);
    *pos += CENTRAL_LEN + (uint64_t)nl + xl + cl;
    return GNNDB_OK;
}

/* From the local header to the member's bytes; checks they fit the file. */
static int locate_data(const zsrc *z, npz_member *m, uint32_t flags,
                       gnn_err *e)
{
    if (flags & 1)
        return FMT("%s: member '%s' is encrypted", z->file, m->key);
    if (m->method != NPZ_STORED && m->method != NPZ_DEFLATED)
        return FMT("%s: member '%s' uses compression method %d (only stored "
                   "and deflated members are supported)", z->file, m->key,
                   m->method);
    unsigned char l[LOCAL_LEN];
    int rc = rd(z, m->data_off, sizeof l, l, e);
    if (rc) return rc;
    if (le32(l) != SIG_LOCAL)
        return FMT("%s: corrupt zip: no local header for member '%s' at byte "
                   "%llu", z->file, m->key, (unsigned long long)m->data_off);
    m->data_off += LOCAL_LEN + (uint64_t)le16(l + 26) + le16(l + 28);
    if (m->data_off > z->size || m->csize > z->size - m->data_off)
        return FMT("%s: member '%s' is truncated: %llu bytes promised at "
                   "byte %llu of a %llu-byte file", z->file, m->key,
                   (unsigned long long)m->csize,
                   (unsigned long long)m->data_off,
                   (unsigned long long)z->size);
    if (m->method == NPZ_STORED && m->csize != m->usize)
        return FMT("%s: corrupt zip: stored member '%s' has two sizes",
                   z->file, m->key);
    return GNNDB_OK;
}

static int find(const zsrc *z, const char *key, npz_member *m, gnn_err *e)
{
    uint64_t cd_off = 0, cd_size = 0, entries = 0;
    int rc = find_cd(z, &cd_off, &cd_size, &entries, e);
    if (rc) return rc;
    if (cd_size > MAX_CD)
        return FMT("%s: central directory of %llu bytes is implausible",
                   z->file, (unsigned long long)cd_size);
    unsigned char *cd = malloc(cd_size ? cd_size : 1);
    if (!cd) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    if ((rc = rd(z, cd_off, (size_t)cd_size, cd, e))) {
        free(cd);
        return rc;
    }
    char list[400] = "";
    uint64_t pos = 0, found = 0;
    npz_member cur, hit;
    uint32_t flags = 0, hit_flags = 0;
    for (uint64_t i = 0; i < entries && !rc; i++) {
        if ((rc = central_entry(z, cd, cd_size, &pos, &cur, &flags, e)))
            break;
        list_key(list, sizeof list, cur.key);
        if (!key || !strcmp(cur.key, key)) {
            if (!found++) { hit = cur; hit_flags = flags; }
        }
    }
    free(cd);
    if (rc) return rc;
    if (!key && found != 1)
        return FMT("%s: %llu members; say which with KEY (it has %s)",
                   z->file, (unsigned long long)found, found ? list : "none");
    if (!found)
        return gnn_seterr(e, GNNDB_NOTFOUND, "%s: no member '%s' (it has %s)",
                          z->file, key, entries ? list : "none");
    *m = hit;
    return locate_data(z, m, hit_flags, e);
}

int npz_find(int fd, uint64_t size, const char *file, const char *key,
             npz_member *m, gnn_err *e)
{
    zsrc z = {fd, NULL, size, file};
    return find(&z, key, m, e);
}

int npz_find_mem(const void *buf, uint64_t size, const char *file,
                 const char *key, npz_member *m, gnn_err *e)
{
    zsrc z = {-1, buf, size, file};
    return find(&z, key, m, e);
}
