#!/bin/sh
# layers.sh — that every library file calls only downward, and that no two
# call each other in a loop (docs/architecture.md). Floors, top first:
# stmt, cmd, exec, engine, catalog/storage/parser/gpu, common/include; the
# shell is a client above them. Read from the includes and the names each
# file uses (scripts/layers.py, python3's standard library only); exits 1
# with what it found. `make layers` runs it, and `make test` with it.
#
#   sh scripts/layers.sh [-v] [ROOT]   ROOT: the tree (default: this one);
#                                      -v: also the arrows between folders
exec "${PYTHON:-python3}" "$(dirname "$0")/layers.py" "$@"
