#!/bin/sh
# SPDX-License-Identifier: ISC
# In-guest test: fabtuned --once --json on the live rxe0 (verbs, RDMA netlink, rtnetlink),
# cross-checked in the same run against 'rdma link' and sysfs; then with the veth peer
# down, the rail must be NOT_READY through port.state.
#   fabtuned-once.sh BUILDDIR RAIL_NETDEV PEER IPV4
. "$(dirname "$0")/../lib.sh"
builddir=$1 netdev=$2 peer=$3 addr=$4
fabtuned="$builddir/src/daemon/fabtuned"
policy="$(dirname "$0")/../rails-only.policy"
tmp=$(mktemp -d)
sysgid=/sys/class/infiniband/rxe0/ports/1
# The counter state of these runs (carrier history, last counter sample) is this test's own.
# The live runs carry it from run to run with --apply (a plain --once only reads; tuning is
# off in the policy, so it writes nothing else).
fabtuned="$fabtuned --state-dir $tmp/state"
mkdir "$tmp/state"

expect_rc 0 $fabtuned --once --apply --json --no-probes -c "$policy"
cp "$LAST_OUT" "$tmp/up.json"
jq -c '.rails[0] | {name, link_layer, state, gid_index, roce_address, verdict}' "$tmp/up.json" > "$tmp/rail"
cat "$tmp/rail"
expect_grep '"name":"rxe0/1","link_layer":"Ethernet","state":"ACTIVE"' "$tmp/rail"
expect_match "\"roce_address\":\"$addr\",\"verdict\":\"READY\"" "$tmp/rail"
jq -r .inventory "$tmp/up.json" > "$tmp/src"; expect_match '^live$' "$tmp/src"
# The real DCB netlink request on rxe0's veth gets the kernel's EOPNOTSUPP: every qos.*
# check is unknown with that reason, none an error; ethtool has no pause parameters.
# rxe's hw_counters were read: the loss class exists, and a first sample has no rate yet.
# (One jq for all: under TCG each start of jq costs a second or more.)
jq -r '.findings[] | select((.check | startswith("qos.")) or .check == "counters.loss") |
       "\(.check) \(.severity) \(.message)"' "$tmp/up.json" > "$tmp/qos"
cat "$tmp/qos"
expect_match '^qos.pfc unknown .*dcbnl_ops' "$tmp/qos"
expect_match '^qos.global_pause unknown .*no pause parameters' "$tmp/qos"
grep '^qos\.' "$tmp/qos" | grep -v '^qos\.[a-z_]* unknown ' > "$tmp/qosbad"
[ ! -s "$tmp/qosbad" ] && pass "no qos.* finding other than unknown" || fail "qos: $(cat "$tmp/qosbad")"
cp "$tmp/qos" "$tmp/loss"
expect_match '^counters.loss unknown first sample' "$tmp/loss"
# Every live source answered and agreed with sysfs: no notes.
jq -r '.notes | length' "$tmp/up.json" > "$tmp/notes"; expect_match '^0$' "$tmp/notes"

# The index fabtune chose holds that address in sysfs, as a RoCE v2 GID on the netdev.
idx=$(jq -r '.rails[0].gid_index' "$tmp/up.json")
v4hex=$(echo "$addr" | awk -F. '{ printf "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", $1, $2, $3, $4 }')
echo "$(cat "$sysgid/gids/$idx") $(cat "$sysgid/gid_attrs/types/$idx") $(cat "$sysgid/gid_attrs/ndevs/$idx")" > "$tmp/sys"
expect_match "^$v4hex RoCE v2 $netdev\$" "$tmp/sys"
# 'rdma link' agrees on the state and the netdev.
rdma link show rxe0/1 > "$tmp/rdma"
expect_match "state ACTIVE physical_state LINK_UP netdev $netdev" "$tmp/rdma"
jq -r '.rails[0].netdev.name' "$tmp/up.json" > "$tmp/nd"; expect_match "^$netdev\$" "$tmp/nd"
# Verbs supplies what sysfs cannot: the active MTU.
jq -r '.rails[0].active_mtu_bytes' "$tmp/up.json" > "$tmp/mtu"; expect_match '^1024$' "$tmp/mtu"
jq -r '.nccl.NCCL_IB_GID_INDEX' "$tmp/up.json" > "$tmp/nccl"; expect_match "^$idx\$" "$tmp/nccl"

