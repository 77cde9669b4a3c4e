/* test_parser.c — the tokenizer, the grammar and the builders: every
** statement form and clause, defaults, errors with their line and column,
** and random byte strings that must never crash or leak. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../parser/parse.h"
#include "gnndb.h"

/* Parse the first statement of `sql`; it must succeed. */
static ast_stmt *parse_ok(const char *sql)
{
    ast_stmt *s = NULL;
    size_t used = 0;
    gnn_err e = {0};
    int rc = parse_statement(sql, strlen(sql), 1, &s, &used, &e);
    if (rc != GNNDB_OK) fail_msg("'%s' failed: %s", sql, e.msg);
    assert_non_null(s);
    return s;
}

/* Parse `sql`; it must fail with `rc` and exactly the words `msg` (or, with
** msg NULL, any words). */
static void expect_error(const char *sql, int rc, const char *msg)
{
    ast_stmt *s = (ast_stmt *)1;
    size_t used = 0;
    gnn_err e = {0};
    int got = parse_statement(sql, strlen(sql), 1, &s, &used, &e);
    if (got != rc) fail_msg("'%s': rc %d (%s), expected %d", sql, got, e.msg, rc);
    assert_null(s);
    assert_int_equal(e.rc, rc);
    assert_true(e.msg[0] != 0);
    if (msg && strcmp(e.msg, msg) != 0)
        fail_msg("'%s':\n  got      %s\n  expected %s", sql, e.msg, msg);
}

/* The error message must contain `part`. */
static void expect_error_part(const char *sql, int rc, const char *part)
{
    ast_stmt *s = NULL;
    size_t used = 0;
    gnn_err e = {0};
    int got = parse_statement(sql, strlen(sql), 1, &s, &used, &e);
    if (got != rc) fail_msg("'%s': rc %d (%s), expected %d", sql, got, e.msg, rc);
    assert_null(s);
    if (!strstr(e.msg, part)) fail_msg("'%s': '%s' lacks '%s'", sql, e.msg, part);
}

/* ---- statement forms -------------------------------------------------- */

static void create_graph_takes_every_option_in_any_order(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok(
        "CREATE GRAPH papers FROM 'edges.tsv' BLOCK SIZE 64KB REORDER degree "
        "NODES 100 MAP IDS DROP SELF LOOPS DROP DUPLICATES UNDIRECTED "
        "FORMAT csv;");
    assert_int_equal(s->kind, AST_CREATE_GRAPH);
    assert_string_equal(s->name, "papers");
    assert_string_equal(s->path, "edges.tsv");
    assert_int_equal(s->format, AST_FMT_CSV);
    assert_int_equal(s->undirected, 1);
    assert_int_equal(s->drop_duplicates, 1);
    assert_int_equal(s->drop_self_loops, 1);
    assert_int_equal(s->map_ids, 1);
    assert_int_equal(s->nodes, 100);
    assert_int_equal(s->reorder, AST_REORDER_DEGREE);
    assert_int_equal(s->block_size, 64 * 1024);
    assert_int_equal(s->line, 1);
    assert_int_equal(s->col, 1);
    ast_free(s);

    s = parse_ok("CREATE GRAPH g FROM 'e.bin' FORMAT bin REORDER bfs "
                 "BLOCK SIZE 1 MB");
    assert_int_equal(s->format, AST_FMT_BIN);
    assert_int_equal(s->reorder, AST_REORDER_BFS);
    assert_int_equal(s->block_size, 1 << 20);
    ast_free(s);

    s = parse_ok("CREATE GRAPH g FROM 'e' FORMAT TSV REORDER None "
                 "BLOCK SIZE 4096");
    assert_int_equal(s->format, AST_FMT_TSV);
    assert_int_equal(s->reorder, AST_REORDER_NONE);
    assert_int_equal(s->block_size, 4096);
    ast_free(s);

    s = parse_ok("CREATE GRAPH g FROM 'e' BLOCK SIZE '16MB'");
    assert_int_equal(s->block_size, 16 << 20);
    ast_free(s);
}

static void create_graph_defaults(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("CREATE GRAPH g FROM 'e.tsv'");
    assert_int_equal(s->kind, AST_CREATE_GRAPH);
    assert_int_equal(s->format, AST_FMT_DEFAULT);
    assert_int_equal(s->undirected, 0);
    assert_int_equal(s->drop_duplicates, 0);
    assert_int_equal(s->drop_self_loops, 0);
    assert_int_equal(s->map_ids, 0);
    assert_int_equal(s->nodes, -1);
    assert_int_equal(s->reorder, AST_REORDER_NONE);
    assert_int_equal(s->block_size, 0);
    assert_int_equal(s->explain, 0);
    ast_free(s);
}

static void import_features_and_labels(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("IMPORT FEATURES feat INTO papers FROM 'x.bin' "
                           "STORE float16 TYPE float64 DIM 128 FORMAT bin "
                           "BLOCK SIZE 256KB");
    assert_int_equal(s->kind, AST_IMPORT_FEATURES);
    assert_string_equal(s->name, "feat");
    assert_string_equal(s->graph, "papers");
    assert_string_equal(s->path, "x.bin");
    assert_int_equal(s->format, AST_FMT_BIN);
    assert_int_equal(s->dim, 128);
    assert_string_equal(s->dtype, "float64");
    assert_string_equal(s->store, "float16");
    assert_int_equal(s->block_size, 256 * 1024);
    ast_free(s);

    s = parse_ok("import features f into g from 'x.npy'");
    assert_int_equal(s->kind, AST_IMPORT_FEATURES);
    assert_int_equal(s->format, AST_FMT_DEFAULT);
    assert_int_equal(s->dim, 0);
    assert_null(s->dtype);
    assert_null(s->store);
    assert_int_equal(s->block_size, 0);
    ast_free(s);

    s = parse_ok("IMPORT FEATURES f INTO g FROM 'x.csv' FORMAT CSV "
                 "TYPE INT64 STORE INT8");
    assert_int_equal(s->format, AST_FMT_CSV);
    assert_string_equal(s->dtype, "int64");
    assert_string_equal(s->store, "int8");
    ast_free(s);

    s = parse_ok("IMPORT FEATURES f INTO g FROM 'x' FORMAT npy STORE float32");
    assert_int_equal(s->format, AST_FMT_NPY);
    assert_string_equal(s->store, "float32");
    ast_free(s);

    s = parse_ok("IMPORT LABELS INTO papers FROM 'y.npy';");
    assert_int_equal(s->kind, AST_IMPORT_LABELS);
    assert_null(s->name);
    assert_string_equal(s->graph, "papers");
    assert_string_equal(s->path, "y.npy");
    ast_free(s);

    /* REPLACE, anywhere among the options; still a name elsewhere */
    s = parse_ok("IMPORT FEATURES f INTO g FROM 'x.npy' REPLACE STORE float16");
    assert_int_equal(s->replace_table, 1);
    assert_int_equal(s->replace, 0);
    assert_string_equal(s->store, "float16");
    ast_free(s);
    s = parse_ok("IMPORT LABELS INTO g FROM 'y.npy' KEY 'y' REPLACE");
    assert_int_equal(s->replace_table, 1);
    ast_free(s);
    s = parse_ok("IMPORT EDGE FEATURES w INTO g.r FROM 'w.npy' REPLACE");
    assert_int_equal(s->kind, AST_IMPORT_EDGE_FEATURES);
    assert_int_equal(s->replace_table, 1);
    ast_free(s);
    s = parse_ok("IMPORT FEATURES replace INTO replace FROM 'x.npy'");
    assert_string_equal(s->name, "replace");
    assert_string_equal(s->graph, "replace");
    assert_int_equal(s->replace_table, 0);
    ast_free(s);

    s = parse_ok("IMPORT LABELS INTO g FROM 'y.csv' FORMAT csv TYPE int64");
    assert_int_equal(s->format, AST_FMT_CSV);
    assert_string_equal(s->dtype, "int64");
    ast_free(s);
}

static void create_split_from_file_or_random(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("CREATE SPLIT train ON papers FROM 'train.npy'");
    assert_int_equal(s->kind, AST_CREATE_SPLIT);
    assert_string_equal(s->name, "train");
    assert_string_equal(s->graph, "papers");
    assert_string_equal(s->path, "train.npy");
    assert_int_equal(s->split_random, 0);
    assert_int_equal(s->has_seed, 0);
    ast_free(s);

    s = parse_ok("CREATE SPLIT r ON g RANDOM 0.6 SEED 7");
    assert_int_equal(s->split_random, 1);
    assert_true(s->fraction > 0.5999 && s->fraction < 0.6001);
    assert_int_equal(s->has_seed, 1);
    assert_int_equal(s->seed, 7);
    assert_null(s->path);
    ast_free(s);

    s = parse_ok("CREATE SPLIT r ON g RANDOM 1");
    assert_true(s->fraction == 1.0);
    assert_int_equal(s->has_seed, 0);
    ast_free(s);

    s = parse_ok("CREATE SPLIT r ON g RANDOM .25");
    assert_true(s->fraction == 0.25);
    ast_free(s);
}

static void importers_options_and_import_ogb(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("CREATE GRAPH g FROM 'e.csv.gz' HEADER "
                           "COLUMNS (dst, 'src')");
    assert_int_equal(s->header, 1);
    assert_int_equal(s->columns, AST_COLS_NAME);
    assert_string_equal(s->col_name[0], "dst");
    assert_string_equal(s->col_name[1], "src");
    ast_free(s);
    s = parse_ok("CREATE GRAPH g FROM 'd.npz' COLUMNS (2, 0) KEY 'edge_index'");
    assert_int_equal(s->columns, AST_COLS_POS);
    assert_true(s->col_pos[0] == 2 && s->col_pos[1] == 0);
    assert_string_equal(s->key, "edge_index");
    ast_free(s);
    s = parse_ok("IMPORT LABELS INTO g FROM 'l.npz' KEY 'node_label'");
    assert_string_equal(s->key, "node_label");
    ast_free(s);
    s = parse_ok("CREATE SPLIT t ON g FROM 's.npz' KEY 'train'");
    assert_string_equal(s->key, "train");
    ast_free(s);
    s = parse_ok("IMPORT OGB 'ogbn_arxiv' AS arxiv SPLIT 'time' UNDIRECTED");
    assert_int_equal(s->kind, AST_IMPORT_OGB);
    assert_string_equal(s->path, "ogbn_arxiv");
    assert_string_equal(s->name, "arxiv");
    assert_string_equal(s->split, "time");
    assert_int_equal(s->undirected, 1);
    ast_free(s);
    expect_error_part("CREATE GRAPH g FROM 'e' COLUMNS (0, dst)", GNNDB_SYNTAX,
                      "COLUMNS takes two positions or two names");
    expect_error_part("CREATE GRAPH g FROM 'e' COLUMNS (0, 1001)", GNNDB_RANGE,
                      "column 1001 is out of range");
    expect_error_part("IMPORT OGB 'd' AS g SPLIT 'a' SPLIT 'b'", GNNDB_SYNTAX,
                      "SPLIT given twice");
    expect_error_part("IMPORT OGB d AS g", GNNDB_SYNTAX, "line 1, column 12");
}

static void catalog_statements(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("SHOW GRAPHS");
    assert_int_equal(s->kind, AST_SHOW_GRAPHS);
    ast_free(s);

    s = parse_ok("DESCRIBE papers;");
    assert_int_equal(s->kind, AST_DESCRIBE);
    assert_string_equal(s->name, "papers");
    ast_free(s);

    s = parse_ok("DROP GRAPH papers");
    assert_int_equal(s->kind, AST_DROP_GRAPH);
    assert_string_equal(s->name, "papers");
    ast_free(s);

    s = parse_ok("DROP FEATURES feat ON papers");
    assert_int_equal(s->kind, AST_DROP_FEATURES);
    assert_string_equal(s->name, "feat");
    assert_string_equal(s->graph, "papers");
    ast_free(s);

    s = parse_ok("DROP SPLIT train ON papers");
    assert_int_equal(s->kind, AST_DROP_SPLIT);
    assert_string_equal(s->name, "train");
    assert_string_equal(s->graph, "papers");
    ast_free(s);

    s = parse_ok("CHECK");
    assert_int_equal(s->kind, AST_CHECK);
    assert_null(s->graph);
    ast_free(s);

    s = parse_ok("CHECK papers;");
    assert_int_equal(s->kind, AST_CHECK);
    assert_string_equal(s->graph, "papers");
    ast_free(s);
}

