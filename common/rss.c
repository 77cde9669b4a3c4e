/* rss.c — the process's resident bytes from /proc/self, and its memory
** cgroup's limit from /sys/fs/cgroup. Read on demand, never cached: the
** answers change as the process runs, and a statement asks a few times, not
** per row. */
#include "rss.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#ifdef HAVE_VALGRIND
#include <valgrind/valgrind.h>
#endif

int gnn_rss_meaningful(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return 0;
#elif defined(HAVE_VALGRIND)
    return !RUNNING_ON_VALGRIND;
#else
    return 1;
#endif
}

int64_t gnn_rss_now(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return -1;
    long long size = 0, resident = -1;
    int n = fscanf(f, "%lld %lld", &size, &resident);
    fclose(f);
    long page = sysconf(_SC_PAGE_SIZE);
    if (n != 2 || resident < 0 || page <= 0) return -1;
    return (int64_t)resident * page;
}

int64_t gnn_rss_peak(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %lld kB", &kb) == 1) break;
    fclose(f);
    return kb < 0 ? -1 : (int64_t)kb * 1024;
}

int64_t gnn_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return -1;
    char line[256];
    long long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1) break;
    fclose(f);
    return kb < 0 ? -1 : (int64_t)kb * 1024;
}

/* The number in file `path` ("max" or a value past 2^62: no limit). */
static int64_t read_limit(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char buf[64] = "";
    int ok = fgets(buf, sizeof buf, f) != NULL;
    fclose(f);
    if (!ok || !strncmp(buf, "max", 3)) return -1;
    char *end;
    long long v = strtoll(buf, &end, 10);
    if (end == buf || v <= 0 || v >= (1LL << 62)) return -1;
    return (int64_t)v;
}

/* The smallest limit named `file` in directory root/rel and each of its
** parents up to root, -1 when none has one. */
static int64_t walk_up(const char *root, const char *rel, const char *file)
{
    char dir[1024], path[1100];
    int64_t best = -1;
    snprintf(dir, sizeof dir, "%s%s", root, rel);
    size_t rootlen = strlen(root);
    for (;;) {
        size_t n = strlen(dir);
        while (n > rootlen && dir[n - 1] == '/') dir[--n] = 0;
        snprintf(path, sizeof path, "%s/%s", dir, file);
        int64_t v = read_limit(path);
        if (v > 0 && (best < 0 || v < best)) best = v;
        char *slash = strrchr(dir, '/');
        if (n <= rootlen || !slash || (size_t)(slash - dir) < rootlen) break;
        *slash = 0;
    }
    return best;
}

static int64_t min_limit(int64_t a, int64_t b)
{
    if (a < 0) return b;
    if (b < 0) return a;
    return a < b ? a : b;
}

int64_t gnn_cgroup_limit(void)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f) return -1;
    char line[1024];
    int64_t best = -1;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        /* "ID:CONTROLLERS:PATH"; v2 has no controllers ("0::/path") */
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) continue;
        *c2 = 0;
        const char *ctl = c1 + 1, *rel = c2 + 1;
        if (!*ctl) {
            best = min_limit(best, walk_up("/sys/fs/cgroup", rel, "memory.max"));
            best = min_limit(best, walk_up("/sys/fs/cgroup/unified", rel,
                                           "memory.max"));
        } else if (strstr(ctl, "memory")) {
            best = min_limit(best, walk_up("/sys/fs/cgroup/memory", rel,
                                           "memory.limit_in_bytes"));
        }
    }
    fclose(f);
    return best;
}

void gnn_heap_trim(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}
