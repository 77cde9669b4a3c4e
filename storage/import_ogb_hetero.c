/* import_ogb_hetero.c — OGB heterogeneous node-property datasets (ogbn-mag)
** as the ogb package reads them: raw/num-node-dict.csv.gz (a header row of
** node types, a row of their counts), raw/triplet-type-list.csv.gz (src,
** rel, dst a row), raw/relations/<src>___<rel>___<dst>/edge.csv.gz and
** num-edge-list.csv.gz, raw/node-feat/<type>/node-feat.csv.gz and
** node_year.csv.gz, raw/nodetype-has-label.csv.gz with
** raw/node-label/<type>/node-label.csv.gz, and
** split/<name>/nodetype-has-split.csv.gz with
** split/<name>/<type>/{train,valid,test}.csv.gz; where a relation's
** directory has them, edge-feat.csv.gz (a row of floats per edge) and
** edge_reltype.csv.gz (an integer per edge). This file finds and checks
** the files, reading the small dictionaries itself; the importers read
** the rest. */
#include "import.h"
#include "gz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The dictionaries are a few lines; anything larger is not one. */
#define DICT_MAX ((size_t)1 << 20)

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

int ogb_is_hetero(const char *dir)
{
    char p[OGB_PATH_MAX];
    snprintf(p, sizeof p, "%s/raw/num-node-dict.csv.gz", dir);
    return is_file(p);
}

/* A whole small gzip (or plain) file, NUL-terminated, malloc'd. */
static int read_small(const char *path, char **out, gnn_err *e)
{
    gz_stream *s;
    int rc = gz_open(path, &s, e);
    if (rc) return rc;
    char *b = malloc(DICT_MAX + 1);
    size_t n = 0;
    ssize_t k = 1;
    if (!b) rc = gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    while (!rc && n < DICT_MAX && (k = gz_read(s, b + n, DICT_MAX - n, e)) > 0)
        n += (size_t)k;
    if (!rc && k < 0) rc = e->rc ? e->rc : GNNDB_FORMAT;
    if (!rc && n == DICT_MAX)
        rc = gnn_seterr(e, GNNDB_FORMAT, "%s: larger than %zu bytes: not a "
                        "dictionary of an OGB dataset", base(path), DICT_MAX);
    gz_close(s);
    if (rc) { free(b); return rc; }
    b[n] = 0;
    *out = b;
    return GNNDB_OK;
}

/* The next line of *p (its end cut, \r too), or NULL at the end. */
static char *next_line(char **p)
{
    while (**p == '\n' || **p == '\r') (*p)++;
    if (!**p) return NULL;
    char *l = *p, *end = strchr(l, '\n');
    *p = end ? end + 1 : l + strlen(l);
    if (end) *end = 0;
    size_t n = strlen(l);
    if (n && l[n - 1] == '\r') l[n - 1] = 0;
    return l;
}

/* Split `line` at commas into at most max fields; the count, or -1. */
static int fields(char *line, char **f, int max)
{
    int n = 0;
    for (char *s = line;; s++) {
        if (n == max) return -1;
        f[n++] = s;
        s = strchr(s, ',');
        if (!s) return n;
        *s = 0;
    }
}

/* A type or relation name: letters, digits and '_', shorter than a
** catalog name; it becomes a part of path and statement names. */
static int name_ok(const char *s)
{
    size_t n = strlen(s);
    if (!n || n >= 100) return 0;
    for (size_t i = 0; i < n; i++)
        if (!(s[i] == '_' || (s[i] >= '0' && s[i] <= '9') ||
              ((s[i] | 32) >= 'a' && (s[i] | 32) <= 'z')))
            return 0;
    return 1;
}

static int type_of(const ogb_hetero *h, const char *name)
{
    for (int t = 0; t < h->ntypes; t++)
        if (!strcmp(h->types[t].name, name)) return t;
    return -1;
}

