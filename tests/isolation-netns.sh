#!/bin/sh
# SPDX-License-Identifier: ISC
# root: route.isolation on the real kernel (issue 29, item 3): where each rail's peer-probe
# bytes really go. tests/routes-topology.sh's fabric (node A here with rails a1-a3 in one
# /24, peer B in a namespace with b1-b3 on the same bridge); B runs fabtuned, whose
# responder answers A's probes and reports its netdevs' counters (the links answer); A
# runs "fabtuned --once" with peer probes on its fake rxe rails (sysfs bind-mounted over
# /sys; no RDMA device, so the RDMA probe fails and the TCP probe carries the figures).
#  - stock node: rails 2 and 3's probe bytes leave by a1 (the first route of the subnet),
#    as "ip route get" says: route.isolation error, with a1's and the rail's counts;
#  - the printed fix on both nodes (routes-netns.sh applies the same): every path's bytes
#    leave and arrive on its own rails, both ways, with byte counts at least the probe's
#    payload;
#  - a fluxed neighbour entry (A's a2 holding b1's MAC for B's 10.9.0.102, the state ARP
#    flux leaves; tests/routes-netns.sh reproduces the flux itself): the bytes arrive on
#    B's b1, not b2, and the finding says so with B's counts.
# Every figure here is the netdevs' ("counter": "netdev"): veth and the fake rxe rails have
# no RDMA port data counters (tests/check_isolation holds the port-data cases).
. "${top_srcdir:-.}/tests/lib.sh"
if [ -z "${FABTUNE_IN_NETNS:-}" ]; then
    unshare -n -m --propagation private true 2>/dev/null || { echo "SKIP: cannot unshare"; exit 77; }
    FABTUNE_IN_NETNS=1 exec unshare -n -m --propagation private sh "$0"
fi
fabtuned="$top_builddir/src/daemon/fabtuned"
tmp=$(mktemp -d)
bpid=
trap 'kill $bpid 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/routes-topology.sh"
. "$top_srcdir/tests/fixtures/sysfs-lib.sh"
mount -t sysfs sysfs /sys
routes_topology fabtune-isolation-b
B="ip netns exec fabtune-isolation-b"
fx="$tmp/sys"
routes_rails_fixture "$fx"
bmac() { $B cat "/sys/class/net/$1/address"; }
port=18517

# Node B: a daemon whose responder serves A's three rails.
cat > "$tmp/b.yaml" <<EOP
version: 1
rails: {expect_count: 0}
checks: {interval: 1h}
tuning: {mode: off}
probes:
  interval: 24h
  peers: {hosts: [10.9.0.1, 10.9.0.2, 10.9.0.3], port: $port}
EOP
$B "$fabtuned" -c "$tmp/b.yaml" --state-dir "$tmp/bstate" --runtime-dir "$tmp/brun" \
    --log-target stderr 2> "$tmp/b.log" & bpid=$!
for _ in $(seq 100); do $B ss -ltn 2>/dev/null | grep -q ":$port " && break; sleep 0.1; done
$B ss -ltn | grep -q ":$port " && pass "B's responder listens" || { fail "B's responder"; cat "$tmp/b.log"; }

cat > "$tmp/a.yaml" <<EOP
version: 1
tuning: {mode: off}
probes:
  tcp: {iterations: 200, size: 256, bandwidth: {duration: 50ms}}
  peers: {hosts: [10.9.0.101, 10.9.0.102, 10.9.0.103], k: 3, port: $port}
EOP
# probe: fabtuned --once with probes on the fake /sys; route.isolation as "rail peer severity"
probe() {
    mount --bind "$fx" /sys
    "$fabtuned" --once --json -c "$tmp/a.yaml" --state-dir "$tmp/astate" --log-target stderr \
        > "$tmp/report.json" 2> "$tmp/err"
    umount /sys
    [ -s "$tmp/report.json" ] || { fail "fabtuned --once wrote no report"; cat "$tmp/err"; }
    jq -r '.findings[] | select(.check == "route.isolation") | "\(.rail) \(.subject) \(.severity)"' \
        "$tmp/report.json" > "$tmp/f"
    jq -r '.findings[] | select(.check == "route.isolation") | "\(.rail) \(.subject) \(.severity): \(.message)"' \
        "$tmp/report.json"
}
# side RAIL PEER TRANSPORT SIDE: "netdev bytes other_netdev other_bytes verdict"
side() {
    jq -r --arg r "$1" --arg p "$2" --arg t "$3" --arg s "$4" '.probes.peers[] |
        select(.rail == $r and .peer == $p) | .isolation[$t][$s] |
        "\(.netdev) \(.bytes) \(.other_netdev) \(.other_bytes) \(.verdict)"' "$tmp/report.json"
}
payload() {
    jq -r --arg r "$1" --arg p "$2" --arg t "$3" '.probes.peers[] | select(.rail == $r and .peer == $p) |
        .isolation[$t] | "\(.out_bytes) \(.back_bytes)"' "$tmp/report.json"
}

