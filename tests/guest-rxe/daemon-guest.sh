#!/bin/sh
# SPDX-License-Identifier: ISC
# In-guest test: fabtuned as a service on the live rxe0. With the periodic check an hour
# away, only events can make it notice the veth peer going down: the verbs async event
# (PORT_ERR, logged under -d events) and rtnetlink. Status must show port.state failing.
#   daemon-guest.sh BUILDDIR PEER
. "$(dirname "$0")/../lib.sh"
fabtuned="$1/src/daemon/fabtuned" ctl="$1/src/client/fabtunectl" peer=$2
tmp=$(mktemp -d)
cat > "$tmp/policy.yaml" <<EOP
version: 1
rails: {expect_count: 1}
checks: {interval: 1h, counters: {sticky_window: 0s}}  # READY at once after PORT_ACTIVE
tuning: {mode: off}
probes: {enabled: false}
EOP
sock="$tmp/run/fabtuned.sock"
"$fabtuned" -c "$tmp/policy.yaml" --state-dir "$tmp/state" --runtime-dir "$tmp/run" \
    --log-target stderr -d events 2> "$tmp/log" & dpid=$!
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
st() { "$ctl" -s "$sock" --json status | jq -r "$1"; }
wait_for() {
    for _ in $(seq 60); do [ "$(st "$1" 2>/dev/null)" = "$2" ] && return 0; sleep 0.1; done
    return 1
}
wait_for .verdict READY && pass "READY on live rxe0" || fail "not READY: $(st .verdict)"
st '.rails[0] | "\(.name) \(.state) \(.gid_index) \(.roce_address)"' > "$tmp/r"
expect_match '^rxe0/1 ACTIVE 1 192.0.2.1$' "$tmp/r"
grep -q "watching rxe0's async events" "$tmp/log" && pass "watching rxe0's async fd" || fail "no async watch"

ip link set "$peer" down
wait_for '.rails[0].state' DOWN && pass "status shows the port DOWN" || fail "state: $(st '.rails[0].state')"
st '[.failing[] | .check] | join(",")' > "$tmp/f"; cat "$tmp/f"
expect_grep 'port.state' "$tmp/f"
grep -q "rxe0: port error" "$tmp/log" && pass "reacted to the PORT_ERR async event" || fail "no PORT_ERR seen"
ip link set "$peer" up
wait_for .verdict READY && pass "READY again after PORT_ACTIVE" || fail "not READY again"
grep -q "rxe0: port active" "$tmp/log" && pass "PORT_ACTIVE seen" || fail "no PORT_ACTIVE seen"
kill -TERM "$dpid"; wait "$dpid"
rm -rf "$tmp"
finish
