/* test_npy.c — the .npy reader and writer: strict headers, size checks,
** round trips. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npy.h"
#include "util.h"

/* A header of version `major` around `dict`, padded to 64 bytes. */
static size_t make_header(unsigned char *out, int major, const char *dict)
{
    size_t pre = major == 1 ? 10 : 12, dl = strlen(dict);
    size_t total = (pre + dl + 1 + 63) / 64 * 64, hl = total - pre;
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (unsigned char)major;
    out[7] = 0;
    out[8] = hl & 0xff;
    out[9] = (hl >> 8) & 0xff;
    if (major != 1) { out[10] = (hl >> 16) & 0xff; out[11] = hl >> 24; }
    memcpy(out + pre, dict, dl);
    memset(out + pre + dl, ' ', hl - dl - 1);
    out[total - 1] = '\n';
    return total;
}

static int parse_dict(int major, const char *dict, npy_info *info, gnn_err *e)
{
    unsigned char buf[512];
    size_t n = make_header(buf, major, dict);
    return npy_parse_header(buf, n, info, "x.npy", e);
}

static void parses_v1_header(void **state)
{
    (void)state;
    npy_info info;
    gnn_err e = {0};
    assert_int_equal(parse_dict(1, "{'descr': '<f4', 'fortran_order': False, "
                                   "'shape': (2708, 1433), }", &info, &e),
                     GNNDB_OK);
    assert_int_equal(info.dtype, NPY_F32);
    assert_int_equal(info.elem_size, 4);
    assert_int_equal(info.ndim, 2);
    assert_int_equal(info.shape[0], 2708);
    assert_int_equal(info.shape[1], 1433);
    assert_int_equal(info.data_offset, 128);
    assert_int_equal(info.fortran, 0);
    /* keys in any order, 1-D, no trailing comma, double quotes */
    assert_int_equal(parse_dict(1, "{\"shape\": (7,), \"fortran_order\": "
                                   "False, \"descr\": \"<i8\"}", &info, &e),
                     GNNDB_OK);
    assert_int_equal(info.dtype, NPY_I64);
    assert_int_equal(info.ndim, 1);
    assert_int_equal(info.shape[0], 7);
    assert_int_equal(info.shape[1], 1);
    const char *ok[] = {"<f8", "<i4", "<f2", "|i1", "|u1"};
    for (size_t i = 0; i < 5; i++) {
        char d[128];
        snprintf(d, sizeof d, "{'descr': '%s', 'fortran_order': False, "
                 "'shape': (3, 2), }", ok[i]);
        assert_int_equal(parse_dict(1, d, &info, &e), GNNDB_OK);
    }
}

static void parses_v2_and_v3_headers(void **state)
{
    (void)state;
    npy_info info;
    gnn_err e = {0};
    assert_int_equal(parse_dict(2, "{'descr': '<f8', 'fortran_order': False, "
                                   "'shape': (10, 3), }", &info, &e),
                     GNNDB_OK);
    assert_int_equal(info.dtype, NPY_F64);
    assert_int_equal(info.data_offset, 128);
    assert_int_equal(parse_dict(3, "{'descr': '<i4', 'fortran_order': False, "
                                   "'shape': (5,), }", &info, &e),
                     GNNDB_OK);
    assert_int_equal(info.dtype, NPY_I32);
}

static void expect_format(const char *dict, const char *words)
{
    npy_info info;
    gnn_err e = {0};
    assert_int_equal(parse_dict(1, dict, &info, &e), GNNDB_FORMAT);
    if (!strstr(e.msg, words) || strncmp(e.msg, "x.npy: ", 7) != 0)
        fail_msg("message '%s' lacks '%s'", e.msg, words);
}

