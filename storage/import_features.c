/* import_features.c — IMPORT FEATURES / LABELS and id lists: .npy, CSV and
** raw binary rows -> feature block files, rows permuted to internal order. */
#include "import.h"
#include "block.h"
#include "blockfile.h"
#include "extsort.h"
#include "npy.h"
#include "array.h"
#include "csv_lines.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A label this large is a mistake (or a float file read as labels). */
#define MAX_LABEL ((int64_t)1 << 24)

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcasecmp(s + n - m, suf) == 0;
}

/* gnndb_interrupt, through ctl, stops an import between rows. */
static int interrupted(const imp_ctl *ctl, gnn_err *e)
{
    if (ctl && ctl->interrupt && *ctl->interrupt)
        return gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
    return GNNDB_OK;
}

/* What a CSV's values are: numbers (features), labels or times. */
enum { CSV_NUMBERS, CSV_LABELS, CSV_TIMES };

/* A value of `kind` into *d (a number) or *v: a time is an integer; a
** label an integer, or a float with an integral value, NaN (no label) -1,
** as is any negative label. 0 on success. */
static int parse_value(const char *t, size_t n, int kind, double *d,
                       int64_t *v)
{
    if (kind == CSV_NUMBERS) return csv_parse_num(t, n, 0, d, v);
    if (csv_parse_num(t, n, 1, d, v) == 0) return 0;
    if (kind == CSV_TIMES || csv_parse_num(t, n, 0, d, v) != 0) return -1;
    if (isnan(*d)) { *v = -1; return 0; }
    if (*d != floor(*d) || !(*d > -9.2e18 && *d < 9.2e18)) return -1;
    *v = (int64_t)*d;
    return 0;
}

/* ---- sources ----------------------------------------------------------- */

/* Rows of the input in random-access form: a file descriptor, where the
** data starts, rows x dim elements of dtype (NPY_*). A CSV is first
** converted into a scratch file of float64 (int64 for labels). */
typedef struct feat_src {
    int fd;
    uint64_t data_off;
    int64_t rows, dim;
    npy_info info;        /* dtype and elem_size (used by npy_get_*) */
    xs_file scratch;
    arr_src arr;          /* .npy and .npz inputs */
    int has_arr;
    const char *name;     /* what messages call the input */
} feat_src;

/* The values of one CSV line (line `lineno` of `name`), appended to the
** scratch file: float64 numbers, or int64 labels and times; *cols counts
** them. A line may not hold more values than the first row did. */
static int csv_values(const char *l, size_t n, const char *name,
                      uint64_t lineno, int kind, feat_src *s, int64_t *cols,
                      gnn_err *e)
{
    static const char *const what[] = {"a number", "an integer label",
                                       "an integer time"};
    size_t i = 0;
    for (;;) {
        while (i < n && (l[i] == ' ' || l[i] == '\t')) i++;
        size_t t0 = i;
        while (i < n && l[i] != ',') i++;
        size_t t1 = i;
        while (t1 > t0 && (l[t1 - 1] == ' ' || l[t1 - 1] == '\t')) t1--;
        double d = 0;
        int64_t v = 0;
        if (parse_value(l + t0, t1 - t0, kind, &d, &v) != 0) {
            int q = (int)GNN_MIN(t1 - t0, (size_t)40);
            return gnn_seterr(e, GNNDB_FORMAT, "%s:%llu:%zu: expected %s, "
                              "found '%.*s'", name,
                              (unsigned long long)lineno, t0 + 1, what[kind],
                              q, l + t0);
        }
        int rc = kind != CSV_NUMBERS ? xs_file_write(&s->scratch, &v, 8, e)
                                     : xs_file_write(&s->scratch, &d, 8, e);
        if (rc) return rc;
        (*cols)++;
        if (s->dim >= 0 && *cols > s->dim)
            return gnn_seterr(e, GNNDB_FORMAT, "%s:%llu:%zu: more than the "
                              "%lld values of the first row", name,
                              (unsigned long long)lineno, t0 + 1,
                              (long long)s->dim);
        if (i >= n) return GNNDB_OK;
        i++; /* the comma */
    }
}