# ---- the stock node ---------------------------------------------------------------------
probe
for i in 2 3; do
    ip route get "10.9.0.10$i" from "10.9.0.$i" > "$tmp/rg"
    expect_grep "dev a1 " "$tmp/rg"
    r="rxe$((i - 1))/1" p="10.9.0.10$i"
    expect_match "^$r $p error\$" "$tmp/f"
    side "$r" "$p" tcp sent > "$tmp/s"
    read -r nd bytes other obytes verdict < "$tmp/s"
    set -- $(payload "$r" "$p" tcp)
    [ "$nd $other $verdict" = "a$i a1 elsewhere" ] && [ "$obytes" -ge "$1" ] && [ "$1" -gt 0 ] &&
        pass "stock: $r's TCP probe to $p left by a1 ($obytes B, payload $1 B), not a$i ($bytes B)" ||
        fail "stock: $r to $p: sent $(cat "$tmp/s"), payload $*"
    jq -r --arg r "$r" --arg p "$p" '.findings[] | select(.check == "route.isolation" and .rail == $r and
        .subject == $p) | .message' "$tmp/report.json" > "$tmp/m"
    expect_grep "left by a1 (+$obytes B), not a$i (+$bytes B)" "$tmp/m"
done
grep -c . "$tmp/f" > "$tmp/n"; expect_grep 9 "$tmp/n"

# ---- the fix, on both nodes, as routes-netns.sh applies it --------------------------------
for ns in "" "$B"; do
    $ns sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2
done
for i in 1 2 3; do
    sysctl -qw "net.ipv4.conf.a$i.rp_filter=2"
    ip rule add from "10.9.0.$i" table "10$i"
    ip route add 10.9.0.0/24 dev "a$i" table "10$i"
    $B sysctl -qw "net.ipv4.conf.b$i.rp_filter=2"
    $B ip rule add from "10.9.0.10$i" table "10$i"
    $B ip route add 10.9.0.0/24 dev "b$i" table "10$i"
done
ip neigh flush all; $B ip neigh flush all
probe
expect_rc 1 grep -v " ok\$" "$tmp/f"
grep -c " ok\$" "$tmp/f" > "$tmp/n"; expect_grep 9 "$tmp/n"
for i in 1 2 3; do
    r="rxe$((i - 1))/1" p="10.9.0.10$i"
    set -- $(payload "$r" "$p" tcp)
    out=$1 back=$2
    for s in sent:a received:a peer_sent:b peer_received:b; do
        side "$r" "$p" tcp "${s%%:*}" > "$tmp/s"
        read -r nd bytes other obytes verdict < "$tmp/s"
        case ${s%%:*} in sent|peer_received) want=$out ;; *) want=$back ;; esac
        [ "$nd $verdict" = "${s#*:}$i right" ] && [ "$bytes" -ge "$want" ] && [ "$want" -gt 0 ] &&
            pass "fixed: $r to $p, ${s%%:*}: ${s#*:}$i counted $bytes B of a $want B payload (busiest other: $other $obytes B)" ||
            fail "fixed: $r to $p, ${s%%:*}: $(cat "$tmp/s"), payload $want"
    done
done

# Neither node has an RDMA port with data counters (A's fake rxe rails have none, B none at
# all; veth counts every byte on the netdev): every figure is the netdevs' counters.
jq -r '[.probes.peers[].isolation | (.rdma, .tcp) | objects | .[] | objects |
    (.counter, .other_counter) | strings] | "\(length) \(unique | join(","))"' "$tmp/report.json" > "$tmp/c"
read -r n counters < "$tmp/c"
[ "$n" -ge 24 ] && [ "$counters" = netdev ] &&
    pass "fixed: all $n figures counted by the netdevs (counter \"netdev\": no port data on veth or rxe)" ||
    fail "fixed: counters $(cat "$tmp/c")"

# ---- a fluxed neighbour entry -------------------------------------------------------------
b1mac=$(bmac b1)
ip neigh replace 10.9.0.102 lladdr "$b1mac" dev a2 nud permanent
probe
expect_match "^rxe1/1 10.9.0.102 error\$" "$tmp/f"
side rxe1/1 10.9.0.102 tcp peer_received > "$tmp/s"
read -r nd bytes other obytes verdict < "$tmp/s"
set -- $(payload rxe1/1 10.9.0.102 tcp)
[ "$nd $other $verdict" = "b2 b1 elsewhere" ] && [ "$obytes" -ge "$1" ] &&
    pass "flux: rxe1/1's bytes for 10.9.0.102 arrived on B's b1 ($obytes B), not b2 ($bytes B)" ||
    fail "flux: peer_received $(cat "$tmp/s"), payload $*"
jq -r '.findings[] | select(.check == "route.isolation" and .rail == "rxe1/1" and
    .subject == "10.9.0.102") | .message' "$tmp/report.json" > "$tmp/m"
expect_grep "arrived on the peer's b1 (+$obytes B), not b2 (+$bytes B)" "$tmp/m"
expect_match "^rxe0/1 10.9.0.101 ok\$" "$tmp/f"
expect_match "^rxe2/1 10.9.0.103 ok\$" "$tmp/f"
kill "$bpid"; wait "$bpid" 2>/dev/null; bpid=
finish