static void pragma_forms(void **state)
{
    (void)state;
    struct { const char *sql, *name, *value; } cases[] = {
        {"PRAGMA", NULL, NULL},
        {"PRAGMA threads", "threads", NULL},
        {"PRAGMA Threads = 2", "threads", "2"},
        {"PRAGMA x = -3", "x", "-3"},
        {"PRAGMA x = 0.5", "x", "0.5"},
        {"PRAGMA io = uring", "io", "uring"},
        {"PRAGMA io = 'uring'", "io", "uring"},
        {"PRAGMA strict = on", "strict", "on"},  /* ON, a keyword */
        {"PRAGMA strict = OFF", "strict", "OFF"},
        {"PRAGMA memory_limit = '2GB'", "memory_limit", "2GB"},
        {"PRAGMA memory_limit = 512MB", "memory_limit", "512MB"},
        {"PRAGMA memory_limit = 1.5GB", "memory_limit", "1.5GB"},
        {"PRAGMA v = 'it''s'", "v", "it's"},
        {"PRAGMA v = ''", "v", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ast_stmt *s = parse_ok(cases[i].sql);
        assert_int_equal(s->kind, AST_PRAGMA);
        if (cases[i].name) assert_string_equal(s->name, cases[i].name);
        else assert_null(s->name);
        if (cases[i].value) assert_string_equal(s->value, cases[i].value);
        else assert_null(s->value);
        ast_free(s);
    }
}

static void sample_takes_every_clause_in_any_order(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok(
        "SAMPLE 15,10,-1 FROM papers TO DEVICE 'cuda:0' INTO '/tmp/out' "
        "LIMIT 10 WITH REPLACEMENT EPOCHS 3 SEED 42 SHUFFLE HYPERBATCH 64 "
        "BATCH 1024 FEATURES feat SEEDS train;");
    assert_int_equal(s->kind, AST_SAMPLE);
    assert_int_equal(s->explain, 0);
    assert_string_equal(s->graph, "papers");
    assert_int_equal(s->nhops, 3);
    assert_int_equal(s->fanouts[0], 15);
    assert_int_equal(s->fanouts[1], 10);
    assert_int_equal(s->fanouts[2], -1);
    assert_int_equal(s->seeds_kind, AST_SEEDS_SPLIT);
    assert_string_equal(s->seeds_split, "train");
    assert_string_equal(s->features, "feat");
    assert_int_equal(s->batch, 1024);
    assert_int_equal(s->hyperbatch, 64);
    assert_int_equal(s->shuffle, 1);
    assert_int_equal(s->has_seed, 1);
    assert_int_equal(s->seed, 42);
    assert_int_equal(s->epochs, 3);
    assert_int_equal(s->replace, 1);
    assert_int_equal(s->limit, 10);
    assert_string_equal(s->into, "/tmp/out");
    assert_string_equal(s->device, "cuda:0");
    ast_free(s);
}

static void sample_defaults(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("SAMPLE 10 FROM g BATCH 1");
    assert_int_equal(s->kind, AST_SAMPLE);
    assert_int_equal(s->nhops, 1);
    assert_int_equal(s->fanouts[0], 10);
    assert_int_equal(s->seeds_kind, AST_SEEDS_DEFAULT);
    assert_null(s->seeds_split);
    assert_null(s->seed_ids);
    assert_int_equal(s->n_seed_ids, 0);
    assert_null(s->features);
    assert_int_equal(s->batch, 1);
    assert_int_equal(s->hyperbatch, 0);
    assert_int_equal(s->shuffle, 0);
    assert_int_equal(s->has_seed, 0);
    assert_int_equal(s->epochs, 1);
    assert_int_equal(s->replace, 0);
    assert_int_equal(s->limit, -1);
    assert_null(s->into);
    assert_null(s->device);
    ast_free(s);
}

static void sample_partition(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("SAMPLE 10 FROM g BATCH 8 partition 3 of 4 SEED 1");
    assert_int_equal(s->part_rank, 3);
    assert_int_equal(s->part_count, 4);
    ast_free(s);
    s = parse_ok("SAMPLE 10 FROM g BATCH 8");
    assert_int_equal(s->part_count, 0);
    ast_free(s);
    expect_error_part("SAMPLE 1 FROM g BATCH 1 PARTITION 4 OF 4",
                      GNNDB_RANGE, "the rank must be 0..3");
    expect_error_part("SAMPLE 1 FROM g BATCH 1 PARTITION -1 OF 4",
                      GNNDB_RANGE, "the rank must be 0..3");
    expect_error_part("SAMPLE 1 FROM g BATCH 1 PARTITION 0 OF 0",
                      GNNDB_RANGE, "PARTITION count 0 is out of range");
    expect_error_part("SAMPLE 1 FROM g BATCH 1 PARTITION 0 OF 2 PARTITION 1 "
                      "OF 2", GNNDB_SYNTAX, "PARTITION given twice");
    expect_error_part("SAMPLE 1 FROM g BATCH 1 PARTITION 1", GNNDB_SYNTAX,
                      "expected OF");
}

static void sample_seed_forms(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("SAMPLE 5 FROM g SEEDS (1, 2,-3, 9223372036854775807) "
                           "BATCH 2");
    assert_int_equal(s->seeds_kind, AST_SEEDS_LIST);
    assert_int_equal(s->n_seed_ids, 4);
    assert_int_equal(s->seed_ids[0], 1);
    assert_int_equal(s->seed_ids[1], 2);
    assert_int_equal(s->seed_ids[2], -3);
    assert_int_equal(s->seed_ids[3], INT64_MAX);
    ast_free(s);

    s = parse_ok("SAMPLE 5 FROM g SEEDS ALL BATCH 2");
    assert_int_equal(s->seeds_kind, AST_SEEDS_ALL);
    ast_free(s);

    /* a long list grows the array */
    char sql[8192];
    size_t o = (size_t)snprintf(sql, sizeof sql, "SAMPLE 5 FROM g SEEDS (0");
    for (int i = 1; i < 1000; i++)
        o += (size_t)snprintf(sql + o, sizeof sql - o, ",%d", i);
    snprintf(sql + o, sizeof sql - o, ") BATCH 7");
    s = parse_ok(sql);
    assert_int_equal(s->n_seed_ids, 1000);
    assert_int_equal(s->seed_ids[999], 999);
    ast_free(s);

    /* SEED takes any 64-bit value; a negative one is its two's complement */
    s = parse_ok("SAMPLE 5 FROM g BATCH 1 SEED 18446744073709551615");
    assert_true(s->seed == UINT64_MAX);
    ast_free(s);
    s = parse_ok("SAMPLE 5 FROM g BATCH 1 SEED -1");
    assert_true(s->seed == UINT64_MAX);
    ast_free(s);
    s = parse_ok("SAMPLE 5 FROM g BATCH 1 SEED 0 TO DEVICE host");
    assert_int_equal(s->has_seed, 1);
    assert_true(s->seed == 0);
    assert_string_equal(s->device, "host");
    ast_free(s);
}

static void sample_hops_and_fanouts_at_the_limits(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("SAMPLE 1,1000,-1,+2,5,6,7,8 FROM g BATCH 1 LIMIT 0");
    assert_int_equal(s->nhops, 8);
    assert_int_equal(s->fanouts[1], 1000);
    assert_int_equal(s->fanouts[2], -1);
    assert_int_equal(s->fanouts[3], 2);
    assert_int_equal(s->fanouts[7], 8);
    assert_int_equal(s->limit, 0);
    ast_free(s);
}

static void explain_and_explain_analyze(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("EXPLAIN SAMPLE 10 FROM g BATCH 4");
    assert_int_equal(s->kind, AST_SAMPLE);
    assert_int_equal(s->explain, 1);
    ast_free(s);
    s = parse_ok("explain analyze sample 10 from g batch 4");
    assert_int_equal(s->explain, 2);
    assert_int_equal(s->batch, 4);
    ast_free(s);
}

static void keywords_are_case_insensitive_names_are_not(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("sAmPlE 10 fRoM Papers SeEdS Train bAtCh 8 "
                           "with replacement to device 'Host'");
    assert_int_equal(s->kind, AST_SAMPLE);
    assert_string_equal(s->graph, "Papers");
    assert_string_equal(s->seeds_split, "Train");
    assert_string_equal(s->device, "Host");
    assert_int_equal(s->replace, 1);
    ast_free(s);
}

static void comments_and_spaces_are_skipped(void **state)
{
    (void)state;
    const char *sql = "-- a leading comment\n"
                      "/* a block\n comment */ SAMPLE /* in the middle */ 10, "
                      "-- to the end of the line\n 10 FROM\tg\r\n BATCH/**/2 "
                      "-- trailing";
    ast_stmt *s = NULL;
    size_t used = 0;
    gnn_err e = {0};
    assert_int_equal(parse_statement(sql, strlen(sql), 1, &s, &used, &e),
                     GNNDB_OK);
    assert_non_null(s);
    assert_int_equal(s->nhops, 2);
    assert_int_equal(s->batch, 2);
    assert_int_equal(s->line, 3);
    assert_int_equal(s->col, 13);
    assert_int_equal(used, strlen(sql));
    ast_free(s);
}

static void strings_unescape_doubled_quotes(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("CREATE GRAPH g FROM 'it''s a ''path''' ");
    assert_string_equal(s->path, "it's a 'path'");
    ast_free(s);
    s = parse_ok("CREATE GRAPH g FROM '-- not a comment; /* nor this */'");
    assert_string_equal(s->path, "-- not a comment; /* nor this */");
    ast_free(s);
    s = parse_ok("CREATE GRAPH g FROM 'données/é.tsv'");
    assert_string_equal(s->path, "données/é.tsv");
    ast_free(s);
}

static void several_statements_report_consumed(void **state)
{
    (void)state;
    const char *sql = "SHOW GRAPHS; ;;\nDESCRIBE g ;\n  -- done\n"
                      "SAMPLE 2 FROM g BATCH 3";
    size_t len = strlen(sql), off = 0, used;
    ast_stmt *s;
    gnn_err e = {0};

    assert_int_equal(parse_statement(sql, len, 1, &s, &used, &e), GNNDB_OK);
    assert_int_equal(s->kind, AST_SHOW_GRAPHS);
    assert_int_equal(used, 12); /* up to and including its ';' */
    ast_free(s);
    off += used;

    /* empty statements are skipped */
    assert_int_equal(parse_statement(sql + off, len - off, 1, &s, &used, &e),
                     GNNDB_OK);
    assert_int_equal(s->kind, AST_DESCRIBE);
    assert_int_equal(s->line, 2);
    assert_int_equal(s->col, 1);
    assert_int_equal(sql[off + used - 1], ';');
    assert_int_equal(off + used, strlen("SHOW GRAPHS; ;;\nDESCRIBE g ;"));
    ast_free(s);
    off += used;

    /* base_line numbers the lines of later statements */
    assert_int_equal(parse_statement(sql + off, len - off, 2, &s, &used, &e),
                     GNNDB_OK);
    assert_int_equal(s->kind, AST_SAMPLE);
    assert_int_equal(s->line, 4);
    assert_int_equal(off + used, len); /* the last needs no ';' */
    ast_free(s);

    /* only spaces, comments and ';' left: no statement, all consumed */
    const char *rest = "  ;; -- nothing\n /* more */ ; ";
    s = (ast_stmt *)1;
    assert_int_equal(parse_statement(rest, strlen(rest), 1, &s, &used, &e),
                     GNNDB_OK);
    assert_null(s);
    assert_int_equal(used, strlen(rest));
    assert_int_equal(parse_statement("", 0, 1, &s, &used, &e), GNNDB_OK);
    assert_null(s);
    assert_int_equal(used, 0);

    /* the length bounds the text: the second statement is not seen */
    assert_int_equal(parse_statement(sql, 11, 1, &s, &used, &e), GNNDB_OK);
    assert_int_equal(s->kind, AST_SHOW_GRAPHS);
    assert_int_equal(used, 11);
    ast_free(s);
}

static void failed_statement_is_consumed_to_its_semicolon(void **state)
{
    (void)state;
    const char *sql = "SAMPLE 10 FROM g BATCHES 3 'x;y' ; SHOW GRAPHS";
    ast_stmt *s;
    size_t used;
    gnn_err e = {0};
    assert_int_equal(parse_statement(sql, strlen(sql), 1, &s, &used, &e),
                     GNNDB_SYNTAX);
    assert_null(s);
    assert_int_equal(used, strlen("SAMPLE 10 FROM g BATCHES 3 'x;y' ;"));
    assert_int_equal(parse_statement(sql + used, strlen(sql) - used, 1, &s,
                                     &used, &e), GNNDB_OK);
    assert_int_equal(s->kind, AST_SHOW_GRAPHS);
    ast_free(s);
}

/* ---- errors ----------------------------------------------------------- */

static void typo_on_line_two_names_line_column_and_expected(void **state)
{
    (void)state;
    expect_error("SAMPLE 10,10 FROM papers\n SEEDS train BATCHES 1024;",
                 GNNDB_SYNTAX,
                 "near line 2, column 14: syntax error at 'BATCHES'; expected "
                 "one of SEEDS, FEATURES, BATCH, HYPERBATCH, SHUFFLE, SEED, "
                 "EPOCHS, WITH, LIMIT, INTO, TO, '(', PARTITION, AS, EDGE, EDGES, "
                 "NEGATIVE, STRICT, EXCLUDE, IN, '.', AT, TEMPORAL, BEFORE, "
                 "WINDOW, BY, ';'");
    expect_error("SAMPEL 10 FROM g BATCH 1", GNNDB_SYNTAX,
                 "near line 1, column 1: syntax error at 'SAMPEL'; expected "
                 "one of CREATE, IMPORT, SHOW, DESCRIBE, DROP, CHECK, PRAGMA, "
                 "EXPLAIN, SAMPLE, PROPAGATE, SCAN, GATHER, INSERT, COMPACT");
    expect_error("DROP TABLE x", GNNDB_SYNTAX,
                 "near line 1, column 6: syntax error at 'TABLE'; expected one "
                 "of FEATURES, GRAPH, SPLIT, PACK, RELATION, VERSIONS");
    expect_error("SAMPLE 10 FROM;", GNNDB_SYNTAX,
                 "near line 1, column 15: syntax error at ';'; expected name");
    expect_error("SHOW GRAPHS now", GNNDB_SYNTAX,
                 "near line 1, column 13: syntax error at 'now'; expected ';'");
    expect_error("CREATE GRAPH g FROM e.tsv", GNNDB_SYNTAX,
                 "near line 1, column 21: syntax error at 'e'; expected string");
    expect_error("SAMPLE 10.5 FROM g BATCH 1", GNNDB_SYNTAX,
                 "near line 1, column 8: syntax error at '10.5'; expected "
                 "one of integer, '{', '['");
    expect_error("DESCRIBE sample", GNNDB_SYNTAX, NULL); /* a keyword */
}

static void incomplete_statement_names_what_was_expected(void **state)
{
    (void)state;
    expect_error("SAMPLE 10,10,10 FROM g SEEDS", GNNDB_SYNTAX,
                 "line 1, column 29: incomplete statement; expected one of "
                 "ALL, name, '('");
    expect_error("SAMPLE 10 FROM g SEEDS (1, 2", GNNDB_SYNTAX,
                 "line 1, column 29: incomplete statement; expected one of "
                 "',', ')'");
    expect_error("CREATE GRAPH g FROM\n  -- the path is missing\n",
                 GNNDB_SYNTAX,
                 "line 1, column 20: incomplete statement; expected string");
    expect_error("PRAGMA x =", GNNDB_SYNTAX,
                 "line 1, column 11: incomplete statement; expected one of "
                 "ON, name, integer, number, string");
}

static void range_errors_name_the_value(void **state)
{
    (void)state;
    expect_error("SAMPLE 0 FROM g BATCH 1", GNNDB_RANGE,
                 "line 1, column 8: fanout 0 is out of range (1..1000, or -1 "
                 "for all neighbours)");
    expect_error("SAMPLE 10,1001 FROM g BATCH 1", GNNDB_RANGE,
                 "line 1, column 11: fanout 1001 is out of range (1..1000, or "
                 "-1 for all neighbours)");
    expect_error_part("SAMPLE -2 FROM g BATCH 1", GNNDB_RANGE, "fanout -2");
    expect_error("SAMPLE 1,2,3,4,5,6,7,8,9 FROM g BATCH 1", GNNDB_RANGE,
                 "line 1, column 24: too many hops: at most 8 fanouts");
    expect_error("SAMPLE 1 FROM g BATCH 0", GNNDB_RANGE,
                 "line 1, column 23: BATCH 0 is out of range (at least 1)");
    expect_error_part("SAMPLE 1 FROM g BATCH -5", GNNDB_RANGE, "BATCH -5");
    expect_error_part("SAMPLE 1 FROM g BATCH 1 HYPERBATCH 0", GNNDB_RANGE,
                      "HYPERBATCH 0 is out of range");
    expect_error_part("SAMPLE 1 FROM g BATCH 1 EPOCHS 0", GNNDB_RANGE,
                      "EPOCHS 0 is out of range");
    expect_error_part("SAMPLE 1 FROM g BATCH 1 LIMIT -1", GNNDB_RANGE,
                      "LIMIT -1 is out of range (at least 0)");
    expect_error_part("CREATE GRAPH g FROM 'e' NODES 0", GNNDB_RANGE,
                      "NODES 0 is out of range");
    expect_error_part("IMPORT FEATURES f INTO g FROM 'x' DIM 0", GNNDB_RANGE,
                      "DIM 0 is out of range");
    expect_error("CREATE SPLIT s ON g RANDOM 1.5", GNNDB_RANGE,
                 "line 1, column 28: RANDOM fraction '1.5' is out of range "
                 "(greater than 0, at most 1)");
    expect_error_part("CREATE SPLIT s ON g RANDOM 0", GNNDB_RANGE,
                      "RANDOM fraction '0' is out of range");
    expect_error_part("CREATE SPLIT s ON g RANDOM 0.0 SEED 1", GNNDB_RANGE,
                      "out of range");
    expect_error_part("CREATE SPLIT s ON g RANDOM -0.5", GNNDB_RANGE,
                      "out of range");
    expect_error_part("CREATE SPLIT s ON g RANDOM 1e999", GNNDB_RANGE,
                      "out of range");
}

static void block_size_must_be_a_power_of_two_from_4kb_to_16mb(void **state)
{
    (void)state;
    expect_error("CREATE GRAPH g FROM 'e' BLOCK SIZE 3KB", GNNDB_RANGE,
                 "line 1, column 36: BLOCK SIZE 3KB is out of range (a power "
                 "of two from 4KB to 16MB)");
    expect_error_part("CREATE GRAPH g FROM 'e' BLOCK SIZE 2KB", GNNDB_RANGE,
                      "BLOCK SIZE 2KB is out of range");
    expect_error_part("CREATE GRAPH g FROM 'e' BLOCK SIZE 32MB", GNNDB_RANGE,
                      "out of range");
    expect_error_part("CREATE GRAPH g FROM 'e' BLOCK SIZE 1 GB", GNNDB_RANGE,
                      "out of range");
    expect_error_part("CREATE GRAPH g FROM 'e' BLOCK SIZE 5000", GNNDB_RANGE,
                      "out of range");
    expect_error_part("CREATE GRAPH g FROM 'e' BLOCK SIZE 0", GNNDB_RANGE,
                      "out of range");
    expect_error_part("CREATE GRAPH g FROM 'e' BLOCK SIZE 99999999999999KB",
                      GNNDB_RANGE, "out of range");
    expect_error_part("IMPORT FEATURES f INTO g FROM 'x' BLOCK SIZE '3MB'",
                      GNNDB_RANGE, "out of range");
    expect_error("CREATE GRAPH g FROM 'e' BLOCK SIZE 4 XB", GNNDB_SYNTAX,
                 "line 1, column 38: unknown size unit 'XB'; expected KB or MB");
    expect_error_part("CREATE GRAPH g FROM 'e' BLOCK SIZE 'big'", GNNDB_SYNTAX,
                      "is not a size");
    ast_stmt *s = parse_ok("CREATE GRAPH g FROM 'e' BLOCK SIZE 4kb");
    assert_int_equal(s->block_size, 4096);
    ast_free(s);
    s = parse_ok("CREATE GRAPH g FROM 'e' BLOCK SIZE 16777216");
    assert_int_equal(s->block_size, 16 << 20);
    ast_free(s);
}

static void huge_numbers_are_range_errors(void **state)
{
    (void)state;
    expect_error("SAMPLE 10 FROM g BATCH 99999999999999999999", GNNDB_RANGE,
                 "line 1, column 24: number too large: '99999999999999999999'");
    expect_error_part("SAMPLE 99999999999999999999999999 FROM g BATCH 1",
                      GNNDB_RANGE, "number too large");
    expect_error_part("SAMPLE 1 FROM g SEEDS (9223372036854775808) BATCH 1",
                      GNNDB_RANGE, "number too large");
    expect_error_part("SAMPLE 1 FROM g BATCH 1 SEED 18446744073709551616",
                      GNNDB_RANGE, "number too large");
    expect_error_part("SAMPLE 1 FROM g BATCH 1 SEED -9223372036854775809",
                      GNNDB_RANGE, "number too large");
    ast_stmt *s = parse_ok("SAMPLE 1 FROM g SEEDS (-9223372036854775808) "
                           "BATCH 1");
    assert_int_equal(s->seed_ids[0], INT64_MIN);
    ast_free(s);
    /* a number of ten thousand digits: the message stays one short line */
    size_t n = 10000;
    char *sql = malloc(n + 64);
    size_t o = (size_t)sprintf(sql, "SAMPLE 1 FROM g BATCH ");
    memset(sql + o, '7', n);
    sql[o + n] = 0;
    expect_error_part(sql, GNNDB_RANGE, "number too large: '7777");
    free(sql);
}

static void duplicate_clause_is_an_error(void **state)
{
    (void)state;
    expect_error("SAMPLE 10,10,10 FROM papers BATCH 1024 BATCH 32",
                 GNNDB_SYNTAX, "line 1, column 40: BATCH given twice");
    expect_error_part("SAMPLE 1 FROM g BATCH 1 SEEDS a SEEDS (1)", GNNDB_SYNTAX,
                      "SEEDS given twice");
    expect_error_part("SAMPLE 1 FROM g BATCH 1 SHUFFLE SHUFFLE", GNNDB_SYNTAX,
                      "SHUFFLE given twice");
    expect_error_part("SAMPLE 1 FROM g BATCH 1 WITH REPLACEMENT WITH "
                      "REPLACEMENT", GNNDB_SYNTAX, "WITH REPLACEMENT given twice");
    expect_error_part("SAMPLE 1 FROM g BATCH 1 TO DEVICE 'host' TO DEVICE "
                      "'cuda:0'", GNNDB_SYNTAX, "TO DEVICE given twice");
    expect_error_part("SAMPLE 1 FROM g BATCH 1 SEED 1 SEED 1", GNNDB_SYNTAX,
                      "SEED given twice");
    expect_error_part("CREATE GRAPH g FROM 'e' UNDIRECTED UNDIRECTED",
                      GNNDB_SYNTAX, "UNDIRECTED given twice");
    expect_error_part("CREATE GRAPH g FROM 'e' BLOCK SIZE 4KB BLOCK SIZE 8KB",
                      GNNDB_SYNTAX, "BLOCK SIZE given twice");
    expect_error_part("CREATE GRAPH g FROM 'e' DROP SELF LOOPS DROP SELF LOOPS",
                      GNNDB_SYNTAX, "line 1, column 41: DROP SELF LOOPS given "
                      "twice");
    expect_error_part("IMPORT FEATURES f INTO g FROM 'x' TYPE int64 TYPE "
                      "int64", GNNDB_SYNTAX, "TYPE given twice");
}

static void sample_needs_a_batch_clause(void **state)
{
    (void)state;
    expect_error("SAMPLE 10,10 FROM g SEEDS train", GNNDB_SYNTAX,
                 "line 1, column 1: SAMPLE needs a BATCH clause");
    expect_error("EXPLAIN  SAMPLE 10 FROM g;", GNNDB_SYNTAX,
                 "line 1, column 10: SAMPLE needs a BATCH clause");
}

/* ---- PROPAGATE and SCAN ---------------------------------------------- */

static void propagate_forms_and_ranges(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("propagate feat OVER cora HOPS 3 INTO feat_pp;");
    assert_int_equal(s->kind, AST_PROPAGATE);
    assert_string_equal(s->name, "feat");
    assert_string_equal(s->graph, "cora");
    assert_string_equal(s->target, "feat_pp");
    assert_int_equal(s->hops, 3);
    assert_int_equal(s->normalize, AST_NORM_SYM);
    ast_free(s);
    s = parse_ok("PROPAGATE f OVER g HOPS 8 NORMALIZE ROW INTO o");
    assert_int_equal(s->hops, 8);
    assert_int_equal(s->normalize, AST_NORM_ROW);
    ast_free(s);
    s = parse_ok("PROPAGATE f OVER g HOPS 1 NORMALIZE sym INTO o");
    assert_int_equal(s->normalize, AST_NORM_SYM);
    ast_free(s);
    expect_error("PROPAGATE f OVER g HOPS 0 INTO o", GNNDB_RANGE,
                 "line 1, column 25: HOPS 0 is out of range (1..8)");
    expect_error("PROPAGATE f OVER g HOPS 9 INTO o", GNNDB_RANGE,
                 "line 1, column 25: HOPS 9 is out of range (1..8)");
    expect_error("PROPAGATE f OVER g HOPS 2 NORMALIZE col INTO o",
                 GNNDB_SYNTAX, "line 1, column 37: unknown NORMALIZE 'col'; "
                 "expected sym or row");
    expect_error_part("PROPAGATE f OVER g HOPS 2", GNNDB_SYNTAX,
                      "incomplete statement; expected one of INTO, NORMALIZE");
    expect_error_part("PROPAGATE f OVER g INTO o", GNNDB_SYNTAX,
                      "expected HOPS");
}

static void scan_takes_every_clause_in_any_order(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("SCAN pp ON cora LIMIT 4 CHUNK 16 SEED 7 SHUFFLE "
                           "EPOCHS 2 BATCH 64 SEEDS train;");
    assert_int_equal(s->kind, AST_SCAN);
    assert_string_equal(s->name, "pp");
    assert_string_equal(s->graph, "cora");
    assert_int_equal(s->seeds_kind, AST_SEEDS_SPLIT);
    assert_string_equal(s->seeds_split, "train");
    assert_int_equal(s->batch, 64);
    assert_int_equal(s->chunk, 16);
    assert_int_equal(s->shuffle, 1);
    assert_int_equal(s->has_seed, 1);
    assert_int_equal(s->seed, 7);
    assert_int_equal(s->epochs, 2);
    assert_int_equal(s->limit, 4);
    ast_free(s);
    s = parse_ok("SCAN pp SEEDS (3, 1) BATCH 1");
    assert_null(s->graph);
    assert_int_equal(s->seeds_kind, AST_SEEDS_LIST);
    assert_int_equal(s->n_seed_ids, 2);
    assert_int_equal(s->chunk, 0);
    assert_int_equal(s->shuffle, 0);
    assert_int_equal(s->epochs, 1);
    assert_int_equal(s->limit, -1);
    ast_free(s);
    expect_error("SCAN pp SEEDS ALL", GNNDB_SYNTAX,
                 "line 1, column 1: SCAN needs a BATCH clause");
    expect_error("SCAN pp BATCH 0", GNNDB_RANGE,
                 "line 1, column 15: BATCH 0 is out of range (at least 1)");
    expect_error("SCAN pp BATCH 2 CHUNK 0", GNNDB_RANGE,
                 "line 1, column 23: CHUNK 0 is out of range (at least 1)");
    expect_error("SCAN pp BATCH 2 CHUNK 2 CHUNK 3", GNNDB_SYNTAX,
                 "line 1, column 25: CHUNK given twice");
    expect_error_part("SCAN pp BATCH 2 HYPERBATCH 2", GNNDB_SYNTAX,
                      "syntax error at 'HYPERBATCH'");
    expect_error_part("SCAN pp BATCH 2 FEATURES f", GNNDB_SYNTAX,
                      "syntax error at 'FEATURES'");
}

static void unknown_option_words_list_the_choices(void **state)
{
    (void)state;
    expect_error("CREATE GRAPH g FROM 'e' FORMAT npy", GNNDB_SYNTAX,
                 "line 1, column 32: unknown FORMAT 'npy'; expected tsv, csv "
                 "or bin");
    expect_error_part("IMPORT FEATURES f INTO g FROM 'x' FORMAT tsv",
                      GNNDB_SYNTAX, "expected npy, csv or bin");
    expect_error_part("CREATE GRAPH g FROM 'e' REORDER rcm", GNNDB_SYNTAX,
                      "unknown REORDER 'rcm'; expected none, degree or bfs");
    expect_error_part("IMPORT FEATURES f INTO g FROM 'x' TYPE int32",
                      GNNDB_SYNTAX, "expected float32, float64 or int64");
    expect_error_part("IMPORT FEATURES f INTO g FROM 'x' STORE float64",
                      GNNDB_SYNTAX, "expected float32, float16 or int8");
}

static void unterminated_string_or_comment(void **state)
{
    (void)state;
    expect_error("CREATE GRAPH g FROM 'edges.tsv", GNNDB_SYNTAX,
                 "line 1, column 21: unterminated string");
    expect_error("-- first line\n  DESCRIBE 'it''s", GNNDB_SYNTAX,
                 "line 2, column 12: unterminated string");
    expect_error("SAMPLE 10 /* FROM g BATCH 1", GNNDB_SYNTAX,
                 "line 1, column 11: unterminated comment");
    expect_error("/*/", GNNDB_SYNTAX, "line 1, column 1: unterminated comment");
    expect_error("'", GNNDB_SYNTAX, "line 1, column 1: unterminated string");
}

static void stray_bytes_are_syntax_errors(void **state)
{
    (void)state;
    expect_error("SAMPLE 10 FROM g BATCH 1 #", GNNDB_SYNTAX,
                 "line 1, column 26: unexpected character '#'");
    expect_error("SHOW\n é", GNNDB_SYNTAX,
                 "line 2, column 2: unexpected character '\\xc3'");
    const char nul[] = "SHOW GRAPHS\0;";
    ast_stmt *s = NULL;
    size_t used;
    gnn_err e = {0};
    assert_int_equal(parse_statement(nul, sizeof nul - 1, 1, &s, &used, &e),
                     GNNDB_SYNTAX);
    assert_null(s);
    assert_string_equal(e.msg, "line 1, column 12: unexpected character "
                               "'\\x00'");
    const char nul_str[] = "CREATE GRAPH g FROM 'a\0b'";
    assert_int_equal(parse_statement(nul_str, sizeof nul_str - 1, 1, &s, &used,
                                     &e), GNNDB_SYNTAX);
    assert_string_equal(e.msg, "line 1, column 21: NUL byte in string");
    /* a NUL inside a comment is only a comment */
    const char nul_comment[] = "SHOW /* \0 */ GRAPHS -- \0\n";
    assert_int_equal(parse_statement(nul_comment, sizeof nul_comment - 1, 1,
                                     &s, &used, &e), GNNDB_OK);
    assert_int_equal(s->kind, AST_SHOW_GRAPHS);
    ast_free(s);
}

/* ---- packs ------------------------------------------------------------ */

static void pack_statements(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("SAMPLE 10,5 FROM g SEEDS train BATCH 32 SHUFFLE "
                           "SEED 7 EPOCHS 2 INTO PACK p1;");
    assert_int_equal(s->kind, AST_SAMPLE);
    assert_string_equal(s->pack, "p1");
    assert_null(s->into);
    assert_int_equal(s->epochs, 2);
    ast_free(s);
    s = parse_ok("SAMPLE 10 FROM g INTO PACK p BATCH 1");  /* any order */
    assert_string_equal(s->pack, "p");
    assert_int_equal(s->batch, 1);
    ast_free(s);
    s = parse_ok("scan pack p1");
    assert_int_equal(s->kind, AST_SCAN_PACK);
    assert_string_equal(s->name, "p1");
    assert_int_equal(s->epoch, -1);
    assert_null(s->into);
    ast_free(s);
    s = parse_ok("SCAN PACK p1 TO DEVICE 'host' EPOCH 0 INTO 'out'");
    assert_int_equal(s->epoch, 0);
    assert_string_equal(s->into, "out");
    assert_string_equal(s->device, "host");
    ast_free(s);
    s = parse_ok("DROP PACK p1");
    assert_int_equal(s->kind, AST_DROP_PACK);
    assert_string_equal(s->name, "p1");
    ast_free(s);
}

static void pack_errors(void **state)
{
    (void)state;
    expect_error_part("SCAN PACK p EPOCH 1 EPOCH 2", GNNDB_SYNTAX,
                      "EPOCH given twice");
    expect_error_part("SCAN PACK p EPOCH -1", GNNDB_RANGE,
                      "EPOCH -1 is out of range (at least 0)");
    expect_error_part("SAMPLE 1 FROM g BATCH 1 INTO PACK a INTO PACK b",
                      GNNDB_SYNTAX, "INTO PACK given twice");
    expect_error_part("SAMPLE 1 FROM g BATCH 1 INTO PACK a INTO 'd'",
                      GNNDB_SYNTAX, "cannot be given together");
    expect_error_part("SAMPLE 1 FROM g BATCH 1 INTO PACK a TO DEVICE 'host'",
                      GNNDB_SYNTAX, "TO DEVICE belongs to SCAN PACK");
    expect_error_part("SCAN PACK p SEED 1", GNNDB_SYNTAX,
                      "expected one of INTO, TO, EPOCH, ';'");
    expect_error_part("SCAN PACK", GNNDB_SYNTAX, "expected name");
    expect_error("DESCRIBE pack", GNNDB_SYNTAX, NULL); /* reserved */
}

/* The words of grammar.y's %token lines that are not words of the language:
** punctuation, literals and names. */
static int punctuation(const char *t)
{
    static const char *const p[] = {
        "SEMI", "ILLEGAL", "ID", "INTEGER", "FLOAT", "STRING", "COMMA", "LP",
        "RP", "EQ", "DOT", "LBRACE", "RBRACE", "LBRACKET", "RBRACKET",
        "COLON", "STAR", NULL};
    for (int i = 0; p[i]; i++)
        if (!strcmp(p[i], t)) return 1;
    return 0;
}

/* The words after `directive` ("%token", "%fallback") in grammar.y, up to
** each '.', into words[] (the fallback's first word, ID, left out). */
static size_t grammar_words(const char *text, const char *directive,
                            char words[][32], size_t max)
{
    size_t n = 0, dl = strlen(directive);
    for (const char *p = text; (p = strstr(p, directive)); p += dl) {
        if ((p != text && p[-1] != '\n') || p[dl] != ' ') continue;
        const char *q = p + dl;
        int first = 1;
        while (*q && *q != '.') {
            while (*q == ' ' || *q == '\t' || *q == '\n') q++;
            size_t k = 0;
            while ((*q >= 'A' && *q <= 'Z') || *q == '_') {
                if (k < 31) words[n][k++] = *q;
                q++;
            }
            words[n][k] = 0;
            if (k && !(first && !strcmp(directive, "%fallback")) && n < max)
                n++;
            if (k) first = 0;
            if (!k && *q && *q != '.') q++;
        }
    }
    return n;
}

static int listed(char words[][32], size_t n, const char *w)
{
    for (size_t i = 0; i < n; i++)
        if (!strcasecmp(words[i], w)) return 1;
    return 0;
}

/* Tab completion offers gnndb_keyword's words (shell/complete.c): each
** terminal of the grammar is among them, reserved unless the grammar lets
** it fall back to a name; and each reserved word is a terminal of the
** grammar, so that neither list can go stale. */
static void completion_offers_every_keyword_of_the_grammar(void **state)
{
    (void)state;
    FILE *f = fopen("parser/grammar.y", "r");
    if (!f) skip();   /* run from elsewhere than the source tree */
    static char text[1 << 16];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = 0;
    static char tokens[256][32], fallback[64][32];
    size_t nt = grammar_words(text, "%token", tokens, 256);
    size_t nf = grammar_words(text, "%fallback", fallback, 64);
    assert_true(nt > 60);
    assert_true(nf > 5);
    for (size_t i = 0; i < nt; i++) {
        if (punctuation(tokens[i])) continue;
        int found = 0, reserved = -1;
        const char *k;
        for (int j = 0; (k = gnndb_keyword(j, NULL)); j++)
            if (!strcmp(k, tokens[i])) {
                found = 1;
                gnndb_keyword(j, &reserved);
            }
        if (!found) fail_msg("%s is not offered by completion", tokens[i]);
        if (reserved != !listed(fallback, nf, tokens[i]))
            fail_msg("%s: reserved is %d, the grammar says otherwise",
                     tokens[i], reserved);
    }
    const char *k;
    int reserved, n = 0;
    for (int j = 0; (k = gnndb_keyword(j, &reserved)); j++, n++)
        if (reserved && !listed(tokens, nt, k))
            fail_msg("%s is offered but is no terminal of the grammar", k);
    assert_null(gnndb_keyword(n, NULL));
    assert_null(gnndb_keyword(-1, NULL));
}

static void keyword_table_lists_the_language(void **state)
{
    (void)state;
    const char *must[] = {"SAMPLE", "BATCH", "HYPERBATCH", "EXPLAIN", "ANALYZE",
                          "PRAGMA", "REPLACEMENT", "DEVICE", "UNDIRECTED",
                          "REORDER", "CHECK", "TSV", "KB", "PROPAGATE",
                          "OVER", "HOPS", "NORMALIZE", "SCAN", "CHUNK", "SYM",
                          NULL};
    size_t n = 0;
    while (parse_keywords[n]) n++;
    assert_true(n >= 45);
    for (int i = 0; must[i]; i++) {
        int found = 0;
        for (size_t k = 0; k < n; k++) found |= !strcmp(parse_keywords[k], must[i]);
        if (!found) fail_msg("%s missing from parse_keywords", must[i]);
    }
    /* every reserved word of the table is recognised as such: as a graph
    ** name it is a syntax error (the option words are names and parse) */
    for (size_t k = 0; k < n; k++) {
        char sql[64];
        snprintf(sql, sizeof sql, "DESCRIBE %s", parse_keywords[k]);
        ast_stmt *s = NULL;
        size_t used;
        gnn_err e = {0};
        int rc = parse_statement(sql, strlen(sql), 1, &s, &used, &e);
        if (rc == GNNDB_OK) {
            assert_string_equal(s->name, parse_keywords[k]);
            ast_free(s);
        } else {
            assert_int_equal(rc, GNNDB_SYNTAX);
        }
    }
}

/* ---- link prediction ------------------------------------------------- */

static void link_statements(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("CREATE GRAPH g FROM 'e.csv' UNDIRECTED WITHOUT "
                           "EDGE IDS");
    assert_int_equal(s->kind, AST_CREATE_GRAPH);
    assert_int_equal(s->no_edge_ids, 1);
    assert_int_equal(s->undirected, 1);
    ast_free(s);
    s = parse_ok("CREATE GRAPH g FROM 'e.csv' BLOCK SIZE 4096 WITHOUT EDGE IDS");
    assert_int_equal(s->no_edge_ids, 1);
    assert_int_equal(s->block_size, 4096);
    ast_free(s);

    s = parse_ok("CREATE EDGE SPLIT train ON g FROM 'p.tsv' FORMAT tsv HEADER "
                 "COLUMNS (src, dst)");
    assert_int_equal(s->kind, AST_CREATE_EDGE_SPLIT);
    assert_string_equal(s->name, "train");
    assert_string_equal(s->graph, "g");
    assert_string_equal(s->path, "p.tsv");
    assert_int_equal(s->format, AST_FMT_TSV);
    assert_int_equal(s->header, 1);
    assert_int_equal(s->columns, AST_COLS_NAME);
    ast_free(s);

    s = parse_ok("CREATE EDGE SPLITS train, valid, test ON g RANDOM 0.85, "
                 "0.05, 0.10 SEED 7");
    assert_int_equal(s->kind, AST_CREATE_EDGE_SPLITS);
    assert_int_equal(s->n_split_names, 3);
    assert_string_equal(s->split_names[2], "test");
    assert_true(s->split_fractions[0] == 0.85 && s->split_fractions[2] == 0.10);
    assert_int_equal(s->has_seed, 1);
    assert_int_equal(s->seed, 7);
    ast_free(s);

    s = parse_ok("IMPORT EDGE FEATURES w INTO g FROM 'ef.npy' STORE float16");
    assert_int_equal(s->kind, AST_IMPORT_EDGE_FEATURES);
    assert_string_equal(s->name, "w");
    assert_string_equal(s->store, "float16");
    assert_null(s->node_type);
    ast_free(s);

    /* INTO g.r: relation r of typed graph g */
    s = parse_ok("IMPORT EDGE FEATURES w INTO mag.writes FROM 'ef.csv' DIM 2");
    assert_int_equal(s->kind, AST_IMPORT_EDGE_FEATURES);
    assert_string_equal(s->graph, "mag");
    assert_string_equal(s->node_type, "writes");
    assert_int_equal(s->dim, 2);
    ast_free(s);

    s = parse_ok("SAMPLE 10, 5 FROM g EDGES train BATCH 64 NEGATIVE 3 TRIPLET "
                 "STRICT EXCLUDE SEEDS EXCLUDE SPLIT valid, test EDGE FEATURES "
                 "w SHUFFLE SEED 2");
    assert_int_equal(s->kind, AST_SAMPLE);
    assert_string_equal(s->edge_seeds, "train");
    assert_int_equal(s->negative, 3);
    assert_int_equal(s->neg_mode, AST_NEG_TRIPLET);
    assert_int_equal(s->neg_strict, 1);
    assert_int_equal(s->exclude_seeds, 1);
    assert_int_equal(s->n_exclude_splits, 2);
    assert_string_equal(s->exclude_splits[1], "test");
    assert_string_equal(s->edge_features, "w");
    assert_int_equal(s->seeds_kind, AST_SEEDS_DEFAULT);
    ast_free(s);

    s = parse_ok("SAMPLE 2 FROM g EDGES e BATCH 8 NEGATIVE 1 PAIRS");
    assert_int_equal(s->neg_mode, AST_NEG_PAIRS);
    ast_free(s);
    s = parse_ok("SAMPLE 2 FROM g EDGES e BATCH 8");
    assert_int_equal(s->negative, 0);
    assert_int_equal(s->neg_mode, AST_NEG_SOURCE);
    ast_free(s);
    /* the new words remain names where a name is expected */
    s = parse_ok("SAMPLE 2 FROM edges FEATURES strict BATCH 8 SEEDS pairs");
    assert_string_equal(s->graph, "edges");
    assert_string_equal(s->features, "strict");
    assert_string_equal(s->seeds_split, "pairs");
    ast_free(s);
}

/* ---- time: IMPORT EDGE | NODE TIMES, SAMPLE ... AT TIMES --------------- */

static void time_statements(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("IMPORT EDGE TIMES INTO g FROM 't.npy'");
    assert_int_equal(s->kind, AST_IMPORT_TIMES);
    assert_int_equal(s->time_nodes, 0);
    assert_string_equal(s->graph, "g");
    assert_string_equal(s->path, "t.npy");
    ast_free(s);
    s = parse_ok("IMPORT NODE TIMES INTO g FROM 'nt.npy'");
    assert_int_equal(s->kind, AST_IMPORT_TIMES);
    assert_int_equal(s->time_nodes, 1);
    ast_free(s);

    s = parse_ok("SAMPLE 10,10 FROM g SEEDS train AT TIMES 'st.npy' BATCH 4");
    assert_int_equal(s->time_source, AST_TIME_FILE);
    assert_string_equal(s->time_path, "st.npy");
    assert_int_equal(s->temporal, AST_TEMPORAL_UNIFORM);
    assert_int_equal(s->time_strict, 0);
    assert_int_equal(s->time_window, 0);
    ast_free(s);
    s = parse_ok("SAMPLE 5 FROM g AT NODE TIME TEMPORAL LAST BEFORE "
                 "WINDOW 86400 BATCH 4");
    assert_int_equal(s->time_source, AST_TIME_NODE);
    assert_null(s->time_path);
    assert_int_equal(s->temporal, AST_TEMPORAL_LAST);
    assert_int_equal(s->time_strict, 1);
    assert_int_equal(s->time_window, 86400);
    ast_free(s);
    s = parse_ok("SAMPLE 5 FROM g BATCH 4 AT OR BEFORE TEMPORAL UNIFORM "
                 "AT TIMES 'a.npy'");
    assert_int_equal(s->time_strict, 0);
    assert_int_equal(s->time_source, AST_TIME_FILE);
    ast_free(s);
    s = parse_ok("SAMPLE 5 FROM g EDGES lp AT EDGE TIME BEFORE NEGATIVE 1 "
                 "EXCLUDE SEEDS BATCH 4");
    assert_int_equal(s->time_source, AST_TIME_EDGE);
    assert_string_equal(s->edge_seeds, "lp");
    assert_int_equal(s->time_strict, 1);
    ast_free(s);
    s = parse_ok("SAMPLE 5 FROM g SEEDS s AT NODE TIME BY NODE TIME BATCH 4");
    assert_int_equal(s->time_by_node, 1);
    ast_free(s);
    /* seed edges at their own times, judged by node times */
    s = parse_ok("SAMPLE 5 FROM g EDGES e AT EDGE TIME BY NODE TIME BATCH 4");
    assert_int_equal(s->time_source, AST_TIME_EDGE);
    assert_int_equal(s->time_by_node, 1);
    ast_free(s);
    /* seed edges at a file's times, one per seed edge */
    s = parse_ok("SAMPLE 5 FROM g EDGES e AT TIMES 'et.npy' BY NODE TIME "
                 "TEMPORAL LAST WINDOW 7 BATCH 4");
    assert_int_equal(s->time_source, AST_TIME_FILE);
    assert_string_equal(s->time_path, "et.npy");
    assert_string_equal(s->edge_seeds, "e");
    assert_int_equal(s->time_by_node, 1);
    assert_int_equal(s->time_window, 7);
    ast_free(s);
    s = parse_ok("SAMPLE 5 FROM g EDGES e AT TIMES 'et.npy' BY EDGE TIME "
                 "BATCH 4");
    assert_int_equal(s->time_source, AST_TIME_FILE);
    assert_int_equal(s->time_by_node, 0);
    ast_free(s);
    s = parse_ok("SAMPLE 5 FROM g SEEDS s BY EDGE TIME AT NODE TIME BATCH 4");
    assert_int_equal(s->time_by_node, 0);
    ast_free(s);
    /* the words are names elsewhere */
    s = parse_ok("SAMPLE 5 FROM time SEEDS by FEATURES window BATCH 4");
    assert_string_equal(s->graph, "time");
    assert_string_equal(s->seeds_split, "by");
    assert_string_equal(s->features, "window");
    ast_free(s);
}

static void time_errors(void **state)
{
    (void)state;
    expect_error("SAMPLE 5 FROM g TEMPORAL LAST BATCH 4", GNNDB_SYNTAX,
                 "line 1, column 17: this clause compares edge times with "
                 "each seed's time: give AT TIMES 'file', AT NODE TIME or "
                 "AT EDGE TIME too");
    expect_error_part("SAMPLE 5 FROM g BEFORE BATCH 4", GNNDB_SYNTAX,
                      "give AT TIMES 'file', AT NODE TIME or AT EDGE TIME");
    expect_error_part("SAMPLE 5 FROM g AT NODE TIME WINDOW 0 BATCH 4",
                      GNNDB_RANGE, "WINDOW 0 is out of range");
    expect_error_part("SAMPLE 5 FROM g AT NODE TIME AT TIMES 'f' BATCH 4",
                      GNNDB_SYNTAX,
                      "AT TIMES / AT NODE TIME / AT EDGE TIME given twice");
    expect_error_part("SAMPLE 5 FROM g BEFORE AT OR BEFORE AT NODE TIME "
                      "BATCH 4", GNNDB_SYNTAX, "given twice");
    expect_error("SAMPLE 5 FROM g EDGES e AT NODE TIME BATCH 4",
                 GNNDB_SYNTAX, "line 1, column 25: with EDGES seeds the time "
                 "of each tree is its seed edge's: write AT EDGE TIME (each "
                 "seed edge's own) or AT TIMES 'file' (one per seed edge)");
    expect_error("SAMPLE 5 FROM g SEEDS s AT EDGE TIME BATCH 4", GNNDB_SYNTAX,
                 "line 1, column 25: AT EDGE TIME takes each seed edge's "
                 "time: it needs EDGES split (seed by nodes with AT TIMES "
                 "'file' or AT NODE TIME)");
    expect_error_part("SAMPLE 5 FROM g EDGES e AT EDGE TIME AT NODE TIME "
                      "BATCH 4", GNNDB_SYNTAX, "given twice");
    expect_error_part("SAMPLE 5 FROM g BY NODE TIME BATCH 4", GNNDB_SYNTAX,
                      "give AT TIMES 'file', AT NODE TIME or AT EDGE TIME");
    expect_error_part("SAMPLE 5 FROM g AT NODE TIME BY NODE TIME BY EDGE TIME "
                      "BATCH 4", GNNDB_SYNTAX, "given twice");
    expect_error_part("IMPORT EDGE TIMES INTO g FROM t.npy", GNNDB_SYNTAX,
                      "expected string");
}

static void link_errors(void **state)
{
    (void)state;
    expect_error("CREATE EDGE SPLITS a, b ON g RANDOM 0.85, 0.25",
                 GNNDB_RANGE, "line 1, column 28: CREATE EDGE SPLITS: the "
                 "fractions sum to 1.1; they must sum to at most 1 (an edge "
                 "is in one split)");
    expect_error_part("CREATE EDGE SPLITS a, b ON g RANDOM 0.5", GNNDB_SYNTAX,
                      "names 2 splits but gives 1 fraction");
    expect_error_part("CREATE EDGE SPLITS a, a ON g RANDOM 0.5, 0.5",
                      GNNDB_SYNTAX, "split 'a' is named twice");
    expect_error_part("CREATE EDGE SPLITS a ON g RANDOM 0", GNNDB_RANGE,
                      "RANDOM fraction '0' is out of range");
    expect_error("SAMPLE 1 FROM g EDGES e BATCH 4 NEGATIVE 0", GNNDB_RANGE,
                 "line 1, column 42: NEGATIVE 0 is out of range (1..1000 "
                 "negatives per seed edge)");
    expect_error_part("SAMPLE 1 FROM g EDGES e BATCH 4 NEGATIVE -2",
                      GNNDB_RANGE, "NEGATIVE -2 is out of range");
    expect_error_part("SAMPLE 1 FROM g EDGES e BATCH 4 NEGATIVE 1 NEGATIVE 2",
                      GNNDB_SYNTAX, "NEGATIVE");
    expect_error("SAMPLE 1 FROM g SEEDS train BATCH 4 EXCLUDE SEEDS",
                 GNNDB_SYNTAX, "line 1, column 1: EXCLUDE SEEDS needs edge "
                 "seeds (EDGES split); this SAMPLE is seeded by nodes");
    expect_error_part("SAMPLE 1 FROM g BATCH 4 NEGATIVE 1", GNNDB_SYNTAX,
                      "NEGATIVE needs edge seeds");
    expect_error_part("SAMPLE 1 FROM g EDGES e BATCH 4 STRICT", GNNDB_SYNTAX,
                      "STRICT applies to negatives");
    expect_error_part("SAMPLE 1 FROM g EDGES e SEEDS s BATCH 4", GNNDB_SYNTAX,
                      "not both");
    expect_error_part("SAMPLE 1 FROM g EDGES e BATCH 4 EXCLUDE", GNNDB_SYNTAX,
                      "SEEDS");
}

/* ---- appends and versions ------------------------------------------- */

static void insert_nodes_and_rows(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("INSERT NODES INTO g COUNT 7;");
    assert_int_equal(s->kind, AST_INSERT_NODES);
    assert_string_equal(s->graph, "g");
    assert_int_equal(s->count, 7);
    assert_null(s->path);
    ast_free(s);
    s = parse_ok("INSERT ROWS INTO feat ON g FROM 'x.npy'");
    assert_int_equal(s->kind, AST_INSERT_ROWS);
    assert_string_equal(s->name, "feat");
    assert_string_equal(s->graph, "g");
    assert_string_equal(s->path, "x.npy");
    ast_free(s);
    s = parse_ok("INSERT ROWS INTO LABELS ON g FROM 'y.bin' FORMAT bin "
                 "TYPE int64 DIM 1");
    assert_int_equal(s->kind, AST_INSERT_ROWS);
    assert_null(s->name);            /* the label table */
    assert_int_equal(s->format, AST_FMT_BIN);
    assert_string_equal(s->dtype, "int64");
    assert_int_equal(s->dim, 1);
    ast_free(s);
    expect_error("INSERT NODES INTO g COUNT 0", GNNDB_RANGE,
                 "line 1, column 27: INSERT NODES: COUNT '0' is out of range "
                 "(at least 1)");
    expect_error_part("INSERT ROWS INTO feat ON g FROM 'x.npy' STORE float16",
                      GNNDB_SYNTAX, "syntax error at 'STORE'");
    expect_error_part("INSERT ROWS INTO feat ON g FROM 'x.npy' REPLACE",
                      GNNDB_SYNTAX, "syntax error at 'REPLACE'");
    expect_error_part("INSERT NODES INTO g", GNNDB_SYNTAX, "COUNT");
}

static void insert_edges_takes_the_file_options(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("INSERT EDGES INTO g FROM 'more.csv'");
    assert_int_equal(s->kind, AST_INSERT_EDGES);
    assert_string_equal(s->graph, "g");
    assert_string_equal(s->path, "more.csv");
    assert_null(s->name);
    assert_int_equal(s->columns, AST_COLS_FIRST);
    assert_int_equal(s->col_time, 0);
    assert_int_equal(s->header, 0);
    assert_null(s->key);
    assert_int_equal(s->as_of, 0);
    assert_int_equal(s->count, 0);
    ast_free(s);
    /* a time column by position, in any order with the other options */
    s = parse_ok("INSERT EDGES INTO g FROM 'e.txt' COLUMNS (2, 0, 5) "
                 "FORMAT tsv HEADER;");
    assert_int_equal(s->kind, AST_INSERT_EDGES);
    assert_int_equal(s->format, AST_FMT_TSV);
    assert_int_equal(s->header, 1);
    assert_int_equal(s->columns, AST_COLS_POS);
    assert_int_equal(s->col_pos[0], 2);
    assert_int_equal(s->col_pos[1], 0);
    assert_int_equal(s->col_pos[2], 5);
    assert_int_equal(s->col_time, 1);
    ast_free(s);
    /* by name, two columns: no time */
    s = parse_ok("INSERT EDGES INTO g FROM 'e.csv' HEADER COLUMNS (src, dst) "
                 "FORMAT csv");
    assert_int_equal(s->format, AST_FMT_CSV);
    assert_int_equal(s->columns, AST_COLS_NAME);
    assert_string_equal(s->col_name[0], "src");
    assert_string_equal(s->col_name[1], "dst");
    assert_int_equal(s->col_time, 0);
    ast_free(s);
    s = parse_ok("INSERT EDGES INTO g FROM 'e.csv' COLUMNS (a, b, when)");
    assert_string_equal(s->col_name[2], "when");
    assert_int_equal(s->col_time, 1);
    ast_free(s);
    s = parse_ok("INSERT EDGES INTO g FROM 'e.npz' KEY 'edge_index' FORMAT bin");
    assert_string_equal(s->key, "edge_index");
    assert_int_equal(s->format, AST_FMT_BIN);
    ast_free(s);
    /* VERSION and VERSIONS stay names */
    s = parse_ok("INSERT EDGES INTO versions FROM 'v.csv'");
    assert_string_equal(s->graph, "versions");
    ast_free(s);
}

static void show_and_drop_versions(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("SHOW VERSIONS g;");
    assert_int_equal(s->kind, AST_SHOW_VERSIONS);
    assert_string_equal(s->graph, "g");
    ast_free(s);
    s = parse_ok("SHOW VERSIONS version");
    assert_int_equal(s->kind, AST_SHOW_VERSIONS);
    assert_string_equal(s->graph, "version");
    ast_free(s);
    s = parse_ok("DROP VERSIONS BEFORE 3 ON papers;");
    assert_int_equal(s->kind, AST_DROP_VERSIONS);
    assert_int_equal(s->count, 3);
    assert_string_equal(s->graph, "papers");
    ast_free(s);
    s = parse_ok("drop versions before 1 on g");
    assert_int_equal(s->kind, AST_DROP_VERSIONS);
    assert_int_equal(s->count, 1);
    ast_free(s);
    s = parse_ok("DROP VERSIONS BEFORE 9223372036854775807 ON g");
    assert_int_equal(s->count, INT64_MAX);
    ast_free(s);
}

static void compact_names_one_graph(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("COMPACT g;");
    assert_int_equal(s->kind, AST_COMPACT);
    assert_string_equal(s->graph, "g");
    assert_null(s->name);
    assert_int_equal(s->count, 0);
    ast_free(s);
    s = parse_ok("compact papers");
    assert_int_equal(s->kind, AST_COMPACT);
    assert_string_equal(s->graph, "papers");
    ast_free(s);
    /* COMPACT stays a name wherever a name is expected */
    s = parse_ok("COMPACT compact");
    assert_int_equal(s->kind, AST_COMPACT);
    assert_string_equal(s->graph, "compact");
    ast_free(s);
    s = parse_ok("DESCRIBE compact");
    assert_string_equal(s->name, "compact");
    ast_free(s);
    s = parse_ok("SAMPLE 5 FROM compact SEEDS compact BATCH 4");
    assert_string_equal(s->graph, "compact");
    assert_string_equal(s->seeds_split, "compact");
    ast_free(s);
}

static void compact_errors(void **state)
{
    (void)state;
    expect_error("COMPACT;", GNNDB_SYNTAX,
                 "near line 1, column 8: syntax error at ';'; expected name");
    expect_error("COMPACT g h", GNNDB_SYNTAX,
                 "near line 1, column 11: syntax error at 'h'; expected ';'");
    expect_error("\n  COMPACT g h;", GNNDB_SYNTAX,
                 "near line 2, column 13: syntax error at 'h'; expected ';'");
    expect_error("COMPACT", GNNDB_SYNTAX,
                 "line 1, column 8: incomplete statement; expected name");
    expect_error_part("COMPACT 'g'", GNNDB_SYNTAX,
                      "line 1, column 9: syntax error");
    expect_error_part("COMPACT GRAPH g", GNNDB_SYNTAX,
                      "line 1, column 9: syntax error at 'GRAPH'");
}

static void sample_as_of_version(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("SAMPLE 10,5 FROM g SEEDS train BATCH 64 "
                           "AS OF VERSION 2");
    assert_int_equal(s->kind, AST_SAMPLE);
    assert_int_equal(s->as_of, 2);
    assert_int_equal(s->explain, 0);
    ast_free(s);
    s = parse_ok("SAMPLE 10 FROM g SEEDS train BATCH 64");
    assert_int_equal(s->as_of, 0);
    ast_free(s);
    /* a sample clause: anywhere among the others, EXPLAIN too */
    s = parse_ok("EXPLAIN SAMPLE 10 FROM g AS OF VERSION 1 SEEDS train "
                 "BATCH 64 SHUFFLE SEED 3;");
    assert_int_equal(s->kind, AST_SAMPLE);
    assert_int_equal(s->explain, 1);
    assert_int_equal(s->as_of, 1);
    assert_int_equal(s->seed, 3);
    ast_free(s);
    s = parse_ok("SAMPLE 5 FROM g EDGES lp NEGATIVE 1 EXCLUDE SEEDS "
                 "AS OF VERSION 7 BATCH 4");
    assert_string_equal(s->edge_seeds, "lp");
    assert_int_equal(s->as_of, 7);
    ast_free(s);
    s = parse_ok("SAMPLE 5 FROM g SEEDS s AT NODE TIME TEMPORAL LAST "
                 "AS OF VERSION 12 BATCH 4");
    assert_int_equal(s->time_source, AST_TIME_NODE);
    assert_int_equal(s->as_of, 12);
    ast_free(s);
    s = parse_ok("SAMPLE 5 FROM version SEEDS versions BATCH 4 AS OF VERSION 3");
    assert_string_equal(s->graph, "version");
    assert_string_equal(s->seeds_split, "versions");
    assert_int_equal(s->as_of, 3);
    ast_free(s);
}

static void version_errors(void **state)
{
    (void)state;
    expect_error("SAMPLE 5 FROM g BATCH 4 AS OF VERSION 0", GNNDB_RANGE,
                 "line 1, column 39: AS OF VERSION '0' is out of range "
                 "(versions count from 1)");
    expect_error("SAMPLE 5 FROM g BATCH 4\n  AS OF VERSION 0;", GNNDB_RANGE,
                 "line 2, column 17: AS OF VERSION '0' is out of range "
                 "(versions count from 1)");
    expect_error("DROP VERSIONS BEFORE 0 ON g", GNNDB_RANGE,
                 "line 1, column 22: DROP VERSIONS BEFORE '0' is out of range "
                 "(versions count from 1)");
    expect_error_part("SAMPLE 5 FROM g BATCH 4 AS OF VERSION -1", GNNDB_RANGE,
                      "VERSION '-1' is out of range");
    expect_error_part("DROP VERSIONS BEFORE -3 ON g", GNNDB_RANGE,
                      "BEFORE '-3' is out of range");
    expect_error_part("SAMPLE 5 FROM g BATCH 4 AS OF VERSION "
                      "99999999999999999999", GNNDB_RANGE, "");
    expect_error("SAMPLE 5 FROM g BATCH 4 AS OF VERSION 1 AS OF VERSION 2",
                 GNNDB_SYNTAX, "line 1, column 41: AS OF VERSION given twice");
    expect_error_part("SAMPLE 5 FROM g AS OF VERSION 2 BATCH 4 AS OF VERSION 2",
                      GNNDB_SYNTAX, "AS OF VERSION given twice");
    /* the clause belongs to SAMPLE, and INSERT takes the file's options only */
    expect_error_part("SAMPLE 5 FROM g BATCH 4 AS OF 2", GNNDB_SYNTAX,
                      "syntax error at '2'");
    expect_error_part("SAMPLE 5 FROM g BATCH 4 AS OF VERSION x", GNNDB_SYNTAX,
                      "syntax error at 'x'");
    expect_error_part("SCAN t FROM g AS OF VERSION 2", GNNDB_SYNTAX,
                      "syntax error");
    expect_error_part("INSERT EDGES INTO g FROM 'e.csv' UNDIRECTED",
                      GNNDB_SYNTAX, "syntax error at 'UNDIRECTED'");
    expect_error_part("INSERT EDGES INTO g FROM 'e.csv' DROP DUPLICATES",
                      GNNDB_SYNTAX, "syntax error at 'DROP'");
    expect_error_part("INSERT EDGES INTO g FROM 'e.csv' HEADER HEADER",
                      GNNDB_SYNTAX, "HEADER given twice");
    expect_error_part("INSERT EDGES INTO g FROM 'e.csv' COLUMNS (0, 1) "
                      "COLUMNS (1, 0)", GNNDB_SYNTAX, "COLUMNS given twice");
    expect_error_part("INSERT EDGES INTO g FROM 'e.csv' COLUMNS (0, b)",
                      GNNDB_SYNTAX, "COLUMNS takes two positions or two names");
    expect_error_part("INSERT EDGES INTO g FROM 'e.csv' FORMAT npy",
                      GNNDB_SYNTAX, "npy");
    expect_error_part("INSERT EDGES INTO g FROM e.csv", GNNDB_SYNTAX,
                      "expected string");
    expect_error_part("INSERT EDGES g FROM 'e.csv'", GNNDB_SYNTAX,
                      "syntax error at 'g'");
    expect_error_part("INSERT INTO g FROM 'e.csv'", GNNDB_SYNTAX,
                      "syntax error at 'INTO'");
    expect_error_part("INSERT EDGES INTO g.t FROM 'e.csv'", GNNDB_SYNTAX,
                      "syntax error at '.'");
    expect_error_part("SHOW VERSIONS", GNNDB_SYNTAX, "expected name");
    expect_error_part("DROP VERSIONS 2 ON g", GNNDB_SYNTAX,
                      "syntax error at '2'");
    expect_error_part("DROP VERSIONS BEFORE 2 g", GNNDB_SYNTAX,
                      "syntax error at 'g'");
    expect_error_part("DROP VERSIONS BEFORE two ON g", GNNDB_SYNTAX,
                      "syntax error at 'two'");
}

/* ---- heterogeneous graphs -------------------------------------------- */

static void hetero_graph_nodes_and_relations(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("CREATE GRAPH mag;");
    assert_int_equal(s->kind, AST_CREATE_GRAPH);
    assert_string_equal(s->name, "mag");
    assert_null(s->path);
    assert_true(ast_is_typed(s));
    ast_free(s);
    s = parse_ok("CREATE GRAPH g FROM 'e.tsv'");  /* as before */
    assert_false(ast_is_typed(s));
    ast_free(s);

    s = parse_ok("CREATE NODES paper IN mag COUNT 736389");
    assert_int_equal(s->kind, AST_CREATE_NODES);
    assert_string_equal(s->name, "paper");
    assert_string_equal(s->graph, "mag");
    assert_int_equal(s->count, 736389);
    ast_free(s);

    s = parse_ok("CREATE RELATION writes IN mag FROM author TO paper FROM "
                 "'writes.csv.gz' WITH REVERSE AS written_by FORMAT csv "
                 "HEADER COLUMNS (a, b) DROP DUPLICATES DROP SELF LOOPS "
                 "BLOCK SIZE 64KB");
    assert_int_equal(s->kind, AST_CREATE_RELATION);
    assert_string_equal(s->name, "writes");
    assert_string_equal(s->graph, "mag");
    assert_string_equal(s->src_type, "author");
    assert_string_equal(s->dst_type, "paper");
    assert_string_equal(s->path, "writes.csv.gz");
    assert_int_equal(s->with_reverse, 1);
    assert_string_equal(s->reverse_name, "written_by");
    assert_int_equal(s->format, AST_FMT_CSV);
    assert_int_equal(s->header, 1);
    assert_int_equal(s->columns, AST_COLS_NAME);
    assert_string_equal(s->col_name[1], "b");
    assert_int_equal(s->drop_duplicates, 1);
    assert_int_equal(s->drop_self_loops, 1);
    assert_int_equal(s->block_size, 64 * 1024);
    assert_int_equal(s->undirected, 0);
    ast_free(s);

    s = parse_ok("CREATE RELATION writes IN mag FROM author TO paper FROM "
                 "'w.npz' KEY 'edge_index' WITH REVERSE");
    assert_int_equal(s->with_reverse, 1);
    assert_null(s->reverse_name);       /* the engine names it rev_writes */
    assert_string_equal(s->key, "edge_index");
    ast_free(s);
    s = parse_ok("CREATE RELATION cites IN mag FROM paper TO paper FROM "
                 "'c.tsv' UNDIRECTED");
    assert_int_equal(s->undirected, 1);
    assert_int_equal(s->with_reverse, 0);
    assert_int_equal(s->no_edge_ids, 0);
    ast_free(s);
    s = parse_ok("CREATE RELATION cites IN mag FROM paper TO paper FROM "
                 "'c.tsv' WITHOUT EDGE IDS WITH REVERSE");
    assert_int_equal(s->no_edge_ids, 1);
    assert_int_equal(s->with_reverse, 1);
    ast_free(s);

    s = parse_ok("DROP RELATION writes ON mag");
    assert_int_equal(s->kind, AST_DROP_RELATION);
    assert_string_equal(s->name, "writes");
    assert_string_equal(s->graph, "mag");
    ast_free(s);
}

static void hetero_qualified_names(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("IMPORT FEATURES feat INTO mag.paper FROM 'x.npy' "
                           "STORE float16");
    assert_int_equal(s->kind, AST_IMPORT_FEATURES);
    assert_string_equal(s->name, "feat");
    assert_string_equal(s->graph, "mag");
    assert_string_equal(s->node_type, "paper");
    assert_string_equal(s->store, "float16");
    ast_free(s);
    s = parse_ok("IMPORT LABELS INTO mag . paper FROM 'y.npy'");
    assert_int_equal(s->kind, AST_IMPORT_LABELS);
    assert_string_equal(s->graph, "mag");
    assert_string_equal(s->node_type, "paper");
    ast_free(s);
    s = parse_ok("CREATE SPLIT train ON mag.paper FROM 'train.npy'");
    assert_int_equal(s->kind, AST_CREATE_SPLIT);
    assert_string_equal(s->node_type, "paper");
    assert_string_equal(s->path, "train.npy");
    ast_free(s);
    s = parse_ok("CREATE SPLIT r ON mag.paper RANDOM 0.5 SEED 3");
    assert_string_equal(s->node_type, "paper");
    assert_int_equal(s->split_random, 1);
    ast_free(s);
    s = parse_ok("DROP FEATURES feat ON mag.paper");
    assert_int_equal(s->kind, AST_DROP_FEATURES);
    assert_string_equal(s->name, "feat");
    assert_string_equal(s->graph, "mag");
    assert_string_equal(s->node_type, "paper");
    ast_free(s);
    s = parse_ok("DROP SPLIT train ON mag.paper");
    assert_int_equal(s->kind, AST_DROP_SPLIT);
    assert_string_equal(s->node_type, "paper");
    ast_free(s);
    s = parse_ok("DESCRIBE mag.paper");
    assert_int_equal(s->kind, AST_DESCRIBE);
    assert_string_equal(s->name, "mag");
    assert_string_equal(s->node_type, "paper");
    ast_free(s);
    s = parse_ok("DESCRIBE mag");               /* unqualified: as before */
    assert_null(s->node_type);
    assert_false(ast_is_typed(s));
    ast_free(s);
    /* numbers keep their '.': 0.5, .5 and 1e-3 are one token each */
    s = parse_ok("CREATE SPLIT r ON g RANDOM .5");
    assert_true(s->fraction == 0.5);
    assert_null(s->node_type);
    ast_free(s);
}

static void hetero_typed_fanouts_and_seeds(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("SAMPLE {cites: 10, writes: 5, rev_writes: -1} * 2 "
                           "FROM mag SEEDS paper.train BATCH 1024 SHUFFLE");
    assert_int_equal(s->kind, AST_SAMPLE);
    assert_int_equal(s->typed, 1);
    assert_int_equal(s->nhops, 2);
    for (int h = 0; h < 2; h++) {
        assert_int_equal(s->n_rels[h], 3);
        assert_string_equal(s->rels[h][0].rel, "cites");
        assert_int_equal(s->rels[h][0].fanout, 10);
        assert_string_equal(s->rels[h][2].rel, "rev_writes");
        assert_int_equal(s->rels[h][2].fanout, -1);
    }
    assert_ptr_not_equal(s->rels[0][0].rel, s->rels[1][0].rel); /* owned */
    assert_int_equal(s->n_rels[2], 0);
    assert_int_equal(s->seeds_kind, AST_SEEDS_SPLIT);
    assert_string_equal(s->seeds_type, "paper");
    assert_string_equal(s->seeds_split, "train");
    assert_int_equal(s->batch, 1024);
    ast_free(s);

    s = parse_ok("SAMPLE [{cites: 10, writes: 5}, {cites: 5}] FROM mag "
                 "SEEDS paper.ALL BATCH 8");
    assert_int_equal(s->typed, 1);
    assert_int_equal(s->nhops, 2);
    assert_int_equal(s->n_rels[0], 2);
    assert_int_equal(s->n_rels[1], 1);
    assert_string_equal(s->rels[1][0].rel, "cites");
    assert_int_equal(s->rels[1][0].fanout, 5);
    assert_int_equal(s->seeds_kind, AST_SEEDS_ALL);
    assert_string_equal(s->seeds_type, "paper");
    assert_null(s->seeds_split);
    ast_free(s);

    s = parse_ok("SAMPLE {cites: 1000} FROM mag BATCH 1");  /* one hop */
    assert_int_equal(s->nhops, 1);
    assert_int_equal(s->rels[0][0].fanout, 1000);
    ast_free(s);
    s = parse_ok("SAMPLE {a: 1} * 8 FROM g BATCH 1");
    assert_int_equal(s->nhops, 8);
    assert_string_equal(s->rels[7][0].rel, "a");
    ast_free(s);

    /* as before: untyped fanouts, SEEDS s is a split of the whole graph */
    s = parse_ok("SAMPLE 10, 5 FROM g SEEDS paper BATCH 4");
    assert_int_equal(s->typed, 0);
    assert_int_equal(s->seeds_kind, AST_SEEDS_SPLIT);
    assert_string_equal(s->seeds_split, "paper");
    assert_null(s->seeds_type);
    assert_false(ast_is_typed(s));
    ast_free(s);
}

static void hetero_words_remain_names(void **state)
{
    (void)state;
    ast_stmt *s = parse_ok("CREATE NODES in IN count COUNT 3");
    assert_string_equal(s->name, "in");
    assert_string_equal(s->graph, "count");
    ast_free(s);
    s = parse_ok("CREATE RELATION relation IN reverse FROM in TO count FROM "
                 "'e' WITH REVERSE AS reverse");
    assert_string_equal(s->name, "relation");
    assert_string_equal(s->graph, "reverse");
    assert_string_equal(s->src_type, "in");
    assert_string_equal(s->dst_type, "count");
    assert_string_equal(s->reverse_name, "reverse");
    ast_free(s);
    s = parse_ok("SAMPLE {relation: 2, reverse: 3} FROM count SEEDS in.count "
                 "FEATURES relation BATCH 4");
    assert_string_equal(s->rels[0][0].rel, "relation");
    assert_string_equal(s->graph, "count");
    assert_string_equal(s->seeds_type, "in");
    assert_string_equal(s->seeds_split, "count");
    assert_string_equal(s->features, "relation");
    ast_free(s);
    s = parse_ok("DESCRIBE relation.in");
    assert_string_equal(s->name, "relation");
    assert_string_equal(s->node_type, "in");
    ast_free(s);
}

static void hetero_errors(void **state)
{
    (void)state;
    expect_error("CREATE NODES paper IN mag COUNT 0", GNNDB_RANGE,
                 "line 1, column 33: COUNT 0 is out of range (at least 1 "
                 "node)");
    expect_error("CREATE NODES paper IN mag", GNNDB_SYNTAX,
                 "line 1, column 26: incomplete statement; expected COUNT");
    expect_error("CREATE NODES paper IN mag COUNT 99999999999999999999",
                 GNNDB_RANGE, "line 1, column 33: number too large: "
                 "'99999999999999999999'");
    expect_error("CREATE RELATION w IN g FROM a TO b FROM 'e' UNDIRECTED",
                 GNNDB_SYNTAX, "line 1, column 45: UNDIRECTED needs one node "
                 "type at both ends (FROM a TO b); give WITH REVERSE for a "
                 "relation back");
    expect_error("CREATE RELATION w IN g FROM a TO a FROM 'e' UNDIRECTED "
                 "WITH REVERSE", GNNDB_SYNTAX, "line 1, column 56: "
                 "UNDIRECTED and WITH REVERSE cannot be given together: "
                 "UNDIRECTED adds the reverse edges to the relation itself");
    expect_error("CREATE RELATION w IN g FROM a TO b FROM 'e' WITH REVERSE "
                 "AS w", GNNDB_SYNTAX, "line 1, column 45: WITH REVERSE AS "
                 "'w' names the relation itself; give the reverse its own "
                 "name");
    expect_error("CREATE RELATION w IN g FROM a TO b FROM 'e' WITH REVERSE "
                 "WITH REVERSE AS v", GNNDB_SYNTAX,
                 "line 1, column 58: WITH REVERSE given twice");
    expect_error("CREATE RELATION w IN g FROM a TO b FROM e", GNNDB_SYNTAX,
                 "near line 1, column 41: syntax error at 'e'; expected "
                 "string");
    expect_error("CREATE RELATION w IN g FROM 'e'", GNNDB_SYNTAX,
                 "near line 1, column 29: syntax error at 'e'; expected "
                 "name");
    expect_error("CREATE RELATION w IN g FROM a TO b FROM 'e' WITH "
                 "REPLACEMENT", GNNDB_SYNTAX, "near line 1, column 50: syntax "
                 "error at 'REPLACEMENT'; expected REVERSE");
    expect_error("CREATE RELATION w IN g FROM a TO b FROM 'e' MAP IDS",
                 GNNDB_SYNTAX, NULL);
    expect_error("DROP RELATION w", GNNDB_SYNTAX,
                 "line 1, column 16: incomplete statement; expected ON");
    expect_error("DROP RELATION w ON mag.paper", GNNDB_SYNTAX,
                 "near line 1, column 23: syntax error at '.'; expected ';'");
    expect_error("DESCRIBE mag.", GNNDB_SYNTAX,
                 "line 1, column 14: incomplete statement; expected name");
    expect_error("DESCRIBE mag.paper.x", GNNDB_SYNTAX,
                 "near line 1, column 19: syntax error at '.'; expected ';'");
    expect_error("DESCRIBE mag.5", GNNDB_SYNTAX,
                 "near line 1, column 13: syntax error at '.5'; expected one "
                 "of '.', ';'");
}

static void hetero_sample_errors(void **state)
{
    (void)state;
    expect_error("SAMPLE {cites: 10, writes: 5, cites: 2} FROM mag BATCH 4",
                 GNNDB_SYNTAX, "line 1, column 31: relation 'cites' is named "
                 "twice in hop 1");
    expect_error("SAMPLE [{a: 1}, {b: 2, b: 3}] FROM mag BATCH 4",
                 GNNDB_SYNTAX, "line 1, column 24: relation 'b' is named "
                 "twice in hop 2");
    expect_error("SAMPLE {} FROM mag BATCH 4", GNNDB_SYNTAX,
                 "line 1, column 9: hop 1 samples no relation: an empty map "
                 "{} is no hop; name its relations as {rel: fanout, ...}");
    expect_error("SAMPLE [{a: 1}, {}] FROM mag BATCH 4", GNNDB_SYNTAX,
                 "line 1, column 18: hop 2 samples no relation: an empty map "
                 "{} is no hop; name its relations as {rel: fanout, ...}");
    expect_error("SAMPLE {a: 1} * 9 FROM mag BATCH 4", GNNDB_RANGE,
                 "line 1, column 17: * 9 is out of range (1..8 hops)");
    expect_error("SAMPLE {a: 1} * 0 FROM mag BATCH 4", GNNDB_RANGE,
                 "line 1, column 17: * 0 is out of range (1..8 hops)");
    expect_error("SAMPLE {a: 0} FROM mag BATCH 4", GNNDB_RANGE,
                 "line 1, column 12: fanout 0 is out of range (1..1000, or "
                 "-1 for all neighbours)");
    expect_error("SAMPLE {a: 1001} FROM mag BATCH 4", GNNDB_RANGE,
                 "line 1, column 12: fanout 1001 is out of range (1..1000, or "
                 "-1 for all neighbours)");
    expect_error("SAMPLE [{a:1},{a:1},{a:1},{a:1},{a:1},{a:1},{a:1},{a:1},"
                 "{a:1}] FROM g BATCH 1", GNNDB_RANGE,
                 "line 1, column 57: too many hops: at most 8 relation maps");
    char sql[1024];
    size_t o = (size_t)snprintf(sql, sizeof sql, "SAMPLE {");
    for (int i = 0; i <= AST_MAX_RELS; i++)
        o += (size_t)snprintf(sql + o, sizeof sql - o, "%sr%d: 1",
                              i ? ", " : "", i);
    snprintf(sql + o, sizeof sql - o, "} FROM g BATCH 1");
    expect_error(sql, GNNDB_RANGE, "line 1, column 255: too many relations "
                 "in hop 1: at most 32");
    sql[o] = 0;  /* 32 relations parse */
    {
        char *cut = strrchr(sql, ',');
        snprintf(cut, sizeof sql - (size_t)(cut - sql), "} FROM g BATCH 1");
        ast_stmt *s = parse_ok(sql);
        assert_int_equal(s->n_rels[0], AST_MAX_RELS);
        ast_free(s);
    }
    expect_error("SAMPLE {a 1} FROM g BATCH 1", GNNDB_SYNTAX,
                 "near line 1, column 11: syntax error at '1'; expected ':'");
    expect_error("SAMPLE {a: 1} * 2, 3 FROM g BATCH 1", GNNDB_SYNTAX,
                 "near line 1, column 18: syntax error at ','; expected "
                 "FROM");
    expect_error("SAMPLE [{a: 1}] * 2 FROM g BATCH 1", GNNDB_SYNTAX,
                 "near line 1, column 17: syntax error at '*'; expected "
                 "FROM");
    expect_error("SAMPLE 10, {a: 1} FROM g BATCH 1", GNNDB_SYNTAX,
                 "near line 1, column 12: syntax error at '{'; expected "
                 "integer");
    expect_error("SAMPLE {a: 1} FROM g SEEDS paper.", GNNDB_SYNTAX,
                 "line 1, column 34: incomplete statement; expected one of "
                 "ALL, name");
    expect_error("SAMPLE {a: 1} FROM g SEEDS p.s SEEDS q.ALL BATCH 1",
                 GNNDB_SYNTAX, "line 1, column 32: SEEDS given twice");
    expect_error("SAMPLE {a: 1} FROM g SEEDS ALL.p BATCH 1", GNNDB_SYNTAX,
                 "near line 1, column 31: syntax error at '.'; expected one "
                 "of SEEDS, FEATURES, BATCH, HYPERBATCH, SHUFFLE, SEED, "
                 "EPOCHS, WITH, LIMIT, INTO, TO, PARTITION, AS, EDGE, EDGES, "
                 "NEGATIVE, STRICT, EXCLUDE, IN, AT, TEMPORAL, BEFORE, "
                 "WINDOW, BY, ';'");
    expect_error("SAMPLE {a: 1} FROM g SEEDS p.s", GNNDB_SYNTAX,
                 "line 1, column 1: SAMPLE needs a BATCH clause");
}

/* ---- random input ----------------------------------------------------- */

static uint64_t rng_next(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static const char *const corpus[] = {
    "CREATE GRAPH papers FROM 'edges.tsv' FORMAT tsv UNDIRECTED DROP "
    "DUPLICATES DROP SELF LOOPS MAP IDS NODES 10 REORDER bfs BLOCK SIZE 1MB;",
    "IMPORT FEATURES feat INTO papers FROM 'x.bin' FORMAT bin DIM 4 TYPE "
    "float32 STORE int8 BLOCK SIZE '64KB';",
    "IMPORT LABELS INTO papers FROM 'y.npy';",
    "CREATE SPLIT train ON papers FROM 'train_idx.npy';",
    "CREATE SPLIT r ON papers RANDOM 0.6 SEED 7;",
    "SHOW GRAPHS; DESCRIBE papers; DROP GRAPH papers; CHECK; CHECK g;",
    "DROP FEATURES t ON g; DROP SPLIT s ON g;",
    "PRAGMA memory_limit = '2GB'; PRAGMA io = uring; PRAGMA threads = 2; "
    "PRAGMA; PRAGMA strict = on; PRAGMA strict;",
    "EXPLAIN ANALYZE SAMPLE 10,10,-1 FROM papers SEEDS (1,2,3) FEATURES feat "
    "BATCH 1024 HYPERBATCH 8 SHUFFLE SEED 42 EPOCHS 2 WITH REPLACEMENT LIMIT "
    "10 INTO 'dir' TO DEVICE 'cuda:0';",
    "-- comment\n/* block */ SAMPLE 5 FROM g SEEDS ALL BATCH 1;",
    "SAMPLE 25,10 FROM g SEEDS train BATCH 64 TO DEVICE host",
    "CREATE GRAPH mag; CREATE NODES paper IN mag COUNT 10; CREATE RELATION "
    "cites IN mag FROM paper TO paper FROM 'c.csv' WITH REVERSE AS r;",
    "IMPORT FEATURES f INTO mag.paper FROM 'x.npy'; DESCRIBE mag.paper;",
    "SAMPLE [{cites: 10, writes: -1}, {cites: 5}] FROM mag SEEDS paper.train "
    "BATCH 8; SAMPLE {a: 1} * 3 FROM g SEEDS t.ALL BATCH 2;",
};

static const char *const snippets[] = {
    "'", "''", "/*", "*/", "--", "\n", ";", ",", "(", ")", "=", "-", "+", ".",
    "99999999999999999999999999", "-9223372036854775809", "1e999", "0", "-1",
    "SAMPLE", "BATCH", "SEEDS", "FROM", "EXPLAIN", "BLOCK SIZE", "KB", "\0",
    "\xff", "\xc3\xa9", " ", "1,1,1,1,1,1,1,1,1,1", "BATCH 1", "x",
    "{", "}", "[", "]", ":", "*", ".", "x.y", "{a: 1}", "* 9",
};

/* One mutated copy of a corpus entry (or random bytes) into buf. */
static size_t mutate(uint64_t *rng, char *buf, size_t cap)
{
    size_t n = 0;
    if (rng_next(rng) % 10 == 0) {
        n = rng_next(rng) % 200;
        for (size_t i = 0; i < n; i++) buf[i] = (char)(rng_next(rng) & 0xff);
        return n;
    }
    const char *src = corpus[rng_next(rng) % (sizeof corpus / sizeof *corpus)];
    n = strlen(src);
    memcpy(buf, src, n);
    int edits = 1 + (int)(rng_next(rng) % 6);
    for (int k = 0; k < edits; k++) {
        size_t at = n ? rng_next(rng) % (n + 1) : 0;
        switch (rng_next(rng) % 6) {
        case 0: /* flip a byte */
            if (at < n) buf[at] = (char)(rng_next(rng) & 0xff);
            break;
        case 1: /* delete a span */
            if (at < n) {
                size_t d = 1 + rng_next(rng) % 12;
                if (d > n - at) d = n - at;
                memmove(buf + at, buf + at + d, n - at - d);
                n -= d;
            }
            break;
        case 2: { /* insert a snippet */
            size_t which = rng_next(rng) % (sizeof snippets / sizeof *snippets);
            const char *sn = snippets[which];
            size_t sl = *sn ? strlen(sn) : 1; /* "\0" is one NUL byte */
            if (n + sl <= cap) {
                memmove(buf + at + sl, buf + at, n - at);
                memcpy(buf + at, sn, sl);
                n += sl;
            }
            break;
        }
        case 3: /* truncate */
            n = at;
            break;
        case 4: /* duplicate a span */
            if (at < n) {
                size_t d = 1 + rng_next(rng) % 20;
                if (d > n - at) d = n - at;
                if (n + d <= cap) {
                    memmove(buf + at + d, buf + at, n - at);
                    n += d;
                }
            }
            break;
        default: /* swap case of a letter */
            if (at < n && ((buf[at] | 0x20) >= 'a' && (buf[at] | 0x20) <= 'z'))
                buf[at] ^= 0x20;
            break;
        }
    }
    return n;
}

static void random_and_mutated_input_never_crashes(void **state)
{
    (void)state;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    char buf[4096];
    int ok = 0, errors = 0;
    for (int iter = 0; iter < 10000; iter++) {
        size_t n = mutate(&rng, buf, sizeof buf);
        /* an exact-size heap copy, so that a read past the end is caught */
        char *sql = malloc(n ? n : 1);
        assert_non_null(sql);
        memcpy(sql, buf, n);
        size_t off = 0;
        int guard = 0;
        while (off < n && guard++ < 1000) {
            ast_stmt *s = NULL;
            size_t used = 0;
            gnn_err e = {0};
            int rc = parse_statement(sql + off, n - off, 1, &s, &used, &e);
            assert_true(used <= n - off);
            if (rc == GNNDB_OK) {
                ok++;
                if (!s) {
                    assert_int_equal(used, n - off);
                } else {
                    assert_true(s->kind >= AST_CREATE_GRAPH &&
                                s->kind <= AST_LAST_KIND);
                    if (s->kind == AST_SAMPLE) {
                        assert_true(s->nhops >= 1 && s->nhops <= AST_MAX_HOPS);
                        assert_true(s->batch >= 1);
                        for (int h = 0; s->typed && h < s->nhops; h++)
                            assert_true(s->n_rels[h] >= 1 &&
                                        s->n_rels[h] <= AST_MAX_RELS);
                    }
                    ast_free(s);
                }
            } else {
                errors++;
                assert_null(s);
                if (rc != GNNDB_SYNTAX && rc != GNNDB_RANGE)
                    fail_msg("rc %d: %s", rc, e.msg);
                assert_int_equal(e.rc, rc);
                assert_true(e.msg[0] != 0);
                assert_true(strlen(e.msg) < sizeof e.msg);
            }
            if (used == 0) {
                assert_int_equal(off, n); /* no progress only at the end */
                break;
            }
            off += used;
        }
        free(sql);
    }
    assert_true(ok > 100);
    assert_true(errors > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_graph_takes_every_option_in_any_order),
        cmocka_unit_test(create_graph_defaults),
        cmocka_unit_test(import_features_and_labels),
        cmocka_unit_test(create_split_from_file_or_random),
        cmocka_unit_test(importers_options_and_import_ogb),
        cmocka_unit_test(catalog_statements),
        cmocka_unit_test(pragma_forms),
        cmocka_unit_test(sample_takes_every_clause_in_any_order),
        cmocka_unit_test(sample_defaults),
        cmocka_unit_test(sample_seed_forms),
        cmocka_unit_test(sample_partition),
        cmocka_unit_test(sample_hops_and_fanouts_at_the_limits),
        cmocka_unit_test(explain_and_explain_analyze),
        cmocka_unit_test(keywords_are_case_insensitive_names_are_not),
        cmocka_unit_test(comments_and_spaces_are_skipped),
        cmocka_unit_test(strings_unescape_doubled_quotes),
        cmocka_unit_test(several_statements_report_consumed),
        cmocka_unit_test(failed_statement_is_consumed_to_its_semicolon),
        cmocka_unit_test(typo_on_line_two_names_line_column_and_expected),
        cmocka_unit_test(incomplete_statement_names_what_was_expected),
        cmocka_unit_test(range_errors_name_the_value),
        cmocka_unit_test(block_size_must_be_a_power_of_two_from_4kb_to_16mb),
        cmocka_unit_test(huge_numbers_are_range_errors),
        cmocka_unit_test(duplicate_clause_is_an_error),
        cmocka_unit_test(sample_needs_a_batch_clause),
        cmocka_unit_test(propagate_forms_and_ranges),
        cmocka_unit_test(scan_takes_every_clause_in_any_order),
        cmocka_unit_test(unknown_option_words_list_the_choices),
        cmocka_unit_test(unterminated_string_or_comment),
        cmocka_unit_test(stray_bytes_are_syntax_errors),
        cmocka_unit_test(time_statements),
        cmocka_unit_test(time_errors),
        cmocka_unit_test(pack_statements),
        cmocka_unit_test(pack_errors),
        cmocka_unit_test(link_statements),
        cmocka_unit_test(link_errors),
        cmocka_unit_test(insert_edges_takes_the_file_options),
        cmocka_unit_test(insert_nodes_and_rows),
        cmocka_unit_test(show_and_drop_versions),
        cmocka_unit_test(compact_names_one_graph),
        cmocka_unit_test(compact_errors),
        cmocka_unit_test(sample_as_of_version),
        cmocka_unit_test(version_errors),
        cmocka_unit_test(hetero_graph_nodes_and_relations),
        cmocka_unit_test(hetero_qualified_names),
        cmocka_unit_test(hetero_typed_fanouts_and_seeds),
        cmocka_unit_test(hetero_words_remain_names),
        cmocka_unit_test(hetero_errors),
        cmocka_unit_test(hetero_sample_errors),
        cmocka_unit_test(keyword_table_lists_the_language),
        cmocka_unit_test(completion_offers_every_keyword_of_the_grammar),
        cmocka_unit_test(random_and_mutated_input_never_crashes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