static int open_csv(const char *src, const char *name, int kind,
                    const imp_ctl *ctl, const char *dir, feat_src *s,
                    gnn_err *e)
{
    line_reader lr;
    int rc = lr_open(&lr, src, e);
    if (rc) return rc;
    const char *tmpdir = ctl && ctl->tmpdir ? ctl->tmpdir : dir;
    if ((rc = xs_file_open(&s->scratch, tmpdir, 1 << 20, e))) {
        lr_close(&lr);
        return rc;
    }
    s->info.dtype = kind != CSV_NUMBERS ? NPY_I64 : NPY_F64;
    s->info.elem_size = 8;
    s->info.ndim = 2;
    s->dim = -1;
    char *l;
    size_t n;
    int k;
    while ((k = lr_data(&lr, name, &l, &n, e)) > 0) {
        int64_t cols = 0;
        if ((rc = csv_values(l, n, name, lr.lineno, kind, s, &cols, e)))
            goto out;
        if (s->dim < 0) {
            s->dim = cols;
        } else if (cols != s->dim) {
            rc = gnn_seterr(e, GNNDB_FORMAT, "%s:%llu:%zu: expected %lld "
                            "values (as in the first row), found %lld", name,
                            (unsigned long long)lr.lineno, n + 1,
                            (long long)s->dim, (long long)cols);
            goto out;
        }
        if (kind != CSV_NUMBERS && cols != 1) {
            rc = gnn_seterr(e, GNNDB_FORMAT, "%s:%llu: %s need one value "
                            "per line, found %lld", name,
                            (unsigned long long)lr.lineno,
                            kind == CSV_TIMES ? "times" : "labels",
                            (long long)cols);
            goto out;
        }
        s->rows++;
        if (s->rows % 4096 == 0 && (rc = interrupted(ctl, e))) goto out;
    }
    if (k < 0) { rc = e ? e->rc : GNNDB_IOERR; goto out; }
    if (s->dim < 0) {
        rc = gnn_seterr(e, GNNDB_FORMAT, "%s: no rows", name);
        goto out;
    }
    rc = xs_file_flush(&s->scratch, e);
    s->fd = s->scratch.fd;
    s->data_off = 0;
out:
    lr_close(&lr);
    return rc;
}

static int open_source(const char *src, const imp_feat_opts *o,
                       const imp_ctl *ctl, const char *dir, feat_src *s,
                       gnn_err *e)
{
    const char *name = base_name(src);
    int fmt = o->format;
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->scratch.fd = -1;
    s->name = name;
    if (!fmt)
        fmt = arr_is_array_path(src) ? IMP_FEAT_NPY
              : has_suffix(src, ".csv") || has_suffix(src, ".csv.gz")
                  ? IMP_FEAT_CSV
              : has_suffix(src, ".bin") ? IMP_FEAT_BIN : 0;
    int rc;
    switch (fmt) {
    case IMP_FEAT_NPY:
        rc = arr_open(src, o->key, ctl && ctl->tmpdir ? ctl->tmpdir : dir,
                      &s->arr, e);
        s->has_arr = 1;
        if (rc) return rc;
        s->name = s->arr.name;
        s->info = s->arr.info;
        s->fd = s->arr.fd;
        s->data_off = s->info.data_offset;
        s->rows = s->info.shape[0];
        s->dim = s->info.shape[1];
        break;
    case IMP_FEAT_CSV:
        if ((rc = open_csv(src, name, o->times ? CSV_TIMES : o->labels
                           ? CSV_LABELS : CSV_NUMBERS, ctl, dir, s, e)))
            return rc;
        break;
    case IMP_FEAT_BIN: {
        if (o->dim <= 0)
            return gnn_seterr(e, GNNDB_MISUSE, "%s: a raw binary file needs "
                              "DIM", name);
        int t = o->bin_dtype ? o->bin_dtype : NPY_F32;
        size_t es = t == NPY_F32 || t == NPY_I32 ? 4
                    : t == NPY_F64 || t == NPY_I64 ? 8 : 0;
        if (!es)
            return gnn_seterr(e, GNNDB_MISUSE, "%s: raw binary TYPE must be "
                              "float32, float64, int32 or int64", name);
        s->info.dtype = t;
        s->info.elem_size = es;
        s->info.ndim = 2;
        s->dim = o->dim;
        if ((rc = gnn_open_input(src, &s->fd, e))) return rc;
        struct stat st;
        if (fstat(s->fd, &st) != 0)
            return gnn_seterr_errno(e, GNNDB_IOERR, errno, "cannot stat %s",
                                    src);
        uint64_t row = (uint64_t)o->dim * es;
        if ((uint64_t)st.st_size % row != 0)
            return gnn_seterr(e, GNNDB_FORMAT, "%s: %llu bytes is not a whole "
                              "number of rows of %lld %s (%llu bytes each)",
                              name, (unsigned long long)st.st_size,
                              (long long)o->dim, npy_dtype_name(t),
                              (unsigned long long)row);
        s->rows = (int64_t)((uint64_t)st.st_size / row);
        break;
    }
    default:
        return gnn_seterr(e, GNNDB_FORMAT, "%s: unknown feature file format "
                          "(expected .npy, .npz, .csv, .csv.gz or .bin)",
                          name);
    }
    if (o->times && (s->dim != 1 || s->info.dtype != NPY_I64))
        return gnn_seterr(e, GNNDB_FORMAT, "%s: times must be one int64 per "
                          "row", s->name);
    if (o->labels) {
        if (s->dim != 1)
            return gnn_seterr(e, GNNDB_FORMAT, "%s: labels must be a vector "
                              "(one per node), found %lld per row", s->name,
                              (long long)s->dim);
    }
    if (s->dim <= 0 || s->dim > UINT32_MAX)
        return gnn_seterr(e, GNNDB_FORMAT, "%s: rows of %lld elements are not "
                          "supported", s->name, (long long)s->dim);
    return GNNDB_OK;
}

