# tests/e2e_pty.sh — sourced by the end-to-end scripts that drive the
# interactive shell on a terminal through tmux (tests/e2e/shell_pty.sh,
# shell_progress.sh); not a test itself, so it lives outside tests/e2e/.
# Needs $GNNDB and $DB; gives fail(), screen(), wait_for, wait_prompt,
# keys, typ and start.
unset TMUX
export HOME=$PWD
export GNNDB_HISTORY=
# one tmux server (socket, in this directory) per session, so that a dying
# server never meets the next one
NSESS=0
T=true

fail() {
    echo "FAIL: $*"
    echo "---- screen ----"
    $T capture-pane -p -S - -t t 2> /dev/null | grep -v "^$" | tail -40
    $T kill-server 2> /dev/null
    exit 1
}

# screen: the whole pane with its scrollback (tmux strips trailing blanks,
# so an empty prompt reads "gnndb>")
screen() { $T capture-pane -p -S - -t t 2> /dev/null; }
# wait_for PATTERN [N [SECONDS]]: until PATTERN is on at least N lines
wait_for() {
    want=${2:-1}
    i=0
    n=$(( ${3:-20} * 20 ))
    while [ $i -lt $n ]; do
        got=$(screen | grep -c -- "$1")
        [ "$got" -ge "$want" ] && return 0
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}
prompts() { screen | grep -c '^gnndb>'; }
# last: the line the cursor is on (trailing blanks stripped)
last() { screen | sed -e 's/[[:space:]]*$//' | grep -v '^$' | tail -1; }
cursor_line() { screen | grep -v '^$' | tail -1; }
# wait_prompt [SECONDS]: until the cursor's line is an empty prompt again
wait_prompt() {
    i=0
    n=$(( ${1:-20} * 20 ))
    while [ $i -lt $n ]; do
        [ "$(cursor_line)" = "gnndb>" ] && return 0
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}
# echoed TEXT: until the cursor's line ends with TEXT (typed keys arrive
# asynchronously: Enter is sent only once the line shows them)
echoed() {
    i=0
    while [ $i -lt 400 ]; do
        case "$(cursor_line)" in *"$1") return 0 ;; esac
        sleep 0.05
        i=$((i + 1))
    done
    fail "the terminal never showed: $1"
}
keys() { $T send-keys -t t "$@"; }
# typ TEXT: type TEXT literally (tmux reads a final ';' as its own separator)
typ() {
    $T send-keys -t t -l "$(printf '%s' "$1" | sed 's/;$/\\;/')"
    echoed "$1"
}

# start [OPTIONS]: the shell on DB in a new 150x50 terminal; when it exits,
# the terminal shows "[exited STATUS]"
start() {
    NSESS=$((NSESS + 1))
    T="tmux -S $PWD/tmux-$NSESS.sock"
    $T new-session -d -s t -x 150 -y 50 \
        "env HOME='$PWD' '$GNNDB' $* '$DB'; echo \"[exited \$?]\"; sleep 600" ||
        fail "tmux new-session"
}

