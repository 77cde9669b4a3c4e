#!/bin/sh
# `make install` into a temporary prefix gives a usable gnndb: the examples of
# examples/embed build with pkg-config against the INSTALLED header and
# library (dynamic and static), their digests equal the shell's, the shared
# library exports only gnndb_* symbols, and `make uninstall` removes every
# file it installed.
set -u
fail() { echo "FAIL: $*"; exit 1; }
ROOT=$OLDPWD
WORK=$PWD
PREFIX=$WORK/prefix

# make install runs in the repository root: it (re)builds what is missing
(cd "$ROOT" && make -s install PREFIX="$PREFIX") > install.log 2>&1 ||
    { cat install.log; fail "make install"; }
for f in include/gnndb.h lib/libgnndb.so.0.1.0 lib/libgnndb.so.0 lib/libgnndb.so \
         lib/libgnndb.a bin/gnndb lib/pkgconfig/gnndb.pc; do
    [ -e "$PREFIX/$f" ] || fail "not installed: $f"
done
[ -L "$PREFIX/lib/libgnndb.so.0" ] && [ -L "$PREFIX/lib/libgnndb.so" ] ||
    fail "libgnndb.so and libgnndb.so.0 are not symlinks"
soname=$(objdump -p "$PREFIX/lib/libgnndb.so" | awk '/SONAME/ {print $2}')
[ "$soname" = libgnndb.so.0 ] || fail "soname is '$soname'"
grep -q "^prefix=$PREFIX\$" "$PREFIX/lib/pkgconfig/gnndb.pc" || fail "prefix in gnndb.pc"

# the exported symbols: the public API and nothing else
extra=$(nm -D --defined-only "$PREFIX/lib/libgnndb.so" | awk '{print $NF}' |
        grep -v '^gnndb_' | grep -v '^_init$' | grep -v '^_fini$' || true)
[ -z "$extra" ] || fail "libgnndb.so exports non-API symbols: $(echo $extra | head -c 400)"
api=$(grep -c '^GNNDB_API' "$ROOT/include/gnndb.h")
exported=$(nm -D --defined-only "$PREFIX/lib/libgnndb.so" | grep -c ' gnndb_')
[ "$api" -le "$exported" ] || fail "only $exported of $api API functions are exported"

# build the examples against the installed copy, in a copy of their folder
# so nothing is written into the source tree; no -I/-L into the tree
export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
[ "$(pkg-config --modversion gnndb)" = 0.1.0 ] || fail "pkg-config --modversion"
pkg-config --cflags --libs gnndb | grep -q "$ROOT/" && fail "pkg-config points into the tree"
mkdir dyn static
cp "$ROOT"/examples/embed/*.c "$ROOT"/examples/embed/Makefile dyn/
cp "$ROOT"/examples/embed/*.c "$ROOT"/examples/embed/Makefile static/
make -s -C dyn CFLAGS="-O2 -Wall -Wextra -Werror" > dyn.log 2>&1 ||
    { cat dyn.log; fail "examples (dynamic)"; }
make -s -C static STATIC=1 CFLAGS="-O2 -Wall -Wextra -Werror" > static.log 2>&1 ||
    { cat static.log; fail "examples (static)"; }
LD_LIBRARY_PATH=$PREFIX/lib ldd dyn/sample_loader | grep -q "libgnndb.so.0 => $PREFIX/lib/" ||
    fail "dynamic example does not load the installed libgnndb.so.0"
ldd static/sample_loader | grep -q libgnndb && fail "static example needs libgnndb.so"

# a database from cora, built with the installed shell
SH=$PREFIX/bin/gnndb
DB=$WORK/cora.gnndb
D=$GNNDB_DATA/cora
"$SH" "$DB" "CREATE GRAPH cora FROM '$D/edges.tsv';" \
    "IMPORT FEATURES feat INTO cora FROM '$D/features.npy';" \
    "IMPORT LABELS INTO cora FROM '$D/labels.npy';" \
    "CREATE SPLIT train ON cora FROM '$D/train_idx.npy';" > /dev/null ||
    fail "building the database"

for Q in "SAMPLE 10,5 FROM cora SEEDS train FEATURES feat BATCH 32 SEED 7 EPOCHS 2;" \
         "SAMPLE 15,10,5 FROM cora BATCH 256 SHUFFLE SEED 11;"; do
    "$GNNDB" -csv -noheader "$DB" "$Q" 2> /dev/null |
        awk -F, '{print $1, $2, $3, $4, $5, $7}' > shell.txt
    [ -s shell.txt ] || fail "the shell printed no batches for $Q"
    for kind in dyn static; do
        LD_LIBRARY_PATH=$PREFIX/lib ./$kind/sample_loader "$DB" "$Q" > $kind.txt 2> $kind.err ||
            { cat $kind.err; fail "$kind sample_loader: $Q"; }
        cmp -s shell.txt $kind.txt || {
            diff shell.txt $kind.txt | head -5
            fail "$kind sample_loader disagrees with the shell: $Q"
        }
    done
    echo "ok: $(wc -l < shell.txt) batches agree: $Q"
done

# errors come back as words, with a non-zero status
LD_LIBRARY_PATH=$PREFIX/lib ./dyn/sample_loader "$DB" "SAMPLE 5 FROM nosuch BATCH 4;" \
    > /dev/null 2> err.txt && fail "unknown graph accepted"
grep -qi nosuch err.txt || fail "the error does not name the graph: $(cat err.txt)"
LD_LIBRARY_PATH=$PREFIX/lib ./dyn/sample_loader "$WORK/none.gnndb" "SAMPLE 5 FROM cora BATCH 4;" \
    > /dev/null 2> err.txt && fail "missing database accepted"
grep -q none.gnndb err.txt || fail "the error does not name the database"

# query_rows: typed columns
LD_LIBRARY_PATH=$PREFIX/lib ./dyn/query_rows -readonly "$DB" \
    "SHOW GRAPHS; PRAGMA format_version;" > rows.txt 2>&1 || { cat rows.txt; fail query_rows; }
grep -q "cora" rows.txt || fail "query_rows: no graph row"
grep -q "value=3" rows.txt || fail "query_rows: format_version: $(cat rows.txt)"
LD_LIBRARY_PATH=$PREFIX/lib ./static/query_rows -readonly "$DB" \
    "DROP GRAPH cora;" > rows.txt 2>&1 && fail "a write on a read-only handle"
grep -qi "read-only" rows.txt || fail "query_rows: $(cat rows.txt)"

# uninstall leaves nothing behind (the directories may stay, empty)
(cd "$ROOT" && make -s uninstall PREFIX="$PREFIX") > uninstall.log 2>&1 ||
    { cat uninstall.log; fail "make uninstall"; }
left=$(find "$PREFIX" ! -type d)
[ -z "$left" ] || fail "left after uninstall: $left"
echo "ok: install, embed, uninstall"
