/* SPDX-License-Identifier: ISC */
/* Where a netdev's IPv4 packets go, as the kernel answers rtnetlink: the conversation
 * itself, each request fabtune sent followed by the kernel's replies, as raw netlink
 * messages (what nlmon would capture). fabtuned's routes source parses it live
 * (sources/route_parse.h); fabtunectl snapshot keeps it as fabtune/net/IF/routes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Destinations asked about per netdev: a node's peers and gateways, well within. */
#define KERNEL_ROUTES_MAX_DSTS 512

struct kernel_capture {
    unsigned char *buf;         /* netlink messages, each NLMSG_ALIGNed */
    size_t len, cap;
};

void kernel_capture_done(struct kernel_capture *c);

/* Asks, in this order, and appends each request and its replies to OUT:
 *  - RTM_GETLINK for IFNAME (its ifindex and MAC);
 *  - RTM_GETADDR, filtered to IFNAME (strict checking; unfiltered on older kernels);
 *  - RTM_GETRULE, the IPv4 policy rules;
 *  - RTM_GETROUTE dump of every table, filtered to routes through IFNAME;
 *  - RTM_GETNEIGH dump of IFNAME's IPv4 neighbours;
 *  - with WITH_NEIGHBOURS, an unfiltered RTM_GETNEIGH dump: every netdev's neighbours;
 *  - for each destination (DSTS, the gateways of IFNAME's routes, and with WITH_NEIGHBOURS
 *    the addresses of every netdev's IPv4 neighbour entries): RTM_GETROUTE from SRC
 *    (IFNAME's first IPv4 address when 0), unbound, then bound to IFNAME (RTA_OIF), as
 *    RDMA CM binds it.
 * Addresses are IPv4 in network byte order. Returns 0, or -errno with WHY set. */
int kernel_routes_capture(const char *ifname, uint32_t src, const uint32_t *dsts, size_t n_dsts,
                          bool with_neighbours, struct kernel_capture *out, char *why,
                          size_t whylen);
