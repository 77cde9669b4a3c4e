/* tokenize.c — bytes to tokens: keywords, names, numbers, strings,
** punctuation; spaces and comments skipped; line and column tracked. */
#include "tokenize.h"
#include "parse.h"
#include "grammar.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The reserved words: each is its own token and cannot be used as a name. */
#define KEYWORDS(X) \
    X(ALL) X(ANALYZE) X(BATCH) X(BLOCK) X(CHECK) X(CREATE) X(DESCRIBE) \
    X(DEVICE) X(DIM) X(DROP) X(DUPLICATES) X(EPOCH) X(EPOCHS) X(EXPLAIN) \
    X(FEATURES) X(FORMAT) X(FROM) X(GRAPH) X(GRAPHS) X(HYPERBATCH) X(IDS) \
    X(IMPORT) X(INTO) X(LABELS) X(LIMIT) X(LOOPS) X(MAP) X(NODES) X(OF) X(ON) \
    X(PACK) X(PARTITION) X(PRAGMA) X(RANDOM) X(REORDER) X(REPLACEMENT) \
    X(SAMPLE) X(SCAN) X(SEED) X(SEEDS) X(SELF) X(SHOW) X(SHUFFLE) X(SIZE) \
    X(SPLIT) X(STORE) X(TO) X(TYPE) X(UNDIRECTED) X(WITH) \
    X(PROPAGATE) X(OVER) X(HOPS) X(NORMALIZE) X(CHUNK) \
    X(HEADER) X(COLUMNS) X(KEY) X(OGB) X(AS) \
    X(EDGE) X(EDGES) X(WITHOUT) X(NEGATIVE) X(PAIRS) X(TRIPLET) X(STRICT) \
    X(EXCLUDE) X(SPLITS) \
    X(RELATION) X(COUNT) X(REVERSE) X(IN) \
    X(GATHER) X(ROWS) X(ORDER) X(REPLACE) \
    X(TIMES) X(TIME) X(NODE) X(AT) X(TEMPORAL) X(UNIFORM) X(LAST) X(BEFORE) \
    X(OR) X(WINDOW) X(BY) \
    X(INSERT) X(VERSION) X(VERSIONS) X(COMPACT)

#define KW_ENTRY(k) {#k, sizeof #k - 1, TK_##k},
static const struct keyword {
    const char *text;
    size_t len;
    int code;
} keywords[] = { KEYWORDS(KW_ENTRY) };
#define NKEYWORDS (sizeof keywords / sizeof keywords[0])

/* For tab completion: the reserved words, then the words that are names to
** the grammar but have a fixed meaning after FORMAT, REORDER, TYPE, STORE
** and BLOCK SIZE n. */
#define KW_TEXT(k) #k,
const char *const parse_keywords[] = {
    KEYWORDS(KW_TEXT)
    "TSV", "CSV", "BIN", "NPY", "NONE", "DEGREE", "BFS", "FLOAT32",
    "FLOAT64", "FLOAT16", "INT64", "INT8", "KB", "MB", "SYM", "ROW",
    NULL
};

#define NWORDS (sizeof parse_keywords / sizeof parse_keywords[0] - 1)

int gnnParseFallsBack(int major);   /* the generated grammar.c */

const char *parse_keyword(int i, int *reserved)
{
    if (i < 0 || (size_t)i >= NWORDS) return NULL;
    if (reserved)
        *reserved = (size_t)i < NKEYWORDS &&
                    !gnnParseFallsBack(keywords[i].code);
    return parse_keywords[i];
}

void lex_init(lexer *lx, const char *sql, size_t len, int base_line)
{
    lx->z = sql;
    lx->len = len;
    lx->pos = 0;
    lx->line = lx->end_line = base_line;
    lx->col = lx->end_col = 1;
}

/* Move the cursor n bytes on, counting lines and characters. */
static void advance(lexer *lx, size_t n)
{
    for (; n > 0 && lx->pos < lx->len; n--) {
        unsigned char c = (unsigned char)lx->z[lx->pos++];
        if (c == '\n') {
            lx->line++;
            lx->col = 1;
        } else if ((c & 0xC0) != 0x80) {
            lx->col++;
        }
    }
}

static int peek(const lexer *lx, size_t k)
{
    return lx->pos + k < lx->len ? (unsigned char)lx->z[lx->pos + k] : -1;
}

static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Fail at (line, col) and leave the cursor at the end: the rest of the input
** cannot be tokenized with confidence. */
static int lex_fail(lexer *lx, int line, int col, const char *what,
                    gnn_err *e)
{
    lx->pos = lx->len;
    return gnn_seterr(e, GNNDB_SYNTAX, "line %d, column %d: %s", line, col,
                      what);
}

/* Skip spaces and comments. */
static int skip_space(lexer *lx, gnn_err *e)
{
    for (;;) {
        int c = peek(lx, 0);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
            c == '\v') {
            advance(lx, 1);
        } else if (c == '-' && peek(lx, 1) == '-') {
            while (lx->pos < lx->len && lx->z[lx->pos] != '\n') advance(lx, 1);
        } else if (c == '/' && peek(lx, 1) == '*') {
            int line = lx->line, col = lx->col;
            advance(lx, 2);
            for (;;) {
                if (lx->pos + 1 >= lx->len)
                    return lex_fail(lx, line, col, "unterminated comment", e);
                if (lx->z[lx->pos] == '*' && lx->z[lx->pos + 1] == '/') break;
                advance(lx, 1);
            }
            advance(lx, 2);
        } else {
            return GNNDB_OK;
        }
    }
}

