/* SPDX-License-Identifier: ISC */
/* The responder's links answer (a PEER_SESSION_LINKS session, peer_wire.h): its netdevs
 * that carry an address, each with its MAC, its byte counters and its addresses, so that
 * a prober can tell on which of the peer's NICs its probe's bytes arrived
 * (model/link_traffic.h). After the ack byte, all integers in network order:
 *     u8 count (0..LINK_TRAFFIC_MAX), then count entries of PEER_LINKS_ENTRY_LEN bytes:
 *     char name[16] (NUL-padded), u8 mac[6], u8 n_addrs (0..4), u8 zero,
 *     u64 rx_bytes, u64 tx_bytes, u8 addrs[4][16] (IPv6; IPv4 as ::ffff:a.b.c.d; unused
 *     slots zero)
 * then the responder closes. That is layout 0, what every fabtuned answers. The prober
 * asks for a layout in its hello (peer_wire.h); layout 1 appends to each entry the data
 * counters of the RDMA port whose netdev it is (sources/source_port_data.h) and the
 * responder's neighbour entry, on that netdev, for the address the session came from:
 *     u8 has_port_data (0 or 1), u8 has_back_neigh (0 or 1), u8 back_neigh_mac[6] (zero
 *     without the entry), u64 port_rx_bytes, u64 port_tx_bytes (both zero without port
 *     data)
 * A count and a length tell the layouts apart, but for the empty answer (one byte, the
 * same in both). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "link_traffic.h"

enum peer_links_layout {
    PEER_LINKS_NETDEV = 0,          /* the netdevs' counters */
    PEER_LINKS_PORT_DATA = 1,       /* and their RDMA ports' data counters, and the way back */
    PEER_LINKS_LAYOUT_MAX = PEER_LINKS_PORT_DATA,
};

#define PEER_LINKS_ENTRY_LEN (16 + 6 + 2 + 8 + 8 + LINK_TRAFFIC_ADDRS * 16)    /* layout 0 */
#define PEER_LINKS_PORT_DATA_LEN (1 + 1 + 6 + 8 + 8)                      /* layout 1 adds */
/* The longest answer of any layout. */
#define PEER_LINKS_MAX_LEN (1 + LINK_TRAFFIC_MAX * (PEER_LINKS_ENTRY_LEN + PEER_LINKS_PORT_DATA_LEN))

/* An entry's length in LAYOUT (0 for a layout this fabtuned does not know). */
size_t peer_links_entry_len(enum peer_links_layout layout);
/* Writes T's answer in LAYOUT into OUT (PEER_LINKS_MAX_LEN bytes); returns its length. */
size_t peer_links_write(const struct link_traffic *t, enum peer_links_layout layout, uint8_t *out);
/* Parses an answer in LAYOUT of exactly LEN bytes: -EBADMSG for anything else (a layout
 * it does not know, a count or a length that disagree, a name that is not a
 * NUL-terminated printable string, n_addrs > 4; in layout 1 a flag other than 0 or 1, a
 * MAC without has_back_neigh, figures without has_port_data). In layout 0 no entry has
 * port data or a neighbour entry. */
int peer_links_parse(const uint8_t *in, size_t len, enum peer_links_layout layout, struct link_traffic *ret);
