#!/bin/sh
# Run the Python tests (python/tests) with Debian's python3 against build dir $1.
B=${1:-build}; PY=${2:-/usr/bin/python3}
[ -d python/tests ] || { echo "pytest: no python tests"; exit 0; }
export GNNDB_LIB=$(pwd)/$B/libgnndb.so
export GNNDB_DATA=$(sh scripts/data.sh)   # ../shared/data or the shipped cora
export PYTHONPATH=$(pwd)/python${PYTHONPATH:+:$PYTHONPATH}
"$PY" -m pytest -q python/tests
