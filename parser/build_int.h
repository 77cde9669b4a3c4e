/* build_int.h — what build.c shares with the other builders' files
** (build_typed.c): errors, strings, clauses given once, numbers. */
#ifndef GNN_BUILD_INT_H
#define GNN_BUILD_INT_H

#include "build.h"

/* Record the first error, prefixed with the place of token `at`. */
__attribute__((format(printf, 4, 5)))
void bld_fail(parse_ctx *p, int rc, const gtok *at, const char *fmt, ...);
void bld_nomem(parse_ctx *p);
/* Replace *slot with the token's value (a string without its quotes). */
void bld_set_str(parse_ctx *p, char **slot, const gtok *t);
/* The first time clause c comes: 1; the second: an error and 0. */
int bld_once(parse_ctx *p, const gtok *kw, int c);
/* An integer token as int64_t, or an error "number too large" and 0. */
int bld_int64(parse_ctx *p, const gtok *t, int64_t *out);
/* A fanout token: 1..1000, or -1 for every neighbour; 0 after an error. */
int bld_fanout(parse_ctx *p, const gtok *f);

#endif
