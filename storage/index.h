/* index.h — the LMDB index (index.mdb): lookups that must be fast and
** persistent. Every key starts with the 8-byte token of the object it
** belongs to (a graph, a feature table, a split), so that publishing and
** dropping an object never touches another's keys:
**
**   'B' token first_node  -> block_no   graph object index (range cursor)
**   'I' token chunk       -> int64[<=4096] internal id -> external key
**   'R' token chunk       -> int64[<=4096] internal id -> input file row
**   'E' token key         -> internal id   external key -> internal id
**   'S' token chunk       -> uint32[<=4096] members of a split, ascending
**   'T' token chunk       -> uint64[<=4096] edge ids of an edge split,
**                            ascending
**
** Integers in keys are big-endian (signed ones with the sign bit flipped)
** so that LMDB's byte order is numeric order. */
#ifndef GNN_INDEX_H
#define GNN_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include "err.h"

typedef struct idx_env idx_env;
typedef struct idx_txn idx_txn;

#define IDX_CHUNK 4096

/* Open (creating when !readonly) the LMDB environment `path` (a file,
** opened with MDB_NOSUBDIR). */
int idx_open(const char *path, int readonly, idx_env **out, gnn_err *e);
void idx_close(idx_env *env);

int idx_begin(idx_env *env, int write, idx_txn **out, gnn_err *e);
int idx_commit(idx_txn *t, gnn_err *e); /* frees t */
void idx_abort(idx_txn *t);             /* frees t; accepts NULL */

/* Bytes a write transaction begun with idx_begin_fresh puts before it
** commits them and goes on in a new one: LMDB holds every page a write
** transaction changes in the heap until it ends, so the pages of a
** million keys would otherwise be resident at once. */
#define IDX_TXN_BYTES ((size_t)4 << 20)

/* A write transaction for keys under fresh tokens only, which nothing
** reads until the catalog names them: it commits every IDX_TXN_BYTES, so
** that its memory stays bounded however much it writes. An abort then
** drops only what came after the last of those commits; the caller undoes
** the rest by dropping the tokens (idx_drop), as it does after a failed
** publication anyway, and a crash leaves keys that the next writable open
** removes. */
int idx_begin_fresh(idx_env *env, idx_txn **out, gnn_err *e);

/* Graph object index. */
int idx_put_block(idx_txn *t, uint64_t token, uint64_t first_node,
                  uint64_t block_no, gnn_err *e);
/* The block whose first starting node is the greatest <= node.
** GNNDB_NOTFOUND when none. */
int idx_find_block(idx_txn *t, uint64_t token, uint64_t node,
                   uint64_t *block_no, gnn_err *e);
/* Every entry in node order; arrays malloc'd, the caller frees them. */
int idx_load_blocks(idx_txn *t, uint64_t token, uint64_t **first_nodes,
                    uint64_t **block_nos, size_t *n, gnn_err *e);
/* Lookups in the n > 0 entries idx_load_blocks returned (pure array
** searches, inline: the importer uses them without LMDB). */

/* The last i < n with a[i] <= key in ascending a[0..n) (0 when none). */
static inline size_t idx_last_le(const uint64_t *a, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (a[mid] <= key) lo = mid; else hi = mid;
    }
    return lo;
}

/* The block that holds the start of `node`'s object: the entry of the
** greatest first node <= node, as idx_find_block finds it in the index. */
static inline uint64_t idx_block_of(const uint64_t *first_nodes,
                                    const uint64_t *block_nos, size_t n,
                                    uint64_t node)
{
    return block_nos[idx_last_le(first_nodes, n, node)];
}

/* The first node whose object starts in block `no`: the entry of the
** greatest block <= no (a block with no entry holds only the tail of a
** longer list). */
static inline uint64_t idx_first_in(const uint64_t *first_nodes,
                                    const uint64_t *block_nos, size_t n,
                                    uint64_t no)
{
    return first_nodes[idx_last_le(block_nos, n, no)];
}

/* Dense arrays indexed by internal id, kept in chunks ('I' and 'R'). */
int idx_put_array(idx_txn *t, char tag, uint64_t token, const int64_t *v,
                  uint64_t n, gnn_err *e);
/* out[i] = array[ids[i]] for n ids. GNNDB_CORRUPT when a chunk is missing. */
int idx_map_array(idx_txn *t, char tag, uint64_t token, const uint64_t *ids,
                  size_t n, int64_t *out, gnn_err *e);
/* The whole array (n values), malloc'd; the caller frees it. */
int idx_load_array(idx_txn *t, char tag, uint64_t token, uint64_t n,
                   int64_t **out, gnn_err *e);

/* External key -> internal id. */
int idx_put_key(idx_txn *t, uint64_t token, int64_t key, uint64_t internal,
                gnn_err *e);
/* GNNDB_NOTFOUND (no message set) when the key is absent. */
int idx_get_key(idx_txn *t, uint64_t token, int64_t key, uint64_t *internal,
                gnn_err *e);

/* Split members. */
int idx_put_split(idx_txn *t, uint64_t token, const uint32_t *members,
                  uint64_t n, gnn_err *e);
int idx_load_split(idx_txn *t, uint64_t token, uint32_t **members,
                   uint64_t *n, gnn_err *e);

/* Edge split members: input edge ids, ascending. The catalog keeps their
** count, so the load reads exactly n of them (GNNDB_CORRUPT when a chunk
** is missing or short); *ids is malloc'd, the caller frees it. */
int idx_put_edge_split(idx_txn *t, uint64_t token, const uint64_t *ids,
                       uint64_t n, gnn_err *e);
int idx_load_edge_split(idx_txn *t, uint64_t token, uint64_t n,
                        uint64_t **ids, gnn_err *e);

/* Delete every key of `token`. */
int idx_drop(idx_txn *t, uint64_t token, gnn_err *e);
/* The distinct tokens present (to find orphans); malloc'd. */
int idx_tokens(idx_txn *t, uint64_t **tokens, size_t *n, gnn_err *e);

#endif
