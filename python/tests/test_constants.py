"""The binding's constants against include/gnndb.h: every result code,
open flag, column type, device kind and gnndb_stmt_status op the header
defines has the same value in gnndb/_ffi.py's table, and the table holds
nothing the header lacks, so a code added to the C API cannot be missed
here."""
import os
import re

import pytest

import gnndb
from gnndb import _ffi

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                      "include", "gnndb.h")
# the header's other defines: its guard, the export macro, versions
NOT_CONSTANTS = {"H", "API", "VERSION", "VERSION_NUMBER", "FORMAT_VERSION"}


def header_constants():
    if not os.path.exists(HEADER):
        pytest.skip("no include/gnndb.h beside the package (installed)")
    out = {}
    with open(HEADER) as f:
        for m in re.finditer(r"^#define GNNDB_(\w+)[ \t]+(0x[0-9a-fA-F]+|\d+)\b",
                             f.read(), re.M):
            if m.group(1) not in NOT_CONSTANTS:
                out[m.group(1)] = int(m.group(2), 0)
    return out


def test_every_constant_matches_the_header():
    assert _ffi.CONSTANTS == header_constants()


def test_the_module_exports_codes_types_and_status_ops():
    for table in (_ffi.RESULT_CODES, _ffi.COLUMN_TYPES, _ffi.STATUS_OPS):
        for name, value in table.items():
            assert getattr(gnndb, name) == value, name
    assert gnndb.Error(gnndb.INTERRUPT, "x").codename == "INTERRUPT"
    assert gnndb.Error(gnndb.ROW, "x").codename == str(gnndb.ROW)


def test_the_library_sees_the_same_values():
    lib = _ffi.load()
    for name, value in _ffi.CONSTANTS.items():
        assert getattr(lib, "GNNDB_" + name) == value, name