static void close_source(feat_src *s)
{
    if (s->has_arr) arr_close(&s->arr);
    else if (s->scratch.fd >= 0) xs_file_close(&s->scratch);
    else if (s->fd >= 0) close(s->fd);
    s->fd = -1;
}

/* ---- conversion -------------------------------------------------------- */

static uint16_t float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, exp = (x >> 23) & 0xff,
             man = x & 0x7fffff;
    if (exp == 0xff) return (uint16_t)(sign | 0x7c00 | (man ? 0x200 : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {
        if (e < -10) return (uint16_t)sign;
        man |= 0x800000;
        int shift = 14 - e;
        uint32_t h = man >> shift, rem = man & ((1u << shift) - 1),
                 half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1))) h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = (uint32_t)e << 10 | man >> 13, rem = man & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++; /* may carry: ok */
    return (uint16_t)(sign | h);
}

/* Convert one source row into the stored dtype at `out`. */
static int convert_row(const feat_src *s, const void *row, uint32_t dtype,
                       void *out, int64_t file_row, const char *name,
                       gnn_err *e)
{
    int64_t dim = s->dim;
    switch (dtype) {
    case BLK_DTYPE_F32:
        if (s->info.dtype == NPY_F32) {
            memcpy(out, row, (size_t)dim * 4);
        } else {
            float *f = out;
            for (int64_t j = 0; j < dim; j++)
                f[j] = (float)npy_get_f(&s->info, row, j);
        }
        return GNNDB_OK;
    case BLK_DTYPE_F16: {
        uint16_t *h = out;
        for (int64_t j = 0; j < dim; j++)
            h[j] = float_to_half((float)npy_get_f(&s->info, row, j));
        return GNNDB_OK;
    }
    case BLK_DTYPE_I8: {
        int8_t *q = out;
        for (int64_t j = 0; j < dim; j++) {
            double d = npy_get_f(&s->info, row, j);
            if (!(d >= -128.0 && d <= 127.0) || d != floor(d))
                return gnn_seterr(e, GNNDB_RANGE, "%s: row %lld, column "
                                  "%lld: %g cannot be stored as int8 "
                                  "(integers in [-128, 127])", name,
                                  (long long)file_row, (long long)j, d);
            q[j] = (int8_t)d;
        }
        return GNNDB_OK;
    }
    case BLK_DTYPE_I64: {
        int64_t *v = out;
        for (int64_t j = 0; j < dim; j++) v[j] = npy_get_i(&s->info, row, j);
        return GNNDB_OK;
    }
    default:
        return gnn_seterr(e, GNNDB_MISUSE, "unknown store dtype %u", dtype);
    }
}

