/* failalloc.c — a library preloaded (LD_PRELOAD) into the shell to make one
** allocation fail, for the end-to-end test of allocation failures
** (tests/e2e/alloc_faults.sh). Not part of the library or its tests'
** link: it lives apart from tests/*.c so that no unit program links it.
**
**   GNNDB_FAIL_ALLOC=n            the n-th allocation of the process (from 1,
**                                 counting every call of malloc, calloc,
**                                 realloc to a new size, posix_memalign,
**                                 aligned_alloc, memalign and valloc) returns
**                                 NULL with errno ENOMEM; every other one
**                                 succeeds
**   GNNDB_FAIL_ALLOC_FROM=1       every allocation from the n-th on fails
**   GNNDB_FAIL_ALLOC_COUNT=FILE   at exit, the number of allocations made is
**                                 written to FILE (to size a sweep of n)
**
** The calls go on to glibc's own entry points (__libc_malloc and the
** like), so nothing here calls dlsym, whose own calloc would recurse. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);

static atomic_long calls;
static long fail_at;          /* the n to fail; 0: none */
static int fail_from;
static const char *count_file;

static void report(void)
{
    FILE *f = fopen(count_file, "w");
    if (!f) return;
    fprintf(f, "%ld\n", (long)atomic_load(&calls));
    fclose(f);
}

/* The settings, read once (getenv allocates nothing). */
static void setup(void)
{
    static atomic_int done;
    if (atomic_exchange(&done, 1)) return;
    const char *s = getenv("GNNDB_FAIL_ALLOC");
    fail_at = s && *s ? atol(s) : 0;
    fail_from = getenv("GNNDB_FAIL_ALLOC_FROM") != NULL;
    count_file = getenv("GNNDB_FAIL_ALLOC_COUNT");
    if (count_file) atexit(report);
}

/* Whether this allocation is the one to fail. */
static int fails(void)
{
    setup();
    long n = atomic_fetch_add(&calls, 1) + 1;
    if (fail_at <= 0) return 0;
    if (n == fail_at || (fail_from && n > fail_at)) {
        errno = ENOMEM;
        return 1;
    }
    return 0;
}

void *malloc(size_t n)
{
    return fails() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    return fails() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    if (p && n == 0) return __libc_realloc(p, 0);   /* a free */
    return fails() ? NULL : __libc_realloc(p, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    if (align < sizeof(void *) || (align & (align - 1))) return EINVAL;
    if (fails()) return ENOMEM;
    void *p = __libc_memalign(align, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t n)
{
    return fails() ? NULL : __libc_memalign(align, n);
}

void *memalign(size_t align, size_t n)
{
    return fails() ? NULL : __libc_memalign(align, n);
}

void *valloc(size_t n)
{
    return fails() ? NULL : __libc_memalign(4096, n);
}
