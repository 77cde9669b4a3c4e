/* rowset.h — the rows a non-SAMPLE statement returns, built in full before
** the first step (they are small: catalog listings, plans, pragmas). */
#ifndef GNN_ROWSET_H
#define GNN_ROWSET_H

#include <stddef.h>
#include <stdint.h>

typedef struct rs_value {
    int type;      /* GNNDB_INTEGER, GNNDB_FLOAT, GNNDB_TEXT, GNNDB_NULL */
    int64_t i;
    double d;
    char *text;    /* always set (the text form), NULL for GNNDB_NULL */
} rs_value;

typedef struct rowset {
    int ncol;
    char **names;
    size_t nrows, cap;
    rs_value *cells;   /* nrows * ncol */
    int building_col;  /* next column of the row being added */
} rowset;

/* A rowset of ncol columns named by the NULL-terminated list. NULL on OOM. */
rowset *rs_new(int ncol, const char *const *names);
void rs_free(rowset *rs);
/* Start a new row, then add its cells left to right. Return 0, -1 on OOM. */
int rs_row(rowset *rs);
int rs_int(rowset *rs, int64_t v);
int rs_float(rowset *rs, double v);
int rs_text(rowset *rs, const char *s);
int rs_textf(rowset *rs, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int rs_null(rowset *rs);
/* Set the text of a cell already added (replacing what it held). */
int rs_set_text(rowset *rs, size_t row, int col, const char *s);
/* A (property, value) row: the shape of DESCRIBE. */
int rs_prop_int(rowset *rs, const char *prop, int64_t v);
int rs_prop_text(rowset *rs, const char *prop, const char *v);

/* A statement's step through rs (NULL: none): *row, 1-based, to the next
** row and GNNDB_ROW, or GNNDB_DONE after the last. */
int rs_step(const rowset *rs, size_t *row);

static inline rs_value *rs_cell(rowset *rs, size_t row, int col)
{
    return &rs->cells[row * (size_t)rs->ncol + (size_t)col];
}

#endif
