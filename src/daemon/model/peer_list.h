/* SPDX-License-Identifier: ISC */
/* The peers a node probes: host names or addresses from the policy and from a file a
 * cluster tool writes, and the k neighbours this node takes from them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define PEER_HOST_MAX 253       /* a DNS name's length; an IPv6 literal is shorter */
/* Hosts in one list. A cluster's peers file names every node: 10,000 hosts fit with room.
 * A list is sorted by insertion, so a reverse-sorted file of PEERS_MAX hosts costs
 * PEERS_MAX^2 / 2 pointer moves (1 GiB): about a tenth of a second. */
#define PEERS_MAX 16384
#define PEERS_FILE_MAX (1024 * 1024)

/* A host name (RFC 1123 labels), an IPv4 literal or an IPv6 literal. */
bool peer_host_valid(const char *s);

struct peer_list {
    char **hosts;               /* sorted, without duplicates */
    size_t n, cap;              /* cap: room in hosts (grown by doubling) */
};

/* Parses a peers file: one host per line; blank lines and '#' comments are skipped; each
 * line's host may be followed by spaces and a comment. On a malformed line, returns
 * -EINVAL with "line N: why" in err (and the list empty); -E2BIG past PEERS_MAX. */
int peer_list_parse(const char *text, size_t len, struct peer_list *ret, char *err, size_t err_len);
/* Adds a host (copied), keeping the list sorted and without duplicates. -E2BIG past
 * PEERS_MAX; -ENOMEM. */
int peer_list_add(struct peer_list *l, const char *host);
void peer_list_done(struct peer_list *l);

/* This node's k neighbours: the k hosts after this node in the sorted list, in a ring, so
 * that every node is probed by k others and N nodes cost N*k probes. This node is the
 * entry that is_self() accepts, or, when none is, the place its name would sort at.
 * Writes up to k indexes into ret; returns how many. */
size_t peer_list_neighbours(const struct peer_list *l, const char *self_name,
                            bool (*is_self)(const char *host, void *data), void *data,
                            size_t k, size_t *ret);
