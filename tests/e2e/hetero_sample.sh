#!/bin/sh
# Typed SAMPLE in the shell: a typed graph built from generated edge files
# (papers citing papers, authors writing papers WITH REVERSE, papers about
# fields), its row per mini-batch (the node batch's columns, then nodes per
# type and edges per relation), the same digests under HYPERBATCH 1 and
# PRAGMA threads = 1, EXPLAIN naming each hop's relations; a relation whose
# targets are never reached is EXPLAIN's warning, and under PRAGMA strict
# SAMPLE's error while EXPLAIN still explains; each bad typed statement
# refused in one line with the database exactly as before.
set -u
fail() { echo "FAIL: $*"; exit 1; }
DB=$PWD/h.gnndb
awk 'BEGIN { s = 7
    for (i = 0; i < 600; i++) { s = (s * 1103515245 + 12345) % 2147483648
        u = s % 200; s = (s * 1103515245 + 12345) % 2147483648
        print u "," s % 200 > "cites.csv" }
    for (i = 0; i < 400; i++) { s = (s * 1103515245 + 12345) % 2147483648
        a = s % 80; s = (s * 1103515245 + 12345) % 2147483648
        print a "," s % 200 > "writes.csv" }
    for (p = 0; p < 200; p++) print p "," p % 6 > "about.csv"
    for (p = 0; p < 200; p += 2) print p > "train.txt" }'
