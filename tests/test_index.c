/* test_index.c — the LMDB index: block ranges, chunked arrays, node keys,
** split members, dropping and listing tokens, and opening bad files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "index.h"
#include "util.h"

#define TOK_A 0x1111222233334444ull
#define TOK_B 0x1111222233334445ull /* adjacent to A on purpose */
#define TOK_C 0xfedcba9876543210ull

typedef struct fixture {
    char *dir;
    char path[1024];
    idx_env *env;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f) return -1;
    f->dir = tu_tmpdir("test_index");
    if (!f->dir) { free(f); return -1; }
    snprintf(f->path, sizeof f->path, "%s/index.mdb", f->dir);
    gnn_err e = {0};
    if (idx_open(f->path, 0, &f->env, &e) != GNNDB_OK) {
        fprintf(stderr, "idx_open: %s\n", e.msg);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    idx_close(f->env);
    tu_rmrf(f->dir);
    free(f->dir);
    free(f);
    return 0;
}

static idx_txn *begin(fixture *f, int write)
{
    idx_txn *t = NULL;
    gnn_err e = {0};
    assert_int_equal(idx_begin(f->env, write, &t, &e), GNNDB_OK);
    assert_non_null(t);
    return t;
}

static void commit(idx_txn *t)
{
    gnn_err e = {0};
    assert_int_equal(idx_commit(t, &e), GNNDB_OK);
}

static uint64_t find(idx_txn *t, uint64_t token, uint64_t node, int *rc)
{
    uint64_t b = 0xdeadbeef;
    gnn_err e = {0};
    *rc = idx_find_block(t, token, node, &b, &e);
    return b;
}

/* ---- block index --------------------------------------------------------- */

static void test_find_block_uses_greatest_first_node_at_or_below(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    idx_txn *t = begin(f, 1);
    /* token A: blocks start at nodes 0, 100, 250, 1000 */
    const uint64_t first[] = { 0, 100, 250, 1000 };
    for (int i = 0; i < 4; i++)
        assert_int_equal(idx_put_block(t, TOK_A, first[i], (uint64_t)i, &e), 0);
    /* token B starts later and has other block numbers */
    assert_int_equal(idx_put_block(t, TOK_B, 50, 7, &e), 0);
    assert_int_equal(idx_put_block(t, TOK_B, 5000, 8, &e), 0);
    commit(t);

    t = begin(f, 0);
    int rc;
    assert_int_equal(find(t, TOK_A, 0, &rc), 0);   assert_int_equal(rc, 0);
    assert_int_equal(find(t, TOK_A, 99, &rc), 0);  assert_int_equal(rc, 0);
    assert_int_equal(find(t, TOK_A, 100, &rc), 1); assert_int_equal(rc, 0);
    assert_int_equal(find(t, TOK_A, 101, &rc), 1); assert_int_equal(rc, 0);
    assert_int_equal(find(t, TOK_A, 249, &rc), 1); assert_int_equal(rc, 0);
    assert_int_equal(find(t, TOK_A, 250, &rc), 2); assert_int_equal(rc, 0);
    assert_int_equal(find(t, TOK_A, 999, &rc), 2); assert_int_equal(rc, 0);
    /* past the last entry: the last block, never one of token B */
    assert_int_equal(find(t, TOK_A, 1000, &rc), 3); assert_int_equal(rc, 0);
    assert_int_equal(find(t, TOK_A, 1u << 30, &rc), 3); assert_int_equal(rc, 0);
    assert_int_equal(find(t, TOK_A, UINT64_MAX, &rc), 3);
    assert_int_equal(rc, 0);

    /* before the first entry of B: nothing, not A's last block */
    find(t, TOK_B, 0, &rc);
    assert_int_equal(rc, GNNDB_NOTFOUND);
    find(t, TOK_B, 49, &rc);
    assert_int_equal(rc, GNNDB_NOTFOUND);
    assert_int_equal(find(t, TOK_B, 50, &rc), 7);   assert_int_equal(rc, 0);
    assert_int_equal(find(t, TOK_B, 4999, &rc), 7); assert_int_equal(rc, 0);
    assert_int_equal(find(t, TOK_B, 9999, &rc), 8); assert_int_equal(rc, 0);
    /* a token with no entries at all, after every other key */
    find(t, TOK_C, 10, &rc);
    assert_int_equal(rc, GNNDB_NOTFOUND);
    find(t, 1, 10, &rc);
    assert_int_equal(rc, GNNDB_NOTFOUND);
    idx_abort(t);
}

