/* npy.c — the numpy .npy format: a strict header parser, a size-checked
** open, element accessors and a writer whose files numpy.load reads. */
#include "npy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* numpy itself refuses headers beyond this; anything larger is garbage. */
#define NPY_MAX_HEADER (1u << 20)

static const struct {
    const char *descr;
    int dtype;
    size_t size;
    const char *name;
} npy_types[] = {
    {"<f4", NPY_F32, 4, "float32"}, {"<f8", NPY_F64, 8, "float64"},
    {"<i8", NPY_I64, 8, "int64"},   {"<i4", NPY_I32, 4, "int32"},
    {"<f2", NPY_F16, 2, "float16"}, {"|i1", NPY_I8, 1, "int8"},
    {"|u1", NPY_U8, 1, "uint8"},    {"<i2", NPY_I16, 2, "int16"},
    {"<u2", NPY_U16, 2, "uint16"},  {"<u4", NPY_U32, 4, "uint32"},
    {"<u8", NPY_U64, 8, "uint64"},  {"|b1", NPY_BOOL, 1, "bool"},
};
#define NPY_NTYPES (sizeof npy_types / sizeof npy_types[0])

static size_t dtype_size(int dtype)
{
    for (size_t i = 0; i < NPY_NTYPES; i++)
        if (npy_types[i].dtype == dtype) return npy_types[i].size;
    return 0;
}

const char *npy_dtype_name(int dtype)
{
    for (size_t i = 0; i < NPY_NTYPES; i++)
        if (npy_types[i].dtype == dtype) return npy_types[i].name;
    return "unknown";
}

int npy_is_integer(int dtype)
{
    return dtype != NPY_F32 && dtype != NPY_F64 && dtype != NPY_F16 &&
           dtype_size(dtype) != 0;
}

/* ---- the header dict --------------------------------------------------- */

typedef struct {
    const char *p, *end;
} cursor;

static void skip_ws(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
        c->p++;
}

/* A Python string literal in '' or "" (no escapes: numpy never writes
** them in the three keys we accept). */
static int parse_str(cursor *c, char *out, size_t cap)
{
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return -1;
    char q = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != q) {
        if (*c->p == '\\' || n + 1 >= cap) return -1;
        out[n++] = *c->p++;
    }
    if (c->p >= c->end) return -1;
    c->p++;
    out[n] = 0;
    return 0;
}

static int parse_word(cursor *c, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0) return -1;
    c->p += n;
    return 0;
}

#define FMT(...) gnn_seterr(e, GNNDB_FORMAT, __VA_ARGS__)

static int parse_shape(cursor *c, npy_info *info, const char *path,
                       gnn_err *e)
{
    int64_t dims[3];
    int nd = 0;
    if (c->p >= c->end || *c->p != '(')
        return FMT("%s: malformed header: 'shape' must be a tuple", path);
    c->p++;
    for (;;) {
        skip_ws(c);
        if (c->p < c->end && *c->p == ')') { c->p++; break; }
        if (c->p >= c->end || *c->p < '0' || *c->p > '9')
            return FMT("%s: malformed header: bad 'shape' entry", path);
        int64_t v = 0;
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
            if (v > (INT64_MAX - 9) / 10)
                return FMT("%s: malformed header: 'shape' entry too large",
                           path);
            v = v * 10 + (*c->p++ - '0');
        }
        if (c->p < c->end && *c->p == 'L') c->p++; /* Python 2 longs */
        if (nd == 3)
            return FMT("%s: arrays of more than 2 dimensions are not "
                       "supported", path);
        dims[nd++] = v;
        skip_ws(c);
        if (c->p < c->end && *c->p == ',') { c->p++; continue; }
        if (c->p < c->end && *c->p == ')') { c->p++; break; }
        return FMT("%s: malformed header: bad 'shape' tuple", path);
    }
    if (nd == 0)
        return FMT("%s: 0-dimensional (scalar) arrays are not supported",
                   path);
    if (nd > 2)
        return FMT("%s: arrays of %d dimensions are not supported (at most "
                   "2)", path, nd);
    info->ndim = nd;
    info->shape[0] = dims[0];
    info->shape[1] = nd == 2 ? dims[1] : 1;
    return GNNDB_OK;
}

static int parse_descr(const char *d, npy_info *info, const char *path,
                       gnn_err *e)
{
    for (size_t i = 0; i < NPY_NTYPES; i++)
        if (strcmp(d, npy_types[i].descr) == 0) {
            info->dtype = npy_types[i].dtype;
            info->elem_size = npy_types[i].size;
            return GNNDB_OK;
        }
    if (d[0] == '>')
        return FMT("%s: big-endian dtype '%s' is not supported; convert with "
                   "arr.astype('<%s')", path, d, d + 1);
    if (strchr(d, 'O'))
        return FMT("%s: object arrays (dtype '%s') are not supported", path,
                   d);
    return FMT("%s: unsupported dtype '%s' (expected a little-endian float, "
               "int, uint or bool: <f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 "
               "<u8 |b1)", path, d);
}