/usr/bin/python3 - <<'PY' || fail "features"
import struct
h = "{'descr': '<f4', 'fortran_order': False, 'shape': (200, 4), }"
h += " " * (63 - (10 + len(h)) % 64) + "\n"
with open("px.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode())
    f.write(struct.pack("<800f", *range(800)))
PY
"$GNNDB" "$DB" "CREATE GRAPH mag;
  CREATE NODES paper IN mag COUNT 200;
  CREATE NODES author IN mag COUNT 80;
  CREATE NODES field IN mag COUNT 6;
  CREATE RELATION cites IN mag FROM paper TO paper FROM '$PWD/cites.csv'
      BLOCK SIZE 4096;
  CREATE RELATION writes IN mag FROM author TO paper FROM '$PWD/writes.csv'
      BLOCK SIZE 4096 WITH REVERSE AS written_by;
  CREATE RELATION about IN mag FROM paper TO field FROM '$PWD/about.csv'
      BLOCK SIZE 4096;
  IMPORT FEATURES feat INTO mag.paper FROM '$PWD/px.npy';
  CREATE SPLIT train ON mag.paper FROM '$PWD/train.txt';
  CREATE GRAPH plain FROM '$PWD/cites.csv';" || fail "setup"

# one row per mini-batch of 32 of the 100 papers of train
Q="SAMPLE [{cites: 5, writes: 3}, {written_by: 2, cites: 3}] FROM mag SEEDS paper.train BATCH 32 SHUFFLE SEED 4"
"$GNNDB" -header -csv "$DB" "$Q;" > a.csv 2> a.err || { cat a.err; fail "$Q"; }
head -1 a.csv | grep -qx 'epoch,batch,seeds,nodes,edges,feature_bytes,types,relations,digest' ||
    fail "typed columns: $(head -1 a.csv)"
[ "$(wc -l < a.csv)" -eq 5 ] || fail "100 seeds in batches of 32: not 4 rows"
tail -n +2 a.csv | awk -F, '
    { n = split($7, t, " "); split(t[1], p, "="); split(t[2], a, "=")
      split(t[3], f, "=")
      if (n != 3 || p[1] != "paper" || a[1] != "author" || f[1] != "field")
          bad = "types " $7
      if (p[2] + a[2] + f[2] != $4) bad = "types " $7 " for " $4 " nodes"
      if (f[2] != 0) bad = "fields reached by no relation: " $7
      if ($6 != p[2] * 16) bad = "feature_bytes " $6 " for " p[2] " papers"
      m = split($8, r, " "); e = 0
      for (i = 1; i <= m; i++) { split(r[i], kv, "="); e += kv[2]; nm = nm kv[1] " " }
      if (m != 4 || nm != "cites writes written_by about ") bad = "relations " $8
      if (e != $5) bad = "relations " $8 " for " $5 " edges"
      if ($8 !~ /about=0$/) bad = "about sampled: " $8
      nm = "" }
    END { if (bad) { print bad; exit 1 } }' || fail "typed rows"
# the same digests whatever HYPERBATCH and threads
cut -d, -f9 a.csv > d1.txt
"$GNNDB" -header -csv "$DB" "PRAGMA threads = 1; $Q HYPERBATCH 1;" | tail -n 5 | cut -d, -f9 > d2.txt
cmp -s d1.txt d2.txt || { diff d1.txt d2.txt; fail "digests differ under HYPERBATCH 1, one thread"; }

# EXPLAIN names each hop's relations and the seeds' split
"$GNNDB" -noheader -csv "$DB" "EXPLAIN $Q;" > plan.txt || fail "EXPLAIN"
grep -q -- '-> sample hop 1: cites 5, writes 3 (paper <- paper, author): est\.' plan.txt ||
    { cat plan.txt; fail "EXPLAIN hop 1"; }
grep -q -- '-> sample hop 2: cites 3 (paper <- paper); written_by 2 (author <- paper): est\.' plan.txt ||
    { cat plan.txt; fail "EXPLAIN hop 2"; }
grep -q -- '-> scan split paper.train: 100 seeds, BATCH 32, shuffled order' plan.txt ||
    { cat plan.txt; fail "EXPLAIN scan"; }
grep -q -- '-> gather paper.feat (4 x float32)' plan.txt || { cat plan.txt; fail "EXPLAIN gather"; }
grep -q 'fanout' plan.txt && fail "a typed plan printed a fanout"
# a relation into fields, which nothing reaches: a warning, and it runs
U="SAMPLE {cites: 5, about: 3} * 2 FROM mag SEEDS paper.train BATCH 32 SEED 4"
"$GNNDB" -noheader -csv "$DB" "EXPLAIN $U;" | grep -q 'warning: hop 1 samples relation about, whose targets (field) are not among the nodes it starts from' ||
    fail "no warning for about"
"$GNNDB" -csv "$DB" "$U;" | grep -q 'about=0,' || fail "$U"
# strict is off unless asked; on, EXPLAIN still explains, saying so
"$GNNDB" -csv -noheader "$DB" "PRAGMA strict;" | grep -qx 'strict,off' ||
    fail "PRAGMA strict is not off by default"
"$GNNDB" -noheader -csv "$DB" "PRAGMA strict = on; EXPLAIN $U;" > plan.txt ||
    fail "EXPLAIN under strict"
grep -q 'warning: hop 1 samples relation about, whose targets (field) are not among the nodes it starts from; PRAGMA strict refuses to run it' plan.txt ||
    { cat plan.txt; fail "EXPLAIN under strict: no warning"; }
grep -q -- '-> sample hop 2: cites 5 (paper <- paper); about 3 (field <- paper)' plan.txt ||
    { cat plan.txt; fail "EXPLAIN under strict: no plan"; }
# a map that samples only what it reaches runs under strict as it does without
"$GNNDB" -header -csv "$DB" "PRAGMA strict = on; $Q;" | tail -n +3 | cut -d, -f9 > d3.txt
cmp -s d1.txt d3.txt || { diff d1.txt d3.txt; fail "strict changed a clean SAMPLE"; }

# bad typed statements: one line each, the database as it was
SNAP_GRAPHS=mag NO_INTO=$PWD/out
. "$OLDPWD/tests/e2e_expect_error.sh"
BEFORE=$(snapshot)
expect_error "SAMPLE {cites: 5, venue_of: 2} FROM mag SEEDS paper.train BATCH 8 INTO '$PWD/out';" \
    'hop 1 samples relation venue_of, which graph mag does not have'
expect_error "SAMPLE {cites: 5} FROM mag SEEDS venue.train BATCH 8;" \
    'graph mag has no node type venue'
expect_error "SAMPLE {cites: 5} FROM mag SEEDS train BATCH 8;" \
    'needs SEEDS type.split, SEEDS type.ALL or SEEDS type (ids)'
expect_error "SAMPLE {cites: 5} * 2 FROM plain BATCH 8;" \
    'graph plain has no node types or relations'
expect_error "SAMPLE {cites: 5} FROM mag EDGES tr BATCH 8;" \
    'EDGES on typed graph mag is not available yet'
expect_error "SAMPLE 5, 5 FROM mag SEEDS paper.train BATCH 8 INTO '$PWD/out';" \
    'graph mag is typed: give each hop a map of relation fanouts'
# PRAGMA strict: the warning refuses every form of SAMPLE that would run
S="PRAGMA strict = on;"
expect_error "$S $U INTO '$PWD/out';" \
    "PRAGMA strict: relation about would sample nothing: its targets (field) are never among the nodes a hop naming it starts from; drop about from the map of hops 1, 2 (a list of maps, \[{...}, {...}\], lets hops differ) or set PRAGMA strict = off"
expect_error "$S EXPLAIN ANALYZE $U;" 'PRAGMA strict: relation about would sample nothing'
expect_error "$S $U INTO PACK p;" 'PRAGMA strict: relation about would sample nothing'
# a pack record holds no per-type arrays
expect_error "$U INTO PACK p;" 'a SAMPLE of typed graph mag is not stored in packs yet'
# the same map repeated (as PyG's num_neighbors) reaches authors at hop 2,
# not at hop 1: a warning, and it runs under strict
R="SAMPLE {cites: 5, writes: 3, written_by: 2} * 2 FROM mag SEEDS paper.train BATCH 8"
"$GNNDB" -noheader -csv "$DB" "$S EXPLAIN $R;" > plan.txt || fail "EXPLAIN of a repeated map"
grep -q 'warning: hop 1 samples relation written_by, whose targets (author) are not among the nodes it starts from' plan.txt &&
    ! grep -q 'strict refuses' plan.txt ||
    { cat plan.txt; fail "repeated map: no warning, or one saying strict refuses"; }
"$GNNDB" -noheader -csv "$DB" "$S $R;" > /dev/null || fail "strict refused a relation a later hop reaches"
expect_error "PRAGMA strict = maybe;" "PRAGMA strict = 'maybe': use 'on' .* or 'off'"
echo "ok"
