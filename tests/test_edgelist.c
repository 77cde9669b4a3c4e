/* test_edgelist.c — edge list parsing: text formats, comments, errors with
** file:line:column, binary pairs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edgelist.h"
#include "util.h"

static int parse(const char *line, int fmt, int64_t *s, int64_t *d,
                 gnn_err *e)
{
    return edge_parse_line(line, strlen(line), fmt, s, d, "edges.tsv", 7, e);
}

static void parses_tsv_csv_and_space_lines(void **state)
{
    (void)state;
    int64_t s, d;
    gnn_err e = {0};
    assert_int_equal(parse("12\t34", EDGE_FMT_TSV, &s, &d, &e), 1);
    assert_int_equal(s, 12);
    assert_int_equal(d, 34);
    assert_int_equal(parse("  5   6  ", EDGE_FMT_TSV, &s, &d, &e), 1);
    assert_int_equal(s, 5);
    assert_int_equal(d, 6);
    assert_int_equal(parse("7,8", EDGE_FMT_CSV, &s, &d, &e), 1);
    assert_int_equal(s * 10 + d, 78);
    assert_int_equal(parse(" 7 , 9 ", EDGE_FMT_CSV, &s, &d, &e), 1);
    assert_int_equal(d, 9);
    assert_int_equal(parse("1\t2\t0.75", EDGE_FMT_TSV, &s, &d, &e), 1);
    assert_int_equal(d, 2);
    assert_int_equal(parse("1,2,0.75", EDGE_FMT_CSV, &s, &d, &e), 1);
    assert_int_equal(parse("1 2\r", EDGE_FMT_TSV, &s, &d, &e), 1);
    assert_int_equal(d, 2);
    assert_int_equal(parse("-3 +4", EDGE_FMT_TSV, &s, &d, &e), 1);
    assert_int_equal(s, -3);
    assert_int_equal(d, 4);
    assert_int_equal(parse("9223372036854775807 -9223372036854775808",
                           EDGE_FMT_TSV, &s, &d, &e), 1);
    assert_true(s == INT64_MAX && d == INT64_MIN);
}

static void skips_comments_and_blank_lines(void **state)
{
    (void)state;
    int64_t s, d;
    gnn_err e = {0};
    assert_int_equal(parse("", EDGE_FMT_TSV, &s, &d, &e), 0);
    assert_int_equal(parse("   \t ", EDGE_FMT_TSV, &s, &d, &e), 0);
    assert_int_equal(parse("# FromNodeId ToNodeId", EDGE_FMT_TSV, &s, &d, &e),
                     0);
    assert_int_equal(parse("% matrix market", EDGE_FMT_CSV, &s, &d, &e), 0);
    assert_int_equal(parse("  # indented", EDGE_FMT_TSV, &s, &d, &e), 0);
}

static void reports_bad_tokens_with_line_and_column(void **state)
{
    (void)state;
    int64_t s, d;
    gnn_err e = {0};
    assert_true(parse("1\tx12", EDGE_FMT_TSV, &s, &d, &e) < 0);
    assert_int_equal(e.rc, GNNDB_FORMAT);
    assert_string_equal(e.msg, "edges.tsv:7:3: expected an integer node id, "
                               "found 'x12'");
    assert_true(parse("17", EDGE_FMT_TSV, &s, &d, &e) < 0);
    assert_non_null(strstr(e.msg, "edges.tsv:7:3: expected a second node id"));
    assert_true(parse("1,", EDGE_FMT_CSV, &s, &d, &e) < 0);
    assert_true(parse("1,2", EDGE_FMT_TSV, &s, &d, &e) < 0);
    assert_non_null(strstr(e.msg, "'1,2'"));
    assert_true(parse("1 2", EDGE_FMT_CSV, &s, &d, &e) < 0);
    assert_true(parse("99999999999999999999 1", EDGE_FMT_TSV, &s, &d, &e) < 0);
    assert_non_null(strstr(e.msg, "does not fit in 64 bits"));
    assert_true(parse("1.5 2", EDGE_FMT_TSV, &s, &d, &e) < 0);
    assert_true(parse("- 2", EDGE_FMT_TSV, &s, &d, &e) < 0);
}

static char *dir;

static int setup(void **state)
{
    (void)state;
    dir = tu_tmpdir("edgelist");
    return dir ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    tu_rmrf(dir);
    free(dir);
    return 0;
}

static const char *file(const char *name)
{
    static char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static void reads_text_files_with_comments(void **state)
{
    (void)state;
    const char *txt = "# a SNAP header\n% another\n\n0\t1\n 2 3 \n\n4\t5\t1.0"
                      "\r\n6 7"; /* no final newline */
    assert_int_equal(tu_write_file(file("a.tsv"), txt, strlen(txt)), 0);
    edge_reader *r;
    gnn_err e = {0};
    assert_int_equal(edge_open(file("a.tsv"), EDGE_FMT_AUTO, &r, &e),
                     GNNDB_OK);
    int64_t s, d, want[4][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}};
    uint64_t lines[4] = {4, 5, 7, 8};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(edge_next(r, &s, &d, &e), 1);
        assert_int_equal(s, want[i][0]);
        assert_int_equal(d, want[i][1]);
        assert_int_equal(edge_lineno(r), lines[i]);
    }
    assert_int_equal(edge_next(r, &s, &d, &e), 0);
    assert_int_equal(edge_bytes_done(r), strlen(txt));
    assert_int_equal(edge_bytes_total(r), strlen(txt));
    edge_close(r);

    const char *csv = "src,dst\n";
    assert_int_equal(tu_write_file(file("h.csv"), csv, strlen(csv)), 0);
    assert_int_equal(edge_open(file("h.csv"), EDGE_FMT_AUTO, &r, &e),
                     GNNDB_OK);
    assert_true(edge_next(r, &s, &d, &e) < 0);
    assert_non_null(strstr(e.msg, "h.csv:1:1:"));
    edge_close(r);

    csv = "# c\n10,20\n30, 40,2.5\n";
    assert_int_equal(tu_write_file(file("b.csv"), csv, strlen(csv)), 0);
    assert_int_equal(edge_open(file("b.csv"), EDGE_FMT_CSV, &r, &e),
                     GNNDB_OK);
    assert_int_equal(edge_next(r, &s, &d, &e), 1);
    assert_int_equal(s * 100 + d, 1020);
    assert_int_equal(edge_next(r, &s, &d, &e), 1);
    assert_int_equal(s * 100 + d, 3040);
    assert_int_equal(edge_next(r, &s, &d, &e), 0);
    edge_close(r);
}