static void test_load_blocks_returns_entries_in_node_order(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    idx_txn *t = begin(f, 1);
    /* inserted out of order, with first nodes beyond 2^32 and 2^56 so that a
    ** little-endian key would sort them wrongly */
    const uint64_t first[] = { 1ull << 56, 5, 1ull << 32, 0, 256 };
    for (int i = 0; i < 5; i++)
        assert_int_equal(idx_put_block(t, TOK_B, first[i], 100 + (uint64_t)i, &e), 0);
    assert_int_equal(idx_put_block(t, TOK_A, 3, 1, &e), 0);
    commit(t);

    t = begin(f, 0);
    uint64_t *fn, *bn;
    size_t n;
    assert_int_equal(idx_load_blocks(t, TOK_B, &fn, &bn, &n, &e), 0);
    assert_int_equal(n, 5);
    const uint64_t want_f[] = { 0, 5, 256, 1ull << 32, 1ull << 56 };
    const uint64_t want_b[] = { 103, 101, 104, 102, 100 };
    for (int i = 0; i < 5; i++) {
        assert_int_equal(fn[i], want_f[i]);
        assert_int_equal(bn[i], want_b[i]);
    }
    free(fn);
    free(bn);
    assert_int_equal(idx_load_blocks(t, TOK_C, &fn, &bn, &n, &e), 0);
    assert_int_equal(n, 0);
    free(fn);
    free(bn);
    idx_abort(t);
}

/* ---- arrays -------------------------------------------------------------- */

static int64_t val(uint64_t i) { return (int64_t)(i * 2654435761u) - 77; }

static void test_array_round_trip_across_chunks(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    const uint64_t sizes[] = { 1, IDX_CHUNK - 1, IDX_CHUNK, IDX_CHUNK + 1,
                               3 * IDX_CHUNK + 17 };
    for (int s = 0; s < 5; s++) {
        uint64_t n = sizes[s], token = TOK_A + (uint64_t)s;
        int64_t *v = malloc(n * sizeof *v);
        for (uint64_t i = 0; i < n; i++) v[i] = val(i) + s;
        idx_txn *t = begin(f, 1);
        assert_int_equal(idx_put_array(t, 'I', token, v, n, &e), 0);
        /* an 'R' array under the same token must not collide */
        for (uint64_t i = 0; i < n; i++) v[i] = -(int64_t)i;
        assert_int_equal(idx_put_array(t, 'R', token, v, n, &e), 0);
        commit(t);

        t = begin(f, 0);
        int64_t *got;
        assert_int_equal(idx_load_array(t, 'I', token, n, &got, &e), 0);
        for (uint64_t i = 0; i < n; i++) assert_int_equal(got[i], val(i) + s);
        free(got);
        assert_int_equal(idx_load_array(t, 'R', token, n, &got, &e), 0);
        for (uint64_t i = 0; i < n; i++) assert_int_equal(got[i], -(int64_t)i);
        free(got);
        /* more values than were stored: the chunk is missing or short */
        assert_int_equal(idx_load_array(t, 'I', token, n + IDX_CHUNK, &got, &e),
                         GNNDB_CORRUPT);
        assert_null(got);
        idx_abort(t);
        free(v);
    }
}

static void test_map_array_scattered_and_clustered_ids(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    uint64_t n = 5 * IDX_CHUNK + 123;
    int64_t *v = malloc(n * sizeof *v);
    for (uint64_t i = 0; i < n; i++) v[i] = val(i);
    idx_txn *t = begin(f, 1);
    assert_int_equal(idx_put_array(t, 'I', TOK_B, v, n, &e), 0);
    commit(t);

    enum { M = 3000 };
    uint64_t ids[M];
    int64_t out[M];
    uint64_t s = 12345;
    for (int i = 0; i < M; i++) {
        if (i < M / 2) { /* scattered */
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            ids[i] = (s >> 33) % n;
        } else { /* clustered runs */
            ids[i] = (uint64_t)(i - M / 2) * 3 % n;
        }
    }
    ids[0] = 0;
    ids[1] = n - 1;
    ids[2] = IDX_CHUNK - 1;
    ids[3] = IDX_CHUNK;
    t = begin(f, 0);
    assert_int_equal(idx_map_array(t, 'I', TOK_B, ids, M, out, &e), 0);
    for (int i = 0; i < M; i++) assert_int_equal(out[i], val(ids[i]));
    /* the cached chunk must not leak into another token or tag */
    uint64_t one = 5;
    int64_t o = 0;
    assert_int_equal(idx_map_array(t, 'I', TOK_A, &one, 1, &o, &e),
                     GNNDB_CORRUPT);
    assert_non_null(strstr(e.msg, "index.mdb"));
    assert_int_equal(idx_map_array(t, 'R', TOK_B, &one, 1, &o, &e),
                     GNNDB_CORRUPT);
    /* an id past the end of the last chunk */
    uint64_t past = n;
    assert_int_equal(idx_map_array(t, 'I', TOK_B, &past, 1, &o, &e),
                     GNNDB_CORRUPT);
    idx_abort(t);
    free(v);
}

