/* sample_loader.c — the smallest complete mini-batch loader on gnndb's C API.
**
**   sample_loader DB 'SAMPLE 10,5 FROM cora SEEDS train BATCH 64 SEED 7;'
**
** opens DB read-only (several trainers may do so at once, even while another
** process imports), compiles the SAMPLE with gnndb_prepare, and steps it: each
** gnndb_step() that returns GNNDB_BATCH makes one mini-batch readable through
** gnndb_batch(). A training loop would hand n_id, edge_index, x and y to its
** model here; this one prints one line per batch,
**
**   epoch batch seeds nodes edges digest
**
** where digest is the batch's 64-bit digest (docs/format.md), the same value
** as the shell's digest column, so two runs can be compared line by line.
** Exit status: 0 when every batch was read, 1 on any error. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <gnndb.h>

/* What a trainer would do with a batch: hand the arrays to its model. Here,
** only check that edge_index is well formed. Every pointer belongs to the
** statement and is valid until the next gnndb_step(): copy what must live
** longer. n_id lists the seeds first, so y[i] is the label of n_id[i];
** x holds row i of the features for n_id[i]; y and x are NULL when the
** graph has no labels or no features. */
static int consume(const gnndb_batch_view *b)
{
    for (int64_t e = 0; e < b->num_edges; e++) {
        int64_t src = b->edge_index[e];                /* the neighbour */
        int64_t dst = b->edge_index[b->num_edges + e]; /* sampled for */
        if (src < 0 || src >= b->num_nodes || dst < 0 || dst >= b->num_nodes)
            return -1;
    }
    return b->num_nodes >= b->num_seeds ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s DB 'SAMPLE ...;'\n", argv[0]);
        return 2;
    }
    const char *path = argv[1], *sql = argv[2];

    /* gnndb_open sets *db even when it fails (NULL only when out of memory):
    ** read the reason from it, then close it. */
    gnndb *db = NULL;
    int rc = gnndb_open(path, &db, GNNDB_OPEN_READONLY);
    if (rc != GNNDB_OK) {
        fprintf(stderr, "%s: %s (%s)\n", path, gnndb_errmsg(db),
                gnndb_errstr(rc));
        gnndb_close(db);
        return 1;
    }

    /* Names (graph, split, feature table) are checked here, so a typo
    ** fails before any work is done. *st is NULL when sql held no
    ** statement at all. */
    gnndb_stmt *st = NULL;
    rc = gnndb_prepare(db, sql, -1, &st, NULL);
    if (rc != GNNDB_OK || st == NULL) {
        fprintf(stderr, "prepare: %s\n",
                rc != GNNDB_OK ? gnndb_errmsg(db) : "no statement given");
        gnndb_close(db);
        return 1;
    }

    /* SEED given or drawn, the effective value is reported: reuse it to
    ** reproduce this run exactly. */
    fprintf(stderr, "-- seed: %" PRId64 "%s, %" PRId64 " batches\n",
            gnndb_stmt_status(st, GNNDB_STATUS_SEED),
            gnndb_stmt_status(st, GNNDB_STATUS_SEED_DRAWN) ? " (drawn)" : "",
            gnndb_stmt_status(st, GNNDB_STATUS_TOTAL_BATCHES));

    int64_t n = 0;
    while ((rc = gnndb_step(st)) == GNNDB_BATCH) {
        const gnndb_batch_view *b = gnndb_batch(st);
        if (consume(b) != 0) {
            fprintf(stderr, "batch %" PRId64 ": edge_index out of range\n",
                    b->batch);
            rc = GNNDB_INTERNAL;
            break;
        }
        printf("%" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
               " %016llx\n", b->epoch, b->batch, b->num_seeds, b->num_nodes,
               b->num_edges, (unsigned long long)gnndb_batch_digest(st));
        n++;
    }

    /* The step that ends the loop says how it ended: GNNDB_DONE after the
    ** last batch, GNNDB_ROW when the statement was not a SAMPLE (EXPLAIN,
    ** SHOW ...), otherwise an error (GNNDB_INTERRUPT, GNNDB_IOERR,
    ** GNNDB_CORRUPT naming the block, GNNDB_NOMEM, ...). */
    int status = 0;
    if (rc == GNNDB_ROW) {
        fprintf(stderr, "not a SAMPLE statement: use query_rows\n");
        status = 1;
    } else if (rc == GNNDB_INTERNAL) {
        status = 1;
    } else if (rc != GNNDB_DONE) {
        fprintf(stderr, "step: %s (%s)\n", gnndb_errmsg(db), gnndb_errstr(rc));
        status = 1;
    }
    fprintf(stderr, "-- %" PRId64 " batches, %" PRId64 " blocks read\n", n,
            gnndb_stmt_status(st, GNNDB_STATUS_BLOCKS_READ));

    gnndb_finalize(st);   /* frees the statement and its last batch */
    gnndb_close(db);
    return status;
}
