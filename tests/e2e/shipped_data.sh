#!/bin/sh
# A checkout with no ../shared beside it runs on the cora shipped in
# data/cora: scripts/data.sh decompresses it into build/data (the same bytes
# as $GNNDB_DATA/cora, checked against SHA256SUMS), scripts/demo.sh builds
# and samples the same batches from it as from $GNNDB_DATA; a damaged .gz is
# refused, and without any cora the demo fails with a clear line.
set -u
fail() { echo "FAIL: $*"; exit 1; }
ROOT=$OLDPWD
C=$PWD/clone                      # $PWD/shared does not exist
FILES="edges.tsv features.npy labels.npy train_idx.npy val_idx.npy test_idx.npy"
mkdir -p "$C"
cp -R "$ROOT/scripts" "$ROOT/data" "$C/" || fail "copy"

bare() { (unset GNNDB_DATA; cd "$C" && "$@"); }

# decompressed once, into build/data, identical to the reference files
bare sh scripts/data.sh > out 2> err || fail "data.sh: $(cat err)"
[ "$(cat out)" = "$C/build/data" ] || fail "data.sh printed '$(cat out)'"
grep -q "decompressed" err || fail "no message on decompressing: $(cat err)"
for f in $FILES; do
    cmp -s "$C/build/data/cora/$f" "$GNNDB_DATA/cora/$f" ||
        fail "build/data/cora/$f differs from $GNNDB_DATA/cora/$f"
done
bare sh scripts/data.sh > out 2> err || fail "data.sh, second run"
[ -s err ] && fail "second run decompressed again: $(cat err)"

# the demo, from the shipped copy and from $GNNDB_DATA: the same batches
bare sh scripts/demo.sh "$GNNDB" > demo.out 2> demo.err ||
    fail "demo: $(cat demo.err)"
grep -q "building build/demo.gnndb from $C/build/data/cora" demo.out ||
    fail "demo did not use the shipped cora: $(head -1 demo.out)"
grep -Eq '^\| nodes +\| 2708 +\|$' demo.out || fail "demo: no 2708 nodes"
(cd "$C" && sh scripts/demo.sh "$GNNDB") > ref.out 2>&1 || fail "demo on GNNDB_DATA"
sed -n '/^== SAMPLE/,$p' demo.out > a; sed -n '/^== SAMPLE/,$p' ref.out > b
[ "$(grep -c '^| *0 |' a)" = 3 ] || fail "demo: not 3 batches: $(cat a)"
cmp -s a b || fail "demo batches differ: $(diff a b)"

# a .gz that decompresses to other bytes is refused, named
gzip -dc "$C/data/cora/labels.npy.gz" | sed 's/\x01/\x02/' | gzip -n \
    > "$C/data/cora/labels.npy.gz.new" &&
    mv "$C/data/cora/labels.npy.gz.new" "$C/data/cora/labels.npy.gz"
touch "$C/data/cora/labels.npy.gz"
bare sh scripts/data.sh > out 2> err && fail "a changed labels.npy.gz accepted"
grep -q "labels.npy" err && grep -q "SHA256SUMS" err ||
    fail "checksum message: $(cat err)"
# a truncated one too
head -c 1000 "$ROOT/data/cora/features.npy.gz" > "$C/data/cora/features.npy.gz"
bare sh scripts/data.sh > out 2> err && fail "a truncated features.npy.gz accepted"
grep -q "cannot decompress .*features.npy.gz" err || fail "message: $(cat err)"
ls "$C/build/data" | grep -q tmp && fail "temporary folder left: $(ls "$C/build/data")"

# no cora anywhere: one clear line, nothing on stdout
rm -rf "$C/data" "$C/build/data"
bare sh scripts/demo.sh "$GNNDB" > out 2> err && fail "demo ran without data"
[ -s out ] && fail "demo printed: $(cat out)"
grep -q "^data: cora not found" err && grep -q "^demo: no cora" err ||
    fail "demo's message: $(cat err)"
(cd "$C" && GNNDB_DATA=$PWD/nowhere sh scripts/demo.sh "$GNNDB") > out 2> err &&
    fail "demo ran with GNNDB_DATA=nowhere"
grep -q "GNNDB_DATA='$C/nowhere' has no cora" err || fail "message: $(cat err)"
echo "ok"
