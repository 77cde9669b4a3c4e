/* gen.c — synthetic R-MAT (Kronecker) graphs for the benchmarks: edges,
** features and labels, deterministic by seed, streamed with bounded memory.
**
**   gen --scale S [--edge-factor F] [--seed N] [--out edges.bin]
**       [--features feat.npy --dim D] [--labels labels.npy --classes K]
**       [--dtype float32|float16] [--threads T]
**
** Edges: F * 2^S of them over 2^S nodes, written as little-endian int64
** pairs (src, dst), the binary edge format.  Each edge picks one quadrant of
** the adjacency matrix per level with the Graph500 probabilities a=0.57,
** b=0.19, c=0.19, d=0.05.  Self-loops and duplicate edges are kept, as
** Graph500 keeps them.  Node ids then pass through a seeded bijection of
** [0, 2^S), so the high-degree nodes are spread over the id space instead of
** sitting at id 0 (Graph500 relabels at random for the same reason).
**
** Every random number is a function of (seed, what, index): a counter-based
** generator (the splitmix64 finaliser of a key and a counter) rather than a
** stream.  Any thread can therefore produce any chunk of any file on its
** own, and writes it with pwrite at its own offset: the output is the same
** byte for byte whatever the thread count, and memory is one chunk buffer
** (4 MiB) per thread whatever the graph size.
**
** Edges may also go to a pipe (--out - for stdout, or a FIFO): there is no
** offset to pwrite at, so each thread waits for its chunk's turn and the
** chunks are written in order; the bytes are the same as in a file.  An
** importer reading the pipe then needs no copy of the edge list on disk.
**
** Features: float32 .npy (v1.0 header, C order, shape (2^S, D)), element
** (i, j) uniform in [-1, 1) from (seed, i, j); with --dtype float16, the same
** values rounded to the nearest float16 (half the bytes: a papers100M-sized
** table of 2^26 x 128 is 16 GiB instead of 32).  Labels: int64 .npy, shape
** (2^S,), uniform in [0, K) from (seed, i).  Neither carries a signal a model
** could learn: they exist to be read, not to be fitted.
**
** stdout gets one summary line; stderr a progress line while it is a
** terminal. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CHUNK_BYTES ((size_t)4 << 20)
#define MAX_THREADS 256
#define MAX_SCALE   40

/* Domain tags, so that edges, the relabelling, features and labels draw
** from unrelated streams of the same seed. */
enum { TAG_EDGE = 1, TAG_PERM = 2, TAG_FEAT = 3, TAG_LABEL = 4 };

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t key_of(uint64_t seed, uint64_t tag)
{
    return mix64(mix64(seed + 0x9e3779b97f4a7c15ULL) ^ (tag * 0xd6e8feb86659fd93ULL));
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the relabelling: a seeded bijection of [0, 2^scale) ------------------
** Each step is invertible modulo 2^scale: multiplying by an odd number,
** xor with the value shifted right, adding a constant.  Four rounds mix the
** high bits into the low ones and back. */
typedef struct {
    uint64_t mask;
    unsigned shift;
    uint64_t mul[4], add[4];
} perm_t;

static void perm_init(perm_t *p, uint64_t seed, unsigned scale)
{
    uint64_t k = key_of(seed, TAG_PERM);
    p->mask = scale >= 64 ? ~0ULL : (1ULL << scale) - 1;
    p->shift = (scale + 1) / 2;
    for (int r = 0; r < 4; r++) {
        p->mul[r] = mix64(k + 2 * (uint64_t)r) | 1;
        p->add[r] = mix64(k + 2 * (uint64_t)r + 1);
    }
}

static uint64_t perm_apply(const perm_t *p, uint64_t x)
{
    for (int r = 0; r < 4; r++) {
        x = (x * p->mul[r]) & p->mask;
        x ^= x >> p->shift;
        x = (x + p->add[r]) & p->mask;
    }
    return x;
}

/* ---- the job shared by the worker threads -------------------------------- */
typedef enum { KIND_EDGES, KIND_FEATURES, KIND_LABELS } kind_t;

typedef struct {
    kind_t kind;
    int fd;
    const char *path;
    unsigned scale;
    uint64_t key;          /* key_of(seed, tag) */
    perm_t perm;
    uint32_t thr_a, thr_ab, thr_abc;   /* R-MAT thresholds on 16-bit draws */
    uint64_t dim, classes;
    int half;              /* features as float16 */
    int stream;            /* fd is a pipe: write chunks in order */
    pthread_mutex_t turn_mu;
    pthread_cond_t turn_cv;
    uint64_t turn;         /* stream: the chunk whose write is next */
    uint64_t items;        /* edges, or rows */
    uint64_t item_bytes;
    uint64_t per_chunk;    /* items per chunk */
    uint64_t nchunks;
    off_t base;            /* file offset of item 0 (the .npy header length) */
    atomic_uint_fast64_t next_chunk;
    atomic_uint_fast64_t done_items;
    atomic_int failed;
    int err;               /* errno of the first failure */
} job_t;

/* Edge number e: 16 bits per level, four levels per 64-bit draw; the
** probabilities are then multiples of 2^-16, within 1e-5 of Graph500's. */
static void gen_edges(const job_t *j, uint64_t first, uint64_t n, int64_t *out)
{
    for (uint64_t e = first; e < first + n; e++) {
        uint64_t ctr = mix64(j->key ^ (e * 0x9e3779b97f4a7c15ULL));
        uint64_t src = 0, dst = 0, r = 0;
        for (unsigned l = 0; l < j->scale; l++) {
            if ((l & 3) == 0)
                r = mix64(ctr + (uint64_t)(l / 4 + 1) * 0x9e3779b97f4a7c15ULL);
            uint32_t u = (uint32_t)(r & 0xffff);
            r >>= 16;
            /* a: (0,0)  b: (0,1)  c: (1,0)  d: (1,1) */
            uint64_t sbit = u >= j->thr_ab;
            uint64_t dbit = (u >= j->thr_a) & ((u < j->thr_ab) | (u >= j->thr_abc));
            src |= sbit << l;
            dst |= dbit << l;
        }
        out[2 * (e - first)] = (int64_t)htole64(perm_apply(&j->perm, src));
        out[2 * (e - first) + 1] = (int64_t)htole64(perm_apply(&j->perm, dst));
    }
}

/* Uniform in [-1, 1) with 24 bits, exact in float32. */
static float unit_float(uint32_t bits)
{
    return (float)(int32_t)(bits >> 8) * (1.0f / 8388608.0f) - 1.0f;
}

/* The values of row i: each pair of columns from one hash, its low and high
** halves. Both dtypes draw them here, so a float16 table is the float32
** one rounded. */
static void row_values(const job_t *j, uint64_t i, float *v)
{
    uint64_t d = j->dim;
    uint64_t row = mix64(j->key ^ (i * 0x9e3779b97f4a7c15ULL));
    for (uint64_t c = 0; c < d; c += 2) {
        uint64_t r = mix64(row + (c / 2 + 1) * 0x9e3779b97f4a7c15ULL);
        v[c] = unit_float((uint32_t)r);
        if (c + 1 < d) v[c + 1] = unit_float((uint32_t)(r >> 32));
    }
}

static void gen_features(const job_t *j, uint64_t first, uint64_t n, float *out)
{
    uint64_t d = j->dim;
    for (uint64_t i = first; i < first + n; i++) {
        float *o = out + (i - first) * d;
        row_values(j, i, o);
        for (uint64_t c = 0; c < d; c++) {
            uint32_t b;
            memcpy(&b, &o[c], 4);
            b = htole32(b);
            memcpy(&o[c], &b, 4);
        }
    }
}

/* Round to nearest even; the inputs are in [-1, 1), so no overflow, and
** those below 2^-24 in magnitude become (signed) zero. */
static uint16_t float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000;
    int32_t ex = (int32_t)((x >> 23) & 0xff) - 127 + 15;
    uint32_t man = x & 0x7fffff;
    if (ex >= 31) return (uint16_t)(sign | 0x7c00);
    if (ex <= 0) {                     /* subnormal half, or zero */
        if (ex < -10) return (uint16_t)sign;
        man |= 0x800000;
        unsigned shift = (unsigned)(14 - ex);
        uint32_t h = man >> shift, rem = man & ((1u << shift) - 1),
                 halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (h & 1))) h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)ex << 10) | (man >> 13), rem = man & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++;
    return (uint16_t)(sign | h);
}

