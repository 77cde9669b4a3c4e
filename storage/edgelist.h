/* edgelist.h — reading edge lists: text (TSV, CSV or whitespace separated,
** '#' and '%' comment lines, SNAP style, an optional header line naming the
** columns, gzip-compressed or not) and binary (little-endian int64 pairs).
** Errors name the file, line and column. */
#ifndef GNN_EDGELIST_H
#define GNN_EDGELIST_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"

#define EDGE_FMT_AUTO 0  /* by extension: .bin -> binary, else text */
#define EDGE_FMT_TSV  1
#define EDGE_FMT_CSV  2
#define EDGE_FMT_BIN  3

#define EDGE_HEADER_AUTO 0 /* a first line whose chosen fields are names */
#define EDGE_HEADER_YES  1 /* the first line is a header */
#define EDGE_HEADER_NO   2 /* every line is data */

#define EDGE_COLS_FIRST 0  /* the first two fields: source, target */
#define EDGE_COLS_POS   1  /* fields col[0], col[1] (0-based) */
#define EDGE_COLS_NAME  2  /* the fields the header names col_name[0], [1] */

#define EDGE_NAME_MAX 64

/* How to read a text edge list; zeroed: by extension, header detected, the
** first two fields. */
typedef struct edge_opts {
    int format;                          /* EDGE_FMT_* */
    int header;                          /* EDGE_HEADER_* */
    int columns;                         /* EDGE_COLS_* */
    int col[3];                          /* [2]: the time field ... */
    char col_name[3][EDGE_NAME_MAX];
    int with_time;   /* ... of a third column (text only): edge_last_time() */
    const char *key;        /* .npz member of an edge array (2 x E or E x 2) */
    const char *tmpdir;     /* where an inflated member is kept (NULL: /tmp) */
} edge_opts;

typedef struct edge_reader edge_reader;

/* Open an edge list (plain or gzip: a name ending in .gz, or gzip's magic
** bytes; the format is chosen by the name without .gz), or an integer array
** of edges in a .npy or an .npz member: shape (2, E), as PyG's and OGB's
** edge_index, or (E, 2). */
int edge_open_opts(const char *path, const edge_opts *o, edge_reader **out,
                   gnn_err *e);
/* The same with every line data and the first two fields. */
int edge_open(const char *path, int format, edge_reader **out, gnn_err *e);
/* Next edge: returns 1 with *src,*dst set, 0 at end of file, or a negative
** value after an error (its code and words in *e, e.g.
** "edges.tsv:1234:7: expected an integer node id, found 'x12'"). */
int edge_next(edge_reader *r, int64_t *src, int64_t *dst, gnn_err *e);
/* With opts.with_time: the int64 time field of the edge edge_next gave
** last (its words on a bad value: "t.csv:12:9: expected an integer time,
** found '3.5'"). */
int64_t edge_last_time(const edge_reader *r);
uint64_t edge_lineno(const edge_reader *r);     /* line of the last edge */
int edge_had_header(const edge_reader *r);      /* a header line was read */
uint64_t edge_bytes_done(const edge_reader *r);
uint64_t edge_bytes_total(const edge_reader *r);
void edge_close(edge_reader *r);

/* Is the line a header: are fields col[0] and col[1] (0-based) present and
** names (they start with a letter, '_' or a quote)? Pure; fuzzable. */
int edge_is_header_line(const char *line, size_t len, int format,
                        const int col[2]);

/* Parse one text line (no newline) of `format` (TSV, CSV or whitespace).
** Returns 1 with an edge, 0 for a blank or comment line, or a negative value
** with words naming path:lineno:column. Pure; fuzzable. */
int edge_parse_line(const char *line, size_t len, int format,
                    int64_t *src, int64_t *dst, const char *path,
                    uint64_t lineno, gnn_err *e);
/* The same for fields sel[0] (source), sel[1] (target) and, when nsel is
** 3, sel[2] (a time), into v[0..nsel). Pure; fuzzable. */
int edge_parse_fields(const char *line, size_t len, int format,
                      const int *sel, int nsel, int64_t *v, const char *path,
                      uint64_t lineno, gnn_err *e);

#endif