/* A label from an integer or a float file: NaN means no label (-1, as a
** negative label does); a float must hold an integer. */
static int label_of(const feat_src *s, const void *row, int64_t file_row,
                    int64_t *v, gnn_err *e)
{
    if (npy_is_integer(s->info.dtype)) {
        *v = npy_get_i(&s->info, row, 0);
        return GNNDB_OK;
    }
    double d = npy_get_f(&s->info, row, 0);
    if (isnan(d)) {
        *v = -1;
        return GNNDB_OK;
    }
    if (d != floor(d) || !(d > -9.2e18 && d < 9.2e18))
        return gnn_seterr(e, GNNDB_FORMAT, "%s: row %lld: label %g is not an "
                          "integer (a class number, or NaN for none)", s->name,
                          (long long)file_row, d);
    *v = (int64_t)d;
    return GNNDB_OK;
}

static int count_label(imp_feat_result *res, int64_t v, const char *name,
                       int64_t file_row, gnn_err *e)
{
    if (v < 0) return GNNDB_OK;
    if (v >= MAX_LABEL)
        return gnn_seterr(e, GNNDB_RANGE, "%s: row %lld: label %lld is too "
                          "large (classes are numbered from 0)", name,
                          (long long)file_row, (long long)v);
    if (v >= res->nclasses) {
        int64_t *p = realloc(res->class_counts, (size_t)(v + 1) * sizeof *p);
        if (!p) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        memset(p + res->nclasses, 0,
               (size_t)(v + 1 - res->nclasses) * sizeof *p);
        res->class_counts = p;
        res->nclasses = v + 1;
    }
    res->class_counts[v]++;
    return GNNDB_OK;
}

/* What writing a table's blocks needs, set up by imp_features: the source,
** the stored layout, the buffers of one block and the file being written. */
typedef struct feat_out {
    const imp_feat_opts *o;
    const imp_ctl *ctl;
    feat_src *s;
    imp_feat_result *res;
    const char *fname;    /* what messages call the input */
    uint32_t bs, dtype, dim, rpb;
    size_t srow, drow;    /* bytes of a row in the source, in a block */
    int64_t n;            /* rows */
    uint64_t nblocks;
    uint8_t *blk;         /* the block being filled */
    uint8_t *rows;        /* its rows as read from the source */
    uint8_t *pblk;        /* INSERT ROWS: a block of the table so far */
    blk_writer *w;
} feat_out;

/* A block size and a stored dtype the block format can hold. */
static int check_store(uint32_t bs, uint32_t dtype, gnn_err *e)
{
    if (!blk_size_valid(bs))
        return gnn_seterr(e, GNNDB_RANGE, "invalid block size %u (a power of "
                          "two from 4 KiB to 16 MiB)", bs);
    if (dtype != BLK_DTYPE_F32 && dtype != BLK_DTYPE_F16 &&
        dtype != BLK_DTYPE_I8 && dtype != BLK_DTYPE_I64)
        return gnn_seterr(e, GNNDB_MISUSE, "unknown store dtype %u", dtype);
    return GNNDB_OK;
}

/* INSERT ROWS: rows of the table's own width, no more than the graph
** has rows for. */
static int check_appended(const feat_out *f, gnn_err *e)
{
    const imp_feat_opts *o = f->o;
    int64_t total = o->prior_rows + f->s->rows;
    if ((uint32_t)f->s->dim != o->prior_dim)
        return gnn_seterr(e, GNNDB_RANGE, "%s: rows of %lld values, and the "
                          "table's have %u", f->fname, (long long)f->s->dim,
                          o->prior_dim);
    if (o->nodes >= 0 && total > o->nodes)
        return gnn_seterr(e, GNNDB_RANGE, "%s has %lld rows: with the "
                          "table's %lld that makes %lld, and %s %s has %lld "
                          "%s", f->fname, (long long)f->s->rows,
                          (long long)o->prior_rows, (long long)total,
                          "graph", o->graph ? o->graph : "?",
                          (long long)o->nodes,
                          o->edges ? "input edges" : "nodes");
    return GNNDB_OK;
}

