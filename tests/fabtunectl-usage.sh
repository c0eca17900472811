#!/bin/sh
# SPDX-License-Identifier: ISC
# fabtunectl refuses what it does not do (issue 43, item 5), and explains the checks:
# - every command against every option: one that --help does not give the command (its own,
#   or a global one that --help does not say it lacks) is a usage error (64) naming the
#   option and the command; one it gives is taken (no such error);
# - a wrong number of arguments, an unknown option, an unknown command (with a "did you
#   mean"), a bad --timeout: 64;
# - wait-ready says what it waits for, has a default bound, and says it cannot reach a socket
#   that is not there (69) instead of waiting in silence;
# - --version shows the daemon's version beside its own when one answers;
# - fabtunectl explain, without a daemon: one check's meaning, reads, expects and fix; a
#   family; every id (as many as fabtune-checks(7) has); an unknown one gets a did-you-mean;
# - with a daemon on the 8-rail fixture (root: its socket is root's): checks --rail of a rail
#   the node lacks names the rails there are (64).
. "${top_srcdir:-.}/tests/lib.sh"
ctl="$top_builddir/src/client/fabtunectl"
fabtuned="$top_builddir/src/daemon/fabtuned"
work=$(mktemp -d /tmp/ft.XXXXXX)
trap 'rm -rf "$work"' EXIT
FABTUNE_SOCKET="$work/none.sock"
export FABTUNE_SOCKET

# The command table and the global options as --help gives them.
"$ctl" --help > "$work/help"
sed -n '4,/^$/p' "$work/help" | grep '^  [a-z]' | sed 's/^  //; s/  .*//' > "$work/table"
sed -n '/^$/,$p' "$work/help" | awk '/^  -/ { if (r) print r; r = $0; next } { r = r " " $0 } END { print r }' \
    > "$work/globals"
[ "$(wc -l < "$work/table")" -ge 18 ] && pass "--help lists $(wc -l < "$work/table") commands" ||
    fail "--help lists $(wc -l < "$work/table") commands"

# A value for each option that takes one; "" for a flag.
value_of() {
    case $1 in
        --socket) echo "$work/none.sock" ;; --config) echo /dev/null ;; --rail) echo mlx5_0 ;;
        --format) echo npd ;; --timeout) echo 0.2 ;; --state-dir) echo "$work" ;; *) echo "" ;;
    esac
}
# takes CMD OPTION: whether --help gives CMD that option.
takes() {
    grep -q -- "^$1 .*\[$2[] ]" "$work/table" && return 0
    rec=$(grep -- "^  -[a-z], $2 " "$work/globals") || return 1
    case " $(echo "$rec" | sed -n 's/.*not for //p' | sed 's/,/ /g; s/ and / /g') " in
        *" $1 "*) return 1 ;;
    esac
    return 0
}
# The options: -c's long name is --config.
options="--socket --json --config --failed --rail --conf --format --timeout --state-dir"
refused=0 taken=0 bad=""
while read -r cmd rest; do
    for opt in $options; do
        v=$(value_of "$opt")
        o=$opt; [ "$opt" = --config ] && o=-c
        if takes "$cmd" "$o" || { [ "$opt" = --config ] && takes "$cmd" --config; }; then
            # Taken: whatever it does next (no daemon, no FILE), never "does not take".
            # (snapshot and diff get no file: they stop at their missing argument; wait-ready
            # gets a short bound.)
            more=""; [ "$cmd" = wait-ready ] && [ "$opt" != --timeout ] && more="--timeout 0.2"
            timeout 10 "$ctl" $opt ${v:+"$v"} "$cmd" $more > "$work/out" 2> "$work/err" < /dev/null
            if grep -q "does not take" "$work/err"; then bad="$bad
    $cmd $opt: refused, though --help gives it"; fi
            taken=$((taken + 1))
        else
            timeout 10 "$ctl" "$cmd" $opt ${v:+"$v"} > "$work/out" 2> "$work/err" < /dev/null
            rc=$?
            if [ $rc -ne 64 ] || ! grep -q "^fabtunectl: $cmd does not take $opt " "$work/err" ||
                [ -s "$work/out" ]; then bad="$bad
    $cmd $opt: exit $rc, $(head -1 "$work/err")"; fi
            refused=$((refused + 1))
        fi
    done
