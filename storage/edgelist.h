/* edgelist.h — reading edge lists: text (TSV, CSV or whitespace separated,
** '#' and '%' comment lines, SNAP style) and binary (little-endian int64
** pairs). Errors name the file, line and column. */
#ifndef GNN_EDGELIST_H
#define GNN_EDGELIST_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"

#define EDGE_FMT_AUTO 0  /* by extension: .bin -> binary, else text */
#define EDGE_FMT_TSV  1
#define EDGE_FMT_CSV  2
#define EDGE_FMT_BIN  3

typedef struct edge_reader edge_reader;

int edge_open(const char *path, int format, edge_reader **out, gnn_err *e);
/* Next edge: returns 1 with *src,*dst set, 0 at end of file, or a negative
** value after an error (its code and words in *e, e.g.
** "edges.tsv:1234:7: expected an integer node id, found 'x12'"). */
int edge_next(edge_reader *r, int64_t *src, int64_t *dst, gnn_err *e);
uint64_t edge_lineno(const edge_reader *r);     /* line of the last edge */
uint64_t edge_bytes_done(const edge_reader *r);
uint64_t edge_bytes_total(const edge_reader *r);
void edge_close(edge_reader *r);

/* Parse one text line (no newline) of `format` (TSV, CSV or whitespace).
** Returns 1 with an edge, 0 for a blank or comment line, or a negative value
** with words naming path:lineno:column. Pure; fuzzable. */
int edge_parse_line(const char *line, size_t len, int format,
                    int64_t *src, int64_t *dst, const char *path,
                    uint64_t lineno, gnn_err *e);

#endif
