/* test_io.c — both read backends: many random O_DIRECT reads in flight,
** vectored reads, reads across end of file, errors and misuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "io.h"
#include "util.h"

#define FILE_BYTES (8u << 20)
#define CHUNK      4096u

typedef struct fx {
    char *dir;
    char path[1024];
    int fd;      /* O_DIRECT when the file system allows */
    int kind;    /* backend under test */
} fx;

/* Every 8-byte word of the file holds its own offset. */
static uint64_t word_at(uint64_t off) { return off / 8 * 0x10001ull + 3; }

static int setup_kind(void **state, int kind)
{
    fx *x = calloc(1, sizeof *x);
    x->kind = kind;
    x->dir = tu_tmpdir("test_io");
    if (!x->dir) return -1;
    snprintf(x->path, sizeof x->path, "%s/data.bin", x->dir);
    uint64_t *w = malloc(FILE_BYTES);
    for (uint64_t i = 0; i < FILE_BYTES / 8; i++) w[i] = word_at(i * 8);
    int rc = tu_write_file(x->path, w, FILE_BYTES);
    free(w);
    if (rc) return -1;
    x->fd = open(x->path, O_RDONLY | O_DIRECT);
    if (x->fd < 0 && errno == EINVAL) x->fd = open(x->path, O_RDONLY);
    if (x->fd < 0) return -1;
    *state = x;
    return 0;
}

static int setup_uring(void **state) { return setup_kind(state, IO_URING); }
static int setup_pread(void **state) { return setup_kind(state, IO_PREAD); }

static int teardown(void **state)
{
    fx *x = *state;
    close(x->fd);
    tu_rmrf(x->dir);
    free(x->dir);
    free(x);
    return 0;
}

/* The backend of the fixture's kind, or a skip when io_uring is refused
** here (old kernel, seccomp, io_uring_disabled). */
static io_backend *open_backend(fx *x, unsigned depth)
{
    io_backend *io = NULL;
    gnn_err e;
    int rc = io_open(x->kind, depth, &io, &e);
    if (rc && x->kind == IO_URING) {
        print_message("skip: %s\n", e.msg);
        return NULL;
    }
    assert_int_equal(rc, GNNDB_OK);
    assert_int_equal(io_kind(io), x->kind);
    assert_string_equal(io_name(io), x->kind == IO_URING ? "uring" : "pread");
    return io;
}

