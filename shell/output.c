/* output.c — printing a statement's rows in the current output mode: table
** (aligned, buffered to size the columns), list, csv (RFC 4180), json (as
** sqlite3 -json prints it) and line; errors, and the counters of .stats. */
#include "shell.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const mode_names[] = {"table", "list", "csv", "json",
                                         "line", NULL};

int shell_mode_parse(const char *name)
{
    for (int i = 0; mode_names[i]; i++)
        if (!strcmp(name, mode_names[i])) return i;
    return -1;
}

const char *shell_mode_name(int mode) { return mode_names[mode]; }

int shell_headers_on(const shell *sh)
{
    return sh->headers >= 0 ? sh->headers : sh->mode == SHELL_TABLE;
}

/* Characters on screen: UTF-8 continuation bytes take no column. */
int shell_utf8_width(const char *s)
{
    int w = 0;
    for (; *s; s++) w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static int is_number_type(int t) { return t == GNNDB_INTEGER || t == GNNDB_FLOAT; }

void shell_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (c < 0x20) fprintf(f, "\\u%04x", c);
            else fputc(c, f);
        }
    }
    fputc('"', f);
}

/* 1 when `s` is a number in JSON's grammar. */
static int json_number_ok(const char *s)
{
    if (*s == '-') s++;
    if (*s == '0') s++;
    else if (*s >= '1' && *s <= '9') while (*s >= '0' && *s <= '9') s++;
    else return 0;
    if (*s == '.') {
        s++;
        if (!(*s >= '0' && *s <= '9')) return 0;
        while (*s >= '0' && *s <= '9') s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-') s++;
        if (!(*s >= '0' && *s <= '9')) return 0;
        while (*s >= '0' && *s <= '9') s++;
    }
    return *s == 0;
}

static void json_value(FILE *f, gnndb_stmt *st, int i)
{
    int t = gnndb_column_type(st, i);
    const char *s = gnndb_column_text(st, i);
    if (t == GNNDB_NULL) {
        fputs("null", f);
    } else if (t == GNNDB_INTEGER) {
        fprintf(f, "%" PRId64, gnndb_column_int64(st, i));
    } else if (t == GNNDB_FLOAT) {
        double d = gnndb_column_double(st, i);
        if (s && json_number_ok(s)) fputs(s, f);
        else if (isfinite(d)) fprintf(f, "%.17g", d);
        else fputs("null", f);
    } else {
        shell_json_string(f, s ? s : "");
    }
}

