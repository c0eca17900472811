/* SPDX-License-Identifier: ISC */
/* A peer path's isolation figures (model/link_traffic.h): this node's netdev counters and
 * the peer's links answer before the path's probes and after each transport's, and, after
 * a failed RDMA probe, this node's neighbour entry for the peer (ARP flux). Only for a
 * path from a rail: a path from the host has no rail netdev to hold its bytes to. */
#pragma once

#include "link_traffic.h"
#include "probe_rdma_peer.h"
#include "probe_run.h"

struct probe_isolation;

/* The first reading, before the path's first probe; NULL when the path is not measured
 * (from the host, or no reading: E's isolation.error says why). DST is the peer's
 * address as peers_resolve gives it. */
struct probe_isolation *probe_isolation_start(struct probe_peer *e, const uint8_t dst[16]);
/* Where the RDMA probe leaves the rail's neighbour entry of its connect time (NULL when
 * ISO is). */
struct rdma_connect_neighbour *probe_isolation_neighbour(struct probe_isolation *iso);
/* After transport T's probes ran: a reading, and T's leg from the one before. */
void probe_isolation_after(struct probe_isolation *iso, struct probe_peer *e, enum isolation_transport t);
/* The flux reading after a failed RDMA probe, and the end; ISO is freed. */
void probe_isolation_finish(struct probe_isolation *iso, struct probe_peer *e);
