/* SPDX-License-Identifier: ISC */
/* The responder's links answer (a PEER_SESSION_LINKS session, peer_wire.h): its netdevs
 * that carry an address, each with its MAC, its byte counters and its addresses, so that
 * a prober can tell on which of the peer's NICs its probe's bytes arrived
 * (model/link_traffic.h). After the ack byte, all integers in network order:
 *     u8 count (0..LINK_TRAFFIC_MAX), then count entries of PEER_LINKS_ENTRY_LEN bytes:
 *     char name[16] (NUL-padded), u8 mac[6], u8 n_addrs (0..4), u8 zero,
 *     u64 rx_bytes, u64 tx_bytes, u8 addrs[4][16] (IPv6; IPv4 as ::ffff:a.b.c.d; unused
 *     slots zero)
 * then the responder closes. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "link_traffic.h"

#define PEER_LINKS_ENTRY_LEN (16 + 6 + 2 + 8 + 8 + LINK_TRAFFIC_ADDRS * 16)
#define PEER_LINKS_MAX_LEN (1 + LINK_TRAFFIC_MAX * PEER_LINKS_ENTRY_LEN)

/* Writes T's answer into OUT (PEER_LINKS_MAX_LEN bytes); returns its length. */
size_t peer_links_write(const struct link_traffic *t, uint8_t *out);
/* Parses an answer of exactly LEN bytes: -EBADMSG for anything else (a count or a length
 * that disagree, a name that is not a NUL-terminated printable string, n_addrs > 4). */
int peer_links_parse(const uint8_t *in, size_t len, struct link_traffic *ret);
