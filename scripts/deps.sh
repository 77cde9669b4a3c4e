#!/bin/sh
# Install what gnndb needs to build and test, from Debian's packages.
# Idempotent: quiet and quick when everything is already present.
# The python3-*-whl packages put setuptools and wheel in
# /usr/share/python-wheels, where `pip install` finds its build backend
# offline (make pip-test).
set -e
PKGS="build-essential pkg-config liblmdb-dev liburing-dev lemon libsqlite3-dev
libreadline-dev libcmocka-dev zlib1g-dev clang libclang-rt-14-dev valgrind tmux fio
python3-numpy python3-pytest python3-cffi python3-scipy python3-torch
python3-venv python3-pip python3-setuptools python3-wheel
python3-setuptools-whl python3-wheel-whl"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
        || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing" >&2
if [ "$(id -u)" != 0 ]; then
    echo "deps: run as root (or install:$missing)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
