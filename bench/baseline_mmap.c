/* baseline_mmap.c — the baseline gnndb is measured against: what a PyG or
** DGL user does when the features do not fit in RAM.  The topology is held
** in memory as CSC; the features are a raw float32 .npy opened with
** np.load(mmap_mode='r'); each mini-batch is sampled NeighborLoader-style
** and its rows gathered out of the mapping into a contiguous x.
**
**   baseline_mmap --edges edges.bin --features feat.npy [--fanouts 10,10,10]
**                 [--batch 1024] [--batches N] [--seed S] [--threads T]
**                 [--drop-cache] [--advice normal|random]
**
** Sampling follows PyG's NeighborLoader (directed, without replacement):
** the seeds come first in the node list; at hop h, every node first reached
** at hop h-1 gets min(fanout, in-degree) distinct in-neighbours chosen
** uniformly (a fanout of -1 takes them all); a neighbour not seen before is
** appended, so nodes are numbered in order of first appearance.  Each
** sampled (u -> v) is an edge of the batch, kept as a local-id edge_index.
** The seeds of batch b are positions [b*BATCH, (b+1)*BATCH) of a seeded
** shuffle of all nodes, and batch b draws from its own counter-based random
** stream, so the batches, the sampled edges and the checksum are the same
** for any --threads (threads take whole batches, as DataLoader workers do).
**
** How memory is bounded in the benchmark.  The harness runs this program
** inside a cgroup v1 memory group:
**     mkdir /sys/fs/cgroup/memory/NAME
**     echo LIMIT > /sys/fs/cgroup/memory/NAME/memory.limit_in_bytes
**     echo $PID  > /sys/fs/cgroup/memory/NAME/cgroup.procs
** In cgroup v1 the limit covers the group's anonymous memory and the page
** cache its processes fault in.  The anonymous part here is fixed:
**     CSC        8 (N+1) + 4 E bytes      (int32 sources while N < 2^31)
**     shuffle    4 N
**     per thread 4 N (global -> local map), the batch's node list and
**                edge_index, and x (nodes x dim x 4)
** For the default benchmark (N = 8 M, E = 128 M, 136 k nodes a batch, dim
** 128) that is about 0.58 GB + 32 MB + 140 MB a thread.  The edge file is
** streamed in two passes through a 4 MiB buffer and dropped from the page
** cache afterwards.  Everything else the group may hold is feature pages of
** the mapping: they are clean, so the kernel reclaims them at the limit
** instead of failing, and the features get LIMIT minus the anonymous part
** as their cache, exactly the situation of a user whose features exceed
** RAM.  A limit below the anonymous part gets the process OOM-killed (exit
** 137): at scale 17 (2 M edges, 25 k nodes a batch) that part is already
** about 30 MB, so such a graph needs a limit of 48 MB or more.  The summary
** line reports the anonymous memory at the end of the run.  --drop-cache (fdatasync, then POSIX_FADV_DONTNEED on the feature
** file) makes the run start with none of them resident; the summary says
** how much of the file mincore() found resident at the start.
**
** The advice on the mapping matters more than anything else here.
** np.load(mmap_mode='r') leaves it MADV_NORMAL, and then each page fault
** reads around the page by the device's read_ahead_kb: on this machine's
** virtio disk that is 8 MiB.  Under a memory limit the read-around evicts
** pages the batch still needs, and a batch takes a minute (measured: scale
** 20, 512 MiB of features, 512 MiB limit, 65 s a batch with normal, 2.8 s
** with random).  The default is therefore --advice random, the baseline a
** careful user would run; --advice normal is the out-of-the-box one.
**
** The loading of the edges is timed apart; the RESULT line times only the
** mini-batches (sampling and gathering).  The last line of stdout is
**   RESULT batches=N seconds=S batches_per_s=R sampled_edges=E
**          edges_per_s=R bytes_x=B
** with B the bytes gathered into x over all batches. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_HOPS    8
#define MAX_THREADS 64
#define READ_PAIRS  ((size_t)1 << 18)      /* 4 MiB of edges per read */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* splitmix64 stream. */
typedef struct { uint64_t s; } rng_t;

static uint64_t rng_next(rng_t *r)
{
    r->s += 0x9e3779b97f4a7c15ULL;
    return mix64(r->s);
}

