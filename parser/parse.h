/* parse.h — from text to one ast_stmt: the tokenizer feeds the lemon
** grammar (grammar.y) token by token. */
#ifndef GNN_PARSE_H
#define GNN_PARSE_H

#include <stddef.h>
#include "ast.h"
#include "err.h"

/* Parse the first statement of sql[0..len). On success *out is the statement
** (the caller frees it with ast_free) or NULL when only whitespace, comments
** and empty statements remain; *consumed is the number of bytes used up to
** and including its ';' (or the end). A statement need not end with ';' when
** it is the last. On failure returns GNNDB_SYNTAX (or GNNDB_RANGE for an
** out-of-range number) with words like
**   "near line 2, column 14: syntax error at 'BATCHES'; expected BATCH"
** Keywords are case-insensitive; "--" and block comments are skipped.
** On failure *out is NULL and *consumed reaches just past the ';' that ends
** the failed statement (or the end), so that a caller may go on after it.
** `base_line` is the line number of sql[0] (for statements after the first). */
int parse_statement(const char *sql, size_t len, int base_line,
                    ast_stmt **out, size_t *consumed, gnn_err *e);

/* Every keyword of the language, NULL-terminated (for tab completion). */
extern const char *const parse_keywords[];
/* The i-th of them (gnndb_keyword), or NULL past the last; *reserved, when
** not NULL, is 1 for a word that cannot name an object. */
const char *parse_keyword(int i, int *reserved);

#endif
