#!/bin/sh
# SPDX-License-Identifier: ISC
# Events to verdicts, on real rtnetlink in a private network namespace. The rail is the
# Soft-RoCE fixture's rxe0/1 with its netdev v0 linked to a live veth:
# - a carrier loss is re-checked on its first event (the leading edge), not after a
#   trailing debounce: over 20 drops the pass that saw it began, in the median, well inside
#   the 200 ms event window a trailing debounce always waits out. Judged from the pass's
#   start, so a slow pass (ASan, a loaded machine) does not count; its end is printed;
# - link and address changes of another interface trigger no check;
# - a flap storm re-checks at most about once per window, and ends with the right verdict
#   (DEGRADED: netdev.flaps, past the policy's 100 changes; the 20 drops made 40).
. "${top_srcdir:-.}/tests/lib.sh"
if [ -z "${FABTUNE_IN_NS:-}" ]; then
    FABTUNE_IN_NS=1 exec unshare -n -m --propagation private sh "$0"
fi
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
tmp=$(mktemp -d /tmp/fabtune-events.XXXXXX)
window_ms=200
live_veth_rail "$tmp"
cat > "$tmp/policy.yaml" <<EOP
version: 1
rails: {expect_count: 1}
checks: {interval: 1h, flaps: {max: 100}, counters: {sticky_window: 0s}}  # READY at once after a drop
tuning: {mode: off}
probes: {enabled: false}
EOP
unlimited_proc "$tmp/proc"
sock="$tmp/run/fabtuned.sock"
"$fabtuned" -c "$tmp/policy.yaml" --sysfs-root "$root" --procfs-root "$tmp/proc" --state-dir "$tmp/state" \
    --runtime-dir "$tmp/run" --log-target stderr 2> "$tmp/log" & dpid=$!
trap 'kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done
st() { "$ctl" -s "$sock" --json status | jq -r "$1"; }
# Polls until the rail's verdict is $1 and no pass is going, for at most 5 s.
settle() {
    for _ in $(seq 250); do
        [ "$(st '"\(.rails[0].verdict) \(.checking)"')" = "$1 false" ] && return 0
        sleep 0.02
    done
    return 1
}
settle READY && pass "READY on the live veth" || fail "not READY: $(st .verdict)"

# 20 carrier drops: from "ip link set down" to the start and the end of the pass that saw
# it (last_check_started_usec, last_check_usec: the realtime clock, read on this machine).
: > "$tmp/lat"; : > "$tmp/start"
for i in $(seq 20); do
    sleep 0.3           # past the window of the previous change
    t0=$(date +%s%6N)
    ip link set v1 down
    settle NOT_READY || { fail "drop $i: no NOT_READY"; break; }
    echo $(( $(st .last_check_usec) - t0 )) >> "$tmp/lat"
    echo $(( $(st .last_check_started_usec) - t0 )) >> "$tmp/start"
    sleep 0.3
    ip link set v1 up
    settle READY || { fail "drop $i: not READY again"; break; }
done
# p50 and max of a file of microseconds, in ms
stats() { sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%d %d %d\n", NR, v[int((NR + 1) / 2)] / 1000, v[NR] / 1000 }'; }
set -- $(stats "$tmp/lat"); n=$1 end_p50=$2 end_max=$3
set -- $(stats "$tmp/start"); p50=$2 max=$3
echo "    carrier loss over $n drops: to the start of the pass that saw it p50 $p50 ms, max $max ms;"
echo "    to its end (the new verdict in status) p50 $end_p50 ms, max $end_max ms"
[ "$n" -eq 20 ] && [ "$p50" -lt $((window_ms / 2)) ] &&
    pass "leading edge: the pass began at p50 $p50 ms, under half the $window_ms ms window" ||
    fail "the pass began at p50 ${p50:-?} ms over $n drops: the check waited"

# Another interface's changes: no check.
sleep 0.5
before=$(st .checks_done)
ip link add d0 type veth peer name d1
for _ in $(seq 10); do ip link set d0 up; ip link set d0 down; done
ip addr add 198.51.100.1/24 dev d0; ip addr del 198.51.100.1/24 dev d0
ip link del d0
sleep 0.5
after=$(st .checks_done)
[ "$after" = "$before" ] && pass "changes of another veth pair (created, 20 up/down, an address, deleted): no check ($before -> $after)" ||
    fail "another interface's changes ran $((after - before)) checks"

# A flap storm of 100 down/up pairs: at most one check per window (and the leading one).
before=$(st .checks_done)
t0=$(date +%s%3N)
for _ in $(seq 100); do ip link set v1 down; ip link set v1 up; done
t1=$(date +%s%3N)
settle DEGRADED && pass "DEGRADED after the storm (netdev.flaps)" || fail "after the storm: $(st .rails[0].verdict)"
sleep 0.5
ran=$(( $(st .checks_done) - before )) allowed=$(( (t1 - t0 + 500) / window_ms + 3 ))
echo "    storm: 200 link changes in $((t1 - t0)) ms, $ran checks (at most $allowed)"
[ "$ran" -ge 1 ] && [ "$ran" -le "$allowed" ] && pass "the storm ran $ran checks, not one per event" ||
    fail "the storm ran $ran checks (allowed 1..$allowed)"
"$ctl" -s "$sock" --json checks | jq -r '.[] | select(.check == "netdev.flaps") | .severity' > "$tmp/fl"
expect_match '^warning$' "$tmp/fl"
kill -0 "$dpid" && pass "the daemon is running" || fail "the daemon died"
finish
