"""A consumer of the CUDA Array Interface that follows its version 3 to
the letter, as the tests' stand-in for torch.as_tensor: check() reads an
object's __cuda_array_interface__ key by key against the specification and
what gnndb promises of it; read() gives its contents as numpy, through the
memory itself (the stand-in runtime's device memory is host memory) or,
on a real device, through torch."""
import ctypes
import functools
import os

import numpy as np

REQUIRED = {"shape", "typestr", "data", "version"}
OPTIONAL = {"strides", "descr", "mask", "stream"}


def check(obj, stream=None):
    """The interface of `obj`, checked: every required key and no unknown
    one; shape a tuple of ints; typestr a numpy type string; data a 2-tuple
    (int pointer, bool read-only flag) with the flag False (writable: the
    flag PyTorch demands) and the pointer 0 exactly when the array is
    empty; version 3; strides absent or None (C order); mask absent or
    None; stream absent, None or an int that is not 0 (0 is forbidden: it
    would not say which default stream), here `stream` (the batch's) for a
    non-empty array."""
    cai = obj.__cuda_array_interface__
    assert isinstance(cai, dict)
    assert REQUIRED <= set(cai), set(cai)
    assert set(cai) <= REQUIRED | OPTIONAL, set(cai) - REQUIRED - OPTIONAL
    shape = cai["shape"]
    assert isinstance(shape, tuple) and all(
        isinstance(s, int) and s >= 0 for s in shape), shape
    dt = np.dtype(cai["typestr"])            # raises on a bad type string
    assert cai["typestr"] == dt.str and dt.str[0] in "<|", cai["typestr"]
    data = cai["data"]
    assert isinstance(data, tuple) and len(data) == 2, data
    ptr, readonly = data
    assert isinstance(ptr, int) and isinstance(readonly, bool), data
    assert readonly is False, "the read-only flag must be False"
    empty = 0 in shape
    assert (ptr == 0) == empty, (ptr, shape)
    assert cai["version"] == 3 and isinstance(cai["version"], int)
    assert cai.get("strides") is None
    assert cai.get("mask") is None
    s = cai.get("stream")
    assert s is None or (isinstance(s, int) and not isinstance(s, bool)
                         and s != 0), s
    if stream is not None:
        assert s == (None if empty else stream), (s, stream)
    return cai


@functools.lru_cache(maxsize=None)
def mock_host_view():
    """The stand-in runtime's mock_host_view, from the library under test."""
    f = ctypes.CDLL(os.environ["GNNDB_LIB"]).mock_host_view
    f.restype = ctypes.c_void_p
    f.argtypes = [ctypes.c_void_p]
    return f


def read(obj, mock=True):
    """The contents of a checked device array as a numpy array."""
    cai = check(obj)
    dt, shape = np.dtype(cai["typestr"]), cai["shape"]
    n = int(np.prod(shape)) if shape else 1
    if n == 0:
        return np.empty(shape, dtype=dt)
    if mock:
        # the stand-in runtime's device memory faults when touched from
        # the host, as a real device's does: read it through its view
        raw = ctypes.string_at(mock_host_view()(cai["data"][0]),
                               n * dt.itemsize)
        return np.frombuffer(raw, dtype=dt).reshape(shape).copy()
    import torch
    return torch.as_tensor(obj, device=obj.device).cpu().numpy()
