#!/usr/bin/env python3
"""layers.py — that the library calls only downward (scripts/layers.sh).

Floors, top first: stmt, cmd, exec, engine, then catalog/storage/parser/gpu,
then common and include. The shell is a client above them all. Read from
the code's own includes and names (no compiler, standard library only):

  - an arrow A -> B where file A names a function or variable that file B
    alone defines (a call, or taking its address), or a type, constant,
    macro or inline function that header B defines; what a macro's body
    names, the file that defines the macro names;
  - a name in a file-scope table (static const io_ops ops = { iop_open })
    is how a generic file plugs in its variants: it counts upward, not in
    loops;
  - "upward": an arrow, or an #include, from a folder to one on a higher
    floor;
  - "loop": files that reach each other through arrows (within a folder
    or across), each printed with the names that tie them.

Exits 1 when it finds either, 0 when the tree is clean. With -v it also
prints how many arrows run between each pair of folders.
"""
import os
import re
import sys

FLOORS = [["shell"], ["stmt"], ["cmd"], ["exec"], ["engine"],
          ["catalog", "storage", "parser", "gpu"], ["common", "include"]]
FLOOR = {d: i for i, ds in enumerate(FLOORS) for d in ds}
EXTS = (".c", ".h", ".cu")
KEYWORDS = set("""auto break case char const continue default do double else
enum extern float for goto if inline int long register restrict return short
signed sizeof static struct switch typedef union unsigned void volatile while
_Bool _Atomic _Alignof _Alignas _Static_assert _Thread_local __attribute__
__typeof__ typeof defined asm __asm__ __restrict __inline __extension__
offsetof""".split())


def strip(text):
    """Comments, strings and preprocessor lines blanked (newlines kept);
    returns (code, [(line, header)] of quoted #includes, [(line, name,
    body)] of #defines)."""
    out, incs, macros = [], [], []
    i, n, line = 0, len(text), 1
    at_bol = True
    while i < n:
        c = text[i]
        if at_bol and c in " \t":
            out.append(c)
            i += 1
            continue
        if at_bol and c == "#":
            j = i
            while j < n and (text[j] != "\n" or text[j - 1] == "\\"):
                j += 1
            d = text[i:j]
            m = re.match(r'#\s*include\s*"([^"]+)"', d)
            if m:
                incs.append((line, m.group(1)))
            m = re.match(r'#\s*define\s+(\w+)(.*)', d, re.S)
            if m:
                mbody = re.sub(r"/\*.*?\*/|//[^\n]*", " ", m.group(2), flags=re.S)
                mbody = re.sub(r'"(\\.|[^"\\])*"', '""', mbody)
                macros.append((line, m.group(1), mbody))
            nl = d.count("\n")
            out.append("\n" * nl)
            line += nl
            i = j
            continue
        at_bol = False
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            nl = text.count("\n", i, j)
            out.append(" " + "\n" * nl)
            line += nl
            i = j
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
            continue
        if c == "\n":
            line += 1
            at_bol = True
        out.append(c)
        i += 1
    return "".join(out), incs, macros


TOKEN = re.compile(r"\"\"|''|[A-Za-z_]\w*|\S")


def tokens(code):
    line = 1
    pos = 0
    for m in TOKEN.finditer(code):
        line += code.count("\n", pos, m.start())
        pos = m.start()
        yield m.group(0), line