/* Uniform in [0, n) by multiply-high (bias below 2^-32 for our n). */
static uint64_t rng_below(rng_t *r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

/* ---- the graph: in-neighbour lists ---------------------------------------- */
typedef struct {
    int64_t n;
    int64_t m;
    int64_t *indptr;    /* n + 1 */
    int32_t *src;       /* m: sources of edges into v at [indptr[v], indptr[v+1]) */
} csc_t;

/* Reads the edge file twice through a small buffer: once to count in-degrees
** (and find the largest id), once to place each source. */
static int csc_load(const char *path, csc_t *g)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "baseline_mmap: %s: %s\n", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size % 16 != 0) {
        fprintf(stderr, "baseline_mmap: %s: not a file of int64 pairs\n", path);
        close(fd);
        return -1;
    }
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    int64_t m = st.st_size / 16, n = 0;
    int64_t *buf = malloc(READ_PAIRS * 16);
    int64_t *deg = NULL;
    size_t cap = 0;
    int rc = -1;
    if (!buf) goto out;

    for (int pass = 0; pass < 2; pass++) {
        off_t off = 0;
        for (;;) {
            ssize_t r = pread(fd, buf, READ_PAIRS * 16, off);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) {
                fprintf(stderr, "baseline_mmap: %s: %s\n", path, strerror(errno));
                goto out;
            }
            if (r == 0) break;
            if (r % 16) {       /* a short read mid-pair: re-read from the pair */
                r -= r % 16;
                if (r == 0) continue;
            }
            off += r;
            size_t k = (size_t)r / 16;
            for (size_t i = 0; i < k; i++) {
                int64_t u = buf[2 * i], v = buf[2 * i + 1];
                if (pass == 0) {
                    if (u < 0 || v < 0 || u >= INT32_MAX || v >= INT32_MAX) {
                        fprintf(stderr, "baseline_mmap: %s: node id out of range "
                                "at edge %lld\n", path,
                                (long long)((off - r) / 16 + (off_t)i));
                        goto out;
                    }
                    int64_t hi = (u > v ? u : v) + 1;
                    if ((size_t)hi > cap) {
                        size_t nc = cap ? cap : 1 << 16;
                        while (nc < (size_t)hi) nc *= 2;
                        int64_t *nd = realloc(deg, (nc + 1) * sizeof *nd);
                        if (!nd) goto nomem;
                        size_t had = cap ? cap + 1 : 0;
                        memset(nd + had, 0, (nc + 1 - had) * sizeof *nd);
                        deg = nd;
                        cap = nc;
                    }
                    if (hi > n) n = hi;
                    deg[v + 1]++;
                } else {
                    g->src[deg[v]++] = (int32_t)u;
                }
            }
        }
        if (pass == 0) {
            if (!deg && !(deg = calloc(1, sizeof *deg))) goto nomem;
            for (int64_t v = 0; v < n; v++) deg[v + 1] += deg[v];
            g->indptr = malloc((size_t)(n + 1) * sizeof *g->indptr);
            g->src = malloc((size_t)(m ? m : 1) * sizeof *g->src);
            if (!g->indptr || !g->src) goto nomem;
            memcpy(g->indptr, deg, (size_t)(n + 1) * sizeof *deg);
            /* deg becomes the fill cursor of each list */
        }
    }
    g->n = n;
    g->m = m;
    rc = 0;
    goto out;
nomem:
    fprintf(stderr, "baseline_mmap: out of memory loading %s\n", path);
out:
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    free(buf);
    free(deg);
    return rc;
}

/* ---- the features: a mapped .npy ----------------------------------------- */
typedef struct {
    int fd;
    const char *path;
    size_t map_len;
    const unsigned char *map;
    const float *rows;
    int64_t nrows, dim;
} feat_t;

