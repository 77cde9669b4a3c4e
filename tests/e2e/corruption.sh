#!/bin/sh
# Damaged databases: on copies of a cora database, flip bytes in a graph
# block, a feature block and a label block, put a block in the wrong place,
# truncate or delete a block file, delete index.mdb, and overwrite or damage
# catalog.db. Each time the statement that reads the damage fails (exit 1,
# one message on stderr naming the file, and the block for block damage),
# prints no data and does not crash; CHECK reports the damage.
set -u
fail() { echo "FAIL: $*"; exit 1; }
D=$GNNDB_DATA/cora
BASE=$PWD/base.gnndb
# newfile SQL: run SQL and print the name of the one file it adds
newfile() {
    before=$(ls "$BASE" 2>/dev/null)
    "$GNNDB" "$BASE" "$1" || fail "setup: $1"
    ls "$BASE" | grep '\.blk$' | while read -r f; do
        echo "$before" | grep -qx "$f" || echo "$f"
    done
}
# the graph's own files: its blocks, its edge-id graph and its edge table
"$GNNDB" "$BASE" "CREATE GRAPH cora FROM '$D/edges.tsv';" || fail "setup: CREATE GRAPH"
cat_file() {   # cat_file SQL: one file name from the catalog
    /usr/bin/python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' \
        "$BASE/catalog.db" "$1"
}
GFILE=$(cat_file "SELECT file FROM graphs")
EFILE=$(cat_file "SELECT eid_file FROM graphs")
TFILE=$(cat_file "SELECT file FROM tables WHERE name = '__edges'")
FFILE=$(newfile "IMPORT FEATURES feat INTO cora FROM '$D/features.npy';")
LFILE=$(newfile "IMPORT LABELS INTO cora FROM '$D/labels.npy';")
# a second, small feature table: a SAMPLE without FEATURES then gathers none
SFILE=$(newfile "IMPORT FEATURES small INTO cora FROM '$D/labels.npy';")
"$GNNDB" "$BASE" "CREATE SPLIT train ON cora FROM '$D/train_idx.npy';" || fail setup
for f in "$GFILE" "$EFILE" "$TFILE" "$FFILE" "$LFILE" "$SFILE"; do
    [ -f "$BASE/$f" ] || fail "setup: block file '$f' not found"
done
"$GNNDB" -csv "$BASE" "CHECK;" | grep -q '^ok,' || fail "CHECK of the fresh database"
BS=1048576

# One mini-batch of every node: reads the graph block, the label block and
# (ALL) every feature block of feat, or (TOPO) no feature block, or (SMALL)
# the feature block of small.
ALL="SAMPLE 10,5 FROM cora FEATURES feat BATCH 2708 SEED 1;"
TOPO="SAMPLE 10,5 FROM cora BATCH 2708 SEED 1;"
SMALL="SAMPLE 10,5 FROM cora FEATURES small BATCH 2708 SEED 1;"
REF_ALL=$("$GNNDB" -csv -noheader "$BASE" "$ALL") || fail "sample of the fresh database"
REF_TOPO=$("$GNNDB" -csv -noheader "$BASE" "$TOPO") || fail "sample of the fresh database"
REF_SMALL=$("$GNNDB" -csv -noheader "$BASE" "$SMALL") || fail "sample of the fresh database"
ONE700="SAMPLE 2 FROM cora SEEDS (700) FEATURES feat BATCH 1 SEED 1;"
REF_700=$("$GNNDB" -csv -noheader "$BASE" "$ONE700") || fail "sample of the fresh database"

n=0
fresh() {   # a new copy of the healthy database in $DB
    n=$((n + 1)); DB=$PWD/copy$n.gnndb
    rm -rf "$DB"; cp -r "$BASE" "$DB" || fail "copy"
}
flip() {    # flip(file, offset): invert one byte
    b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    printf "\\$(printf '%03o' $((255 - b)))" |
        dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null || fail "flip $1"
}

