/* SPDX-License-Identifier: ISC */
/* The rtnetlink source: netdev oper state, carrier, MTU, carrier changes and addresses. */
#pragma once

#include "inventory.h"

/* Fills one netdev (by name) from rtnetlink. Returns 0, -ENODEV if absent, or -errno. */
int source_rtnl_netdev(struct netdev_info *nd);
/* One RTM_NEWLINK or RTM_NEWADDR message (nlmsg_len bytes at h) parsed by libnl-route into
 * nd, as the source reads the kernel's replies (an address counts for ifindex only).
 * -EINVAL for a message libnl refuses. */
struct nlmsghdr;
int source_rtnl_parse(const struct nlmsghdr *h, int ifindex, struct netdev_info *nd);
/* Fills every rail's netdev. */
void source_rtnl_fill(struct inventory *inv);
