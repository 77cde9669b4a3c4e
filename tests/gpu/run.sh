#!/bin/sh
# GPU tests of build dir $1 (default build): the transfer operator alone
# (test_gpu_transfer), device batches against host batches through the C API
# (test_gpu_batches: node, link and typed batches, in memory and spilled, the
# GPU cache), and the shell: SAMPLE ... TO DEVICE 'cuda:0' prints the same
# rows (digests included) as TO DEVICE 'host'. Each C test runs twice: against
# the CUDA runtime, where without a usable device it checks that TO DEVICE
# 'cuda:0' fails with one clear line and that 'host' is unaffected, then says
# SKIP; and against the stand-in runtime (tests/gpu/cudart_mock.c, in
# $1/tests/gpu/mock), which runs everywhere and also fails allocations,
# copies and the device on demand. Exit 0 on pass or skip.
set -u
B=${1:-build}
GNNDB=$B/gnndb
DATA=$(sh "$(dirname "$0")/../../scripts/data.sh")
T=$(mktemp -d /tmp/gnndb-gpu.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0; skip=0; mocked=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# run PROGRAM ARGS...: PASS / SKIP / FAIL from its last line and exit status
run() {
    name=$(echo "$1" | sed "s|^$B/tests/gpu/||")
    [ -x "$1" ] || { bad "$name not built (make test-gpu)"; return; }
    log=$T/$(echo "$name" | tr / _).log
    if "$@" > "$log" 2>&1; then
        last=$(tail -1 "$log")
        case $last in
            SKIP*) skip=$((skip + 1)); echo "skip $name: $last" ;;
            *) echo "ok   $name" ;;
        esac
    else
        bad "$name"; tail -40 "$log"
    fi
}

[ -d "$DATA/cora" ] || { echo "SKIP: cora not found under '$DATA' (set GNNDB_DATA)"; exit 0; }
for kind in "" mock/; do
    [ -n "$kind" ] && [ ! -d "$B/tests/gpu/mock" ] && {
        echo "note: no mock tests (built without the CUDA toolkit)"; continue; }
    [ -n "$kind" ] && mocked=1
    run "$B/tests/gpu/${kind}test_gpu_transfer"
    mkdir -p "$T/${kind}batches.gnndb"
    run "$B/tests/gpu/${kind}test_gpu_batches" "$T/${kind}batches.gnndb" "$DATA"
done

# Python: the CUDA Array Interface checked key by key, and device batches
# end to end on the stand-in runtime (python/tests/test_device.py); where
# torch sees a device, the same cases (device_cases.py) and the loader's
# TO DEVICE test against the real library.
PY=${PYTHON:-/usr/bin/python3}
case $B in
    *asan*|*tsan*) echo "note: $B is a sanitizer build: the Python GPU tests run with make test-gpu" ;;
    *) false ;;
esac ||
if "$PY" -c 'import pytest, numpy, cffi' 2>/dev/null; then
    if sh tests/run_pytest.sh "$B" "$PY" python/tests/test_device.py > "$T/py.log" 2>&1; then
        echo "ok   python: test_device.py"
    else
        bad "python: test_device.py"; tail -40 "$T/py.log"
    fi
    if "$PY" -c 'import torch, sys; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
        if sh tests/run_pytest.sh "$B" "$PY" python/tests/device_cases.py \
                python/tests/test_loader.py > "$T/pycuda.log" 2>&1; then
            echo "ok   python on the device: device_cases.py, test_loader.py"
        else
            bad "python on the device"; tail -40 "$T/pycuda.log"
        fi
    else
        skip=$((skip + 1)); echo "skip python on the device: torch sees no CUDA device"
    fi
else
    echo "note: no pytest, numpy or cffi for $PY: the Python GPU tests did not run"
fi

# The shell: same rows on the device as on the host.
DB=$T/cora.gnndb
"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$DATA/cora/edges.tsv';
  IMPORT FEATURES feat INTO cora FROM '$DATA/cora/features.npy';
  IMPORT LABELS INTO cora FROM '$DATA/cora/labels.npy';" > "$T/build.log" 2>&1 ||
    { cat "$T/build.log"; bad "building $DB"; exit 1; }
for q in "SAMPLE 10,10 FROM cora BATCH 64 SEED 1 LIMIT 5" \
         "SAMPLE 10,10 FROM cora FEATURES feat BATCH 64 SEED 1 LIMIT 5"; do
    host=$("$GNNDB" "$DB" "$q TO DEVICE 'host';" 2> "$T/host.err") ||
        { cat "$T/host.err"; bad "host: $q"; continue; }
    [ -n "$host" ] || bad "host printed nothing: $q"
    if dev=$("$GNNDB" "$DB" "$q TO DEVICE 'cuda:0';" 2> "$T/dev.err"); then
        if [ "$host" = "$dev" ]; then
            echo "ok   shell: $q: cuda:0 rows = host rows"
        else
            echo "$host" > "$T/h.txt"; echo "$dev" > "$T/d.txt"
            diff "$T/h.txt" "$T/d.txt"; bad "shell: digests differ: $q"
        fi
    else
        # no device: one line naming the device, nothing on stdout
        if [ "$(wc -l < "$T/dev.err")" -eq 1 ] &&
           grep -q "TO DEVICE 'cuda:0'" "$T/dev.err" && [ -z "$dev" ]; then
            skip=$((skip + 1)); echo "skip shell: $(cat "$T/dev.err")"
        else
            cat "$T/dev.err"; bad "shell: cuda:0 failed unclearly: $q"
        fi
        again=$("$GNNDB" "$DB" "$q TO DEVICE 'host';" 2>/dev/null)
        [ "$again" = "$host" ] || bad "shell: host rows changed after cuda:0 failed"
    fi
done

if [ $fail -gt 0 ]; then echo "gpu: $fail failed"; exit 1; fi
if [ $skip -gt 0 ]; then
    if [ $mocked = 1 ]; then why="; the stand-in runtime's tests passed"; else why=""; fi
    echo "SKIP: gpu: no CUDA device ($skip parts skipped$why)"; exit 0
fi
echo "PASS: gpu"
