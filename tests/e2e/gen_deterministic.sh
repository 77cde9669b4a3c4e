#!/bin/sh
# bench/gen is deterministic by seed and writes what it says: the same seed
# gives identical files whatever the thread count, another seed different
# ones, F * 2^S edges with every id below 2^S, and .npy files numpy loads
# with the right shape and dtype. Edges written to a pipe (stdout or a FIFO)
# are the same bytes as the file; float16 features are the float32 ones
# rounded to nearest, half the size.
set -u
fail() { echo "FAIL: $*"; exit 1; }
ROOT=$OLDPWD
GEN=$ROOT/build/bench/gen
if [ ! -x "$GEN" ]; then
    cc -O2 -std=gnu11 -D_GNU_SOURCE -o gen "$ROOT/bench/gen.c" -lm -lpthread || fail "build gen"
    GEN=$PWD/gen
fi
S=16 F=8 D=24 K=5
N=$((1 << S))

"$GEN" --scale $S --edge-factor $F --seed 7 --out a.bin --features a.npy --dim $D \
    --labels a_y.npy --classes $K --threads 2 > /dev/null || fail "gen seed 7"
"$GEN" --scale $S --edge-factor $F --seed 7 --out b.bin --features b.npy --dim $D \
    --labels b_y.npy --classes $K --threads 1 > /dev/null || fail "gen seed 7, 1 thread"
cmp -s a.bin b.bin || fail "same seed, different edges"
cmp -s a.npy b.npy || fail "same seed, different features"
cmp -s a_y.npy b_y.npy || fail "same seed, different labels"
echo "ok: same seed, identical files (1 and 2 threads)"

"$GEN" --scale $S --edge-factor $F --seed 8 --out c.bin --features c.npy --dim $D \
    --labels c_y.npy --classes $K > /dev/null || fail "gen seed 8"
cmp -s a.bin c.bin && fail "seeds 7 and 8 give the same edges"
cmp -s a.npy c.npy && fail "seeds 7 and 8 give the same features"
cmp -s a_y.npy c_y.npy && fail "seeds 7 and 8 give the same labels"
echo "ok: different seed, different files"

"$GEN" --scale $S --edge-factor $F --seed 7 --out - --threads 3 > s.bin 2> s.err ||
    fail "gen --out -"
cmp -s a.bin s.bin || fail "edges to stdout differ from the file"
grep -q '^gen: scale=' s.err || fail "with --out -, the summary line is not on stderr"
mkfifo e.fifo || fail "mkfifo"
"$GEN" --scale $S --edge-factor $F --seed 7 --out e.fifo --threads 2 > /dev/null &
cat e.fifo > p.bin
wait $! || fail "gen into a FIFO"
cmp -s a.bin p.bin || fail "edges through a FIFO differ from the file"
echo "ok: edges through stdout and a FIFO equal the file"
"$GEN" --scale $S --seed 7 --features h.npy --dim $D --dtype float16 > /dev/null ||
    fail "gen --dtype float16"
hsize=$(($(wc -c < h.npy) - N * D * 2))
[ $hsize -gt 10 ] && [ $((hsize % 64)) -eq 0 ] || fail "float16 .npy: header of $hsize bytes"
"$GEN" --scale 4 --features x.npy --dtype float64 > /dev/null 2>&1 && fail "--dtype float64 accepted"
"$GEN" --scale 4 --features - > /dev/null 2>&1 && fail "--features - accepted"

size=$(wc -c < a.bin)
[ "$size" -eq $((F * N * 16)) ] || fail "edge file is $size bytes, want $((F * N * 16))"
# Largest id, read as little-endian int64 (od prints in host order; the
# ids are small and positive, so the low 4 bytes as unsigned suffice on a
# little-endian host and the high 4 bytes must be zero).
max=$(od -An -v -t u4 -w8 a.bin | awk '{ if ($2 != 0) bad = 1; if ($1 > m) m = $1 }
      END { print bad ? -1 : m }')
[ "$max" -ge 0 ] || fail "an id has high bits set"
[ "$max" -lt $N ] || fail "id $max is not below 2^$S"
echo "ok: $((F * N)) edges, largest id $max < $N"

hdr=$(($(wc -c < a.npy) - N * D * 4))
if [ $hdr -le 10 ] || [ $((hdr % 64)) -ne 0 ]; then
    fail "features: header of $hdr bytes"
fi
head -c 6 a.npy | od -An -c | grep -q 'N   U   M   P   Y' || fail "features lack the .npy magic"

PY=/usr/bin/python3
if [ -x $PY ] && $PY -c 'import numpy' 2> /dev/null; then
    $PY - $N $D $K $S <<'PYEOF' || fail "numpy checks"
import sys
import numpy as np
n, d, k, s = map(int, sys.argv[1:])
x = np.load("a.npy")
assert x.shape == (n, d) and x.dtype == np.float32, (x.shape, x.dtype)
assert x.min() >= -1 and x.max() < 1 and abs(float(x.mean())) < 0.01, (x.min(), x.max(), x.mean())
y = np.load("a_y.npy")
assert y.shape == (n,) and y.dtype == np.int64, (y.shape, y.dtype)
assert y.min() >= 0 and y.max() < k and len(np.unique(y)) == k
h = np.load("h.npy")
assert h.dtype == np.float16 and h.shape == x.shape, (h.dtype, h.shape)
assert np.array_equal(h, x.astype(np.float16)), "float16 is not float32 rounded"
e = np.fromfile("a.bin", dtype="<i8").reshape(-1, 2)
assert e.min() >= 0 and e.max() < n
# R-MAT skew, and the relabelling spreads the hubs over the id space.
deg = np.bincount(e[:, 1], minlength=n)
assert deg.max() > 50 * deg.mean(), deg.max()
top = np.argsort(-deg)[:16]
assert top.min() > 0 and top.max() > n // 2, top
print("ok: numpy loads features", x.shape, "labels", y.shape, "max in-degree", deg.max())
PYEOF
else
    echo "skip: numpy not importable by $PY"
fi
echo "pass"