static void test_map_array_sees_rewrites_in_the_same_txn(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    int64_t a[10], b[10];
    for (int i = 0; i < 10; i++) { a[i] = i; b[i] = 100 + i; }
    idx_txn *t = begin(f, 1);
    assert_int_equal(idx_put_array(t, 'R', TOK_A, a, 10, &e), 0);
    uint64_t id = 4;
    int64_t o;
    assert_int_equal(idx_map_array(t, 'R', TOK_A, &id, 1, &o, &e), 0);
    assert_int_equal(o, 4);
    assert_int_equal(idx_put_array(t, 'R', TOK_A, b, 10, &e), 0);
    assert_int_equal(idx_map_array(t, 'R', TOK_A, &id, 1, &o, &e), 0);
    assert_int_equal(o, 104);
    commit(t);
}

static void test_array_rewritten_shorter_loses_old_chunks(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    uint64_t n = 3 * IDX_CHUNK;
    int64_t *v = calloc(n, sizeof *v);
    idx_txn *t = begin(f, 1);
    assert_int_equal(idx_put_array(t, 'I', TOK_A, v, n, &e), 0);
    assert_int_equal(idx_put_array(t, 'I', TOK_A, v, 10, &e), 0);
    commit(t);
    t = begin(f, 0);
    uint64_t id = IDX_CHUNK + 1;
    int64_t o;
    assert_int_equal(idx_map_array(t, 'I', TOK_A, &id, 1, &o, &e),
                     GNNDB_CORRUPT);
    idx_abort(t);
    free(v);
}

static void test_array_rejects_unknown_tag(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    int64_t v = 1;
    idx_txn *t = begin(f, 1);
    assert_int_equal(idx_put_array(t, 'S', TOK_A, &v, 1, &e), GNNDB_MISUSE);
    idx_abort(t);
}

/* ---- keys ---------------------------------------------------------------- */

static void test_keys_including_negative_and_extreme(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    const int64_t keys[] = { 0, 1, -1, 42, -42, INT64_MIN, INT64_MAX,
                             (int64_t)1 << 40, -((int64_t)1 << 40) };
    const int nk = (int)(sizeof keys / sizeof keys[0]);
    idx_txn *t = begin(f, 1);
    for (int i = 0; i < nk; i++)
        assert_int_equal(idx_put_key(t, TOK_A, keys[i], 1000 + (uint64_t)i, &e), 0);
    /* the same keys under B map elsewhere */
    for (int i = 0; i < nk; i++)
        assert_int_equal(idx_put_key(t, TOK_B, keys[i], 5, &e), 0);
    commit(t);

    t = begin(f, 0);
    for (int i = 0; i < nk; i++) {
        uint64_t in = 0;
        assert_int_equal(idx_get_key(t, TOK_A, keys[i], &in, &e), 0);
        assert_int_equal(in, 1000 + (uint64_t)i);
        assert_int_equal(idx_get_key(t, TOK_B, keys[i], &in, &e), 0);
        assert_int_equal(in, 5);
    }
    uint64_t in = 77;
    gnn_err e2 = {0};
    assert_int_equal(idx_get_key(t, TOK_A, 43, &in, &e2), GNNDB_NOTFOUND);
    assert_int_equal(idx_get_key(t, TOK_A, -2, &in, &e2), GNNDB_NOTFOUND);
    assert_int_equal(idx_get_key(t, TOK_C, 0, &in, &e2), GNNDB_NOTFOUND);
    assert_int_equal(e2.rc, GNNDB_OK); /* no message for a plain miss */
    idx_abort(t);
}

/* ---- splits -------------------------------------------------------------- */