/* Parses a v1/v2/v3 .npy header of a little-endian float32 C-order 2-D
** array; without the magic, takes the file as raw float32 of width `dim`. */
static int feat_open(const char *path, int64_t dim, feat_t *f)
{
    f->path = path;
    f->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (f->fd < 0) {
        fprintf(stderr, "baseline_mmap: %s: %s\n", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(f->fd, &st) != 0) return -1;
    unsigned char h[4096];
    ssize_t got = pread(f->fd, h, sizeof h - 1, 0);
    if (got < 0) got = 0;
    h[got] = 0;
    size_t data_off = 0;
    if (got >= 10 && memcmp(h, "\x93NUMPY", 6) == 0) {
        size_t hlen, pre;
        if (h[6] == 1) { hlen = h[8] | (size_t)h[9] << 8; pre = 10; }
        else {
            hlen = h[8] | (size_t)h[9] << 8 | (size_t)h[10] << 16 | (size_t)h[11] << 24;
            pre = 12;
        }
        if (pre + hlen > (size_t)got) {
            fprintf(stderr, "baseline_mmap: %s: .npy header too long\n", path);
            return -1;
        }
        data_off = pre + hlen;
        h[data_off] = 0;
        const char *hd = (const char *)h + pre;
        const char *shape = strstr(hd, "'shape'");
        long long r = 0, c = 0;
        if (!strstr(hd, "'<f4'") || strstr(hd, "'fortran_order': True") || !shape
            || sscanf(strchr(shape, '(') ? strchr(shape, '(') : "", "(%lld, %lld)", &r, &c) != 2) {
            fprintf(stderr, "baseline_mmap: %s: want a 2-D '<f4' C-order array\n", path);
            return -1;
        }
        f->nrows = r;
        f->dim = c;
    } else {
        if (dim <= 0) {
            fprintf(stderr, "baseline_mmap: %s: not .npy; give --dim for raw float32\n", path);
            return -1;
        }
        f->dim = dim;
        f->nrows = st.st_size / (dim * 4);
    }
    if ((size_t)st.st_size < data_off + (size_t)(f->nrows * f->dim * 4) || f->dim <= 0) {
        fprintf(stderr, "baseline_mmap: %s: file shorter than its shape\n", path);
        return -1;
    }
    f->map_len = (size_t)st.st_size;
    f->map = mmap(NULL, f->map_len, PROT_READ, MAP_SHARED, f->fd, 0);
    if (f->map == MAP_FAILED) {
        fprintf(stderr, "baseline_mmap: mmap %s: %s\n", path, strerror(errno));
        return -1;
    }
    f->rows = (const float *)(f->map + data_off);
    return 0;
}

/* Fraction of the file's pages resident in the page cache. */
static double feat_resident(const feat_t *f)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), npg = (f->map_len + pg - 1) / pg;
    unsigned char *vec = malloc(npg ? npg : 1);
    if (!vec || mincore((void *)f->map, f->map_len, vec) != 0) {
        free(vec);
        return -1;
    }
    size_t res = 0;
    for (size_t i = 0; i < npg; i++) res += vec[i] & 1;
    free(vec);
    return npg ? (double)res / (double)npg : 0;
}

/* Resident anonymous memory in bytes (the part a memory limit cannot
** reclaim without swap), or -1 where /proc does not say. */
static double rss_anon(void)
{
    FILE *fp = fopen("/proc/self/status", "r");
    char line[256];
    double kb = -1;
    if (!fp) return -1;
    while (fgets(line, sizeof line, fp))
        if (sscanf(line, "RssAnon: %lf", &kb) == 1) break;
    fclose(fp);
    return kb < 0 ? -1 : kb * 1024;
}

/* ---- one mini-batch ------------------------------------------------------- */
typedef struct {
    const csc_t *g;
    const feat_t *f;
    const int32_t *order;       /* the shuffled nodes */
    int nhops;
    int fanout[MAX_HOPS];
    int64_t batch, batches, seed;
    atomic_int_fast64_t next;
} run_t;

typedef struct {
    run_t *run;
    int32_t *local;             /* global id -> local id, -1 when absent */
    int32_t *nodes;             /* local id -> global id */
    size_t nodes_cap;
    int64_t *row, *col;         /* edge_index: source, target (local ids) */
    size_t edges_cap;
    float *x;
    size_t x_rows;
    /* totals */
    int64_t sampled_edges, bytes_x, nodes_total;
    uint64_t checksum;
    int failed;
} worker_t;

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t nc = *cap ? *cap : 4096;
    while (nc < need) nc *= 2;
    void *q = realloc(*p, nc * elem);
    if (!q) return -1;
    *p = q;
    *cap = nc;
    return 0;
}

static int add_node(worker_t *w, int64_t *count, int32_t u)
{
    if (w->local[u] >= 0) return w->local[u];
    if (grow((void **)&w->nodes, &w->nodes_cap, (size_t)*count + 1, sizeof *w->nodes))
        return -1;
    w->nodes[*count] = u;
    w->local[u] = (int32_t)*count;
    return (int)(*count)++;
}

