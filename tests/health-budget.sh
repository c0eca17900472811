#!/bin/sh
# SPDX-License-Identifier: ISC
# fabtunectl health's budget (issue 41, item 1): a healthy daemon is never read UNKNOWN for
# being slow. 100 calls of `health --format slurm` beside a CPU hog (spinning loops and a
# loop of process starts, as a parallel build makes: six spinning loops and the loop on two
# cores) all read READY; behind slow_proxy,
# which holds each request 1 s, slurm reads READY, npd (100 ms) UNKNOWN within its budget,
# --timeout is honoured both ways; a first connection closed unanswered is retried; a
# caller who may not ask (nobody) is told so, whether the socket or the daemon refused.
# FABTUNE_HEALTH_CALLS sets the number of calls (the issue's figure: 1000, by hand).
. "${top_srcdir:-.}/tests/lib.sh"
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
proxy="$top_builddir/tests/slow_proxy"
calls=${FABTUNE_HEALTH_CALLS:-100}
tmp=$(mktemp -d /tmp/ft.XXXXXX)
chmod 0755 "$tmp"
dpid= ppid_= hogs=
cleanup() {
    for p in $hogs $ppid_ $dpid; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
fx=$(shared_fixtures)
unlimited_proc "$tmp/proc"
printf 'version: 1\ntuning: {mode: off}\nprobes: {enabled: false}\nchecks: {interval: 1h}\n' > "$tmp/policy.yaml"
sock="$tmp/run/fabtuned.sock"
"$fabtuned" -c "$tmp/policy.yaml" --sysfs-root "$fx/mlx5_8rail/sys" --procfs-root "$tmp/proc" \
    --state-dir "$tmp/state" --runtime-dir "$tmp/run" --log-target stderr 2> "$tmp/log" & dpid=$!
for _ in $(seq 300); do "$ctl" -s "$sock" health > /dev/null 2>&1 && break; sleep 0.05; done
expect_rc 0 "$ctl" -s "$sock" health --format slurm
ms() { echo $(( $(date +%s%N) / 1000000 )); }

# --- A loaded node: two spinning loops and a loop of process starts on two cores. ---
for _ in 1 2 3 4 5 6; do sh -c 'while :; do :; done' & hogs="$hogs $!"; done
sh -c 'while :; do /bin/true; done' & hogs="$hogs $!"
unknown=0 slowest=0 i=0
while [ "$i" -lt "$calls" ]; do
    t=$(ms); "$ctl" -s "$sock" health --format slurm > "$tmp/line"; rc=$?; t=$(( $(ms) - t ))
    [ "$rc" -eq 0 ] || { unknown=$((unknown + 1)); echo "# call $i: exit $rc: $(cat "$tmp/line")"; }
    [ "$t" -gt "$slowest" ] && slowest=$t
    i=$((i + 1))
done
for p in $hogs; do kill "$p"; wait "$p" 2>/dev/null; done; hogs=
[ "$unknown" -eq 0 ] && pass "$calls calls beside a CPU hog: all READY (the slowest took $slowest ms)" \
    || fail "$unknown of $calls calls beside a CPU hog were not READY (the slowest took $slowest ms)"

# --- A daemon whose answers take 1 s. ---
"$proxy" "$tmp/slow.sock" "$sock" 1000 & ppid_=$!
for _ in $(seq 100); do [ -S "$tmp/slow.sock" ] && break; sleep 0.05; done
expect_rc 0 "$ctl" -s "$tmp/slow.sock" health --format slurm
expect_match '^fabtune: READY$' "$LAST_OUT"
expect_rc 0 "$ctl" -s "$tmp/slow.sock" health --format nagios
expect_rc 0 "$ctl" -s "$tmp/slow.sock" health --format npd --timeout 5
# npd keeps its promise: UNKNOWN within its 100 ms, two tries, not after the slow answer.
t=$(ms); run "$ctl" -s "$tmp/slow.sock" health --format npd; t=$(( $(ms) - t ))
[ "$LAST_RC" -eq 2 ] && pass "npd behind the 1 s proxy: UNKNOWN (exit 2) in $t ms" || fail "npd: exit $LAST_RC in $t ms"
expect_match '^fabtune: UNKNOWN: fabtuned not answering: no answer in time$' "$LAST_OUT"
[ "$t" -lt 900 ] && pass "npd gave up before the 1 s answer" || fail "npd took $t ms"
run "$ctl" -s "$tmp/slow.sock" health --format slurm --timeout 0.5
[ "$LAST_RC" -eq 3 ] && pass "--timeout 0.5 is honoured: slurm reads UNKNOWN" || fail "--timeout 0.5: exit $LAST_RC"
kill "$ppid_"; wait "$ppid_" 2>/dev/null; ppid_=

# --- A first connection closed unanswered (a daemon restarting): the retry answers. ---
"$proxy" "$tmp/drop.sock" "$sock" 0 1 & ppid_=$!
for _ in $(seq 100); do [ -S "$tmp/drop.sock" ] && break; sleep 0.05; done
expect_rc 0 "$ctl" -s "$tmp/drop.sock" health --format npd --timeout 2
kill "$ppid_"; wait "$ppid_" 2>/dev/null; ppid_=
# No daemon at all: UNKNOWN, within the budget, saying so.
t=$(ms); run "$ctl" -s "$tmp/none.sock" health --format slurm --timeout 1; t=$(( $(ms) - t ))
[ "$LAST_RC" -eq 3 ] && [ "$t" -lt 3000 ] && pass "no daemon: UNKNOWN in $t ms" || fail "no daemon: exit $LAST_RC in $t ms"
expect_match '^fabtune: UNKNOWN fabtuned not answering: No such file or directory$' "$LAST_OUT"

# --- A caller who may not ask. The socket is root's (0660, no group fabtune here): the
# kernel refuses nobody, fabtuned never hears of it. Opened to all, the daemon refuses. ---
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
chmod 0755 "$tmp/run"
run as_nobody "$ctl" -s "$sock" health --format slurm
[ "$LAST_RC" -eq 3 ] && pass "nobody: exit 3 (UNKNOWN), at once" || fail "nobody: exit $LAST_RC"
expect_match '^fabtune: UNKNOWN permission denied: uid 65534 (nobody) is not root or in group root (' "$LAST_OUT"
chmod 0666 "$sock"
run as_nobody "$ctl" -s "$sock" health --format nagios
[ "$LAST_RC" -eq 3 ] && pass "nobody, the daemon refusing: exit 3" || fail "nobody, daemon: exit $LAST_RC"
expect_match "^FABTUNE UNKNOWN - UNKNOWN: fabtuned answered: permission denied: uid 65534 (nobody): 'health' needs root or membership of group 'fabtune'" "$LAST_OUT"
if grep -q 'not answering' "$LAST_OUT"; then fail "a refusal called 'not answering'"; else pass "no 'not answering' for a refusal"; fi
finish
