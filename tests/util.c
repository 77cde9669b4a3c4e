/* util.c — helpers shared by the cmocka test programs. */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *tu_data_dir(void)
{
    const char *d = getenv("GNNDB_DATA");
    return (d && *d) ? d : "../shared/data";
}

const char *tu_data(int slot, const char *rel)
{
    static char buf[8][1024]; /* test-only convenience */
    snprintf(buf[slot & 7], sizeof buf[0], "%s/%s", tu_data_dir(), rel);
    return buf[slot & 7];
}

char *tu_tmpdir(const char *tag)
{
    const char *base = getenv("GNNDB_TMP");
    if (!base || !*base) base = "/tmp";
    char *p = malloc(1024);
    snprintf(p, 1024, "%s/%s.XXXXXX", base, tag);
    if (!mkdtemp(p)) { free(p); return NULL; }
    return p;
}

void tu_rmrf(const char *path)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0) { /* best effort */ }
}

int tu_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(data, 1, len, f);
    return (fclose(f) == 0 && w == len) ? 0 : -1;
}

char *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    fclose(f);
    if (b) { b[n] = 0; if (len) *len = (size_t)n; }
    return b;
}
