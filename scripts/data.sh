#!/bin/sh
# Print the data folder that the demo, the tests and the examples read cora
# from (the folder holding cora/edges.tsv, cora/features.npy, ...):
#   1. $GNNDB_DATA, when set;
#   2. ../shared/data beside the checkout, when it holds cora;
#   3. the copy shipped in data/cora/*.gz, decompressed with gzip into
#      build/data/cora (once; again when a .gz is newer) and checked against
#      data/cora/SHA256SUMS.
# Usage: scripts/data.sh        (messages on stderr, the folder on stdout)
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FILES="edges.tsv features.npy labels.npy train_idx.npy val_idx.npy test_idx.npy"

has_cora() {
    for f in $FILES; do [ -f "$1/cora/$f" ] || return 1; done
}

if [ -n "$GNNDB_DATA" ]; then
    has_cora "$GNNDB_DATA" || {
        echo "data: GNNDB_DATA='$GNNDB_DATA' has no cora/ with $FILES" >&2
        exit 1; }
    echo "$GNNDB_DATA"
    exit 0
fi
if has_cora "$ROOT/../shared/data"; then
    (cd "$ROOT/../shared/data" && pwd)
    exit 0
fi

SRC=$ROOT/data/cora
OUT=$ROOT/build/data
for f in $FILES; do
    [ -f "$SRC/$f.gz" ] || {
        echo "data: cora not found: no GNNDB_DATA, no ../shared/data/cora" \
             "and no $SRC/$f.gz" >&2
        exit 1; }
done
# Up to date: every file there, none older than its .gz.
fresh() {
    for f in $FILES; do
        [ -f "$OUT/cora/$f" ] && [ ! "$SRC/$f.gz" -nt "$OUT/cora/$f" ] ||
            return 1
    done
}
if ! fresh; then
    command -v gzip > /dev/null || { echo "data: gzip not found" >&2; exit 1; }
    mkdir -p "$OUT"
    tmp=$(mktemp -d "$OUT/cora.tmp.XXXXXX")
    chmod 755 "$tmp"
    trap 'rm -rf "$tmp"' EXIT
    for f in $FILES; do
        gzip -dc "$SRC/$f.gz" > "$tmp/$f" ||
            { echo "data: cannot decompress $SRC/$f.gz" >&2; exit 1; }
    done
    if [ -f "$SRC/SHA256SUMS" ] && command -v sha256sum > /dev/null; then
        (cd "$tmp" && sha256sum --quiet -c "$SRC/SHA256SUMS") >&2 ||
            { echo "data: $SRC/*.gz do not match $SRC/SHA256SUMS" >&2; exit 1; }
    fi
    # Published whole, by one rename: readers see no folder or a complete
    # one. Runs started together (make -j test) each decompress; the first
    # rename wins and the others find the folder fresh. A stale folder
    # (a .gz changed since) is replaced.
    if ! mv -T "$tmp" "$OUT/cora" 2> /dev/null; then
        if ! fresh; then
            rm -rf "$OUT/cora"
            mv -T "$tmp" "$OUT/cora"
        fi
    fi
    echo "data: decompressed $SRC into $OUT/cora" >&2
fi
echo "$OUT"
