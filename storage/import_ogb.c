/* import_ogb.c — OGB node-property datasets as a download unpacks them:
** which files hold the edges, features, labels and splits (binary layout:
** raw/data.npz and raw/node-label.npz; CSV layout: raw/edge.csv.gz and its
** companions), the node count, the split directory to use, and whether
** OGB publishes the dataset with inverse edges added. The importers read
** the files; this file only finds and checks them. */
#include "import.h"
#include "array.h"
#include "npz.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The published datasets whose edges OGB makes undirected (its master.csv:
** add_inverse_edge True); arxiv, papers100M and mag keep their direction. */
static const char *const inverse_edge_sets[] = {
    "products", "proteins", NULL,
};

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* dir/rel into out; the first of `rel` and `rel` less ".gz" that exists
** when alt is set. 1 when it exists. */
static int join(char *out, const char *dir, const char *rel, int alt)
{
    snprintf(out, OGB_PATH_MAX, "%s/%s", dir, rel);
    if (exists(out) || !alt) return exists(out);
    size_t n = strlen(out);
    if (n > 3 && !strcmp(out + n - 3, ".gz")) {
        out[n - 3] = 0;
        if (exists(out)) return 1;
        out[n - 3] = '.';
    }
    return 0;
}

/* The directory's last name without "ogbn_" / "ogbn-": "products". */
static int is_inverse_edge_set(const char *dir)
{
    char b[OGB_PATH_MAX];
    snprintf(b, sizeof b, "%s", dir);
    size_t n = strlen(b);
    while (n > 1 && b[n - 1] == '/') b[--n] = 0;
    const char *s = strrchr(b, '/');
    s = s ? s + 1 : b;
    if (!strncmp(s, "ogbn_", 5) || !strncmp(s, "ogbn-", 5)) s += 5;
    for (int i = 0; inverse_edge_sets[i]; i++)
        if (!strcmp(s, inverse_edge_sets[i])) return 1;
    return 0;
}

/* A count from a one-element array (binary) or one-line file (CSV). */
static int read_count(const char *path, const char *key, const char *tmpdir,
                      int64_t *out, gnn_err *e)
{
    int64_t *v = NULL;
    size_t n = 0;
    int rc = imp_id_list(path, key, tmpdir, &v, &n, e);
    if (rc) return rc;
    const char *s = strrchr(path, '/');
    if (n != 1 || v[0] < 0)
        rc = gnn_seterr(e, GNNDB_FORMAT, "%s%s%s: expected one node count "
                        "(a dataset of one graph), found %zu values",
                        s ? s + 1 : path, key ? ":" : "", key ? key : "", n);
    else
        *out = v[0];
    free(v);
    return rc;
}

/* Does the .npz at path have member `key`? 1, 0, or -1 after an error. */
static int npz_has(const char *path, const char *key, gnn_err *e)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        gnn_seterr_errno(e, GNNDB_IOERR, errno, "cannot read %s", path);
        if (fd >= 0) close(fd);
        return -1;
    }
    npz_member m;
    gnn_err e2 = {0};
    const char *s = strrchr(path, '/');
    int rc = npz_find(fd, (uint64_t)st.st_size, s ? s + 1 : path, key, &m,
                      &e2);
    close(fd);
    if (rc == GNNDB_OK) return 1;
    if (rc == GNNDB_NOTFOUND) return 0;
    gnn_seterr(e, rc, "%s", e2.msg);
    return -1;
}

static int binary_layout(const char *dir, const char *tmpdir, ogb_dataset *d,
                         gnn_err *e)
{
    char *data = d->edges.path;
    join(data, dir, "raw/data.npz", 0);
    d->edges.key = "edge_index";
    int has = npz_has(data, "num_nodes_list", e);
    if (has < 0) return e->rc;
    int rc = read_count(data, has ? "num_nodes_list" : "num_nodes", tmpdir,
                        &d->nodes, e);
    if (rc) return rc;
    if ((has = npz_has(data, "node_feat", e)) < 0) return e->rc;
    if (has) {
        snprintf(d->feat.path, sizeof d->feat.path, "%s", data);
        d->feat.key = "node_feat";
    }
    if ((has = npz_has(data, "node_year", e)) < 0) return e->rc;
    if (has) {
        snprintf(d->year.path, sizeof d->year.path, "%s", data);
        d->year.key = "node_year";
    }
    if (!join(d->labels.path, dir, "raw/node-label.npz", 0))
        return gnn_seterr(e, GNNDB_NOTFOUND, "%s: missing (the labels of an "
                          "ogbn dataset)", d->labels.path);
    d->labels.key = "node_label";
    return GNNDB_OK;
}