/* CSV per RFC 4180: a field with a comma, quote, CR or LF (or leading or
** trailing blanks, which readers may trim) is quoted, quotes doubled. */
static void csv_field(FILE *f, const char *s)
{
    size_t n = strlen(s);
    int quote = strpbrk(s, ",\"\r\n") != NULL ||
                (n && (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' ||
                       s[n - 1] == '\t'));
    if (!quote) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void free_result(shell_result *r)
{
    for (int i = 0; i < r->ncol; i++) free(r->names[i]);
    for (int i = 0; i < r->nbuf * r->ncol; i++) free(r->buf[i].text);
    free(r->names);
    free(r->width);
    free(r->numeric);
    free(r->buf);
    memset(r, 0, sizeof *r);
}

void shell_result_begin(shell *sh, gnndb_stmt *st)
{
    shell_result *r = &sh->res;
    free_result(r);
    r->ncol = gnndb_column_count(st);
    if (r->ncol < 0) r->ncol = 0;
    r->names = shell_xmalloc(sizeof *r->names * (size_t)(r->ncol + 1));
    for (int i = 0; i < r->ncol; i++) {
        const char *n = gnndb_column_name(st, i);
        r->names[i] = shell_xstrdup(n ? n : "");
    }
    if (sh->mode == SHELL_TABLE) {
        size_t nc = (size_t)r->ncol + 1, nb = SHELL_TABLE_BUFFER * nc;
        r->width = shell_xmalloc(nc * sizeof *r->width);
        r->numeric = shell_xmalloc(nc * sizeof *r->numeric);
        r->buf = shell_xmalloc(nb * sizeof *r->buf);
        memset(r->buf, 0, nb * sizeof *r->buf);
        for (int i = 0; i < r->ncol; i++) {
            r->width[i] = shell_headers_on(sh) ? shell_utf8_width(r->names[i]) : 1;
            r->numeric[i] = -1; /* unknown until a value is seen */
        }
    }
}

static void table_rule(shell *sh)
{
    shell_result *r = &sh->res;
    for (int i = 0; i < r->ncol; i++) {
        fputc('+', sh->out);
        for (int k = 0; k < r->width[i] + 2; k++) fputc('-', sh->out);
    }
    fputs("+\n", sh->out);
}

static void table_line(shell *sh, const char *const *text, int right_ok)
{
    shell_result *r = &sh->res;
    for (int i = 0; i < r->ncol; i++) {
        const char *s = text[i] ? text[i] : "";
        int pad = r->width[i] - shell_utf8_width(s);
        if (pad < 0) pad = 0;
        if (right_ok && r->numeric[i] == 1)
            fprintf(sh->out, "| %*s%s ", pad, "", s);
        else
            fprintf(sh->out, "| %s%*s ", s, pad, "");
    }
    fputs("|\n", sh->out);
}

static void table_row_cells(shell *sh, const shell_cell *c)
{
    shell_result *r = &sh->res;
    const char *text[r->ncol + 1];
    for (int i = 0; i < r->ncol; i++) text[i] = c[i].text;
    table_line(sh, text, 1);
}

/* Fix the column widths from the buffered rows, print the header and them. */
static void table_flush(shell *sh)
{
    shell_result *r = &sh->res;
    table_rule(sh);
    if (shell_headers_on(sh)) {
        table_line(sh, (const char *const *)r->names, 0);
        table_rule(sh);
    }
    for (int k = 0; k < r->nbuf; k++) {
        table_row_cells(sh, r->buf + (size_t)k * r->ncol);
        for (int i = 0; i < r->ncol; i++) {
            free(r->buf[(size_t)k * r->ncol + i].text);
            r->buf[(size_t)k * r->ncol + i].text = NULL;
        }
    }
    r->nbuf = 0;
    r->header_done = 1;
}

/* A copy of `s` for a table cell: control characters would break the
** alignment, so they are shown escaped (\n, \t, ...). */
static char *table_text(const char *s)
{
    char *t = shell_xmalloc(4 * strlen(s) + 1), *o = t;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != 0x7f) {
            *o++ = (char)c;
            continue;
        }
        *o++ = '\\';
        switch (c) {
        case '\n': *o++ = 'n'; break;
        case '\t': *o++ = 't'; break;
        case '\r': *o++ = 'r'; break;
        default: o += sprintf(o, "x%02x", c);
        }
    }
    *o = 0;
    return t;
}

static void table_row(shell *sh, gnndb_stmt *st)
{
    shell_result *r = &sh->res;
    shell_cell *c = r->buf + (size_t)r->nbuf * r->ncol;
    for (int i = 0; i < r->ncol; i++) {
        const char *s = gnndb_column_text(st, i);
        c[i].type = gnndb_column_type(st, i);
        c[i].text = s ? table_text(s) : NULL;
        if (!r->header_done) {
            int w = c[i].text ? shell_utf8_width(c[i].text) : 0;
            if (w > r->width[i]) r->width[i] = w;
            if (c[i].type != GNNDB_NULL)
                r->numeric[i] = r->numeric[i] != 0 && is_number_type(c[i].type);
        }
    }
    if (r->header_done) {
        table_row_cells(sh, c);
        for (int i = 0; i < r->ncol; i++) {
            free(c[i].text);
            c[i].text = NULL;
        }
        return;
    }
    if (++r->nbuf == SHELL_TABLE_BUFFER) table_flush(sh);
}

