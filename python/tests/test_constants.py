"""The binding's cdef against include/gnndb.h: every result code,
open flag, column type, device kind, gnndb_stmt_status op and memory
baseline the header
defines has the same value in gnndb/_ffi.py's table, and the table holds
nothing the header lacks, so a code added to the C API cannot be missed
here; the cdef's gnndb_batch_view (and the typed views it points to)
has the header's fields, in its order and of its types; and each function
the cdef declares is declared so in the header, word for word, while the
header's others are named as not bound."""
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
        for m in re.finditer(r"^#define GNNDB_(\w+)[ \t]+\(?(0x[0-9a-fA-F]+|"
                             r"-?\d+)\b", f.read(), re.M):
            if m.group(1) not in NOT_CONSTANTS:
                out[m.group(1)] = int(m.group(2), 0)
    return out


def test_every_constant_matches_the_header():
    assert _ffi.CONSTANTS == header_constants()


def test_the_module_exports_codes_types_and_status_ops():
    for table in (_ffi.RESULT_CODES, _ffi.COLUMN_TYPES, _ffi.STATUS_OPS,
                  _ffi.BASELINES):
        for name, value in table.items():
            assert getattr(gnndb, name) == value, name
    assert gnndb.Error(gnndb.INTERRUPT, "x").codename == "INTERRUPT"
    assert gnndb.Error(gnndb.ROW, "x").codename == str(gnndb.ROW)


def test_the_library_sees_the_same_values():
    lib = _ffi.load()
    for name, value in _ffi.CONSTANTS.items():
        assert getattr(lib, "GNNDB_" + name) == value, name


def header_struct(name):
    """[(C type, field name)] of `typedef struct name {...} name;` in the
    header, comments dropped and whitespace normalised."""
    if not os.path.exists(HEADER):
        pytest.skip("no include/gnndb.h beside the package (installed)")
    with open(HEADER) as f:
        text = f.read()
    body = re.search(r"typedef struct %s \{(.*?)\} %s;" % (name, name), text,
                     re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    fields = []
    for decl in body.split(";"):
        decl = " ".join(decl.split())
        if not decl:
            continue
        # "int32_t src_type, dst_type" declares two fields of one type
        first, *more = [d.strip() for d in decl.split(",")]
        m = re.match(r"(.*?)\s*(\**)(\w+)$", first)
        base = m.group(1)
        for d in [m.group(2) + m.group(3)] + more:
            stars, name = re.match(r"(\**)(\w+)$", d).groups()
            fields.append(((base + " " + stars).strip(), name))
    return fields


@pytest.mark.parametrize("struct", ["gnndb_batch_view", "gnndb_type_view",
                                    "gnndb_rel_view"])
def test_view_layout_matches_the_header(struct):
    # The engine hands out pointers to these structs: a field missing, out
    # of order or of another type in the cdef shifts every offset after it,
    # and the fields at the end of the batch view would read garbage.
    ffi = _ffi.ffi
    ours = [(n, f.type) for n, f in ffi.typeof(struct).fields]
    want = [(n, ffi.typeof(t)) for t, n in header_struct(struct)]
    assert [n for n, _ in ours] == [n for n, _ in want]
    assert ours == want


def test_link_fields_follow_the_node_fields():
    ffi = _ffi.ffi
    assert ffi.offsetof("gnndb_batch_view", "e_id") == \
        ffi.offsetof("gnndb_batch_view", "digest") + 8


def header_functions():
    """{name: declaration} of every GNNDB_API function of the header, as
    one line: comments dropped, whitespace normalised, GNNDB_API left off."""
    if not os.path.exists(HEADER):
        pytest.skip("no include/gnndb.h beside the package (installed)")
    with open(HEADER) as f:
        text = re.sub(r"/\*.*?\*/", " ", f.read(), flags=re.S)
    out = {}
    for m in re.finditer(r"^GNNDB_API\s+([^;]*?)\s*;", text, re.M | re.S):
        decl = " ".join(m.group(1).split())
        out[re.search(r"(\w+)\s*\(", decl).group(1)] = decl
    return out


def cdef_functions():
    """The same of the function declarations in _ffi.py's cdef."""
    text = re.sub(r"/\*.*?\*/", " ", _ffi.CDEF, flags=re.S)
    text = re.sub(r"typedef struct \w+ \{.*?\} \w+;", " ", text, flags=re.S)
    out = {}
    for decl in text.split(";"):
        decl = " ".join(decl.split())
        if "(" in decl and not decl.startswith("typedef"):
            out[re.search(r"(\w+)\s*\(", decl).group(1)] = decl
    return out


# The API functions the binding does not call, so leaves out of its cdef;
# a function added to the header must be bound or named here.
NOT_BOUND = {"gnndb_exec", "gnndb_keyword"}


def test_every_cdef_function_is_the_headers_declaration():
    # The cdef copies the header's declarations (cffi in ABI mode cannot
    # read the header itself): a copy that drifted (a parameter added, a
    # type changed) would call the library with the wrong arguments.
    header, ours = header_functions(), cdef_functions()
    for name, decl in ours.items():
        assert name in header, "%s is not declared in gnndb.h" % name
        assert decl == header[name], name
    assert set(header) - set(ours) == NOT_BOUND
