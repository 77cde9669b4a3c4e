"""Batches on a GPU without one: the CUDA Array Interface the binding
exports, checked key by key against its version 3 (cai.py), and device
batches end to end against build/mock/libgnndb.so, the library linked with
the stand-in CUDA runtime (tests/gpu/cudart_mock.c): device_cases.py runs
in a second Python with GNNDB_LIB pointing there, since a process loads
one library. Where a real device and a CUDA build of torch are present,
test_loader.py and device_cases.py (run by tests/gpu/run.sh) check the
same on it."""
import os
import subprocess
import sys

import pytest

import gnndb
import cai

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def device_array(ptr, shape, typestr="<f4", stream=0x5000, dev="cuda:0"):
    return gnndb._DeviceArray(ptr, shape, typestr, stream, dev)


def test_interface_is_version_3_and_writable():
    d = device_array(0x7f0000001000, (3, 4), stream=0x5000)
    got = cai.check(d, stream=0x5000)
    assert got["shape"] == (3, 4) and got["typestr"] == "<f4"
    assert got["data"] == (0x7f0000001000, False)
    assert got["version"] == 3 and got["strides"] is None
    assert got["stream"] == 0x5000
    i = cai.check(device_array(0x7f0000002000, (2, 7), "<i8"), 0x5000)
    assert i["typestr"] == "<i8"


def test_an_empty_array_has_pointer_0_and_no_stream():
    got = cai.check(device_array(0x7f0000001000, (0, 4)))
    assert got["data"] == (0, False) and got["stream"] is None


def test_no_stream_handle_is_none_never_0():
    got = cai.check(device_array(0x7f0000001000, (5,), "<i8", stream=0))
    assert got["stream"] is None


def test_the_checker_refuses_what_the_spec_forbids():
    class Bad:
        pass
    for cai_dict in ({"shape": (2,), "typestr": "<f4", "data": (1, True),
                      "version": 3},
                     {"shape": (2,), "typestr": "<f4", "data": (1, False),
                      "version": 2},
                     {"shape": (2,), "typestr": "<f4", "data": (1, False),
                      "version": 3, "stream": 0},
                     {"shape": (2,), "typestr": "<f4", "data": (1, False),
                      "version": 3, "strides": (4,)},
                     {"shape": (0,), "typestr": "<f4", "data": (1, False),
                      "version": 3},
                     {"shape": [2], "typestr": "<f4", "data": (1, False),
                      "version": 3}):
        b = Bad()
        b.__cuda_array_interface__ = cai_dict
        with pytest.raises(AssertionError):
            cai.check(b)


def mock_lib():
    lib = os.path.join(os.path.dirname(os.environ.get(
        "GNNDB_LIB", os.path.join(REPO, "build", "libgnndb.so"))),
        "mock", "libgnndb.so")
    if not os.path.exists(lib):
        pytest.skip("no %s (make gpu-mock; a build with CUDA)" % lib)
    return lib


def test_device_batches_on_the_stand_in_runtime():
    env = dict(os.environ, GNNDB_LIB=mock_lib(), GNNDB_DEVICE_MOCK="1")
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p",
                        "no:cacheprovider",
                        os.path.join(HERE, "device_cases.py")],
                       env=env, cwd=REPO, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True,
                       timeout=900)
    print(p.stdout)
    assert p.returncode == 0, p.stdout
    assert " passed" in p.stdout and "skipped" not in p.stdout, p.stdout
