#!/bin/sh
# Output modes of the shell: list (the default off a terminal, no header),
# csv with RFC 4180 quoting, json exactly as sqlite3 -json prints it, line,
# table; -header/-noheader/-separator, and .mode/.headers/.output.
set -u
fail() { echo "FAIL: $*"; exit 1; }
PY=/usr/bin/python3
D=$GNNDB_DATA/cora
DB=$PWD/m.gnndb
# an edge file whose name holds a comma and a double quote: DESCRIBE shows
# it as the graph's source, a value that csv must quote and json escape
ODD="$PWD/we\"ird,name.tsv"
cp "$D/edges.tsv" "$ODD" || fail "cp"
"$GNNDB" "$DB" "CREATE GRAPH cora FROM '$D/edges.tsv';
IMPORT FEATURES feat INTO cora FROM '$D/features.npy';
IMPORT LABELS INTO cora FROM '$D/labels.npy';
CREATE SPLIT train ON cora FROM '$D/train_idx.npy';
CREATE SPLIT val ON cora FROM '$D/val_idx.npy';
CREATE GRAPH odd FROM '$ODD';" || fail "setup"

# list: name|value, no header (stdout is not a terminal)
"$GNNDB" "$DB" "DESCRIBE cora;" > list.txt || fail "DESCRIBE (list)"
for want in 'nodes|2708' 'edges|10556' 'features.feat|1433 x float32' \
            'split.train|140'; do
    grep -qxF "$want" list.txt || { cat list.txt; fail "list: no line '$want'"; }
done
grep -q '^property' list.txt && fail "list mode printed a header by default"
grep -q '^labels|' list.txt || fail "list: no labels row"
"$GNNDB" -header "$DB" "DESCRIBE cora;" | head -1 | grep -qx 'property|value' ||
    fail "-header: no 'property|value' first line"
"$GNNDB" -list -separator ' ; ' "$DB" "DESCRIBE cora;" | grep -qxF 'nodes ; 2708' ||
    fail "-separator"

# csv: a field with a comma is quoted; a quote is doubled
"$GNNDB" -csv "$DB" "SHOW GRAPHS;" > graphs.csv || fail "SHOW GRAPHS (csv)"
grep -q '^cora,2708,10556,.*,"train,val"$' graphs.csv ||
    { cat graphs.csv; fail "csv: the splits field 'train,val' is not quoted"; }
"$GNNDB" -csv "$DB" "DESCRIBE odd;" > odd.csv || fail "DESCRIBE odd (csv)"
grep -qF 'we""ird,name.tsv"' odd.csv ||
    { cat odd.csv; fail "csv: a quote inside a field is not doubled"; }
ODD="$ODD" $PY -c '
import csv, os, sys
rows = {r[0]: r[1] for r in csv.reader(open("odd.csv", newline=""))}
assert rows["source"].endswith("we\"ird,name.tsv"), rows["source"]
assert rows["nodes"] == "2708", rows["nodes"]
' || fail "csv does not parse back to the values"
"$GNNDB" -csv -header "$DB" "SHOW GRAPHS;" | head -1 |
    grep -qx 'name,nodes,edges,directed,features,labels,splits' || fail "csv header"

# json: one array per statement, numbers bare, strings escaped
"$GNNDB" -json "$DB" "DESCRIBE cora;" > d.json || fail "DESCRIBE (json)"
$PY -c 'import json,sys; json.load(sys.stdin)' < d.json || fail "json does not parse"
$PY -c '
import json
rows = json.load(open("d.json"))
d = {r["property"]: r["value"] for r in rows}
assert all(list(r) == ["property", "value"] for r in rows)
assert d["nodes"] == 2708 and isinstance(d["nodes"], int), d["nodes"]
assert d["edges"] == 10556
assert d["features.feat"] == "1433 x float32", d["features.feat"]
assert d["split.train"] == 140
assert d["name"] == "cora"
' || fail "json values"
# the exact layout of sqlite3 -json: [{...},\n{...}]
head -1 d.json | grep -q '^\[{"property":"name","value":"cora"},$' ||
    { head -2 d.json; fail "json layout of the first row"; }
