/* SPDX-License-Identifier: ISC */
/* The TCP loopback probe: ping-pong latency and a bounded stream, on one address. */
#pragma once

#include "link_traffic.h"
#include "peer_links.h"
#include "probe_result.h"

/* Runs both ends on addr (AF_INET or AF_INET6): a listener bound to it and a client that
 * connects to it, with TCP_NODELAY. Fills the latency and bandwidth results. */
void probe_tcp_run(int family, const uint8_t addr[16], const struct probe_params *p,
                   struct probe_result *latency, struct probe_result *bandwidth);

/* The peer probe: the same ping-pong and a stream, against a peer's responder on port
 * (peer_wire.h), from src (the rail's address; NULL: the route's). */
void probe_tcp_peer_run(int family, const uint8_t *src, const uint8_t dst[16], uint16_t port,
                        const struct probe_params *p, struct probe_result *latency,
                        struct probe_result *bandwidth);

/* The peer's links answer (wire/peer_links.h) in layout *LAYOUT from its responder, within
 * TIMEOUT seconds: 0, or -errno with WHY saying what failed. An older responder that
 * refuses the layout (it closes at a hello it does not know) is asked again, once, for
 * layout 0, and one that answers layout 0 is taken at its word: *LAYOUT says the layout
 * OUT came in. */
int probe_tcp_peer_links(int family, const uint8_t *src, const uint8_t dst[16], uint16_t port,
                         double timeout, enum peer_links_layout *layout, struct link_traffic *out,
                         const char **why);