/* The preamble: magic, version and header length. The header's dict text
** into *c (its closing newline and padding dropped) and where the data
** starts into *data_offset. */
static int header_text(const unsigned char *b, size_t len, const char *path,
                       cursor *c, size_t *data_offset, gnn_err *e)
{
    if (len < 10 || memcmp(b, "\x93NUMPY", 6) != 0)
        return FMT("%s: not a .npy file (bad magic)", path);
    int major = b[6], minor = b[7];
    size_t hlen, pre;
    if (major == 1) {
        hlen = (size_t)b[8] | (size_t)b[9] << 8;
        pre = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12) return FMT("%s: truncated .npy header", path);
        hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 |
               (size_t)b[11] << 24;
        pre = 12;
    } else {
        return FMT("%s: unsupported .npy version %d.%d", path, major, minor);
    }
    if (minor != 0)
        return FMT("%s: unsupported .npy version %d.%d", path, major, minor);
    if (hlen > NPY_MAX_HEADER)
        return FMT("%s: header length %zu is implausible", path, hlen);
    if (len < pre + hlen)
        return FMT("%s: truncated .npy header (%zu of %zu bytes)", path, len,
                   pre + hlen);
    *c = (cursor){(const char *)b + pre, (const char *)b + pre + hlen};
    /* The dict ends with a newline, preceded by padding spaces. */
    if (hlen == 0 || c->end[-1] != '\n')
        return FMT("%s: malformed header: it must end with a newline", path);
    c->end--;
    while (c->end > c->p && (c->end[-1] == ' ' || c->end[-1] == '\t'))
        c->end--;
    *data_offset = pre + hlen;
    return GNNDB_OK;
}

/* The value of `key`, c just past its ':'. seen[] counts the keys descr,
** fortran_order and shape met so far; each may appear once. */
static int parse_value(cursor *c, const char *key, int seen[3],
                       npy_info *info, const char *path, gnn_err *e)
{
    int rc = GNNDB_OK;
    if (strcmp(key, "descr") == 0) {
        if (seen[0]++) goto dup;
        char descr_buf[64];
        if (c->p < c->end && *c->p == '[')
            return FMT("%s: structured dtypes are not supported", path);
        if (parse_str(c, descr_buf, sizeof descr_buf) != 0)
            return FMT("%s: malformed header: bad 'descr'", path);
        rc = parse_descr(descr_buf, info, path, e);
    } else if (strcmp(key, "fortran_order") == 0) {
        if (seen[1]++) goto dup;
        if (parse_word(c, "False") == 0) info->fortran = 0;
        else if (parse_word(c, "True") == 0) info->fortran = 1;
        else
            return FMT("%s: malformed header: 'fortran_order' must be "
                       "True or False", path);
    } else if (strcmp(key, "shape") == 0) {
        if (seen[2]++) goto dup;
        rc = parse_shape(c, info, path, e);
    } else {
        return FMT("%s: malformed header: unexpected key '%s'", path, key);
    }
    return rc;
dup:
    return FMT("%s: malformed header: a key appears twice", path);
}

/* The header's dict: { 'key': value, ... } with each of the three keys
** once, nothing after it. */
static int parse_dict(cursor *c, npy_info *info, const char *path,
                      gnn_err *e)
{
    int seen[3] = {0, 0, 0};
    skip_ws(c);
    if (c->p >= c->end || *c->p != '{')
        return FMT("%s: malformed header: expected a dict", path);
    c->p++;
    for (;;) {
        skip_ws(c);
        if (c->p < c->end && *c->p == '}') { c->p++; break; }
        char key[32];
        if (parse_str(c, key, sizeof key) != 0)
            return FMT("%s: malformed header: expected a quoted key", path);
        skip_ws(c);
        if (c->p >= c->end || *c->p != ':')
            return FMT("%s: malformed header: expected ':' after '%s'", path,
                       key);
        c->p++;
        skip_ws(c);
        int rc = parse_value(c, key, seen, info, path, e);
        if (rc) return rc;
        skip_ws(c);
        if (c->p < c->end && *c->p == ',') { c->p++; continue; }
        if (c->p < c->end && *c->p == '}') { c->p++; break; }
        return FMT("%s: malformed header: expected ',' or '}'", path);
    }
    skip_ws(c);
    if (c->p != c->end)
        return FMT("%s: malformed header: trailing characters after the dict",
                   path);
    if (!seen[0] || !seen[1] || !seen[2])
        return FMT("%s: malformed header: missing key '%s'", path,
                   !seen[0] ? "descr" : !seen[1] ? "fortran_order" : "shape");
    return GNNDB_OK;
}

