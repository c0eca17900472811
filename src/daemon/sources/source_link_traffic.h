/* SPDX-License-Identifier: ISC */
/* This node's netdevs' byte counters, MACs and addresses, and one neighbour entry, live
 * through rtnetlink (libnl-route), for the peer probes' isolation figures
 * (model/link_traffic.h) and the responder's links answer. Both read the network
 * namespace the daemon runs in. */
#pragma once

#include <stdint.h>

#include "link_traffic.h"

/* Every netdev with an address, loopback left out, up to LINK_TRAFFIC_MAX: 0 or -errno. */
int source_link_traffic_read(struct link_traffic *out);
/* The MAC of the neighbour entry for ADDR (family's 4 or 16 bytes) on netdev IFNAME:
 * 0, -ENOENT when there is no entry with a MAC, or -errno. */
int source_neighbour_mac(const char *ifname, int family, const uint8_t *addr, uint8_t mac[6]);
/* Every entry of T: its neighbour entry for ADDR (the responder's way back to a prober),
 * in has_back_neigh and back_neigh_mac. One dump: 0 or -errno. */
int source_link_traffic_back_neighbours(struct link_traffic *t, int family, const uint8_t *addr);
