#!/bin/sh
# A segmented feature table read end to end: cora's feature file and a copy
# of it become the two segments of a map (feat.seg) that takes the even
# blocks from the one and the odd ones from the other (a run per block, so
# that every coalesced read must stop at a run's end), and the catalog is
# pointed at the map. Then SAMPLE gives the very batches it gave before
# (io_uring, pread, reads in pages), CHECK says ok, and a writable open
# keeps both segments though the catalog names neither. A damaged block of
# a segment, a truncated segment and a missing one fail the reads and CHECK
# in words naming the segment file.
set -u
fail() { echo "FAIL: $*"; exit 1; }
D=$GNNDB_DATA/cora
BASE=$PWD/base.gnndb
BS=1048576
"$GNNDB" "$BASE" "CREATE GRAPH cora FROM '$D/edges.tsv';
    IMPORT FEATURES feat INTO cora FROM '$D/features.npy';" || fail setup
SQL="SAMPLE 10,5 FROM cora FEATURES feat BATCH 700 SEED 3;"
REF=$("$GNNDB" -csv -noheader "$BASE" "$SQL") || fail "sample before"
[ -n "$REF" ] || fail "no batches before"

# segment FILE COPY: write feat.seg over FILE and COPY, point the catalog at it
segment() {
    /usr/bin/python3 - "$BASE" "$1" "$2" "$BS" <<'EOF' || fail "writing the map"
import os, sqlite3, struct, sys
db, f, copy, bs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def crc32c(data):
    c = 0xffffffff
    for b in data:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 & -(c & 1))
    return c ^ 0xffffffff
con = sqlite3.connect(os.path.join(db, "catalog.db"))
tok, nb = con.execute("SELECT token, nblocks FROM tables WHERE name = 'feat'").fetchone()
tok &= (1 << 64) - 1
segs = b"".join(struct.pack("<48sQQ", n.encode(), tok, nb) for n in (f, copy))
runs = b"".join(struct.pack("<QQII", i, i, i % 2, 1) for i in range(nb))
head = struct.pack("<IHHIIIIQQI20x", 0x4745534e, 1, 2, bs, 2, nb, 0, tok, nb, 0)
m = bytearray(head + segs + runs)
m[40:44] = struct.pack("<I", crc32c(m))
with open(os.path.join(db, "feat.seg"), "wb") as out:
    out.write(m)
con.execute("UPDATE tables SET file = 'feat.seg' WHERE name = 'feat'")
con.execute("UPDATE checksums SET file = 'feat.seg' WHERE file = ?", (f,))
con.commit()
print(nb)
EOF
}
FFILE=$(/usr/bin/python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT file FROM tables WHERE name = '"'feat'"'").fetchone()[0])' "$BASE/catalog.db")
COPY=feat-copy.blk
cp "$BASE/$FFILE" "$BASE/$COPY" || fail copy
NB=$(segment "$FFILE" "$COPY")
[ "$NB" -ge 4 ] || fail "only $NB feature blocks"
echo "ok: feat.seg over $FFILE and $COPY, $NB blocks in $NB runs"

for pragma in "" "PRAGMA io='pread';" "PRAGMA read_granularity = 'page';"; do
    OUT=$("$GNNDB" -csv -noheader "$BASE" "$pragma $SQL" | grep -v '^io,[a-z]*$\|^read_granularity,') ||
        fail "sample of the segmented table ($pragma)"
    [ "$OUT" = "$REF" ] || fail "the segmented table gave other batches ($pragma)"
    echo "ok: same batches through feat.seg ($pragma)"
done
"$GNNDB" -csv -noheader "$BASE" "CHECK;" > chk.txt || fail "CHECK exited $?"
grep -q '^ok,' chk.txt || { cat chk.txt; fail "CHECK of the segmented table"; }
[ -f "$BASE/$FFILE" ] && [ -f "$BASE/$COPY" ] || fail "a writable open removed a segment"
echo "ok: CHECK says ok; both segments kept"

n=0
fresh() { n=$((n + 1)); DB=$PWD/copy$n.gnndb; rm -rf "$DB"; cp -r "$BASE" "$DB" || fail copy; }
expect_fail() {   # WHAT PATTERN: the SAMPLE fails, one line naming PATTERN
    "$GNNDB" -csv "$DB" "$SQL" > out.txt 2> err.txt && fail "$1: SAMPLE succeeded"
    grep -q -- "$2" err.txt || { cat err.txt; fail "$1: message lacks '$2'"; }
    echo "ok: $1: $(cat err.txt)"
}
expect_check() {  # WHAT PATTERN: CHECK lists a problem matching PATTERN
    "$GNNDB" -csv -noheader "$DB" "CHECK;" > chk.txt 2> err.txt || fail "$1: CHECK exited $?"
    grep -q -- "$2" chk.txt || { cat chk.txt; fail "$1: CHECK lacks '$2'"; }
    if grep -q '^ok,' chk.txt; then cat chk.txt; fail "$1: CHECK says ok"; fi
    echo "ok: $1: CHECK -> $(grep -- "$2" chk.txt | head -1)"
}

# a byte of block 3 of the copy (logical block 3): named by the copy
fresh
printf '\377' | dd of="$DB/$COPY" bs=1 seek=$((3 * BS + 5000)) conv=notrunc 2>/dev/null
expect_fail "damaged segment block" "block 3 of .*$COPY"
expect_check "damaged segment block" "^feat.seg,.*block 3 of .*$COPY"
# the same byte of the other segment: no run reads it
fresh
printf '\377' | dd of="$DB/$FFILE" bs=1 seek=$((3 * BS + 5000)) conv=notrunc 2>/dev/null
[ "$("$GNNDB" -csv -noheader "$DB" "$SQL")" = "$REF" ] || fail "an unmapped block changed the batches"
echo "ok: a damaged block no run names is never read"
fresh; truncate -s $((BS * (NB - 1))) "$DB/$COPY"
expect_fail "truncated segment" "$COPY.*truncated"
expect_check "truncated segment" "^feat.seg,.*$COPY.*truncated"
fresh; rm "$DB/$COPY"
expect_fail "missing segment" "$COPY"
expect_check "missing segment" "^feat.seg,.*$COPY"
echo "segmented: all ok"
