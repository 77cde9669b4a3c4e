/* pragmas.c — the table of PRAGMAs (pragmas.h) and the defaults it gives a
** new connection. */
#include "pragmas.h"
#include "io.h"
#include "rss.h"

#include <string.h>
#include <unistd.h>

/* indexed by IO_* */
static const char *const io_names[] = {"auto", "uring", "pread", NULL};
/* indexed by GNN_SPILL_* */
static const char *const spill_names[] = {"auto", "on", "off", NULL};
/* indexed by GNN_GRAN_* */
static const char *const gran_names[] = {"auto", "block", "page", NULL};
/* indexed by the setting: 0 off, 1 on */
static const char *const onoff_names[] = {"off", "on", NULL};

#define F(field) offsetof(gnn_pragmas, field)
#define MB ((int64_t)1 << 20)

const gnn_pragma gnn_pragma_table[] = {
    {"memory_limit", GNN_PK_SIZE, F(memory_limit), MB, 0, GNN_PD_MEMORY,
     NULL, 0, 0, "give a size of at least 1MB such as '512MB' or '2GB'"},
    {"io", GNN_PK_CHOICE, F(io), 0, 0, IO_AUTO, io_names, 0, 0,
     "'uring', 'pread' or 'auto'"},
    {"threads", GNN_PK_INT, F(threads), 1, 256, GNN_PD_CPUS, NULL, 0, 0,
     NULL},
    {"io_depth", GNN_PK_INT, F(io_depth), 1, 4096, 64, NULL, 0, 0, NULL},
    {"coalesce", GNN_PK_INT, F(coalesce), 1, 256, 8, NULL, 0, 0, NULL},
    {"import_memory", GNN_PK_SIZE, F(import_memory), MB, 0, 256 * MB, NULL,
     0, 0, "give a size of at least 1MB such as '512MB' or '2GB'"},
    {"feature_cache", GNN_PK_SIZE, F(feature_cache), 0, 0, -1, NULL, 0, 1,
     "give a size such as '64MB' (0 for none) or 'auto'"},
    {"cache_policy", GNN_PK_POLICY, F(cache_policy), 0, 0, 0 /* none */,
     NULL, 0, 0,
     "'belady', 'lru', 'static_degree', 'hot_blocks' or 'none'"},
    {"temp_dir", GNN_PK_PATH, F(temp_dir), 0, 0, 0, NULL, 0, 0, NULL},
    {"spill_limit", GNN_PK_SIZE, F(spill_limit), MB, 0, 0, NULL, 1, 0,
     "give a size of at least 1MB such as '8GB', or 0 for no limit but "
     "the disk"},
    {"spill", GNN_PK_CHOICE, F(spill), 0, 0, GNN_SPILL_AUTO, spill_names, 0,
     0, "'auto', 'on' or 'off'"},
    {"read_granularity", GNN_PK_CHOICE, F(read_granularity), 0, 0,
     GNN_GRAN_AUTO, gran_names, 0, 0, "'auto', 'block' or 'page'"},
    {"strict", GNN_PK_CHOICE, F(strict), 0, 0, 0, onoff_names, 0, 0,
     "'on' (a plan's warnings refuse the statement) or 'off'"},
    {"batch_copies", GNN_PK_INT, F(batch_copies), 0, 64, 0, NULL, 0, 0,
     NULL},
    {"pin_memory", GNN_PK_CHOICE, F(pin_memory), 0, 0, 0, onoff_names, 0, 0,
     "'on' (host batches in page-locked memory) or 'off'"},
    {"gpu_cache", GNN_PK_SIZE, F(gpu_cache), 0, 0, 0, NULL, 0, 0,
     "give a size such as '8GB', or 0 for none"},
    {"compact_fraction", GNN_PK_FRACTION, F(compact_fraction), 0, 0, 250000,
     NULL, 0, 0, NULL},
    {"format_version", GNN_PK_FORMAT, 0, 0, 0, 0, NULL, 0, 0, NULL},
    {"stats", GNN_PK_STATS, 0, 0, 0, 0, NULL, 0, 0, NULL},
    {"calibrate", GNN_PK_CALIBRATE, 0, 0, 0, 0, NULL, 0, 0, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, 0, 0, NULL},
};

const gnn_pragma *db_pragma_find(const char *name)
{
    for (const gnn_pragma *pr = gnn_pragma_table; name && pr->name; pr++)
        if (!strcmp(pr->name, name)) return pr;
    return NULL;
}

int db_pragma_listed(const gnn_pragma *pr)
{
    return pr->kind != GNN_PK_STATS && pr->kind != GNN_PK_CALIBRATE;
}

/* A quarter of the machine's memory, and in a container (a memory cgroup)
** at most half of its limit, so that the default leaves the program that
** embeds gnndb room of its own wherever it runs. */
static int64_t default_memory_limit(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGE_SIZE);
    int64_t m = pages > 0 && psz > 0 ? (int64_t)pages * psz / 4
                                     : (int64_t)1 << 30;
    int64_t cg = gnn_cgroup_limit();
    return cg > 0 ? GNN_MIN(m, cg / 2) : m;
}

void db_pragma_defaults(gnn_pragmas *p)
{
    memset(p, 0, sizeof *p);
    for (const gnn_pragma *pr = gnn_pragma_table; pr->name; pr++) {
        int64_t v = pr->dflt;
        if (v == GNN_PD_MEMORY) v = default_memory_limit();
        if (v == GNN_PD_CPUS) {
            long nc = sysconf(_SC_NPROCESSORS_ONLN);
            v = nc > 0 ? nc : 1;
        }
        char *field = (char *)p + pr->off;
        switch (pr->kind) {
        case GNN_PK_SIZE: memcpy(field, &v, sizeof v); break;
        case GNN_PK_INT:
        case GNN_PK_CHOICE:
        case GNN_PK_POLICY: {
            int i = (int)v;
            memcpy(field, &i, sizeof i);
            break;
        }
        case GNN_PK_FRACTION: {
            double f = (double)v / 1e6;
            memcpy(field, &f, sizeof f);
            break;
        }
        default: break;   /* a path starts empty; the rest are no fields */
        }
    }
}
