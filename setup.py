"""The build step of the Python package (pyproject.toml holds the metadata).

build_py runs `make build/libgnndb.so` in this checkout, then copies the
library into the package as gnndb/libgnndb.so, which gnndb/_ffi.py looks
for after $GNNDB_LIB. The binding is cffi in ABI mode: nothing is compiled
against Python, so the wheel is tagged py3-none-<platform>: any Python 3,
this platform only.

setuptools' own build folder is build/python, beside make's objects in
build/, so `make clean` removes both.
"""
import os
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:                                    # setuptools >= 70.1
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:                     # older: the wheel package's
    try:
        from wheel.bdist_wheel import bdist_wheel
    except ImportError:                 # no wheel: no wheels to tag
        bdist_wheel = None

ROOT = os.path.dirname(os.path.abspath(__file__))
LIB = os.path.join(ROOT, "build", "libgnndb.so")


class build_py_with_lib(build_py):
    """Build libgnndb with make and put it in the package."""

    def run(self):
        cmd = [os.environ.get("MAKE", "make"), "-C", ROOT, "SANITIZE=",
               "build/libgnndb.so"]
        self.announce("building libgnndb: " + " ".join(cmd), level=2)
        rc = subprocess.call(cmd)
        if rc != 0:
            raise SystemExit(
                "gnndb: `%s` failed (exit %d): libgnndb needs the Debian "
                "packages of scripts/deps.sh (as root: sh scripts/deps.sh)"
                % (" ".join(cmd), rc))
        # Start from an empty build/python/lib/gnndb: a module removed from
        # python/gnndb must not ship from an earlier build.
        shutil.rmtree(os.path.join(self.build_lib, "gnndb"), ignore_errors=True)
        super().run()
        # The real file behind the build/libgnndb.so symlink: a wheel holds
        # no symlinks, and the binding opens it by path.
        self.copy_file(os.path.realpath(LIB),
                       os.path.join(self.build_lib, "gnndb", "libgnndb.so"))


class PlatformDistribution(Distribution):
    """A distribution with a compiled part: installed into platlib, and its
    wheel is not pure Python."""

    def has_ext_modules(self):
        return True


cmdclass = {"build_py": build_py_with_lib}

if bdist_wheel is not None:
    class bdist_wheel_platform(bdist_wheel):
        """A wheel for this platform (it holds a compiled library) that
        any Python 3 can use (the binding is cffi ABI mode)."""

        def get_tag(self):
            _, _, plat = super().get_tag()
            return "py3", "none", plat

    cmdclass["bdist_wheel"] = bdist_wheel_platform

setup(distclass=PlatformDistribution, cmdclass=cmdclass,
      options={"build": {"build_base": "build/python"}})
