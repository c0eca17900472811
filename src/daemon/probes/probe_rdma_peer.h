/* SPDX-License-Identifier: ISC */
/* The RDMA peer probe: an RC connection through the RDMA connection manager from a rail's
 * address to a peer's responder, then the loopback probe's WRITE ping-pong and stream. */
#pragma once

#include <stdint.h>

#include "probe_result.h"

/* src: the rail's address (its RoCE v2 GID's, or IPoIB's), or NULL for the route's. */
void probe_rdma_peer_run(int family, const uint8_t *src, const uint8_t dst[16], uint16_t port,
                         const struct probe_params *p, struct probe_result *latency,
                         struct probe_result *bandwidth);
