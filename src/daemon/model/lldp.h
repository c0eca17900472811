/* SPDX-License-Identifier: ISC */
/* What a rail's netdev is plugged into, as its LLDP neighbours tell (IEEE 802.1AB): the
 * chassis and port TLVs, the system name and description, the management addresses, the
 * 802.1 VLAN TLVs and the 802.3 maximum frame size TLV, as lldpd received them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One port normally has one neighbour; a second means a hub, a bridge that forwards LLDP
 * (it should not: 01:80:c2:00:00:0e is not forwarded), or two agents on the far side. */
#define LLDP_MAX_NEIGHBORS 2
#define LLDP_MAX_VLANS 32
#define LLDP_MAX_MGMT 4

struct lldp_neighbor {
    char chassis_subtype[16];   /* lldpd's names: "mac", "local", "ifname", "ip", ... */
    char chassis_id[64];
    char sysname[128];
    char sysdescr[256];
    char port_subtype[16];
    char port_id[64];
    char port_descr[128];
    char mgmt[LLDP_MAX_MGMT][48];   /* addresses, as text */
    size_t n_mgmt;
    uint16_t vlans[LLDP_MAX_VLANS]; /* 802.1 VLAN Name TLVs' ids */
    size_t n_vlans;
    uint16_t pvid;              /* 802.1 Port VLAN ID TLV; 0: not advertised */
    uint32_t mfs;               /* 802.3 Maximum Frame Size TLV, bytes; 0: not advertised */
    uint32_t age_s;             /* seconds since lldpd last saw this neighbour change */
};

struct rail_lldp {
    bool known;                 /* lldpd answered for this netdev (maybe with none) */
    char why[256];              /* why !known: the reason and the fix */
    int err;                    /* the capture's errno when !known (negative), or 0 */
    struct lldp_neighbor nb[LLDP_MAX_NEIGHBORS];
    size_t n;
    size_t n_dropped;           /* neighbours past LLDP_MAX_NEIGHBORS */
};

/* The neighbour L's port reaches now: the one lldpd heard from last (the smallest age).
 * After a recabling lldpd keeps the old neighbour until its TTL runs out (4 transmit
 * intervals: 2 minutes by default), beside the new one. NULL without neighbours. */
const struct lldp_neighbor *lldp_current(const struct rail_lldp *l);
/* The neighbour's switch: its system name, else its chassis id. */
const char *lldp_switch_name(const struct lldp_neighbor *n);
/* The neighbour's port: its description when the port id is a MAC, else the id. */
const char *lldp_port_name(const struct lldp_neighbor *n);
/* Whether N advertised VLAN VID (in its VLAN list or as its PVID). */
bool lldp_has_vlan(const struct lldp_neighbor *n, uint16_t vid);