/* A header row of node types over one row of values: the types (with
** `counts`) or, given the types, a flag for each (True/False, 1/0). */
static int read_dict(const char *path, ogb_hetero *h, int counts,
                     int *flags, gnn_err *e)
{
    char *buf, *f1[OGB_MAX_TYPES + 1], *f2[OGB_MAX_TYPES + 1];
    int rc = read_small(path, &buf, e);
    if (rc) return rc;
    char *p = buf, *l1 = next_line(&p), *l2 = next_line(&p);
    int n1 = l1 ? fields(l1, f1, OGB_MAX_TYPES + 1) : 0;
    int n2 = l2 ? fields(l2, f2, OGB_MAX_TYPES + 1) : 0;
    if (n1 <= 0 || n1 > OGB_MAX_TYPES || n1 != n2 || next_line(&p))
        rc = gnn_seterr(e, GNNDB_FORMAT, "%s: expected a header row of at "
                        "most %d node types and one row of as many values",
                        base(path), OGB_MAX_TYPES);
    for (int i = 0; !rc && i < n1; i++) {
        char *end;
        long long v = strtoll(f2[i], &end, 10);
        int t = counts ? i : type_of(h, f1[i]);
        if (counts && (!name_ok(f1[i]) || type_of(h, f1[i]) >= 0))
            rc = gnn_seterr(e, GNNDB_FORMAT, "%s: column %d: '%s' is not a "
                            "new node type name", base(path), i + 1, f1[i]);
        else if (!counts && t < 0)
            rc = gnn_seterr(e, GNNDB_FORMAT, "%s: column %d: '%s' is not a "
                            "node type of raw/num-node-dict.csv.gz",
                            base(path), i + 1, f1[i]);
        else if (counts && (*end || end == f2[i] || v < 0 || v >= UINT32_MAX))
            rc = gnn_seterr(e, GNNDB_FORMAT, "%s: row 2, column %d: '%s' is "
                            "not a node count", base(path), i + 1, f2[i]);
        else if (counts) {
            snprintf(h->types[i].name, sizeof h->types[i].name, "%s", f1[i]);
            h->types[i].count = v;
            h->ntypes = i + 1;
        } else if (!strcmp(f2[i], "True") || !strcmp(f2[i], "1")) flags[t] = 1;
        else if (strcmp(f2[i], "False") && strcmp(f2[i], "0"))
            rc = gnn_seterr(e, GNNDB_FORMAT, "%s: row 2, column %d: '%s' is "
                            "neither True nor False", base(path), i + 1,
                            f2[i]);
    }
    free(buf);
    return rc;
}

/* One row src,rel,dst of the triplet list into relation r. */
static int take_triplet(const ogb_hetero *h, const char *path, int row,
                        char *line, ogb_hetero_rel *r, gnn_err *e)
{
    char *f[4];
    if (fields(line, f, 4) != 3)
        return gnn_seterr(e, GNNDB_FORMAT, "%s: row %d: expected src,rel,dst",
                          base(path), row);
    r->src = type_of(h, f[0]);
    r->dst = type_of(h, f[2]);
    for (int w = 0; w < 3; w += 2)
        if ((w ? r->dst : r->src) < 0)
            return gnn_seterr(e, GNNDB_FORMAT, "%s: row %d: '%s' is not a "
                              "node type of raw/num-node-dict.csv.gz",
                              base(path), row, f[w]);
    if (!name_ok(f[1]) || type_of(h, f[1]) >= 0)
        return gnn_seterr(e, GNNDB_FORMAT, "%s: row %d: '%s' is not a "
                          "relation name (letters, digits, '_'; not a node "
                          "type's)", base(path), row, f[1]);
    for (int i = 0; i < h->nrels; i++)
        if (!strcmp(h->rels[i].name, f[1]))
            return gnn_seterr(e, GNNDB_FORMAT, "%s: row %d: relation %s "
                              "again (rows %d and %d): gnndb names a "
                              "relation by its name alone", base(path), row,
                              f[1], i + 1, row);
    snprintf(r->name, sizeof r->name, "%s", f[1]);
    return GNNDB_OK;
}

/* "dir/raw/relations/<src>___<rel>___<dst>/<file>" into out (OGB_PATH_MAX
** bytes); 1 when the file is there. */
static int rel_file(char *out, const char *dir, const ogb_hetero *h,
                    const ogb_hetero_rel *r, const char *file)
{
    if (snprintf(out, OGB_PATH_MAX, "%s/raw/relations/%s___%s___%s/%s", dir,
                 h->types[r->src].name, r->name, h->types[r->dst].name,
                 file) >= OGB_PATH_MAX)
        return 0;
    return is_file(out);
}

/* The files of relation r: its edges (needed), the rest where present. */
static int rel_files(const char *dir, const ogb_hetero *h, ogb_hetero_rel *r,
                     gnn_err *e)
{
    if (!rel_file(r->edges, dir, h, r, "edge.csv.gz"))
        return gnn_seterr(e, GNNDB_NOTFOUND, "%s: missing (the edges of "
                          "relation %s)", r->edges, r->name);
    if (!rel_file(r->num_edges, dir, h, r, "num-edge-list.csv.gz"))
        r->num_edges[0] = 0;
    if (!rel_file(r->edge_feat, dir, h, r, "edge-feat.csv.gz"))
        r->edge_feat[0] = 0;
    if (!rel_file(r->reltype, dir, h, r, "edge_reltype.csv.gz"))
        r->reltype[0] = 0;
    return GNNDB_OK;
}

/* The relations and the files of each. */
static int read_triplets(const char *dir, ogb_hetero *h, gnn_err *e)
{
    char path[OGB_PATH_MAX], *buf;
    snprintf(path, sizeof path, "%s/raw/triplet-type-list.csv.gz", dir);
    if (!is_file(path))
        return gnn_seterr(e, GNNDB_NOTFOUND, "%s: missing (the relations of "
                          "a heterogeneous OGB dataset)", path);
    int rc = read_small(path, &buf, e);
    if (rc) return rc;
    char *p = buf, *line;
    while (!rc && (line = next_line(&p))) {
        if (h->nrels == OGB_MAX_RELS) {
            rc = gnn_seterr(e, GNNDB_FORMAT, "%s: more than %d relations",
                            base(path), OGB_MAX_RELS);
            break;
        }
        ogb_hetero_rel *r = &h->rels[h->nrels];
        if ((rc = take_triplet(h, path, h->nrels + 1, line, r, e))) break;
        h->nrels++;
        rc = rel_files(dir, h, r, e);
    }
    free(buf);
    if (!rc && !h->nrels)
        rc = gnn_seterr(e, GNNDB_FORMAT, "%s: no relation in it", base(path));
    return rc;
}

