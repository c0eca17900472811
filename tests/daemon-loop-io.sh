#!/bin/sh
# SPDX-License-Identifier: ISC
# Nothing slow on the loop (issue 42, item 1): the counters timer's reads (sysfs, the
# ethtool statistics, FEC_GET) run in a round of their own, off the loop's thread.
# 1. An strace of the daemon over a few counter intervals: the loop's thread (its tid is the
#    daemon's PID) opens no file of the sysfs tree and talks no netlink; another thread does
#    the sampling.
# 2. A counter read that hangs for 2 s (FABTUNE_TEST_HANG_COUNTERS: each sample first reads
#    a FIFO to its end, and the test opens it for writing every 2 s: real blocking I/O in
#    the sampling thread) delays no reply: 200 status calls, spread over more than one hang,
#    have a p99 under 5 ms, or within 3 times a run without the hang on a loaded machine
#    (3 tries).
. "${top_srcdir:-.}/tests/lib.sh"
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
raw="$top_builddir/tests/ctl_raw"
tmp=$(mktemp -d /tmp/ft.XXXXXX)
dpid= feeder= tracer=
cleanup() {
    kill "$tracer" 2>/dev/null; wait "$tracer" 2>/dev/null
    # The daemon first: a round blocked in the FIFO ends at the feeder's next open.
    kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null
    kill "$feeder" 2>/dev/null; wait "$feeder" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
fx=$(shared_fixtures)
root="$fx/soft_roce/sys"
cat > "$tmp/policy.yaml" <<EOP
version: 1
checks: {interval: 1h, counters: {interval: 1s}}
tuning: {mode: off}
probes: {enabled: false}
EOP
unlimited_proc "$tmp/proc"
sock="$tmp/run/fabtuned.sock"
FABTUNE_TEST_HANG_COUNTERS="$tmp/hang" "$fabtuned" -c "$tmp/policy.yaml" --sysfs-root "$root" \
    --procfs-root "$tmp/proc" --state-dir "$tmp/state" --runtime-dir "$tmp/run" \
    --log-target stderr 2> "$tmp/log" & dpid=$!
for _ in $(seq 300); do "$ctl" -s "$sock" health > /dev/null 2>&1; [ $? -ne 2 ] && break; sleep 0.05; done
"$ctl" -s "$sock" health > /dev/null 2>&1; [ $? -ne 2 ] && pass "the daemon answers" || fail "no answer"

# --- 1. The loop's thread makes no sysfs or netlink call. ---
strace -f -qq -yy -e trace=openat,open,sendmsg,recvmsg,sendto,recvfrom -p "$dpid" \
    -o "$tmp/trace" 2> "$tmp/strace.err" & tracer=$!
sleep 3.5       # three counter intervals and more
kill -INT "$tracer"; wait "$tracer" 2>/dev/null; tracer=
if grep -q "ptrace\|not permitted" "$tmp/strace.err"; then
    echo "# strace cannot attach here: part 1 not run: $(head -1 "$tmp/strace.err")"
else
    loop=$(awk -v t="$dpid" '$1 == t' "$tmp/trace" | grep -E "open(at)?\(.*($root|\"/sys/)|send(msg|to)\(.*NETLINK" || true)
    others=$(awk -v t="$dpid" '$1 != t' "$tmp/trace" | grep -cE "openat\(.*$root/class/infiniband/[^/]+/ports/[0-9]+/hw_counters\"")
    [ "$others" -ge 2 ] && pass "another thread read the counters $others times in 3.5 s" ||
        { fail "no sampling seen off the loop ($others)"; head -20 "$tmp/trace"; }
    [ -z "$loop" ] && pass "the loop's thread (tid $dpid) made no sysfs or netlink call" ||
        { fail "the loop's thread made sysfs or netlink calls:"; echo "$loop" | head -10; }
fi

# --- 2. A hanging counter read delays no reply. ---
spread() { "$raw" "$sock" --latency 200 12; }     # 200 calls, 12 ms apart: about 2.6 s
ok=0 try=0
mkfifo "$tmp/hang.off"  # a FIFO beside, not yet read: swapped in below
while [ $try -lt 3 ] && [ $ok -eq 0 ]; do
    try=$((try + 1))
    base=$(spread) || { fail "baseline calls unanswered"; break; }
    mv "$tmp/hang.off" "$tmp/hang" 2>/dev/null
    : > "$tmp/opens"
    if [ -z "$feeder" ]; then
        sh -c 'while :; do : > "$1"; echo >> "$2"; sleep 2; done' sh "$tmp/hang" "$tmp/opens" & feeder=$!
    fi
    sleep 2.5       # a round is in the FIFO now
    before=$(wc -l < "$tmp/opens")
    hung=$(spread); rc=$?
    after=$(wc -l < "$tmp/opens")
    set -- $base; b99=$2
    set -- $hung; h50=${1:-0} h99=${2:-999999999} hmax=${3:-0}
    echo "    try $try: baseline p50/p99/max $base us; a read hanging: $hung us (rc $rc); the hang released $((after - before)) time(s) meanwhile"
    [ $rc -eq 0 ] && [ $((after - before)) -ge 1 ] &&
        { [ "$h99" -lt 5000 ] || [ "$h99" -lt $((3 * b99)) ]; } && ok=1
done
[ $ok -eq 1 ] && pass "status p99 $h99 us while a counter read hung 2 s at a time (baseline p99 $b99 us)" ||
    fail "status waited for the hanging read: p99 $h99 us (baseline p99 $b99 us)"
kill -0 "$dpid" && pass "the daemon is running" || fail "the daemon died"
! grep -q "ERROR\|AddressSanitizer\|runtime error" "$tmp/log" && pass "nothing went wrong in its log" ||
    { fail "its log:"; cat "$tmp/log"; }
finish
