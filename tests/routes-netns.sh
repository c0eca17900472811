#!/bin/sh
# SPDX-License-Identifier: ISC
# root: where a multi-rail node's packets really go, on the real kernel (issue 29). In a
# private network and mount namespace, tests/routes-topology.sh's fabric: node A (here)
# with rails a1-a3 in one /24, peer B (a second namespace) with b1-b3 on the same bridge,
# stock sysctls and RHEL's rp_filter=1. Each fault is reproduced for real, with the
# kernel's own evidence (B's neighbour table, "ip route get", IPReversePathFilter in
# /proc/net/netstat), and "fabtuned --once" must name it; then the printed fix is applied
# (the sysctls and the "ip rule" / "ip route" lines, taken from the findings' hints) and
# every route.* finding clears, each rail's packets leaving by its own veth.
# fabtuned runs live: the namespace's /sys is a tree of three Soft-RoCE rails (rxe0-2 on
# a1-a3, GIDs 10.9.0.1-3) bind-mounted over /sys, so sysroot is "/sys" and rtnetlink,
# the route lookups and /proc/sys/net are the namespace's own.
. "${top_srcdir:-.}/tests/lib.sh"
if [ -z "${FABTUNE_IN_NETNS:-}" ]; then
    unshare -n -m --propagation private true 2>/dev/null || { echo "SKIP: cannot unshare"; exit 77; }
    FABTUNE_IN_NETNS=1 exec unshare -n -m --propagation private sh "$0"
fi
fabtuned="$top_builddir/src/daemon/fabtuned"
send="$top_builddir/tests/udp_send"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/routes-topology.sh"
. "$top_srcdir/tests/fixtures/sysfs-lib.sh"
mount -t sysfs sysfs /sys
routes_topology fabtune-routes-b
B="ip netns exec fabtune-routes-b"
mac() { cat "/sys/class/net/$1/address"; }
bmac() { $B cat "/sys/class/net/$1/address"; }
for i in 1 2 3; do eval "a${i}mac=$(mac "a$i")"; eval "b${i}mac=$(bmac "b$i")"; done
rpf() { awk '/^TcpExt:/ { if (!h) { split($0, n); h = 1 } else for (i = 2; i <= NF; i++)
        if (n[i] == "IPReversePathFilter") print $i }' /proc/net/netstat; }
egress_packets() { cat "/sys/class/net/$1/statistics/tx_packets"; }
neigh_mac() { $B ip neigh show "$1" | awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print $(i + 1) }' | head -1; }

fx="$tmp/sys"
routes_rails_fixture "$fx"
cat > "$tmp/policy" <<EOP
version: 1
tuning: {mode: off}
probes:
  peers: {hosts: [10.9.0.101, 10.9.0.102, 10.9.0.103], k: 3}