int npy_parse_header(const void *buf, size_t len, npy_info *info,
                     const char *path, gnn_err *e)
{
    memset(info, 0, sizeof *info);
    if (!path) path = "?";
    cursor c = {0};
    size_t data_offset = 0;
    int rc = header_text(buf, len, path, &c, &data_offset, e);
    if (!rc) rc = parse_dict(&c, info, path, e);
    if (!rc) info->data_offset = data_offset;
    return rc;
}

/* ---- files ------------------------------------------------------------- */

static void describe_shape(const npy_info *info, char *out, size_t cap)
{
    if (info->ndim == 1)
        snprintf(out, cap, "%lld %s", (long long)info->shape[0],
                 npy_dtype_name(info->dtype));
    else
        snprintf(out, cap, "%lldx%lld %s", (long long)info->shape[0],
                 (long long)info->shape[1], npy_dtype_name(info->dtype));
}

/* Read the header of the .npy at bytes [base, base + size) of f and parse
** it; `name` for messages. */
static int read_header(int f, uint64_t base, uint64_t size, const char *name,
                       npy_info *info, gnn_err *e)
{
    unsigned char pre[12];
    ssize_t n = pread(f, pre, (size_t)GNN_MIN(size, sizeof pre), (off_t)base);
    if (n < 0)
        return gnn_seterr_errno(e, GNNDB_IOERR, errno, "read of %s", name);
    size_t want = (size_t)n;
    if (n >= 10 && memcmp(pre, "\x93NUMPY", 6) == 0) {
        size_t hl = pre[6] == 1 ? ((size_t)pre[8] | (size_t)pre[9] << 8) + 10
                    : n >= 12 ? ((size_t)pre[8] | (size_t)pre[9] << 8 |
                                 (size_t)pre[10] << 16 |
                                 (size_t)pre[11] << 24) + 12
                              : (size_t)n;
        want = GNN_MIN(hl, (size_t)NPY_MAX_HEADER + 12);
        if (want > size) want = (size_t)size;
    }
    char *hdr = malloc(want ? want : 1);
    if (!hdr) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    ssize_t got = pread(f, hdr, want, (off_t)base);
    int rc = got < 0 ? gnn_seterr_errno(e, GNNDB_IOERR, errno, "read of %s",
                                        name)
                     : npy_parse_header(hdr, (size_t)got, info, name, e);
    free(hdr);
    return rc;
}

/* The promised size, with overflow checks: a lying shape must fail here,
** not as a wild read later. */
static int check_size(const npy_info *info, uint64_t size, const char *path,
                      gnn_err *e)
{
    uint64_t elems = (uint64_t)info->shape[0];
    if ((info->shape[1] != 0 &&
         elems > UINT64_MAX / (uint64_t)info->shape[1]) ||
        (elems *= (uint64_t)info->shape[1],
         elems > UINT64_MAX / info->elem_size))
        return FMT("%s: header shape is impossibly large", path);
    uint64_t data = elems * info->elem_size;
    uint64_t have = size - info->data_offset;
    if (size >= info->data_offset && have == data) return GNNDB_OK;
    char shp[96];
    describe_shape(info, shp, sizeof shp);
    if (size < info->data_offset || have < data)
        return FMT("%s: truncated: header promises %s (%llu bytes of data) "
                   "but the file holds %llu", path, shp,
                   (unsigned long long)data,
                   (unsigned long long)(size < info->data_offset ? 0 : have));
    return FMT("%s: header promises %s (%llu bytes of data) but the file "
               "holds %llu: trailing bytes", path, shp,
               (unsigned long long)data, (unsigned long long)have);
}

int npy_open_at(int fd, uint64_t base, uint64_t size, const char *name,
                npy_info *info, gnn_err *e)
{
    int rc = read_header(fd, base, size, name, info, e);
    if (!rc) rc = check_size(info, size, name, e);
    if (!rc) info->data_offset += base;
    return rc;
}

int npy_open(const char *path, npy_info *info, int *fd, gnn_err *e)
{
    *fd = -1;
    int f, rc = gnn_open_input(path, &f, e);
    if (rc) return rc;
    struct stat st;
    if (fstat(f, &st) != 0) {
        int rc = gnn_seterr_errno(e, GNNDB_IOERR, errno, "cannot stat %s",
                                  path);
        close(f);
        return rc;
    }
    /* Format messages name the file as the user knows it, without the
    ** directories ("x.npy: ..."); system errors keep the full path. */
    const char *slash = strrchr(path, '/');
    rc = npy_open_at(f, 0, (uint64_t)st.st_size, slash ? slash + 1 : path,
                         info, e);
    if (rc) {
        close(f);
        return rc;
    }
    *fd = f;
    return GNNDB_OK;
}

