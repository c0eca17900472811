/* SPDX-License-Identifier: ISC */
/* The responder's RDMA side: an RDMA CM listener whose sessions answer the peer RDMA
 * probe (peer_wire.h). Internal to responder.c, whose allowlist and session slots it uses. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "responder_address.h"

struct responder;
struct rdma_listener;

/* The responder's side of it (responder.c). */
bool responder_allowed(struct responder *r, const uint8_t addr[16]);
void responder_count_refused(struct responder *r, const uint8_t src[16]);
void responder_count_bad(struct responder *r);
int responder_slot_take(struct responder *r);          /* -1 (counted busy) when full */
void responder_slot_release(struct responder *r, int slot, bool served);
double responder_session_limit(const struct responder *r);

/* Listens on port for RDMA CM connections, in its own thread. Memory: one buffer per RDMA
 * device, registered once, on the first session through it: max_sessions slots of
 * 2 x 64 KiB, one MR each (the rkey a session gets reaches its own slot only). -errno
 * when the connection manager is not there. */
/* ... on each of addrs (every address when n is 0). */
int rdma_listener_start(struct responder *owner, const struct responder_address *addrs,
                        size_t n, uint16_t port, uint32_t max_sessions, struct rdma_listener **ret);
/* Ends every session (each is released to the owner) and frees it; NULL is fine. */
void rdma_listener_stop(struct rdma_listener *l);