# expect_fail WHAT SQL PATTERN [-readonly]: exit status 1, no output on
# stdout (but the row of a PRAGMA that sets a value), one line on stderr
# matching PATTERN.
expect_fail() {
    what=$1; sql=$2; pat=$3; shift 3
    "$GNNDB" "$@" -csv "$DB" "$sql" > out.txt 2> err.txt; rc=$?
    [ $rc -eq 1 ] || { cat err.txt; fail "$what: '$sql' exited $rc, not 1"; }
    if grep -v '^io,[a-z]*$\|^read_granularity,' out.txt | grep -q .; then
        head -3 out.txt; fail "$what: '$sql' returned data"
    fi
    [ "$(wc -l < err.txt)" -eq 1 ] || { cat err.txt; fail "$what: not one line on stderr"; }
    grep -q -- "$pat" err.txt || { cat err.txt; fail "$what: message lacks '$pat'"; }
    echo "ok: $what: $sql -> $(cat err.txt)"
}

# expect_check WHAT PATTERN: CHECK lists a problem row matching PATTERN and
# no 'ok' row.
expect_check() {
    "$GNNDB" -csv -noheader "$DB" "CHECK;" > chk.txt 2> err.txt; rc=$?
    [ $rc -eq 0 ] || { cat err.txt; fail "$1: CHECK exited $rc"; }
    grep -q -- "$2" chk.txt || { cat chk.txt; fail "$1: CHECK lacks '$2'"; }
    if grep -q '^ok,' chk.txt; then cat chk.txt; fail "$1: CHECK says ok"; fi
    echo "ok: $1: CHECK -> $(head -1 chk.txt)"
}

# 1. graph block: a byte in its header, its objects, and its unused tail
for off in 20 5000 $((BS - 100)); do
    fresh; flip "$DB/$GFILE" $off
    expect_fail "graph block byte $off" "$TOPO" "block 0 of .*$GFILE"
    expect_fail "graph block byte $off" "$ALL" "block 0 of .*$GFILE"
    expect_check "graph block byte $off" "^$GFILE,.*block 0"
done

# the edge-id graph and the edge table: node sampling does not read them,
# CHECK names the damaged block
fresh; flip "$DB/$EFILE" 5000
[ "$("$GNNDB" -csv -noheader "$DB" "$TOPO")" = "$REF_TOPO" ] || fail "a damaged edge-id graph changed a node SAMPLE"
expect_check "edge-id graph block" "^$EFILE,.*block 0"
fresh; flip "$DB/$TFILE" 5000
expect_check "edge table block" "^$TFILE,.*block 0"

# a graph block read in pages: the damaged page (an object's) is named
fresh; flip "$DB/$GFILE" 5000
expect_fail "graph block page 1 (pages)" "PRAGMA read_granularity = 'page'; $TOPO" \
    "block 0 of .*$GFILE: page 1: checksum mismatch"

# 2. feature block 3: a SAMPLE that gathers it fails; one that does not
# gather features still works and gives the same batch as before
fresh; flip "$DB/$FFILE" $((3 * BS + 5000))
expect_fail "feature block 3" "$ALL" "block 3 of .*$FFILE"
expect_fail "feature block 3 (per-batch executor)" \
    "SAMPLE 10,5 FROM cora FEATURES feat BATCH 2708 HYPERBATCH 1 SEED 1;" "block 3 of .*$FFILE"
expect_fail "feature block 3 (pread)" \
    "PRAGMA io='pread'; $ALL" "block 3 of .*$FFILE"
# read in pages: the damaged page (page 1: rows 546 and 547) is named and
# never returned; a read of other pages of the same block is not failed
PG="PRAGMA read_granularity = 'page';"
for io in uring pread; do
    expect_fail "feature block 3 page 1 ($io)" \
        "$PG PRAGMA io='$io'; SAMPLE 2 FROM cora SEEDS (546) FEATURES feat BATCH 1 SEED 1;" \
        "block 3 of .*$FFILE: page 1: checksum mismatch"
done
expect_fail "feature block 3 page 1 (hyperbatch)" "$PG $ALL" \
    "block 3 of .*$FFILE: page 1: checksum mismatch"
got=$("$GNNDB" -csv -noheader "$DB" "$PG $ONE700" | grep -v '^read_granularity') ||
    fail "a read of other pages of block 3 failed"
[ "$got" = "$REF_700" ] || fail "a read of other pages of block 3 changed: $got"
echo "ok: feature block 3: pages other than the damaged one are read"
got=$("$GNNDB" -csv -noheader "$DB" "$TOPO") || fail "SAMPLE without features failed on a feature-block error"
[ "$got" = "$REF_TOPO" ] || fail "SAMPLE without features changed: $got"
got=$("$GNNDB" -csv -noheader "$DB" "$SMALL") || fail "SAMPLE of another table failed on a feature-block error"
[ "$got" = "$REF_SMALL" ] || fail "SAMPLE of another table changed: $got"
echo "ok: feature block 3: SAMPLEs that do not gather it are unchanged"
expect_check "feature block 3" "^$FFILE,.*block 3"