void shell_result_row(shell *sh, gnndb_stmt *st)
{
    shell_result *r = &sh->res;
    FILE *f = sh->out;
    /* rows and the bar share the terminal: rows above, the bar below */
    int bar = sh->progress.shown && sh->out_tty;
    if (bar) shell_progress_clear(sh);
    switch (sh->mode) {
    case SHELL_TABLE:
        table_row(sh, st);
        break;
    case SHELL_LIST:
    case SHELL_CSV: {
        int csv = sh->mode == SHELL_CSV;
        const char *sep = csv ? "," : sh->sep;
        if (r->nrows == 0 && shell_headers_on(sh)) {
            for (int i = 0; i < r->ncol; i++) {
                if (i) fputs(sep, f);
                if (csv) csv_field(f, r->names[i]);
                else fputs(r->names[i], f);
            }
            fputc('\n', f);
        }
        for (int i = 0; i < r->ncol; i++) {
            const char *s = gnndb_column_text(st, i);
            if (i) fputs(sep, f);
            if (!s) continue;
            if (csv) csv_field(f, s);
            else fputs(s, f);
        }
        fputc('\n', f);
        break;
    }
    case SHELL_JSON:
        fputs(r->nrows == 0 ? "[{" : ",\n{", f);
        for (int i = 0; i < r->ncol; i++) {
            if (i) fputc(',', f);
            shell_json_string(f, r->names[i]);
            fputc(':', f);
            json_value(f, st, i);
        }
        fputc('}', f);
        break;
    case SHELL_LINE: {
        int w = 0;
        for (int i = 0; i < r->ncol; i++) {
            int k = shell_utf8_width(r->names[i]);
            if (k > w) w = k;
        }
        if (r->nrows) fputc('\n', f);
        for (int i = 0; i < r->ncol; i++) {
            const char *s = gnndb_column_text(st, i);
            int pad = w - shell_utf8_width(r->names[i]);
            fprintf(f, "%*s%s = %s\n", pad, "", r->names[i], s ? s : "");
        }
        break;
    }
    }
    r->nrows++;
    if (sh->out_tty) fflush(f);
    if (bar) shell_progress_redraw(sh);
}

void shell_result_end(shell *sh)
{
    shell_result *r = &sh->res;
    if (sh->mode == SHELL_TABLE) {
        if (!r->header_done) table_flush(sh);
        table_rule(sh);
    } else if (sh->mode == SHELL_JSON && r->nrows) {
        fputs("]\n", sh->out);
    }
    free_result(r);
}

void shell_error(shell *sh, const char *src, int line, const char *fmt, ...)
{
    shell_progress_clear(sh);
    fflush(sh->out);
    if (src) fprintf(stderr, "%s:%d: ", src, line);
    fputs("Error: ", stderr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    sh->nerrors++;
}

static void put_size(FILE *f, int64_t v)
{
    fprintf(f, "%" PRId64, v);
    if (v >= 1024) {
        const char *u[] = {"KiB", "MiB", "GiB", "TiB"};
        double x = (double)v / 1024;
        int i = 0;
        while (x >= 1024 && i < 3) x /= 1024, i++;
        fprintf(f, " (%.1f %s)", x, u[i]);
    }
}

void shell_print_stats(shell *sh, FILE *f)
{
    static const struct { int op; const char *name; } rows[] = {
        {GNNDB_STATUS_BLOCKS_READ, "blocks read"},
        {GNNDB_STATUS_BYTES_READ, "bytes read"},
        {GNNDB_STATUS_CACHE_HITS, "cache hits"},
        {GNNDB_STATUS_CACHE_MISSES, "cache misses"},
        {GNNDB_STATUS_BATCHES, "batches"},
        {GNNDB_STATUS_EDGES, "edges"},
        {GNNDB_STATUS_HYPERBATCH, "hyperbatch"},
        {GNNDB_STATUS_SEED, "seed"},
    };
    if (!sh->has_status) {
        fputs("no statement has run yet\n", f);
        return;
    }
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int64_t v = sh->last_status[rows[i].op];
        fprintf(f, "%-14s", rows[i].name);
        if (v < 0 && rows[i].op != GNNDB_STATUS_SEED) fputs("-", f);
        else if (rows[i].op == GNNDB_STATUS_BYTES_READ) put_size(f, v);
        else fprintf(f, "%" PRId64, v);
        if (rows[i].op == GNNDB_STATUS_SEED &&
            sh->last_status[GNNDB_STATUS_SEED_DRAWN] == 1)
            fputs(" (drawn)", f);
        fputc('\n', f);
    }
}