static int sample_batch(worker_t *w, int64_t b)
{
    run_t *r = w->run;
    const csc_t *g = r->g;
    rng_t rng = { mix64((uint64_t)r->seed ^ mix64((uint64_t)b + 0x5bd1e995)) };
    int64_t first = b * r->batch;
    int64_t nseeds = g->n - first < r->batch ? g->n - first : r->batch;
    int64_t count = 0, ne = 0;

    for (int64_t i = 0; i < nseeds; i++)
        if (add_node(w, &count, r->order[first + i]) < 0) return -1;

    int64_t lo = 0, hi = count;     /* nodes first reached at the previous hop */
    for (int h = 0; h < r->nhops; h++) {
        int k = r->fanout[h];
        for (int64_t t = lo; t < hi; t++) {
            int32_t v = w->nodes[t];
            int64_t beg = g->indptr[v], deg = g->indptr[v + 1] - beg;
            int64_t take = (k < 0 || deg <= k) ? deg : k;
            if ((size_t)(ne + take) > w->edges_cap) {
                size_t cap = w->edges_cap;
                if (grow((void **)&w->row, &cap, (size_t)(ne + take), sizeof *w->row))
                    return -1;
                void *q = realloc(w->col, cap * sizeof *w->col);
                if (!q) return -1;
                w->col = q;
                w->edges_cap = cap;
            }
            if (take == deg) {
                for (int64_t j = 0; j < deg; j++) {
                    int l = add_node(w, &count, g->src[beg + j]);
                    if (l < 0) return -1;
                    w->row[ne] = l;
                    w->col[ne++] = t;
                }
            } else {
                /* Floyd's algorithm: `take` distinct positions of [0, deg). */
                int64_t pick[64], np = 0;
                for (int64_t j = deg - take; j < deg; j++) {
                    int64_t p = (int64_t)rng_below(&rng, (uint64_t)j + 1), s;
                    for (s = 0; s < np && pick[s] != p; s++) {}
                    pick[np] = s < np ? j : p;
                    np++;
                }
                for (int64_t j = 0; j < np; j++) {
                    int l = add_node(w, &count, g->src[beg + pick[j]]);
                    if (l < 0) return -1;
                    w->row[ne] = l;
                    w->col[ne++] = t;
                }
            }
        }
        lo = hi;
        hi = count;
    }

    /* Gather x: one row of the mapping per sampled node, in local order. */
    int64_t dim = r->f->dim;
    if ((size_t)count > w->x_rows) {
        free(w->x);
        w->x_rows = (size_t)count * 5 / 4;
        w->x = malloc(w->x_rows * (size_t)dim * sizeof *w->x);
        if (!w->x) return -1;
    }
    uint64_t sum = mix64((uint64_t)b) ^ (uint64_t)ne;
    for (int64_t i = 0; i < count; i++) {
        memcpy(w->x + i * dim, r->f->rows + (int64_t)w->nodes[i] * dim,
               (size_t)dim * sizeof *w->x);
        uint32_t bits;
        memcpy(&bits, w->x + i * dim, 4);
        sum = mix64(sum ^ ((uint64_t)w->nodes[i] << 32 | bits));
    }
    for (int64_t i = 0; i < ne; i++)
        sum += (uint64_t)w->row[i] * 0x9e3779b97f4a7c15ULL + (uint64_t)w->col[i];

    for (int64_t i = 0; i < count; i++) w->local[w->nodes[i]] = -1;
    w->checksum += sum;     /* a sum: independent of which thread took it */
    w->sampled_edges += ne;
    w->nodes_total += count;
    w->bytes_x += count * dim * 4;
    return 0;
}

static void *work(void *arg)
{
    worker_t *w = arg;
    run_t *r = w->run;
    for (;;) {
        int64_t b = atomic_fetch_add(&r->next, 1);
        if (b >= r->batches) break;
        if (sample_batch(w, b) != 0) {
            w->failed = 1;
            break;
        }
    }
    return NULL;
}