/* A table has one row per node of its graph (per input edge for edge
** features), when the caller knows them. */
static int check_rows(const feat_out *f, gnn_err *e)
{
    const imp_feat_opts *o = f->o;
    if (o->prior) return check_appended(f, e);
    if (o->nodes < 0 || f->s->rows == o->nodes) return GNNDB_OK;
    if (o->edges)
        return gnn_seterr(e, GNNDB_RANGE, "%s has %lld rows; %s %s has "
                          "%lld input edges", f->fname, (long long)f->s->rows,
                          o->relation ? "relation" : "graph",
                          o->graph ? o->graph : "?",
                          (long long)o->nodes);
    if (o->graph)
        return gnn_seterr(e, GNNDB_RANGE, "%s has %lld rows but graph %s "
                          "has %lld nodes", f->fname, (long long)f->s->rows,
                          o->graph, (long long)o->nodes);
    return gnn_seterr(e, GNNDB_RANGE, "%s has %lld rows but the graph "
                      "has %lld nodes", f->fname, (long long)f->s->rows,
                      (long long)o->nodes);
}

/* Rows per block, the buffers of one block and room for every block's
** checksum; the buffers are freed by imp_features, the checksums with the
** result. */
static int layout(feat_out *f, gnn_err *e)
{
    f->n = f->o->prior_rows + f->s->rows;
    f->dim = (uint32_t)f->s->dim;
    f->rpb = blk_feature_rows_per_block(f->bs, f->dim, f->dtype);
    if (f->rpb == 0)
        return gnn_seterr(e, GNNDB_RANGE, "%s: a row of %u %s (%llu bytes) "
                          "does not fit in a %u-byte block; use a larger "
                          "BLOCK SIZE", f->fname, f->dim,
                          blk_dtype_name(f->dtype),
                          (unsigned long long)f->dim *
                              blk_dtype_size(f->dtype), f->bs);
    f->srow = (size_t)f->dim * f->s->info.elem_size;
    f->drow = (size_t)f->dim * blk_dtype_size(f->dtype);
    f->nblocks = f->n ? ((uint64_t)f->n + f->rpb - 1) / f->rpb : 0;
    uint32_t chunk = (uint32_t)GNN_MIN((uint64_t)f->rpb,
                                       (uint64_t)(f->n ? f->n : 1));
    if (!(f->blk = gnn_alloc_aligned(f->bs)) ||
        !(f->rows = malloc(chunk * f->srow)) ||
        !(f->res->checksums = malloc((f->nblocks ? f->nblocks : 1) *
                                     sizeof *f->res->checksums)) ||
        (f->o->prior && !(f->pblk = gnn_alloc_aligned(f->bs))))
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    return GNNDB_OK;
}

/* The source rows of nodes first..first+cnt, in node order: one read when
** the rows are in that order, else a read a row through i2r. */
static int read_rows(feat_out *f, int64_t first, uint32_t cnt, gnn_err *e)
{
    const feat_src *s = f->s;
    if (!f->o->i2r)
        return arr_pread(s->fd, f->rows, cnt * f->srow,
                         s->data_off + (uint64_t)first * f->srow, f->fname, e);
    for (uint32_t i = 0; i < cnt; i++) {
        int64_t r = f->o->i2r[first + i];
        if (r < 0 || r >= f->n)
            return gnn_seterr(e, GNNDB_RANGE, "%s: node %lld maps to row "
                              "%lld, beyond the %lld rows", f->fname,
                              (long long)(first + i), (long long)r,
                              (long long)f->n);
        int rc = arr_pread(s->fd, f->rows + i * f->srow, f->srow,
                           s->data_off + (uint64_t)r * f->srow, f->fname, e);
        if (rc) return rc;
    }
    return GNNDB_OK;
}

/* The rows read, converted into the block's payload from its row `at`:
** labels checked and counted, features converted to the stored dtype. */
static int fill_rows(feat_out *f, int64_t first, uint32_t cnt, uint32_t at,
                     gnn_err *e)
{
    int rc;
    for (uint32_t i = 0; i < cnt; i++) {
        int64_t frow = f->o->i2r ? f->o->i2r[first + i] : first + i;
        const uint8_t *row = f->rows + i * f->srow;
        uint8_t *to = f->blk + blk_data_offset(f->bs) + (at + i) * f->drow;
        if (f->o->times) {
            int64_t v;
            memcpy(&v, row, 8);
            memcpy(to, &v, 8);
            if (v < f->res->tmin) f->res->tmin = v;
            if (v > f->res->tmax) f->res->tmax = v;
        } else if (f->o->labels) {
            int64_t v = 0;
            if ((rc = label_of(f->s, row, frow, &v, e)) ||
                (rc = count_label(f->res, v, f->fname, frow, e)))
                return rc;
            memcpy(to, &v, sizeof v);
        } else if ((rc = convert_row(f->s, row, f->dtype, to, frow, f->fname,
                                     e))) {
            return rc;
        }
    }
    return GNNDB_OK;
}

