/* SPDX-License-Identifier: ISC */
/* Per-rail sysctl keys: "net.ipv4.conf.@rail.arp_ignore" stands for that key of each rail's
 * netdev, "@multirail" for the same on a node with two or more rail netdevs only. */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>

struct inventory;

/* Distinct rail netdevs a node's keys expand over; the inventory's order, no duplicates. */
#define RAIL_SYSCTL_MAX_NETDEVS 256

enum rail_sysctl_scope {
    RAIL_SYSCTL_PLAIN,          /* no @ component: the key itself */
    RAIL_SYSCTL_RAIL,           /* @rail: each rail netdev */
    RAIL_SYSCTL_MULTIRAIL,      /* @multirail: each rail netdev, with two or more of them */
};

struct rail_netdevs {
    char name[RAIL_SYSCTL_MAX_NETDEVS][IFNAMSIZ];
    size_t n;
    size_t n_dropped;           /* names past RAIL_SYSCTL_MAX_NETDEVS, or unusable in a key */
};

/* A policy key's scope. A malformed @ key gives -EINVAL and *ret_why, a sentence for the
 * loader's error: an @ that does not begin a component, a name other than rail or
 * multirail, two @ components, one outside the kernel's per-interface directories
 * (net.ipv4.conf, net.ipv4.neigh, net.ipv6.conf, net.ipv6.neigh) or with no file after it,
 * or a key that a 15-character netdev name would stretch past key_max (0: no limit). */
int rail_sysctl_parse(const char *key, size_t key_max, enum rail_sysctl_scope *ret,
                      const char **ret_why);
/* Whether a key of this scope names any key on a node with these rail netdevs. */
bool rail_sysctl_applies(enum rail_sysctl_scope s, const struct rail_netdevs *rails);
/* The key for one netdev: the @ component replaced by its name, in which '.' becomes '/'
 * as sysctl(8) writes it ("eth0.100" -> "net.ipv4.conf.eth0/100.arp_ignore"). A PLAIN key
 * is copied. 0, -EINVAL (a malformed key), or -ENAMETOOLONG. */
int rail_sysctl_expand(const char *key, const char *netdev, char *buf, size_t len);
/* "net.ipv4.conf.@multirail.x" -> "net.ipv4.conf.@rail.x": two keys of one canonical
 * form name the same sysctls, and the loader refuses the second as a duplicate. */
void rail_sysctl_canonical(const char *key, char *buf, size_t len);

/* Adds a netdev once; "" and names that cannot be a kernel netdev's are counted in
 * n_dropped, as are names past the table. */
void rail_netdevs_add(struct rail_netdevs *r, const char *name);
/* The distinct netdevs of the inventory's rails (those that have one). */
void rail_netdevs_from_inventory(const struct inventory *inv, struct rail_netdevs *ret);
