#!/bin/sh
# SPDX-License-Identifier: ISC
# root: what each rail is plugged into, through the real lldpd (Debian's lldpd 1.0.16,
# issue 31). In a private network and mount namespace ("node"), two rails r0 and r1 are
# veths whose other ends sit in leaf namespaces, each running its own lldpd (its own
# control socket, lldpd -u; tx-interval 1 s), as does the node (-I 'r*'). fabtuned --once
# reads the node's lldpd through rails.neighbors.lldpd_socket, on a fake /sys of two
# Soft-RoCE rails (rxe0 on r0, rxe1 on r1) bind-mounted in a mount namespace of its own,
# so lldpd keeps the real /sys. Asserted on fabtuned's real report:
#   - cabled as planned (rail i on leaf-ri): fabric.neighbor names each rail's real
#     neighbour and port, fabric.cabling is ok under distinct_switches and leaf-r{index};
#   - the daemon: fabtunectl neighbors' table names each rail's leaf and port, its --json
#     equals the report's rails[].neighbors, fabtune_rail_neighbor_info is promtool clean;
#   - fabtunectl snapshot keeps them, and fabtuned reads them back offline;
#   - miscabled: r1 moved to leaf-r0 (its veth's far end in leaf-r0's namespace), so
#     fabric.cabling is an error on both rails (one switch) and names the pattern r1 breaks,
#     while lldpd still holds r1's old neighbour (leaf-r1, until its TTL of 4 s);
#   - the two cables swapped (r0 on leaf-r1, r1 on leaf-r0): each rail breaks the pattern,
#     named with its switch and port; the timeline from the swap to the finding is printed;
#   - no frame size: the real lldpd sends no 802.3 MFS TLV from a veth, fabric.mtu unknown;
#   - two rails on the same switch port (leaf-r0 announcing port id swp1 on both its ports,
#     lldpcli's portidsubtype local): fabric.cabling names both rails and the port;
#   - the node's lldpd stopped: fabric.neighbor unknown, with the fix.
# Each wait for LLDP is bounded (60 s, 15 s for a neighbour to go; it converges in 1-3 s here).
. "${top_srcdir:-.}/tests/lib.sh"
command -v lldpd > /dev/null || { echo "SKIP: lldpd is not installed (scripts/deps-debian.sh)"; exit 77; }
if [ -z "${FABTUNE_IN_NETNS:-}" ]; then
    unshare -n -m --propagation private true 2>/dev/null || { echo "SKIP: cannot unshare"; exit 77; }
    FABTUNE_IN_NETNS=1 exec unshare -n -m --propagation private sh "$0"
fi
fabtuned="$top_builddir/src/daemon/fabtuned"
capture="$top_builddir/tests/lldp_capture"
tmp=$(mktemp -d)
chmod 755 "$tmp"            # lldpd's unprivileged side reaches its socket through it
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    for ns in fabtune-leaf0 fabtune-leaf1; do ip netns del "$ns" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
. "$top_srcdir/tests/fixtures/sysfs-lib.sh"
mount -t sysfs sysfs /sys
ip link set lo up

# leaf-rN in namespace fabtune-leafN, with its own lldpd and socket.
for n in 0 1; do
    ip netns add "fabtune-leaf$n"
    ip -n "fabtune-leaf$n" link set lo up
    ip netns exec "fabtune-leaf$n" lldpd -d -u "$tmp/leaf$n.sock" -I 's*' > "$tmp/leaf$n.log" 2>&1 &
    pids="$pids $!"
done
leafcli() { n=$1; shift; ip netns exec "fabtune-leaf$n" lldpcli -u "$tmp/leaf$n.sock" "$@" > /dev/null; }
# cable RAIL LEAF PORT: the rail's veth, its far end PORT in leaf LEAF's namespace.
cable() {
    ip link del "$1" 2>/dev/null
    ip link add "$1" type veth peer name "$3" netns "fabtune-leaf$2"
    ip link set "$1" up
    ip -n "fabtune-leaf$2" link set "$3" up
}
cable r0 0 s0
cable r1 1 s1
lldpd -d -u "$tmp/node.sock" -I 'r*' > "$tmp/node.log" 2>&1 &
nodepid=$!
pids="$pids $nodepid"
for t in $(seq 50); do [ -S "$tmp/leaf0.sock" ] && [ -S "$tmp/leaf1.sock" ] && [ -S "$tmp/node.sock" ] && break; sleep 0.1; done
for n in 0 1; do
    leafcli $n configure system hostname "leaf-r$n"
    leafcli $n configure lldp tx-interval 1
    leafcli $n update