static void reads_fortran_order_and_every_numpy_number(void **state)
{
    (void)state;
    npy_info info;
    gnn_err e = {0};
    assert_int_equal(parse_dict(1, "{'descr': '<f4', 'fortran_order': True, "
                                   "'shape': (3, 4), }", &info, &e), GNNDB_OK);
    assert_int_equal(info.fortran, 1);
    static const struct { const char *d; int t; size_t sz; } ok[] = {
        {"<i2", NPY_I16, 2}, {"<u2", NPY_U16, 2}, {"<u4", NPY_U32, 4},
        {"<u8", NPY_U64, 8}, {"|b1", NPY_BOOL, 1}, {"|i1", NPY_I8, 1},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char d[128];
        snprintf(d, sizeof d, "{'descr': '%s', 'fortran_order': False, "
                 "'shape': (2,), }", ok[i].d);
        assert_int_equal(parse_dict(1, d, &info, &e), GNNDB_OK);
        assert_int_equal(info.dtype, ok[i].t);
        assert_int_equal(info.elem_size, ok[i].sz);
    }
    unsigned char u8[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
    info.dtype = NPY_U64;
    info.elem_size = 8;
    assert_true(npy_get_i(&info, u8, 0) == INT64_MAX);
    unsigned char b[2] = {0, 1};
    info.dtype = NPY_BOOL;
    info.elem_size = 1;
    assert_true(npy_get_f(&info, b, 1) == 1.0 && npy_get_i(&info, b, 0) == 0);
    unsigned char i16[2] = {0x00, 0x80};
    info.dtype = NPY_I16;
    info.elem_size = 2;
    assert_true(npy_get_i(&info, i16, 0) == -32768);
}

static void rejects_big_endian_and_object_dtypes(void **state)
{
    (void)state;
    expect_format("{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }",
                  "big-endian");
    expect_format("{'descr': '|O', 'fortran_order': False, 'shape': (3,), }",
                  "object");
    expect_format("{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }",
                  "unsupported dtype");
    expect_format("{'descr': [('a', '<f4')], 'fortran_order': False, "
                  "'shape': (3,), }", "structured");
}

static void rejects_malformed_headers(void **state)
{
    (void)state;
    expect_format("{'descr': '<f4', 'fortran_order': False, "
                  "'shape': (3, 4, 5), }", "dimensions");
    expect_format("{'descr': '<f4', 'shape': (3, 4), }",
                  "missing key 'fortran_order'");
    expect_format("{'fortran_order': False, 'shape': (3, 4), }",
                  "missing key 'descr'");
    expect_format("{'descr': '<f4', 'fortran_order': False, }",
                  "missing key 'shape'");
    expect_format("{'descr': '<f4', 'fortran_order': False, 'shape': (-3,), }",
                  "shape");
    expect_format("{'descr': '<f4', 'fortran_order': False, 'shape': (), }",
                  "0-dimensional");
    expect_format("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (3,), }",
                  "fortran_order");
    expect_format("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
                  "'shape': (3,), }", "twice");
    expect_format("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), "
                  "'extra': 1, }", "unexpected key");
    /* bad magic, bad version, header length beyond the buffer */
    npy_info info;
    gnn_err e = {0};
    unsigned char buf[256];
    size_t n = make_header(buf, 1, "{'descr': '<f4', 'fortran_order': False, "
                                   "'shape': (3,), }");
    buf[1] = 'X';
    assert_int_equal(npy_parse_header(buf, n, &info, "x.npy", &e),
                     GNNDB_FORMAT);
    buf[1] = 'N';
    buf[6] = 9;
    assert_int_equal(npy_parse_header(buf, n, &info, "x.npy", &e),
                     GNNDB_FORMAT);
    buf[6] = 1;
    assert_int_equal(npy_parse_header(buf, n - 1, &info, "x.npy", &e),
                     GNNDB_FORMAT);
    assert_int_equal(npy_parse_header(buf, 5, &info, "x.npy", &e),
                     GNNDB_FORMAT);
    assert_int_equal(npy_parse_header(buf, n, &info, "x.npy", &e), GNNDB_OK);
}

static void rejects_truncated_file(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("npy");
    char path[1100];
    snprintf(path, sizeof path, "%s/x.npy", dir);
    unsigned char buf[128 + 1000];
    size_t n = make_header(buf, 1, "{'descr': '<f4', 'fortran_order': False, "
                                   "'shape': (2708, 1433), }");
    memset(buf + n, 0, 1000);
    assert_int_equal(tu_write_file(path, buf, n + 1000), 0);
    npy_info info;
    gnn_err e = {0};
    int fd = 123;
    assert_int_equal(npy_open(path, &info, &fd, &e), GNNDB_FORMAT);
    assert_int_equal(fd, -1);
    assert_non_null(strstr(e.msg, "x.npy: truncated: header promises "
                                  "2708x1433 float32 (15522256 bytes of data) "
                                  "but the file holds 1000"));
    tu_rmrf(dir);
    free(dir);
}

static void rejects_header_lying_about_shape(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("npy");
    char path[1100];
    snprintf(path, sizeof path, "%s/lie.npy", dir);
    unsigned char buf[128 + 80];
    /* claims 9 int64 but holds 8 more bytes than that */
    size_t n = make_header(buf, 1, "{'descr': '<i8', 'fortran_order': False, "
                                   "'shape': (9,), }");
    memset(buf + n, 0, 80);
    assert_int_equal(tu_write_file(path, buf, n + 80), 0);
    npy_info info;
    gnn_err e = {0};
    int fd;
    assert_int_equal(npy_open(path, &info, &fd, &e), GNNDB_FORMAT);
    assert_non_null(strstr(e.msg, "lie.npy"));
    assert_non_null(strstr(e.msg, "trailing"));
    /* a shape whose product overflows */
    n = make_header(buf, 1, "{'descr': '<f8', 'fortran_order': False, "
                            "'shape': (4611686018427387904, 8), }");
    assert_int_equal(tu_write_file(path, buf, n), 0);
    assert_int_equal(npy_open(path, &info, &fd, &e), GNNDB_FORMAT);
    /* a missing file */
    snprintf(path, sizeof path, "%s/none.npy", dir);
    assert_int_equal(npy_open(path, &info, &fd, &e), GNNDB_NOTFOUND);
    tu_rmrf(dir);
    free(dir);
}

static void write_then_read_round_trips(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("npy");
    char path[1100];
    snprintf(path, sizeof path, "%s/rt.npy", dir);
    float m[6] = {1.5f, -2.0f, 3.25f, 0.0f, 1e30f, -7.0f};
    int64_t shape[2] = {3, 2};
    gnn_err e = {0};
    assert_int_equal(npy_write(path, NPY_F32, 2, shape, m, &e), GNNDB_OK);
    npy_info info;
    int fd;
    assert_int_equal(npy_open(path, &info, &fd, &e), GNNDB_OK);
    assert_int_equal(info.data_offset % 64, 0);
    assert_int_equal(info.shape[0], 3);
    assert_int_equal(info.shape[1], 2);
    float back[6];
    assert_int_equal(pread(fd, back, sizeof back, (off_t)info.data_offset),
                     (ssize_t)sizeof back);
    close(fd);
    assert_memory_equal(m, back, sizeof m);
    for (int j = 0; j < 2; j++)
        assert_true(npy_get_f(&info, back + 2 * 2, j) == m[4 + j]);

    int64_t v[5] = {-1, 0, 5, INT64_MAX, INT64_MIN};
    int64_t s1 = 5;
    assert_int_equal(npy_write(path, NPY_I64, 1, &s1, v, &e), GNNDB_OK);
    assert_int_equal(npy_open(path, &info, &fd, &e), GNNDB_OK);
    int64_t vb[5];
    assert_int_equal(pread(fd, vb, sizeof vb, (off_t)info.data_offset),
                     (ssize_t)sizeof vb);
    close(fd);
    assert_int_equal(info.ndim, 1);
    for (int i = 0; i < 5; i++) assert_true(npy_get_i(&info, vb, i) == v[i]);

    /* float16 and int8 element access */
    uint16_t h[3] = {0x3c00, 0xc000, 0x3555}; /* 1, -2, ~0.333 */
    assert_int_equal(npy_write(path, NPY_F16, 1, (int64_t[]){3}, h, &e),
                     GNNDB_OK);
    assert_int_equal(npy_open(path, &info, &fd, &e), GNNDB_OK);
    close(fd);
    assert_true(npy_get_f(&info, h, 0) == 1.0);
    assert_true(npy_get_f(&info, h, 1) == -2.0);
    assert_true(npy_get_f(&info, h, 2) > 0.333 &&
                npy_get_f(&info, h, 2) < 0.334);
    int8_t q[2] = {-128, 127};
    assert_int_equal(npy_write(path, NPY_I8, 1, (int64_t[]){2}, q, &e),
                     GNNDB_OK);
    assert_int_equal(npy_open(path, &info, &fd, &e), GNNDB_OK);
    close(fd);
    assert_int_equal(npy_get_i(&info, q, 0), -128);
    assert_true(npy_get_f(&info, q, 1) == 127.0);
    tu_rmrf(dir);
    free(dir);
}

/* numpy wrote cora's features.npy: our header for the same array must be
** byte for byte the one numpy writes. */
static void writes_headers_as_numpy_does(void **state)
{
    (void)state;
    size_t len;
    char *ref = tu_read_file(tu_data(0, "cora/features.npy"), &len);
    if (!ref) skip();
    char *dir = tu_tmpdir("npy");
    char path[1100];
    snprintf(path, sizeof path, "%s/f.npy", dir);
    gnn_err e = {0};
    int64_t shape[2] = {2708, 1433};
    assert_int_equal(npy_write(path, NPY_F32, 2, shape, ref + 128, &e),
                     GNNDB_OK);
    size_t len2;
    char *mine = tu_read_file(path, &len2);
    assert_non_null(mine);
    assert_int_equal(len, len2);
    assert_memory_equal(ref, mine, len);
    free(mine);

    char *lab = tu_read_file(tu_data(1, "cora/labels.npy"), &len);
    assert_non_null(lab);
    assert_int_equal(npy_write(path, NPY_I64, 1, (int64_t[]){2708},
                               lab + 128, &e), GNNDB_OK);
    mine = tu_read_file(path, &len2);
    assert_int_equal(len, len2);
    assert_memory_equal(lab, mine, len);
    free(mine);
    free(lab);
    free(ref);
    tu_rmrf(dir);
    free(dir);
}

static void opens_cora_features(void **state)
{
    (void)state;
    npy_info info;
    gnn_err e = {0};
    int fd;
    if (access(tu_data(0, "cora/features.npy"), R_OK) != 0) skip();
    assert_int_equal(npy_open(tu_data(0, "cora/features.npy"), &info, &fd,
                              &e), GNNDB_OK);
    close(fd);
    assert_int_equal(info.dtype, NPY_F32);
    assert_int_equal(info.shape[0], 2708);
    assert_int_equal(info.shape[1], 1433);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_v1_header),
        cmocka_unit_test(parses_v2_and_v3_headers),
        cmocka_unit_test(reads_fortran_order_and_every_numpy_number),
        cmocka_unit_test(rejects_big_endian_and_object_dtypes),
        cmocka_unit_test(rejects_malformed_headers),
        cmocka_unit_test(rejects_truncated_file),
        cmocka_unit_test(rejects_header_lying_about_shape),
        cmocka_unit_test(write_then_read_round_trips),
        cmocka_unit_test(writes_headers_as_numpy_does),
        cmocka_unit_test(opens_cora_features),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
