/* SPDX-License-Identifier: ISC */
/* The peer responder: answers other nodes' peer probes (peer_wire.h) on its own threads,
 * never the event loop's. Only the configured peers get a session; each session is
 * bounded in time, and at most max_sessions run at once. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "responder_address.h"

struct responder_stats {
    uint64_t sessions;          /* sessions served */
    uint64_t refused;           /* connections from outside the allowlist, reset unserved */
    uint64_t busy;              /* turned away at max_sessions */
    uint64_t bad_hello;         /* a malformed or late hello */
    uint32_t active;
    uint32_t allowed;           /* addresses in the allowlist */
};

struct responder;
/* Listens on probes.peers.port on each of the rails' addresses (TCP, and the RDMA CM), or
 * on every address (IPv6 and IPv4) when n is 0 (a node without rails, or none with an
 * address yet), and serves the policy's peers. The allowlist is resolved from the peers'
 * names in the responder's thread, again every minute (the peers file may change). */
int responder_start(const struct policy *p, const struct responder_address *addrs, size_t n,
                    struct responder **ret);
/* Ends every session and the listener; frees it (NULL is fine). */
void responder_stop(struct responder *r);
void responder_get_stats(struct responder *r, struct responder_stats *ret);