/* Length of the number at the cursor: [+-]digits[.digits][e[+-]digits],
** or [+-].digits...; *is_float tells whether a fraction or exponent came. */
static size_t number_len(const lexer *lx, int *is_float)
{
    size_t k = 0;
    *is_float = 0;
    if (peek(lx, 0) == '+' || peek(lx, 0) == '-') k++;
    while (is_digit(peek(lx, k))) k++;
    if (peek(lx, k) == '.' && is_digit(peek(lx, k + 1))) {
        *is_float = 1;
        k++;
        while (is_digit(peek(lx, k))) k++;
    }
    if (peek(lx, k) == 'e' || peek(lx, k) == 'E') {
        size_t j = k + 1;
        if (peek(lx, j) == '+' || peek(lx, j) == '-') j++;
        if (is_digit(peek(lx, j))) {
            *is_float = 1;
            while (is_digit(peek(lx, j))) j++;
            k = j;
        }
    }
    return k;
}

static int starts_number(const lexer *lx)
{
    int c = peek(lx, 0), k = 0;
    if (c == '+' || c == '-') c = peek(lx, ++k);
    if (is_digit(c)) return 1;
    return c == '.' && is_digit(peek(lx, (size_t)k + 1));
}

int lex_next(lexer *lx, gtok *t, gnn_err *e)
{
    int rc = skip_space(lx, e);
    if (rc) return rc;
    t->z = lx->z + lx->pos;
    t->line = lx->line;
    t->col = lx->col;
    t->n = 0;
    if (lx->pos >= lx->len) {
        t->type = 0;
        t->line = lx->end_line;
        t->col = lx->end_col;
        return GNNDB_OK;
    }
    int c = peek(lx, 0);
    size_t n = 1;
    switch (c) {
    case ';': t->type = TK_SEMI; break;
    case ',': t->type = TK_COMMA; break;
    case '(': t->type = TK_LP; break;
    case ')': t->type = TK_RP; break;
    case '=': t->type = TK_EQ; break;
    case '{': t->type = TK_LBRACE; break;
    case '}': t->type = TK_RBRACE; break;
    case '[': t->type = TK_LBRACKET; break;
    case ']': t->type = TK_RBRACKET; break;
    case ':': t->type = TK_COLON; break;
    case '*': t->type = TK_STAR; break;
    case '\'':
        for (;;) {
            int d = peek(lx, n);
            if (d < 0)
                return lex_fail(lx, t->line, t->col, "unterminated string", e);
            if (d == 0)
                return lex_fail(lx, t->line, t->col, "NUL byte in string", e);
            n++;
            if (d == '\'') {
                if (peek(lx, n) != '\'') break;
                n++;  /* '' is one quote */
            }
        }
        t->type = TK_STRING;
        break;
    default:
        if (starts_number(lx)) {
            int is_float;
            n = number_len(lx, &is_float);
            t->type = is_float ? TK_FLOAT : TK_INTEGER;
        } else if (c == '.') {
            t->type = TK_DOT;  /* not before a digit (.5): graph.type */
        } else if (is_alpha(c)) {
            while (is_alpha(peek(lx, n)) || is_digit(peek(lx, n))) n++;
            t->type = TK_ID;
            for (size_t i = 0; i < NKEYWORDS; i++)
                if (keywords[i].len == n &&
                    strncasecmp(keywords[i].text, t->z, n) == 0) {
                    t->type = keywords[i].code;
                    break;
                }
        } else {
            char q[16];
            gtok one = {TK_ILLEGAL, t->z, 1, t->line, t->col};
            char what[48];
            snprintf(what, sizeof what, "unexpected character %s",
                     tok_quote(&one, q, sizeof q));
            return lex_fail(lx, t->line, t->col, what, e);
        }
    }
    t->n = n;
    advance(lx, n);
    lx->end_line = lx->line;
    lx->end_col = lx->col;
    return GNNDB_OK;
}

const char *tok_expected_name(int type)
{
    for (size_t i = 0; i < NKEYWORDS; i++)
        if (keywords[i].code == type) return keywords[i].text;
    switch (type) {
    case 0:
    case TK_SEMI: return "';'";
    case TK_ID: return "name";
    case TK_INTEGER: return "integer";
    case TK_FLOAT: return "number";
    case TK_STRING: return "string";
    case TK_COMMA: return "','";
    case TK_LP: return "'('";
    case TK_RP: return "')'";
    case TK_EQ: return "'='";
    case TK_DOT: return "'.'";
    case TK_LBRACE: return "'{'";
    case TK_RBRACE: return "'}'";
    case TK_LBRACKET: return "'['";
    case TK_RBRACKET: return "']'";
    case TK_COLON: return "':'";
    case TK_STAR: return "'*'";
    default: return "?";
    }
}

char *tok_quote(const gtok *t, char *buf, size_t size)
{
    size_t o = 0, max = 40;
    if (size < 8) {
        if (size) buf[0] = 0;
        return buf;
    }
    int quoted = t->type == TK_STRING;  /* keeps its own quotes */
    if (!quoted) buf[o++] = '\'';
    for (size_t i = 0; i < t->n && i < max; i++) {
        unsigned char c = (unsigned char)t->z[i];
        if (o + 8 >= size) break;
        if (c >= 0x20 && c < 0x7f) buf[o++] = (char)c;
        else o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
    }
    if (t->n > max && o + 5 < size) {
        memcpy(buf + o, "...", 3);
        o += 3;
        if (quoted) buf[o++] = '\'';
    }
    if (!quoted && o + 1 < size) buf[o++] = '\'';
    buf[o] = 0;
    return buf;
}
