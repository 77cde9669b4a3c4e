#!/bin/sh
# Every example of docs/language.md runs and prints what the page shows
# (bar what a plan says of the machine: see VOLATILE).
set -u
ROOT=$OLDPWD
D=$GNNDB_DATA
DB=$PWD/doc.gnndb
"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$D/cora/edges.tsv';
  IMPORT FEATURES feat INTO cora FROM '$D/cora/features.npy';
  IMPORT LABELS INTO cora FROM '$D/cora/labels.npy';
  CREATE SPLIT train ON cora FROM '$D/cora/train_idx.npy';
  CREATE SPLIT val ON cora FROM '$D/cora/val_idx.npy';
  CREATE SPLIT test ON cora FROM '$D/cora/test_idx.npy';" || exit 1
exec /usr/bin/python3 - "$ROOT/docs/language.md" "$GNNDB" "$DB" "$D" "$ROOT" <<'PY'
import re, subprocess, sys
doc, shell, db, data, repo = sys.argv[1:6]
text = open(doc).read()
pairs = re.findall(r"```gnndb\n(.*?)```\n```output\n(.*?)```", text, re.S)
assert pairs, "no examples found in " + doc
failed = 0
# What a plan says of the machine rather than the statement: the process's
# resident bytes (memory_limit's reserve) and whether the page cache holds
# the files (how they are read)
VOLATILE = [(re.compile(r"process [0-9.]+ [KMG]?i?B"), "process N"),
            (re.compile(r'^"?reads: .*$', re.M), "reads: ...")]


def steady(text):
    for pat, rep in VOLATILE:
        text = pat.sub(rep, text)
    return text


for sql, want in pairs:
    sql = sql.replace("$DATA", data).replace("$REPO", repo)
    want = steady(want.replace("$DATA", data).replace("$REPO", repo))
    out = subprocess.run([shell, "-csv", "-header", db, sql],
                         capture_output=True, text=True)
    got = steady("".join(l + "\n" for l in out.stdout.splitlines()
                         if not l.startswith("file.")))
    if out.returncode != 0 or got != want:
        failed += 1
        print("FAIL:", sql.strip())
        print("--- expected\n" + want + "--- got\n" + got + out.stderr)
    else:
        print("ok:", sql.strip().splitlines()[0])
print(f"{len(pairs) - failed} of {len(pairs)} examples match")
sys.exit(1 if failed else 0)
PY