done < "$work/table"
[ -z "$bad" ] && pass "each command takes the options --help gives it ($taken) and refuses the rest ($refused)" ||
    fail "options per command:$bad"
[ "$refused" -ge 100 ] && [ "$taken" -ge 30 ] && pass "the matrix tried $refused refusals, $taken takes" ||
    fail "the matrix is too small: $refused refusals, $taken takes"

# The issue's case: the option named, with the command that takes it; nothing printed.
expect_rc 64 "$ctl" status --rail mlx5_9 --format nagios
expect_grep "fabtunectl: status does not take --rail (only checks does; usage: fabtunectl status [-v])" "$LAST_ERR"
[ -s "$LAST_OUT" ] && fail "it printed a status anyway" || pass "no status printed"
expect_rc 64 "$ctl" snapshot --socket /x a.tar
expect_grep "fabtunectl: snapshot does not take --socket (every command but explain, snapshot and diff does" "$LAST_ERR"
[ -e a.tar ] && fail "a refused snapshot wrote a.tar" || pass "a refused snapshot wrote nothing"

# Arguments, unknown options and commands.
expect_rc 64 "$ctl" status extra
expect_grep "fabtunectl: status: unexpected argument 'extra' (usage: fabtunectl status [-v])" "$LAST_ERR"
expect_rc 64 "$ctl" snapshot
expect_grep "fabtunectl: snapshot needs FILE.tar (usage: fabtunectl snapshot [--state-dir DIR] FILE.tar)" "$LAST_ERR"
expect_rc 64 "$ctl" explain port.state gid
expect_rc 64 "$ctl" --bogus status
expect_grep "Try 'fabtunectl --help'." "$LAST_ERR"
expect_rc 64 "$ctl" stauts
expect_grep "fabtunectl: unknown command 'stauts' (did you mean 'status'?)" "$LAST_ERR"
expect_rc 64 "$ctl" wait-redy
expect_grep "(did you mean 'wait-ready'?)" "$LAST_ERR"
expect_rc 64 "$ctl" xyzzy
expect_grep "fabtunectl: unknown command 'xyzzy'" "$LAST_ERR"
grep -q "did you mean" "$LAST_ERR" && fail "xyzzy got a did-you-mean" || pass "no did-you-mean for xyzzy"
expect_rc 64 "$ctl"
expect_grep "no command given" "$LAST_ERR"
for t in 0 -5 abc inf; do
    expect_rc 64 "$ctl" wait-ready --timeout "$t"
done
expect_grep "--timeout wants seconds greater than 0, not 'inf'" "$LAST_ERR"

# wait-ready on a socket that is not there: says so at once, and gives up at its bound (69).
start=$(date +%s)
expect_rc 69 "$ctl" -s "$work/nonexistent.sock" wait-ready --timeout 1
expect_grep "fabtunectl: waiting up to 1 s for fabtuned at $work/nonexistent.sock to judge the node READY; now cannot reach it: No such file or directory (is fabtuned running?)" "$LAST_ERR"
expect_grep "fabtunectl: fabtuned at $work/nonexistent.sock did not answer in 1 s: No such file or directory" "$LAST_ERR"
[ $(($(date +%s) - start)) -lt 30 ] && pass "it gave up within its bound" || fail "it took $(($(date +%s) - start)) s"
# Without --timeout it is bounded too, and says by how much (170 s: the unit's bound).
timeout 3 "$ctl" -s "$work/nonexistent.sock" wait-ready 2> "$work/wait.err"
expect_grep "fabtunectl: waiting up to 170 s for fabtuned" "$work/wait.err"

# --version without a daemon: its own, and that none answers.
expect_rc 0 "$ctl" -s "$work/nonexistent.sock" --version
expect_match "^fabtunectl [0-9][0-9.]*\$" "$LAST_OUT"
expect_grep "fabtuned: no answer at $work/nonexistent.sock (No such file or directory)" "$LAST_OUT"

