/* SPDX-License-Identifier: ISC */
/* The configured peers on the live node: the policy's hosts and file merged, which entry
 * is this node, and a peer's address on a rail's subnet. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "peer_list.h"
#include "policy.h"

/* probes.peers.hosts plus the hosts of probes.peers.file. A file that cannot be read or
 * parsed is reported in err (the policy's hosts still count) and returns its -errno. */
int peers_load(const struct policy *p, struct peer_list *ret, char *err, size_t err_len);

/* Whether host is this node: its host name (or the short one), or an IP literal that one
 * of this node's interfaces holds. */
bool peers_is_self(const char *host, void *unused);
/* This node's k neighbours in the list, as indexes (peer_list_neighbours with the above). */
size_t peers_neighbours(const struct peer_list *l, size_t k, size_t *ret);

/* Resolves host to an address of family; of several, the one in src's subnet (src/prefix
 * may be NULL/0). 0, or a getaddrinfo error text in err and -EHOSTUNREACH. Blocks: call it
 * from a worker, never the event loop. */
int peers_resolve(const char *host, int family, const uint8_t *src, unsigned prefix,
                  uint8_t ret[16], char *err, size_t err_len);
/* Every address host has, of either family, IPv4 as ::ffff:a.b.c.d; up to max. */
size_t peers_resolve_all(const char *host, uint8_t (*ret)[16], size_t max);
