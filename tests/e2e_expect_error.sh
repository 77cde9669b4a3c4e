# tests/e2e_expect_error.sh — sourced by the end-to-end scripts that feed
# bad input (tests/e2e/bad_inputs.sh, propagate_errors.sh): it is not a test
# itself, so it lives outside tests/e2e/. Needs $GNNDB, $DB (holding the
# graphs $SNAP_GRAPHS, cora unless set) and fail(); with $SNAP_SCHEMA set,
# the shell's .schema is compared too; with $NO_INTO set, a failed
# statement must not have made that path (a SAMPLE ... INTO's directory).

# What a failed statement must leave alone: the files of the database, its
# graphs, and everything DESCRIBE says of each graph (less the catalog's own
# size).
snapshot() {
    ( cd "$DB" && ls | grep -v -e '-wal$' -e '-shm$' | sort
      "$GNNDB" -csv "$DB" "SHOW GRAPHS;"
      for g in ${SNAP_GRAPHS:-cora}; do
          "$GNNDB" -csv "$DB" "DESCRIBE $g;" | grep -v '^file\.catalog'
      done
      [ -z "${SNAP_SCHEMA:-}" ] || "$GNNDB" "$DB" ".schema" ) 2>&1
}

# expect_error SQL PATTERN: fails with one line on stderr matching PATTERN,
# and the snapshot is still $BEFORE
expect_error() {
    out=$("$GNNDB" "$DB" "$1" 2>err.txt); rc=$?
    [ $rc -ne 0 ] || fail "succeeded: $1"
    [ "$(wc -l < err.txt)" -eq 1 ] || { cat err.txt; fail "not one line: $1"; }
    grep -q -- "$2" err.txt || { cat err.txt; fail "message lacks '$2': $1"; }
    AFTER=$(snapshot)
    [ "$BEFORE" = "$AFTER" ] || { echo "$BEFORE" > b.txt; echo "$AFTER" > a.txt; diff b.txt a.txt; fail "database changed by: $1"; }
    [ -z "${NO_INTO:-}" ] || [ ! -e "$NO_INTO" ] || fail "INTO made a directory: $1"
    echo "ok: $(cat err.txt)"
}