# 3. the label block
fresh; flip "$DB/$LFILE" 4000
expect_fail "label block" "$TOPO" "block 0 of .*$LFILE"
expect_check "label block" "^$LFILE,.*block 0"

# 4. a whole block in the wrong place (block 2 copied over block 3): its
# checksum is right, its number is not
fresh
dd if="$DB/$FFILE" of="$DB/$FFILE" bs=$BS skip=2 seek=3 count=1 conv=notrunc 2>/dev/null || fail dd
expect_fail "misplaced block" "$ALL" "block 3 of .*$FFILE.*misplaced"
expect_check "misplaced block" "^$FFILE,.*block 3"

# 5. a truncated feature file, a graph file cut to nothing, a deleted file
fresh; truncate -s $((15 * BS - 4096)) "$DB/$FFILE"
expect_fail "truncated feature file" "$ALL" "$FFILE.*truncated"
expect_check "truncated feature file" "^$FFILE,.*truncated"
fresh; : > "$DB/$GFILE"
expect_fail "empty graph file" "$TOPO" "$GFILE"
expect_check "empty graph file" "^$GFILE,"
fresh; rm "$DB/$FFILE"
expect_fail "deleted feature file" "$ALL" "$FFILE"
expect_check "deleted feature file" "^$FFILE,"

# 6. index.mdb deleted: a read-only open fails naming it; a writable one
# finds no block index for the graph
fresh; rm "$DB/index.mdb"
expect_fail "index.mdb deleted (read-only)" "$TOPO" "index.mdb" -readonly
expect_fail "index.mdb deleted (read-only)" "DESCRIBE cora;" "index.mdb" -readonly
expect_fail "index.mdb deleted" "$TOPO" "index.mdb"
expect_fail "index.mdb deleted" "SAMPLE 10 FROM cora SEEDS train BATCH 140 SEED 1;" "index.mdb"
expect_check "index.mdb deleted" "^index.mdb,"

# 7. catalog.db overwritten with garbage, cut short, or damaged inside:
# nothing opens it, CHECK included
fresh; head -c 49152 /dev/urandom > "$DB/catalog.db"
for q in "DESCRIBE cora;" "$TOPO" "SHOW GRAPHS;" "CHECK;"; do
    expect_fail "catalog.db garbage" "$q" "catalog.db"
done
expect_fail "catalog.db garbage (read-only)" "DESCRIBE cora;" "catalog.db" -readonly
fresh; truncate -s 20000 "$DB/catalog.db"
expect_fail "catalog.db truncated" "DESCRIBE cora;" "catalog.db"
expect_fail "catalog.db truncated" "CHECK;" "catalog.db"
# every page but the first (the schema) zeroed: each table's b-tree is gone
fresh; pages=$(( $(wc -c < "$DB/catalog.db") / 4096 ))
dd if=/dev/zero of="$DB/catalog.db" bs=4096 seek=1 count=$((pages - 1)) conv=notrunc 2>/dev/null
expect_fail "catalog.db damaged inside" "DESCRIBE cora;" "catalog.db"
expect_fail "catalog.db damaged inside" "CHECK;" "catalog.db"

# catalog.db deleted: no open creates an empty catalog over the block
# files (which a clean-up would then delete as orphans)
fresh; rm "$DB/catalog.db"
expect_fail "catalog.db deleted" "DESCRIBE cora;" "catalog.db"
expect_fail "catalog.db deleted" "CHECK;" "catalog.db"
expect_fail "catalog.db deleted (read-only)" "SHOW GRAPHS;" "catalog.db" -readonly
[ ! -e "$DB/catalog.db" ] || fail "catalog.db deleted: an open created a new one"
for f in "$GFILE" "$EFILE" "$TFILE" "$FFILE" "$LFILE" "$SFILE"; do
    [ -f "$DB/$f" ] || fail "catalog.db deleted: block file $f was removed"
done
echo "ok: catalog.db deleted: every block file is still there"

# the healthy copy is untouched by all of this
got=$("$GNNDB" -csv -noheader "$BASE" "$ALL") || fail "base sample"
[ "$got" = "$REF_ALL" ] || fail "base database changed"
echo "all damage detected"
