#!/bin/sh
# SPDX-License-Identifier: ISC
# In-guest test of nic.devnode (issue 45, item 2) on the real kernel's nodes: rxe0's uverbs
# node (ib_uverbs, class/infiniband_verbs) under the guest's devtmpfs /dev/infiniband.
# - at start nic.devnode on rxe0/1 is ok and names the node sysfs gives;
# - the node moved away (what a pod without it sees: "lstat /dev/infiniband/uverbsN"): an
#   error naming it, within one pass;
# - put back: ok again; made root-only (0600): a warning.
#   devnode-guest.sh BUILDDIR
. "$(dirname "$0")/../lib.sh"
fabtuned="$1/src/daemon/fabtuned" ctl="$1/src/client/fabtunectl"
tmp=$(mktemp -d)
cat > "$tmp/policy.yaml" <<EOP
version: 1
rails: {expect_count: 1}
checks: {interval: 1h, counters: {sticky_window: 0s}}
tuning: {mode: off}
probes: {enabled: false}
EOP
sock="$tmp/run/fabtuned.sock"
"$fabtuned" -c "$tmp/policy.yaml" --state-dir "$tmp/state" --runtime-dir "$tmp/run" \
    --log-target stderr 2> "$tmp/log" & dpid=$!
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
for _ in $(seq 100); do "$ctl" -s "$sock" health > /dev/null 2>&1; [ $? -ne 2 ] && break; sleep 0.1; done
devnode() {
    "$ctl" -s "$sock" reload > /dev/null
    "$ctl" -s "$sock" --json checks |
        jq -r '.[] | select(.check == "nic.devnode" and .rail == "rxe0/1") | "\(.severity) \(.actual) \(.message)"'
}
node=""
for u in /sys/class/infiniband_verbs/uverbs*; do
    [ "$(cat "$u/ibdev" 2>/dev/null)" = rxe0 ] && node=${u##*/}
done
echo "rxe0's node: $node ($(cat "/sys/class/infiniband_verbs/$node/dev" 2>/dev/null));" \
     "$(ls -l "/dev/infiniband/$node" 2>&1)"
[ -n "$node" ] && pass "sysfs lists rxe0's uverbs node" || fail "no uverbs node for rxe0"
devnode > "$tmp/f0"; cat "$tmp/f0"
mode=$(stat -c %a "/dev/infiniband/$node")
if [ "$mode" = 666 ]; then expect_match "^ok $node" "$tmp/f0"
else expect_match "^warning $node.*not read-write for all users" "$tmp/f0"   # no udev rules here
fi
mv "/dev/infiniband/$node" "$tmp/node"
devnode > "$tmp/f1"; cat "$tmp/f1"
expect_match "^error $node.*/dev/infiniband/$node is missing" "$tmp/f1"
mv "$tmp/node" "/dev/infiniband/$node"
chmod 666 "/dev/infiniband/$node"
devnode > "$tmp/f2"; cat "$tmp/f2"
expect_match "^\(ok\|warning\) $node" "$tmp/f2"
grep -q "is missing" "$tmp/f2" && fail "still missing" || pass "the finding cleared"
chmod 600 "/dev/infiniband/$node"
devnode > "$tmp/f3"; cat "$tmp/f3"
expect_match "^warning $node.*$node is not read-write for all users (root only)" "$tmp/f3"
chmod "$mode" "/dev/infiniband/$node"
kill -TERM "$dpid"; wait "$dpid"
rm -rf "$tmp"
finish