def scan(code, header):
    """What one file defines and uses: (names it defines that others call or
    name: functions and variables of a .c, a header's static inline
    functions; names of types, constants and macros a header defines;
    [(name, line)] its functions use; [(name, line)] its file-scope tables
    use; [(name, line)] of every name it writes)."""
    defs, hdefs, uses, table_uses, every = set(), set(), [], [], []
    depth, stmt, body, kind = 0, [], None, None
    extern_c = []   # extern "C" { blocks, which open no scope
    toks = list(tokens(code))
    for k, (t, ln) in enumerate(toks):
        ident = t[0].isalpha() or t[0] == "_"
        if ident and (k == 0 or toks[k - 1][0] not in (".", "->")):
            tagged = k > 0 and toks[k - 1][0] in ("struct", "union", "enum")
            # typedef struct gnndb gnndb; and struct pk_scan; only declare
            forward = tagged and (toks[k - 2][0] == "typedef"
                                  or toks[k + 1][0] == ";")
            if not forward:
                every.append(("struct " + t if tagged else t, ln))
        if depth > 0:
            if t == "{":
                depth += 1
            elif t == "}":
                depth -= 1
                if depth == 0:   # typedef struct {...} name; names a type
                    stmt = [("typedef", ln)] if kind == "typedef" else []
            elif body is not None and ident:
                if toks[k - 1][0] not in (".", "->"):
                    body.append((t, ln))
            elif kind == "enum" and ident and header and depth == 1 \
                    and toks[k - 1][0] in ("{", ","):
                hdefs.add(t)
            continue
        if t == "}" and extern_c:
            extern_c.pop()
            stmt = []
            continue
        if t == "{":
            words = [w for w, _ in stmt]
            if words[-2:] == ["extern", '""'] or words[-1:] == ['""']:
                extern_c.append(1)
                stmt = []
                continue
            inline = header and "inline" in words
            static = "static" in words and not inline
            body, kind = None, None   # a struct, union or enum body
            if words and words[-1] == ")" and "=" not in words:
                name = fn_name(words)
                if name and not static and "typedef" not in words:
                    defs.add(name)
                body = uses
            elif "=" in words and "typedef" not in words:
                name = var_name(words)
                if name and not static and "extern" not in words:
                    defs.add(name)
                body = table_uses
            else:
                for tag in ("struct", "union", "enum"):
                    if tag in words:
                        kind = tag
                        i = words.index(tag)
                        if header and i + 1 < len(words):
                            hdefs.add("struct " + words[i + 1])
                if "typedef" in words and kind != "enum":
                    kind = "typedef"
            depth = 1
            stmt = []
            continue
        if t == ";":
            words = [w for w, _ in stmt]
            if "typedef" in words:
                if header:
                    name = typedef_name(words)
                    if name:
                        hdefs.add(name)
            elif "static" not in words and "extern" not in words:
                name = var_name(words)
                if name and not header:
                    defs.add(name)
            if "=" in words:
                e = words.index("=")
                table_uses.extend((w, l) for w, l in stmt[e + 1:]
                                  if w[0].isalpha() or w[0] == "_")
            stmt = []
            continue
        stmt.append((t, ln))
    return defs, hdefs, uses, table_uses, every


def typedef_name(words):
    """typedef struct x x;  typedef int (*fn)(void);  typedef uint32_t id;"""
    for i in range(len(words) - 2):
        if words[i] == "(" and words[i + 1] == "*":
            return words[i + 2]
    for w in reversed(words):
        if w[0].isalpha() or w[0] == "_":
            return None if w in KEYWORDS else w
    return None


def fn_name(words):
    for i, w in enumerate(words):
        if w == "(" and i > 0:
            prev = words[i - 1]
            if prev not in KEYWORDS and (prev[0].isalpha() or prev[0] == "_"):
                return prev
            return None
    return None


def var_name(words):
    """The name a file-scope declaration defines, or None (a prototype, a
    struct or enum body, a function-like thing)."""
    if not words or words[0] in ("struct", "union", "enum") and "=" not in words \
            and words.count("{") == 0 and len(words) <= 3:
        return None
    stop = words.index("=") if "=" in words else len(words)
    head = words[:stop]
    if "(" in head:
        return None
    if "[" in head:
        head = head[:head.index("[")]
    if len(head) < 2:
        return None
    name = head[-1]
    if name in KEYWORDS or not (name[0].isalpha() or name[0] == "_"):
        return None
    return name


def include_dirs(root):
    dirs = []
    try:
        mk = open(os.path.join(root, "Makefile")).read()
    except OSError:
        return dirs
    for m in re.finditer(r"^CPPFLAGS\s*\+?=(.*)$", mk, re.M):
        for d in re.findall(r"-I(\S+)", m.group(1)):
            if "$" not in d:
                dirs.append(d)
    return dirs


