/* query_rows.c — run statements and print their result rows through the
** column accessors of gnndb's C API.
**
**   query_rows [-readonly] DB 'SHOW GRAPHS; DESCRIBE cora; PRAGMA threads;'
**
** Every statement of the text is compiled in turn with gnndb_prepare (its
** `tail` argument points past the statement just compiled) and stepped. Each
** row prints as `name=value` pairs separated by tabs, values shown by their
** type: integers with gnndb_column_int64, floats with gnndb_column_double,
** text with gnndb_column_text, NULL as NULL. A SAMPLE prints its one summary
** row per mini-batch (epoch, batch, seeds, nodes, edges, feature_bytes,
** digest). Stops at the first error; exit status 0 or 1. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <gnndb.h>

static void print_row(gnndb_stmt *st)
{
    int n = gnndb_column_count(st);
    for (int i = 0; i < n; i++) {
        /* names and text are owned by the statement: valid until the next
        ** step or finalize, so copy them to keep them longer */
        printf("%s%s=", i ? "\t" : "", gnndb_column_name(st, i));
        switch (gnndb_column_type(st, i)) {
        case GNNDB_INTEGER:
            printf("%" PRId64, gnndb_column_int64(st, i));
            break;
        case GNNDB_FLOAT:
            printf("%.17g", gnndb_column_double(st, i));
            break;
        case GNNDB_TEXT:
            printf("%s", gnndb_column_text(st, i));
            break;
        default:
            printf("NULL");
        }
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    int flags = GNNDB_OPEN_READWRITE | GNNDB_OPEN_CREATE;
    int a = 1;
    if (a < argc && strcmp(argv[a], "-readonly") == 0) {
        flags = GNNDB_OPEN_READONLY;
        a++;
    }
    if (argc - a != 2) {
        fprintf(stderr, "usage: %s [-readonly] DB 'STATEMENTS'\n", argv[0]);
        return 2;
    }
    gnndb *db = NULL;
    int rc = gnndb_open(argv[a], &db, flags);
    if (rc != GNNDB_OK) {
        fprintf(stderr, "%s: %s\n", argv[a], gnndb_errmsg(db));
        gnndb_close(db);
        return 1;
    }

    const char *sql = argv[a + 1];
    int status = 0;
    while (*sql && status == 0) {
        gnndb_stmt *st = NULL;
        const char *tail = NULL;
        rc = gnndb_prepare(db, sql, -1, &st, &tail);
        if (rc != GNNDB_OK) {
            /* GNNDB_SYNTAX names the line and column; GNNDB_NOTFOUND the
            ** unknown graph, table or split */
            fprintf(stderr, "%s\n", gnndb_errmsg(db));
            status = 1;
            break;
        }
        sql = tail;
        if (st == NULL) continue;   /* only whitespace or comments left */

        int rows = 0;
        while ((rc = gnndb_step(st)) == GNNDB_ROW || rc == GNNDB_BATCH) {
            if (rows++ == 0) printf("-- %s\n", gnndb_sql(st));
            print_row(st);
        }
        if (rc != GNNDB_DONE) {
            /* e.g. GNNDB_BUSY: another process is writing; GNNDB_READONLY:
            ** a write on a -readonly handle */
            fprintf(stderr, "%s: %s\n", gnndb_errstr(rc), gnndb_errmsg(db));
            status = 1;
        }
        gnndb_finalize(st);
    }
    gnndb_close(db);
    return status;
}