/* "dir/<a>/<type>/<b>" into out; 1 when the file is there. */
static int type_file(char *out, const char *dir, const char *a,
                     const char *type, const char *b)
{
    if (snprintf(out, OGB_PATH_MAX, "%s/%s/%s/%s", dir, a, type, b) >=
        OGB_PATH_MAX)
        return 0;
    return is_file(out);
}

/* Features, years and labels of each type. */
static int node_files(const char *dir, ogb_hetero *h, gnn_err *e)
{
    int flags[OGB_MAX_TYPES] = {0};
    char path[OGB_PATH_MAX];
    for (int t = 0; t < h->ntypes; t++) {
        ogb_hetero_type *ty = &h->types[t];
        if (!type_file(ty->feat, dir, "raw/node-feat", ty->name,
                       "node-feat.csv.gz"))
            ty->feat[0] = 0;
        if (!type_file(ty->year, dir, "raw/node-feat", ty->name,
                       "node_year.csv.gz"))
            ty->year[0] = 0;
    }
    snprintf(path, sizeof path, "%s/raw/nodetype-has-label.csv.gz", dir);
    int rc = is_file(path) ? read_dict(path, h, 0, flags, e) : GNNDB_OK;
    for (int t = 0; !rc && t < h->ntypes; t++) {
        ogb_hetero_type *ty = &h->types[t];
        if (!flags[t]) continue;
        if (!type_file(ty->label, dir, "raw/node-label", ty->name,
                       "node-label.csv.gz"))
            rc = gnn_seterr(e, GNNDB_NOTFOUND, "%s: missing (%s says node "
                            "type %s has labels)", ty->label, base(path),
                            ty->name);
    }
    return rc;
}

/* The split's files for each type that nodetype-has-split names. */
static int split_files(const char *dir, ogb_hetero *h, gnn_err *e)
{
    static const char *const names[3] = {"train.csv.gz", "valid.csv.gz",
                                         "test.csv.gz"};
    int flags[OGB_MAX_TYPES] = {0};
    char sd[OGB_PATH_MAX], path[OGB_PATH_MAX];
    if (snprintf(sd, sizeof sd, "%s/split/%s", dir, h->split_name) >=
            (int)sizeof sd ||
        snprintf(path, sizeof path, "%s/nodetype-has-split.csv.gz", sd) >=
            (int)sizeof path)
        return gnn_seterr(e, GNNDB_RANGE, "%s: path too long", dir);
    if (!is_file(path))
        return gnn_seterr(e, GNNDB_NOTFOUND, "%s: missing (the node types "
                          "split '%s' covers)", path, h->split_name);
    char rel[300];
    snprintf(rel, sizeof rel, "split/%s", h->split_name);
    int rc = read_dict(path, h, 0, flags, e);
    for (int t = 0; !rc && t < h->ntypes; t++) {
        ogb_hetero_type *ty = &h->types[t];
        ty->has_split = flags[t];
        for (int k = 0; !rc && flags[t] && k < 3; k++)
            if (!type_file(ty->split[k], dir, rel, ty->name, names[k]))
                rc = gnn_seterr(e, GNNDB_NOTFOUND, "%s: missing (split '%s' "
                                "of node type %s needs train, valid and "
                                "test)", ty->split[k], h->split_name,
                                ty->name);
    }
    return rc;
}

int ogb_hetero_open(const char *dir, const char *split, ogb_hetero *h,
                    gnn_err *e)
{
    memset(h, 0, sizeof *h);
    h->types = calloc(OGB_MAX_TYPES, sizeof *h->types);
    h->rels = calloc(OGB_MAX_RELS, sizeof *h->rels);
    if (!h->types || !h->rels) {
        ogb_hetero_free(h);
        return gnn_seterr(e, GNNDB_NOMEM, "out of memory");
    }
    char path[OGB_PATH_MAX];
    snprintf(path, sizeof path, "%s/raw/num-node-dict.csv.gz", dir);
    int rc = read_dict(path, h, 1, NULL, e);
    if (!rc) rc = read_triplets(dir, h, e);
    if (!rc) rc = node_files(dir, h, e);
    if (!rc) rc = ogb_pick_split(dir, split, h->split_name,
                                 sizeof h->split_name, e);
    if (!rc) rc = split_files(dir, h, e);
    if (rc) ogb_hetero_free(h);
    return rc;
}

void ogb_hetero_free(ogb_hetero *h)
{
    free(h->types);
    free(h->rels);
    h->types = NULL;
    h->rels = NULL;
    h->ntypes = h->nrels = 0;
}
