/* SPDX-License-Identifier: ISC */
/* The subnet a rail's RoCE v2 IPv4 address is in: its address from the GID table, its
 * prefix from the netdev's addresses. */
#pragma once

#include "cidr.h"

struct rail;

/* The subnet of the rail's RoCE v2 IPv4 address: the GID at the chosen index when that is
 * an IPv4-mapped RoCE v2 one, else the table's first such GID; the prefix of the same
 * address on the rail's netdev. -ENODATA without such a GID, or when the netdev's
 * addresses are unknown (a sysfs snapshot) or do not hold it. */
int rail_roce_ipv4_subnet(const struct rail *r, struct cidr *ret);
/* The subnet an address of that prefix is in: host bits cleared. */
void cidr_of_address(int family, const void *addr, unsigned prefix_len, struct cidr *ret);
