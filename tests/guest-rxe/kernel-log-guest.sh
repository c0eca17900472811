#!/bin/sh
# SPDX-License-Identifier: ISC
# In-guest test of the kernel-log source (issue 45, item 1) on a real kernel's records: the
# guest has no journald, so fabtuned reads /dev/kmsg. Taking v0's peer down makes rdma_rxe
# print "set down" about rxe0 (drivers/infiniband/sw/rxe/rxe_net.c, rxe_port_down(): a
# kernel record, facility 0):
# - within one pass after it, nic.link on rxe0/1 counts it and quotes the line and its
#   source; a link that went down is a notice (ok): the link memory judges the link
#   (counters.sticky), so the count grows with each bounce and the severity stays ok;
# - the same text written to /dev/kmsg by a process (facility LOG_USER) adds nothing;
# - a restart reads from its saved cursor: the count stays, no message is taken twice.
#   kernel-log-guest.sh BUILDDIR PEER
. "$(dirname "$0")/../lib.sh"
fabtuned="$1/src/daemon/fabtuned" ctl="$1/src/client/fabtunectl" peer=$2
tmp=$(mktemp -d)
cat > "$tmp/policy.yaml" <<EOP
version: 1
rails: {expect_count: 1}
checks: {interval: 1h, counters: {sticky_window: 0s}}
tuning: {mode: off}
probes: {enabled: false}
EOP
sock="$tmp/run/fabtuned.sock"
start() {
    "$fabtuned" -c "$tmp/policy.yaml" --state-dir "$tmp/state" --runtime-dir "$tmp/run" \
        --log-target stderr 2>> "$tmp/log" & dpid=$!
    for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
    for _ in $(seq 100); do "$ctl" -s "$sock" health > /dev/null 2>&1; [ $? -ne 2 ] && break; sleep 0.1; done
}
stop() { kill -TERM "$dpid"; wait "$dpid"; rm -f "$sock"; }
# "severity actual message" of nic.link on rxe0/1, after a pass run now
nic_link() {
    "$ctl" -s "$sock" reload > /dev/null
    "$ctl" -s "$sock" --json checks |
        jq -r '.[] | select(.check == "nic.link" and .rail == "rxe0/1") | "\(.severity) \(.actual) \(.message)"'
}
wait_active() {
    for _ in $(seq 50); do
        [ "$(cat /sys/class/infiniband/rxe0/ports/1/state)" = "4: ACTIVE" ] && return 0
        sleep 0.1
    done
    return 1
}
bounce() {
    ip link set "$peer" down
    for _ in $(seq 50); do
        [ "$(cat /sys/class/infiniband/rxe0/ports/1/state)" = "1: DOWN" ] && break
        sleep 0.1
    done
    ip link set "$peer" up
    wait_active
}

# The kernel's own count of the line (dmesg -k: facility kernel only), since the boot: the
# first read starts there, so earlier tests' bounces count too.
kernel_count() { dmesg -k | grep -c 'rxe0: .*set down'; }
# expect_nic N FILE: nic.link as N kernel messages make it
expect_nic() {
    if [ "$1" -eq 0 ]; then expect_match '^ok none' "$2"
    else expect_match "^ok $1 messages*, the last at .*a notice only.*\"infiniband rxe0: set down\".*rxe_net.c" "$2"
    fi
}

start
n=$(kernel_count)
nic_link > "$tmp/f0"; cat "$tmp/f0"
expect_nic "$n" "$tmp/f0"
case "$(jq -r .kernel_cursor "$tmp/state/links.json")" in
    kmsg:*) pass "a kmsg cursor (no journald)" ;;
    *) fail "no kmsg cursor in links.json" ;;
esac

bounce
n1=$(kernel_count)
[ "$n1" -eq $((n + 1)) ] && pass "rdma_rxe printed 'set down' once" || fail "set down lines $n -> $n1"
dmesg -k | grep 'rxe0: .*set down' | tail -1
nic_link > "$tmp/f1"; cat "$tmp/f1"
expect_nic "$n1" "$tmp/f1"

# A process's copy of the line: LOG_USER, not counted.
echo "<6>infiniband rxe0: set down" > /dev/kmsg
nic_link > "$tmp/f2"; cat "$tmp/f2"
expect_nic "$n1" "$tmp/f2"

bounce
bounce
n3=$(kernel_count)
nic_link > "$tmp/f3"; cat "$tmp/f3"
expect_nic "$n3" "$tmp/f3"
[ "$n3" -eq $((n1 + 2)) ] && pass "two more set down lines, each counted once" || fail "set down lines $n1 -> $n3"

stop
start
nic_link > "$tmp/f4"; cat "$tmp/f4"
expect_nic "$n3" "$tmp/f4"
stop
rm -rf "$tmp"
finish
