/* SPDX-License-Identifier: ISC */
/* Where a rail's IPv4 packets go: the kernel's answers to route lookups from the rail's
 * address, its policy rules, the routes through its netdev, its neighbours, and the
 * interface sysctls that decide ARP and reverse-path filtering. Addresses are IPv4 in
 * network byte order. The routes source fills it; the route.* checks read it. */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ROUTES_MAX_LOOKUPS 1024     /* 512 destinations, unbound and bound */
#define ROUTES_MAX_RULES 256
#define ROUTES_MAX_ROUTES 256
#define ROUTES_MAX_NEIGH 1024

/* "ip route get DST from SRC [oif IF]" and the kernel's answer. */
struct route_lookup {
    uint32_t dst, src;
    int oif_asked;              /* 0: unbound; the rail's ifindex when bound */
    int err;                    /* 0, or the kernel's -errno (-ENETUNREACH, ...) */
    int oif;                    /* the answer's output ifindex */
    uint32_t gateway, prefsrc;
    uint32_t table;
    uint8_t type;               /* RTN_UNICAST, RTN_LOCAL, ... */
};

/* "ip rule": the selectors fabtune reads. */
struct route_rule {
    uint32_t priority;
    uint32_t src, dst;          /* 0/0: all */
    uint8_t src_len, dst_len;
    uint32_t table;
    uint8_t action;             /* FR_ACT_TO_TBL, ... */
    char iif[IFNAMSIZ], oif[IFNAMSIZ];
};

/* A route through the rail's netdev, in any table. */
struct route_entry {
    uint32_t dst, gateway, prefsrc;
    uint8_t dst_len;
    uint32_t table;
    uint8_t type;
};

/* The kernel's NUD_VALID (include/net/neighbour.h, not in the uapi): states with a MAC. */
#define ROUTES_NUD_VALID 0xde   /* PERMANENT NOARP REACHABLE PROBE STALE DELAY */

struct neigh_entry {
    uint32_t addr;
    int ifindex;
    uint8_t mac[6];
    bool has_mac;
    uint16_t state;             /* NUD_* */
};

/* net.ipv4.conf.{all,IF}.*: -1 unread. */
struct if_sysctls {
    int arp_ignore, arp_announce, rp_filter, accept_local;
};

struct rail_routes {
    bool known;                 /* the conversation was had (live) or kept (a snapshot) */
    char why[160];              /* why not */
    int ifindex;
    uint8_t mac[6];
    bool has_mac;
    uint32_t addr;              /* the rail's IPv4 address the lookups start from */
    uint8_t prefix_len;
    uint32_t addrs[16];         /* every IPv4 address of the netdev, and their prefixes */
    uint8_t addr_prefix[16];
    size_t n_addrs;
    struct route_lookup *lookups;
    size_t n_lookups;
    struct route_rule *rules;
    size_t n_rules;
    struct route_entry *routes;
    size_t n_routes;
    struct neigh_entry *neigh;
    size_t n_neigh;
    bool sysctls_known;
    char sysctls_why[96];
    struct if_sysctls all, dev;
    uint32_t peers[64];         /* the probed peers' addresses the lookups were asked for */
    size_t n_peers;
};

void rail_routes_done(struct rail_routes *rr);
/* The lookup of DST asked bound (OIF != 0) or unbound, or NULL. */
const struct route_lookup *rail_routes_lookup(const struct rail_routes *rr, uint32_t dst,
                                              bool bound);
/* The effective rp_filter (the kernel takes the maximum of all and IF), -1 unread. */
int rail_routes_rp_filter(const struct rail_routes *rr);
/* The effective arp_ignore and arp_announce (the maximum, as for rp_filter). */
int rail_routes_arp_ignore(const struct rail_routes *rr);
int rail_routes_arp_announce(const struct rail_routes *rr);
/* The effective accept_local (the kernel ORs all and IF). */
int rail_routes_accept_local(const struct rail_routes *rr);
/* Source routing for the rail's address: a rule from it (or a prefix holding it) to a table
 * other than main, local and default, where that table routes the rail's subnet. The
 * table into *TABLE (the last such rule's, when none routes the subnet). */
bool rail_routes_source_routed(const struct rail_routes *rr, uint32_t *table);
/* The subnet of ADDR/LEN. */
static inline uint32_t routes_subnet(uint32_t addr, uint8_t len)
{
    uint32_t h = len == 0 ? 0 : len >= 32 ? 0xffffffffu : ~(0xffffffffu >> len);
    return addr & __builtin_bswap32(h);
}
/* "10.0.0.1" into BUF. */
const char *routes_addr_text(uint32_t a, char *buf, size_t len);
