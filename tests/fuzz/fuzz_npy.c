/* fuzz_npy.c — libFuzzer target: npy_parse_header over any bytes. A header
** is either accepted with a sane npy_info or refused with GNNDB_FORMAT and
** words; it never reads outside the buffer (ASan) or crashes. */
#include "npy.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    npy_info info;
    gnn_err e = {0};
    int rc = npy_parse_header(data, size, &info, "fuzz.npy", &e);
    if (rc == GNNDB_OK) {
        CHECK(e.rc == GNNDB_OK);
        CHECK(info.ndim == 1 || info.ndim == 2);
        CHECK(info.shape[0] >= 0 && info.shape[1] >= 0);
        CHECK(info.ndim == 2 || info.shape[1] == 1);
        CHECK(info.elem_size == 1 || info.elem_size == 2 ||
              info.elem_size == 4 || info.elem_size == 8);
        CHECK(info.dtype >= NPY_F32 && info.dtype <= NPY_BOOL);
        CHECK(info.fortran == 0 || info.fortran == 1);
        CHECK(info.data_offset >= 10 && info.data_offset <= size);
    } else {
        CHECK(rc == GNNDB_FORMAT && e.rc == rc);
        CHECK(e.msg[0] != 0 && memchr(e.msg, 0, sizeof e.msg) != NULL);
        CHECK(strstr(e.msg, "fuzz.npy") != NULL);
    }
    return 0;
}
