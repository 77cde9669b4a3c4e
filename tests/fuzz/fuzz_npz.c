/* fuzz_npz.c — libFuzzer target for .npz files: npz.c's zip parsing, and
** arr_open over the bytes as a file (npz.c, then gz.c inflating a member,
** npy.c parsing it, array.c transposing a Fortran-order one).
**
** A member found lies inside the file (its bytes, and a stored one's two
** sizes agree); an array opened has a sane shape in C order and all its
** rows can be read; every refusal names the file (and the member). */
#include "array.h"
#include "npz.h"

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

static void check_member(const uint8_t *data, size_t size, const char *key)
{
    npz_member m;
    gnn_err e = {0};
    int rc = npz_find_mem(data, size, "fuzz.npz", key, &m, &e);
    if (rc != GNNDB_OK) {
        CHECK(e.rc == rc && strstr(e.msg, "fuzz.npz") != NULL);
        return;
    }
    CHECK(m.method == NPZ_STORED || m.method == NPZ_DEFLATED);
    CHECK(m.data_off <= size && m.csize <= size - m.data_off);
    CHECK(m.method != NPZ_STORED || m.csize == m.usize);
    CHECK(!key || strcmp(m.key, key) == 0);
}

static void check_array(const char *key)
{
    arr_src a;
    gnn_err e = {0};
    int rc = arr_open(path, key, dir, &a, &e);
    if (rc != GNNDB_OK) {
        CHECK(e.rc == rc && strstr(e.msg, "f.npz") != NULL);
        arr_close(&a);
        return;
    }
    const npy_info *in = &a.info;
    CHECK(in->fortran == 0 && (in->ndim == 1 || in->ndim == 2));
    CHECK(in->shape[0] >= 0 && in->shape[1] >= 0);
    uint64_t bytes = (uint64_t)in->shape[0] * (uint64_t)in->shape[1] *
                     in->elem_size;
    if (bytes <= (64u << 20) && in->shape[0] > 0) {
        void *rows = malloc(bytes);
        CHECK(rows);
        CHECK(arr_read_rows(&a, 0, in->shape[0], rows, &e) == GNNDB_OK);
        free(rows);
    }
    arr_close(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_member(data, size, NULL);
    check_member(data, size, "x");
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/gnndb-fuzz-npz-%d", (int)getpid());
        if (mkdir(dir, 0700) != 0) return 0;
        snprintf(path, sizeof path, "%s/f.npz", dir);
        atexit(cleanup);
    }
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    size_t w = fwrite(data, 1, size, f);
    fclose(f);
    if (w != size) return 0;
    check_array(NULL);
    check_array("x");
    return 0;
}
