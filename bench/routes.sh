#!/bin/sh
# SPDX-License-Identifier: ISC
# root: what the routes source adds to a check pass on a node of 8 rails probing 64 peers,
# in a private network namespace: rails r1-r8 (10.8.0.1-8/16) on one bridge, a peer
# namespace holding the 64 peer addresses (10.8.1.1-64) on one veth, every rail having
# talked to every peer once (8 x 64 neighbour entries). bench/routes_source times
# source_routes_fill() live: the peers resolved, and per rail the link, address, rule, route
# and neighbour dumps and 2 x (64 peers) route lookups.
#   bench/routes.sh BUILDDIR [RUNS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:-$top/build}" && pwd)
runs=${2:-21}
if [ -z "${FABTUNE_IN_NETNS:-}" ]; then
    FABTUNE_IN_NETNS=1 exec unshare -n -m --propagation private sh "$0" "$builddir" "$runs"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
inc="-I$builddir -I$top/src/shared -I$top/src/snapshot -I$top/src/daemon/model -I$top/src/daemon/sources"
# shellcheck disable=SC2086
cc -O2 $inc $(pkg-config --cflags libnl-3.0) -o "$work/routes_source" "$top/bench/routes_source.c" \
    "$builddir/src/daemon/libfabtuned.a" "$builddir/src/snapshot/libsnapshot.a" \
    "$builddir/src/shared/libshared.a" $(pkg-config --libs libnl-route-3.0 libnl-3.0 yaml-0.1 \
    json-c libsystemd libarchive) -libverbs -lrdmacm -lpthread
mkdir -p /run/netns && mount -t tmpfs tmpfs /run/netns
ip netns add fabtune-bench-peer
P="ip netns exec fabtune-bench-peer"
ip link set lo up
ip link add br0 type bridge && ip link set br0 up
for i in $(seq 8); do
    ip link add "r$i" type veth peer name "pr$i"
    ip link set "pr$i" master br0 up
    ip addr add "10.8.0.$i/16" dev "r$i" && ip link set "r$i" up
done
ip link add peer type veth peer name ppeer
ip link set peer netns fabtune-bench-peer
ip link set ppeer master br0 up
$P ip link set peer up
for j in $(seq 64); do $P ip addr add "10.8.1.$j/16" dev peer; done
sleep 1
for i in $(seq 8); do for j in $(seq 64); do
    "$builddir/tests/udp_send" "10.8.0.$i" "10.8.1.$j" "r$i"
done; done
sleep 1
hosts=$(seq -s, -f '10.8.1.%g' 64)
printf 'version: 1\nprobes:\n  peers: {hosts: [%s], k: 64}\n' "$hosts" > "$work/policy"
printf 'version: 1\n' > "$work/none"
"$work/routes_source" "$work/policy" 8 "$runs"
"$work/routes_source" "$work/none" 8 "$runs"
"$work/routes_source" "$work/policy" 1 "$runs"