done

# wait_for RAIL TEXT: the node's lldpd shows TEXT among RAIL's neighbours, within 60 s (it
# converges in 1-3 s here; CI's ASan pass beside a guest once took over 15 s).
wait_for() {
    start=$(date +%s)
    while [ $(( $(date +%s) - start )) -lt 60 ]; do
        "$capture" "$tmp/node.sock" "$1" > "$tmp/cap" 2>&1 && grep -q -- "$2" "$tmp/cap" && {
            pass "$1: '$2' within $(( $(date +%s) - start )) s"; return; }
        sleep 0.1
    done
    fail "$1: no '$2' in 60 s"; cat "$tmp/cap"
}
# wait_gone RAIL TEXT: TEXT no longer among RAIL's neighbours (an old one's TTL), within 15 s.
wait_gone() {
    for t in $(seq 150); do
        "$capture" "$tmp/node.sock" "$1" > "$tmp/cap" 2>&1 && ! grep -q -- "$2" "$tmp/cap" && return
        sleep 0.1
    done
    fail "$1: '$2' still there after 15 s"
}

fx="$tmp/sys"
for n in 0 1; do    # (sysfs-lib.sh's functions set $i and $d)
    virt_ib_dev "$fx" "rxe$n" "r$n" "0000:0000:0000:000$n"
    ib_port "$fx" "rxe$n" 1 Ethernet "4: ACTIVE" "5: LinkUp" "10 Gb/sec (1X FDR10)" 4 no
    gid "$fx" "rxe$n" 1 0 "$(v4gid "10.9.0.$((n + 1))")" "RoCE v2" "r$n"
    netdev "$fx" virtual "r$n" up 1 1500 1 "$(cat "/sys/class/net/r$n/ifindex")"
done
cat > "$tmp/policy" <<EOP
version: 1
tuning: {mode: off}
rails:
  topology: distinct_switches
  neighbors:
    lldpd_socket: $tmp/node.sock
    switch: "leaf-r{index}"
EOP
judge() {   # fabtuned --once on the fake /sys: the fabric.* findings, one per line
    unshare -m --propagation private sh -c 'mount --bind "$1" /sys && shift && exec "$@"' sh "$fx" \
        "$fabtuned" --once --json --no-probes -c "$tmp/policy" --state-dir "$tmp/state" \
        --log-target stderr > "$tmp/report.json" 2> "$tmp/err"
    [ -s "$tmp/report.json" ] || { fail "fabtuned --once wrote no report"; cat "$tmp/err"; }
    jq -r '.findings[] | select(.check | startswith("fabric.")) |
           "\(.check) \(.rail) \(.severity): \(.message) | \(.hint)"' "$tmp/report.json" > "$tmp/f"
}

echo "# cabled as planned"
wait_for r0 "sysname leaf-r0"
wait_for r1 "sysname leaf-r1"
judge
expect_match "^fabric.neighbor rxe0/1 ok: leaf-r0 port s0 " "$tmp/f"
expect_match "^fabric.neighbor rxe1/1 ok: leaf-r1 port s1 " "$tmp/f"
expect_match "^fabric.cabling rxe0/1 ok: leaf-r0 port s0 " "$tmp/f"
expect_match "^fabric.cabling rxe1/1 ok: leaf-r1 port s1 " "$tmp/f"
[ "$(jq -r '.rails[] | select(.name == "rxe1/1") | .neighbors.list[0].system_name' "$tmp/report.json")" = leaf-r1 ] &&
    pass "the report's rxe1/1 neighbour is leaf-r1" || fail "the report's neighbours: $(jq -c '.rails[].neighbors' "$tmp/report.json")"

# The daemon on the same /sys: fabtunectl neighbors shows each rail's leaf and port, its
# --json equals the daemon's report's rails[].neighbors, and fabtune_rail_neighbor_info
# names the same switch and port, promtool clean.
sed 's/^tuning: {mode: off}$/tuning: {mode: off}\nchecks: {interval: 1h}\nprobes: {enabled: false}/' \
    "$tmp/policy" > "$tmp/daemon.policy"
