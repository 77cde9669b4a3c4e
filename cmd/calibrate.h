/* calibrate.h — measuring the disk profile of a database (PRAGMA
** calibrate = measure) and editing it by hand. */
#ifndef GNN_CALIBRATE_H
#define GNN_CALIBRATE_H

#include "db.h"

/* Measure the disk under db->dir and this machine's memory rates into *pr
** (source "measured"). Writes and removes a 64 MiB scratch file. Stores
** nothing. */
int calibrate_measure(gnndb *db, cat_profile *pr, gnn_err *e);

#endif
