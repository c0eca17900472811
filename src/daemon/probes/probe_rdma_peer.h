/* SPDX-License-Identifier: ISC */
/* The RDMA peer probe: an RC connection through the RDMA connection manager from a rail's
 * address to a peer's responder, then the loopback probe's WRITE ping-pong and stream. */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "probe_result.h"

/* The neighbour entry for the peer on NETDEV when the connection manager had resolved the
 * route: the MAC the QP sends to for its whole life, whatever the entry holds later. */
struct rdma_connect_neighbour {
    char netdev[IFNAMSIZ];
    bool read;
    uint8_t mac[6];
};

/* src: the rail's address (its RoCE v2 GID's, or IPoIB's), or NULL for the route's.
 * NEIGHBOUR (or NULL): its netdev in, the entry out. */
void probe_rdma_peer_run(int family, const uint8_t *src, const uint8_t dst[16], uint16_t port,
                         const struct probe_params *p, struct probe_result *latency,
                         struct probe_result *bandwidth, struct rdma_connect_neighbour *neighbour);