static void reports_error_on_line_1234(void **state)
{
    (void)state;
    size_t cap = 64 * 1300, n = 0;
    char *txt = malloc(cap);
    for (int i = 1; i < 1234; i++)
        n += (size_t)snprintf(txt + n, cap - n, "%d\t%d\n", i, i + 1);
    n += (size_t)snprintf(txt + n, cap - n, "123456\tx12\n5\t6\n");
    assert_int_equal(tu_write_file(file("edges.tsv"), txt, n), 0);
    free(txt);
    edge_reader *r;
    gnn_err e = {0};
    assert_int_equal(edge_open(file("edges.tsv"), EDGE_FMT_TSV, &r, &e),
                     GNNDB_OK);
    int64_t s, d;
    int k, count = 0;
    while ((k = edge_next(r, &s, &d, &e)) > 0) count++;
    assert_true(k < 0);
    assert_int_equal(count, 1233);
    assert_int_equal(e.rc, GNNDB_FORMAT);
    assert_non_null(strstr(e.msg, ":1234:"));
    assert_string_equal(e.msg, "edges.tsv:1234:8: expected an integer node "
                               "id, found 'x12'");
    edge_close(r);

    const char *one = "1 2\n3\n";
    assert_int_equal(tu_write_file(file("one.tsv"), one, strlen(one)), 0);
    assert_int_equal(edge_open(file("one.tsv"), EDGE_FMT_TSV, &r, &e),
                     GNNDB_OK);
    assert_int_equal(edge_next(r, &s, &d, &e), 1);
    assert_true(edge_next(r, &s, &d, &e) < 0);
    assert_non_null(strstr(e.msg, "one.tsv:2:2: expected a second node id"));
    edge_close(r);
}

