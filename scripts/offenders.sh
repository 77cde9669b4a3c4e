#!/bin/sh
# offenders.sh — the C files of the library and the shell over 800 lines,
# and their functions over 80, longest first: the places a newcomer finds
# hardest to read, listed so that they shrink rather than grow. A warning,
# never a failure: it always exits 0. Run from the repository root.
#
# A function is a body opened by a `{` alone at the start of a line, right
# after a line that ends its parameter list with `)`, and closed by the next
# `}` at the start of a line (the house layout); its length is the lines
# between the two braces. Tests and benchmarks are not counted.
FILE_MAX=${FILE_MAX:-800}
FUNC_MAX=${FUNC_MAX:-80}
files=$(ls common/*.[ch] storage/*.[ch] catalog/*.[ch] parser/*.[ch] \
           engine/*.[ch] exec/*.[ch] cmd/*.[ch] gpu/*.[ch] shell/*.[ch] 2>/dev/null)
[ -n "$files" ] || exit 0

echo "offenders: files over $FILE_MAX lines"
# shellcheck disable=SC2086
wc -l $files | awk -v max="$FILE_MAX" '$2 != "total" && $1 > max {
    printf "  %5d  %s\n", $1, $2 }' | sort -rn

echo "offenders: functions over $FUNC_MAX lines"
# shellcheck disable=SC2086
awk -v max="$FUNC_MAX" '
    FNR == 1 { name = ""; open = 0; prev = "" }
    # the name of the last declaration begun at the left margin
    /^[A-Za-z_]/ && match($0, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/) {
        sig = substr($0, RSTART, RLENGTH)
        sub(/[ \t]*\($/, "", sig)
        sigline = FNR
    }
    /^\{/ && prev ~ /\)[ \t]*$/ { name = sig; at = sigline; open = FNR }
    /^\}/ && open {
        n = FNR - open - 1
        if (n > max) printf "  %5d  %s  %s:%d\n", n, name, FILENAME, at
        open = 0
    }
    /[^ \t]/ { prev = $0 }
' $files | sort -rn
exit 0