unshare -m --propagation private sh -c 'mount --bind "$1" /sys && shift && exec "$@"' sh "$fx" \
    "$fabtuned" -c "$tmp/daemon.policy" --state-dir "$tmp/dstate" --runtime-dir "$tmp/drun" \
    --log-target stderr 2> "$tmp/daemon.log" &
dpid=$!
pids="$pids $dpid"
ctl="$top_builddir/src/client/fabtunectl"
for t in $(seq 100); do "$ctl" -s "$tmp/drun/fabtuned.sock" --json neighbors > "$tmp/nb.json" 2>/dev/null && break; sleep 0.1; done
expect_rc 0 "$ctl" -s "$tmp/drun/fabtuned.sock" neighbors
cp "$LAST_OUT" "$tmp/nb.txt"
sed "s/^/    /" "$tmp/nb.txt"
expect_match '^RAIL  *NETDEV  *SWITCH  *SWITCH PORT  *PORT DESCRIPTION  *MGMT ADDRESS  *VLANS  *MFS  *AGE$' "$tmp/nb.txt"
expect_match '^rxe0/1  *r0  *leaf-r0  *s0  *s0  *[^ ]*  *-  *[0-9-]*  *[0-9]* s$' "$tmp/nb.txt"
expect_match '^rxe1/1  *r1  *leaf-r1  *s1  *s1  *[^ ]*  *-  *[0-9-]*  *[0-9]* s$' "$tmp/nb.txt"
expect_rc 0 "$ctl" -s "$tmp/drun/fabtuned.sock" --json status
jq -S '[.rails[].neighbors]' "$LAST_OUT" > "$tmp/status-nb"
expect_rc 0 "$ctl" -s "$tmp/drun/fabtuned.sock" --json neighbors
jq -S '[.[].neighbors]' "$LAST_OUT" > "$tmp/ctl-nb"
jq -r '.[] | "\(.name) \(.netdev) \(.neighbors.list[0].system_name)"' "$LAST_OUT" > "$tmp/ctl-rails"
expect_match '^rxe1/1 r1 leaf-r1$' "$tmp/ctl-rails"
if [ "$(jq length "$tmp/status-nb")" = 2 ] && grep -q leaf-r0 "$tmp/ctl-nb" && cmp -s "$tmp/status-nb" "$tmp/ctl-nb"; then
    pass "neighbors --json equals the report's rails[].neighbors"
else
    fail "neighbors --json differs from the report's:"; diff "$tmp/status-nb" "$tmp/ctl-nb"
fi
expect_rc 0 "$ctl" -s "$tmp/drun/fabtuned.sock" metrics
cp "$LAST_OUT" "$tmp/metrics"
expect_match '^fabtune_rail_neighbor_info{device="rxe0",port="1",netdev="r0",switch="leaf-r0",switch_port="s0"} 1$' "$tmp/metrics"
expect_match '^fabtune_rail_neighbor_info{device="rxe1",port="1",netdev="r1",switch="leaf-r1",switch_port="s1"} 1$' "$tmp/metrics"
if command -v promtool > /dev/null; then
    promtool check metrics < "$tmp/metrics" > "$tmp/promtool.out" 2>&1 && [ ! -s "$tmp/promtool.out" ] &&
        pass "promtool check metrics: clean with fabtune_rail_neighbor_info" ||
        { fail "promtool check metrics"; cat "$tmp/promtool.out"; }
fi
kill "$dpid"

# fabtunectl snapshot keeps the neighbours (it asks lldpd's default socket: here a link to
# the node's, on a /run of its own), and fabtuned judges the snapshot as it judged the node.
unshare -m --propagation private sh -c 'mount -t tmpfs tmpfs /run && ln -s "$1" /run/lldpd.socket &&
    exec "$2" snapshot "$3"' sh "$tmp/node.sock" "$top_builddir/src/client/fabtunectl" "$tmp/snap.tar" \
    > /dev/null 2> "$tmp/snap.err" || { fail "fabtunectl snapshot failed"; cat "$tmp/snap.err"; }
