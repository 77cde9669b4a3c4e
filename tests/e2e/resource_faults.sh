#!/bin/sh
# Resource faults: a disk that fills up during an import (an 8 MB tmpfs;
# skipped, saying so, where it cannot be mounted), a memory_limit too small
# for one mini-batch, and the I/O backends: 'pread', 'uring' and 'auto' give
# the same batches, and 'auto' falls back to pread where io_uring is missing
# (simulated with a seccomp filter; skipped where that cannot be built).
set -u
fail() { echo "FAIL: $*"; exit 1; }
D=$GNNDB_DATA/cora
MNT=$PWD/mnt
mounted=0
cleanup() { [ $mounted -eq 1 ] && umount "$MNT" 2>/dev/null; }
trap cleanup EXIT

# expect_fail WHAT DB SQL PATTERN: exit status 1, one line on stderr
# matching PATTERN, nothing but PRAGMA rows on stdout.
expect_fail() {
    "$GNNDB" -csv -noheader "$2" "$3" > out.txt 2> err.txt; rc=$?
    [ $rc -eq 1 ] || { cat err.txt; fail "$1: exited $rc, not 1"; }
    [ "$(wc -l < err.txt)" -eq 1 ] || { cat err.txt; fail "$1: not one line on stderr"; }
    grep -q -- "$4" err.txt || { cat err.txt; fail "$1: message lacks '$4'"; }
    if grep -v -e '^memory_limit,' -e '^io,' out.txt | grep -q .; then
        cat out.txt; fail "$1: returned data"
    fi
    echo "ok: $1: $(cat err.txt)"
}

# ---- 1. disk full -------------------------------------------------------
mkdir -p "$MNT"
if mount -t tmpfs -o size=8m tmpfs "$MNT" 2>/dev/null; then
    mounted=1
    DB=$MNT/t.gnndb
    "$GNNDB" "$DB" "CREATE GRAPH cora FROM '$D/edges.tsv';
      IMPORT LABELS INTO cora FROM '$D/labels.npy';
      CREATE SPLIT train ON cora FROM '$D/train_idx.npy';" || fail "setup on tmpfs"
    snap() {
        ( ls "$DB" | grep -v -e '-wal$' -e '-shm$'
          "$GNNDB" -readonly -csv "$DB" "SHOW GRAPHS;"
          "$GNNDB" -readonly -csv "$DB" "DESCRIBE cora;" |
              grep -v -e '^file\.catalog\.db' -e '^file\.index\.mdb' ) 2>&1
    }
    used() { df -Pk "$MNT" | awk 'NR == 2 { print $3 }'; }
    same_as_before() {
        AFTER=$(snap)
        [ "$BEFORE" = "$AFTER" ] || { echo "$BEFORE" > b.txt; echo "$AFTER" > a.txt; diff b.txt a.txt; fail "$1: the database changed"; }
        "$GNNDB" -readonly -csv "$DB" "CHECK;" | grep -q '^ok,' || fail "$1: CHECK"
        strays=$(ls -a "$DB" | grep -e '\.tmp$' -e '^tmp-' -e '^\.gnndb-import' || true)
        [ -z "$strays" ] || fail "$1: files left behind: $strays"
        echo "ok: $1: the database is as before and passes CHECK"
    }
    BEFORE=$(snap); U0=$(used)

    # 15 MB of features into 8 MB: the block file being written fills it
    expect_fail "import bigger than the disk" "$DB" \
        "IMPORT FEATURES feat INTO cora FROM '$D/features.npy';" \
        "disk is full in .*t.gnndb.*f-[0-9a-f]*\.blk.*No space left"
    same_as_before "after the failed import"
    [ "$(used)" -le $((U0 + 64)) ] || fail "the failed import left $(( $(used) - U0 )) KiB in use"

    # a graph of 64 MB of edges: the importer's scratch files fill it
    /usr/bin/python3 -c "
import numpy as np
np.random.default_rng(3).integers(0, 1 << 17, size=(1 << 22, 2), dtype=np.int64).astype('<i8').tofile('big.bin')" || fail "generate big.bin"
    expect_fail "graph bigger than the disk" "$DB" \
        "CREATE GRAPH big FROM '$PWD/big.bin' FORMAT bin;" "disk is full in .*t.gnndb"
    same_as_before "after the failed CREATE GRAPH"
    [ "$(used)" -le $((U0 + 64)) ] || fail "the failed CREATE GRAPH left $(( $(used) - U0 )) KiB in use"

    # an append of 64 MB of edges among cora's nodes: it stays at its one
    # version
    /usr/bin/python3 -c "
import numpy as np
np.random.default_rng(4).integers(0, 2708, size=(1 << 22, 2), dtype=np.int64).astype('<i8').tofile('bigc.bin')" || fail "generate bigc.bin"
    expect_fail "append bigger than the disk" "$DB" \
        "INSERT EDGES INTO cora FROM '$PWD/bigc.bin' FORMAT bin;" "disk is full in .*t.gnndb"
    same_as_before "after the failed INSERT EDGES"
    [ "$(used)" -le $((U0 + 64)) ] || fail "the failed INSERT EDGES left $(( $(used) - U0 )) KiB in use"

    # a disk with less than 64 KiB left, then with no byte left: statements
    # fail cleanly (with no byte left even SQLite's readers fail: they need
    # room for the WAL index); once space is back, everything is there
    for bs in 64k 4k; do
        dd if=/dev/zero of="$MNT/filler.$bs" bs=$bs 2>/dev/null
        for q in "CREATE SPLIT s ON cora RANDOM 0.5 SEED 1;" "DROP GRAPH cora;" \
                 "IMPORT FEATURES small INTO cora FROM '$D/labels.npy';"; do
            "$GNNDB" "$DB" "$q" > out.txt 2> err.txt; rc=$?
            [ $rc -ne 0 ] || fail "full disk: '$q' succeeded"
            [ $rc -eq 1 ] && grep -q 'catalog.db\|index.mdb\|t.gnndb' err.txt ||
                { cat err.txt; fail "full disk: '$q' exited $rc"; }
            echo "ok: $(df -Pk "$MNT" | awk 'NR == 2 { print $4 }') KiB free: $q -> $(cat err.txt)"
        done
    done
    rm -f "$MNT"/filler.*
    same_as_before "after the full disk was freed"
    "$GNNDB" "$DB" "IMPORT FEATURES small INTO cora FROM '$D/labels.npy';" ||
        fail "an import that fits, after the failures"
    "$GNNDB" -readonly -csv "$DB" "CHECK;" | grep -q '^ok,' || fail "CHECK after the import that fits"
    echo "ok: an import that fits succeeds afterwards"
    umount "$MNT" && mounted=0
