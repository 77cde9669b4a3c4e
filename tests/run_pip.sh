#!/bin/sh
# make pip-test: the Python package as a user installs it, offline. In a
# fresh venv of Debian's python3 $1 (with its site-packages, for numpy, cffi
# and torch), `pip install .` builds libgnndb with make and bundles it; from
# a folder outside the checkout, `import gnndb` loads that bundled library
# (GNNDB_LIB still wins when set), and a copy of examples/train_sage.py
# trains 5 epochs on cora. `pip wheel .` gives one py3-none-<platform> wheel
# holding gnndb/libgnndb.so, which installs and loads the same way (and
# builds a graph from cora); so does the wheel built from the sdist alone,
# which shows MANIFEST.in lists every source make needs.
# --no-index throughout: the build backend comes from /usr/share/python-wheels
# (isolated build) or from the venv (--no-build-isolation).
set -u
PY=${1:-/usr/bin/python3}
ROOT=$(pwd)
T=$(mktemp -d /tmp/gnndb-pip.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
unset GNNDB_LIB PYTHONPATH
DATA=$(sh scripts/data.sh) || fail "no cora (scripts/data.sh)"
V=$T/venv
PIP="$V/bin/pip --disable-pip-version-check --no-cache-dir"
mkdir "$T/elsewhere"

"$PY" -m venv --system-site-packages "$V" > "$T/log" 2>&1 ||
    { cat "$T/log"; fail "$PY -m venv (Debian: python3-venv)"; }

# pip install . with build isolation: setuptools and wheel from Debian's wheels
$PIP install --no-index --find-links /usr/share/python-wheels . > "$T/log" 2>&1 ||
    { tail -30 "$T/log"; fail "pip install ."; }
echo "ok   pip install . (offline, isolated build)"

# import gnndb from elsewhere: the package and the library of the venv,
# which builds a graph from cora's edges
check_import() {
    rm -rf "$T/elsewhere/db.gnndb"
    (cd "$T/elsewhere" && "$V/bin/python" -c '
import os, sys, gnndb
site = os.path.realpath(sys.argv[1])
pkg = os.path.dirname(os.path.realpath(gnndb.__file__))
assert pkg.startswith(site + os.sep), "gnndb imported from " + pkg
lib = gnndb.lib_path()
assert lib == os.path.join(os.path.dirname(gnndb.__file__), "libgnndb.so"), lib
assert gnndb.libversion() == gnndb.__version__, (gnndb.libversion(),
                                                 gnndb.__version__)
with gnndb.connect("db.gnndb") as conn:
    conn.execute("CREATE GRAPH cora FROM %s;" % repr(sys.argv[2]))
    nodes = dict(conn.execute("DESCRIBE cora;"))["nodes"]
    assert int(nodes) == 2708, nodes
print(lib, gnndb.libversion())
' "$V" "$DATA/cora/edges.tsv") > "$T/log" 2>&1 ||
        { cat "$T/log"; fail "import gnndb ($1)"; }
    echo "ok   import gnndb ($1): $(cat "$T/log")"
}
check_import "pip install ."

# GNNDB_LIB, when set, is still the only place tried
(cd "$T/elsewhere" && GNNDB_LIB=$ROOT/build/libgnndb.so "$V/bin/python" -c '
import os, gnndb
assert gnndb.lib_path() == os.environ["GNNDB_LIB"], gnndb.lib_path()') ||
    fail "GNNDB_LIB not honoured"
(cd "$T/elsewhere" && GNNDB_LIB=$T/nowhere.so "$V/bin/python" -c '
import gnndb; gnndb.libversion()') > "$T/log" 2>&1 &&
    fail "GNNDB_LIB=nowhere.so loaded a library"
grep -q "nowhere.so: no such file" "$T/log" || { cat "$T/log"; fail "message"; }
echo "ok   GNNDB_LIB overrides the bundled library"

# the example, copied outside the checkout (no python/ to fall back on)
cp examples/train_sage.py "$T/elsewhere/"
(cd "$T/elsewhere" && "$V/bin/python" train_sage.py --data "$DATA/cora" \
    --epochs 5) > "$T/log" 2>&1 || { cat "$T/log"; fail "train_sage.py"; }
awk '/^epoch / { n++; if (n > 1 && $4 >= loss) bad = "loss did not fall";
                 loss = $4; test = $8 }
     END { if (n != 5) bad = n " epoch lines";
           else if (test < 0.45) bad = "test accuracy " test " < 0.45";
           if (bad) { print bad; exit 1 } }' "$T/log" ||
    { cat "$T/log"; fail "train_sage.py output"; }
echo "ok   train_sage.py on cora with the installed package: $(grep '^epoch 5' "$T/log")"

# pip wheel . (no build isolation: the venv's setuptools), then install it
$PIP wheel --no-index --no-build-isolation --no-deps -w "$T/wheels" . > "$T/log" 2>&1 ||
    { tail -30 "$T/log"; fail "pip wheel ."; }
whl=$(ls "$T/wheels")
case $whl in
    gnndb-*-py3-none-linux_*.whl) ;;
    *) fail "wheel: '$whl' (expected one gnndb-VERSION-py3-none-linux_ARCH.whl)" ;;
esac
"$V/bin/python" -c '
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
want = {"gnndb/__init__.py", "gnndb/_ffi.py", "gnndb/torch.py",
        "gnndb/libgnndb.so"}
assert want <= names, sorted(want - names)' "$T/wheels/$whl" ||
    fail "wheel contents"
$PIP uninstall -y gnndb > /dev/null 2>&1 || fail "pip uninstall gnndb"
$PIP install --no-index --no-deps "$T/wheels/$whl" > "$T/log" 2>&1 ||
    { tail -30 "$T/log"; fail "pip install $whl"; }
echo "ok   pip wheel . (offline, no build isolation): $whl"
check_import "the wheel"

# an sdist holds all that make needs: a wheel builds from it alone
# (CUDA=0 for time: the sdist's build/ starts empty). A fresh --egg-base, so
# that the SOURCES.txt of an earlier build cannot hide a gap in MANIFEST.in.
mkdir "$T/egg"
"$V/bin/python" setup.py -q egg_info --egg-base "$T/egg" sdist -d "$T/sdist" \
    > "$T/log" 2>&1 || { tail -30 "$T/log"; fail "sdist"; }
sdist=$(ls "$T/sdist")
tar xzf "$T/sdist/$sdist" -C "$T/sdist" || fail "tar xzf $sdist"
CUDA=0 $PIP wheel --no-index --no-build-isolation --no-deps -w "$T/wheels2" \
    "$T/sdist/${sdist%.tar.gz}" > "$T/log" 2>&1 ||
    { tail -30 "$T/log"; fail "pip wheel from $sdist (a file missing from MANIFEST.in?)"; }
[ -f "$T/wheels2/$whl" ] || fail "no $whl from $sdist: $(ls "$T/wheels2")"
$PIP install --no-index --no-deps --force-reinstall "$T/wheels2/$whl" \
    > "$T/log" 2>&1 || { tail -30 "$T/log"; fail "pip install $whl (sdist)"; }
echo "ok   $sdist builds $whl"
check_import "the wheel from the sdist"
echo "pip: passed"
