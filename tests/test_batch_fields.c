/* test_batch_fields.c — gnndb_batch_field hands out the list of a batch
** view's arrays (common/batch_fields.c) as it is: names, members where the
** pointers lie, element types, and shapes named by the view's counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "gnndb.h"
#include "batch_fields.h"

/* The view's members by name, written here apart from the list so that a
** name the list reports is checked against the struct itself. */
typedef struct member { const char *name; size_t off; } member;
#define M(field) {#field, offsetof(gnndb_batch_view, field)}
static const member pointers[] = {
    M(n_id), M(num_sampled_nodes), M(num_sampled_edges), M(edge_index),
    M(x), M(y), M(e_id), M(edge_attr), M(edge_label_index), M(edge_label),
    M(src_index), M(dst_pos_index), M(dst_neg_index), M(node_seed),
    M(time), M(edge_time),
};
static const member counts[] = {   /* every one an int64_t */
    M(num_seeds), M(num_nodes), M(num_edges), M(x_dim), M(edge_attr_dim),
    M(num_label_edges), M(num_pos), M(num_neg),
};
#undef M
#define N(a) (sizeof (a) / sizeof (a)[0])

static const member *find(const member *m, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(m[i].name, name) == 0) return &m[i];
    return NULL;
}

/* A count's value in v by the name gnndb_batch_field gives it. */
static int64_t count_named(const gnndb_batch_view *v, const char *name)
{
    if (strcmp(name, "1") == 0 || strcmp(name, "2") == 0) return atoi(name);
    const member *m = find(counts, N(counts), name);
    assert_non_null(m);
    int64_t c;
    memcpy(&c, (const char *)v + m->off, sizeof c);
    return c;
}

static void reports_every_field_of_the_list_in_its_order(void **state)
{
    for (int i = 0; i < BF_NFIELDS; i++) {
        const bf_field *f = &bf_fields[i];
        const char *name, *mem;
        int is_float, optional;
        assert_int_equal(gnndb_batch_field(i, &name, &mem, &is_float,
                                           &optional, NULL, NULL), GNNDB_OK);
        assert_string_equal(name, f->name);
        assert_string_equal(mem, f->member);
        assert_int_equal(is_float, f->is_float);
        assert_int_equal(optional, !f->always);
    }
}

static void is_out_of_range_before_the_first_and_past_the_last(void **state)
{
    const char *name = "untouched";
    int is_float = 7;
    assert_int_equal(gnndb_batch_field(BF_NFIELDS, &name, NULL, &is_float,
                                       NULL, NULL, NULL), GNNDB_RANGE);
    assert_int_equal(gnndb_batch_field(-1, &name, NULL, &is_float, NULL,
                                       NULL, NULL), GNNDB_RANGE);
    assert_string_equal(name, "untouched");
    assert_int_equal(is_float, 7);
    assert_int_equal(gnndb_batch_field(0, NULL, NULL, NULL, NULL, NULL,
                                       NULL), GNNDB_OK);
}

static void names_the_member_where_each_pointer_lies(void **state)
{
    for (int i = 0; i < BF_NFIELDS; i++) {
        const char *mem;
        gnndb_batch_field(i, NULL, &mem, NULL, NULL, NULL, NULL);
        const member *m = find(pointers, N(pointers), mem);
        assert_non_null(m);
        assert_int_equal(m->off, bf_fields[i].off);
    }
}

static void names_each_shape_by_the_counts_it_is_made_of(void **state)
{
    gnndb_batch_view v;
    memset(&v, 0, sizeof v);
    for (size_t k = 0; k < N(counts); k++) {   /* each count its own value */
        int64_t c = 100 + (int64_t)k;
        memcpy((char *)&v + counts[k].off, &c, sizeof c);
    }
    for (int i = 0; i < BF_NFIELDS; i++) {
        const bf_field *f = &bf_fields[i];
        const char *d0, *d1;
        gnndb_batch_field(i, NULL, NULL, NULL, NULL, &d0, &d1);
        assert_int_equal(count_named(&v, d0), bf_count_of(&v, f->d0));
        if (f->ndim == 1) {
            assert_null(d1);
        } else {
            assert_non_null(d1);
            assert_int_equal(count_named(&v, d1), bf_count_of(&v, f->d1));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reports_every_field_of_the_list_in_its_order),
        cmocka_unit_test(is_out_of_range_before_the_first_and_past_the_last),
        cmocka_unit_test(names_the_member_where_each_pointer_lies),
        cmocka_unit_test(names_each_shape_by_the_counts_it_is_made_of),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