/* `row` holds dim floats of scratch. */
static void gen_features_half(const job_t *j, uint64_t first, uint64_t n,
                              float *row, uint16_t *out)
{
    uint64_t d = j->dim;
    for (uint64_t i = first; i < first + n; i++) {
        uint16_t *o = out + (i - first) * d;
        row_values(j, i, row);
        for (uint64_t c = 0; c < d; c++) o[c] = htole16(float_to_half(row[c]));
    }
}

static void gen_labels(const job_t *j, uint64_t first, uint64_t n, int64_t *out)
{
    for (uint64_t i = first; i < first + n; i++) {
        uint64_t r = mix64(j->key ^ (i * 0x9e3779b97f4a7c15ULL));
        out[i - first] = (int64_t)htole64(((r >> 32) * j->classes) >> 32);
    }
}

static int pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = pwrite(fd, p, len, off);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
        off += w;
    }
    return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* A pipe: wait for chunk c's turn, write it, pass the turn on.  A failed
** write passes it on too, so that no thread waits for ever. */
static int stream_write(job_t *j, uint64_t c, const void *buf, size_t len)
{
    pthread_mutex_lock(&j->turn_mu);
    while (j->turn != c && !atomic_load(&j->failed))
        pthread_cond_wait(&j->turn_cv, &j->turn_mu);
    pthread_mutex_unlock(&j->turn_mu);
    int rc = atomic_load(&j->failed) ? 0 : write_all(j->fd, buf, len);
    int err = errno;
    pthread_mutex_lock(&j->turn_mu);
    j->turn++;
    pthread_cond_broadcast(&j->turn_cv);
    pthread_mutex_unlock(&j->turn_mu);
    errno = err;
    return rc;
}

