/* csv_lines.h — a streaming line reader for CSV inputs (csv_lines.c). */
#ifndef GNNDB_CSV_LINES_H
#define GNNDB_CSV_LINES_H

#include "err.h"
#include "gz.h"

#include <stddef.h>
#include <stdint.h>

/* Lines of a text file, plain or gzip (gz.c inflates it). */
typedef struct line_reader {
    gz_stream *gz;
    char *buf;
    size_t len, pos;
    int eof;
    uint64_t lineno;
    int started;          /* a line that is not blank or a comment was seen */
    int header;           /* ... and it was a header */
} line_reader;

/* Opens path (gzip or plain) for reading; the reader owns its 4 MiB line
** buffer until lr_close. */
int lr_open(line_reader *r, const char *path, gnn_err *e);
void lr_close(line_reader *r);

/* The next line, without its newline ('\r' stripped), into *line and *len
** (valid until the next call): 1, 0 at the end, or -1 after an error
** naming `name` and the line. */
int lr_next(line_reader *r, const char *name, char **line, size_t *len,
            gnn_err *e);

/* The next line of data: blank and comment (#, %) lines skipped, and a
** first line of names taken as a header; a header later is an error. 1, 0
** at the end, or -1 (words in *e). */
int lr_data(line_reader *r, const char *name, char **line, size_t *len,
            gnn_err *e);

/* A number token of n bytes: an int64 into *i when `integer`, else a
** double into *d. 0 on success, -1 when it is not one. */
int csv_parse_num(const char *t, size_t n, int integer, double *d,
                  int64_t *i);

#endif