/* ---- options ---------------------------------------------------------------- */
static void usage(FILE *f)
{
    fprintf(f,
"usage: baseline_mmap --edges FILE --features FILE [options]\n"
"In-memory CSC sampling + gather from an mmap'd float32 .npy (the PyG/DGL\n"
"way of training on features larger than RAM).\n"
"  --edges FILE       little-endian int64 (src, dst) pairs\n"
"  --features FILE    float32 .npy, shape (nodes, dim), or raw with --dim\n"
"  --dim D            row width of a raw (non-.npy) feature file\n"
"  --fanouts LIST     per-hop fanouts, -1 for all (default 10,10,10)\n"
"  --batch B          seeds per mini-batch (default 1024)\n"
"  --batches N        mini-batches to run (default 100; capped at nodes/B)\n"
"  --seed S           seed of the shuffle and of the sampling (default 1)\n"
"  --threads T        worker threads, whole batches each (default 1)\n"
"  --drop-cache       evict the feature file from the page cache first\n"
"  --advice A         madvise of the mapping: random (default) or normal\n"
"  --join-cgroup DIR  once the graph is built, join the cgroup v1 memory\n"
"                     group DIR (its limit then bounds the feature pages)\n"
"                     (np.memmap's; read-around, slow under a memory limit)\n"
"  --help             this text\n"
"Last line: RESULT batches= seconds= batches_per_s= sampled_edges= edges_per_s= bytes_x=\n");
}

static int parse_fanouts(const char *s, run_t *r)
{
    r->nhops = 0;
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < -1 || v == 0 || v > 64 || r->nhops == MAX_HOPS) return -1;
        r->fanout[r->nhops++] = (int)v;
        s = end;
        if (*s == ',') s++;
        else if (*s) return -1;
    }
    return r->nhops ? 0 : -1;
}

