/* fuzz_timecol.c — libFuzzer target: tc_parse (the time column reader of
** IMPORT EDGE TIMES, IMPORT NODE TIMES and AT TIMES) over any bytes. A
** column is either taken whole, int64 and of the count asked for, or
** refused with words naming the file and nothing returned; it never reads
** outside the buffer (ASan) or crashes. The first byte picks the count
** asked for (-1: any). */
#include "timecol.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int64_t expect = data[0] == 0xff ? -1 : data[0];
    int64_t *t = NULL;
    size_t n = 99;
    gnn_err e = {0};
    int rc = tc_parse(data + 1, size - 1, "fuzz.npy", "edge times", expect,
                      &t, &n, &e);
    if (rc == GNNDB_OK) {
        CHECK(t != NULL);
        CHECK(expect < 0 || n == (size_t)expect);
        CHECK(n * 8 <= size - 1);
        /* the values are the file's last n * 8 bytes, as they were */
        CHECK(n == 0 || memcmp(t, data + size - n * 8, n * 8) == 0);
        free(t);
    } else {
        CHECK(t == NULL && n == 0);
        CHECK(rc == GNNDB_FORMAT || rc == GNNDB_RANGE || rc == GNNDB_NOMEM);
        CHECK(e.rc == rc && e.msg[0] != 0);
        CHECK(memchr(e.msg, 0, sizeof e.msg) != NULL);
        CHECK(strstr(e.msg, "fuzz.npy") != NULL);
    }
    return 0;
}
