/* test_gz.c — the zlib edge and the containers behind it: gzip streams
** (written here by zlib's own gzip writer) read back whole, across members
** and in odd chunks, refused when truncated or followed by garbage; .npz
** members (numpy's, in tests/data/ogb) found, listed when missing, inflated
** and read as C-order arrays equal to the plain files they came from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "array.h"
#include "gz.h"
#include "npz.h"
#include "util.h"

static char *dir;

static const char *file(const char *name)
{
    static char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static int setup(void **state)
{
    (void)state;
    dir = tu_tmpdir("gz");
    return dir ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    tu_rmrf(dir);
    free(dir);
    return 0;
}

/* Append `text` to `path` as one gzip member. */
static void gzip_append(const char *path, const char *text)
{
    gzFile g = gzopen(path, "ab");
    assert_non_null(g);
    assert_int_equal(gzwrite(g, text, (unsigned)strlen(text)),
                     (int)strlen(text));
    assert_int_equal(gzclose(g), Z_OK);
}

/* Read the whole stream in chunks of `chunk` bytes. */
static ssize_t read_all(const char *path, size_t chunk, char *out,
                        size_t cap, gnn_err *e)
{
    gz_stream *s;
    if (gz_open(path, &s, e) != GNNDB_OK) return -1;
    size_t n = 0;
    ssize_t r;
    while ((r = gz_read(s, out + n, GNN_MIN(chunk, cap - n), e)) > 0)
        n += (size_t)r;
    gz_close(s);
    return r < 0 ? -1 : (ssize_t)n;
}

static void reads_gzip_members_and_plain_files(void **state)
{
    (void)state;
    gzip_append(file("e.tsv.gz"), "0\t1\n1\t2\n");
    gzip_append(file("e.tsv.gz"), "2\t3\n");   /* a second member */
    char out[64];
    gnn_err e = {0};
    for (size_t chunk = 1; chunk < 20; chunk += 6) {
        assert_int_equal(read_all(file("e.tsv.gz"), chunk, out, sizeof out,
                                  &e), 12);
        assert_memory_equal(out, "0\t1\n1\t2\n2\t3\n", 12);
    }
    assert_int_equal(tu_write_file(file("p.txt"), "plain", 5), 0);
    assert_int_equal(read_all(file("p.txt"), 3, out, sizeof out, &e), 5);
    assert_int_equal(tu_write_file(file("fake.gz"), "plain", 5), 0);
    assert_int_equal(read_all(file("fake.gz"), 3, out, sizeof out, &e), -1);
    assert_string_equal(e.msg, "fake.gz: not gzip data (the file does not "
                               "start with the gzip magic bytes)");
}

static void refuses_truncated_and_trailing_bytes(void **state)
{
    (void)state;
    char big[4000];
    for (size_t i = 0; i < sizeof big - 1; i++) big[i] = (char)('a' + i % 23);
    big[sizeof big - 1] = 0;
    gzip_append(file("t.gz"), big);
    size_t n;
    char *raw = tu_read_file(file("t.gz"), &n);
    assert_non_null(raw);
    assert_int_equal(tu_write_file(file("cut.gz"), raw, n - 9), 0);
    char out[8192];
    gnn_err e = {0};
    assert_int_equal(read_all(file("cut.gz"), 512, out, sizeof out, &e), -1);
    assert_int_equal(e.rc, GNNDB_FORMAT);
    assert_non_null(strstr(e.msg, "cut.gz: truncated gzip stream"));
    char *more = malloc(n + 3);
    memcpy(more, raw, n);
    memcpy(more + n, "xyz", 3);
    assert_int_equal(tu_write_file(file("tail.gz"), more, n + 3), 0);
    assert_int_equal(read_all(file("tail.gz"), 512, out, sizeof out, &e), -1);
    assert_non_null(strstr(e.msg, "tail.gz: trailing bytes after the gzip "
                                  "data"));
    free(more);
    free(raw);
}

#define OGB_NPZ "tests/data/ogb/ogbn_cora/raw/data.npz"

static void finds_npz_members_and_reads_them(void **state)
{
    (void)state;
    arr_src a;
    gnn_err e = {0};
    if (arr_open(OGB_NPZ, "edge_index", dir, &a, &e) == GNNDB_NOTFOUND) {
        skip();   /* run from elsewhere than the tree's root */
    }
    assert_int_equal(e.rc, GNNDB_OK);
    assert_string_equal(a.name, "data.npz:edge_index");
    assert_int_equal(a.info.shape[0], 2);
    int64_t E = a.info.shape[1];
    int64_t *rows = malloc((size_t)E * 16);
    assert_int_equal(arr_read_rows(&a, 0, 2, rows, &e), GNNDB_OK);
    arr_close(&a);
    /* the same edges as cora's edges.tsv, in its order */
    size_t len;
    char *tsv = tu_read_file(tu_data(0, "cora/edges.tsv"), &len);
    if (tsv) {
        char *p = tsv;
        for (int64_t i = 0; i < E; i++) {
            long long s = strtoll(p, &p, 10), d = strtoll(p, &p, 10);
            assert_true(rows[i] == s && rows[E + i] == d);
        }
        free(tsv);
    }
    free(rows);
    assert_int_equal(arr_open(OGB_NPZ, "nope", dir, &a, &e), GNNDB_NOTFOUND);
    arr_close(&a);
    assert_string_equal(e.msg, "data.npz: no member 'nope' (it has "
                               "num_nodes_list, edge_index, num_edges_list, "
                               "node_feat)");
    assert_int_equal(arr_open(OGB_NPZ, NULL, dir, &a, &e), GNNDB_FORMAT);
    arr_close(&a);
    assert_non_null(strstr(e.msg, "data.npz: 4 members; say which with KEY"));
}

static void checks_a_member_against_its_crc(void **state)
{
    (void)state;
    size_t n;
    char *raw = tu_read_file(OGB_NPZ, &n);
    if (!raw) skip();
    npz_member m;
    gnn_err e = {0};
    assert_int_equal(npz_find_mem(raw, n, "data.npz", "num_nodes_list", &m,
                                  &e), GNNDB_OK);
    assert_int_equal(m.method, NPZ_DEFLATED);
    raw[m.data_off + m.csize / 2] ^= 0x5a;   /* spoil the member's bytes */
    assert_int_equal(tu_write_file(file("bad.npz"), raw, n), 0);
    free(raw);
    arr_src a;
    assert_int_equal(arr_open(file("bad.npz"), "num_nodes_list", dir, &a,
                              &e), GNNDB_FORMAT);
    arr_close(&a);
    assert_non_null(strstr(e.msg, "bad.npz:num_nodes_list: "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_gzip_members_and_plain_files),
        cmocka_unit_test(refuses_truncated_and_trailing_bytes),
        cmocka_unit_test(finds_npz_members_and_reads_them),
        cmocka_unit_test(checks_a_member_against_its_crc),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