static void test_split_round_trip(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    const uint64_t sizes[] = { 0, 1, IDX_CHUNK, 2 * IDX_CHUNK + 5 };
    for (int s = 0; s < 4; s++) {
        uint64_t n = sizes[s], token = TOK_C - (uint64_t)s;
        uint32_t *m = malloc((n + 1) * sizeof *m);
        for (uint64_t i = 0; i < n; i++) m[i] = (uint32_t)(i * 3 + 1);
        idx_txn *t = begin(f, 1);
        assert_int_equal(idx_put_split(t, token, m, n, &e), 0);
        commit(t);
        t = begin(f, 0);
        uint32_t *got;
        uint64_t gn;
        assert_int_equal(idx_load_split(t, token, &got, &gn, &e), 0);
        assert_int_equal(gn, n);
        assert_non_null(got);
        if (n) assert_memory_equal(got, m, n * sizeof *m);
        free(got);
        idx_abort(t);
        free(m);
    }
    /* rewriting a split with fewer members */
    uint32_t few[3] = { 9, 10, 11 };
    idx_txn *t = begin(f, 1);
    assert_int_equal(idx_put_split(t, TOK_C - 3, few, 3, &e), 0);
    commit(t);
    t = begin(f, 0);
    uint32_t *got;
    uint64_t gn;
    assert_int_equal(idx_load_split(t, TOK_C - 3, &got, &gn, &e), 0);
    assert_int_equal(gn, 3);
    assert_memory_equal(got, few, sizeof few);
    free(got);
    idx_abort(t);
}

/* ---- drop and tokens ----------------------------------------------------- */

static void fill_token(fixture *f, uint64_t token)
{
    gnn_err e = {0};
    uint64_t n = IDX_CHUNK + 3;
    int64_t *v = calloc(n, sizeof *v);
    uint32_t m[4] = { 1, 2, 3, 4 };
    idx_txn *t = begin(f, 1);
    assert_int_equal(idx_put_block(t, token, 0, 0, &e), 0);
    assert_int_equal(idx_put_block(t, token, 10, 1, &e), 0);
    assert_int_equal(idx_put_array(t, 'I', token, v, n, &e), 0);
    assert_int_equal(idx_put_array(t, 'R', token, v, n, &e), 0);
    assert_int_equal(idx_put_key(t, token, -5, 1, &e), 0);
    assert_int_equal(idx_put_key(t, token, 5, 2, &e), 0);
    assert_int_equal(idx_put_split(t, token, m, 4, &e), 0);
    commit(t);
    free(v);
}

static void test_drop_removes_only_that_token(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    fill_token(f, TOK_A);
    fill_token(f, TOK_B);
    fill_token(f, TOK_C);
    idx_txn *t = begin(f, 1);
    assert_int_equal(idx_drop(t, TOK_B, &e), 0);
    commit(t);

    t = begin(f, 0);
    int rc;
    find(t, TOK_B, 5, &rc);
    assert_int_equal(rc, GNNDB_NOTFOUND);
    uint64_t in, id = 0;
    int64_t o;
    assert_int_equal(idx_get_key(t, TOK_B, 5, &in, &e), GNNDB_NOTFOUND);
    assert_int_equal(idx_map_array(t, 'I', TOK_B, &id, 1, &o, &e), GNNDB_CORRUPT);
    uint32_t *m;
    uint64_t n;
    assert_int_equal(idx_load_split(t, TOK_B, &m, &n, &e), 0);
    assert_int_equal(n, 0);
    free(m);
    /* the neighbours on both sides are intact */
    uint64_t toks[2] = { TOK_A, TOK_C };
    for (int i = 0; i < 2; i++) {
        assert_int_equal(find(t, toks[i], 11, &rc), 1);
        assert_int_equal(rc, 0);
        assert_int_equal(idx_get_key(t, toks[i], -5, &in, &e), 0);
        assert_int_equal(in, 1);
        id = IDX_CHUNK + 2;
        assert_int_equal(idx_map_array(t, 'R', toks[i], &id, 1, &o, &e), 0);
        assert_int_equal(idx_load_split(t, toks[i], &m, &n, &e), 0);
        assert_int_equal(n, 4);
        free(m);
    }
    uint64_t *tk;
    size_t nt;
    assert_int_equal(idx_tokens(t, &tk, &nt, &e), 0);
    assert_int_equal(nt, 2);
    assert_int_equal(tk[0], TOK_A);
    assert_int_equal(tk[1], TOK_C);
    free(tk);
    idx_abort(t);
}