static void check_words(const void *buf, uint64_t off, size_t len)
{
    const uint64_t *w = buf;
    for (size_t i = 0; i < len / 8; i++)
        if (w[i] != word_at(off + i * 8))
            fail_msg("word at %llu: %llx", (unsigned long long)(off + i * 8),
                     (unsigned long long)w[i]);
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void test_random_reads_many_in_flight(void **state)
{
    fx *x = *state;
    unsigned depth = 48;
    io_backend *io = open_backend(x, depth);
    if (!io) skip();
    assert_int_equal(io_depth(io), depth);
    io_req *reqs = calloc(depth, sizeof *reqs);
    io_req **idle = calloc(depth, sizeof *idle);
    for (unsigned i = 0; i < depth; i++) {
        reqs[i].buf = gnn_alloc_aligned(16 * CHUNK);
        idle[i] = &reqs[i];
    }
    unsigned nidle = depth, most = 0;
    uint64_t s = 12345;
    int issued = 0, completed = 0, total = 3000;
    gnn_err e;
    while (completed < total) {
        while (nidle > 0 && issued < total) {
            io_req *r = idle[--nidle];
            r->fd = x->fd;
            r->len = (uint32_t)(1 + rng_next(&s) % 16) * CHUNK;
            r->offset = rng_next(&s) % (FILE_BYTES / CHUNK - 16) * CHUNK;
            r->user = r;
            assert_int_equal(io_submit(io, r, &e), GNNDB_OK);
            issued++;
        }
        if (io_inflight(io) > most) most = io_inflight(io);
        assert_int_equal(io_flush(io, &e), GNNDB_OK);
        io_req *done;
        assert_int_equal(io_wait(io, &done, &e), GNNDB_OK);
        assert_ptr_equal(done->user, done);
        assert_int_equal(done->result, done->len);
        check_words(done->buf, done->offset, done->len);
        idle[nidle++] = done;
        completed++;
    }
    assert_int_equal(io_inflight(io), 0);
    assert_int_equal(most, depth);
    io_close(io);
    for (unsigned i = 0; i < depth; i++) gnn_free_aligned(reqs[i].buf);
    free(reqs);
    free(idle);
}

static void test_vectored_read_fills_each_buffer(void **state)
{
    fx *x = *state;
    io_backend *io = open_backend(x, 8);
    if (!io) skip();
    struct iovec iov[5];
    uint32_t lens[5] = { CHUNK, 3 * CHUNK, CHUNK, 2 * CHUNK, CHUNK };
    uint64_t total = 0;
    for (int i = 0; i < 5; i++) {
        iov[i].iov_base = gnn_alloc_aligned(lens[i]);
        iov[i].iov_len = lens[i];
        total += lens[i];
    }
    io_req r = { .fd = x->fd, .offset = 100 * CHUNK, .iov = iov, .iovcnt = 5 };
    gnn_err e;
    io_req *done;
    assert_int_equal(io_submit(io, &r, &e), GNNDB_OK);
    assert_int_equal(io_wait(io, &done, &e), GNNDB_OK); /* flushes itself */
    assert_ptr_equal(done, &r);
    assert_int_equal(r.result, total);
    uint64_t off = r.offset;
    for (int i = 0; i < 5; i++) {
        check_words(iov[i].iov_base, off, lens[i]);
        off += lens[i];
        gnn_free_aligned(iov[i].iov_base);
    }
    io_close(io);
}

static void test_read_across_end_of_file_is_short(void **state)
{
    fx *x = *state;
    io_backend *io = open_backend(x, 4);
    if (!io) skip();
    void *buf = gnn_alloc_aligned(8 * CHUNK);
    io_req r = { .fd = x->fd, .offset = FILE_BYTES - 2 * CHUNK,
                 .len = 8 * CHUNK, .buf = buf };
    gnn_err e;
    io_req *done;
    assert_int_equal(io_submit(io, &r, &e), GNNDB_OK);
    assert_int_equal(io_flush(io, &e), GNNDB_OK);
    assert_int_equal(io_wait(io, &done, &e), GNNDB_OK);
    assert_int_equal(done->result, 2 * CHUNK);
    check_words(buf, r.offset, 2 * CHUNK);
    r.offset = FILE_BYTES; /* at the end: nothing */
    assert_int_equal(io_submit(io, &r, &e), GNNDB_OK);
    assert_int_equal(io_wait(io, &done, &e), GNNDB_OK);
    assert_int_equal(done->result, 0);
    gnn_free_aligned(buf);
    io_close(io);
}

static void test_failed_read_reports_errno(void **state)
{
    fx *x = *state;
    io_backend *io = open_backend(x, 4);
    if (!io) skip();
    void *buf = gnn_alloc_aligned(CHUNK);
    io_req r = { .fd = 987654, .offset = 0, .len = CHUNK, .buf = buf };
    gnn_err e;
    io_req *done;
    assert_int_equal(io_submit(io, &r, &e), GNNDB_OK);
    assert_int_equal(io_wait(io, &done, &e), GNNDB_OK);
    assert_int_equal(done->result, -EBADF);
    gnn_free_aligned(buf);
    io_close(io);
}

static void test_depth_exceeded_and_idle_wait_are_misuse(void **state)
{
    fx *x = *state;
    io_backend *io = open_backend(x, 2);
    if (!io) skip();
    void *buf = gnn_alloc_aligned(3 * CHUNK);
    io_req r[3];
    memset(r, 0, sizeof r);
    gnn_err e;
    io_req *done;
    assert_int_equal(io_wait(io, &done, &e), GNNDB_MISUSE);
    for (int i = 0; i < 3; i++) {
        r[i].fd = x->fd;
        r[i].len = CHUNK;
        r[i].offset = (uint64_t)i * CHUNK;
        r[i].buf = (char *)buf + i * CHUNK;
    }
    assert_int_equal(io_submit(io, &r[0], &e), GNNDB_OK);
    assert_int_equal(io_submit(io, &r[1], &e), GNNDB_OK);
    assert_int_equal(io_submit(io, &r[2], &e), GNNDB_MISUSE);
    assert_int_equal(io_inflight(io), 2);
    assert_int_equal(io_wait(io, &done, &e), GNNDB_OK);
    assert_int_equal(io_submit(io, &r[2], &e), GNNDB_OK);
    assert_int_equal(io_wait(io, &done, &e), GNNDB_OK);
    /* one left in flight: io_close must wait for it before returning */
    io_close(io);
    check_words(buf, 0, 3 * CHUNK);
    gnn_free_aligned(buf);
}

static void test_auto_picks_a_working_backend(void **state)
{
    fx *x = *state;
    io_backend *io;
    gnn_err e;
    assert_int_equal(io_open(IO_AUTO, 0, &io, &e), GNNDB_OK);
    assert_true(io_depth(io) >= 32);
    assert_true(io_kind(io) == IO_URING || io_kind(io) == IO_PREAD);
    print_message("IO_AUTO chose %s\n", io_name(io));
    void *buf = gnn_alloc_aligned(CHUNK);
    io_req r = { .fd = x->fd, .offset = 7 * CHUNK, .len = CHUNK, .buf = buf };
    io_req *done;
    assert_int_equal(io_submit(io, &r, &e), GNNDB_OK);
    assert_int_equal(io_wait(io, &done, &e), GNNDB_OK);
    assert_int_equal(done->result, CHUNK);
    check_words(buf, r.offset, CHUNK);
    gnn_free_aligned(buf);
    io_close(io);
    assert_int_equal(io_open(42, 8, &io, &e), GNNDB_MISUSE);
    io_close(NULL);
}

#define BOTH(t)                                                          \
    cmocka_unit_test_setup_teardown(t, setup_uring, teardown),           \
    cmocka_unit_test_setup_teardown(t, setup_pread, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        BOTH(test_random_reads_many_in_flight),
        BOTH(test_vectored_read_fills_each_buffer),
        BOTH(test_read_across_end_of_file_is_short),
        BOTH(test_failed_read_reports_errno),
        BOTH(test_depth_exceeded_and_idle_wait_are_misuse),
        cmocka_unit_test_setup_teardown(test_auto_picks_a_working_backend,
                                        setup_uring, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
