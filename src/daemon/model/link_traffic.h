/* SPDX-License-Identifier: ISC */
/* Where a peer probe's bytes really went (route.isolation): the byte counters of a node's
 * netdevs before and after one transport's probe, on this node (rtnetlink) and on the
 * peer (its responder's links answer, wire/peer_links.h), and what they prove.
 *
 * A multi-rail node in one subnet with ARP flux can send rail R's RoCE packets to the MAC
 * of the peer's other NIC, whose rxe drops them without a counter: only that NIC's
 * rx_bytes shows them. An HCA that offloads RoCE (mlx5) counts RDMA bytes not in its
 * netdev's rx_bytes/tx_bytes but in its port's data counters: the RDMA leg reads those
 * where both readings of a netdev have them. A probe's own payload P is known; the rail's netdev counts at
 * least P when the bytes went its way, whatever else the node sends. So a side is judged
 * "right" when the rail's netdev counted P/2 or more, "elsewhere" when it did not and
 * another netdev did, "unseen" when neither did. Background traffic can only add to the
 * rail's count, never make a right path look wrong. */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LINK_TRAFFIC_MAX 32         /* netdevs reported per node */
#define LINK_TRAFFIC_ADDRS 4        /* addresses reported per netdev */

struct link_traffic_entry {
    char name[IFNAMSIZ];
    uint8_t mac[6];
    uint64_t rx_bytes, tx_bytes;
    uint8_t n_addrs;
    uint8_t addrs[LINK_TRAFFIC_ADDRS][16];  /* IPv6, IPv4 as ::ffff:a.b.c.d */
    /* The data counters of the RDMA port whose netdev this is (sources/source_port_data.h),
     * in bytes: an HCA that offloads RoCE (mlx5) counts its RDMA bytes there, not in the
     * netdev's rx_bytes/tx_bytes. False without such a port, or one without the counters
     * (Soft-RoCE has hw_counters/ only). */
    bool has_port_data;
    uint64_t port_rx_bytes, port_tx_bytes;
    /* The responder's way back: the MAC of its neighbour entry, on this netdev, for the
     * address the links session came from (the prober's rail). ARP flux on the peer's side
     * leaves there the MAC of the prober's other NIC, and the RDMA answers go to it. */
    bool has_back_neigh;
    uint8_t back_neigh_mac[6];
};

/* A node's netdevs that carry an address, loopback left out. */
struct link_traffic {
    size_t n;
    struct link_traffic_entry e[LINK_TRAFFIC_MAX];
};

const struct link_traffic_entry *link_traffic_find(const struct link_traffic *t, const char *name);
/* The netdev that holds ADDR (16 bytes, IPv4 mapped), or NULL. */
const struct link_traffic_entry *link_traffic_owner(const struct link_traffic *t, const uint8_t addr[16]);
const struct link_traffic_entry *link_traffic_by_mac(const struct link_traffic *t, const uint8_t mac[6]);
/* Adds ADDR (family AF_INET or AF_INET6, 4 or 16 bytes) to E, mapped; false when full. */
bool link_traffic_add_address(struct link_traffic_entry *e, int family, const uint8_t *addr);

/* Which counter a side's figure is: the netdev's bytes, or its RDMA port's data counters
 * (an RDMA leg, where both readings have them). */
enum isolation_counter { ISOLATION_COUNTER_NETDEV, ISOLATION_COUNTER_PORT_DATA };

/* One side of one direction: the count of the netdev that should carry the bytes, and the
 * largest count among the others (its name; "" when there is no other netdev), each with
 * the counter it came from. */
struct isolation_side {
    char want[IFNAMSIZ];
    uint64_t want_bytes;
    enum isolation_counter want_counter;
    char other[IFNAMSIZ];
    uint64_t other_bytes;
    enum isolation_counter other_counter;
};

enum isolation_verdict {
    ISOLATION_UNMEASURED,       /* no counters, or no payload to look for */
    ISOLATION_RIGHT,
    ISOLATION_ELSEWHERE,
    ISOLATION_UNSEEN,           /* neither the rail's netdev nor another counted them */
};

/* One transport's window: what the prober sent and got back (payload bytes), and the four
 * sides: this node's tx, the peer's rx (the way out), the peer's tx, this node's rx (the
 * way back). */
struct isolation_leg {
    bool measured;
    uint64_t out_bytes, back_bytes;
    struct isolation_side own_tx, peer_rx, peer_tx, own_rx;
};

enum isolation_transport { ISOLATION_RDMA, ISOLATION_TCP, ISOLATION_TRANSPORTS };

/* A peer path's isolation, filled by the probe run from the rail netdev RAIL (this node)
 * to the peer's netdev that holds the probed address (PEER_RAIL). */
struct path_isolation {
    char error[120];            /* why it is unmeasured: "" when measured */
    char rail[IFNAMSIZ], peer_rail[IFNAMSIZ];
    uint8_t rail_mac[6], peer_rail_mac[6];
    struct isolation_leg leg[ISOLATION_TRANSPORTS];
    /* After a failed RDMA probe, ARP flux (FLUX): on the way out, this node's neighbour
     * entry for the peer's address on RAIL holds NEIGH_MAC, the MAC of the peer's netdev
     * NEIGH_OWNER, not PEER_RAIL's; or, on the way back (FLUX_BACK), the peer's entry on
     * PEER_RAIL for this node's address holds NEIGH_MAC, the MAC of this node's netdev
     * NEIGH_OWNER, not RAIL's. */
    bool flux, flux_back;
    uint8_t neigh_mac[6];
    char neigh_owner[IFNAMSIZ];
};

/* The side of the netdev WANT between BEFORE and AFTER: rx counts, or tx. With PORT_DATA
 * (the RDMA leg), a netdev whose entries both have port data counts by it (an offloading
 * HCA's RDMA bytes pass its netdev's counters by), any other by its netdev counters; the
 * TCP leg passes false. A counter that went backwards (a driver reset) counts as 0. */
void isolation_side_measure(const struct link_traffic *before, const struct link_traffic *after,
                            const char *want, bool rx, bool port_data, struct isolation_side *out);
/* "netdev" or "port_data", as the JSON report says it. */
const char *isolation_counter_name(enum isolation_counter c);
enum isolation_verdict isolation_side_judge(const struct isolation_side *s, uint64_t payload);
/* The leg's verdict: the worst of its sides (ELSEWHERE over UNSEEN over RIGHT); the way
 * back is judged only when it carried a payload. */
enum isolation_verdict isolation_leg_judge(const struct isolation_leg *l);
const char *isolation_transport_name(enum isolation_transport t);
/* "aa:bb:cc:dd:ee:ff" into BUF (18 bytes or more). */
void link_traffic_mac_text(const uint8_t mac[6], char *buf, size_t len);
