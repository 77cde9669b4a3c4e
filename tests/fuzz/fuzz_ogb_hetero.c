/* fuzz_ogb_hetero.c — libFuzzer target for heterogeneous OGB datasets
** (ogbn-mag's layout): a small valid dataset is written afresh, then one
** of its files is replaced by the input's bytes (byte 0 chooses which).
** ogb_hetero_open and the importers it feeds (each relation's edges over
** the global ids with its types' ranges and its edge tables, features,
** labels, the split's three files) must then succeed or fail with words;
** every relation's ids that an import accepts lie in its types' ranges.
** Nothing may crash, leak or read out of bounds. */
#include "import.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define CHECK(c) do { if (!(c)) abort(); } while (0)

#define REL_A "raw/relations/a___r___b/"
#define REL_B "raw/relations/b___s___b/"

static const struct { const char *rel, *text; } files[] = {
    {"raw/num-node-dict.csv.gz", "a,b\n3,4\n"},
    {"raw/triplet-type-list.csv.gz", "a,r,b\nb,s,b\n"},
    {REL_A "edge.csv.gz", "0,1\n2,3\n1,0\n"},
    {REL_A "num-edge-list.csv.gz", "3\n"},
    {REL_B "edge.csv.gz", "0,1\n3,3\n"},
    {REL_B "num-edge-list.csv.gz", "2\n"},
    {"raw/node-feat/b/node-feat.csv.gz", "1,2\n3,4\n5,6\n7,8\n"},
    {"raw/node-feat/b/node_year.csv.gz", "2010\n2011\n2012\n2013\n"},
    {"raw/nodetype-has-label.csv.gz", "a,b\nFalse,True\n"},
    {"raw/node-label/b/node-label.csv.gz", "0\n1\n1\n0\n"},
    {"split/t/nodetype-has-split.csv.gz", "a,b\nFalse,True\n"},
    {"split/t/b/train.csv.gz", "0\n1\n"},
    {"split/t/b/valid.csv.gz", "2\n"},
    {"split/t/b/test.csv.gz", "3\n"},
    /* last, so that the seeds' byte 0 still picks the file it picked */
    {REL_A "edge-feat.csv.gz", "0.5,1\n2,3\n4,5\n"},
    {REL_A "edge_reltype.csv.gz", "0\n0\n0\n"},
};
#define NFILES (sizeof files / sizeof files[0])

static const char *const dirs[] = {
    "raw", "raw/relations", REL_A, REL_B, "raw/node-feat",
    "raw/node-feat/b", "raw/node-label", "raw/node-label/b", "split",
    "split/t", "split/t/b",
};
#define NDIRS (sizeof dirs / sizeof dirs[0])

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
    for (size_t i = NDIRS; i-- > 0;) {
        path_of(p, sizeof p, dirs[i]);
        rmdir(p);
    }
    rmdir(ds);
    rmdir(out);
    rmdir(root);
}

static int setup(void)
{
    snprintf(root, sizeof root, "/tmp/gnndb-fuzz-ogbh-%d", (int)getpid());
    snprintf(ds, sizeof ds, "%s/ogbn_h", root);
    snprintf(out, sizeof out, "%s/out", root);
    if (mkdir(root, 0700) || mkdir(ds, 0700) || mkdir(out, 0700)) return -1;
    char p[256];
    for (size_t i = 0; i < NDIRS; i++) {
        path_of(p, sizeof p, dirs[i]);
        if (mkdir(p, 0700)) return -1;
    }
    atexit(cleanup);
    return 0;
}

static int write_file(const char *rel, const void *data, size_t n, int gz)
{
    char path[256];
    path_of(path, sizeof path, rel);
    if (gz) {
        gzFile g = gzopen(path, "wb");
        if (!g) return -1;
        int w = gzwrite(g, data, (unsigned)n);
        return gzclose(g) == Z_OK && w == (int)n ? 0 : -1;
    }
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(data, 1, n, f);
    return fclose(f) == 0 && w == n ? 0 : -1;
}

static void check(int rc, const gnn_err *e)
{
    if (rc != GNNDB_OK) CHECK(e->rc == rc && e->msg[0]);
}