static int parse_i64(const char *s, const char *opt, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "baseline_mmap: %s wants an integer in [%lld, %lld], not '%s'\n",
                opt, (long long)lo, (long long)hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

/* Write this process's pid to DIR/cgroup.procs (cgroup v1). */
static int join_cgroup(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    FILE *o = fopen(path, "w");
    if (!o || fprintf(o, "%d\n", (int)getpid()) < 0 || fclose(o) != 0) {
        fprintf(stderr, "baseline_mmap: cannot join %s: %s\n", dir, strerror(errno));
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *edges = NULL, *features = NULL, *advice = "random";
    int64_t batch = 1024, batches = 100, seed = 1, threads = 1, dim = 0;
    int drop = 0;
    const char *join = NULL;
    static run_t run;
    parse_fanouts("10,10,10", &run);
    static const struct option opts[] = {
        { "edges", required_argument, NULL, 'e' },
        { "features", required_argument, NULL, 'f' },
        { "dim", required_argument, NULL, 'd' },
        { "fanouts", required_argument, NULL, 'F' },
        { "batch", required_argument, NULL, 'b' },
        { "batches", required_argument, NULL, 'n' },
        { "seed", required_argument, NULL, 's' },
        { "threads", required_argument, NULL, 't' },
        { "drop-cache", no_argument, NULL, 'D' },
        { "advice", required_argument, NULL, 'a' },
        { "join-cgroup", required_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        int rc = 0;
        switch (c) {
        case 'e': edges = optarg; break;
        case 'f': features = optarg; break;
        case 'd': rc = parse_i64(optarg, "--dim", 1, 1 << 20, &dim); break;
        case 'F':
            if (parse_fanouts(optarg, &run) != 0) {
                fprintf(stderr, "baseline_mmap: --fanouts wants up to %d of 1..64 or -1, "
                        "comma-separated, not '%s'\n", MAX_HOPS, optarg);
                rc = -1;
            }
            break;
        case 'b': rc = parse_i64(optarg, "--batch", 1, 1 << 24, &batch); break;
        case 'n': rc = parse_i64(optarg, "--batches", 1, INT64_MAX, &batches); break;
        case 's': rc = parse_i64(optarg, "--seed", 0, INT64_MAX, &seed); break;
        case 't': rc = parse_i64(optarg, "--threads", 1, MAX_THREADS, &threads); break;
        case 'D': drop = 1; break;
        case 'a':
            advice = optarg;
            if (strcmp(advice, "normal") && strcmp(advice, "random")) {
                fprintf(stderr, "baseline_mmap: --advice is normal or random\n");
                rc = -1;
            }
            break;
        case 'j': join = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        if (rc) return 2;
    }
    if (!edges || !features || optind < argc) {
        usage(stderr);
        return 2;
    }

    double t0 = now();
    csc_t g = { 0 };
    if (csc_load(edges, &g) != 0) return 1;
    double t_load = now() - t0;

    feat_t f;
    if (feat_open(features, dim, &f) != 0) return 1;
    if (f.nrows < g.n) {
        fprintf(stderr, "baseline_mmap: %s has %lld rows, the graph %lld nodes\n",
                features, (long long)f.nrows, (long long)g.n);
        return 1;
    }
    if (f.nrows > g.n) {
        /* Nodes past the largest id in the edge file: no edges, but they
        ** have features and are seeds like the others. */
        int64_t *ip = realloc(g.indptr, (size_t)(f.nrows + 1) * sizeof *ip);
        if (!ip) return 1;
        for (int64_t v = g.n + 1; v <= f.nrows; v++) ip[v] = g.m;
        g.indptr = ip;
        g.n = f.nrows;
    }
    /* the graph and the seeds are built: move into the memory group, which
    ** then bounds the feature pages (a process keeps what it allocated
    ** before joining) */
    if (join && join_cgroup(join) != 0) return 1;
    if (drop) {
        fdatasync(f.fd);
        posix_fadvise(f.fd, 0, 0, POSIX_FADV_DONTNEED);
    }
    madvise((void *)f.map, f.map_len, strcmp(advice, "random") ? MADV_NORMAL : MADV_RANDOM);
    double resident = feat_resident(&f);

    /* The seeds: a seeded Fisher-Yates shuffle of all nodes. */
    int32_t *order = malloc((size_t)g.n * sizeof *order);
    if (!order) return 1;
    rng_t rng = { mix64((uint64_t)seed) };
    for (int64_t i = 0; i < g.n; i++) order[i] = (int32_t)i;
    for (int64_t i = g.n - 1; i > 0; i--) {
        int64_t j = (int64_t)rng_below(&rng, (uint64_t)i + 1);
        int32_t t = order[i]; order[i] = order[j]; order[j] = t;
    }
    int64_t max_batches = (g.n + batch - 1) / batch;
    if (batches > max_batches) batches = max_batches;

    run.g = &g;
    run.f = &f;
    run.order = order;
    run.batch = batch;
    run.batches = batches;
    run.seed = seed;
    atomic_init(&run.next, 0);

    worker_t w[MAX_THREADS];
    memset(w, 0, sizeof w);
    for (int t = 0; t < threads; t++) {
        w[t].run = &run;
        w[t].local = malloc((size_t)g.n * sizeof *w[t].local);
        if (!w[t].local) return 1;
        memset(w[t].local, 0xff, (size_t)g.n * sizeof *w[t].local);
    }

    pthread_t tid[MAX_THREADS];
    double t1 = now();
    for (int t = 1; t < threads; t++)
        if (pthread_create(&tid[t], NULL, work, &w[t]) != 0) {
            fprintf(stderr, "baseline_mmap: cannot start thread %d\n", t);
            return 1;
        }
    work(&w[0]);
    for (int t = 1; t < threads; t++) pthread_join(tid[t], NULL);
    double secs = now() - t1;

    double anon = rss_anon();
    int64_t se = 0, bx = 0, nt = 0;
    uint64_t sum = 0;
    for (int t = 0; t < threads; t++) {
        if (w[t].failed) {
            fprintf(stderr, "baseline_mmap: out of memory in a mini-batch\n");
            return 1;
        }
        se += w[t].sampled_edges;
        bx += w[t].bytes_x;
        nt += w[t].nodes_total;
        sum += w[t].checksum;
    }

    printf("baseline_mmap: graph %lld nodes, %lld edges, CSC loaded in %.2f s "
           "(%.0f MB in RAM); features %lld x %lld float32, %.1f%% resident at start "
           "(advice %s)\n",
           (long long)g.n, (long long)g.m, t_load,
           ((double)(g.n + 1) * 8 + (double)g.m * 4) / 1e6,
           (long long)f.nrows, (long long)f.dim, resident * 100, advice);
    printf("baseline_mmap: %lld batches of %lld seeds, fanouts", (long long)batches,
           (long long)batch);
    for (int h = 0; h < run.nhops; h++) printf("%s%d", h ? "," : " ", run.fanout[h]);
    printf(", %lld threads: %.3f s, %.2f batches/s, %.0f nodes and %.0f edges a batch, "
           "%.1f MB/s into x, checksum %016llx; anonymous memory %.0f MB\n",
           (long long)threads, secs, (double)batches / secs, (double)nt / (double)batches,
           (double)se / (double)batches, (double)bx / secs / 1e6, (unsigned long long)sum,
           anon / 1e6);
    printf("RESULT batches=%lld seconds=%.3f batches_per_s=%.3f sampled_edges=%lld "
           "edges_per_s=%.0f bytes_x=%lld\n",
           (long long)batches, secs, (double)batches / secs, (long long)se,
           (double)se / secs, (long long)bx);
    return 0;
}
