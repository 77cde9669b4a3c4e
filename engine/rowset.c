/* rowset.c — building and freeing row results. */
#include "rowset.h"
#include "gnndb.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rowset *rs_new(int ncol, const char *const *names)
{
    rowset *rs = calloc(1, sizeof *rs);
    if (!rs) return NULL;
    rs->ncol = ncol;
    rs->names = calloc((size_t)ncol, sizeof(char *));
    if (!rs->names) { free(rs); return NULL; }
    for (int i = 0; i < ncol; i++) {
        rs->names[i] = strdup(names[i]);
        if (!rs->names[i]) { rs_free(rs); return NULL; }
    }
    rs->building_col = ncol;
    return rs;
}

void rs_free(rowset *rs)
{
    if (!rs) return;
    for (size_t i = 0; i < rs->nrows * (size_t)rs->ncol; i++)
        free(rs->cells[i].text);
    free(rs->cells);
    for (int i = 0; i < rs->ncol; i++) free(rs->names[i]);
    free(rs->names);
    free(rs);
}

int rs_row(rowset *rs)
{
    if (rs->nrows == rs->cap) {
        size_t cap = rs->cap ? rs->cap * 2 : 16;
        rs_value *c = realloc(rs->cells, cap * (size_t)rs->ncol * sizeof *c);
        if (!c) return -1;
        rs->cells = c;
        rs->cap = cap;
    }
    memset(&rs->cells[rs->nrows * (size_t)rs->ncol], 0,
           (size_t)rs->ncol * sizeof(rs_value));
    for (int i = 0; i < rs->ncol; i++)
        rs->cells[rs->nrows * (size_t)rs->ncol + (size_t)i].type = GNNDB_NULL;
    rs->nrows++;
    rs->building_col = 0;
    return 0;
}

static rs_value *next_cell(rowset *rs)
{
    if (rs->nrows == 0 || rs->building_col >= rs->ncol) return NULL;
    return rs_cell(rs, rs->nrows - 1, rs->building_col++);
}

int rs_int(rowset *rs, int64_t v)
{
    rs_value *c = next_cell(rs);
    if (!c) return -1;
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    c->type = GNNDB_INTEGER;
    c->i = v;
    c->d = (double)v;
    c->text = strdup(buf);
    return c->text ? 0 : -1;
}

int rs_float(rowset *rs, double v)
{
    rs_value *c = next_cell(rs);
    if (!c) return -1;
    char buf[64];
    snprintf(buf, sizeof buf, "%.6g", v);
    c->type = GNNDB_FLOAT;
    c->d = v;
    c->i = (int64_t)v;
    c->text = strdup(buf);
    return c->text ? 0 : -1;
}

static int put_text(rs_value *c, const char *s)
{
    if (!s) { c->type = GNNDB_NULL; return 0; }
    char *t = strdup(s);
    if (!t) return -1;
    free(c->text);
    c->type = GNNDB_TEXT;
    c->text = t;
    c->i = strtoll(s, NULL, 10);
    c->d = strtod(s, NULL);
    return 0;
}

int rs_text(rowset *rs, const char *s)
{
    rs_value *c = next_cell(rs);
    return c ? put_text(c, s) : -1;
}

int rs_set_text(rowset *rs, size_t row, int col, const char *s)
{
    return put_text(rs_cell(rs, row, col), s);
}

int rs_textf(rowset *rs, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return rs_text(rs, buf);
}

int rs_null(rowset *rs)
{
    return next_cell(rs) ? 0 : -1;
}

int rs_prop_int(rowset *rs, const char *prop, int64_t v)
{
    if (rs_row(rs) || rs_text(rs, prop)) return -1;
    return rs_int(rs, v);
}

int rs_prop_text(rowset *rs, const char *prop, const char *v)
{
    if (rs_row(rs) || rs_text(rs, prop)) return -1;
    return rs_text(rs, v);
}

int rs_step(const rowset *rs, size_t *row)
{
    if (rs && *row < rs->nrows) {
        (*row)++;
        return GNNDB_ROW;
    }
    return GNNDB_DONE;
}