static int csv_layout(const char *dir, const char *tmpdir, ogb_dataset *d,
                      gnn_err *e)
{
    char count[OGB_PATH_MAX];
    if (!join(count, dir, "raw/num-node-list.csv.gz", 1))
        return gnn_seterr(e, GNNDB_NOTFOUND, "%s: missing (the node count of "
                          "an ogbn dataset)", count);
    int rc = read_count(count, NULL, tmpdir, &d->nodes, e);
    if (rc) return rc;
    if (!join(d->feat.path, dir, "raw/node-feat.csv.gz", 1))
        d->feat.path[0] = 0;
    if (!join(d->year.path, dir, "raw/node_year.csv.gz", 1))
        d->year.path[0] = 0;
    if (!join(d->labels.path, dir, "raw/node-label.csv.gz", 1))
        return gnn_seterr(e, GNNDB_NOTFOUND, "%s: missing (the labels of an "
                          "ogbn dataset)", d->labels.path);
    return GNNDB_OK;
}

int ogb_pick_split(const char *dir, const char *split, char *name,
                   size_t cap, gnn_err *e)
{
    char sd[OGB_PATH_MAX], list[512] = "";
    snprintf(sd, sizeof sd, "%s/split", dir);
    if (split) {
        snprintf(name, cap, "%s", split);
        return GNNDB_OK;
    }
    DIR *dp = opendir(sd);
    if (!dp)
        return gnn_seterr_errno(e, errno == ENOENT ? GNNDB_NOTFOUND
                                                   : GNNDB_IOERR,
                                errno, "%s: no split directory", sd);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(dp))) {
        char p[OGB_PATH_MAX + 260];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", sd, de->d_name);
        if (de->d_name[0] == '.' || stat(p, &st) || !S_ISDIR(st.st_mode))
            continue;
        if (n++ == 0) snprintf(name, cap, "%s", de->d_name);
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s'%s'", l ? ", " : "",
                 de->d_name);
    }
    closedir(dp);
    if (n == 1) return GNNDB_OK;
    if (n == 0)
        return gnn_seterr(e, GNNDB_NOTFOUND, "%s: no split in it", sd);
    return gnn_seterr(e, GNNDB_MISUSE, "%s: %d splits (%s); choose one with "
                      "SPLIT 'name'", sd, n, list);
}

static int split_files(const char *dir, ogb_dataset *d, gnn_err *e)
{
    static const char *const names[3] = {"train", "valid", "test"};
    for (int k = 0; k < 3; k++) {
        char rel[600];
        snprintf(rel, sizeof rel, "split/%s/%s.csv.gz", d->split_name,
                 names[k]);
        if (!join(d->split[k], dir, rel, 1))
            return gnn_seterr(e, GNNDB_NOTFOUND, "%s: missing (split '%s' "
                              "needs train, valid and test)", d->split[k],
                              d->split_name);
    }
    return GNNDB_OK;
}

int ogb_open(const char *dir, const char *split, const char *tmpdir,
             ogb_dataset *d, gnn_err *e)
{
    memset(d, 0, sizeof *d);
    struct stat st;
    if (stat(dir, &st) != 0)
        return gnn_seterr_errno(e, GNNDB_NOTFOUND, errno, "cannot open "
                                "dataset directory %s", dir);
    if (!S_ISDIR(st.st_mode))
        return gnn_seterr(e, GNNDB_MISUSE, "%s: IMPORT OGB takes a dataset "
                          "directory, not a file", dir);
    char probe[OGB_PATH_MAX];
    int rc;
    if (join(probe, dir, "raw/data.npz", 0)) {
        d->binary = 1;
        rc = binary_layout(dir, tmpdir, d, e);
    } else if (join(d->edges.path, dir, "raw/edge.csv.gz", 1)) {
        rc = csv_layout(dir, tmpdir, d, e);
    } else {
        return gnn_seterr(e, GNNDB_NOTFOUND, "%s: not an OGB node-property "
                          "dataset (neither raw/data.npz nor "
                          "raw/edge.csv.gz)", dir);
    }
    if (!rc) rc = ogb_pick_split(dir, split, d->split_name,
                                 sizeof d->split_name, e);
    if (!rc) rc = split_files(dir, d, e);
    d->inverse_edges = is_inverse_edge_set(dir);
    return rc;
}