static void test_tokens_lists_each_token_once(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    idx_txn *t = begin(f, 0);
    uint64_t *tk;
    size_t nt;
    assert_int_equal(idx_tokens(t, &tk, &nt, &e), 0);
    assert_int_equal(nt, 0);
    free(tk);
    idx_abort(t);

    t = begin(f, 1);
    uint32_t m = 1;
    int64_t v = 1;
    /* tokens present under different tags, and the extremes */
    assert_int_equal(idx_put_split(t, TOK_C, &m, 1, &e), 0);
    assert_int_equal(idx_put_block(t, TOK_A, 0, 0, &e), 0);
    assert_int_equal(idx_put_block(t, TOK_A, 9, 1, &e), 0);
    assert_int_equal(idx_put_key(t, TOK_A, 3, 0, &e), 0);
    assert_int_equal(idx_put_array(t, 'R', TOK_B, &v, 1, &e), 0);
    assert_int_equal(idx_put_key(t, UINT64_MAX, 3, 0, &e), 0);
    assert_int_equal(idx_put_key(t, 0, 3, 0, &e), 0);
    assert_int_equal(idx_put_block(t, UINT64_MAX, 3, 0, &e), 0);
    commit(t);

    t = begin(f, 0);
    assert_int_equal(idx_tokens(t, &tk, &nt, &e), 0);
    assert_int_equal(nt, 5);
    const uint64_t want[] = { 0, TOK_A, TOK_B, TOK_C, UINT64_MAX };
    for (int i = 0; i < 5; i++) assert_int_equal(tk[i], want[i]);
    free(tk);
    idx_abort(t);
}

static void test_write_in_read_txn_is_misuse(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    idx_txn *t = begin(f, 0);
    assert_int_equal(idx_put_block(t, TOK_A, 0, 0, &e), GNNDB_MISUSE);
    assert_int_equal(idx_drop(t, TOK_A, &e), GNNDB_MISUSE);
    idx_abort(t);
    idx_abort(NULL);
}

static void test_data_survives_reopen_readonly(void **state)
{
    fixture *f = *state;
    gnn_err e = {0};
    fill_token(f, TOK_A);
    idx_close(f->env);
    f->env = NULL;
    assert_int_equal(idx_open(f->path, 1, &f->env, &e), 0);
    idx_txn *t = begin(f, 0);
    int rc;
    assert_int_equal(find(t, TOK_A, 10, &rc), 1);
    assert_int_equal(rc, 0);
    idx_abort(t);
    idx_txn *w = NULL;
    assert_int_equal(idx_begin(f->env, 1, &w, &e), GNNDB_READONLY);
    assert_null(w);
    assert_non_null(strstr(e.msg, f->path));
}

/* ---- opening bad files --------------------------------------------------- */

static void test_readonly_open_of_missing_file_fails(void **state)
{
    fixture *f = *state;
    char p[1100];
    snprintf(p, sizeof p, "%s/nothere.mdb", f->dir);
    idx_env *env = (idx_env *)1;
    gnn_err e = {0};
    assert_int_equal(idx_open(p, 1, &env, &e), GNNDB_CANTOPEN);
    assert_null(env);
    assert_non_null(strstr(e.msg, p));
    /* and it was not created */
    assert_null(tu_read_file(p, NULL));
}

static void check_garbage(fixture *f, const void *data, size_t len)
{
    char p[1100];
    snprintf(p, sizeof p, "%s/bad/index.mdb", f->dir);
    char d[1100];
    snprintf(d, sizeof d, "%s/bad", f->dir);
    tu_rmrf(d);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", d);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(tu_write_file(p, data, len), 0);
    for (int ro = 0; ro < 2; ro++) {
        idx_env *env = NULL;
        gnn_err e = {0};
        int rc = idx_open(p, ro, &env, &e);
        assert_true(rc == GNNDB_CORRUPT || rc == GNNDB_CANTOPEN);
        assert_null(env);
        assert_non_null(strstr(e.msg, "index.mdb"));
    }
}

static void test_garbage_file_is_corrupt_not_a_crash(void **state)
{
    fixture *f = *state;
    size_t len = 64 * 1024;
    unsigned char *g = malloc(len);
    uint64_t s = 99;
    for (size_t i = 0; i < len; i++) {
        s = s * 6364136223846793005ull + 1;
        g[i] = (unsigned char)(s >> 56);
    }
    check_garbage(f, g, len);
    check_garbage(f, "not an lmdb file\n", 17);
    memset(g, 0, len);
    check_garbage(f, g, len);
    free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
        T(test_find_block_uses_greatest_first_node_at_or_below),
        T(test_load_blocks_returns_entries_in_node_order),
        T(test_array_round_trip_across_chunks),
        T(test_map_array_scattered_and_clustered_ids),
        T(test_map_array_sees_rewrites_in_the_same_txn),
        T(test_array_rewritten_shorter_loses_old_chunks),
        T(test_array_rejects_unknown_tag),
        T(test_keys_including_negative_and_extreme),
        T(test_split_round_trip),
        T(test_drop_removes_only_that_token),
        T(test_tokens_lists_each_token_once),
        T(test_write_in_read_txn_is_misuse),
        T(test_data_survives_reopen_readonly),
        T(test_readonly_open_of_missing_file_fails),
        T(test_garbage_file_is_corrupt_not_a_crash),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