static void returns_negative_ids(void **state)
{
    (void)state;
    const char *txt = "-1 5\n";
    assert_int_equal(tu_write_file(file("neg.tsv"), txt, strlen(txt)), 0);
    edge_reader *r;
    gnn_err e = {0};
    assert_int_equal(edge_open(file("neg.tsv"), EDGE_FMT_TSV, &r, &e),
                     GNNDB_OK);
    int64_t s, d;
    assert_int_equal(edge_next(r, &s, &d, &e), 1);
    assert_int_equal(s, -1);
    edge_close(r);
}

static void reads_binary_pairs(void **state)
{
    (void)state;
    int64_t pairs[6] = {0, 1, -7, 3, INT64_MAX, 4};
    assert_int_equal(tu_write_file(file("e.bin"), pairs, sizeof pairs), 0);
    edge_reader *r;
    gnn_err e = {0};
    assert_int_equal(edge_open(file("e.bin"), EDGE_FMT_AUTO, &r, &e),
                     GNNDB_OK);
    int64_t s, d;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(edge_next(r, &s, &d, &e), 1);
        assert_true(s == pairs[2 * i] && d == pairs[2 * i + 1]);
        assert_int_equal(edge_lineno(r), (uint64_t)i + 1);
    }
    assert_int_equal(edge_next(r, &s, &d, &e), 0);
    edge_close(r);
}

static void rejects_truncated_binary(void **state)
{
    (void)state;
    int64_t pairs[5] = {0, 1, 2, 3, 4};
    assert_int_equal(tu_write_file(file("t.bin"), pairs, 36), 0);
    edge_reader *r;
    gnn_err e = {0};
    assert_int_equal(edge_open(file("t.bin"), EDGE_FMT_BIN, &r, &e),
                     GNNDB_FORMAT);
    assert_null(r);
    assert_non_null(strstr(e.msg, "t.bin"));
    assert_non_null(strstr(e.msg, "byte offset 32"));
    assert_int_equal(edge_open(file("missing.bin"), EDGE_FMT_BIN, &r, &e),
                     GNNDB_NOTFOUND);
}

static void reads_large_files_across_buffers(void **state)
{
    (void)state;
    /* ~9 MB: several refills, lines cut at buffer edges */
    FILE *f = fopen(file("big.tsv"), "w");
    assert_non_null(f);
    for (int i = 0; i < 700000; i++) fprintf(f, "%d\t%d\n", i, i * 3);
    fclose(f);
    edge_reader *r;
    gnn_err e = {0};
    assert_int_equal(edge_open(file("big.tsv"), EDGE_FMT_TSV, &r, &e),
                     GNNDB_OK);
    int64_t s, d;
    int k, i = 0;
    while ((k = edge_next(r, &s, &d, &e)) > 0) {
        if (s != i || d != (int64_t)i * 3) fail_msg("edge %d wrong", i);
        i++;
    }
    assert_int_equal(k, 0);
    assert_int_equal(i, 700000);
    edge_close(r);
}

/* Read every edge of `name` with `o`; the count, or -1 after an error. */
static int read_edges(const char *name, const edge_opts *o, int64_t *s,
                      int64_t *d, int cap, gnn_err *e)
{
    edge_reader *r;
    if (edge_open_opts(file(name), o, &r, e) != GNNDB_OK) return -1;
    int n = 0, k;
    int64_t a, b;
    while ((k = edge_next(r, &a, &b, e)) == 1 && n < cap) {
        s[n] = a;
        d[n++] = b;
    }
    edge_close(r);
    return k < 0 ? -1 : n;
}