def main(argv):
    verbose = "-v" in argv
    args = [a for a in argv if a != "-v"]
    root = args[0] if args else os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "..")
    folders = [d for ds in FLOORS for d in ds]
    files = []
    for d in folders:
        p = os.path.join(root, d)
        if os.path.isdir(p):
            files += sorted(os.path.join(d, f) for f in os.listdir(p)
                            if f.endswith(EXTS))
    fileset = set(files)
    idirs = include_dirs(root)
    defs_of, hdefs_of, uses_of, tabs_of, every_of, incs_of = \
        {}, {}, {}, {}, {}, {}
    for f in files:
        text = open(os.path.join(root, f), errors="replace").read()
        code, incs, macros = strip(text)
        header = f.endswith(".h")
        (defs_of[f], hdefs_of[f], uses_of[f], tabs_of[f],
         every_of[f]) = scan(code, header)
        for line, name, mbody in macros:
            if header:
                hdefs_of[f].add(name)
            # what a macro calls, its file calls
            for w in re.findall(r"[A-Za-z_]\w*", mbody):
                uses_of[f].append((w, line))
                every_of[f].append((w, line))
        incs_of[f] = incs
    definer, hdefiner = {}, {}
    for f in files:
        for name in defs_of[f]:
            definer.setdefault(name, []).append(f)
        for name in hdefs_of[f]:
            hdefiner.setdefault(name, []).append(f)

    arrows = {}     # (a, b) -> [(what, line)]: room a uses room b's names
    tables = {}     # the same, through a file-scope table of functions
    incl = {}       # the same, by #include alone

    # A header is a file of its own: a file that takes only the types of
    # engine/plan.h does not call engine/plan.c; a call through one of its
    # inline functions or macros is an arrow from the header.
    def arrow(a, b, what, line, into=arrows):
        if a != b:
            into.setdefault((a, b), []).append((what, line))

    for f in files:
        here = os.path.dirname(f)
        for line, h in incs_of[f]:
            cands = [os.path.normpath(os.path.join(here, h))]
            cands += [os.path.normpath(os.path.join(d, h)) for d in idirs]
            hit = next((c for c in cands if c in fileset), None)
            if hit and hit != f:
                arrow(f, hit, "#include \"%s\"" % h, line, incl)
        own = defs_of[f] | hdefs_of[f]
        # a call, or a name a function takes: an arrow to where it is defined
        for name, line in uses_of[f]:
            if name not in own:
                for g in definer.get(name, ()):
                    arrow(f, g, name, line)
        # a type, constant, macro or inline function of a header, anywhere
        for name, line in every_of[f]:
            if name not in own:
                for g in hdefiner.get(name, ()):
                    arrow(f, g, name, line)
        # A table (static const io_ops pread_ops = { iop_open, ... }) is how
        # a generic file plugs in its variants, as storage/io.c does: it
        # names them without calling them, and makes no loop. It still may
        # not name what lives on a floor above.
        for name, line in tabs_of[f]:
            if name not in own:
                for g in definer.get(name, ()):
                    arrow(f, g, name, line, tables)

    def folder(f):
        return f.split("/")[0]

    bad = 0
    up = {}
    for (a, b), why in sorted(list(arrows.items()) + list(tables.items())
                              + list(incl.items())):
        fa, fb = folder(a), folder(b)
        if FLOOR[fb] < FLOOR[fa]:
            up.setdefault((a, b), why)
    for (a, b), why in sorted(up.items()):
        names = sorted({w for w, _ in why})
        print("layers: upward: %s:%d -> %s (%s/ is above %s/): %s"
              % (a, why[0][1], b, folder(b), folder(a), ", ".join(names)))
        bad += 1

    # Loops: strongly connected components of the arrows (Tarjan, iterative).
    succ = {f: [] for f in files}
    for (a, b) in arrows:
        succ[a].append(b)
    index, low, onstack, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for v0 in files:
        if v0 in index:
            continue
        work = [(v0, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter[0]
                counter[0] += 1
                stack.append(v)
                onstack.add(v)
            recurse = False
            for j in range(i, len(succ[v])):
                w = succ[v][j]
                if w not in index:
                    work.append((v, j + 1))
                    work.append((w, 0))
                    recurse = True
                    break
                if w in onstack:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    onstack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
    for comp in sorted(comps):
        members = set(comp)
        print("layers: loop of %d files: %s" % (len(comp), " ".join(comp)))
        for (a, b), why in sorted(arrows.items()):
            if a in members and b in members:
                names = sorted({w for w, _ in why})
                print("    %s -> %s: %s" % (a, b, ", ".join(names[:8])
                                           + (", ..." if len(names) > 8 else "")))
        bad += 1

    if verbose:
        seen = {}
        for (a, b), why in arrows.items():
            if folder(a) != folder(b):
                seen.setdefault((folder(a), folder(b)), 0)
                seen[(folder(a), folder(b))] += 1
        for (fa, fb), k in sorted(seen.items()):
            print("arrow: %s/ -> %s/ (%d files)" % (fa, fb, k))
    if bad:
        print("layers: %d problem(s): floors, top first: %s" % (
            bad, " | ".join(",".join(ds) for ds in FLOORS)))
        return 1
    print("layers: every call and include runs downward, without loops "
          "(%d files)" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
