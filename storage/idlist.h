/* idlist.h — a list of ids read from a .npy file or an .npz member (GATHER
** ... ROWS 'ids.npy'): one integer column, any integer dtype numpy writes,
** C or Fortran order, as int64 in the order of the file. */
#ifndef GNN_IDLIST_H
#define GNN_IDLIST_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"

/* Read the ids of `path` (an .npz: its only member) into *ids (malloc'd,
** the caller frees) and their count into *n, refusing more than `max`
** (their memory: GNNDB_NOMEM naming it). A float or bool array, more than
** one column, an unsigned id above INT64_MAX or a damaged file is
** GNNDB_FORMAT with words naming the file. Scratch copies (a deflated
** member, a Fortran-order array) go to `tmpdir`. */
int idl_read(const char *path, const char *tmpdir, size_t max, int64_t **ids,
             size_t *n, gnn_err *e);

#endif
