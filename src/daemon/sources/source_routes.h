/* SPDX-License-Identifier: ISC */
/* The routes source: for every Ethernet rail with an IPv4 address, where its packets go
 * (route lookups to the probed peers and gateways from the rail's address, unbound and
 * bound to its netdev; the policy rules; the routes through its netdev; its neighbours)
 * and its interface sysctls (net.ipv4.conf.{all,IF}.{arp_ignore,arp_announce,rp_filter,
 * accept_local}) through the procfs root. */
#pragma once

#include <stdbool.h>

#include "inventory.h"
#include "policy.h"

/* LIVE: asks rtnetlink (snapshot/kernel_routes.h) about the policy's probed peers;
 * offline: parses the conversation a snapshot kept (fabtune/net/IF/routes). PROCROOT may
 * be NULL: the sysctls stay unknown. */
void source_routes_fill(const char *sysroot, const char *procroot, bool live,
                        const struct policy *p, struct inventory *inv);