/* INSERT ROWS: the first `kept` rows of block b as the table holds them
** (its block b: the same layout), labels counted again. */
static int copy_prior(feat_out *f, uint64_t b, uint32_t kept, gnn_err *e)
{
    int rc = blkf_read(f->o->prior, b, f->pblk, e);
    if (rc) return rc;
    size_t off = blk_data_offset(f->bs);
    memcpy(f->blk + off, f->pblk + off, kept * f->drow);
    for (uint32_t i = 0; f->o->labels && !rc && i < kept; i++) {
        int64_t v;
        memcpy(&v, f->pblk + off + i * f->drow, sizeof v);
        rc = count_label(f->res, v, f->o->prior->path,
                         (int64_t)(b * f->rpb + i), e);
    }
    return rc;
}

/* Block b: its rows read and converted (after the table's own, for INSERT
** ROWS), the block sealed and appended, its checksum kept, the rows done
** reported. */
static int write_block(feat_out *f, uint64_t b, gnn_err *e)
{
    int rc = interrupted(f->ctl, e);
    if (rc) return rc;
    int64_t first = (int64_t)(b * f->rpb);
    uint32_t cnt = (uint32_t)GNN_MIN((int64_t)f->rpb, f->n - first);
    int64_t old = GNN_MAX((int64_t)0, f->o->prior_rows - first);
    uint32_t kept = (uint32_t)GNN_MIN((int64_t)cnt, old);
    int64_t src = first + kept - f->o->prior_rows;   /* the source's row */
    memset(f->blk, 0, blk_data_offset(f->bs));
    if (kept && (rc = copy_prior(f, b, kept, e))) return rc;
    if (cnt > kept && ((rc = read_rows(f, src, cnt - kept, e)) ||
                       (rc = fill_rows(f, src, cnt - kept, kept, e))))
        return rc;
    blk_seal(f->blk, f->bs, BLK_KIND_FEATURE, b, (uint64_t)first, f->o->token,
             cnt, (uint32_t)(blk_data_offset(f->bs) + cnt * f->drow), 0,
             f->dtype, f->dim);
    f->res->checksums[b] = ((blk_header *)f->blk)->checksum;
    if ((rc = blkw_append(f->w, f->blk, e))) return rc;
    const imp_ctl *ctl = f->ctl;
    if (ctl && ctl->progress &&
        ctl->progress(ctl->progress_arg, first + cnt, f->n))
        return gnn_seterr(e, GNNDB_INTERRUPT, "interrupted");
    return GNNDB_OK;
}

int imp_features(const char *src, const char *dir, const char *name,
                 const imp_feat_opts *o, const imp_ctl *ctl,
                 imp_feat_result *res, gnn_err *e)
{
    memset(res, 0, sizeof *res);
    res->tmin = INT64_MAX;
    res->tmax = INT64_MIN;
    feat_out f = {.o = o, .ctl = ctl, .res = res, .fname = base_name(src)};
    f.bs = o->block_size ? o->block_size : BLK_DEFAULT_SIZE;
    f.dtype = o->labels || o->times ? BLK_DTYPE_I64
              : o->store_dtype ? o->store_dtype : BLK_DTYPE_F32;
    int rc = check_store(f.bs, f.dtype, e);
    if (rc) return rc;

    feat_src s;
    f.s = &s;
    if ((rc = open_source(src, o, ctl, dir, &s, e))) goto out;
    f.fname = s.name;
    if ((rc = check_rows(&f, e)) || (rc = layout(&f, e)) ||
        (rc = blkw_create(dir, name, f.bs, &f.w, e)))
        goto out;
    for (uint64_t b = 0; b < f.nblocks; b++)
        if ((rc = write_block(&f, b, e))) goto out;
    rc = blkw_finish(f.w, e);
    f.w = NULL;
    if (rc) goto out;
    res->rows = f.n;
    res->dim = f.dim;
    res->dtype = f.dtype;
    res->rows_per_block = f.rpb;
    res->nblocks = f.nblocks;
out:
    if (f.w) blkw_abort(f.w);
    close_source(&s);
    gnn_free_aligned(f.blk);
    gnn_free_aligned(f.pblk);
    free(f.rows);
    if (rc) {
        imp_feat_result_free(res);
        memset(res, 0, sizeof *res);
    }
    return rc;
}

