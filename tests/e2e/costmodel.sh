#!/bin/sh
# EXPLAIN's cost model and PRAGMA calibrate, end to end:
# - EXPLAIN's estimated blocks and bytes, per operator and in total, are
#   within a factor 2 of what EXPLAIN ANALYZE then reads, on cora (whose
#   blocks all fit the pools) and on a generated R-MAT graph whose blocks
#   do not (64 KiB blocks, a 16 MB memory_limit);
# - an uncalibrated database says so; PRAGMA calibrate = measure stores a
#   profile that survives reopening (read back, read-only too), leaves no
#   scratch file, and is refused on a read-only connection;
# - the time estimate follows the profile: half the bandwidth, twice the
#   I/O time; = default forgets the profile;
# - the suggested HYPERBATCH never exceeds what memory_limit holds, by the
#   plan's own memory line.
set -u
fail() { echo "FAIL: $*"; exit 1; }
ROOT=$OLDPWD
D=$GNNDB_DATA
GEN=$ROOT/build/bench/gen
if [ ! -x "$GEN" ]; then
    cc -O2 -std=gnu11 -D_GNU_SOURCE -o gen "$ROOT/bench/gen.c" -lm -lpthread || fail "build gen"
    GEN=$PWD/gen
fi
C=$PWD/c.gnndb
"$GNNDB" "$C" "CREATE GRAPH cora FROM '$D/cora/edges.tsv';
  IMPORT FEATURES feat INTO cora FROM '$D/cora/features.npy';
  IMPORT LABELS INTO cora FROM '$D/cora/labels.npy';
  CREATE SPLIT train ON cora FROM '$D/cora/train_idx.npy';" > /dev/null || fail "cora setup"
"$GEN" --scale 16 --edge-factor 8 --seed 3 --out g.bin --features g.npy --dim 64 \
    --labels gy.npy --classes 4 > /dev/null || fail "gen"
G=$PWD/g.gnndb
"$GNNDB" "$G" "CREATE GRAPH g FROM 'g.bin' NODES 65536 BLOCK SIZE 64KB;
  IMPORT FEATURES f INTO g FROM 'g.npy' BLOCK SIZE 64KB;
  IMPORT LABELS INTO g FROM 'gy.npy';" > /dev/null || fail "generated graph setup"

# est./actual pairs of every operator and the total, within 2x
/usr/bin/python3 - "$GNNDB" "$C" "$G" <<'PY' || fail "estimates against actual figures"
import re, subprocess, sys
shell, cora, gen = sys.argv[1:4]
UNIT = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
def size(s):
    v, u = s.split()
    return float(v) * UNIT[u]