else
    echo "skip: disk-full tests: cannot mount a tmpfs here (needs root)"
fi

# ---- 2. memory_limit too small for one mini-batch -----------------------
DB=$PWD/m.gnndb
"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$D/edges.tsv';
  IMPORT FEATURES feat INTO cora FROM '$D/features.npy';
  IMPORT LABELS INTO cora FROM '$D/labels.npy';" || fail setup

# ---- 1b. the spill area's disk fills up ----------------------------------
# runs of spilled mini-batches on a 4 MB tmpfs: the error names the spill
# area, nothing stays on it, the database is untouched (no hot rows: all of
# cora's would be, and its runs would fit)
SP=$PWD/spillmnt
mkdir -p "$SP"
if mount -t tmpfs -o size=4m tmpfs "$SP" 2>/dev/null; then
    "$GNNDB" -csv -noheader "$DB" "PRAGMA temp_dir = '$SP'; PRAGMA spill = 'on';
      PRAGMA feature_cache = 0;
      SAMPLE 10,10 FROM cora BATCH 512 HYPERBATCH 8 SEED 1;" > out.txt 2> err.txt; rc=$?
    [ $rc -eq 1 ] || { cat err.txt; umount "$SP"; fail "spill on a full disk: exited $rc"; }
    grep -q "spill area .*spillmnt.*No space left" err.txt ||
        { cat err.txt; umount "$SP"; fail "spill on a full disk: message"; }
    grep -q '^0,' out.txt && { umount "$SP"; fail "spill on a full disk returned batches"; }
    left=$(ls -A "$SP")
    umount "$SP"
    [ -z "$left" ] || fail "spill on a full disk left files: $left"
    "$GNNDB" -readonly -csv "$DB" "CHECK;" | grep -q '^ok,' || fail "CHECK after the full spill area"
    echo "ok: spill area full: $(cat err.txt)"
else
    echo "skip: spill-area disk-full test: cannot mount a tmpfs here (needs root)"
fi
expect_fail "memory_limit 1MB" "$DB" \
    "PRAGMA memory_limit='1MB'; SAMPLE -1,-1 FROM cora BATCH 2708;" \
    "memory_limit .*too small"
expect_fail "memory_limit 1KB" "$DB" "PRAGMA memory_limit='1KB';" "memory_limit"
# a limit that fits a few mini-batches only: the hyperbatch shrinks, the
# batches do not change
Q="SAMPLE 10,10 FROM cora FEATURES feat BATCH 128 SHUFFLE SEED 9;"
REF=$("$GNNDB" -csv -noheader "$DB" "$Q") || fail "reference sample"
got=$("$GNNDB" -csv -noheader "$DB" "PRAGMA memory_limit='48MB'; $Q" | grep -v '^memory_limit,') ||
    fail "sample under memory_limit 48MB"
[ "$got" = "$REF" ] || fail "memory_limit 48MB changed the batches"
echo "ok: memory_limit 48MB gives the same batches"

# ---- 3. I/O backends ----------------------------------------------------
for io in pread uring auto; do
    for hb in "" "HYPERBATCH 1"; do
        got=$("$GNNDB" -csv -noheader "$DB" "PRAGMA io='$io'; ${Q%;} $hb;" | grep -v '^io,') ||
            fail "sample with io=$io $hb"
        [ "$got" = "$REF" ] || fail "io=$io $hb gives other batches"
    done
done
echo "ok: io pread, uring and auto give the same batches"

# no io_uring: io_uring_setup(2) fails with ENOSYS under a seccomp filter
cat > nouring.c <<'EOF'
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof f / sizeof f[0], f};
    if (argc < 2 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
        perror("nouring");
        return 2;
    }
    execvp(argv[1], argv + 1);
    perror(argv[1]);
    return 2;
}
EOF
if cc -o nouring nouring.c 2>/dev/null && ./nouring true 2>/dev/null; then
    got=$(./nouring "$GNNDB" -csv -noheader "$DB" "$Q") || fail "io=auto without io_uring"
    [ "$got" = "$REF" ] || fail "io=auto without io_uring gives other batches"
    echo "ok: without io_uring, io=auto falls back to pread: same batches"
    ./nouring "$GNNDB" -csv -noheader "$DB" "PRAGMA io='uring'; $Q" > out.txt 2> err.txt; rc=$?
    [ $rc -eq 1 ] && grep -q 'io_uring' err.txt && ! grep -qv '^io,' out.txt ||
        { cat err.txt; fail "io=uring without io_uring: exit $rc"; }
    echo "ok: without io_uring, io=uring fails: $(cat err.txt)"
else
    echo "skip: io_uring fallback: cannot build or run a seccomp filter here"
fi
echo "resource faults handled"