# explain: compiled in, no daemon.
expect_rc 0 "$ctl" explain route.arp
expect_match "^route.arp: no rail answers or asks ARP for another rail's address (ARP flux)\$" "$LAST_OUT"
expect_match "^  reads: " "$LAST_OUT"
expect_match "^  expects: " "$LAST_OUT"
expect_match "^  fix: *sysctl -w net.ipv4.conf.IF.arp_ignore=1" "$LAST_OUT"
awk 'length > 80' "$LAST_OUT" > "$work/long"
[ -s "$work/long" ] && fail "explain wraps at 80 columns: $(cat "$work/long")" || pass "explain fits 80 columns"
expect_rc 0 "$ctl" explain
ids=$(grep -c '^  [a-z]' "$LAST_OUT")
page_ids=$(grep -A1 '^\.TP$' "$top_builddir/man/fabtune-checks.7" | grep -c '^\.B ')
[ "$ids" -eq "$page_ids" ] && [ "$ids" -ge 60 ] && pass "explain lists $ids ids, as fabtune-checks(7)" ||
    fail "explain lists $ids ids, fabtune-checks(7) $page_ids"
expect_match "^  route.arp  *no rail answers" "$LAST_OUT"
expect_rc 0 "$ctl" explain route
grep '^  [a-z]' "$LAST_OUT" | grep -v '^  route\.' > "$work/other"
[ -s "$work/other" ] && fail "explain route lists $(cat "$work/other")" ||
    pass "explain route lists the route family alone ($(grep -c '^  route\.' "$LAST_OUT") ids)"
expect_rc 64 "$ctl" explain rout.arp
expect_grep "fabtunectl: explain: no check id or family 'rout.arp' (did you mean 'route.arp'?)" "$LAST_ERR"
expect_rc 0 "$ctl" --json explain port.state
jq -e '.[0].check == "port.state" and (.[0].fix | length > 0)' "$LAST_OUT" > /dev/null &&
    pass "explain --json gives the row" || fail "explain --json: $(cat "$LAST_OUT")"
# checks takes the same ids, with the same did-you-mean, before it asks the daemon.
expect_rc 64 "$ctl" checks gid.ncl
expect_grep "fabtunectl: checks: no check id or family 'gid.ncl' (did you mean 'gid.nccl'?)" "$LAST_ERR"

# With a daemon: its version, and the rails there are.
if [ "$(id -u)" = 0 ]; then
    daemon_scratch usage mlx5_8rail
    # One rail short of the policy's count: NOT_READY.
    printf 'version: 1\nrails: {expect_count: 9}\ntuning: {mode: off}\nprobes: {enabled: false}\n' \
        > "$tmp/policy.yaml"
    fabtuned_start
    expect_rc 0 "$ctl" -s "$sock" --version
    expect_match "^fabtuned [0-9][0-9.]* (at $sock)\$" "$LAST_OUT"
    expect_rc 64 "$ctl" -s "$sock" checks --rail mlx5_9
    expect_grep "fabtunectl: checks: no rail or device 'mlx5_9' on this node (rails: mlx5_0/1, mlx5_1/1, mlx5_2/1, mlx5_3/1, mlx5_4/1, mlx5_5/1, mlx5_6/1, mlx5_7/1)" "$LAST_ERR"
    expect_rc 0 "$ctl" -s "$sock" checks --rail mlx5_3
    grep -v '^          ' "$LAST_OUT" | grep -v ' mlx5_3/1 ' > "$work/other"
    [ -s "$work/other" ] && fail "checks --rail mlx5_3 shows $(head -2 "$work/other")" ||
        pass "checks --rail mlx5_3 shows mlx5_3/1's findings alone"
    # Not READY: wait-ready says what it waits for, and at its bound why it gave up.
    expect_rc 1 "$ctl" -s "$sock" wait-ready --timeout 0.5
    expect_grep "fabtunectl: waiting up to 0.5 s for fabtuned at $sock to judge the node READY; now NOT_READY: rails.count: 8 of 9 expected rails" "$LAST_ERR"
    expect_grep "fabtunectl: the node is not READY after 0.5 s: NOT_READY: rails.count: 8 of 9 expected rails" "$LAST_ERR"
else
    echo "SKIP: the daemon's part needs root (its socket is root's and the group's)"
fi
finish
