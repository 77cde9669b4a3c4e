/* io_backend.h — what io.c dispatches to: the io_uring backend (iou_*) and
** the pread thread pool (iop_*), and a helper both use for short vectored
** reads. Internal to storage/. Each `impl` is the backend's own state; the
** front does the counting and the argument checks, so a backend may assume
** at most `depth` reads in flight. */
#ifndef GNN_IO_BACKEND_H
#define GNN_IO_BACKEND_H

#include <stdint.h>
#include <sys/uio.h>
#include "io.h"

int iou_open(unsigned depth, void **impl, gnn_err *e);
void iou_close(void *impl);
int iou_submit(void *impl, io_req *r, gnn_err *e);
int iou_flush(void *impl, gnn_err *e);
int iou_wait(void *impl, io_req **done, gnn_err *e);

int iop_open(unsigned depth, void **impl, gnn_err *e);
void iop_close(void *impl);
int iop_submit(void *impl, io_req *r, gnn_err *e);
int iop_flush(void *impl, gnn_err *e);
int iop_wait(void *impl, io_req **done, gnn_err *e);

/* The part of iov[0..n) after its first `skip` bytes, into dst (n slots):
** how a read that came back short is resumed. Returns the slots used. */
int io_iov_skip(const struct iovec *src, int n, uint64_t skip,
                struct iovec *dst);

#endif
