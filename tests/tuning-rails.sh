#!/bin/sh
# SPDX-License-Identifier: ISC
# Per-rail sysctl keys on the real kernel, in a private network and mount namespace: three
# veth rails (rxe0..2 over r0..r2, in one subnet) whose netdev directories in the daemon's
# sysfs tree are the live veths' (as live_veth_rail does for one). The built-in profile's
# @multirail trio (conf/fabtune.yaml) and an @rail key are expanded for each rail: verify
# writes nothing, 'fabtunectl apply' writes /proc/sys/net/ipv4/conf/rN/*, a value another
# writer changes is seen as drift, revert restores every original. On a one-rail node the
# @multirail keys name nothing and are never written; the @rail key is. The host's own
# conf/all values are read before and after.
. "${top_srcdir:-.}/tests/lib.sh"
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
keys="arp_ignore arp_announce rp_filter accept_local"
host_values() { for k in $keys; do echo "$k=$(cat /proc/sys/net/ipv4/conf/all/$k)"; done; }

if [ -z "${FABTUNE_IN_NS:-}" ]; then
    host_values > "$_scratch/host-before"
    FABTUNE_IN_NS=1 unshare -n -m --propagation private sh "$0"; rc=$?
    host_values > "$_scratch/host-after"
    if cmp -s "$_scratch/host-before" "$_scratch/host-after"; then echo "ok: the host's values are untouched"
    else echo "FAIL: the host's values changed"; diff "$_scratch/host-before" "$_scratch/host-after"; rc=1; fi
    exit $rc
fi

. "$top_srcdir/tests/fixtures/sysfs-lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mount -t sysfs sysfs /sys
ip link set lo up

# Rails r0..r2 with stock sysctls (this netns inherits the host's conf/default: set them).
for n in 0 1 2; do
    ip link add "r$n" type veth peer name "p$n"
    ip addr add "192.0.2.$((n + 1))/24" dev "r$n"
    ip link set "r$n" up; ip link set "p$n" up
    c=/proc/sys/net/ipv4/conf/r$n
    echo 0 > "$c/arp_ignore"; echo 0 > "$c/arp_announce"; echo 1 > "$c/rp_filter"
    echo 0 > "$c/accept_local"
done
values() { for n in 0 1 2; do for k in $keys; do echo "r$n.$k=$(cat /proc/sys/net/ipv4/conf/r$n/$k)"; done; done; }
values > "$tmp/originals"

# tree ROOT N: a sysfs tree of N Soft-RoCE rails, rxeI over the live rI (sysfs-lib.sh's
# layout of rxe under Linux 6.1, as the soft_roce fixture).
tree() {
    # (sysfs-lib.sh's functions use $i, $p and $d: the loop has a name of its own.)
    for rn in $(seq 0 $(($2 - 1))); do
        virt_ib_dev "$1" "rxe$rn" "r$rn" "68d1:22ff:fe6b:a4$(printf %02x "$rn")"
        ib_port "$1" "rxe$rn" 1 Ethernet "4: ACTIVE" "5: LinkUp" "10 Gb/sec (1X FDR10)" 16 no
        gid "$1" "rxe$rn" 1 1 "$(v4gid "192.0.2.$((rn + 1))")" "RoCE v2" "r$rn"
        mkdir -p "$1/devices/virtual/net" "$1/class/net"
        ln -s "/sys/devices/virtual/net/r$rn" "$1/devices/virtual/net/r$rn"
        ln -s "../../devices/virtual/net/r$rn" "$1/class/net/r$rn"
    done
}

# The built-in profile's per-rail keys, and one @rail key, under verify.
{
    printf 'version: 1\ntuning:\n  mode: verify\n  sysctl:\n'
    grep '^    net\.ipv4\.conf\.@multirail\.' "$top_srcdir/conf/fabtune.yaml"
    printf '    net.ipv4.conf.@rail.accept_local: 1\n'
    printf 'probes: {enabled: false}\nchecks: {interval: 1h}\n'
} > "$tmp/policy"
[ "$(grep -c @multirail "$tmp/policy")" = 3 ] && pass "the built-in profile has the @multirail trio" ||
    fail "the built-in profile's @multirail keys: $(grep @multirail "$tmp/policy")"

