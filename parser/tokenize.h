/* tokenize.h — the tokenizer's interface inside the parser: one token at a
** time, with its text and its line and column, in the TK_* codes that lemon
** writes into grammar.h. */
#ifndef GNN_TOKENIZE_H
#define GNN_TOKENIZE_H

#include <stddef.h>
#include "err.h"

/* One token: its code, its text in the caller's buffer (not NUL-terminated;
** a string keeps its quotes) and where it starts (1-based). The end of input
** has code 0, empty text, and the place just past the last token. */
typedef struct gtok {
    int type;
    const char *z;
    size_t n;
    int line, col;
} gtok;

/* A cursor over sql[0..len). Columns count characters (UTF-8 continuation
** bytes do not advance them). */
typedef struct lexer {
    const char *z;
    size_t len, pos;
    int line, col;          /* of z[pos] */
    int end_line, end_col;  /* just past the last token returned */
} lexer;

void lex_init(lexer *lx, const char *sql, size_t len, int base_line);

/* The next token into *t, skipping spaces and comments: TK_SEMI for ';',
** code 0 at the end of input. Returns GNNDB_OK, or GNNDB_SYNTAX for an
** unterminated string or comment or a character outside the language (the
** cursor is then left at the end of input). */
int lex_next(lexer *lx, gtok *t, gnn_err *e);

/* How an error message names token code `type` when it is expected:
** keywords in capitals, "name", "integer", "','", ... Static storage. */
const char *tok_expected_name(int type);

/* The token's text for an error message, quoted as 'text': at most about 40
** characters, bytes outside printable ASCII written as \xHH. Returns buf. */
char *tok_quote(const gtok *t, char *buf, size_t size);

#endif
