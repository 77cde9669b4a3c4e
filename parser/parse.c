/* parse.c — parse_statement: feeds the tokenizer's tokens to the lemon
** parser (grammar.y) until the statement's ';' or the end of the input. */
#include "parse.h"
#include "build.h"
#include "grammar.h"

#include <stdlib.h>

/* The lemon parser (grammar.c); lemon writes no header for these. */
void *gnnParseAlloc(void *(*alloc)(size_t));
void gnnParse(void *parser, int major, gtok minor, parse_ctx *ctx);
void gnnParseFree(void *parser, void (*dealloc)(void *));
/* 1 when the parser can take token `major` now, else a syntax error naming
** the tokens it could take (grammar.y). */
int gnnParseCheck(void *parser, int major, const gtok *t, parse_ctx *ctx);

/* After an error at token `last`: the offset just past the ';' that ends the
** failed statement (or the end), so that a caller can go on after it. */
static size_t skip_statement(lexer *lx, const gtok *last)
{
    gtok t = *last;
    gnn_err scratch = {0};
    while (t.type != TK_SEMI && t.type != 0)
        if (lex_next(lx, &t, &scratch)) break;
    return lx->pos;
}

int parse_statement(const char *sql, size_t len, int base_line,
                    ast_stmt **out, size_t *consumed, gnn_err *e)
{
    size_t used_scratch;
    lexer lx;
    gtok t;
    int rc;

    if (!consumed) consumed = &used_scratch;
    *consumed = 0;
    if (!out) return gnn_seterr(e, GNNDB_MISUSE, "parse_statement: NULL out");
    *out = NULL;
    if (!sql) len = 0;
    lex_init(&lx, sql ? sql : "", len, base_line);

    /* skip empty statements: ";;" */
    do {
        if ((rc = lex_next(&lx, &t, e))) {
            *consumed = lx.pos;
            return rc;
        }
    } while (t.type == TK_SEMI);
    if (t.type == 0) {
        *consumed = lx.pos;
        return GNNDB_OK;
    }

    parse_ctx ctx = {0};
    void *parser = NULL;
    ctx.e = e;
    ctx.s = ast_new(0);
    if (ctx.s) parser = gnnParseAlloc(malloc);
    if (!parser) {
        ast_free(ctx.s);
        *consumed = skip_statement(&lx, &t);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    }
    ctx.s->line = t.line;
    ctx.s->col = t.col;

    for (;;) {
        if (t.type == TK_SEMI || t.type == 0) {
            /* the end of the statement; a ';' still names itself in errors */
            ctx.at_eof = t.type == 0;
            if (gnnParseCheck(parser, 0, &t, &ctx)) gnnParse(parser, 0, t, &ctx);
            break;
        }
        if (gnnParseCheck(parser, t.type, &t, &ctx))
            gnnParse(parser, t.type, t, &ctx);
        if (ctx.rc) break;
        if ((rc = lex_next(&lx, &t, e))) {
            ctx.rc = rc;
            break;
        }
    }
    gnnParseFree(parser, free);
    /* the whole statement's checks: SAMPLE's and SCAN's, then GATHER's and
    ** the seed lists' (build_gather.c) */
    if (!ctx.rc && ctx.accepted) {
        build_finish(&ctx);
        build_gather_finish(&ctx);
        build_time_finish(&ctx);
    }
    if (!ctx.rc && !ctx.accepted)
        ctx.rc = gnn_seterr(e, GNNDB_INTERNAL, "line %d, column %d: the "
                            "parser stopped without a result", t.line, t.col);
    if (ctx.rc) {
        ast_free(ctx.s);
        *consumed = skip_statement(&lx, &t);
        return ctx.rc;
    }
    *consumed = lx.pos;
    *out = ctx.s;
    return GNNDB_OK;
}