grep -q '^{"property":"nodes","value":2708},$' d.json || fail "json: nodes row layout"
tail -1 d.json | grep -q '^{.*}\]$' || fail "json: last row does not close the array"
"$GNNDB" -json "$DB" "DESCRIBE odd;" > odd.json || fail "DESCRIBE odd (json)"
$PY -c '
import json
d = {r["property"]: r["value"] for r in json.load(open("odd.json"))}
assert d["source"].endswith("we\"ird,name.tsv"), d["source"]
' || fail "json: escaped string"
# two statements: two arrays
"$GNNDB" -json "$DB" "SHOW GRAPHS; DESCRIBE cora;" > two.json || fail "two statements (json)"
$PY -c '
import json
s = open("two.json").read()
dec = json.JSONDecoder()
i, n = 0, 0
while i < len(s):
    while i < len(s) and s[i].isspace():
        i += 1
    if i == len(s):
        break
    v, i = dec.raw_decode(s, i)
    assert isinstance(v, list)
    n += 1
assert n == 2, n
' || fail "json: not one array per statement"
# a statement without rows prints nothing in json
[ -z "$("$GNNDB" -json "$DB" "CREATE SPLIT v2 ON cora FROM '$D/val_idx.npy';")" ] ||
    fail "json: output for a statement without rows"

# line: name = value, a blank line between rows
"$GNNDB" -line "$DB" "SHOW GRAPHS;" > line.txt || fail "SHOW GRAPHS (line)"
grep -qx '    name = cora' line.txt || { cat line.txt; fail "line: name = cora"; }
grep -qx '   nodes = 2708' line.txt || fail "line: nodes = 2708"
[ "$(grep -c '^$' line.txt)" -eq 1 ] || fail "line: rows not separated by one blank line"

# table: a header rule, every line the same width
"$GNNDB" -table "$DB" "DESCRIBE cora;" > table.txt || fail "DESCRIBE (table)"
head -1 table.txt | grep -q '^+-*+-*+$' || fail "table: no top rule"
sed -n 2p table.txt | grep -q '^| property *| value *|$' || fail "table: header"
sed -n 3p table.txt | grep -q '^+-*+-*+$' || fail "table: no header rule"
grep -q '^| nodes  *| 2708  *|$' table.txt || fail "table: nodes row"
[ "$(awk '{ print length($0) }' table.txt | sort -u | wc -l)" -eq 1 ] ||
    fail "table: lines of different widths"
"$GNNDB" -table -noheader "$DB" "DESCRIBE cora;" | grep -q '| property' &&
    fail "table: -noheader printed the header"
# numbers are right-aligned in an all-number column
"$GNNDB" -table "$DB" "SHOW GRAPHS;" | grep -q '^| cora *|  *2708 |' ||
    fail "table: numbers not right-aligned"

# dot commands switch modes; .output sends results to a file and back
"$GNNDB" "$DB" ".mode csv" ".headers on" "SHOW GRAPHS;" | head -1 |
    grep -qx 'name,nodes,edges,directed,features,labels,splits' ||
    fail ".mode csv + .headers on"
"$GNNDB" "$DB" ".mode json" "SHOW GRAPHS;" | $PY -c 'import json,sys; json.load(sys.stdin)' ||
    fail ".mode json"
"$GNNDB" "$DB" ".mode line" "SHOW GRAPHS;" | grep -qx '    name = cora' || fail ".mode line"
"$GNNDB" "$DB" ".mode nosuch" 2> err.txt && fail ".mode with a bad name succeeded"
grep -q 'Error: .*nosuch' err.txt || fail ".mode error message"
"$GNNDB" "$DB" ".output out.txt" "SHOW GRAPHS;" ".output" "DESCRIBE cora;" > std.txt ||
    fail ".output"
grep -q '^cora|2708|' out.txt || fail ".output FILE: no rows in the file"
grep -q '^cora|2708|' std.txt && fail ".output FILE: rows also on stdout"
grep -qx 'nodes|2708' std.txt || fail ".output alone: not back to stdout"
echo "output modes ok"