# start ROOT NAME: the daemon on a tree, its socket in $sock once its first check is done.
start() {
    mkdir -m 0700 "$tmp/$2-state" "$tmp/$2-run"
    "$fabtuned" -c "$tmp/policy" --sysfs-root "$1" --state-dir "$tmp/$2-state" \
        --runtime-dir "$tmp/$2-run" --log-target stderr 2> "$tmp/$2.log" & dpid=$!
    sock="$tmp/$2-run/fabtuned.sock"
    for _ in $(seq 1200); do   # 60 s: a loaded machine
        "$ctl" -s "$sock" --json tuning > "$tmp/t" 2>/dev/null && jq -e 'length > 0' "$tmp/t" > /dev/null 2>&1 && return
        sleep 0.05
    done
    fail "the daemon on $1 reported no tuning state"; cat "$tmp/$2.log"
}
# state KEY: "STATE LIVE ORIGINAL" of one key in the daemon's tuning reply.
state() {
    "$ctl" -s "$sock" --json tuning > "$tmp/t" 2>/dev/null
    jq -r --arg k "$1" '.[] | select(.key == $k) | "\(.state) \(.live) \(.original)"' "$tmp/t"
}

# Three rails: verify reads each rail's keys and writes nothing.
tree "$tmp/three" 3
start "$tmp/three" three
jq -r '.[].key' "$tmp/t" | sort > "$tmp/k"
for n in 0 1 2; do for k in $keys; do echo "net.ipv4.conf.r$n.$k"; done; done | sort > "$tmp/want"
expect_same "$tmp/want" "$tmp/k"
state net.ipv4.conf.r1.rp_filter > "$tmp/s"; expect_match '^drift 1 null$' "$tmp/s"
values > "$tmp/now"; expect_same "$tmp/originals" "$tmp/now"

# apply: every rail's keys written, originals kept.
expect_rc 0 "$ctl" -s "$sock" apply
for n in 0 1 2; do
    c=/proc/sys/net/ipv4/conf/r$n
    got="$(cat "$c/arp_ignore") $(cat "$c/arp_announce") $(cat "$c/rp_filter") $(cat "$c/accept_local")"
    [ "$got" = "1 2 2 1" ] && pass "r$n: arp_ignore 1, arp_announce 2, rp_filter 2, accept_local 1" ||
        fail "r$n: arp_ignore arp_announce rp_filter accept_local are $got, wanted 1 2 2 1"
done
jq -r '.originals."net.ipv4.conf.r2.rp_filter"' "$tmp/three-state/sysctl-originals.json" > "$tmp/o"
expect_match '^1$' "$tmp/o"

# Drift: another writer puts r1's arp_ignore back to 0; the next check names it.
echo 0 > /proc/sys/net/ipv4/conf/r1/arp_ignore
expect_rc_in "0 1" "$ctl" -s "$sock" reload
state net.ipv4.conf.r1.arp_ignore > "$tmp/s"; expect_match '^drift 0 0$' "$tmp/s"
state net.ipv4.conf.r0.arp_ignore > "$tmp/s"; expect_match '^applied 1 0$' "$tmp/s"
"$ctl" -s "$sock" --json checks > "$tmp/c" 2>/dev/null
jq -r '.. | objects | select(.check? == "tuning.drift" and .severity? == "warning") | .subject' \
    "$tmp/c" > "$tmp/d"
expect_grep net.ipv4.conf.r1.arp_ignore "$tmp/d"

# Revert: every original back, the snapshot gone.
expect_rc 0 "$ctl" -s "$sock" revert
values > "$tmp/now"; expect_same "$tmp/originals" "$tmp/now"
[ ! -e "$tmp/three-state/sysctl-originals.json" ] && pass "snapshot removed" || fail "snapshot left behind"
kill "$dpid"; wait "$dpid" 2>/dev/null

# One rail: @rail applies to r0; @multirail names no key, and r0's ARP and rp_filter stay.
tree "$tmp/one" 1
start "$tmp/one" one
jq -r '.[].key' "$tmp/t" > "$tmp/k"
echo net.ipv4.conf.r0.accept_local > "$tmp/want"
expect_same "$tmp/want" "$tmp/k"
expect_rc 0 "$ctl" -s "$sock" apply
c=/proc/sys/net/ipv4/conf/r0
got="$(cat "$c/arp_ignore") $(cat "$c/arp_announce") $(cat "$c/rp_filter") $(cat "$c/accept_local")"
[ "$got" = "0 0 1 1" ] && pass "one rail: accept_local 1, arp_ignore/arp_announce/rp_filter untouched" ||
    fail "one rail: arp_ignore arp_announce rp_filter accept_local are $got, wanted 0 0 1 1"
expect_rc 0 "$ctl" -s "$sock" revert
values > "$tmp/now"; expect_same "$tmp/originals" "$tmp/now"
kill "$dpid"; wait "$dpid" 2>/dev/null
finish
