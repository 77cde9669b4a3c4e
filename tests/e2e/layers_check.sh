#!/bin/sh
# scripts/layers.sh on small trees of its own: quiet on one that calls only
# downward; failing, with the file and the name, on a call up a floor, on
# an include of a header above, and on two files that call each other,
# within a folder or across; a table of functions (as storage/io.c plugs
# in its backends) is no loop.
set -u
fail() { echo "FAIL: $*"; exit 1; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LAYERS="$ROOT/scripts/layers.sh"

mkdir -p t/stmt t/cmd t/engine t/storage t/common
cat > t/common/err.h <<'C'
typedef struct gnn_err { int rc; } gnn_err;
int gnn_seterr(gnn_err *e, int rc);
C
cat > t/common/err.c <<'C'
#include "err.h"
int gnn_seterr(gnn_err *e, int rc) { e->rc = rc; return rc; }
C
cat > t/storage/io.c <<'C'
#include "../common/err.h"
int iop_open(gnn_err *e);
typedef struct io_ops { int (*open)(gnn_err *); } io_ops;
static const io_ops backends[] = { { iop_open } };
int io_skip(int n) { return n + 1; }
int io_open(gnn_err *e) { return backends[0].open(e); }
C
cat > t/storage/io_pread.c <<'C'
#include "../common/err.h"
int io_skip(int n);
int iop_open(gnn_err *e) { return gnn_seterr(e, io_skip(0)); }
C
cat > t/engine/plan.c <<'C'
#include "../common/err.h"
int io_open(void *e);
int plan_make(void) { return io_open(0); }
int plan_fail(gnn_err *e) { return gnn_seterr(e, 1); }
C
cat > t/cmd/show.c <<'C'
int plan_make(void);
int show_graphs(void) { return plan_make(); }
C
cat > t/stmt/dispatch.c <<'C'
int show_graphs(void);
int stmt_run(void) { return show_graphs(); }
C

sh "$LAYERS" t > out.txt 2>&1 || { cat out.txt; fail "a clean tree fails"; }

cp t/engine/plan.c plan.c.orig
cat >> t/engine/plan.c <<'C'
int show_graphs(void);
int plan_show(void) { return show_graphs(); }
C
sh "$LAYERS" t > out.txt 2>&1 && fail "a call from engine/ up to cmd/ passes"
grep -q 'upward: engine/plan.c:.* -> cmd/show.c.*show_graphs' out.txt \
    || { cat out.txt; fail "the upward call is not named"; }
cp plan.c.orig t/engine/plan.c

echo '#include "../cmd/show.h"' > t/storage/npy.c
echo 'int show_x;' > t/cmd/show.h
sh "$LAYERS" t > out.txt 2>&1 && fail "an include of cmd/ from storage/ passes"
grep -q 'upward: storage/npy.c:1 -> cmd/show.h' out.txt \
    || { cat out.txt; fail "the upward include is not named"; }
rm t/storage/npy.c t/cmd/show.h

cat >> t/common/err.c <<'C'
int plan_make(void);
int gnn_plan(void) { return plan_make(); }
C
sh "$LAYERS" t > out.txt 2>&1 && fail "common/ calling engine/ passes"
grep -q 'loop of' out.txt || { cat out.txt; fail "the loop across folders is not named"; }
grep -q 'common/err.c -> engine/plan.c: plan_make' out.txt \
    || { cat out.txt; fail "the loop does not say what ties it"; }

cat > t/common/err.c <<'C'
#include "err.h"
int gnn_seterr(gnn_err *e, int rc) { e->rc = rc; return rc; }
C
cat > t/cmd/drop.c <<'C'
int show_graphs(void);
int drop_graph(void) { return show_graphs(); }
C
cat >> t/cmd/show.c <<'C'
int drop_graph(void);
int show_drop(void) { return drop_graph(); }
C
sh "$LAYERS" t > out.txt 2>&1 && fail "cmd/show.c and cmd/drop.c calling each other passes"
grep -q 'loop of 2 files: cmd/drop.c cmd/show.c' out.txt \
    || { cat out.txt; fail "the loop within cmd/ is not named"; }
exit 0