/* ---- elements ---------------------------------------------------------- */

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31;
    uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: normalise */
            exp = 127 - 15 + 1;
            while (!(man & 0x400)) { man <<= 1; exp--; }
            man &= 0x3ff;
            bits = sign | exp << 23 | man << 13;
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | man << 13;
    } else {
        bits = sign | (exp + 127 - 15) << 23 | man << 13;
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

double npy_get_f(const npy_info *info, const void *row, int64_t j)
{
    const unsigned char *p = (const unsigned char *)row +
                             (size_t)j * info->elem_size;
    switch (info->dtype) {
    case NPY_F32: { float v; memcpy(&v, p, 4); return v; }
    case NPY_F64: { double v; memcpy(&v, p, 8); return v; }
    case NPY_F16: { uint16_t v; memcpy(&v, p, 2); return half_to_float(v); }
    /* not through int64: values from 2^63 up stay positive */
    case NPY_U64: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
    /* every other integer is exact in an int64 */
    case NPY_I64: case NPY_I32: case NPY_I16: case NPY_I8:
    case NPY_U32: case NPY_U16: case NPY_U8: case NPY_BOOL:
        return (double)npy_get_i(info, row, j);
    default:      return 0;
    }
}

int64_t npy_get_i(const npy_info *info, const void *row, int64_t j)
{
    const unsigned char *p = (const unsigned char *)row +
                             (size_t)j * info->elem_size;
    switch (info->dtype) {
    case NPY_I64: { int64_t v; memcpy(&v, p, 8); return v; }
    case NPY_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case NPY_I8:  return (int8_t)*p;
    case NPY_U8:  return *p;
    case NPY_BOOL: return *p != 0;
    case NPY_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case NPY_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case NPY_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case NPY_U64: { uint64_t v; memcpy(&v, p, 8); return (int64_t)v; }
    default: {
        double d = npy_get_f(info, row, j);
        if (!(d >= -9.2e18 && d <= 9.2e18)) return 0;
        return (int64_t)d;
    }
    }
}

/* ---- writing ----------------------------------------------------------- */

int npy_write(const char *path, int dtype, int ndim, const int64_t *shape,
              const void *data, gnn_err *e)
{
    const char *descr = NULL;
    for (size_t i = 0; i < NPY_NTYPES; i++)
        if (npy_types[i].dtype == dtype) descr = npy_types[i].descr;
    if (!descr || (ndim != 1 && ndim != 2) || shape[0] < 0 ||
        (ndim == 2 && shape[1] < 0))
        return gnn_seterr(e, GNNDB_MISUSE, "npy_write %s: bad dtype or shape",
                          path);
    char dict[256];
    int dl;
    if (ndim == 1)
        dl = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': "
                      "False, 'shape': (%lld,), }", descr,
                      (long long)shape[0]);
    else
        dl = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': "
                      "False, 'shape': (%lld, %lld), }", descr,
                      (long long)shape[0], (long long)shape[1]);
    /* Magic (6) + version (2) + length (2) + dict + padding + '\n' is a
    ** multiple of 64, as numpy writes it. */
    size_t total = ((size_t)(10 + dl + 1) + 63) / 64 * 64;
    unsigned char hdr[320];
    memcpy(hdr, "\x93NUMPY\x01\x00", 8);
    size_t hlen = total - 10;
    hdr[8] = (unsigned char)(hlen & 0xff);
    hdr[9] = (unsigned char)(hlen >> 8);
    memcpy(hdr + 10, dict, (size_t)dl);
    memset(hdr + 10 + dl, ' ', total - 10 - (size_t)dl - 1);
    hdr[total - 1] = '\n';

    uint64_t bytes = (uint64_t)shape[0] * (ndim == 2 ? (uint64_t)shape[1] : 1)
                     * dtype_size(dtype);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return gnn_seterr_errno(e, GNNDB_IOERR, errno, "cannot create %s",
                                path);
    const unsigned char *parts[2] = {hdr, data};
    uint64_t lens[2] = {total, bytes};
    for (int k = 0; k < 2; k++) {
        const unsigned char *p = parts[k];
        uint64_t left = lens[k];
        while (left > 0) {
            ssize_t n = write(fd, p, left > (1u << 30) ? (1u << 30) : left);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                int rc = gnn_seterr_errno(e, GNNDB_IOERR,
                                          n < 0 ? errno : ENOSPC,
                                          "write to %s", path);
                close(fd);
                unlink(path);
                return rc;
            }
            p += n;
            left -= (uint64_t)n;
        }
    }
    if (close(fd) != 0) {
        int rc = gnn_seterr_errno(e, GNNDB_IOERR, errno, "close of %s", path);
        unlink(path);
        return rc;
    }
    return GNNDB_OK;
}