mkdir "$tmp/snap" && tar -C "$tmp/snap" -xf "$tmp/snap.tar" fabtune 2>/dev/null
expect_grep "sysname leaf-r1" "$tmp/snap/fabtune/net/r1/lldp"
cp -a "$fx" "$tmp/offline" && mkdir -p "$tmp/offline-root" && mv "$tmp/offline" "$tmp/offline-root/sys" &&
    cp -a "$tmp/snap/fabtune" "$tmp/offline-root/fabtune"
"$fabtuned" --once --json --no-probes -c "$tmp/policy" --sysfs-root "$tmp/offline-root/sys" \
    > "$tmp/offline.json" 2> "$tmp/err"
jq -r '.findings[] | select(.check == "fabric.neighbor") | "\(.rail) \(.severity): \(.message)"' \
    "$tmp/offline.json" > "$tmp/f"
expect_match "^rxe0/1 ok: leaf-r0 port s0 " "$tmp/f"
expect_match "^rxe1/1 ok: leaf-r1 port s1 " "$tmp/f"

echo "# r1 moved to leaf-r0"
cable r1 0 s1
wait_for r1 "sysname leaf-r0"
judge
expect_match "^fabric.cabling rxe1/1 error: leaf-r0 port s1: rxe0/1 reaches the same switch, leaf-r0 (rails.topology is distinct_switches); switch leaf-r0 does not match leaf-r1 " "$tmp/f"
expect_match "^fabric.cabling rxe0/1 error: leaf-r0 port s0: rxe1/1 reaches the same switch, leaf-r0 " "$tmp/f"

echo "# the two cables swapped: r0 on leaf-r1, r1 on leaf-r0 (timeline in seconds from the swap)"
t0=$(date +%s.%N)
cable r0 1 s0
wait_for r0 "sysname leaf-r1"
wait_gone r0 "sysname leaf-r0"
t_lldp=$(date +%s.%N)
judge
t_found=$(date +%s.%N)
expect_match "^fabric.cabling rxe0/1 error: leaf-r1 port s0: .*switch leaf-r1 does not match leaf-r0" "$tmp/f"
expect_match "^fabric.cabling rxe1/1 error: leaf-r0 port s1: .*switch leaf-r0 does not match leaf-r1" "$tmp/f"
echo "    timeline: swapped at 0; the node's lldpd holds only the new neighbours at" \
     "$(awk -v a="$t_lldp" -v b="$t0" 'BEGIN { printf "%.1f", a - b }') s; fabtuned's findings" \
     "name both rails at $(awk -v a="$t_found" -v b="$t0" 'BEGIN { printf "%.1f", a - b }') s"
cable r0 0 s0
wait_for r0 "sysname leaf-r0"
wait_gone r0 "sysname leaf-r1"

echo "# the frame size: Debian's lldpd 1.0.16 sends no 802.3 MFS TLV from a veth port (tried at"
echo "# MTU 1280 and 4000 here), so fabric.mtu is unknown and says why; the judgement of a"
echo "# frame size is tested on captured data (check_lldp, fabtunectl-diff.sh)"
judge
expect_match "^fabric.mtu rxe0/1 unknown: leaf-r0 does not advertise its maximum frame size (802.3 TLV)" "$tmp/f"

echo "# two rails on one switch port"
leafcli 0 configure ports s0 lldp portidsubtype local swp1
leafcli 0 configure ports s1 lldp portidsubtype local swp1
wait_for r0 "port.id swp1"
wait_for r1 "port.id swp1"
judge
expect_match "^fabric.cabling rxe0/1 error: leaf-r0 port swp1: rxe1/1 reaches the same switch port, leaf-r0 port swp1" "$tmp/f"
expect_match "^fabric.cabling rxe1/1 error: leaf-r0 port swp1: rxe0/1 reaches the same switch port, leaf-r0 port swp1" "$tmp/f"

echo "# the node's lldpd stopped"
kill "$nodepid"
for t in $(seq 50); do kill -0 "$nodepid" 2>/dev/null || break; sleep 0.1; done
judge
expect_match "^fabric.neighbor rxe0/1 unknown: .*lldpd is not running: install and enable it" "$tmp/f"
expect_match "^fabric.neighbor rxe1/1 unknown: .*systemctl enable --now lldpd" "$tmp/f"
[ "$(grep -c '^fabric.cabling' "$tmp/f")" = 0 ] && pass "no fabric.cabling without neighbours" ||
    fail "fabric.cabling without lldpd: $(grep '^fabric.cabling' "$tmp/f")"
finish
