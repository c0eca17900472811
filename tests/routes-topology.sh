# SPDX-License-Identifier: ISC
# The multi-rail fabric of tests/routes-netns.sh (and of tests/fixtures/routes/capture.sh),
# sourced inside "unshare -n -m": this namespace is node A, with three veth rails a1 a2 a3
# (10.9.0.1-3/24, one subnet, as GPU nodes' rails often are) whose far ends sit on the
# bridge br0; namespace B (ip netns, on a private /run/netns) is a peer node with three
# rails b1 b2 b3 (10.9.0.101-103/24) on the same bridge: one L2, as in
# ../shared/reference/tworail-vm. Both keep the kernel's stock sysctls, except
# rp_filter=1 ("strict", what RHEL and its derivatives ship).
#   routes_topology NSNAME
routes_topology() {
    ns=$1
    mkdir -p /run/netns
    mount -t tmpfs tmpfs /run/netns
    ip netns add "$ns"
    ip link set lo up
    ip netns exec "$ns" ip link set lo up
    # IPv4 only: no IPv6 autoconfiguration chatter in the rails' packet counts.
    sysctl -qw net.ipv6.conf.default.disable_ipv6=1 2>/dev/null || true
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 2>/dev/null || true
    ip link add br0 type bridge
    ip link set br0 up
    for i in 1 2 3; do
        ip link add "a$i" type veth peer name "pa$i"
        ip link set "pa$i" master br0 up
        ip addr add "10.9.0.$i/24" dev "a$i"
        ip link set "a$i" up
        ip link add "b$i" type veth peer name "pb$i"
        ip link set "b$i" netns "$ns"
        ip link set "pb$i" master br0 up
        ip netns exec "$ns" ip addr add "10.9.0.10$i/24" dev "b$i"
        ip netns exec "$ns" ip link set "b$i" up
    done
    sysctl -qw net.ipv4.conf.all.rp_filter=1
    ip netns exec "$ns" sysctl -qw net.ipv4.conf.all.rp_filter=1
    # Bridge ports forward once the links are up (no STP): wait for a1's carrier.
    for _ in $(seq 50); do
        [ "$(cat /sys/class/net/a3/operstate 2>/dev/null)" = up ] && break
        sleep 0.1
    done
}

# The rails as fabtuned sees them, a sysfs tree (tests/fixtures/sysfs-lib.sh, sourced by
# the caller) to bind-mount over /sys: rxe0-2 on a1-a3, with their RoCE v2 GIDs.
#   routes_rails_fixture DIR
routes_rails_fixture() {
    for n in 1 2 3; do     # (sysfs-lib.sh's functions set $i and $d)
        virt_ib_dev "$1" "rxe$((n - 1))" "a$n" "0000:0000:0000:000$n"
        ib_port "$1" "rxe$((n - 1))" 1 Ethernet "4: ACTIVE" "5: LinkUp" "10 Gb/sec (1X FDR10)" 4 no
        gid "$1" "rxe$((n - 1))" 1 0 "$(v4gid "10.9.0.$n")" "RoCE v2" "a$n"
        netdev "$1" virtual "a$n" up 1 1500 1 "$(cat "/sys/class/net/a$n/ifindex")"
    done
}