static void detects_a_header_and_picks_columns(void **state)
{
    (void)state;
    const char *txt = "# made by hand\nweight,to,from\n0.5,1,2\n1,3,4\n";
    assert_int_equal(tu_write_file(file("h.csv"), txt, strlen(txt)), 0);
    edge_opts o;
    memset(&o, 0, sizeof o);
    int64_t s[4], d[4];
    gnn_err e = {0};
    /* detected: the first two fields are names; they are 'weight' and 'to',
    ** so that the header is skipped and the data's fields 0, 1 read */
    assert_int_equal(read_edges("h.csv", &o, s, d, 4, &e), -1);
    assert_non_null(strstr(e.msg, "h.csv:3:1: expected an integer node id, "
                                  "found '0.5'"));
    o.columns = EDGE_COLS_NAME;
    snprintf(o.col_name[0], sizeof o.col_name[0], "FROM");
    snprintf(o.col_name[1], sizeof o.col_name[1], "to");
    assert_int_equal(read_edges("h.csv", &o, s, d, 4, &e), 2);
    assert_true(s[0] == 2 && d[0] == 1 && s[1] == 4 && d[1] == 3);
    o.columns = EDGE_COLS_POS;
    o.col[0] = 2;
    o.col[1] = 1;
    assert_int_equal(read_edges("h.csv", &o, s, d, 4, &e), 2);
    assert_true(s[1] == 4 && d[1] == 3);
    snprintf(o.col_name[1], sizeof o.col_name[1], "dst");
    o.columns = EDGE_COLS_NAME;
    assert_int_equal(read_edges("h.csv", &o, s, d, 4, &e), -1);
    assert_string_equal(e.msg, "h.csv:2: the header has no column named "
                               "'dst' (it has 'weight', 'to', 'from')");
    /* no header: by name is an error, by position reads line 1 */
    txt = "1 2\n3 4\n";
    assert_int_equal(tu_write_file(file("n.tsv"), txt, strlen(txt)), 0);
    assert_int_equal(read_edges("n.tsv", &o, s, d, 4, &e), -1);
    assert_non_null(strstr(e.msg, "n.tsv:1: COLUMNS by name needs a header"));
    o.columns = EDGE_COLS_FIRST;
    o.header = EDGE_HEADER_YES;   /* forced: line 1 is taken for names */
    assert_int_equal(read_edges("n.tsv", &o, s, d, 4, &e), 1);
    assert_true(s[0] == 3 && d[0] == 4);
}

static void refuses_a_header_in_the_middle(void **state)
{
    (void)state;
    const char *txt = "src dst\n1 2\nsrc dst\n3 4\n";
    assert_int_equal(tu_write_file(file("m.tsv"), txt, strlen(txt)), 0);
    edge_opts o;
    memset(&o, 0, sizeof o);
    int64_t s[4], d[4];
    gnn_err e = {0};
    assert_int_equal(read_edges("m.tsv", &o, s, d, 4, &e), -1);
    assert_string_equal(e.msg, "m.tsv:3: a header line in the middle of the "
                               "file (only the first line may be a header)");
    int col[2] = {0, 1};
    assert_int_equal(edge_is_header_line("src dst", 7, EDGE_FMT_TSV, col), 1);
    assert_int_equal(edge_is_header_line("1 dst", 5, EDGE_FMT_TSV, col), 0);
    assert_int_equal(edge_is_header_line("# a b", 5, EDGE_FMT_TSV, col), 0);
    assert_int_equal(edge_is_header_line("a", 1, EDGE_FMT_CSV, col), 0);
    assert_int_equal(edge_is_header_line("\"a\",b", 5, EDGE_FMT_CSV, col),
                     1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_tsv_csv_and_space_lines),
        cmocka_unit_test(skips_comments_and_blank_lines),
        cmocka_unit_test(reports_bad_tokens_with_line_and_column),
        cmocka_unit_test(reads_text_files_with_comments),
        cmocka_unit_test(reports_error_on_line_1234),
        cmocka_unit_test(returns_negative_ids),
        cmocka_unit_test(reads_binary_pairs),
        cmocka_unit_test(rejects_truncated_binary),
        cmocka_unit_test(reads_large_files_across_buffers),
        cmocka_unit_test(detects_a_header_and_picks_columns),
        cmocka_unit_test(refuses_a_header_in_the_middle),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