def run(db, sql):
    out = subprocess.run([shell, "-list", "-noheader", db, sql],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()
def close(est, act, what, slack):
    # within 2x, or within `slack` blocks (bytes) where both are tiny
    ok = abs(est - act) <= slack or (act > 0 and est > 0 and 0.5 <= est / act <= 2)
    print(("ok  " if ok else "BAD ") + f"{what}: est {est:.0f} actual {act:.0f}")
    return ok
good = True
cases = [
    (cora, "", "SAMPLE 10,10 FROM cora SEEDS train BATCH 64 SEED 3", 1 << 20),
    (cora, "PRAGMA memory_limit = '24MB';", "SAMPLE 10,5 FROM cora BATCH 64 HYPERBATCH 8 SEED 3", 1 << 20),
    (cora, "", "SAMPLE 5,5 FROM cora BATCH 128 SHUFFLE SEED 9 EPOCHS 2", 1 << 20),
    (gen, "PRAGMA memory_limit = '16MB';", "SAMPLE 10,5 FROM g BATCH 256 LIMIT 16 HYPERBATCH 1 SEED 1", 65536),
    (gen, "PRAGMA memory_limit = '16MB';", "SAMPLE 10,5 FROM g BATCH 256 LIMIT 20 HYPERBATCH 4 SEED 1", 65536),
    (gen, "PRAGMA memory_limit = '16MB';", "SAMPLE 10,5 FROM g BATCH 256 LIMIT 20 SEED 1", 65536),
    (gen, "PRAGMA memory_limit = '16MB';", "SAMPLE 10,5 FROM g BATCH 256 LIMIT 20 SHUFFLE SEED 1", 65536),
    (gen, "PRAGMA memory_limit = '24MB';", "SAMPLE 15,10 FROM g BATCH 128 LIMIT 30 SHUFFLE SEED 2", 65536),
]
for db, pre, q, bs in cases:
    print("--", q)
    lines = run(db, "PRAGMA threads = 2; " + pre + " EXPLAIN ANALYZE " + q)
    plain = run(db, "PRAGMA threads = 2; " + pre + " EXPLAIN " + q)
    ests = [l for l in lines if l.strip().startswith("est.:")]
    acts = [l for l in lines if l.strip().startswith("actual:")]
    # EXPLAIN alone gives the same estimates as EXPLAIN ANALYZE
    assert ests == [l for l in plain if l.strip().startswith("est.:")], q
    assert len(ests) == len(acts) and ests, lines
    for e, a in zip(ests, acts):
        m1 = re.search(r"blocks read (\d+) \(([\d.]+ \w+), ", e)
        m2 = re.search(r"blocks read (\d+) \(([\d.]+ \w+), ", a)
        good &= close(float(m1[1]), float(m2[1]), "blocks", 3)
        good &= close(size(m1[2]), size(m2[2]), "bytes", 3 * bs)
    tot = [l for l in lines if l.startswith("estimated vs actual:")][0]
    m = re.search(r"blocks read (\d+) vs (\d+), bytes ([\d.]+ \w+) vs ([\d.]+ \w+), "
                  r"([\d.e+-]+) s vs ([\d.e+-]+) s", tot)
    good &= close(float(m[1]), float(m[2]), "total blocks", 3)
    good &= close(size(m[3]), size(m[4]), "total bytes", 3 * bs)
    assert float(m[5]) > 0 and float(m[6]) > 0, tot
sys.exit(0 if good else 1)
PY
echo "ok: estimates within 2x of EXPLAIN ANALYZE"

# uncalibrated, then measured; the profile survives reopening
"$GNNDB" -list -noheader "$C" "PRAGMA calibrate;" | grep -qx "status|uncalibrated" || fail "new database not uncalibrated"
"$GNNDB" -list -noheader "$C" "EXPLAIN SAMPLE 10 FROM cora BATCH 64;" | grep -q "^cost model: uncalibrated" \
    || fail "EXPLAIN does not say uncalibrated"
out=$("$GNNDB" -readonly "$C" "PRAGMA calibrate = measure;" 2>&1) && fail "calibrated read-only: $out"
echo "$out" | grep -q "read-only" || fail "read-only refusal does not say so: $out"
"$GNNDB" -list -noheader "$C" "PRAGMA calibrate = measure;" > m1.txt || fail "PRAGMA calibrate = measure"
grep -qx "status|calibrated" m1.txt || fail "not calibrated after measuring: $(cat m1.txt)"
grep -qx "source|measured" m1.txt || fail "source not measured"
ls "$C" | grep -q "calibrate" && fail "scratch file left behind: $(ls "$C")"
"$GNNDB" -list -noheader -readonly "$C" "PRAGMA calibrate;" > m2.txt || fail "read back"
cmp -s m1.txt m2.txt || fail "profile changed across reopen: $(diff m1.txt m2.txt)"
/usr/bin/python3 - "$C/catalog.db" m1.txt <<'PY' || fail "stored profile"
import sqlite3, sys
rows = dict(l.rstrip("\n").split("|", 1) for l in open(sys.argv[2]))
for k in ("seq_read_1m_bps", "seq_read_4m_bps", "rand_4k_iops", "rand_4k_lat_us",
          "rand_bs_iops", "rand_bs_lat_us", "sample_edges_per_s", "gather_bps"):
    assert int(rows[k]) > 0, (k, rows[k])
assert int(rows["rand_bs"]) == 1 << 20, rows["rand_bs"]
c = sqlite3.connect(sys.argv[1])
stored = dict(c.execute("SELECT key, value FROM disk_profile"))
assert round(stored["seq_read_1m_bps"]) == int(rows["seq_read_1m_bps"]), stored
assert c.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == 7
assert c.execute("SELECT value FROM meta WHERE key = 'format_version'").fetchone()[0] == 3
print("profile:", {k: rows[k] for k in ("seq_read_1m_bps", "rand_4k_iops", "rand_bs_iops")})
PY
"$GNNDB" -list -noheader "$C" "EXPLAIN SAMPLE 10 FROM cora BATCH 64;" | grep -q "^cost model: disk profile measured" \
    || fail "EXPLAIN does not use the measured profile"
echo "ok: calibrate stores a profile that survives reopening"

# the time estimate follows the profile
est_io() {
    "$GNNDB" -list -noheader "$C" "PRAGMA calibrate = '$1'; PRAGMA threads = 2;
        EXPLAIN SAMPLE 10,10 FROM cora BATCH 64 SEED 1;" |
        sed -n 's/^estimate: .* io \([0-9.e+-]*\) s, cpu.*/\1/p'
}
a=$(est_io "seq_read_1m_bps=2e9, seq_read_4m_bps=2e9, rand_4k_iops=1e5, rand_bs_iops=1e5")
b=$(est_io "seq_read_1m_bps=1e9, seq_read_4m_bps=1e9, rand_4k_iops=1e5, rand_bs_iops=1e5")
[ -n "$a" ] && [ -n "$b" ] || fail "no I/O estimate"
/usr/bin/python3 -c "import sys; a, b = float('$a'), float('$b'); sys.exit(0 if 1.8 < b / a < 2.2 else 1)" \
    || fail "half the bandwidth: io $a s -> $b s, not about twice"
echo "ok: half the bandwidth, io $a s -> $b s"
out=$("$GNNDB" "$C" "PRAGMA calibrate = 'seq_read_1m_bps=-1';" 2>&1) && fail "negative bandwidth accepted"
echo "$out" | grep -q "seq_read_1m_bps" || fail "error does not name the field: $out"
out=$("$GNNDB" "$C" "PRAGMA calibrate = 'bogus=1';" 2>&1) && fail "unknown field accepted"
echo "$out" | grep -q "bogus" || fail "error does not name the field: $out"
"$GNNDB" -list -noheader "$C" "PRAGMA calibrate;" | grep -qx "seq_read_1m_bps|1000000000" \
    || fail "a refused edit changed the profile"
"$GNNDB" -list -noheader "$C" "PRAGMA calibrate = default;" | grep -qx "status|uncalibrated" || fail "= default"
"$GNNDB" -list -noheader "$C" "PRAGMA calibrate;" | grep -qx "status|uncalibrated" || fail "= default not stored"
echo "ok: manual profiles, refusals, default"

# the suggested HYPERBATCH fits memory_limit
/usr/bin/python3 - "$GNNDB" "$G" "$C" <<'PY' || fail "suggested HYPERBATCH"
import re, subprocess, sys
shell, gen, cora = sys.argv[1:4]
UNIT = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
def size(v, u): return float(v) * UNIT[u]
for db, q in ((gen, "SAMPLE 10,5 FROM g BATCH 256 SEED 1"),
              (gen, "SAMPLE 10 FROM g BATCH 64 HYPERBATCH 2 SEED 1"),
              (cora, "SAMPLE 10,10 FROM cora BATCH 32 SEED 1")):
    for ml in ("12MB", "16MB", "32MB", "64MB", "256MB", "2GB"):
        out = subprocess.run([shell, "-list", "-noheader", db,
                              f"PRAGMA memory_limit = '{ml}'; EXPLAIN {q}"],
                             capture_output=True, text=True)
        if out.returncode:
            assert "too small" in out.stderr, out.stderr
            continue
        text = out.stdout
        m = re.search(r"staged ([\d.]+) (\w+) \(about ([\d.]+) (\w+) per mini-batch\)", text)
        staged, per = size(m[1], m[2]), size(m[3], m[4])
        h = int(re.search(r"suggested HYPERBATCH (\d+)( in memory, not spilled)?:", text)[1])
        # the printed sizes are rounded to 0.1 of their unit
        fits = max(1, int(staged * 1.05 / per))
        print(f"{q[:30]} {ml}: suggested {h}, staged/per-batch {staged / per:.2f}")
        assert 1 <= h <= fits and h <= 1024, (h, fits)
PY
echo "ok: suggested HYPERBATCH fits memory_limit"