static void *worker(void *arg)
{
    job_t *j = arg;
    void *buf = malloc(j->per_chunk * j->item_bytes);
    float *row = j->half ? malloc(j->dim * sizeof *row) : NULL;
    if (buf == NULL || (j->half && row == NULL)) {
        free(buf);
        free(row);
        int expected = 0;
        if (atomic_compare_exchange_strong(&j->failed, &expected, 1)) j->err = ENOMEM;
        return NULL;
    }
    for (;;) {
        if (atomic_load(&j->failed)) break;
        uint64_t c = atomic_fetch_add(&j->next_chunk, 1);
        if (c >= j->nchunks) break;
        uint64_t first = c * j->per_chunk;
        uint64_t n = j->items - first < j->per_chunk ? j->items - first : j->per_chunk;
        switch (j->kind) {
        case KIND_EDGES: gen_edges(j, first, n, buf); break;
        case KIND_FEATURES:
            if (j->half) gen_features_half(j, first, n, row, buf);
            else gen_features(j, first, n, buf);
            break;
        case KIND_LABELS: gen_labels(j, first, n, buf); break;
        }
        int wrc = j->stream
                  ? stream_write(j, c, buf, n * j->item_bytes)
                  : pwrite_all(j->fd, buf, n * j->item_bytes,
                               j->base + (off_t)(first * j->item_bytes));
        if (wrc != 0) {
            int expected = 0;
            if (atomic_compare_exchange_strong(&j->failed, &expected, 1)) j->err = errno;
            /* wake the threads waiting for their turn: they stop */
            pthread_mutex_lock(&j->turn_mu);
            pthread_cond_broadcast(&j->turn_cv);
            pthread_mutex_unlock(&j->turn_mu);
            break;
        }
        atomic_fetch_add(&j->done_items, n);
    }
    free(buf);
    free(row);
    return NULL;
}

