/* sync_dir.c — making a rename durable: fsync of the directory that holds
** the renamed file. The writers of block files (storage/blockfile.c) and
** of segment maps (storage/segmap.c) publish by rename, and share this. */
#include "sync_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int gnn_sync_dir(const char *dir, gnn_err *e)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return gnn_seterr_errno(e, GNNDB_IOERR, errno, "cannot open "
                                "directory %s", dir);
    int rc = GNNDB_OK;
    if (fsync(fd) != 0)
        rc = gnn_seterr_errno(e, GNNDB_IOERR, errno, "fsync of directory %s",
                              dir);
    close(fd);
    return rc;
}
