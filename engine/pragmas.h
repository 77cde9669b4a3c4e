/* pragmas.h — the one table of PRAGMAs: each one's name, kind, field of
** gnn_pragmas, range, default and the words a refusal gives. gnndb_open
** takes the defaults from it (db_pragma_defaults); PRAGMA name = value,
** PRAGMA name, PRAGMA alone, PRAGMA stats and PRAGMA format_version read it
** (cmd/pragma.c). A new setting is a field of gnn_pragmas and a row here. */
#ifndef GNN_PRAGMAS_H
#define GNN_PRAGMAS_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"

enum {
    GNN_PK_SIZE,     /* int64 bytes ("512MB"); see lo, zero, autov */
    GNN_PK_INT,      /* int in [lo, hi] */
    GNN_PK_CHOICE,   /* int: the index of its value in names (any case) */
    GNN_PK_POLICY,   /* int: a feature-cache policy (exec/fcache.h's) */
    GNN_PK_PATH,     /* char[]: a directory ("": the database's) */
    GNN_PK_FRACTION, /* double in (0, 1]; dflt in millionths */
    GNN_PK_FORMAT,   /* read-only: the file format (listed: the library's) */
    GNN_PK_STATS,    /* read-only: the last statement's counters, unlisted */
    GNN_PK_CALIBRATE /* the disk profile (its own rows), unlisted */
};

/* Defaults computed at open rather than fixed. */
#define GNN_PD_MEMORY (-2)  /* a quarter of RAM, at most half the cgroup's */
#define GNN_PD_CPUS   (-3)  /* the CPUs online */

typedef struct gnn_pragma {
    const char *name;
    int kind;                  /* GNN_PK_* */
    size_t off;                /* its field in gnn_pragmas */
    int64_t lo, hi;            /* INT: the range; SIZE: lo the least */
    int64_t dflt;              /* the default, or GNN_PD_*; FRACTION: in
                                  millionths (250000: 0.25) */
    const char *const *names;  /* CHOICE: the values by index, NULL-ended */
    int zero;                  /* SIZE: 0 is allowed below lo, shown "0" */
    int autov;                 /* SIZE: 'auto' is allowed, kept as -1 */
    const char *use;           /* what a refusal suggests */
} gnn_pragma;

/* The PRAGMAs in the order PRAGMA alone lists them, NULL-name-ended (the
** unlisted kinds last). */
extern const gnn_pragma gnn_pragma_table[];

/* The row of PRAGMA `name`, or NULL. */
const gnn_pragma *db_pragma_find(const char *name);
/* Whether PRAGMA alone lists it. */
int db_pragma_listed(const gnn_pragma *pr);
/* Every setting at its default (gnndb_open). */
void db_pragma_defaults(gnn_pragmas *p);

#endif
