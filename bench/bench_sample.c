/* bench_sample.c — runs one SAMPLE through the public API, consuming every
** mini-batch as a training loop would, and prints one machine-readable
** RESULT line with throughput, I/O and the in-memory work figures; with TO
** DEVICE, also the bytes that crossed the bus and the rows the GPU cache
** served.
**
**   bench_sample DB 'PRAGMA ...; SAMPLE ...;'
**
** Statements before the last are run first (pragmas); the last one is the
** SAMPLE that is measured. A batch on a device is never read on the host:
** its per-hop counts, which stay in host memory, are what is touched. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "gnndb.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the process's peak resident set so far, in KiB (the bound memory_limit
** promises) */
static long maxrss_kb(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

int main(int argc, char **argv)
{
    if (argc != 3 || !strcmp(argv[1], "--help")) {
        fprintf(stderr, "usage: %s DB 'PRAGMA ...; SAMPLE ...;'\n", argv[0]);
        return argc == 2 ? 0 : 2;
    }
    gnndb *db;
    if (gnndb_open(argv[1], &db, GNNDB_OPEN_READONLY) != GNNDB_OK) {
        fprintf(stderr, "bench_sample: %s\n", gnndb_errmsg(db));
        gnndb_close(db);
        return 1;
    }
    const char *sql = argv[2], *tail;
    gnndb_stmt *st = NULL, *last = NULL;
    int rc = GNNDB_OK;
    double t0 = 0, t1 = 0;
    uint64_t batches = 0, nodes = 0, xbytes = 0, check = 0;
    while (*sql) {
        if ((rc = gnndb_prepare(db, sql, -1, &st, &tail)) != GNNDB_OK) break;
        sql = tail;
        if (!st) continue;
        gnndb_finalize(last);
        last = st;
        t0 = now();
        while ((rc = gnndb_step(st)) == GNNDB_ROW || rc == GNNDB_BATCH) {
            const gnndb_batch_view *v = gnndb_batch(st);
            if (!v) continue;
            batches++;
            nodes += (uint64_t)v->num_nodes;
            xbytes += (uint64_t)(v->num_nodes * v->x_dim * 4);
            /* touch the batch as a trainer would read it; a device
            ** batch's arrays are device memory */
            if (v->device == GNNDB_DEVICE_HOST && v->num_nodes)
                check ^= (uint64_t)v->n_id[v->num_nodes - 1];
            else if (v->num_hops)
                check ^= (uint64_t)v->num_sampled_nodes[v->num_hops];
        }
        t1 = now();
        if (rc != GNNDB_DONE) break;
        rc = GNNDB_OK;
    }
    if (rc != GNNDB_OK || !last) {
        fprintf(stderr, "bench_sample: %s\n", gnndb_errmsg(db));
        gnndb_finalize(last);
        gnndb_close(db);
        return 1;
    }
    double s = t1 - t0;
    int64_t edges = gnndb_stmt_status(last, GNNDB_STATUS_EDGES);
    int64_t blocks = gnndb_stmt_status(last, GNNDB_STATUS_BLOCKS_READ);
    int64_t bytes = gnndb_stmt_status(last, GNNDB_STATUS_BYTES_READ);
    double scpu = gnndb_stmt_status(last, GNNDB_STATUS_SAMPLE_CPU_NS) * 1e-9;
    double gcpu = gnndb_stmt_status(last, GNNDB_STATUS_GATHER_CPU_NS) * 1e-9;
    int64_t gbytes = gnndb_stmt_status(last, GNNDB_STATUS_GATHER_BYTES);
    printf("RESULT batches=%" PRIu64 " seconds=%.3f batches_per_s=%.3f "
           "sampled_edges=%" PRId64 " edges_per_s=%.0f blocks_read=%" PRId64
           " bytes_read=%" PRId64 " read_mbps=%.1f hyperbatch=%" PRId64
           " nodes=%" PRIu64 " x_bytes=%" PRIu64 " sample_cpu_s=%.3f "
           "sample_edges_per_cpu_s=%.0f gather_cpu_s=%.3f gather_gbps=%.3f "
           "io_wait_s=%.3f spill_written=%" PRId64 " spill_read=%" PRId64
           " blocks_saved=%" PRId64 " bus_bytes=%" PRId64
           " device_cache_hits=%" PRId64 " check=%" PRIx64 " maxrss_kb=%ld\n",
           batches, s, batches / s, edges, (double)edges / s, blocks, bytes,
           (double)bytes / s / 1e6,
           gnndb_stmt_status(last, GNNDB_STATUS_HYPERBATCH), nodes, xbytes,
           scpu,
           scpu > 0 ? (double)gnndb_stmt_status(last,
                                                GNNDB_STATUS_SAMPLED_WORK) / scpu
                    : 0,
           gcpu,
           gcpu > 0 ? (double)gbytes / gcpu / 1e9 : 0,
           gnndb_stmt_status(last, GNNDB_STATUS_IO_WAIT_NS) * 1e-9,
           gnndb_stmt_status(last, GNNDB_STATUS_SPILL_WRITTEN),
           gnndb_stmt_status(last, GNNDB_STATUS_SPILL_READ),
           gnndb_stmt_status(last, GNNDB_STATUS_ROW_CACHE_SAVED),
           gnndb_stmt_status(last, GNNDB_STATUS_BUS_BYTES),
           gnndb_stmt_status(last, GNNDB_STATUS_DEVICE_CACHE_HITS), check,
           maxrss_kb());
    gnndb_finalize(last);
    gnndb_close(db);
    return 0;
}