/* A .npy v1.0 header: magic, version, little-endian u16 length, then the
** dict padded with spaces and a newline so that data starts at a multiple of
** 64 bytes, as numpy itself writes it. */
static size_t npy_header(char *out, size_t cap, const char *descr, const char *shape)
{
    char dict[256];
    int n = snprintf(dict, sizeof dict,
                     "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     descr, shape);
    size_t total = 10 + (size_t)n + 1;
    total = (total + 63) / 64 * 64;
    if (total > cap) return 0;
    size_t hlen = total - 10;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (char)(hlen & 0xff);
    out[9] = (char)(hlen >> 8);
    memcpy(out + 10, dict, (size_t)n);
    memset(out + 10 + n, ' ', hlen - (size_t)n - 1);
    out[total - 1] = '\n';
    return total;
}

/* Runs one job over `threads` workers; the calling thread reports progress.
** Returns 0, or -1 with a message printed. */
static int run_job(job_t *j, int threads, const char *what)
{
    pthread_t tid[MAX_THREADS];
    int started = 0, tty = isatty(2);
    double t0 = now(), last = t0;

    for (; started < threads; started++)
        if (pthread_create(&tid[started], NULL, worker, j) != 0) break;
    if (started == 0) {
        fprintf(stderr, "gen: cannot start a thread\n");
        return -1;
    }
    if (tty) {
        while (atomic_load(&j->done_items) < j->items && !atomic_load(&j->failed)) {
            struct timespec ts = { 0, 50 * 1000 * 1000 };
            nanosleep(&ts, NULL);
            double t = now();
            if (t - last < 0.25) continue;
            last = t;
            uint64_t d = atomic_load(&j->done_items);
            fprintf(stderr, "\rgen: %s %5.1f%%  %.1f M/s   ", what,
                    100.0 * (double)d / (double)j->items, (double)d / (t - t0) / 1e6);
        }
    }
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
    if (tty) fprintf(stderr, "\r%60s\r", "");
    if (atomic_load(&j->failed)) {
        fprintf(stderr, "gen: %s: %s\n", j->path, strerror(j->err));
        return -1;
    }
    return 0;
}

static int open_out(const char *path)
{
    if (strcmp(path, "-") == 0) return 1;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) fprintf(stderr, "gen: %s: %s\n", path, strerror(errno));
    return fd;
}

/* A pipe, FIFO or terminal: no offsets, so chunks are written in order. */
static int is_stream(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && !S_ISREG(st.st_mode);
}