EOP
judge() {   # fabtuned --once on the fake /sys; the route.* findings as "check rail severity"
    mount --bind "$fx" /sys
    "$fabtuned" --once --json --no-probes -c "$tmp/policy" --state-dir "$tmp/state" \
        --log-target stderr > "$tmp/report.json" 2> "$tmp/err"
    umount /sys
    [ -s "$tmp/report.json" ] || { fail "fabtuned --once wrote no report"; cat "$tmp/err"; }
    jq -r '.findings[] | select(.check | startswith("route.")) | "\(.check) \(.rail) \(.severity)"' \
        "$tmp/report.json" > "$tmp/f"
}
finding() { jq -r --arg c "$1" --arg r "$2" '.findings[] | select(.check == $c and .rail == $r) |
            "\(.severity): \(.message) | \(.hint)"' "$tmp/report.json"; }

# ---- the stock node: each fault, for real ---------------------------------------------
# Wrong egress: "ip route get" from rail 2's and 3's addresses leaves by a1.
for i in 2 3; do
    ip route get "10.9.0.10$i" from "10.9.0.$i" > "$tmp/rg"
    expect_grep "dev a1 " "$tmp/rg"
done
before=$(egress_packets a1)
for i in 1 2 3; do "$send" "10.9.0.$i" "10.9.0.10$i" "" 3; done
[ $(( $(egress_packets a1) - before )) -ge 9 ] && pass "A's sends from all three rails left by a1" ||
    fail "a1 sent $(( $(egress_packets a1) - before )) packets, wanted >= 9"
# ARP flux: B learnt rail 1's MAC for rail 2's and rail 3's addresses (a1 asked from them).
for i in 2 3; do
    [ "$(neigh_mac "10.9.0.$i")" = "$a1mac" ] && pass "B holds a1's MAC for 10.9.0.$i (flux)" ||
        fail "B holds '$(neigh_mac "10.9.0.$i")' for 10.9.0.$i, wanted a1's $a1mac"
done
# B's own flux, seen from A: B asks from .101 and .102 through b1, so A's a1 holds b1's
# MAC for both.
$B "$send" 10.9.0.101 10.9.0.1
$B "$send" 10.9.0.102 10.9.0.1
sleep 0.5
n=$(ip neigh show dev a1 | grep -c "lladdr $b1mac")
[ "$n" -ge 2 ] && pass "A's a1 holds b1's MAC for $n of B's addresses" || fail "a1 holds b1's MAC $n times"
# rp_filter: what B sends to a3's MAC (as a non-fluxing node would resolve it) is dropped
# by strict reverse-path filtering, since the route back to B leaves by a1.
$B ip neigh replace 10.9.0.3 lladdr "$a3mac" dev b3
r0=$(rpf)
$B "$send" 10.9.0.103 10.9.0.3 b3 5
sleep 0.2
[ $(( $(rpf) - r0 )) -ge 5 ] && pass "IPReversePathFilter counted $(( $(rpf) - r0 )) drops on a3" ||
    fail "IPReversePathFilter went from $r0 to $(rpf)"
ip rule > "$tmp/rules"
expect_rc 1 grep -q "from 10.9.0.2" "$tmp/rules"

judge
# The findings in full, for the log (the issue's note quotes them beside the kernel's evidence).
jq -r '.findings[] | select(.check | startswith("route.")) | select(.severity != "ok") |
       "\(.check) \(.rail): \(.message)\n    fix: \(.hint)"' "$tmp/report.json"
ip route get 10.9.0.102 from 10.9.0.2; $B ip neigh show
echo "IPReversePathFilter: $(rpf)"
for r in rxe0/1 rxe1/1 rxe2/1; do
    for c in route.arp route.rp_filter route.subnets; do expect_match "^$c $r error\$" "$tmp/f"; done
done
for r in rxe1/1 rxe2/1; do expect_match "^route.egress $r error\$" "$tmp/f"; done
finding route.egress rxe1/1 > "$tmp/m"; expect_grep "leave by a1, not a2" "$tmp/m"
finding route.neighbor rxe0/1 > "$tmp/m"; expect_grep "both resolve to $b1mac" "$tmp/m"
finding route.subnets rxe2/1 > "$tmp/m"
expect_grep "ip rule add from 10.9.0.3 table 102; ip route add 10.9.0.0/24 dev a3 table 102" "$tmp/m"

# The same node as a snapshot judges it: fabtunectl snapshot keeps the routing
# conversation (lookups to every neighbour's address) and the conf sysctls; fabtuned
# analyses it offline with the same findings.
mount --bind "$fx" /sys
"$top_builddir/src/client/fabtunectl" snapshot "$tmp/snap.tar" > /dev/null
umount /sys
tar -tf "$tmp/snap.tar" > "$tmp/entries"
expect_grep "fabtune/net/a2/routes" "$tmp/entries"
expect_grep "proc/sys/net/ipv4/conf/a2/rp_filter" "$tmp/entries"
"$fabtuned" --once --json --snapshot "$tmp/snap.tar" --log-target stderr > "$tmp/snap.json" 2> "$tmp/err"
jq -r '.findings[] | select(.check | startswith("route.")) | "\(.check) \(.rail) \(.severity)"' \
    "$tmp/snap.json" > "$tmp/sf"
expect_match '^route.egress rxe1/1 error$' "$tmp/sf"
expect_match '^route.egress rxe2/1 error$' "$tmp/sf"
expect_match '^route.arp rxe1/1 error$' "$tmp/sf"
expect_match '^route.rp_filter rxe2/1 error$' "$tmp/sf"
expect_match '^route.subnets rxe0/1 error$' "$tmp/sf"
expect_match '^route.neighbor rxe0/1 error$' "$tmp/sf"

# ---- the fix, as printed ------------------------------------------------------------
jq -r '.findings[] | select(.check | startswith("route.")) | .hint // empty' "$tmp/report.json" > "$tmp/hints"
grep -o 'net\.ipv4\.conf\.a[0-9]\.[a-z_]*=[0-9]' "$tmp/hints" | sort -u > "$tmp/sysctls"
grep -o 'ip rule add from [0-9.]* table [0-9]*; ip route add [0-9./]* dev a[0-9] table [0-9]*' \
    "$tmp/hints" | sort -u | tr ';' '\n' > "$tmp/lines"
[ "$(wc -l < "$tmp/sysctls")" -eq 9 ] && pass "9 sysctls printed" || fail "sysctls: $(cat "$tmp/sysctls")"
[ "$(wc -l < "$tmp/lines")" -eq 6 ] && pass "6 rule/route lines printed" || fail "lines: $(cat "$tmp/lines")"
while read -r kv; do sysctl -qw "$kv"; done < "$tmp/sysctls"
while read -r line; do $line || fail "$line"; done < "$tmp/lines"
# B is fixed the way its own fabtuned would print it (route.neighbor's hint names the
# peer's sysctls): its ARP sysctls, and its own rules.
for kv in $(grep -o 'net\.ipv4\.conf\.all\.arp_[a-z]*=[0-9]' "$tmp/hints" | sort -u); do
    $B sysctl -qw "$kv"
done
for i in 1 2 3; do
    $B sysctl -qw "net.ipv4.conf.b$i.rp_filter=2"
    $B ip rule add from "10.9.0.10$i" table "10$i"
    $B ip route add 10.9.0.0/24 dev "b$i" table "10$i"
done
ip neigh flush all; $B ip neigh flush all

# ---- after: every packet by its own rail -------------------------------------------------
for i in 2 3; do
    ip route get "10.9.0.10$i" from "10.9.0.$i" > "$tmp/rg"
    expect_grep "dev a$i " "$tmp/rg"
done
for i in 1 2 3; do
    b0=$(egress_packets "a$i"); o0=$(( $(egress_packets a1) + $(egress_packets a2) + $(egress_packets a3) ))
    "$send" "10.9.0.$i" "10.9.0.10$i" "" 3
    $B "$send" "10.9.0.10$i" "10.9.0.$i" "b$i"
    sleep 0.2
    own=$(( $(egress_packets "a$i") - b0 ))
    all=$(( $(egress_packets a1) + $(egress_packets a2) + $(egress_packets a3) - o0 ))
    # (a stray ARP or IPv6 packet of another rail may fall in the window: one at most)
    [ "$own" -ge 3 ] && [ $((all - own)) -le 1 ] && pass "10.9.0.$i's packets left by a$i ($own of $all)" ||
        fail "10.9.0.$i: a$i sent $own of $all"
done
for i in 1 2 3; do
    eval "want=\$a${i}mac"
    [ "$(neigh_mac "10.9.0.$i")" = "$want" ] && pass "B holds a$i's own MAC for 10.9.0.$i" ||
        fail "B holds '$(neigh_mac "10.9.0.$i")' for 10.9.0.$i, wanted $want"
done
r0=$(rpf)
$B "$send" 10.9.0.103 10.9.0.3 b3 5
sleep 0.2
[ "$(rpf)" -eq "$r0" ] && pass "no reverse-path drop on a3 after the fix" || fail "IPReversePathFilter $r0 -> $(rpf)"

judge
cat "$tmp/f"
expect_rc 1 grep -v " ok\$" "$tmp/f"
[ "$(wc -l < "$tmp/f")" -eq 15 ] && pass "15 route.* findings, all ok" || fail "$(wc -l < "$tmp/f") findings"
# The report carries what two healthy nodes share of each rail's routing.
jq -r '.rails[] | "\(.name) \(.routes.subnet) \(.routes.arp_ignore) \(.routes.arp_announce) \(.routes.rp_filter) \(.routes.source_routed) \(.routes.source_table)"' \
    "$tmp/report.json" > "$tmp/rr"
expect_match '^rxe0/1 10.9.0.0/24 1 2 2 true 100$' "$tmp/rr"
expect_match '^rxe2/1 10.9.0.0/24 1 2 2 true 102$' "$tmp/rr"

# fabtunectl diff, the node before the fix against the node after: the interface sysctls
# and the source routing, each under the check that judges it.
mount --bind "$fx" /sys
"$top_builddir/src/client/fabtunectl" snapshot "$tmp/snap-fixed.tar" > /dev/null
umount /sys
FABTUNED=$fabtuned; export FABTUNED
expect_rc 1 "$top_builddir/src/client/fabtunectl" -c "$tmp/policy" --json \
    diff "$tmp/snap.tar" "$tmp/snap-fixed.tar"
jq -r '.differences[] | "\(.check) \(.subject) \(.field) \(.a|tojson) \(.b|tojson)"' "$LAST_OUT" > "$tmp/rows"
cat "$tmp/rows"
expect_match '^route.arp rxe1/1 routes.arp_ignore 0 1$' "$tmp/rows"
expect_match '^route.arp rxe1/1 routes.arp_announce 0 2$' "$tmp/rows"
expect_match '^route.rp_filter rxe2/1 routes.rp_filter 1 2$' "$tmp/rows"
expect_match '^route.subnets rxe0/1 routes.source_routed false true$' "$tmp/rows"
expect_rc 1 grep -q 'routes.subnet ' "$tmp/rows"
# The same node twice: the same.
expect_rc 0 "$top_builddir/src/client/fabtunectl" -c "$tmp/policy" \
    diff "$tmp/snap-fixed.tar" "$tmp/snap-fixed.tar"
finish
