/* fuzz_ogb.c — libFuzzer target for OGB dataset directories: a small valid
** dataset in the CSV layout is written afresh, then one of its files is
** replaced by the input's bytes (byte 0 chooses which; choice 7 writes them
** as raw/data.npz and raw/node-label.npz, the binary layout). ogb_open and
** the importers it feeds (edges, features, labels, the three splits) must
** then succeed or fail with words; a failure while reading the replaced
** file names it. Nothing may crash, leak or read out of bounds. */
#include "import.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static const struct { const char *rel, *text; } files[] = {
    {"raw/edge.csv.gz", "0,1\n1,2\n2,3\n3,0\n"},
    {"raw/num-node-list.csv.gz", "4\n"},
    {"raw/node-feat.csv.gz", "0.5,1\n1,2\n-3,4e2\n0,0\n"},
    {"raw/node-label.csv.gz", "0\n1\n1\n0\n"},
    {"split/random/train.csv.gz", "0\n1\n"},
    {"split/random/valid.csv.gz", "2\n"},
    {"split/random/test.csv.gz", "3\n"},
};
#define NFILES (sizeof files / sizeof files[0])

static char root[64], ds[96], out[96];

static void path_of(char *p, size_t cap, const char *rel)
{
    snprintf(p, cap, "%s/%s", ds, rel);
}

static void cleanup(void)
{
    char p[256];
    for (size_t i = 0; i < NFILES; i++) {
        path_of(p, sizeof p, files[i].rel);
        unlink(p);
    }
    const char *more[] = {"raw/data.npz", "raw/node-label.npz", NULL};
    for (int i = 0; more[i]; i++) {
        path_of(p, sizeof p, more[i]);
        unlink(p);
    }
    const char *dirs[] = {"split/random", "split", "raw", ""};
    for (int i = 0; i < 4; i++) {
        path_of(p, sizeof p, dirs[i]);
        rmdir(p);
    }
    rmdir(out);
    rmdir(root);
}

static int setup(void)
{
    snprintf(root, sizeof root, "/tmp/gnndb-fuzz-ogb-%d", (int)getpid());
    snprintf(ds, sizeof ds, "%s/ogbn_fuzz", root);
    snprintf(out, sizeof out, "%s/out", root);
    char p[256];
    if (mkdir(root, 0700) || mkdir(ds, 0700) || mkdir(out, 0700)) return -1;
    const char *dirs[] = {"raw", "split", "split/random"};
    for (int i = 0; i < 3; i++) {
        path_of(p, sizeof p, dirs[i]);
        if (mkdir(p, 0700)) return -1;
    }
    atexit(cleanup);
    return 0;
}

static int write_raw(const char *rel, const void *p, size_t n)
{
    char path[256];
    path_of(path, sizeof path, rel);
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(p, 1, n, f);
    return fclose(f) == 0 && w == n ? 0 : -1;
}

static int write_gz(const char *rel, const char *text)
{
    char path[256];
    path_of(path, sizeof path, rel);
    gzFile g = gzopen(path, "wb");
    if (!g) return -1;
    int n = gzwrite(g, text, (unsigned)strlen(text));
    return gzclose(g) == Z_OK && n == (int)strlen(text) ? 0 : -1;
}

/* A failure while reading the replaced file must name it. */
static void check(int rc, const gnn_err *e, const char *src, const char *bad)
{
    if (rc == GNNDB_OK) return;
    CHECK(e->rc == rc && e->msg[0]);
    const char *b = strrchr(bad, '/');
    if (!strcmp(src, bad)) CHECK(strstr(e->msg, b ? b + 1 : bad) != NULL);
}

static void import_all(const ogb_dataset *d, const char *bad)
{
    gnn_err e = {0};
    imp_ctl ctl = {0};
    ctl.tmpdir = out;
    ctl.mem_budget = 1 << 20;
    imp_graph_opts go = {0};
    go.format = d->binary ? EDGE_FMT_AUTO : EDGE_FMT_CSV;
    go.text.header = EDGE_HEADER_NO;
    go.key = d->edges.key;
    go.nodes = d->nodes;
    imp_graph_result gr;
    int rc = imp_graph(d->edges.path, out, "g.blk", &go, &ctl, &gr, &e);
    check(rc, &e, d->edges.path, bad);
    if (rc) return;
    imp_graph_result_free(&gr);
    const ogb_src *t[2] = {&d->feat, &d->labels};
    for (int k = 0; k < 2; k++) {
        if (!t[k]->path[0]) continue;
        imp_feat_opts fo = {0};
        fo.labels = k == 1;
        fo.key = t[k]->key;
        fo.nodes = d->nodes;
        imp_feat_result fr;
        memset(&e, 0, sizeof e);
        rc = imp_features(t[k]->path, out, "f.blk", &fo, &ctl, &fr, &e);
        check(rc, &e, t[k]->path, bad);
        if (!rc) imp_feat_result_free(&fr);
    }
    for (int k = 0; k < 3; k++) {
        int64_t *ids;
        size_t n;
        memset(&e, 0, sizeof e);
        rc = imp_id_list(d->split[k], NULL, out, &ids, &n, &e);
        check(rc, &e, d->split[k], bad);
        if (!rc) free(ids);
    }
    char p[256];
    snprintf(p, sizeof p, "%s/g.blk", out);
    unlink(p);
    snprintf(p, sizeof p, "%s/f.blk", out);
    unlink(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    if (!root[0] && setup() != 0) return 0;
    for (size_t i = 0; i < NFILES; i++)
        if (write_gz(files[i].rel, files[i].text)) return 0;
    char rel[64];
    unsigned which = data[0] % (NFILES + 1);
    if (which == NFILES) {
        if (write_raw("raw/data.npz", data + 1, size - 1) ||
            write_raw("raw/node-label.npz", data + 1, size - 1))
            return 0;
        snprintf(rel, sizeof rel, "raw/data.npz");
    } else {
        if (write_raw(files[which].rel, data + 1, size - 1)) return 0;
        snprintf(rel, sizeof rel, "%s", files[which].rel);
    }
    char bad[256];
    path_of(bad, sizeof bad, rel);
    ogb_dataset d;
    gnn_err e = {0};
    int rc = ogb_open(ds, NULL, out, &d, &e);
    if (rc == GNNDB_OK && d.nodes <= 100000)
        import_all(&d, bad);
    else if (rc != GNNDB_OK)
        CHECK(e.rc == rc && e.msg[0]);
    char p[256];
    path_of(p, sizeof p, "raw/data.npz");
    unlink(p);
    path_of(p, sizeof p, "raw/node-label.npz");
    unlink(p);
    return 0;
}
