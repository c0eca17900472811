# SPDX-License-Identifier: ISC
# The two-node stage's second rail (sourced by node.sh and node-a-tests.sh). Each guest's
# two virtio NICs and the other guest's two are members of one qemu multicast hub: one
# L2, as a rail-optimised node's NICs in one subnet behind one leaf
# (../shared/reference/tworail-vm, measured). eth0 carries the first rail from boot; the
# second, eth1 in the same /24, comes up for the two_rails test only.
#
#   node   eth0 (rail 1)         eth1 (rail 2)
#   A      10.77.0.1, rxe0       10.77.0.3, rxe1
#   B      10.77.0.2, rxe0       10.77.0.4, rxe1
a2=10.77.0.3 b2=10.77.0.4

# rail_up NETDEV ADDRESS RXE: the address, the link up, Soft-RoCE on it, its port ACTIVE.
rail_up() {
    ip addr add "$2/24" dev "$1" && ip link set "$1" up &&
        rdma link add "$3" type rxe netdev "$1" || return 1
    for _ in $(seq 100); do
        [ "$(cat "/sys/class/infiniband/$3/ports/1/state" 2>/dev/null)" = "4: ACTIVE" ] && return 0
        sleep 0.1
    done
    return 1
}

# rails_fix ADDRESS0 ADDRESS1: what fabtuned's route.* findings print for a node of two
# rails in one subnet: answer ARP only for a NIC's own address and ask only from it, a
# loose reverse-path filter, and a table per rail with a rule from its address; then
# forget what the stock node learnt.
rails_fix() {
    sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2 &&
        sysctl -qw net.ipv4.conf.eth0.rp_filter=2 net.ipv4.conf.eth1.rp_filter=2 || return 1
    ip rule add from "$1" table 101 && ip route add 10.77.0.0/24 dev eth0 src "$1" table 101 &&
        ip rule add from "$2" table 102 && ip route add 10.77.0.0/24 dev eth1 src "$2" table 102 &&
        ip neigh flush all
}