static int finish_file(int fd, const char *path, uint64_t size)
{
    if (is_stream(fd)) {
        if (fd != 1 && close(fd) != 0) {
            fprintf(stderr, "gen: %s: %s\n", path, strerror(errno));
            return -1;
        }
        return 0;
    }
    /* ftruncate covers a zero-item file, and pins the size if a chunk
    ** were ever short. */
    if (ftruncate(fd, (off_t)size) != 0 || close(fd) != 0) {
        fprintf(stderr, "gen: %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
"usage: gen --scale S [options]\n"
"R-MAT graph (Graph500 a=0.57 b=0.19 c=0.19 d=0.05) over 2^S nodes,\n"
"deterministic by seed, node ids relabelled by a seeded bijection.\n"
"  --scale S          2^S nodes (1..%d; default 16)\n"
"  --edge-factor F    F * 2^S edges (default 16)\n"
"  --seed N           seed (default 1)\n"
"  --out FILE         edges: little-endian int64 pairs (src, dst); '-' or a\n"
"                     FIFO: written in order to the pipe (the summary line\n"
"                     then goes to stderr when it is stdout)\n"
"  --features FILE    .npy of shape (2^S, D), values in [-1, 1)\n"
"  --dim D            feature width (default 128)\n"
"  --dtype T          float32 (default) or float16: the features' dtype\n"
"  --labels FILE      int64 .npy of shape (2^S,), values in [0, K)\n"
"  --classes K        number of classes (default 16)\n"
"  --threads T        worker threads (default: online CPUs); output does not\n"
"                     depend on it\n"
"  --help             this text\n"
"Prints one summary line on stdout.\n", MAX_SCALE);
}

static int parse_u64(const char *s, const char *opt, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi) {
        fprintf(stderr, "gen: %s wants an integer in [%llu, %llu], not '%s'\n",
                opt, (unsigned long long)lo, (unsigned long long)hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t scale = 16, ef = 16, seed = 1, dim = 128, classes = 16, threads = 0;
    const char *out = NULL, *feat = NULL, *labels = NULL;
    int half = 0;
    static const struct option opts[] = {
        { "scale", required_argument, NULL, 's' },
        { "edge-factor", required_argument, NULL, 'e' },
        { "seed", required_argument, NULL, 'r' },
        { "out", required_argument, NULL, 'o' },
        { "features", required_argument, NULL, 'f' },
        { "dim", required_argument, NULL, 'd' },
        { "labels", required_argument, NULL, 'l' },
        { "classes", required_argument, NULL, 'k' },
        { "threads", required_argument, NULL, 't' },
        { "dtype", required_argument, NULL, 'y' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        int rc = 0;
        switch (c) {
        case 's': rc = parse_u64(optarg, "--scale", 1, MAX_SCALE, &scale); break;
        case 'e': rc = parse_u64(optarg, "--edge-factor", 0, 1 << 20, &ef); break;
        case 'r': rc = parse_u64(optarg, "--seed", 0, UINT64_MAX, &seed); break;
        case 'o': out = optarg; break;
        case 'f': feat = optarg; break;
        case 'd': rc = parse_u64(optarg, "--dim", 1, 1 << 20, &dim); break;
        case 'l': labels = optarg; break;
        case 'k': rc = parse_u64(optarg, "--classes", 1, UINT32_MAX, &classes); break;
        case 't': rc = parse_u64(optarg, "--threads", 1, MAX_THREADS, &threads); break;
        case 'y':
            if (!strcmp(optarg, "float16")) half = 1;
            else if (!strcmp(optarg, "float32")) half = 0;
            else {
                fprintf(stderr, "gen: --dtype wants float32 or float16, not '%s'\n",
                        optarg);
                rc = -1;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        if (rc) return 2;
    }
    if (optind < argc) {
        fprintf(stderr, "gen: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    if (!out && !feat && !labels) {
        fprintf(stderr, "gen: nothing to write: give --out, --features or --labels\n");
        usage(stderr);
        return 2;
    }
    if ((feat && !strcmp(feat, "-")) || (labels && !strcmp(labels, "-"))) {
        fprintf(stderr, "gen: only --out may be '-': .npy files are written "
                "at offsets\n");
        return 2;
    }
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (uint64_t)n;
    }

    uint64_t nodes = 1ULL << scale, edges = ef * nodes;
    double t0 = now();
    char hdr[256], shape[96];

    if (out) {
        job_t *j = calloc(1, sizeof *j);
        if (!j) return 1;
        j->kind = KIND_EDGES;
        j->path = out;
        j->scale = (unsigned)scale;
        j->key = key_of(seed, TAG_EDGE);
        perm_init(&j->perm, seed, (unsigned)scale);
        j->thr_a = (uint32_t)(0.57 * 65536 + 0.5);
        j->thr_ab = (uint32_t)(0.76 * 65536 + 0.5);
        j->thr_abc = (uint32_t)(0.95 * 65536 + 0.5);
        j->items = edges;
        j->item_bytes = 16;
        j->per_chunk = CHUNK_BYTES / 16;
        j->nchunks = (edges + j->per_chunk - 1) / j->per_chunk;
        pthread_mutex_init(&j->turn_mu, NULL);
        pthread_cond_init(&j->turn_cv, NULL);
        if ((j->fd = open_out(out)) < 0) return 1;
        j->stream = is_stream(j->fd);
        if (run_job(j, (int)threads, "edges") != 0) return 1;
        if (finish_file(j->fd, out, edges * 16) != 0) return 1;
        free(j);
    }
    double t_edges = now() - t0;

    if (feat) {
        job_t *j = calloc(1, sizeof *j);
        if (!j) return 1;
        snprintf(shape, sizeof shape, "(%llu, %llu)",
                 (unsigned long long)nodes, (unsigned long long)dim);
        size_t h = npy_header(hdr, sizeof hdr, half ? "<f2" : "<f4", shape);
        j->kind = KIND_FEATURES;
        j->path = feat;
        j->key = key_of(seed, TAG_FEAT);
        j->dim = dim;
        j->half = half;
        j->items = nodes;
        j->item_bytes = dim * (half ? 2 : 4);
        j->per_chunk = CHUNK_BYTES / j->item_bytes ? CHUNK_BYTES / j->item_bytes : 1;
        j->nchunks = (nodes + j->per_chunk - 1) / j->per_chunk;
        j->base = (off_t)h;
        if ((j->fd = open_out(feat)) < 0) return 1;
        if (pwrite_all(j->fd, hdr, h, 0) != 0) {
            fprintf(stderr, "gen: %s: %s\n", feat, strerror(errno));
            return 1;
        }
        if (run_job(j, (int)threads, "features") != 0) return 1;
        if (finish_file(j->fd, feat, h + nodes * j->item_bytes) != 0) return 1;
        free(j);
    }

    if (labels) {
        job_t *j = calloc(1, sizeof *j);
        if (!j) return 1;
        snprintf(shape, sizeof shape, "(%llu,)", (unsigned long long)nodes);
        size_t h = npy_header(hdr, sizeof hdr, "<i8", shape);
        j->kind = KIND_LABELS;
        j->path = labels;
        j->key = key_of(seed, TAG_LABEL);
        j->classes = classes;
        j->items = nodes;
        j->item_bytes = 8;
        j->per_chunk = CHUNK_BYTES / 8;
        j->nchunks = (nodes + j->per_chunk - 1) / j->per_chunk;
        j->base = (off_t)h;
        if ((j->fd = open_out(labels)) < 0) return 1;
        if (pwrite_all(j->fd, hdr, h, 0) != 0) {
            fprintf(stderr, "gen: %s: %s\n", labels, strerror(errno));
            return 1;
        }
        if (run_job(j, (int)threads, "labels") != 0) return 1;
        if (finish_file(j->fd, labels, h + nodes * 8) != 0) return 1;
        free(j);
    }

    double t = now() - t0;
    /* stdout may be carrying the edges */
    FILE *so = out && strcmp(out, "-") == 0 ? stderr : stdout;
    fprintf(so, "gen: scale=%llu nodes=%llu edges=%llu seed=%llu threads=%llu",
            (unsigned long long)scale, (unsigned long long)nodes,
            (unsigned long long)(out ? edges : 0), (unsigned long long)seed,
            (unsigned long long)threads);
    if (out)
        fprintf(so, " edge_seconds=%.3f edges_per_s=%.0f", t_edges,
                t_edges > 0 ? (double)edges / t_edges : 0.0);
    if (feat)
        fprintf(so, " dim=%llu dtype=%s", (unsigned long long)dim,
                half ? "float16" : "float32");
    if (labels) fprintf(so, " classes=%llu", (unsigned long long)classes);
    fprintf(so, " seconds=%.3f\n", t);
    return 0;
}
