#!/bin/sh
# fio.sh — the disk's sequential read bandwidth, the number every
# scan-based plan is bounded by: O_DIRECT 1 MiB reads through io_uring at
# queue depth 32 on FILE (the feature file, say: it is read, never written).
#
#   sh bench/fio.sh FILE [SECONDS]
#
# Last line: FIO_BW_MBPS=<MB/s, 1e6 bytes> (0 and exit 1 if fio failed).
# Falls back to libaio where fio or the kernel lacks io_uring, and says so.
set -u
FILE=${1:?usage: fio.sh FILE [SECONDS]}
SECS=${2:-10}
[ -r "$FILE" ] || { echo "fio.sh: cannot read $FILE" >&2; echo "FIO_BW_MBPS=0"; exit 1; }
if ! command -v fio > /dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null 2>&1; then
        apt-get install -y fio > /dev/null 2>&1
    fi
    command -v fio > /dev/null 2>&1 || { echo "fio.sh: fio not installed" >&2; echo "FIO_BW_MBPS=0"; exit 1; }
fi
# Whole MiBs only: O_DIRECT wants aligned lengths.
SIZE=$(( $(stat -c %s "$FILE") / 1048576 ))
[ "$SIZE" -gt 0 ] || { echo "fio.sh: $FILE is under 1 MiB" >&2; echo "FIO_BW_MBPS=0"; exit 1; }

run() {
    # terse v3: field 7 is the read bandwidth in KiB/s
    fio --name=seqread --filename="$FILE" --readonly --rw=read --bs=1M \
        --direct=1 --ioengine="$1" --iodepth=32 --numjobs=1 --size="${SIZE}M" \
        --time_based --runtime="$SECS" --output-format=terse --terse-version=3 \
        2> "$ERR" | awk -F';' 'NF > 7 { print $7; exit }'
}
ERR=$(mktemp)
trap 'rm -f "$ERR"' EXIT
KIBS=$(run io_uring)
ENGINE=io_uring
if [ -z "$KIBS" ] || [ "$KIBS" = 0 ]; then
    echo "fio.sh: io_uring failed ($(head -c 200 "$ERR")); trying libaio" >&2
    KIBS=$(run libaio)
    ENGINE=libaio
fi
if [ -z "$KIBS" ] || [ "$KIBS" = 0 ]; then
    echo "fio.sh: fio failed: $(head -c 300 "$ERR")" >&2
    echo "FIO_BW_MBPS=0"
    exit 1
fi
echo "fio.sh: $FILE ${SIZE} MiB, O_DIRECT 1 MiB sequential reads, $ENGINE iodepth 32, ${SECS} s" >&2
awk -v k="$KIBS" 'BEGIN { printf "FIO_BW_MBPS=%.1f\n", k * 1024 / 1e6 }'