/* A relation's edge tables, a row per input edge (`edges` of them). */
static void import_edge_tables(const ogb_hetero_rel *r, int64_t edges,
                               const imp_ctl *ctl)
{
    const char *src[2] = {r->edge_feat, r->reltype};
    for (int k = 0; k < 2; k++) {
        if (!src[k][0]) continue;
        imp_feat_opts fo = {0};
        fo.edges = 1;
        fo.relation = 1;
        fo.nodes = edges;
        fo.graph = "h.r";
        imp_feat_result fr;
        gnn_err e = {0};
        int rc = imp_features(src[k], out, "f.blk", &fo, ctl, &fr, &e);
        check(rc, &e);
        if (!rc) {
            CHECK(fr.rows == edges);
            imp_feat_result_free(&fr);
        }
    }
}

/* Each relation over the global ids, as IMPORT OGB builds it. */
static void import_rels(const ogb_hetero *h, const int64_t *first,
                        int64_t total, const imp_ctl *ctl)
{
    for (int i = 0; i < h->nrels; i++) {
        const ogb_hetero_rel *r = &h->rels[i];
        imp_rel t = {r->name, h->types[r->src].name, h->types[r->dst].name,
                     first[r->src], h->types[r->src].count, first[r->dst],
                     h->types[r->dst].count, i & 1};
        imp_graph_opts go = {0};
        go.format = EDGE_FMT_CSV;
        go.text.header = EDGE_HEADER_NO;
        go.nodes = total;
        go.rel = &t;
        imp_graph_result gr;
        gnn_err e = {0};
        int rc = imp_graph(r->edges, out, "g.blk", &go, ctl, &gr, &e);
        check(rc, &e);
        if (!rc) {
            CHECK(gr.nodes == total);
            /* neither undirected nor deduplicated: an edge per input edge */
            import_edge_tables(r, gr.edges, ctl);
            imp_graph_result_free(&gr);
        }
    }
}

static void import_types(const ogb_hetero *h, const imp_ctl *ctl)
{
    for (int t = 0; t < h->ntypes; t++) {
        const ogb_hetero_type *ty = &h->types[t];
        const char *src[3] = {ty->feat, ty->year, ty->label};
        for (int k = 0; k < 3; k++) {
            if (!src[k][0]) continue;
            imp_feat_opts fo = {0};
            fo.labels = k == 2;
            fo.nodes = ty->count;
            imp_feat_result fr;
            gnn_err e = {0};
            int rc = imp_features(src[k], out, "f.blk", &fo, ctl, &fr, &e);
            check(rc, &e);
            if (!rc) imp_feat_result_free(&fr);
        }
        for (int k = 0; ty->has_split && k < 3; k++) {
            int64_t *ids;
            size_t n;
            gnn_err e = {0};
            int rc = imp_id_list(ty->split[k], NULL, out, &ids, &n, &e);
            check(rc, &e);
            if (!rc) free(ids);
        }
    }
}

static void import_all(const ogb_hetero *h)
{
    imp_ctl ctl = {0};
    ctl.tmpdir = out;
    ctl.mem_budget = 1 << 20;
    int64_t first[OGB_MAX_TYPES], total = 0;
    for (int t = 0; t < h->ntypes; t++) {
        first[t] = total;
        total += h->types[t].count;
    }
    if (total > 100000) return;   /* a count the bytes made large */
    import_rels(h, first, total, &ctl);
    import_types(h, &ctl);
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
        if (write_file(files[i].rel, files[i].text, strlen(files[i].text), 1))
            return 0;
    /* bit 7: the bytes as they are (maybe not gzip at all), else gzip'd */
    unsigned which = (data[0] & 0x7f) % NFILES;
    if (write_file(files[which].rel, data + 1, size - 1, !(data[0] & 0x80)))
        return 0;
    ogb_hetero h;
    gnn_err e = {0};
    int rc = ogb_hetero_open(ds, NULL, &h, &e);
    check(rc, &e);
    if (rc) return 0;
    CHECK(h.ntypes >= 1 && h.ntypes <= OGB_MAX_TYPES && h.nrels >= 1);
    for (int i = 0; i < h.nrels; i++)
        CHECK(h.rels[i].src >= 0 && h.rels[i].src < h.ntypes &&
              h.rels[i].dst >= 0 && h.rels[i].dst < h.ntypes);
    import_all(&h);
    ogb_hetero_free(&h);
    return 0;
}