# A snapshot of this node, analysed offline, gives the same rail (but no active MTU:
# that only verbs knows).
"$builddir/src/client/fabtunectl" snapshot "$tmp/snap.tar" > /dev/null
mkdir "$tmp/snap" && tar -C "$tmp/snap" -xf "$tmp/snap.tar"
expect_rc 0 $fabtuned --once --json --no-probes -c "$policy" --sysfs-root "$tmp/snap/sys" \
    --procfs-root "$tmp/snap/proc"
jq -c '.rails[0] | {name, state, gid_index, roce_address, netdev: .netdev.name, gid_table_size}' \
    "$LAST_OUT" > "$tmp/snap.json"
expect_match "{\"name\":\"rxe0/1\",\"state\":\"ACTIVE\",\"gid_index\":$idx,\"roce_address\":\"$addr\",\"netdev\":\"$netdev\",\"gid_table_size\":1024}" "$tmp/snap.json"
jq -r .inventory "$LAST_OUT" > "$tmp/src"; expect_match '^snapshot$' "$tmp/src"
# The snapshot kept v0's DCB and ethtool replies: unpacked by --snapshot and read back,
# it judges QoS as the live run did, each qos.* with the same severity and reason.
expect_rc 0 $fabtuned --once --json --no-probes -c "$policy" --snapshot "$tmp/snap.tar"
jq -r '.findings[] | select(.check | startswith("qos.")) | "\(.check) \(.severity) \(.message)"' \
    "$LAST_OUT" > "$tmp/qos-snap"
grep '^qos\.' "$tmp/qos" > "$tmp/qos-live"
expect_same "$tmp/qos-live" "$tmp/qos-snap"
# Kept for the host (tests/fixtures/soft-roce-guest-snapshot.tar.xz is one such).
[ -n "${FABTUNE_GUEST_OUT:-}" ] && cp "$tmp/snap.tar" "$FABTUNE_GUEST_OUT/soft-roce-snapshot.tar"

ip link set "$peer" down
for _ in $(seq 50); do grep -q DOWN "$sysgid/state" && break; sleep 0.1; done
expect_rc 2 $fabtuned --once --apply --json --no-probes -c "$policy"
jq -c '[.findings[] | select(.severity == "error") | .check]' "$LAST_OUT" > "$tmp/err"
cat "$tmp/err"
expect_grep '"port.state"' "$tmp/err"
jq -r '.rails[0].verdict' "$LAST_OUT" > "$tmp/v"; expect_match '^NOT_READY$' "$tmp/v"
ip link set "$peer" up
for _ in $(seq 50); do grep -q ACTIVE "$sysgid/state" && break; sleep 0.1; done
# The port is ACTIVE again, but the link flapped a moment ago: the link's memory keeps
# the rail DEGRADED (counters.sticky, a warning; exit 1) for the sticky window (30m).
expect_rc 1 $fabtuned --once --apply --json --no-probes -c "$policy"
# Across the three live runs the peer went down and up: the kernel counted two carrier
# changes on the rail's netdev, and the state dir carried the earlier count (the snapshot
# run touched none of it). The loss class now has a rate from rxe's real counters.
jq -r '.findings[] | select(.check == "netdev.flaps" or .check == "counters.loss" or
       .check == "counters.sticky") | "\(.check) \(.severity) \(.actual)"' "$LAST_OUT" > "$tmp/flaps"
jq -r '.findings[] | select(.check == "counters.sticky") | .message' "$LAST_OUT" >> "$tmp/flaps"
jq -r '"\(.verdict) \(.rails[0].verdict)"' "$LAST_OUT" >> "$tmp/flaps"
cat "$tmp/flaps"
expect_match '^netdev.flaps ok 2 in [0-9]*s$' "$tmp/flaps"
expect_match '^counters.loss ok ' "$tmp/flaps"
expect_match '^counters.sticky warning ' "$tmp/flaps"
expect_match 'flapped (.* carrier changes on ' "$tmp/flaps"
expect_match 'DEGRADED until .*(sticky window 30m)' "$tmp/flaps"
expect_match '^DEGRADED DEGRADED$' "$tmp/flaps"

rm -rf "$tmp"
finish
