/* util.c — helpers shared by the cmocka test programs. */
#include "util.h"
#include "../exec/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *tu_data_dir(void)
{
    const char *d = getenv("GNNDB_DATA");
    return (d && *d) ? d : "../shared/data";
}

const char *tu_data(int slot, const char *rel)
{
    static char buf[8][1024]; /* test-only convenience */
    snprintf(buf[slot & 7], sizeof buf[0], "%s/%s", tu_data_dir(), rel);
    return buf[slot & 7];
}

char *tu_tmpdir(const char *tag)
{
    const char *base = getenv("GNNDB_TMP");
    if (!base || !*base) base = "/tmp";
    char *p = malloc(1024);
    snprintf(p, 1024, "%s/%s.XXXXXX", base, tag);
    if (!mkdtemp(p)) { free(p); return NULL; }
    return p;
}

void tu_rmrf(const char *path)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0) { /* best effort */ }
}

int tu_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(data, 1, len, f);
    return (fclose(f) == 0 && w == len) ? 0 : -1;
}

char *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    fclose(f);
    if (b) { b[n] = 0; if (len) *len = (size_t)n; }
    return b;
}

int tu_db_open(tu_db *d, const char *tag)
{
    memset(d, 0, sizeof *d);
    d->dir = tu_tmpdir(tag);
    if (!d->dir) return GNNDB_CANTOPEN;
    snprintf(d->path, sizeof d->path, "%s/test.gnndb", d->dir);
    int rc = gnndb_open(d->path, &d->h,
                        GNNDB_OPEN_READWRITE | GNNDB_OPEN_CREATE);
    if (rc) fprintf(stderr, "open %s: %s\n", d->path, gnndb_errmsg(d->h));
    /* memory_limit bounds what each statement adds: the tests' own
    ** reference structures stay outside it */
    else gnndb_memory_baseline(d->h, GNNDB_BASELINE_PREPARE);
    return rc;
}

void tu_db_close(tu_db *d)
{
    gnndb_close(d->h);
    d->h = NULL;
    if (d->dir) tu_rmrf(d->dir);
    free(d->dir);
    d->dir = NULL;
}

int tu_import_cora(gnndb *h)
{
    char sql[16384];
    snprintf(sql, sizeof sql,
             "CREATE GRAPH cora FROM '%s';"
             "IMPORT FEATURES feat INTO cora FROM '%s';"
             "IMPORT LABELS INTO cora FROM '%s';"
             "CREATE SPLIT train ON cora FROM '%s';",
             tu_data(4, "cora/edges.tsv"), tu_data(5, "cora/features.npy"),
             tu_data(6, "cora/labels.npy"), tu_data(7, "cora/train_idx.npy"));
    int rc = gnndb_exec(h, sql, NULL, NULL);
    if (rc) fprintf(stderr, "importing cora: %s\n", gnndb_errmsg(h));
    return rc;
}

void *tu_load_npy(const char *path, size_t *bytes)
{
    size_t len;
    char *raw = tu_read_file(path, &len);
    if (!raw) return NULL;
    if (len < 10 || memcmp(raw, "\x93NUMPY", 6) != 0 || raw[6] != 1) {
        free(raw);
        return NULL;
    }
    size_t off = 10 + ((size_t)(unsigned char)raw[8] |
                       (size_t)(unsigned char)raw[9] << 8);
    if (off > len) { free(raw); return NULL; }
    *bytes = len - off;
    memmove(raw, raw + off, *bytes);
    return raw;
}

int tu_write_npy(const char *path, const char *descr, const void *data,
                 size_t rows, size_t cols, size_t elem)
{
    char hdr[128];
    int n = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': "
                     "False, 'shape': (%zu, %zu), }", descr, rows, cols);
    /* pad with spaces so that the data starts on a 64-byte boundary */
    while ((10 + n + 1) % 64) hdr[n++] = ' ';
    hdr[n++] = '\n';
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                             (unsigned char)(n & 0xff), (unsigned char)(n >> 8)};
    size_t want = rows * cols * elem;
    int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(hdr, 1, (size_t)n, f) ==
             (size_t)n && fwrite(data, 1, want, f) == want;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

const gnndb_batch_view *tu_batch(gnndb_stmt *st)
{
    gnndb_batch_digest(st);
    return gnndb_batch(st);
}

/* MurmurHash3's 64-bit finaliser. */
static uint64_t tu_fmix(uint64_t z)
{
    z ^= z >> 33;
    z *= 0xff51afd7ed558ccdull;
    z ^= z >> 33;
    z *= 0xc4ceb9fe1a85ec53ull;
    z ^= z >> 33;
    return z;
}

uint64_t tu_digest_fold(uint64_t h, const void *data, size_t len)
{
    const unsigned char *b = data;
    uint64_t s = 0;
    for (size_t i = 0; 8 * i < len; i++) {
        uint64_t w = 0;
        memcpy(&w, b + 8 * i, len - 8 * i < 8 ? len - 8 * i : 8);
        s += tu_fmix(w ^ ((i + 1) * 0x9e3779b97f4a7c15ull));
    }
    return tu_fmix(h ^ s ^ ((uint64_t)len * 0xc2b2ae3d27d4eb4full));
}

static int tu_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int64_t tu_ref_choose(uint64_t key, int64_t d, int fanout, int replace,
                      int64_t *out)
{
    if (fanout < 0 || (!replace && d <= fanout)) {
        for (int64_t i = 0; i < d; i++) out[i] = i;
        return d;
    }
    if (replace) {
        if (d == 0) return 0;
        for (int i = 0; i < fanout; i++)
            out[i] = (int64_t)rng_below(rng_draw(key, (uint64_t)i),
                                        (uint64_t)d);
        return fanout;
    }
    /* Floyd's algorithm with a linear membership test */
    int64_t n = 0;
    for (int64_t j = d - fanout, i = 0; j < d; j++, i++) {
        int64_t t = (int64_t)rng_below(rng_draw(key, (uint64_t)i),
                                       (uint64_t)j + 1);
        int seen = 0;
        for (int64_t k = 0; k < n && !seen; k++) seen = out[k] == t;
        out[n++] = seen ? j : t;
    }
    qsort(out, (size_t)n, 8, tu_cmp_i64);
    return n;
}