void imp_feat_result_free(imp_feat_result *res)
{
    if (!res) return;
    free(res->checksums);
    free(res->class_counts);
    res->checksums = NULL;
    res->class_counts = NULL;
}

/* ---- id lists ---------------------------------------------------------- */

static int push_id(int64_t **ids, size_t *n, size_t *cap, int64_t v,
                   gnn_err *e)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 1024;
        int64_t *p = realloc(*ids, nc * sizeof *p);
        if (!p) return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
        *ids = p;
        *cap = nc;
    }
    (*ids)[(*n)++] = v;
    return GNNDB_OK;
}

/* An id list from a .npy or an .npz member: read whole (a split is at most
** one id per node). */
static int array_id_list(const char *src, const char *key, const char *tmpdir,
                         int64_t **ids, size_t *n, gnn_err *e)
{
    arr_src a;
    int rc = arr_open(src, key, tmpdir, &a, e);
    if (rc) {
        arr_close(&a);
        return rc;
    }
    npy_info *info = &a.info;
    if (!npy_is_integer(info->dtype) || info->shape[1] != 1) {
        rc = gnn_seterr(e, GNNDB_FORMAT, "%s: an id list must be a 1-D "
                        "integer array, found %s of shape %lldx%lld", a.name,
                        npy_dtype_name(info->dtype), (long long)info->shape[0],
                        (long long)info->shape[1]);
        arr_close(&a);
        return rc;
    }
    size_t cnt = (size_t)info->shape[0];
    unsigned char *raw = malloc(cnt * info->elem_size + 1);
    int64_t *out = malloc((cnt ? cnt : 1) * sizeof *out);
    if (!raw || !out) rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    if (!rc) rc = arr_read_rows(&a, 0, (int64_t)cnt, raw, e);
    for (size_t i = 0; !rc && i < cnt; i++)
        out[i] = npy_get_i(info, raw, (int64_t)i);
    arr_close(&a);
    free(raw);
    if (rc) {
        free(out);
        return rc;
    }
    *ids = out;
    *n = cnt;
    return GNNDB_OK;
}

int imp_id_list(const char *src, const char *key, const char *tmpdir,
                int64_t **ids, size_t *n, gnn_err *e)
{
    *ids = NULL;
    *n = 0;
    const char *name = base_name(src);
    size_t cap = 0;
    int rc = GNNDB_OK;
    if (key || arr_is_array_path(src))
        return array_id_list(src, key, tmpdir, ids, n, e);
    line_reader lr;
    if ((rc = lr_open(&lr, src, e))) return rc;
    char *l;
    size_t len;
    int k;
    while ((k = lr_data(&lr, name, &l, &len, e)) > 0) {
        size_t i = 0;
        while (i < len && (l[i] == ' ' || l[i] == '\t')) i++;
        size_t t1 = len;
        while (t1 > i && (l[t1 - 1] == ' ' || l[t1 - 1] == '\t')) t1--;
        int64_t v;
        double d;
        if (csv_parse_num(l + i, t1 - i, 1, &d, &v) != 0) {
            rc = gnn_seterr(e, GNNDB_FORMAT, "%s:%llu:%zu: expected an integer "
                            "node id, found '%.*s'", name,
                            (unsigned long long)lr.lineno, i + 1,
                            (int)GNN_MIN(t1 - i, (size_t)40), l + i);
            break;
        }
        if ((rc = push_id(ids, n, &cap, v, e))) break;
    }
    if (!rc && k < 0) rc = e ? e->rc : GNNDB_IOERR;
    lr_close(&lr);
    if (rc) {
        free(*ids);
        *ids = NULL;
        *n = 0;
    }
    return rc;
}
