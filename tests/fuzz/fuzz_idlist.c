/* fuzz_idlist.c — libFuzzer target for GATHER's ROWS 'ids.npy': the bytes
** as a .npy file read by idlist.c (array.c opening it, npy.c parsing its
** header, a Fortran-order column copied through a scratch file).
**
** A list read has as many ids as the header's rows, each equal to the
** element the file holds; a refusal names the file. */
#include "idlist.h"
#include "array.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static char dir[64], path[96];

static void cleanup(void)
{
    unlink(path);
    rmdir(dir);
}

/* The ids read agree with the file read again row by row. */
static void check_ids(const int64_t *ids, size_t n)
{
    arr_src a;
    gnn_err e = {0};
    CHECK(arr_open(path, NULL, dir, &a, &e) == GNNDB_OK);
    CHECK((size_t)a.info.shape[0] == n);
    unsigned char el[16];
    for (size_t i = 0; i < n && i < 4096; i++) {
        CHECK(arr_read_rows(&a, (int64_t)i, 1, el, &e) == GNNDB_OK);
        CHECK(npy_get_i(&a.info, el, 0) == ids[i]);
    }
    arr_close(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/gnndb-fuzz-idl-%d", (int)getpid());
        if (mkdir(dir, 0700) != 0) return 0;
        snprintf(path, sizeof path, "%s/ids.npy", dir);
        atexit(cleanup);
    }
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    size_t w = fwrite(data, 1, size, f);
    fclose(f);
    if (w != size) return 0;
    int64_t *ids = NULL;
    size_t n = 0;
    gnn_err e = {0};
    int rc = idl_read(path, dir, (size_t)1 << 22, &ids, &n, &e);
    if (rc != GNNDB_OK) {
        CHECK(ids == NULL && n == 0);
        CHECK(e.rc == rc && strstr(e.msg, "ids.npy") != NULL);
        return 0;
    }
    check_ids(ids, n);
    free(ids);
    return 0;
}
